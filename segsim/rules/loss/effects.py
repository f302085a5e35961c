"""Special effects (Effets Spéciaux) bought with Exploits, and the arithmetic of a test.

A test is d10 + Trait + Talent + bonuses against a difficulty of 15 (or the distance
band of a shot) + combat modifiers + 5 per declared Exploit, at most 5 Exploits (seed
000, "L'Action de Combat"). Effects are declared with the Exploits that pay for them;
an effect marked cumulable may be declared several times (Loss, "Les Effets
Spéciaux en Combat de mêlée", "Les effets spéciaux en combat à distance").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

BASE_DIFFICULTY = 15
EXPLOIT_STEP = 5
MAX_EXPLOITS = 5
POOL_BONUS = 5  # one Fursa, one Inspiration or one free raise
PARTIAL_FROM = 20
"""A failed defence of 20 or more cancels one attacker Exploit per step of 5 from 20."""

RULE_TEST = "Loss, L'Action de Combat"
RULE_MELEE_EFFECTS = "Loss, Les Effets Spéciaux en Combat de mêlée"
RULE_RANGED_EFFECTS = "Loss, Les effets spéciaux en combat à distance"


@attrs.frozen
class Effect:
    """A special effect: its Exploits, on what test it applies, melee and/or ranged."""

    name: str
    exploits: int
    attack: bool = False
    parry: bool = False
    dodge: bool = False
    melee: bool = True
    ranged: bool = False
    cumulable: bool = False
    targets: int = 1  # how many targets one attack may hit with it
    choose_damage: bool = False  # the attacker may deal no damage


EFFECTS: Mapping[str, Effect] = {
    e.name: e
    for e in (
        Effect("assault", 1, attack=True),
        Effect("counter", 1, parry=True, dodge=True, ranged=True),
        Effect("total_dodge", 1, dodge=True, ranged=True, cumulable=True),
        Effect("feint", 1, attack=True, parry=True, dodge=True),
        Effect("extra_damage", 1, attack=True, ranged=True, cumulable=True),
        Effect("defensive_wall", 1, parry=True, cumulable=True),
        Effect(
            "take_advantage", 1, attack=True, parry=True, dodge=True, ranged=True, cumulable=True
        ),
        Effect("protect", 1, parry=True, dodge=True),
        Effect("aim_limb", 1, attack=True, ranged=True, choose_damage=True),
        Effect("two_weapons", 2, attack=True, ranged=True, targets=2),
        Effect("moulinet", 2, attack=True, targets=3),
        Effect("knock_down", 2, attack=True, parry=True, dodge=True, choose_damage=True),
        Effect("precise_zone", 2, attack=True, ranged=True, choose_damage=True),
        Effect("ricochet", 2, attack=True, melee=False, ranged=True),
        Effect("shoot_through", 2, attack=True, melee=False, ranged=True, targets=2),
        Effect("disarm", 3, attack=True, parry=True, dodge=True, ranged=True, choose_damage=True),
        Effect("precise_point", 3, attack=True, ranged=True, choose_damage=True),
        Effect(
            "neutralise", 4, attack=True, parry=True, dodge=True, ranged=True, choose_damage=True
        ),
        Effect("storm_of_blades", 4, attack=True, targets=5),
        Effect("rain_of_projectiles", 4, attack=True, melee=False, ranged=True, targets=5),
        Effect("kill", 5, attack=True, ranged=True),
    )
}
"""Every special effect of the text with its number of Exploits (text 000). In ranged
combat the counter-attack follows a dodge only and disarm applies on an attack only."""

TARGET_MALUS: Mapping[str, int] = {"aim_limb": 2, "precise_zone": 5, "precise_point": 10}
"""Lasting difficulty on every combat action of a target hit by these effects."""
MULTI_TARGET = (
    "two_weapons",
    "moulinet",
    "storm_of_blades",
    "shoot_through",
    "rain_of_projectiles",
)


def exploits_of(effects: Sequence[str]) -> int:
    """Exploits needed by a list of effects."""
    return sum(EFFECTS[e].exploits for e in effects)


def difficulty(base: int, modifiers: Mapping[str, int], exploits: int) -> int:
    return base + sum(modifiers.values()) + EXPLOIT_STEP * exploits


def partial_cancels(total: int, difficulty: int) -> int:
    """Exploits of the attacker a failed defence cancels: one per step of 5 from 20
    (Loss, "Le défenseur réussit partiellement")."""
    if total >= difficulty or total < PARTIAL_FROM:
        return 0
    return 1 + (total - PARTIAL_FROM) // EXPLOIT_STEP


def keep_effects(
    effects: Sequence[str], exploits: int, cancelled: int
) -> tuple[tuple[str, ...], int]:
    """The effects and Exploits left after ``cancelled`` are cancelled: Exploits no effect
    uses go first, then effects from the last declared (Interpretations)."""
    left = max(0, exploits - cancelled)
    kept = list(effects)
    while kept and exploits_of(kept) > left:
        kept.pop()
    return tuple(kept), left


def outcome(attack_success: bool, defence_success: bool | None) -> str:
    """The four outcomes of an attack against a defence (text 000): the attack misses
    when the attacker fails; it is stopped when both succeed; it hits when the attacker
    succeeds and the defender fails (or does not defend)."""
    if not attack_success:
        return "missed"
    if defence_success:
        return "stopped"
    return "hit"
