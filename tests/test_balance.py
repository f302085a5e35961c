"""``segsim balance``: every combination of varied fields on the same seeds, a matrix of
win rates with intervals, a numeric sweep's crossing of 50 %, and bad names refused
before anything is written (issue 43, part 2)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from segsim.cli import main
from segsim.experiment import ExperimentError, run, sweep, wilson
from segsim.experiment.balance import _crossing, _slope, balance
from segsim.experiment.design import ScenarioText
from segsim.experiment.variables import Varied, dump_toml, parse_vary
from segsim.input import Source

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")
BRAWL = str(ROOT / "examples/scenarios/loss_street_brawl.toml")


def test_a_range_includes_both_ends_and_a_list_keeps_its_order() -> None:
    assert parse_vary("blue.skills.sabre=35..60:5").values == (35, 40, 45, 50, 55, 60)
    assert parse_vary("x.y=0..1:0.25").values == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert parse_vary("blue.weapon=sabre,spear,axe").values == ("sabre", "spear", "axe")
    assert parse_vary("fight.max_segments=100,200").numeric
    assert not parse_vary("blue.weapon=sabre,spear").numeric
    for bad in ("blue.weapon", "blue.weapon=", "a.b=5..1:1", "a.b=1..5:0", "a.b=x,,y"):
        with pytest.raises(ExperimentError, match="--vary"):
            parse_vary(bad)


def test_each_cell_is_the_sweep_of_the_scenario_with_those_fields_written_in(
    tmp_path: Path,
) -> None:
    result = balance(DUEL, ["blue.weapon=sabre,spear", "red.armour=none,mail"], 12, seed=3)
    assert [dict(c.setting) for c in result.cells] == [
        {"blue.weapon": w, "red.armour": a} for w in ("sabre", "spear") for a in ("none", "mail")
    ]
    # The same file written by hand: Robert with a spear, Margaret without armour.
    data = dict(Source.read(DUEL).data)
    robert, margaret = data["combatant"]
    robert["sheet"] = {
        **Source.read(ROOT / "models/rinkanou/fighters.toml").data["fighter"]["robert"],
        "weapon": "spear",
    }
    del robert["fighter"]
    margaret["sheet"] = {
        **Source.read(ROOT / "models/rinkanou/fighters.toml").data["fighter"]["margaret"],
        "armour": "none",
    }
    del margaret["fighter"]
    by_hand = tmp_path / "spear_none.toml"
    by_hand.write_text(dump_toml(data), encoding="utf-8")
    direct = run(sweep(by_hand, 12, seed=3)).results
    cell = result.cell({"blue.weapon": "spear", "red.armour": "none"})
    assert cell.wins == sum(1 for r in direct if r.winner == "blue")
    assert cell.n == 12 and cell.interval == wilson(cell.wins, 12)
    # Every combination played the same fight seeds; what differs is the fields.
    seeds = {tuple(r.seed for r in res.results) for res in result.results}
    assert len(seeds) == 1
    assert len({c.wins for c in result.cells}) > 1  # the weapon and armour do matter


def test_a_number_swept_gives_its_crossing_of_fifty_percent_and_its_slope() -> None:
    assert _crossing([30, 40, 50], [0.2, 0.4, 0.6]) == pytest.approx(45.0)
    assert _crossing([30, 40, 50], [0.6, 0.7, 0.8]) is None
    assert _slope([30, 40, 50], [0.2, 0.4, 0.6]) == pytest.approx(0.02)
    result = balance(DUEL, ["blue.skills.sabre=40..60:10"], 16, seed=2)
    assert result.numeric is not None and result.numeric.name == "blue.skills.sabre"
    (crossing,) = result.crossings()
    rates = [c.rate for c in result.cells]
    assert crossing.slope == pytest.approx(_slope([40, 50, 60], rates))
    assert crossing.at == _crossing([40, 50, 60], rates)
    assert "one unit of blue.skills.sabre buys" in result.text()


def test_the_cli_prints_the_matrix_and_writes_the_table_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, report = tmp_path / "b.csv", tmp_path / "b.html"
    args = ["balance", DUEL, "--vary", "blue.weapon=sabre,spear", "--vary", "red.armour=none,mail"]
    args += ["--fights", "8", "--seed", "4", "--table", str(table), "--report", str(report)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "blue.weapon \\ red.armour" in out and "win rate of side blue" in out
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    assert [(r["blue.weapon"], r["red.armour"]) for r in rows] == [
        ("sabre", "none"),
        ("sabre", "mail"),
        ("spear", "none"),
        ("spear", "mail"),
    ]
    assert all(int(r["fights"]) == 8 for r in rows)
    page = report.read_text(encoding="utf-8")
    assert page.count('<g class="cell"') == 4
    # Two workers give the same figures (the seeds do not depend on the backend).
    jsonl = tmp_path / "b.jsonl"
    assert main([*args[:-4], "--workers", "2", "--table", str(jsonl)]) == 0
    again = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert [r["wins"] for r in again] == [int(r["wins"]) for r in rows]


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("blue.wepon=sabre", "--vary blue.wepon: no such field"),
        ("blue.skills.sabr=40", "--vary blue.skills.sabr: no field 'sabr'"),
        ("green.weapon=sabre", "--vary green.weapon: no combatant or side 'green'"),
        ("fight.max_segmets=10", "--vary fight.max_segmets: no such field"),
        ("blue.characteristics=3", "--vary blue.characteristics: characteristics is a table"),
    ],
)
def test_an_unknown_name_is_an_error_naming_it_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, named: str
) -> None:
    table, report = tmp_path / "b.csv", tmp_path / "b.html"
    args = ["balance", DUEL, "--vary", "red.armour=none,mail", "--vary", name]
    code = main([*args, "--fights", "4", "--table", str(table), "--report", str(report)])
    assert code == 2
    assert named in capsys.readouterr().err
    assert not table.exists() and not report.exists()


def test_a_value_the_rules_refuse_is_an_error_naming_the_rule_before_any_fight(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["balance", DUEL, "--vary", "blue.skills.combat=30,50", "--fights", "4"]) == 2
    err = capsys.readouterr().err
    assert "blue.skills.combat=30" in err and "[RinKaNou, Compétences de combat]" in err


def test_a_coarse_ruleset_varies_its_options_and_its_fighters() -> None:
    result = balance(BRAWL, ["diego.weapon=rapier,axe", "options.darkness=false,true"], 4)
    assert result.side == "heroes"
    assert len(result.cells) == 4 and all(c.n == 4 for c in result.cells)
    texts = [res.experiment.scenario.text for res in result.results]
    assert 'weapon = "axe"' in texts[2] and "darkness = true" in texts[3]
    varied = Varied(ScenarioText.read(BRAWL))
    with pytest.raises(ExperimentError, match=r"--vary options\.darkess: no such field"):
        varied.text([("options.darkess", True)])
