"""segsim benchmarks: every figure a ratio against a baseline measured in the same run.

* **engine alone**: the engine (declaration phases, settlements, combatant processes)
  driving a rule-free schedule, against bare SimPy running the same schedule of
  timeouts, per action (target at most 6x; DESIGN, "Performance budget");
* **full rules**: RinKaNou duels (``examples/scenarios/duel.toml``), CPU time per
  declared action against a bare SimPy timeout (target at most 33x), duels per
  CPU-second, and per action the Python function calls, the objects built by Python
  constructors and, among them, attrs instances (target at most 5);
* **battles**: cost per action in line battles of 2 to 2,000 fighters, all actions and
  actions other than waiting, with the scale ratio (target at most 2), every size timed
  over the same first segments (``BATTLE_WINDOW``) so that the run fits its budget; the
  2-fighter battles mix the two kinds of fighter the larger ones are made of (a veteran
  attacker, a recruit defender), and the ratio to two veteran attackers alone is shown
  beside it;
* **memory** over 10,000 duels in one process (target: no growth beyond 10 %);
* **sweeps**: the rate of ``segsim sweep --workers 2`` against ``--workers 1`` on a
  4,000-duel sweep (wall clock, as the command's ``--timing`` reports it; target at
  least 1.8x on two cores).
* **instructions** (informative, where valgrind is installed): the instructions the
  interpreter executes per bare SimPy timeout, per action of the engine alone and per
  action of a duel, counted by valgrind's cachegrind as the difference between a long
  and a short run of each in a process of its own; unlike CPU time, they do not depend
  on the machine's load, so they show a change that the ratios' swings would hide.

The machine is shared and noisy: times are CPU times (``time.process_time``), but for
the sweeps' wall-clock rates, the two sides of every ratio run in turn (A B A B ...),
and each figure is the median of the rounds. Counts (calls, objects) are exact and do
not depend on the machine.

Run with ``make bench`` (or ``python benchmarks/run.py --quick`` for a smaller run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
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
# The folder holding the segsim package measured: this checkout, or the compiled build's
# tree when the benchmarks measure that build in a process of its own.
PACKAGE = os.environ.get("SEGSIM_BENCH_PACKAGE") or str(ROOT)
sys.path.insert(0, PACKAGE)

from segsim import Declaration, load_scenario  # noqa: E402
from segsim.actions import ActionSpec  # noqa: E402
from segsim.fight import CombatantSpec, Fight  # noqa: E402
from segsim.policy import Observation  # noqa: E402
from segsim.testing import RuleFree  # noqa: E402

DURATIONS = (3, 3, 3, 5, 3, 2)  # arm, strike, lock, reposition, dodge, ... in a cycle
DUEL = ROOT / "examples/scenarios/duel.toml"

TARGET_ENGINE = 6.0
TARGET_RULES = 33.0
TARGET_ATTRS = 5.0
TARGET_SCALE = 2.0
TARGET_MEMORY = 10.0  # per cent
BATTLE_WINDOW = 400  # segments: every battle size is timed over its first 400 (a budget:
# the whole 2,000-fighter battle takes over a minute of CPU)
TARGET_SWEEP = 1.8  # at least
TARGET_WALL = 120.0  # seconds, at most: make bench finishes in under 2 minutes
SWEEP_FIGHTS = 4_000  # the sweep: long enough that starting the pool weighs little


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

INSTRUCTION_RUNS = {"bare": (1_000, 101_000), "engine": (100, 10_100), "duel": (1, 31)}
"""The short and the long run of each kind whose difference the instruction counts take
(the interpreter's start and the imports cancel out)."""
QUICK_INSTRUCTION_RUNS = {"bare": (1_000, 21_000), "engine": (100, 2_100), "duel": (1, 6)}


def refs(report: str) -> int:
    """The instructions executed, from cachegrind's report (its ``I refs`` line)."""
    found = re.search(r"I\s+refs:\s+([\d,]+)", report)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's report: {report[-300:]!r}")
    return int(found.group(1).replace(",", ""))


def instructions(kind: str, n: int) -> tuple[int, int]:
    """The instructions executed by a process of its own running ``n`` units of ``kind``
    (:data:`UNITS`) under valgrind's cachegrind, and the units it ran."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-P",
        str(Path(__file__).resolve()),
        "--units",
        kind,
        str(n),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict layouts run to run
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return refs(done.stderr), int(done.stdout.split()[-1])


def instruction_section(quick: bool) -> dict[str, float] | None:
    """Instructions per unit of each kind (informative; None without valgrind)."""
    if shutil.which("valgrind") is None:
        print("instructions: not counted (valgrind is not installed)")
        return None
    runs = QUICK_INSTRUCTION_RUNS if quick else INSTRUCTION_RUNS
    jobs = [(kind, n) for kind, sizes in runs.items() for n in sizes]
    with ThreadPoolExecutor(2) as pool:  # the two cores: each valgrind runs one thread
        counted = dict(zip(jobs, pool.map(lambda job: instructions(*job), jobs), strict=True))
    per: dict[str, float] = {}
    for kind, (short, long) in runs.items():
        (few, few_units), (many, many_units) = counted[kind, short], counted[kind, long]
        per[kind] = (many - few) / (many_units - few_units)
    bare = per["bare"]
    print(
        f"instructions (valgrind's cachegrind, not load-dependent): bare SimPy {bare:,.0f} per "
        f"timeout; engine alone {per['engine']:,.0f} per action ({per['engine'] / bare:.2f}x); "
        f"full rules {per['duel']:,.0f} per action ({per['duel'] / bare:.1f}x)"
    )
    return per


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


def verdict(
    name: str, value: float, target: float, unit: str = "x", at_least: bool = False
) -> bool:
    ok = value >= target if at_least else value <= target
    bound = ">=" if at_least else "<="
    print(
        f"  {'PASS' if ok else 'MISS'}  {name}: {value:.2f}{unit} (target {bound} {target:g}{unit})"
    )
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (a smoke test)")
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
    args = parser.parse_args(argv)
    if args.units:
        kind, n = args.units
        print(UNITS[kind](int(n)))
        return 0
    quick = args.quick
    rounds = 3 if quick else 7
    if args.core:
        import segsim.fight

        engine_ratio, rules_ratio = core_ratios(rounds, quick, quiet=True)
        got = {"engine": engine_ratio, "rules": rules_ratio, "module": segsim.fight.__file__}
        print(json.dumps(got))
        return 0
    print(f"segsim benchmarks (Python {platform.python_version()}, simpy {simpy.__version__})")
    verdicts: list[tuple[str, float, float, str] | tuple[str, float, float, str, bool]] = []

    engine_ratio, rules_ratio = core_ratios(rounds, quick)
    verdicts.append(
        ("engine alone per action, against a bare SimPy timeout", engine_ratio, TARGET_ENGINE, "x")
    )
    verdicts.append(
        ("full rules per action, against a bare SimPy timeout", rules_ratio, TARGET_RULES, "x")
    )
    # What the load does not change runs at once, before the timings that follow: the
    # compiled tree is built (if a source changed) and valgrind counts instructions in
    # processes of their own while this one runs the duels of the memory check.
    fights = 1_000 if quick else 10_000
    with ThreadPoolExecutor(2) as pool:
        building = pool.submit(compiled_tree)
        counting = pool.submit(instruction_section, quick)
        change = memory(fights)
        counting.result()
        built = building.result()
    # Flat means no growth: resident memory that shrinks (the allocator giving pages back
    # after the first duels) passes.
    growth = (f"memory growth over {fights:,} duels", change, TARGET_MEMORY, " %")
    compiled = compiled_section(built, engine_ratio, rules_ratio, quick)
    if compiled is not None:
        verdicts.append(
            ("compiled build: engine alone per action", compiled["engine"], TARGET_ENGINE, "x")
        )
        verdicts.append(
            ("compiled build: full rules per action", compiled["rules"], TARGET_RULES, "x")
        )

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
    verdicts.append(
        ("attrs instances per action", census.attrs_objects / counted, TARGET_ATTRS, "")
    )

    # Battles: cost per action from 2 to 2,000 fighters, over the same window of time.
    sizes = (1, 10, 100) if quick else (1, 10, 100, 1000)
    window = 150 if quick else BATTLE_WINDOW
    costs, ratios, plain, plain_ratios = scale_costs(sizes, window)
    for fighters, (settled, working, actions) in costs.items():
        against = ratios.get(fighters)
        if against is None:
            alone = plain[2]
            scale = (
                "; a veteran attacker and a recruit defender, in their four pairings; two "
                f"veteran attackers alone: {alone[0] * 1e6:.1f} and {alone[1] * 1e6:.1f} us"
            )
        else:
            was = plain_ratios[fighters]
            scale = (
                f"; {against[0]:.2f}x and {against[1]:.2f}x the 2-fighter cost, "
                f"{was[0]:.2f}x and {was[1]:.2f}x that of two veteran attackers alone"
            )
        print(
            f"battle of {fighters:>5} fighters: {settled * 1e6:8.1f} us CPU per resolved action, "
            f"{working * 1e6:8.1f} us per action other than waiting ({actions:,} actions{scale})"
        )
    print(
        f"  (line battles, full rules, awareness 3 m; each size timed over its first {window} "
        "segments, or to its end if sooner: the battles of 2 nearly all end within it, the large "
        "ones are cut short, so theirs is the approach and first clashes; the whole "
        "2,000-fighter battle lasts some 3,000 segments; five battles of 20 are timed, one "
        "of each larger size, whose fighters are half veteran attackers, half recruit "
        "defenders; the 2-fighter cost is that of the same mix; each size's ratios are the "
        f"medians of {SCALE_ROUNDS} rounds, in each of which its window runs in "
        f"{SCALE_SLICES} slices, each followed by a slice of the battles of 2)"
    )
    largest = max(costs)
    verdicts.append(
        (
            f"battle cost per action, {largest} against 2 fighters",
            ratios[largest][0],
            TARGET_SCALE,
            "x",
        )
    )
    verdicts.append(
        (
            f"battle cost per action other than waiting, {largest} against 2 fighters",
            ratios[largest][1],
            TARGET_SCALE,
            "x",
        )
    )

    verdicts.append(growth)

    verdicts.append(sweep_section(300 if quick else SWEEP_FIGHTS))

    # The whole run, from this process's start (the interpreter's own start-up aside).
    wall = time.perf_counter() - STARTED
    verdicts.append(("wall time of the benchmarks", wall, TARGET_WALL, " s"))
    print("verdicts:")
    passed = sum(verdict(*v) for v in verdicts)
    print(f"{passed} of {len(verdicts)} targets met")
    return 0


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
    own against bare SimPy there: the same two ratios, and its speed against the pure
    build's (the ratio of their ratios), each ratio with a verdict line of its own beside
    the pure build's (the default); None where it could not be built."""
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
        f"compiled build (mypyc: {', '.join(hatch_build.COMPILED_MODULES)}): engine "
        f"{got['engine']:.2f}x, full rules {got['rules']:.2f}x a bare SimPy timeout (in its "
        f"own process); {engine_ratio / got['engine']:.2f}x and "
        f"{rules_ratio / got['rules']:.2f}x the pure build's speed"
    )
    return got


