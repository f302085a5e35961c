"""Combat manoeuvres (RinKaNou, "Manœuvres de combat"): disarm, grab, keep at distance;
and the handling actions around them: readying a ranged weapon, changing weapons,
regripping, picking a weapon up."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segsim.actions import Action
from segsim.rules.rinkanou.content import Sheet
from segsim.rules.rinkanou.events import (
    AttackResolved,
    HandsChanged,
    ItemDropped,
    ItemPickedUp,
    KeptAtDistance,
    WeaponState,
)
from segsim.state import Combatant, by_order

if TYPE_CHECKING:
    from segsim.rules.rinkanou.settle import Settlement

KEEP_MALUS = {"cutting": -20, "blunt": -30}  # weapons "de type T et C" (see the rules page)
KEEPING = "keeping"  # state.extra: a keep was planned in this fight
HELD_OFF_MARGIN = 0.1  # metres beyond the keeper's reach where an approach is stopped
REACH_TOLERANCE = 1e-5  # as in the ruleset: a hair's breadth is in reach
DIRECTIONS = 8  # 1d8 for the direction a weapon flies


def hands(s: Settlement, action: Action) -> None:
    """Ready, draw, regrip, pick up: change what the fighter holds."""
    c = s.fighter(action.actor)
    st = c.status
    wielding, loaded, grip, aside = st.wielding, st.loaded, st.grip, st.shield_aside
    if action.kind == "ready":
        loaded = True
    elif action.kind == "draw":
        wielding, loaded = str(action.params["weapon"]), False
        if st.armed:
            s.events.append(WeaponState(s.segment, c.id, False, False))
    elif action.kind == "regrip":
        if action.params.get("item") == "shield":
            aside = False
        else:
            grip = "held"
    elif action.kind == "pick_up":
        grip = "held"
        s.events.append(ItemPickedUp(s.segment, c.id, "weapon"))
    s.events.append(HandsChanged(s.segment, c.id, wielding, loaded, grip, aside))


def disarm(s: Settlement, action: Action, attacker: Combatant, defender: Combatant) -> str:
    """A successful disarm (RinKaNou, "Désarmement"): a one-handed weapon flies (1d8 for
    the direction, 1d100 cm); a two-handed one is only loosened, and flies (1d2 m) if
    disarmed again before the regrip; a shield is pushed aside. A grab adds a strength
    duel: the winner keeps the weapon. Returns the attack's result."""
    st = defender.status
    what = action.params.get("disarm", "weapon")
    if what == "shield":
        s.events.append(HandsChanged(s.segment, defender.id, st.wielding, st.loaded, st.grip, True))
        return "shield pushed aside"
    if st.armed:
        s.events.append(WeaponState(s.segment, defender.id, False, False))
    if action.params.get("grab"):
        if strength_duel(s, attacker, defender):
            s.events.append(
                HandsChanged(
                    s.segment, defender.id, st.wielding, st.loaded, "taken", st.shield_aside
                )
            )
            return "weapon grabbed"
        return "grab resisted"
    weapon = defender.sheet.weapon
    if weapon.hands == 2 and st.grip == "held":
        s.events.append(
            HandsChanged(s.segment, defender.id, st.wielding, st.loaded, "loose", st.shield_aside)
        )
        return "grip loosened"
    direction = s.dice.roll(DIRECTIONS, "disarm direction", defender.id)
    if weapon.hands == 2:
        metres = float(s.dice.roll(2, "disarm distance (m)", defender.id))
    else:
        metres = s.dice.roll(100, "disarm distance (cm)", defender.id) / 100
    angle = math.radians(45 * (direction - 1))
    x = round(defender.position[0] + metres * math.cos(angle), 6)
    y = round(defender.position[1] + metres * math.sin(angle), 6)
    s.events.append(ItemDropped(s.segment, defender.id, "weapon", x, y))
    s.events.append(
        HandsChanged(s.segment, defender.id, st.wielding, st.loaded, "dropped", st.shield_aside)
    )
    return "disarmed"


def strength_duel(s: Settlement, attacker: Combatant, defender: Combatant) -> bool:
    """A duel of Force (RinKaNou, "Agripper"): each rolls twice its Force; the attacker
    must succeed and beat the defender's margin."""
    mine, theirs = (
        s.opposing_test(
            who, "strength duel", {"strength x2": 2 * who.sheet.characteristic("strength")}
        )
        for who in (attacker, defender)
    )
    return mine.success and (not theirs.success or mine.mr > theirs.mr)


