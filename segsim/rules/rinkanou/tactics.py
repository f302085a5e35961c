"""RinKaNou tactics a game master would recognise, and helpers for rule-list policies.

* :class:`CounterPuncher` (``"counter"``): on guard with a blow armed, it waits; when an
  opponent starts a weapon motion it tries to read it, parries so that the parry ends in
  the segment the blow lands (a motion read as a parry or a lock is left alone), arms
  again at once and ripostes while the attacker is unarmed, arming or locking. After
  ``patience`` parries without a riposte (another counter-puncher) it attacks once.
* :class:`PressureFighter` (``"pressure"``): keeps the initiative. It arms while closing
  in, strikes as soon as it is armed and in reach, arms again right after its lock, and
  jumps on any opening it sees (an opponent locking or arming). A positive score buys
  speed first (``faster``) then a bonus; a negative one is bought back with a malus to
  the roll rather than with time, so the tempo holds.

Both use only what the observation shows (DESIGN, principle 3; RULES-NOTES
"Observability").
"""

from __future__ import annotations

import math
from typing import Any

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.native import mypyc_attr
from segsim.policies import RuleContext, register_rule_helpers, register_rule_views
from segsim.policy import Observation, register_policy
from segsim.rules.rinkanou.decisions import (
    approach,
    arm_for,
    best_blow,
    buy_back_amounts,
    expected_landing,
    in_reach,
    nearest_opponent,
    ps_spent,
    shared_declaration,
)
from segsim.rules.rinkanou.policies import Defender
from segsim.rules.rinkanou.views import OtherView, SeenAction, SelfView

READ_KINDS = ("strike", "parry", "dodge", "reposition", "disengage")
"""Kinds whose resolution is a rolled test (a read beside them costs a concurrent malus)."""


def _rolled_in_progress(me: SelfView) -> bool:
    return any(a.rolled for a in me.actions)


@mypyc_attr(allow_interpreted_subclasses=True)
class CounterPuncher(Defender):
    """Waits on guard, reads the opponent's weapon motion, parries it, then ripostes.

    ``read_from``: how many segments an opponent's motion must have run before it is
    read (each one adds 20 % to the read). ``parry_force``: PS spent on the strength
    contest of a parry when the score allows.
    """

    name = "counter"
    reactive = True

    def __init__(self, read_from: int = 1, parry_force: bool = True, patience: int = 2) -> None:
        super().__init__(prefer="parry")
        self.name = "counter"
        if read_from < 0:
            raise ValueError(f"read_from is a number of segments >= 0, not {read_from!r}")
        if patience < 1:
            raise ValueError(f"patience is at least one parry, not {patience!r}")
        self.read_from = read_from
        self.parry_force = parry_force
        self.patience = patience
        self.parries = 0  # parries declared since its last strike
        self.read_tried: set[int] = set()

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        target = nearest_opponent(obs)
        if target is not None:
            seen = target.motion("weapon")
            if seen is not None and seen.kind in ("parry", "lock"):
                self.defend_at = None  # read (or public): no blow is coming from it
        if (
            self.parries >= self.patience
            and target is not None
            and me.doing("hands") is None
            and me.armed
            and not me.must_lock
            and in_reach(obs, target, me.reach)
        ):
            # Out of patience (parries met no riposte chance, as against another
            # counter-puncher): take the initiative once.
            decls: list[DeclarationLike] = []
            strike = _strike(me, target)
            if strike is not None:
                self.parries = 0
                self.defend_at = None
                return [strike]
        out = super().decide(obs)
        decls = [] if out is None else list(out) if isinstance(out, list | tuple) else [out]
        if not self.parry_force:
            decls = [_without_parry_force(d) for d in decls]
        busy_hands = me.doing("hands") is not None or any(
            isinstance(d, Declaration) and d.kind in ("strike", "parry", "arm") for d in decls
        )
        if (
            target is not None
            and not busy_hands
            and me.armed
            and not me.must_lock
            and in_reach(obs, target, me.reach)
            and self._opening(obs, target)
        ):
            # the riposte spends only what the defences declared beside it left
            riposte = _strike(me, target, spent=sum(ps_spent(d) for d in decls))
            if riposte is not None:
                decls.append(riposte)
        for d in decls:
            if isinstance(d, Declaration) and d.kind == "parry":
                self.parries += 1
            elif isinstance(d, Declaration) and d.kind == "strike":
                self.parries = 0
        read = self._read(obs, decls)
        if read is not None:
            decls.append(read)
        return decls or None

    def _opening(self, obs: Observation, target: OtherView) -> bool:
        """The opponent cannot land a blow before a riposte would (it is unarmed, or
        known to be arming or locking), and no parry planned needs the hands meanwhile."""
        seen = target.motion("weapon")
        exposed = not target.armed or (seen is not None and seen.kind in ("arm", "lock"))
        if not exposed:
            return False
        if self.defend_at is None:
            return True
        me: SelfView = obs.me
        speed = me.weapon.speed
        return self.defend_at - speed + 1 > obs.segment + speed - 1

    def _read(self, obs: Observation, decls: list[DeclarationLike]) -> Declaration | None:
        me: SelfView = obs.me
        if me.doing("eyes") is not None or _rolled_in_progress(me):
            return None
        if any(isinstance(d, Declaration) and d.kind in READ_KINDS for d in decls):
            return None  # a read beside a rolled action would cost it 10 %
        for other in obs.others:
            if other.side == me.side:
                continue
            seen = other.motion("weapon")
            if (
                seen is not None
                and seen.kind is None
                and seen.id not in self.read_tried
                and obs.segment - seen.start >= self.read_from
            ):
                self.read_tried.add(seen.id)
                return Declaration("read", other.id, {"action_id": seen.id})
        return None


