"""Scenario loading and its errors: file, line, field, and what is wrong (DESIGN, 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from segsim import InputError, load_scenario
from segsim.cli import main

GOOD = """\
[fight]
name = "test duel"
ruleset = "rinkanou"
seed = 3

[[combatant]]
id = "a"
side = "blue"
fighter = "robert"
policy = "defender"

[[combatant]]
id = "b"
side = "red"
policy = "aggressive"
position = [1.5, 0.0]

[combatant.sheet]
name = "Inline"
health = 30
weapon = "sabre"
armour = "leather"
characteristics = { strength = 20, agility = 20, reason = 20, reflexes = 20 }
skills = { combat = 40, sabre = 45 }
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_scenario_loads(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, GOOD))
    assert scenario.seed == 3 and scenario.name == "test duel"
    a, b = scenario.combatants
    assert a.sheet.name == "Robert Jeaispaniol" and a.policy == "defender"
    assert b.sheet.weapon.speed == 3 and b.position == (1.5, 0.0) and b.name == "Inline"
    assert scenario.fight().run().result in ("victory", "time limit")


@pytest.mark.parametrize(
    ("change", "line", "field", "message"),
    [
        (
            ('weapon = "sabre"', 'weapon = "sabr"'),
            21,
            "combatant[1].sheet.weapon",
            "unknown weapon 'sabr'",
        ),
        (("sabre = 45", "sabre = 55"), 24, "combatant[1].sheet.skills.sabre", "exceeds Combat"),
        (("health = 30\n", ""), 18, "combatant[1].sheet.health", "missing"),
        (
            ("health = 30", 'health = "lots"'),
            20,
            "combatant[1].sheet.health",
            "expected an integer",
        ),
        (
            ('policy = "defender"', 'policy = "berserk"'),
            10,
            "combatant[0].policy",
            "unknown policy 'berserk'",
        ),
        (
            ('fighter = "robert"', 'fighter = "bob"'),
            9,
            "combatant[0].fighter",
            "unknown fighter 'bob'",
        ),
        (
            ('ruleset = "rinkanou"', 'ruleset = "gurps"'),
            3,
            "fight.ruleset",
            "unknown ruleset 'gurps'",
        ),
        (("position = [1.5, 0.0]", "position = [1.5]"), 16, "combatant[1].position", "array of 2"),
        (('side = "red"', 'side = "red"\nmood = "grim"'), 15, "combatant[1].mood", "unknown field"),
        (('side = "red"', 'side = "blue"'), None, "combatant", "one side"),
        (
            ("reflexes = 20 }", "reflexes = -4 }"),
            23,
            "combatant[1].sheet.characteristics.reflexes",
            "below the minimum",
        ),
    ],
)
def test_bad_scenarios_name_file_line_and_field(
    tmp_path: Path, change: tuple[str, str], line: int | None, field: str, message: str
) -> None:
    assert change[0] in GOOD
    path = write(tmp_path, GOOD.replace(change[0], change[1], 1))
    with pytest.raises(InputError) as err:
        load_scenario(path)
    assert err.value.path == str(path)
    assert err.value.field == field
    assert message in err.value.message
    if line is not None:
        assert err.value.line == line
        assert str(err.value).startswith(f"{path}:{line}: {field}: ")


def test_malformed_toml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("seed = 3", "seed = = 3"))
    with pytest.raises(InputError) as err:
        load_scenario(path)
    assert err.value.line == 4 and "not valid TOML" in err.value.message


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_scenario(tmp_path / "nope.toml")


def test_cli_exits_2_with_the_message_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, GOOD.replace('weapon = "sabre"', 'weapon = "sabr"'))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:21: combatant[1].sheet.weapon: unknown weapon 'sabr'" in err
    assert "Traceback" not in err


def test_cli_run_prints_an_account_and_writes_the_record(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    assert (
        main(
            ["run", str(root / "examples/scenarios/duel.toml"), "--seed", "7", "--record", str(out)]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert 'robert = "arm"' in text and "outcome: " in text
    lines = out.read_text().splitlines()
    assert lines[0].startswith('{"format":"segsim-record"')
    assert '"type":"end"' in lines[-1]


def test_cli_rules_lists_rinkanou(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    assert "rinkanou" in capsys.readouterr().out


def test_scenario_policies_can_be_replaced_by_id(tmp_path: Path) -> None:
    from segsim.testing import Scripted

    scenario = load_scenario(write(tmp_path, GOOD))
    fight = scenario.fight(policies={"a": Scripted()})
    assert fight.state.combatants["a"].policy.name == "scripted"
    with pytest.raises(ValueError, match="no combatant z"):
        scenario.fight(policies={"z": Scripted()})


def test_a_combatants_setup_reaches_the_fight_and_is_checked(tmp_path: Path) -> None:
    text = GOOD.replace(
        'policy = "defender"\n', 'policy = "defender"\nsetup = { ps = 3, command_points = 1 }\n'
    )
    fight = load_scenario(write(tmp_path, text)).fight()
    assert fight.state.combatants["a"].setup == {"ps": 3, "command_points": 1}
    fight.run()
    first = next(e for e in fight.history if e.TYPE == "ps.changed" and e.actor == "a")
    assert first.ps == 3 and first.reason == "start"
    bad = GOOD.replace('policy = "defender"\n', 'policy = "defender"\nsetup = { mood = 3 }\n')
    with pytest.raises(InputError) as err:
        load_scenario(write(tmp_path, bad))
    assert err.value.field == "combatant[0].setup.mood" and err.value.line == 11


def test_fights_of_one_scenario_keep_their_own_grids() -> None:
    """A fight's state is laid out as a copy of the layout the last fight of the same
    fighters had: a fight played to its end leaves the next one's grids as the scenario
    places its fighters, and no two fights share a grid."""
    scenario = load_scenario(Path(__file__).parent.parent / "examples/scenarios/duel.toml")
    start = {c.id: c.position for c in scenario.combatants}
    first = scenario.fight(1)
    first.run()
    assert first.state.grid.where != start  # the duel moves its fighters
    second = scenario.fight(2)
    assert second.state.grid.where == start
    assert second.state.grid is not first.state.grid
    for side, grid in second.state.side_grids.items():
        assert grid is not first.state.side_grids[side]
        assert grid.where == {c.id: c.position for c in scenario.combatants if c.side == side}
    assert second.state.side_counts == {"blue": 1, "red": 1}
    assert second.state.roster == 2  # two fighters entered
    # The same fight again plays as the first did, its grids its own.
    again = scenario.fight(1)
    again.run()
    assert again.history == first.history
    assert again.state.grid.where == first.state.grid.where