def keep_off(
    s: Settlement, mover: Combatant, start: tuple[float, float], dest: tuple[float, float]
) -> tuple[float, float]:
    """Keeping at distance (RinKaNou, "Tenir à distance"): every time ``mover`` tries to
    come closer to a fighter who keeps it at distance, whatever the form of its move,
    that is every move from beyond the keeper's reach to within it, the keeper rolls its
    attack against twice the mover's Souplesse. Success: the mover stops on its way just
    beyond the keeper's reach, and is hit if the Mr exceeds that threshold. Failure: the
    mover has come close, where its move takes it; it may attack at once if the Me
    exceeds the threshold, else only with its next action: a blow it armed before or
    during the approach is lost. Returns where the move ends."""
    for keeper in _keepers(s, mover, start, dest):
        keep = next(a for a in keeper.actions if a.kind == "keep" and a.target == mover.id)
        reach = s.rules.reach(keeper.sheet)
        if math.dist(start, keeper.position) <= reach + REACH_TOLERANCE:
            continue  # already close to this one
        if math.dist(dest, keeper.position) > reach + REACH_TOLERANCE:
            continue  # not (yet) coming within its reach
        sheet: Sheet = keeper.sheet
        weapon = sheet.weapon
        threshold = 2 * mover.sheet.characteristic("agility")
        mods = {
            weapon.skill: sheet.skill(weapon.skill),
            weapon.characteristic: sheet.characteristic(weapon.characteristic),
            "agility x2": -threshold,
        }
        if weapon.blunt:
            mods["blunt"] = KEEP_MALUS["blunt"]
        elif "thrust" not in weapon.damage:
            mods["cutting"] = KEEP_MALUS["cutting"]
        result = s.test(keep, "keep at distance", mods)
        if result.success:
            s.events.append(KeptAtDistance(s.segment, mover.id, keeper.id, "held"))
            if result.mr > threshold:
                _keeper_hits(s, keeper, mover, keep)
            dest = _entry(start, dest, keeper.position, reach + HELD_OFF_MARGIN)
        elif result.me > threshold:
            s.events.append(KeptAtDistance(s.segment, mover.id, keeper.id, "in"))
        else:
            # In, but the attack must wait for its next action: the blow armed before or
            # during the approach is lost, and so is one being armed.
            arming = next((a for a in mover.actions if a.kind == "arm"), None)
            lost = arming.id if arming is not None else None
            s.events.append(KeptAtDistance(s.segment, mover.id, keeper.id, "close", lost))
            if mover.status.armed:
                s.events.append(WeaponState(s.segment, mover.id, False, False))
            if lost is not None:
                s.spoiled.add(lost)
    return dest


def _keepers(
    s: Settlement, mover: Combatant, start: tuple[float, float], dest: tuple[float, float]
) -> list[Combatant]:
    """Opponents keeping ``mover`` at distance, near enough for the move to concern them."""
    if not s.state.extra.get(KEEPING):
        return []  # nobody has planned a keep in this fight
    radius = max(s.tables.reach.values()) + math.dist(start, dest) + 0.01
    combatants = s.state.combatants
    out = s.out
    found = []
    for side, grid in s.state.side_grids.items():
        if side == mover.side:
            continue
        for oid in grid.near(start, radius):
            if oid in out:
                continue
            o = combatants[oid]
            for a in o.actions:
                if a.kind == "keep" and a.target == mover.id:
                    found.append(o)
                    break
    found.sort(key=by_order)  # the fight's order, as everywhere
    return found


def _keeper_hits(s: Settlement, keeper: Combatant, mover: Combatant, keep: Action) -> None:
    """A keep roll whose Mr exceeds the threshold: a hit location and the weapon's damage."""
    weapon = keeper.sheet.weapon
    blow = "thrust" if "thrust" in weapon.damage else weapon.blows[0]

    def resolved(outcome: str) -> None:
        s.events.append(AttackResolved(s.segment, keeper.id, keep.id, mover.id, blow, outcome))

    s.land(
        keeper,
        mover,
        s.rules.ps_use(s.state, keep),
        resolved,
        {"weapon": weapon.damage[blow], "strength": s.strength(keeper.sheet)},
    )


def _entry(
    start: tuple[float, float],
    dest: tuple[float, float],
    centre: tuple[float, float],
    radius: float,
) -> tuple[float, float]:
    """The first point of the way from ``start`` to ``dest`` at ``radius`` from ``centre``
    (``start`` itself when it is already that close)."""
    dx, dy = dest[0] - start[0], dest[1] - start[1]
    fx, fy = start[0] - centre[0], start[1] - centre[1]
    a = dx * dx + dy * dy
    c = fx * fx + fy * fy - radius * radius
    if a == 0 or c <= 0:
        return start
    b = 2 * (fx * dx + fy * dy)
    disc = b * b - 4 * a * c
    if disc < 0:
        return dest
    t = (-b - math.sqrt(disc)) / (2 * a)
    t = min(1.0, max(0.0, t))
    return (round(start[0] + dx * t, 6), round(start[1] + dy * t, 6))
