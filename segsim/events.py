"""Typed, frozen event records: what happened, when, to whom.

Every state change of a fight is an event; the engine applies each event to the fight
state with :meth:`Event.apply` and appends it to the fight's history. Event classes
register under their dotted ``TYPE`` name so a record can be read back.

Its classes are frozen attrs classes of the form the compiled build (``hatch_build.py``)
makes native (``segsim/native.py``): ``attr.s`` with their ``__init__`` written out (its
stores are ``object.__setattr__``, direct stores in the compiled build) and their type
named by :func:`~segsim.eventbase.event_type` after the class, which also gives a
compiled class the frozenness, equality, hash and repr attrs gives the pure one.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import attr

from segsim.actions import Action
from segsim.eventbase import EVENT_TYPES as EVENT_TYPES
from segsim.eventbase import Event as Event
from segsim.eventbase import describe_declared, event_type, maker
from segsim.native import field

if TYPE_CHECKING:
    from segsim.state import FightState

# ---------------------------------------------------------------- engine events


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class ActionDeclared(Event):
    """A combatant declared an action; it starts in segment ``t``."""

    action: int
    kind: str
    target: str | None
    duration: int | None
    ends_in: int | None
    forced: bool = False
    params: Mapping[str, Any] = field(factory=dict)
    declared: Mapping[str, Any] = field(factory=dict)
    """The declaration as made (``kind``, ``target``, ``params``), before the ruleset
    planned it: what a replay declares again."""

    def __init__(
        self,
        t: int,
        actor: Any,
        action: int,
        kind: str,
        target: str | None,
        duration: int | None,
        ends_in: int | None,
        forced: bool = False,
        params: Mapping[str, Any] | None = None,
        declared: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "duration", duration)
        object.__setattr__(self, "ends_in", ends_in)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "params", {} if params is None else params)
        object.__setattr__(self, "declared", {} if declared is None else declared)

    def describe(self) -> str:
        return describe_declared(self)


event_type(ActionDeclared, "action.declared")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class ActionCancelled(Event):
    """A combatant cancelled one of its actions; it counts as resolved in segment ``t``."""

    action: int
    kind: str

    def __init__(self, t: int, actor: Any, action: int, kind: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "kind", kind)

    def describe(self) -> str:
        return f"{self.actor} cancels {self.kind} #{self.action}"


event_type(ActionCancelled, "action.cancelled")


_action_id = attrgetter("id")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class WaitEnded(Event):
    """A wait declared to last until the combatant's way clears ended before its bound:
    ``by``, within its ``clear`` radius, moved away or left the fight. The wait counts
    as resolved in segment ``t``; the combatant declares again at the next segment."""

    action: int
    by: str

    def __init__(self, t: int, actor: Any, action: int, by: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "by", by)

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


event_type(WaitEnded, "wait.ended")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class DieRolled(Event):
    """One die draw, with its purpose: every draw of a fight is in its record."""

    die: str
    value: int
    purpose: str

    def __init__(self, t: int, actor: Any, die: str, value: int, purpose: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "die", die)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "purpose", purpose)

    def describe(self) -> str:
        return f"{self.actor or 'table'} rolls {self.die}: {self.value} ({self.purpose})"


event_type(DieRolled, "die.rolled")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class ActionSpawned(Event):
    """An action the rules start by themselves in the next segment: a projectile in
    flight after a shot. ``action`` is its id (the ruleset takes the next free ones, in
    order); it completes like any action and is resolved in its last segment. It belongs
    to no combatant's actions in progress: it keeps flying whatever its owner does."""

    action: int
    kind: str
    target: str | None
    duration: int
    channel: str
    visible: bool = True
    public: bool = True
    params: Mapping[str, Any] = field(factory=dict)

    def __init__(
        self,
        t: int,
        actor: Any,
        action: int,
        kind: str,
        target: str | None,
        duration: int,
        channel: str,
        visible: bool = True,
        public: bool = True,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "duration", duration)
        object.__setattr__(self, "channel", channel)
        object.__setattr__(self, "visible", visible)
        object.__setattr__(self, "public", public)
        object.__setattr__(self, "params", {} if params is None else params)

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


