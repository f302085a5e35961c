"""Who is due next in a large fight, kept from step to step rather than worked out
again over every fighter (Loreval, "Déroulement d'un round de combat").

:func:`segsim.rules.loreval.rounds.next_step` reads every fighter at every step; a
round has two steps a fighter, so a fight of a thousand fighters would read a million
statuses a round. :class:`StepTracker` gives the same answers from what changed since
the last step: the fighters the settled events named (:meth:`StepTracker.touch`), kept
sorted once per round by the order of the round, with pointers past those whose part
of the round is over for good:

* a fighter that has declared in a round stays declared in it;
* once everyone has declared, a fighter not offered a heroic action is never offered
  one later in the round (its points, heroism and grace only go down);
* a fighter resolved stays resolved, unless a heroic action makes it act again, which
  changes its place in the order of resolution (then the order is sorted again).

A new round, or a fighter joining, sorts everything again. The answers are the same as
``next_step``'s (the tests compare both over whole fights).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import attrs

from segsim.native import mypyc_attr
from segsim.rules.loreval.events import RoundStarted
from segsim.rules.loreval.rounds import (
    CHANGE,
    DECLARE,
    HEROIC,
    LOCK,
    RESOLVE,
    _to_resolve,
    may_go_heroic,
    rank_key,
    resolve_key,
    waits_for,
)
from segsim.rules.loreval.status import Status

if TYPE_CHECKING:
    from segsim.events import Event
    from segsim.state import Combatant, FightState

KEY = "loreval.steps"
"""Where a fight's tracker is kept (``state.extra``)."""
CHECK = False
"""Tests set it: every answer is then checked against the scan of every fighter."""
LARGE = 24
"""Fighters from which a fight keeps a tracker (below, a scan of everyone is cheaper)."""


def tracker(state: FightState) -> StepTracker | None:
    """The fight's tracker, made for a large fight (None for a small one) when it
    begins or someone joins it; read from ``state.extra[KEY]`` afterwards."""
    found: StepTracker | None = state.extra.get(KEY)
    if found is None and len(state.combatants) >= LARGE:
        found = state.extra[KEY] = StepTracker()
    return found


_NAMES: dict[type, tuple[str, ...]] = {}

_NO_NAME = frozenset(
    ("int", "bool", "float", "int | None", "bool | None", "float | None", int, bool, float)
)
"""Field types that never hold a fighter's id (a string)."""
_NO_NAME_PREFIXES = ("Mapping[", "dict[", "tuple[", "list[", "set[", "frozenset[", "Sequence[")
"""... nor do collections: a fighter named in one is not a string field's value."""


def _may_name(kind: object) -> bool:
    """Whether a field of this type may hold a fighter's id: any but a number, a truth
    value or a collection (an unknown type may)."""
    if kind in _NO_NAME:
        return False
    return not (isinstance(kind, str) and kind.startswith(_NO_NAME_PREFIXES))


def _names(cls: type) -> tuple[str, ...]:
    """The fields of an event class other than ``t`` and ``actor`` that may name a
    fighter whose status the event changes (a string's; the others never are one:
    a declaration's category, attention, moves and flags are not looked at)."""
    names = _NAMES.get(cls)
    if names is None:
        fields = attrs.fields(cls) if attrs.has(cls) else ()
        names = _NAMES[cls] = tuple(
            f.name for f in fields if f.name not in ("t", "actor") and _may_name(f.type)
        )
    return names


