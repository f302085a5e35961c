"""Every ruleset's figures for ``benchmarks/run.py``: its example scenarios' costs, its
compiled speed against the pure build's, and its line battles' scaling.

* **Scenarios**: each example scenario (``examples/scenarios/*.toml``, grouped by the
  ruleset its file names) in rounds of the same fights (seeds 0..n-1): fights per
  CPU-second, actions per fight (``state.next_action_id - 1``, every action the engine
  started, as ``benchmarks/cost.py`` counts them), resolved attacks per fight
  (``benchmarks/attacks.py``), CPU time per action and per resolved attack (medians of
  the rounds).
* **Compiled speed**: the same fights of each ruleset's example scenarios in two
  processes of their own, the pure build and the compiled one (:class:`Server`), asked
  in turn (A B A B ...): the median of the rounds' ratios of CPU time.
* **Battles**: ``segsim.battle.battle(ruleset, per_side)``, a battle of 1,000 fighters
  (500 a side) against battles of 10 (5 a side), every size over the same first
  segments (the window), the larger battle's window run in slices, each followed by a
  share of the battles of 10 (:func:`scale_round`); a ruleset without a line battle
  yet is said so.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from attacks import WAITING, resolved_attacks

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
RULESETS = ("rinkanou", "loss", "chroniques", "rupture", "loreval")


def example_scenarios(folder: Path = SCENARIOS) -> dict[str, list[Path]]:
    """The example scenarios of each ruleset (the ``ruleset`` of their ``[fight]``
    table), every ruleset of
    :data:`RULESETS` listed, in that order."""
    found: dict[str, list[Path]] = {name: [] for name in RULESETS}
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as f:
            data = tomllib.load(f)
        name = str(data.get("fight", {}).get("ruleset", "rinkanou")).lower()
        found.setdefault(name, []).append(path)
    return found


Fights = tuple[float, int, int, int]
"""CPU seconds, fights, actions and resolved attacks of a run of fights."""


def scenario_round(path: Path, ruleset: str, seeds: Sequence[int]) -> Fights:
    """The fights of ``path`` for ``seeds``, each built, run and freed under the clock
    (its resolved attacks counted off it)."""
    from segsim import load_scenario

    scenario = load_scenario(path)
    cpu = 0.0
    actions = attacks = 0
    for seed in seeds:
        start = time.process_time()
        fight = scenario.fight(seed)
        fight.run()
        cpu += time.process_time() - start
        actions += fight.state.next_action_id - 1
        attacks += resolved_attacks(ruleset, fight.history)
        start = time.process_time()
        del fight
        cpu += time.process_time() - start
    return cpu, len(seeds), actions, attacks


def scenario_figures(
    path: Path,
    ruleset: str,
    fights: int,
    rounds: int,
    *,
    measure: Callable[..., Fights] = scenario_round,
) -> dict[str, Any]:
    """A scenario's figures over ``rounds`` rounds of ``fights`` fights (seeds 0..n-1,
    the same each round): medians of the rounds' CPU time."""
    gc.collect()
    per_round = [measure(path, ruleset, range(fights)) for _ in range(rounds)]
    cpu = statistics.median(r[0] for r in per_round)
    _, n, actions, attacks = per_round[0]
    return figures(cpu, n, actions, attacks)


def figures(cpu: float, fights: int, actions: int, attacks: int) -> dict[str, Any]:
    """What ``make bench`` prints of a scenario, from a run of ``fights`` fights that
    took ``cpu`` seconds: per fight, per action and per resolved attack (None when
    the fights resolved no attack)."""
    return {
        "fights": fights,
        "fights_per_cpu_second": fights / cpu if cpu > 0 else None,
        "actions_per_fight": actions / fights,
        "attacks_per_fight": attacks / fights,
        "cpu_per_action": cpu / actions,
        "cpu_per_attack": cpu / attacks if attacks else None,
    }


def with_instructions(row: dict[str, Any], per_action: float, actions: int, attacks: int) -> None:
    """Add the instructions per action to a scenario's figures, and per resolved attack
    over the same fights (``actions`` and ``attacks``: those of the counted fights)."""
    row["instructions_per_action"] = per_action
    row["instructions_per_attack"] = per_action * actions / attacks if attacks else None


