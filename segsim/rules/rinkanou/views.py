"""What a RinKaNou fighter sees: its own full state, others' public state.

An opponent's started action, its start segment and its motion class (weapon motion,
movement) are public; its kind, target and end are hidden until it resolves, unless it is
public by nature (a forced lock) or the observer has read it (RULES-NOTES,
"Observability").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, TypeVar

import attrs

from segsim.actions import Action, DeclarationLike
from segsim.eventbase import maker, slot_init
from segsim.native import python_class
from segsim.observation import LiveView, live, live_attr
from segsim.rules.rinkanou.content import Sheet, Weapon
from segsim.rules.rinkanou.manoeuvres import REACH_TOLERANCE
from segsim.rules.rinkanou.situation import ps_limits

if TYPE_CHECKING:
    from segsim.rules.rinkanou.ruleset import RinKaNou
    from segsim.state import Combatant, FightState

MOTION = {
    "arm": "weapon",
    "strike": "weapon",
    "parry": "weapon",
    "lock": "weapon",
    "dodge": "movement",
    "reposition": "movement",
    "disengage": "movement",
    "move": "movement",
    "ready": "weapon",
    "shoot": "weapon",
    "draw": "weapon",
    "regrip": "weapon",
    "pick_up": "movement",
    "keep": "weapon",
    "projectile": "projectile",
}
"""Visible motion class of each action kind (a strike and a parry both start by arming)."""


class _Placed(Protocol):
    @property
    def position(self) -> tuple[float, float]: ...


P = TypeVar("P", bound=_Placed)


def closest(here: tuple[float, float], items: Iterable[P]) -> P | None:
    """The item nearest to ``here`` (the first of those at the same distance), or None."""
    best: P | None = None
    best_d = math.inf
    for item in items:
        d = math.dist(here, item.position)
        if d < best_d:
            best, best_d = item, d
    return best


@attrs.frozen(weakref_slot=False)  # (no weak reference: a class of the same layout, its
class SeenAction:  # twin, can then make one without a call of the class: see maker)
    """Another fighter's action as an observer sees it; hidden fields are None."""

    id: int
    start: int
    motion: str
    kind: str | None = None
    target: str | None = None
    ends_in: int | None = None


# Built per action seen (and per read one): the cheaper slot-storing __init__.
SeenAction.__init__ = slot_init(SeenAction) or SeenAction.__init__  # type: ignore[method-assign]
_seen_action = maker(SeenAction)  # SeenAction(...), without a call of the class


_Nearest = tuple["Combatant", tuple[str, tuple[float, float]]] | tuple[None, None]
"""The nearest opponent in view, and its id and position as it stood (or no one)."""


