"""The mutable state of a fight: combatants, their actions in progress, pending completions.

Rulesets read it; only events change it (through :meth:`segsim.events.Event.apply`)
and the engine's own bookkeeping of actions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from segsim.actions import Action
from segsim.native import mypyc_attr
from segsim.policy import Policy
from segsim.spatial import Grid


@mypyc_attr(allow_interpreted_subclasses=True)
class Combatant:
    """One fighter in a fight.

    ``sheet`` is the ruleset's frozen character sheet and ``status`` its mutable state
    (wounds, situation points...). ``actions`` are in progress; ``recent`` are finished
    actions still overlapping something in progress (for simultaneous-action rules).

    A plain class, not an attrs one, so that the compiled build (``hatch_build.py``)
    makes it a native class, whose fields compiled code reads directly: the engine
    reads a combatant's on every action.
    """

    id: str
    side: str
    sheet: Any
    status: Any
    policy: Policy
    name: str
    position: tuple[float, float]
    is_pc: bool
    order: int
    setup: Mapping[str, Any]
    in_fight: bool
    actions: list[Action]
    recent: list[Action]

    def __init__(
        self,
        id: str,
        side: str,
        sheet: Any,
        status: Any,
        policy: Policy,
        name: str = "",
        position: tuple[float, float] = (0.0, 0.0),
        is_pc: bool = False,
        order: int = 0,
        setup: Mapping[str, Any] | None = None,
        in_fight: bool = True,
        actions: list[Action] | None = None,
        recent: list[Action] | None = None,
    ) -> None:
        self.id = id
        self.side = side
        self.sheet = sheet
        self.status = status
        self.policy = policy
        self.name = name
        self.position = position
        self.is_pc = is_pc
        self.order = order
        self.setup = {} if setup is None else setup
        self.in_fight = in_fight
        self.actions = [] if actions is None else actions
        self.recent = [] if recent is None else recent

    def __repr__(self) -> str:
        return (
            f"Combatant(id={self.id!r}, side={self.side!r}, name={self.name!r}, "
            f"position={self.position!r}, in_fight={self.in_fight!r}, "
            f"actions={self.actions!r})"
        )

    @property
    def busy(self) -> bool:
        """Whether some non-continuous action is in progress."""
        return any(not a.continuous for a in self.actions)

    def finish(self, action: Action) -> None:
        """Move an action from in progress to recent, keeping only what still overlaps.
        (The engine's settlement does the same without calling it: keep both alike.)"""
        actions = self.actions
        if actions and actions[0] is action:  # the oldest in progress, most often
            del actions[0]
        else:
            aid = action.id
            i = 0  # counted by hand: enumerate() makes an object, and a tuple per step
            for a in actions:
                if a.id == aid:
                    del actions[i]
                    break
                i += 1  # noqa: SIM113
        recent = self.recent
        if recent:
            # Keep what ended just before the oldest action in progress began, too (a
            # disengage right after a dodge).
            horizon = action.start
            for a in actions:
                if a.start < horizon:
                    horizon = a.start
            # Actions finish in the order of their ends (the engine settles them segment
            # by segment), so what no longer overlaps is a prefix of ``recent`` (never
            # ``action`` itself, which lasts to its end at least).
            drop = 0
            for a in recent:
                if a.duration is None or a.start + a.duration >= horizon:
                    break
                drop += 1
            if drop:
                del recent[:drop]
        recent.append(action)


@mypyc_attr(allow_interpreted_subclasses=True)
class FightState:
    """Everything a ruleset may read about a fight at one moment (a plain class for the
    compiled build's sake, like :class:`Combatant`).

    ``pending`` holds the actions by the simulation time they complete, and among
    them those dropped before they completed (a continuous action a new one ended, one
    cancelled, those of a fighter who left), which ``dropped`` holds by their batch's
    time and their ``id()`` until that batch is settled and skips them: dropping one
    costs no look through its batch, which in a battle holds hundreds, and a batch
    with nothing dropped is settled without a look for marks;
    ``cancelled_in`` the segment in which each combatant last cancelled; ``spawned``
    the actions the rules started, to schedule; ``autonomous`` those in flight by id;
    ``extra`` ruleset-wide state (dropped weapons); ``grid`` where the combatants in
    the fight stand, and ``side_grids`` the same by side, with ``side_counts`` how
    many are in the fight on each; ``version`` counts the changes (anything cached on
    the state is valid for one) and ``roster`` who came into or left the fight.
    ``vacated`` lists where combatants stood before they moved or left the fight,
    while the engine watches for it (someone waits for its way to clear); None when
    nobody watches.
    """

    combatants: dict[str, Combatant]
    segment: int
    pending: dict[int, list[Action]]
    dropped: dict[int, dict[int, Action]]
    next_action_id: int
    cancelled_in: dict[str, int]
    spawned: list[Action]
    autonomous: dict[int, Action]
    extra: dict[str, Any]
    grid: Grid
    side_grids: dict[str, Grid]
    side_counts: dict[str, int]
    version: int
    roster: int
    vacated: list[tuple[str, tuple[float, float]]] | None
    # What is kept while nobody comes or goes (dropped by whatever changes who is in the
    # fight, so a read asks no question first): the opponents by side (against) and the
    # sides in the fight.
    _against: dict[str | None, list[Combatant]]
    _sides: list[str] | None

    def __init__(
        self,
        combatants: dict[str, Combatant],
        segment: int = 0,
        next_action_id: int = 1,
        grid: Grid | None = None,
    ) -> None:
        self.combatants = combatants
        self.segment = segment
        self.pending = {}
        self.dropped = {}
        self.next_action_id = next_action_id
        self.cancelled_in = {}
        self.spawned = []
        self.autonomous = {}
        self.extra = {}
        self.grid = Grid() if grid is None else grid
        self.side_grids = {}
        self.side_counts = {}
        self.version = 0
        self.roster = 0
        self.vacated = None
        self._against = {}
        self._sides = None
        grid = self.grid
        side_grids = self.side_grids
        side_counts = self.side_counts
        for c in combatants.values():
            if c.in_fight:
                # _enter(c), without its call and _forget()'s (nothing is kept yet).
                self.roster += 1
                side = c.side
                grid.add(c.id, c.position)
                mine = side_grids.get(side)
                if mine is None:
                    mine = side_grids[side] = Grid(grid.cell)
                mine.add(c.id, c.position)
                side_counts[side] = side_counts.get(side, 0) + 1

    def __repr__(self) -> str:
        return (
            f"FightState(segment={self.segment!r}, combatants={list(self.combatants)!r}, "
            f"next_action_id={self.next_action_id!r})"
        )

    def _enter(self, c: Combatant) -> None:
        self._forget()
        self.grid.add(c.id, c.position)
        grid = self.side_grids.get(c.side)
        if grid is None:  # (not setdefault(): a grid made only for a new side)
            grid = self.side_grids[c.side] = Grid(self.grid.cell)
        grid.add(c.id, c.position)
        self.side_counts[c.side] = self.side_counts.get(c.side, 0) + 1

    def add(self, c: Combatant) -> None:
        """A combatant joins the fight (reinforcements)."""
        if c.id in self.combatants:
            raise ValueError(f"combatant id {c.id!r} is already in this fight")
        self.combatants[c.id] = c
        if c.in_fight:
            self._enter(c)

    def move(self, cid: str, position: tuple[float, float]) -> None:
        c = self.combatants[cid]
        if self.vacated is not None and c.in_fight:
            self.vacated.append((cid, c.position))
        c.position = position
        if cid in self.grid.where:  # in the fight (the dict itself: no call)
            self.grid.move(cid, position)
            self.side_grids[c.side].move(cid, position)

    def in_fight(self) -> list[Combatant]:
        """The combatants in the fight, in the fight's order (a new list: a copy of what
        :meth:`against` keeps, made in C rather than by a pass over everyone)."""
        found = self._against.get(None)
        return (found if found is not None else self.against(None)).copy()

    def opponents(self, cid: str) -> list[Combatant]:
        """The combatants in the fight on other sides than ``cid``'s (a new list, as
        :meth:`in_fight`'s)."""
        side = self.combatants[cid].side
        found = self._against.get(side)
        return (found if found is not None else self.against(side)).copy()

    def against(self, side: str | None) -> list[Combatant]:
        """The combatants in the fight of every side but ``side`` (all of them: None), in
        the fight's order (computed once per change of who is in the fight: do not
        modify the list)."""
        found = self._against.get(side)
        if found is None:
            found = self._against[side] = [
                c for c in self.combatants.values() if c.in_fight and c.side != side
            ]
        return found

    def _forget(self) -> None:
        """Drop what was kept for the combatants in the fight, as they change."""
        self.roster += 1
        self._against = {}
        self._sides = None

    def near(self, position: tuple[float, float], radius: float | None) -> list[Combatant]:
        """Combatants in the fight within ``radius`` metres (everyone when None), in the
        fight's order (everyone: the list kept until someone comes or goes, so do not
        modify it)."""
        if radius is None:
            return self.against(None)
        where = self.grid.where
        combatants = self.combatants
        if len(where) <= SMALL_NEAR:
            # A few fighters: a look at each costs less than the grid's cells and memo
            # (whose answer a move clears: a skirmish's looks nearly all miss it). The
            # same test on the same positions (the grid's), so the same fighters.
            found = []
            dist = math.dist
            for cid, at in where.items():
                if dist(position, at) <= radius:
                    found.append(combatants[cid])
        else:
            found = [combatants[cid] for cid in self.grid.near(position, radius)]
        if len(found) > 1:
            found.sort(key=by_order)
        return found

    def order_of(self, cid: str) -> int:
        """The fight's order of combatant ``cid`` (the grids' tie-break)."""
        return self.combatants[cid].order

    def nearest_opponents(self, cid: str, count: int) -> list[str]:
        """The ``count`` nearest opponents in the fight (ties: the fight's order)."""
        me = self.combatants[cid]
        combatants = self.combatants
        if len(self.grid) <= SMALL_FIGHT:  # a scan is cheaper than the grid's rings
            ranked = (
                (math.dist(me.position, c.position), c.order, c.id)
                for c in combatants.values()
                if c.in_fight and c.side != me.side
            )
            if count == 1:  # the nearest alone: no sort
                best = min(ranked, default=None)
                return [] if best is None else [best[2]]
            return [other for _, _, other in sorted(ranked)[:count]]

        # (A plain loop: a comprehension is a call of its own.)
        answers = []
        side_counts = self.side_counts
        for side, grid in self.side_grids.items():
            if side != me.side and side_counts.get(side):
                answers.append((grid, grid.nearest(me.position, count, None, self.order_of)))
        if len(answers) == 1:  # one other side (a battle's): its grid ranks them already
            return answers[0][1]
        found: list[tuple[float, int, str]] = []
        for grid, nearest in answers:
            for other in nearest:
                found.append(
                    (math.dist(me.position, grid.where[other]), combatants[other].order, other)
                )
        found.sort()
        return [other for _, _, other in found[:count]]

    def sides_in_fight(self) -> list[str]:
        """The sides with someone in the fight, in the order they came (computed once per
        change of who is in the fight: do not modify the list)."""
        sides = self._sides
        if sides is None:
            sides = self._sides = [side for side, n in self.side_counts.items() if n > 0]
        return sides

    def remove(self, cid: str) -> None:
        """Take a combatant out of the fight and drop its actions in progress."""
        c = self.combatants[cid]
        if not c.in_fight:
            return
        c.in_fight = False
        self._forget()
        if self.vacated is not None:
            self.vacated.append((cid, c.position))
        self.grid.remove(cid)
        self.side_grids[c.side].remove(cid)
        self.side_counts[c.side] -= 1
        for a in c.actions:
            end = a.end
            if end is not None and end in self.pending:
                # Dropped from its batch by a mark (see ``dropped``), not a pass over it.
                marks = self.dropped.get(end)
                if marks is None:
                    self.dropped[end] = {id(a): a}
                else:
                    marks[id(a)] = a
        c.actions = []


SMALL_FIGHT = 32  # combatants: below this, queries scan instead of using the grid
SMALL_NEAR = 12  # combatants in the fight: up to this, near() looks at each


by_order = attrgetter("order")
"""The sort key of the fight's order (a combatant's ``order``), read in C."""