def scenario_line(name: str, row: dict[str, Any]) -> str:
    """A scenario's figures, on one line."""
    attack_cpu = row["cpu_per_attack"]
    per_attack = f"{attack_cpu * 1e6:,.0f} us" if attack_cpu is not None else "-"
    line = (
        f"  {name:<24} {row['fights_per_cpu_second']:>8,.0f} fights/CPU-s "
        f"{row['actions_per_fight']:>8,.1f} actions {row['attacks_per_fight']:>6,.1f} attacks "
        f"a fight; CPU {row['cpu_per_action'] * 1e6:,.1f} us an action, {per_attack} an attack"
    )
    instructions = row.get("instructions_per_action")
    if instructions is not None:
        attack = row.get("instructions_per_attack")
        line += f"; instructions {instructions:,.0f} an action"
        line += f", {attack:,.0f} an attack" if attack is not None else ", - an attack"
    return line


# ------------------------------------------------------------------ compiled speed


class Server:
    """A process of its own (``run.py --serve``) running fights when asked, with the
    segsim package found in ``package`` (the checkout or the compiled tree)."""

    def __init__(self, script: Path, package: str | None = None) -> None:
        env = dict(os.environ)
        if package is not None:
            env["SEGSIM_BENCH_PACKAGE"] = package
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(script), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=package or ROOT,
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the bench's server stopped (asked {request})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def serve(lines: IO[str], out: IO[str], run: Callable[[Path, int], int]) -> None:
    """Answer each request line: ``{"work": [[scenario, fights], ...]}`` runs those
    fights (``run``: their actions) and answers their CPU seconds and actions;
    ``{"module": true}`` names the file segsim's engine was imported from."""
    for line in lines:
        request = json.loads(line)
        if request.get("module"):
            import segsim.fight

            answer: dict[str, Any] = {"module": segsim.fight.__file__}
        else:
            gc.collect()
            cpu = 0.0
            actions = 0
            for scenario, n in request["work"]:
                start = time.process_time()
                actions += run(Path(scenario), int(n))
                cpu += time.process_time() - start
            answer = {"cpu": cpu, "actions": actions}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def compiled_speed(
    pure: Server, compiled: Server, work: list[tuple[str, int]], rounds: int
) -> tuple[float, float, float]:
    """The median CPU seconds of ``work`` in the pure and the compiled build, asked in
    turn after a warm-up, and the median of the rounds' ratios pure / compiled (the
    compiled build's speed against the pure one's)."""
    request = {"work": work}
    a, b = pure.ask(request), compiled.ask(request)  # warm-up: imports, caches
    if a["actions"] != b["actions"]:
        raise RuntimeError(f"the two builds ran different fights: {a} and {b}")
    pa, pb = [], []
    for _ in range(rounds):
        pa.append(pure.ask(request)["cpu"])
        pb.append(compiled.ask(request)["cpu"])
    ratio = statistics.median(x / y for x, y in zip(pa, pb, strict=True))
    return statistics.median(pa), statistics.median(pb), ratio


# ------------------------------------------------------------------ battles

Cost = tuple[float, int, int]
"""CPU seconds, actions settled and actions other than waiting."""


def resolved(history: Sequence[object], window: int) -> tuple[int, int]:
    """How many actions of a fight's ``history`` ended within its first ``window``
    segments, and how many of them were not waiting (:data:`attacks.WAITING`)."""
    from segsim.actions import ActionSpec

    settled = working = 0
    for e in history:
        # A declared action is its own action.declared event.
        if isinstance(e, ActionSpec) and e.ends_in is not None and e.ends_in < window:
            settled += 1
            working += e.kind not in WAITING
    return settled, working


def line_battle(ruleset: str, per_side: int, seed: int, window: int) -> Any:
    """The ruleset's line battle (``segsim.battle.battle``), run for ``window``
    segments at most."""
    from segsim.battle import battle

    return battle(ruleset, per_side, seed=seed, max_segments=window)


