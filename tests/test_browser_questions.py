"""The reports of ``segsim balance`` and ``segsim optimize`` in a real browser
(headless Chromium): their charts are drawn at a real size, with every cell and line
(issue 43)."""

from __future__ import annotations

import json
from pathlib import Path

from browser import dump_dom, elements, with_script

from segsim.experiment.balance import balance
from segsim.experiment.balance_report import write_balance_report

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")

MEASURE = """
const sizes = [...document.querySelectorAll("svg.chart")].map((s) => {
  const r = s.getBoundingClientRect();
  return [s.getAttribute("class"), Math.round(r.width), Math.round(r.height)];
});
document.body.setAttribute("data-charts", JSON.stringify(sizes));
document.body.setAttribute("data-cells", String(document.querySelectorAll("g.cell").length));
const bands = [...document.querySelectorAll("polygon.band")].map(
  (p) => Math.round(p.getBBox().height));
document.body.setAttribute("data-bands", JSON.stringify(bands));
"""


def measured(page: Path, tmp_path: Path) -> dict[str, str]:
    shown = with_script(page, MEASURE, tmp_path / "measured.html")
    found = elements(dump_dom(shown))
    return next(a for tag, a in found.tags if tag == "body")


def test_the_balance_report_draws_its_matrix_and_its_curve_with_a_band(tmp_path: Path) -> None:
    result = balance(DUEL, ["red.armour=none,mail", "blue.skills.sabre=40..60:10"], 6, seed=1)
    page = tmp_path / "balance.html"
    write_balance_report(result, page, command="segsim balance ...")
    body = measured(page, tmp_path)
    charts = json.loads(body["data-charts"])
    assert {c[0] for c in charts} == {"chart balance-matrix", "chart balance-curve"}
    assert all(w > 200 and h > 80 for _, w, h in charts)
    assert body["data-cells"] == "6"
    bands = json.loads(body["data-bands"])
    assert len(bands) == 2 and all(h > 10 for h in bands)  # one band per armour, drawn


def test_the_optimize_report_draws_its_progress_its_intervals_and_importances(
    tmp_path: Path,
) -> None:
    from segsim.experiment.optimize import optimize
    from segsim.experiment.optimize_report import write_optimization_report

    tempo = str(ROOT / "examples/policies/tempo.toml")
    result = optimize(
        DUEL, {"red": tempo}, 10, against={"blue": "pressure"}, fights=6, eval_fights=6, seed=1
    )
    page = tmp_path / "optimize.html"
    write_optimization_report(result, page, command="segsim optimize ...")
    shown = with_script(
        page,
        MEASURE
        + """
const count = (selector) => String(document.querySelectorAll(selector).length);
document.body.setAttribute("data-trials", count("circle.trial"));
document.body.setAttribute("data-rows", count("svg.difference g.row"));
document.body.setAttribute("data-parameters", count("g.parameter"));
""",
        tmp_path / "measured.html",
    )
    body = next(a for tag, a in elements(dump_dom(shown)).tags if tag == "body")
    charts = json.loads(body["data-charts"])
    assert {c[0] for c in charts} == {
        "chart progress",
        "chart difference",
        "chart importance",
    }
    assert all(w > 200 and h > 40 for _, w, h in charts)
    assert body["data-trials"] == "10"
    assert body["data-rows"] == str(len(result.comparisons))
    assert body["data-parameters"] == str(len(result.tunable))
