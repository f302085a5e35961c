"""The benchmark's pieces, on tiny inputs (no timing: that lives in ``make bench``).

What is checked is what makes its figures mean something: the bare SimPy baseline runs
the very schedule the engine runs, the counts it divides by are the fights' own, a
resolved attack is what each ruleset's counter says it is, a verdict line says what it
judged (or why it could not), a busy machine leaves the sweep unjudged, and ``--json``
holds every figure and verdict.
"""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples/scenarios"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_bench", ROOT / "benchmarks/run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["segsim_bench"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def attacks(bench: ModuleType) -> ModuleType:
    import attacks as module  # the benchmarks' folder is on the path once run.py is loaded

    return module


@pytest.fixture(scope="module")
def sweeps(bench: ModuleType) -> ModuleType:
    import sweeps as module

    return module


@pytest.fixture(scope="module")
def verdicts(bench: ModuleType) -> ModuleType:
    import verdicts as module

    return module


TINY = dict(
    rounds=1,
    memory_fights=20,
    scenario_seconds=0.0,  # one fight a round
    scenario_rounds=1,
    counted_actions=10,
    bare_runs=(10, 30),
    engine_runs=(10, 30),
    compiled_seconds=0.0,
    compiled_rounds=1,
    battle_window=20,
    battle_rounds=1,
    battle_count=2,
    battle_budget=1e9,
    battle_slices=2,
    sweep_fights=3,
    sweep_attempts=2,
    wall=45.0,
)


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


def test_cost_census_counts_what_the_engine_does_per_action(bench: ModuleType) -> None:
    """cost.py --census: its actions and events are the fights' own, every declared
    action of a duel was planned, a phase or a settlement comes at most once an action,
    no more fighters are observed than called, and the fight's own methods are back
    afterwards."""
    import cost

    from segsim import load_scenario
    from segsim.fight import Fight

    path = SCENARIOS / "duel.toml"
    events = actions = 0
    scenario = load_scenario(path)
    for seed in range(2):
        fight = scenario.fight(seed)
        fight.run()
        actions += fight.state.next_action_id - 1
        events += len(fight.history)
    methods = (Fight.__dict__["_run_phase"], Fight.__dict__["_settle"])
    got = cost.census(path, 2)
    assert got["actions per fight"] == actions / 2
    assert got["events"] == events / actions
    assert got["plans"] >= 1.0
    assert 0 < got["phases"] <= 1 and 0 < got["settlements"] <= 1
    assert 0 < got["observations"] <= got["called"]
    assert (Fight.__dict__["_run_phase"], Fight.__dict__["_settle"]) == methods


# ------------------------------------------------------------------ resolved attacks


def test_rinkanou_counts_each_attack_s_result(attacks: ModuleType) -> None:
    events = [
        {"type": "test.rolled"},
        {"type": "attack.resolved", "result": "parried"},
        {"type": "attack.resolved", "result": "hit"},
        {"type": "wound.taken"},
    ]
    assert attacks.resolved_attacks("rinkanou", events) == 2


def test_a_loss_attack_counts_once_settled_not_while_pending(attacks: ModuleType) -> None:
    pending = [{"type": "loss.test"}, {"type": "loss.attack.pending", "attack": 3}]
    assert attacks.resolved_attacks("loss", pending) == 0
    settled = [*pending, {"type": "loss.attack", "attack": 3, "result": "stopped"}]
    missed = [{"type": "loss.attack", "attack": 4, "result": "missed"}]
    assert attacks.resolved_attacks("loss", settled + missed) == 2


def test_a_chroniques_or_loreval_attack_is_settled_by_its_roll(attacks: ModuleType) -> None:
    chroniques = [{"type": "chroniques.attack", "success": s} for s in (True, False)]
    assert attacks.resolved_attacks("chroniques", [*chroniques, {"type": "chroniques.damage"}]) == 2
    loreval = [{"type": "loreval.attack"}, {"type": "loreval.critical"}, {"type": "loreval.attack"}]
    assert attacks.resolved_attacks("loreval", loreval) == 2


