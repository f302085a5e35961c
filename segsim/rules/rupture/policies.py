"""Built-in Rupture policies. All of them answer every attack rolled against them with a
free defence (it costs nothing: Rupture, "Se défendre"), with their best skill for it.

* ``aggressive``: attacks the opponent with the least effort left within reach of a
  physical weapon, closing in when nobody is;
* ``breaker``: the same, but once an opponent has no effort left (beaten) or when a
  manoeuvre would overflow its threshold on average, it threatens or intimidates it
  ("rends-toi ou crève", Rupture, "Dépassement");
* ``harrier``: hinders the most dangerous opponent in reach bearing no malus yet (a
  targeted action that "le gêne ou lui inflige des malus"), then strikes as
  ``aggressive``;
* ``talker``: a social duellist: only manoeuvres (persuade, threaten, intimidate), the
  one with the best expected value against the target's threshold, prepares when
  nobody is in earshot.

They are not reactive: the rules call them at their slots and when attacked. Rule lists
(``examples/policies/rupture_stalwart.toml``) may call ``in_reach(other, kind)``,
``margin(other, kind)`` and ``strongest()``.
"""

from __future__ import annotations

from typing import Any

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.native import mypyc_attr
from segsim.policies import RuleContext, register_rule_helpers
from segsim.policy import Observation, register_policy
from segsim.rules.rupture.content import HINDER, TARGETED, Weapon
from segsim.rules.rupture.declare import _EPS, CONTACT
from segsim.rules.rupture.pool import QUALITY_FACE
from segsim.rules.rupture.views import OtherView, SelfView

QUALITY_CHANCE = (7 - QUALITY_FACE) / 6
"""Chance that one d6 is a quality (5 or 6)."""

_KEPT = 4096
_declarations: dict[tuple[str, str | None, str, str], Declaration] = {}


def declaration(kind: str, target: str | None, key: str = "", value: str = "") -> Declaration:
    """``Declaration(kind, target, {key: value})`` (no parameter without a key), the
    same object each time it is asked for again: a declaration never changes, and the
    engine checks a declaration it has seen once only once (``Declaration.checked``).
    At most :data:`_KEPT` are kept, then the store starts anew."""
    k = (kind, target, key, value)
    found = _declarations.get(k)
    if found is None:
        if len(_declarations) >= _KEPT:
            _declarations.clear()
        found = _declarations[k] = Declaration(kind, target, {key: value} if key else {})
    return found


def expected_value(me: SelfView, weapon: Weapon) -> float:
    """The mean attack value of a weapon or manoeuvre (ignoring the success threshold's
    effect on Threat, a policy's rough guide)."""
    pool = max(0, me.sheet.skill(weapon.skill) + me.bonus - me.malus)
    return pool * QUALITY_CHANCE - me.sheet.difficulty(weapon.skill) + weapon.threat


def defences(obs: Observation) -> list[DeclarationLike]:
    """A free defence against every attack rolled against the fighter now, with the skill
    of its largest pool for that domain."""
    me: SelfView = obs.me
    incoming = me.incoming
    if not incoming:
        return []
    sheet = me.sheet
    return [
        declaration("defend", inc.attacker, "skill", sheet.best_defence(inc.domain))
        for inc in incoming
    ]


def opponents(obs: Observation) -> list[OtherView]:
    me: SelfView = obs.me
    return [o for o in obs.others if o.side != me.side]


def best_means(me: SelfView, target: OtherView, kinds: tuple[str, ...]) -> Weapon | None:
    """The weapon or manoeuvre of those kinds in reach of ``target`` with the best expected
    value against its threshold for that domain."""
    gap = me.distance(target)  # in_reach(), with the distance worked out once
    usable = [w for w in me.sheet.weapons if w.kind in kinds and gap <= w.range + _EPS]
    if not usable:
        return None
    if len(usable) == 1:
        return usable[0]
    # max() by (expected_value(me, w) - threshold, threat, id), the first of equals,
    # with what every weapon shares read once.
    sheet = me.sheet
    skills = sheet.skills  # sheet.skill(), without its call
    flawed = bool(sheet.flaws)  # a sheet without flaws adds no difficulty to any test
    extra = me.bonus - me.malus
    rupture = target.rupture
    best = usable[0]
    best_key: tuple[float, int, str] | None = None
    for w in usable:
        pool = skills.get(w.skill, 0) + extra
        difficulty = sheet.difficulty(w.skill) if flawed else 0
        value = max(0, pool) * QUALITY_CHANCE - difficulty + w.threat
        key = (value - rupture[w.domain], w.threat, w.id)
        if best_key is None or key > best_key:
            best, best_key = w, key
    return best


def close_in(me: SelfView, targets: list[OtherView]) -> Declaration | None:
    """A move toward the nearest opponent not already next to the fighter; None when
    every one is (a fighter with nothing in reach of its kinds lets the slot go)."""
    apart = [o for o in targets if me.distance(o) > CONTACT + _EPS]
    if not apart:
        return None
    nearest = min(apart, key=lambda o: (me.distance(o), o.id))
    return declaration("move", nearest.id)


