"""Sweeps fail early and say why: the scenario's seed, the side a comparison is about,
outputs and extras checked before the first fight, an unreachable Ray cluster, the first
fight error (issue 14, items 8, 9, 10 and 12)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from segsim.cli import main
from segsim.experiment import ExperimentError, check_outputs, fight_seed, run, sweep, tournament
from segsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")


# ---------------------------------------------------------------- item 8


def test_a_sweep_uses_the_scenarios_seed_unless_told() -> None:
    scenario_seed = load_scenario(DUEL).seed
    assert scenario_seed != 0
    plain = run(sweep(DUEL, 3))
    assert plain.experiment.seed == scenario_seed
    assert [r.seed for r in plain.results] == [fight_seed(scenario_seed, i) for i in range(3)]
    assert sweep(DUEL, 3, seed=0).seed == 0
    assert tournament(DUEL, ["aggressive", "pressure"], 2).seed == scenario_seed


def test_cli_sweep_prints_the_scenarios_master_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", DUEL, "--fights", "2"]) == 0
    seed = load_scenario(DUEL).seed
    assert f"master seed {seed}," in capsys.readouterr().out


def test_compare_is_told_from_the_side_whose_policy_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["sweep", DUEL, "--fights", "20", "--compare", "red=pressure"])
    out = capsys.readouterr().out
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("common random numbers"))
    assert line.startswith("common random numbers: side red's win rate is ")
    assert "with [red=pressure] against [scenario]" in line
    # And from the other side when the other side changes.
    main(["sweep", DUEL, "--fights", "20", "--compare", "blue=pressure"])
    assert "side blue's win rate is" in capsys.readouterr().out


# ---------------------------------------------------------------- item 9


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--table", "no/such/folder/out.csv", "table no/such/folder/out.csv: no folder"),
        ("--plot", "missing-dir/out.png", "plot missing-dir/out.png: no folder"),
        ("--table", ".", "is a folder"),
    ],
)
def test_bad_output_paths_are_refused_before_the_first_fight(
    option: str,
    value: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    fought: list[int] = []
    import segsim.experiment.worker as worker

    real = worker.run_one
    monkeypatch.setattr(worker, "run_one", lambda *a, **k: fought.append(1) or real(*a, **k))
    assert main(["sweep", DUEL, "--fights", "3", option, value]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert fought == []  # no fight ran


def _without(module: str, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where ``module`` cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", f"import sys; sys.modules[{module!r}] = None\n{code}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    ("module", "args", "message"),
    [
        (
            "matplotlib",
            ["--plot", "out.png"],
            "--plot needs matplotlib: pip install 'segsim[plot]'",
        ),
        (
            "pyarrow",
            ["--table", "out.parquet"],
            "a Parquet table needs pyarrow: pip install 'segsim[parquet]'",
        ),
    ],
)
def test_missing_extras_are_found_before_the_first_fight(
    module: str, args: list[str], message: str, tmp_path: Path
) -> None:
    argv = [a if not a.startswith("out") else str(tmp_path / a) for a in args]
    code = (
        "import segsim.experiment.worker as w\n"
        "def boom(*a, **k): raise SystemExit('a fight ran')\n"
        "w.run_one = boom\n"
        "from segsim.cli import main\n"
        f"sys.exit(main(['sweep', {DUEL!r}, '--fights', '2', *{argv!r}]))"
    )
    done = _without(module, code)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "a fight ran" not in done.stderr
    assert "Traceback" not in done.stderr


def test_check_outputs_accepts_writable_paths(tmp_path: Path) -> None:
    check_outputs(table=tmp_path / "t.csv", plot=tmp_path / "p.png", report=tmp_path / "r.html")
    with pytest.raises(ExperimentError, match=r"report .*: no folder"):
        check_outputs(report=tmp_path / "nope" / "r.html")


def test_rl_envs_without_the_extra_say_which_extra() -> None:
    done = _without("numpy", "import segsim.envs")
    assert done.returncode != 0
    assert "segsim.envs needs numpy (the rl extra): pip install 'segsim[rl]'" in done.stderr
    done = _without("gymnasium", "import segsim.envs\nsegsim.envs.FightEnv")
    assert "segsim.envs needs gymnasium (the rl extra): pip install 'segsim[rl]'" in done.stderr


def test_schema_errors_without_jsonschema_says_what_to_install() -> None:
    done = _without("jsonschema", "from segsim.record import schema_errors\nschema_errors([])")
    assert done.returncode != 0
    assert "schema_errors needs jsonschema: pip install jsonschema" in done.stderr


# ---------------------------------------------------------------- item 10


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("address", ["BAD", "ray://", "host:notaport", "host:70000"])
def test_a_malformed_ray_address_is_refused(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sweep", DUEL, "--fights", "2", "--backend", "ray", "--address", address])
    err = capsys.readouterr().err
    assert code == 2
    assert "a Ray address is HOST:PORT, ray://HOST:PORT or auto" in err
    assert "Traceback" not in err


def test_an_unreachable_ray_cluster_is_reported_not_waited_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    code = main(["sweep", DUEL, "--fights", "2", "--backend", "ray", "--address", address])
    err = capsys.readouterr().err
    assert code == 2
    assert f"--address {address}: no Ray cluster reachable there" in err


def test_a_silent_listener_times_out_with_a_clear_message() -> None:
    from segsim.experiment.backends import _reachable

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        _reachable(f"127.0.0.1:{port}", 1.0)  # something listens: the check passes
    with pytest.raises(ExperimentError, match="no Ray cluster reachable there"):
        _reachable(f"127.0.0.1:{port}", 1.0)


# ---------------------------------------------------------------- item 12


def test_a_sweep_stops_at_the_first_fight_error_and_shows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Sloppy (tests/test_experiment.py) declares an illegal strike in even-seeded fights.
    results = run(sweep(DUEL, 40, chunk=10, policies={"red": "test_experiment:Sloppy"}))
    assert results.failed is not None
    first = min(i for i in range(40) if fight_seed(results.experiment.seed, i) % 2 == 0)
    assert results.failed.index == first
    assert results.fights == first + 1 and len(results.errors) == 1
    assert results.stopped is not None and "policy sloppy" in results.stopped
    code = main(["sweep", DUEL, "--fights", "40", "--policy", "margaret=test_experiment:Sloppy"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""  # no win rates computed from failed fights
    assert f"segsim: error: fight {first} of [margaret=test_experiment:Sloppy]" in captured.err
    assert "policy sloppy: no combatant 'nobody'" in captured.err
    assert f"--rerun {first} --arm 'margaret=test_experiment:Sloppy'" in captured.err


def test_the_first_error_does_not_depend_on_workers() -> None:
    exp = sweep(DUEL, 16, chunk=4, policies={"margaret": "test_experiment:Sloppy"})
    serial = run(exp)
    pooled = run(exp, workers=2)
    assert serial.failed == pooled.failed and serial.results == pooled.results