@python_class
class SelfView(LiveView):
    """The deciding fighter's own state, read from the live fight state on demand."""

    __slots__ = (
        "_c",
        "_first",
        "_incoming",
        "_near",
        "_nearest_o",
        "_opponents",
        "_rules",
        "_threats",
        "actions",
        "armed",
        "must_lock",
        "position",
        "reach",
        "sheet",
        "side",
        "weapon",
        "weapon_pr",
    )
    _fixed: ClassVar[tuple[str, ...]] = (
        *("id", "side", "sheet", "reach"),
        *("position", "armed", "must_lock", "weapon_pr", "actions"),
    )

    def __init__(self, state: FightState, segment: int, rules: RinKaNou, c: Combatant) -> None:
        # LiveView's phase, set here rather than by a call of its __init__ (the compiled
        # build would call it as interpreted code, once a view).
        self._state = state
        self._version = state.version
        self._segment = segment
        self.side = c.side
        # What nearly every decision reads, copied now (cheaper than a field's first
        # read): plain values, true of this phase for good.
        self.position: tuple[float, float] = c.position
        status = c.status
        self.armed: bool = status.armed
        self.must_lock: bool = status.must_lock
        self.weapon_pr: int = status.weapon_pr
        self.actions: tuple[Action, ...] = tuple(c.actions)
        self.sheet: Sheet = (sheet := c.sheet)
        self.weapon: Weapon = sheet.weapon  # the sheet's contact weapon
        # Its weapon's reach, in metres (the rules say), asked once per fighter.
        reach = rules._fighter_reaches.get(c)
        self.reach: float = reach if reach is not None else reach_of(rules, c)
        self._rules = rules
        self._c = c
        # The opponents in view, found once (with no awareness radius, everyone's: the
        # state's list, when it has one already).
        self._opponents: list[Combatant] | None = (
            state._against.get(c.side) if rules.awareness is None else None
        )
        self._threats: tuple[OtherView, ...] | None = None
        # Nothing in flight (most fights): no missile to look for, now or later.
        self._incoming: tuple[SeenAction, ...] | None = None if state.autonomous else ()
        self._near: OtherView | Literal[False] | None = False  # nearest()'s (False: unknown)
        self._nearest_o: _Nearest | None = None  # the nearest, once found
        self._first: OtherView | None = None  # the first other's view built

    # Caches a duel's decisions seldom fill: in the view's dictionary once found, these
    # class-wide defaults until then (not set on each view).
    _in_view: list[Combatant] | None = None  # everyone in view, found once
    _foe: tuple[str | None] | None = None  # nearest_foe()'s
    _foes: tuple[OtherView, ...] | None = None  # foes()'
    _views: dict[str, OtherView] | None = None  # the others' views after the first

    @property
    def id(self) -> str:
        """Its id (the observation's ``actor``: asked when read, as the built-in policies
        seldom do)."""
        return self._c.id

    def _seen(self) -> list[Combatant]:
        """The opponents in view, in the fight's order (found on first use)."""
        found = self._opponents
        if found is None:
            rules = self._rules
            if rules.awareness is None:  # all in view: the state's list (do not modify it)
                state = self._state
                kept = state._against.get(self.side)  # FightState.against(), without its call
                found = self._opponents = kept if kept is not None else state.against(self.side)
            else:
                found = self._opponents = rules._opponents_in_view(
                    self._state, self._c, self._in_view
                )
        return found

    def _others(self) -> tuple[OtherView, ...]:
        """The views of everyone else in view (the observation's ``others``)."""
        in_view = self._in_view
        if in_view is None:
            in_view = self._in_view = self._rules._in_view(self._state, self._c)
        me, view = self._c, self._view
        return tuple([view(o) for o in in_view if o is not me])

    def _other(self, oid: str) -> OtherView | None:
        """The view of another fighter in view by id, or None (the observation's
        ``other()``)."""
        o = self._state.combatants.get(oid)
        me = self._c
        if o is None or o is me or not o.in_fight or not self._rules._sees(me, o):
            return None
        return self._view(o)

    def _legal(self) -> tuple[DeclarationLike, ...]:
        """The declarations the ruleset would accept now (the observation's ``legal()``)."""
        return self._rules._legal(self._state, self.id, self._segment)

    # Fields read straight from the fight state (without a Python call on first read).
    ps: live[SelfView, int] = live_attr("_c.status.ps")  # Points de situation: the score.

    @live
    def usable_ps(self) -> int:
        """What is left of a positive score for a new action now."""
        return self._rules.usable_ps(self._state, self._c, None)

    # Opponents taken into account.
    engaged: live[SelfView, tuple[str, ...]] = live_attr("_c.status.engaged")

    @live
    def ps_against(self) -> Mapping[str, int]:
        """The score as it applies against each opponent in view."""
        seen = self._opponents  # found already, most often: no call
        return self._rules._ps_against(
            self._state, self._c, seen if seen is not None else self._seen()
        )

    wounds: live[SelfView, int] = live_attr("_c.status.wounds")
    wound_level: live[SelfView, str] = live_attr("_c.status.wound_level")
    wound_malus: live[SelfView, int] = live_attr("_c.status.wound_malus")
    surprise_malus: live[SelfView, int] = live_attr("_c.status.surprise_malus")
    shield_pr: live[SelfView, int] = live_attr("_c.status.shield_pr")
    disengaged: live[SelfView, bool] = live_attr("_c.status.disengaged")
    # Points de commandement (PC).
    command_points: live[SelfView, int] = live_attr("_c.status.command_points")
    wielding: live[SelfView, str] = live_attr("_c.status.wielding")  # "melee" or "ranged".
    loaded: live[SelfView, bool] = live_attr("_c.status.loaded")
    # Its stance: whether it opposes an opponent's disengage (text 004).
    oppose_disengage: live[SelfView, bool] = live_attr("_c.status.oppose_disengage")
    grip: live[SelfView, str] = live_attr("_c.status.grip")
    shield_aside: live[SelfView, bool] = live_attr("_c.status.shield_aside")

    def nearest_foe(self) -> str | None:
        """The nearest opponent, seen or not: where the enemy is (asked for, not built
        with every observation)."""
        foe = self._foe
        if foe is None:
            self.check()
            found = self._rules._nearest(self._state, self._c, self._seen(), 1)
            foe = self._foe = (found[0] if found else None,)
        return foe[0]

    def _view(self, o: Combatant) -> OtherView:
        """The view of another fighter ``o`` in this phase: one per fighter, however it
        was found (``others``, ``other()``, ``foes()``, ``threats()``, ``nearest()``)."""
        first = self._first
        views = None  # the others' after the first (a duel's needs no dictionary)
        if first is not None:
            if first._o is o:
                return first
            views = self._views
            if views is None:
                views = self._views = {}
            else:
                view = views.get(o.id)
                if view is not None:
                    return view
        # OtherView(self._state, self._segment, o, self._c.status.revealed, self._rules),
        # without a call of its class (the same stores as its __init__, which
        # tests/test_observation.py checks they match).
        view = _new_other_view(OtherView)
        view._state = state = self._state
        view._version = state.version
        view._segment = self._segment
        view.id = o.id
        view.position = o.position
        view.armed = o.status.armed
        view.weapon = o.sheet.weapon
        view._o = o
        view._rules = self._rules
        view._revealed = self._c.status.revealed
        view._actions = None
        if views is None:
            self._first = view
        else:
            views[o.id] = view
        return view

    def foes(self) -> tuple[OtherView, ...]:
        """The opponents in view, in the fight's order: the views ``others`` holds of
        the other sides, without building those of allies (most of a crowd)."""
        foes = self._foes
        if foes is None:
            if self._state.version != self._version:
                self.check()  # raises
            view = self._view
            foes = self._foes = tuple([view(o) for o in self._seen()])
        return foes

    def threats(self) -> tuple[OtherView, ...]:
        """The opponents in view within their own weapon's reach of this fighter, in the
        fight's order: those whose blows could land on it. Only their views are built (a
        fighter at the edge of a crowd sees several, of which one or two can strike it).
        """
        threats = self._threats
        if threats is None:
            if self._state.version != self._version:
                self.check()  # raises
            seen = self._opponents
            if seen is None:
                seen = self._seen()
            rules = self._rules
            if len(seen) == 1:  # a duel: one opponent, the nearest (positions are finite)
                o = seen[0]
                reach = rules._fighter_reaches.get(o)
                if reach is None:
                    reach = reach_of(rules, o)
                if math.dist(o.position, self.position) <= reach + REACH_TOLERANCE:
                    only = self._view(o)
                    threats = self._threats = (only,)
                    if self._near is False:
                        self._near = only
                else:
                    threats = self._threats = ()
                    if self._near is False and self._nearest_o is None:
                        self._nearest_o = (o, (o.id, o.position))
                return threats
            here, reaches, dist = self.position, rules._fighter_reaches, math.dist
            found: list[OtherView] = []
            # The nearest comes with the same distances (closest(): the first of equals).
            best: Combatant | None = None
            best_view: OtherView | None = None
            best_d = math.inf
            for o in seen:
                d = dist(o.position, here)
                reach = reaches.get(o)
                if reach is None:
                    reach = reach_of(rules, o)
                if d <= reach + REACH_TOLERANCE:  # within(), as on the view
                    view = self._view(o)
                    found.append(view)
                    if d < best_d:
                        best, best_view, best_d = o, view, d
                elif d < best_d:
                    best, best_view, best_d = o, None, d
            threats = self._threats = tuple(found)
            if self._near is False:
                if best is None or best_view is not None:  # nearest() has its answer
                    self._near = best_view
                elif self._nearest_o is None:  # its view is built if it is asked for
                    self._nearest_o = (best, (best.id, best.position))
        return threats

    def incoming(self) -> tuple[SeenAction, ...]:
        """The missiles in flight toward this fighter that it makes out, as it sees them
        (those of the opponents in view, in the fight's order; see ``OtherView.incoming``).
        With nothing in flight when the view was made, none: that stays true after its
        phase."""
        incoming = self._incoming
        if incoming is None:
            state = self._state
            if state.version != self._version:
                self.check()  # raises
            rules = self._rules
            if not state.autonomous:
                flying = None
            elif rules.awareness is None and (coming := _coming(state, rules, self._c)):
                # All in view: what every fighter at whom the same missiles fly sees.
                self._incoming = coming[0]
                return coming[0]
            else:
                flying = _flying(state, rules)
            if not flying:
                incoming = self._incoming = ()  # nothing in flight
            else:
                # Each shooter's missiles at this fighter, as seen_actions() shows them
                # (its actions, which are never missiles, need not be looked at): a
                # missile is public, so every observer sees the same shared value; a
                # hidden shooter shows nothing.
                cid = self._c.id
                shared = self._rules._seen_actions
                found: list[SeenAction] = []  # (a plain loop: no comprehension's frame)
                for o in self._seen():
                    missiles = flying.get(o.id)
                    if missiles is None or o.setup.get("hidden", False):
                        continue
                    mark = len(found)
                    for a in missiles:
                        if a.target != cid or not a.visible or a.kind != "projectile":
                            continue
                        if not a.public:  # (none is) what the observer has read counts
                            del found[mark:]
                            found += self._view(o)._incoming(cid, flying)
                            break
                        entry = shared.get(a.id)
                        if entry is None or entry[0] is not a:
                            if len(shared) >= SHARED_SEEN:
                                shared.clear()
                            entry = shared[a.id] = (a, _seen_by_all(a))
                        found.append(entry[1])
                incoming = self._incoming = tuple(found)
        return incoming

    def nearest(self) -> OtherView | None:
        """The nearest opponent in view (ties: the fight's order), or None. Only its
        view is built."""
        near = self._near
        if near is False:
            if self._state.version != self._version:
                self.check()  # raises: its view would show the fight as it is now
            found = self._nearest_o  # by threats() or nearest_at()
            if found is None:
                found = self._find_nearest()
            nearest = found[0]
            near = self._near = None if nearest is None else self._view(nearest)
        return near

    def nearest_at(self) -> tuple[str, tuple[float, float]] | None:
        """The id and position of the nearest opponent in view (``nearest()``'s), or
        None, without building its view: what a policy that only strikes it, or walks to
        it, reads of it."""
        found = self._nearest_o
        if found is None:
            near = self._near
            if near is not False:  # its view is built
                return None if near is None else (near.id, near.position)
            # self._find_nearest(), what it does without its call
            if self._state.version != self._version:
                self.check()  # raises
            seen = self._opponents
            if seen is None:
                seen = self._seen()
            o = seen[0] if len(seen) == 1 else closest(self.position, seen)
            found = self._nearest_o = (None, None) if o is None else (o, (o.id, o.position))
        return found[1]

    def _nearest_reach(self) -> tuple[str, tuple[float, float], float] | None:
        """The id, position and reach of the nearest opponent in view (``nearest()``'s),
        or None, without building its view: what the keeper reads of it."""
        found = self._nearest_o
        if found is None:
            near = self._near
            if near is not False:  # its view is built
                return None if near is None else (near.id, near.position, near.reach)
            found = self._find_nearest()
        o, at = found
        if o is None or at is None:
            return None
        reach = self._rules._fighter_reaches.get(o)
        if reach is None:
            reach = reach_of(self._rules, o)
        return at[0], at[1], reach

    def _find_nearest(self) -> _Nearest:
        """The nearest opponent in view and its id and position, found once."""
        if self._state.version != self._version:
            self.check()  # raises
        seen = self._opponents
        if seen is None:
            seen = self._seen()
        # A duel: no distance to compare (positions are finite).
        o = seen[0] if len(seen) == 1 else closest(self.position, seen)
        found = self._nearest_o = (None, None) if o is None else (o, (o.id, o.position))
        return found

    def freeze(self) -> SelfView:
        self.nearest_foe()
        self.nearest()
        self.threats()
        self.incoming()
        for foe in self.foes():
            foe.freeze()
        return super().freeze()

    def ps_limits(self, kind: str, duration: int | None = None) -> dict[str, int]:
        """The most of each PS spend and buy a new ``kind`` action could take now.

        ``duration`` defaults to the action's usual one (weapon speed, 3 for a dodge...).
        A negative score must be bought back first: see ``ps_against``.
        """
        usual = {"strike": self.weapon.speed, "dodge": 3, "reposition": 5, "disengage": 10}
        if kind == "parry":
            usual["parry"] = self.weapon.speed if self.armed else 2 * self.weapon.speed
        return ps_limits(
            kind=kind,
            duration=duration if duration is not None else usual.get(kind),
            rolled=kind in ("strike", "parry", "dodge", "reposition", "disengage", "read"),
            sheet=self.sheet,
            weapon_used=kind in ("strike", "parry"),
            usable=self.usable_ps,
        )

    def doing(self, channel: str) -> Action | None:
        """The non-continuous action in progress in a channel ("hands", "legs"...)."""
        for a in self.actions:
            if a.channel == channel and not a.continuous:
                return a
        return None


