"""Built-in Chroniques policies, what a fighter is shown, and a round too full for its
segments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import pytest

from segsim import Declaration, Dice, Fight
from segsim.fight import CombatantSpec
from segsim.policy import Observation, make_policy
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.events import TurnLost
from segsim.rules.chroniques.policies import hit_chance

RULES = Chroniques()


def fight_of(
    fighters: Mapping[str, tuple[str, str, Any]],
    positions: Mapping[str, tuple[float, float]],
    *,
    seed: int = 1,
    **kwargs: Any,
) -> Fight:
    specs = []
    for cid, (side, who, policy) in fighters.items():
        sheet = RULES.load_sheet(RULES.content.fighters[who])
        if isinstance(policy, str):
            policy = make_policy("chroniques", policy)
        specs.append(CombatantSpec(cid, side, sheet, policy, position=positions[cid]))
    kwargs.setdefault("max_segments", 99)  # round 1 only
    return Fight(RULES, specs, dice=Dice(seed), **kwargs)


def first_turn(fight: Fight, cid: str) -> list[tuple[str, Any]]:
    """What ``cid`` declared on its first turn (without the rules' own actions)."""
    fight.run()
    start = next(
        e.t
        for e in fight.history
        if e.TYPE == "action.declared" and e.actor == cid and e.kind == "turn"
    )
    return [
        (e.kind, e.declared.get("target"))
        for e in fight.history
        if e.TYPE == "action.declared"
        and e.actor == cid
        and e.t == start
        and e.kind not in ("turn", "await")
    ]


class Idle:
    reactive = False
    name = "idle"

    def decide(self, obs: Observation) -> Any:
        return Declaration("pass") if obs.me.my_turn else None


def test_hit_chance() -> None:
    assert hit_chance(5, 16) == pytest.approx(10 / 20)  # faces 11..20
    assert hit_chance(0, 30) == pytest.approx(1 / 20)  # only the critical 20
    assert hit_chance(20, 5) == pytest.approx(19 / 20)  # 1 always fails
    assert hit_chance(3, 13, die=12, critical=11) == pytest.approx(3 / 12)


def test_aggressive_closes_in_and_attacks_in_the_same_turn() -> None:
    fight = fight_of(
        {"a": ("x", "aldric", "aggressive"), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (10.0, 0.0)},
    )
    assert first_turn(fight, "a") == [("move", "b"), ("attack", "b")]
    assert fight.state.combatants["a"].position == (8.5, 0.0)


def test_aggressive_runs_twice_when_one_move_is_not_enough() -> None:
    fight = fight_of(
        {"a": ("x", "aldric", "aggressive"), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (30.0, 0.0)},
    )
    assert first_turn(fight, "a") == [("move", "b"), ("move", "b")]


def test_aggressive_uses_two_weapons_when_they_deal_more_on_average() -> None:
    """Nissa against the apprentice's DEF 11: two d12 attacks (3.33 on average) beat one
    d20 attack (2.93); against the bandit's DEF 13 the single attack is better."""
    fight = fight_of(
        {"a": ("x", "nissa", "aggressive"), "b": ("y", "apprentice", Idle())},
        {"a": (0.0, 0.0), "b": (1.5, 0.0)},
    )
    assert first_turn(fight, "a") == [("two_weapons", "b")]
    fight = fight_of(
        {"a": ("x", "nissa", "aggressive"), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (1.5, 0.0)},
    )
    assert first_turn(fight, "a") == [("attack", "b")]


def test_an_archer_stops_within_range_and_shoots() -> None:
    fight = fight_of(
        {"a": ("x", "bandit_archer", "aggressive"), "b": ("y", "aldric", Idle())},
        {"a": (0.0, 0.0), "b": (40.0, 0.0)},
    )
    assert first_turn(fight, "a") == [("move", None), ("attack", "b")]
    moved = next(e for e in fight.history if e.TYPE == "combatant.moved")
    assert (moved.x, moved.y) == (11.0, 0.0)  # 29 m from its target, the bow reaches 30


def test_cautious_takes_total_defence_when_badly_hurt_in_contact() -> None:
    fight = fight_of(
        {"a": ("x", "nissa", "cautious"), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (1.5, 0.0)},
    )
    fight.state.combatants["a"].status.hit_points = 4  # a third of 12
    assert first_turn(fight, "a") == [("total_defence", None)]
    fight = fight_of(
        {"a": ("x", "nissa", "cautious"), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (50.0, 0.0)},
    )
    assert first_turn(fight, "a") == [("move", "b"), ("simple_defence", None)]


def test_support_distracts_a_hard_target_for_an_ally_in_contact() -> None:
    """A bandit (+2) hits Aldric's DEF 18 one time in four but the concerted test
    (15) two times in five: it helps its partner in contact with him."""
    fight = fight_of(
        {
            "helper": ("bandits", "bandit", "support"),
            "partner": ("bandits", "bandit", Idle()),
            "aldric": ("party", "aldric", Idle()),
        },
        {"helper": (0.0, 1.5), "partner": (1.5, 0.0), "aldric": (0.0, 0.0)},
    )
    assert first_turn(fight, "helper") == [("concerted_attack", "aldric")]
    declared = next(
        e for e in fight.history if e.TYPE == "action.declared" and e.kind == "concerted_attack"
    )
    assert declared.params["partner"] == "partner"


def test_what_a_fighter_is_shown_and_may_declare() -> None:
    seen: list[tuple[Observation, set[tuple[str, str | None]]]] = []

    class Watcher(Idle):
        def decide(self, obs: Observation) -> Any:
            legal = {(d.kind, d.target) for d in obs.legal() if isinstance(d, Declaration)}
            seen.append((obs.freeze(), legal))
            return super().decide(obs)

    fight = fight_of(
        {"a": ("x", "nissa", Watcher()), "b": ("y", "bandit", Idle())},
        {"a": (0.0, 0.0), "b": (1.5, 0.0)},
    )
    fight.run()
    mine, kinds = next((o, legal) for o, legal in seen if o.me.my_turn)
    assert mine.must_act and mine.me.turn_ends == 9 and mine.me.round == 1
    assert (mine.me.defence, mine.me.attack, mine.me.off_attack) == (15, 3, 3)
    bandit = mine.other("b")
    assert (bandit.defence, bandit.hit_points, bandit.acted) == (13, 9, False)
    assert {("attack", "b"), ("two_weapons", "b"), ("total_defence", None), ("pass", None)} <= kinds
    assert ("concerted_attack", "b") not in kinds  # no ally to help
    waiting, legal = next((o, legal) for o, legal in seen if not o.me.my_turn)
    assert not waiting.must_act
    assert legal == {("wait", None)}


def test_turns_that_do_not_fit_in_the_round_are_lost() -> None:
    """100 turns fill a round of 100 segments: a 101st fighter loses its turn."""
    specs = []
    bandit = RULES.load_sheet(RULES.content.fighters["bandit"])
    for i in range(101):
        sheet = attrs.evolve(bandit, initiative_bonus=-i)  # a strict order
        specs.append(
            CombatantSpec(f"f{i:03}", "x" if i else "y", sheet, Idle(), position=(50.0 * i, 0.0))
        )
    fight = Fight(RULES, specs, max_segments=150)
    fight.run()
    turns = [
        e for e in fight.history if e.TYPE == "action.declared" and e.kind == "turn" and e.t < 100
    ]
    assert len(turns) == 100 and all(t.duration == 1 for t in turns)
    [lost] = [e for e in fight.history if isinstance(e, TurnLost)]
    assert (lost.actor, lost.round, lost.reason) == ("f100", 1, "the round ran out of segments")
