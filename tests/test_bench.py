"""The benchmark's pieces, on tiny inputs (no timing: that lives in ``make bench``).

What is checked is what makes its ratios mean something: the bare SimPy baseline runs
the very schedule the engine runs, and the counts it divides by are the fights' own.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_bench", ROOT / "benchmarks/run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["segsim_bench"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("segments", [50, 1_000])
def test_the_bare_simpy_baseline_runs_the_engine_s_schedule(
    bench: ModuleType, segments: int
) -> None:
    """Same fighters, same durations: as many SimPy timeouts as engine actions."""
    assert bench.engine_run(2, segments) == bench.bare_run(2, segments)
    assert bench.engine_run(3, segments) == bench.bare_run(3, segments)


def test_duels_count_the_declared_actions(bench: ModuleType) -> None:
    from segsim import load_scenario

    fight = load_scenario(ROOT / "examples/scenarios/duel.toml").fight(0)
    fight.run()
    declared = sum(1 for e in fight.history if e.TYPE == "action.declared")
    assert bench.duels(1) == declared == fight.state.next_action_id - 1


def test_the_census_counts_calls_and_objects(bench: ModuleType) -> None:
    census = bench.Census()
    actions = census.run(lambda: bench.engine_run(2, 60))
    assert actions > 0
    # Every action is one Action, which is also its action.declared event.
    assert census.objects["Action"] == actions
    assert census.objects["ActionDeclared"] == 0
    assert census.attrs_objects >= actions
    assert census.calls > 10 * actions


def test_battle_costs_count_the_settled_actions_of_the_window(bench: ModuleType) -> None:
    from segsim.battle import line_battle

    _, settled, working = bench.battle_costs(2, [0], 60)
    fight = line_battle(2, seed=0, max_segments=60)
    fight.run()
    ends = [e for e in fight.history if e.TYPE == "action.declared" and e.ends_in is not None]
    assert settled == sum(1 for e in ends if e.ends_in < 60) > 0
    assert working == sum(1 for e in ends if e.ends_in < 60 and e.kind != "wait")


def test_every_larger_battle_gets_a_ratio_to_the_two_fighter_cost(bench: ModuleType) -> None:
    costs, ratios, plain, plain_ratios = bench.scale_costs((1, 2), 20)
    assert sorted(costs) == [2, 4] and sorted(ratios) == sorted(plain_ratios) == [4]
    per_action, per_working, _ = costs[4]
    assert ratios[4][0] > 0 and per_working >= per_action
    assert sorted(plain) == [2] and plain_ratios[4][0] > 0


def test_a_round_runs_the_larger_battles_in_slices_as_in_one_go(bench: ModuleType) -> None:
    """A round's slices of the larger battles (each followed by some battles of 2) run
    the same fights as a run in one go: the same actions settled, and the battles of 2
    are each set's whole 100."""
    from segsim.battle import line_battle

    big, mixed, alone = bench.scale_round(5, 60)
    whole = [0, 0]
    for seed in range(10):  # 50 // 5 battles of 10 fighters
        fight = line_battle(5, seed=seed, max_segments=60)
        fight.run()
        for i, n in enumerate(bench.resolved(fight.history, 60)):
            whole[i] += n
    assert big[1:] == tuple(whole) and big[0] > 0
    for got, is_mixed in ((mixed, True), (alone, False)):
        assert got[1:] == bench.battle_costs(1, range(100), 60, mixed=is_mixed)[1:]


def test_the_mixed_two_fighter_battles_pair_both_kinds_of_fighter(bench: ModuleType) -> None:
    """The 2-fighter cost of the larger battles' ratios mixes their two kinds of fighter
    (a veteran attacker, a recruit defender): every pairing, on either side."""
    from segsim.battle import line_battle

    seen = set()
    for seed in range(len(bench.PAIRINGS)):
        fight = line_battle(1, offsets=bench.PAIRINGS[seed])
        seen.add(tuple((c.sheet.name, c.policy.name) for c in fight.state.combatants.values()))
    veteran, recruit = ("veteran", "aggressive"), ("recruit", "defender")
    assert seen == {(veteran, veteran), (recruit, recruit), (veteran, recruit), (recruit, veteran)}


