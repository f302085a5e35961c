"""What a Chroniques fighter sees when it decides.

Chroniques is played in turns at a table: every fighter's position, weapon, DEF and hit
points are known to all; a fighter's own view adds its sheet and the state of its turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from segsim.actions import Action, DeclarationLike
from segsim.native import python_class
from segsim.observation import LiveView, live, live_attr
from segsim.rules.chroniques.attack import (
    CONTACT,
    Point,
    can_use_capabilities,
    defence,
    distance,
    within,
)
from segsim.rules.chroniques.content import Sheet, Weapon
from segsim.rules.chroniques.status import Status
from segsim.rules.chroniques.turns import initiative

if TYPE_CHECKING:
    from segsim.rules.chroniques.ruleset import Chroniques
    from segsim.state import Combatant, FightState


@python_class
class OtherView(LiveView):
    """Another fighter as everyone sees it."""

    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc")

    def __init__(
        self, state: FightState, segment: int, rules: Chroniques, o: Combatant, rnd: int
    ) -> None:
        super().__init__(state, segment)
        self.id = o.id
        self.side = o.side
        self.name = o.name
        self.is_pc = o.is_pc
        self._rules = rules
        self._o = o
        self._round = rnd

    @property
    def _st(self) -> Status:
        status: Status = self._o.status
        return status

    # Plain attribute paths, read without a Python call (live_attr).
    position: live[OtherView, Point] = live_attr("_o.position")
    weapon: live[OtherView, Weapon] = live_attr("_o.status.weapon")
    off_hand: live[OtherView, Weapon | None] = live_attr("_o.status.off_hand")

    @live
    def defence(self) -> int:
        return defence(self._o, self._rules.surprised_defence_malus)[0]

    hit_points: live[OtherView, int] = live_attr("_o.status.hit_points")
    max_hit_points: live[OtherView, int] = live_attr("_o.status.max_hit_points")

    @live
    def initiative(self) -> int:
        return initiative(self._o, self._round)

    @live
    def acted(self) -> bool:
        """Has taken (or lost) its turn of the current round."""
        return self._st.acted_round >= self._round

    surprised: live[OtherView, bool] = live_attr("_o.status.surprised")

    def distance(self, other: OtherView | SelfView) -> float:
        return distance(self.position, other.position)


@python_class
class SelfView(OtherView):
    """The deciding fighter's own state.

    ``my_turn`` says whether it may declare its turn now; ``turn_ends`` is the segment in
    which that turn resolves. ``attack`` gives the standing attack bonus of the weapon in
    hand (and ``off_attack`` of the off-hand weapon).
    """

    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc", "sheet", "round")

    def __init__(
        self,
        state: FightState,
        segment: int,
        rules: Chroniques,
        c: Combatant,
        rnd: int,
        marker: Action | None,
    ) -> None:
        super().__init__(state, segment, rules, c, rnd)
        self.sheet: Sheet = c.sheet
        self.round = rnd
        self._marker = marker

    @live
    def my_turn(self) -> bool:
        return self._marker is not None

    @live
    def turn_ends(self) -> int | None:
        return self._marker.last if self._marker is not None else None

    @live
    def defence_bonus(self) -> int:
        return self._st.defence_bonus

    @live
    def carried(self) -> tuple[Weapon, ...]:
        return self._st.carried

    @live
    def attack(self) -> int:
        return self.sheet.attack_bonus(self._st.weapon)

    @live
    def off_attack(self) -> int | None:
        off = self._st.off_hand
        return self.sheet.attack_bonus(off) if off is not None else None

    @live
    def capabilities_usable(self) -> bool:
        return can_use_capabilities(self.sheet, self._st)

    @live
    def assists(self) -> Mapping[str, int]:
        return dict(self._st.assists)

    @live
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._o.actions)

    def distance(self, other: OtherView | SelfView) -> float:
        return distance(self.position, other.position)

    @live
    def nearest_opponent(self) -> OtherView | None:
        """The nearest opponent still in the fight, seen or not (ties: the fight's
        order), found through the fight's grid; None when none is left. With the
        ruleset's ``awareness``, what a fighter with no opponent in view goes for."""
        found = self._state.nearest_opponents(self.id, 1)
        if not found:
            return None
        o = self._state.combatants[found[0]]
        return OtherView(self._state, self._segment, self._rules, o, self._round)

    # What its observation (a ViewObservation) asks of the deciding fighter's view.
    def _others(self) -> tuple[OtherView, ...]:
        state, segment, rules, rnd, cid = (
            self._state,
            self._segment,
            self._rules,
            self._round,
            self.id,
        )
        radius = rules.awareness
        if radius is not None:  # those around it, found through the fight's grid
            return tuple(
                OtherView(state, segment, rules, o, rnd)
                for o in state.near(self._o.position, radius)
                if o.id != cid
            )
        # OtherView(state, segment, rules, o, rnd) for each, without calls of its class
        # (once an observation for every other fighter: what a decision reads first).
        version = self._version
        found = []
        for o in state.combatants.values():
            if o.in_fight:
                oid = o.id
                if oid != cid:
                    v = _new_other_view(OtherView)
                    v._state = state
                    v._version = version
                    v._segment = segment
                    v.id = oid
                    v.side = o.side
                    v.name = o.name
                    v.is_pc = o.is_pc
                    v._rules = rules
                    v._o = o
                    v._round = rnd
                    found.append(v)
        return tuple(found)

    def _other(self, oid: str) -> OtherView | None:
        o = self._state.combatants.get(oid)
        if o is None or oid == self.id or not o.in_fight:
            return None
        return OtherView(self._state, self._segment, self._rules, o, self._round)

    def _legal(self) -> tuple[DeclarationLike, ...]:
        return self._rules._legal(self._state, self.id, self._segment)

    def in_contact(self, other: OtherView) -> bool:
        return within(self.position, other.position, CONTACT)

    def in_range(self, other: OtherView, weapon: Weapon | None = None) -> bool:
        """Whether ``other`` can be attacked from here with ``weapon`` (default: in hand)."""
        weapon = weapon or self.weapon
        reach = CONTACT if weapon.kind == "melee" else weapon.range
        return within(self.position, other.position, reach)


_new_other_view = OtherView.__new__
_new_self_view = SelfView.__new__
