"""Loreval line battles (segsim.rules.loreval.battle, segsim.battle.battle): two sides
in ranks, an ``awareness`` radius and the round's bookkeeping kept from step to step
(segsim.rules.loreval.steps), which keep an action's cost flat as the battle grows."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from segsim.actions import Action
from segsim.battle import battle
from segsim.events import OutOfFight
from segsim.policy import policy_name
from segsim.record import fight_lines, fight_record
from segsim.replay import replay
from segsim.rules.loreval import steps
from segsim.rules.loreval.battle import line_battle
from segsim.rules.loreval.events import AttackRolled, RoundStarted
from segsim.rules.loreval.rounds import rank_key
from segsim.rules.loreval.ruleset import Loreval
from segsim.rules.loreval.settle import AIMS, Aims
from segsim.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parent.parent / "examples" / "scenarios"


def test_battle_by_name_is_loreval_line_battle() -> None:
    by_name = battle("loreval", 3, seed=4, max_segments=300)
    direct = line_battle(3, seed=4, max_segments=300)
    by_name.run()
    direct.run()
    assert list(fight_lines(by_name)) == list(fight_lines(direct))


def test_the_sides_stand_in_ranks_with_the_sheets_and_policies_in_turn() -> None:
    fight = line_battle(4, width=2, gap=1.5)
    west = [c for c in fight.state.combatants.values() if c.side == "west"]
    east = [c for c in fight.state.combatants.values() if c.side == "east"]
    assert [c.id for c in west] == ["w0", "w1", "w2", "w3"]
    assert [c.id for c in east] == ["e0", "e1", "e2", "e3"]
    # ranks of two, 1.6 m apart, the second rank behind the first (away from the enemy)
    assert [c.position for c in west] == [(0.0, -0.8), (0.0, 0.8), (-1.6, -0.8), (-1.6, 0.8)]
    assert [c.position for c in east] == [(1.5, -0.8), (1.5, 0.8), (3.1, -0.8), (3.1, 0.8)]
    assert [c.sheet.name for c in west] == [west[0].sheet.name, west[1].sheet.name] * 2
    assert west[0].sheet.name != west[1].sheet.name
    assert [policy_name(c.policy) for c in west[:2]] == ["aggressive", "counter"]


def test_the_front_ranks_fight_in_their_first_turns_and_the_battle_replays() -> None:
    fight = line_battle(5, seed=2, max_segments=60)  # one round of 6 s
    fight.run()
    attacks = [e for e in fight.history if isinstance(e, AttackRolled)]
    assert attacks, "fighters in contact attack on their first turn"
    turns = [e for e in fight.history if isinstance(e, Action) and e.kind == "turn"]
    out = {e.actor for e in fight.history if isinstance(e, OutOfFight)}
    # every fighter had its turn in the first round, but whoever fell before it came
    assert {t.actor for t in turns} | out == set(fight.state.combatants)
    again = line_battle(5, seed=2, max_segments=60)
    again.run()
    assert list(fight_lines(again)) == list(fight_lines(fight))


def test_offsets_are_two_whole_numbers() -> None:
    with pytest.raises(ValueError, match="offsets are two whole numbers"):
        line_battle(2, offsets=(0, -1))


def test_a_battle_record_names_its_awareness_and_replays_identically() -> None:
    fight = line_battle(4, seed=7, max_segments=200)
    assert fight.ruleset.awareness == 2.0
    fight.run()
    record = fight_record(fight)
    assert record.header["options"]["awareness"] == 2.0
    assert replay(record).identical


def test_a_fighter_sees_those_within_its_awareness_and_else_the_nearest_opponent() -> None:
    """In a battle of 60 a side (ranks of 10), a fighter of the sixth rank has nobody
    within 2 m but its own neighbours: it sees them and the nearest opponent (found
    through the grid); a front-rank fighter sees its surroundings only, the opponent in
    contact in front of it among them (so a decision costs what it does in a small
    fight, however many fight)."""
    fight = line_battle(60, seed=1, width=10, max_segments=1)
    fight.run()  # the first round's initiative, so that the fighters may decide
    rules: Loreval = fight.ruleset
    state = fight.state
    rear = state.combatants["w55"]
    obs = rules.observe(state, "w55", 0, True)
    foes = [o for o in obs.others if o.side == "east"]
    assert [o.id for o in foes] == ["e5"]  # the nearest opponent, 9.5 m away
    assert math.dist(foes[0].position, rear.position) > 2.0
    friends = [o for o in obs.others if o.side == "west"]
    assert friends and all(math.dist(o.position, rear.position) <= 2.0 for o in friends)
    front = rules.observe(state, "w5", 0, True)
    assert {o.side for o in front.others} == {"west", "east"}
    assert all(math.dist(o.position, state.combatants["w5"].position) <= 2.0 for o in front.others)
    assert len(front.others) <= 6
    # without awareness, everyone sees everyone, as at a table
    table = line_battle(60, seed=1, width=10, max_segments=1, awareness=None)
    table.run()
    assert len(table.ruleset.observe(table.state, "w55", 0, True).others) == 119


def test_awareness_is_a_distance_and_off_by_default() -> None:
    with pytest.raises(TypeError, match="awareness is a distance in metres"):
        Loreval(awareness=-1.0)
    with pytest.raises(TypeError, match="awareness is a distance in metres"):
        Loreval(awareness=True)  # type: ignore[arg-type]
    assert Loreval().awareness is None
    assert "awareness" not in Loreval().options


@pytest.mark.parametrize("awareness", [3.0, None])
def test_who_is_due_next_kept_from_step_to_step_is_the_scan_of_everyone(
    monkeypatch: pytest.MonkeyPatch, awareness: float | None
) -> None:
    """A large fight keeps the round's order and how far its steps have come
    (segsim.rules.loreval.steps); with CHECK set, every answer (the next step, the steps
    left to resolve, a step's rank, whether a step is in progress) is compared with the
    scan of every fighter, over whole rounds of declarations, heroic actions, counters,
    changes and resolutions, with fighters falling; and so is what a settlement finds
    through the plans kept by target (``settle.Aims``: the counters, charges and
    concerted actions answering a step, the sources of danger around a defender)."""
    monkeypatch.setattr(steps, "CHECK", True)
    fight = line_battle(15, seed=3, max_segments=1500, awareness=awareness)
    fight.run()
    kept = fight.state.extra[steps.KEY]
    assert isinstance(kept, steps.StepTracker) and kept.round >= 3
    assert any(isinstance(e, OutOfFight) for e in fight.history)
    aims = fight.state.extra[AIMS]
    assert isinstance(aims, Aims) and aims.whole and aims.by_target


def test_a_large_rounds_order_is_the_one_its_start_gave_while_it_holds_everyone() -> None:
    """The tracker takes a round's order from its start (the RoundStarted event: the
    most initiative points first, then dexterity, then the tie-break dice), without
    sorting everyone again: the same order as by rank_key; once that order no longer
    holds everyone in the fight (someone left), it is sorted as before."""
    fight = line_battle(15, seed=3, max_segments=40)
    fight.run()
    state = fight.state
    kept = state.extra[steps.KEY]
    started = next(e for e in fight.history if isinstance(e, RoundStarted))
    assert kept.started_round == 1 and kept.started == started.order
    assert [c.id for c in kept.order] == list(started.order)
    assert kept.order == sorted(state.against(None), key=rank_key)
    assert kept._from_start(state, 1)
    state.remove(started.order[3])
    assert not kept._from_start(state, 1)
    assert [c.id for c in kept.order] == list(started.order)  # (left as it was)


def test_the_examples_play_the_same_with_the_steps_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept from the first fighter (``LARGE`` 0), the example scenarios play the same
    fights, and every answer is the scan's, in both ways (a small fight's next step
    kept until the rules' events change it, the step in progress read from the last
    one begun) (the settlements' plans kept by target too:
    the skirmish's counters, charges and grapples)."""
    fights = {}
    for large in (steps.LARGE, 0):
        monkeypatch.setattr(steps, "LARGE", large)
        monkeypatch.setattr(steps, "CHECK", True)  # the small fights' answers checked too
        for name in ("loreval_duel", "loreval_skirmish"):
            scenario = load_scenario(SCENARIOS / f"{name}.toml")
            for seed in range(4):
                fight = scenario.fight(seed)
                fight.run()
                assert (steps.KEY in fight.state.extra) == (large == 0)
                fights.setdefault((name, seed), []).append(list(fight_lines(fight)))
    assert all(a == b for a, b in fights.values())