@python_class
class OtherView(LiveView):
    """Another fighter as one observer sees it: public state, and its actions with
    what the observer has read of them."""

    __slots__ = (
        "_actions",
        "_o",
        "_revealed",
        "_rules",
        "armed",
        "id",
        "position",
        "weapon",
    )
    _fixed: ClassVar[tuple[str, ...]] = (
        *("id", "side", "weapon", "has_shield", "reach"),
        *("position", "armed", "actions"),
    )

    def __init__(
        self,
        state: FightState,
        segment: int,
        o: Combatant,
        revealed: Mapping[int, tuple[str, str | None, int | None]],
        rules: RinKaNou,
    ) -> None:
        self._state = state  # LiveView's phase (as SelfView's)
        self._version = state.version
        self._segment = segment
        self.id = o.id
        # Read by most of those who look at it, copied now (as SelfView's).
        self.position: tuple[float, float] = o.position
        self.armed: bool = o.status.armed
        self.weapon: Weapon = o.sheet.weapon
        self._o = o
        self._rules = rules
        self._revealed = revealed
        self._actions: tuple[SeenAction, ...] | None = None  # found on first read

    @property
    def has_shield(self) -> bool:
        """Whether it carries a shield (its sheet's, which a fight does not change: asked
        when read, true after the view's phase too)."""
        return self._o.sheet.shield is not None

    # What a fight does not change, asked when read (the built-in policies seldom do).
    @property
    def side(self) -> str:
        """Its side."""
        return self._o.side

    @property
    def reach(self) -> float:
        """Its weapon's reach, in metres (the rules say: see :data:`Reaches`)."""
        return reach_of(self._rules, self._o)

    wound_level: live[OtherView, str] = live_attr("_o.status.wound_level")
    wielding: live[OtherView, str] = live_attr("_o.status.wielding")
    grip: live[OtherView, str] = live_attr("_o.status.grip")

    @property
    def actions(self) -> tuple[SeenAction, ...]:
        """Its actions as the observer sees them, found on first read and kept, as a
        live field is (read first after the view's phase: StaleObservation)."""
        actions = self._actions
        if actions is None:
            if self._state.version != self._version:
                self.check()  # raises
            actions = self._actions = seen_actions(
                self._state, self._o, self._revealed, self._rules
            )
        return actions

    def freeze(self) -> OtherView:
        self.actions  # noqa: B018 - read now, to keep
        return super().freeze()

    def incoming(self, me: str) -> list[SeenAction]:
        """Its missiles in flight toward ``me``."""
        state = self._state
        if state.version == self._version and (
            not state.autonomous or not _flying(state, self._rules).get(self._o.id)
        ):
            return []  # nothing in flight: its other actions need not be looked at
        # In flight, or a view past its phase: what it showed (or StaleObservation).
        return [a for a in self.actions if a.kind == "projectile" and a.target == me]

    def _incoming(self, me: str, flying: Mapping[str, list[Action]]) -> list[SeenAction]:
        """:meth:`incoming` in the view's phase, with the missiles in flight by shooter
        (``flying``) found already (by the observer's view, which checked the phase)."""
        actions = self._actions
        if actions is None:
            actions = self._actions = seen_actions(
                self._state, self._o, self._revealed, self._rules, flying
            )
        found: list[SeenAction] = []  # (a plain loop: no comprehension's frame)
        for a in actions:
            if a.kind == "projectile" and a.target == me:
                found.append(a)
        return found

    def motion(self, motion: str) -> SeenAction | None:
        """Its action of that motion class ("weapon", "movement"...), or None."""
        actions = self._actions
        if actions is None:  # its actions property, without its call
            if self._state.version != self._version:
                self.check()  # raises
            actions = self._actions = seen_actions(
                self._state, self._o, self._revealed, self._rules
            )
        for a in actions:
            if a.motion == motion:
                return a
        return None


