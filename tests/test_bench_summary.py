"""``benchmarks/summary.py``: several ``make bench`` reports side by side (it reads the
reports ``run.py --json`` writes, and measures nothing)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks/summary.py"


@pytest.fixture(scope="module")
def summary() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_bench_summary", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdict(name: str, value: float | None, status: str, **kw: Any) -> dict[str, Any]:
    return {
        "name": name,
        "value": value,
        "status": status,
        "target": kw.get("target", 1.25),
        "unit": kw.get("unit", "x"),
        "at_least": kw.get("at_least", False),
        "why": "",
        "busy": "",
    }


def report(duel: float, highest: str, ratio: float, wall: str) -> dict[str, Any]:
    row = {
        "instructions_per_action": duel,
        "cpu_per_action": 2.3e-5,
        "fights_per_cpu_second": 950.0,
        "actions_per_fight": 45.2,
        "attacks_per_fight": 11.1,
        "instructions_per_attack": duel * 4,
        "cpu_per_attack": 9.3e-5,
    }
    chase = dict(row, attacks_per_fight=0.0, instructions_per_attack=None, cpu_per_attack=None)
    return {
        "quick": False,
        "verdicts": [
            verdict(
                f"rinkanou: against the duel's (highest: {highest})",
                ratio,
                "PASS" if ratio <= 1.25 else "MISS",
            ),
            verdict(wall, 80.0, "PASS", target=120.0, unit=" s"),
            verdict("sweep", 1.9, "PASS", target=1.8, at_least=True),
        ],
        "figures": {"scenarios": {"rinkanou": {"duel": row}, "loss": {"loss_chase": chase}}},
    }


def test_runs_line_up_by_verdict_whatever_each_run_found_costliest(
    summary: ModuleType,
) -> None:
    text = summary.summary(
        [
            report(
                138_433,
                "crossbow_ambush",
                1.84,
                "wall time, the wait for the build (31 s of 78) aside",
            ),
            report(129_000, "archery_duel", 1.20, "wall time"),
        ]
    )
    lines = text.splitlines()
    assert lines[0] == "| target | run 1 | run 2 |"
    row = next(line for line in lines if line.startswith("| rinkanou"))
    assert row == (
        "| rinkanou: against the duel's (<= 1.25x) | 1.84x MISS (crossbow_ambush) "
        "| 1.20x PASS (archery_duel) |"
    )
    assert "| wall time (<= 120.00 s) | 80.00 s PASS | 80.00 s PASS |" in lines
    assert "| sweep (>= 1.80x) | 1.90x PASS | 1.90x PASS |" in lines
    assert "Targets met, run by run: 2 of 3, 3 of 3." in lines


def test_each_scenario_s_cell_holds_every_run_s_figure(summary: ModuleType) -> None:
    text = summary.summary([report(138_433, "duel", 1.0, "w"), report(129_000, "duel", 1.0, "w")])
    duel = next(line for line in text.splitlines() if line.startswith("| duel |"))
    cells = [c.strip() for c in duel.strip("|").split("|")]
    assert cells[1] == "138,433 / 129,000"  # instructions per action
    assert cells[2] == "23.0 / 23.0"  # CPU microseconds per action
    chase = next(line for line in text.splitlines() if line.startswith("| loss_chase |"))
    assert chase.endswith("| - / - | - / - |")  # no attack, nothing per attack


def test_a_file_that_is_not_a_report_is_named(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report(138_433, "duel", 1.0, "w")))
    bad = tmp_path / "bad.json"
    bad.write_text('{"figures": {}}')
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(good), str(bad)], capture_output=True, text=True
    )
    assert done.returncode == 1 and done.stdout == ""
    assert f"{bad}: not a bench report (no 'verdicts' list)" in done.stderr
    ok = subprocess.run([sys.executable, str(SCRIPT), str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("| target | run 1 |")
