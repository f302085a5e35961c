"""The spatial grid gives the same answers as a full scan, in a stable order."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from segsim.spatial import Grid
from segsim.state import SMALL_FIGHT, Combatant, FightState

coords = st.floats(min_value=-60, max_value=60, allow_nan=False)
points = st.lists(st.tuples(coords, coords), min_size=1, max_size=40)


def whole_metres(bound: int) -> st.SearchStrategy[tuple[float, float]]:
    """Points on whole metres within ``bound`` of the origin (many share a cell)."""
    return st.tuples(st.integers(-bound, bound).map(float), st.integers(-bound, bound).map(float))


def filled(points: list[tuple[float, float]]) -> tuple[Grid, dict[str, tuple[float, float]]]:
    """A grid of 2 m cells holding ``points`` as p0, p1..., and where each is."""
    grid = Grid(cell=2.0)
    where: dict[str, tuple[float, float]] = {}
    for i, p in enumerate(points):
        grid.add(f"p{i}", p)
        where[f"p{i}"] = p
    return grid, where


def step(
    grid: Grid, where: dict[str, tuple[float, float]], item: str, to: tuple[float, float] | None
) -> None:
    """``item`` leaves (``to`` None), moves or comes back, in the grid and in ``where``."""
    if to is None:
        grid.remove(item)
        where.pop(item, None)
    else:
        if item in where:
            grid.move(item, to)
        else:
            grid.add(item, to)
        where[item] = to


def within(
    where: dict[str, tuple[float, float]], centre: tuple[float, float], radius: float
) -> set[str]:
    """What a full scan finds within ``radius`` of ``centre``."""
    return {item for item, p in where.items() if math.dist(centre, p) <= radius}


@settings(max_examples=100, deadline=None)
@given(
    points=points, centre=st.tuples(coords, coords), radius=st.floats(0, 50), k=st.integers(1, 6)
)
def test_grid_queries_match_a_full_scan(
    points: list[tuple[float, float]], centre: tuple[float, float], radius: float, k: int
) -> None:
    grid = Grid(cell=4.0)
    for i, p in enumerate(points):
        grid.add(f"p{i}", p)
    expected = {f"p{i}" for i, p in enumerate(points) if math.dist(centre, p) <= radius}
    assert set(grid.near(centre, radius)) == expected
    ranked = sorted(range(len(points)), key=lambda i: (math.dist(centre, points[i]), i))
    nearest = grid.nearest(centre, k, lambda _: True, lambda item: int(item[1:]))
    assert nearest == [f"p{i}" for i in ranked[:k]]


def test_moves_and_removals_keep_the_grid_right() -> None:
    grid = Grid(cell=2.0)
    grid.add("a", (0.0, 0.0))
    grid.add("b", (10.0, 0.0))
    grid.move("a", (9.0, 0.0))
    assert sorted(grid.near((10.0, 0.0), 1.5)) == ["a", "b"]
    grid.remove("b")
    assert grid.near((10.0, 0.0), 1.5) == ["a"] and "b" not in grid and len(grid) == 1
    assert grid.nearest((0.0, 0.0), 1, lambda i: i != "a", lambda i: 0) == []


def test_a_point_whose_distance_rounds_to_the_radius_is_found_across_a_cell_edge() -> None:
    """Found by the property above: (1, -8e-117) is 1.0 from (1, 1) once rounded, but it
    lies in the cell below the square of side 2 x radius around the centre."""
    grid = Grid(cell=4.0)
    grid.add("p", (1.0, -8.110181744170755e-117))
    assert math.dist((1.0, 1.0), (1.0, -8.110181744170755e-117)) <= 1.0
    assert grid.near((1.0, 1.0), 1.0) == ["p"]


@settings(max_examples=100, deadline=None)
@given(
    points=st.lists(whole_metres(8), min_size=1, max_size=60),
    centre=st.tuples(coords, coords),
    k=st.integers(1, 6),
)
def test_nearest_breaks_ties_by_rank_among_accepted_items(
    points: list[tuple[float, float]], centre: tuple[float, float], k: int
) -> None:
    """Points on a lattice tie often; only accepted items count, even far from the centre."""
    grid = Grid(cell=2.0)
    for i, p in enumerate(points):
        grid.add(f"p{i}", p)
    accepted = [i for i in range(len(points)) if i % 3 != 0]
    ranked = sorted(accepted, key=lambda i: (math.dist(centre, points[i]), -i))
    nearest = grid.nearest(
        centre, k, lambda item: int(item[1:]) % 3 != 0, lambda item: -int(item[1:])
    )
    assert nearest == [f"p{i}" for i in ranked[:k]]


@settings(max_examples=200, deadline=None)
@given(
    points=st.lists(
        st.tuples(st.integers(0, 12).map(lambda v: v * 0.8), st.integers(-10, 10).map(float)),
        min_size=1,
        max_size=80,
    ),
    centre=st.tuples(st.floats(-80, 80, allow_nan=False), st.floats(-80, 80, allow_nan=False)),
    cell=st.sampled_from([0.5, 1.6, 2.0, 3.0]),
    keep=st.integers(1, 4),
)
def test_the_nearest_one_matches_a_full_scan_from_afar_and_within_a_crowd(
    points: list[tuple[float, float]], centre: tuple[float, float], cell: float, keep: int
) -> None:
    """A block of points on a lattice (a battle's ranks), looked at from inside it or
    from far away on any side: the one nearest accepted item, ties by rank."""
    grid = Grid(cell=cell)
    for i, p in enumerate(points):
        grid.add(f"p{i}", p)
    accepted = [i for i in range(len(points)) if i % keep == 0]
    ranked = sorted(accepted, key=lambda i: (math.dist(centre, points[i]), i % 5, f"p{i}"))
    nearest = grid.nearest(
        centre, 1, lambda item: int(item[1:]) % keep == 0, lambda item: int(item[1:]) % 5
    )
    assert nearest == [f"p{i}" for i in ranked[:1]]


@settings(max_examples=150, deadline=None)
@given(
    points=st.lists(st.tuples(coords, coords), min_size=1, max_size=30),
    steps=st.lists(
        st.tuples(st.integers(0, 29), st.one_of(st.none(), st.tuples(coords, coords))),
        max_size=40,
    ),
    centre=st.tuples(coords, coords),
    radius=st.floats(0, 50),
)
def test_queries_after_moves_and_removals_match_a_full_scan(
    points: list[tuple[float, float]],
    steps: list[tuple[int, tuple[float, float] | None]],
    centre: tuple[float, float],
    radius: float,
) -> None:
    """Items move (within their cell or out of it) and leave: the cells, bounds and
    extent a grid keeps from its past never hide an item from a query."""
    grid, where = filled(points)
    for i, to in steps:
        item = f"p{i % len(points)}"
        # Half the moves stay close by (often in the same cell).
        if to is not None and i % 2 and item in where:
            to = (where[item][0] + to[0] / 100, where[item][1] + to[1] / 100)
        step(grid, where, item, to)
    assert set(grid.near(centre, radius)) == within(where, centre, radius)
    ranked = sorted(where, key=lambda item: (math.dist(centre, where[item]), item))
    assert grid.nearest(centre, 1, None, lambda item: 0) == ranked[:1]


@settings(max_examples=200, deadline=None)
@given(
    points=st.lists(whole_metres(6), min_size=1, max_size=40),
    steps=st.lists(st.tuples(st.integers(0, 39), st.one_of(st.none(), whole_metres(6)))),
    centre=st.one_of(whole_metres(7), st.tuples(coords, coords)),
    radius=st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5]), st.floats(0, 8)),
    skipped=st.sets(st.integers(0, 39), max_size=6),
    but=st.integers(0, 39),
)
def test_crowded_says_whether_near_names_anyone_not_left_out(
    points: list[tuple[float, float]],
    steps: list[tuple[int, tuple[float, float] | None]],
    centre: tuple[float, float],
    radius: float,
    skipped: set[int],
    but: int,
) -> None:
    """``crowded`` (where a move may end) is a full scan's answer with one item and a set
    left out, also after moves and removals, on cell edges and at exactly the radius."""
    grid, where = filled(points)
    for i, to in steps:
        step(grid, where, f"p{i % len(points)}", to)
    skip = {f"p{i}" for i in skipped}
    found = within(where, centre, radius)
    assert grid.crowded(centre, radius) == bool(found)
    assert grid.crowded(centre, radius, f"p{but}", skip) == bool(found - skip - {f"p{but}"})


def test_a_move_within_its_cell_toward_the_searcher_is_seen_from_afar() -> None:
    """From far away, the search passes over cells that lie beyond the extent of what
    the grid holds: a move inside a cell widens that extent too."""
    grid = Grid(cell=2.0)
    grid.add("c", (1.9, 0.0))  # straight ahead of the searcher, 31.9 m away
    grid.add("a", (1.9, 6.0))  # 32.5 m away
    grid.move("a", (0.0, 6.0))  # the same cell, now 30.6 m away: the nearest
    assert grid.nearest((-30.0, 0.0), 1, None, lambda item: 0) == ["a"]


@settings(max_examples=60, deadline=None)
@given(
    spots=st.lists(
        st.tuples(st.integers(-12, 12).map(lambda v: v * 0.8), st.integers(-12, 12).map(float)),
        min_size=SMALL_FIGHT + 1,
        max_size=SMALL_FIGHT + 30,
    ),
    sides=st.integers(2, 3),
    out=st.sets(st.integers(0, SMALL_FIGHT + 29), max_size=8),
    count=st.integers(1, 4),
)
def test_a_big_fight_s_nearest_opponents_match_a_full_scan(
    spots: list[tuple[float, float]], sides: int, out: set[int], count: int
) -> None:
    """Above SMALL_FIGHT the state asks each other side's grid (one other side: its
    answer as it is); the answer is a scan's: distance, then the fight's order."""
    combatants = {
        f"c{i}": Combatant(f"c{i}", f"s{i % sides}", None, None, None, position=p, order=i)
        for i, p in enumerate(spots)
    }
    state = FightState(combatants)
    for i in sorted(out):
        if f"c{i}" in combatants:
            state.remove(f"c{i}")
    for cid, c in combatants.items():
        if not c.in_fight:
            continue
        expected = sorted(
            (math.dist(c.position, o.position), o.order, o.id)
            for o in combatants.values()
            if o.in_fight and o.side != c.side
        )
        assert state.nearest_opponents(cid, count) == [o for _, _, o in expected[:count]]


@settings(max_examples=150, deadline=None)
@given(
    points=st.lists(whole_metres(10), min_size=1, max_size=25),
    steps=st.lists(
        st.tuples(st.integers(0, 24), st.one_of(st.none(), whole_metres(10)), st.integers(0, 4)),
        max_size=40,
    ),
    radius=st.sampled_from([0.5, 1.0, 3.0, 7.5]),
)
def test_a_remembered_answer_never_outlives_a_change(
    points: list[tuple[float, float]],
    steps: list[tuple[int, tuple[float, float] | None, int]],
    radius: float,
) -> None:
    """``near`` remembers its answers: the same questions, asked again between moves,
    removals and arrivals (near or far from them), always get a full scan's answer."""
    grid, where = filled(points)
    centres = [points[0], (0.0, 0.0), (9.0, -9.0), (-4.5, 3.5), (20.0, 20.0)]
    for i, to, asked in steps:
        centre = centres[asked]
        assert set(grid.near(centre, radius)) == within(where, centre, radius)  # before too
        step(grid, where, f"p{i % len(points)}", to)
        assert set(grid.near(centre, radius)) == within(where, centre, radius)
