"""Chroniques' observation made without calls of the views' classes, and the built-in
policies' ``unconcerned()`` shortcut (issue 41, fifth pass): both must show a policy
exactly what the views made by their classes show, and the shortcut must skip only calls
where the policy would decide nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.policies import Aggressive, off_turn
from segsim.rules.chroniques.turns import TURN, round_of
from segsim.rules.chroniques.views import OtherView, SelfView
from segsim.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "scenarios"


class Compared(Chroniques):
    """Checks each observation against the views made by their classes."""

    observed = 0

    def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Any:
        obs = super().observe(state, cid, segment, must_act)
        c = state.combatants[cid]
        rnd = round_of(segment)
        marker = next((a for a in c.actions if a.kind == TURN and a.start == segment), None)
        ref = SelfView(state, segment, self, c, rnd, marker)
        assert type(obs.me) is SelfView
        assert obs.me == ref  # every live field, read on both
        assert (obs.me.id, obs.me.side, obs.me.name, obs.me.is_pc) == (
            ref.id,
            ref.side,
            ref.name,
            ref.is_pc,
        )
        assert (obs.me.sheet, obs.me.round, obs.me._version) == (ref.sheet, rnd, state.version)
        others = [
            OtherView(state, segment, self, o, rnd)
            for o in state.combatants.values()
            if o.in_fight and o.id != cid
        ]
        assert list(obs.others) == others
        assert [(o.id, o.side, o.name, o.is_pc) for o in obs.others] == [
            (o.id, o.side, o.name, o.is_pc) for o in others
        ]
        assert obs.must_act == (marker is not None)
        self.observed += 1
        return obs


def test_observe_matches_the_views_made_by_their_classes() -> None:
    scenario = load_scenario(EXAMPLES / "chroniques_ambush.toml")
    rules = Compared(**scenario.ruleset.options)
    checked = attrs.evolve(scenario, ruleset=rules)
    for seed in range(2):
        checked.fight(seed).run()
    assert rules.observed > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_off_turn_only_when_the_policy_would_decide_nothing(seed: int) -> None:
    """Each time a built-in policy says it is unconcerned, its full observation holds no
    turn of its fighter and its decision from it is None; it says so in most calls."""
    scenario = load_scenario(EXAMPLES / "chroniques_ambush.toml")
    fight = scenario.fight(seed)
    counts = {"quiet": 0, "asked": 0}

    def wrap(hook: Any) -> Any:
        def checked(rules: Any, state: Any, cid: str, segment: int, called: bool) -> bool:
            quiet: bool = hook(rules, state, cid, segment, called)
            counts["asked"] += 1
            if quiet:
                obs = rules.observe(state, cid, segment, False)
                assert not obs.me.my_turn and not obs.must_act
                assert state.combatants[cid].policy.decide(obs) is None
                counts["quiet"] += 1
            return quiet

        return checked

    hooks = fight._unconcerned
    assert set(hooks) == set(fight.state.combatants)  # every policy is a built-in one
    for cid in list(hooks):
        hooks[cid] = wrap(hooks[cid])
    fight.run()
    assert counts["quiet"] > counts["asked"] / 2


def test_only_the_built_in_policies_say_they_are_off_turn() -> None:
    # A subclass may decide otherwise between its turns: it is observed.
    class Curious(Aggressive):
        pass

    fight = load_scenario(EXAMPLES / "chroniques_ambush.toml").fight(0)
    state = fight.state
    cid = next(iter(state.combatants))
    assert off_turn(Aggressive(), state, cid, 1)  # no turn starts at segment 1
    assert not off_turn(Curious(), state, cid, 1)
