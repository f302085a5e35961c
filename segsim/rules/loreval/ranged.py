"""Attacks at range (Loreval, "Attaques à distance"): range increments, a target in
melee (-4), shooting into the pile, cover (by an obstacle or a creature in the line of
fire) and concealment.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segsim.rules.loreval.combat import CONTACT, range_modifiers, within
from segsim.rules.loreval.content import SIZES, Weapon
from segsim.rules.loreval.declare import CONCEALMENT, COVER
from segsim.rules.loreval.events import ActionWasted
from segsim.rules.loreval.status import Plan

if TYPE_CHECKING:
    from segsim.rules.loreval.combat import Point
    from segsim.rules.loreval.settle import Settlement
    from segsim.state import Combatant

PILE_MARGIN = 4
"""A shot into the pile that misses by 4 or less may hit a neighbour (Loreval, "Tir
dans le tas")."""
LINE_WIDTH = 0.5
"""Metres from the line of fire within which a creature stands in the way."""


def creature_cover(s: Settlement, shooter: str, target: str) -> tuple[int, str | None]:
    """The cover a creature in the line of fire gives the target: +2 if smaller, +4 of
    the same size, +7 if larger (Loreval, "Couverture"); the largest one counts."""
    a: Point = s.positions[shooter]
    b: Point = s.positions[target]
    length = math.dist(a, b)
    if length == 0:
        return 0, None
    best, who = 0, None
    tsize = SIZES.index(s.fighter(target).sheet.size)
    for o in s.in_order():
        if o.id in (shooter, target):
            continue
        p = s.positions[o.id]
        t = ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / length**2
        if not 0 < t < 1:
            continue
        foot = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        if math.dist(foot, p) > LINE_WIDTH or within(p, a, CONTACT):
            continue
        osize = SIZES.index(o.sheet.size)
        bonus = COVER[25] if osize < tsize else COVER[50] if osize == tsize else COVER[75]
        if bonus > best:
            best, who = bonus, o.id
    return best, who


def shoot(
    s: Settlement,
    c: Combatant,
    target: str,
    weapon: Weapon,
    mods: dict[str, int],
    plan: Plan,
    label: str,
) -> str | None:
    """One shot; a note when the target is beyond the weapon's range."""
    extra = range_modifiers(s.state, c, s.fighter(target), weapon, s.positions)
    if extra is None:
        return f"{target} is beyond range"
    pile = bool(plan.params.get("pile"))
    if pile:
        extra.pop("into melee", None)  # no particular target in the melee
    for name, value in extra.items():  # (loops: no comprehension's or generator's frame)
        if value:
            mods[name] = value
    hidden = 0
    for n in plan.params.get("concealment", []):
        hidden += CONCEALMENT[n]
    if hidden:
        mods["concealment"] = hidden
    cover = COVER[int(plan.params.get("cover", 0))]
    in_way, creature = creature_cover(s, c.id, target)
    if in_way > cover:
        cover = in_way
    else:
        creature = None
    result = s.strike(c, target, weapon, mods, plan, label, False, cover=cover)
    if result != "miss":
        return None
    total, difficulty = s.last
    if creature is not None and total >= difficulty - cover and s.standing(creature):
        s.emit(ActionWasted(s.segment, c.id, "shot", f"{creature} is in the way and is hit"))
        s.damage(c, creature, weapon, 1, False, {})
        return None
    if pile and total >= difficulty - PILE_MARGIN:
        there = s.positions[target]
        for o in s.in_order():
            if o.id in (c.id, target) or not within(s.positions[o.id], there, CONTACT):
                continue
            s.emit(ActionWasted(s.segment, c.id, "shot", f"missed {target}, may hit {o.id}"))
            s.strike(c, o.id, weapon, dict(mods), plan, "into the pile", False)
            break
    return None
