"""Waits that end when a combatant's way clears, kept in a spatial grid.

A combatant whose move is blocked (by its own side, in a battle's rear ranks) declares a
wait with a ``clear`` radius and an ``until`` bound. The engine keeps such sleepers here
and wakes one when a combatant that stood within its radius moves away from it or
leaves the fight: the event that may have freed its way. Nothing is polled: the work is
done when someone moves, and costs what the neighbourhood of the move holds.

Results never depend on hash order: the first mover in event order is the one named,
and the woken are returned in the fight's order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from segsim.actions import Action
from segsim.native import mypyc_attr
from segsim.spatial import Grid
from segsim.state import Combatant


@mypyc_attr(allow_interpreted_subclasses=True)
class Sleepers:
    """Who waits for its way to clear: the wait action and its radius, by combatant."""

    def __init__(self) -> None:
        self.grid = Grid()
        self.waits: dict[str, tuple[Action, float]] = {}
        self.widest = 0.0

    def __len__(self) -> int:
        return len(self.waits)

    def add(self, c: Combatant, action: Action) -> None:
        """``c`` waits (``action``, whose ``clear`` parameter is the radius in metres)."""
        radius = float(action.params["clear"])
        self.waits[c.id] = (action, radius)
        self.grid.add(c.id, c.position)
        if radius > self.widest:
            self.widest = radius

    def drop(self, cid: str) -> None:
        self.waits.pop(cid, None)
        self.grid.remove(cid)

    def woken(
        self,
        vacated: Sequence[tuple[str, tuple[float, float]]],
        combatants: Mapping[str, Combatant],
    ) -> list[tuple[Combatant, Action, str]]:
        """The sleepers whose way these departures (who, from where) may have cleared,
        each with its wait and the first mover that woke it; they are no longer kept.

        A sleeper whose wait is over or replaced, or who left the fight, is forgotten; one
        who moved itself is kept where it now stands (its own move wakes nobody)."""
        waits = self.waits
        grid = self.grid
        for mover, _ in vacated:
            if mover in waits:
                c = combatants[mover]
                if c.in_fight:
                    grid.move(mover, c.position)
                else:
                    self.drop(mover)
        found: dict[str, tuple[Combatant, Action, str]] = {}
        for mover, spot in vacated:
            gone = combatants[mover]
            for sid in grid.near(spot, self.widest):
                if sid == mover or sid in found:
                    continue
                action, radius = waits[sid]
                c = combatants[sid]
                if not any(a is action for a in c.actions):
                    self.drop(sid)  # its wait ended or gave way to another action
                    continue
                before = math.dist(c.position, spot)
                if before > radius:
                    continue
                if gone.in_fight and math.dist(c.position, gone.position) <= before:
                    continue  # came no farther away: the way is no clearer
                found[sid] = (c, action, mover)
        for sid in found:
            self.drop(sid)
        return sorted(found.values(), key=_by_order)


def _by_order(item: tuple[Combatant, Action, str]) -> int:
    return item[0].order
