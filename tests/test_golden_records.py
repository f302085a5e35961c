"""Records committed before the engine's performance work, compared byte for byte.

Each example scenario is played with its own policies and with the random legal
policy for a few seeds, and the example fight script is played; the records must equal
the committed ones in ``tests/golden/``. A change of the rules that is meant to alter
fights regenerates the records it alters (and only those):

    .venv/bin/python tests/test_golden_records.py NAME...   # or no NAME: all of them
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
SCENARIOS = sorted((ROOT / "examples" / "scenarios").glob("*.toml"))
SEEDS = (1, 2)


def _scenario_record(path: Path, seed: int, random_policies: bool) -> str:
    from segsim import load_scenario
    from segsim.policy import make_policy
    from segsim.record import write_record

    scenario = load_scenario(path)
    policies = None
    if random_policies:
        policies = {c.id: make_policy(scenario.ruleset.name, "random") for c in scenario.combatants}
    fight = scenario.fight(seed, policies=policies)
    fight.run()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


def _script_record(path: Path) -> str:
    from segsim.record import write_record
    from segsim.script import load_script

    fight = load_script(path).play()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


def _cases() -> dict[str, Callable[[], str]]:
    cases: dict[str, Callable[[], str]] = {}
    for path in SCENARIOS:
        for seed in SEEDS:
            cases[f"{path.stem}-{seed}"] = lambda p=path, s=seed: _scenario_record(p, s, False)
        cases[f"{path.stem}-random-3"] = lambda p=path: _scenario_record(p, 3, True)
    for path in sorted((ROOT / "examples" / "scripts").glob("*.toml")):
        cases[f"script-{path.stem}"] = lambda p=path: _script_record(p)
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_record_is_unchanged(name: str) -> None:
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8")
    got = CASES[name]()
    if got != expected:
        # Name the first line that differs rather than dumping two whole records.
        for i, (a, b) in enumerate(zip(got.splitlines(), expected.splitlines(), strict=False), 1):
            assert a == b, f"{name}: line {i} differs"
        assert len(got.splitlines()) == len(expected.splitlines()), f"{name}: length differs"
    assert got == expected


def test_every_case_has_a_committed_record() -> None:
    committed = {p.stem for p in GOLDEN.glob("*.jsonl")}
    assert committed == set(CASES)


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(CASES)
    GOLDEN.mkdir(exist_ok=True)
    for name in names:
        (GOLDEN / f"{name}.jsonl").write_text(CASES[name](), encoding="utf-8")
        print(f"wrote tests/golden/{name}.jsonl")
