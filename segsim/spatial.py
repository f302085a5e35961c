"""A uniform grid over the fight's plane: who is near whom, without scanning everyone.

Queries cost what the neighbourhood holds, not what the battle holds, so a fighter's
observation, its wake-ups and its nearest-opponent questions stay cheap in a battle of
thousands. Results are always sorted (distance, then the fight's order), never in hash
order, so they are the same on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

Position = tuple[float, float]
Cell = tuple[int, int]


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
        # The answers of :meth:`near` since the last change: a fighter's observers and
        # its own look around ask the same question between two moves.
        self._near_memo: dict[tuple[Position, float], list[str]] = {}

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
        self.where[item] = pos
        key = self._key(pos)
        self._cells.setdefault(key, {})[item] = pos
        b = self._bounds
        if b is None:
            self._bounds = (key[0], key[1], key[0], key[1])
        elif not (b[0] <= key[0] <= b[2] and b[1] <= key[1] <= b[3]):
            self._bounds = (
                min(b[0], key[0]),
                min(b[1], key[1]),
                max(b[2], key[0]),
                max(b[3], key[1]),
            )

    def remove(self, item: str) -> None:
        pos = self.where.pop(item, None)
        if pos is None:
            return
        if self._near_memo:
            self._near_memo.clear()
        key = self._key(pos)
        bucket = self._cells.get(key)
        if bucket is not None:
            bucket.pop(item, None)
            if not bucket:
                del self._cells[key]

    def move(self, item: str, pos: Position) -> None:
        old = self.where.get(item)
        if old is not None:
            key = self._key(pos)
            if self._key(old) == key:
                if self._near_memo:
                    self._near_memo.clear()
                self.where[item] = pos
                self._cells[key][item] = pos  # the same key: its place in the cell holds
                return
        self.add(item, pos)

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

    def near(self, pos: Position, radius: float) -> list[str]:
        """Every item within ``radius`` metres of ``pos`` (unsorted: in the grid's own
        order, the same for the same question while nothing moves)."""
        memo = self._near_memo
        out = memo.get((pos, radius))
        if out is not None:
            return out.copy()
        out = memo[(pos, radius)] = []
        cell = self.cell
        # A hair wider than the radius: a point whose distance rounds to the radius may
        # lie just past the square's edge (the exact test below decides).
        reach = radius * (1 + 1e-9) + 1e-9
        x0, x1 = math.floor((pos[0] - reach) / cell), math.floor((pos[0] + reach) / cell)
        y0, y1 = math.floor((pos[1] - reach) / cell), math.floor((pos[1] + reach) / cell)
        # Only the cells ever used can hold anything: a query beyond them (a rear rank
        # looking for the enemy) costs no lookup at all.
        b = self._bounds
        if b is None:
            return []
        if x0 < b[0]:
            x0 = b[0]
        if x1 > b[2]:
            x1 = b[2]
        if y0 < b[1]:
            y0 = b[1]
        if y1 > b[3]:
            y1 = b[3]
        if x0 > x1 or y0 > y1:
            return []
        cells = self._cells
        dist = math.dist
        if (x1 - x0 + 1) * (y1 - y0 + 1) > len(cells):
            # Wider than the occupied cells: look at those instead.
            for members in cells.values():
                for item, at in members.items():
                    if dist(pos, at) <= radius:
                        out.append(item)
        else:
            get = cells.get
            for cx in range(x0, x1 + 1):
                for cy in range(y0, y1 + 1):
                    bucket = get((cx, cy))
                    if bucket:
                        for item, at in bucket.items():
                            if dist(pos, at) <= radius:
                                out.append(item)
        return out.copy()

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
        centre = self._key(pos)
        # (distance, item) of every accepted item seen; ranks are asked for only at the
        # end, and only of those that may make the cut (a crowd's ring holds many).
        found: list[tuple[float, str]] = []
        cells = self._cells
        dist = math.dist
        b = self._bounds
        assert b is not None
        max_ring = max(
            abs(centre[0] - b[0]),
            abs(centre[0] - b[2]),
            abs(centre[1] - b[1]),
            abs(centre[1] - b[3]),
        )
        # Rings nearer than the occupied cells hold nothing: start at the first that
        # reaches them.
        r = max(b[0] - centre[0], centre[0] - b[2], b[1] - centre[1], centre[1] - b[3], 0)
        if count == 1:
            return self._nearest_one(pos, centre, r, max_ring, accept, rank)
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
        ranked = sorted((d, rank(item), item) for d, item in found if d <= cut)
        return [item for _, _, item in ranked[:count]]

    def _nearest_one(
        self,
        pos: Position,
        centre: Cell,
        r: int,
        max_ring: int,
        accept: Callable[[str], bool] | None,
        rank: Callable[[str], int],
    ) -> list[str]:
        """:meth:`nearest` for one item. Each ring is walked from the middle of its sides
        outward, and only while its cells may still hold an item as near as the best so
        far (a rear rank's search for the enemy meets the enemy's whole front in one
        ring: only the part straight ahead is looked at)."""
        best = math.inf
        ties: list[str] = []
        cells = self._cells
        dist = math.dist
        hypot = math.hypot
        b = self._bounds
        assert b is not None
        bx0, by0, bx1, by1 = b
        cx, cy = centre
        cell = self.cell
        # How far ``pos`` lies from each edge of its own cell: a cell i > 0 columns east
        # of it is at least (i - 1) * cell + east away along x, and so on.
        west = max(pos[0] - cx * cell, 0.0)
        east = max((cx + 1) * cell - pos[0], 0.0)
        south = max(pos[1] - cy * cell, 0.0)
        north = max((cy + 1) * cell - pos[1], 0.0)
        edge = min(west, east, south, north)
        while r <= max_ring:
            for k in range(r + 1):
                if best < math.inf:
                    # A cell at offsets (r, k) from the centre cell is at least this far
                    # (a hair less, for rounding), and so is every cell of this ring
                    # farther out.
                    low = hypot(
                        (r - 1) * cell + edge if r else 0.0, (k - 1) * cell + edge if k else 0.0
                    )
                    if low * (1 - 1e-9) - 1e-9 > best:
                        break
                for key in _ring_at(cx, cy, r, k, bx0, by0, bx1, by1):
                    if best < math.inf:
                        # The cell's own distance, with the side it lies on: a cell behind
                        # ``pos`` (as seen from the best so far) is passed over.
                        x, y = key
                        gx = (
                            (x - cx - 1) * cell + east
                            if x > cx
                            else (cx - x - 1) * cell + west
                            if x < cx
                            else 0.0
                        )
                        gy = (
                            (y - cy - 1) * cell + north
                            if y > cy
                            else (cy - y - 1) * cell + south
                            if y < cy
                            else 0.0
                        )
                        if hypot(gx, gy) * (1 - 1e-9) - 1e-9 > best:
                            continue
                    bucket = cells.get(key)
                    if bucket:
                        for item, at in bucket.items():
                            d = dist(pos, at)
                            if d <= best and (accept is None or accept(item)):
                                if d < best:
                                    best = d
                                    ties = [item]
                                else:
                                    ties.append(item)
            # Anything in a farther ring is at least r * cell + edge away (ties there are
            # sure to be seen only while ``best`` is below that by a hair).
            if ties and (best <= r * cell or best < (r * cell + edge) * (1 - 1e-9) - 1e-9):
                break
            r += 1
        if not ties:
            return []
        return [min(ties, key=lambda item: (rank(item), item))]


def _ring_at(
    cx: int, cy: int, r: int, k: int, bx0: int, by0: int, bx1: int, by1: int
) -> list[Cell]:
    """The cells of the ring ``r`` around (cx, cy) at offset ``k`` from the middle of its
    sides (up to 8 of them; a corner when k == r), within the bounds x0 y0 x1 y1."""
    if r == 0:
        return [(cx, cy)]
    offsets = (0,) if k == 0 else (-k, k)
    out = []
    for y in (cy - r, cy + r):  # the top and bottom rows
        if by0 <= y <= by1:
            for o in offsets:
                x = cx + o
                if bx0 <= x <= bx1:
                    out.append((x, y))
    if k < r:  # the left and right columns, corners excepted (the rows have them)
        for x in (cx - r, cx + r):
            if bx0 <= x <= bx1:
                for o in offsets:
                    y = cy + o
                    if by0 <= y <= by1:
                        out.append((x, y))
    return out


def _kth(found: list[tuple[float, str]], k: int) -> float:
    """The ``k``-th smallest distance among ``found`` (k >= 1, at most its length)."""
    # Sorted as (distance, item) pairs: the k-th distance is the same, with no Python
    # call per pair.
    if k == 1:
        return min(found)[0]
    return sorted(found)[k - 1][0]
