"""Fight scripts: a fight played at a table, entered by hand, played through the rules
(docs/replay.md, "Fight scripts"; examples/scripts/table_duel.toml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from segsim import InputError
from segsim.cli import main
from segsim.record import fight_record, read_record, schema_errors
from segsim.replay import replay
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples/scripts/table_duel.toml"

# Margaret (yatagan) attacks Robert (sabre, boiled leather, health 40) twice; Robert
# only tries to dodge the second blow. No start-of-fight roll: every die is below.
SCRIPT = """\
[fight]
name = "two cuts"
ruleset = "rinkanou"

[options]
start_roll = false

[[combatant]]
id = "robert"
side = "blue"
fighter = "robert"

[[combatant]]
id = "margaret"
side = "red"
fighter = "margaret"
position = [1.5, 0.0]

[segment.0]
margaret = "arm"

[segment.3]
margaret = { action = "strike", target = "robert", blow = "cut" }

[segment.9]
margaret = "arm"

[segment.12]
margaret = { action = "strike", target = "robert", blow = "cut" }
robert = "dodge"

[dice]
rolls = [
  40,   # segment 5: Margaret's first cut
  20,   # segment 5: hit location
  15,   # segment 14: her second cut
  50,   # segment 14: Robert's dodge
  5,    # segment 14: hit location
]
"""


def write(tmp_path: Path, text: str, name: str = "script.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def of_type(fight: Any, kind: str) -> list[Any]:
    return [e for e in fight.history if kind == e.TYPE]


def test_a_hand_entered_fight_worked_out_by_hand(tmp_path: Path) -> None:
    """RinKaNou ("Attaque", "Dégâts") as segsim reads it (rules page, RULES-NOTES):

    attack chance = weapon skill + characteristic - defender's armour deflection
                  = sabre 55 + agility 25 - leather 5 = 75;
    damage = weapon damage + Mr // 10 + strength bonus - absorption;
    wound = damage x location factor (chest 100 %, head 150 %), rounded;
    levels at 25 % (light, -10), 50 %, 75 % (grave, -40) of health 40.
    """
    fight = load_script(write(tmp_path, SCRIPT)).play()
    first, second, dodge_test = (
        t for t in of_type(fight, "test.rolled") if t.test in ("attack", "dodge")
    )
    # Segment 5: 40 against 75, Mr 35.
    assert (first.t, first.actor, first.chance, first.roll) == (5, "margaret", 75, 40)
    assert first.success and first.margin == 35
    wound1, wound2 = of_type(fight, "wound.taken")
    # Location 20: chest. 9 (yatagan cut) + 35 // 10 + 1 (strength 30) - 3 (leather) = 10.
    assert (wound1.t, wound1.location, wound1.damage, wound1.wound) == (5, "chest", 10, 10)
    assert (wound1.total, wound1.level, wound1.malus) == (10, "light", -10)
    # Segment 14: 15 against 75, Mr 60. Robert's dodge ends in the same segment: dodge 45
    # + agility 30 - her Mr 60 - his wound 10 = 5; he rolls 50 and fails by 45.
    assert (second.t, second.chance, second.roll, second.margin) == (14, 75, 15, 60)
    assert (dodge_test.t, dodge_test.actor, dodge_test.chance) == (14, "robert", 5)
    assert not dodge_test.success and dodge_test.margin == 45
    # Location 5: head. 9 + 6 + 1 - 3 = 13 damage, x 150 % = 19.5 -> 20; total 30 = 75 %.
    assert (wound2.location, wound2.damage, wound2.wound) == ("head", 13, 20)
    assert (wound2.total, wound2.level, wound2.malus) == (30, "grave", -40)
    [hit1, hit2] = of_type(fight, "attack.resolved")
    assert (hit1.result, hit2.result) == ("hit", "hit")
    # Her lock after each strike is the rules' doing, not the script's.
    locks = [e for e in of_type(fight, "action.declared") if e.kind == "lock"]
    assert [(e.t, e.forced) for e in locks] == [(6, True), (15, True)]
    # Nobody acts after her second lock (it ends in segment 17): a stalemate in 18.
    end = fight.history[-1]
    assert (end.TYPE, end.outcome, end.survivors) == ("end", "stalemate", ("robert", "margaret"))
    # Every die of the script, in order, one line each.
    assert [(e.die, e.value) for e in of_type(fight, "die.rolled")] == [
        ("d100", v) for v in (40, 20, 15, 50, 5)
    ]
    record = fight_record(fight)
    assert record.header["combatants"][0]["policy"] == "script"
    assert record.header["combatants"][0]["reactive"] is False
    assert replay(record).identical
    assert schema_errors(record.lines) == []


def test_run_script_writes_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.jsonl"
    assert main(["run", "--script", str(EXAMPLE), "--record", str(out), "--dice"]) == 0
    text = capsys.readouterr().out
    assert "played from" in text and "rolls d100: 50 (start of fight)" in text
    assert "outcome: victory, side blue wins" in text
    record = read_record(out)
    assert record.header["name"] == "Robert and Margaret, at the table"
    assert record.header["seed"] == 7
    assert main(["replay", str(out)]) == 0
    assert capsys.readouterr().out == f"identical ({len(record)} events)\n"
    assert schema_errors(record.lines) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "examples/scripts").glob("*.toml")), ids=lambda p: p.name
)
def test_every_example_script_plays_and_replays(path: Path) -> None:
    record = fight_record(load_script(path).play())
    assert record.end is not None
    assert replay(record).identical
    assert schema_errors(record.lines) == []


def test_the_example_shows_a_cancellation_a_ps_purchase_and_two_actions_at_once() -> None:
    fight = load_script(EXAMPLE).play()
    [cancel] = of_type(fight, "action.cancelled")
    assert (cancel.t, cancel.actor, cancel.kind) == (10, "margaret", "arm")
    strike = next(e for e in of_type(fight, "action.declared") if e.t == 9 and e.actor == "robert")
    assert strike.declared["params"]["ps"] == {"slower": 1, "bonus": 1} and strike.duration == 4
    at19 = [
        e.kind for e in of_type(fight, "action.declared") if e.actor == "robert" and e.t in (18, 19)
    ]
    assert at19 == ["dodge", "strike"]


# ---------------------------------------------------------------- errors


def script_error(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as err:
        load_script(write(tmp_path, text)).play()
    return err.value


def line_of(text: str, needle: str, nth: int = 1) -> int:
    found = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return found[nth - 1]


def test_running_out_of_dice_names_the_segment_the_fighter_and_the_roll(tmp_path: Path) -> None:
    text = SCRIPT.replace("  5,    # segment 14: hit location\n", "")
    err = script_error(tmp_path, text)
    assert err.line == line_of(text, "rolls = [") and err.field == "dice.rolls"
    assert err.message == (
        "segment 14, robert: the script has no roll left for robert's d100 (hit location); "
        "it gives 4 roll(s)"
    )


def test_a_roll_of_the_wrong_die_is_refused(tmp_path: Path) -> None:
    text = SCRIPT.replace("  40,   # segment 5", '  "d6:4",   # segment 5')
    err = script_error(tmp_path, text)
    assert "segment 5, margaret: roll 1 of the script is a d6, but margaret's d100" in str(err)


def test_an_illegal_declaration_names_the_segment_the_fighter_and_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SCRIPT.replace("[segment.3]", "[segment.1]")
    path = write(tmp_path, text)
    assert main(["run", "--script", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    line = line_of(text, 'margaret = { action = "strike"')
    assert f"{path}:{line}: segment.1.margaret: segment 1, margaret: cannot strike while" in err
    assert "doing arm (both need the hands) [RinKaNou, Actions simultanées]" in err
    assert "Traceback" not in err


def test_leftover_rolls_are_an_error(tmp_path: Path) -> None:
    text = SCRIPT.replace("  5,    # segment 14: hit location\n", "  5,\n  77,\n")
    err = script_error(tmp_path, text)
    assert err.field == "dice.rolls.5" and err.line == line_of(text, "  77,")
    assert "1 roll(s) left over from roll 6 on: the fight ended at segment 18" in err.message


def test_an_entry_after_the_end_is_an_error(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        'scenario = "../scenarios/duel.toml"', f'scenario = "{ROOT}/examples/scenarios/duel.toml"'
    )
    text = text.replace("\n[dice]\n", '\n[segment.30]\nrobert = "arm"\n\n[dice]\n')
    err = script_error(tmp_path, text)
    assert err.field == "segment.30.robert" and err.line == line_of(text, "[segment.30]") + 1
    assert "never played: the fight ended at segment 21" in err.message


def test_cancel_by_kind_needs_such_an_action(tmp_path: Path) -> None:
    text = SCRIPT.replace("[segment.9]", '[segment.7]\nrobert = { cancel = "arm" }\n\n[segment.9]')
    err = script_error(tmp_path, text)
    assert err.field == "segment.7.robert"
    assert "segment 7, robert: no arm in progress to cancel (in progress: wait #1)" in err.message


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (("[segment.9]", "[segment.nine]"), "segment.nine", "a segment number"),
        (('margaret = "arm"', 'nobody = "arm"'), "segment.0.nobody", "no combatant 'nobody'"),
        (('margaret = "arm"', "margaret = 3"), "segment.0.margaret", "expected an action"),
        (('margaret = "arm"', "margaret = []"), "segment.0.margaret", "an empty list"),
        (
            ('margaret = "arm"', "margaret = { target = 'robert' }"),
            "segment.0.margaret",
            "missing action",
        ),
        (
            ('margaret = "arm"', "margaret = { cancel = 'arm', target = 'robert' }"),
            "segment.0.margaret",
            "a cancellation takes nothing else",
        ),
        (("  40,   #", '  "d100:forty",   #'), "dice.rolls[0]", "a roll is a face"),
        (("  40,   #", "  0,   #"), "dice.rolls[0]", "a roll is a face"),
        (('ruleset = "rinkanou"', 'ruleset = "dnd"'), "fight.ruleset", "unknown ruleset 'dnd'"),
        (
            ('ruleset = "rinkanou"', 'ruleset = "rinkanou"\nscenario = "x.toml"'),
            "fight.scenario",
            "not both",
        ),
        (('fighter = "robert"', 'fighter = "bob"'), "combatant[0].fighter", "unknown fighter"),
        (("[options]", "[optionz]"), "optionz", "unknown field"),
    ],
)
def test_malformed_scripts_name_file_line_and_field(
    tmp_path: Path, change: tuple[str, str], field: str, message: str
) -> None:
    text = SCRIPT.replace(*change, 1)
    with pytest.raises(InputError) as err:
        load_script(write(tmp_path, text)).play()
    assert err.value.field == field
    assert message in err.value.message
    assert err.value.line is not None


def test_run_needs_a_scenario_or_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["run"], ["run", "x.toml", "--script", "y.toml"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    assert "a scenario file or --script FILE" in capsys.readouterr().err
