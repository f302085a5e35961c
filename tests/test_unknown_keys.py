"""An unknown key in TOML input is reported as such, at its line, with the closest known
key ("did you mean"), not as the right key missing (``agilty = 30`` once gave
"characteristics.agility: missing")."""

from __future__ import annotations

from pathlib import Path

import pytest

from segsim.errors import InputError
from segsim.policies import load_rule_list
from segsim.scenario import load_scenario
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = """\
[fight]
ruleset = "rinkanou"

[[combatant]]
id = "a"
side = "blue"
policy = "aggressive"
[combatant.sheet]
name = "A"
characteristics = { strength = 25, agility = 30, reason = 25, reflexes = 25 }
skills = { combat = 50, dodge = 45, sabre = 55 }
weapon = "sabre"
armour = "leather"
health = 40

[[combatant]]
id = "b"
side = "red"
policy = "aggressive"
fighter = "margaret"
position = [1.0, 0.0]
"""


def error_of(tmp_path: Path, text: str, load: object = load_scenario) -> InputError:
    path = tmp_path / "input.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        load(path)  # type: ignore[operator]
    return error.value


def test_a_valid_scenario_text(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    assert [c.id for c in load_scenario(path).combatants] == ["a", "b"]


@pytest.mark.parametrize(
    ("right", "wrong", "line", "field", "suggestion"),
    [
        ("agility = 30", "agilty = 30", 10, "combatant[0].sheet.characteristics.agilty", "agility"),
        ("position = [1.0", "positon = [1.0", 21, "combatant[1].positon", "position"),
        ("health = 40", "helth = 40", 14, "combatant[0].sheet.helth", "health"),
        (
            'policy = "aggressive"\nfighter',
            'polcy = "aggressive"\nfighter',
            19,
            "combatant[1].polcy",
            "policy",
        ),
    ],
)
def test_an_unknown_key_is_named_with_the_closest_known_one(
    tmp_path: Path, right: str, wrong: str, line: int, field: str, suggestion: str
) -> None:
    text = SCENARIO.replace(right, wrong, 1)
    assert text != SCENARIO
    error = error_of(tmp_path, text)
    assert (error.line, error.field) == (line, field)
    assert error.message == f"unknown field; did you mean {suggestion!r}?"


def test_a_key_unlike_any_other_is_only_unknown(tmp_path: Path) -> None:
    error = error_of(tmp_path, SCENARIO.replace("health = 40", "health = 40\nzzz = 1", 1))
    assert error.field == "combatant[0].sheet.zzz" and error.message == "unknown field"


def test_a_missing_key_without_a_look_alike_is_missing(tmp_path: Path) -> None:
    error = error_of(tmp_path, SCENARIO.replace('side = "blue"\n', "", 1))
    assert error.field == "combatant[0].side" and "missing" in error.message


def test_fight_scripts_and_rule_lists_too(tmp_path: Path) -> None:
    script = (ROOT / "examples/scripts/forest_duel.toml").read_text(encoding="utf-8")
    script = script.replace('\nruleset = "chroniques"', '\nruleset = "chroniques"\nsed = 3', 1)
    error = error_of(tmp_path, script, load_script)
    assert error.field == "fight.sed" and "did you mean 'seed'?" in error.message
    rules = (ROOT / "examples/policies/striker.toml").read_text(encoding="utf-8")
    error = error_of(tmp_path, rules.replace("when =", "whne =", 1), load_rule_list)
    assert error.field.endswith(".whne") and "did you mean 'when'?" in error.message


@pytest.mark.parametrize(
    "message",
    [
        "__init__() got an unexpected keyword argument 'initiative'",  # CPython
        "'initiative' is an invalid keyword argument for __init__()",  # a compiled class
    ],
)
def test_an_unknown_ruleset_option_is_worded_the_same_in_both_builds(
    message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import segsim.rules as rules

    class Compiled:
        name = "rupture"

        def __init__(self, **options: object) -> None:
            raise TypeError(message)

    monkeypatch.setattr(rules, "ruleset_class", lambda name: Compiled)
    with pytest.raises(TypeError) as err:
        rules.get_ruleset("rupture", {"initiative": 3})
    assert str(err.value) == (
        "Compiled got an unexpected keyword argument 'initiative' "
        "(not an option of the rupture ruleset)"
    )
