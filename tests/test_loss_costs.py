"""Rules of Loss checked one by one for the traceability table: the costs table,
fighting on the ground, the off hand, improvised weapons, the scutum, grabs and throws
that miss (docs/rules/loss.md, "Traceability")."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from segsim import Declaration
from segsim.rules.loss.content import UNARMED, default_content
from segsim.rules.loss.events import Damaged, EffectApplied, Tested
from tests.loss_helpers import Plays, arena, dodge, of_type, parry, sheet

WEAPONS = default_content().weapons


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


def cost_of(attacker: Any, d: Declaration, **status: Any) -> int:
    fight = arena(
        {"a": ("heroes", attacker, Plays()), "m": ("gang", "malfrat", Plays())}, dice=[10, 1]
    )
    run_until(fight, 1)
    st = fight.state.combatants["a"].status
    for key, value in status.items():
        setattr(st, key, value)
    return int(fight.ruleset.plan(fight.state, "a", d, 0, []).params["cost"])


@pytest.mark.parametrize(
    ("attacker", "declaration", "status", "cost"),
    [
        ("diego", Declaration("attack", "m"), {}, 3),  # "selon l'arme ... sa Vitesse"
        (sheet("diego", weapon=UNARMED), Declaration("attack", "m"), {}, 2),  # mains nues
        ("griffon", Declaration("attack", "m"), {}, 2),  # attaques animales naturelles
        ("diego", Declaration("grab", "m"), {}, 3),  # agripper, ceinturer, faire chuter
        ("diego", Declaration("attack", "m", {"effects": ["assault"]}), {}, 4),  # assaut
        (
            sheet("diego", weapon=WEAPONS["sabre"], off_hand=WEAPONS["dagger"]),
            Declaration("attack", "m", {"effects": ["two_weapons"]}),
            {},
            4,  # "la Vitesse de l'arme la plus lente"
        ),
        (
            sheet("diego", weapon=UNARMED),
            Declaration("attack", "m", {"effects": ["disarm"]}),
            {},
            2,
        ),
        ("diego", Declaration("attack", "m", {"effects": ["disarm"]}), {}, 3),
        ("diego", Declaration("attack", "m", {"effects": ["extra_damage"]}), {}, 3),
        ("diego", Declaration("move", params={"to": [0.0, 4.0]}), {}, 2),  # se déplacer
        ("diego", Declaration("pick_up"), {"disarmed": 1}, 2),  # saisir un objet au sol
        ("diego", Declaration("get_up"), {"prone": True}, 4),  # se relever
        ("diego", Declaration("social"), {}, 1),  # utiliser un Talent social
        ("archer", Declaration("aim", params={"points": 3}), {}, 3),  # 1 PA per +1
    ],
)
def test_the_costs_table_in_action_points(
    attacker: Any, declaration: Declaration, status: dict[str, Any], cost: int
) -> None:
    """Loss, "Dépenser les Points d'Action": the costs of the table; a special effect
    costs the attack it rides on (2 PA bare-handed, else the weapon's)."""
    assert cost_of(attacker, declaration, **status) == cost


def one_attack(attacker: Any, declaration: Declaration, dice: list[int], **kwargs: Any):
    fight = arena(
        {
            "a": ("heroes", attacker, Plays(turns=[declaration])),
            "m": ("gang", "malfrat", Plays(answers=[None])),
        },
        dice=dice,
        **kwargs,
    )
    run_until(fight, 3)
    return fight


def test_fighting_on_the_ground_and_striking_a_man_on_the_ground() -> None:
    """Loss, "Modificateurs de combat au contact": "Frapper un homme à terre: Bonus
    +10" to Diego; "Combattre à terre, allongé ou tombé: Diff +10" to the malfrat's
    dodge (a fighter on the ground gets up before it attacks again)."""
    fight = arena(
        {
            "a": ("heroes", "diego", Plays(turns=[Declaration("attack", "m")])),
            "m": ("gang", "malfrat", Plays(answers=[dodge()])),
        },
        dice=[10, 1, 1, 10, 1],
        setup={"m": {"prone": True}},
    )
    run_until(fight, 3)
    attack, defence = of_type(fight, Tested)
    assert attack.bonuses == {"prone target": 10}
    assert (defence.modifiers, defence.difficulty) == ({"prone": 10}, 15 + 10)


def test_the_off_hand_adds_5_unless_the_deux_armes_specialisation_chose_that_weapon() -> None:
    """Loss, "Attaquer avec sa main non dominante" (Diff +5) and the specialisation
    Deux armes: "uniquement avec des armes spécifiquement choisies"."""
    off = Declaration("attack", "m", {"hand": "off"})
    plain = sheet("diego", off_hand=WEAPONS["dagger"])
    assert of_type(one_attack(plain, off, [10, 1, 1]), Tested)[0].modifiers == {"off hand": 5}
    chosen = attrs.evolve(plain, specialisations=("deux_armes",))
    assert of_type(one_attack(chosen, off, [10, 1, 1]), Tested)[0].modifiers == {}
    other = attrs.evolve(chosen, specialisation_weapons={"deux_armes": "sabre"})
    assert of_type(one_attack(other, off, [10, 1, 1]), Tested)[0].modifiers == {"off hand": 5}


def test_improvised_weapons_take_2_or_give_2_with_the_specialisation() -> None:
    """Loss, "Armes improvisées": "au lieu de subir le malus de 2 ... gagne un bonus
    de +2"."""
    stool = sheet("diego", weapon=WEAPONS["stool"])
    fight = one_attack(stool, Declaration("attack", "m"), [10, 1, 1])
    assert of_type(fight, Tested)[0].bonuses == {"improvised": -2}
    trained = attrs.evolve(stool, specialisations=("armes_improvisees",))
    fight = one_attack(trained, Declaration("attack", "m"), [10, 1, 1, 1])
    assert of_type(fight, Tested)[0].bonuses == {"improvised": 2}


def test_the_scutum_gives_1_to_parry_3_protection_and_3_off_dodges() -> None:
    """Loss, "La parade au bouclier", example: the scutum "offre un bonus à la parade
    de +1 et une protection de 3 ... Mais il impose un malus de 3 ... à l'Esquive"."""
    scutum = default_content().shields["scutum"]
    legionary = sheet("malfrat", shield=scutum)

    def answered(answer: dict[str, Any], dice: list[int]):
        fight = arena(
            {
                "a": ("heroes", "diego", Plays(turns=[Declaration("attack", "m")])),
                "m": ("gang", legionary, Plays(answers=[answer])),
            },
            dice=dice,
        )
        run_until(fight, 3)
        return fight

    fight = answered(parry(), [10, 1, 10, 1, 6])
    assert of_type(fight, Tested)[1].bonuses == {"shield": 1}
    (damage,) = of_type(fight, Damaged)
    assert (damage.damage, damage.protection, damage.lost) == (6 + 3, 1 + 3, 9 - 4)
    fight = answered(dodge(), [10, 1, 10, 1, 6])
    assert of_type(fight, Tested)[1].bonuses == {"shield weight": -3}


def test_a_grab_brings_the_target_down_without_damage() -> None:
    """Loss, costs table: "Agripper, ceinturer, faire chuter un adversaire: 3 PA", a
    bare-handed test (Corps-à-corps)."""
    fight = one_attack("diego", Declaration("grab", "m"), [10, 1, 10])
    test = of_type(fight, Tested)[0]
    assert (test.test, test.score) == ("grab", 6 + 6)
    assert [(e.effect, e.target) for e in of_type(fight, EffectApplied)] == [("knock_down", "m")]
    assert not of_type(fight, Damaged)
    assert fight.state.combatants["m"].status.prone


def test_a_throw_that_fails_without_exploits_touches_nobody() -> None:
    """Loss, "Les explosions et éclaboussures": "Test échoué sans Exploits: le lanceur
    rate son coup, l'objet explose sans toucher ses cibles"."""
    thrower = sheet("vigile", weapon=WEAPONS["acid_flask"], talents={"arme_de_jet": 5})
    fight = one_attack(
        thrower, Declaration("attack", "m"), [10, 1, 1], positions={"a": (0, 0), "m": (5, 0)}
    )
    assert not of_type(fight, Tested)[0].success
    assert not of_type(fight, Damaged)


@pytest.mark.parametrize(
    ("specialisation", "weapon", "effects", "bonus"),
    [
        ("desarmer", "rapier", ["disarm"], {"desarmer": 5}),  # Armes de mêlée, Désarmer
        ("attaque", "unarmed", ["aim_limb"], {"attaque": 5}),  # Corps-à-corps, Attaque
        ("coup_mortel", "unarmed", ["neutralise"], {"coup mortel": 5}),  # Coup mortel
        ("coup_mortel", "rapier", ["neutralise"], {}),  # a Corps-à-corps one: bare-handed
    ],
)
def test_specialisations_add_5_to_the_exploit_they_name(
    specialisation: str, weapon: str, effects: list[str], bonus: dict[str, int]
) -> None:
    """Loss, "Les talents & spécialisations de combat": "+5 à son Test d'Action quand
    il tente l'Exploit" each names."""
    attacker = sheet("diego", weapon=WEAPONS[weapon], specialisations=(specialisation,))
    d = Declaration("attack", "m", {"effects": effects, "damage": False})
    fight = one_attack(attacker, d, [10, 1, 1])
    assert of_type(fight, Tested)[0].bonuses == bonus


def test_se_mettre_a_couvert_adds_5_to_dodge_a_shot_with_cover_at_hand() -> None:
    """Loss, "Esquive", Se mettre à couvert: "+5 à tout Test d'Esquive contre une
    attaque à distance, à la condition que le personnage ait un abri à portée"."""
    diego = sheet("diego", specialisations=("se_mettre_a_couvert",))
    shot = Declaration("attack", "d", {"inspiration": 2})  # 12 + 10 + 10 = 32 against 25
    fight = arena(
        {
            "d": ("heroes", diego, Plays(answers=[dodge()])),
            "x": ("gang", sheet("archer", inspiration=2), Plays(turns=[shot])),
        },
        positions={"d": (0, 0), "x": (8, 0)},
        setup={"d": {"cover": "partial"}},
        dice=[1, 10, 10, 10],
    )
    run_until(fight, 3)
    assert of_type(fight, Tested)[1].bonuses == {"se mettre a couvert": 5}


def test_a_rain_of_projectiles_reaches_five_targets() -> None:
    """Loss, "Pluie de projectiles": "Le personnage touche toutes les cibles visée
    (avec un maximum de 5)": one test, five targets (minions, felled by the Exploits)."""
    ids = ["m", "t1", "t2", "t3", "t4"]
    rain = {"effects": ["rain_of_projectiles"], "fursa": 2, "inspiration": 2}

    def volley(turns: list[Declaration]):
        archer = sheet("archer", fursa=2, inspiration=2)
        fighters: dict[str, Any] = {"x": ("heroes", archer, Plays(turns=turns))}
        fighters.update({t: ("gang", "thug", Plays(answers=[None])) for t in ids})
        return arena(
            fighters,
            dice=[10, 1, 1, 1, 1, 1, 10],
            positions={"x": (0, 0), **{t: (8.0, 2.0 * i) for i, t in enumerate(ids)}},
            pcs=["x"],
        )

    idle = volley([])
    run_until(idle, 1)
    too_many = Declaration("attack", "m", {**rain, "targets": [*ids[1:], "x"]})
    with pytest.raises(Exception, match="5 different targets at most"):
        idle.ruleset.plan(idle.state, "x", too_many, 0, [])
    fight = volley([Declaration("attack", "m", {**rain, "targets": ids[1:]})])
    run_until(fight, 3)
    assert len(of_type(fight, Tested)) == 1
    out = sorted(e.actor for e in fight.history if type(e).__name__ == "OutOfFight")
    assert out == sorted(ids)
