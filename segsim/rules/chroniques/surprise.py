"""Surprise (Chroniques, "Surprise").

A group hidden where the fight takes place ambushes another: every member of the
ambushed group tests SAG (d20 + SAG modifier) against 10 + the ambushers' DEX modifier,
plus the stealth bonus (bonus de discrétion) of creatures that have one, plus the game
master's bonus or malus for distance and terrain. Who fails is surprised (Surpris) during
the first round: it has no turn in it.
"""

from __future__ import annotations

from segsim.dice import Dice
from segsim.errors import SegsimError
from segsim.events import Event
from segsim.rules.chroniques.content import Sheet
from segsim.rules.chroniques.events import AbilityTested, Surprised, TurnLost
from segsim.state import FightState

SURPRISE_BASE = 10
AMBUSH_DIFFICULTY = ("lowest", "highest", "average")
"""Which ambusher's DEX modifier + stealth sets the difficulty (Interpretations)."""


class AmbushError(SegsimError):
    """The ``ambush`` option names a side that has nobody in the fight."""


def surprise_difficulty(
    state: FightState, ambush: str, how: str, modifier: int
) -> tuple[int, dict[str, int]]:
    """10 + the ambushers' DEX modifier and stealth bonus (``how`` picks the lowest,
    highest or average of them) + the game master's modifier, and its parts."""
    ambushers = [c for c in state.in_fight() if c.side == ambush]
    if not ambushers:
        raise AmbushError(f"ambush: no combatant of side {ambush!r} in this fight")
    values = [c.sheet.mod("dexterity") + c.sheet.stealth for c in ambushers]
    if how == "lowest":
        value = min(values)
    elif how == "highest":
        value = max(values)
    else:
        value = sum(values) // len(values)
    parts = {"base": SURPRISE_BASE, "ambushers": value}
    if modifier:
        parts["game master"] = modifier
    return sum(parts.values()), parts


def surprise_tests(
    state: FightState, dice: Dice, ambush: str, difficulty: int, defence_malus: int
) -> list[Event]:
    """The SAG test of every fighter not of the ambushing side, in fight order."""
    events: list[Event] = []
    for c in state.in_fight():
        if c.side == ambush:
            continue
        sheet: Sheet = c.sheet
        roll = dice.roll(20, "surprise (SAG test)", c.id)
        mods = {"wisdom": sheet.mod("wisdom")}
        total = roll + sum(mods.values())
        success = total >= difficulty
        events.append(
            AbilityTested(0, c.id, "surprise", "wisdom", roll, total, difficulty, success, mods)
        )
        if not success:
            events.append(Surprised(0, c.id, defence_malus))
            events.append(TurnLost(0, c.id, 1, "surprised"))
    return events
