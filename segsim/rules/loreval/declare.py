"""Checking a declaration (Loreval, "Actions", "Attention", "Initiative...",
"Modifier son action").

A fighter declares at its declaration step the one action of its round, its attention
criteria and its extra moves; each checker raises :class:`IllegalDeclaration` naming
the rule before anything changes, and returns the action's parameters with its category
worked out (what the record keeps and the resolution reads).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.native import mypyc_attr
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
from segsim.rules.loreval.content import LOCOMOTION, TEXT, Sheet, Weapon
from segsim.rules.loreval.grapple import check_grapple
from segsim.rules.loreval.jump import check_jump
from segsim.rules.loreval.manoeuvres import attack_addons, check_manoeuvre
from segsim.rules.loreval.skills import check_skill
from segsim.rules.loreval.status import Plan, Status
from segsim.state import Combatant, FightState

RULE_INITIATIVE = f"{TEXT}, Initiative, renouvellement de l'initiative"
RULE_CHANGE = f"{TEXT}, Modifier son action"
RULE_FOCUS = f"{TEXT}, Focus"
RULE_GRACE = f"{TEXT}, round de grâce"
RULE_INACTION = f"{TEXT}, Inaction"
RULE_MOVE = f"{TEXT}, Action de déplacement et action avec déplacement"
RULE_PACE = f"{TEXT}, Limitation d'allure"
RULE_SPELL = f"{TEXT}, Lancement d'un sort"
RULE_CONCERT = f"{TEXT}, Action concertée"
RULE_COUNTER = f"{TEXT}, Actions de contre"
RULE_CHARGE = f"{TEXT}, Charge"
COUNTER_HOW = {
    "defensive": ("parry", "dodge", "block", "resist", "counterspell"),
    "offensive": ("strike", "parry", "obstruct", "charge", "receive", "counterspell"),
}
"""How a counter is made (Loreval, "Les différents contres", "Réception de charge",
"Charge dans un contre", "Bloquer une attaque"): ``dodge`` also dodges an aimed spell,
``resist`` resists a spell, ``counterspell`` casts a counter-spell."""
RESISTANCES = ("will", "vigour", "reflex")
"""The skills a spell may be resisted with ("la résistance ad hoc")."""

COMMON = frozenset({"attention", "moves"})
KIND_PARAMS: Mapping[str, frozenset[str]] = {
    "attack": COMMON
    | {
        "attacks",
        "skill",
        "weapon",
        "concert",
        "power",
        "juggle",
        "weave",
        "cover",
        "concealment",
        "pile",
    },
    "charge": COMMON | {"concert", "power"},
    "grapple": COMMON | {"move", "knee"},
    "whirlwind": COMMON,
    "trip": COMMON,
    "disarm": COMMON | {"skill"},
    "sunder": COMMON,
    "overrun": COMMON | {"charge"},
    "counter": COMMON | {"against", "how", "hypothetical", "to"},
    "move": COMMON | {"to", "mode"},
    "inaction": frozenset({"attention"}),
    "grace": frozenset({"attention"}),
    "spell": COMMON
    | {"spell", "material", "ritual", "aimed", "level", "irresistible", "resistance"},
    "jump": COMMON | {"to", "height", "run_up"},
    "skill": COMMON | {"skill", "difficulty"},
}
"""Round actions a fighter may declare, and their parameters."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Context:
    """What a check needs: the fight, the fighter, the round and whether the declaration
    is a changed action (and then the plan it replaces). A plain class (one is made for
    each declaration checked): a native one in the compiled build, and no frozen attrs
    construction in the pure one."""

    __slots__ = ("c", "changed", "heroic", "rnd", "sheet", "state", "status")

    state: FightState
    c: Combatant
    rnd: int
    changed: Plan | None
    heroic: bool
    status: Status
    """The fighter's status and sheet (read by every check: kept, not looked up)."""
    sheet: Sheet

    def __init__(
        self,
        state: FightState,
        c: Combatant,
        rnd: int,
        changed: Plan | None = None,
        heroic: bool = False,
    ) -> None:
        self.state = state
        self.c = c
        self.rnd = rnd
        self.changed = changed
        self.heroic = heroic
        self.status = c.status
        self.sheet = c.sheet


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
    keeps those of the declaration (Loreval, "Note concernant la déclaration")."""
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
    # ctx.status.attention_points(ctx.sheet), without its call
    points = max(1, ctx.sheet.attention_points - ctx.status.perception_malus // 4)
    # attention.total, without its property's call
    if attention.environment + attention.security + attention.focus > points:
        raise IllegalDeclaration(
            f"{ctx.c.id} has {points} attention points, not {attention.total}",
            rule=f"{TEXT}, Nombre de points d'attention",
        )
    return attention


def focus_score(ctx: Context, attention: Attention) -> int:
    # scores(attention, malus=...).focus, without its call nor a new Attention (no
    # limit nor floor: the points less the senses lost)
    focus: int = attention.focus - ctx.status.senses_lost
    return focus


def check_focus(ctx: Context, attention: Attention, needed: int, what: str) -> None:
    """An action that needs some Focus is refused below it. An action that needs none
    (categories 1 and 2: "un focus de 0 suffit") stays open to a negative Focus, which
    then costs the table's malus on its rolls (Loreval, "Désavantages d'un score
    négatif dans un critère d'attention")."""
    if needed <= 0:
        return
    have = focus_score(ctx, attention)
    if have < needed:
        raise IllegalDeclaration(
            f"{what} needs a Focus of {needed}, {ctx.c.id} has {have}", rule=RULE_FOCUS
        )


