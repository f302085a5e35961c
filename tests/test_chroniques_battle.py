"""Chroniques line battles (segsim.rules.chroniques.battle, segsim.battle.battle)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from segsim.actions import Action
from segsim.battle import battle, two_sides
from segsim.events import OutOfFight
from segsim.policy import policy_name
from segsim.record import fight_lines, fight_record
from segsim.replay import replay
from segsim.rules.chroniques.attack import CONTACT, ENGAGED_SCAN, Point, engaged_with
from segsim.rules.chroniques.battle import line_battle
from segsim.rules.chroniques.declare import TURN_CHANNEL
from segsim.rules.chroniques.events import AttackRolled, InitiativeLowered
from segsim.rules.chroniques.ruleset import Chroniques
from segsim.rules.chroniques.turns import (
    TURN,
    RoundOrder,
    next_due,
    round_of,
    still_to_act,
    turn_counts,
    turn_in_progress,
)
from segsim.rules.lazy import Lazy
from segsim.state import FightState


def test_battle_by_name_is_chroniques_line_battle() -> None:
    by_name = battle("chroniques", 3, seed=4, max_segments=300)
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
    assert [policy_name(c.policy) for c in west[:2]] == ["aggressive", "cautious"]


def test_the_front_ranks_fight_in_their_first_turns_and_the_battle_replays() -> None:
    fight = line_battle(5, seed=2, max_segments=100)  # one round of 10 s
    fight.run()
    attacks = [e for e in fight.history if isinstance(e, AttackRolled)]
    assert attacks, "fighters in contact attack on their first turn"
    turns = [e for e in fight.history if isinstance(e, Action) and e.kind == "turn"]
    out = {e.actor for e in fight.history if isinstance(e, OutOfFight)}
    # every fighter had its turn in the first round, but whoever fell before it came
    assert {t.actor for t in turns} | out == set(fight.state.combatants)
    again = line_battle(5, seed=2, max_segments=100)
    again.run()
    assert list(fight_lines(again)) == list(fight_lines(fight))


def test_offsets_are_two_whole_numbers() -> None:
    with pytest.raises(ValueError, match="offsets are two whole numbers"):
        line_battle(2, offsets=(0, -1))


# ---------------------------------------------------------------- awareness, flat cost


def test_a_line_battle_gives_its_fighters_an_awareness_and_replays() -> None:
    fight = line_battle(4, seed=7, max_segments=300)
    assert fight.ruleset.awareness == 2.5
    fight.run()
    record = fight_record(fight)
    assert record.header["options"]["awareness"] == 2.5
    assert replay(record).identical


def test_awareness_is_a_distance_and_off_by_default() -> None:
    with pytest.raises(TypeError, match="awareness is a distance in metres"):
        Chroniques(awareness=-1.0)
    with pytest.raises(TypeError, match="awareness is a distance in metres"):
        Chroniques(awareness=True)
    assert Chroniques().awareness is None and "awareness" not in Chroniques().options
    assert line_battle(2, awareness=None).ruleset.awareness is None


def test_a_fighter_sees_those_within_its_awareness_and_the_rear_goes_for_the_nearest() -> None:
    """Sixty a side in ranks of ten: a fighter of the sixth rank sees nobody within 2.5 m
    but its own side; on its turn it goes for the nearest opponent all the same (the
    enemy's front rank stands 9.5 m away: one move of 20 m brings it into contact, and it
    attacks), found through the fight's grid, so its decision costs what a front-rank
    fighter's does."""
    fight = line_battle(60, seed=1, width=10, max_segments=1)
    rules: Chroniques = fight.ruleset
    state = fight.state
    rear = state.combatants["w55"]
    # its turn, as the rules would start it
    rear.actions = [
        Action(TURN, 10, TURN_CHANNEL, public=True, params={"round": 1}, id=1, actor="w55")
    ]
    obs = rules.observe(state, "w55", 0, True)
    assert obs.others and all(
        o.side == "west" and math.dist(o.position, rear.position) <= 2.5 for o in obs.others
    )
    assert obs.me.nearest_opponent.id == "e5"  # straight ahead, 8 m + 1.5 m away
    turn = rear.policy.decide(obs)
    assert [(d.kind, d.target) for d in turn] == [("move", "e5"), ("attack", "e5")]
    front = rules.observe(state, "w5", 0, True)
    assert {o.side for o in front.others} == {"west", "east"} and len(front.others) < 9