# Another fighter's view made without calling its class (by its own __new__:
# object.__new__ in the pure build).
_new_other_view = OtherView.__new__

Reaches = dict["Combatant", float]
"""Each fighter's reach, in metres, as the rules give it (``RinKaNou.reach``, which a
ruleset may override), asked once per fighter (a fighter keeps its sheet for the whole
fight): a ruleset's own, not a fight's state, since the value is the sheet's whichever
fight asks. It holds no reference to the ruleset, which holds it (no cycle for the
garbage collector)."""


def reach_of(rules: RinKaNou, c: Combatant) -> float:
    """``c``'s reach, from the ruleset's :data:`Reaches` or asked of it the first time."""
    reaches = rules._fighter_reaches
    reach = reaches.get(c)
    if reach is None:
        if len(reaches) >= KNOWN_FIGHTERS:
            reaches.clear()  # a bound, should no fight's start clear it
        reach = reaches[c] = rules.reach(c.sheet)
    return reach


KNOWN_FIGHTERS = 1 << 16
"""How many fighters' reaches a ruleset keeps at most."""


SHARED_SEEN = 4096
"""How many actions' shared :class:`SeenAction` a ruleset keeps at most (a bound on a
long battle's memory; an action seen again after a clear-out gets an equal value)."""

SharedSeen = dict[int, tuple[Action, SeenAction]]
"""What every observer who has not read an action sees of it, by action id; the entry
keeps the action, whose identity tells one fight's action from another's of the same id
(or from its own cancelled form, a new object)."""


