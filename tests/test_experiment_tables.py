"""The per-fight table is written in the format its extension names (CSV, Parquet, JSON
Lines) or refused, before any fight, with the extensions it accepts (issue 40)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from segsim.cli import main
from segsim.experiment import ExperimentError, run, sweep

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")
ACCEPTED = ".csv (CSV), .parquet (Parquet), .jsonl (JSON Lines)"


def test_a_jsonl_table_has_one_object_a_fight_with_the_csv_columns(tmp_path: Path) -> None:
    results = run(sweep(DUEL, 4, seed=9))
    results.write_table(tmp_path / "t.jsonl")
    results.write_table(tmp_path / "t.csv")
    lines = (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    with open(tmp_path / "t.csv", newline="") as f:
        from_csv = list(csv.DictReader(f))
    assert len(rows) == 4
    assert [list(r) for r in rows] == [list(r) for r in from_csv]
    assert [r["seed"] for r in rows] == [r.seed for r in results.results]
    assert [r["segments"] for r in rows] == [r.segments for r in results.results]
    assert [str(v) for v in rows[0].values()] == list(from_csv[0].values())


@pytest.mark.parametrize("name", ["out.xlsx", "out.json", "out", "out.csv.gz"])
def test_a_table_extension_that_names_no_format_is_refused_before_any_fight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = tmp_path / name
    code = main(["sweep", DUEL, "--fights", "3", "--table", str(out), "--progress", "off"])
    assert code == 2
    captured = capsys.readouterr()
    assert f"table {out}:" in captured.err and ACCEPTED in captured.err
    assert captured.out == ""  # no summary: no fight ran
    assert not out.exists()


def test_the_python_api_refuses_it_too(tmp_path: Path) -> None:
    results = run(sweep(DUEL, 2, seed=1))
    with pytest.raises(ExperimentError, match=r"the extension '\.xlsx' names no table format"):
        results.write_table(tmp_path / "out.xlsx")
    assert not (tmp_path / "out.xlsx").exists()


def test_the_extension_is_read_whatever_its_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "OUT.JSONL"
    assert main(["sweep", DUEL, "--fights", "3", "--table", str(out), "--progress", "off"]) == 0
    assert f"table written to {out}" in capsys.readouterr().out
    assert len([json.loads(x) for x in out.read_text().splitlines()]) == 3
