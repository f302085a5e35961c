"""Rounds, initiative order and turns on the segment clock (Chroniques, "Le tour de
combat", "Initiative").

A round lasts 100 segments (10 s, RULES-NOTES "Time"): round ``n`` (from 1) covers
segments ``100 (n - 1) .. 100 n - 1``. Its turns follow each other from its first
segment in initiative order, one fighter at a time: a turn begins when the previous one
resolves and everything its fighter declared resolves together at the end of the turn.
Because each next fighter is chosen only when the previous turn is over, fighters who
lower their initiative, fall or have already acted are simply skipped or re-placed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from segsim.rules.chroniques.content import Sheet
from segsim.rules.chroniques.status import Status

if TYPE_CHECKING:
    from segsim.state import Combatant, FightState

ROUND_SEGMENTS = 100
"""A round of 10 s in segments of 0.1 s."""
TURN = "turn"
"""The kind of the action that stands for a fighter's turn (declared by the rules)."""


def round_of(segment: int) -> int:
    """The round (from 1) a segment belongs to."""
    return segment // ROUND_SEGMENTS + 1


def round_start(rnd: int) -> int:
    """The first segment of a round."""
    return (rnd - 1) * ROUND_SEGMENTS


def initiative(c: Combatant, rnd: int) -> int:
    """The fighter's initiative in a round: its score, or what it lowered it to."""
    status: Status = c.status
    if status.lowered is not None and status.lowered[0] == rnd:
        return status.lowered[1]
    sheet: Sheet = c.sheet
    return sheet.initiative


def order_key(c: Combatant, rnd: int) -> tuple[int, int, int, int, int]:
    """Highest initiative first; at equal initiative a fighter who lowered its own acts
    after the others, player characters before non-player characters, then the higher
    SAG score, then the scenario order (Interpretations)."""
    status: Status = c.status
    lowered = int(status.lowered is not None and status.lowered[0] == rnd)
    sheet: Sheet = c.sheet
    return (-initiative(c, rnd), lowered, int(not c.is_pc), -sheet.abilities["wisdom"], c.order)


def initiative_order(state: FightState, rnd: int) -> list[Combatant]:
    """Every fighter still in the fight, in the order of the round."""
    return sorted(state.in_fight(), key=lambda c: order_key(c, rnd))


def still_to_act(state: FightState, rnd: int) -> list[Combatant]:
    """Fighters who have neither taken nor lost their turn of the round, in order."""
    return [c for c in initiative_order(state, rnd) if c.status.acted_round < rnd]


def next_due(state: FightState, segment: int) -> Combatant | None:
    """Who acts next at ``segment`` (None when everyone of the round is done)."""
    rnd = round_of(segment)
    for c in state.in_fight():
        if c.status.acted_round < rnd:
            break
    else:
        return None
    return min(
        (c for c in state.in_fight() if c.status.acted_round < rnd),
        key=lambda c: order_key(c, rnd),
    )


def turn_in_progress(state: FightState) -> bool:
    return any(a.kind == TURN for c in state.in_fight() for a in c.actions)


def turn_length(state: FightState, segment: int, turn_segments: int) -> int:
    """Segments of a turn beginning at ``segment``: ``turn_segments``, shortened so that
    every fighter still to act in the round has at least as long (and at least 1)."""
    rnd = round_of(segment)
    left = round_start(rnd + 1) - segment
    waiting = max(1, len(still_to_act(state, rnd)))
    return max(1, min(turn_segments, left // waiting))
