"""Shared helpers for the Loreval rule tests: fights with per-round plans and loaded dice."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from segsim import Fight, LoadedDice
from segsim.events import Event
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.loreval import Loreval

Plan = Any  # a Declaration, None, or a function of the observation


class ByRound:
    """Declares ``plan[round]`` at its declaration step and ``change[round]`` at a
    change step; keeps every observation it was shown at a step."""

    reactive = False

    def __init__(
        self,
        plan: Mapping[int, Plan] | None = None,
        change: Mapping[int, Plan] | None = None,
        default: Plan = None,
        heroic: Mapping[int, Plan] | None = None,
    ) -> None:
        self.plan = dict(plan or {})
        self.change = dict(change or {})
        self.heroic = dict(heroic or {})
        self.default = default
        self.name = "by-round"
        self.steps: list[tuple[int, str, int]] = []  # (round, step, segment)
        self.seen: list[Observation] = []

    def decide(self, obs: Observation) -> Any:
        me = obs.me
        step = me.step
        if step not in ("declare", "change", "heroic"):
            return None
        self.steps.append((me.round, step, obs.segment))
        self.seen.append(obs.freeze())
        table = {"declare": self.plan, "change": self.change, "heroic": self.heroic}[step]
        out = table.get(me.round, self.default if step == "declare" else None)
        return out(obs) if callable(out) else out


def arena(
    fighters: Mapping[str, tuple[str, str | Any, Any]],
    *,
    dice: Iterable[int | tuple[str, int]] = (),
    positions: Mapping[str, tuple[float, float]] | None = None,
    setup: Mapping[str, Mapping[str, Any]] | None = None,
    options: Mapping[str, Any] | None = None,
    rounds: int = 1,
    pcs: Iterable[str] = (),
    **kwargs: Any,
) -> Fight:
    """A Loreval fight of example fighters ``{id: (side, fighter or sheet, policy)}``,
    in contact by default (1.5 m apart), stopped after ``rounds`` rounds; the ids in
    ``pcs`` are player characters."""
    rules = Loreval(**dict(options or {}))
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        sheet = rules.load_sheet(rules.content.fighters[who]) if isinstance(who, str) else who
        pos = (positions or {}).get(cid, (1.5 * i, 0.0))
        specs.append(
            CombatantSpec(
                cid,
                side,
                sheet,
                policy,
                position=pos,
                is_pc=cid in set(pcs),
                setup=(setup or {}).get(cid, {}),
            )
        )
    kwargs.setdefault("max_segments", rules.round_segments * rounds)
    return Fight(rules, specs, dice=LoadedDice(dice), **kwargs)


def of_type(fight: Fight, cls: type[Event], **where: Any) -> list[Any]:
    return [
        e
        for e in fight.history
        if isinstance(e, cls) and all(getattr(e, k) == v for k, v in where.items())
    ]


def types(fight: Fight, prefix: str = "loreval.") -> list[str]:
    return [e.TYPE for e in fight.history if e.TYPE.startswith(prefix)]


Hook = Callable[[Observation], Any]