@mypyc_attr(allow_interpreted_subclasses=True)
class StepTracker:
    """The round's order and how far each kind of step has come (see the module)."""

    def __init__(self) -> None:
        self.round = -1
        self.size = -1
        self.order: list[Combatant] = []  # in the fight at the round's start, by rank_key
        self.declare_at = -1  # order[: declare_at + 1] may still declare
        self.heroic_at = -1  # order[: heroic_at + 1] may still be offered a heroic action
        self.resolving: list[Combatant] | None = None  # by resolve_key, once all declared
        self.resolve_keys: dict[str, tuple[int, tuple[int, int, int, int]]] = {}
        self.resolve_at = 0
        self.locks: set[str] = set()
        self.changes: set[str] = set()
        self.unresolved: set[str] = set()
        self.roster = -1  # who was in the fight when ranks were counted
        self.ranks: dict[str, int] = {}
        self.kept = -1  # who was in the fight when the sets above were last cleaned
        self.dirty: set[str] = set()
        # The order of the last round begun, as its start gave it (its RoundStarted,
        # told by touch() or the rules' begin): the round's order a rebuild reads
        # rather than sorting everyone again, while it holds everyone in the fight.
        self.started: tuple[str, ...] = ()
        self.started_round = -1
        self.whole = -1  # who was in the fight when the order was the start's, everyone
        self.everyone = True
        self.generation = 0  # counts the events touched: what was worked out from the
        # fighters' statuses holds while it stays the same (and nobody comes or goes),
        # once they are applied: from state.version settled_at on
        self.settled_at = 0

    def touch(self, state: FightState, events: Iterable[Event]) -> None:
        """The fighters whose status the events may change (an event of no fighter
        changes them all: the round's start and end)."""
        events = list(events)
        self.generation += 1  # self.changing(state, len(events)), without its call
        self.settled_at = state.version + len(events)
        combatants = state.combatants
        dirty = self.dirty
        for e in events:
            actor = e.actor
            if actor is None:
                self.everyone = True
                if type(e) is RoundStarted:
                    self.began(e)
                continue
            dirty.add(actor)
            for name in _names(type(e)):
                value = getattr(e, name)
                if type(value) is str and value in combatants:
                    dirty.add(value)

    def began(self, event: RoundStarted) -> None:
        """A round begins (its event not yet applied): its order kept for the rebuild."""
        self.started = event.order
        self.started_round = event.round

    def changing(self, state: FightState, events: int) -> None:
        """``events`` events are about to be applied (each adds one to the state's
        version): what was worked out before they all are does not hold after."""
        self.generation += 1
        self.settled_at = state.version + events

    def settled(self, state: FightState) -> bool:
        """Whether the events last touched have all been applied."""
        return state.version >= self.settled_at

    def _rebuild(self, state: FightState, rnd: int) -> None:
        fighters = state.against(None)
        self.round = rnd
        self.size = len(state.combatants)
        if (
            self.started_round == rnd
            and len(self.started) == len(fighters)
            and self._from_start(state, rnd)
        ):
            return
        # sorted(fighters, key=rank_key) and the sets below, in one pass: rank_key()'s
        # tuples made here (no call a fighter), then the place in the list (the stable
        # sort's order for equal keys, which the fight's order already rules out)
        keyed: list[tuple[int, int, int, int, int]] = []
        locks: set[str] = set()
        changes: set[str] = set()
        unresolved: set[str] = set()
        place = 0
        for c in fighters:
            status: Status = c.status
            keyed.append(
                (
                    -status.start_points,
                    -c.sheet.characteristics["dexterity"],
                    -status.tie,
                    c.order,
                    place,
                )
            )
            place += 1  # noqa: SIM113
            if status.lock_choice:
                locks.add(c.id)
            if status.change_round == rnd:
                changes.add(c.id)
            if status.resolved_round < rnd:
                unresolved.add(c.id)
        keyed.sort()
        self._kept_sets(state, [fighters[k[4]] for k in keyed], locks, changes, unresolved)
        self.whole = -1

    def _from_start(self, state: FightState, rnd: int) -> bool:
        """:meth:`_rebuild` from the order the round's start gave (its RoundStarted):
        True when it holds everyone in the fight, each with the round's start applied
        (then it is their order by rank_key: the most points, then dexterity, then the
        tie-break dice, which set those of equal points and dexterity apart, as the
        start ordered them), without a sort of everyone (a battle's thousand fighters);
        False, nothing changed, otherwise (someone joined, or the start is not yet
        applied)."""
        combatants = state.combatants
        order: list[Combatant] = []
        locks: set[str] = set()
        changes: set[str] = set()
        unresolved: set[str] = set()
        for cid in self.started:
            c = combatants.get(cid)
            if c is None or not c.in_fight:
                return False
            status: Status = c.status
            if status.round != rnd:
                return False
            order.append(c)
            if status.lock_choice:
                locks.add(cid)
            if status.change_round == rnd:
                changes.add(cid)
            if status.resolved_round < rnd:
                unresolved.add(cid)
        if CHECK:
            assert order == sorted(state.against(None), key=rank_key)
        self._kept_sets(state, order, locks, changes, unresolved)
        self.whole = state.roster  # (the order is the start's ids while nobody comes or goes)
        return True

    def _kept_sets(
        self,
        state: FightState,
        order: list[Combatant],
        locks: set[str],
        changes: set[str],
        unresolved: set[str],
    ) -> None:
        self.order = order
        self.declare_at = self.heroic_at = len(order) - 1
        self.resolving = None
        self.resolve_keys = {}
        self.resolve_at = 0
        self.locks = locks
        self.changes = changes
        self.unresolved = unresolved
        self.roster = -1
        self.kept = state.roster
        self.dirty = set()
        self.everyone = False

    def _refresh(self, state: FightState, rnd: int) -> None:
        if self.everyone or self.round != rnd or self.size != len(state.combatants):
            self._rebuild(state, rnd)
            return
        combatants = state.combatants
        if self.kept != state.roster:  # someone left the fight
            for found in (self.locks, self.changes, self.unresolved):
                found.difference_update([cid for cid in found if not combatants[cid].in_fight])
            self.kept = state.roster
        if not self.dirty:
            return
        keys = self.resolve_keys
        locks, changes, unresolved = self.locks, self.changes, self.unresolved
        for cid in self.dirty:
            c = combatants[cid]
            status: Status = c.status
            here = c.in_fight
            # _mark() of each set, without its calls (twice a step)
            if here and status.lock_choice:
                locks.add(cid)
            else:
                locks.discard(cid)
            if here and status.change_round == rnd:
                changes.add(cid)
            else:
                changes.discard(cid)
            if here and status.resolved_round < rnd:
                unresolved.add(cid)
            else:
                unresolved.discard(cid)
            if here and cid in keys and resolve_key(c) != keys[cid]:
                self.resolving = None  # a heroic action changed the order of resolution
        self.dirty = set()

    def next_step(self, state: FightState, rnd: int) -> tuple[Combatant, str] | None:
        """:func:`segsim.rules.loreval.rounds.next_step`, from what changed."""
        self._refresh(state, rnd)
        combatants = state.combatants
        if self.locks:
            found = [combatants[cid] for cid in self.locks if combatants[cid].in_fight]
            if found:
                return min(found, key=_by_order), LOCK
        if self.changes:
            found = sorted(
                (combatants[cid] for cid in self.changes if combatants[cid].in_fight),
                key=_by_order,
            )
            for c in found:
                if waits_for(state, c, rnd) is None:
                    return c, CHANGE
        order = self.order
        i = self.declare_at
        while i >= 0 and (not order[i].in_fight or order[i].status.declared_round >= rnd):
            i -= 1
        self.declare_at = i
        if i >= 0:
            return order[i], DECLARE
        i = self.heroic_at
        while i >= 0 and not (order[i].in_fight and may_go_heroic(order[i], rnd)):
            i -= 1
        self.heroic_at = i
        if i >= 0:
            return order[i], HEROIC
        resolving = self.resolving
        if resolving is None:
            resolving = self.resolving = sorted(state.against(None), key=resolve_key)
            self.resolve_keys = {c.id: resolve_key(c) for c in resolving}
            self.resolve_at = 0
        i = self.resolve_at
        n = len(resolving)
        while i < n and (not resolving[i].in_fight or resolving[i].status.resolved_round >= rnd):
            i += 1
        self.resolve_at = i
        while i < n:
            c = resolving[i]
            if c.in_fight and _to_resolve(state, c, rnd):
                return c, RESOLVE
            i += 1
        return None

    def waiting(
        self, state: FightState, rnd: int
    ) -> tuple[set[str], list[Combatant], int, set[str]]:
        """Who may still hold the round up, as the statuses applied say: the fighters
        with a lock choice to make, the first ``n`` of the round's order (returned as
        the order and ``n``: no copy), who may still declare, and those not resolved
        (:meth:`Settlement.round_over` looks at them rather than at every fighter; each
        may have left the fight)."""
        self._refresh(state, rnd)
        order = self.order
        i = self.declare_at
        while i >= 0 and (not order[i].in_fight or order[i].status.declared_round >= rnd):
            i -= 1
        self.declare_at = i
        return self.locks, order, i + 1, self.unresolved

    def steps_left(self, state: FightState, rnd: int) -> int:
        """:func:`segsim.rules.loreval.rounds.steps_left`, from what changed."""
        self._refresh(state, rnd)
        unresolved = self.unresolved
        return len(unresolved) - sum(1 for cid in self.changes if cid in unresolved)

    def rank(self, state: FightState, c: Combatant, rnd: int) -> int:
        """How many fighters in the fight come before ``c`` in the round's order."""
        self._refresh(state, rnd)
        if self.roster != state.roster:
            if self.whole == state.roster:
                # the order its start gave, everyone still in the fight: the places
                # counted in C (a battle's thousand fighters)
                ids = self.started
                self.ranks = dict(zip(ids, range(len(ids)), strict=True))
            else:
                ranks = self.ranks = {}
                n = 0
                for o in self.order:
                    if o.in_fight:
                        ranks[o.id] = n
                        n += 1
            self.roster = state.roster
        return self.ranks[c.id]


def _by_order(c: Combatant) -> int:
    return c.order
