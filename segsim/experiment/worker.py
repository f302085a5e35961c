"""Running one chunk of fights (in a worker process, a Ray task or here)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import attrs

from segsim.errors import SegsimError
from segsim.experiment.design import Arm, FightResult, ScenarioText, _build, _sides, fight_seed
from segsim.fight import Fight
from segsim.scenario import Scenario


@attrs.frozen
class Task:
    """Fights ``start .. stop-1`` of one arm: the unit of work sent to a worker."""

    scenario: ScenarioText
    arm: Arm
    seed: int
    start: int
    stop: int
    block: int
    arm_index: int


def run_task(task: Task) -> list[FightResult]:
    """Run a task's fights in order (in a worker, a Ray task or the calling process)."""
    scenario = task.scenario.load()
    sides = _sides(scenario)
    side_of = {c.id: c.side for c in scenario.combatants}
    return [
        run_one(scenario, task.arm, task.seed, i, sides, side_of)
        for i in range(task.start, task.stop)
    ]


def run_one(
    scenario: Scenario,
    arm: Arm,
    master_seed: int,
    index: int,
    sides: Sequence[str],
    side_of: Mapping[str, str],
) -> FightResult:
    """One fight; an error in it becomes a result with ``error`` set, not an exception."""
    seed = fight_seed(master_seed, index)
    fight: Fight | None = None
    try:
        fight = _build(scenario, arm, seed)
        outcome = fight.run()
    except Exception as exc:
        message = str(exc) if isinstance(exc, SegsimError) else f"{type(exc).__name__}: {exc}"
        segments = fight.segment if fight is not None else 0
        return FightResult(arm.label, index, seed, "error", None, segments, (), (), message)
    damage: Counter[str] = Counter()
    actions: Counter[str] = Counter()
    for ev in fight.history:
        if ev.TYPE == "action.declared":
            if not getattr(ev, "forced", False) and ev.actor is not None:
                actions[side_of[ev.actor]] += 1
        elif ev.actor is not None and hasattr(ev, "attacker"):
            dmg = getattr(ev, "damage", None)
            if isinstance(dmg, int):
                damage[side_of[ev.actor]] += dmg
    last = fight.history[-1].t
    return FightResult(
        arm.label,
        index,
        seed,
        outcome.result,
        outcome.winner,
        last + 1,
        tuple((s, damage[s]) for s in sides),
        tuple((s, actions[s]) for s in sides),
    )
