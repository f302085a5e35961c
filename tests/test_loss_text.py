"""Seed 000 read sentence by sentence: rules where segsim departed from the text, each
checked with the text's own wording (docs/rules/loss.md, "Traceability")."""

from __future__ import annotations

from typing import Any

import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.rules.loss.content import default_content
from segsim.rules.loss.events import ActionPointsSpent, AttackSettled, Damaged, Tested
from tests.loss_helpers import Plays, arena, dodge, of_type, parry, sheet

RICH = {"fursa": 2, "inspiration": 2}  # +20 to the test


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


def refused(fight, who: str, d: Declaration, segment: int) -> str:
    with pytest.raises(IllegalDeclaration) as info:
        fight.ruleset.plan(fight.state, who, d, segment, [])
    return str(info.value)


def duel(a: Plays, m: Plays, dice: list[int], **kwargs: Any):
    return arena({"a": ("heroes", "diego", a), "m": ("gang", "malfrat", m)}, dice=dice, **kwargs)


# ---------------------------------------------------------------- combat modifiers


def test_higher_ground_gives_5_to_a_dodge_too() -> None:
    """Seed 000, "Modificateurs de combat au contact": "Combattre plus haut que son
    adversaire ... Bonus +5", a bonus that "s'additionne au Test d'Action en combat du
    personnage": a dodge is one. The malfrat on the stairs dodges Diego: 12 + 1 + 5 = 18
    against 15."""
    fight = duel(
        Plays(turns=[Declaration("attack", "m")]),
        Plays(answers=[dodge()]),
        dice=[10, 1, 10, 1],
        setup={"m": {"higher_ground": True}},
    )
    run_until(fight, 3)
    attack, defence = of_type(fight, Tested)
    assert attack.bonuses == {}
    assert (defence.test, defence.bonuses, defence.total) == ("dodge", {"higher ground": 5}, 18)
    assert defence.success
    assert [s.result for s in of_type(fight, AttackSettled)] == ["stopped"]


# ---------------------------------------------------------------- Contre-attaquer


def test_a_fighter_counters_each_of_two_adversaries_in_the_same_phase() -> None:
    """Seed 000, "Contre-attaquer": "On ne peut contre-attaquer qu'une seule fois par
    adversaire et par Tour de Combat (donc face à trois sbires, on peut contre-attaquer
    trois fois...)". Two malfrats (phase 16) strike Diego together; he parries both with
    the counter effect and counter-attacks each of them right after."""
    diego = Plays(
        answers=[parry(effects=["counter"]), parry(effects=["counter"])],
        counters=[
            Declaration("attack", "m1", {"counter": True}),
            Declaration("attack", "m2", {"counter": True}),
        ],
    )
    fight = arena(
        {
            "a": ("heroes", "diego", diego),
            "m1": ("gang", "malfrat", Plays(turns=[Declaration("attack", "a")])),
            "m2": ("gang", "malfrat", Plays(turns=[Declaration("attack", "a")])),
        },
        positions={"a": (0.0, 0.0), "m1": (1.0, 0.0), "m2": (0.0, 1.0)},
        # initiative 9, 16, 16; both hit (20); Diego parries both (24 vs 20); his
        # two counter-attacks miss (13)
        dice=[1, 10, 10, 10, 10, 10, 10, 1, 1],
    )
    run_until(fight, 4)
    counters = [(t.actor, t.target) for t in of_type(fight, Tested) if "counter" in t.test]
    assert counters == [("a", "m1"), ("a", "m2")]
    spent = [(e.what, e.cost) for e in of_type(fight, ActionPointsSpent) if e.actor == "a"]
    assert spent == [("parry", 1), ("parry", 1), ("a counter-attack", 3), ("a counter-attack", 3)]
    assert fight.state.combatants["a"].status.pa == 9 - 2 - 6