def seen_actions(
    state: FightState,
    o: Combatant,
    revealed: Mapping[int, tuple[str, str | None, int | None]],
    rules: RinKaNou,
    in_flight: Mapping[str, list[Action]] | None = None,
) -> tuple[SeenAction, ...]:
    """``o``'s actions (and its missiles in flight) as an observer who has read
    ``revealed`` sees them (``in_flight``: the missiles in flight by shooter, when the
    caller has found them in this phase).

    What everyone sees of an action (its public form, or its motion alone while unread)
    is one shared value per action, built on first sight and kept in the ruleset's
    :data:`SharedSeen` (outside the fight's state: a stamped action does not change, so the
    value is the same whoever first asks for it, in whichever fight); only what this
    observer has read is built for it.
    """
    actions, autonomous = o.actions, state.autonomous
    if not actions and not autonomous:
        return ()  # nothing to see (most often: between two actions)
    if o.setup.get("hidden", False):
        return ()
    if not autonomous:
        flying: Sequence[Action] = ()
    else:
        flying = (in_flight if in_flight is not None else _flying(state, rules)).get(o.id, ())
    shared = rules._seen_actions
    seen = []
    for a in [*actions, *flying] if flying else actions:
        if not a.visible:
            continue
        aid = a.id
        if revealed and not a.public and aid in revealed:  # (most observers read none)
            kind, target, ends_in = revealed[aid]
            seen.append(_seen_action(aid, a.start, MOTION.get(a.kind, ""), kind, target, ends_in))
            continue
        entry = shared.get(aid)
        if entry is None or entry[0] is not a:  # a cancelled action is a new object
            if len(shared) >= SHARED_SEEN:
                shared.clear()  # mostly finished actions: those in progress come back
            entry = shared[aid] = (a, _seen_by_all(a))
        seen.append(entry[1])
    return tuple(seen)