def test_a_rupture_attack_is_settled_by_a_failed_test_or_by_its_blow(attacks: ModuleType) -> None:
    """A failed test settles the attack (nothing lands); a successful one is settled when
    its blow lands against the defence, or its hindrance; a success whose blow never
    landed (its target fell first) is not counted."""
    failed = {"type": "rupture.attack", "success": False}
    landing = {"type": "rupture.attack", "success": True}
    assert attacks.resolved_attacks("rupture", [failed]) == 1
    assert attacks.resolved_attacks("rupture", [landing]) == 0
    blow = [landing, {"type": "rupture.defence"}, {"type": "rupture.blow"}]
    hinder = [landing, {"type": "rupture.hindered"}]
    assert attacks.resolved_attacks("rupture", [failed, *blow, *hinder, landing]) == 3


def test_an_unknown_ruleset_has_no_counter(attacks: ModuleType) -> None:
    with pytest.raises(ValueError, match="no resolved-attack counter for the ruleset 'chess'"):
        attacks.resolved_attacks("chess", [])


@pytest.mark.parametrize(
    "stem",
    ["duel", "loss_street_brawl", "chroniques_ambush", "rupture_brawl", "loreval_duel"],
)
def test_the_counters_read_a_known_record_as_its_live_fight(attacks: ModuleType, stem: str) -> None:
    """Each ruleset's golden record (``tests/golden/<scenario>-1.jsonl``, seed 1): the
    count read back from the file is the live fight's, and it is the record's attacks
    with an outcome, counted from the events that say so."""
    from segsim import load_scenario
    from segsim.record import read_record

    scenario = load_scenario(SCENARIOS / f"{stem}.toml")
    ruleset = scenario.ruleset.name
    record = read_record(ROOT / "tests/golden" / f"{stem}-1.jsonl")
    fight = scenario.fight(1)
    fight.run()
    counted = attacks.resolved_attacks(ruleset, record.events)
    assert counted == attacks.resolved_attacks(ruleset, fight.history) > 0
    types = [e["type"] for e in record.events]
    if ruleset == "rupture":
        rolls = [e for e in record.events if e["type"] == "rupture.attack"]
        failed = sum(not e["success"] for e in rolls)
        assert counted == failed + types.count("rupture.blow") + types.count("rupture.hindered")
        assert counted < len(rolls) + types.count("rupture.blow")  # no attack counted twice
    else:
        one = {"rinkanou": "attack.resolved", "loss": "loss.attack"}.get(ruleset)
        assert counted == types.count(one or f"{ruleset}.attack")


# ------------------------------------------------------------------ verdicts and report


def test_verdict_lines_say_pass_or_miss_against_the_target(bench: ModuleType) -> None:
    V = bench.Verdict
    assert V("engine", 5.5, 6.0).line() == "  PASS  engine: 5.50x (target <= 6.00x)"
    assert V("engine", 6.5, 6.0).status == "MISS"
    assert V("sweep", 1.7, 1.8, at_least=True).line() == "  MISS  sweep: 1.70x (target >= 1.80x)"
    assert V("sweep", 1.9, 1.8, at_least=True).status == "PASS"
    big = V("duel instructions", 128_400.0, 130_000, " instructions")
    assert big.line() == (
        "  PASS  duel instructions: 128,400 instructions (target <= 130,000 instructions)"
    )
    none = V("loss: battle", None, 2.0, why="no line battle yet")
    assert none.status == "MISS"
    assert none.line() == "  MISS  loss: battle: no line battle yet (target <= 2.00x)"


def test_a_busy_figure_is_shown_but_not_judged(bench: ModuleType) -> None:
    busy = bench.Verdict("sweep", 1.2, 1.8, at_least=True, busy="other processes took 0.9 cores")
    assert busy.status == "BUSY"
    assert "machine busy: not judged, other processes took 0.9 cores" in busy.line()
    assert not busy.line().lstrip().startswith(("PASS", "MISS"))


