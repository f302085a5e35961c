"""Built-in RinKaNou policies: an aggressive attacker and a defender that dodges.

They use only what the observation shows: an opponent's motion and its start segment,
never its hidden kind or end.
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


def strike_or_arm(obs: Observation, target: OtherView) -> Declaration | None:
    """Arm when not armed, strike when armed; nothing while the weapon is busy."""
    me: SelfView = obs.me
    if me.must_lock or me.doing("hands") is not None:
        return None
    if not me.armed:
        return Declaration("arm")
    blow = max(me.weapon.blows, key=lambda b: me.weapon.damage[b])
    return Declaration("strike", target.id, {"blow": blow})


def expected_landing(other: OtherView) -> int | None:
    """The segment in which ``other``'s weapon motion would land as a blow, if it is one.

    A motion begun unarmed is read as arm then strike (two weapon speeds); a motion begun
    armed as a strike (one speed). A public lock is no threat.
    """
    motion = other.motion("weapon")
    if motion is None or motion.kind == "lock":
        return None
    speed = other.weapon.speed
    if other.armed:
        return motion.start + speed - 1
    return motion.start + 2 * speed - 1


class Aggressive:
    """Attacks the nearest opponent again and again: arm, strike, (lock), repeat."""

    name = "aggressive"
    reactive = False

    def decide(self, obs: Observation) -> PolicyOutput:
        target = nearest_opponent(obs)
        if target is None:
            return None
        return strike_or_arm(obs, target)


class Defender:
    """Waits, times a dodge to end in the segment a seen blow should land, and ripostes
    while the attacker locks after its strike.

    It keeps its plan between segments: once it has seen a blow coming, it dodges at the
    planned segment even if the motion it saw has turned from arming into striking.
    """

    name = "defender"
    reactive = True

    def __init__(self) -> None:
        self.dodge_at: int | None = None

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        out: list[DeclarationLike] = []
        legs_free = me.doing("legs") is None
        for other in obs.others:
            if other.side == me.side:
                continue
            land = expected_landing(other)
            if land is None:
                continue
            start = land - DODGE_SEGMENTS + 1
            if start >= obs.segment and (self.dodge_at is None or start < self.dodge_at):
                self.dodge_at = start
        if self.dodge_at is not None and self.dodge_at < obs.segment:
            self.dodge_at = None
        if self.dodge_at is not None and legs_free:
            if self.dodge_at == obs.segment:
                out.append(Declaration("dodge"))
                self.dodge_at = None
            elif not any(
                a.kind == "wait" and a.params.get("until") == self.dodge_at for a in me.actions
            ):
                out.append(Declaration("wait", params={"until": self.dodge_at}))
        target = nearest_opponent(obs)
        if target is not None:
            seen = target.motion("weapon")
            opening = seen is not None and seen.kind == "lock"
            if me.armed or opening:
                attack = strike_or_arm(obs, target)
                if attack is not None:
                    out.append(attack)
        return out or None


register_policy("rinkanou", "aggressive", Aggressive)
register_policy("rinkanou", "defender", Defender)
