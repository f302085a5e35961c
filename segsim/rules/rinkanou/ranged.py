"""Shots and projectiles (RinKaNou, "Les portées", "Esquive de projectiles").

A shot rolls when it is loosed; the projectile then flies as an action of its own and is
resolved when it arrives, ``flight x distance / 100`` segments later. A target that saw
it coming can dodge it, if its dodge ends in the arrival segment: active against passive
at -40 %. A missed shot can still hit a dodger: when the tens digits of the shooter's Me
and of the dodger's Mr are the same, the dodge stepped into its path.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.events import ActionSpawned
from segsim.rules.rinkanou import manoeuvres
from segsim.rules.rinkanou.content import RangedWeapon, Sheet
from segsim.rules.rinkanou.events import AttackResolved, HandsChanged
from segsim.rules.rinkanou.roll import DOUBLES, Rolled, TestResult
from segsim.rules.rinkanou.situation import NO_PS, PSUse
from segsim.state import Combatant

if TYPE_CHECKING:
    from segsim.rules.rinkanou.settle import Settlement

PROJECTILE_DODGE_MALUS = -40
RANGE_MALUS_PER_INCREMENT = 5  # % to hit per range increment (distance / increment x 5)
SAME_DIRECTION = 30.0  # degrees: missiles closer than this come "from one direction"


def increments(distance: float, weapon: RangedWeapon) -> int:
    """Whole range increments to the target, the damage malus (RinKaNou, "Les portées":
    distance / increment, rounded down); none at point blank (below one increment)."""
    return int(distance // weapon.increment) if distance >= weapon.increment else 0


def range_malus(distance: float, weapon: RangedWeapon) -> int:
    """The malus to hit: distance / increment x 5 (RinKaNou, "Les portées"), a fraction
    of an increment counting (330 m at 50 m: -33 %); none at point blank. A fraction of
    a percent is dropped."""
    if distance < weapon.increment:
        return 0
    return -int(distance * RANGE_MALUS_PER_INCREMENT / weapon.increment + 1e-9)


def flight_segments(distance: float, weapon: RangedWeapon, shot: str) -> int:
    """Segments a missile flies: the weapon's time for 100 m, times distance / 100."""
    return max(1, math.ceil(weapon.flight[shot] * distance / 100))


def bearing(target: tuple[float, float], origin: tuple[float, float]) -> float:
    """The direction (degrees) from which something coming from ``origin`` arrives."""
    return math.degrees(math.atan2(origin[1] - target[1], origin[0] - target[0])) % 360


def shoot(s: Settlement, action: Action) -> None:
    """Loose the missile: roll to hit now, then let it fly."""
    combatants = s.combatants  # (s.fighter(), without its calls)
    shooter = combatants[action.actor]
    assert action.target is not None
    target = combatants[action.target]
    sheet: Sheet = shooter.sheet
    weapon = sheet.ranged
    assert weapon is not None
    status = shooter.status
    s.events.append(
        HandsChanged(
            s.segment, shooter.id, status.wielding, False, status.grip, status.shield_aside
        )
    )
    distance = math.dist(shooter.position, target.position)
    steps = increments(distance, weapon)
    pc = s.pc(action)
    # Only the modifiers that count (those of 0 the test's event would leave out: a
    # table it keeps as it is rather than filters).
    mods = _counted(
        (weapon.skill, sheet.skill(weapon.skill)),
        (weapon.characteristic, sheet.characteristic(weapon.characteristic)),
        ("range", range_malus(distance, weapon)),
        ("deflection", -target.sheet.armour.deflection),
        ("cover", -s.cover_malus(target)),
        ("pc", pc.chance),
    )
    result = s.test(action, "shoot", mods)
    shot = str(action.params.get("shot", "direct"))
    params: dict[str, Any] = {
        "shot": shot,
        "chance": result.chance,
        "roll": result.roll,
        "increments": steps,
        "from": [shooter.position[0], shooter.position[1]],
    }
    if pc is not NO_PS:  # (none of them without command points)
        for key in ("aim", "orient", "toward", "approximate"):
            value = getattr(pc, key)
            if value:
                params[key] = value
    if action.params.get("disarm"):
        params["disarm"] = "weapon"
    s.events.append(
        ActionSpawned(
            s.segment,
            shooter.id,
            s.next_id(),
            "projectile",
            target.id,
            flight_segments(distance, weapon, shot),
            "flight",
            visible=not shooter.setup.get("hidden", False),
            public=True,
            params=params,
        )
    )


