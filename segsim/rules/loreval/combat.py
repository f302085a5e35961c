"""Attack and defence values (Loreval adapted from D&D 3; docs/rules/loreval.md).

An attack is d20 + the attack skill (attaque en force or attaque habile) + modifiers,
against a difficulty: the defender's passive Defence or Reflex (10 + skill + armour
(+ shield for Defence)), or what the defender rolled for a counter. A natural 1 misses
and a natural 20 hits; a hit whose die is in the weapon's threat range is a critical
threat, confirmed by a second roll that hits (D&D 3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from segsim.rules.loreval.attention import (
    Attention,
    exposure,
    movement_modifier,
    perception_modifier,
    scores,
)
from segsim.rules.loreval.content import Sheet, Weapon
from segsim.rules.loreval.status import Plan, Status

if TYPE_CHECKING:
    from segsim.state import Combatant, FightState

CONTACT = 1.5
"""Metres within which two fighters are in melee contact."""
_EPS = 0.01
CHANGED_MALUS = -2
"""A changed action, or a counter declared against a hypothetical situation: -2 to
every roll (Loreval, "Modifier son action", "Déclaration d'un contre")."""
INTO_MELEE = -4
"""Shooting at a fighter in melee (Loreval, "La mêlée")."""
RANGE_STEP = -2
"""D&D 3: -2 per full range increment beyond the first."""
MAX_INCREMENTS = {"thrown": 5, "fast_missile": 10, "slow_missile": 10}

Point = tuple[float, float]


def distance(a: Point, b: Point) -> float:
    return math.dist(a, b)


def within(a: Point, b: Point, metres: float) -> bool:
    return math.dist(a, b) <= metres + _EPS  # distance(a, b), without its call


def status_of(c: Combatant) -> Status:
    status: Status = c.status
    return status


def attention_scores(c: Combatant, rnd: int) -> Attention:
    """The fighter's attention scores now: its points, minus a point per sense lost,
    Environment capped at 1 under a closed helm; Security counts as 0 while surprised
    (surprise round) or charging, a charge declared as a counter too (Loreval,
    "Critères d'attention", "Charge": "quel que soit son score")."""
    status: Status = c.status
    sheet: Sheet = c.sheet
    plan = status.plan
    if (
        not status.senses_lost
        and not status.surprised
        and status.holding is None
        and status.held_by is None
        and status.locked_with is None
        and status.hold != "pinned"
        and not sheet.closed_helm
        and (
            plan is None
            or status.declared_round != rnd
            or not (plan.kind == "charge" or plan.params.get("how") == "charge")  # _charging
        )
    ):
        # nothing lowers or caps a criterion: the points put in them (most of the time)
        attention: Attention = status.attention
        return attention
    s = scores(
        status.attention,
        malus=status.senses_lost,
        environment_limit=1 if sheet.closed_helm else None,
        floor=0 if sheet.has("blind_fight") else None,
    )
    charging = plan is not None and status.declared_round == rnd and _charging(plan)
    security = s.security
    if status.surprised or charging:
        security = 0
    if status.hold == "pinned":
        security = min(security - 2, 0)  # immobilisé: -2, limited to 0
    elif status.holding is not None and status.pinning:
        security = min(security, 0)
    elif status.holding is not None or status.held_by is not None:
        security = min(security, GRAPPLE_SECURITY)
    if status.locked_with is not None:
        security += LOCK_SECURITY
    return Attention(s.environment, security, s.focus)


def _charging(plan: Any) -> bool:
    """A charge, or a counter made by charging (Security counts as 0)."""
    return bool(plan.kind == "charge" or plan.params.get("how") == "charge")


LOCK_SECURITY = -2
"""Both fighters locked by a successful block are at -2 in Security (Loreval, "Bloquer
une attaque")."""
GRAPPLE_SECURITY = 1
"""Who grapples or is grappled cannot raise Security above 1 (Loreval, "Lutte")."""
HELD_DEFENCE = -2
CONDITION_MALUS = -4
"""Lifted, taken down or prone: -4 to every combat skill (Loreval, "Actions de lutte";
prone after a trip: Interpretations)."""
WEAVE_BONUS = 4


def condition_modifiers(c: Combatant, rnd: int, defending: bool) -> dict[str, int]:
    """Combat maluses of the fighter's condition: held in a grapple (-2 to defences),
    lifted or taken down (-4 to everything), prone (-4); the bonus of juggling to
    attacks and of moving in melee to defences."""
    status: Status = c.status
    mods: dict[str, int] = {}
    if status.held_by is not None and defending:
        mods["held"] = HELD_DEFENCE
    if status.hold in ("lifted", "down"):
        mods[status.hold] = CONDITION_MALUS
    if status.prone and status.hold != "down":
        mods["prone"] = CONDITION_MALUS
    if not defending and status.bonus_round == rnd and status.attack_bonus:
        mods["juggling"] = status.attack_bonus
    if defending and status.weave_round == rnd:
        mods["moving in melee"] = WEAVE_BONUS
    if defending and status.exposed_round == rnd:
        mods["exposed by a manoeuvre"] = CONDITION_MALUS
    return mods


def round_moves(c: Combatant, rnd: int) -> int:
    """Extra moves the fighter declared for this round (their malus holds all round)."""
    status: Status = c.status
    if status.plan is None or status.declared_round != rnd:
        return 0
    return status.plan.extra_moves


def dangers(
    state: FightState,
    defender: Combatant,
    positions: Mapping[str, Point],
    rnd: int,
    scope: Sequence[Combatant] | None = None,
) -> tuple[int, int]:
    """Sources of danger the defender is aware of and not aware of: opponents in contact
    and opponents who declared a hostile action at it this round; hidden or invisible
    ones (and every
    one while the defender is surprised) are sources it is not aware of. ``scope``: the
    fighters that may be either (a large fight's settlement finds them), by default
    everyone in the fight."""
    did = defender.id  # positions.get(), without a call of a settlement's Lazy.get
    here = positions[did] if did in positions else defender.position  # noqa: SIM401
    aware = unaware = 0
    side = defender.side
    surprised = defender.status.surprised
    reach = CONTACT + _EPS
    for o in state.against(None) if scope is None else scope:
        if o.side == side:
            continue
        st: Status = o.status
        plan = st.plan
        hostile = plan is not None and st.declared_round == rnd and plan.target == did
        if not hostile:
            # within(positions.get(o.id, o.position), here, CONTACT), without its calls
            # (a settlement's Positions reads the fighter's position when it has none)
            oid = o.id
            there = positions[oid] if oid in positions else o.position  # noqa: SIM401
            if not math.dist(there, here) <= reach:
                continue
        if st.hidden or st.invisible or surprised:
            unaware += 1
        else:
            aware += 1
    return aware, unaware


def defence_value(
    state: FightState,
    defender: Combatant,
    which: str,
    positions: Mapping[str, Point],
    rnd: int,
    scope: Sequence[Combatant] | None = None,
) -> tuple[int, dict[str, int]]:
    """The defender's passive ``defence`` or ``reflex`` now and its parts: the sheet's
    value, Security's modifier, exposure, the malus of extra moves (``scope``: see
    :func:`dangers`)."""
    s = attention_scores(defender, rnd)
    aware, unaware = dangers(state, defender, positions, rnd, scope)
    return _defence(defender, which, rnd, s.security, aware, unaware)


def _defence(
    defender: Combatant, which: str, rnd: int, security: int, aware: int, unaware: int
) -> tuple[int, dict[str, int]]:
    """:func:`defence_value` from the defender's Security and its sources of danger."""
    sheet: Sheet = defender.sheet
    base = sheet.passive_defence if which == "defence" else sheet.passive_reflex
    exposed = exposure(security, aware, unaware)
    if defender.status.hold == "pinned":
        exposed = min(exposed, -4)  # immobilisé: always exposed
    parts = {
        which: base,
        "security": perception_modifier(security),
        "exposed": exposed,
        "extra moves": movement_modifier(round_moves(defender, rnd)),
    }
    parts.update(condition_modifiers(defender, rnd, True))
    return sum(parts.values()), parts


def passive_difficulty(
    state: FightState,
    defender: Combatant,
    positions: Mapping[str, Point],
    rnd: int,
    scope: Sequence[Combatant] | None = None,
) -> tuple[int, str]:
    """The better of the defender's passive Defence and Reflex (Interpretations), and
    which it is: its Security and sources of danger worked out once for both
    (``scope``: see :func:`dangers`). What :func:`defence_value` adds up, without its
    parts (an attack shows the name of what it was rolled against)."""
    security = attention_scores(defender, rnd).security
    aware, unaware = dangers(state, defender, positions, rnd, scope)
    # _defence() for each, without its two calls: all but the sheet's value is the same
    # for both (worked out once)
    sheet: Sheet = defender.sheet
    status: Status = defender.status
    # exposure(security, aware, unaware), without its call
    covered = max(0, security + 1)
    if unaware > 0:
        exposed = -6 if aware + unaware > covered else -4
    else:
        exposed = -4 if aware > covered else 0
    if status.hold == "pinned":
        exposed = min(exposed, -4)  # immobilisé: always exposed
    plan = status.plan
    # movement_modifier(round_moves()), without their calls
    extra = 0 if plan is None or status.declared_round != rnd else plan.extra_moves
    moves = 0 if extra <= 0 else -4 - 2 * (extra - 1)
    # perception_modifier(security), without its call
    if security >= 3:
        perceived = 4 + 2 * (security - 3)
    elif security <= -1:
        perceived = -4 - 2 * (-1 - security)
    else:
        perceived = 0
    shared = perceived + exposed + moves
    if (  # a condition to count (condition_modifiers() called only then: most often none)
        status.held_by is not None
        or status.hold in ("lifted", "down")
        or status.prone
        or status.weave_round == rnd
        or status.exposed_round == rnd
    ):
        shared += sum(condition_modifiers(defender, rnd, True).values())
    d = sheet.passive_defence
    r = sheet.passive_reflex
    if r > d:
        return r + shared, "passive reflex"
    return d + shared, "passive defence"


def attack_modifiers(
    attacker: Combatant,
    weapon: Weapon,
    skill: str,
    rnd: int,
    *,
    plan: Plan | None = None,
    charge: bool = False,
) -> dict[str, int]:
    """The standing parts of an attack: the attack skill, Focus's modifier, the malus of
    extra moves (not on a charge's attack), a changed action's -2, untrained armour and
    shield."""
    sheet: Sheet = attacker.sheet
    status: Status = attacker.status
    s = attention_scores(attacker, rnd)
    name = "strength_attack" if skill == "strength" else "skilful_attack"
    if plan is None:
        plan = status.plan if status.declared_round == rnd else None
    moves = plan.extra_moves if plan is not None else 0
    # focus_modifier(s.focus) and movement_modifier(moves), without their calls
    focus = s.focus
    if focus >= 3:
        focused = 2 + (focus - 3)
    elif focus <= -1:
        focused = -2 - (-1 - focus)
    else:
        focused = 0
    mods = {
        name: sheet.skill(name),
        "focus": focused,
        "extra moves": 0 if charge or moves <= 0 else -4 - 2 * (moves - 1),
        "changed action": CHANGED_MALUS if plan is not None and plan.changed else 0,
        "equipment": sheet.combat_malus,
    }
    if plan is not None and plan.params.get("power"):
        mods["power attack"] = -int(plan.params["power"])
    if (  # a condition to count (condition_modifiers() called only then: most often none)
        status.hold in ("lifted", "down")
        or status.prone
        or (status.bonus_round == rnd and status.attack_bonus)
    ):
        mods.update(condition_modifiers(attacker, rnd, False))
    return mods


def range_modifiers(
    state: FightState,
    shooter: Combatant,
    target: Combatant,
    weapon: Weapon,
    positions: Mapping[str, Point],
) -> dict[str, int] | None:
    """Maluses of a shot: -2 per range increment beyond the first, -4 into a melee;
    None when the target is beyond the weapon's longest range."""
    here = positions.get(shooter.id, shooter.position)
    there = positions.get(target.id, target.position)
    gap = distance(here, there)
    increments = max(0, math.ceil((gap - _EPS) / weapon.range) - 1) if weapon.range else 0
    if increments >= MAX_INCREMENTS.get(weapon.mode, 10):
        return None
    mods = {"range": RANGE_STEP * increments}
    in_melee = False  # (a loop: no generator's frame, no within() call for each)
    sid, tid, side = shooter.id, target.id, target.side
    reach = CONTACT + _EPS
    for o in state.against(None):
        oid = o.id
        if oid in (sid, tid) or o.side == side:
            continue
        where = positions.get(oid, o.position)
        if math.dist(where, there) <= reach:
            in_melee = True
            break
    if in_melee:
        mods["into melee"] = INTO_MELEE
    return mods


def strength_damage(sheet: Sheet, weapon: Weapon, off_hand: bool) -> int:
    """The strength modifier added to damage (D&D 3): x1.5 with a two-handed melee weapon,
    x0.5 in the off hand, none with bows and crossbows (a penalty still counts)."""
    mod = sheet.mod("strength")
    if weapon.mode in ("fast_missile", "slow_missile"):
        return min(0, mod)
    if off_hand:
        return mod // 2 if mod > 0 else mod
    if weapon.hands == 2 and not weapon.double and weapon.mode == "melee" and mod > 0:
        return mod * 3 // 2
    return mod