def check_category(ctx: Context, category: int, *, hasted: bool = True) -> None:
    """Within the fighter's highest category, paid with its points; a changed action
    is of a strictly lower category than the one declared. A hasted fighter's action
    counts as the category below (so six categories' worth of composition fit in 5),
    unless ``hasted`` is false: the category given is already the one it counts as
    (Loreval, "Effet de rapidité")."""
    if hasted and ctx.status.hasted and not ctx.status.slowed:
        category = adjusted_category(category, haste=True)
    top = ctx.sheet.max_category
    if category > top:
        raise IllegalDeclaration(
            f"category {category} is beyond {top}: no action may cost more", rule=RULE_CATEGORIES
        )
    if ctx.heroic:
        return  # a heroic action takes every point left (6 at least)
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


def standing(ctx: Context) -> int:
    """A prone fighter stands up as part of its action: 1 more category, like readying
    a weapon (Interpretations)."""
    return int(ctx.status.prone and ctx.status.hold != "down")


COVER = {0: 0, 25: 2, 50: 4, 75: 7, 90: 10}
"""Obstruction of the line of fire (%) -> bonus to the target's Defence and Reflex
(Loreval, "Couverture"); 100 % stops every shot."""
CONCEALMENT = {"light": -2, "medium": -4, "heavy": -6, "near_total": -8, "total": -10}
"""Concealment -> malus to the shooter, cumulative (Loreval, "Camouflage")."""


