"""RinKaNou's shortcuts for speed (issue 41, fourth pass) answer as the long way does.

Each is work done once, or skipped, on the hot path: a checked move toward someone keeps
what its declaration alone says; the keeper reads its nearest opponent without building
its view; the missiles coming at a fighter are read from who shot them. What depends
on the fight is still checked every time.
"""

from __future__ import annotations

import math
import random
import struct
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.actions import Action, declaration_problem
from segsim.errors import IllegalDeclaration
from segsim.rules.rinkanou.ruleset import nearest_opponents, point_at
from segsim.testing import Scripted, build_fight, declare, drive, externalize

ROOT = Path(__file__).resolve().parent.parent


def _two_apart(distance: float):  # type: ignore[no-untyped-def]
    return build_fight(
        {"a": ("blue", "robert", Scripted()), "b": ("red", "margaret", Scripted())},
        positions={"a": (0.0, 0.0), "b": (distance, 0.0)},
        seed=1,
    )


def test_a_move_planned_again_is_the_same_action() -> None:
    fight = _two_apart(20.0)
    move = declare("move", toward="b", segments=5)
    assert declaration_problem(move) is None and move.checked  # handed out again as is
    rules, state = fight.ruleset, fight.state
    first = rules.plan(state, "a", move, 0, [])
    again = rules.plan(state, "a", move, 0, [])  # from what it kept of the declaration
    assert (again.kind, again.duration, again.channel, again.rolled) == ("move", 5, "legs", False)
    assert again.params is first.params  # the shared table of the shape
    assert dict(again.params) == {
        "pace": "walk",
        "segments": 5,
        "toward": "b",
        "stop_at": rules.reach(state.combatants["a"].sheet),
    }


def test_a_move_planned_again_is_checked_against_the_fight_again() -> None:
    fight = _two_apart(20.0)
    rules, state = fight.ruleset, fight.state
    move = declare("move", toward="b", segments=5)
    assert declaration_problem(move) is None
    rules.plan(state, "a", move, 0, [])
    # The same declaration, by the one it goes toward: refused as the first time would.
    with pytest.raises(IllegalDeclaration, match="cannot move toward itself"):
        rules.plan(state, "b", move, 0, [])
    # Its stop_at is the mover's own reach, each time.
    b_reach = rules.reach(state.combatants["b"].sheet)
    other = declare("move", toward="a", segments=5)
    assert declaration_problem(other) is None
    rules.plan(state, "b", other, 0, [])
    assert rules.plan(state, "b", other, 0, []).params["stop_at"] == b_reach


def test_a_spend_on_a_move_out_of_reach_is_refused_every_time() -> None:
    """[RinKaNou, Mouvement (Se déplacer)]: a move out of every opponent's reach has no
    roll, so no PS to spend on it; refused the second time as the first."""
    fight = _two_apart(20.0)
    rules, state = fight.ruleset, fight.state
    move = declare("move", toward="b", segments=5, ps={"bonus": 1})
    assert declaration_problem(move) is None and move.checked
    for _ in range(2):
        with pytest.raises(IllegalDeclaration, match="no PS to spend"):
            rules.plan(state, "a", move, 0, [])


def test_a_move_planned_again_within_reach_rolls() -> None:
    """[RinKaNou, Mouvement (Se déplacer)]: a move that starts within an opponent's
    reach rolls (and so takes PS), planned from what was kept or not."""
    fight = _two_apart(1.0)
    rules, state = fight.ruleset, fight.state
    move = declare("move", toward="b", segments=1, ps={"malus": 1})
    assert declaration_problem(move) is None
    first = rules.plan(state, "a", move, 0, [])
    again = rules.plan(state, "a", move, 0, [])
    assert first.rolled and again.rolled
    assert again.target == first.target == "b"


def test_the_keeper_reads_the_nearest_opponent_as_its_view_shows_it() -> None:
    fight = build_fight(
        {
            "a": ("blue", "robert", Scripted()),
            "b": ("red", "margaret", Scripted()),
            "c": ("red", "robert", Scripted()),
        },
        positions={"a": (0.0, 0.0), "b": (6.0, 0.0), "c": (0.0, 4.0)},
        seed=1,
    )
    obs = fight.ruleset.observe(fight.state, "a", 0, True)
    found = obs.me._nearest_reach()
    view = fight.ruleset.observe(fight.state, "a", 0, True).me.nearest()
    assert found == (view.id, view.position, view.reach) == ("c", (0.0, 4.0), view.reach)
    # Once its view is built, the same answer from it.
    assert obs.me.nearest().id == "c"
    assert obs.me._nearest_reach() == found