def _seen_by_all(a: Action) -> SeenAction:
    """What every observer who has not read ``a`` sees of it (a stamped action's
    fields do not change: a cancelled one is a new object)."""
    motion = MOTION.get(a.kind, "")
    if a.public:
        return _seen_action(a.id, a.start, motion, a.kind, a.target, a.last)
    return _seen_action(a.id, a.start, motion)


def _flying(state: FightState, rules: RinKaNou) -> Mapping[str, list[Action]]:
    """Missiles in flight by shooter (found when asked: few are ever in flight, and
    nothing of it is kept in the fight's state). The ruleset keeps the last answer
    (:data:`Flights`) for as long as the same missiles are in flight, so the fighters
    deciding in one phase, and each view of them, find it once, and the phases until
    one is loosed or lands."""
    autonomous = state.autonomous
    kept = rules._flights
    version = state.version
    if kept is not None and kept[0] is autonomous:
        if kept[1] == version:  # nothing has changed since (the fighters of one phase)
            return kept[3]
        ids = tuple(autonomous)
        if kept[2] == ids:  # other changes, the same missiles
            rules._flights = (autonomous, version, ids, kept[3], kept[4])
            return kept[3]
    else:
        ids = tuple(autonomous)
    by_actor: dict[str, list[Action]] = {}
    for a in autonomous.values():
        by_actor.setdefault(a.actor, []).append(a)
    rules._flights = (autonomous, version, ids, by_actor, {})
    return by_actor


