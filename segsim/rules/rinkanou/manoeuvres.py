"""Combat manoeuvres (seed 004, "Manœuvres de combat"): disarm, grab, keep at distance;
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
    WeaponState,
)
from segsim.state import Combatant

if TYPE_CHECKING:
    from segsim.rules.rinkanou.settle import Settlement

KEEP_MALUS = {"cutting": -20, "blunt": -30}  # weapons "de type T et C" (see the rules page)
HELD_OFF_MARGIN = 0.1  # metres beyond the keeper's reach where an approach is stopped
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
    """A successful disarm (seed 004, "Désarmement"): a one-handed weapon flies (1d8 for
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
    """A duel of Force (seed 004, "Agripper"): each rolls twice its Force; the attacker
    must succeed and beat the defender's margin."""
    mine, theirs = (
        s.opposing_test(
            who, "strength duel", {"strength x2": 2 * who.sheet.characteristic("strength")}
        )
        for who in (attacker, defender)
    )
    return mine.success and (not theirs.success or mine.mr > theirs.mr)


def kept_at(
    s: Settlement, mover: Combatant, keeper: Combatant, stop: float, would_reach: float
) -> float:
    """Keeping at distance (seed 004, "Tenir à distance"): when ``mover`` walks toward a
    ``keeper`` who keeps it at distance, the keeper rolls its attack against twice the
    mover's Souplesse. Success: the mover stops out of the keeper's reach, and is hit if
    the Mr exceeds that threshold. Failure: it closes in; unless the Me exceeds the
    threshold it only reaches the keeper's reach and must act again to come closer.
    Only a move that would end within the keeper's reach (``would_reach``: where the
    move alone would leave it) is opposed. Returns the distance at which the mover
    stops."""
    keep = next((a for a in keeper.actions if a.kind == "keep" and a.target == mover.id), None)
    if keep is None or keeper.id in s.out:
        return stop
    if not would_reach < s.rules.reach(keeper.sheet):
        return stop  # not yet an approach into the keeper's reach
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
    reach = s.rules.reach(sheet)
    if result.success:
        if result.mr > threshold:
            blow = "thrust" if "thrust" in weapon.damage else weapon.blows[0]

            def resolved(outcome: str) -> None:
                s.events.append(
                    AttackResolved(s.segment, keeper.id, keep.id, mover.id, blow, outcome)
                )

            s.land(
                keeper,
                mover,
                s.rules.ps_use(s.state, keep),
                resolved,
                {"weapon": weapon.damage[blow], "strength": s.strength(sheet)},
            )
        return reach + HELD_OFF_MARGIN
    if result.me > threshold:
        return stop
    return max(stop, reach)