def ranged_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The game master's calls on a shot: cover (%), concealment (names), shooting into
    the pile (tir dans le tas)."""
    out: dict[str, Any] = {}
    cover = params.get("cover", 0)
    if cover == 100:
        raise IllegalDeclaration(
            "a target fully behind an obstacle cannot be shot", rule=f"{TEXT}, Couverture"
        )
    if cover not in COVER:
        raise IllegalDeclaration(f"cover is one of {', '.join(map(str, COVER))} %, not {cover!r}")
    if cover:
        out["cover"] = cover
    raw = params.get("concealment", [])
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or any(n not in CONCEALMENT for n in names):
        raise IllegalDeclaration(
            f"concealment is a list of {', '.join(CONCEALMENT)}, not {raw!r}",
            rule=f"{TEXT}, Camouflage",
        )
    if names:
        out["concealment"] = list(names)
    if _bool(params, "pile"):
        out["pile"] = True
    return out


def extra_moves(ctx: Context, params: Mapping[str, Any], base_moves: int) -> tuple[int, int]:
    """The extra moves declared and the number whose malus applies. A changed action
    keeps the declaration's malus and may add at most one move to those declared
    (Loreval, "Action de déplacement...")."""
    moves = _int(params, "moves", 0, 0, 5)
    if moves or base_moves:
        cannot_move(ctx, grapple=bool(moves))
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


def free_move(ctx: Context, units: int) -> int:
    """The talent Course's free unit of movement, added to an action that includes at
    least one move of its own (never alone) while the armour's pace allows one more
    (Loreval, "La compétence Saut et le talent course", "Limitation d'allure")."""
    if not ctx.sheet.has("run") or units < 1 or units + 1 > ctx.sheet.pace:
        return 0
    return 1


def cannot_move(ctx: Context, grapple: bool = True) -> None:
    """Grapplers (extra moves), and the two fighters locked by a block, do not move
    (Loreval, "Actions de lutte", "Bloquer une attaque")."""
    if grapple and (ctx.status.held_by is not None or ctx.status.holding is not None):
        raise IllegalDeclaration(
            "a fighter in a grapple cannot move", rule=f"{TEXT}, Actions de lutte"
        )
    if ctx.status.locked_with is not None:
        raise IllegalDeclaration(
            f"{ctx.c.id} is locked with {ctx.status.locked_with} by a block and cannot move",
            rule=f"{TEXT}, Bloquer une attaque",
        )


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
    """The weapon used and whether readying it adds 1 to the category (Loreval,
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
                rule=f"{TEXT}, Attaques à distance",
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
    addon, extra = attack_addons(ctx, d.params)
    category = adjusted_category(base + addon, extra_moves=moves, ready=ready + standing(ctx))
    check_category(ctx, category)
    needed = focus_needed(category)
    if weapon.ranged:
        needed = max(needed, 1)
        extra.update(ranged_params(d.params))
    elif "cover" in d.params or "concealment" in d.params or "pile" in d.params:
        raise IllegalDeclaration("cover, concealment and pile are for attacks at range")
    if addon:
        needed = 2  # a manoeuvre
    check_focus(ctx, attention, needed, f"a category {category} {mode.replace('_', ' ')} attack")
    other = opponent(ctx, d.target)
    free = 0 if weapon.ranged else free_move(ctx, moves)
    check_reach(ctx, other, weapon, moves + free)
    params: dict[str, Any] = {"attacks": attacks, "mode": mode, "skill": skill, **extra}
    if free:
        params["free_move"] = free
    if standing(ctx):
        params["stand"] = True
    if weapon is not ctx.status.weapon or ready:
        params["weapon"] = weapon.id
    concert(ctx, d, attention, params)
    return other.id, _finish(params, category, attention, moves, malus)


def concert(ctx: Context, d: Declaration, attention: Attention, params: dict[str, Any]) -> None:
    """A concerted action (action concertée): a player character with 2 in Environment,
    joining an ally of lower
    initiative (who has declared) with at least 1 in Environment; it resolves at that
    ally's step (Loreval, "Action concertée")."""
    partner = d.params.get("concert")
    if partner is None:
        return
    if not ctx.c.is_pc:
        raise IllegalDeclaration(
            f"{ctx.c.id} is not a player character: a concerted action is declared by a "
            "player character",
            rule=RULE_CONCERT,
        )
    ally = ctx.state.combatants.get(partner) if isinstance(partner, str) else None
    if ally is None or not ally.in_fight or ally.side != ctx.c.side or ally.id == ctx.c.id:
        raise IllegalDeclaration(
            f"a concerted action joins an ally in the fight, not {partner!r}", rule=RULE_CONCERT
        )
    if ctx.changed is not None or ctx.heroic:
        raise IllegalDeclaration("a concerted action is declared in turn", rule=RULE_CONCERT)
    st: Status = ally.status
    if st.declared_round != ctx.rnd or st.grace:
        raise IllegalDeclaration(
            f"{ally.id} has no action declared this round to join (it must have declared "
            "before: the initiative is on the one who joins)",
            rule=RULE_CONCERT,
        )
    if scores(attention, malus=ctx.status.senses_lost).environment < 2:
        raise IllegalDeclaration("a concerted action needs 2 in Environment", rule=RULE_CONCERT)
    if scores(st.attention, malus=st.senses_lost).environment < 1:
        raise IllegalDeclaration(
            f"{ally.id} needs at least 1 in Environment to act in concert", rule=RULE_CONCERT
        )
    params["concert"] = ally.id


def check_move(ctx: Context, d: Declaration) -> Checked:
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 1)
    category = adjusted_category(1, extra_moves=moves, ready=standing(ctx))
    check_category(ctx, category)
    check_focus(ctx, attention, focus_needed(category), f"a category {category} move")
    mode = d.params.get("mode", "walk")
    speed = ctx.sheet.speed_in(mode) if mode in LOCOMOTION else None
    if speed is None:
        ways = ", ".join(m for m in LOCOMOTION if ctx.sheet.speed_in(m) is not None)
        raise IllegalDeclaration(
            f"{ctx.c.id} moves by {ways}, not {mode!r}", rule=f"{TEXT}, Déplacement"
        )
    free = free_move(ctx, 1 + moves)
    reach = (1 + moves + free) * speed
    params: dict[str, Any] = {"stand": True} if standing(ctx) else {}
    if free:
        params["free_move"] = free
    if mode != "walk":
        params["mode"] = mode
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
                f"{1 + moves + free} move(s) of {speed:g} m cover {reach:.1f} m, not "
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
    if ritual and moves and not ctx.status.hasted:
        raise IllegalDeclaration(
            "no move is possible during a ritual, unless hasted", rule=RULE_SPELL
        )
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
    if "level" in d.params:
        params["level"] = _int(d.params, "level", 0, 0, 9)
    irresistible = _bool(d.params, "irresistible")
    for key, on in (
        ("material", material),
        ("ritual", ritual),
        ("aimed", aimed),
        ("irresistible", irresistible),
    ):
        if on:
            params[key] = True
    resistance = d.params.get("resistance")
    if resistance is not None:
        if resistance not in RESISTANCES or irresistible:
            raise IllegalDeclaration(
                f"a spell is resisted with {', '.join(RESISTANCES)} (and not when "
                f"irresistible), not {resistance!r}",
                rule=f"{TEXT}, Les différents contres",
            )
        params["resistance"] = resistance
    return target, _finish(params, category, attention, moves, malus)