def test_a_large_phase_imposes_its_awaits_in_one_call_and_plays_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More than ``_MANY_FORCED`` fighters called to a phase (a battle of 40 a side at its
    rounds' starts): the rules answer for all of them in one call (forced_all: each
    await planned as plan() plans it, the step due left to the engine), and the battle
    plays the same, action for action, as when forced() and plan() are asked of each
    fighter in turn."""
    import segsim.fight as engine

    asked: list[int] = []
    bulk = Loreval.forced_all

    def counted(self: Loreval, state: object, members: list[object], segment: int) -> object:
        answers = bulk(self, state, members, segment)  # type: ignore[arg-type]
        asked.append(0 if answers is None else len(answers))
        return answers

    records = []
    for many in (engine._MANY_FORCED, 10**9):
        monkeypatch.setattr(engine, "_MANY_FORCED", many)
        monkeypatch.setattr(Loreval, "forced_all", counted)
        fight = line_battle(40, seed=0, max_segments=130)
        fight.run()
        records.append(list(fight_lines(fight)))
        if many == engine._MANY_FORCED:
            assert asked and all(n == 80 for n in asked)  # (round starts: everyone)
            waits = [
                a
                for a in fight.history
                if isinstance(a, Action) and a.kind == "await" and a.start == 0
            ]
            assert len(waits) == 79  # all but the fighter whose step is due
            assert all(a.forced and a.public and a.declaration is not None for a in waits)
        else:
            assert len(asked) == asked.count(80)  # not asked again
    assert records[0] == records[1]


def test_a_large_phase_awaits_hold_what_their_class_makes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The awaits forced_all imposes on a large phase (a battle of 40 a side at its
    rounds' starts), made without calling Action's class in the pure build, hold in
    every field what the class's constructor gives them, and the battle plays the same
    either way."""
    import attrs

    import segsim.rules.loreval.ruleset as rules

    names = [f.name for f in attrs.fields(Action)]
    seen = []
    for plain in (rules._PLAIN_ACTION, False):
        monkeypatch.setattr(rules, "_PLAIN_ACTION", plain)
        fight = line_battle(40, seed=0, max_segments=130)
        fight.run()
        waits = [
            [getattr(a, name) for name in names]
            for a in fight.history
            if isinstance(a, Action) and a.kind == "await" and a.forced
        ]
        assert len(waits) > 80  # (both rounds' starts)
        seen.append((waits, list(fight_lines(fight))))
    assert seen[0] == seen[1]


def test_a_large_phase_tells_its_subscribers_each_await_as_it_starts() -> None:
    """A large phase's forced awaits (a battle of 40 a side at its rounds' starts) are
    started in a batch only when nobody subscribes to the fight's events; a subscriber is
    handed each event as it is recorded, in the history's order, and the battle plays
    the same with or without one."""
    heard: list[object] = []
    plain = line_battle(40, seed=0, max_segments=130)
    plain.run()
    told = line_battle(40, seed=0, max_segments=130)
    told.subscribe(lambda event: heard.append((len(told.history), event)))
    told.run()
    assert list(fight_lines(told)) == list(fight_lines(plain))
    assert [event for _, event in heard] == list(told.history)
    assert all(told.history[n - 1] is event for n, event in heard)  # (told once recorded)
    assert sum(1 for _, e in heard if isinstance(e, Action) and e.kind == "await") > 80
