"""Built-in Chroniques policies: they decide only on their own turn.

* ``aggressive``: closes in and attacks the weakest opponent within reach (two weapons
  when that deals more on average, shooting when holding a ranged weapon);
* ``cautious``: the same, but takes total defence when badly hurt in contact, and
  simple defence when a move leaves it out of reach;
* ``support``: makes concerted attacks for an ally when its own attack would rarely hit.

They are not reactive: the rules call them when their turn comes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.native import mypyc_attr
from segsim.policies import register_rule_views
from segsim.policy import Observation, register_policy
from segsim.rules.chroniques.attack import (
    CONCERTED_DIFFICULTY,
    CONTACT,
    TWO_WEAPON_DIE,
    critical_from,
)
from segsim.rules.chroniques.content import Weapon
from segsim.rules.chroniques.turns import TURN
from segsim.rules.chroniques.views import OtherView, SelfView

if TYPE_CHECKING:
    from segsim.rules.chroniques.ruleset import Chroniques
    from segsim.state import FightState


def hit_chance(bonus: int, difficulty: int, die: int = 20, critical: int | None = 20) -> float:
    """Chance that ``die + bonus`` reaches ``difficulty`` (1 always fails, a critical face
    always succeeds)."""
    # The faces 2..die from the lowest that hits on: counted, not looped over.
    lowest = difficulty - bonus
    if critical is not None and critical < lowest:
        lowest = critical
    if type(lowest) is not int:
        lowest = math.ceil(lowest)
    if lowest < 2:
        lowest = 2
    faces = die - lowest + 1
    return (faces if faces > 0 else 0) / die


def average_damage(me: SelfView, weapon: Weapon) -> float:
    return max(1.0, weapon.damage.average + me.sheet.damage_bonus(weapon))


def opponents(obs: Observation) -> list[OtherView]:
    """The opponents in view; with none in view (a battle's rear ranks, beyond the
    ruleset's ``awareness``), the nearest one still in the fight; none when none is
    left."""
    me: SelfView = obs.me
    found = [o for o in obs.others if o.side != me.side]
    if not found:
        nearest = me.nearest_opponent
        if nearest is not None:
            found.append(nearest)
    return found


def pick_target(me: SelfView, targets: list[OtherView]) -> OtherView:
    """Within reach first, then the fewest hit points, the lowest DEF, the nearest."""
    return min(
        targets,
        key=lambda o: (not me.in_range(o), o.hit_points, o.defence, me.distance(o), o.id),
    )


def two_weapons_better(me: SelfView, target: OtherView) -> bool:
    """Two d12 attacks against one d20 attack, by expected damage."""
    if me.off_hand is None or me.off_attack is None or me.weapon.kind != "melee":
        return False
    one = hit_chance(me.attack, target.defence, 20, me.weapon.critical) * average_damage(
        me, me.weapon
    )
    crit_main = critical_from(me.weapon, TWO_WEAPON_DIE, True)
    crit_off = critical_from(me.off_hand, TWO_WEAPON_DIE, True)
    two = hit_chance(me.attack, target.defence, TWO_WEAPON_DIE, crit_main) * average_damage(
        me, me.weapon
    ) + hit_chance(me.off_attack, target.defence, TWO_WEAPON_DIE, crit_off) * average_damage(
        me, me.off_hand
    )
    return two > one


def strike(me: SelfView, target: OtherView) -> Declaration:
    if two_weapons_better(me, target):
        return Declaration("two_weapons", target.id)
    return Declaration("attack", target.id)


def approach_point(me: SelfView, target: OtherView, stop: float) -> tuple[float, float]:
    """The point one move brings the fighter to on the way to ``stop`` metres from target."""
    gap = me.distance(target)
    step = min(me.sheet.speed, max(0.0, gap - stop))
    x, y = me.position
    tx, ty = target.position
    return (round(x + (tx - x) * step / gap, 2), round(y + (ty - y) * step / gap, 2))


POSITION_SLACK = 0.02  # metres: twice the rounding of positions


def attack_turn(me: SelfView, target: OtherView) -> list[DeclarationLike]:
    """Attack if within reach; else move (once or twice) and attack if one move is enough."""
    if me.in_range(target):
        return [strike(me, target)]
    gap = me.distance(target)
    if me.weapon.kind == "melee":
        # Positions are kept to the centimetre: a gap a hair over one move is one move.
        if gap - CONTACT <= me.sheet.speed + POSITION_SLACK:
            return [Declaration("move", target.id), Declaration("attack", target.id)]
        return [Declaration("move", target.id), Declaration("move", target.id)]
    stop = me.weapon.range - 1.0
    to = approach_point(me, target, stop)
    if math.dist(to, target.position) <= me.weapon.range:
        return [Declaration("move", params={"to": to}), Declaration("attack", target.id)]
    return [Declaration("move", params={"to": to})]


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive:
    """Attacks the weakest opponent in reach, closing in when nobody is."""

    name = "aggressive"
    reactive = False

    def unconcerned(
        self, rules: Chroniques, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """True when it would decide nothing: see :func:`off_turn`."""
        return off_turn(self, state, cid, segment)

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if not me.my_turn:
            return None
        targets = opponents(obs)
        if not targets:
            return Declaration("pass")
        return attack_turn(me, pick_target(me, targets))


@mypyc_attr(allow_interpreted_subclasses=True)
class Cautious:
    """Attacks like ``aggressive`` while healthy; below a third of its hit points it
    takes total defence when an opponent is in contact; after a move that leaves it out of
    reach it takes simple defence."""

    name = "cautious"
    reactive = False

    def unconcerned(
        self, rules: Chroniques, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """True when it would decide nothing: see :func:`off_turn`."""
        return off_turn(self, state, cid, segment)

    def __init__(self, hurt: float = 1 / 3) -> None:
        self.hurt = hurt

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if not me.my_turn:
            return None
        targets = opponents(obs)
        if not targets:
            return Declaration("pass")
        if me.hit_points <= self.hurt * me.max_hit_points and any(
            me.in_contact(o) for o in targets
        ):
            return Declaration("total_defence")
        turn = attack_turn(me, pick_target(me, targets))
        kinds = [d.kind for d in turn if isinstance(d, Declaration)]
        if kinds == ["move"]:
            return [*turn, Declaration("simple_defence")]
        if kinds == ["move", "move"]:
            return [turn[0], Declaration("simple_defence")]
        return turn


@mypyc_attr(allow_interpreted_subclasses=True)
class Support:
    """Helps an ally with a concerted attack when its own attack would hit less often than
    the concerted test succeeds and an ally who has yet to act this round (or any ally)
    is in contact with the same opponent; otherwise attacks like ``aggressive``."""

    name = "support"
    reactive = False

    def unconcerned(
        self, rules: Chroniques, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """True when it would decide nothing: see :func:`off_turn`."""
        return off_turn(self, state, cid, segment)

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if not me.my_turn:
            return None
        targets = opponents(obs)
        if not targets:
            return Declaration("pass")
        if me.weapon.kind == "melee":
            allies = [o for o in obs.others if o.side == me.side]
            crit = me.weapon.critical
            assist = hit_chance(me.attack, CONCERTED_DIFFICULTY, 20, crit)
            for target in sorted(targets, key=lambda o: (o.hit_points, o.id)):
                if not me.in_contact(target):
                    continue
                if hit_chance(me.attack, target.defence, 20, crit) >= assist:
                    continue
                engaged = [a for a in allies if math.dist(a.position, target.position) <= CONTACT]
                if engaged:
                    partner = min(engaged, key=lambda a: (a.acted, a.id))
                    return Declaration("concerted_attack", target.id, {"partner": partner.id})
        return attack_turn(me, pick_target(me, targets))


TURN_ONLY: frozenset[type] = frozenset({Aggressive, Cautious, Support})
"""The built-in policies, which decide only when their fighter's turn starts
(``SelfView.my_turn``) and return None at any other call: their own classes, not a
subclass, which may decide otherwise."""


def off_turn(policy: object, state: FightState, cid: str, segment: int) -> bool:
    """A built-in policy's ``unconcerned()`` (the engine's shortcut,
    :func:`segsim.fight.unconcerned_hook`): True, promising it would decide nothing, when
    it is one of :data:`TURN_ONLY` and no turn of its fighter starts in this segment
    (what makes ``my_turn`` true in :meth:`Chroniques.observe`). The engine then neither
    observes it nor asks it to decide: most of the calls of a Chroniques fight are of
    fighters whose wait for their turn went on (an ``await`` re-planned)."""
    if type(policy) not in TURN_ONLY:
        return False
    quiet = True
    for a in state.combatants[cid].actions:  # (a loop, not all(): once a call)
        if a.kind == TURN and a.start == segment:
            quiet = False
            break
    return quiet


register_rule_views("chroniques", SelfView, OtherView)
register_policy("chroniques", "aggressive", Aggressive)
register_policy("chroniques", "cautious", Cautious)
register_policy("chroniques", "support", Support)