PAIRINGS = ((0, 0), (1, 1), (0, 1), (1, 0))
"""The ``line_battle`` offsets of the 2-fighter battles that mix fighters as the larger
battles do: each of their two kinds (a veteran attacker, a recruit defender) against
each, on either side, in turn by seed."""


def battle_costs(
    per_side: int, seeds: Sequence[int], window: int, *, mixed: bool = False
) -> tuple[float, int, int]:
    """CPU seconds, actions settled and actions other than waiting of line battles of
    ``per_side`` fighters a side (one per seed), each run for its first ``window``
    segments (or to its end, if sooner); ``mixed``: with the offsets of
    :data:`PAIRINGS` by seed."""
    # One collection for the set: a finished fight is freed by reference counting, so
    # a battle leaves the collector nothing of its own to do in the next one's run.
    gc.collect()
    return _battles(per_side, seeds, window, mixed)


def _battles(per_side: int, seeds: Sequence[int], window: int, mixed: bool) -> Cost:
    """:func:`battle_costs` without its collection first (within a round of
    :func:`scale_round`, whose larger battles' collector runs as it would alone)."""
    from segsim.battle import line_battle

    total = 0.0
    settled = 0
    working = 0
    for seed in seeds:
        offsets = PAIRINGS[seed % len(PAIRINGS)] if mixed else (0, 0)
        fight = line_battle(per_side, seed=seed, max_segments=window, offsets=offsets)
        start = time.process_time()
        fight.run()
        total += time.process_time() - start
        done, other = resolved(fight.history, window)
        settled += done
        working += other
        start = time.process_time()
        del fight  # freeing a fight is part of its cost (as the collector's passes were)
        total += time.process_time() - start
    return total, settled, working


