"""segsim benchmarks: every figure a ratio against a baseline measured in the same run,
or a count that does not depend on the machine's load, each target a verdict line.

* **engine alone**: the engine (declaration phases, settlements, combatant processes)
  driving a rule-free schedule, against bare SimPy running the same schedule of
  timeouts, per action (target at most 6x; DESIGN, "Performance budget");
* **the duel** (``examples/scenarios/duel.toml``, pure build): CPU time per action
  against a bare SimPy timeout (target at most 30x), and instructions per action
  (target at most 130,000); per action the Python function calls, the objects built by
  Python constructors and, among them, attrs instances (target at most 5);
* **every ruleset** (rinkanou, loss, chroniques, rupture, loreval), each of its example
  scenarios: fights per CPU-second, actions per fight, resolved attacks per fight
  (``benchmarks/attacks.py``), CPU time and instructions per action and per resolved
  attack; target: each scenario at most 1.25x the duel's instructions per action;
* **instructions**: counted by valgrind's cachegrind as the difference between a long
  and a short run, as ``benchmarks/cost.py`` counts them, in children forked by one
  process under valgrind (``benchmarks/counting.py``); not load-dependent;
* **battles** in every ruleset (``segsim.battle.battle``): cost per action of a
  1,000-fighter battle against battles of 10, all actions and actions other than
  waiting, over the same first segments (target at most 2x); a ruleset without a line
  battle yet is a MISS that says so;
* **the compiled build**: engine alone (at most 6x) and the duel (at most 15x) against
  a bare SimPy timeout, in a process of its own; every ruleset's example scenarios at
  least 1.8x the pure build's speed (the two builds in processes of their own, in
  turn);
* **memory** over 10,000 duels in one process (target: no growth beyond 10 %);
* **sweeps**: ``segsim sweep --workers 2`` against ``--workers 1`` on a 4,000-duel
  sweep (wall clock; target at least 1.8x), judged only when no other work ran: when
  other processes took a core's share meanwhile, the sweep is measured again if time
  allows, else flagged "machine busy: not judged";
* **wall time**: ``make bench`` within 120 s, ``--quick`` within 45 s.

The machine is shared and noisy: times are CPU times (``time.process_time``), but for
the sweeps' wall-clock rates, the two sides of every ratio run in turn (A B A B ...),
and each figure is the median of the rounds. ``--json FILE`` writes every figure and
verdict.

Run with ``make bench`` (or ``python benchmarks/run.py --quick`` for a smaller run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import attrs
import simpy

STARTED = time.perf_counter()  # before segsim is imported: the benchmarks' wall time
ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
# The folder holding the segsim package measured: this checkout, or the compiled build's
# tree when the benchmarks measure that build in a process of its own.
PACKAGE = os.environ.get("SEGSIM_BENCH_PACKAGE") or str(ROOT)
sys.path.insert(0, PACKAGE)
if str(HERE) not in sys.path:
    sys.path.insert(1, str(HERE))  # the benchmarks' own modules (run with -P)

import counting  # noqa: E402
import rulesets  # noqa: E402
from sweeps import BUSY, sweep_section  # noqa: E402
from verdicts import Load, Report, Verdict  # noqa: E402

from segsim import Declaration, load_scenario  # noqa: E402
from segsim.actions import ActionSpec  # noqa: E402
from segsim.fight import CombatantSpec, Fight  # noqa: E402
from segsim.policy import Observation  # noqa: E402
from segsim.testing import RuleFree  # noqa: E402

DURATIONS = (3, 3, 3, 5, 3, 2)  # arm, strike, lock, reposition, dodge, ... in a cycle
DUEL = ROOT / "examples/scenarios/duel.toml"

TARGET_ENGINE = 6.0
TARGET_RULES = 30.0  # the duel, pure build, against a bare SimPy timeout
TARGET_COMPILED_RULES = 15.0  # the duel, compiled build
TARGET_DUEL_INSTRUCTIONS = 130_000  # per action, pure build
TARGET_SCENARIO = 1.25  # every example scenario against the duel, instructions per action
TARGET_COMPILED_SPEED = 1.8  # at least: every ruleset's scenarios, compiled against pure
TARGET_ATTRS = 5.0
TARGET_SCALE = 2.0
TARGET_MEMORY = 10.0  # per cent
TARGET_WALL = 120.0  # seconds, at most: make bench finishes in under 2 minutes
TARGET_QUICK_WALL = 45.0  # seconds, at most: --quick
SWEEP_FIGHTS = 4_000  # the sweep: long enough that starting the pool weighs little
BATTLE_SIDES = (500, 5)  # a side: 1,000 fighters against 10


class NullRules(RuleFree):
    """The rule-free ruleset (times actions, resolves nothing: the engine's cost alone),
    planning as little as can be: the cycle declares timed actions in the hands alone."""

    def plan(self, state: Any, cid: str, d: Declaration, segment: int, planned: Any) -> ActionSpec:
        return ActionSpec("act", d.params["d"], "hands")


_CYCLE = tuple(Declaration("act", params={"d": d}) for d in DURATIONS)


class Cycle:
    """Declares the next duration of a fixed cycle whenever it must act."""

    name = "cycle"
    reactive = False

    def __init__(self, offset: int) -> None:
        self.i = offset

    def decide(self, obs: Observation) -> Declaration:
        self.i += 1
        return _CYCLE[self.i % len(DURATIONS)]


def engine_run(fighters: int, segments: int) -> int:
    rules = NullRules()
    specs = [CombatantSpec(f"c{i}", f"s{i % 2}", None, Cycle(i)) for i in range(fighters)]
    fight = Fight(rules, specs, max_segments=segments)
    fight.run()
    return fight.state.next_action_id - 1


def bare_run(fighters: int, segments: int) -> int:
    """The same schedule in bare SimPy: one process per fighter, one timeout per action."""
    env = simpy.Environment()
    count = [0]

    def proc(offset: int) -> Any:
        i = offset
        while True:
            i += 1
            count[0] += 1
            yield env.timeout(DURATIONS[i % len(DURATIONS)])

    for i in range(fighters):
        env.process(proc(i))
    env.run(until=segments)
    return count[0]


def duels(n: int) -> int:
    """``n`` duels of duel.toml (seeds 0..n-1); the number of declared actions."""
    scenario = load_scenario(DUEL)
    actions = 0
    for seed in range(n):
        fight = scenario.fight(seed)
        fight.run()
        actions += fight.state.next_action_id - 1
    return actions


UNITS: dict[str, Callable[[int], int]] = {
    "bare": lambda n: bare_run(2, n),
    "engine": lambda n: engine_run(2, n),
    "duel": duels,
}
"""What ``--units KIND N`` runs: N segments of the bare SimPy schedule or of the engine
alone, or N duels; each returns its units (timeouts, declared actions)."""


def cpu_per_unit(fn: Callable[[], int]) -> float:
    """CPU seconds per unit of work (action, timeout) of one call of ``fn``."""
    gc.collect()
    start = time.process_time()
    units = fn()
    return (time.process_time() - start) / units


def interleaved(
    rounds: int, a: Callable[[], int], b: Callable[[], int]
) -> tuple[float, float, float]:
    """Median CPU cost per unit of ``a`` and of ``b``, and the median of the ratios a/b
    of each round (the two run in turn, so a drift of the machine hits both)."""
    a(), b()  # warm-up: imports, caches
    pa, pb = [], []
    for _ in range(rounds):
        pa.append(cpu_per_unit(a))
        pb.append(cpu_per_unit(b))
    ratios = [x / y for x, y in zip(pa, pb, strict=True)]
    return statistics.median(pa), statistics.median(pb), statistics.median(ratios)


class Census:
    """Counts, while active, every Python function call and every object built by a
    Python ``__init__`` (the outermost one for each object), and which of those are
    attrs instances. Exact and repeatable; slow, so never part of a timing."""

    def __init__(self) -> None:
        self.calls = 0
        self.objects: Counter[str] = Counter()
        self.attrs_objects = 0

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.calls += 1
            code = frame.f_code
            if code.co_name == "__init__" and code.co_argcount:
                obj = frame.f_locals.get(code.co_varnames[0])
                back = frame.f_back
                if (
                    back is not None
                    and back.f_code.co_name == "__init__"
                    and back.f_code.co_argcount
                    and back.f_locals.get(back.f_code.co_varnames[0]) is obj
                ):
                    return  # super().__init__: the same object
                cls = type(obj)
                self.objects[cls.__qualname__] += 1
                if attrs.has(cls):
                    self.attrs_objects += 1
        elif event == "c_call":
            self.calls += 1

    def run(self, fn: Callable[[], int]) -> int:
        sys.setprofile(self._profile)
        try:
            return fn()
        finally:
            sys.setprofile(None)


@attrs.frozen
class Sizes:
    """How much each part of the run measures: :data:`FULL` (``make bench``) or
    :data:`QUICK` (``--quick``, a smoke test)."""

    rounds: int  # interleaved rounds of the engine and the duel against bare SimPy
    memory_fights: int
    scenario_seconds: float  # CPU seconds of each scenario's fights in a round
    scenario_rounds: int
    counted_actions: int  # actions of a scenario's long run beyond its short one
    bare_runs: tuple[int, int]  # bare SimPy segments, short and long run
    engine_runs: tuple[int, int]  # engine-alone segments, short and long run
    compiled_seconds: float  # CPU seconds of a ruleset's fights in a round, each build
    compiled_rounds: int
    battle_window: int  # segments every battle size is timed over
    battle_rounds: int
    battle_count: int  # battles of 10 in a round
    battle_budget: float  # CPU seconds of the larger battle's window, at most
    battle_slices: int
    sweep_fights: int
    sweep_attempts: int  # sets of sweeps at most, while the machine is busy
    wall: float  # the target


FULL = Sizes(
    rounds=7,
    memory_fights=10_000,
    scenario_seconds=0.08,
    scenario_rounds=5,
    counted_actions=1_000,
    bare_runs=(1_000, 101_000),
    engine_runs=(100, 10_100),
    compiled_seconds=0.2,
    compiled_rounds=5,
    battle_window=200,
    battle_rounds=3,
    battle_count=20,
    battle_budget=1.5,
    battle_slices=10,
    sweep_fights=SWEEP_FIGHTS,
    sweep_attempts=2,
    wall=TARGET_WALL,
)
QUICK = Sizes(
    rounds=3,
    memory_fights=1_000,
    scenario_seconds=0.02,
    scenario_rounds=3,
    counted_actions=200,
    bare_runs=(1_000, 11_000),
    engine_runs=(100, 1_100),
    compiled_seconds=0.05,
    compiled_rounds=3,
    battle_window=60,
    battle_rounds=1,
    battle_count=6,
    battle_budget=0.4,
    battle_slices=5,
    sweep_fights=300,
    sweep_attempts=1,
    wall=TARGET_QUICK_WALL,
)


def scenario_fights(path: Path, n: int) -> int:
    """``benchmarks/cost.py``'s unit: ``n`` fights of a scenario, the actions they
    started (imported when first used: cost.py puts the checkout first on the path,
    which must not come before the compiled tree's segsim is imported)."""
    from cost import fights

    return fights(path, n)


# ------------------------------------------------------------------ instructions


def run_job(job: counting.Job) -> int:
    """Run one counted job (in a child of the counting process): its units."""
    kind, argument, n = job
    if kind == "scenario":
        return scenario_fights(Path(argument), n)
    return UNITS[kind](n)


def count_jobs(sizes: Sizes, long_runs: dict[Path, tuple[int, int]]) -> list[counting.Job]:
    """The counted runs: the short and the long run of bare SimPy, of the engine alone
    and of each scenario (``long_runs``: its fights in each)."""
    jobs: list[counting.Job] = []
    for kind, (short, long) in (("bare", sizes.bare_runs), ("engine", sizes.engine_runs)):
        jobs += [(kind, "", short), (kind, "", long)]
    for path, (short, long) in long_runs.items():
        jobs += [("scenario", str(path), short), ("scenario", str(path), long)]
    return jobs


def instruction_counts(jobs: list[counting.Job]) -> dict[str, Any] | str:
    """Instructions per unit of each short and long pair of ``jobs`` (keyed by the
    kind, or by the scenario's path), and the units of each run; or why they were not
    counted."""
    if shutil.which("valgrind") is None:
        return "valgrind is not installed"
    try:
        counted = counting.count(Path(__file__).resolve(), jobs)
    except RuntimeError as exc:
        return str(exc)[-300:]
    out: dict[str, Any] = {}
    for i in range(0, len(jobs), 2):
        kind, argument, _ = jobs[i]
        key = argument or kind
        out[key] = {
            "per_unit": counting.per_unit((counted[i], counted[i + 1])),
            "units": (counted[i][1], counted[i + 1][1]),
            "runs": (jobs[i][2], jobs[i + 1][2]),
        }
    return out


def serve_counts(path: Path) -> None:
    """``--count FILE``: run under valgrind, import every ruleset once (by loading each
    scenario counted), then fork a child per job; print the children's ids and units."""
    jobs = [(str(k), str(a), int(n)) for k, a, n in json.loads(path.read_text())]
    for argument in dict.fromkeys(a for _, a, _ in jobs if a):
        load_scenario(argument)
    print(json.dumps(counting.serve(jobs, run_job)))


def long_runs(
    first_actions: dict[Path, int],
    actions: int,
    later: Callable[[Path, int], int] | None = None,
) -> dict[Path, tuple[int, int]]:
    """The fights of each scenario's short and long run: one fight, then one and enough
    more to start ``actions`` more actions (the first fight's one-time costs, caches
    filled and the like, fall in both runs and cancel out). ``later(path, i)`` is the
    number of actions fight ``i`` (seed ``i``) of a scenario starts; without it, every
    fight is taken to start as many as the first (``first_actions``). The fights of one
    scenario can differ a lot: the crossbow ambush's first starts 556 actions, its next
    two 394 between them, so judging by the first alone counted 394 actions where 1,000
    were meant. A scenario one of whose fights starts that many actions (the Loss
    chase, 2,240) is counted from no fight to one, rather than paying for three long
    fights under valgrind: its first fight's one-time costs then count (some 8 million
    instructions, as for Loss's street brawl, about 1 % of the chase's figure)."""
    runs = {}
    for path, a in first_actions.items():
        if a >= actions:
            runs[path] = (0, 1)
            continue
        fights, started = 1, 0
        while started < actions:
            started += max(1, later(path, fights) if later is not None else a)
            fights += 1
        runs[path] = (1, fights)
    return runs


def fight_actions(path: Path, seed: int) -> int:
    """The actions one fight of a scenario (``seed``) starts: what sizes its long run."""
    from cost import fights

    return fights(path, 1, first=seed)


# ------------------------------------------------------------------ rulesets


def scenario_section(
    report: Report,
    sizes: Sizes,
    examples: dict[str, list[Path]],
    first: dict[Path, tuple[float, int]],
    counts: dict[str, Any] | str,
) -> None:
    """Every ruleset's example scenarios: their figures, their instructions per action
    and per resolved attack (over the long runs' extra fights), and a verdict per
    ruleset on the scenarios' instructions per action against the duel's."""
    duel_instructions = None
    if not isinstance(counts, str):
        duel_instructions = counts[str(DUEL)]["per_unit"]
    print(
        "every ruleset's example scenarios (CPU: medians of "
        f"{sizes.scenario_rounds} rounds of the same fights; instructions: valgrind, the "
        "long run's extra fights)"
    )
    table: dict[str, dict[str, Any]] = {}
    for ruleset, paths in examples.items():
        rows: dict[str, Any] = {}
        worst: tuple[float, str] | None = None
        for path in paths:
            cpu, _ = first[path]
            fights = max(1, round(sizes.scenario_seconds / max(cpu, 1e-6)))
            row = rulesets.scenario_figures(path, ruleset, fights, sizes.scenario_rounds)
            if not isinstance(counts, str):
                got = counts[str(path)]
                short, long = got["units"]
                few, many = got["runs"]
                _, _, actions, attacks = rulesets.scenario_round(path, ruleset, range(few, many))
                if actions != long - short:
                    raise RuntimeError(
                        f"{path.name}: the counted fights started {long - short} actions, "
                        f"the same fights here {actions}"
                    )
                rulesets.with_instructions(row, got["per_unit"], actions, attacks)
                assert duel_instructions is not None
                row["against_duel"] = got["per_unit"] / duel_instructions
                if worst is None or row["against_duel"] > worst[0]:
                    worst = (row["against_duel"], path.stem)
            rows[path.stem] = row
            print(rulesets.scenario_line(f"{ruleset}/{path.stem}", row))
        table[ruleset] = rows
        name = f"{ruleset}: example scenarios' instructions per action against the duel's"
        if worst is None:
            why = "no example scenario" if not paths else f"not counted ({counts})"
            report.add(Verdict(name, None, TARGET_SCENARIO, why=why))
        else:
            report.add(Verdict(f"{name} (highest: {worst[1]})", worst[0], TARGET_SCENARIO))
    report.figures["scenarios"] = table


def compiled_rulesets(
    report: Report,
    sizes: Sizes,
    examples: dict[str, list[Path]],
    first: dict[Path, tuple[float, int]],
    tree: Path,
) -> None:
    """Every ruleset's example scenarios in the compiled build against the pure one:
    two processes of their own, asked in turn; a verdict per ruleset."""
    script = Path(__file__).resolve()
    pure, compiled = rulesets.Server(script), rulesets.Server(script, str(tree))
    try:
        module = compiled.ask({"module": True})["module"]
        if not str(module).endswith(".so"):  # the pure module was found first
            raise RuntimeError(f"the compiled build's server imported {module}")
        speeds: dict[str, Any] = {}
        for ruleset, paths in examples.items():
            name = f"{ruleset}: compiled build's speed against the pure build's"
            if not paths:
                report.add(
                    Verdict(
                        name, None, TARGET_COMPILED_SPEED, at_least=True, why="no example scenario"
                    )
                )
                continue
            share = sizes.compiled_seconds / len(paths)
            work = [(str(p), max(1, round(share / max(first[p][0], 1e-6)))) for p in paths]
            a, b, ratio = rulesets.compiled_speed(pure, compiled, work, sizes.compiled_rounds)
            speeds[ruleset] = {"pure_cpu": a, "compiled_cpu": b, "speed": ratio, "work": work}
            print(
                f"  {ruleset}: {a * 1e3:.0f} ms pure, {b * 1e3:.0f} ms compiled for the same "
                f"fights of its {len(paths)} scenario(s): {ratio:.2f}x (median of "
                f"{sizes.compiled_rounds} rounds in turn)"
            )
            report.add(Verdict(name, ratio, TARGET_COMPILED_SPEED, at_least=True))
        report.figures["compiled_speed"] = speeds
    finally:
        pure.close()
        compiled.close()


def battle_section(report: Report, sizes: Sizes, sides: tuple[int, int] = BATTLE_SIDES) -> None:
    """Every ruleset's line battles: 1,000 fighters against 10 (``sides``: a side),
    per action, all actions and actions other than waiting; two verdicts per ruleset
    (two MISS lines saying so for a ruleset without a line battle yet)."""
    big, small = sides
    print(
        f"battles (segsim.battle.battle): {2 * big:,} fighters against {sizes.battle_count} "
        f"battles of {2 * small}, each timed over its first {sizes.battle_window} segments "
        f"(fewer if the larger battle's would take over {sizes.battle_budget:g} CPU seconds), "
        f"in {sizes.battle_rounds} round(s) of {sizes.battle_slices} slices; ratios: medians"
    )
    out: dict[str, Any] = {}
    for ruleset in rulesets.RULESETS:
        names = (
            f"{ruleset}: battle of {2 * big:,} against {2 * small} fighters, per action",
            f"{ruleset}: the same, per action other than waiting",
        )
        missing = rulesets.missing_battle(ruleset)
        if missing is not None:
            print(f"  {ruleset}: {missing}")
            out[ruleset] = {"missing": missing}
            report.add(*(Verdict(n, None, TARGET_SCALE, why=missing) for n in names))
            continue
        got = rulesets.scale_figures(
            ruleset,
            big,
            small,
            sizes.battle_count,
            sizes.battle_window,
            sizes.battle_rounds,
            sizes.battle_slices,
            sizes.battle_budget,
        )
        out[ruleset] = got
        print(
            f"  {ruleset}: {2 * big:,} fighters {got['big']['cpu_per_action'] * 1e6:.1f} us an "
            f"action, {got['big']['cpu_per_working_action'] * 1e6:.1f} us an action other than "
            f"waiting ({got['big']['actions']:,.0f} actions); {2 * small} fighters "
            f"{got['small']['cpu_per_action'] * 1e6:.1f} and "
            f"{got['small']['cpu_per_working_action'] * 1e6:.1f} us "
            f"({got['small']['actions']:,.0f} actions); {got['ratio']:.2f}x and "
            f"{got['ratio_working']:.2f}x over the first "
            f"{got['window']} segments"
        )
        report.add(
            Verdict(names[0], got["ratio"], TARGET_SCALE),
            Verdict(names[1], got["ratio_working"], TARGET_SCALE),
        )
    report.figures["battles"] = out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (a smoke test)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure and verdict")
    parser.add_argument(
        "--core",
        action="store_true",
        help="only the engine's and the duels' ratios to bare SimPy, as one JSON line",
    )
    parser.add_argument(
        "--units",
        nargs=2,
        metavar=("KIND", "N"),
        help="only run N units of KIND (bare, engine, duel) and print how many units ran",
    )
    parser.add_argument("--count", type=Path, help=argparse.SUPPRESS)  # under valgrind
    parser.add_argument("--memory", type=int, help=argparse.SUPPRESS)  # memory_apart()
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.units:
        kind, n = args.units
        print(UNITS[kind](int(n)))
        return 0
    if args.count:
        serve_counts(args.count)
        return 0
    if args.memory:
        print(memory(args.memory))
        return 0
    if args.serve:
        rulesets.serve(sys.stdin, sys.stdout, scenario_fights)
        return 0
    sizes = QUICK if args.quick else FULL
    if args.core:
        import segsim.fight

        engine_ratio, rules_ratio = core_ratios(sizes.rounds, args.quick, quiet=True)
        got = {"engine": engine_ratio, "rules": rules_ratio, "module": segsim.fight.__file__}
        print(json.dumps(got))
        return 0
    report = bench(sizes, args.quick)
    if args.json:
        report.write(args.json)
        print(f"figures and verdicts written to {args.json}")
    return 0


def bench(sizes: Sizes, quick: bool) -> Report:
    """The whole run: every figure printed, every verdict printed last; the report."""
    load = Load()
    report = Report(quick, STARTED, 0.0)  # the CPU time from this process's start
    print(f"segsim benchmarks (Python {platform.python_version()}, simpy {simpy.__version__})")

    engine_ratio, rules_ratio = core_ratios(sizes.rounds, quick)
    report.figures["core"] = {"engine": engine_ratio, "rules": rules_ratio}
    report.lap("engine and duel against bare SimPy")
    report.add(
        Verdict(
            "engine alone per action, against a bare SimPy timeout", engine_ratio, TARGET_ENGINE
        ),
        Verdict("the duel per action, against a bare SimPy timeout", rules_ratio, TARGET_RULES),
    )

    # One fight of each example scenario: what it costs sizes its runs below.
    examples = rulesets.example_scenarios()
    first: dict[Path, tuple[float, int]] = {}
    for ruleset, paths in examples.items():
        for path in paths:
            cpu, _, actions, _ = rulesets.scenario_round(path, ruleset, [0])
            first[path] = (cpu, actions)

    # What the load does not change runs at once, before the timings that follow: the
    # compiled tree is built (if a source changed) and valgrind counts instructions in
    # processes of their own while this one runs the duels of the memory check and the
    # census.
    runs = long_runs({p: a for p, (_, a) in first.items()}, sizes.counted_actions, fight_actions)
    # The costliest first (by their first fight's CPU time), so that the two cores end
    # together rather than one waiting for the last long run.
    runs = dict(sorted(runs.items(), key=lambda item: -first[item[0]][0] * sum(item[1])))
    jobs = count_jobs(sizes, runs)
    with ThreadPoolExecutor(2) as pool:
        building = pool.submit(timed, compiled_tree)
        counting_ = pool.submit(instruction_counts, jobs)
        change = memory_apart(sizes.memory_fights)
        census_section(report)
        counts = counting_.result()
        waiting = time.perf_counter()
        built, build_wall = building.result()
        waited = time.perf_counter() - waiting  # for the build alone, the rest done
    report.figures["memory"] = change
    report.lap("instructions, memory and census (the compiled tree's build beside)")
    instruction_lines(report, counts)

    scenario_section(report, sizes, examples, first, counts)
    report.lap("example scenarios")

    compiled = compiled_section(built, engine_ratio, rules_ratio, quick)
    if compiled is not None:
        assert not isinstance(built, str)
        report.figures["compiled"] = compiled
        report.add(
            Verdict("compiled build: engine alone per action", compiled["engine"], TARGET_ENGINE),
            Verdict(
                "compiled build: the duel per action", compiled["rules"], TARGET_COMPILED_RULES
            ),
        )
        compiled_rulesets(report, sizes, examples, first, built[1])
    else:
        why = f"not measured ({built})"
        report.add(
            Verdict("compiled build: engine alone per action", None, TARGET_ENGINE, why=why),
            Verdict("compiled build: the duel per action", None, TARGET_COMPILED_RULES, why=why),
            *(
                Verdict(
                    f"{r}: compiled build's speed against the pure build's",
                    None,
                    TARGET_COMPILED_SPEED,
                    at_least=True,
                    why=why,
                )
                for r in examples
            ),
        )

    report.lap("compiled build")
    battle_section(report, sizes)
    report.lap("battles")
    table_mode_section(report, quick)
    report.lap("table mode")

    report.add(
        Verdict(f"memory growth over {sizes.memory_fights:,} duels", change, TARGET_MEMORY, " %")
    )
    deadline = STARTED + sizes.wall - 5
    report.add(sweep_section(sizes.sweep_fights, sizes.sweep_attempts, deadline, report))
    report.lap("sweeps")
    print(f"wall time: {report.times()}")

    # The whole run, from this process's start (the interpreter's own start-up aside);
    # the time it waited for a build of the compiled tree alone (made once per change
    # of a source; finding the tree up to date takes well under a second) is set aside.
    wall = time.perf_counter() - STARTED
    others = load.others()
    report.figures["wall"] = {
        "seconds": wall,
        "build": build_wall,
        "waited_for_build": waited,
        "others_cores": others,
    }
    if others is not None:
        print(f"other processes used {others:.2f} cores on average during the run")
    report.add(wall_verdict(quick, wall, sizes.wall, build_wall, waited, others))
    report.print_verdicts()
    return report


def table_mode_section(report: Report, quick: bool) -> None:
    """Table mode (``benchmarks/table_bench.py``): a duel phase's round trip through the
    server, a declaration submitted to the next phase shown (median), and the server's
    memory over a scripted session of phases (1,000; 200 with ``--quick``)."""
    names = ("table mode: a duel phase's round trip (median)", "table mode: memory growth")
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as missing:  # the 'table' extra (starlette, uvicorn) not installed
        why = f"not measured ({missing}: install segsim[table])"
        report.add(
            Verdict(names[0], None, 100.0, " ms", why=why),
            Verdict(names[1], None, 10.0, " %", why=why),
        )
        return
    import table_bench

    got = table_bench.table_section(quick)
    mem = got["memory"]
    report.figures["table"] = got
    print(
        f"table mode: round trip median {got['round_trip_median_ms']:.1f} ms over "
        f"{got['round_trip_phases']} phases; server memory {mem['rss_at_first_kib']:,} KiB at "
        f"phase {mem['first']}, {mem['rss_at_end_kib']:,} KiB at phase {mem['phases']}"
    )
    report.add(
        Verdict(names[0], got["round_trip_median_ms"], table_bench.ROUND_TRIP_TARGET_MS, " ms"),
        Verdict(
            f"{names[1]} from phase {mem['first']} to {mem['phases']}",
            mem["growth"] * 100,
            table_bench.MEMORY_GROWTH_TARGET * 100,
            " %",
        ),
    )


def wall_verdict(
    quick: bool, wall: float, target: float, build: float, waited: float, others: float | None
) -> Verdict:
    """The run's wall time against ``target``: the time it waited for a build of the
    compiled tree alone (``waited``, if ``build`` took long enough to be one) set aside,
    and not judged if other processes used more than :data:`BUSY` cores on average (a
    run they slowed measures their load)."""
    name = "wall time of the benchmarks" + (" (--quick)" if quick else "")
    if build > 5:
        name += f", the wait for the compiled tree's build ({waited:.0f} s of {build:.0f}) aside"
        wall -= waited
    busy = ""
    if others is not None and others > BUSY:
        busy = f"other processes used {others:.2f} cores on average"
    return Verdict(name, wall, target, " s", busy=busy)


def census_section(report: Report) -> None:
    """Function calls, objects and attrs instances per action of 20 duels (exact)."""
    census = Census()
    counted = census.run(lambda: duels(20))
    top = ", ".join(
        f"{name} {count / counted:.2f}" for name, count in census.objects.most_common(8)
    )
    print(
        f"per action (20 duels, exact): {census.calls / counted:.0f} function calls, "
        f"{sum(census.objects.values()) / counted:.1f} objects built by Python constructors "
        f"({top}), {census.attrs_objects / counted:.2f} attrs instances"
    )
    report.figures["census"] = {
        "calls": census.calls / counted,
        "objects": sum(census.objects.values()) / counted,
        "attrs": census.attrs_objects / counted,
    }
    report.add(
        Verdict("attrs instances per action", census.attrs_objects / counted, TARGET_ATTRS, "")
    )


def instruction_lines(report: Report, counts: dict[str, Any] | str) -> None:
    """The instructions per bare SimPy timeout, per action of the engine alone and of
    the duel, and the duel's verdict."""
    name = "the duel's instructions per action (pure build)"
    if isinstance(counts, str):
        print(f"instructions: not counted ({counts})")
        report.add(
            Verdict(
                name, None, TARGET_DUEL_INSTRUCTIONS, " instructions", why=f"not counted ({counts})"
            )
        )
        return
    bare, engine, duel = (counts[k]["per_unit"] for k in ("bare", "engine", str(DUEL)))
    report.figures["instructions"] = {"bare": bare, "engine": engine, "duel": duel}
    print(
        f"instructions (valgrind's cachegrind, not load-dependent): bare SimPy {bare:,.0f} per "
        f"timeout; engine alone {engine:,.0f} per action ({engine / bare:.2f}x); "
        f"the duel {duel:,.0f} per action ({duel / bare:.1f}x)"
    )
    report.add(Verdict(name, duel, TARGET_DUEL_INSTRUCTIONS, " instructions"))


def core_ratios(rounds: int, quick: bool, quiet: bool = False) -> tuple[float, float]:
    """The engine alone and the full RinKaNou duel, per action, against bare SimPy
    running the same schedule of timeouts: the medians of interleaved rounds."""
    segments = 20_000  # long enough to time well on a noisy machine, even --quick
    engine, bare, engine_ratio = interleaved(
        rounds, lambda: engine_run(2, segments), lambda: bare_run(2, segments)
    )
    n = 20 if quick else 100
    per_action, _, rules_ratio = interleaved(
        rounds, lambda: duels(n), lambda: bare_run(2, segments)
    )
    if not quiet:
        actions = duels(n)
        print(
            f"engine, no rules: {engine * 1e6:.2f} us CPU per action; bare SimPy "
            f"{bare * 1e6:.2f} us per timeout (medians of {rounds} interleaved rounds)"
        )
        print(
            f"RinKaNou duels (duel.toml): {per_action * 1e6:.1f} us CPU per declared action, "
            f"{1 / (per_action * actions / n):,.0f} duels per CPU-second "
            f"({actions / n:.1f} actions a duel)"
        )
    return engine_ratio, rules_ratio


# ------------------------------------------------------------------ compiled build


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """What ``fn()`` returns and the wall seconds it took."""
    start = time.perf_counter()
    got = fn()
    return got, time.perf_counter() - start


def compiled_tree() -> tuple[ModuleType, Path] | str:
    """The build script (``hatch_build.py``) and the compiled tree it builds here if a
    source has changed; or why it cannot be built (no C compiler, no mypy)."""
    try:
        from importlib.util import module_from_spec, spec_from_file_location

        spec = spec_from_file_location("segsim_hatch_build", ROOT / "hatch_build.py")
        assert spec is not None and spec.loader is not None
        hatch_build = module_from_spec(spec)
        spec.loader.exec_module(hatch_build)
        return hatch_build, Path(hatch_build.compiled_tree(ROOT, ROOT / "build" / "compiled"))
    except (ImportError, RuntimeError) as exc:
        return f"{type(exc).__name__}: {str(exc)[:300]}"


def compiled_section(
    built: tuple[ModuleType, Path] | str, engine_ratio: float, rules_ratio: float, quick: bool
) -> dict[str, Any] | None:
    """The optional compiled build (:func:`compiled_tree`), measured in a process of its
    own against bare SimPy there: the engine's and the duel's ratios, and its speed
    against the pure build's (the ratio of their ratios); None where it could not be
    built."""
    if isinstance(built, str):
        print(f"compiled build: not measured ({built})")
        return None
    hatch_build, tree = built
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--core"]
    if quick:
        command.append("--quick")
    env = {**os.environ, "SEGSIM_BENCH_PACKAGE": str(tree)}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=tree)
    got: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if not str(got["module"]).endswith(".so"):  # the pure module was found first
        raise RuntimeError(f"the compiled build's run imported {got['module']}")
    print(
        f"compiled build ({len(hatch_build.COMPILED_MODULES)} modules compiled by mypyc): engine "
        f"{got['engine']:.2f}x, the duel {got['rules']:.2f}x a bare SimPy timeout (in its "
        f"own process); {engine_ratio / got['engine']:.2f}x and "
        f"{rules_ratio / got['rules']:.2f}x the pure build's speed"
    )
    return got


def rss_kib() -> int:
    """Resident memory of this process (Linux), KiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def memory_apart(fights: int) -> float:
    """:func:`memory` in a process of its own (``run.py --memory N``), what it prints
    printed here: the bench's own process imports the compiled build's tooling in
    another thread meanwhile, which added some 11 MB to its resident memory within the
    quick run's window (a growth of 28 % over 1,000 duels that was not theirs)."""
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--memory", str(fights)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    *said, last = done.stdout.splitlines()
    print(*said, sep="\n")
    return float(last)


def memory(fights: int) -> float:
    """Duels one after another in one process: resident memory after the first tenth
    against the end, in per cent."""
    scenario = load_scenario(DUEL)
    after_first = 0
    for seed in range(fights):
        scenario.fight(seed).run()
        if seed + 1 == fights // 10:
            gc.collect()
            after_first = rss_kib()
    gc.collect()
    end = rss_kib()
    change = (end - after_first) / after_first * 100
    print(
        f"memory: {after_first:,} KiB after {fights // 10:,} duels, {end:,} KiB after "
        f"{fights:,} ({change:+.1f} %)"
    )
    return change


if __name__ == "__main__":
    raise SystemExit(main())
