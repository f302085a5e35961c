"""What a Loss fighter sees when it decides.

Loss is played at a table: every fighter's phase (action points left), health, weapon
and lasting conditions are known to all; a fighter's own view adds its sheet, its pools,
the attacks it may answer now and whether it is its turn.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

from segsim.actions import Action, Declaration, DeclarationLike
from segsim.errors import IllegalDeclaration
from segsim.native import python_class
from segsim.observation import LiveView, live, live_attr
from segsim.rules.loss.content import Sheet, Weapon
from segsim.rules.loss.declare import (
    CONTACT,
    chase_of,
    clock_of,
    foes_near,
    fursa_of,
    nearest_foe,
    weapon_for,
)
from segsim.rules.loss.status import Incoming, Status

if TYPE_CHECKING:
    from segsim.rules.loss.ruleset import Loss
    from segsim.state import Combatant, FightState


@python_class
class OtherView(LiveView):
    """Another fighter as everyone sees it."""

    __slots__ = ("_o", "id", "is_pc", "minion", "name", "side")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc", "minion")

    def __init__(self, state: FightState, segment: int, o: Combatant) -> None:
        # LiveView.__init__, without its call (a view per opponent a decision reads)
        self._state = state
        self._version = state.version
        self._segment = segment
        self.id = o.id
        self.side = o.side
        self.name = o.name
        self.is_pc = o.is_pc
        self.minion: bool = o.sheet.minion
        self._o = o

    @property
    def _st(self) -> Status:
        status: Status = self._o.status
        return status

    # Fields that forward the fight's state, read by attribute path (no Python call).
    position: live[OtherView, tuple[float, float]] = live_attr("_o.position")
    # Action points left this round (the phase at which it acts next).
    phase: live[OtherView, int] = live_attr("_o.status.pa")
    health: live[OtherView, int] = live_attr("_o.status.health")
    max_health: live[OtherView, int] = live_attr("_o.sheet.health.levels")

    @live
    def weapon(self) -> Weapon:
        sheet: Sheet = self._o.sheet
        return weapon_for(sheet, self._st, "main")

    prone: live[OtherView, bool] = live_attr("_o.status.prone")

    @live
    def disarmed(self) -> bool:
        return bool(self._st.disarmed)

    wall: live[OtherView, int] = live_attr("_o.status.wall")

    @live
    def intention(self) -> tuple[str, str | None] | None:
        """(action, target) it declared it would do first this round, if it did and has
        not acted yet (the optional order of intentions)."""
        st = self._st
        return st.intention if st.intended == clock_of(self._state).round else None

    def distance(self, other: OtherView) -> float:
        return math.dist(self.position, other.position)

    def in_contact(self, other: OtherView) -> bool:
        return self.distance(other) <= CONTACT + 1e-9


@python_class
class SelfView(OtherView):
    """The deciding fighter's own state: ``my_turn`` when the round reaches its phase,
    ``incoming`` the attacks it may parry or dodge now, ``counter`` the opponent it may
    counter-attack now."""

    __slots__ = ("_rules", "_segment_now", "_turn", "sheet")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc", "minion", "sheet")

    def __init__(
        self, state: FightState, segment: int, c: Combatant, turn: bool, rules: Loss
    ) -> None:
        # OtherView.__init__ and LiveView's, without their calls (once a decision)
        self._state = state
        self._version = state.version
        self._segment = segment
        self.id = c.id
        self.side = c.side
        self.name = c.name
        self.is_pc = c.is_pc
        self._o = c
        sheet: Sheet = c.sheet
        self.minion: bool = sheet.minion
        self.sheet: Sheet = sheet
        self._turn = turn
        self._segment_now = segment
        self._rules = rules
        self.__dict__["my_turn"] = turn  # what every decision reads, true of its phase

    def foes_within(self, radius: float) -> list[OtherView]:
        """The views of its opponents within ``radius`` metres, in the fight's order
        (found through the spatial grid in a large fight)."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        state, segment = self._state, self._segment_now
        # OtherView(state, segment, o) for each, without calls of its class
        version = state.version
        found = []
        for o in foes_near(state, self._o, radius):
            v = _new_other_view(OtherView)
            v._state = state
            v._version = version
            v._segment = segment
            v.id = o.id
            v.side = o.side
            v.name = o.name
            v.is_pc = o.is_pc
            v.minion = o.sheet.minion
            v._o = o
            found.append(v)
        return found

    def nearest_foe(self) -> OtherView | None:
        """The view of its nearest opponent (ties: the lowest id), None if none is left."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        o = nearest_foe(self._state, self._o)
        return None if o is None else OtherView(self._state, self._segment_now, o)

    def foes(self) -> list[OtherView]:
        """The views of its opponents in the fight, in the fight's order (what
        ``observation.others`` holds of the other sides, without views of its allies)."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        state, segment = self._state, self._segment_now
        return [OtherView(state, segment, o) for o in state.against(self.side)]

    def answerable(self) -> tuple[Incoming, ...]:
        """The attacks it may parry or dodge now, kept as its ``incoming``."""
        st: Status = self._o.status
        now = self._segment_now
        found = tuple(i for i in st.incoming.values() if i.granted == now) if st.incoming else ()
        self.__dict__["incoming"] = found
        return found

    def counterable(self) -> tuple[str, ...]:
        """The opponents it may counter-attack now, kept as its ``counters``."""
        st: Status = self._o.status
        now = self._segment_now
        found = tuple(o for o, g in st.counters.items() if g == now) if st.counters else ()
        self.__dict__["counters"] = found
        return found

    # What its observation (a ViewObservation) finds through it.
    def _others(self) -> tuple[OtherView, ...]:
        state, segment, cid = self._state, self._segment_now, self.id
        return tuple(
            OtherView(state, segment, o)
            for o in state.combatants.values()
            if o.in_fight and o.id != cid
        )

    def _other(self, oid: str) -> OtherView | None:
        state = self._state
        o = state.combatants.get(oid)
        if o is None or oid == self.id or not o.in_fight:
            return None
        return OtherView(state, self._segment_now, o)

    def _legal(self) -> tuple[DeclarationLike, ...]:
        return self._rules._legal(self._state, self.id, self._segment_now)

    def accepts(self, declaration: Declaration) -> bool:
        """Whether the rules would accept this declaration now (on its own)."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        try:
            self._rules.plan_alone(self._state, self.id, declaration, self._segment_now)
        except IllegalDeclaration:
            return False
        return True

    def attack_beyond_points(self) -> bool:
        """Whether the rules refuse it any attack with the weapon in hand for its cost
        (:meth:`Loss.attack_beyond_points`): no extra damage die, Exploit or pool
        makes one affordable."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        return self._rules.attack_beyond_points(self._state, self.id)

    def cost(self, declaration: Declaration) -> int | None:
        """Action points the declaration would cost now (None if the rules refuse it)."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        try:
            spec = self._rules.plan_alone(self._state, self.id, declaration, self._segment_now)
        except IllegalDeclaration:
            return None
        return int(spec.params.get("cost", 0))

    @live
    def my_turn(self) -> bool:
        return self._turn

    @live
    def round(self) -> int:
        return clock_of(self._state).round

    @live
    def fursa(self) -> int:
        """Fursa it may spend: its own for a player character, else the game master's."""
        return fursa_of(self._state, self._o)

    inspiration: live[SelfView, int] = live_attr("_o.status.inspiration")
    waited: live[SelfView, int] = live_attr("_o.status.waited")
    aim: live[SelfView, int] = live_attr("_o.status.aim")

    @live
    def incoming(self) -> tuple[Incoming, ...]:
        return tuple(i for i in self._st.incoming.values() if i.granted == self._segment_now)

    @live
    def counters(self) -> tuple[str, ...]:
        """The opponents it may counter-attack now (one counter-attack per adversary
        and round; several adversaries parried in one phase give several)."""
        now = self._segment_now
        return tuple(oid for oid, granted in self._st.counters.items() if granted == now)

    @live
    def counter(self) -> str | None:
        """The first opponent it may counter-attack now (None if none)."""
        now = self._segment_now
        return next((o for o, granted in self._st.counters.items() if granted == now), None)

    @live
    def countered(self) -> frozenset[str]:
        return frozenset(self._st.countered)

    @live
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._o.actions)

    @live
    def in_chase(self) -> bool:
        """Whether a chase (fight in motion) is running."""
        return chase_of(self._state) is not None

    @live
    def pursued(self) -> bool:
        chase = chase_of(self._state)
        return chase is not None and chase.pursued_side == self.side

    def units(self, other: str) -> int | None:
        """Distance units to another fighter in the chase (None: no chase, or lost)."""
        if self._state.version != self._version:  # check(), called only to raise
            self.check()
        chase = chase_of(self._state)
        return None if chase is None else chase.units(self.id, other)


_new_other_view = OtherView.__new__
