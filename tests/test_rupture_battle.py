"""Rupture line battles (segsim.rules.rupture.battle): two sides in ranks, the example
fighters and built-in policies, an ``awareness`` radius that keeps an action's cost
flat as the battle grows."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from segsim.actions import Declaration
from segsim.battle import battle
from segsim.record import fight_record
from segsim.replay import replay
from segsim.rules.rupture import Rupture
from segsim.rules.rupture.battle import line_battle


def test_a_line_battle_draws_up_two_sides_in_ranks_and_fights() -> None:
    fight = battle("rupture", 6, seed=3, width=3, max_segments=90)
    spots = {c.id: (c.side, c.position) for c in fight.state.combatants.values()}
    assert Counter(side for side, _ in spots.values()) == {"west": 6, "east": 6}
    # Ranks of 3, 1.6 m apart; the east front 1.5 m from the west front, facing it.
    assert spots["w0"] == ("west", (0.0, -1.6)) and spots["w3"] == ("west", (-1.6, -1.6))
    assert spots["e0"] == ("east", (1.5, -1.6)) and spots["e3"] == ("east", (3.1, -1.6))
    assert fight.ruleset.awareness == 2.5
    fight.run()
    kinds = Counter(e.kind for e in fight.history if e.TYPE == "action.declared")
    assert kinds["attack"] > 0 and kinds["defend"] > 0 and kinds["move"] > 0
    assert any(e.TYPE == "rupture.blow" for e in fight.history)


def test_a_battle_record_replays_identically() -> None:
    fight = line_battle(4, seed=7, max_segments=60)
    fight.run()
    record = fight_record(fight)
    assert record.header["options"]["awareness"] == 2.5
    assert replay(record).identical


def test_a_fighter_sees_only_those_within_its_awareness_and_the_rear_closes_in() -> None:
    """In a battle of 60 a side (ranks of 10), a fighter of the sixth rank sees nobody
    within 2.5 m but its own neighbours: no opponent in view, it moves toward the
    nearest one, found through the grid (so its decision costs what a front-rank
    fighter's does, however many fight)."""
    fight = line_battle(60, seed=1, width=10, max_segments=1)
    rules: Rupture = fight.ruleset
    state = fight.state
    rear = state.combatants["w55"]
    obs = rules.observe(state, "w55", 0, True)
    seen = {o.id for o in obs.others}
    assert seen and all(
        o.side == "west" and math.dist(o.position, rear.position) <= 2.5 for o in obs.others
    )
    choice = rear.policy.decide(obs)  # one declaration (a policy may return it alone)
    assert isinstance(choice, Declaration)
    assert (choice.kind, choice.target) == ("move", "e5")
    # The front rank sees the enemy front within reach, and no more than its surroundings.
    front = rules.observe(state, "w5", 0, True)
    assert {o.side for o in front.others} == {"west", "east"}
    assert len(front.others) < 12


def test_awareness_is_a_distance() -> None:
    with pytest.raises(TypeError, match="awareness is a distance in metres"):
        Rupture(awareness=-1.0)
    assert "awareness" not in Rupture().options