Coming = tuple[tuple[SeenAction, ...], tuple[int, ...]]
"""The missiles in flight at a fighter that it makes out, as :meth:`SelfView.incoming`
shows them, and the segments in which they land, in the same order."""

Flights = tuple[
    dict[int, Action],
    int,
    tuple[int, ...],
    dict[str, list[Action]],
    dict[str, tuple[int, Coming | None]],
]
"""The missiles in flight by shooter as :func:`_flying` last found them, with what
says they are still so: the fight state's ``autonomous`` mapping itself (kept, so no
other can take its place), the state's ``version`` when they were last asked for, and
the ids the mapping held then, in order (a missile is added once under a new id, and
taken out when it lands: the same ids, the same missiles); and what :func:`_coming`
found of them for each target, with the state's ``roster`` it holds for. A ruleset's
own, let go at each fight's start."""


def _coming(state: FightState, rules: RinKaNou, c: Combatant) -> Coming | None:
    """The missiles in flight at ``c`` that it makes out when every opponent is in view
    (no awareness radius): the visible missiles of the opponents in the fight who are
    not hidden, as :meth:`SelfView.incoming` shows them (each one's shared value, by
    shooter in the fight's order), and the segments in which they land; None when one
    of them is not public or has no end (what ``c`` has read of it counts: its view is
    asked). A stamped missile does not change, so the answer holds for as long as the
    same missiles fly and nobody comes or goes (``state.roster``): it is kept with the
    flights (:data:`Flights`), found once per target rather than at each decision and
    shortcut of the phases in between. Call it with something in flight."""
    cid = c.id
    roster = state.roster
    kept = rules._flights
    flying: Mapping[str, list[Action]]
    if kept is not None and kept[0] is state.autonomous and kept[1] == state.version:
        # The flights as found in this phase (_flying's first answer, without its call).
        flying = kept[3]
    else:
        flying = _flying(state, rules)
        kept = rules._flights
        assert kept is not None
    at = kept[4]
    entry = at.get(cid)
    if entry is not None and entry[0] == roster:
        return entry[1]
    side = c.side
    seen = state._against.get(side)  # FightState.against(), without its call
    if seen is None:
        seen = state.against(side)
    shared = rules._seen_actions
    found: list[SeenAction] = []
    lands: list[int] = []
    coming: Coming | None = None
    for o in seen:
        missiles = flying.get(o.id)
        if missiles is None or o.setup.get("hidden", False):
            continue
        for a in missiles:
            if a.target != cid or not a.visible or a.kind != "projectile":
                continue
            duration = a.duration
            if not a.public or duration is None:
                break  # what it has read of it counts, or it never lands
            share = shared.get(a.id)
            if share is None or share[0] is not a:
                if len(shared) >= SHARED_SEEN:
                    shared.clear()
                share = shared[a.id] = (a, _seen_by_all(a))
            found.append(share[1])
            lands.append(a.start + duration - 1)  # its last segment (Action.last)
        else:
            continue
        break
    else:
        coming = (tuple(found), tuple(lands))
    at[cid] = (roster, coming)
    return coming
