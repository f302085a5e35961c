"""RinKaNou's caches live outside the fight's state (DESIGN, principle 11; issue 39).

What the views ask again and again (each fighter's reach, what every observer sees of
an action it has not read, the missiles in flight) used to be kept in ``state.extra``,
so that reading an observation changed the fight's state and a finished fight's state
held them. Only the fight's own facts may be there: the weapons lying on the ground and
whether a keep at distance has started.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.record import fight_lines
from segsim.replay import branch, replay
from segsim.rules.rinkanou.manoeuvres import KEEPING
from segsim.scenario import Scenario
from segsim.testing import drive, externalize, snapshot

ROOT = Path(__file__).resolve().parent.parent
RINKANOU = sorted(
    p.name
    for p in (ROOT / "examples" / "scenarios").glob("*.toml")
    if 'ruleset = "rinkanou"' in p.read_text(encoding="utf-8")
)
FACTS = {"ground", KEEPING}
"""What ``state.extra`` may hold: facts of the fight, set by its events and starts."""


@cache
def scenario(name: str) -> Scenario:
    return load_scenario(ROOT / "examples" / "scenarios" / name)


def test_the_rinkanou_examples_are_all_here() -> None:
    assert {"duel.toml", "archery_duel.toml", "spear_keeps_distance.toml"} <= set(RINKANOU)


@pytest.mark.parametrize("name", RINKANOU)
def test_a_finished_fight_keeps_no_cache_in_its_state(name: str) -> None:
    for seed in range(4):
        fight = scenario(name).fight(seed)
        fight.run()
        assert set(fight.state.extra) <= FACTS, f"seed {seed}: {sorted(fight.state.extra)}"


@pytest.mark.parametrize("name", ["duel.toml", "archery_duel.toml", "three_against_three.toml"])
def test_reading_an_observation_leaves_the_state_as_it_was(name: str) -> None:
    """Every field, view and missile an observation shows, read at each phase: what
    the ruleset keeps in the fight's state (``extra``, the fighters and their actions)
    is the same before and after (the views used to fill state.extra)."""
    fight = scenario(name).fight(3)
    externalize(fight)
    phases = 0
    while phases < 60:
        pending = fight.advance()
        if not pending:
            break
        before = snapshot((fight.state.extra, fight.state.combatants))
        for observation in pending.values():
            me = observation.me
            me.threats(), me.incoming(), me.nearest(), me.nearest_at()
            for other in observation.others:
                other.actions, other.reach, other.incoming(me.id)
        after = snapshot((fight.state.extra, fight.state.combatants))
        assert after == before, f"phase {phases}"
        drive(fight, 1)
        phases += 1
    assert phases > 5


def test_records_do_not_depend_on_what_other_fights_left_in_the_ruleset() -> None:
    """The views' shared values are kept by the ruleset, which a scenario's fights share:
    a fight run after others writes the record it writes alone, with a fresh ruleset."""
    name = "three_against_three.toml"
    shared = scenario(name)
    for seed in range(3):
        shared.fight(seed).run()  # fills the ruleset's caches
    after_others = shared.fight(7)
    after_others.run()
    alone = load_scenario(ROOT / "examples" / "scenarios" / name).fight(7)
    alone.run()
    assert list(fight_lines(after_others)) == list(fight_lines(alone))


def test_a_replayed_and_a_branched_fight_rebuild_what_the_views_need(tmp_path: Path) -> None:
    """A record replays identically and a branch that changes nothing goes on as the
    fight did: the views find again, from the rules, what they need."""
    from segsim.record import write_record

    fight = scenario("archery_duel.toml").fight(5)
    fight.run()
    path = tmp_path / "archery.jsonl"
    write_record(fight, str(path))
    assert replay(str(path)).identical
    mid = fight.history[len(fight.history) // 2].t
    branched = branch(str(path), mid)
    assert branched.first_difference() is None
    assert set(branched.fight.state.extra) <= FACTS
