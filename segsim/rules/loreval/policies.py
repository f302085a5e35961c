"""Built-in Loreval policies: they decide at their own declaration and change steps.

* ``aggressive``: attacks the nearest opponent with as many attacks as its points pay
  for (moving in when needed), Focus as the category needs and the rest in Security;
  takes a grace round when 1 or 2 points are left;
* ``counter``: answers declared attacks with counters (see :class:`Counter`);
* ``grappler``: grabs, crushes, escapes (see :class:`Grappler`);
* ``cautious``: keeps to actions of category 3 at most, keeps 1 point in Environment
  (to read the others' attention) when it can, and takes a grace round from 3 points
  down.

At a change step both attack the nearest opponent they can still reach with a lower
category, or let the action go.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segsim.actions import Declaration, PolicyOutput
from segsim.actions import shared_declaration as _declaration
from segsim.native import mypyc_attr
from segsim.policies import RuleContext, register_rule_helpers, register_rule_views
from segsim.policy import Observation, register_policy
from segsim.rules.loreval.attention import focus_needed
from segsim.rules.loreval.categories import (
    CATEGORY_BY_ATTACKS,
    adjusted_category,
    attack_category,
    mode_of,
)
from segsim.rules.loreval.combat import CONTACT
from segsim.rules.loreval.rounds import CHANGE, DECLARE, HEROIC, TURN
from segsim.rules.loreval.views import OtherView, SelfView

if TYPE_CHECKING:
    from segsim.rules.loreval.ruleset import Loreval
    from segsim.state import FightState


_DECIDING = frozenset((DECLARE, CHANGE, HEROIC))
"""The steps at which a fighter may declare (``Loreval.decides_nothing``'s)."""


def opponents(obs: Observation) -> list[OtherView]:
    """The opponents in view, nearest first (then the fewest hit points, then by id)."""
    me: SelfView = obs.me
    side = me.side
    here = me.position
    # each with its key made in the loop: me.distance(o) without its two calls, and no
    # key function called for each (the ids are unique: the views are never compared)
    keyed: list[tuple[float, int, str, OtherView]] = []
    for o in obs.others:
        if o.side != side:
            keyed.append((round(math.dist(here, o.position), 2), o.hit_points, o.id, o))
    if len(keyed) > 1:
        keyed.sort()
    found: list[OtherView] = []  # (a loop: no comprehension's frame)
    for k in keyed:
        found.append(k[3])
    return found


def stuck(me: SelfView) -> bool:
    """In a grapple or locked by a block: the fighter cannot move."""
    return me.held_by is not None or me.holding is not None or me.locked_with is not None


def moves_to_reach(me: SelfView, target: OtherView) -> int:
    """Extra moves needed to come into contact (0 at range or in contact; 99 when the
    fighter is in a grapple and cannot move)."""
    if me.weapon.ranged:
        return 0
    gap = math.dist(me.position, target.position) - CONTACT  # me.distance(), without its calls
    if gap <= 0.01:
        return 0
    if stuck(me):
        return 99
    return math.ceil((gap - 0.01) / me.sheet.speed)


def best_attack(
    me: SelfView, target: OtherView, budget: int, environment: int, cap: int = 5
) -> Declaration | None:
    """The attack with the most blows whose category fits ``budget`` and ``cap`` and
    whose Focus fits the attention points (``environment`` kept in Environment)."""
    moves = moves_to_reach(me, target)
    ready = int(not me.weapon_ready)
    points = me.attention_points
    weapon = me.weapon
    sheet = me.sheet
    # mode_of() depends on the number of blows only as one or more than one: its two
    # answers' categories read once, adjusted_category() without its call (no slow nor
    # haste here), the limits read once
    several = CATEGORY_BY_ATTACKS[mode_of(weapon, me.off_hand, 2)]
    single = CATEGORY_BY_ATTACKS[mode_of(weapon, me.off_hand, 1)]
    limit = min(budget, cap, sheet.max_category)
    too_far = moves > sheet.pace
    for attacks in (5, 4, 3, 2, 1):
        base = (several if attacks >= 2 else single).get(attacks)
        if base is None:
            continue
        category = base + moves + ready
        if category > limit or too_far:
            continue
        focus = max(focus_needed(category), 1 if weapon.ranged else 0)
        env = environment if focus + environment <= points else 0
        if focus + env > points:
            continue
        attention = {"environment": env, "security": points - focus - env, "focus": focus}
        params: dict[str, object] = {"attacks": attacks, "attention": attention}
        if moves:
            params["moves"] = moves
        return _declaration("attack", target.id, params)
    return None


def approach(me: SelfView, target: OtherView, budget: int) -> Declaration | None:
    """Move toward the target with as many extra moves as the budget allows (at most 2)."""
    if stuck(me):
        return None
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
    return _declaration("move", target.id, params)


def charge(me: SelfView, target: OtherView, budget: int) -> Declaration | None:
    """A charge when the target is 2 moves away or more (Focus 2, the rest in
    Security); None when it does not fit the points or the pace."""
    if me.weapon.ranged or stuck(me):
        return None
    moves = max(2, moves_to_reach(me, target))
    base = attack_category(mode_of(me.weapon, None, 1), 1)
    if base is None:
        return None
    category = adjusted_category(base, extra_moves=moves, ready=int(not me.weapon_ready))
    points = me.attention_points
    if category > min(budget, me.sheet.max_category) or moves > me.sheet.pace or points < 2:
        return None
    attention = {"environment": 0, "security": points - 2, "focus": 2}
    return _declaration("charge", target.id, {"moves": moves, "attention": attention})


def heroic(me: SelfView, obs: Observation) -> PolicyOutput:
    """Offered a heroic action: taken when below half its hit points, with the hardest
    attack on the nearest opponent in reach."""
    if me.hit_points * 2 >= me.max_hit_points:
        return None
    for target in opponents(obs):
        found = best_attack(me, target, 5, 0)
        if found is not None:
            return found
    return None


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
        if moves > old["moves"] + 1:
            continue
        if adjusted_category(base, extra_moves=moves) < old["category"]:
            params: dict[str, object] = {"attacks": 1}
            if moves:
                params["moves"] = moves
            return _declaration("attack", target.id, params)
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive:
    """Attacks the nearest opponent as hard as its points allow."""

    name = "aggressive"
    reactive = False
    cap = 5
    environment = 0
    grace_below = 3

    def unconcerned(
        self, rules: Loreval, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """The engine's shortcut (:func:`segsim.fight.unconcerned_hook`): True, promising
        it would decide nothing, at a phase that is not one of its fighter's declaring
        steps (:meth:`Loreval.decides_nothing`), for the built-in classes alone
        (:data:`STEP_ONLY`: a subclass may decide otherwise)."""
        if type(self) not in STEP_ONLY:
            return False
        # rules.decides_nothing(state, c, segment), without its call (the same test: a
        # phase most fighters called to are only waiting in)
        for a in state.combatants[cid].actions:  # the step's marker, as observe() finds it
            if a.kind == TURN and a.start == segment:
                return a.params.get("step") not in _DECIDING
        return True

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        step = me.step
        if step is None:  # not its step (most calls: waiting for the round's steps)
            return None
        if step == "change":
            return change(me, obs)
        if step == "heroic":
            return heroic(me, obs)
        if step != "declare":
            return None
        targets = opponents(obs)
        points = me.initiative
        keep = {"environment": 0, "security": me.attention_points, "focus": 0}
        if not targets:
            return _declaration("inaction", params={"attention": keep})
        if 1 <= points < self.grace_below:
            return _declaration("grace", params={"attention": keep})
        for target in targets:
            if moves_to_reach(me, target) >= 2:
                found = charge(me, target, points)
                if found is not None:
                    return found
            found = best_attack(me, target, points, self.environment, self.cap)
            if found is not None:
                return found
        move = approach(me, targets[0], points)
        if move is not None:
            return move
        if 1 <= points <= 5:
            return _declaration("grace", params={"attention": keep})
        return _declaration("inaction", params={"attention": keep})


@mypyc_attr(allow_interpreted_subclasses=True)
class Cautious(Aggressive):
    """Attacks with category 3 at most, keeps a point in Environment, rests sooner."""

    name = "cautious"
    cap = 3
    environment = 1
    grace_below = 4


@mypyc_attr(allow_interpreted_subclasses=True)
class Grappler(Aggressive):
    """Wrestles: escapes a hold, crushes whom it holds, grabs the nearest opponent in
    reach; otherwise closes in like ``aggressive``."""

    name = "grappler"

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        step = me.step
        if step is None:  # not its step: Aggressive.decide's answer, without its call
            return None
        points = me.initiative
        if step != "declare" or points < 3:
            return super().decide(obs)
        attention = {"environment": 0, "security": me.attention_points - 1, "focus": 1}
        if me.held_by is not None:
            return _declaration("grapple", me.held_by, {"move": "escape", "attention": attention})
        if me.holding is not None:
            return _declaration("grapple", me.holding, {"move": "crush", "attention": attention})
        for o in opponents(obs):
            moves = moves_to_reach(me, o)
            focus = focus_needed(3 + moves)
            if (
                o.held_by is None
                and 3 + moves <= min(points, 5)
                and moves <= 2
                and focus <= me.attention_points
            ):
                spread = {"security": me.attention_points - focus, "focus": focus}
                params: dict[str, object] = {"move": "grab", "attention": spread}
                if moves:
                    params["moves"] = moves
                return _declaration("grapple", o.id, params)
        targets = opponents(obs)
        if targets:
            move = approach(me, targets[0], points)
            if move is not None:
                return move
        return super().decide(obs)


@mypyc_attr(allow_interpreted_subclasses=True)
class Counter(Aggressive):
    """Counters: an opponent who declared an attack on it gets an offensive counter (a
    strike before its action); in contact with an opponent of higher initiative it
    declares a defensive parry against it; otherwise it fights like ``aggressive``."""

    name = "counter"

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        step = me.step
        if step is None:  # not its step: Aggressive.decide's answer, without its call
            return None
        if step != "declare" or me.initiative < 1 or me.attention_points < 1:
            return super().decide(obs)
        if 1 <= me.initiative < self.grace_below:
            return super().decide(obs)
        points = me.attention_points
        attention = {"environment": 1, "security": points - 1, "focus": 0}
        foes = opponents(obs)
        for o in foes:
            declared = o.declared
            if declared is not None and declared["target"] == me.id and me.in_contact(o):
                how = {"against": "offensive", "how": "strike"}
                return _declaration("counter", o.id, {**how, "attention": attention})
        for o in foes:
            if o.declared is None and me.in_contact(o) and o.initiative > me.initiative:
                how = {"against": "defensive", "how": "parry"}
                return _declaration("counter", o.id, {**how, "attention": attention})
        return super().decide(obs)


STEP_ONLY: frozenset[type] = frozenset({Aggressive, Counter, Grappler, Cautious})
"""The built-in policies, which declare only at a step where their fighter may (declare,
change, heroic) and answer nothing at any other (:meth:`Loreval.decides_nothing`, asked
through :meth:`Aggressive.unconcerned`): their own classes, not a subclass, which may
decide otherwise."""

register_policy("loreval", "aggressive", Aggressive)
register_policy("loreval", "counter", Counter)
register_policy("loreval", "grappler", Grappler)
register_policy("loreval", "cautious", Cautious)


def _moves_to(ctx: RuleContext, target: OtherView) -> int:
    """Rule-list helper: the extra moves needed to come into contact with ``target`` (0
    at range or in contact; 99 in a grapple or a lock, which forbid moving)."""
    return moves_to_reach(ctx.me, target)


def _category(
    ctx: RuleContext, target: OtherView, attacks: int = 1, moves: int | None = None
) -> int | None:
    """Rule-list helper: the category of an attack of ``attacks`` blows on ``target``
    with ``moves`` extra moves (by default those it needs to come into contact) and the
    readying of the weapon when it is not ready, as the built-in policies reckon it; None
    when no mode of attack has that many blows with what the fighter holds, or the
    category is above the fighter's highest, or the moves beyond its armour's pace
    (Loreval, "Catégorie des actions", "Mode d'action")."""
    me: SelfView = ctx.me
    if moves is None:
        moves = moves_to_reach(me, target)
    base = attack_category(mode_of(me.weapon, me.off_hand, attacks), attacks)
    if base is None:
        return None
    category = adjusted_category(base, extra_moves=moves, ready=int(not me.weapon_ready))
    if category > me.sheet.max_category or moves > me.sheet.pace:
        return None
    return category


def _focus_for(ctx: RuleContext, category: int) -> int:
    """Rule-list helper: the Focus an attack of this category needs (0 for 1-2, 1 for
    3-4, 2 for 5; 1 at least with a thrown or missile weapon) (Loreval, "Attention")."""
    return max(focus_needed(category), 1 if ctx.me.weapon.ranged else 0)


register_rule_helpers(
    "loreval", {"moves_to": _moves_to, "category": _category, "focus_for": _focus_for}
)
register_rule_views("loreval", SelfView, OtherView)
