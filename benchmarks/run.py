"""segsim benchmarks: figures as ratios against a baseline measured in the same run.

* engine overhead: the segsim engine (declaration phases, settlements, combatant
  processes) driving a rule-free schedule, against bare SimPy running the same schedule
  of timeouts (DESIGN, "Performance budget": target at most 2x);
* RinKaNou duels per second with the full rules (target >= 4,000 per core).

Run with ``make bench`` (or ``python benchmarks/run.py --quick``).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import simpy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segsim import Declaration, load_scenario  # noqa: E402
from segsim.actions import ActionSpec  # noqa: E402
from segsim.fight import CombatantSpec, Fight  # noqa: E402
from segsim.policy import Observation  # noqa: E402
from segsim.rules import BaseRuleset  # noqa: E402

DURATIONS = (3, 3, 3, 5, 3, 2)  # arm, strike, lock, reposition, dodge, ... in a cycle


class NullRules(BaseRuleset):
    """A ruleset that times actions and resolves nothing: the engine's cost alone."""

    name: ClassVar[str] = "null"
    title: ClassVar[str] = "no rules (benchmark)"

    def __init__(self) -> None:
        self.options: dict[str, Any] = {}

    def load_sheet(self, node: Any) -> Any:
        return None

    def sheet_data(self, sheet: Any) -> dict[str, Any]:
        return {}

    def new_status(self, sheet: Any) -> Any:
        return None

    def begin(self, state: Any, dice: Any) -> list[Any]:
        return []

    def plan(self, state: Any, cid: str, d: Declaration, segment: int, planned: Any) -> ActionSpec:
        return ActionSpec("act", int(d.params["d"]), "hands")

    def resolve(self, state: Any, segment: int, batch: Any, dice: Any) -> list[Any]:
        return []

    def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Observation:
        return Observation(segment, cid, must_act, None, (), legal=tuple)

    def outcome(self, state: Any) -> Any:
        return None


class Cycle:
    """Declares the next duration of a fixed cycle whenever it must act."""

    name = "cycle"
    reactive = False

    def __init__(self, offset: int) -> None:
        self.i = offset

    def decide(self, obs: Observation) -> Declaration:
        self.i += 1
        return Declaration("act", params={"d": DURATIONS[self.i % len(DURATIONS)]})


def engine_run(fighters: int, segments: int) -> int:
    rules = NullRules()
    specs = [CombatantSpec(f"c{i}", f"s{i % 2}", None, Cycle(i)) for i in range(fighters)]
    fight = Fight(rules, specs, max_segments=segments)
    fight.run()
    return fight.state.next_action_id - 1


def bare_run(fighters: int, segments: int) -> int:
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


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def duels(n: int, scenario_path: Path) -> tuple[int, int]:
    scenario = load_scenario(scenario_path)
    actions = 0
    for seed in range(n):
        fight = scenario.fight(seed)
        fight.run()
        actions += fight.state.next_action_id - 1
    return n, actions


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    args = parser.parse_args(argv)
    scale = 1 if args.quick else 4
    repeat = 3
    print(f"segsim benchmarks (Python {platform.python_version()}, simpy {simpy.__version__})")

    segments = 20_000 * scale
    t_bare, n_bare = best_of(repeat, lambda: bare_run(2, segments))
    t_eng, n_eng = best_of(repeat, lambda: engine_run(2, segments))
    print(f"bare SimPy: {n_bare:,} timeouts in {t_bare:.3f} s ({n_bare / t_bare:,.0f} per s)")
    print(f"engine, no rules: {n_eng:,} actions in {t_eng:.3f} s ({n_eng / t_eng:,.0f} per s)")
    per_bare = t_bare / n_bare
    per_eng = t_eng / n_eng
    ratio = per_eng / per_bare
    print(f"engine overhead (2 fighters, same schedule): {ratio:.2f}x bare SimPy (target <= 2)")

    n = 100 * scale
    duel = ROOT / "examples/scenarios/duel.toml"
    t_duel, (count, actions) = best_of(repeat, lambda: duels(n, duel))
    print(
        f"RinKaNou duels (duel.toml, defender vs aggressive): {count / t_duel:,.0f} duels per s, "
        f"{actions / t_duel:,.0f} actions per s (target >= 4,000 duels per s)"
    )
    print(f"full rules cost per action: {(t_duel / actions) / per_bare:.1f}x a bare SimPy timeout")

    sizes = (1, 10, 100) if args.quick else (1, 10, 100, 1000)
    costs = scale_costs(sizes)
    for fighters, (settled, working) in costs.items():
        print(
            f"battle of {fighters:>5} fighters: {settled * 1e6:8.1f} us per resolved action, "
            f"{working * 1e6:8.1f} us per action other than waiting"
        )
    largest = max(costs)
    print(
        f"scale ratio ({largest}/2 fighters): {costs[largest][0] / costs[2][0]:.2f} (target <= 2)"
    )
    print(
        f"scale ratio, waits aside ({largest}/2 fighters): "
        f"{costs[largest][1] / costs[2][1]:.2f} (rear ranks waiting their turn weigh here)"
    )

    memory(1000 if args.quick else 10_000)
    return 0


def scale_costs(sizes: Sequence[int]) -> dict[int, tuple[float, float]]:
    """Wall time per resolved action in line battles of 2 x n fighters (full rules, an
    awareness radius of 3 m): per action the resolver settled (timed waits included),
    and per action leaving every wait aside. The 2-fighter figures average 200 battles."""
    from segsim.battle import line_battle

    out: dict[int, tuple[float, float]] = {}
    for n in sizes:
        repeats = 200 if n == 1 else 1
        total_time = 0.0
        settled = 0
        working = 0
        for seed in range(repeats):
            fight = line_battle(n, seed=seed)
            start = time.perf_counter()
            fight.run()
            total_time += time.perf_counter() - start
            for e in fight.history:
                if e.TYPE == "action.declared" and e.ends_in is not None:
                    settled += 1
                    working += e.kind != "wait"
        out[2 * n] = (total_time / settled, total_time / working)
    return out


def rss_kib() -> int:
    """Resident memory of this process (Linux), KiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def memory(fights: int) -> None:
    """Fights one after another in one process: memory after the first tenth against the
    end (target: within 10 %)."""
    import gc

    scenario = load_scenario(ROOT / "examples/scenarios/duel.toml")
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
        f"memory: {after_first:,} KiB after {fights // 10:,} fights, {end:,} KiB after "
        f"{fights:,} ({change:+.1f} %, target within 10 %)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
