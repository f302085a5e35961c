"""Loreval grappling, manoeuvres and attacks at range (Loreval, "Lutte", "Actions de
lutte", "Manœuvres de combat", "Attaques à distance", "Couverture", "Camouflage",
"Tir dans le tas")."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.rules.loreval.combat import attention_scores, defence_value
from segsim.rules.loreval.events import (
    ActionWasted,
    AttackRolled,
    CheckRolled,
    Damaged,
    Grappled,
    Prone,
    WeaponLost,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

F1 = {"focus": 1, "security": 1}
F2 = {"focus": 2}


def test_a_grapple_grab_then_a_pin_against_an_escape() -> None:
    """A grab is a skilful attack against Reflex; then the holder (+4) and the held
    fighter roll attaque en force + size against the other's passive grapple score.
    Grapplers cannot raise Security above 1; the held fighter defends at -2; a pinned
    one has Security -2 (at most 0) and is always exposed."""
    w = ByRound({1: declare("grapple", "b", attention=F1), 2: declare("grapple", "b", move="pin")})
    b = ByRound({2: declare("grapple", "w", move="escape", attention=F1)})
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", b)},
        dice=[15, 5, 10, 10, 5],  # w 19, b 7; grab 10; round 2: pin 10, escape 5
        rounds=2,
        max_segments=119,
    )
    fight.run()
    grab = of_type(fight, CheckRolled, check="grapple: grab")[0]
    assert (grab.total, grab.difficulty, grab.success) == (17, 15, True)
    assert [g.hold for g in of_type(fight, Grappled)] == ["grabbed", "pinned"]
    pin = of_type(fight, CheckRolled, check="grapple: pin")[0]
    assert pin.modifiers["holder"] == 4
    assert (pin.total, pin.difficulty) == (10 + 8 + 4, 10 + 4 + 0)
    escape = of_type(fight, CheckRolled, check="grapple: escape")[0]
    assert (escape.total, escape.difficulty, escape.success) == (5 + 4, 10 + 8, False)
    held = fight.state.combatants["b"]
    assert attention_scores(held, 2).security == -1  # 1 point, -2, capped at 0
    _, parts = defence_value(fight.state, held, "reflex", {}, 2)
    assert parts["held"] == -2
    assert parts["exposed"] == -4


def test_grapplers_cannot_move() -> None:
    w = ByRound({1: declare("grapple", "b", attention=F1)})
    b = ByRound({2: declare("attack", "w", moves=1)})
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", b)},
        dice=[15, 5, 10],
        rounds=2,
    )
    with pytest.raises(IllegalDeclaration, match="cannot move"):
        fight.run()


def test_crushing_damage_by_size() -> None:
    """Loreval, "Écraser": a medium holder crushes for 1-6 + strength."""
    w = ByRound(
        {1: declare("grapple", "b", attention=F1), 2: declare("grapple", "b", move="crush")}
    )
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 10, 10, 4],
        rounds=2,
        max_segments=119,
    )
    fight.run()
    hurt = of_type(fight, Damaged, actor="b")[0]
    assert (hurt.weapon, hurt.rolls, hurt.damage) == ("crush", (4,), 4 + 3)


def test_a_trip() -> None:
    """Loreval, "Croc-en-jambe": category 2, dexterity 13, a skilful attack, then
    strength against the better of strength and dexterity: the target falls."""
    s = ByRound({1: declare("trip", "b", attention={"focus": 2, "security": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 12, 10, 5],
    )
    fight.run()
    assert of_type(fight, CheckRolled, check="trip")[0].success
    assert of_type(fight, Prone)[0].actor == "b"
    assert fight.state.combatants["b"].status.prone


def test_manoeuvres_need_their_characteristic_and_focus_two() -> None:
    for who, plan, message in (
        ("garrok", declare("trip", "b", attention=F2), "dexterity of 13"),
        ("sylva", declare("trip", "b", attention=F1), "Focus of 2"),
        ("garrok", declare("attack", "b", power=7, attention=F2), "1 to 6 points"),
    ):
        fight = arena(
            {"x": ("blue", who, ByRound({1: plan})), "b": ("red", "bandit", ByRound())},
            dice=[15, 5],
        )
        with pytest.raises(IllegalDeclaration, match=message):
            fight.run()


def test_a_disarm() -> None:
    """Loreval, "Désarmement": category 3; the attacker exposes itself; success takes
    the weapon from the target's hand."""
    s = ByRound({1: declare("disarm", "b", attention={"focus": 2, "security": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 15],
    )
    fight.run()
    lost = of_type(fight, WeaponLost)[0]
    assert (lost.actor, lost.how) == ("b", "disarmed")
    assert fight.state.combatants["b"].status.weapon.mode == "unarmed"


def test_power_attack() -> None:
    """Loreval, "Attaque en puissance": +1 category; points moved from the attack to
    the damage, at most the attack skill's mastery."""
    g = ByRound({1: declare("attack", "b", power=3, attention=F2)})
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", ByRound())},
        dice=[15, 5, 15, 3, 3],
    )
    fight.run()
    attack = of_type(fight, AttackRolled, actor="g")[0]
    assert attack.modifiers["power attack"] == -3
    assert attack.total == 15 + 9 - 3
    hurt = of_type(fight, Damaged)[0]
    assert hurt.damage == 3 + 3 + 6 + 3
    assert hurt.modifiers["power attack"] == 3


def test_a_whirlwind_strikes_everyone_around() -> None:
    """Loreval, "Attaque en rotation": acrobatics 15, then an attack on each fighter in
    contact; with two weapons the first two at the standard scores."""
    s = ByRound({1: declare("whirlwind", attention={"focus": 2, "security": 1})})
    fight = arena(
        {
            "s": ("blue", "sylva", s),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", ByRound()),
        },
        positions={"s": (0.0, 0.0), "b1": (1.0, 0.0), "b2": (0.0, 1.0)},
        dice=[15, 5, 4, 10, 2, 2],
    )
    fight.run()
    assert of_type(fight, CheckRolled, check="acrobatics (whirlwind)")[0].success
    attacks = of_type(fight, AttackRolled, actor="s")
    assert [(a.target, a.weapon) for a in attacks] == [("b1", "rapière"), ("b2", "dague")]
    assert all("chained" not in a.modifiers for a in attacks)


ARCHER = {"focus": 1, "security": 2}


def test_cover_and_concealment() -> None:
    """Loreval, "Couverture", "Camouflage": 50 % cover gives +4 to the target's
    defences, light concealment -2 to the shooter."""
    a = ByRound({1: declare("attack", "b", cover=50, concealment=["light"], attention=ARCHER)})
    fight = arena(
        {"a": ("blue", "archer", a), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (10.0, 0.0)},
        dice=[15, 5, 10],
    )
    fight.run()
    shot = of_type(fight, AttackRolled)[0]
    assert shot.modifiers["concealment"] == -2
    assert (shot.total, shot.difficulty) == (10 + 7 - 2, 15 + 4)
    assert "cover +4" in shot.against


def test_a_creature_in_the_line_of_fire_covers_and_takes_the_shot() -> None:
    """Loreval, "Couverture": behind a creature of the target's size, +4; a shot whose
    result falls within that margin hits the creature."""
    a = ByRound({1: declare("attack", "b2", attention=ARCHER)})
    fight = arena(
        {
            "a": ("blue", "archer", a),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", ByRound()),
        },
        positions={"a": (0.0, 0.0), "b1": (5.0, 0.0), "b2": (10.0, 0.0)},
        dice=[15, 5, 4, 10, 3],
    )
    fight.run()
    shot = of_type(fight, AttackRolled)[0]
    assert (shot.total, shot.difficulty, shot.success) == (17, 19, False)
    assert of_type(fight, Damaged)[0].actor == "b1"
    assert "in the way" in of_type(fight, ActionWasted)[0].reason


def test_shooting_into_the_pile() -> None:
    """Loreval, "Tir dans le tas": a miss by 4 or less is rolled again against a
    fighter next to the target."""
    a = ByRound({1: declare("attack", "b1", pile=True, attention=ARCHER)})
    fight = arena(
        {
            "a": ("blue", "archer", a),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", ByRound()),
        },
        positions={"a": (0.0, 0.0), "b1": (10.0, 0.0), "b2": (10.0, 1.0)},
        dice=[15, 5, 4, 6, 12, 2],
    )
    fight.run()
    shots = of_type(fight, AttackRolled)
    assert [(s.target, s.success) for s in shots] == [("b1", False), ("b2", True)]
    assert shots[1].label == "into the pile"
    assert of_type(fight, Damaged)[0].actor == "b2"


def test_lift_then_throw() -> None:
    """Loreval, "Soulever", "Jeter": a lifted opponent is thrown half the thrower's
    speed away, for 1d6 + strength (same size), the grapple ends and it lies prone."""
    w = ByRound(
        {
            1: declare("grapple", "b", attention=F1),
            2: declare("grapple", "b", move="lift"),
            3: declare("grapple", "b", move="throw"),
        }
    )
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 10, 10, 4],
        rounds=3,
        max_segments=179,
    )
    fight.run()
    assert [g.hold for g in of_type(fight, Grappled)] == ["grabbed", "lifted", "released"]
    thrown = of_type(fight, Damaged, actor="b")[0]
    assert (thrown.weapon, thrown.damage) == ("throw", 4 + 3)
    assert fight.state.combatants["b"].position == (1.5 + 3.2, 0.0)
    assert fight.state.combatants["b"].status.prone


