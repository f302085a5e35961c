"""Built-in Loreval policies: they decide at their own declaration and change steps.

* ``aggressive``: attacks the nearest opponent with as many attacks as its points pay
  for (moving in when needed), Focus as the category needs and the rest in Security;
  takes a grace round when 1 or 2 points are left;
* ``cautious``: keeps to actions of category 3 at most, keeps 1 point in Environment
  (to read the others' attention) when it can, and takes a grace round from 3 points
  down.

At a change step both attack the nearest opponent they can still reach with a lower
category, or let the action go.
"""

from __future__ import annotations

import math

from segsim.actions import Declaration, PolicyOutput
from segsim.policy import Observation, register_policy
from segsim.rules.loreval.attention import focus_needed
from segsim.rules.loreval.categories import adjusted_category, attack_category, mode_of
from segsim.rules.loreval.combat import CONTACT
from segsim.rules.loreval.views import OtherView, SelfView


def opponents(obs: Observation) -> list[OtherView]:
    me: SelfView = obs.me
    return sorted(
        (o for o in obs.others if o.side != me.side),
        key=lambda o: (round(me.distance(o), 2), o.hit_points, o.id),
    )


def moves_to_reach(me: SelfView, target: OtherView) -> int:
    """Extra moves needed to come into contact (0 at range or in contact)."""
    if me.weapon.ranged:
        return 0
    gap = me.distance(target) - CONTACT
    if gap <= 0.01:
        return 0
    return math.ceil((gap - 0.01) / me.sheet.speed)


def best_attack(
    me: SelfView, target: OtherView, budget: int, environment: int, cap: int = 5
) -> Declaration | None:
    """The attack with the most blows whose category fits ``budget`` and ``cap`` and
    whose Focus fits the attention points (``environment`` kept in Environment)."""
    moves = moves_to_reach(me, target)
    ready = int(not me.weapon_ready)
    points = me.attention_points
    for attacks in (5, 4, 3, 2, 1):
        mode = mode_of(me.weapon, me.off_hand, attacks)
        base = attack_category(mode, attacks)
        if base is None:
            continue
        category = adjusted_category(base, extra_moves=moves, ready=ready)
        if category > min(budget, cap, me.sheet.max_category) or moves + 0 > me.sheet.pace:
            continue
        focus = max(focus_needed(category), 1 if me.weapon.ranged else 0)
        env = environment if focus + environment <= points else 0
        if focus + env > points:
            continue
        attention = {"environment": env, "security": points - focus - env, "focus": focus}
        params: dict[str, object] = {"attacks": attacks, "attention": attention}
        if moves:
            params["moves"] = moves
        return Declaration("attack", target.id, params)
    return None


def approach(me: SelfView, target: OtherView, budget: int) -> Declaration | None:
    """Move toward the target with as many extra moves as the budget allows (at most 2)."""
    moves = max(0, min(2, budget - 1, me.sheet.pace - 1, moves_to_reach(me, target) - 1))
    category = 1 + moves
    if category > budget:
        return None
    focus = focus_needed(category)
    points = me.attention_points
    attention = {"environment": 0, "security": points - focus, "focus": focus}
    params: dict[str, object] = {"attention": attention}
    if moves:
        params["moves"] = moves
    return Declaration("move", target.id, params)


def change(me: SelfView, obs: Observation) -> PolicyOutput:
    """At a change step: one attack on the nearest opponent in reach, if any."""
    old = me.changing
    if old is None:
        return None
    for target in opponents(obs):
        mode = mode_of(me.weapon, me.off_hand, 1)
        base = attack_category(mode, 1)
        if base is None:
            continue
        moves = moves_to_reach(me, target)
        if adjusted_category(base, extra_moves=moves) < old["category"]:
            params: dict[str, object] = {"attacks": 1}
            if moves:
                params["moves"] = moves
            return Declaration("attack", target.id, params)
    return None


class Aggressive:
    """Attacks the nearest opponent as hard as its points allow."""

    name = "aggressive"
    reactive = False
    cap = 5
    environment = 0
    grace_below = 3

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if me.step == "change":
            return change(me, obs)
        if me.step != "declare":
            return None
        targets = opponents(obs)
        points = me.initiative
        keep = {"environment": 0, "security": me.attention_points, "focus": 0}
        if not targets:
            return Declaration("inaction", params={"attention": keep})
        if 1 <= points < self.grace_below:
            return Declaration("grace", params={"attention": keep})
        for target in targets:
            found = best_attack(me, target, points, self.environment, self.cap)
            if found is not None:
                return found
        move = approach(me, targets[0], points)
        if move is not None:
            return move
        if 1 <= points <= 5:
            return Declaration("grace", params={"attention": keep})
        return Declaration("inaction", params={"attention": keep})


class Cautious(Aggressive):
    """Attacks with category 3 at most, keeps a point in Environment, rests sooner."""

    name = "cautious"
    cap = 3
    environment = 1
    grace_below = 4


register_policy("loreval", "aggressive", Aggressive)
register_policy("loreval", "cautious", Cautious)
