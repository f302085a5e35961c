"""Combat manoeuvres (Loreval, "Manœuvres de combat"): every one needs a Focus of 2.

* power attack (``power`` on an attack or a charge): strength 13, +1 category, a number
  of points up to the attack skill's mastery taken from every attack and added to its
  damage;
* juggling (``juggle``): dexterity 13, +2 category, acrobatics 20 at the declaration
  for +4 to every attack of the round (a natural 1: dexterity 10 or the weapon drops);
* moving in melee (``weave``): dexterity 13, +1 category, acrobatics 25 for +4 to the
  fighter's defences during the round;
* ``whirlwind``: category 5, dexterity 13, acrobatics 15 (failure: a changed action),
  an attack on everyone in contact, allies too;
* ``trip``: category 2, dexterity 13, a skilful attack, then strength against the
  better of the target's strength and dexterity: it falls; not on a target more than
  one size larger;
* ``disarm`` (dexterity 13) and ``sunder`` (strength 13): category 3, the attacker
  exposes itself (-4 to its defences this round); a counter of the target turns the
  defence into an opposed attack roll;
* ``overrun``: on a target at most one size larger, attaque en force, then strength as
  for a trip; it may end a charge (``moves`` of 2 or more), with the charge's +4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules.loreval.attention import focus_modifier
from segsim.rules.loreval.categories import adjusted_category, chain_maluses
from segsim.rules.loreval.combat import (
    CONTACT,
    attack_modifiers,
    attention_scores,
    passive_difficulty,
    within,
)
from segsim.rules.loreval.content import SIZES, TEXT, Sheet
from segsim.rules.loreval.events import (
    CheckRolled,
    CounterRolled,
    Manoeuvred,
    Prone,
    WeaponDamaged,
    WeaponLost,
)
from segsim.rules.loreval.status import Plan, Status

if TYPE_CHECKING:
    from segsim.rules.loreval.declare import Checked, Context
    from segsim.rules.loreval.settle import Settlement
    from segsim.state import Combatant

RULE = f"{TEXT}, Manœuvres de combat"
NEEDS = {
    "power": ("strength", 13, "Attaque en puissance"),
    "juggle": ("dexterity", 13, "Jonglerie"),
    "weave": ("dexterity", 13, "Mouvements en mêlée"),
    "whirlwind": ("dexterity", 13, "Attaque en rotation"),
    "trip": ("dexterity", 13, "Croc-en-jambe"),
    "disarm": ("dexterity", 13, "Désarmement"),
    "sunder": ("strength", 13, "Destruction d'arme"),
}
CATEGORY = {"whirlwind": 5, "trip": 2, "disarm": 3, "sunder": 3, "overrun": 2}
JUGGLE_DC, WEAVE_DC, WHIRLWIND_DC = 20, 25, 15
JUGGLE_BONUS = 4


def needs(ctx: Context, what: str) -> None:
    characteristic, least, name = NEEDS[what]
    if ctx.sheet.characteristics[characteristic] < least:
        raise IllegalDeclaration(
            f"{name} needs a {characteristic} of {least} or more", rule=f"{TEXT}, {name}"
        )


def attack_addons(ctx: Context, params: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """Power attack, juggling and moving in melee on an attack: their extra category
    and the parameters they leave (they make it a manoeuvre: Focus 2)."""
    extra = 0
    out: dict[str, Any] = {}
    power = params.get("power", 0)
    if power:
        needs(ctx, "power")
        if (
            not isinstance(power, int)
            or isinstance(power, bool)
            or not (1 <= power <= ctx.sheet.attack_mastery)
        ):
            raise IllegalDeclaration(
                f"power attack moves 1 to {ctx.sheet.attack_mastery} points (the attack "
                f"skill's mastery), not {power!r}",
                rule=f"{TEXT}, Attaque en puissance",
            )
        extra += 1
        out["power"] = power
    for key, cost in (("juggle", 2), ("weave", 1)):
        value = params.get(key, False)
        if not isinstance(value, bool):
            raise IllegalDeclaration(f"{key} must be true or false, not {value!r}")
        if value:
            needs(ctx, key)
            extra += cost
            out[key] = True
    return extra, out


def check_manoeuvre(ctx: Context, d: Declaration) -> Checked:
    from segsim.rules.loreval.declare import (
        _finish,
        attention_of,
        check_category,
        check_focus,
        check_reach,
        extra_moves,
        opponent,
    )

    kind = d.kind
    if kind in NEEDS:
        needs(ctx, kind)
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    params: dict[str, Any] = {}
    charge = bool(d.params.get("charge", False))
    if kind == "overrun" and charge:
        if moves < 2:
            raise IllegalDeclaration("an overrun ending a charge needs 2 moves", rule=RULE)
        params["charge"] = True
    if kind == "whirlwind":
        if d.target is not None:
            raise IllegalDeclaration("a whirlwind attack strikes everyone in contact: no target")
        target = None
    else:
        other = opponent(ctx, d.target)
        target = other.id
        check_reach(ctx, other, ctx.status.weapon, moves)
        larger = SIZES.index(other.sheet.size) - SIZES.index(ctx.sheet.size)
        if kind in ("trip", "overrun") and larger > 1:
            raise IllegalDeclaration(
                f"{other.id} is more than one size larger", rule=f"{TEXT}, {kind}"
            )
        if kind in ("disarm", "sunder"):
            st: Status = other.status
            if st.weapon.mode == "unarmed":
                raise IllegalDeclaration(f"{other.id} holds no weapon")
    if kind == "disarm":
        skill = d.params.get("skill", "strength")
        if skill not in ("strength", "skilful") or (
            skill == "skilful" and not ctx.sheet.has("subtle_combat")
        ):
            raise IllegalDeclaration(
                "a disarm is by attaque en force, or attaque habile with subtle combat",
                rule=f"{TEXT}, Désarmement",
            )
        params["skill"] = skill
    category = adjusted_category(CATEGORY[kind], extra_moves=moves)
    check_category(ctx, category)
    check_focus(ctx, attention, 2, "a combat manoeuvre")
    return target, _finish(params, category, attention, moves, malus)


# ---------------------------------------------------------------- resolution


def status_of(c: Combatant) -> Status:
    status: Status = c.status
    return status


def acrobatics(
    s: Settlement, c: Combatant, difficulty: int, what: str, plan: Plan | None = None
) -> tuple[bool, int]:
    """An acrobatics check of a manoeuvre: (success, the die shown); a heroic one
    succeeds without a die."""
    sheet: Sheet = c.sheet
    mods = {
        "acrobatics": sheet.skill("acrobatics"),
        "armour": sheet.body_malus,
        "focus": focus_modifier(attention_scores(c, s.rnd).focus),
    }
    roll, die, sure = s.action_die(c, plan, f"acrobatics ({what})")
    total = die + sum(mods.values())
    success = sure or total >= difficulty
    shown = {k: v for k, v in mods.items() if v}
    s.emit(
        CheckRolled(
            s.segment, c.id, f"acrobatics ({what})", roll, total, difficulty, success, shown
        )
    )
    return success, roll


def on_declaration(s: Settlement, c: Combatant, plan: Plan) -> None:
    """Juggling and moving in melee are rolled when declared: their bonus holds for the
    round (Loreval, "Jonglerie", "Mouvements en mêlée")."""
    if plan.params.get("juggle"):
        success, roll = acrobatics(s, c, JUGGLE_DC, "juggling", plan)
        if success:
            s.emit(Manoeuvred(s.segment, c.id, s.rnd, "juggling", JUGGLE_BONUS))
        elif roll == 1:
            sheet: Sheet = c.sheet
            keep = s.dice.roll(20, "dexterity (keep the weapon)", c.id)
            total = keep + sheet.mod("dexterity")
            kept = total >= 10
            s.emit(CheckRolled(s.segment, c.id, "dexterity", keep, total, 10, kept))
            if not kept:
                s.emit(WeaponLost(s.segment, c.id, status_of(c).weapon.name, "dropped"))
    if plan.params.get("weave") and acrobatics(s, c, WEAVE_DC, "moving in melee", plan)[0]:
        s.emit(Manoeuvred(s.segment, c.id, s.rnd, "moving in melee", 4))
    if plan.kind in ("disarm", "sunder"):
        s.emit(Manoeuvred(s.segment, c.id, s.rnd, "exposed", -4))


def strength_contest(
    s: Settlement, c: Combatant, other: Combatant, what: str, plan: Plan | None = None
) -> bool:
    """Strength against the better of the target's strength and dexterity; a heroic
    action's sure success needs no roll of the target's (its difficulty shows 0)."""
    sheet: Sheet = c.sheet
    target: Sheet = other.sheet
    mine = sheet.mod("strength")
    theirs = max(target.mod("strength"), target.mod("dexterity"))
    roll, die, sure = s.action_die(c, plan, f"strength ({what})", other)
    if sure:
        s.emit(CheckRolled(s.segment, c.id, f"strength ({what})", roll, die + mine, 0, True))
        return True
    against = s.dice.roll(20, f"strength or dexterity (against {what})", other.id)
    success = die + mine > against + theirs
    s.emit(
        CheckRolled(
            s.segment, c.id, f"strength ({what})", roll, die + mine, against + theirs, success
        )
    )
    return success


def manoeuvre_attack(
    s: Settlement, c: Combatant, target: str, plan: Plan, skill: str, label: str
) -> bool:
    """The attack of a manoeuvre (no damage): against the passive score, or an opposed
    attack roll when the target countered it (disarm, sunder)."""
    if not s.located(c, target):
        return False
    weapon = status_of(c).weapon
    mods = attack_modifiers(c, weapon, skill, s.rnd, plan=plan)
    if status_of(s.fighter(target)).invisible:
        mods["invisible"] = -10
    if plan.params.get("charge"):
        mods["extra moves"] = 0
        mods["charge"] = 4
    other = s.fighter(target)
    difficulty = passive_difficulty(s.state, other, s.positions, s.rnd, s.danger_scope(other))[0]
    counter = s.plans.get(target)
    if plan.heroic and other.sheet.heroism == 0:  # a sure success: no die is drawn
        shown = {k: v for k, v in mods.items() if v}
        total = 20 + sum(mods.values())
        s.emit(CheckRolled(s.segment, c.id, label, 20, total, difficulty, True, shown))
        return True
    opposed = (
        plan.kind in ("disarm", "sunder")
        and counter is not None
        and counter.kind == "counter"
        and counter.params.get("against") == "defensive"
        and counter.target in (c.id, None)
        and target not in s.used_counters
    )
    if opposed:
        s.used_counters.add(target)
        theirs = status_of(other).weapon
        tmods = attack_modifiers(other, theirs, theirs.skill, s.rnd, plan=counter)
        troll = s.dice.roll(20, "counter (opposed attack)", target)
        difficulty = troll + sum(tmods.values())
        s.emit(
            CounterRolled(
                s.segment,
                target,
                c.id,
                "opposed attack",
                troll,
                difficulty,
                {k: v for k, v in tmods.items() if v},
                s.rnd,
            )
        )
    roll, die, _ = s.action_die(c, plan, f"attack ({label})", other)
    total = die + sum(mods.values())
    success = roll == 20 or (die != 1 and total >= difficulty)
    shown = {k: v for k, v in mods.items() if v}
    s.emit(CheckRolled(s.segment, c.id, label, roll, total, difficulty, success, shown))
    return success


def resolve_manoeuvre(s: Settlement, c: Combatant, plan: Plan) -> str | None:
    sheet: Sheet = c.sheet
    if plan.kind == "whirlwind":
        return whirlwind(s, c, plan)
    target = plan.target
    if not s.standing(target):
        return f"{target} is out of the fight"
    assert target is not None
    moves = int(plan.params.get("moves", 0))
    if moves:
        s.move_toward(c, target, moves * sheet.speed, CONTACT)
    if not within(s.positions[c.id], s.positions[target], CONTACT):
        return f"{target} is out of reach"
    other = s.fighter(target)
    if plan.kind in ("trip", "overrun"):
        skill = "skilful" if plan.kind == "trip" else "strength"
        if manoeuvre_attack(s, c, target, plan, skill, plan.kind) and strength_contest(
            s, c, other, plan.kind, plan
        ):
            s.emit(Prone(s.segment, target, True))
    elif plan.kind == "disarm":
        skill = str(plan.params.get("skill", "strength"))
        if manoeuvre_attack(s, c, target, plan, skill, "disarm"):
            s.emit(WeaponLost(s.segment, target, status_of(other).weapon.name, "disarmed"))
    elif plan.kind == "sunder" and manoeuvre_attack(s, c, target, plan, "strength", "sunder"):
        weapon = status_of(c).weapon
        theirs = status_of(other).weapon
        rolls = [
            s.dice.roll(weapon.damage.sides, "sunder", c.id) for _ in range(weapon.damage.count)
        ]
        damage = max(1, sum(rolls) + weapon.damage.bonus + sheet.mod("strength"))
        total = status_of(other).weapon_damage + damage
        s.emit(WeaponDamaged(s.segment, target, theirs.name, damage, total))
        if total >= theirs.durability:
            s.emit(WeaponLost(s.segment, target, theirs.name, "broken"))
    return None


def whirlwind(s: Settlement, c: Combatant, plan: Plan) -> str | None:
    """Acrobatics 15 or a changed action; then an attack on every fighter in contact,
    allies included: the first (two with two weapons or a double weapon) at the
    standard scores, the others chained (Loreval, "Attaque en rotation")."""
    if not acrobatics(s, c, WHIRLWIND_DC, "whirlwind", plan)[0]:
        return "the whirlwind's acrobatics failed"
    status = status_of(c)
    around = [
        o.id
        for o in s.in_order()
        if o.id != c.id and within(s.positions[o.id], s.positions[c.id], CONTACT)
    ]
    if not around:
        return None
    two = status.off_hand is not None or status.weapon.double
    mode = "two_weapons" if two else "one_weapon"
    chain = chain_maluses(mode, len(around))
    for i, target in enumerate(around):
        if not s.standing(target):
            continue
        off = two and i % 2 == 1 and status.off_hand is not None
        weapon = status.off_hand if off and status.off_hand is not None else status.weapon
        mods = attack_modifiers(c, weapon, weapon.skill, s.rnd, plan=plan)
        if chain[i]:
            mods["chained"] = chain[i]
        s.strike(c, target, weapon, mods, plan, f"whirlwind {i + 1}", bool(off))
    return None