def missing_battle(ruleset: str) -> str | None:
    """Why ``ruleset`` has no line battle to measure (None when it has one): none yet,
    or one that cannot be built."""
    try:
        line_battle(ruleset, 1, 0, 10)
    except ValueError as exc:
        if "no line battle" in str(exc):
            return f"no line battle yet (segsim/rules/{ruleset}/battle.py)"
        return f"its line battle cannot be built ({type(exc).__name__}: {str(exc)[:200]})"
    except Exception as exc:
        return f"its line battle cannot be built ({type(exc).__name__}: {str(exc)[:200]})"
    return None


def small_battles(ruleset: str, per_side: int, seeds: Sequence[int], window: int) -> Cost:
    """CPU seconds, actions settled and actions other than waiting of the battles of
    ``per_side`` a side (one per seed), each run for its first ``window`` segments (or
    to its end, if sooner), built, run and freed under the clock."""
    total = 0.0
    settled = working = 0
    for seed in seeds:
        fight = line_battle(ruleset, per_side, seed, window)
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


def scale_round(
    ruleset: str,
    big: int,
    small: int,
    battles: int,
    window: int,
    slices: int,
    budget: float | None = None,
) -> tuple[Cost, Cost, int]:
    """One round of a battle of ``big`` a side against ``battles`` battles of ``small``
    a side (seeds 0..n-1, the same every round): CPU seconds, actions settled and
    actions other than waiting of each, and the window they were timed over.

    The larger battle's window runs in ``slices`` slices, each followed by its share of
    the smaller battles, so that a drift of the machine weighs on both sides alike. With
    a ``budget`` (CPU seconds for the larger battle's window), a window that would take
    longer, judging by the first slice, is cut to what fits (whole slices, at least
    one) before any smaller battle runs: every size is then timed over that window."""
    fight = line_battle(ruleset, big, 0, window)
    gc.collect()
    start = time.process_time()
    done = fight.start()
    step = max(1, window // slices)
    fight.env.run(until=step)
    spent = time.process_time() - start
    whole = window
    if budget is not None and spent * (window / step) > budget:
        window = max(step, int(budget / spent) * step)
    ends = [*range(step, window, step), window]
    share = [list(range(battles))[k :: len(ends)] for k in range(len(ends))]
    mine = [0.0, 0, 0]
    for k, end in enumerate(ends):
        if k:  # the first slice ran above
            start = time.process_time()
            # The last slice runs to the fight's end, unless the window was cut.
            fight.env.run(until=done if end == whole else end)
            spent += time.process_time() - start
        got = small_battles(ruleset, small, share[k], window)
        for i in range(3):
            mine[i] += got[i]
    settled, working = resolved(fight.history, window)
    start = time.process_time()
    del fight, done  # freeing the fight is part of its cost (its done event holds it)
    spent += time.process_time() - start
    return (spent, settled, working), (mine[0], int(mine[1]), int(mine[2])), window


def scale_figures(
    ruleset: str,
    big: int,
    small: int,
    battles: int,
    window: int,
    rounds: int,
    slices: int,
    budget: float | None = None,
) -> dict[str, Any]:
    """The larger battle's cost per action against the smaller ones', all actions and
    actions other than waiting: the medians of the rounds' ratios (:func:`scale_round`),
    and each side's CPU per action over all rounds."""
    ratios: list[tuple[float, float]] = []
    totals = {"big": [0.0, 0, 0], "small": [0.0, 0, 0]}
    for _ in range(rounds):
        large, few, window = scale_round(ruleset, big, small, battles, window, slices, budget)
        budget = None  # the window is the first round's for every round
        for name, cost in (("big", large), ("small", few)):
            for i in range(3):
                totals[name][i] += cost[i]
        ratios.append(
            ((large[0] / large[1]) / (few[0] / few[1]), (large[0] / large[2]) / (few[0] / few[2]))
        )

    def per(name: str) -> dict[str, float]:
        t, s, w = totals[name]
        return {"cpu_per_action": t / s, "cpu_per_working_action": t / w, "actions": s / rounds}

    return {
        "fighters": (2 * big, 2 * small),
        "window": window,
        "rounds": rounds,
        "big": per("big"),
        "small": per("small"),
        "ratio": statistics.median(a for a, _ in ratios),
        "ratio_working": statistics.median(b for _, b in ratios),
    }