def seek(me: SelfView) -> Declaration | None:
    """With no opponent in view (a battle's rear ranks, beyond the ruleset's
    ``awareness``), a move toward the nearest one; None when none is left."""
    nearest = me.nearest_opponent
    return None if nearest is None else declaration("move", nearest)


def act(me: SelfView, target: OtherView, weapon: Weapon) -> Declaration:
    return declaration(weapon.kind, target.id, "weapon", weapon.id)


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive:
    """Strikes the opponent with the least effort left within reach of a weapon."""

    name = "aggressive"
    reactive = False
    kinds: tuple[str, ...] = ("attack",)

    def decide(self, obs: Observation) -> PolicyOutput:
        out = defences(obs)
        me: SelfView = obs.me
        if me.free and obs.must_act:
            choice = self.choose(me, opponents(obs))
            if choice is not None:
                if not out:
                    return choice  # one declaration, as itself: the engine's short path
                out.append(choice)
        if len(out) == 1:
            return out[0]
        return out or None

    def choose(self, me: SelfView, targets: list[OtherView]) -> Declaration | None:
        if not targets:
            return seek(me)
        ranked = sorted(targets, key=lambda o: (o.effort + o.stress_max - o.stress, o.id))
        for target in ranked:
            weapon = best_means(me, target, self.kinds)
            if weapon is not None:
                return act(me, target, weapon)
        return close_in(me, targets)


@mypyc_attr(allow_interpreted_subclasses=True)
class Breaker(Aggressive):
    """Beats opponents down, and breaks them with a threat once that may overflow."""

    name = "breaker"

    def choose(self, me: SelfView, targets: list[OtherView]) -> Declaration | None:
        for target in sorted(targets, key=lambda o: (o.effort, o.id)):
            words = best_means(me, target, ("threaten", "intimidate"))
            if words is None:
                continue
            margin = expected_value(me, words) - target.rupture[words.domain]
            if target.effort == 0 or margin >= 1:
                return act(me, target, words)
        return super().choose(me, targets)


@mypyc_attr(allow_interpreted_subclasses=True)
class Harrier(Aggressive):
    """Hinders the most dangerous opponent in reach that bears no malus yet (the one
    whose best attack is worth the most), then strikes as ``aggressive`` does."""

    name = "harrier"

    def choose(self, me: SelfView, targets: list[OtherView]) -> Declaration | None:
        fresh = [o for o in targets if o.malus == 0]
        for target in sorted(fresh, key=lambda o: (-danger(o), o.id)):
            trick = best_means(me, target, (HINDER,))
            if trick is not None:
                return act(me, target, trick)
        return super().choose(me, targets)


def danger(o: OtherView) -> float:
    """The best expected attack value of an opponent's weapons and manoeuvres, from its
    public sheet (a rough guide)."""
    return max(
        (
            o.skills.get(w.skill, 0) * QUALITY_CHANCE + w.threat
            for w in o.weapons
            if w.kind != HINDER
        ),
        default=0.0,
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class Talker(Aggressive):
    """A social duellist: words only."""

    name = "talker"
    kinds = tuple(k for k in TARGETED if k not in ("attack", HINDER))

    def choose(self, me: SelfView, targets: list[OtherView]) -> Declaration | None:
        if not targets:
            return seek(me)
        for target in sorted(targets, key=lambda o: (o.effort, o.id)):
            words = best_means(me, target, self.kinds)
            if words is not None:
                return act(me, target, words)
        if me.bonus == 0:
            return declaration("prepare", None)
        return close_in(me, targets)


# ---------------------------------------------------------------- rule-list helpers


def _in_reach(ctx: RuleContext, other: Any, kind: str = "attack") -> bool:
    """Whether some weapon or manoeuvre of that kind reaches ``other``."""
    me: SelfView = ctx.me
    return other is not None and any(
        me.in_reach(other, w) for w in me.sheet.weapons if w.kind == kind
    )


def _margin(ctx: RuleContext, other: Any, kind: str = "attack") -> float | None:
    """The best expected attack value of that kind on ``other`` minus its threshold for
    the domain (None when nothing of that kind reaches it)."""
    me: SelfView = ctx.me
    if other is None:
        return None
    weapon = best_means(me, other, (kind,))
    return None if weapon is None else expected_value(me, weapon) - other.rupture[weapon.domain]


def _strongest(ctx: RuleContext) -> Any:
    """The attack rolled against the fighter with the highest value now (None if none)."""
    me: SelfView = ctx.me
    return max(me.incoming, key=lambda i: (i.value, -i.blow), default=None)


register_rule_helpers(
    "rupture", {"in_reach": _in_reach, "margin": _margin, "strongest": _strongest}
)
register_policy("rupture", "aggressive", Aggressive)
register_policy("rupture", "breaker", Breaker)
register_policy("rupture", "talker", Talker)
register_policy("rupture", "harrier", Harrier)
