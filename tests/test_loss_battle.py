"""Loss line battles (issue 41): segsim.battle.battle("loss", n), the ``awareness``
option, and the grid queries that keep an action's cost flat as a battle grows."""

from __future__ import annotations

import math

import pytest

from segsim.actions import Action, PolicyOutput
from segsim.battle import battle
from segsim.fight import Fight
from segsim.policy import Observation, Policy
from segsim.rules.loss import Loss
from segsim.rules.loss.battle import line_battle
from segsim.rules.loss.declare import foes_near, nearest_foe
from segsim.state import SMALL_FIGHT, Combatant, FightState


def _history(fight: Fight) -> list[str]:
    fight.run()
    return [f"{type(e).__name__} {e.t} {e.actor}" for e in fight.history]


def test_segsim_battle_of_loss_is_its_line_battle() -> None:
    assert _history(battle("loss", 3, seed=2, max_segments=80)) == _history(
        line_battle(3, seed=2, max_segments=80)
    )


def test_the_sides_are_drawn_up_in_ranks_in_contact_across_the_line() -> None:
    """Ranks of ``width`` 1.6 m apart, the two front ranks 1.8 m apart (au contact: 2 m
    at most), sheets and policies in turn, the awareness radius given to the rules."""
    fight = line_battle(60, width=50, max_segments=10)
    state = fight.state
    assert isinstance(fight.ruleset, Loss) and fight.ruleset.awareness == 6.0
    assert fight.ruleset.options["awareness"] == 6.0
    west = [c for c in state.combatants.values() if c.side == "west"]
    east = [c for c in state.combatants.values() if c.side == "east"]
    assert len(west) == len(east) == 60
    assert state.combatants["w0"].position[0] == 0.0
    assert state.combatants["e0"].position[0] == 1.8
    assert state.combatants["w50"].position[0] == -1.6  # the second rank, behind
    assert state.combatants["e50"].position[0] == pytest.approx(3.4)
    assert [c.sheet.name for c in west[:2]] == ["vigile", "malfrat"]
    assert [type(c.policy).__name__ for c in east[:2]] == ["Aggressive", "Defensive"]


def test_a_small_battle_is_fought_to_a_victory() -> None:
    fight = line_battle(3, seed=4)
    outcome = fight.run()
    assert outcome.result == "victory" and outcome.winner in ("west", "east")
    kinds = {e.kind for e in fight.history if isinstance(e, Action)}
    assert {"turn", "await", "attack"} <= kinds


def test_bad_battle_arguments_are_named() -> None:
    with pytest.raises(ValueError, match=r"no Loss fighter 'nobody'.*vigile"):
        line_battle(2, fighters=("nobody",))
    with pytest.raises(ValueError, match="per_side"):
        line_battle(0)
    with pytest.raises(ValueError, match="offsets"):
        line_battle(2, offsets=(0, -1))


def test_awareness_is_an_option_recorded_only_when_set() -> None:
    assert "awareness" not in Loss().options
    assert Loss().awareness is None
    assert Loss(awareness=8).options["awareness"] == 8.0
    for bad in (0.5, True, float("nan"), "far"):
        with pytest.raises(TypeError, match="awareness must be a radius"):
            Loss(awareness=bad)


def _scan_near(state: FightState, c: Combatant, radius: float) -> list[str]:
    return [
        o.id
        for o in state.combatants.values()
        if o.in_fight and o.side != c.side and math.dist(c.position, o.position) <= radius
    ]


def _scan_nearest(state: FightState, c: Combatant) -> str | None:
    foes = [o for o in state.combatants.values() if o.in_fight and o.side != c.side]
    best = min(foes, key=lambda o: (math.dist(c.position, o.position), o.id), default=None)
    return None if best is None else best.id


@pytest.mark.parametrize("per_side", [3, 40])
def test_the_grid_finds_the_opponents_a_scan_of_them_all_finds(per_side: int) -> None:
    """In a small fight (a scan) and in a large one (the side grids), after fighters
    have moved and fallen: the opponents within reach and the nearest one (ties: the
    lowest id) are those a scan of every opponent finds, in the fight's order."""
    fight = line_battle(per_side, seed=3, width=10, max_segments=120)
    fight.run()
    state = fight.state
    assert (len(state.grid) > SMALL_FIGHT) == (per_side == 40)
    moved = [e for e in fight.history if type(e).__name__ == "Moved"]
    assert per_side == 3 or moved  # the rear ranks have closed in
    for c in state.in_fight():
        for radius in (2.0 + 1e-9, 3.3, 7.5):
            assert [o.id for o in foes_near(state, c, radius)] == _scan_near(state, c, radius)
        found = nearest_foe(state, c)
        assert (None if found is None else found.id) == _scan_nearest(state, c)


class Counting:
    """Delegates to a fighter's policy, counting its decisions."""

    reactive = True

    def __init__(self, inner: Policy, calls: list[int]) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "counting")
        self.calls = calls

    def decide(self, observation: Observation) -> PolicyOutput:
        self.calls[0] += 1
        return self.inner.decide(observation)


def test_awareness_limits_who_is_called_by_what_it_sees() -> None:
    """With the option, a fighter far from every action of a segment is not called to
    decide by it; without it everyone is (as at a table)."""
    calls: dict[float | None, int] = {}
    for awareness in (6.0, None):
        fight = line_battle(40, seed=1, width=40, max_segments=40, awareness=awareness)
        counted = [0]
        for cid, c in fight.state.combatants.items():
            # (no shortcut: the built-in policies' unconcerned() would leave most
            # fighters called by sight unasked, with or without the option)
            fight.replace_policy(cid, Counting(c.policy, counted))
        fight.run()
        calls[awareness] = counted[0]
    assert calls[6.0] < calls[None] * 0.9  # the same battle: 1,583 against 1,980