def _finish(
    params: dict[str, Any], category: int, attention: Attention, moves: int, malus: int
) -> dict[str, Any]:
    params["category"] = category
    params["attention"] = {  # attention.as_dict(), without its call
        "environment": attention.environment,
        "security": attention.security,
        "focus": attention.focus,
    }
    if moves:
        params["moves"] = moves
    if malus:
        params["malus_moves"] = malus
    return params


def check_counter(ctx: Context, d: Declaration) -> Checked:
    """A counter (contre), category 1, needs 1 in Environment. Defensive: protects the
    fighter itself from anyone. Offensive: against an action already declared (by a
    fighter of lower initiative), to protect anyone; moves may bring the counterer in.
    Without a target it answers a hypothetical situation (the first one that comes), at
    -2 (Loreval, "Actions de contre", "Déclaration d'un contre")."""
    against = d.params.get("against", "defensive")
    if against not in COUNTER_HOW:
        raise IllegalDeclaration(f"against must be defensive or offensive, not {against!r}")
    how = d.params.get("how", "parry" if against == "defensive" else "strike")
    if how not in COUNTER_HOW[against]:
        raise IllegalDeclaration(
            f"a {against} counter is made by {', '.join(COUNTER_HOW[against])}, not {how!r}",
            rule=RULE_COUNTER,
        )
    hypothetical = _bool(d.params, "hypothetical")
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    if ctx.changed is not None and ctx.changed.category == 1 and moves:
        raise IllegalDeclaration(
            "after a category 1 action only a counter without a move is left", rule=RULE_CHANGE
        )
    to = d.params.get("to")
    if against == "offensive" and to is not None:
        raise IllegalDeclaration(
            "an offensive counter's moves bring the counterer to the one it counters: no to",
            rule=RULE_COUNTER,
        )
    if against == "defensive" and bool(moves) != (to is not None):
        raise IllegalDeclaration(
            "a defensive counter's moves go to a point (to = [x, y]), played at the "
            "fighter's own step",
            rule=f"{TEXT}, Types de contre",
        )
    category = adjusted_category(1, extra_moves=moves)
    if ctx.changed is None or ctx.changed.category > 1:
        check_category(ctx, category)
    needed = focus_needed(category)
    if how == "counterspell":
        needed = max(needed, 1)  # casting a spell needs a Focus of 1
    if how == "charge":
        needed = 2
    if how in ("block",):
        needed = 2
    check_focus(ctx, attention, needed, f"a {how} counter")
    if scores(attention, malus=ctx.status.senses_lost).environment < 1:
        raise IllegalDeclaration("a counter needs 1 in Environment", rule=RULE_COUNTER)
    weapon = ctx.status.weapon
    if how == "receive" and not weapon.polearm:
        raise IllegalDeclaration(
            f"a charge is received with a polearm, not a {weapon.name}",
            rule=f"{TEXT}, Réception de charge",
        )
    if how == "block" and ctx.sheet.characteristics["dexterity"] < 13:
        raise IllegalDeclaration(
            "blocking an attack needs a dexterity of 13", rule=f"{TEXT}, Bloquer une attaque"
        )
    target = None
    if d.target is not None:
        other = opponent(ctx, d.target)
        target = other.id
        st: Status = other.status
        if against == "offensive" and st.declared_round != ctx.rnd:
            raise IllegalDeclaration(
                f"an offensive counter answers a declared action: {other.id} has not declared "
                "(it has the initiative)",
                rule=RULE_COUNTER,
            )
        if how in ("strike", "charge", "obstruct") and not weapon.ranged:
            check_reach(ctx, other, weapon, moves + (2 if how == "charge" else 0))
        if how == "receive" and (st.plan is None or st.plan.kind != "charge"):
            raise IllegalDeclaration(
                f"{other.id} has declared no charge to receive", rule=f"{TEXT}, Réception de charge"
            )
    elif not hypothetical:
        raise IllegalDeclaration(
            "a counter names the fighter it counters, or is hypothetical (hypothetical = true)",
            rule=RULE_COUNTER,
        )
    params: dict[str, Any] = {"against": against, "how": how}
    if hypothetical or target is None:
        params["hypothetical"] = True
    if to is not None:
        params["to"] = point_within(ctx, to, moves * ctx.sheet.speed, f"{moves} move(s)")
    return target, _finish(params, category, attention, moves, malus)


