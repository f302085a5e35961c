"""The cost per action of any scenario: CPU time, instructions, and a profile.

    python benchmarks/cost.py examples/scenarios/loss_street_brawl.toml [more.toml ...]
    python benchmarks/cost.py --instructions examples/scenarios/duel.toml loss_chase.toml
    python benchmarks/cost.py --profile examples/scenarios/rupture_brawl.toml

For each scenario: the actions per fight (``state.next_action_id - 1``: every action the
engine started, waits included), the CPU time per action (median of ``--rounds`` runs of
``--fights`` fights, seeds 0..n-1) and, with ``--instructions``, the instructions the
interpreter executes per action, counted by valgrind's cachegrind as the difference
between a long and a short run in processes of their own (not load-dependent: use it to
compare a change before and after). With ``--profile``, cProfile's top functions.
With ``--census``, what the engine does per action over ``--fights`` fights (the pure
build: it counts by wrapping methods): declaration phases, fighters called to them,
observations, decisions and plans, settlements and events, which say how much of a
scenario's cost is the engine's per-phase and per-fighter work.
A bare name is looked up in ``examples/scenarios``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from segsim.scenario import load_scenario  # noqa: E402

SCENARIOS = ROOT / "examples" / "scenarios"


def scenario_path(name: str) -> Path:
    """A scenario's path: as given, or a bare name in ``examples/scenarios``."""
    path = Path(name)
    if path.exists():
        return path
    bare = SCENARIOS / (name if name.endswith(".toml") else f"{name}.toml")
    if bare.exists():
        return bare
    raise SystemExit(f"no such scenario: {name}")


def fights(path: Path, n: int, first: int = 0) -> int:
    """``n`` fights of the scenario (seeds ``first``..): the actions they started."""
    scenario = load_scenario(path)
    actions = 0
    for seed in range(first, first + n):
        fight = scenario.fight(seed)
        fight.run()
        actions += fight.state.next_action_id - 1
    return actions


def census(path: Path, n: int) -> dict[str, float]:
    """Per action, over ``n`` fights of the scenario (seeds 0..n-1): the declaration
    phases, the fighters called to them, the observations made (the ruleset's
    ``observe``), the declarations planned (its ``plan``), the settlements of a batch and
    the events recorded. Counted by wrapping the fight's and the ruleset's methods, so
    in the pure build only (a compiled class refuses the wrappers)."""
    from segsim.fight import Fight

    scenario = load_scenario(path)
    counts = dict.fromkeys(("phases", "called", "observations", "plans", "settlements"), 0)
    ruleset = scenario.ruleset
    observe, plan = ruleset.observe, ruleset.plan
    run_phase, settle = Fight._run_phase, Fight._settle

    def phase(fight: Any, event: Any) -> None:
        counts["phases"] += 1
        counts["called"] += len(fight._phases.get(event.at) or ())
        run_phase(fight, event)

    def settled(fight: Any, time: int) -> None:
        counts["settlements"] += bool(fight.state.pending.get(time))
        settle(fight, time)

    def observed(*args: Any) -> Any:
        counts["observations"] += 1
        return observe(*args)

    def planned(*args: Any) -> Any:
        counts["plans"] += 1
        return plan(*args)

    actions = events = 0
    wrappers: dict[str, Any] = {"_run_phase": phase, "_settle": settled}
    originals: dict[str, Any] = {"_run_phase": run_phase, "_settle": settle}
    for name, wrapper in wrappers.items():  # (the pure build's class takes them)
        setattr(Fight, name, wrapper)
    ruleset.observe, ruleset.plan = observed, planned
    try:
        for seed in range(n):
            fight = scenario.fight(seed)
            fight.run()
            actions += fight.state.next_action_id - 1
            events += len(fight.history)
    finally:
        for name, original in originals.items():
            setattr(Fight, name, original)
        del ruleset.observe, ruleset.plan
    out = {name: value / actions for name, value in counts.items()}
    out["events"] = events / actions
    out["actions per fight"] = actions / n
    return out


def cpu_per_action(path: Path, n: int, rounds: int) -> tuple[float, float]:
    """The median CPU seconds per action over ``rounds`` runs of ``n`` fights, and the
    actions per fight."""
    times = []
    actions = 0
    for _ in range(rounds):
        start = time.process_time()
        actions = fights(path, n)
        times.append((time.process_time() - start) / actions)
    return statistics.median(times), actions / n


def cachegrind(script: Path, args: Sequence[str]) -> tuple[int, list[str]]:
    """Run ``python -P SCRIPT --units ARGS`` in a process of its own under valgrind's
    cachegrind (hash seed 0): the instructions it executed, and the words it printed."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-P",
        str(script),
        "--units",
        *args,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's report: {done.stderr[-300:]!r}")
    return int(found.group(1).replace(",", "")), done.stdout.split()


def _valgrind(path: Path, n: int) -> tuple[int, int]:
    count, words = cachegrind(Path(__file__).resolve(), [str(path), str(n)])
    return count, int(words[-1])


def instructions_per_action(path: Path, short: int, long: int) -> float:
    """Instructions per action: (long run - short run) / (their actions' difference)."""
    with ThreadPoolExecutor(2) as pool:
        (few, few_units), (many, many_units) = pool.map(lambda n: _valgrind(path, n), (short, long))
    return (many - few) / (many_units - few_units)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", help="scenario files or example names")
    parser.add_argument("--fights", type=int, default=20, help="fights per CPU round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count with valgrind")
    parser.add_argument("--short", type=int, default=1, help="fights of the short run")
    parser.add_argument("--long", type=int, default=11, help="fights of the long run")
    parser.add_argument("--profile", action="store_true", help="cProfile the first scenario")
    parser.add_argument(
        "--census", action="store_true", help="phases, observations, plans... per action"
    )
    parser.add_argument("--units", nargs=2, metavar=("SCENARIO", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.units:
        print(fights(Path(args.units[0]), int(args.units[1])))
        return 0
    if not args.scenarios:
        parser.error("name at least one scenario")
    paths = [scenario_path(s) for s in args.scenarios]
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(fights, paths[0], args.fights)
        pstats.Stats(profile).sort_stats("tottime").print_stats(40)
        return 0
    if args.census:
        for path in paths:
            got = census(path, args.fights)
            shown = ", ".join(f"{value:,.2f} {name}" for name, value in got.items())
            print(f"{path.name} per action: {shown}", flush=True)
        return 0
    for path in paths:
        cpu, per_fight = cpu_per_action(path, args.fights, args.rounds)
        line = f"{path.name}: {per_fight:,.1f} actions per fight, {cpu * 1e6:.1f} us CPU per action"
        if args.instructions:
            per = instructions_per_action(path, args.short, args.long)
            line += f", {per:,.0f} instructions per action"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
