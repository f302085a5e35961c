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
    dealt: Counter[str] = Counter()
    kinds: dict[int, str] = {}
    resolved: dict[int, tuple[bool, str]] = {}  # action: (a ``result`` said it, how)
    for ev in fight.history:
        if ev.TYPE in ("action.declared", "action.spawned"):
            kinds[getattr(ev, "action", -1)] = str(getattr(ev, "kind", "?"))
            declared = ev.TYPE == "action.declared" and not getattr(ev, "forced", False)
            if declared and ev.actor is not None:
                actions[side_of[ev.actor]] += 1
            continue
        action = getattr(ev, "action", None)
        if isinstance(action, int) and action in kinds and ev.TYPE != "action.cancelled":
            how = _outcome(ev)
            if how and not resolved.get(action, (False, ""))[0]:
                resolved[action] = (isinstance(getattr(ev, "result", None), str), how)
        attacker = getattr(ev, "attacker", None)
        if ev.actor is not None and attacker is not None:
            dmg = getattr(ev, "damage", None)
            if isinstance(dmg, int):
                damage[side_of[ev.actor]] += dmg
                dealt[str(attacker)] += dmg
    outcomes = Counter((kinds[a], how) for a, (_, how) in resolved.items())
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
        None,
        tuple((k, how, n) for (k, how), n in sorted(outcomes.items())),
        tuple(sorted(dealt.items())),
    )


def _outcome(event: object) -> str:
    """How an action resolved, in its ruleset's words: a ``result`` text, else
    success or failure."""
    result = getattr(event, "result", None)
    if isinstance(result, str) and result:
        return result
    success = getattr(event, "success", None)
    if isinstance(success, bool):
        return "success" if success else "failure"
    return ""