def test_the_report_tallies_and_writes_every_figure_and_verdict(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = bench.Report(quick=True)
    report.figures["core"] = {"engine": 5.0, "rules": 31.0}
    report.add(
        bench.Verdict("engine", 5.0, 6.0),
        bench.Verdict("rules", 31.0, 30.0),
        bench.Verdict("sweep", 1.0, 1.8, at_least=True, busy="0.8 cores"),
    )
    assert report.print_verdicts() == 1
    out = capsys.readouterr().out
    assert "1 of 3 targets met (1 not judged: the machine was busy)" in out
    path = tmp_path / "bench.json"
    report.write(path)
    data = json.loads(path.read_text())
    assert data["quick"] is True and data["figures"]["core"] == {"engine": 5.0, "rules": 31.0}
    assert [(v["name"], v["status"], v["value"]) for v in data["verdicts"]] == [
        ("engine", "PASS", 5.0),
        ("rules", "MISS", 31.0),
        ("sweep", "BUSY", 1.0),
    ]


def test_json_flag_writes_the_run_s_report(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--json FILE`` writes what the run measured (the run itself stood in for)."""
    asked: list[Any] = []

    def run(sizes: Any, quick: bool) -> Any:
        asked.append((sizes, quick))
        report = bench.Report(quick)
        report.add(bench.Verdict("engine", 5.0, 6.0))
        return report

    monkeypatch.setattr(bench, "bench", run)
    path = tmp_path / "out.json"
    assert bench.main(["--quick", "--json", str(path)]) == 0
    assert asked == [(bench.QUICK, True)]
    assert json.loads(path.read_text())["verdicts"][0]["status"] == "PASS"


def test_other_processes_load_is_the_machine_s_less_this_process_s(
    verdicts: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([100.0, 102.0])
    machine = iter([1_000.0, 1_003.0])  # busy CPU seconds of every process
    mine = iter([50.0, 51.0])
    monkeypatch.setattr(verdicts.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(verdicts, "busy_seconds", lambda: next(machine))
    monkeypatch.setattr(verdicts, "own_seconds", lambda: next(mine))
    load = verdicts.Load()
    assert load.others() == pytest.approx((3.0 - 1.0) / 2.0)


def test_the_report_notes_each_part_s_wall_and_cpu_time(
    verdicts: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([10.0, 14.0, 15.0])
    cpu = iter([2.0, 9.0, 9.5])
    monkeypatch.setattr(verdicts.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(verdicts, "own_seconds", lambda: next(cpu))
    report = verdicts.Report(quick=False)
    report.lap("counting")
    report.lap("sweeps")
    assert report.figures["time"] == {
        "counting": {"wall": 4.0, "cpu": 7.0},
        "sweeps": {"wall": 1.0, "cpu": 0.5},
    }
    assert report.times() == "counting 4 s (CPU 7 s), sweeps 1 s (CPU 0 s)"


def test_the_wall_time_sets_aside_a_build_and_is_not_judged_on_a_busy_machine(
    bench: ModuleType,
) -> None:
    quiet = bench.wall_verdict(True, 40.0, 45.0, 0.2, 0.0, 0.1)
    assert (
        quiet.line() == "  PASS  wall time of the benchmarks (--quick): 40.00 s (target <= 45.00 s)"
    )
    built = bench.wall_verdict(False, 200.0, 120.0, 150.0, 110.0, 0.0)
    assert built.status == "PASS" and built.value == 90.0
    assert "the wait for the compiled tree's build (110 s of 150) aside" in built.name
    busy = bench.wall_verdict(False, 200.0, 120.0, 0.2, 0.0, 1.5)
    assert busy.status == "BUSY" and "other processes used 1.50 cores on average" in busy.line()


# ------------------------------------------------------------------ sweeps


def test_the_sweep_ratio_sets_the_serial_run_between_two_pooled_runs(
    sweeps: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pooled, serial, pooled: each pooled rate against the one serial rate, the median
    of those ratios (of two: their mean)."""
    asked: list[tuple[int, int]] = []
    rates = iter([400.0, 250.0, 500.0])

    def rate(fights: int, workers: int) -> tuple[float, float | None]:
        asked.append((fights, workers))
        return next(rates), 0.0

    monkeypatch.setattr(sweeps, "sweep_rate", rate)
    ratio, got, others = sweeps.sweep_set(4_000)
    assert asked == [(4_000, 2), (4_000, 1), (4_000, 2)]
    assert ratio == pytest.approx((400 / 250 + 500 / 250) / 2)
    assert got == [250.0, 400.0, 500.0] and others == [0.0, 0.0, 0.0]


def _sweeps(
    sweeps: ModuleType, monkeypatch: pytest.MonkeyPatch, sets: list[tuple[float, list[float]]]
) -> list[int]:
    calls: list[int] = []
    queue = iter(sets)

    def sweep_set(fights: int) -> tuple[float, list[float], list[float]]:
        calls.append(fights)
        ratio, others = next(queue)
        return ratio, [100.0, ratio * 100, ratio * 100], others

    monkeypatch.setattr(sweeps, "sweep_set", sweep_set)
    return calls


def test_a_sweep_met_by_a_busy_machine_is_measured_again(
    bench: ModuleType, sweeps: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _sweeps(sweeps, monkeypatch, [(1.3, [0.1, 0.9, 0.0]), (1.9, [0.0, 0.1, 0.0])])
    report = bench.Report(quick=True)
    verdict = sweeps.sweep_section(300, 3, float("inf"), report)
    assert calls == [300, 300]
    assert verdict.status == "PASS" and verdict.value == 1.9
    assert [s["ratio"] for s in report.figures["sweeps"]] == [1.3, 1.9]


def test_a_sweep_busy_every_time_is_flagged_not_judged(
    bench: ModuleType, sweeps: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _sweeps(sweeps, monkeypatch, [(1.3, [0.9]), (1.2, [0.5])])
    verdict = sweeps.sweep_section(300, 2, float("inf"), bench.Report(quick=True))
    assert calls == [300, 300]
    assert verdict.status == "BUSY" and verdict.value == 1.2
    assert "other processes took up to 0.50 cores" in verdict.line()


def test_no_second_sweep_is_started_past_the_deadline(
    bench: ModuleType, sweeps: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _sweeps(sweeps, monkeypatch, [(1.3, [0.9]), (1.9, [0.0])])
    verdict = sweeps.sweep_section(300, 3, 0.0, bench.Report(quick=True))
    assert calls == [300] and verdict.status == "BUSY"


def test_a_sweep_s_rate_is_read_from_its_timing_line(sweeps: ModuleType) -> None:
    rate, others = sweeps.sweep_rate(3, 1)
    assert rate > 0
    assert others is None or others >= 0


# ------------------------------------------------------------------ battles


def test_battles_count_the_settled_actions_of_the_window(bench: ModuleType) -> None:
    from segsim.battle import line_battle

    _, settled, working = bench.rulesets.small_battles("rinkanou", 2, [0], 60)
    fight = line_battle(2, seed=0, max_segments=60)
    fight.run()
    ends = [e for e in fight.history if e.TYPE == "action.declared" and e.ends_in is not None]
    assert settled == sum(1 for e in ends if e.ends_in < 60) > 0
    assert working == sum(1 for e in ends if e.ends_in < 60 and e.kind != "wait")


def test_waiting_for_one_s_turn_is_waiting(bench: ModuleType) -> None:
    from segsim.actions import Action

    history = [
        Action("await", 5, id=1, actor="a"),
        Action("attack", 5, target="b", id=2, actor="a"),
        Action("wait", 3, id=3, actor="a"),
    ]
    assert bench.rulesets.resolved(history, 100) == (3, 1)
    assert bench.rulesets.resolved(history, 4) == (1, 0)


def test_a_round_runs_the_larger_battle_in_slices_as_in_one_go(bench: ModuleType) -> None:
    """A round's slices of the larger battle (each followed by some smaller battles) run
    the same fight as a run in one go, and every smaller battle of the round once."""
    from segsim.battle import battle

    rulesets = bench.rulesets
    big, small, window = rulesets.scale_round("rinkanou", 3, 1, 4, 40, 4)
    assert window == 40
    fight = battle("rinkanou", 3, seed=0, max_segments=40)
    fight.run()
    assert big[1:] == rulesets.resolved(fight.history, 40) and big[0] > 0
    assert small[1:] == rulesets.small_battles("rinkanou", 1, range(4), 40)[1:]


def test_a_larger_battle_over_its_budget_cuts_every_size_s_window(bench: ModuleType) -> None:
    rulesets = bench.rulesets
    big, small, window = rulesets.scale_round("rinkanou", 3, 1, 4, 40, 4, budget=1e-9)
    assert window == 10  # one slice: all the budget allows, and the least there is
    fight = rulesets.line_battle("rinkanou", 3, 0, 40)
    fight.start()
    fight.env.run(until=10)
    assert big[1:] == rulesets.resolved(fight.history, 10)
    assert small[1:] == rulesets.small_battles("rinkanou", 1, range(4), 10)[1:]


def test_a_ruleset_without_a_line_battle_is_a_miss_that_says_so(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """RinKaNou's battle is measured; a ruleset whose battle module is missing gets two
    MISS lines naming it; one whose module exists (a stand-in here) is measured."""
    from segsim.battle import line_battle

    def missing(name: str) -> Any:
        raise ModuleNotFoundError(f"No module named 'segsim.rules.{name}.battle'")

    def broken(per_side: int, **kw: Any) -> Any:
        raise TypeError("line_battle() got an unexpected keyword argument 'max_segments'")

    standin = SimpleNamespace(
        line_battle=lambda per_side, *, seed=0, **kw: line_battle(per_side, seed=seed, **kw)
    )
    import importlib

    real = importlib.import_module

    def load(name: str, *args: Any) -> Any:
        if name == "segsim.rules.loss.battle":
            return standin
        if name == "segsim.rules.loreval.battle":
            return SimpleNamespace(line_battle=broken)
        if name.endswith(".battle") and name.startswith("segsim.rules."):
            missing(name.split(".")[2])
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", load)
    report = bench.Report(quick=True)
    bench.battle_section(report, bench.Sizes(**TINY), sides=(2, 1))
    lines = {v.name.split(":")[0]: v for v in report.verdicts if "per action other" not in v.name}
    assert lines["rinkanou"].value is not None and lines["loss"].value is not None
    assert lines["loreval"].status == "MISS"
    assert "its line battle cannot be built (TypeError: line_battle() got" in lines["loreval"].why
    for name in ("chroniques", "rupture"):
        assert lines[name].status == "MISS"
        assert (
            lines[name]
            .line()
            .endswith(f"no line battle yet (segsim/rules/{name}/battle.py) (target <= 2.00x)")
        )
    assert len(report.verdicts) == 10
    assert report.figures["battles"]["rupture"] == {
        "missing": "no line battle yet (segsim/rules/rupture/battle.py)"
    }
    assert "chroniques: no line battle yet" in capsys.readouterr().out


# ------------------------------------------------------------------ rulesets' scenarios


def test_example_scenarios_are_grouped_by_their_ruleset(bench: ModuleType) -> None:
    from segsim import load_scenario

    found = bench.rulesets.example_scenarios()
    assert list(found) == ["rinkanou", "loss", "chroniques", "rupture", "loreval"]
    assert sum(map(len, found.values())) == len(list(SCENARIOS.glob("*.toml")))
    for ruleset, paths in found.items():
        assert paths, ruleset
        assert {load_scenario(p).ruleset.name for p in paths} == {ruleset}


def test_a_scenario_s_figures_are_per_fight_action_and_attack(bench: ModuleType) -> None:
    row = bench.rulesets.figures(cpu=2.0, fights=4, actions=400, attacks=100)
    assert row["fights_per_cpu_second"] == 2.0
    assert row["actions_per_fight"] == 100 and row["attacks_per_fight"] == 25
    assert row["cpu_per_action"] == 0.005 and row["cpu_per_attack"] == 0.02
    assert bench.rulesets.figures(1.0, 1, 10, 0)["cpu_per_attack"] is None
    bench.rulesets.with_instructions(row, 150_000.0, actions=300, attacks=60)
    assert row["instructions_per_attack"] == 750_000.0


def test_scenario_section_judges_each_ruleset_by_its_costliest_scenario(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """Instructions per action against the duel's: one verdict per ruleset, its highest
    scenario named; the counted fights' actions must be the same fights' here."""
    rulesets = bench.rulesets
    duel, surrender, parley = (
        SCENARIOS / f"{s}.toml" for s in ("duel", "rupture_surrender", "rupture_parley")
    )
    examples = {"rinkanou": [duel], "rupture": [surrender, parley]}
    first = {p: (0.001, 0) for p in (duel, surrender, parley)}

    def counted(path: Path, ruleset: str, per_unit: float) -> dict[str, Any]:
        _, _, actions, _ = rulesets.scenario_round(path, ruleset, [0])
        _, _, more, _ = rulesets.scenario_round(path, ruleset, range(1, 3))
        return {"per_unit": per_unit, "units": (actions, actions + more), "runs": (1, 3)}

    counts = {
        str(duel): counted(duel, "rinkanou", 100_000.0),
        str(surrender): counted(surrender, "rupture", 110_000.0),
        str(parley): counted(parley, "rupture", 130_000.0),
    }
    report = bench.Report(quick=True)
    bench.scenario_section(report, bench.Sizes(**TINY), examples, first, counts)
    names = [(v.name, v.value, v.status) for v in report.verdicts]
    assert names == [
        (
            "rinkanou: example scenarios' instructions per action against the duel's "
            "(highest: duel)",
            1.0,
            "PASS",
        ),
        (
            "rupture: example scenarios' instructions per action against the duel's "
            "(highest: rupture_parley)",
            1.3,
            "MISS",
        ),
    ]
    rows = report.figures["scenarios"]["rupture"]
    assert rows["rupture_surrender"]["instructions_per_action"] == 110_000.0
    assert rows["rupture_parley"]["instructions_per_attack"] > 130_000.0
    assert "rupture/rupture_parley" in capsys.readouterr().out
    counts[str(parley)]["units"] = (1, 2)
    with pytest.raises(RuntimeError, match="the counted fights started 1 actions"):
        bench.scenario_section(
            bench.Report(quick=True), bench.Sizes(**TINY), examples, first, counts
        )


def test_without_instruction_counts_each_ruleset_s_verdict_says_why(bench: ModuleType) -> None:
    examples = {"rupture": [SCENARIOS / "rupture_surrender.toml"], "loss": []}
    first = {SCENARIOS / "rupture_surrender.toml": (0.001, 0)}
    report = bench.Report(quick=True)
    bench.scenario_section(
        report, bench.Sizes(**TINY), examples, first, "valgrind is not installed"
    )
    assert [v.line().split(": ", 2)[-1] for v in report.verdicts] == [
        "not counted (valgrind is not installed) (target <= 1.25x)",
        "no example scenario (target <= 1.25x)",
    ]


# ------------------------------------------------------------------ compiled build


def test_a_server_runs_the_fights_it_is_asked_for(bench: ModuleType) -> None:
    """What each build's process answers: the CPU time and the actions of the fights."""
    path = SCENARIOS / "rupture_surrender.toml"
    out = io.StringIO()
    bench.rulesets.serve(
        io.StringIO(json.dumps({"work": [[str(path), 2]]}) + "\n"), out, bench.scenario_fights
    )
    answer = json.loads(out.getvalue())
    assert answer["actions"] == bench.scenario_fights(path, 2) and answer["cpu"] > 0


def test_the_builds_are_compared_on_the_same_fights(bench: ModuleType) -> None:
    """Two servers (both of the pure build here), asked in turn: a ratio near 1."""
    script = ROOT / "benchmarks/run.py"
    a, b = bench.rulesets.Server(script), bench.rulesets.Server(script)
    try:
        work = [(str(SCENARIOS / "rupture_surrender.toml"), 1)]
        pure, other, ratio = bench.rulesets.compiled_speed(a, b, work, 1)
        assert pure > 0 and other > 0 and ratio == pytest.approx(pure / other)
        assert a.ask({"module": True})["module"].endswith("fight.py")
    finally:
        a.close()
        b.close()


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


# ------------------------------------------------------------------ instructions


def test_a_units_run_prints_how_many_units_it_ran(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """What each counted run does: the engine's actions, the bare schedule's timeouts,
    the duels' declared actions."""
    for kind, n, expected in (
        ("engine", "200", bench.engine_run(2, 200)),
        ("bare", "200", bench.bare_run(2, 200)),
        ("duel", "2", bench.duels(2)),
    ):
        assert bench.main(["--units", kind, n]) == 0
        assert capsys.readouterr().out.split() == [str(expected)]
    assert bench.run_job(("scenario", str(SCENARIOS / "duel.toml"), 2)) == bench.duels(2)


def test_the_instruction_count_is_read_from_cachegrind_s_output(bench: ModuleType) -> None:
    counting = bench.counting
    assert counting.summary("desc: x\nevents: Ir\nsummary: 1109141108\n") == 1_109_141_108
    report = "==1== Collected : 12\n==1== \n==1== I   refs:      1,109,141,108\n"
    assert counting.summary(report) == 1_109_141_108
    with pytest.raises(RuntimeError, match="no instruction count"):
        counting.summary("valgrind: command not found")


def test_instructions_per_unit_are_the_difference_of_a_long_and_a_short_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start of the process and the imports cancel out: only the extra units count."""
    start = {"bare": 1_000_000, "engine": 2_000_000, "duel.toml": 3_000_000}
    cost = {"bare": 10, "engine": 60, "duel.toml": 180}

    def counted(script: Path, jobs: list[Any]) -> list[tuple[int, int]]:
        out = []
        for kind, argument, n in jobs:
            key = Path(argument).name or kind
            units = 2 * n  # units need not equal n (two fighters' actions, duels' actions)
            out.append((start[key] + cost[key] * units, units))
        return out

    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(bench.counting, "count", counted)
    duel = SCENARIOS / "duel.toml"
    jobs = bench.count_jobs(bench.Sizes(**TINY), {duel: (1, 4)})
    assert jobs == [
        ("bare", "", 10),
        ("bare", "", 30),
        ("engine", "", 10),
        ("engine", "", 30),
        ("scenario", str(duel), 1),
        ("scenario", str(duel), 4),
    ]
    got = bench.instruction_counts(jobs)
    assert {k: v["per_unit"] for k, v in got.items()} == {"bare": 10, "engine": 60, str(duel): 180}
    assert got[str(duel)]["runs"] == (1, 4) and got[str(duel)]["units"] == (2, 8)
    with pytest.raises(ValueError, match="no more units"):
        bench.counting.per_unit(((10, 5), (20, 5)))


def test_a_long_run_adds_enough_fights_for_the_actions_wanted(bench: ModuleType) -> None:
    assert bench.long_runs({Path("a"): 40, Path("b"): 900, Path("c"): 0}, 1_000) == {
        Path("a"): (1, 26),
        Path("b"): (1, 3),
        Path("c"): (1, 1_001),
    }
    # A fight that starts all the actions wanted alone is counted from no fight to one.
    assert bench.long_runs({Path("chase"): 2_240}, 1_000) == {Path("chase"): (0, 1)}


def test_a_long_run_is_sized_by_the_actions_its_own_fights_start(bench: ModuleType) -> None:
    """Fights of one scenario differ: a first fight of 600 actions and later ones of 200
    need five more fights for 1,000 actions, not two."""
    later = {1: 200, 2: 200, 3: 200, 4: 200, 5: 200, 6: 200}
    runs = bench.long_runs({Path("a"): 600}, 1_000, lambda path, seed: later[seed])
    assert runs == {Path("a"): (1, 6)}
    # The bench reads a fight's actions by playing it: seed 0 starts what a first fight
    # of the duel does, and the sizes add up to the fights the counted run plays.
    duel = ROOT / "examples/scenarios/duel.toml"
    sized = bench.long_runs({duel: bench.fight_actions(duel, 0)}, 100, bench.fight_actions)
    short, long = sized[duel]
    assert short == 1
    extra = bench.scenario_fights(duel, long) - bench.scenario_fights(duel, short)
    assert extra >= 100 > extra - bench.fight_actions(duel, long - 1)


def test_without_valgrind_the_instructions_are_not_counted(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails(script: Path, jobs: Any) -> Any:
        raise RuntimeError("valgrind's counting run failed: Traceback ... KeyError")

    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench.counting, "count", fails)
    assert bench.instruction_counts([]).endswith("failed: Traceback ... KeyError")
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.instruction_counts([]) == "valgrind is not installed"
    report = bench.Report(quick=True)
    bench.instruction_lines(report, "valgrind is not installed")
    assert "instructions: not counted (valgrind is not installed)" in capsys.readouterr().out
    assert report.verdicts[0].status == "MISS"


def test_memory_is_measured_in_a_process_of_its_own(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The duels' memory growth is read in a child process, so that what the bench's
    own process imports meanwhile (the compiled build's tooling) is not counted: this
    process's memory() is never called."""

    def here(fights: int) -> float:
        raise AssertionError("measured in the bench's own process")

    monkeypatch.setattr(bench, "memory", here)
    change = bench.memory_apart(20)
    said = capsys.readouterr().out
    assert said.startswith("memory: ") and "after 2 duels" in said
    assert f"({change:+.1f} %)" in said
    assert -50 < change < 50


def test_forked_runs_report_their_own_process_and_units(bench: ModuleType) -> None:
    """The counting process forks a child per run, two at a time; each says its units
    (here without valgrind: the forking alone)."""
    jobs = [("bare", "", 100), ("engine", "", 100), ("bare", "", 300)]
    ran = bench.counting.serve(jobs, bench.run_job)
    assert [r["units"] for r in ran] == [bench.run_job(j) for j in jobs]
    assert [tuple(r["job"]) for r in ran] == jobs
    assert len({r["pid"] for r in ran}) == 3
    with pytest.raises(RuntimeError, match="failed"):
        bench.counting.serve([("nothing", "", 1)], bench.run_job)
    # A child of the caller's own that ends meanwhile is not taken for a run.
    other = subprocess.Popen([sys.executable, "-c", "pass"])
    time.sleep(0.5)  # (ended, not yet waited for)
    assert [r["units"] for r in bench.counting.serve(jobs[:1], bench.run_job)] == [
        bench.run_job(jobs[0])
    ]
    other.wait()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="the count needs valgrind")
def test_a_counted_run_under_valgrind_reports_its_instructions_and_units(
    bench: ModuleType,
) -> None:
    jobs = [("bare", "", 100), ("bare", "", 300)]
    (few, few_units), (many, many_units) = bench.counting.count(ROOT / "benchmarks/run.py", jobs)
    assert (few_units, many_units) == (bench.bare_run(2, 100), bench.bare_run(2, 300))
    assert few > 1_000_000  # at least the interpreter's start and the imports
    assert 0 < many - few < 100_000 * (many_units - few_units)


def test_table_mode_without_its_extra_is_a_miss_naming_the_extra(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verdicts import Report  # the benchmarks' folder is on the path once run.py is

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn: ImportError
    report = Report(True)
    bench.table_mode_section(report, True)
    assert [v.status for v in report.verdicts] == ["MISS", "MISS"]
    assert all("segsim[table]" in v.line() for v in report.verdicts)
    assert "table" not in report.figures


def test_table_mode_s_round_trip_and_memory_are_judged(bench: ModuleType) -> None:
    from verdicts import Report

    report = Report(True)
    bench.table_mode_section(report, True)
    trip, memory = report.verdicts
    assert trip.target == 100.0 and trip.unit == " ms" and trip.value is not None
    assert trip.value == report.figures["table"]["round_trip_median_ms"]
    assert memory.value == report.figures["table"]["memory"]["growth"] * 100
