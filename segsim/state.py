"""The mutable state of a fight: combatants, their actions in progress, pending completions.

Rulesets read it; only events change it (through :meth:`segsim.events.Event.apply`)
and the engine's own bookkeeping of actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from segsim.actions import Action

if TYPE_CHECKING:
    from segsim.policy import Policy


@attrs.define(eq=False)
class Combatant:
    """One fighter in a fight.

    ``sheet`` is the ruleset's frozen character sheet and ``status`` its mutable state
    (wounds, situation points...). ``actions`` are in progress; ``recent`` are finished
    actions still overlapping something in progress (for simultaneous-action rules).
    """

    id: str
    side: str
    sheet: Any
    status: Any
    policy: Policy
    name: str = ""
    position: tuple[float, float] = (0.0, 0.0)
    is_pc: bool = False
    order: int = 0
    setup: Mapping[str, Any] = attrs.field(factory=dict)
    in_fight: bool = True
    actions: list[Action] = attrs.field(factory=list)
    recent: list[Action] = attrs.field(factory=list)

    @property
    def busy(self) -> bool:
        """Whether some non-continuous action is in progress."""
        return any(not a.continuous for a in self.actions)

    def finish(self, action: Action) -> None:
        """Move an action from in progress to recent, keeping only what still overlaps."""
        self.actions = [a for a in self.actions if a.id != action.id]
        self.recent.append(action)
        # Keep what ended just before the oldest action in progress began, too (a
        # disengage right after a dodge).
        horizon = min(a.start for a in [*self.actions, action]) - 1
        self.recent = [a for a in self.recent if a.last is None or a.last >= horizon]


@attrs.define(eq=False)
class FightState:
    """Everything a ruleset may read about a fight at one moment."""

    combatants: dict[str, Combatant]
    segment: int = 0
    pending: dict[int, list[Action]] = attrs.field(factory=dict)
    next_action_id: int = 1
    cancelled_in: dict[str, int] = attrs.field(factory=dict)
    spawned: list[Action] = attrs.field(factory=list)  # started by the rules, to schedule
    autonomous: dict[int, Action] = attrs.field(factory=dict)  # in flight, by id
    extra: dict[str, Any] = attrs.field(factory=dict)  # ruleset-wide state (dropped weapons)

    def in_fight(self) -> list[Combatant]:
        return [c for c in self.combatants.values() if c.in_fight]

    def opponents(self, cid: str) -> list[Combatant]:
        side = self.combatants[cid].side
        return [c for c in self.combatants.values() if c.in_fight and c.side != side]

    def sides_in_fight(self) -> list[str]:
        seen: dict[str, None] = {}
        for c in self.combatants.values():
            if c.in_fight:
                seen[c.side] = None
        return list(seen)

    def remove(self, cid: str) -> None:
        """Take a combatant out of the fight and drop its actions in progress."""
        c = self.combatants[cid]
        c.in_fight = False
        for a in c.actions:
            if a.end is not None:
                batch = self.pending.get(a.end)
                if batch is not None:
                    batch[:] = [b for b in batch if b.id != a.id]
        c.actions = []
