"""The tables of the Loreval text (text 003) as tests: attention modifiers, exposure,
focus by category, categories of the modes of attack, chained attacks, extra movement,
attention points, movement speed (with the text's worked examples), armour."""

from __future__ import annotations

import pytest

from segsim.rules.loreval.attention import (
    Attention,
    exposure,
    focus_modifier,
    focus_needed,
    movement_modifier,
    perception_modifier,
    scores,
    sneak_possible,
)
from segsim.rules.loreval.categories import (
    adjusted_category,
    attack_category,
    chain_maluses,
    spell_category,
)
from segsim.rules.loreval.content import default_content, movement_speed
from segsim.testing import sheet

# Loreval, "Tableau récapitulatif des modificateurs d'attention": score -> (E, S, F)
ATTENTION_TABLE = {
    -3: (-8, -8, -4),
    -2: (-6, -6, -3),
    -1: (-4, -4, -2),
    0: (0, 0, 0),
    1: (0, 0, 0),
    2: (0, 0, 0),
    3: (4, 4, 2),
    4: (6, 6, 3),
    5: (8, 8, 4),
}
# the same table, "Déplacement supplémentaire": extra moves -> malus on E, S and F
MOVEMENT_TABLE = {0: 0, 1: -4, 2: -6, 3: -8, 4: -10, 5: -12}


@pytest.mark.parametrize(("score", "row"), ATTENTION_TABLE.items())
def test_the_attention_modifier_table(score: int, row: tuple[int, int, int]) -> None:
    env, sec, foc = row
    assert perception_modifier(score) == env
    assert perception_modifier(score) == sec  # Security uses the same column values
    assert focus_modifier(score) == foc


@pytest.mark.parametrize(("moves", "malus"), MOVEMENT_TABLE.items())
def test_the_extra_movement_table(moves: int, malus: int) -> None:
    assert movement_modifier(moves) == malus


def test_the_worked_example_of_three_extra_moves() -> None:
    """Loreval, "Déplacement supplémentaire": 2 attacks with two weapons (category 2)
    and 3 extra moves reach category 5 and act at -8."""
    assert attack_category("two_weapons", 2) == 2
    assert adjusted_category(2, extra_moves=3) == 5
    assert movement_modifier(3) == -8


def test_a_closed_helm_limits_environment_and_lost_senses_make_scores_negative() -> None:
    """Loreval, "Critères d'attention": 2 points in Environment under a closed helm
    give a score of 1; a lost sense is -1 in every criterion."""
    assert scores(Attention(2, 0, 0), environment_limit=1).environment == 1
    assert scores(Attention(0, 1, 2), malus=1) == Attention(-1, 0, 1)
    assert scores(Attention(0, 0, 0), malus=2, floor=0) == Attention(0, 0, 0)


@pytest.mark.parametrize(
    ("security", "aware", "unaware", "malus"),
    [
        (0, 1, 0, 0),  # Security 0 faces 1 source
        (0, 2, 0, -4),  # more sources it knows of: exposed
        (1, 2, 0, 0),
        (1, 3, 0, -4),
        (1, 1, 1, -4),  # an unknown source still covered: exposed
        (1, 2, 1, -6),  # an unknown source not covered: doubly exposed
        (0, 0, 1, -4),
        (0, 1, 1, -6),
        (-1, 1, 0, -4),  # a negative Security covers nothing
    ],
)
def test_exposure(security: int, aware: int, unaware: int, malus: int) -> None:
    """Loreval, "Sécurité": a fighter faces Security + 1 sources of danger."""
    assert exposure(security, aware, unaware) == malus


@pytest.mark.parametrize(("category", "focus"), [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2)])
def test_focus_needed_by_category(category: int, focus: int) -> None:
    assert focus_needed(category) == focus


def test_sneak_and_perfidious_attacks_need_focus_two_above_security() -> None:
    """Loreval, "Attaque sournoise et attaque perfide": Focus >= Security + 2; sneak
    attack ranks count as virtual Focus for that, perfidious attack has none."""
    assert sneak_possible(2, 0)
    assert not sneak_possible(2, 1)
    assert sneak_possible(0, 1, virtual=3)
    assert not sneak_possible(1, 1)


