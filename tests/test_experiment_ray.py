"""The same experiment on a local Ray instance (2 CPUs, no dashboard) gives the same
results and summary as in one process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import ray

from segsim.cli import main
from segsim.experiment import SPRT, run, sweep, tournament

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine

DUEL = str(Path(__file__).resolve().parent.parent / "examples/scenarios/duel.toml")


def test_cli_starts_and_stops_its_own_local_ray(capsys: pytest.CaptureFixture[str]) -> None:
    assert not ray.is_initialized()
    args = ["sweep", DUEL, "--fights", "12", "--seed", "4", "--chunk", "6"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    assert main([*args, "--backend", "ray", "--workers", "2"]) == 0
    assert capsys.readouterr().out == serial
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def local_ray() -> object:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_backend_matches_serial(local_ray: object) -> None:
    experiment = sweep(DUEL, 30, seed=21, chunk=7, compare={"red": "pressure"})
    serial = run(experiment)
    on_ray = run(experiment, backend="ray", workers=2)
    assert on_ray.results == serial.results
    assert on_ray.summary().text() == serial.summary().text()
    assert ray.is_initialized()  # a running instance is used, not shut down


def test_ray_backend_stop_rules_match_serial(local_ray: object) -> None:
    exp = tournament(DUEL, ["aggressive", "random"], 200, seed=8, chunk=4, sprt=SPRT())
    assert run(exp, backend="ray", workers=2).sprt == run(exp).sprt


def test_balance_and_optimize_on_ray_match_one_process(local_ray: object) -> None:
    """The designer's commands (issue 43) run on the same backends as a sweep, with the
    same figures."""
    from segsim.experiment.balance import balance
    from segsim.experiment.optimize import optimize

    varied = ["blue.weapon=sabre,spear", "red.armour=none,mail"]
    serial = balance(DUEL, varied, 6, seed=4)
    assert balance(DUEL, varied, 6, seed=4, backend="ray", workers=2).text() == serial.text()
    tempo = str(Path(DUEL).parent.parent / "policies/tempo.toml")
    args = {"against": {"blue": "pressure"}, "fights": 4, "eval_fights": 4, "seed": 2}
    here = optimize(DUEL, {"red": tempo}, 3, **args)  # type: ignore[arg-type]
    there = optimize(DUEL, {"red": tempo}, 3, backend="ray", workers=2, **args)  # type: ignore[arg-type]
    assert there.trials == here.trials and there.comparisons == here.comparisons
