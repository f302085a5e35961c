"""Typed, frozen event records: what happened, when, to whom.

Every state change of a fight is an event; the engine applies each event to the fight
state with :meth:`Event.apply` and appends it to the fight's history. Event classes
register under their dotted ``TYPE`` name so a record can be read back.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from segsim.actions import Action
from segsim.eventbase import EVENT_TYPES as EVENT_TYPES
from segsim.eventbase import Event as Event
from segsim.eventbase import describe_declared

if TYPE_CHECKING:
    from segsim.state import FightState

# ---------------------------------------------------------------- engine events


@attrs.frozen
class ActionDeclared(Event):
    """A combatant declared an action; it starts in segment ``t``."""

    TYPE: ClassVar[str] = "action.declared"

    action: int
    kind: str
    target: str | None
    duration: int | None
    ends_in: int | None
    forced: bool = False
    params: Mapping[str, Any] = attrs.field(factory=dict)
    declared: Mapping[str, Any] = attrs.field(factory=dict)
    """The declaration as made (``kind``, ``target``, ``params``), before the ruleset
    planned it: what a replay declares again."""

    def describe(self) -> str:
        return describe_declared(self)


@attrs.frozen
class ActionCancelled(Event):
    """A combatant cancelled one of its actions; it counts as resolved in segment ``t``."""

    TYPE: ClassVar[str] = "action.cancelled"

    action: int
    kind: str

    def describe(self) -> str:
        return f"{self.actor} cancels {self.kind} #{self.action}"


_action_id = attrgetter("id")


@attrs.frozen
class WaitEnded(Event):
    """A wait declared to last until the combatant's way clears ended before its bound:
    ``by``, within its ``clear`` radius, moved away or left the fight. The wait counts
    as resolved in segment ``t``; the combatant declares again at the next segment."""

    TYPE: ClassVar[str] = "wait.ended"

    action: int
    by: str

    def apply(self, state: FightState) -> None:
        c = state.combatants[self.actor] if self.actor is not None else None
        if c is None:
            return
        for a in c.actions:
            if a.id == self.action:
                if a.end is not None:
                    batch = state.pending.get(a.end)
                    if batch is not None:
                        # Found by id in C: a battle's batch holds hundreds of actions.
                        ids = list(map(_action_id, batch))
                        found = ids.count(a.id)
                        if found == 1:
                            del batch[ids.index(a.id)]
                        elif found:
                            batch[:] = [b for b in batch if b.id != a.id]
                c.finish(a.ended_at(self.t))
                return

    def describe(self) -> str:
        return f"{self.actor} stops waiting (#{self.action}): {self.by} cleared the way"


@attrs.frozen
class DieRolled(Event):
    """One die draw, with its purpose: every draw of a fight is in its record."""

    TYPE: ClassVar[str] = "die.rolled"

    die: str
    value: int
    purpose: str

    def describe(self) -> str:
        return f"{self.actor or 'table'} rolls {self.die}: {self.value} ({self.purpose})"


@attrs.frozen
class ActionSpawned(Event):
    """An action the rules start by themselves in the next segment: a projectile in
    flight after a shot. ``action`` is its id (the ruleset takes the next free ones, in
    order); it completes like any action and is resolved in its last segment. It belongs
    to no combatant's actions in progress: it keeps flying whatever its owner does."""

    TYPE: ClassVar[str] = "action.spawned"

    action: int
    kind: str
    target: str | None
    duration: int
    channel: str
    visible: bool = True
    public: bool = True
    params: Mapping[str, Any] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        spawned = Action(
            id=self.action,
            actor=self.actor,
            kind=self.kind,
            start=self.t + 1,
            duration=self.duration,
            channel=self.channel,
            target=self.target,
            visible=self.visible,
            public=self.public,
            params=self.params,
        )
        state.next_action_id = max(state.next_action_id, self.action + 1)
        state.autonomous[spawned.id] = spawned
        state.spawned.append(spawned)

    def describe(self) -> str:
        target = f" toward {self.target}" if self.target else ""
        return f"{self.actor}'s {self.kind}{target}: arrives in {self.t + self.duration}"


@attrs.frozen
class Moved(Event):
    """A combatant's position changed (metres on the fight's plane)."""

    TYPE: ClassVar[str] = "combatant.moved"

    x: float
    y: float

    def apply(self, state: FightState) -> None:
        if self.actor is not None:
            state.move(self.actor, (self.x, self.y))

    def describe(self) -> str:
        return f"{self.actor} moves to ({self.x:g}, {self.y:g})"


@attrs.frozen
class OutOfFight(Event):
    """A combatant leaves the fight (incapacitated, dead, fled); its actions are dropped."""

    TYPE: ClassVar[str] = "combatant.out"

    reason: str

    def apply(self, state: FightState) -> None:
        if self.actor is not None:
            state.remove(self.actor)

    def describe(self) -> str:
        return f"{self.actor} is out of the fight ({self.reason})"


@attrs.frozen
class CombatantJoined(Event):
    """A combatant joins a running fight (reinforcements) at the start of segment ``t``;
    the event carries everything needed to rebuild it."""

    TYPE: ClassVar[str] = "combatant.joined"

    name: str
    side: str
    is_pc: bool
    position: tuple[float, float]
    policy: str
    reactive: bool
    setup: Mapping[str, Any]
    sheet: Mapping[str, Any]

    def describe(self) -> str:
        return f"{self.actor} ({self.name}, side {self.side}) joins the fight"


@attrs.frozen
class CombatantLeft(OutOfFight):
    """The host took a combatant out of the fight (it fled, or left the map)."""

    TYPE: ClassVar[str] = "combatant.left"

    def describe(self) -> str:
        return f"{self.actor} leaves the fight ({self.reason})"


@attrs.frozen
class FightEnded(Event):
    """The last line of every record: how the fight ended and which side won."""

    TYPE: ClassVar[str] = "end"

    outcome: str
    winner: str | None
    survivors: tuple[str, ...] = ()

    def describe(self) -> str:
        who = f"side {self.winner} wins" if self.winner else "no winner"
        return f"fight ends: {self.outcome}, {who}"
