"""What every registered ruleset must offer, checked for each one: a rules page, an
example scenario, fights with the random legal policy that record and replay, a sweep
that does not depend on its workers, and the RL environment's API.

Record, replay, branch, timeline and golden-record tests run over every example
scenario, so a ruleset's example scenarios bring it into those tests as well.
"""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.experiment import run, sweep
from segsim.policy import make_policy
from segsim.record import fight_record
from segsim.replay import replay
from segsim.rules import ruleset_names

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))


def scenarios_of(ruleset: str) -> list[Path]:
    found = []
    for path in SCENARIOS:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if data.get("fight", {}).get("ruleset", "rinkanou") == ruleset:
            found.append(path)
    return found


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_ruleset_has_a_rules_page_and_an_example_scenario(ruleset: str) -> None:
    page = ROOT / "docs" / "rules" / f"{ruleset}.md"
    assert page.is_file(), f"docs/rules/{ruleset}.md"
    assert "Interpretations" in page.read_text(encoding="utf-8")
    assert scenarios_of(ruleset), f"no example scenario of {ruleset}"


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_random_legal_fights_record_and_replay(ruleset: str) -> None:
    for path in scenarios_of(ruleset):
        scenario = load_scenario(path)
        for seed in (11, 12):
            policies = {c.id: make_policy(ruleset, "random") for c in scenario.combatants}
            fight = scenario.fight(seed, policies=policies)
            fight.run()
            assert fight.outcome is not None
            result = replay(fight_record(fight))
            assert result.identical, (path.name, seed, result.divergence)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_a_sweep_gives_the_same_results_with_two_workers(ruleset: str) -> None:
    path = scenarios_of(ruleset)[0]
    serial = run(sweep(path, 6, seed=4, chunk=3))
    pooled = run(sweep(path, 6, seed=4, chunk=3), workers=2)
    assert serial.results == pooled.results
    assert len(serial.results) == 6


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_parallel_environment_passes_pettingzoos_checks(ruleset: str) -> None:
    from pettingzoo.test import parallel_api_test

    from segsim.envs import parallel_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        parallel_api_test(parallel_env(scenarios_of(ruleset)[0]), num_cycles=200)
