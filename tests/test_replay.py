"""Replay: a record played again gives itself, line for line; a changed record shows where
it stops being true (DESIGN, principles 5-6; docs/record-format.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from segsim import load_scenario
from segsim.cli import main
from segsim.record import Record, fight_lines, fight_record, read_record, write_record
from segsim.replay import ReplayDeclarations, read_plan, replay

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))


def duel_record(seed: int = 7) -> Record:
    fight = load_scenario(DUEL).fight(seed)
    fight.run()
    return fight_record(fight)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_200_seeded_duels_replay_identically() -> None:
    scenario = load_scenario(DUEL)
    for seed in range(200):
        fight = scenario.fight(seed * 7919)
        fight.run()
        record = fight_record(fight)
        result = replay(record)
        assert result.identical, f"seed {seed * 7919}: {result}"
        assert str(result) == f"identical ({len(fight.history)} events)"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_example_scenario_replays_identically(path: Path) -> None:
    """Every ruleset with an example keeps its records replayable."""
    scenario = load_scenario(path)
    for seed in (0, 1, 2):
        fight = scenario.fight(seed)
        fight.run()
        result = replay(fight_record(fight))
        assert result.identical, f"{path.name} seed {seed}: {result}"


def test_replay_from_a_file_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "duel.jsonl"
    assert main(["run", str(DUEL), "--seed", "11", "--record", str(out), "--quiet"]) == 0
    capsys.readouterr()
    lines = out.read_text(encoding="utf-8").splitlines()
    assert main(["replay", str(out)]) == 0
    assert capsys.readouterr().out == f"identical ({len(lines) - 1} events)\n"


def test_the_replayed_record_is_the_same_bytes(tmp_path: Path) -> None:
    record = duel_record(3)
    path = write_lines(tmp_path / "r.jsonl", list(record.lines))
    result = replay(path)
    again = tmp_path / "again.jsonl"
    write_record(result.fight, again)
    assert again.read_bytes() == path.read_bytes()


# ---------------------------------------------------------------- divergences


def first_test_after(lines: list[str], index: int, actor: str) -> int:
    """The 0-based index of the first test.rolled of ``actor`` after line ``index``."""
    for i in range(index + 1, len(lines)):
        obj = json.loads(lines[i])
        if obj["type"] == "test.rolled" and obj["actor"] == actor:
            return i
    raise AssertionError("no test after the die")


def _tampered_attack_die(lines: list[str]) -> tuple[int, dict[str, Any]]:
    index = next(
        i for i, line in enumerate(lines) if '"die.rolled"' in line and '"purpose":"attack"' in line
    )
    die = json.loads(lines[index])
    die["value"] = die["value"] % 100 + 1  # the next face: another roll
    lines[index] = json.dumps(die, separators=(",", ":"))
    return index, die


def test_a_changed_die_is_reported_at_its_own_line_when_the_seed_drew_the_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = list(duel_record(7).lines)
    index, die = _tampered_attack_die(lines)
    path = write_lines(tmp_path / "tampered.jsonl", lines)
    result = replay(path)
    assert result.divergence is not None
    assert result.divergence.line == index + 1
    assert result.divergence.expected == lines[index]
    produced = json.loads(result.divergence.produced or "{}")
    assert produced["value"] == die["value"] - 1 or (die["value"] == 1 and produced["value"] == 100)
    assert "the seed 7 gives" in result.divergence.stopped

    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"diverges at line {index + 1}:" in out


def test_a_changed_entered_die_is_reported_at_the_first_line_it_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = list(duel_record(7).lines)
    header = json.loads(lines[0])
    header["dice"] = "entered"  # as a hand-entered fight says: no seed to check against
    lines[0] = json.dumps(header, separators=(",", ":"), ensure_ascii=False)
    index, die = _tampered_attack_die(lines)
    path = write_lines(tmp_path / "tampered.jsonl", lines)
    # The die line itself is input: the replay rolls the tampered value. The first line
    # that differs is the test that read it, whose roll the record says was the old one.
    test_index = first_test_after(lines, index, die["actor"])
    result = replay(path)
    assert result.divergence is not None
    assert result.divergence.line == test_index + 1
    assert result.divergence.expected == lines[test_index]
    produced = json.loads(result.divergence.produced or "{}")
    assert produced["type"] == "test.rolled" and produced["roll"] == die["value"]

    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"diverges at line {test_index + 1}:" in out
    assert f"  expected: {lines[test_index]}" in out
    assert '  produced: {"t":' in out


def test_a_changed_declaration_is_reported_at_its_own_line(tmp_path: Path) -> None:
    lines = list(duel_record(7).lines)
    index = next(i for i, line in enumerate(lines) if '"kind":"strike"' in line)
    obj = json.loads(lines[index])
    obj["declared"]["params"]["blow"] = "thrust"  # what was declared, not what followed
    lines[index] = json.dumps(obj, separators=(",", ":"))
    result = replay(write_lines(tmp_path / "t.jsonl", lines))
    assert result.divergence is not None
    assert result.divergence.line == index + 1
    assert '"blow":"cut"' in (result.divergence.expected or "")
    assert '"blow":"thrust"' in (result.divergence.produced or "")


def test_a_missing_die_stops_the_replay_and_says_why(tmp_path: Path) -> None:
    lines = list(duel_record(7).lines)
    last_die = max(i for i, line in enumerate(lines) if '"die.rolled"' in line)
    del lines[last_die]
    result = replay(write_lines(tmp_path / "t.jsonl", lines))
    assert result.divergence is not None
    assert result.divergence.line == last_die + 1
    assert result.divergence.produced is None
    assert "no recorded value left" in result.divergence.stopped
    assert "the replay stopped" in str(result.divergence)


def test_a_record_cut_before_its_end_is_refused(tmp_path: Path) -> None:
    lines = list(duel_record(7).lines)[:-1]
    path = write_lines(tmp_path / "t.jsonl", lines)
    with pytest.raises(Exception, match="stops before its end event"):
        replay(path)


def test_an_extra_event_line_is_a_divergence(tmp_path: Path) -> None:
    lines = list(duel_record(7).lines)
    extra = json.loads(lines[-2])
    lines.insert(len(lines) - 1, json.dumps(extra, separators=(",", ":")))
    result = replay(write_lines(tmp_path / "t.jsonl", lines))
    assert result.divergence is not None and result.divergence.line == len(lines) - 1


def test_key_order_and_spacing_do_not_matter_but_values_do(tmp_path: Path) -> None:
    lines = list(duel_record(7).lines)
    reordered = [json.dumps(dict(reversed(list(json.loads(x).items())))) for x in lines]
    assert replay(write_lines(tmp_path / "a.jsonl", reordered)).identical
    # true is not 1, although Python finds them equal
    index = next(i for i, x in enumerate(lines) if '"success":true' in x)
    lines[index] = lines[index].replace('"success":true', '"success":1')
    result = replay(write_lines(tmp_path / "b.jsonl", lines))
    assert result.divergence is not None and result.divergence.line == index + 1


# ---------------------------------------------------------------- malformed records


def malformed(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    code = main(["replay", str(path)])
    return code, str(path)


def good_lines() -> list[str]:
    return list(duel_record(7).lines)


def with_header(change: dict[str, Any]) -> str:
    lines = good_lines()
    header = json.loads(lines[0])
    header.update(change)
    lines[0] = json.dumps(header)
    return "".join(f"{line}\n" for line in lines)


@pytest.mark.parametrize(
    ("make", "line", "message"),
    [
        (lambda: with_header({"ruleset": "warhammer"}), 1, "unknown ruleset 'warhammer'"),
        (lambda: with_header({"version": "3.0"}), 1, "version 3.0 is newer"),
        (lambda: with_header({"version": "1.0"}), 1, "version 1.0 is not supported"),
        (lambda: with_header({"format": "pgn"}), 1, "not a segsim record"),
        (lambda: with_header({"version": "one"}), 1, "MAJOR.MINOR"),
        (lambda: with_header({"seed": "seven"}), 1, "header: seed: expected an integer"),
        (
            lambda: "".join(f"{x}\n" for x in good_lines())[:-40],
            -1,
            "truncated last line",
        ),
        (
            lambda: "\n".join([*good_lines()[:3], "{not json", *good_lines()[3:]]) + "\n",
            4,
            "not JSON",
        ),
        (lambda: "\n".join([*good_lines()[:3], "[1, 2]", *good_lines()[3:]]) + "\n", 4, "object"),
        (
            lambda: (
                "\n".join([*good_lines()[:2], '{"type":"x","actor":null}', *good_lines()[2:]])
                + "\n"
            ),
            3,
            "event has no 't'",
        ),
        (lambda: "\n".join(good_lines() + good_lines()[1:2]) + "\n", -1, "after the end event"),
        (lambda: "", None, "empty record"),
    ],
)
def test_malformed_records_exit_2_naming_the_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Any,
    line: int | None,
    message: str,
) -> None:
    text = make()
    code, path = malformed(tmp_path, text)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    if line is None:
        assert f"segsim: error: {path}: " in err
    else:
        number = line if line > 0 else text.count("\n") + (0 if text.endswith("\n") else 1)
        assert f"segsim: error: {path}:{number}: " in err


def test_a_bad_sheet_in_the_header_names_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = good_lines()
    header = json.loads(lines[0])
    header["combatants"][1]["sheet"]["skills"]["combat"] = "a lot"
    lines[0] = json.dumps(header)
    code, path = malformed(tmp_path, "".join(f"{x}\n" for x in lines))
    err = capsys.readouterr().err
    assert code == 2
    assert f"{path}:1: header: combatants[1].sheet.skills.combat: expected an integer" in err


def test_a_declaration_by_a_stranger_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = good_lines()
    index = next(i for i, x in enumerate(lines) if '"action.declared"' in x)
    lines[index] = (
        lines[index]
        .replace('"actor":"robert"', '"actor":"nobody"')
        .replace('"actor":"margaret"', '"actor":"nobody"')
    )
    code, path = malformed(tmp_path, "".join(f"{x}\n" for x in lines))
    assert code == 2
    assert f"{path}:{index + 1}: actor: 'nobody' is not a combatant" in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nothing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


# ---------------------------------------------------------------- the replay policy


def test_the_replay_policy_declares_only_what_was_recorded() -> None:
    plan = read_plan(duel_record(7))
    robert = plan.declarations["robert"]
    policy = ReplayDeclarations(robert, name="defender", reactive=True)
    assert policy.segments == sorted(robert)
    assert all(seg in robert for seg in policy.segments)
    # forced actions (the lock after a strike) are the rules' doing: not replayed
    forced = [
        json.loads(x)
        for x in plan.record.lines[1:]
        if '"forced":true' in x and '"actor":"robert"' in x
    ]
    assert forced
    for event in forced:
        assert all(getattr(d, "kind", None) != "lock" for d in robert.get(event["t"], ()))


def test_reading_a_record_gives_its_header_events_and_lines(tmp_path: Path) -> None:
    record = duel_record(5)
    path = write_lines(tmp_path / "r.jsonl", list(record.lines))
    again = read_record(path)
    assert again.header == record.header and again.events == record.events
    assert again.lines == record.lines and len(again) == len(record.events)
    assert again.end is not None and again.end["type"] == "end"
    assert again.combatants == ["robert", "margaret"] and again.ruleset == "rinkanou"
    assert list(fight_lines(replay(path).fight)) == list(record.lines)
