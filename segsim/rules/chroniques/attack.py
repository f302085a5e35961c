"""Attack tests, DEF and damage (Chroniques, "Résolution des attaques", "Attaque concertée",
"Combat à deux armes (L)", "Actions défensives", "PJ incompétent").

An attack test is d20 + modifiers; it succeeds when the total is at least the target's
DEF. With two weapons each attack rolls a d12 instead. A concerted attack is an attack
test against 15 instead of a DEF.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from segsim.rules.chroniques.content import Sheet, Weapon
from segsim.rules.chroniques.status import Status

if TYPE_CHECKING:
    from segsim.state import Combatant, FightState

CONTACT = 1.5
"""Metres within which two fighters are in contact (au contact): a melee attack needs it."""
CONCERTED_DIFFICULTY = 15
CONCERTED_BONUS = 2
CONCERTED_HIGH = 25  # reaching it (or a critical) doubles the bonus
DARKNESS_MALUS = -5  # attaque à distance dans la pénombre
INTO_MELEE_MALUS = -5  # tirer sur une cible engagée au corps à corps
INTO_MELEE_NEAR_MALUS = -2  # ... when the target is on the shooter's side of the melee
SIMPLE_DEFENCE = 2
TOTAL_DEFENCE = 4
TWO_WEAPON_DIE = 12
_EPS = 0.01
"""Distances are compared to the centimetre (positions are kept to the centimetre)."""

Point = tuple[float, float]


def distance(a: Point, b: Point) -> float:
    return math.dist(a, b)


def within(a: Point, b: Point, metres: float) -> bool:
    return distance(a, b) <= metres + _EPS


def defence(c: Combatant, surprised_malus: int) -> tuple[int, dict[str, int]]:
    """The fighter's DEF now and what makes it: the sheet's DEF, a defence action's
    bonus, and the surprised malus during the first round."""
    sheet: Sheet = c.sheet
    status: Status = c.status
    parts = {"sheet": sheet.defence}
    if status.defence_bonus:
        parts[f"{status.defence_kind} defence"] = status.defence_bonus
    if status.surprised and surprised_malus:
        parts["surprised"] = -surprised_malus
    return sum(parts.values()), parts


def uses_forbidden(sheet: Sheet, status: Status) -> list[str]:
    """Names of the forbidden items the fighter uses now (in hand, worn, carried shield)."""
    items = (status.weapon, status.off_hand, sheet.armour, sheet.shield)
    return [item.name for item in items if item is not None and sheet.forbids(item)]


def can_use_capabilities(sheet: Sheet, status: Status) -> bool:
    """No capability may be used with forbidden equipment (Chroniques, "Équipement interdit")."""
    return not uses_forbidden(sheet, status)


def engaged_with(
    state: FightState, target: str, shooter: str, positions: Mapping[str, Point]
) -> list[str]:
    """Fighters other than the shooter, hostile to the target, in contact with it, in the
    fight's order (in a larger fight, looked for among those the fight's grid finds
    within reach and those the settlement has moved, not among everyone)."""
    t = state.combatants[target]
    where = positions.get(target, t.position)
    if len(state.grid) <= ENGAGED_SCAN:
        return [
            c.id
            for c in state.against(None)  # everyone in the fight (a list kept)
            if c.side != t.side
            and c.id != target
            and c.id != shooter
            and within(positions.get(c.id, c.position), where, CONTACT)
        ]
    combatants = state.combatants
    found = set(state.grid.near(where, CONTACT + 2 * _EPS))
    found.update(positions)  # positions this settlement changed (or read)
    return [
        c.id
        for c in sorted([combatants[cid] for cid in found], key=_by_order)
        if c.in_fight
        and c.side != t.side
        and c.id != target
        and c.id != shooter
        and within(positions.get(c.id, c.position), where, CONTACT)
    ]


def _by_order(c: Combatant) -> int:
    return c.order


ENGAGED_SCAN = 32
"""Fighters in the fight up to which :func:`engaged_with` looks over them all (the grid
answers larger fights; only whether anyone is engaged, and where, matters)."""


def range_modifiers(
    state: FightState,
    shooter: str,
    target: str,
    weapon: Weapon,
    dim_light: bool,
    positions: Mapping[str, Point],
    *,
    dim_light_magic: bool = False,
) -> dict[str, int]:
    """Maluses of an attack at range (Chroniques, "Résolution des attaques"): dim light
    (on ranged attacks, the text's "attaque à distance"; on magic ones too with
    ``dim_light_magic``), a target engaged in melee (-5, or -2 when no fighter engaging
    it stands between it and the shooter; ranged and magic attacks alike)."""
    if not weapon.at_range:
        return {}
    mods: dict[str, int] = {}
    if dim_light and (weapon.kind == "ranged" or dim_light_magic):
        mods["dim light"] = DARKNESS_MALUS
    engaged = engaged_with(state, target, shooter, positions)
    if engaged:
        me = positions[shooter]
        d_target = distance(me, positions[target])
        near = all(distance(me, positions[e]) > d_target + _EPS for e in engaged)
        mods["into melee"] = INTO_MELEE_NEAR_MALUS if near else INTO_MELEE_MALUS
    return mods


def critical_from(weapon: Weapon, die: int, two_weapon_criticals: bool) -> int | None:
    """Lowest face of a critical success on ``die``: the weapon's range on a d20; on the
    d12 of two-weapon fighting its top faces stand for the d20's (or none)."""
    if die == 20:
        return weapon.critical
    if not two_weapon_criticals:
        return None
    return max(2, die - (20 - weapon.critical))


def concerted_bonus(total: int, critical: bool) -> int:
    """+2, doubled at 25 or on a critical success (Chroniques, "Attaque concertée")."""
    return 2 * CONCERTED_BONUS if critical or total >= CONCERTED_HIGH else CONCERTED_BONUS
