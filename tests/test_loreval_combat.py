"""Loreval attacks, damage, changed actions, heroism and sneak attacks (Loreval,
"Mode d'action", "Modifier son action", "Points d'héroïsme", "Attaque sournoise et
attaque perfide", "Action de déplacement et action avec déplacement")."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.events import Moved, OutOfFight
from segsim.rules.loreval.events import (
    AttackRolled,
    ChangeAllowed,
    CriticalConfirmed,
    Damaged,
    Declared,
    HeroismSaved,
    RoundEnded,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

MELEE = {"a": (0.0, 0.0), "s": (0.0, 1.0), "b1": (1.0, 0.0), "b2": (1.0, 1.0)}


def four(a: ByRound, s: ByRound, dice: list[int]):  # type: ignore[no-untyped-def]
    """Aldren and Sylva against two bandits, all in contact; initiative: Sylva 26,
    bandit 1 12, bandit 2 7, Aldren 5."""
    return arena(
        {
            "a": ("blue", "aldren", a),
            "s": ("blue", "sylva", s),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", ByRound()),
        },
        positions=MELEE,
        dice=[1, 19, 10, 5, *dice],
    )


def test_a_changed_action_after_the_target_fell() -> None:
    """Loreval, "Modifier son action": Aldren declared two attacks on bandit 1 (category
    3); Sylva, faster, kills it; at his turn Aldren may change his action for one of a
    lower category, at -2 to every roll. The points of the declared action are spent."""
    a = ByRound(
        {1: declare("attack", "b1", attacks=2, attention={"security": 2, "focus": 1})},
        change={1: declare("attack", "b2")},
    )
    s = ByRound({1: declare("attack", "b1")})
    # Sylva: 18 (threat), confirmation 15, damage 6 + 6 (x2) + strength 1 x2 = 14
    fight = four(a, s, [18, 15, 6, 6, 10, 4])
    fight.run()
    assert of_type(fight, CriticalConfirmed)[0].confirmed
    assert of_type(fight, OutOfFight)[0].actor == "b1"
    assert of_type(fight, ChangeAllowed)[0].actor == "a"
    assert [st[1] for st in a.steps if st[0] == 1] == ["declare", "change"]
    changed = of_type(fight, Declared, actor="a")[-1]
    assert (changed.kind, changed.target, changed.category, changed.changed) == (
        "attack",
        "b2",
        1,
        True,
    )
    attack = of_type(fight, AttackRolled, actor="a")[0]
    assert attack.modifiers["changed action"] == -2
    assert attack.total == 10 + 8 - 2
    assert of_type(fight, Damaged, actor="b2")[0].damage == 4 + 3
    assert dict(of_type(fight, RoundEnded)[0].spent)["a"] == 3


def test_a_changed_action_is_of_a_strictly_lower_category() -> None:
    a = ByRound(
        {1: declare("attack", "b1", attacks=2, attention={"security": 2, "focus": 1})},
        change={1: declare("attack", "b2", attacks=2)},
    )
    s = ByRound({1: declare("attack", "b1")})
    fight = four(a, s, [18, 15, 6, 6])
    with pytest.raises(IllegalDeclaration, match="lower category") as err:
        fight.run()
    assert "Modifier son action" in str(err.value)


def test_critical_hits_and_heroism_saves_from_a_deadly_blow() -> None:
    """Loreval, "Points d'héroïsme": a heroism point cancels the blow that would kill."""
    g = ByRound({1: declare("attack", "a")})
    a = ByRound()
    fight = arena(
        {"g": ("red", "garrok", g), "a": ("blue", "aldren", a)},
        # g 17, a 14; g: 20 threat, confirmed 20; greatsword 2d6 x2 + strength 4*1.5 x2
        dice=[15, 10, 20, 20, 6, 6, 6, 6],
    )
    a_sheet = fight.state.combatants["a"].sheet
    assert a_sheet.heroism == 1
    fight.run()
    saved = of_type(fight, HeroismSaved)[0]
    assert (saved.actor, saved.damage) == ("a", 24 + 12)
    assert fight.state.combatants["a"].status.hit_points == 30
    assert fight.state.combatants["a"].status.heroism == 0


def test_a_sneak_attack_needs_focus_two_above_the_targets_security() -> None:
    """Loreval: the bandit's rank of sneak attack adds to its Focus for the condition;
    the attack then deals 1d6 more per rank (D&D 3)."""
    b = ByRound({1: declare("attack", "g", attention={"focus": 1, "security": 1})})
    fight = arena(
        {"b": ("blue", "bandit", b), "g": ("red", "garrok", ByRound())},
        setup={"g": {"attention": {"environment": 2}}},  # Garrok's Security is 0
        dice=[15, 1, 19, 3, 4, 5],  # b 17, g 3; b hits (19), confirm 3 fails; 1d6 4, sneak 5
    )
    fight.run()
    hit = of_type(fight, Damaged, actor="g")[0]
    assert hit.rolls == (4, 5)
    assert hit.damage == 4 + 5 + 1  # strength 13: +1


def test_an_attack_with_extra_moves_closes_in_at_a_malus() -> None:
    """Loreval, "Déplacement supplémentaire": one extra move (+1 category) brings the
    attacker in contact; -4 to its attack and to its own defences for the round."""
    g = ByRound({1: declare("attack", "a", moves=1, attention={"focus": 1, "security": 1})})
    fight = arena(
        {"g": ("red", "garrok", g), "a": ("blue", "aldren", ByRound())},
        positions={"g": (0.0, 0.0), "a": (6.0, 0.0)},
        dice=[15, 10, 10],
    )
    fight.run()
    declared = of_type(fight, Declared, actor="g")[0]
    assert (declared.category, declared.extra_moves) == (3, 1)  # two-handed 2 + 1 move
    moved = of_type(fight, Moved, actor="g")[0]
    assert (moved.x, moved.y) == (4.5, 0.0)
    attack = of_type(fight, AttackRolled, actor="g")[0]
    assert attack.modifiers["extra moves"] == -4


def test_a_target_out_of_reach_cannot_be_declared() -> None:
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"g": ("red", "garrok", g), "a": ("blue", "aldren", ByRound())},
        positions={"g": (0.0, 0.0), "a": (6.0, 0.0)},
        dice=[15, 10],
    )
    with pytest.raises(IllegalDeclaration, match=r"reaches 1\.5 m"):
        fight.run()


def test_two_weapons_attack_with_both_hands_and_chain() -> None:
    """Loreval, "Deux armes": three attacks are main hand, off hand, main hand at -5;
    the initial two-weapon malus is lighter with the talent (Interpretations)."""
    s = ByRound({1: declare("attack", "b", attacks=3, attention={"security": 2, "focus": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", ByRound())},
        dice=[15, 1, 2, 2, 2],
    )
    fight.run()
    attacks = of_type(fight, AttackRolled, actor="s")
    assert [a.weapon for a in attacks] == ["rapière", "dague", "rapière"]
    assert [a.modifiers.get("chained", 0) for a in attacks] == [0, 0, -5]
    assert [a.modifiers["two weapons"] for a in attacks] == [-2, -2, -2]
