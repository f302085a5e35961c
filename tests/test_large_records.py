"""Records segsim writes, it reads back, however large (issue 39, item 3): a record is
read line by line, its limits (a line, the whole file) are those segsim's own writer
keeps to, and a 2,000-fighter battle's record goes through replay, the HTML viewer and
the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

import segsim.input
import segsim.record
from segsim import RecordError, load_scenario
from segsim.battle import line_battle
from segsim.cli import main
from segsim.input import MAX_BYTES, MAX_RECORD_BYTES, MAX_RECORD_LINE
from segsim.record import read_record, write_record

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"


def test_a_record_may_be_far_larger_than_a_scenario() -> None:
    assert MAX_BYTES == 16 * 2**20
    assert MAX_RECORD_LINE >= 4 * MAX_BYTES and MAX_RECORD_BYTES >= 256 * MAX_BYTES


def test_a_two_thousand_fighter_battle_s_record_replays_and_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 segments of a battle of 2 x 1,000 fighters write about 20 MiB (more than the
    16 MiB every input was once limited to, which refused a 500-fighter battle's record):
    replay finds it identical, and the viewer and the timeline show every fighter."""
    fight = line_battle(1000, seed=3, max_segments=200)
    fight.run()
    record = tmp_path / "battle.jsonl"
    write_record(fight, record)
    assert record.stat().st_size > MAX_BYTES
    capsys.readouterr()

    assert main(["replay", str(record)]) == 0
    assert capsys.readouterr().out.strip() == f"identical ({len(fight.history)} events)"

    page = tmp_path / "battle.html"
    assert main(["view", str(record), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert '"w999"' in html and '"e999"' in html
    capsys.readouterr()

    assert main(["timeline", str(record)]) == 0
    shown = capsys.readouterr().out
    assert all(f"w{i} " in shown or f"w{i}\n" in shown for i in (0, 500, 999))


def test_the_reader_refuses_a_line_longer_than_the_limit_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "duel.jsonl"
    fight = load_scenario(DUEL).fight(7)
    fight.run()
    write_record(fight, record)
    lines = record.read_text(encoding="utf-8").splitlines()
    longest = max(range(len(lines)), key=lambda i: len(lines[i].encode()))
    monkeypatch.setattr(segsim.input, "MAX_RECORD_LINE", len(lines[longest].encode()) - 1)
    with pytest.raises(RecordError) as err:
        read_record(record)
    assert err.value.line == longest + 1 and "a line longer than" in err.value.message
    monkeypatch.setattr(segsim.input, "MAX_RECORD_LINE", len(lines[longest].encode()))
    assert len(read_record(record)) == len(lines) - 1


def test_the_reader_refuses_a_record_larger_than_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "duel.jsonl"
    fight = load_scenario(DUEL).fight(7)
    fight.run()
    write_record(fight, record)
    size = record.stat().st_size
    monkeypatch.setattr(segsim.input, "MAX_RECORD_BYTES", size - 1)
    with pytest.raises(RecordError) as err:
        read_record(record)
    assert err.value.line == len(record.read_text().splitlines())
    assert "larger than" in err.value.message


def test_the_writer_keeps_to_the_readers_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """segsim writes no record its readers would refuse: a line or a whole beyond their
    limits is an error when written."""
    fight = load_scenario(DUEL).fight(7)
    fight.run()
    header = segsim.record.dumps(fight.header())  # as the writer writes it
    monkeypatch.setattr(segsim.record, "MAX_RECORD_LINE", len(header.encode()) - 1)
    with pytest.raises(RecordError) as err:
        write_record(fight, tmp_path / "a.jsonl")
    assert err.value.line == 1 and "longer than a record line may be" in err.value.message
    monkeypatch.setattr(segsim.record, "MAX_RECORD_LINE", MAX_RECORD_LINE)
    monkeypatch.setattr(segsim.record, "MAX_RECORD_BYTES", 5000)
    with pytest.raises(RecordError, match="more than a record may hold"):
        write_record(fight, tmp_path / "b.jsonl")
    with pytest.raises(RecordError, match="more than a record may hold"):
        segsim.record.fight_record(fight).write(tmp_path / "c.jsonl")