def test_without_awareness_a_fighter_sees_everyone_as_at_a_table() -> None:
    fight = line_battle(60, seed=1, width=10, awareness=None, max_segments=1)
    obs = fight.ruleset.observe(fight.state, "w55", 0, True)
    assert len(obs.others) == 119


class _Checked(Chroniques):
    """Chroniques asserting, whenever the engine asks who is due, that the round's kept
    order gives what the rules' definitions give worked out from every fighter."""

    checks = 0

    def due(self, state: FightState, time: int) -> Sequence[str]:
        rnd = round_of(time)
        kept = self.round_order(state, rnd)
        assert kept.next_due() is next_due(state, time)
        assert kept.still_to_act(turn_counts(state)) == len(still_to_act(state, rnd))
        assert self._in_turn(state) == turn_in_progress(state)
        _Checked.checks += 1
        return super().due(state, time)


def test_the_rounds_kept_order_agrees_with_the_rules_at_every_turn() -> None:
    """Random legal declarations (delays that lower initiative included) in a battle
    where fighters fall: the kept order, the count of those still to act and the turn in
    progress are those worked out from every fighter, each time the engine asks."""
    fight = two_sides(
        _Checked(),
        6,
        seed=5,
        width=3,
        gap=1.5,
        fighters=("bandit", "aldric"),
        policies=("random",),
        max_segments=1500,
    )
    fight.run()
    lowered = [e for e in fight.history if isinstance(e, InitiativeLowered)]
    out = [e for e in fight.history if isinstance(e, OutOfFight)]
    assert lowered and out and _Checked.checks > 100


class _Orders(Chroniques):
    """Chroniques noting each round order it keeps (a new one is a new sort)."""

    def __init__(self) -> None:
        super().__init__(awareness=2.5)
        self.orders: list[RoundOrder] = []

    def due(self, state: FightState, time: int) -> Sequence[str]:
        found = super().due(state, time)
        kept = self._order
        if kept is not None and (not self.orders or self.orders[-1] is not kept):
            self.orders.append(kept)
        return found


def test_the_rounds_bookkeeping_sorts_once_a_round_however_many_fight() -> None:
    """Who is due next and how many are still to act are read from an order sorted once
    a round (and again only when someone lowers its initiative or joins the fight), not
    when fighters fall: a turn's bookkeeping does not look at every fighter."""
    rules = _Orders()
    fight = two_sides(
        rules,
        100,
        seed=3,
        width=50,
        gap=1.5,
        fighters=("bandit", "aldric"),
        policies=("aggressive", "cautious"),
        max_segments=300,
    )
    fight.run()
    assert any(isinstance(e, OutOfFight) for e in fight.history)
    assert not any(isinstance(e, InitiativeLowered) for e in fight.history)
    # round 4 begins with the 300th segment
    assert [order.rnd for order in rules.orders] == [1, 2, 3, 4]


def test_who_engages_a_target_is_found_through_the_grid_as_by_looking_at_everyone() -> None:
    """A ranged attack's malus looks for the fighters engaging its target (Chroniques,
    "Résolution des attaques"): in a battle too large to look at everyone, the grid's
    answer is the one a look at every fighter gives, for every target and shooter, with
    the positions a settlement has changed taken into account."""
    fight = line_battle(30, seed=2, width=6, gap=1.5, fighters=("bandit_archer", "aldric"))
    state = fight.state
    assert len(state.grid) > ENGAGED_SCAN
    ids = list(state.combatants)
    moved = {"w7": (1.0, 0.0)}  # a fighter the settlement has moved into the melee
    positions: Lazy[Point] = Lazy(lambda cid: state.combatants[cid].position)
    positions.update(moved)
    engaged = 0
    for target in ids:
        t = state.combatants[target]
        where = positions[target]
        for shooter in ids[::7]:
            everyone = [
                c.id
                for c in state.in_fight()
                if c.id not in (target, shooter)
                and c.side != t.side
                and math.dist(positions.get(c.id, c.position), where) <= CONTACT + 0.01
            ]
            assert engaged_with(state, target, shooter, positions) == everyone
            engaged += bool(everyone)
    assert engaged > 100
