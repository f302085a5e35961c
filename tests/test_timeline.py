"""Timeline views: one row per fighter, actions as labelled spans over segments."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.cli import main
from segsim.record import fight_record, write_record
from segsim.script import load_script
from segsim.timeline import Timeline, timeline, timeline_svg

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))


def table_duel() -> Timeline:
    return timeline(load_script(ROOT / "examples/scripts/table_duel.toml").play())


def rows(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "row"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_the_svg_parses_and_has_one_row_per_fighter(path: Path) -> None:
    scenario = load_scenario(path)
    fight = scenario.fight(1)
    fight.run()
    svg = timeline_svg(fight)
    found = rows(svg)
    assert [g.get("data-fighter") for g in found] == [c.id for c in scenario.combatants]
    root = ET.fromstring(svg.encode("utf-8"))
    assert float(root.get("width", "0")) > 0 and root.get("viewBox")
    # segments on the x axis, seconds labelled
    axis = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "x-axis")
    labels = [t.text or "" for t in axis.iter(f"{SVG}text")]
    assert "segment" in labels and "seconds" in labels and "0.0 s" in labels


def test_spans_carry_kind_timing_outcome_and_flags() -> None:
    view = table_duel()
    robert, margaret = view.rows
    assert (robert.id, margaret.id) == ("robert", "margaret")
    strike = next(s for s in robert.spans if s.kind == "strike" and s.start == 9)
    assert (strike.start, strike.stop, strike.outcome) == (9, 12, "hit")  # bought 1 segment
    arm = next(s for s in margaret.spans if s.kind == "arm" and s.start == 9)
    assert arm.cancelled and (arm.start, arm.stop, arm.outcome) == (9, 10, "cancelled")
    lock = next(s for s in margaret.spans if s.kind == "lock")
    assert lock.forced and (lock.start, lock.stop) == (6, 8)
    # Robert dodges while he strikes: two lanes
    assert robert.lanes == 2
    dodge = next(s for s in robert.spans if s.kind == "dodge" and s.start == 18)
    strike2 = next(s for s in robert.spans if s.kind == "strike" and s.start == 19)
    assert dodge.lane != strike2.lane
    # what happened to Margaret: the hits she took, and her leaving the fight
    assert [(m.t, m.label) for m in margaret.marks if m.kind == "incoming"] == [
        (12, "hit"),
        (21, "hit"),
    ]
    assert margaret.out_at == 21 and view.end == 21
    assert view.outcome == "victory, side blue wins in segment 21 (2.1 s)"


def test_the_svg_shows_each_action_with_its_label_and_tooltip() -> None:
    svg = table_duel().svg()
    root = ET.fromstring(svg.encode("utf-8"))
    spans = [g for g in root.iter(f"{SVG}g") if "span" in (g.get("class") or "").split()]
    kinds = {g.get("class", "").split()[1] for g in spans}
    assert {"kind-arm", "kind-strike", "kind-lock", "kind-dodge"} <= kinds
    cancelled = [g for g in spans if "cancelled" in (g.get("class") or "")]
    assert len(cancelled) == 1
    title = cancelled[0].find(f"{SVG}title")
    assert (
        title is not None and "arm #" in (title.text or "") and "(cancelled)" in (title.text or "")
    )
    assert "segments 9-10 (0.9-1.1 s)" in (title.text or "")


def test_the_text_timeline_has_a_row_per_fighter_and_a_ruler() -> None:
    text = table_duel().text()
    lines = text.splitlines()
    assert lines[0].startswith("Robert and Margaret, at the table (rinkanou): victory")
    assert any(line.startswith("segment   0         5         10") for line in lines)
    assert any(line.startswith("seconds   0.0s                1.0s") for line in lines)
    robert = next(line for line in lines if line.startswith("robert"))
    margaret = next(line for line in lines if line.startswith("margaret"))
    assert "[dodg]" in robert and "[strike]" in robert  # 2 columns per segment
    assert "(lock)" in margaret and "[arx" in margaret  # forced; cancelled
    assert "X out" in text or "\n" in text


def test_the_text_timeline_wraps_long_fights() -> None:
    text = table_duel().text(scale=1, width=30)
    assert sum(1 for line in text.splitlines() if line.startswith("segment")) == 2
    assert sum(1 for line in text.splitlines() if line.startswith("robert")) == 2


def test_fights_and_records_show_their_timeline_in_a_notebook() -> None:
    fight = load_script(ROOT / "examples/scripts/table_duel.toml").play()
    record = fight_record(fight)
    assert fight._repr_svg_() == record._repr_svg_() == timeline(record).svg()
    assert rows(fight._repr_svg_())


def test_a_fight_still_running_has_a_timeline_too() -> None:
    fight = load_scenario(ROOT / "examples/scenarios/duel.toml").fight(7)
    fight.start()
    fight.env.run(until=6)
    view = timeline(fight)
    assert view.outcome == "" and view.end <= 6
    assert [r.id for r in view.rows] == ["robert", "margaret"]
    assert rows(view.svg())


def test_the_timeline_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "table.jsonl"
    svg = tmp_path / "table.svg"
    write_record(load_script(ROOT / "examples/scripts/table_duel.toml").play(), record)
    assert main(["timeline", str(record)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Robert and Margaret, at the table")
    assert main(["timeline", str(record), "--svg", str(svg)]) == 0
    assert capsys.readouterr().out == f"timeline written to {svg}\n"
    assert len(rows(svg.read_text(encoding="utf-8"))) == 2
    # same record, same bytes
    first = svg.read_bytes()
    assert main(["timeline", str(record), "--svg", str(svg)]) == 0
    assert svg.read_bytes() == first
    assert main(["timeline", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
