"""Built-in RinKaNou policies: an aggressive attacker and a defender.

They use only what the observation shows: an opponent's motion and its start segment,
never its hidden kind or end. Both handle situation points: a negative score is bought
back (the attacker by striking slower, the defender by taking a malus so its timing
holds), and the defender spends points to shorten a late dodge or to dodge two blows.
"""

from __future__ import annotations

import math

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.policy import Observation, register_policy
from segsim.rules.rinkanou.ruleset import DODGE_SEGMENTS
from segsim.rules.rinkanou.views import OtherView, SelfView


def nearest_opponent(obs: Observation) -> OtherView | None:
    """The closest combatant of another side (ties: the order of the fight)."""
    me: SelfView = obs.me
    best: OtherView | None = None
    best_d = math.inf
    for o in obs.others:
        if o.side == me.side:
            continue
        d = math.dist(me.position, o.position)
        if d < best_d:
            best, best_d = o, d
    return best


def buy_back(
    me: SelfView,
    decl: Declaration,
    *,
    against: str | None,
    duration: int | None,
    keep_timing: bool,
) -> Declaration:
    """Add the PS buys a negative score requires: slower first (unless the timing must
    hold), then a malus to the roll."""
    score = me.ps_against.get(against, 0) if against is not None else me.ps
    if score >= 0:
        return decl
    need = -score
    ps = dict(decl.params.get("ps", {}))
    if duration is not None and not keep_timing:
        slower = min(need, math.ceil(duration / 2))
        ps["slower"] = slower
        need -= slower
    if need:
        ps["malus"] = ps.get("malus", 0) + need
    return Declaration(decl.kind, decl.target, {**decl.params, "ps": ps})


def strike_or_arm(obs: Observation, target: OtherView) -> Declaration | None:
    """Arm when not armed, strike when armed and in reach; nothing while the weapon is
    busy. A strike buys back a negative score by taking more time."""
    me: SelfView = obs.me
    if me.must_lock or me.doing("hands") is not None or me.weapon_pr <= 0:
        return None
    if not me.armed:
        return Declaration("arm")
    blow = max(me.weapon.blows, key=lambda b: me.weapon.damage[b])
    strike = Declaration("strike", target.id, {"blow": blow})
    return buy_back(me, strike, against=target.id, duration=me.weapon.speed, keep_timing=False)


def approach(obs: Observation, target: OtherView) -> Declaration | None:
    """Walk toward an opponent out of reach (a few segments at a time)."""
    me: SelfView = obs.me
    if me.doing("legs") is not None:
        return None
    return Declaration("move", params={"toward": target.id, "segments": 5})


def in_reach(obs: Observation, target: OtherView, reach: float) -> bool:
    me: SelfView = obs.me
    return math.dist(me.position, target.position) <= reach + 1e-9


def expected_landing(other: OtherView) -> int | None:
    """The segment in which ``other``'s weapon motion would land as a blow, if it is one.

    A motion begun unarmed is read as arm then strike (two weapon speeds); a motion begun
    armed as a strike (one speed). A known lock is no threat; a revealed strike lands
    when the read said.
    """
    motion = other.motion("weapon")
    if motion is None or motion.kind in ("lock", "parry"):
        return None
    speed = other.weapon.speed
    if motion.ends_in is not None:  # read, or public
        return motion.ends_in if motion.kind == "strike" else motion.ends_in + speed
    if other.armed:
        return motion.start + speed - 1
    return motion.start + 2 * speed - 1


class Aggressive:
    """Attacks the nearest opponent again and again: arm, strike, (lock), repeat; walks
    into reach first."""

    name = "aggressive"
    reactive = False

    def decide(self, obs: Observation) -> PolicyOutput:
        target = nearest_opponent(obs)
        if target is None:
            return None
        reach = _reach(obs)
        if not in_reach(obs, target, reach):
            return approach(obs, target)
        return strike_or_arm(obs, target)


class Defender:
    """Times a defence to end in the segment a seen blow should land, and ripostes while
    the attacker locks after its strike.

    It parries with its shield when it has one, with its weapon when the blow is armed in
    time, and otherwise dodges. A dodge seen late is shortened with PS when the score
    allows; two blows landing together are dodged with a multiple dodge.
    """

    name = "defender"
    reactive = True

    def __init__(self) -> None:
        self.defend_at: int | None = None
        self.blows = 1

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        out: list[DeclarationLike] = []
        landings = [
            t
            for t in (expected_landing(o) for o in obs.others if o.side != me.side)
            if t is not None and t >= obs.segment
        ]
        if landings:
            first = min(landings)
            if self.defend_at is None or first < self.defend_at:
                self.defend_at = first
                self.blows = landings.count(first)
        if self.defend_at is not None and self.defend_at < obs.segment:
            self.defend_at = None
        if self.defend_at is not None:
            defence = self.defence(obs, self.defend_at)
            if defence is not None:
                out.append(defence)
                self.defend_at = None
            elif not any(
                a.kind == "wait" and a.params.get("until") == self._start(obs, self.defend_at)
                for a in me.actions
            ):
                start = self._start(obs, self.defend_at)
                if start > obs.segment:
                    out.append(Declaration("wait", params={"until": start}))
        target = nearest_opponent(obs)
        if target is not None and not any(d.kind in ("parry",) for d in out):
            seen = target.motion("weapon")
            opening = seen is not None and seen.kind == "lock"
            if (me.armed or opening) and in_reach(obs, target, _reach(obs)):
                attack = strike_or_arm(obs, target)
                if attack is not None:
                    out.append(attack)
        return out or None

    def _start(self, obs: Observation, land: int) -> int:
        """The segment at which to start the planned defence so that it ends at ``land``."""
        me: SelfView = obs.me
        shield = me.sheet.shield
        if shield is not None and me.shield_pr > 0:
            return land - shield.speed + 1
        return land - DODGE_SEGMENTS + 1

    def defence(self, obs: Observation, land: int) -> Declaration | None:
        """The defence to declare now so that it ends in ``land``, if now is the time."""
        me: SelfView = obs.me
        left = land - obs.segment + 1  # segments available, this one included
        shield = me.sheet.shield
        if shield is not None and me.shield_pr > 0 and me.doing("shield") is None:
            if left == shield.speed:
                parry = Declaration("parry", params={"with": "shield"})
                return buy_back(me, parry, against=None, duration=shield.speed, keep_timing=True)
            return None
        if me.doing("legs") is not None:
            return None
        ps: dict[str, int] = {}
        if left < DODGE_SEGMENTS:
            faster = DODGE_SEGMENTS - left
            if left < 1 or faster > math.ceil(DODGE_SEGMENTS / 2) or me.usable_ps < faster:
                return None
            ps["faster"] = faster
        elif left > DODGE_SEGMENTS:
            return None
        if self.blows > 1 and me.usable_ps - sum(ps.values()) >= self.blows - 1:
            ps["multiple"] = self.blows - 1
        params = {"ps": ps} if ps else {}
        dodge = Declaration("dodge", params=params)
        return buy_back(me, dodge, against=None, duration=DODGE_SEGMENTS, keep_timing=True)


def _reach(obs: Observation) -> float:
    me: SelfView = obs.me
    return me.reach


register_policy("rinkanou", "aggressive", Aggressive)
register_policy("rinkanou", "defender", Defender)
