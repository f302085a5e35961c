"""Loreval game content: weapons, armour, shields and fighter sheets (text 003).

The excerpt gives the armour and shield table, the sizes and the movement speed; it
names skills and modes of attack but no weapon list, damage dice or hit points: those
follow D&D 3, the game Loreval adapts (RULES-NOTES, Loreval; docs/rules/loreval.md,
"Interpretations"). Everything is validated on load; every error names the file, the
line and the field.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import attrs

from segsim.input import Node, Source, item_or_table, read_entries
from segsim.models import models_dir
from segsim.rules.damage import DamageDice, parse_damage

TEXT = "Loreval"

CHARACTERISTICS = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
SKILLS = (
    "initiative",
    "strength_attack",  # attaque en force
    "skilful_attack",  # attaque habile
    "defence",  # défense (parer, dévier, encaisser)
    "reflex",  # réflexe (esquiver, évitement)
    "perception",
    "acrobatics",
    "evasion",
)
OPTIONAL_SKILLS = ("concentration", "jump", "vigour", "will")
"""Skills a sheet may give; absent, they are 0 (kept out of the sheet's data then)."""
MODES = ("unarmed", "melee", "thrown", "fast_missile", "slow_missile")
ARMOUR_CATEGORIES = ("none", "light", "medium", "heavy")
PACE = {"light": 5, "medium": 4, "heavy": 3}
"""Most moves in a round by armour category (Loreval, "Limitation d'allure")."""
ARMOUR_TALENT = {"light": "adventurer", "medium": "medium_armour", "heavy": "heavy_armour"}
"""The talent that lets a fighter wear a category of armour without malus (Aventurier,
Port des armures moyennes, Port des armures lourdes)."""
ATTENTION_RACES = ("elfin", "tifin", "mielfin")

SIZES = ("I", "Mi", "TP", "P", "M", "G", "TG", "Gi", "C")
"""Size categories, from Infime to Colossale (Loreval, "La taille, un avantage pour la
lutte")."""
GRAPPLE_SIZE = {"I": -16, "Mi": -12, "TP": -8, "P": -4, "M": 0, "G": 4, "TG": 8, "Gi": 12, "C": 16}
SPEED_SIZE = {
    "I": Fraction(1, 6),
    "Mi": Fraction(1, 6),
    "TP": Fraction(1, 3),
    "P": Fraction(2, 3),
    "M": Fraction(1),
    "G": Fraction(4, 3),
    "TG": Fraction(5, 3),
    "Gi": Fraction(2),
    "C": Fraction(3),
}
"""Movement speed multipliers by size (Loreval, "Déplacement"; Infime is not in the
table and moves like Minuscule, Gigantesque is read as Énorme: Interpretations)."""
BASE_SPEED = 5.0
SPEED_STEP = 0.2


def modifier(score: int) -> int:
    """A characteristic's modifier (D&D 3): 10-11 give 0, every 2 points one more or less."""
    return (score - 10) // 2


def round_decimetre(metres: float) -> float:
    """Speeds are rounded to the decimetre, halves up (Loreval, "Déplacement")."""
    return math.floor(metres * 10 + 0.5 + 1e-9) / 10


LOCOMOTION: Mapping[str, Mapping[str, float]] = {
    "walk": {"humanoid": BASE_SPEED, "quadruped": 8.0},
    "swim": {"humanoid": 3.0, "amphibious": 6.0, "quadruped": 4.0},
    "fly": {"self_propelled": 5.0, "winged": 12.0},
}
"""Raw movement speed (VD brute, metres) of each mode of locomotion and kind (Loreval,
"Déplacement": marcher, nager, vol auto-porté, vol ailé)."""
DEFAULT_LOCOMOTION: Mapping[str, str] = {"walk": "humanoid", "swim": "humanoid"}
"""A fighter walks and swims as a humanoid unless its sheet says otherwise."""


def movement_speed(
    characteristics: Mapping[str, int], size: str, base: float = BASE_SPEED
) -> float:
    """Movement speed (VD, metres): 5 m (or the raw speed of another mode of locomotion),
    +0.2 m per point of the best of strength, dexterity and constitution above 10, -0.2 m
    per point of the lowest below 10, times the size's multiplier, rounded to the
    decimetre (Loreval, "Déplacement")."""
    scores = [characteristics[c] for c in ("strength", "dexterity", "constitution")]
    best, worst = max(scores), min(scores)
    raw = base + SPEED_STEP * max(0, best - 10) - SPEED_STEP * max(0, 10 - worst)
    return round_decimetre(float(Fraction(raw).limit_denominator(1000) * SPEED_SIZE[size]))


@attrs.frozen
class Weapon:
    """A weapon: its mode of attack, damage, critical threat range and multiplier."""

    id: str
    name: str
    mode: str
    damage: DamageDice
    critical: int = 20
    multiplier: int = 2
    hands: int = 1
    double: bool = False
    light: bool = False
    polearm: bool = False
    skill: str = "strength"
    range: float = 0.0
    durability: int = 10
    """Damage a sundered weapon takes before it breaks (Interpretations)."""

    @functools.cached_property
    def ranged(self) -> bool:
        """A thrown or missile weapon (read often: kept once worked out)."""
        return self.mode in ("thrown", "fast_missile", "slow_missile")


FISTS = Weapon("fist", "poing", "unarmed", DamageDice(1, 3), light=True)
"""What a disarmed fighter strikes with (D&D 3's unarmed strike)."""


@attrs.frozen
class Armour:
    id: str
    name: str
    protection: int
    malus: int
    category: str


NO_ARMOUR = Armour("none", "sans armure", 0, 0, "none")


@attrs.frozen
class Shield:
    id: str
    name: str
    protection: int
    malus: int


@attrs.frozen
class Sheet:
    """A Loreval fighter's sheet: characteristics, skill totals, equipment, talents."""

    name: str
    race: str
    size: str
    characteristics: Mapping[str, int]
    skills: Mapping[str, int]
    hit_points: int
    weapon: Weapon
    off_hand: Weapon | None = None
    carried: tuple[Weapon, ...] = ()
    armour: Armour = NO_ARMOUR
    shield: Shield | None = None
    closed_helm: bool = False
    heroism: int = 0
    attack_mastery: int = 0
    characteristic_training: int = 0
    perception_mastery: int = 0
    sneak_attack: int = 0
    perfidious_attack: int = 0
    talents: tuple[str, ...] = ()
    locomotion: Mapping[str, str] = attrs.field(factory=dict)
    """Modes of locomotion other than the default humanoid walk and swim."""

    def mod(self, characteristic: str) -> int:
        return modifier(self.characteristics[characteristic])

    def skill(self, name: str) -> int:
        if name in OPTIONAL_SKILLS:
            return self.skills.get(name, 0)
        return self.skills[name]

    def has(self, talent: str) -> bool:
        return talent in self.talents

    @functools.cached_property
    def attention_points(self) -> int:
        """2, +1 per 4 ranks of characteristic training, +1 for an Elfin, Tifin or Mielfin,
        +1 at 10 degrees of perception mastery; never below 1 (Loreval, "Nombre de
        points d'attention")."""
        points = 2 + self.characteristic_training // 4
        points += int(self.race in ATTENTION_RACES)
        points += int(self.perception_mastery >= 10)
        return max(1, points)

    @functools.cached_property
    def speed(self) -> float:
        """Movement speed (VD) in metres, walking."""
        speed = self.speed_in("walk")
        assert speed is not None  # every fighter walks
        return speed

    @functools.cached_property
    def _speeds(self) -> dict[str, float | None]:
        """The speeds worked out so far, by mode (a sheet never changes)."""
        return {}

    def speed_in(self, mode: str) -> float | None:
        """Movement speed in a mode of locomotion (walk, swim, fly); None when the fighter
        cannot move that way (worked out once per sheet and mode)."""
        speeds = self._speeds
        if mode in speeds:
            return speeds[mode]
        kind = self.locomotion.get(mode, DEFAULT_LOCOMOTION.get(mode))
        speed = (
            None
            if kind is None
            else movement_speed(self.characteristics, self.size, LOCOMOTION[mode][kind])
        )
        speeds[mode] = speed
        return speed

    @functools.cached_property
    def pace(self) -> int:
        """Most moves in a round (armour's "Limitation d'allure"); 5 without armour, 6 with
        the talent Course (run) or super-active."""
        base = 6 if self.has("run") or self.has("super_active") else 5
        return min(base, PACE.get(self.armour.category, base))

    @functools.cached_property
    def max_category(self) -> int:
        """Highest action category: 5, or 6 with the talent super-active."""
        return 6 if self.has("super_active") else 5

    @functools.cached_property
    def armour_untrained(self) -> bool:
        talent = ARMOUR_TALENT.get(self.armour.category)
        return talent is not None and not self.has(talent)

    @functools.cached_property
    def combat_malus(self) -> int:
        """Armour and shield maluses that weigh on combat skills: only without the talent
        for that armour, or without Maniement du bouclier (Loreval, "Malus lié au port
        et à l'utilisation des protections")."""
        malus = self.armour.malus if self.armour_untrained else 0
        if self.shield is not None and not self.has("shield_use"):
            malus += self.shield.malus
        return malus

    @functools.cached_property
    def body_malus(self) -> int:
        """Armour malus on the Body skills (acrobatics) and concentration, always."""
        return self.armour.malus + (self.shield.malus if self.shield is not None else 0)

    @functools.cached_property
    def passive_defence(self) -> int:
        """Defence without a roll: 10 + defence + armour + shield (D&D 3 convention)."""
        shield = self.shield.protection if self.shield is not None else 0
        return 10 + self.skill("defence") + self.armour.protection + shield + self.combat_malus

    @functools.cached_property
    def passive_reflex(self) -> int:
        """Reflex without a roll: 10 + reflex + armour (a shield does not help a dodge)."""
        return 10 + self.skill("reflex") + self.armour.protection + self.combat_malus

    @property
    def weapons(self) -> tuple[Weapon, ...]:
        held = (self.weapon,) if self.off_hand is None else (self.weapon, self.off_hand)
        return (*held, *self.carried)


@attrs.frozen
class Content:
    weapons: Mapping[str, Weapon]
    armours: Mapping[str, Armour]
    shields: Mapping[str, Shield]
    fighters: Mapping[str, Node]


# ---------------------------------------------------------------- readers


def read_weapon(node: Node, wid: str) -> Weapon:
    mode = node.value("mode", str, choices=MODES)
    try:
        damage = parse_damage(node.value("damage", str))
    except ValueError as exc:
        raise node.error("damage", str(exc)) from None
    ranged = mode in ("thrown", "fast_missile", "slow_missile")
    if ranged:
        rng = node.value("range", float, min=1.0)
    else:
        if node.has("range"):
            raise node.error("range", f"a {mode} weapon strikes at contact: no range")
        rng = 0.0
    weapon = Weapon(
        id=node.value("id", str, wid),
        name=node.value("name", str, wid),
        mode=mode,
        damage=damage,
        critical=node.value("critical", int, 20, min=2, max=20),
        multiplier=node.value("multiplier", int, 2, min=2, max=4),
        hands=node.value("hands", int, 1, choices=(1, 2)),
        double=node.value("double", bool, False),
        light=node.value("light", bool, False),
        polearm=node.value("polearm", bool, False),
        skill=node.value("skill", str, "strength", choices=("strength", "skilful")),
        range=rng,
        durability=node.value("durability", int, 10, min=1, max=1000),
    )
    if weapon.double and weapon.hands != 2:
        raise node.error("double", "a double weapon is held in both hands (hands = 2)")
    node.finish()
    return weapon


def read_armour(node: Node, aid: str) -> Armour:
    armour = Armour(
        id=node.value("id", str, aid),
        name=node.value("name", str, aid),
        protection=node.value("protection", int, min=0, max=20),
        malus=node.value("malus", int, 0, min=-20, max=0),
        category=node.value("category", str, choices=ARMOUR_CATEGORIES),
    )
    node.finish()
    return armour


def read_shield(node: Node, sid: str) -> Shield:
    shield = Shield(
        id=node.value("id", str, sid),
        name=node.value("name", str, sid),
        protection=node.value("protection", int, min=0, max=10),
        malus=node.value("malus", int, 0, min=-20, max=0),
    )
    node.finish()
    return shield


T = TypeVar("T")


def load_content(folder: Path | None = None) -> Content:
    """Read and validate ``models/loreval`` (or another folder of the same layout)."""
    folder = folder or models_dir() / "loreval"
    weapons = read_entries(folder, "weapons.toml", "weapon", read_weapon)
    armours = read_entries(folder, "armour.toml", "armour", read_armour)
    armours.setdefault("none", NO_ARMOUR)
    shields = read_entries(folder, "shields.toml", "shield", read_shield)
    fighters = Source.read(folder / "fighters.toml").entries("fighter")
    content = Content(weapons, armours, shields, fighters)
    for node in fighters.values():
        read_sheet(node, content)
    return content


@functools.cache
def default_content() -> Content:
    return load_content()


def _strings(node: Node, key: str) -> tuple[str, ...]:
    raw = node.value(key, list, [])
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            raise node.error(key, f"entry {i} is not a non-empty string: {item!r}")
    return tuple(raw)


def _weapon_list(node: Node, key: str, content: Content) -> tuple[Weapon, ...]:
    out = []
    for i, item in enumerate(node.value(key, list, [])):
        if isinstance(item, str):
            if item not in content.weapons:
                known = ", ".join(sorted(content.weapons))
                raise node.error(key, f"entry {i}: unknown weapon {item!r} (known: {known})")
            out.append(content.weapons[item])
        elif isinstance(item, Mapping):
            out.append(read_weapon(Node(node.source, item, (*node.path, key, i)), f"{key}{i}"))
        else:
            raise node.error(key, f"entry {i}: expected a weapon id or table, got {item!r}")
    return tuple(out)


def _locomotion(node: Node) -> dict[str, str]:
    """``locomotion = { walk = "quadruped", swim = "amphibious", fly = "winged" }``."""
    if not node.has("locomotion"):
        return {}
    table = node.table("locomotion")
    out = {m: table.value(m, str, choices=tuple(LOCOMOTION[m])) for m in LOCOMOTION if table.has(m)}
    table.finish()
    return out


def read_sheet(node: Node, content: Content) -> Sheet:
    """A sheet from a table: equipment by id or as full tables."""
    ch = node.table("characteristics")
    characteristics = {c: ch.value(c, int, min=1, max=50) for c in CHARACTERISTICS}
    ch.finish()
    sk = node.table("skills")
    skills = {s: sk.value(s, int, 0, min=-20, max=60) for s in SKILLS}
    skills.update({s: sk.value(s, int, min=-20, max=60) for s in OPTIONAL_SKILLS if sk.has(s)})
    sk.finish()
    weapon = item_or_table(node, "weapon", content.weapons, "weapon", read_weapon)
    off_hand = None
    if node.has("off_hand"):
        off_hand = item_or_table(node, "off_hand", content.weapons, "weapon", read_weapon)
    shield = None
    if node.has("shield"):
        shield = item_or_table(node, "shield", content.shields, "shield", read_shield)
    armour = NO_ARMOUR
    if node.has("armour"):
        armour = item_or_table(node, "armour", content.armours, "armour", read_armour)
    if off_hand is not None:
        if off_hand.hands != 1 or off_hand.ranged:
            raise node.error("off_hand", f"{off_hand.name} is not a one-handed melee weapon")
        if shield is not None:
            raise node.error("off_hand", "a hand holding a shield cannot hold a weapon")
    if weapon.hands == 2 and (off_hand is not None or shield is not None):
        key = "off_hand" if off_hand is not None else "shield"
        raise node.error(key, f"the {weapon.name} needs both hands")
    sheet = Sheet(
        name=node.value("name", str, ""),
        race=node.value("race", str, "human"),
        size=node.value("size", str, "M", choices=SIZES),
        characteristics=characteristics,
        skills=skills,
        hit_points=node.value("hit_points", int, min=1, max=10_000),
        weapon=weapon,
        off_hand=off_hand,
        carried=_weapon_list(node, "carried", content),
        armour=armour,
        shield=shield,
        closed_helm=node.value("closed_helm", bool, False),
        heroism=node.value("heroism", int, 0, min=0, max=3),
        attack_mastery=node.value("attack_mastery", int, 0, min=0, max=40),
        characteristic_training=node.value("characteristic_training", int, 0, min=0, max=40),
        perception_mastery=node.value("perception_mastery", int, 0, min=0, max=40),
        sneak_attack=node.value("sneak_attack", int, 0, min=0, max=20),
        perfidious_attack=node.value("perfidious_attack", int, 0, min=0, max=20),
        talents=_strings(node, "talents"),
        locomotion=_locomotion(node),
    )
    node.finish()
    return sheet


def _plain(obj: Any) -> Any:
    def value(_inst: Any, _attr: Any, v: Any) -> Any:
        if isinstance(v, DamageDice):
            return str(v)
        if isinstance(v, tuple):
            return list(v)
        return v

    return attrs.asdict(obj, recurse=False, value_serializer=value)


def _weapon_data(w: Weapon) -> dict[str, Any]:
    data: dict[str, Any] = _plain(w)
    if not w.ranged:
        del data["range"]
    return data


def sheet_data(sheet: Sheet) -> dict[str, Any]:
    """The full sheet as plain data, readable back by :func:`read_sheet`."""
    data: dict[str, Any] = {
        "name": sheet.name,
        "race": sheet.race,
        "size": sheet.size,
        "characteristics": dict(sheet.characteristics),
        "skills": dict(sheet.skills),
        "hit_points": sheet.hit_points,
        "weapon": _weapon_data(sheet.weapon),
        "carried": [_weapon_data(w) for w in sheet.carried],
        "armour": _plain(sheet.armour),
        "closed_helm": sheet.closed_helm,
        "heroism": sheet.heroism,
        "attack_mastery": sheet.attack_mastery,
        "characteristic_training": sheet.characteristic_training,
        "perception_mastery": sheet.perception_mastery,
        "sneak_attack": sheet.sneak_attack,
        "perfidious_attack": sheet.perfidious_attack,
        "talents": list(sheet.talents),
    }
    if sheet.locomotion:
        data["locomotion"] = dict(sheet.locomotion)
    if sheet.off_hand is not None:
        data["off_hand"] = _weapon_data(sheet.off_hand)
    if sheet.shield is not None:
        data["shield"] = _plain(sheet.shield)
    return data
