"""The Loss observation made without calls of its classes (``Loss.observe``) matches the
view and observation its classes make: the same fields, the same copied answers; a
fighter left unobserved (``Loss.uncalled``) is one whose policy decides nothing;
the rules' forced turn or wait (``Loss.forced``) is the one their planner makes; and an
attack found beyond a fighter's points (``Loss.attack_beyond_points``) is one the rules
refuse whatever its options."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import attrs
import pytest

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.observation import ViewObservation
from segsim.rules.loss.declare import ACT_CHANNEL, AWAIT, TURN, clock_of
from segsim.rules.loss.policies import Aggressive, Defensive
from segsim.rules.loss.ruleset import Loss
from segsim.rules.loss.views import SelfView
from segsim.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "scenarios"
SLOTS = ("_state", "_version", "_segment", "_segment_now", "id", "side", "name", "is_pc")
MORE = ("_o", "minion", "sheet", "_turn", "_rules")


def _by_classes(rules: Loss, state: Any, cid: str, segment: int) -> ViewObservation:
    """What observe() made before: the classes called, the view's own answers."""
    c = state.combatants[cid]
    st = c.status
    turn = any(a.kind == TURN and a.start == segment for a in c.actions)
    acting = any(a.channel == ACT_CHANNEL for a in c.actions)
    me = SelfView(state, segment, c, turn and not acting, rules)
    incoming = me.answerable()
    counters = me.counterable()
    clock = clock_of(state)
    intend = bool(clock.order) and cid in clock.intending(segment)
    intend = intend and st.intended != clock.round
    called = (turn and not acting) or bool(incoming) or bool(counters) or intend
    return ViewObservation(segment, cid, called, me, state)