def test_a_counter_attack_may_itself_be_countered() -> None:
    """Seed 000, "Contre-attaquer": the only limit is once per adversary and per round.
    Diego attacks; the malfrat parries and counters; Diego parries that counter-attack
    with the counter effect and counters in turn; the malfrat, who has already
    countered Diego this round, may not counter again."""
    diego = Plays(
        turns=[Declaration("attack", "m")],
        answers=[parry(effects=["counter"])],
        counters=[Declaration("attack", "m", {"counter": True})],
    )
    malfrat = Plays(
        answers=[parry(effects=["counter"]), None],
        counters=[Declaration("attack", "a", {"counter": True})],
    )
    # initiative 18 and 7; Diego hits (22); the malfrat parries (10 + 10 = 20 vs 20) and
    # counters (20 vs 15); Diego parries (24 vs 20) and counters: 12 + 1 misses
    fight = duel(diego, malfrat, dice=[10, 1, 10, 10, 10, 10, 1])
    run_until(fight, 6)
    tests = [(t.actor, t.test, t.success) for t in of_type(fight, Tested)]
    assert tests == [
        ("a", "attack", True),
        ("m", "parry", True),
        ("m", "a counter-attack", True),
        ("a", "parry", True),
        ("a", "a counter-attack", False),
    ]
    assert fight.state.combatants["m"].status.countered == {"a"}


def test_no_second_counter_against_the_same_adversary_in_a_round() -> None:
    """Seed 000, "Contre-attaquer": once per adversary and per round; the malfrat, having
    countered Diego, cannot counter Diego's counter-attack."""
    diego = Plays(
        turns=[Declaration("attack", "m")],
        answers=[parry(effects=["counter"])],
        counters=[Declaration("attack", "m", {"counter": True})],
    )
    malfrat = Plays(
        answers=[parry(effects=["counter"]), parry(effects=["counter"])],
        counters=[Declaration("attack", "a", {"counter": True})],
    )
    fight = duel(diego, malfrat, dice=[10, 1, 10, 10, 10, 10, 10, 10])
    with pytest.raises(IllegalDeclaration, match="already countered a this round"):
        fight.run()


# ---------------------------------------------------------------- Désarmer l'adversaire


def test_a_disarmed_fighter_attacks_no_more_in_that_round_even_rearmed() -> None:
    """Seed 000, "Désarmer l'adversaire": "il conserve ses PA mais ne peut plus du tout
    attaquer pour le Tour de Combat". The malfrat picks his cutlass up at phase 7 and
    still may not attack at phase 5; he may in the next round."""
    malfrat = Plays(turns=[Declaration("pick_up")], answers=[None])
    fight = duel(
        Plays(turns=[Declaration("attack", "m", {"effects": ["disarm"], "damage": False, **RICH})]),
        malfrat,
        dice=[10, 1, 10],
    )
    run_until(fight, 66)
    assert malfrat.turn_segments == [55, 65]
    status = fight.state.combatants["m"].status
    assert (status.disarmed, status.pa) == (0, 5)  # rearmed, 2 PA spent
    assert "no attack at all until the next one" in refused(
        fight, "m", Declaration("attack", "a"), 65
    )
    assert "no attack at all" in refused(fight, "m", Declaration("grab", "a"), 65)
    assert not any(x.kind == "attack" for x in malfrat.seen[-1].legal())


# ---------------------------------------------------------------- Attaquer avec deux armes


def test_two_weapons_against_one_adversary_deal_both_weapons_damage() -> None:
    """Seed 000, "Attaquer avec deux armes": "frapper ... un seul adversaire avec les
    deux armes"; "les dégâts sont appliqués ... sur une seule cible". Diego's rapier (3)
    and dagger (2) both strike the malfrat: 3 + 3 and 4 + 2, less his leather each."""
    dagger = default_content().weapons["dagger"]
    diego = sheet("diego", off_hand=dagger)
    fight = arena(
        {
            "a": (
                "heroes",
                diego,
                Plays(turns=[Declaration("attack", "m", {"effects": ["two_weapons"], **RICH})]),
            ),
            "m": ("gang", "malfrat", Plays(answers=[None])),
        },
        dice=[10, 1, 10, 3, 4],
    )
    run_until(fight, 3)
    damage = [(d.weapon, d.rolls, d.damage, d.lost) for d in of_type(fight, Damaged)]
    assert damage == [("rapière", (3,), 6, 5), ("poignard", (4,), 6, 5)]
    assert of_type(fight, ActionPointsSpent)[0].cost == 3  # the slower weapon's speed
