"""Action categories and modes of attack (Loreval, "Actions", "Mode d'action",
"Catégorie des actions").

An action falls in a category from 1 to 5 (6 with super-active): its cost in initiative
points. The mode of attack and the number of attacks give the category and the malus of
each attack (chained attacks, attaques enchaînées, at -5 cumulative); extra moves,
readying a weapon, slow and haste shift the category.
"""

from __future__ import annotations

from collections.abc import Mapping

from segsim.rules.loreval.content import TEXT, Sheet, Weapon

RULE_CATEGORIES = f"{TEXT}, Catégorie des actions"
RULE_MODES = f"{TEXT}, Mode d'action"
RULE_EXTRA_MOVE = f"{TEXT}, Déplacement supplémentaire"

ATTACK_MODES = (
    "unarmed",  # pugilat
    "one_weapon",  # une arme simple
    "two_weapons",  # deux armes ou arme double
    "two_handed",  # deux mains
    "thrown",  # lancer
    "fast_missile",  # projectile rapide
    "slow_missile",  # projectile lent
)

CATEGORY_BY_ATTACKS: Mapping[str, Mapping[int, int]] = {
    "unarmed": {1: 1, 2: 2, 3: 3, 4: 4, 5: 5},
    "one_weapon": {1: 1, 2: 3, 3: 5},
    "two_weapons": {2: 2, 3: 3, 4: 4, 5: 5},
    "two_handed": {1: 2, 2: 4},
    "thrown": {1: 1, 2: 3, 3: 5},
    "fast_missile": {1: 2, 2: 4},
    "slow_missile": {1: 3},
}
"""Category of N attacks in each mode (Loreval, "Catégorie des actions")."""

FIXED_CATEGORY: Mapping[str, int] = {
    "move": 1,
    "counter": 1,
    "inaction": 1,
    "grapple": 3,
    "disarm": 3,
    "sunder": 3,
    "trip": 2,
    "whirlwind": 5,
    "skill": 5,
}
"""Actions of a fixed category (a move, a counter, inaction, a grapple attack, the
manoeuvres with their own category, the use of a skill)."""

CHAIN_STEP = -5


def chain_maluses(mode: str, attacks: int) -> tuple[int, ...]:
    """The chained-attack malus of each attack in order: -5 cumulative from the second
    one in the modes of one weapon, two hands, thrown and missiles; from the third one
    with two weapons, a double weapon or fists (each hand's first attack is plain)."""
    key = (mode, attacks)
    found = _CHAINS.get(key)  # (made once for each mode and number of attacks)
    if found is None:
        if mode in ("two_weapons", "unarmed"):
            found = tuple(0 if i < 2 else CHAIN_STEP * (i - 1) for i in range(attacks))
        else:
            found = tuple(CHAIN_STEP * i for i in range(attacks))
        if len(_CHAINS) >= 256:
            _CHAINS.clear()
        _CHAINS[key] = found
    return found


_CHAINS: dict[tuple[str, int], tuple[int, ...]] = {}
"""The maluses :func:`chain_maluses` worked out, by mode and number of attacks."""


def two_weapon_maluses(sheet: Sheet, weapon: Weapon, off: Weapon | None) -> tuple[int, int]:
    """The initial malus of two-weapon fighting, main hand and off hand: D&D 3's -6/-10,
    -4/-8 with a light off-hand weapon (or a double weapon); the talent two-weapon
    fighting makes them -4/-4 and -2/-2 (Interpretations)."""
    light = weapon.double or (off is not None and off.light)
    if sheet.has("two_weapon_fighting"):
        return (-2, -2) if light else (-4, -4)
    return (-4, -8) if light else (-6, -10)


def mode_of(weapon: Weapon, off_hand: Weapon | None, attacks: int) -> str:
    """The mode of an attack of ``attacks`` blows with what the fighter holds: two weapons
    (or a double weapon) from 2 attacks when it can, else the weapon's own mode."""
    if weapon.mode == "unarmed":
        return "unarmed"
    if weapon.ranged:
        return weapon.mode
    if attacks >= 2 and (off_hand is not None or weapon.double):
        return "two_weapons"
    if weapon.hands == 2 and not weapon.double:
        return "two_handed"
    return "one_weapon"


def attack_category(mode: str, attacks: int) -> int | None:
    """The category of ``attacks`` attacks in ``mode`` (None: not possible)."""
    return CATEGORY_BY_ATTACKS[mode].get(attacks)


def spell_category(material: bool, target: bool, ritual: bool, aimed: bool) -> int:
    """A spell: 2 without material component nor target, 3 with one of them, 4 with
    both, 5 for a ritual of one round; one more when it must be aimed or touch (Loreval,
    "Lancement d'un sort")."""
    base = 5 if ritual else 2 + int(material) + int(target)
    return base + int(aimed)


def adjusted_category(
    base: int, *, extra_moves: int = 0, ready: int = 0, slow: bool = False, haste: bool = False
) -> int:
    """The category after extra moves (+1 each), readying a weapon (+1), slow (+1) and
    haste (-1, never below 1)."""
    category = base + extra_moves + ready + int(slow)
    if haste:
        category = max(1, category - 1)
    return category