def test_juggling_gives_four_to_every_attack_of_the_round() -> None:
    """Loreval, "Jonglerie": +2 category, acrobatics 20 when declared: +4 to attacks."""
    s = ByRound({1: declare("attack", "b", juggle=True, attention={"focus": 2, "security": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 12, 2],
    )
    fight.run()
    assert of_type(fight, CheckRolled, check="acrobatics (juggling)")[0].success
    assert of_type(fight, AttackRolled)[0].modifiers["juggling"] == 4


def test_a_sunder_breaks_the_weapon() -> None:
    """Loreval, "Destruction d'arme": strength 13, attaque en force; the weapon takes
    damage and breaks at its durability."""
    g = ByRound({1: declare("sunder", "b", attention=F2)})
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", ByRound())},
        dice=[15, 5, 15, 6, 6],
    )
    fight.run()
    lost = of_type(fight, WeaponLost)[0]
    assert (lost.actor, lost.weapon, lost.how) == ("b", "épée courte", "broken")


def test_an_overrun_ending_a_charge() -> None:
    """Loreval, "Renversement": attaque en force, with the charge's +4 when it ends
    one, then strength: the target falls."""
    g = ByRound({1: declare("overrun", "b", charge=True, moves=2, attention=F2)})
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", ByRound())},
        positions={"g": (0.0, 0.0), "b": (10.0, 0.0)},
        dice=[15, 5, 10, 10, 5],
    )
    fight.run()
    attack = of_type(fight, CheckRolled, check="overrun")[0]
    assert attack.modifiers["charge"] == 4
    assert "extra moves" not in attack.modifiers
    assert of_type(fight, Prone)[0].actor == "b"
