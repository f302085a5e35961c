"""A wait that ends when the way clears (RULES-NOTES "Waiting"; docs/rules/rinkanou.md,
"Battles"): a fighter blocked by its own side sleeps until someone near it moves away or
leaves the fight, or until its bound, instead of trying again every few segments."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from segsim.battle import line_battle
from segsim.errors import IllegalDeclaration
from segsim.fight import Fight
from segsim.record import write_record
from segsim.replay import replay
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.decisions import BLOCKED_WAIT
from segsim.rules.rinkanou.policies import Aggressive
from segsim.testing import Scripted, build_fight, declare
from segsim.timeline import timeline

WAY = 0.15 * 5 + 0.5  # a recruit's 5-segment walk (1.5 m/s) plus personal space


def _blocked(blocker_moves_at: int | None, *, max_segments: int = 200) -> Fight:
    """``rear`` (aggressive, no enemy in sight) stands 0.7 m behind ``blocker``; a
    ``bystander`` of its side 3 m away walks off at segment 10; ``blocker`` walks aside
    at ``blocker_moves_at`` (10 segments: it is gone at the end of segment +9)."""
    script = (
        {}
        if blocker_moves_at is None
        else {blocker_moves_at: declare("move", to=[0.0, 4.0], segments=10)}
    )
    return build_fight(
        {
            "rear": ("west", "recruit", Aggressive()),
            "blocker": ("west", "recruit", Scripted(script)),
            "bystander": ("west", "recruit", Scripted({10: declare("move", to=[-3.0, 6.0])})),
            "enemy": ("east", "recruit", Scripted()),
        },
        ruleset=RinKaNou(awareness=3.0, start_roll=False),
        positions={
            "rear": (-0.7, 0.0),
            "blocker": (0.0, 0.0),
            "bystander": (-0.7, 3.0),
            "enemy": (20.0, 0.0),
        },
        max_segments=max_segments,
    )


def _declared(fight: Fight, cid: str) -> list[tuple[int, str, dict[str, object]]]:
    return [
        (e.t, e.kind, dict(e.params))  # type: ignore[attr-defined]
        for e in fight.history
        if e.TYPE == "action.declared" and e.actor == cid
    ]


def test_a_blocked_rear_rank_fighter_wakes_in_the_segment_its_way_clears() -> None:
    fight = _blocked(40)
    fight.run()
    rear = _declared(fight, "rear")
    # Its first advance gets nowhere (the blocker stands where it would step) ...
    assert rear[0][:2] == (0, "move")
    assert not [
        e for e in fight.history if e.TYPE == "combatant.moved" and e.actor == "rear" and e.t < 50
    ]
    # ... so it waits for its way to clear, bounded.
    assert rear[1] == (5, "wait", {"until": 5 + BLOCKED_WAIT, "clear": WAY})
    # The bystander, 3 m away, walks off at the end of segment 10: that wakes nobody.
    assert any(
        e.TYPE == "combatant.moved" and e.actor == "bystander" and e.t == 10 for e in fight.history
    )
    # The blocker's move resolves in segment 49: the wait ends there, not before ...
    wait = next(
        e for e in fight.history if e.TYPE == "action.declared" and e.actor == "rear" and e.t == 5
    )
    ended = [e for e in fight.history if e.TYPE == "wait.ended"]
    assert [(e.t, e.actor, e.action, e.by) for e in ended] == [  # type: ignore[attr-defined]
        (49, "rear", wait.action, "blocker")  # type: ignore[attr-defined]
    ]
    # ... and the rear-rank fighter declares again at the start of segment 50, no sooner.
    assert rear[2][:2] == (50, "move")
    assert [t for t, _, _ in rear if 5 < t < 50] == []
    moved = [e for e in fight.history if e.TYPE == "combatant.moved" and e.actor == "rear"]
    assert moved and moved[0].t == 54  # its way is clear: it walks on
    # The timeline draws the wait up to the segment it ended in.
    (span,) = [s for s in timeline(fight).rows[0].spans if s.action == wait.action]  # type: ignore[attr-defined]
    assert (span.start, span.last, span.outcome) == (5, 49, "way cleared by blocker")


def test_with_nothing_moving_near_it_the_wait_runs_to_its_bound() -> None:
    fight = _blocked(None, max_segments=5 + BLOCKED_WAIT + 2)
    fight.run()
    rear = _declared(fight, "rear")
    assert [t for t, _, _ in rear] == [0, 5, 5 + BLOCKED_WAIT]
    assert rear[2][1] == "move"  # tries again at its bound
    assert not [e for e in fight.history if e.TYPE == "wait.ended"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"clear": 1.0}, "needs an until bound"),
        ({"until": 9, "clear": 0}, "radius in metres"),
        ({"until": 9, "clear": True}, "radius in metres"),
        ({"until": 9, "clear": "near"}, "radius in metres"),
    ],
)
def test_a_wait_for_the_way_to_clear_is_checked(params: dict[str, object], message: str) -> None:
    fight = build_fight(
        {"a": ("west", "recruit", Scripted()), "b": ("east", "recruit", Scripted())},
        ruleset=RinKaNou(start_roll=False),
    )
    fight.start()
    before = fight.state.version
    with pytest.raises(IllegalDeclaration, match=message):
        fight.check("a", [declare("wait", **params)])
    assert fight.state.version == before


def _record(fight: Fight) -> str:
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


@pytest.mark.parametrize("seed", [0, 1])
def test_battles_with_blocked_ranks_replay_identically(seed: int, tmp_path: Path) -> None:
    """Five ranks of six a side: the rear ranks are blocked, sleep and are woken; the
    same seed gives the same record, and the record replays line for line."""
    first = line_battle(30, seed=seed, width=6)
    first.run()
    text = _record(first)
    assert '"type":"wait.ended"' in text  # the rear ranks did sleep and wake
    again = line_battle(30, seed=seed, width=6)
    again.run()
    assert _record(again) == text
    path = tmp_path / "battle.jsonl"
    path.write_text(text, encoding="utf-8")
    result = replay(path)
    assert result.identical, result.divergence


def test_a_blocker_leaving_the_fight_clears_the_way() -> None:
    """The host takes the blocker out at the start of segment 30 (it flees): the wait
    counts as resolved in segment 30 and the rear-rank fighter declares at 31."""
    fight = _blocked(None)
    fight.start()
    fight.leave("blocker", reason="fled", at=30)
    fight.env.run(until=fight.done)
    ended = [(e.t, e.actor, e.by) for e in fight.history if e.TYPE == "wait.ended"]  # type: ignore[attr-defined]
    assert ended == [(30, "rear", "blocker")]
    rear = _declared(fight, "rear")
    assert [(t, kind) for t, kind, _ in rear[:3]] == [(0, "move"), (5, "wait"), (31, "move")]


def _crowded(blocker_moves_at: int | None) -> Fight:
    """``front`` (aggressive) sees ``enemy`` 2.7 m away, out of reach, but an ally
    (``blocker``) stands 0.7 m ahead of it on the way; ``blocker`` walks aside at
    ``blocker_moves_at`` (3 segments: gone at the end of segment +2)."""
    script = (
        {}
        if blocker_moves_at is None
        else {blocker_moves_at: declare("move", to=[0.0, 4.0], segments=3)}
    )
    return build_fight(
        {
            "front": ("west", "recruit", Aggressive()),
            "blocker": ("west", "recruit", Scripted(script)),
            "enemy": ("east", "recruit", Scripted()),
        },
        ruleset=RinKaNou(awareness=3.0, start_roll=False),
        positions={"front": (-0.7, 0.0), "blocker": (0.0, 0.0), "enemy": (2.0, 0.0)},
        max_segments=30,
    )


def test_an_approach_that_got_nowhere_waits_a_walk_for_the_way_to_clear() -> None:
    fight = _crowded(None)
    fight.run()
    front = [(t, kind, params) for t, kind, params in _declared(fight, "front")]
    # Its first approach gets nowhere; then it alternates a bounded wait (a walk's length,
    # invisible: nobody has to watch it) with a new try, instead of a move every time.
    assert [(t, kind) for t, kind, _ in front[:5]] == [
        (0, "move"),
        (5, "wait"),
        (10, "move"),
        (15, "wait"),
        (20, "move"),
    ]
    assert front[1][2] == {"until": 10, "clear": WAY}
    assert not [e for e in fight.history if e.TYPE == "combatant.moved"]


def test_a_blocked_approach_wakes_in_the_segment_its_way_clears() -> None:
    fight = _crowded(6)
    fight.run()
    ended = [(e.t, e.actor, e.by) for e in fight.history if e.TYPE == "wait.ended"]  # type: ignore[attr-defined]
    assert ended == [(8, "front", "blocker")]  # the blocker is gone at the end of 8
    front = _declared(fight, "front")
    assert [(t, kind) for t, kind, _ in front[:3]] == [(0, "move"), (5, "wait"), (9, "move")]
    assert any(
        e.TYPE == "combatant.moved" and e.actor == "front" and e.t == 13 for e in fight.history
    )
