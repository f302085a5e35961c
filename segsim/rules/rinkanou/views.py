"""What a RinKaNou fighter sees: its own full state, others' public state.

An opponent's started action, its start segment and its motion class (weapon motion,
movement) are public; its kind, target and end are hidden until it resolves, unless it is
public by nature (a forced lock) or the observer has read it (RULES-NOTES,
"Observability").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ClassVar

import attrs

from segsim.actions import Action
from segsim.observation import LiveView, live
from segsim.rules.rinkanou.content import Sheet, Weapon
from segsim.rules.rinkanou.situation import ps_limits

if TYPE_CHECKING:
    from segsim.rules.rinkanou.ruleset import RinKaNou, Status
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


@attrs.frozen
class SeenAction:
    """Another fighter's action as an observer sees it; hidden fields are None."""

    id: int
    start: int
    motion: str
    kind: str | None = None
    target: str | None = None
    ends_in: int | None = None


class SelfView(LiveView):
    """The deciding fighter's own state, read from the live fight state on demand."""

    __slots__ = ("_c", "_foe", "_foes", "_rules", "_seen", "id", "sheet", "side")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "sheet")

    def __init__(
        self,
        state: FightState,
        segment: int,
        rules: RinKaNou,
        c: Combatant,
        seen: Callable[[], list[Combatant]],
    ) -> None:
        super().__init__(state, segment)
        self.id = c.id
        self.side = c.side
        self.sheet: Sheet = c.sheet
        self._rules = rules
        self._c = c
        self._seen = seen
        self._foe: tuple[str | None] | None = None
        self._foes: tuple[OtherView, ...] | None = None

    @property
    def _st(self) -> Status:
        status: Status = self._c.status
        return status

    @live
    def position(self) -> tuple[float, float]:
        return self._c.position

    @live
    def reach(self) -> float:
        """The weapon's reach in metres."""
        return self._rules.reach(self.sheet)

    @live
    def armed(self) -> bool:
        return self._st.armed

    @live
    def must_lock(self) -> bool:
        return self._st.must_lock

    @live
    def ps(self) -> int:
        """Points de situation: the score."""
        return self._st.ps

    @live
    def usable_ps(self) -> int:
        """What is left of a positive score for a new action now."""
        return self._rules.usable_ps(self._state, self._c, None)

    @live
    def engaged(self) -> tuple[str, ...]:
        """Opponents taken into account."""
        return self._st.engaged

    @live
    def ps_against(self) -> Mapping[str, int]:
        """The score as it applies against each opponent in view."""
        return self._rules._ps_against(self._state, self._c, self._seen())

    @live
    def wounds(self) -> int:
        return self._st.wounds

    @live
    def wound_level(self) -> str:
        return self._st.wound_level

    @live
    def wound_malus(self) -> int:
        return self._st.wound_malus

    @live
    def surprise_malus(self) -> int:
        return self._st.surprise_malus

    @live
    def weapon_pr(self) -> int:
        return self._st.weapon_pr

    @live
    def shield_pr(self) -> int:
        return self._st.shield_pr

    @live
    def disengaged(self) -> bool:
        return self._st.disengaged

    @live
    def command_points(self) -> int:
        """Points de commandement (PC)."""
        return self._st.command_points

    @live
    def wielding(self) -> str:
        """ "melee" or "ranged"."""
        return self._st.wielding

    @live
    def loaded(self) -> bool:
        return self._st.loaded

    @live
    def oppose_disengage(self) -> bool:
        """Its stance: whether it opposes an opponent's disengage (seed 004)."""
        return self._st.oppose_disengage

    @live
    def grip(self) -> str:
        return self._st.grip

    @live
    def shield_aside(self) -> bool:
        return self._st.shield_aside

    @live
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._c.actions)

    def nearest_foe(self) -> str | None:
        """The nearest opponent, seen or not: where the enemy is (asked for, not built
        with every observation)."""
        foe = self._foe
        if foe is None:
            self.check()
            found = self._rules._nearest(self._state, self._c, self._seen(), 1)
            foe = self._foe = (found[0] if found else None,)
        return foe[0]

    def foes(self) -> tuple[OtherView, ...]:
        """The opponents in view, in the fight's order: the views ``others`` holds of
        the other sides, without building those of allies (most of a crowd)."""
        foes = self._foes
        if foes is None:
            self.check()
            revealed = self._c.status.revealed
            foes = self._foes = tuple(
                OtherView(self._state, self._segment, self._rules, o, revealed)
                for o in self._seen()
            )
        return foes

    def freeze(self) -> SelfView:
        self.nearest_foe()
        for foe in self.foes():
            foe.freeze()
        return super().freeze()

    @property
    def weapon(self) -> Weapon:
        return self.sheet.weapon

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


