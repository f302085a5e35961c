"""Checking a declaration (seed 003, "Actions", "Attention", "Initiative...",
"Modifier son action").

A fighter declares at its declaration step the one action of its round, its attention
criteria and its extra moves; each checker raises :class:`IllegalDeclaration` naming
the rule before anything changes, and returns the action's parameters with its category
worked out (what the record keeps and the resolution reads).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules.loreval.attention import (
    RULE_ATTENTION,
    Attention,
    focus_needed,
    scores,
)
from segsim.rules.loreval.categories import (
    RULE_CATEGORIES,
    RULE_MODES,
    adjusted_category,
    attack_category,
    mode_of,
    spell_category,
)
from segsim.rules.loreval.combat import CONTACT, MAX_INCREMENTS, distance, within
from segsim.rules.loreval.content import SEED, Sheet, Weapon
from segsim.rules.loreval.status import Plan, Status
from segsim.state import Combatant, FightState

RULE_INITIATIVE = f"{SEED}, Initiative, renouvellement de l'initiative"
RULE_CHANGE = f"{SEED}, Modifier son action"
RULE_FOCUS = f"{SEED}, Focus"
RULE_GRACE = f"{SEED}, round de grâce"
RULE_INACTION = f"{SEED}, Inaction"
RULE_MOVE = f"{SEED}, Action de déplacement et action avec déplacement"
RULE_PACE = f"{SEED}, Limitation d'allure"
RULE_SPELL = f"{SEED}, Lancement d'un sort"

COMMON = frozenset({"attention", "moves"})
KIND_PARAMS: Mapping[str, frozenset[str]] = {
    "attack": COMMON | {"attacks", "skill", "weapon"},
    "move": COMMON | {"to"},
    "inaction": frozenset({"attention"}),
    "grace": frozenset({"attention"}),
    "spell": COMMON | {"spell", "material", "ritual", "aimed"},
}
"""Round actions a fighter may declare, and their parameters."""


@attrs.frozen
class Context:
    """What a check needs: the fight, the fighter, the round and whether the declaration
    is a changed action (and then the plan it replaces)."""

    state: FightState
    c: Combatant
    rnd: int
    changed: Plan | None = None

    @property
    def status(self) -> Status:
        status: Status = self.c.status
        return status

    @property
    def sheet(self) -> Sheet:
        sheet: Sheet = self.c.sheet
        return sheet


def _int(params: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    v = params.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
        raise IllegalDeclaration(f"{key} must be a whole number from {low} to {high}, not {v!r}")
    return v


def _bool(params: Mapping[str, Any], key: str) -> bool:
    v = params.get(key, False)
    if not isinstance(v, bool):
        raise IllegalDeclaration(f"{key} must be true or false, not {v!r}")
    return v


def attention_of(ctx: Context, params: Mapping[str, Any]) -> Attention:
    """The attention criteria declared (or kept: the previous ones); a changed action
    keeps those of the declaration (seed 003, "Note concernant la déclaration")."""
    raw = params.get("attention")
    if ctx.changed is not None:
        if raw is not None and Attention.parse(raw) != ctx.status.attention:
            raise IllegalDeclaration(
                "a changed action keeps the attention criteria of the declaration",
                rule=RULE_CHANGE,
            )
        return ctx.status.attention
    if raw is None:
        attention = ctx.status.attention
    else:
        try:
            attention = Attention.parse(raw)
        except ValueError as exc:
            raise IllegalDeclaration(str(exc), rule=RULE_ATTENTION) from None
    points = ctx.sheet.attention_points
    if attention.total > points:
        raise IllegalDeclaration(
            f"{ctx.c.id} has {points} attention points, not {attention.total}",
            rule=f"{SEED}, Nombre de points d'attention",
        )
    return attention


def focus_score(ctx: Context, attention: Attention) -> int:
    return scores(attention, malus=ctx.status.senses_lost).focus


def check_focus(ctx: Context, attention: Attention, needed: int, what: str) -> None:
    have = focus_score(ctx, attention)
    if have < needed:
        raise IllegalDeclaration(
            f"{what} needs a Focus of {needed}, {ctx.c.id} has {have}", rule=RULE_FOCUS
        )


def check_category(ctx: Context, category: int) -> None:
    """Within the fighter's highest category, paid with its points; a changed action
    is of a strictly lower category than the one declared."""
    top = ctx.sheet.max_category
    if category > top:
        raise IllegalDeclaration(
            f"category {category} is beyond {top}: no action may cost more", rule=RULE_CATEGORIES
        )
    if ctx.changed is not None:
        if category >= ctx.changed.category:
            raise IllegalDeclaration(
                f"a changed action is of a lower category than the declared one "
                f"({ctx.changed.category}), not {category}",
                rule=RULE_CHANGE,
            )
        return
    points = ctx.status.start_points
    if category > points:
        raise IllegalDeclaration(
            f"{ctx.c.id} has {points} initiative points: a category {category} action costs "
            f"{category}",
            rule=RULE_INITIATIVE,
        )


def extra_moves(ctx: Context, params: Mapping[str, Any], base_moves: int) -> tuple[int, int]:
    """The extra moves declared and the number whose malus applies. A changed action
    keeps the declaration's malus and may add at most one move to those declared
    (seed 003, "Action de déplacement...")."""
    moves = _int(params, "moves", 0, 0, 5)
    if ctx.changed is not None:
        planned = ctx.changed.extra_moves
        if moves > planned + 1:
            raise IllegalDeclaration(
                f"a changed action adds at most one move to the {planned} declared",
                rule=RULE_MOVE,
            )
        malus = planned
    else:
        malus = moves
    if base_moves + moves > ctx.sheet.pace:
        raise IllegalDeclaration(
            f"{ctx.c.id} may make at most {ctx.sheet.pace} moves in a round "
            f"({ctx.sheet.armour.category} armour), not {base_moves + moves}",
            rule=RULE_PACE,
        )
    return moves, malus


def opponent(ctx: Context, target: str | None) -> Combatant:
    if target is None:
        raise IllegalDeclaration("this action needs a target")
    other = ctx.state.combatants.get(target)
    if other is None:
        raise IllegalDeclaration(f"no combatant {target!r} in this fight")
    if not other.in_fight:
        raise IllegalDeclaration(f"{target} is out of the fight")
    if other.side == ctx.c.side:
        raise IllegalDeclaration(f"{target} is on the same side")
    return other


def weapon_for(ctx: Context, params: Mapping[str, Any]) -> tuple[Weapon, int]:
    """The weapon used and whether readying it adds 1 to the category (seed 003,
    "Préparer une arme")."""
    wid = params.get("weapon")
    status = ctx.status
    if wid is None or wid == status.weapon.id:
        return status.weapon, int(not status.weapon_ready)
    found = next((w for w in status.carried if w.id == wid), None)
    if found is None:
        carried = ", ".join(w.id for w in status.carried) or "nothing"
        raise IllegalDeclaration(f"{ctx.c.id} carries no weapon {wid!r} (carries: {carried})")
    return found, 1


def check_reach(ctx: Context, other: Combatant, weapon: Weapon, moves: int) -> None:
    gap = distance(ctx.c.position, other.position)
    if weapon.ranged:
        longest = weapon.range * MAX_INCREMENTS.get(weapon.mode, 10)
        if gap > longest:
            raise IllegalDeclaration(
                f"{other.id} is {gap:.1f} m away, beyond the {weapon.name}'s range ({longest:g} m)",
                rule=f"{SEED}, Attaques à distance",
            )
        return
    reach = CONTACT + moves * ctx.sheet.speed
    if not within(ctx.c.position, other.position, reach):
        raise IllegalDeclaration(
            f"{other.id} is {gap:.1f} m away: with {moves} extra move(s) of "
            f"{ctx.sheet.speed:g} m {ctx.c.id} reaches {reach:.1f} m",
            rule=RULE_MOVE,
        )


# ---------------------------------------------------------------- the checkers

Checked = tuple[str | None, dict[str, Any]]


def check_attack(ctx: Context, d: Declaration) -> Checked:
    attacks = _int(d.params, "attacks", 1, 1, 5)
    weapon, ready = weapon_for(ctx, d.params)
    off = ctx.status.off_hand if weapon is ctx.status.weapon else None
    mode = mode_of(weapon, off, attacks)
    base = attack_category(mode, attacks)
    if base is None:
        raise IllegalDeclaration(
            f"{attacks} attack(s) in the {mode.replace('_', ' ')} mode is not an action",
            rule=RULE_MODES,
        )
    skill = d.params.get("skill", weapon.skill)
    if skill not in ("strength", "skilful"):
        raise IllegalDeclaration(f"skill must be 'strength' or 'skilful', not {skill!r}")
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    category = adjusted_category(base, extra_moves=moves, ready=ready)
    check_category(ctx, category)
    needed = focus_needed(category)
    if weapon.ranged:
        needed = max(needed, 1)
    check_focus(ctx, attention, needed, f"a category {category} {mode.replace('_', ' ')} attack")
    other = opponent(ctx, d.target)
    check_reach(ctx, other, weapon, moves)
    params: dict[str, Any] = {"attacks": attacks, "mode": mode, "skill": skill}
    if weapon is not ctx.status.weapon or ready:
        params["weapon"] = weapon.id
    return other.id, _finish(params, category, attention, moves, malus)


def check_move(ctx: Context, d: Declaration) -> Checked:
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 1)
    category = adjusted_category(1, extra_moves=moves)
    check_category(ctx, category)
    check_focus(ctx, attention, focus_needed(category), f"a category {category} move")
    reach = (1 + moves) * ctx.sheet.speed
    params: dict[str, Any] = {}
    to = d.params.get("to")
    if (to is None) == (d.target is None):
        raise IllegalDeclaration("a move goes toward a fighter or to a point (to = [x, y])")
    target = None
    if d.target is not None:
        other = ctx.state.combatants.get(d.target)
        if other is None or not other.in_fight or other.id == ctx.c.id:
            raise IllegalDeclaration(f"no other fighter {d.target!r} in the fight to move to")
        target = other.id
    else:
        if not (
            isinstance(to, list | tuple)
            and len(to) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
        ):
            raise IllegalDeclaration(f"to must be a point [x, y] in metres, not {to!r}")
        point = (float(to[0]), float(to[1]))
        if not within(ctx.c.position, point, reach):
            raise IllegalDeclaration(
                f"{1 + moves} move(s) of {ctx.sheet.speed:g} m cover {reach:.1f} m, not "
                f"{distance(ctx.c.position, point):.1f} m",
                rule=RULE_MOVE,
            )
        params["to"] = [round(point[0], 2), round(point[1], 2)]
    return target, _finish(params, category, attention, moves, malus)


def check_inaction(ctx: Context, d: Declaration) -> Checked:
    if ctx.changed is not None:
        raise IllegalDeclaration("inaction cannot be a changed action", rule=RULE_INACTION)
    if d.target is not None:
        raise IllegalDeclaration("inaction takes no target")
    attention = attention_of(ctx, d.params)
    check_category(ctx, 1)
    return None, _finish({}, 1, attention, 0, 0)


def check_grace(ctx: Context, d: Declaration) -> Checked:
    """A grace round needs 1 to 5 points at the start of the round; taken instead of a
    changed action, the next initiative roll is at -2."""
    if d.target is not None:
        raise IllegalDeclaration("a grace round takes no target")
    points = ctx.status.start_points
    if not 1 <= points <= 5:
        raise IllegalDeclaration(
            f"a grace round is declared with 1 to 5 initiative points, {ctx.c.id} has {points}",
            rule=RULE_GRACE,
        )
    attention = attention_of(ctx, d.params)
    return None, _finish({}, 0, attention, 0, 0)


def check_spell(ctx: Context, d: Declaration) -> Checked:
    name = d.params.get("spell", "spell")
    if not isinstance(name, str) or not name:
        raise IllegalDeclaration(f"spell must be a name, not {name!r}")
    material, ritual, aimed = (_bool(d.params, k) for k in ("material", "ritual", "aimed"))
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    if ritual and moves:
        raise IllegalDeclaration("no move is possible during a ritual", rule=RULE_SPELL)
    category = adjusted_category(
        spell_category(material, d.target is not None, ritual, aimed), extra_moves=moves
    )
    check_category(ctx, category)
    needed = max(focus_needed(category), 2 if ritual else 1)
    check_focus(ctx, attention, needed, "a ritual" if ritual else "casting a spell")
    target = None
    if d.target is not None:
        other = ctx.state.combatants.get(d.target)
        if other is None or not other.in_fight:
            raise IllegalDeclaration(f"no fighter {d.target!r} in the fight")
        target = other.id
    params: dict[str, Any] = {"spell": name}
    for key, on in (("material", material), ("ritual", ritual), ("aimed", aimed)):
        if on:
            params[key] = True
    return target, _finish(params, category, attention, moves, malus)


def _finish(
    params: dict[str, Any], category: int, attention: Attention, moves: int, malus: int
) -> dict[str, Any]:
    params["category"] = category
    params["attention"] = attention.as_dict()
    if moves:
        params["moves"] = moves
    if malus:
        params["malus_moves"] = malus
    return params


CHECKERS: Mapping[str, Callable[[Context, Declaration], Checked]] = {
    "attack": check_attack,
    "move": check_move,
    "inaction": check_inaction,
    "grace": check_grace,
    "spell": check_spell,
}
