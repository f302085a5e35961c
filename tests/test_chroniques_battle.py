"""Chroniques line battles (segsim.rules.chroniques.battle, segsim.battle.battle)."""

from __future__ import annotations

import pytest

from segsim.actions import Action
from segsim.battle import battle
from segsim.events import OutOfFight
from segsim.policy import policy_name
from segsim.record import fight_lines
from segsim.rules.chroniques.battle import line_battle
from segsim.rules.chroniques.events import AttackRolled


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
