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

from itertools import islice
from typing import TYPE_CHECKING

from segsim.native import mypyc_attr
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


TURN_COUNTS = "chroniques.turns"
"""The key of the fight's :class:`TurnCounts` in ``state.extra``."""


@mypyc_attr(allow_interpreted_subclasses=True)
class TurnCounts:
    """What the events that change a fighter's turn have done so far in a fight (kept in
    ``state.extra``, written by those events' ``apply``): the turns taken or lost, by
    round, and how many times someone lowered its initiative. The rounds' bookkeeping
    (:class:`RoundOrder`) reads them to know what changed without looking at every
    fighter."""

    __slots__ = ("acted", "lowered")

    def __init__(self) -> None:
        self.acted: dict[int, int] = {}
        self.lowered = 0


def turn_counts(state: FightState) -> TurnCounts:
    """The fight's :class:`TurnCounts` (made the first time it is asked for)."""
    counts: TurnCounts | None = state.extra.get(TURN_COUNTS)
    if counts is None:
        counts = state.extra[TURN_COUNTS] = TurnCounts()
    return counts


@mypyc_attr(allow_interpreted_subclasses=True)
class RoundOrder:
    """A round's initiative order as the fight goes on, kept so that who acts next and
    how many are still to act cost the same however many fight.

    The order is sorted once (:func:`initiative_order`) and kept while nobody joins the
    fight, the round lasts and nobody lowers its initiative: a fighter who leaves the
    fight is skipped where it stands (taking it out of a sorted list leaves the list
    sorted). ``cursor`` only moves forward: every fighter before it has taken or lost its
    turn, or left the fight, and stays so for the round. ``waiting`` counts the
    fighters still to act from the cursor on; it is counted again when someone leaves
    the fight, and otherwise lowered by the turns taken or lost since
    (:class:`TurnCounts`), each of which was one of them.
    """

    __slots__ = (
        "acted",
        "cursor",
        "entries",
        "lowered",
        "order",
        "rnd",
        "roster",
        "state",
        "waiting",
    )

    def __init__(self, state: FightState, rnd: int, counts: TurnCounts) -> None:
        self.state = state
        self.rnd = rnd
        self.entries = len(state.combatants)
        self.lowered = counts.lowered
        self.order = initiative_order(state, rnd)
        self.cursor = 0
        self.waiting = 0
        self.roster = 0
        self.acted = 0
        self._count(counts)

    def fits(self, state: FightState, rnd: int, counts: TurnCounts) -> bool:
        """Whether this order is still the one of ``state``'s round ``rnd``."""
        return (
            self.state is state
            and self.rnd == rnd
            and self.lowered == counts.lowered
            and self.entries == len(state.combatants)
        )

    def _count(self, counts: TurnCounts) -> None:
        rnd = self.rnd
        self.waiting = sum(
            1
            for o in islice(self.order, self.cursor, None)
            if o.in_fight and o.status.acted_round < rnd
        )
        self.roster = self.state.roster
        self.acted = counts.acted.get(rnd, 0)

    def next_due(self) -> Combatant | None:
        """:func:`next_due`: the first fighter from the cursor on still to act."""
        order, i, rnd = self.order, self.cursor, self.rnd
        n = len(order)
        while i < n:
            o = order[i]
            if o.in_fight and o.status.acted_round < rnd:
                break
            i += 1
        self.cursor = i
        return order[i] if i < n else None

    def still_to_act(self, counts: TurnCounts) -> int:
        """``len(still_to_act(state, rnd))``, from the counts."""
        if self.state.roster != self.roster:
            self._count(counts)
        return self.waiting - (counts.acted.get(self.rnd, 0) - self.acted)
