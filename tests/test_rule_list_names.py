"""A rule list's attribute names are checked when it loads: a typo (``me.must_lok``)
is an error naming the file, line and field with the closest name, not a failure of
every fight at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from segsim.errors import InputError
from segsim.policies import load_rule_list

ROOT = Path(__file__).resolve().parent.parent
STRIKER = (ROOT / "examples/policies/striker.toml").read_text(encoding="utf-8")


def load_with(tmp_path: Path, text: str) -> InputError:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_rule_list(path)
    return error.value


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("wrong", "right", "message"),
    [
        (
            "me.must_lock",
            "me.must_lok",
            "me has no attribute 'must_lok'; did you mean 'must_lock'?",
        ),
        (
            "in_reach(target)",
            "target.reech",
            "target has no attribute 'reech'; did you mean 'reach'?",
        ),
        ("me.armed", "opponents[0].armd", "opponents[...] has no attribute 'armd'"),
        (
            "deficit(target)",
            "params.max_bonsu",
            "params has no attribute 'max_bonsu'; did you mean 'max_bonus'?",
        ),
        ("me.armed", "obs.segmnt > 3", "obs has no attribute 'segmnt'; did you mean 'segment'?"),
        ("in_reach(target)", "in_rech(target)", "unknown name 'in_rech'; did you mean 'in_reach'?"),
    ],
)
def test_a_misspelt_name_is_refused_at_load(
    tmp_path: Path, wrong: str, right: str, message: str
) -> None:
    text = STRIKER.replace(wrong, right, 1)
    assert text != STRIKER
    error = load_with(tmp_path, text)
    assert error.line == line_of(text, right)
    assert message in error.message


def test_the_shipped_rule_list_loads() -> None:
    policy = load_rule_list(ROOT / "examples/policies/striker.toml")
    assert policy.name == "striker"


def test_chroniques_views_are_checked_too(tmp_path: Path) -> None:
    text = (
        'ruleset = "chroniques"\n'
        "[[rule]]\n"
        'when = "me.hit_points > 3"\n'
        'do = "nothing"\n'
        "[[rule]]\n"
        'when = "me.hit_pionts > 3"\n'
        'do = "nothing"\n'
    )
    error = load_with(tmp_path, text)
    assert error.line == 6 and "did you mean 'hit_points'?" in error.message