class OtherView(LiveView):
    """Another fighter as one observer sees it: public state, and its actions with
    what the observer has read of them."""

    __slots__ = ("_o", "_revealed", "_rules", "has_shield", "id", "side", "weapon")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "weapon", "has_shield")

    def __init__(
        self,
        state: FightState,
        segment: int,
        rules: RinKaNou,
        o: Combatant,
        revealed: Mapping[int, tuple[str, str | None, int | None]],
    ) -> None:
        super().__init__(state, segment)
        self.id = o.id
        self.side = o.side
        self.weapon: Weapon = o.sheet.weapon
        self.has_shield = o.sheet.shield is not None
        self._rules = rules
        self._o = o
        self._revealed = revealed

    @live
    def position(self) -> tuple[float, float]:
        return self._o.position

    @live
    def reach(self) -> float:
        return self._rules.reach(self._o.sheet)

    @live
    def armed(self) -> bool:
        return bool(self._o.status.armed)

    @live
    def wound_level(self) -> str:
        return str(self._o.status.wound_level)

    @live
    def wielding(self) -> str:
        return str(self._o.status.wielding)

    @live
    def grip(self) -> str:
        return str(self._o.status.grip)

    @live
    def actions(self) -> tuple[SeenAction, ...]:
        return seen_actions(self._state, self._o, self._revealed)

    def incoming(self, me: str) -> list[SeenAction]:
        """Its missiles in flight toward ``me``."""
        actions = self.__dict__.get("actions")  # read already (or frozen)
        if actions is None:
            if not _flying(self._state).get(self._o.id):
                self.check()
                return []  # nothing in flight: its other actions need not be looked at
            actions = self.actions
        return [a for a in actions if a.kind == "projectile" and a.target == me]

    def motion(self, motion: str) -> SeenAction | None:
        for a in self.actions:
            if a.motion == motion:
                return a
        return None


def seen_actions(
    state: FightState,
    o: Combatant,
    revealed: Mapping[int, tuple[str, str | None, int | None]],
) -> tuple[SeenAction, ...]:
    """``o``'s actions (and its missiles in flight) as an observer who has read
    ``revealed`` sees them.

    What everyone sees of an action (its public form, or its motion alone while unread)
    is one shared value per action, built on first sight; only what this observer has
    read is built for it.
    """
    if o.setup.get("hidden", False):
        return ()
    flying = _flying(state).get(o.id, ())
    shared = state.extra.get("seen_actions")
    if shared is None:
        shared = state.extra["seen_actions"] = {}
    seen = []
    for a in [*o.actions, *flying] if flying else o.actions:
        if not a.visible:
            continue
        if not a.public and a.id in revealed:
            kind, target, ends_in = revealed[a.id]
            seen.append(SeenAction(a.id, a.start, MOTION.get(a.kind, ""), kind, target, ends_in))
            continue
        entry = shared.get(a.id)
        if entry is None or entry[0] is not a:  # a cancelled action is a new object
            entry = shared[a.id] = (a, _seen_by_all(a))
        seen.append(entry[1])
    return tuple(seen)


def _seen_by_all(a: Action) -> SeenAction:
    """What every observer who has not read ``a`` sees of it (a stamped action's
    fields do not change: a cancelled one is a new object)."""
    motion = MOTION.get(a.kind, "")
    if a.public:
        return SeenAction(a.id, a.start, motion, a.kind, a.target, a.last)
    return SeenAction(a.id, a.start, motion)


def _flying(state: FightState) -> Mapping[str, list[Action]]:
    """Missiles in flight by shooter, computed once per state version."""
    if not state.autonomous:
        return {}
    cached = state.extra.get("flying")
    if cached is not None and cached[0] == state.version:
        return cached[1]  # type: ignore[no-any-return]
    by_actor: dict[str, list[Action]] = {}
    for a in state.autonomous.values():
        by_actor.setdefault(a.actor, []).append(a)
    state.extra["flying"] = (state.version, by_actor)
    return by_actor