@pytest.mark.parametrize(
    ("mode", "attacks", "category"),
    [
        ("one_weapon", 1, 1),
        ("one_weapon", 2, 3),
        ("one_weapon", 3, 5),
        ("two_weapons", 2, 2),
        ("two_weapons", 3, 3),
        ("two_weapons", 4, 4),
        ("two_weapons", 5, 5),
        ("two_handed", 1, 2),
        ("two_handed", 2, 4),
        ("thrown", 1, 1),
        ("thrown", 2, 3),
        ("thrown", 3, 5),
        ("fast_missile", 1, 2),
        ("fast_missile", 2, 4),
        ("slow_missile", 1, 3),
        ("unarmed", 1, 1),
        ("unarmed", 5, 5),
    ],
)
def test_categories_of_the_modes_of_attack(mode: str, attacks: int, category: int) -> None:
    """Loreval, "Catégorie des actions"."""
    assert attack_category(mode, attacks) == category


@pytest.mark.parametrize(
    ("mode", "attacks"), [("one_weapon", 2 + 2), ("two_handed", 3), ("slow_missile", 2)]
)
def test_what_no_category_holds(mode: str, attacks: int) -> None:
    assert attack_category(mode, attacks) is None


def test_chained_attacks() -> None:
    """Loreval, "Mode d'action": -5 cumulative from the second attack with one weapon;
    with two weapons each hand's first attack is plain, then -5, -10, -15."""
    assert chain_maluses("one_weapon", 3) == (0, -5, -10)
    assert chain_maluses("two_weapons", 5) == (0, 0, -5, -10, -15)
    assert chain_maluses("unarmed", 3) == (0, 0, -5)
    assert chain_maluses("two_handed", 2) == (0, -5)


def test_spell_categories_and_add_ons() -> None:
    """Loreval, "Catégorie des actions" and "Certains addon...": readying, slow, haste."""
    assert spell_category(False, False, False, False) == 2
    assert spell_category(True, False, False, False) == 3
    assert spell_category(False, True, False, False) == 3
    assert spell_category(True, True, False, False) == 4
    assert spell_category(False, True, False, True) == 4  # aimed: one more
    assert spell_category(False, False, True, False) == 5
    assert adjusted_category(1, ready=1) == 2
    assert adjusted_category(4, slow=True) == 5
    assert adjusted_category(3, haste=True) == 2
    assert adjusted_category(1, haste=True) == 1


@pytest.mark.parametrize(
    ("characteristics", "size", "speed"),
    [
        ({"dexterity": 14, "strength": 12, "constitution": 9}, "P", 3.7),  # the Tifin
        ({"dexterity": 12, "strength": 9, "constitution": 12}, "M", 5.2),  # the Elfin
        ({"dexterity": 12, "strength": 35, "constitution": 18}, "TG", 16.7),  # the titan
        ({"dexterity": 10, "strength": 10, "constitution": 10}, "M", 5.0),
    ],
)
def test_movement_speed_worked_examples(
    characteristics: dict[str, int], size: str, speed: float
) -> None:
    """Loreval, "Déplacement", its three examples."""
    assert movement_speed(characteristics, size) == speed


def test_attention_points() -> None:
    """Loreval, "Nombre de points d'attention": 2, +1 per 4 ranks of characteristic
    training, +1 for an Elfin, +1 at 10 degrees of perception."""
    assert sheet("garrok", "loreval").attention_points == 2
    assert sheet("aldren", "loreval").attention_points == 3  # 4 ranks of training
    assert sheet("sylva", "loreval").attention_points == 3  # an Elfin
    assert sheet("sylva", "loreval", perception_mastery=10).attention_points == 4


def test_the_armour_table_and_pace() -> None:
    """Loreval, "Liste des armures", "Limitation d'allure"."""
    content = default_content()
    rows = {a.id: (a.protection, a.malus, a.category) for a in content.armours.values()}
    assert rows["padded"] == (1, 0, "light")
    assert rows["chain_shirt"] == (4, -2, "light")
    assert rows["chainmail"] == (5, -5, "medium")
    assert rows["full_plate"] == (8, -6, "heavy")
    assert (content.shields["pavise"].protection, content.shields["pavise"].malus) == (4, -10)
    aldren = sheet("aldren", "loreval")  # chainmail, trained, steel shield
    assert aldren.pace == 4
    assert aldren.passive_defence == 10 + 6 + 5 + 2
    assert aldren.passive_reflex == 10 + 3 + 5  # the shield does not help a dodge
    untrained = sheet("aldren", "loreval", talents=("adventurer",))
    assert untrained.combat_malus == -5 - 2