def projectile(s: Settlement, action: Action) -> None:
    """A missile arrives: dodged or not, it hits or misses."""
    combatants = s.combatants  # (s.fighter(), without its calls)
    shooter = combatants[action.actor]
    assert action.target is not None
    target = combatants[action.target]
    if not target.in_fight or target.id in s.out:
        return
    p = action.params
    chance, roll = int(p["chance"]), int(p["roll"])
    result = TestResult(chance, roll)
    # Its success and margins (TestResult's, read once rather than through its properties).
    success = roll <= chance
    weapon = shooter.sheet.ranged
    assert weapon is not None

    def resolved(outcome: str) -> None:
        s.events.append(
            AttackResolved(s.segment, shooter.id, action.id, target.id, "missile", outcome)
        )

    dodge = projectile_dodge(s, target, tuple(p["from"]), shooter.id)
    dodged = None
    if dodge is not None:
        dodged = dodge_roll(s, dodge, target, shooter.id, result)
    if success and dodged is not None and dodged.success:
        resolved("dodged")
        return
    if success:
        margin = (chance - roll) // 5 if roll in DOUBLES else (chance - roll) // 10
    else:
        # The dodge may have stepped into a missile that would have missed.
        if dodged is None or not dodged.success or dodged.mr // 10 != (roll - chance) // 10:
            resolved("missed")
            return
        margin = 0
    if p.get("disarm"):
        resolved(manoeuvres.disarm(s, action, shooter, target))
        return
    use = PSUse(
        aim=p.get("aim"),
        orient=int(p.get("orient", 0)),
        toward=p.get("toward"),
        approximate=int(p.get("approximate", 0)),
    )
    sheet: Sheet = shooter.sheet
    parts = {
        "weapon": weapon.damage,
        "margin": margin,
        "strength": s.strength(sheet) if weapon.thrown else 0,
        "range": -int(p["increments"]),
    }
    s.land(shooter, target, use, resolved, parts)


def projectile_dodge(
    s: Settlement, target: Combatant, origin: tuple[float, ...], shooter: str
) -> Action | None:
    """The target's dodge that can meet a missile from ``origin``: one ending now, with a
    dodge left (a multiple dodge for several missiles), and facing that direction."""
    here = bearing(target.position, (float(origin[0]), float(origin[1])))
    for a in s.batch:
        if a.actor != target.id or a.kind != "dodge" or a.cancelled:
            continue
        if a.target is not None and a.target != shooter:
            continue  # a dodge against another opponent
        extra = s.use(a).multiple + s.pc(a).multiple
        left = s.dodges_left.setdefault(a.id, 1 + extra)
        if left <= 0:
            continue
        facing = s.directions.setdefault(a.id, here)
        gap = abs((here - facing + 180) % 360 - 180)
        if gap > SAME_DIRECTION:
            continue  # from another direction: only one can be watched
        return a
    return None


def dodge_roll(
    s: Settlement, dodge: Action, target: Combatant, shooter: str, shot: Rolled
) -> Rolled:
    """Esquive + Souplesse at -40 %, against the shooter's Mr when the shot is good; the
    points are those against the shooter."""
    s.used.add(dodge.id)
    s.dodges_left[dodge.id] -= 1
    sheet: Sheet = target.sheet
    mods = _counted(  # (those that count, as for a shot)
        ("dodge", sheet.skill("dodge")),
        ("agility", sheet.characteristic("agility")),
        ("shooter Mr", -shot.mr),
        ("missile", PROJECTILE_DODGE_MALUS),
        ("ps", s.defence_points(dodge, target, shooter)[0]),
        ("pc", s.pc(dodge).chance),
    )
    return s.test(dodge, "dodge", mods)


def _counted(*mods: tuple[str, int]) -> dict[str, int]:
    """A test's modifiers in the order given, those of 0 left out."""
    counted: dict[str, int] = {}
    for name, value in mods:
        if value:
            counted[name] = value
    return counted
