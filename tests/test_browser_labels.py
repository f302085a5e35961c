"""The fight viewer's map in a real browser (headless Chromium): a fighter's label never
covers another fighter or another label, at every segment shown (issue 40, "Views")."""

from __future__ import annotations

import json
from pathlib import Path

from browser import dump_dom, elements, with_script

from segsim.battle import line_battle
from segsim.record import write_record
from segsim.views.html import write_viewer

MEASURE = """
const overlaps = [];
let shownLabels = 0, hiddenLabels = 0;
const slider = document.getElementById("slider");
const end = Number(slider.max);
const inter = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
  a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
for (let t = 0; t <= end; t += Math.max(1, Math.floor(end / 12))) {
  slider.value = String(t);
  slider.dispatchEvent(new Event("input"));
  const fighters = [...document.querySelectorAll("#map .fighter")]
    .filter((g) => g.getAttribute("data-state") !== "absent");
  const circles = fighters.map(
    (g) => [g.getAttribute("data-id"), g.querySelector("circle").getBoundingClientRect()]);
  const labels = fighters
    .map((g) => [g.getAttribute("data-id"), g.querySelector("text")])
    .filter(([, tx]) => tx && tx.style.display !== "none")
    .map(([id, tx]) => [id, tx.getBoundingClientRect()]);
  shownLabels += labels.length;
  hiddenLabels += fighters.length - labels.length;
  for (const [id, box] of labels) {
    for (const [other, c] of circles)
      if (other !== id && inter(box, c)) overlaps.push([t, id, "fighter " + other]);
    for (const [other, b] of labels)
      if (other !== id && inter(box, b)) overlaps.push([t, id, "label " + other]);
  }
}
document.body.setAttribute("data-overlaps", JSON.stringify(overlaps.slice(0, 20)));
document.body.setAttribute("data-labels", String(shownLabels) + " " + String(hiddenLabels));
"""


def measured(tmp_path: Path, fight: object) -> tuple[list[list[object]], int, int]:
    record = tmp_path / "fight.jsonl"
    write_record(fight, record)  # type: ignore[arg-type]
    page = tmp_path / "viewer.html"
    write_viewer(record, page)
    driven = with_script(page, MEASURE, tmp_path / "driven.html")
    found = elements(dump_dom(driven, budget_ms=20000))
    assert found.errors.strip() == "", found.errors
    body = next(a for tag, a in found.tags if tag == "body")
    shown, hidden = (int(v) for v in body["data-labels"].split())
    return json.loads(body["data-overlaps"]), shown, hidden


def test_labels_never_cover_a_fighter_or_a_label_in_a_crowd(tmp_path: Path) -> None:
    """Two ranks of 20 fighters a metre and a half apart: labels find room or hide."""
    fight = line_battle(20, seed=3, max_segments=40)
    fight.run()
    overlaps, shown, hidden = measured(tmp_path, fight)
    assert overlaps == []
    assert shown > 0  # labels are drawn where they fit
    assert shown + hidden > 40


def test_a_small_fight_labels_every_fighter(tmp_path: Path) -> None:
    from segsim import load_scenario

    root = Path(__file__).resolve().parent.parent
    fight = load_scenario(root / "examples/scenarios/three_against_three.toml").fight(None)
    fight.run()
    overlaps, shown, _ = measured(tmp_path, fight)
    assert overlaps == []
    assert shown > 0
