"""Grappling (Loreval, "Lutte", "La taille, un avantage pour la lutte", "Actions de
lutte").

A grapple begins with a skilful attack against the target's Reflex (``grab``). Then the
holder keeps its hold without a roll and may ``lift``, ``throw`` (a lifted opponent),
``pin``, ``take_down`` or ``crush``; the one held may ``escape``, or ``release`` a pin.
Each of these is a grapple roll, d20 + attaque en force + the size modifier (+4 for the
holder, who is in place), against the opponent's passive grapple score, 10 + the same
(or Évasion when better, to resist a hold). Every grapple action is category 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.events import Moved
from segsim.rules.loreval.attention import focus_modifier
from segsim.rules.loreval.categories import adjusted_category
from segsim.rules.loreval.combat import (
    CONTACT,
    attack_modifiers,
    attention_scores,
    condition_modifiers,
    defence_value,
    distance,
    passive_difficulty,
    within,
)
from segsim.rules.loreval.content import GRAPPLE_SIZE, SIZES, TEXT, Sheet
from segsim.rules.loreval.events import CheckRolled, CounterRolled, Grappled, Prone
from segsim.rules.loreval.status import Plan, Status

if TYPE_CHECKING:
    from segsim.rules.loreval.declare import Checked, Context
    from segsim.rules.loreval.settle import Settlement
    from segsim.state import Combatant

RULE_GRAPPLE = f"{TEXT}, Lutte"
RULE_THROW = f"{TEXT}, Actions de lutte (Jeter)"
MOVES = ("grab", "escape", "release", "lift", "throw", "pin", "take_down", "crush")
HOLDER_MOVES = ("lift", "throw", "pin", "take_down", "crush")
HOLDER_BONUS = 4
CRUSH = {
    "I": (0, 0, 0),
    "Mi": (0, 0, 1),
    "TP": (1, 2, 0),
    "P": (1, 4, 0),
    "M": (1, 6, 0),
    "G": (2, 4, 0),
    "TG": (2, 6, 0),
    "Gi": (3, 6, 0),
    "C": (4, 6, 0),
}
"""Crushing damage by the holder's size as (dice, faces, flat): 1-4 is 1d4, 2-8 is 2d4,
2-12 2d6, 3-18 3d6, 4-24 4d6 (Loreval, "Écraser")."""


def size_modifier(sheet: Sheet) -> int:
    return GRAPPLE_SIZE[sheet.size]


def size_steps(a: Sheet, b: Sheet) -> int:
    """How many size categories ``a`` is above ``b``."""
    return SIZES.index(a.size) - SIZES.index(b.size)


def grapple_bonus(c: Combatant, rnd: int, resisting: bool) -> dict[str, int]:
    """Attaque en force (or Évasion when resisting and better), size, Focus, condition."""
    sheet: Sheet = c.sheet
    skill = "strength_attack"
    if resisting and sheet.skill("evasion") > sheet.skill("strength_attack"):
        skill = "evasion"
    mods = {
        skill: sheet.skill(skill),
        "size": size_modifier(sheet),
        "focus": focus_modifier(attention_scores(c, rnd).focus),
    }
    mods.update(condition_modifiers(c, rnd, False))
    return mods


def check_grapple(ctx: Context, d: Declaration) -> Checked:
    from segsim.rules.loreval.attention import focus_needed
    from segsim.rules.loreval.declare import (
        _finish,
        attention_of,
        check_category,
        check_focus,
        extra_moves,
        opponent,
    )

    move = d.params.get("move", "grab")
    if move not in MOVES:
        raise IllegalDeclaration(f"a grapple action is one of {', '.join(MOVES)}, not {move!r}")
    other = opponent(ctx, d.target)
    status = ctx.status
    if move == "grab":
        if status.holding == other.id:
            raise IllegalDeclaration(f"{ctx.c.id} already holds {other.id}", rule=RULE_GRAPPLE)
    elif move in ("escape", "release"):
        if status.held_by != other.id:
            raise IllegalDeclaration(f"{ctx.c.id} is not held by {other.id}", rule=RULE_GRAPPLE)
        if move == "release" and status.hold != "pinned":
            raise IllegalDeclaration(
                "release (faire lâcher prise) frees a pinned fighter", rule=RULE_GRAPPLE
            )
    else:
        if status.holding != other.id:
            raise IllegalDeclaration(f"{ctx.c.id} does not hold {other.id}", rule=RULE_GRAPPLE)
        held: Status = other.status
        if move == "throw" and held.hold != "lifted":
            raise IllegalDeclaration("only a lifted opponent can be thrown", rule=RULE_GRAPPLE)
    knee = d.params.get("knee", False)
    if not isinstance(knee, bool):
        raise IllegalDeclaration(f"knee must be true or false, not {knee!r}")
    if knee and move != "throw":
        raise IllegalDeclaration(
            "only a throw at the thrower's feet lands on its knee", rule=RULE_THROW
        )
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    if moves and move != "grab":
        raise IllegalDeclaration("grapplers stay in contact: no moves", rule=RULE_GRAPPLE)
    category = adjusted_category(3 + int(knee), extra_moves=moves)
    check_category(ctx, category)
    needed = 2 if knee else focus_needed(category)
    check_focus(ctx, attention, needed, "a throw onto the knee" if knee else "a grapple action")
    if move == "grab":
        from segsim.rules.loreval.declare import check_reach

        check_reach(ctx, other, ctx.status.weapon, moves)
    params: dict[str, Any] = {"move": move}
    if knee:
        params["knee"] = True
    return other.id, _finish(params, category, attention, moves, malus)


def opposed(s: Settlement, roller: Combatant, other: Combatant, what: str, plan: Plan) -> bool:
    """A grapple roll against the opponent's passive grapple score, or against its roll
    when it counters an escape (Loreval, "Actions de lutte")."""
    mods = grapple_bonus(roller, s.rnd, resisting=what in ("escape", "release"))
    if roller.id == status_of(other).held_by:
        mods["holder"] = HOLDER_BONUS
    if plan.changed:
        mods["changed action"] = -2
    # Évasion serves to keep from being held (to resist a hold, to get free), not a
    # holder keeping its hold against an escape (Loreval, "La taille...")
    escaping = what in ("escape", "release")
    against = grapple_bonus(other, s.rnd, resisting=not escaping)
    difficulty = 10 + sum(against.values())
    counter = s.plans.get(other.id)
    if (
        what in ("escape", "release")
        and counter is not None
        and counter.kind == "counter"
        and counter.params.get("against") == "defensive"
        and (counter.target == roller.id or counter.params.get("hypothetical"))
        and other.id not in s.used_counters
        and other.id not in s.blocked
    ):
        # the holder counters: it rolls rather than rely on its passive score (seed
        # 003, "Actions de lutte")
        s.used_counters.add(other.id)
        troll = s.dice.roll(20, f"counter (grapple, against {what})", other.id)
        difficulty = troll + sum(against.values())
        shown_against = {k: v for k, v in against.items() if v}
        s.emit(
            CounterRolled(
                s.segment, other.id, roller.id, "grapple", troll, difficulty, shown_against, s.rnd
            )
        )
    roll, die, sure = s.action_die(roller, plan, f"grapple ({what})", other)
    total = die + sum(mods.values())
    success = sure or roll == 20 or (die != 1 and total >= difficulty)
    shown = {k: v for k, v in mods.items() if v}
    s.emit(
        CheckRolled(
            s.segment, roller.id, f"grapple: {what}", roll, total, difficulty, success, shown
        )
    )
    return success


def status_of(c: Combatant) -> Status:
    status: Status = c.status
    return status


def resolve_grapple(s: Settlement, c: Combatant, plan: Plan) -> str | None:
    """Carry out a grapple action; a note when it cannot be done any more."""
    target = plan.target
    if not s.standing(target):
        return f"{target} is out of the fight"
    assert target is not None
    other = s.fighter(target)
    move = str(plan.params.get("move", "grab"))
    sheet: Sheet = c.sheet
    if move == "grab":
        moves = int(plan.params.get("moves", 0))
        if moves:
            s.move_toward(c, target, moves * sheet.speed, CONTACT)
        if not within(s.positions[c.id], s.positions[target], CONTACT):
            return f"{target} is out of reach"
        grab(s, c, other, plan)
        return None
    mine = status_of(c)
    if move in ("escape", "release"):
        if mine.held_by != target:
            return f"{target} no longer holds {c.id}"
        if opposed(s, c, other, move, plan):
            s.emit(Grappled(s.segment, target, c.id, "released" if move == "escape" else "grabbed"))
        return None
    if mine.holding != target:
        return f"{c.id} no longer holds {target}"
    if move == "throw":
        throw(s, c, other, plan)
        return None
    if not opposed(s, c, other, move, plan):
        return None
    if move == "crush":
        crush(s, c, other)
    else:
        hold = {"lift": "lifted", "pin": "pinned", "take_down": "down"}[move]
        s.emit(Grappled(s.segment, c.id, target, hold))
    return None


def grab(s: Settlement, c: Combatant, other: Combatant, plan: Plan) -> None:
    """Seizing the opponent: a skilful attack against its Reflex (it must dodge), where
    its Security counts for nothing."""
    if not s.located(c, other.id):
        return
    mods = attack_modifiers(c, status_of(c).weapon, "skilful", s.rnd, plan=plan)
    mods["size"] = size_modifier(c.sheet) - size_modifier(other.sheet)
    if status_of(other).invisible:
        mods["invisible"] = -10  # located: total concealment (Loreval, "Camouflage")
    # Security is of no use against grappling (Loreval, "La taille, un avantage pour
    # la lutte"): neither its modifier nor the exposure it measures counts
    value, parts = defence_value(
        s.state, other, "reflex", s.positions, s.rnd, s.danger_scope(other)
    )
    difficulty = value - parts["security"] - parts["exposed"]
    roll, die, sure = s.action_die(c, plan, "grapple (grab)", other)
    total = die + sum(mods.values())
    success = sure or roll == 20 or (die != 1 and total >= difficulty)
    shown = {k: v for k, v in mods.items() if v}
    s.emit(CheckRolled(s.segment, c.id, "grapple: grab", roll, total, difficulty, success, shown))
    if success:
        s.emit(Grappled(s.segment, c.id, other.id, "grabbed"))


def throw(s: Settlement, c: Combatant, other: Combatant, plan: Plan) -> None:
    """A lifted opponent is thrown: half the thrower's movement speed away (+ half per
    size above it), 1d6 damage + 1d6 per size above, strength added to each die; a
    smaller thrower only drops it at its feet. The grapple ends (Loreval, "Jeter").

    Thrown at the thrower's feet onto its knee (``knee``: Focus 2, one more point): the
    opponent lands at its feet and, if a skilful attack then succeeds, on the knee:
    something that hurts, so the damage is doubled (1d6 + strength for a smaller
    thrower) (Interpretations)."""
    sheet: Sheet = c.sheet
    steps = size_steps(sheet, other.sheet)
    knee = bool(plan.params.get("knee"))
    s.emit(Grappled(s.segment, c.id, other.id, "released"))
    on_knee = knee and knee_attack(s, c, other, plan)
    if steps >= 0 or on_knee:
        dice = 1 + max(0, steps)
        rolls = tuple(s.dice.roll(6, "thrown", c.id) for _ in range(dice))
        bonus = sheet.mod("strength") * dice
        amount = max(1, sum(rolls) + bonus)
        if not knee:
            here, there = s.positions[c.id], s.positions[other.id]
            gap = distance(here, there) or 1.0
            reach = sheet.speed / 2 * (1 + steps)
            dest = (
                round(there[0] + (there[0] - here[0]) / gap * reach, 2),
                round(there[1] + (there[1] - here[1]) / gap * reach, 2),
            )
            s.positions[other.id] = dest
            s.emit(Moved(s.segment, other.id, dest[0], dest[1]))
        mods = {"strength": bonus}
        if on_knee:
            amount *= 2
            mods["onto the knee"] = amount // 2
        s.hurt(c, other.id, "throw", rolls, amount, mods, 2 if on_knee else 1)
    s.emit(Prone(s.segment, other.id, True))


def knee_attack(s: Settlement, c: Combatant, other: Combatant, plan: Plan) -> bool:
    """The skilful attack that lands a thrown opponent on the thrower's knee, against
    its passive Defence or Reflex (Loreval, "Jeter")."""
    mods = attack_modifiers(c, status_of(c).weapon, "skilful", s.rnd, plan=plan)
    difficulty = passive_difficulty(s.state, other, s.positions, s.rnd, s.danger_scope(other))[0]
    roll, die, sure = s.action_die(c, plan, "attack (onto the knee)", other)
    total = die + sum(mods.values())
    success = sure or roll == 20 or (die != 1 and total >= difficulty)
    shown = {k: v for k, v in mods.items() if v}
    s.emit(CheckRolled(s.segment, c.id, "onto the knee", roll, total, difficulty, success, shown))
    return success


def crush(s: Settlement, c: Combatant, other: Combatant) -> None:
    sheet: Sheet = c.sheet
    count, faces, flat = CRUSH[sheet.size]
    rolls = tuple(s.dice.roll(faces, "crush", c.id) for _ in range(count))
    bonus = sheet.mod("strength")
    amount = sum(rolls) + flat + bonus
    if count == 0 and flat == 0:
        return
    s.hurt(c, other.id, "crush", rolls, max(1, amount), {"strength": bonus, "size": flat})
