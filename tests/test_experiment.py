"""Experiments: seeding, statistics, stop rules, tables, bad input (segsim.experiment)."""

from __future__ import annotations

import csv
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segsim.actions import Declaration
from segsim.cli import main
from segsim.errors import SegsimError
from segsim.experiment import (
    SPRT,
    ExperimentError,
    PoolBackend,
    Progress,
    fight_seed,
    run,
    sweep,
    tournament,
    wilson,
)
from segsim.experiment.runner import _pieces
from segsim.policy import Observation, UnknownPolicy
from segsim.record import write_record
from segsim.rules.rinkanou.policies import Aggressive

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Table I, method 3 (Wilson score without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # Symmetric case, by hand: centre 0.5, half-width 1.96 * sqrt(.025 + z²/400) / (1 + z²/10).
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_interval_matches_published_values(
    successes: int, n: int, low: float, high: float
) -> None:
    lo, hi = wilson(successes, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_edges() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0
    with pytest.raises(ValueError, match=r"within 0\.\.10"):
        wilson(11, 10)


# ---------------------------------------------------------------- seeding


def test_fight_seed_depends_only_on_master_seed_and_index() -> None:
    assert fight_seed(7, 3) == fight_seed(7, 3)
    seeds = {fight_seed(7, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert fight_seed(8, 3) != fight_seed(7, 3)
    assert 0 <= fight_seed(7, 3) < 2**63


def test_results_do_not_depend_on_chunk_size_or_workers() -> None:
    serial = run(sweep(DUEL, 24, seed=5, chunk=24))
    chunked = run(sweep(DUEL, 24, seed=5, chunk=5))
    pooled = run(sweep(DUEL, 24, seed=5, chunk=5), workers=2)
    assert serial.results == chunked.results == pooled.results
    assert [r.seed for r in serial.results] == [fight_seed(5, i) for i in range(24)]
    assert serial.summary().text().split("chunk")[1] != ""  # the header names the chunk
    body = serial.summary().text().split("\n", 1)[1]
    assert body == pooled.summary().text().split("\n", 1)[1]


def test_cli_summary_is_byte_identical_for_any_worker_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outputs = []
    for workers in ("1", "2"):
        code = main(["sweep", DUEL, "--fights", "30", "--seed", "11", "--workers", workers])
        assert code == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "95% CI" in outputs[0] and "length (segments)" in outputs[0]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_results_are_the_same_from_forked_and_spawned_workers(method: str) -> None:
    experiment = sweep(DUEL, 30, seed=4, chunk=10, compare={"red": "pressure"})
    pool = PoolBackend(2, start_method=method)
    try:
        assert pool.start_method == method
        pooled = run(experiment, backend=pool)
    finally:
        pool.close()
    serial = run(experiment)
    assert pooled.results == serial.results
    assert pooled.summary().text() == serial.summary().text()


def test_workers_are_forked_only_from_a_process_running_one_thread() -> None:
    """Forking a process that runs threads can deadlock the child: spawn then."""
    code = (
        "import threading\n"
        "from segsim.experiment.backends import _start_method\n"
        "alone = _start_method()\n"
        "stop = threading.Event()\n"
        "thread = threading.Thread(target=stop.wait)\n"
        "thread.start()\n"
        "print(alone, _start_method())\n"
        "stop.set()\n"
        "thread.join()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    expected = "fork spawn" if sys.platform == "linux" else "spawn spawn"
    assert done.stdout.split() == expected.split()
    with pytest.raises(ExperimentError, match="'fork' or 'spawn'"):
        PoolBackend(2, start_method="forkserver")


@pytest.mark.parametrize(("fights", "arms"), [(24, 1), (1000, 1), (130, 3), (7, 2)])
@pytest.mark.parametrize("chunk", [1, 5, 100])
def test_parallel_runs_cut_their_last_blocks_into_smaller_tasks(
    fights: int, arms: int, chunk: int
) -> None:
    for workers in (1, 2, 4):
        sizes = []
        for start in range(0, fights, chunk):
            stop = min(start + chunk, fights)
            pieces = _pieces(start, stop, fights, arms, workers)
            # The pieces cover the block, in order, without overlap.
            assert pieces[0][0] == start and pieces[-1][1] == stop
            assert all(a < b == c for (a, b), (c, _) in itertools.pairwise(pieces))
            assert all(a < b for a, b in pieces)
            sizes += [b - a for a, b in pieces]
            if workers == 1:
                assert pieces == [(start, stop)]
        # Never larger toward the end, so the workers finish together.
        assert all(x >= y - 1 for x, y in itertools.pairwise(sizes))
        if workers > 1 and fights * arms >= 8 * workers and chunk > 1:
            assert sizes[-1] < min(chunk, fights)


def test_any_fight_of_the_table_can_be_rerun_and_recorded(tmp_path: Path) -> None:
    experiment = sweep(DUEL, 6, seed=3, policies={"red": "pressure"})
    results = run(experiment)
    row = results.results[4]
    fight = experiment.fight(4)
    outcome = fight.run()
    assert fight.seed == row.seed == fight_seed(3, 4)
    assert outcome.winner == row.winner
    assert fight.history[-1].t + 1 == row.segments
    out = io.StringIO()
    write_record(fight, out)
    header = json.loads(out.getvalue().splitlines()[0])
    assert header["seed"] == row.seed
    assert {c["id"]: c["policy"] for c in header["combatants"]}["margaret"] == "pressure"


def test_cli_rerun_writes_the_record_of_one_fight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fight.jsonl"
    args = ["sweep", DUEL, "--seed", "3", "--rerun", "2", "--record", str(out)]
    assert main(args) == 0
    assert f"seed {fight_seed(3, 2)}" in capsys.readouterr().out
    assert json.loads(out.read_text().splitlines()[0])["seed"] == fight_seed(3, 2)


# ---------------------------------------------------------------- comparisons and tournaments


def test_comparisons_use_common_random_numbers() -> None:
    results = run(
        sweep(DUEL, 10, seed=1, policies={"red": "aggressive"}, compare={"red": "pressure"})
    )
    first, second = results.experiment.arms
    a = results.arm_results(first.label)
    b = results.arm_results(second.label)
    assert [r.seed for r in a] == [r.seed for r in b]
    assert first.label == "red=aggressive" and second.label == "red=pressure"
    summary = results.summary()
    assert summary.difference is not None
    side, diff, (lo, hi) = summary.difference
    # The comparison changes red's policy, so it is told from red's side.
    paired = [
        float(y.winner == "red") - float(x.winner == "red") for x, y in zip(a, b, strict=True)
    ]
    assert side == "red" and diff == pytest.approx(sum(paired) / len(paired))
    assert lo < diff < hi
    assert "side red's win rate is" in summary.text()


def test_tournament_plays_every_ordered_pair_on_the_same_seeds() -> None:
    results = run(tournament(DUEL, ["aggressive", "random", "pressure"], 8, seed=4))
    labels = [arm.label for arm in results.experiment.arms]
    assert labels == [
        "blue=aggressive, red=random",
        "blue=aggressive, red=pressure",
        "blue=random, red=aggressive",
        "blue=random, red=pressure",
        "blue=pressure, red=aggressive",
        "blue=pressure, red=random",
    ]
    seeds = {tuple(r.seed for r in results.arm_results(label)) for label in labels}
    assert len(seeds) == 1
    summary = results.summary()
    pair = next(p for p in summary.pairs if p.a == "aggressive" and p.b == "random")
    assert pair.n == 16  # both sides
    assert pair.wins == 16  # random never wins a duel against an attacker
    assert "round robin" in summary.text() and "ranking" in summary.text()


def test_sprt_stops_when_the_test_decides_whatever_the_chunking() -> None:
    decided = []
    for chunk in (3, 50):
        exp = tournament(DUEL, ["aggressive", "random"], 400, seed=2, chunk=chunk, sprt=SPRT())
        results = run(exp)
        assert results.sprt is not None
        decided.append(results)
    a, b = decided
    assert a.sprt == b.sprt
    assert a.sprt is not None
    assert a.sprt.accepted == "H1"
    assert a.sprt.decision == "H1 accepted: aggressive is better than random"
    assert a.sprt.llr >= a.sprt.bounds[1]
    assert a.fights == a.sprt.stopped_at + 1 < 400  # type: ignore[operator]
    assert a.results == b.results
    assert "H1 accepted: aggressive is better than random" in a.summary().text()


def test_target_error_stops_at_the_first_chunk_boundary_where_intervals_are_narrow() -> None:
    exp = sweep(DUEL, 1000, seed=6, chunk=20, target_error=0.3)
    results = run(exp)
    assert results.stopped is not None and "narrower than 0.3" in results.stopped
    assert results.fights < 1000 and results.fights % 20 == 0
    assert len(results.results) == results.fights
    widths = [
        hi - lo for arm in results.summary().arms for s in arm.sides for lo, hi in [s.interval]
    ]
    assert max(widths) < 0.3
    # One chunk fewer was not precise enough.
    shorter = run(sweep(DUEL, results.fights - 20, seed=6, chunk=20))
    widths = [
        hi - lo for arm in shorter.summary().arms for s in arm.sides for lo, hi in [s.interval]
    ]
    assert max(widths) >= 0.3
    # The same stop with a pool of workers.
    assert run(exp, workers=2).results == results.results


# ---------------------------------------------------------------- tables, plots, progress


def test_csv_and_parquet_tables(tmp_path: Path) -> None:
    results = run(sweep(DUEL, 5, seed=9))
    results.write_table(tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 5
    assert list(rows[0]) == [
        "arm",
        "index",
        "seed",
        "result",
        "winner",
        "segments",
        "damage_blue",
        "damage_red",
        "actions_blue",
        "actions_red",
        "error",
    ]
    assert [int(r["seed"]) for r in rows] == [fight_seed(9, i) for i in range(5)]
    assert rows[0]["winner"] == (results.results[0].winner or "")
    import pyarrow.parquet as pq

    results.write_table(tmp_path / "t.parquet")
    table = pq.read_table(tmp_path / "t.parquet")
    assert table.num_rows == 5
    assert table.column("segments").to_pylist() == [r.segments for r in results.results]


def test_damage_and_actions_are_counted_per_side() -> None:
    results = run(sweep(DUEL, 4, seed=12))
    fight = results.experiment.fight(0)
    fight.run()
    taken = {"blue": 0, "red": 0}
    side = {"robert": "blue", "margaret": "red"}
    for ev in fight.history:
        if ev.TYPE == "wound.taken":
            taken[side[ev.actor]] += ev.damage  # type: ignore[attr-defined,index]
    assert dict(results.results[0].damage) == taken
    assert sum(dict(results.results[0].actions).values()) > 0


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plot.png"
    assert main(["sweep", DUEL, "--fights", "10", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {out}" in capsys.readouterr().out


def test_progress_bar_only_on_a_terminal() -> None:
    quiet = io.StringIO()
    bar = Progress(10, stream=quiet)
    bar.update(5)
    bar.close()
    assert quiet.getvalue() == ""  # a StringIO is not a terminal

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress(10, stream=tty)
    bar.update(5)
    bar.close()
    shown = tty.getvalue()
    # tqdm's line: done/total, elapsed<left (the ETA), and a rate in fights per second.
    assert "5/10" in shown and "fight/s" in shown and "<" in shown


# ---------------------------------------------------------------- bad input


class Sloppy:
    """Attacks like Aggressive, but in fights whose seed is even it strikes at nobody."""

    name = "sloppy"
    reactive = False

    def __init__(self) -> None:
        self.inner = Aggressive()
        self.bad = False

    def bind(self, actor: str, seed: int) -> None:
        self.bad = seed % 2 == 0

    def decide(self, obs: Observation) -> Any:
        if self.bad and obs.segment > 0:
            return Declaration("strike", "nobody", {"blow": "cut"})
        return self.inner.decide(obs)


def test_an_illegal_declaration_ends_that_fight_with_an_error_and_keeps_the_others() -> None:
    results = run(sweep(DUEL, 12, seed=0, policies={"margaret": Sloppy}), on_error="continue")
    errors = results.errors
    expected = {i for i in range(12) if fight_seed(0, i) % 2 == 0}
    assert {r.index for r in errors} == expected and 0 < len(errors) < 12
    for r in errors:
        assert r.result == "error" and r.winner is None
        assert r.error is not None
        assert "policy sloppy" in r.error and "segment " in r.error and "margaret" in r.error
    ok = [r for r in results.results if r.error is None]
    assert len(ok) == 12 - len(expected) and all(r.result == "victory" for r in ok)
    text = results.summary().text()
    assert f"{len(errors)} ended in an error" in text
    assert f"{12 - len(errors)} fights" in text
    assert "policy sloppy" in text


def test_cli_reports_failed_fights_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "sweep",
            DUEL,
            "--fights",
            "6",
            "--keep-going",
            "--policy",
            "margaret=test_experiment:Sloppy",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "errors:" in out and "policy sloppy" in out


def test_unknown_policy_name_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(UnknownPolicy, match="unknown policy 'berserk'"):
        sweep(DUEL, 10, policies={"red": "berserk"})
    assert main(["tournament", DUEL, "--policies", "aggressive", "berserk"]) == 2
    err = capsys.readouterr().err
    assert "segsim: error: unknown policy 'berserk'" in err and "Traceback" not in err


def test_zero_fights_and_other_bad_settings_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(ExperimentError, match="at least one fight, not 0"):
        sweep(DUEL, 0)
    assert main(["sweep", DUEL, "--fights", "0"]) == 2
    assert "at least one fight, not 0" in capsys.readouterr().err
    cases = [
        (["sweep", DUEL, "--target-error", "2"], "target error"),
        (["sweep", DUEL, "--policy", "green=random"], "no combatant or side 'green'"),
        (["sweep", DUEL, "--chunk", "0"], "chunk is at least one fight"),
        (["sweep", DUEL, "--workers", "-1"], "workers is >= 0"),
        (["sweep", str(ROOT / "nope.toml")], "nope.toml: cannot read"),
        (["tournament", DUEL, "--policies", "aggressive"], "at least two different policies"),
        (
            ["tournament", DUEL, "--policies", "aggressive", "random", "pressure", "--sprt"],
            "exactly two policies",
        ),
        (["sweep", DUEL, "--rerun", "3"], "--record"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err, (args, err)
        assert "Traceback" not in err


def test_bad_policy_assignment_syntax_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sweep", DUEL, "--policy", "aggressive"])
    assert exc.value.code == 2
    assert "ID=POLICY" in capsys.readouterr().err


def test_experiment_errors_are_segsim_errors() -> None:
    assert issubclass(ExperimentError, SegsimError)


def test_a_tournament_needs_two_sides(tmp_path: Path) -> None:
    text = Path(DUEL).read_text()
    third = (
        '\n[[combatant]]\nid = "x"\nside = "green"\nfighter = "recruit"\npolicy = "aggressive"\n'
    )
    path = tmp_path / "three.toml"
    path.write_text(text + third)
    with pytest.raises(ExperimentError, match="two sides, not 3"):
        tournament(path, ["aggressive", "random"], 5)


@settings(max_examples=8, deadline=None)
@given(fights=st.integers(1, 9), chunk=st.integers(1, 10), seed=st.integers(0, 2**40))
def test_any_chunking_gives_the_same_fights(fights: int, chunk: int, seed: int) -> None:
    one = run(sweep(DUEL, fights, seed=seed, chunk=fights))
    other = run(sweep(DUEL, fights, seed=seed, chunk=chunk))
    assert one.results == other.results
    assert [r.index for r in one.results] == list(range(fights))