def resolved(history: Sequence[object], window: int) -> tuple[int, int]:
    """How many actions of a fight's ``history`` ended within its first ``window``
    segments, and how many of them were not waits."""
    settled = working = 0
    for e in history:
        # A declared action is its own action.declared event.
        if isinstance(e, ActionSpec) and e.ends_in is not None and e.ends_in < window:
            settled += 1
            working += e.kind != "wait"
    return settled, working


Cost = tuple[float, int, int]
Costs = dict[int, tuple[float, float, int]]
Ratios = dict[int, tuple[float, float]]

SCALE_ROUNDS = 3
"""Rounds of each larger battle size against the battles of 2: its ratios are the
medians of the rounds'."""
SCALE_SLICES = 10
"""Slices of a larger battle's window in a round, each followed by its share of the
battles of 2 (a tenth of each set): the two sides of a ratio run in turn."""
TWO_FIGHTER_BATTLES = 100  # of each set (the mix, two veteran attackers), in each round


def scale_round(per_side: int, window: int) -> tuple[Cost, Cost, Cost]:
    """One round of the larger battles of ``per_side`` fighters a side against the
    battles of 2: CPU seconds, actions settled and actions other than waiting of the
    larger ones, of the mixed battles of 2 (:data:`PAIRINGS`) and of two veteran
    attackers alone (``line_battle(1)``'s own fighters).

    The larger size is one battle (seed 0), or 50 // n of them (seeds 0, 1...) when
    that is more, since the window of a battle of 20 holds few actions. Its window runs
    in :data:`SCALE_SLICES` slices, each followed by a slice of each set of
    :data:`TWO_FIGHTER_BATTLES` battles of 2 (seeds 0 to 99, the same every round), so
    that a drift of the machine weighs on both sides alike. Only the round begins with
    a collection: within it, the collector runs as it would in each battle alone."""
    from segsim.battle import line_battle

    per = TWO_FIGHTER_BATTLES // SCALE_SLICES
    small = {True: [0.0, 0, 0], False: [0.0, 0, 0]}
    fights = [
        line_battle(per_side, seed=seed, max_segments=window)
        for seed in range(max(1, 50 // per_side))
    ]
    gc.collect()
    start = time.process_time()
    done = [fight.start() for fight in fights]
    spent = time.process_time() - start
    for k in range(1, SCALE_SLICES + 1):
        start = time.process_time()
        for fight, end in zip(fights, done, strict=True):
            # Each slice runs to its share of the window; the last, to the fight's end.
            fight.env.run(until=end if k == SCALE_SLICES else k * window // SCALE_SLICES)
        spent += time.process_time() - start
        for mixed in (True, False):
            got = _battles(1, range((k - 1) * per, k * per), window, mixed)
            for i in range(3):
                small[mixed][i] += got[i]
    settled = working = 0
    for fight in fights:
        done_, other = resolved(fight.history, window)
        settled += done_
        working += other
    start = time.process_time()
    del fight, end, fights, done  # freeing the fights is part of their cost (their
    # done events hold their environments)
    spent += time.process_time() - start

    def cost(mixed: bool) -> Cost:
        t, s, w = small[mixed]
        return t, int(s), int(w)

    return (spent, settled, working), cost(True), cost(False)


def scale_costs(sizes: Sequence[int], window: int) -> tuple[Costs, Ratios, Costs, Ratios]:
    """CPU time per resolved action in line battles of 2 x n fighters (full rules, an
    awareness radius of 3 m), each run for its first ``window`` segments: per action the
    resolver settled (timed waits included), per action leaving every wait aside, and
    how many actions were settled (in a round); and each larger size's ratios to the
    2-fighter cost, the medians of :data:`SCALE_ROUNDS` rounds of :func:`scale_round`.

    A larger battle's fighters are half veteran attackers and half recruit defenders, so
    its 2-fighter cost is that of the same mix (:data:`PAIRINGS`); the last two values
    are the 2-fighter cost and the ratios against two veteran attackers alone."""
    out: Costs = {}
    ratios: Ratios = {}
    plain_ratios: Ratios = {}
    small = {True: [0.0, 0, 0], False: [0.0, 0, 0]}
    runs = 0

    def ratio(big: Cost, two: Cost) -> tuple[float, float]:
        return (big[0] / big[1]) / (two[0] / two[1]), (big[0] / big[2]) / (two[0] / two[2])

    def median(pairs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs)

    for n in sizes:
        if n == 1:
            continue
        total = [0.0, 0, 0]
        mixed: list[tuple[float, float]] = []
        plain: list[tuple[float, float]] = []
        for _ in range(SCALE_ROUNDS):
            big, pair, alone = scale_round(n, window)
            runs += 1
            for i in range(3):
                total[i] += big[i]
                small[True][i] += pair[i]
                small[False][i] += alone[i]
            mixed.append(ratio(big, pair))
            plain.append(ratio(big, alone))
        t, s, w = total
        out[2 * n] = (t / s, t / w, int(s) // SCALE_ROUNDS)
        ratios[2 * n] = median(mixed)
        plain_ratios[2 * n] = median(plain)
    if not ratios:  # no larger size: the 2-fighter battles alone
        for mixed_ in (True, False):
            got = battle_costs(1, range(TWO_FIGHTER_BATTLES), window, mixed=mixed_)
            for i in range(3):
                small[mixed_][i] += got[i]
        runs = 1

    def two(mixed: bool) -> Costs:
        t, s, w = small[mixed]
        return {2: (t / s, t / w, int(s) // runs)}

    return dict(sorted((out | two(True)).items())), ratios, two(False), plain_ratios


def busy_seconds() -> float | None:
    """CPU seconds every process of the machine has used since boot (Linux), or None."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # but idle, iowait


def sweep_rate(fights: int, workers: int) -> tuple[float, float | None]:
    """Fights per second of ``segsim sweep duel.toml --fights N --workers W``, as its
    ``--timing`` line reports it (wall clock of the run, pool start and stop included),
    in a fresh process like any command; and the cores other processes used meanwhile
    (None where the system does not say)."""
    command = [sys.executable, "-m", "segsim", "sweep", str(DUEL), "--fights", str(fights)]
    command += ["--workers", str(workers), "--timing", "--progress", "off"]
    busy, mine = busy_seconds(), os.times()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    busy_after, mine_after = busy_seconds(), os.times()
    found = re.search(r"(\d+) fights in ([\d.]+) s", done.stderr)
    if found is None:
        raise RuntimeError(f"no timing line from segsim sweep: {done.stderr!r}")
    others = None
    if busy is not None and busy_after is not None:
        used = sum(mine_after[:4]) - sum(mine[:4])  # this process and the command's
        others = max(busy_after - busy - used, 0.0) / wall
    return int(found[1]) / float(found[2]), others


def sweep_section(fights: int) -> tuple[str, float, float, str, bool]:
    """Sweeps of ``fights`` duels on 2 workers, then 1, then 2 again: the median of the
    rate ratios of the serial run to each pooled run beside it (a slow spell of the
    machine moves them opposite ways), and how much CPU other processes took meanwhile
    (they take cores from the two workers). The serial run, the longest, runs once."""
    rates: dict[int, list[float]] = {1: [], 2: []}
    others: list[float] = []
    for workers in (2, 1, 2):
        rate, other = sweep_rate(fights, workers)
        rates[workers].append(rate)
        if other is not None:
            others.append(other)
    serial = rates[1][0]
    ratio = statistics.median(pooled / serial for pooled in rates[2])
    busiest = f", other processes {max(others):.2f} cores at most" if others else ""
    print(
        f"sweep of {fights:,} duels: {serial:,.0f} fights/s serial, "
        f"{' and '.join(f'{r:,.0f}' for r in rates[2])} on 2 workers ({ratio:.2f}x; the "
        f"serial run between two pooled runs, wall clock; {os.cpu_count()} CPUs{busiest})"
    )
    if others and max(others) > 0.2:
        print("  (other work was running: the two workers did not have two cores to themselves)")
    return ("sweep --workers 2 against serial", ratio, TARGET_SWEEP, "x", True)


def rss_kib() -> int:
    """Resident memory of this process (Linux), KiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


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