def test_the_sweep_ratio_sets_the_serial_run_between_two_pooled_runs(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pooled, serial, pooled: each pooled rate against the one serial rate, the median
    of those ratios (of two: their mean)."""
    asked: list[tuple[int, int]] = []
    rates = iter([400.0, 250.0, 500.0])

    def rate(fights: int, workers: int) -> tuple[float, float | None]:
        asked.append((fights, workers))
        return next(rates), 0.0

    monkeypatch.setattr(bench, "sweep_rate", rate)
    name, ratio, target, _, at_least = bench.sweep_section(4_000)
    assert name.startswith("sweep")
    assert asked == [(4_000, 2), (4_000, 1), (4_000, 2)]
    assert ratio == pytest.approx((400 / 250 + 500 / 250) / 2)
    assert target == 1.8 and at_least


def test_a_sweep_s_rate_is_read_from_its_timing_line(bench: ModuleType) -> None:
    rate, others = bench.sweep_rate(3, 1)
    assert rate > 0
    assert others is None or others >= 0


def test_the_compiled_build_is_measured_in_its_own_process(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make bench`` measures the compiled variant (tests/test_compiled.py checks its
    records) in a process that imports the compiled engine module, not the checkout's."""
    built = bench.compiled_tree()
    assert not isinstance(built, str), built
    got = bench.compiled_section(built, 10.0, 50.0, quick=True)
    assert got is not None, capsys.readouterr().out
    assert got["module"].endswith(".so")
    assert Path(got["module"]).is_relative_to(ROOT / "build" / "compiled")
    assert got["engine"] > 1 and got["rules"] > got["engine"]
    assert "the pure build's speed" in capsys.readouterr().out


def test_a_compiled_build_that_cannot_be_made_is_reported_not_measured(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.compiled_section("RuntimeError: no C compiler", 10.0, 50.0, quick=True) is None
    assert "compiled build: not measured (RuntimeError: no C compiler)" in capsys.readouterr().out


def test_a_units_run_prints_how_many_units_it_ran(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """What each counted process runs under valgrind: the engine's actions, the bare
    schedule's timeouts, the duels' declared actions."""
    for kind, n, expected in (
        ("engine", "200", bench.engine_run(2, 200)),
        ("bare", "200", bench.bare_run(2, 200)),
        ("duel", "2", bench.duels(2)),
    ):
        assert bench.main(["--units", kind, n]) == 0
        assert capsys.readouterr().out.split() == [str(expected)]


def test_the_instruction_count_is_read_from_cachegrind_s_report(bench: ModuleType) -> None:
    report = "==1== Collected : 12\n==1== \n==1== I   refs:      1,109,141,108\n"
    assert bench.refs(report) == 1_109_141_108
    with pytest.raises(RuntimeError, match="no instruction count"):
        bench.refs("valgrind: command not found")


def test_instructions_per_unit_are_the_difference_of_a_long_and_a_short_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The start of the process and the imports cancel out: only the extra units count."""
    start = {"bare": 1_000_000, "engine": 2_000_000, "duel": 3_000_000}
    cost = {"bare": 10, "engine": 60, "duel": 180}

    def counted(kind: str, n: int) -> tuple[int, int]:
        units = 2 * n  # units need not equal n (two fighters' actions, duels' actions)
        return start[kind] + cost[kind] * units, units

    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(bench, "instructions", counted)
    assert bench.instruction_section(quick=True) == {"bare": 10, "engine": 60, "duel": 180}
    out = capsys.readouterr().out
    assert "engine alone 60 per action (6.00x)" in out and "(18.0x)" in out


def test_without_valgrind_the_instructions_are_not_counted(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.instruction_section(quick=False) is None
    assert "not counted (valgrind is not installed)" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="the count needs valgrind")
def test_a_counted_process_reports_its_instructions_and_units(bench: ModuleType) -> None:
    refs, units = bench.instructions("engine", 100)
    assert units == bench.engine_run(2, 100)
    assert refs > 1_000_000  # at least the interpreter's start
