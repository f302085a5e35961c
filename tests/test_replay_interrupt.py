"""A host may interrupt an embedded fight at any time, a segment boundary included, and
at any point of that boundary's work: before the settlement that falls there (a host
timeout fires first), after it, or after the declarations. The record replays
identically in every case, in both rulesets (issue: interruptions on boundaries where an
action completes pre-empted the settlement, and the replay settled first)."""

from __future__ import annotations

from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st
from simpy.events import EventPriority

from segsim import load_scenario
from segsim.record import fight_record
from segsim.replay import replay

SCENARIOS = {
    "rinkanou": load_scenario("examples/scenarios/duel.toml"),
    "chroniques": load_scenario("examples/scenarios/chroniques_ambush.toml"),
}
LATE = EventPriority(9)  # after every event the fight schedules at a boundary


def interrupted(ruleset: str, segment: int, stage: str, scale: float) -> Any:
    """A fight of ``ruleset`` that its host interrupts in ``segment`` at ``stage``."""
    env = simpy.Environment()
    fight = SCENARIOS[ruleset].fight(seed=7, env=env, scale=scale)
    process = fight.process
    boundary = segment * scale

    def host() -> Any:
        if stage == "first":  # a plain timeout: before the settlement of the boundary
            yield env.timeout(boundary)
        elif stage == "last":  # after the settlement and the declarations
            late = simpy.Event(env)
            late._ok, late._value = True, None
            env.schedule(late, LATE, boundary)
            yield late
        else:  # mid-segment
            yield env.timeout(boundary + scale / 2)
        if not fight.ended:
            process.interrupt("the watch arrives")

    env.process(host())
    env.run(until=process)
    return fight


@settings(max_examples=30, deadline=None)
@given(
    ruleset=st.sampled_from(sorted(SCENARIOS)),
    segment=st.integers(0, 120),
    stage=st.sampled_from(["first", "last", "middle"]),
    scale=st.sampled_from([1.0, 0.1]),
)
def test_interrupted_fights_replay_identically(
    ruleset: str, segment: int, stage: str, scale: float
) -> None:
    fight = interrupted(ruleset, segment, stage, scale)
    if fight.outcome.result == "interrupted":
        assert fight.history[-1].t == segment
    result = replay(fight_record(fight))
    assert result.identical, str(result.divergence)


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
@pytest.mark.parametrize("segment", [10, 20, 110])
def test_an_interruption_before_a_boundary_settlement_replays(ruleset: str, segment: int) -> None:
    """The boundaries of the issue, where an action completes: the host's timeout comes
    before the settlement, so the record has no roll of it, and neither has the replay."""
    fight = interrupted(ruleset, segment, "first", 0.1)
    if ruleset == "chroniques" or segment < 50:  # the duel is over by segment 110
        assert fight.outcome.result == "interrupted"
    result = replay(fight_record(fight))
    assert result.identical, str(result.divergence)
