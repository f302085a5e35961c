"""The Rupture ruleset (text 002): pools of d6 counting qualities, attack value against
defence value, effort points, physical stress and overflows, on the segment clock.

How it maps onto segments (see :mod:`segsim.rules.rupture.passe`): a passe is
``passe_segments`` segments; each fighter has as many slots in it as its sheet has
actions, and every action that costs one fills the rest of its slot. A targeted action
resolves in two steps: its test is rolled and published as the action completes, the
target is then called (:meth:`Rupture.due`) to declare its optional free defence, and the
blow lands at the end of that segment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from segsim.actions import Action, ActionSpec, Declaration, DeclarationLike
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration
from segsim.events import Event
from segsim.input import Node
from segsim.native import mypyc_attr
from segsim.observation import ViewObservation
from segsim.policy import Observation
from segsim.rules import BaseRuleset, given_content, is_distance
from segsim.rules.rupture.content import (
    TARGETED,
    Content,
    Sheet,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.rupture.declare import (
    BLOW,
    RULE_TARGETED,
    UNTARGETED,
    defends_against,
    free_now,
    in_exchange,
    plan,
)
from segsim.rules.rupture.events import PasseStarted
from segsim.rules.rupture.passe import next_boundary, passe_of
from segsim.rules.rupture.settle import Settlement
from segsim.rules.rupture.status import Status
from segsim.rules.rupture.views import SelfView, incoming_of
from segsim.state import FightState

_PASS = Declaration("pass")
"""The idle declaration (one object: the engine checks it once)."""

PASSE_SEGMENTS = 30
"""A passe in segments by default (RULES-NOTES, "Time")."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@mypyc_attr(allow_interpreted_subclasses=True)
class Rupture(BaseRuleset):
    """Rupture (text 002): targeted actions per passe, attack value against defence value,
    effort points, physical stress, rupture thresholds and overflows.

    Options: ``passe_segments`` (segments of a passe, 30), ``wound_from`` (the smallest
    overflow that notes a wound, 1), ``stress_out`` (whether physical stress reaching the
    sheet's ``stress_max`` takes a fighter out of the fight, true), ``awareness`` (metres:
    a fighter sees, and is woken by, only those within it; None, the default: everyone,
    as at a table; for battles); see docs/rules/rupture.md.
    """

    name: ClassVar[str] = "rupture"
    title: ClassVar[str] = "Rupture: qualities, effort, stress and overflows (text 002)"

    def __init__(
        self,
        *,
        passe_segments: int = PASSE_SEGMENTS,
        wound_from: int = 1,
        stress_out: bool = True,
        awareness: float | None = None,
        content: Any = None,  # a Content or None: read as Any until checked (native.py)
    ) -> None:
        _check(
            _is_int(passe_segments) and 1 <= passe_segments <= 600,
            f"passe_segments must be an integer from 1 to 600, not {passe_segments!r}",
        )
        _check(
            _is_int(wound_from) and 1 <= wound_from <= 8,
            f"wound_from must be an integer from 1 to 8, not {wound_from!r}",
        )
        _check(
            isinstance(stress_out, bool), f"stress_out must be true or false, not {stress_out!r}"
        )
        _check(
            awareness is None or is_distance(awareness),
            f"awareness is a distance in metres, not {awareness!r}",
        )
        self.content = given_content(content, Content, default_content)
        self.awareness: float | None = float(awareness) if awareness is not None else None
        self.passe = passe_segments
        self.tick = passe_segments
        self.wound_from = wound_from
        self.stress_out = stress_out
        self.options: Mapping[str, Any] = {
            "passe_segments": passe_segments,
            "wound_from": wound_from,
            "stress_out": stress_out,
        }
        if awareness is not None:
            self.options = {**self.options, "awareness": self.awareness}

    # ------------------------------------------------------------ sheets

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def new_status(self, sheet: Sheet) -> Status:
        return Status.of(sheet)

    def load_setup(self, node: Node) -> dict[str, Any]:
        """The game master's calls for one fighter (``[combatant.setup]``):
        ``circumstances``, a difficulty change by skill for this fight (fog for the
        archer, a crowd to persuade) (Rupture, "Les actions ciblées")."""
        setup: dict[str, Any] = {}
        if node.has("circumstances"):
            table = node.table("circumstances")
            setup["circumstances"] = {
                skill: table.value(skill, int, min=-5, max=5) for skill, _ in list(table.items())
            }
        node.finish()
        return setup

    # ------------------------------------------------------------ time

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        return [PasseStarted(0, None, 1)]

    def idle(self, state: FightState, cid: str, segment: int) -> Declaration:
        """Who must act and declares nothing lets its slot go by; but one whose slot
        begins while a blow it gave or takes lands (it may start nothing before the blow:
        :func:`~segsim.rules.rupture.declare.in_exchange`) and whose slot goes on
        after it waits for it, and is called again as soon as it has landed."""
        sheet: Sheet = state.combatants[cid].sheet
        if (
            next_boundary(segment, sheet.actions, self.passe) > segment + 1
            and in_exchange(state, cid, segment) is not None
        ):
            return Declaration("wait", params={"until": segment + 1})
        return _PASS

    def due(self, state: FightState, time: int) -> Sequence[str]:
        """The targets of attacks whose rolls were just published: they may declare a
        free defence in the segment beginning now (Rupture, "Se défendre"), unless they
        announced it before the roll."""
        autonomous = state.autonomous
        if not autonomous:
            return ()
        found: list[str] = []
        for a in autonomous.values():
            if a.start == time and a.kind == BLOW and a.target is not None:
                target = state.combatants.get(a.target)
                if (
                    target is not None
                    and target.in_fight
                    and a.target not in found
                    and not defends_against(target, a.actor, ())
                ):
                    found.append(a.target)
        return found

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        return plan(state, state.combatants[cid], declaration, segment, planned, self.passe)

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        raise IllegalDeclaration(
            f"{action.kind} #{action.id} cannot be cancelled: a declared action is played",
            rule=RULE_TARGETED,
        )

    # ------------------------------------------------------------ resolution

    # No order_key: simultaneous completions go by fighter order (BaseRuleset's).

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        settlement = Settlement(self, state, segment, dice)
        settlement.run(batch)
        time = segment + 1
        if time % self.passe == 0:
            settlement.emit(PasseStarted(time, None, passe_of(time, self.passe)))
        return settlement.events

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        # The fighter's own view finds, on first use, who else it sees and what it may
        # declare (a ViewObservation: no function made for each observation). Both are
        # made without a call of their classes (once a decision: a Python class's call
        # costs about as much again as the stores of its __init__): these stores are
        # SelfView(state, segment, c, self)'s and ViewObservation(segment, cid,
        # must_act, me, state)'s, which tests/test_rupture_views.py checks they match.
        c = state.combatants[cid]
        me = _new_self_view(SelfView)
        me._state = state
        me._version = version = state.version
        me._segment = segment
        me._o = c
        me.id = cid
        me.side = c.side
        me.position = c.position
        status: Status = c.status
        me.effort = status.effort
        me.stress = status.stress
        me.sheet = sheet = c.sheet
        me.stress_max = sheet.stress_max
        me._rules = self
        me._passe = passe = self.passe
        me.passe = segment // passe + 1  # passe_of()
        me.bonus = status.bonus
        me.malus = status.malus
        me.incoming = incoming_of(state, segment, c) if state.autonomous else ()
        me.free = free_now(state, c, segment, passe)
        obs = _new_observation(ViewObservation)
        obs.segment = segment
        obs.actor = cid
        obs.must_act = must_act
        obs.me = me
        obs._others = obs._by_id = obs._legal = None
        obs._state = state
        obs._version = version
        return obs

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        c = state.combatants[cid]
        sheet: Sheet = c.sheet
        candidates: list[Declaration] = [Declaration("pass")]
        for o in state.in_fight():
            if o.id == cid:
                continue
            if o.side == c.side:
                candidates += [Declaration("help", o.id), Declaration("heal", o.id)]
                continue
            candidates.append(Declaration("defend", o.id))
            for kind in TARGETED:
                for w in sheet.means(kind):
                    candidates.append(Declaration(kind, o.id, {"weapon": w.id}))
            candidates.append(Declaration("move", o.id))
        candidates += [Declaration("prepare"), Declaration("acrobatics")]
        out: list[DeclarationLike] = []
        for d in candidates:
            try:
                self.plan(state, cid, d, segment, [])
            except IllegalDeclaration:
                continue
            out.append(d)
        return tuple(out)


# The deciding fighter's view and its observation, made without calling their classes
# (by their own __new__: object.__new__ in the pure build).
_new_self_view = SelfView.__new__
_new_observation = ViewObservation.__new__

__all__ = ["PASSE_SEGMENTS", "UNTARGETED", "Rupture"]
