"""The fight state's own bookkeeping of actions: what a combatant keeps as recent."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from segsim.actions import Action
from segsim.state import Combatant, FightState


def _reference_recent(recent: list[Action], actions: list[Action], done: Action) -> list[Action]:
    """What ``recent`` should hold after ``done`` finishes: every finished action still
    overlapping the oldest action in progress, or ending just before it began."""
    horizon = min([done.start, *(a.start for a in actions)]) - 1
    kept = [*recent, done]
    return [a for a in kept if a.duration is None or a.start + a.duration > horizon]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 8)), min_size=1, max_size=30))
def test_recent_keeps_what_still_overlaps(plan: list[tuple[int, int]]) -> None:
    """Actions begin one after another (each ``gap`` segments after the last began) and
    finish in the order of their ends, as the engine settles them: after each one,
    ``recent`` holds exactly what the full filter keeps, in the same order."""
    c = Combatant(id="a", side="x", sheet=None, status=None, policy=None)  # type: ignore[arg-type]
    start = 0
    for i, (gap, duration) in enumerate(plan, start=1):
        start += gap
        a = Action("act", duration)
        a.stamp(i, "a", start)
        c.actions.append(a)
    while c.actions:
        done = min(c.actions, key=lambda a: (a.start + (a.duration or 0), a.id))
        rest = [a for a in c.actions if a is not done]
        expected = _reference_recent(list(c.recent), rest, done)
        c.finish(done)
        assert c.actions == rest
        assert [a.id for a in c.recent] == [a.id for a in expected]


def test_recent_drops_what_ended_before_the_oldest_action_in_progress() -> None:
    c = Combatant(id="a", side="x", sheet=None, status=None, policy=None)  # type: ignore[arg-type]
    first, second, third = Action("arm", 3), Action("strike", 3), Action("dodge", 2)
    first.stamp(1, "a", 0)  # segments 0-2
    second.stamp(2, "a", 3)  # 3-5
    third.stamp(3, "a", 6)  # 6-7
    c.actions = [first, second, third]
    c.finish(first)
    c.finish(second)
    assert [a.id for a in c.recent] == [1, 2]  # the arm ended just before the strike began
    c.finish(third)
    assert [a.id for a in c.recent] == [2, 3]


def test_sides_in_fight_follow_who_comes_and_goes() -> None:
    from segsim.state import FightState

    def fighter(cid: str, side: str) -> Combatant:
        return Combatant(id=cid, side=side, sheet=None, status=None, policy=None)  # type: ignore[arg-type]

    state = FightState(combatants={"a": fighter("a", "red"), "b": fighter("b", "blue")})
    assert state.sides_in_fight() == ["red", "blue"]
    assert state.sides_in_fight() is state.sides_in_fight()  # kept while nobody comes or goes
    state.remove("a")
    assert state.sides_in_fight() == ["blue"]
    state.add(fighter("c", "green"))
    assert state.sides_in_fight() == ["blue", "green"]
    state.remove("b")
    state.remove("c")
    assert state.sides_in_fight() == []


def test_opponents_by_side_follow_who_comes_and_goes() -> None:
    """``against`` is kept until someone comes or goes: a removal or an arrival drops it
    (whatever the order of the reads)."""
    from segsim.state import FightState

    def fighter(cid: str, side: str) -> Combatant:
        return Combatant(id=cid, side=side, sheet=None, status=None, policy=None)  # type: ignore[arg-type]

    state = FightState(combatants={"a": fighter("a", "red"), "b": fighter("b", "blue")})
    assert [c.id for c in state.against("red")] == ["b"]
    assert state.against("red") is state.against("red")  # kept while nobody comes or goes
    assert [c.id for c in state.against(None)] == ["a", "b"]
    state.add(fighter("c", "blue"))
    assert [c.id for c in state.against("red")] == ["b", "c"]
    assert [c.id for c in state.against(None)] == ["a", "b", "c"]
    state.remove("b")
    assert [c.id for c in state.against("red")] == ["c"]
    assert [c.id for c in state.against("blue")] == ["a"]
    roster = state.roster
    state.remove("b")  # already out: nothing changes
    assert state.roster == roster


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-40, 40), st.integers(-40, 40), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.integers(-40, 40),
    st.integers(-40, 40),
    st.sampled_from([0.0, 0.5, 1.0, 2.5, 7.0, 30.0]),
)
def test_near_finds_whoever_stands_within_the_radius_in_the_fights_order(
    spots: list[tuple[int, int, bool]], x: int, y: int, radius: float
) -> None:
    """near() is everyone in the fight within the radius, in the fight's order, whether
    it looks at each fighter (a few in the fight) or asks the grid (more): fighters
    placed at quarter-metre steps, some moved once and some out of the fight."""
    fighters = {
        f"c{i}": Combatant(
            id=f"c{i}",
            side="ab"[i % 2],
            sheet=None,
            status=None,
            policy=None,  # type: ignore[arg-type]
            position=(px / 4, py / 4),
            order=i,
        )
        for i, (px, py, _) in enumerate(spots)
    }
    state = FightState(fighters)
    for i, (px, py, moves) in enumerate(spots):
        if moves:
            state.move(f"c{i}", (py / 4, -px / 4))
        if i % 5 == 4:
            state.remove(f"c{i}")
    here = (x / 4, y / 4)
    expected = [
        c for c in fighters.values() if c.in_fight and math.dist(here, c.position) <= radius
    ]
    assert state.near(here, radius) == expected


def test_a_fighter_out_of_the_fight_has_its_actions_dropped_by_a_mark() -> None:
    """Whoever leaves the fight loses its actions in progress: each is marked as dropped
    (the settlement of its batch skips it), its batch left as it was, and nothing is
    marked for an action that is in no batch (one that lasts until the fighter acts)."""
    fighters = {
        cid: Combatant(id=cid, side=side, sheet=None, status=None, policy=None)  # type: ignore[arg-type]
        for cid, side in (("a", "red"), ("b", "blue"))
    }
    state = FightState(fighters)
    timed, endless, other = Action("strike", 3), Action("guard", None), Action("strike", 3)
    for action, cid in ((timed, "a"), (endless, "a"), (other, "b")):
        action.stamp(state.next_action_id, cid, 2)
        state.next_action_id += 1
        fighters[cid].actions.append(action)
    state.pending[timed.end] = [timed, other]  # type: ignore[index]
    state.remove("a")
    assert state.dropped == {timed.end: {id(timed): timed}}
    assert state.pending[timed.end] == [timed, other]  # type: ignore[index]
    assert fighters["a"].actions == [] and fighters["b"].actions == [other]
