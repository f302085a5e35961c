"""What a Rupture fighter sees when it decides.

Rupture is played at a table: positions, effort, stress, wounds and thresholds of every
fighter are known to all, and so is what each has declared. A fighter's own view adds its
sheet, the state of its passe and the attacks just rolled against it (``incoming``),
which it may answer with a free defence in this segment (Rupture, "Se défendre").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from segsim.actions import Action, DeclarationLike
from segsim.native import python_class
from segsim.observation import LiveView, live, live_attr
from segsim.rules.rupture.content import TARGETED, Sheet, Weapon
from segsim.rules.rupture.declare import ACT, free_now, landing, settling
from segsim.rules.rupture.passe import slots_left
from segsim.rules.rupture.status import Status, Wound

if TYPE_CHECKING:
    from segsim.rules.rupture.ruleset import Rupture
    from segsim.state import Combatant, FightState

Point = tuple[float, float]


class _Value:
    """A small read-only record of a view: plain slots set once in ``__init__`` (a
    native class in the compiled build, where an attrs one stays a Python class built
    through ``object.__setattr__``), equal to another of its class with the same
    fields, shown as attrs shows its classes."""

    __slots__ = ()
    _FIELDS: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(self._FIELDS, self._values(), strict=True))
        return f"{type(self).__name__}({shown})"


class Incoming(_Value):
    """An attack rolled against the viewer, landing at the end of this segment unless
    defended: who, with what, and its published attack value."""

    __slots__ = ("attacker", "blow", "domain", "kind", "qualities", "threat", "value", "weapon")
    _FIELDS: ClassVar[tuple[str, ...]] = (
        "attacker",
        "blow",
        "kind",
        "domain",
        "weapon",
        "qualities",
        "threat",
        "value",
    )

    def __init__(
        self,
        attacker: str,
        blow: int,
        kind: str,
        domain: str,
        weapon: str,
        qualities: int,
        threat: int,
        value: int,
    ) -> None:
        self.attacker = attacker
        self.blow = blow
        self.kind = kind
        self.domain = domain
        self.weapon = weapon
        self.qualities = qualities
        self.threat = threat
        self.value = value


class Declared(_Value):
    """A targeted action declared against the viewer, to be rolled at the end of
    ``rolls_at``: who, which action, of what kind and with what."""

    __slots__ = ("action", "attacker", "kind", "rolls_at", "weapon")
    _FIELDS: ClassVar[tuple[str, ...]] = ("attacker", "action", "kind", "weapon", "rolls_at")

    def __init__(self, attacker: str, action: int, kind: str, weapon: str, rolls_at: int) -> None:
        self.attacker = attacker
        self.action = action
        self.kind = kind
        self.weapon = weapon
        self.rolls_at = rolls_at


@python_class
class OtherView(LiveView):
    """Another fighter as everyone at the table sees it.

    What the built-in policies read of nearly every opponent (its position, effort,
    stress and stress maximum) is copied when the view is made: plain values, true of the
    view's phase for good; the rest is read from the live state when first asked (its
    name and whether it is a player's character too, which a fight never changes).
    """

    __slots__ = ("_o", "effort", "id", "position", "side", "stress", "stress_max")
    _fixed: ClassVar[tuple[str, ...]] = (
        "id",
        "side",
        "position",
        "effort",
        "stress",
        "stress_max",
    )

    def __init__(self, state: FightState, segment: int, o: Combatant) -> None:
        # LiveView's stores and the copies, without a call of LiveView.__init__ (what
        # other_view() stores too).
        self._state = state
        self._version = state.version
        self._segment = segment
        self._o = o
        self.id = o.id
        self.side = o.side
        self.position: Point = o.position
        status: Status = o.status
        self.effort: int = status.effort
        self.stress: int = status.stress
        sheet: Sheet = o.sheet
        self.stress_max: int = sheet.stress_max

    @property
    def _st(self) -> Status:
        status: Status = self._o.status
        return status

    @property
    def _sheet(self) -> Sheet:
        sheet: Sheet = self._o.sheet
        return sheet

    # Fields read straight from the fighter (by attribute path, without a call).
    name: live[OtherView, str] = live_attr("_o.name")
    is_pc: live[OtherView, bool] = live_attr("_o.is_pc")
    max_effort: live[OtherView, int] = live_attr("_o.status.max_effort")

    @live
    def rupture(self) -> Mapping[str, int]:
        """Rupture thresholds by domain (physical, mental, social)."""
        return dict(self._sheet.rupture)

    @live
    def malus(self) -> int:
        """Dice a hindrance took from its next action test (Rupture, "Les actions non
        ciblées": a targeted action may inflict maluses). While its attack's blow is in
        flight, the malus as it was before the roll (:meth:`doing`)."""
        st = self._st
        rolled = self._rolled()
        return st.malus + (rolled[2] if rolled is not None else 0)

    @live
    def wounds(self) -> tuple[Wound, ...]:
        return tuple(self._st.wounds)

    @live
    def skills(self) -> Mapping[str, int]:
        """Pool sizes by skill (the sheet is public at the table)."""
        return dict(self._sheet.skills)

    weapons: live[OtherView, tuple[Weapon, ...]] = live_attr("_o.sheet.weapons")

    @live
    def doing(self) -> tuple[str, str | None] | None:
        """The action it has declared for its slot (kind, target), if any. A targeted
        action rolled at the end of the previous segment is still shown: to everyone but
        its target, the roll, the defence and the blow are one instant, at the end of the
        segment in which the target may answer (Rupture, "Les actions ciblées", the value
        of an undefended attack taken "immédiatement"; docs/rules/rupture.md)."""
        a = next((a for a in self._o.actions if a.channel == ACT), None)
        if a is not None:
            return (a.kind, a.target)
        rolled = self._rolled()
        return None if rolled is None else (rolled[0], rolled[1])

    def _rolled(self) -> tuple[str, str, int] | None:
        """Its targeted action rolled at the end of the previous segment (whose blow, if
        the test succeeded, lands at the end of this one), if it has declared no other
        since."""
        st = self._st
        if st.rolled is None or st.targeted_at != self._segment - 1:
            return None
        if any(a.channel == ACT and not a.continuous for a in self._o.actions):
            return None
        return st.rolled

    def distance(self, other: OtherView) -> float:
        return math.dist(self.position, other.position)


def other_view(state: FightState, segment: int, o: Combatant) -> OtherView:
    """``OtherView(state, segment, o)``, without a call of the class (a Python class's
    call costs about as much again as its ``__init__``'s stores): made for each other
    fighter in view at a decision."""
    view: OtherView = _new_view(OtherView)
    view._state = state
    view._version = state.version
    view._segment = segment
    view._o = o
    view.id = o.id
    view.side = o.side
    view.position = o.position
    status: Status = o.status
    view.effort = status.effort
    view.stress = status.stress
    sheet: Sheet = o.sheet
    view.stress_max = sheet.stress_max
    return view


def incoming_of(state: FightState, segment: int, c: Combatant) -> tuple[Incoming, ...]:
    """The attacks rolled against ``c`` that land at the end of ``segment`` and that it
    has not answered yet (a defence announced before the roll answers them already), in
    the order of their blows."""
    if not state.autonomous:
        return ()
    out = []
    answered = None
    me = c.id
    for a in landing(state, segment).get(me, ()):
        if a.target == me:
            if answered is None:
                answered = {x.target for x in c.actions if x.kind == "defend"}
            if a.actor in answered:
                continue
            p = a.params
            out.append(
                Incoming(
                    a.actor,
                    a.id,
                    str(p["kind"]),
                    str(p["domain"]),
                    str(p["weapon"]),
                    int(p["qualities"]),
                    int(p["threat"]),
                    int(p["value"]),
                )
            )
    if len(out) > 1:
        out.sort(key=lambda i: i.blow)
    return tuple(out)


@python_class
class SelfView(OtherView):
    """The deciding fighter's own state.

    ``free`` says whether it may begin an action now (nothing but a ``pass`` in its
    slot, no targeted action of its own being settled at the slot's end, and no blow
    it gave or takes landing at the end of this segment: it acts once the blow has
    landed); ``actions_left`` counts the actions it may still take this passe;
    ``incoming`` the attacks rolled against it that it may defend against now (every
    built-in policy reads it and ``free`` at every decision: both are worked out when
    the view is made);
    ``declared_against`` the targeted actions against it not rolled yet, against which it
    may announce its defence. Its bonus and malus dice are copied when it is made, as
    its position, effort and stress are.

    Its observation (a :class:`~segsim.observation.ViewObservation`) asks it for the
    others in view, one of them by id and the legal declarations.
    """

    __slots__ = ("_passe", "_rules", "bonus", "free", "incoming", "malus", "passe", "sheet")
    _fixed: ClassVar[tuple[str, ...]] = (
        "id",
        "side",
        "position",
        "effort",
        "stress",
        "stress_max",
        "sheet",
        "passe",
        "bonus",
        "malus",
        "incoming",
        "free",
    )

    def __init__(self, state: FightState, segment: int, c: Combatant, rules: Rupture) -> None:
        # What Rupture.observe stores too, without a call of this class.
        self._state = state
        self._version = state.version
        self._segment = segment
        self._o = c
        self.id = c.id
        self.side = c.side
        self.position = c.position
        status: Status = c.status
        self.effort = status.effort
        self.stress = status.stress
        sheet: Sheet = c.sheet
        self.stress_max = sheet.stress_max
        self.sheet: Sheet = sheet
        self._rules = rules
        self._passe: int = rules.passe
        self.passe: int = segment // rules.passe + 1  # passe_of()
        self.bonus: int = status.bonus
        """Bonus dice for its next action test (preparation, help)."""
        self.malus: int = status.malus
        """Dice a hindrance took from its next action test (its own roll has spent
        those of the test it made)."""
        self.incoming: tuple[Incoming, ...] = (
            incoming_of(state, segment, c) if state.autonomous else ()
        )
        self.free: bool = free_now(state, c, segment, rules.passe)

    @live
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._o.actions)

    def _slot_free(self) -> bool:
        c = self._o
        for a in c.actions:
            if a.channel == ACT and not a.continuous:
                return False
        return not settling(c, self._segment, self._passe)

    @live
    def actions_left(self) -> int:
        left = slots_left(self._segment, self.sheet.actions, self._passe)
        return left if self._slot_free() else max(0, left - 1)

    @live
    def doing(self) -> tuple[str, str | None] | None:
        """The action it has declared for its slot (kind, target), if any."""
        a = next((a for a in self._o.actions if a.channel == ACT), None)
        return None if a is None else (a.kind, a.target)

    # What its observation asks of it (a ViewObservation).

    def _others(self) -> tuple[OtherView, ...]:
        """The others in view: those within the ruleset's awareness radius, found
        through the grid, or everyone in the fight."""
        state = self._state
        segment = self._segment
        cid = self.id
        radius = self._rules.awareness
        views: list[OtherView] = []
        if radius is not None:
            for o in state.near(self._o.position, radius):
                if o.id != cid:
                    views.append(other_view(state, segment, o))
        else:
            for o in state.combatants.values():
                if o.in_fight and o.id != cid:
                    views.append(other_view(state, segment, o))
        return tuple(views)

    def _other(self, oid: str) -> OtherView | None:
        o = self._state.combatants.get(oid)
        if o is None or oid == self.id or not o.in_fight:
            return None
        return other_view(self._state, self._segment, o)

    def _legal(self) -> tuple[DeclarationLike, ...]:
        return self._rules._legal(self._state, self.id, self._segment)

    @live
    def nearest_opponent(self) -> str | None:
        """The nearest opponent still in the fight, seen or not (ties: the fight's
        order), found through the fight's grid; None when none is left."""
        found = self._state.nearest_opponents(self.id, 1)
        return found[0] if found else None

    @live
    def declared_against(self) -> tuple[Declared, ...]:
        """Targeted actions declared against the fighter and not rolled yet, that it has
        not answered: it may announce its defence against them now (Rupture, "Se
        défendre")."""
        answered = {a.target for a in self._o.actions if a.kind == "defend"}
        out = []
        for o in self._state.combatants.values():
            if o.id == self.id or not o.in_fight or o.id in answered:
                continue
            for a in o.actions:
                if a.kind in TARGETED and a.target == self.id and a.channel == ACT:
                    assert a.end is not None
                    out.append(Declared(o.id, a.id, a.kind, str(a.params["weapon"]), a.end - 1))
        return tuple(sorted(out, key=lambda d: d.action))

    def in_reach(self, other: OtherView, weapon: Weapon) -> bool:
        return self.distance(other) <= weapon.range + 0.01


# The others' views are made without calling their class (by its own __new__:
# object.__new__ in the pure build).
_new_view = OtherView.__new__