@pytest.mark.parametrize("name", ["archery_duel", "crossbow_ambush"])
def test_the_missiles_coming_are_those_the_shooters_views_show(name: str) -> None:
    """``incoming()`` reads the missiles in flight at the fighter straight from who shot
    them; each shooter's view shows the same ones (its actions as the fighter sees
    them, the missiles among them): the same values, in the fight's order. Hidden
    shooters (the crossbow ambush) show none, though their bolts fly."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / f"{name}.toml").fight(2)
    externalize(fight)
    seen = flying = 0
    for _ in range(150):
        pending = fight.advance()
        if not pending:
            break
        flying += len(fight.state.autonomous)
        for observation in pending.values():
            me = observation.me
            coming = me.incoming()
            shown = [m for foe in me.foes() for m in foe.incoming(me.id)]
            assert list(coming) == shown
            seen += len(coming)
        drive(fight, 1)
    assert flying
    assert seen if name == "archery_duel" else not seen


def test_the_missiles_coming_kept_while_they_fly_follow_who_is_in_the_fight() -> None:
    """The missiles coming at a fighter are found once while the same ones fly (issue
    41, fifth pass), and found again when someone leaves the fight: a shooter out of
    the fight is no longer seen, though its arrow still flies."""
    longbow = {"wielding": "ranged", "loaded": True}
    fight = build_fight(
        {
            "jared": ("red", "jared", Scripted({0: declare("shoot", "jacou")})),
            "archer2": ("red", "jared", Scripted({0: declare("shoot", "jacou")})),
            "jacou": ("blue", "jacou", Scripted()),
        },
        positions={"jared": (0.0, 0.0), "archer2": (0.0, 10.0), "jacou": (300.0, 0.0)},
        seed=3,
    )
    for cid in ("jared", "archer2"):
        fight.state.combatants[cid].setup = longbow
    externalize(fight)
    while len(fight.state.autonomous) < 2:  # both arrows loosed (at the end of segment 1)
        drive(fight, 1)
    rules, state = fight.ruleset, fight.state
    flying = dict(state.autonomous)

    def coming() -> list[tuple[str | None, int | None]]:
        me = rules.observe(state, "jacou", state.segment, False).me
        shown = [m for foe in me.foes() for m in foe.incoming("jacou")]  # the long way
        assert list(me.incoming()) == shown
        return [(flying[m.id].actor, m.ends_in) for m in me.incoming()]

    assert coming() == [("jared", 46), ("archer2", 47)]
    assert coming() == [("jared", 46), ("archer2", 47)]  # kept: the same answer
    state.remove("archer2")
    assert state.autonomous == flying  # the same missiles in flight
    assert coming() == [("jared", 46)]


def test_command_points_kept_with_the_action_are_those_its_choices_say() -> None:
    """[RinKaNou, Points de commandement]: the planner keeps what an action's command
    points do (its ``memo``, as for situation points); the settlement reads that, the
    same as its choices read afresh."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "archery_duel.toml").fight(1)
    fight.run()
    rules, state = fight.ruleset, fight.state
    with_pc = [e for e in fight.history if isinstance(e, Action) and e.params.get("pc")]
    assert with_pc
    for action in with_pc:
        kept = rules.pc_use(state, action)
        assert action.memo is kept
        assert kept == rules._spec_use(state.combatants[action.actor], action, "pc")
        assert kept.chance or kept.multiple or kept.duration


def test_the_nearest_opponent_of_a_small_fight_is_the_states() -> None:
    """The RinKaNou scan for the nearest opponent (a small fight's) answers as the
    fight state's search, ties to the first in the fight's order."""
    fight = build_fight(
        {
            "a": ("blue", "robert", Scripted()),
            "b": ("red", "margaret", Scripted()),
            "c": ("red", "robert", Scripted()),
            "d": ("red", "margaret", Scripted()),
        },
        positions={"a": (0.0, 0.0), "b": (3.0, 4.0), "c": (5.0, 0.0), "d": (0.0, 5.0)},
        seed=1,
    )
    state = fight.state
    for spot in [(0.0, 0.0), (4.0, 1.0), (1.0, 4.0), (2.5, 2.0), (-3.0, 0.0)]:
        state.move("a", spot)
        assert nearest_opponents(state, "a", 1) == state.nearest_opponents("a", 1)
    state.move("a", (0.0, 0.0))  # b, c and d all 5 m away: the first of them
    assert nearest_opponents(state, "a", 1) == ["b"]
    assert nearest_opponents(state, "c", 1) == ["a"]


def _bits(point: tuple[float, float]) -> tuple[bytes, bytes]:
    return struct.pack("<d", point[0]), struct.pack("<d", point[1])


def test_a_point_on_the_way_is_rounded_as_round_rounds_it() -> None:
    """point_at() rounds each coordinate to the micrometre without round()'s decimal
    string where it can: the very floats round(v, 6) gives, the sign of a zero
    included, for positions of every size, half-way values and those that are not
    finite (sixth pass)."""
    rng = random.Random(41)
    cases: list[tuple[tuple[float, float], tuple[float, float], float]] = []
    for _ in range(20_000):
        scale = 10 ** rng.uniform(-8, 13)
        start = (rng.uniform(-scale, scale), rng.uniform(-scale, scale))
        goal = (rng.uniform(-scale, scale), rng.uniform(-scale, scale))
        cases.append((start, goal, rng.choice([1.0, 0.5, rng.random()])))
    for k in range(-2_000, 2_000, 3):  # half way between two micrometres
        half = (k + 0.5) / 1e6
        cases.append(((0.0, 0.0), (half, -half), 1.0))
    for v in (0.0, -0.0, 4e-7, -4e-7, 2.675, 1e6, -1e12, 1e300, math.inf, -math.inf):
        cases.append(((0.0, -0.0), (v, -v), 1.0))
        cases.append(((0.0, -0.0), (v, -v), 0.5))
    for start, goal, f in cases:
        x = start[0] + (goal[0] - start[0]) * f
        y = start[1] + (goal[1] - start[1]) * f
        try:
            expected = (round(x, 6), round(y, 6))
        except OverflowError:
            with pytest.raises(OverflowError):
                point_at(start, goal, f)
            continue
        assert _bits(point_at(start, goal, f)) == _bits(expected), (start, goal, f)
    x, y = point_at((0.0, 0.0), (math.nan, 1.0), 1.0)
    assert math.isnan(x) and y == 1.0
