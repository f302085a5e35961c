"""A policy may say it has nothing to react to (``unconcerned``, issue 41).

A reactive policy is called whenever someone it sees starts or ends an action. One that
answers ``unconcerned(ruleset, state, cid, segment, called)`` True for such a phase is neither
observed nor asked to decide in it (segsim.fight.unconcerned_hook): the promise is that
its decision would have declared nothing, so the records are the same bytes.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from segsim import load_scenario
from segsim.actions import Action
from segsim.fight import Fight, unconcerned_hook
from segsim.policy import Observation
from segsim.record import fight_lines
from segsim.rules.rinkanou.policies import Aggressive, Archer, Defender, Keeper
from segsim.scenario import Scenario
from segsim.testing import build_fight

ROOT = Path(__file__).resolve().parent.parent


@cache
def scenario(name: str) -> Scenario:
    return load_scenario(ROOT / "examples" / "scenarios" / f"{name}.toml")


class Watchful:
    """Attacks when it must act (as the aggressive policy does); called by what it
    sees, it declares nothing new."""

    name = "watchful"
    reactive = True

    def __init__(self) -> None:
        self.attacker = Aggressive()
        self.decisions: list[tuple[int, bool]] = []
        self.asked: list[int] = []

    def decide(self, obs: Observation) -> Any:
        self.decisions.append((obs.segment, obs.must_act))
        return self.attacker.decide(obs) if obs.must_act else None


class Unconcerned(Watchful):
    """The same, saying so without an observation."""

    def unconcerned(self, ruleset: Any, state: Any, cid: str, segment: int, called: bool) -> bool:
        self.asked.append(segment)
        return True


def _duel(policy: Watchful) -> Fight:
    return build_fight(
        {"a": ("blue", "robert", policy), "b": ("red", "margaret", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (6.0, 0.0)},
        seed=3,
    )


def test_an_unconcerned_policy_is_not_called_by_what_it_sees() -> None:
    plain, hooked = Watchful(), Unconcerned()
    one, other = _duel(plain), _duel(hooked)
    one.run()
    other.run()
    assert list(fight_lines(one)) == list(fight_lines(other))  # the same fight
    assert hooked.asked  # asked for the phases it was called to by sight alone...
    assert not set(hooked.asked) & {s for s, _ in hooked.decisions}  # ...not called then
    assert len(hooked.decisions) + len(hooked.asked) == len(plain.decisions)
    # Whenever it had to act, it decided as before.
    assert [d for d in hooked.decisions if d[1]] == [d for d in plain.decisions if d[1]]


def test_a_policy_that_must_act_is_never_asked() -> None:
    hooked = Unconcerned()
    fight = _duel(hooked)
    fight.run()
    must = {s for s, m in hooked.decisions if m}
    assert must and not must & set(hooked.asked)


def test_an_external_policy_is_never_asked() -> None:
    class ExternalUnconcerned(Unconcerned):
        external = True

    assert unconcerned_hook(ExternalUnconcerned()) is None
    assert unconcerned_hook(Unconcerned()) is not None
    assert unconcerned_hook(Watchful()) is None
    assert unconcerned_hook(_LongWay(Archer())) is None


def test_a_replaced_policy_takes_its_hook_with_it() -> None:
    hooked = Unconcerned()
    fight = _duel(Watchful())
    fight.replace_policy("a", hooked)  # before the start: as if it had been given
    fight.run()
    assert hooked.asked


class _LongWay:
    """A built-in policy asked as any policy without the shortcut is: observed and
    called whenever it is called (the same name and reactivity, so the same header)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.name = policy.name
        self.reactive = policy.reactive

    def decide(self, obs: Observation) -> Any:
        return self.policy.decide(obs)


