"""What a Loreval fighter sees when it decides.

Declarations are made aloud, in ascending order of initiative: everyone hears what was
declared before (Loreval, "Initiative..."). Positions, hit points and initiative points
are known to all. Another fighter's attention criteria are known only to a fighter with
at least 1 in Environment (Loreval, "Environnement").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from segsim.actions import Action, DeclarationLike
from segsim.native import python_class
from segsim.observation import LiveView, live
from segsim.rules.loreval.combat import CONTACT, Point, attention_scores, distance, within
from segsim.rules.loreval.content import Sheet, Weapon
from segsim.rules.loreval.status import Status

if TYPE_CHECKING:
    from segsim.rules.loreval.ruleset import Loreval
    from segsim.state import Combatant, FightState


@python_class
class OtherView(LiveView):
    """Another fighter as everyone sees it."""

    __slots__ = ("_knows", "_o", "_round", "_st", "id", "is_pc", "name", "side")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc")

    def __init__(
        self, state: FightState, segment: int, o: Combatant, rnd: int, knows: bool
    ) -> None:
        # LiveView's __init__, without its call (once a fighter seen)
        self._state = state
        self._version = state.version
        self._segment = segment
        self.id = o.id
        self.side = o.side
        self.name = o.name
        self.is_pc = o.is_pc
        self._o = o
        status: Status = o.status  # (a fighter's status is the same object all fight)
        self._st = status
        self._round = rnd
        self._knows = knows
        # where it stands and its hit points, read by every policy that sorts those it
        # sees: known now, kept as their fields' values (the view's phase's, for good)
        values = self.__dict__
        values["position"] = o.position
        values["hit_points"] = status.hit_points

    @live
    def position(self) -> Point:
        return self._o.position

    @live
    def hit_points(self) -> int:
        return self._st.hit_points

    @live
    def max_hit_points(self) -> int:
        return self._st.max_hit_points

    @live
    def initiative(self) -> int:
        """Initiative points at the start of the round."""
        return self._st.start_points

    @live
    def weapon(self) -> Weapon:
        return self._st.weapon

    @live
    def grace(self) -> str:
        return self._st.grace

    @live
    def holding(self) -> str | None:
        """Whom it holds in a grapple."""
        return self._st.holding

    @live
    def held_by(self) -> str | None:
        return self._st.held_by

    @live
    def hold(self) -> str:
        """How it is held: grabbed, lifted, pinned, down ("" when free)."""
        return self._st.hold

    @live
    def locked_with(self) -> str | None:
        """Whom it is locked with after a block (neither moves)."""
        return self._st.locked_with

    @live
    def prone(self) -> bool:
        return self._st.prone

    @live
    def declared(self) -> Mapping[str, Any] | None:
        """The action it declared this round (kind, target, category), if any."""
        plan = self._st.plan
        if plan is None or self._st.declared_round != self._round:
            return None
        return {"kind": plan.kind, "target": plan.target, "category": plan.category}

    @live
    def attention(self) -> Mapping[str, int] | None:
        """Its attention scores, known with at least 1 in Environment (else None)."""
        if not self._knows:
            return None
        return attention_scores(self._o, self._round).as_dict()

    def distance(self, other: OtherView) -> float:
        return distance(self.position, other.position)


@python_class
class SelfView(OtherView):
    """The deciding fighter's own state: ``step`` is "declare" or "change" when it must
    declare now, "heroic" when it may declare a heroic action, "lock" when, just locked
    by a block, it may ``drop`` its weapon ("resolve" while its action is being
    resolved, None otherwise)."""

    __slots__ = ("_marker", "_rules", "round", "sheet")
    _fixed: ClassVar[tuple[str, ...]] = ("id", "side", "name", "is_pc", "sheet", "round")

    def __init__(
        self,
        state: FightState,
        segment: int,
        c: Combatant,
        rnd: int,
        marker: Action | None,
        rules: Loreval | None = None,
    ) -> None:
        # OtherView's and LiveView's __init__, without their calls (once a decision)
        self._state = state
        self._version = state.version
        self._segment = segment
        self.id = c.id
        self.side = c.side
        self.name = c.name
        self.is_pc = c.is_pc
        self._o = c
        self._st = c.status
        self._round = rnd
        self._knows = True
        self.sheet: Sheet = c.sheet
        self.round = rnd
        self._marker = marker
        self._rules = rules
        # the step, read by every decision first, known now: kept as its field's value;
        # at a step where it may declare, so are what the built-in policies read then
        values = self.__dict__
        step = values["step"] = None if marker is None else str(marker.params["step"])
        if step == "declare" or step == "change" or step == "heroic":
            status: Status = c.status
            values["position"] = c.position
            values["hit_points"] = status.hit_points
            values["initiative"] = status.start_points
            # status.attention_points(self.sheet), without its call
            values["attention_points"] = max(
                1, self.sheet.attention_points - status.perception_malus // 4
            )
            values["weapon"] = status.weapon
            values["weapon_ready"] = status.weapon_ready
            values["off_hand"] = status.off_hand
            values["held_by"] = status.held_by
            values["holding"] = status.holding
            values["locked_with"] = status.locked_with

    # What its observation (a ViewObservation) asks of the deciding fighter's view.
    def _reads_attention(self) -> bool:
        """With 1 in Environment the fighter knows others' attention (worked out only
        when another fighter is looked at)."""
        return attention_scores(self._o, self._round).environment >= 1

    def _others(self) -> tuple[OtherView, ...]:
        state, segment, rnd, cid = self._state, self._segment, self._round, self.id
        k = self._reads_attention()
        radius = None if self._rules is None else self._rules.awareness
        if radius is not None:
            return self._around(radius, k)
        found = []  # (a loop: no generator's frame)
        for o in state.combatants.values():
            if o.in_fight and o.id != cid:
                found.append(OtherView(state, segment, o, rnd, k))
        return tuple(found)

    def _around(self, radius: float, k: bool) -> tuple[OtherView, ...]:
        """With the ruleset's ``awareness``: the fighters within it (found through the
        fight's grid), and the nearest opponent when no opponent is within it."""
        state, segment, rnd, cid, side = self._state, self._segment, self._round, self.id, self.side
        near = [o for o in state.near(self._o.position, radius) if o.id != cid]
        for o in near:  # any opponent within it? (a loop: no generator's frame)
            if o.side != side:
                break
        else:
            for oid in state.nearest_opponents(cid, 1):
                near.append(state.combatants[oid])
        seen = []  # (a loop: no generator's frame)
        for o in near:
            seen.append(OtherView(state, segment, o, rnd, k))
        return tuple(seen)

    def _other(self, oid: str) -> OtherView | None:
        o = self._state.combatants.get(oid)
        if o is None or oid == self.id or not o.in_fight:
            return None
        return OtherView(self._state, self._segment, o, self._round, self._reads_attention())

    def _legal(self) -> tuple[DeclarationLike, ...]:
        assert self._rules is not None
        return self._rules._legal(self._state, self.id, self._segment)

    @live
    def step(self) -> str | None:
        return None if self._marker is None else str(self._marker.params["step"])

    @live
    def points(self) -> int:
        """Initiative points now (the round's cost is taken at its end)."""
        return self._st.initiative

    @live
    def attention_points(self) -> int:
        """Attention points now: 1 fewer per 4 points of perception lost."""
        return self._st.attention_points(self.sheet)

    @live
    def heroism(self) -> int:
        return self._st.heroism

    @live
    def off_hand(self) -> Weapon | None:
        return self._st.off_hand

    @live
    def carried(self) -> tuple[Weapon, ...]:
        return self._st.carried

    @live
    def weapon_ready(self) -> bool:
        return self._st.weapon_ready

    @live
    def changing(self) -> Mapping[str, Any] | None:
        """At a change step, the action that could not be carried out."""
        plan = self._st.plan
        if self.step != "change" or plan is None:
            return None
        return {
            "kind": plan.kind,
            "target": plan.target,
            "category": plan.category,
            "moves": plan.extra_moves,
        }

    @live
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._o.actions)

    def in_contact(self, other: OtherView) -> bool:
        return within(self.position, other.position, CONTACT)