def point_within(ctx: Context, to: Any, reach: float, what: str) -> list[float]:
    """A point ``[x, y]`` the fighter can reach, rounded to the centimetre."""
    if not (
        isinstance(to, list | tuple)
        and len(to) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
    ):
        raise IllegalDeclaration(f"to must be a point [x, y] in metres, not {to!r}")
    point = (float(to[0]), float(to[1]))
    if not within(ctx.c.position, point, reach):
        raise IllegalDeclaration(
            f"{what} of {ctx.sheet.speed:g} m cover {reach:.1f} m, not "
            f"{distance(ctx.c.position, point):.1f} m",
            rule=RULE_MOVE,
        )
    return [round(point[0], 2), round(point[1], 2)]


def check_charge(ctx: Context, d: Declaration) -> Checked:
    """A charge: one attack with a contact weapon at the end of at least 2 moves in a
    straight line (1 with the talent Course; none when the fighter ended the previous
    round running), Focus 2, by attaque en force (Loreval, "Charge")."""
    weapon, ready = weapon_for(ctx, d.params)
    if weapon.ranged:
        raise IllegalDeclaration("a charge ends with a contact weapon's attack", rule=RULE_CHARGE)
    attention = attention_of(ctx, d.params)
    running = ctx.status.momentum_round == ctx.rnd - 1 and ctx.rnd > 1
    least = 0 if running else (1 if ctx.sheet.has("run") else 2)
    moves, malus = extra_moves(ctx, d.params, 0)
    if "moves" not in d.params:
        moves, malus = least, least if ctx.changed is None else malus
    if moves < least:
        raise IllegalDeclaration(
            f"a charge needs at least {least} moves in a straight line", rule=RULE_CHARGE
        )
    base = attack_category(mode_of(weapon, None, 1), 1)
    assert base is not None
    addon, extra = attack_addons(ctx, {"power": d.params.get("power", 0)})
    category = adjusted_category(base + addon, extra_moves=moves, ready=ready + standing(ctx))
    check_category(ctx, category)
    check_focus(ctx, attention, 2, "a charge")
    other = opponent(ctx, d.target)
    free = free_move(ctx, moves)
    check_reach(ctx, other, weapon, moves + free)
    params: dict[str, Any] = dict(extra)
    if standing(ctx):
        params["stand"] = True
    if free:
        params["free_move"] = 1
    if ready:
        params["weapon"] = weapon.id
    concert(ctx, d, attention, params)
    return other.id, _finish(params, category, attention, moves, malus)


CHECKERS: Mapping[str, Callable[[Context, Declaration], Checked]] = {
    "grapple": check_grapple,
    "whirlwind": check_manoeuvre,
    "trip": check_manoeuvre,
    "disarm": check_manoeuvre,
    "sunder": check_manoeuvre,
    "overrun": check_manoeuvre,
    "counter": check_counter,
    "charge": check_charge,
    "attack": check_attack,
    "move": check_move,
    "inaction": check_inaction,
    "grace": check_grace,
    "spell": check_spell,
    "jump": check_jump,
    "skill": check_skill,
}