class _Counting(Archer):
    """The archer, counting the phases its shortcut skipped (and those of them with a
    missile flying at it)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = self.under_fire = 0

    def unconcerned(self, rules: Any, state: Any, cid: str, segment: int, called: bool) -> bool:
        answer = super().unconcerned(rules, state, cid, segment, called)
        if answer:
            self.skipped += 1
            self.under_fire += any(a.target == cid for a in state.autonomous.values())
        return answer


@pytest.mark.parametrize("name", ["crossbow_ambush", "archery_duel"])
def test_the_archer_says_unconcerned_only_when_it_would_declare_nothing(name: str) -> None:
    """The archer's shortcut (its hands busy, no blow that may land from an opponent
    within its reach of it, and the missiles coming at it met, awaited or not
    dodgeable now) leaves every record
    as the full decisions do, though it skips many of them."""
    archers: list[_Counting] = []
    for seed in range(5):
        fight = scenario(name).fight(seed)
        long_way = scenario(name).fight(seed)
        for cid, c in fight.state.combatants.items():
            if isinstance(c.policy, Archer):
                archers.append(_Counting())
                fight.replace_policy(cid, archers[-1])
                long_way.replace_policy(cid, _LongWay(Archer()))
        fight.run()
        long_way.run()
        assert list(fight_lines(fight)) == list(fight_lines(long_way)), f"seed {seed}"
    assert sum(a.skipped for a in archers) > 50
    if name == "archery_duel":  # arrows fly at both archers nearly all the time
        assert sum(a.under_fire for a in archers) > 50


def _face_to_face(policy: Any) -> Fight:
    """``a`` (of ``policy``) and an aggressive ``b``, two Roberts a metre apart: each
    within the other's reach."""
    return build_fight(
        {"a": ("blue", "robert", policy), "b": ("red", "robert", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (1.0, 0.0)},
        seed=1,
    )


def test_the_archer_is_concerned_by_a_blow_that_may_land() -> None:
    archer = Archer()
    fight = build_fight(
        {"a": ("blue", "robert", archer), "b": ("red", "margaret", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (1.0, 0.0)},
        seed=1,
    )
    state = fight.state
    a = state.combatants["a"]
    a.status.must_lock = True  # its hands busy
    # b stands within reach but shows no weapon motion: no blow for its guard to meet
    assert archer.unconcerned(fight.ruleset, state, "a", 0, False)
    state.move("b", (30.0, 0.0))
    assert archer.unconcerned(fight.ruleset, state, "a", 0, False)
    archer.guard.defend_at = 5  # a defence planned: it decides
    assert not archer.unconcerned(fight.ruleset, state, "a", 0, False)
    archer.guard.defend_at = None
    a.status.must_lock = False  # its hands free: it may shoot
    assert not archer.unconcerned(fight.ruleset, state, "a", 0, False)


def test_the_archer_is_concerned_by_a_blow_in_progress_within_reach() -> None:
    # Whenever b arms or strikes within its reach of a, a's shortcut says no when the
    # blow may still land unmet (its guard plans a dodge), its hands busy or not; when
    # it says yes (the blow past, or met by a dodge in progress: the defender's test,
    # issue 41, fifth pass), a full observation and decision of a copy of a's policy
    # declares nothing and awaits nothing.
    archer = Archer()
    fight = _face_to_face(archer)
    state, rules = fight.state, fight.ruleset
    a, b = state.combatants["a"], state.combatants["b"]
    asked = []

    def watch(event: Any) -> None:
        if any(x.kind in ("arm", "strike") for x in b.actions) and archer.guard.defend_at is None:
            lock = a.status.must_lock
            a.status.must_lock = True
            segment = state.segment
            answer = archer.unconcerned(rules, state, "a", segment, False)
            asked.append(answer)
            if answer:
                full = copy.deepcopy(archer)
                assert full.decide(rules.observe(state, "a", segment, False)) is None
                assert full.guard.defend_at is None
            a.status.must_lock = lock

    fight.subscribe(watch)
    fight.run()
    assert asked and not all(asked)
    assert any(asked)


class _CountingKeeper(Keeper):
    def __init__(self) -> None:
        self.skipped = 0

    def unconcerned(self, rules: Any, state: Any, cid: str, segment: int, called: bool) -> bool:
        answer = super().unconcerned(rules, state, cid, segment, called)
        self.skipped += answer
        return answer


def test_the_keeper_says_unconcerned_only_when_it_would_declare_nothing() -> None:
    """[RinKaNou, Tenir à distance]: the keeper's shortcut (its hands busy, and no walk
    toward an opponent out of its reach) leaves every record as its full decisions."""
    keepers: list[_CountingKeeper] = []
    for seed in range(10):
        fight = scenario("spear_keeps_distance").fight(seed)
        long_way = scenario("spear_keeps_distance").fight(seed)
        for cid, c in fight.state.combatants.items():
            if isinstance(c.policy, Keeper):
                keepers.append(_CountingKeeper())
                fight.replace_policy(cid, keepers[-1])
                long_way.replace_policy(cid, _LongWay(Keeper()))
        fight.run()
        long_way.run()
        assert list(fight_lines(fight)) == list(fight_lines(long_way)), f"seed {seed}"
    assert sum(k.skipped for k in keepers) > 20


def test_the_keeper_is_concerned_when_it_would_walk() -> None:
    keeper = Keeper()
    fight = build_fight(
        {"a": ("blue", "robert", keeper), "b": ("red", "robert", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (10.0, 0.0)},
        seed=1,
    )
    state, rules = fight.state, fight.ruleset
    state.combatants["a"].status.must_lock = True  # its hands busy
    # The same weapon: nobody to keep at distance, and b out of its reach: it walks.
    assert not keeper.unconcerned(rules, state, "a", 0, False)
    state.move("b", (1.0, 0.0))  # within its reach: its hands busy, nothing to do
    assert keeper.unconcerned(rules, state, "a", 0, False)
    assert not keeper.unconcerned(rules, state, "a", 0, True)  # called otherwise: asked
    state.combatants["a"].status.must_lock = False  # its hands free: it may strike
    assert not keeper.unconcerned(rules, state, "a", 0, False)


class _CountingShortcut(_LongWay):
    """A built-in policy with its shortcut, counting the phases it skipped."""

    def __init__(self, policy: Any) -> None:
        super().__init__(policy)
        self.skipped = 0

    def unconcerned(self, rules: Any, state: Any, cid: str, segment: int, called: bool) -> bool:
        answer = self.policy.unconcerned(rules, state, cid, segment, called)
        self.skipped += answer
        return answer


def _fresh(policy: Any) -> Any:
    """A new policy as the scenario made ``policy`` (the aggressive or a defender)."""
    return Aggressive() if type(policy) is Aggressive else Defender(prefer=policy.prefer)


@pytest.mark.parametrize(
    "name",
    ["duel", "three_against_three", "one_against_three", "rapier_vs_sabre", "shield_vs_greatsword"],
)
def test_the_melee_policies_say_unconcerned_only_when_they_would_declare_nothing(
    name: str,
) -> None:
    """[RinKaNou, Actions de combat]: called as its strike ends, its forced lock begun, the
    aggressive policy declares nothing; woken by an opponent's action while its hands are
    busy and no blow can land, the defender neither. Their shortcuts leave every record
    as their full decisions."""
    counted: dict[type, list[_CountingShortcut]] = {Aggressive: [], Defender: []}
    for seed in range(10):
        fight = scenario(name).fight(seed)
        long_way = scenario(name).fight(seed)
        for cid, c in fight.state.combatants.items():
            given = c.policy
            if type(given) in counted:
                counted[type(given)].append(_CountingShortcut(_fresh(given)))
                fight.replace_policy(cid, counted[type(given)][-1])
                long_way.replace_policy(cid, _LongWay(_fresh(given)))
        fight.run()
        long_way.run()
        assert list(fight_lines(fight)) == list(fight_lines(long_way)), f"seed {seed}"
    for kind, policies in counted.items():
        if policies:
            assert sum(p.skipped for p in policies) > 10, kind


def test_the_defender_is_concerned_unless_its_hands_are_busy_and_no_blow_can_land() -> None:
    defender = Defender()
    fight = _face_to_face(defender)
    state, rules = fight.state, fight.ruleset
    a = state.combatants["a"]
    assert not defender.unconcerned(rules, state, "a", 0, False)  # hands free, unarmed: it arms
    a.status.armed = True  # armed, its hands free, no opening: nothing to do
    assert defender.unconcerned(rules, state, "a", 0, False)
    a.status.armed = False
    a.status.must_lock = True  # its hands busy, nothing coming: nothing to do
    assert defender.unconcerned(rules, state, "a", 0, False)
    defender.defend_at = 5  # a defence awaited: it decides
    assert not defender.unconcerned(rules, state, "a", 0, False)
    defender.defend_at = None

    class Mine(Defender):  # a subclass may decide otherwise: it is asked
        pass

    assert not Mine().unconcerned(rules, state, "a", 0, False)
    state.move("b", (30.0, 0.0))  # out of its reach: still nothing to do
    assert defender.unconcerned(rules, state, "a", 0, False)


def test_the_aggressive_policy_is_concerned_when_it_may_strike_or_walk() -> None:
    aggressive = Aggressive()
    fight = build_fight(
        {"a": ("blue", "robert", aggressive), "b": ("red", "robert", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (10.0, 0.0)},
        seed=1,
    )
    state, rules = fight.state, fight.ruleset
    a = state.combatants["a"]
    assert not aggressive.unconcerned(rules, state, "a", 0, True)  # hands free: it strikes
    a.status.must_lock = True  # its hands busy, b out of its reach: it walks
    assert not aggressive.unconcerned(rules, state, "a", 0, True)
    state.move("b", (1.0, 0.0))  # within its reach: nothing to do
    assert aggressive.unconcerned(rules, state, "a", 0, True)

    class Mine(Aggressive):  # a subclass may decide otherwise: it is asked
        pass

    assert not Mine().unconcerned(rules, state, "a", 0, True)


def test_the_defender_is_concerned_by_a_blow_in_progress_within_reach() -> None:
    # Whenever b arms or strikes within its reach of a, a's shortcut says no when the
    # blow may still land unmet (decide plans a defence), its hands busy or not; when
    # it says yes (the blow past, or met by a defence in progress), a full observation
    # and decision of a copy of a's policy declares nothing and awaits nothing.
    defender = Defender()
    fight = _face_to_face(defender)
    state, rules = fight.state, fight.ruleset
    a, b = state.combatants["a"], state.combatants["b"]
    asked = []

    def watch(event: Any) -> None:
        if any(x.kind in ("arm", "strike") for x in b.actions) and defender.defend_at is None:
            lock = a.status.must_lock
            a.status.must_lock = True
            segment = state.segment
            answer = defender.unconcerned(rules, state, "a", segment, False)
            asked.append(answer)
            if answer:
                full = copy.deepcopy(defender)
                assert full.decide(rules.observe(state, "a", segment, False)) is None
                assert full.defend_at is None
            a.status.must_lock = lock

    fight.subscribe(watch)
    fight.run()
    assert asked and not all(asked)
    assert any(asked)


def test_the_armed_defender_is_concerned_by_a_lock_within_reach() -> None:
    # Armed and its hands free, it ripostes into an opponent's lock within its reach:
    # whenever b locks, a's shortcut says no.
    defender = Defender()
    fight = _face_to_face(defender)
    state, rules = fight.state, fight.ruleset
    a, b = state.combatants["a"], state.combatants["b"]
    asked = []

    def watch(event: Any) -> None:
        if (
            any(x.kind == "lock" for x in b.actions)
            and defender.defend_at is None
            and not a.status.must_lock
            and not any(x.channel == "hands" and not x.continuous for x in a.actions)
        ):
            armed = a.status.armed
            a.status.armed = True
            asked.append(defender.unconcerned(rules, state, "a", state.segment, False))
            a.status.armed = armed

    fight.subscribe(watch)
    fight.run()
    assert asked and not any(asked)


def test_the_defender_awaiting_a_dodge_is_unconcerned_until_it_must_act_on_it() -> None:
    # A dodge awaited (defend_at) that is not due yet and already waited for, or that its
    # busy legs leave for later, makes a full decision declare nothing: its shortcut
    # says yes (sixth pass); due now, not waited for, or a parry: it decides. One past
    # is forgotten, as the decision forgets it.
    defender = Defender()
    fight = _face_to_face(defender)
    state, rules = fight.state, fight.ruleset
    a = state.combatants["a"]
    a.status.must_lock = True  # its hands busy; b does nothing: no blow coming

    def agrees(defend_at: int | None) -> bool:
        """The shortcut's answer, checked against a full decision of a copy."""
        defender.defend_at = defend_at
        full = copy.deepcopy(defender)
        answer = defender.unconcerned(rules, state, "a", 0, False)
        if answer:
            assert full.decide(rules.observe(state, "a", 0, False)) is None
            assert full.defend_at == defender.defend_at
        return answer

    assert not agrees(10)  # not waited for yet: it declares its wait
    wait = Action("wait", None, "wait", continuous=True, params={"until": 8}).stamp(90, "a", 0)
    a.actions.append(wait)  # waiting until the dodge's start (10 - 3 + 1)
    assert agrees(10)
    assert not agrees(2)  # due now: it dodges
    assert agrees(-1) and defender.defend_at is None  # past: forgotten
    walk = Action("move", 5, "legs", params={"to": [0.0, 1.0]}).stamp(91, "a", 0)
    a.actions.append(walk)  # its legs busy: no dodge now, whenever it is due
    assert agrees(2) and defender.defend_at == 2
    parrier = Defender(prefer="parry")
    parrier.defend_at = 10
    assert not parrier.unconcerned(rules, state, "a", 0, False)


def test_the_shieldbearer_awaiting_a_parry_is_unconcerned_until_it_must_act_on_it() -> None:
    # The same for a shield's parry (Defender.plan's first choice with a shield in hand):
    # not due yet and waited for, begun too late, or its shield busy: nothing to declare.
    defender = Defender()
    fight = build_fight(
        {"a": ("blue", "shieldbearer", defender), "b": ("red", "robert", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (1.0, 0.0)},
        seed=1,
    )
    state, rules = fight.state, fight.ruleset
    a = state.combatants["a"]
    a.status.must_lock = True  # its hands busy; b does nothing: no blow coming
    speed = a.sheet.shield.speed

    def agrees(defend_at: int, segment: int = 0) -> bool:
        defender.defend_at = defend_at
        full = copy.deepcopy(defender)
        answer = defender.unconcerned(rules, state, "a", segment, False)
        if answer:
            assert full.decide(rules.observe(state, "a", segment, False)) is None
            assert full.defend_at == defender.defend_at
        return answer

    start = 10 - speed + 1  # when the parry must start to end in segment 10
    assert not agrees(10)  # not waited for yet: it declares its wait
    wait = Action("wait", None, "wait", continuous=True, params={"until": start})
    a.actions.append(wait.stamp(90, "a", 0))
    assert agrees(10)
    assert not agrees(10, start)  # due now: it parries
    assert agrees(10, start + 1)  # too late to begin: nothing now
    parry = Action("parry", speed, "shield", rolled=True).stamp(91, "a", 0)
    a.actions.append(parry)  # the shield busy until segment speed - 1
    assert agrees(speed + 5)
