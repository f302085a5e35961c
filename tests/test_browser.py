"""The fight viewer and the experiment report in a real browser (headless Chromium):
the map shows every fighter where the record puts it at the chosen segment, the slider,
the keys and the account move the segment, no script fails; every ruleset; a battle of
2,000 fighters; the report renders its charts (issue 16)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from browser import dump_dom, elements, with_script

from segsim import load_scenario
from segsim.battle import line_battle
from segsim.experiment import run, tournament, write_report
from segsim.record import fight_record, read_record, write_record
from segsim.views.html import write_viewer

ROOT = Path(__file__).resolve().parent.parent


def expected(record_path: Path, t: int) -> dict[str, tuple[str, str, str]]:
    """Each fighter's (x, y, state) at segment ``t``, read from the record itself."""
    record = read_record(record_path)
    where: dict[str, tuple[float, float]] = {}
    joined: dict[str, int] = {}
    out: dict[str, int] = {}
    for c in record.header["combatants"]:
        where[c["id"]] = (c["position"][0], c["position"][1])
        joined[c["id"]] = 0
    for e in record.events:
        if e["t"] > t:
            break
        if e["type"] == "combatant.joined":
            where[e["actor"]] = tuple(e["position"])  # type: ignore[assignment]
            joined[e["actor"]] = e["t"]
        elif "x" in e and "y" in e and e["actor"] in where:
            where[e["actor"]] = (e["x"], e["y"])
        elif e["type"] in ("combatant.out", "combatant.left") and e["actor"] in where:
            out.setdefault(e["actor"], e["t"])

    def state(cid: str) -> str:
        if t < joined[cid]:
            return "absent"
        return "out" if cid in out and out[cid] <= t else "in"

    return {
        cid: (f"{round(x, 3):.3f}", f"{round(y, 3):.3f}", state(cid))
        for cid, (x, y) in where.items()
    }


def shown(dom: str) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """The body's attributes and each fighter's (x, y, state) on the rendered map."""
    found = elements(dom)
    assert found.errors.strip() == "", found.errors
    body = next(a for tag, a in found.tags if tag == "body")
    fighters = {
        a["data-id"]: (a["data-x"], a["data-y"], a["data-state"])
        for tag, a in found.tags
        if tag == "g" and a.get("class", "").startswith("fighter")
    }
    return body, fighters


def record_of(name: str, tmp_path: Path, seed: int | None = None) -> Path:
    fight = load_scenario(ROOT / "examples/scenarios" / name).fight(seed)
    fight.run()
    path = tmp_path / (Path(name).stem + ".jsonl")
    write_record(fight, path)
    return path


def viewer(record: Path) -> Path:
    page = record.with_suffix(".html")
    write_viewer(record, page)
    return page


@pytest.mark.parametrize(
    ("name", "segments"),
    [
        ("three_against_three.toml", (0, 9, 40, 87)),
        ("chroniques_ambush.toml", (0, 150, 420)),
        ("crossbow_ambush.toml", (0, 30)),
    ],
)
def test_the_map_shows_every_fighter_where_the_record_puts_it(
    name: str, segments: tuple[int, ...], tmp_path: Path
) -> None:
    record = record_of(name, tmp_path)
    page = viewer(record)
    moved = False
    previous: Mapping[str, Any] | None = None
    for t in segments:
        body, fighters = shown(dump_dom(page, f"t={t}"))
        assert body.get("data-ready") == "1" and body.get("data-errors") is None
        end = read_record(record).end
        assert end is not None
        assert body["data-segment"] == str(min(t, end["t"]))
        assert fighters == expected(record, min(t, end["t"]))
        moved = moved or (previous is not None and previous != fighters)
        previous = fighters
    assert moved  # the chosen segment changes what the map shows


def test_the_slider_keys_and_account_move_the_segment(tmp_path: Path) -> None:
    record = record_of("three_against_three.toml", tmp_path)
    page = viewer(record)
    driven = with_script(
        page,
        """
        const out = [];
        const slider = document.getElementById("slider");
        slider.value = "40";
        slider.dispatchEvent(new Event("input"));
        out.push(document.body.dataset.segment);
        document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
        out.push(document.body.dataset.segment);
        document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowLeft", shiftKey: true}));
        out.push(document.body.dataset.segment);
        const line = document.querySelector("#account li");  // the earliest line shown
        const wanted = line.dataset.t;
        line.click();
        out.push(document.body.dataset.segment === wanted ? "clicked" : "missed");
        document.getElementById("slider").value = "9";
        document.getElementById("slider").dispatchEvent(new Event("input"));
        document.getElementById("next").click();
        out.push(document.body.dataset.segment);
        document.body.setAttribute("data-driven", out.join(","));
        """,
        tmp_path / "driven.html",
    )
    body, fighters = shown(dump_dom(driven))
    assert body["data-driven"] == "40,41,31,clicked,10"
    assert fighters == expected(record, 10)


def test_a_two_thousand_fighter_battle_opens_and_renders(tmp_path: Path) -> None:
    fight = line_battle(1000, seed=3, max_segments=12)
    fight.run()
    record = tmp_path / "battle.jsonl"
    write_record(fight, record)
    page = viewer(record)
    body, fighters = shown(dump_dom(page, "t=12", budget_ms=20000))
    assert body["data-ready"] == "1" and body["data-fighters"] == "2000"
    assert len(fighters) == 2000
    assert fighters == expected(record, fight_record(fight).end["t"])  # type: ignore[index]


def test_the_report_renders_its_charts(tmp_path: Path) -> None:
    results = run(tournament(ROOT / "examples/scenarios/duel.toml", ["aggressive", "pressure"], 8))
    page = tmp_path / "report.html"
    write_report(results, page, command="segsim tournament ...")
    measured = with_script(
        page,
        """
        const sizes = [...document.querySelectorAll("svg.chart")].map((s) => {
          const r = s.getBoundingClientRect();
          return [s.getAttribute("class"), Math.round(r.width), Math.round(r.height)];
        });
        document.body.setAttribute("data-charts", JSON.stringify(sizes));
        const cells = document.querySelectorAll("g.cell").length;
        document.body.setAttribute("data-cells", String(cells));
        """,
        tmp_path / "measured.html",
    )
    found = elements(dump_dom(measured))
    body = next(a for tag, a in found.tags if tag == "body")
    charts = json.loads(body["data-charts"])
    kinds = {c[0] for c in charts}
    assert {"chart scores", "chart rates", "chart matrix", "chart histogram"} <= kinds
    assert all(w > 100 and h > 50 for _, w, h in charts)  # drawn, not empty boxes
    assert body["data-cells"] == "2"


def test_without_chromium_the_browser_tests_fail_and_say_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import browser

    monkeypatch.delenv("SEGSIM_CHROMIUM", raising=False)
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        browser.chromium()


def test_the_screenshot_script_draws_every_picture(tmp_path: Path) -> None:
    import runpy

    script = runpy.run_path(str(ROOT / "docs/screenshots.py"))
    script["main"](tmp_path)
    made = sorted(p.name for p in tmp_path.glob("*.png"))
    docs = "\n".join(
        (ROOT / "docs" / page).read_text(encoding="utf-8") for page in ("views.md", "table.md")
    )
    for name in made:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    referenced = {
        line.split("(images/")[1].split(")")[0] for line in docs.splitlines() if "(images/" in line
    }
    assert referenced <= set(made)
    assert referenced <= {p.name for p in (ROOT / "docs/images").glob("*.png")}
