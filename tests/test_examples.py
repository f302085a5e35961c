"""Every example scenario and script in examples/ runs."""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

import numpy as np
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


LEARNING = ("gym_agent.py", "pettingzoo_agents.py", "rl_tournament.py")
"""The reinforcement-learning examples: run once each, by the test that checks what
they print (below), not twice."""


@pytest.mark.parametrize(
    "path",
    [p for p in sorted((ROOT / "examples").glob("*.py")) if p.name not in LEARNING],
    ids=lambda p: p.name,
)
def test_example_scripts_run(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(path)])
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip()


def _counts(out: str, prefix: str) -> dict[str, int]:
    """The outcome counts an example printed on its line starting with ``prefix``."""
    line = next(x for x in out.splitlines() if x.startswith(prefix))
    counts = ast.literal_eval(line.partition(": ")[2])
    assert isinstance(counts, dict)
    return counts


def _run(name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    path = ROOT / "examples" / name
    monkeypatch.setattr(sys, "argv", [str(path)])
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(path), run_name="__main__")
    return capsys.readouterr().out


def test_the_gymnasium_example_learns_to_win_where_a_random_agent_does_not(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _run("gym_agent.py", capsys, monkeypatch)
    before = _counts(out, "random agent:")
    after = _counts(out, "after 60 training episodes:")
    assert sum(before.values()) == sum(after.values()) == 10  # the same evaluation seeds
    assert before.get("stalemate", 0) > 0  # random agents stop acting: a loss for both
    assert after.get("won", 0) > before.get("won", 0) + 3
    assert "preferred actions: " in out


def test_the_pettingzoo_example_learns_to_fight_rather_than_stall(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _run("pettingzoo_agents.py", capsys, monkeypatch)
    before = _counts(out, "random agents:")
    after = _counts(out, "after 20 episodes of self-play:")
    assert sum(before.values()) == sum(after.values()) == 8
    assert after.get("stalemate", 0) < before.get("stalemate", 0)
    assert "robert prefers: " in out and "margaret prefers: " in out


def test_the_rl_tournament_agent_learns_to_win_by_a_margin_outside_both_intervals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A short version of examples/rl_tournament.py: 40 training episodes against the
    random policy, then the untrained and the trained agent on the same 30 fight seeds
    (its full run is in docs/experiments.md)."""
    from segsim.envs.learner import wins
    from segsim.experiment import wilson

    monkeypatch.chdir(ROOT)
    example = runpy.run_path(str(ROOT / "examples/rl_tournament.py"))
    untrained, trained = example["trained_agent"](40)
    env = example["make_env"]("random")
    before = wins(env, untrained, 30, 2000, "red")
    after = wins(env, trained, 30, 2000, "red")
    assert wilson(after, 30)[0] > wilson(before, 30)[1]  # apart: both intervals
    again = example["trained_agent"](40)[1]
    assert np.array_equal(again.weights, trained.weights)  # seeded: the same agent
    # The tournament's table: the agents and every built-in, on the same seeds.
    found = example["table"]({"trained agent": trained}, ("aggressive",), 3)
    assert set(found) == {"trained agent", *example["BUILT_INS"]}
    assert all(0 <= row["aggressive"] <= 3 for row in found.values())
    assert "trained agent" in example["show"](found, ("aggressive",), 3)