event_type(ActionSpawned, "action.spawned")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class Moved(Event):
    """A combatant's position changed (metres on the fight's plane)."""

    # float; Any, as a native class's float field would turn a ruleset's int into a
    # float, which a record writes otherwise (the schema says what it is:
    # segsim.schema._EXACT)
    x: Any
    y: Any

    def __init__(self, t: int, actor: Any, x: Any, y: Any) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)

    def apply(self, state: FightState) -> None:
        if self.actor is not None:
            state.move(self.actor, (self.x, self.y))

    def describe(self) -> str:
        return f"{self.actor} moves to ({self.x:g}, {self.y:g})"


event_type(Moved, "combatant.moved")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class OutOfFight(Event):
    """A combatant leaves the fight (incapacitated, dead, fled); its actions are dropped."""

    reason: str

    def __init__(self, t: int, actor: Any, reason: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "reason", reason)

    def apply(self, state: FightState) -> None:
        if self.actor is not None:
            state.remove(self.actor)

    def describe(self) -> str:
        return f"{self.actor} is out of the fight ({self.reason})"


event_type(OutOfFight, "combatant.out")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class CombatantJoined(Event):
    """A combatant joins a running fight (reinforcements) at the start of segment ``t``;
    the event carries everything needed to rebuild it."""

    name: str
    side: str
    is_pc: bool
    # tuple[float, float]; Any, as a native class would refuse the list an account
    # reads back from a record (the schema says what it is: segsim.schema._EXACT)
    position: Any
    policy: str
    reactive: bool
    setup: Mapping[str, Any]
    sheet: Mapping[str, Any]

    def __init__(
        self,
        t: int,
        actor: Any,
        name: str,
        side: str,
        is_pc: bool,
        position: Any,
        policy: str,
        reactive: bool,
        setup: Mapping[str, Any],
        sheet: Mapping[str, Any],
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "is_pc", is_pc)
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "reactive", reactive)
        object.__setattr__(self, "setup", setup)
        object.__setattr__(self, "sheet", sheet)

    def describe(self) -> str:
        return f"{self.actor} ({self.name}, side {self.side}) joins the fight"


event_type(CombatantJoined, "combatant.joined")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class CombatantLeft(OutOfFight):
    """The host took a combatant out of the fight (it fled, or left the map)."""

    def __init__(self, t: int, actor: Any, reason: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "reason", reason)

    def describe(self) -> str:
        return f"{self.actor} leaves the fight ({self.reason})"


event_type(CombatantLeft, "combatant.left")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class FightEnded(Event):
    """The last line of every record: how the fight ended and which side won."""

    outcome: str
    winner: str | None
    # tuple[str, ...]; Any, as a native class would refuse the list an account reads
    # back from a record (the schema says what it is: segsim.schema._EXACT)
    survivors: Any = ()

    def __init__(
        self, t: int, actor: Any, outcome: str, winner: str | None, survivors: Any = ()
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "survivors", survivors)

    def describe(self) -> str:
        who = f"side {self.winner} wins" if self.winner else "no winner"
        return f"fight ends: {self.outcome}, {who}"


event_type(FightEnded, "end")


def die_rolled(t: int, actor: str | None, die: str, value: int, purpose: str) -> DieRolled:
    """``DieRolled(t, actor, die, value, purpose)``, the event of every draw: in the
    compiled build this function, which compiled callers call directly, calls the
    native class's constructor directly; in the pure build it is replaced below by the
    class's maker (the same object, made without a call of the class)."""
    return DieRolled(t, actor, die, value, purpose)


if maker(DieRolled) is not DieRolled:  # the pure build
    globals()["die_rolled"] = maker(DieRolled)
