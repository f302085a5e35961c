"""Loreval counters, charges, concerted and heroic actions (Loreval, "Actions de
contre", "Déclaration d'un contre", "Charge", "Initiative et charge", "Réception de
charge", "Action concertée", "Action d'éclat")."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.rules.loreval.events import (
    AttackRolled,
    ChangeAllowed,
    Countered,
    CounterRolled,
    Damaged,
    Declared,
    RoundEnded,
    RoundStarted,
    Running,
    TurnResolved,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

PARRY = {"against": "defensive", "how": "parry", "attention": {"environment": 1, "security": 2}}


def test_a_defensive_counter_sets_the_attackers_difficulty_and_blocks_on_a_miss() -> None:
    """Parry: a defence roll whose result is the attacker's difficulty; the counter
    succeeds, the attacker is blocked for the round (its second attack never comes)."""
    a = ByRound({1: declare("counter", "g", **PARRY)})
    g = ByRound({1: declare("attack", "a", attacks=2, attention={"focus": 1, "security": 1})})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, 10, 5],  # a 14, g 17; a's parry roll 10; g's first attack 5
    )
    fight.run()
    counter = of_type(fight, CounterRolled)[0]
    assert (counter.actor, counter.how, counter.total) == ("a", "parry", 10 + 13)
    attacks = of_type(fight, AttackRolled, actor="g")
    assert len(attacks) == 1
    assert (attacks[0].difficulty, attacks[0].against) == (23, "a's parry roll")
    assert of_type(fight, Countered)[0].actor == "g"
    assert of_type(fight, TurnResolved, actor="a")[0].note == "counter spent"


def test_a_hypothetical_counter_is_at_minus_two() -> None:
    """Loreval, "Déclaration d'un contre": the first attack against oneself, -2."""
    a = ByRound({1: declare("counter", hypothetical=True, **PARRY)})
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, 10, 15, 3, 3],
    )
    fight.run()
    counter = of_type(fight, CounterRolled)[0]
    assert counter.modifiers["hypothetical"] == -2
    assert counter.total == 10 + 13 - 2
    assert of_type(fight, AttackRolled, actor="g")[0].success  # 15 + 9 = 24 beats 21


def test_an_offensive_counter_strikes_before_the_declared_action() -> None:
    """An offensive counter answers an action already declared (by a slower fighter) and
    is resolved before it; a hit blocks it."""
    b = ByRound({1: declare("attack", "a")})
    counter = {"against": "offensive", "how": "strike", "attention": PARRY["attention"]}
    a = ByRound({1: declare("counter", "b", **counter)})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b)},
        dice=[10, 5, 15, 4],  # a 14, b 7; a's counter strike 15, damage 4
    )
    fight.run()
    assert [e.actor for e in of_type(fight, AttackRolled)] == ["a"]
    assert of_type(fight, Damaged)[0].damage == 4 + 3
    blocked = of_type(fight, TurnResolved, actor="b")[0]
    assert blocked.note == "blocked by a counter"
    # the counterer's own step came first: its counter waited for b's action
    notes = [e.note for e in of_type(fight, TurnResolved, actor="a")]
    assert notes == ["counter stands ready"]


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (declare("counter", "g", against="defensive", attention={"security": 3}), "Environment"),
        (
            declare("counter", "g", against="offensive", attention={"environment": 1}),
            "has not declared",
        ),
        (declare("counter", attention={"environment": 1}), "hypothetical"),
        (declare("counter", "g", how="receive", attention={"environment": 1}), "defensive"),
    ],
)
def test_illegal_counters(plan: object, message: str) -> None:
    fight = arena(
        {"a": ("blue", "aldren", ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
        dice=[10, 15],
    )
    with pytest.raises(IllegalDeclaration, match=message):
        fight.run()


def test_the_charge() -> None:
    """Loreval, "Charge": 2 moves at least, then one attack by attaque en force at +4
    to hit and to damage, without the moves' malus; the weapon's damage is doubled,
    the +4 is not."""
    g = ByRound({1: declare("charge", "b", attention={"focus": 2})})
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", ByRound())},
        positions={"g": (0.0, 0.0), "b": (10.0, 0.0)},
        dice=[15, 5, 10, 3, 4, 2, 1],
    )
    fight.run()
    declared = of_type(fight, Declared, actor="g")[0]
    assert (declared.category, declared.extra_moves) == (2 + 2, 2)
    attack = of_type(fight, AttackRolled, actor="g")[0]
    assert attack.modifiers == {"strength_attack": 9, "charge": 4}
    hit = of_type(fight, Damaged)[0]
    assert hit.multiplier == 2
    assert hit.damage == (3 + 4 + 2 + 1) + 6 * 2 + 4
    assert not fight.state.combatants["b"].in_fight


def test_a_charge_needs_two_moves_and_focus_two() -> None:
    for plan, message in (
        (declare("charge", "b", moves=1, attention={"focus": 2}), "at least 2 moves"),
        (declare("charge", "b", attention={"focus": 1, "security": 1}), "Focus of 2"),
    ):
        fight = arena(
            {"g": ("red", "garrok", ByRound({1: plan})), "b": ("blue", "bandit", ByRound())},
            positions={"g": (0.0, 0.0), "b": (10.0, 0.0)},
            dice=[15, 5],
        )
        with pytest.raises(IllegalDeclaration, match=message):
            fight.run()


def test_receiving_a_charge_with_a_polearm() -> None:
    """Loreval, "Réception de charge": the spear strikes the charger first, its damage
    doubled, and a hit stops the charge."""
    g = ByRound({1: declare("charge", "p", attention={"focus": 2})})
    receive = {"against": "offensive", "how": "receive"}
    p = ByRound(
        {1: declare("counter", "g", attention={"environment": 1, "security": 1}, **receive)}
    )
    fight = arena(
        {"g": ("red", "garrok", g), "p": ("blue", "spearman", p)},
        positions={"g": (0.0, 0.0), "p": (10.0, 0.0)},
        dice=[15, 18, 12, 5, 6],  # g 17, p 21; the spear's attack 12, damage 5 and 6
    )
    fight.run()
    attacks = of_type(fight, AttackRolled)
    assert [(e.actor, e.label) for e in attacks] == [("p", "receiving the charge")]
    hit = of_type(fight, Damaged, actor="g")[0]
    assert hit.damage == 5 + 6 + 3 * 2
    assert of_type(fight, Countered)[0].actor == "g"


def test_a_charge_in_continuity_of_movement_comes_before_the_faster_targets_attack() -> None:
    """Loreval, "Charge en continuité de déplacement", "Initiative et charge": ending a
    round running lets a fighter charge with fewer moves; its charge counters its
    target, which had the initiative and declared an attack on it."""
    g = ByRound(
        {
            1: declare("move", "b", moves=1),
            2: declare("charge", "b", moves=1, attention={"focus": 2}),
        }
    )
    b = ByRound({2: declare("attack", "g", moves=1)})
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", b)},
        positions={"g": (0.0, 0.0), "b": (20.0, 0.0)},
        dice=[15, 18, 10, 3, 4, 2, 1],  # g 17, b 20; round 2: g's charge and damage
        rounds=2,
    )
    fight.run()
    assert of_type(fight, Running)[0].actor == "g"
    assert [e.actor for e in of_type(fight, AttackRolled)] == ["g"]
    assert not fight.state.combatants["b"].in_fight
    assert of_type(fight, TurnResolved, actor="g")[-1].note == "its charge came first"


def test_a_concerted_action_resolves_at_the_partners_step_and_divides_the_defence() -> None:
    """Loreval, "Action concertée": Sylva (2 in Environment, faster) joins Aldren's
    attack (1 in Environment): both strike at Aldren's step, and Garrok, attacked by
    two at once, defends at -2 against each."""
    a = ByRound({1: declare("attack", "g", attention={"environment": 1, "security": 2})})
    joint = {"concert": "a", "attention": {"environment": 2, "security": 1}}
    s = ByRound({1: declare("attack", "g", **joint)})
    fight = arena(
        {"a": ("blue", "aldren", a), "s": ("blue", "sylva", s), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "s": (0.0, 1.0), "g": (1.0, 0.5)},
        dice=[10, 15, 5, 12, 3, 12, 5],
        pcs={"s"},
    )
    fight.run()
    attacks = of_type(fight, AttackRolled)
    assert [e.actor for e in attacks] == ["s", "a"]
    assert {e.t for e in attacks} == {of_type(fight, TurnResolved, actor="a")[0].t}
    # Defence 17, exposed to two attackers with Security 0 (-4), concerted (-2)
    assert [e.difficulty for e in attacks] == [17 - 4 - 2, 17 - 4 - 2]


def test_a_concerted_action_needs_two_in_environment() -> None:
    a = ByRound({1: declare("attack", "g", attention={"environment": 1, "security": 2})})
    s = ByRound({1: declare("attack", "g", concert="a", attention={"environment": 1})})
    fight = arena(
        {"a": ("blue", "aldren", a), "s": ("blue", "sylva", s), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "s": (0.0, 1.0), "g": (1.0, 0.5)},
        dice=[10, 15, 5],
        pcs={"s"},
    )
    with pytest.raises(IllegalDeclaration, match="2 in Environment"):
        fight.run()


def test_a_heroic_action() -> None:
    """Loreval, "Action d'éclat": with 6 points left and a heroism point, declared after
    the declarations and resolved before every other action; it takes every point left
    and a heroism point, its rolls succeed (against a foe without heroism: the best
    result, a critical), and the next round is a grace round."""
    s = ByRound({1: declare("inaction")}, heroic={1: declare("attack", "b")})
    b = ByRound({1: declare("attack", "s")})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", b)},
        dice=[1, 20, 1, 1, 2],  # s 8, b 22; s's heroic attack rolls no die: damage; b's
    )
    fight.run()
    heroic = of_type(fight, Declared, actor="s")[-1]
    assert heroic.heroic and heroic.kind == "attack"
    attacks = of_type(fight, AttackRolled)
    assert [e.actor for e in attacks] == ["s", "b"]
    assert (attacks[0].roll, attacks[0].critical) == (20, True)
    assert of_type(fight, Damaged, actor="b")[0].multiplier == 2
    assert dict(of_type(fight, RoundEnded)[0].spent)["s"] == 8
    assert dict(of_type(fight, RoundStarted)[1].grace) == {"s": "heroic"}
    assert fight.state.combatants["s"].status.heroism == 0


def test_blocking_an_attack_is_a_parry_at_minus_four() -> None:
    """Loreval, "Bloquer une attaque": a defensive counter with the defence at -4."""
    block = {"against": "defensive", "how": "block", "attention": {"environment": 1, "focus": 2}}
    a = ByRound({1: declare("counter", "g", **block)})
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, 10, 5],
    )
    fight.run()
    counter = of_type(fight, CounterRolled)[0]
    assert counter.modifiers["block"] == -4
    assert counter.total == 10 + 13 - 4
    assert of_type(fight, Countered)[0].how == "block"


def test_an_obstruction_stops_the_moves_of_the_countered_action() -> None:
    """Loreval, "Empêcher un déplacement": a skilful attack against the mover's Reflex;
    its action goes on without its moves (here out of reach: it may change it)."""
    obstruct = {"against": "offensive", "how": "obstruct", "attention": PARRY["attention"]}
    a = ByRound({1: declare("counter", "g", **obstruct)})
    g = ByRound({1: declare("attack", "b", moves=1, attention={"focus": 1, "security": 1})})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g), "b": ("blue", "bandit", ByRound())},
        positions={"g": (0.0, 0.0), "a": (1.5, 0.0), "b": (6.0, 0.0)},
        dice=[10, 5, 1, 15],
    )
    fight.run()
    roll = of_type(fight, CounterRolled)[0]
    assert (roll.how, roll.total) == ("obstruct", 15 + 5)
    assert not [e for e in fight.history if e.TYPE == "combatant.moved" and e.actor == "g"]
    assert of_type(fight, ChangeAllowed)[0].reason == "b is out of reach"


def test_a_heroic_action_against_a_hero_counts_the_die_as_twenty() -> None:
    """Loreval, "Points d'héroïsme": between holders of heroism points, the die is
    rolled; without a threat the action succeeds with the best score, 20 (not a
    natural 20, so no critical)."""
    s = ByRound({1: declare("inaction")}, heroic={1: declare("attack", "a")})
    fight = arena(
        {"s": ("blue", "sylva", s), "a": ("red", "aldren", ByRound())},
        dice=[1, 1, 5, 3],
    )
    fight.run()
    attack = of_type(fight, AttackRolled)[0]
    assert (attack.roll, attack.total, attack.success, attack.critical) == (5, 28, True, False)
    assert of_type(fight, Damaged)[0].damage == 3 + 1
