"""The Rupture views and observation, made without calling their classes, are what the
classes would make; what they copy when made stays that of their phase; and a slot's
targeted action is being settled exactly when its roll fell in the same slot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rupture_helpers import arena, sheet
from view_helpers import slots_of

from segsim.observation import StaleObservation, ViewObservation
from segsim.rules.rupture.declare import settling
from segsim.rules.rupture.passe import next_boundary
from segsim.rules.rupture.views import OtherView, SelfView, other_view
from segsim.scenario import load_scenario
from segsim.testing import Scripted

ROOT = Path(__file__).resolve().parent.parent


def _at_a_blow(check: Callable[[Any, Any], None]) -> None:
    """Run the brawl of seed 0, calling ``check(fight, obs)`` in the first declaration
    phase with a blow in flight, at the decision of the blow's target."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "rupture_brawl.toml").fight(0)
    done: list[bool] = []

    class Spy:
        name = "spy"
        reactive = False

        def __init__(self, policy: Any) -> None:
            self.policy = policy

        def decide(self, obs: Any) -> Any:
            state = fight.state
            if not done and state.autonomous and obs.me.incoming:
                check(fight, obs)
                done.append(True)
            return self.policy.decide(obs)

    for c in fight.state.combatants.values():
        c.policy = Spy(c.policy)
    fight.run()
    assert done, "a blow was in flight at some decision"


def test_an_observation_is_made_as_its_classes_would_make_it() -> None:
    """Rupture.observe makes the fighter's view and its observation without calling
    their classes, and the view the others' views: every slot holds what SelfView's,
    ViewObservation's and OtherView's __init__ would put there, with a blow in flight
    and without."""

    def check(fight: Any, seen: Any) -> None:
        rules, state = fight.ruleset, fight.state
        for cid in state.combatants:
            for must in (True, False):
                obs = rules.observe(state, cid, state.segment, must)
                me = SelfView(state, state.segment, state.combatants[cid], rules)
                made = ViewObservation(state.segment, cid, must, me, state)
                assert type(obs) is ViewObservation and type(obs.me) is SelfView
                assert slots_of(obs.me) == slots_of(me) and vars(obs.me) == vars(me) == {}
                assert {k: v for k, v in slots_of(obs).items() if k != "me"} == {
                    k: v for k, v in slots_of(made).items() if k != "me"
                }
                assert bool(obs.me.incoming) == (cid == seen.actor)
                for view in obs.others:
                    o = state.combatants[view.id]
                    built = OtherView(state, state.segment, o)
                    assert type(view) is OtherView and slots_of(view) == slots_of(built)
                    assert slots_of(other_view(state, state.segment, o)) == slots_of(built)
                    assert vars(view) == vars(built) == {}
                assert obs.other(obs.others[0].id) == obs.others[0]

    _at_a_blow(check)


def test_what_a_view_copies_stays_that_of_its_phase() -> None:
    """Position, effort, stress, bonus and malus, and the attacks coming, are copied when
    the view is made: after the phase they still answer what they showed then, while a
    field read on demand fails loudly."""
    kept: list[Any] = []

    def check(fight: Any, obs: Any) -> None:
        other = obs.other(obs.me.incoming[0].attacker)
        kept.append((fight, obs, other))
        kept.append((obs.me.position, obs.me.effort, obs.me.stress, obs.me.bonus))
        kept.append((obs.me.malus, obs.me.incoming))
        kept.append((other.position, other.effort, other.stress, other.stress_max))

    _at_a_blow(check)
    (fight, obs, other), me_shown, more, other_shown = kept
    me = obs.me
    c = fight.state.combatants[me.id]
    assert not obs.fresh and fight.ended
    assert (me.position, me.effort, me.stress, me.bonus) == me_shown
    assert (me.malus, me.incoming) == more and me.incoming
    assert (other.position, other.effort, other.stress, other.stress_max) == other_shown
    assert (me.effort, me.stress) != (c.status.effort, c.status.stress)
    with pytest.raises(StaleObservation):
        _ = me.actions_left
    with pytest.raises(StaleObservation):
        _ = other.wounds


_FIGHTERS: dict[int, Any] = {}


def _fighter(actions: int) -> Any:
    """A fighter whose sheet has ``actions`` actions per passe (made once for each)."""
    if actions not in _FIGHTERS:
        fight = arena({"a": ("x", sheet("bran", actions=actions), Scripted({}))})
        _FIGHTERS[actions] = fight.state.combatants["a"]
    return _FIGHTERS[actions]


@settings(max_examples=200, deadline=None)
@given(
    passe=st.integers(1, 60),
    actions=st.integers(1, 10),
    segment=st.integers(0, 300),
    back=st.integers(0, 80),
)
def test_a_targeted_action_is_being_settled_while_its_roll_s_slot_lasts(
    passe: int, actions: int, segment: int, back: int
) -> None:
    """``settling`` is true when the roll fell earlier in the slot in progress: the
    roll's slot and this segment's end at the same boundary."""
    c = _fighter(actions)
    done = c.status.targeted_at = max(-1, segment - back)
    expected = 0 <= done < segment and next_boundary(done, actions, passe) == next_boundary(
        segment, actions, passe
    )
    assert settling(c, segment, passe) == expected
