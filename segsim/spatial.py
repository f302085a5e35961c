"""A uniform grid over the fight's plane: who is near whom, without scanning everyone.

Queries cost what the neighbourhood holds, not what the battle holds, so a fighter's
observation, its wake-ups and its nearest-opponent questions stay cheap in a battle of
thousands. Results are always sorted (distance, then the fight's order), never in hash
order, so they are the same on every run.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Container, Iterator

from segsim.native import mypyc_attr

Position = tuple[float, float]
SMALL = 12
"""Items: up to this many, a question whose answer does not depend on the grid's order
(:meth:`Grid.crowded`) looks at each item rather than at the cells."""
Cell = tuple[int, int]
_INF = math.inf
_NEG_INF = -math.inf


@mypyc_attr(allow_interpreted_subclasses=True)
class Grid:
    """Points by id in square cells of ``cell`` metres."""

    def __init__(self, cell: float = 2.0) -> None:
        if cell <= 0:
            raise ValueError("a grid cell has a positive size")
        self.cell = cell
        self.where: dict[str, Position] = {}
        # Each cell's items with their positions (read without a lookup in ``where``).
        self._cells: dict[Cell, dict[str, Position]] = {}
        self._bounds: tuple[int, int, int, int] | None = None  # cells ever used: x0 y0 x1 y1
        # (the cells of the extent's corners, set with it)
        # The least and greatest coordinates ever held (x0 y0 x1 y1): a search from
        # outside them (a rear rank's, for the enemy) bounds distances by them, closer
        # than by the cells' edges.
        self._extent: list[float] = [_INF, _INF, _NEG_INF, _NEG_INF]
        # The answers of :meth:`near` since the last change: a fighter's observers and
        # its own look around ask the same question between two moves.
        self._near_memo: dict[tuple[Position, float], list[str]] = {}
        # The answers of :meth:`nearest` (every item accepted) since the last change: in a
        # crowd, each fighter's list of legal attacks asks of every opponent in reach
        # which assailants are nearest it, and those answers do not change between moves.
        self._nearest_memo: dict[tuple[Position, int, Callable[[str], int]], list[str]] = {}

    def _key(self, pos: Position) -> Cell:
        return (math.floor(pos[0] / self.cell), math.floor(pos[1] / self.cell))

    def __len__(self) -> int:
        return len(self.where)

    def __contains__(self, item: object) -> bool:
        return item in self.where

    def add(self, item: str, pos: Position) -> None:
        if item in self.where:
            self.remove(item)
        if self._near_memo:
            self._near_memo.clear()
        if self._nearest_memo:
            self._nearest_memo.clear()
        self.where[item] = pos
        x, y = pos
        # _key(pos), without its call; a new cell's dictionary made only when needed.
        cell = self.cell
        kx, ky = key = (math.floor(x / cell), math.floor(y / cell))
        if self._bounds is None:  # the grid's first point: the extent and bounds are its
            self._extent = [x, y, x, y]
            self._bounds = (kx, ky, kx, ky)
        else:
            e = self._extent
            if x < e[0] or x > e[2] or y < e[1] or y > e[3]:
                self._stretch(pos)
        bucket = self._cells.get(key)
        if bucket is None:
            self._cells[key] = {item: pos}
        else:
            bucket[item] = pos

    def remove(self, item: str) -> None:
        pos = self.where.pop(item, None)
        if pos is None:
            return
        if self._near_memo:
            self._near_memo.clear()
        if self._nearest_memo:
            self._nearest_memo.clear()
        key = self._key(pos)
        bucket = self._cells.get(key)
        if bucket is not None:
            bucket.pop(item, None)
            if not bucket:
                del self._cells[key]

    def move(self, item: str, pos: Position) -> None:
        """``item`` is now at ``pos``: as :meth:`remove` then :meth:`add` (the cells end
        up in the same order), in one pass."""
        where = self.where
        old = where.get(item)
        if old is None:
            self.add(item, pos)
            return
        if self._near_memo:
            self._near_memo.clear()
        if self._nearest_memo:
            self._nearest_memo.clear()
        where[item] = pos
        x, y = pos
        e = self._extent
        if x < e[0] or x > e[2] or y < e[1] or y > e[3]:
            self._stretch(pos)
        # _key(pos) and _key(old), without their calls (once a move).
        cell = self.cell
        floor = math.floor
        key = (floor(x / cell), floor(y / cell))
        was = (floor(old[0] / cell), floor(old[1] / cell))
        cells = self._cells
        if key == was:
            cells[key][item] = pos  # the same key: its place in the cell holds
            return
        bucket = cells[was]
        del bucket[item]
        if not bucket:
            del cells[was]
        cells.setdefault(key, {})[item] = pos

    def _stretch(self, pos: Position) -> None:
        """Widen the extent to hold ``pos``, and the bounds with it: the cells of the
        extent's corners (a cell index only grows with the coordinate)."""
        e = self._extent
        x, y = pos
        grew = False
        if x < e[0]:
            e[0], grew = x, True
        if x > e[2]:
            e[2], grew = x, True
        if y < e[1]:
            e[1], grew = y, True
        if y > e[3]:
            e[3], grew = y, True
        if grew:  # the corners' cells (_key(), without its calls)
            cell, floor = self.cell, math.floor
            self._bounds = (
                floor(e[0] / cell),
                floor(e[1] / cell),
                floor(e[2] / cell),
                floor(e[3] / cell),
            )

    def _ring(self, centre: Cell, r: int, bounds: tuple[int, int, int, int]) -> Iterator[Cell]:
        """The cells at Chebyshev distance ``r`` from ``centre`` that lie within
        ``bounds`` (x0 y0 x1 y1): the others hold nothing, so they are not visited."""
        cx, cy = centre
        bx0, by0, bx1, by1 = bounds
        if r == 0:
            yield centre
            return
        lo_x, hi_x = max(cx - r, bx0), min(cx + r, bx1)
        for y in (cy - r, cy + r):
            if by0 <= y <= by1:
                for x in range(lo_x, hi_x + 1):
                    yield (x, y)
        lo_y, hi_y = max(cy - r + 1, by0), min(cy + r - 1, by1)
        for x in (cx - r, cx + r):
            if bx0 <= x <= bx1:
                for y in range(lo_y, hi_y + 1):
                    yield (x, y)

    def _square(self, pos: Position, radius: float) -> tuple[range, range] | None:
        """The columns and rows of the cells ever used that the square around ``pos``
        reaches ``radius`` into, a hair wider (a point whose distance rounds to the
        radius may lie just past its edge: the exact test is the caller's); None when
        there are none, so a query beyond them (a rear rank looking for the enemy) costs
        no lookup at all. The columns come first: when none is used, no row is worked
        out."""
        b = self._bounds
        if b is None:
            return None
        cell = self.cell
        reach = radius * (1 + 1e-9) + 1e-9
        px, py = pos
        floor = math.floor
        x0 = floor((px - reach) / cell)
        if x0 < b[0]:
            x0 = b[0]
        x1 = floor((px + reach) / cell)
        if x1 > b[2]:
            x1 = b[2]
        if x0 > x1:
            return None
        y0 = floor((py - reach) / cell)
        if y0 < b[1]:
            y0 = b[1]
        y1 = floor((py + reach) / cell)
        if y1 > b[3]:
            y1 = b[3]
        if y0 > y1:
            return None
        return range(x0, x1 + 1), range(y0, y1 + 1)

    def near(self, pos: Position, radius: float) -> list[str]:
        """Every item within ``radius`` metres of ``pos`` (unsorted: in the grid's own
        order, the same for the same question while nothing moves)."""
        memo = self._near_memo
        key = (pos, radius)
        out = memo.get(key)
        if out is not None:
            return out.copy()
        out = memo[key] = []
        square = self._square(pos, radius)
        if square is None:
            return []
        columns, rows = square
        cells = self._cells
        dist = math.dist
        if len(columns) * len(rows) > len(cells):
            # Wider than the occupied cells: look at those instead.
            for members in cells.values():
                for item, at in members.items():
                    if dist(pos, at) <= radius:
                        out.append(item)
        else:
            get = cells.get
            for cx in columns:
                for cy in rows:
                    bucket = get((cx, cy))
                    if bucket:
                        for item, at in bucket.items():
                            if dist(pos, at) <= radius:
                                out.append(item)
        return out.copy()

    def crowded(
        self, pos: Position, radius: float, but: str | None = None, skip: Container[str] = ()
    ) -> bool:
        """Whether an item other than ``but`` and those in ``skip`` lies within
        ``radius`` metres of ``pos``: whether :meth:`near` would name one, without the
        list (it stops at the first) and without remembering the answer (a spot where a
        move may end is asked about once)."""
        where = self.where
        if len(where) <= SMALL:  # a look at each costs less than the cells
            dist = math.dist
            for item, at in where.items():
                if dist(pos, at) <= radius and item != but and item not in skip:
                    return True
            return False
        square = self._square(pos, radius)
        if square is None:
            return False
        columns, rows = square
        get = self._cells.get
        dist = math.dist
        for cx in columns:
            for cy in rows:
                bucket = get((cx, cy))
                if bucket:
                    for item, at in bucket.items():
                        if dist(pos, at) <= radius and item != but and item not in skip:
                            return True
        return False

    def nearest(
        self,
        pos: Position,
        count: int,
        accept: Callable[[str], bool] | None,
        rank: Callable[[str], int],
    ) -> list[str]:
        """The ``count`` nearest accepted items (every item: ``accept`` None), ties
        broken by ``rank``."""
        if count <= 0 or not self.where:
            return []
        if count == 1:
            return self._nearest_one(pos, accept, rank)
        if accept is None:
            key = (pos, count, rank)
            known = self._nearest_memo.get(key)
            if known is None:
                known = self._nearest_memo[key] = self._nearest_many(pos, count, None, rank)
            return known.copy()
        return self._nearest_many(pos, count, accept, rank)

    def _nearest_many(
        self,
        pos: Position,
        count: int,
        accept: Callable[[str], bool] | None,
        rank: Callable[[str], int],
    ) -> list[str]:
        """:meth:`nearest` for more than one item."""
        centre = self._key(pos)
        # (distance, item) of every accepted item seen; ranks are asked for only at the
        # end, and only of those that may make the cut (a crowd's ring holds many).
        found: list[tuple[float, str]] = []
        cells = self._cells
        dist = math.dist
        b = self._bounds
        assert b is not None
        # The farthest ring that reaches a used cell, and the nearest (rings nearer than
        # the used cells hold nothing: the search starts there), each the greater of the
        # distances in columns and in rows. (Plain comparisons rather than min, max and
        # abs: no call; the bounds' least index is never above their greatest.)
        cx, cy = centre
        west, east, south, north = cx - b[0], b[2] - cx, cy - b[1], b[3] - cy
        across = west if west > east else east
        along = south if south > north else north
        max_ring = across if across > along else along
        across = -west if -west > -east else -east
        along = -south if -south > -north else -north
        r = across if across > along else along
        if r < 0:
            r = 0
        while r <= max_ring:
            for key in self._ring(centre, r, b):
                bucket = cells.get(key)
                if bucket:
                    for item, at in bucket.items():
                        if accept is None or accept(item):
                            found.append((dist(pos, at), item))
            # Anything in a farther ring is at least r * cell away.
            if len(found) >= count and _kth(found, count) <= r * self.cell:
                break
            r += 1
        if not found:
            return []
        cut = _kth(found, min(count, len(found)))
        # The first ``count`` of the sorted triples, without sorting them all (a crowd
        # standing on one spot ties them all at the cut).
        ranked = heapq.nsmallest(count, [(d, rank(item), item) for d, item in found if d <= cut])
        return [item for _, _, item in ranked]

    def _nearest_one(
        self, pos: Position, accept: Callable[[str], bool] | None, rank: Callable[[str], int]
    ) -> list[str]:
        """:meth:`nearest` for one item. The used columns are walked nearest first (east
        or west of ``pos``, whichever is nearer next), and in each the used rows from the
        one nearest ``pos`` outward, each direction only while its cells may still hold
        an item as near as the best so far: a rear rank's search for the enemy looks at
        a few cells of the enemy's front. The order of the walk does not matter: ties are
        broken by rank at the end."""
        best = math.inf
        limit = math.inf  # the squared distance beyond which a cell holds no candidate
        ties: list[str] = []
        get = self._cells.get
        dist = math.dist
        b = self._bounds
        assert b is not None
        bx0, by0, bx1, by1 = b
        cell = self.cell
        px, py = pos
        cx = math.floor(px / cell)
        cy = math.floor(py / cell)
        # How far every item lies at least along each axis: outside the extent, its
        # nearest edge (closer than the cells' edges); within it, nothing.
        # (Plain comparisons rather than min and max: no call.)
        ex0, ey0, ex1, ey1 = self._extent
        out_x = ex0 - px if px < ex0 else px - ex1 if px > ex1 else 0.0
        out_y = ey0 - py if py < ey0 else py - ey1 if py > ey1 else 0.0
        # The next column on each side: east from the centre's (or the first used), west
        # from the one before it (or the last used).
        east = cx if cx > bx0 else bx0
        west = cx - 1 if cx - 1 < bx1 else bx1
        first = cy if cy > by0 else by0  # the row nearest the centre's
        first = first if first < by1 else by1
        while True:
            # The least distance along x to each side's next column (none: infinite).
            if east <= bx1:
                ge = east * cell - px if east > cx else 0.0
                ge = ge if ge > out_x else out_x
            else:
                ge = math.inf
            if west >= bx0:
                gw = px - (west + 1) * cell
                gw = gw if gw > out_x else out_x
            else:
                gw = math.inf
            if ge <= gw:
                if ge == math.inf:
                    break  # every used column looked at
                column, gap = east, ge
                east += 1
            else:
                column, gap = west, gw
                west -= 1
            across2 = gap * gap
            if across2 > limit:
                break  # the nearer side's next column is too far: so is everything left
            for start, stop, step in ((first, by1 + 1, 1), (first - 1, by0 - 1, -1)):
                for row in range(start, stop, step):
                    if row > cy:
                        along = row * cell - py
                    elif row < cy:
                        along = py - (row + 1) * cell
                    else:
                        along = 0.0
                    along = along if along > out_y else out_y
                    if across2 + along * along > limit:
                        break  # the rest of this direction is farther still
                    bucket = get((column, row))
                    if bucket:
                        for item, at in bucket.items():
                            d = dist(pos, at)
                            if d <= best and (accept is None or accept(item)):
                                if d < best:
                                    best = d
                                    # A hair more than best, for rounding: a cell whose
                                    # least distance exceeds it holds no tie.
                                    far = (best + 1e-9) / (1 - 1e-9)
                                    limit = far * far
                                    ties = [item]
                                else:
                                    ties.append(item)
        if len(ties) < 2:
            return ties  # nothing to break: the rank is not asked for
        return [min(ties, key=lambda item: (rank(item), item))]


def _kth(found: list[tuple[float, str]], k: int) -> float:
    """The ``k``-th smallest distance among ``found`` (k >= 1, at most its length)."""
    # Sorted as (distance, item) pairs: the k-th distance is the same, with no Python
    # call per pair.
    if k == 1:
        return min(found)[0]
    return heapq.nsmallest(k, found)[k - 1][0]