class Compared(Loss):
    """Loss whose every observation is compared with the one its classes make (a
    subclass, so that the compiled build's class is left as it is)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.called = self.answers = self.turns = self.quiet = 0

    def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Any:
        obs = super().observe(state, cid, segment, must_act)
        ref = _by_classes(self, state, cid, segment)
        assert type(obs) is type(ref) and type(obs.me) is type(ref.me)
        for field in ("segment", "actor", "must_act", "_others", "_by_id", "_legal"):
            assert getattr(obs, field) == getattr(ref, field), field
        assert obs._state is ref._state and obs._version == ref._version
        for field in SLOTS + MORE:
            assert getattr(obs.me, field) == getattr(ref.me, field), field
        for field in obs.me.__dict__:  # what it copied, as the live fields find it
            getattr(ref.me, field)
        assert obs.me.__dict__ == ref.me.__dict__
        self.called += obs.must_act
        self.answers += bool(obs.me.incoming or obs.me.counters)
        return obs

    def uncalled(self, state: Any, cid: str, segment: int) -> bool:
        """uncalled() says True (the built-in policies then tell the engine they are
        unconcerned) only of a fighter that the rules do not call and whose policy
        decides nothing from its full observation."""
        quiet = super().uncalled(state, cid, segment)
        if quiet:
            full = Loss.observe(self, state, cid, segment, False)
            assert not full.must_act
            assert state.combatants[cid].policy.decide(full) is None
            self.quiet += 1
        return quiet

    def forced(self, state: Any, cid: str, segment: int) -> Any:
        """forced() finds what _turn_now(), _await_end() and _plan_phase() find."""
        found = super().forced(state, cid, segment)
        c = state.combatants[cid]
        kinds = [a.kind for a in c.actions]
        waiting = next((a for a in c.actions if a.kind == AWAIT), None)
        if TURN in kinds:
            expected = []
        elif self._turn_now(state, c, segment):
            expected = [TURN]
        elif waiting is not None and waiting.end == self._await_end(state, c, segment):
            expected = []
        else:
            expected = [AWAIT]
        assert [d.kind for d in found] == expected
        if found:
            memo = self._memo
            assert memo is not None and memo[0] is found[0] and memo[4] == cid
            kept, ref = memo[5], self._plan_phase(state, c, found[0].kind, segment)
            for field in ("kind", "duration", "channel", "target", "continuous", "public"):
                assert getattr(kept, field) == getattr(ref, field), field
            assert (kept.visible, dict(kept.params)) == (ref.visible, dict(ref.params))
            self.turns += found[0].kind == TURN
        return found


@pytest.mark.parametrize("name", ["loss_duel", "loss_street_brawl", "loss_chase"])
def test_observe_matches_the_views_made_by_their_classes(name: str) -> None:
    scenario = load_scenario(EXAMPLES / f"{name}.toml")
    rules = Compared(**scenario.ruleset.options)
    checked = attrs.evolve(scenario, ruleset=rules)
    for seed in range(2):
        checked.fight(seed).run()
    assert rules.called > 0 and rules.turns > 0 and rules.quiet > 0
    if name != "loss_chase":
        assert rules.answers > 0  # parries, dodges or counter-attacks were offered


def test_only_the_built_in_policies_say_they_are_unconcerned() -> None:
    # A subclass may decide otherwise when the rules do not call it: it is observed.
    class Curious(Aggressive):
        pass

    scenario = load_scenario(EXAMPLES / "loss_duel.toml")
    fight = scenario.fight(0)
    state, rules = fight.state, fight.ruleset
    cid = next(iter(state.combatants))
    assert rules.uncalled(state, cid, 1)  # nobody is called before the first turn's phase
    assert Aggressive().unconcerned(rules, state, cid, 1, False)
    assert Defensive().unconcerned(rules, state, cid, 1, False)
    assert not Curious().unconcerned(rules, state, cid, 1, False)


class Priced(Loss):
    """Checks attack_beyond_points(): each time it says True, the rules refuse every
    attack the built-in policies may ask about, whatever its extra damage dice,
    Exploits and pools (none changes an attack's cost)."""

    beyond = 0
    within = 0

    def attack_beyond_points(self, state: Any, cid: str) -> bool:
        beyond = super().attack_beyond_points(state, cid)
        if not beyond:
            self.within += 1
            return beyond
        self.beyond += 1
        segment = state.segment
        options: list[dict[str, Any]] = [{}, {"exploits": 1}]
        for e in (1, 2, 3):
            dice = {"effects": ["extra_damage"] * e}
            options += [dice, {**dice, "fursa": 1}, {**dice, "inspiration": 1}]
        for o in state.opponents(cid):
            for params in options:
                with pytest.raises(IllegalDeclaration):
                    self.plan_alone(state, cid, Declaration("attack", o.id, params), segment)
        return beyond


@pytest.mark.parametrize("name", ["loss_duel", "loss_street_brawl"])
def test_an_attack_beyond_points_is_refused_whatever_its_options(name: str) -> None:
    scenario = load_scenario(EXAMPLES / f"{name}.toml")
    rules = Priced(**scenario.ruleset.options)
    checked = attrs.evolve(scenario, ruleset=rules)
    for seed in range(3):
        checked.fight(seed).run()
    assert rules.beyond > 0 and rules.within > 0


def test_foes_within_matches_the_views_made_by_their_class() -> None:
    """SelfView.foes_within() makes its views without calls of OtherView: the same
    views, field for field, as the class makes, at every turn of a duel."""
    from segsim.rules.loss.views import OtherView

    class Seen(Loss):
        turns = 0

        def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Any:
            obs = super().observe(state, cid, segment, must_act)
            for radius in (2.0, 100.0):
                made = obs.me.foes_within(radius)
                want = [
                    OtherView(state, segment, o)
                    for o in state.opponents(cid)
                    if o.in_fight and math.dist(o.position, obs.me._o.position) <= radius
                ]
                assert made == want
                assert [(v.id, v.side, v.name, v.is_pc, v.minion) for v in made] == [
                    (v.id, v.side, v.name, v.is_pc, v.minion) for v in want
                ]
            self.turns += 1
            return obs

    scenario = load_scenario(EXAMPLES / "loss_duel.toml")
    rules = Seen(**scenario.ruleset.options)
    attrs.evolve(scenario, ruleset=rules).fight(0).run()
    assert rules.turns > 0
