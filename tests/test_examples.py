"""Every example scenario and script in examples/ runs."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from segsim import load_scenario

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "path", sorted((ROOT / "examples/scenarios").glob("*.toml")), ids=lambda p: p.name
)
def test_example_scenarios_run_to_an_end(path: Path) -> None:
    scenario = load_scenario(path)
    fight = scenario.fight()
    outcome = fight.run()
    assert fight.history[-1].TYPE == "end"
    assert outcome.result in ("victory", "stalemate", "time limit", "all out", "escaped")


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_example_scripts_run(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(path)])
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip()