def _without_parry_force(d: DeclarationLike) -> DeclarationLike:
    if not isinstance(d, Declaration) or "ps" not in d.params:
        return d
    ps = {k: v for k, v in d.params["ps"].items() if k != "parry_force"}
    params = {k: v for k, v in d.params.items() if k != "ps"}
    if ps:
        params["ps"] = ps
    return Declaration(d.kind, d.target, params)


def _strike(
    me: SelfView,
    target: OtherView,
    *,
    spend: bool = True,
    faster: bool = False,
    spent: int = 0,
) -> Declaration | None:
    """A strike with the best blow; spends a positive score (``faster`` first when asked,
    then a bonus of up to two points) and buys back a negative one with a malus.
    ``spent``: points already promised to other actions declared this segment."""
    if me.must_lock or me.doing("hands") is not None or not me.armed or me.weapon_pr <= 0:
        return None
    weapon = me.weapon
    score = me.ps_against.get(target.id, 0)
    usable = min(score, me.usable_ps - spent)
    sooner = bonus = None  # PS spent (None: not taken)
    if spend and usable > 0:
        if faster:
            sooner = min(usable, me.ps_limits("strike").get("faster", 0), 1)
            usable -= sooner
        if usable > 0:
            bonus = min(usable, 2)
    # A negative score is bought back as buy_back does, keeping the timing: a malus.
    _, malus = buy_back_amounts(score, weapon.speed, True)
    ps = ("faster", "bonus", "malus")
    blow = best_blow(weapon)
    return shared_declaration(
        "strike", target.id, ("blow",), ps, blow, sooner or None, bonus, malus
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class PressureFighter:
    """Chains attacks and keeps the tempo; buys a negative score back with a malus.

    ``faster``: spend a point to strike a segment sooner when the score allows.
    """

    name = "pressure"
    reactive = True

    def __init__(self, faster: bool = True) -> None:
        self.faster = faster

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        target = nearest_opponent(obs)
        if target is None or me.must_lock:
            return None
        out: list[DeclarationLike] = []
        hands_free = me.doing("hands") is None and me.weapon_pr > 0
        if not in_reach(obs, target, me.reach):
            move = approach(obs, target)
            if move is not None:
                out.append(move)
            if hands_free and not me.armed:
                out.append(arm_for(me))  # arm on the way in (drawing it first if need be)
            return out or None
        if not hands_free:
            return None
        if not me.armed:
            return arm_for(me)  # arming has no roll: a deficit is bought on the strike
        return _strike(me, target, faster=self.faster)


# ---------------------------------------------------------------- rule-list helpers


def _in_reach(ctx: RuleContext, other: OtherView | None) -> bool:
    """Whether ``other`` is within the deciding fighter's reach now."""
    if other is None:
        return False
    return in_reach(ctx.obs, other, ctx.obs.me.reach)


def _landing(ctx: RuleContext, other: OtherView | None) -> int | None:
    """The segment in which ``other``'s weapon motion would land as a blow (None: none)."""
    if other is None:
        return None
    return expected_landing(other)


def _motion(ctx: RuleContext, other: OtherView | None, motion: str = "weapon") -> Any:
    """``other``'s visible action of that motion class ("weapon", "movement"), or None."""
    if other is None:
        return None
    seen: SeenAction | None = other.motion(motion)
    return seen


def _busy(ctx: RuleContext, channel: str) -> bool:
    """Whether the deciding fighter has an action in progress in ``channel``."""
    me: SelfView = ctx.obs.me
    return me.doing(channel) is not None


def _elapsed(ctx: RuleContext, seen: SeenAction | None) -> int:
    """Segments an observed action has run (0 when there is none)."""
    return 0 if seen is None else ctx.obs.segment - seen.start


def _distance(ctx: RuleContext, other: OtherView | None) -> float:
    if other is None:
        return math.inf
    return math.dist(ctx.obs.me.position, other.position)


def _deficit(ctx: RuleContext, other: OtherView | None) -> int:
    """Points a new action against ``other`` (None: any) must buy back (0 when the
    score is not negative there)."""
    me: SelfView = ctx.obs.me
    score = me.ps_against.get(other.id, 0) if other is not None else me.ps
    return max(0, -score)


def _best_blow(ctx: RuleContext) -> str:
    me: SelfView = ctx.obs.me
    return best_blow(me.weapon)


register_rule_helpers(
    "rinkanou",
    {
        "in_reach": _in_reach,
        "landing": _landing,
        "motion": _motion,
        "busy": _busy,
        "elapsed": _elapsed,
        "distance": _distance,
        "best_blow": _best_blow,
        "deficit": _deficit,
    },
)
register_rule_views("rinkanou", SelfView, OtherView)
register_policy("rinkanou", "counter", CounterPuncher)
register_policy("rinkanou", "pressure", PressureFighter)
