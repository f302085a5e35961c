"""Chroniques game content: weapons, armour, shields, profiles and fighter sheets.

The excerpt (text 001) names the attack tests, DEF, the untrained and forbidden
equipment rules but gives no equipment list, damage dice or hit points: the example
content in ``models/chroniques/`` uses the conventional values of that game family
(docs/rules/chroniques.md, "Interpretations"). Everything is validated on load and every
error names the file, the line and the field (DESIGN, principle 9).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from segsim.input import Node, Source, item_or_table, read_entries
from segsim.models import models_dir
from segsim.rules.damage import DamageDice, parse_damage

TEXT = "Chroniques"

ABILITIES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
"""FOR, DEX, CON, INT, SAG, CHA (force, dextérité, constitution, intelligence, sagesse,
charisme): scores, each with a modifier (score - 10) // 2."""
WEAPON_KINDS = ("melee", "ranged", "magic")
"""The three attack tests: au contact (FOR), à distance (DEX), magique (the profile's
magic ability) (Chroniques, "Résolution des attaques")."""
FREE_KINDS = ("move", "attack")
"""What a capability may let a fighter take as a free action (Chroniques, "Les actions")."""
MAX_LEVEL = 20


def modifier(score: int) -> int:
    """The modifier of an ability score: 10-11 give 0, every 2 points one more or less."""
    return (score - 10) // 2


@attrs.frozen
class Weapon:
    """A weapon: its attack test (kind), damage dice, critical range, hands and range."""

    id: str
    name: str
    kind: str  # melee | ranged | magic
    damage: DamageDice
    critical: int = 20  # lowest d20 face of a critical success
    hands: int = 1
    range: float = 0.0  # metres, ranged and magic weapons
    strength: bool = False  # adds the FOR modifier to damage (always true for melee)
    tags: tuple[str, ...] = ()

    @property
    def light(self) -> bool:
        """A light weapon deals at most 1d6 (Chroniques, "Combat à deux armes")."""
        return self.damage.maximum <= 6

    @property
    def at_range(self) -> bool:
        return self.kind != "melee"

    @property
    def adds_strength(self) -> bool:
        return self.kind == "melee" or self.strength


@attrs.frozen
class Armour:
    """Armour: its DEF bonus; ``tags`` ("heavy") serve trainings and interdictions."""

    id: str
    name: str
    defence: int
    tags: tuple[str, ...] = ()


NO_ARMOUR = Armour("none", "no armour", 0)


@attrs.frozen
class Shield:
    id: str
    name: str
    defence: int
    tags: tuple[str, ...] = ("shield",)


@attrs.frozen
class Profile:
    """A character profile: hit die, trained equipment, forbidden equipment.

    ``weapons`` lists trained weapon ids or tags ("*" for all). ``forbidden`` and
    ``taboo`` list ids or tags the profile may not use; a taboo is a moral interdiction
    (Chroniques, "Équipement interdit").
    """

    id: str
    name: str
    hit_die: int
    weapons: tuple[str, ...] = ("*",)
    armour_max: int = 99  # highest armour DEF bonus the profile is trained for
    shield: bool = True
    forbidden: tuple[str, ...] = ()
    taboo: tuple[str, ...] = ()
    magic_ability: str = "intelligence"


Item = Weapon | Armour | Shield


@attrs.frozen
class Sheet:
    """A Chroniques fighter's sheet: profile, level, abilities and equipment.

    ``weapon`` is in hand, ``off_hand`` in the other hand (two-weapon fighting),
    ``carried`` can be drawn with a move action. ``stealth`` is the bonus de discrétion
    added to an ambush's difficulty; ``speed`` the metres of one move action.
    """

    name: str
    profile: Profile
    level: int
    abilities: Mapping[str, int]
    weapon: Weapon
    hit_points: int
    off_hand: Weapon | None = None
    carried: tuple[Weapon, ...] = ()
    armour: Armour = NO_ARMOUR
    shield: Shield | None = None
    initiative_bonus: int = 0
    defence_bonus: int = 0
    stealth: int = 0
    speed: float = 20.0
    capabilities: tuple[str, ...] = ()
    free_actions: tuple[str, ...] = ()

    def mod(self, ability: str) -> int:
        return modifier(self.abilities[ability])

    # ------------------------------------------------ training and interdictions

    def forbids(self, item: Item | None) -> bool:
        """Whether the profile forbids this item (by id or tag)."""
        if item is None:
            return False
        names = {item.id, *item.tags}
        return bool(names & {*self.profile.forbidden, *self.profile.taboo})

    def taboo(self, item: Item | None) -> bool:
        if item is None:
            return False
        return bool({item.id, *item.tags} & set(self.profile.taboo))

    def trained_weapon(self, weapon: Weapon) -> bool:
        known = set(self.profile.weapons)
        trained = "*" in known or bool({weapon.id, *weapon.tags} & known)
        return trained and not self.forbids(weapon)

    @functools.cached_property
    def armour_untrained(self) -> bool:
        if self.armour == NO_ARMOUR:
            return False
        return self.armour.defence > self.profile.armour_max or self.forbids(self.armour)

    @functools.cached_property
    def shield_untrained(self) -> bool:
        if self.shield is None:
            return False
        return not self.profile.shield or self.forbids(self.shield)

    @functools.cached_property
    def equipment_malus(self) -> int:
        """-3 per untrained shield and armour: to initiative, attack and FOR/DEX tests
        (Chroniques, "PJ incompétent")."""
        return -3 * (int(self.shield_untrained) + int(self.armour_untrained))

    def test_malus(self, ability: str) -> int:
        """Malus to a test of an ability: untrained shield and armour weigh on FOR and DEX."""
        return self.equipment_malus if ability in ("strength", "dexterity") else 0

    @functools.cached_property
    def initiative(self) -> int:
        """Initiative score: the DEX score, bonuses, untrained shield and armour maluses."""
        return self.abilities["dexterity"] + self.initiative_bonus + self.equipment_malus

    @functools.cached_property
    def defence(self) -> int:
        """DEF: 10 + armour + shield + DEX modifier + other bonuses (Interpretations)."""
        shield = self.shield.defence if self.shield is not None else 0
        return 10 + self.armour.defence + shield + self.mod("dexterity") + self.defence_bonus

    def attack_ability(self, weapon: Weapon) -> str:
        if weapon.kind == "melee":
            return "strength"
        if weapon.kind == "ranged":
            return "dexterity"
        return self.profile.magic_ability

    def attack_modifiers(self, weapon: Weapon) -> dict[str, int]:
        """The standing parts of an attack test with ``weapon``: level, ability modifier,
        untrained weapon, shield and armour maluses."""
        ability = self.attack_ability(weapon)
        return {
            "level": self.level,
            ability: self.mod(ability),
            "untrained weapon": 0 if self.trained_weapon(weapon) else -3,
            "untrained shield": -3 if self.shield_untrained else 0,
            "untrained armour": -3 if self.armour_untrained else 0,
        }

    def attack_bonus(self, weapon: Weapon) -> int:
        return sum(self.attack_modifiers(weapon).values())

    def damage_bonus(self, weapon: Weapon) -> int:
        return self.mod("strength") if weapon.adds_strength else 0

    @property
    def weapons(self) -> tuple[Weapon, ...]:
        """Every weapon the fighter has, in hand or carried."""
        hands = (self.weapon,) if self.off_hand is None else (self.weapon, self.off_hand)
        return (*hands, *self.carried)


@attrs.frozen
class Content:
    """Every weapon, armour, shield, profile and example fighter by id."""

    weapons: Mapping[str, Weapon]
    armours: Mapping[str, Armour]
    shields: Mapping[str, Shield]
    profiles: Mapping[str, Profile]
    fighters: Mapping[str, Node]


# ---------------------------------------------------------------- readers


def _strings(node: Node, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    raw = node.value(key, list, list(default))
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            raise node.error(key, f"entry {i} is not a non-empty string: {item!r}")
    return tuple(raw)


def read_weapon(node: Node, wid: str) -> Weapon:
    kind = node.value("kind", str, choices=WEAPON_KINDS)
    text = node.value("damage", str)
    try:
        damage = parse_damage(text)
    except ValueError as exc:
        raise node.error("damage", str(exc)) from None
    if kind == "melee":
        if node.has("range"):
            raise node.error("range", "a melee weapon strikes at contact: no range")
        rng = 0.0
    else:
        rng = node.value("range", float, min=1.0)
    weapon = Weapon(
        id=node.value("id", str, wid),
        name=node.value("name", str, wid),
        kind=kind,
        damage=damage,
        critical=node.value("critical", int, 20, min=2, max=20),
        hands=node.value("hands", int, 1, choices=(1, 2)),
        range=rng,
        strength=node.value("strength", bool, False),
        tags=_strings(node, "tags"),
    )
    node.finish()
    return weapon


def read_armour(node: Node, aid: str) -> Armour:
    armour = Armour(
        id=node.value("id", str, aid),
        name=node.value("name", str, aid),
        defence=node.value("defence", int, min=0, max=20),
        tags=_strings(node, "tags"),
    )
    node.finish()
    return armour


def read_shield(node: Node, sid: str) -> Shield:
    tags = _strings(node, "tags")
    shield = Shield(
        id=node.value("id", str, sid),
        name=node.value("name", str, sid),
        defence=node.value("defence", int, min=0, max=10),
        tags=tags if "shield" in tags else ("shield", *tags),
    )
    node.finish()
    return shield


def read_profile(node: Node, pid: str) -> Profile:
    profile = Profile(
        id=node.value("id", str, pid),
        name=node.value("name", str, pid),
        hit_die=node.value("hit_die", int, choices=(4, 6, 8, 10, 12)),
        weapons=_strings(node, "weapons", ("*",)),
        armour_max=node.value("armour_max", int, 99, min=0),
        shield=node.value("shield", bool, True),
        forbidden=_strings(node, "forbidden"),
        taboo=_strings(node, "taboo"),
        magic_ability=node.value(
            "magic_ability", str, "intelligence", choices=("intelligence", "wisdom", "charisma")
        ),
    )
    node.finish()
    return profile


T = TypeVar("T")


def load_content(folder: Path | None = None) -> Content:
    """Read and validate ``models/chroniques`` (or another folder of the same layout)."""
    folder = folder or models_dir() / "chroniques"
    weapons = read_entries(folder, "weapons.toml", "weapon", read_weapon)
    armours = read_entries(folder, "armour.toml", "armour", read_armour)
    armours.setdefault("none", NO_ARMOUR)
    shields = read_entries(folder, "shields.toml", "shield", read_shield)
    profiles = read_entries(folder, "profiles.toml", "profile", read_profile)
    fighters = Source.read(folder / "fighters.toml").entries("fighter")
    content = Content(weapons, armours, shields, profiles, fighters)
    for node in fighters.values():  # every example fighter must load
        read_sheet(node, content)
    return content


@functools.cache
def default_content() -> Content:
    return load_content()


def _weapon_list(node: Node, key: str, content: Content) -> tuple[Weapon, ...]:
    raw = node.value(key, list, [])
    out = []
    for i, item in enumerate(raw):
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


def read_sheet(node: Node, content: Content) -> Sheet:
    """A sheet from a table: profile and equipment by id or as full tables."""
    profile = item_or_table(node, "profile", content.profiles, "profile", read_profile)
    level = node.value("level", int, min=1, max=MAX_LEVEL)
    ab = node.table("abilities")
    abilities = {a: ab.value(a, int, min=1, max=30) for a in ABILITIES}
    ab.finish()
    weapon = item_or_table(node, "weapon", content.weapons, "weapon", read_weapon)
    off_hand = None
    if node.has("off_hand"):
        off_hand = item_or_table(node, "off_hand", content.weapons, "weapon", read_weapon)
    carried = _weapon_list(node, "carried", content)
    armour = NO_ARMOUR
    if node.has("armour"):
        armour = item_or_table(node, "armour", content.armours, "armour", read_armour)
    shield = None
    if node.has("shield"):
        shield = item_or_table(node, "shield", content.shields, "shield", read_shield)
    two_weapons = f"{TEXT}, Combat à deux armes (L)"
    if off_hand is not None:
        if off_hand.kind != "melee" or off_hand.hands != 1 or not off_hand.light:
            raise node.error(
                "off_hand",
                f"{off_hand.name} ({off_hand.damage}) is not a light one-handed melee weapon "
                f"(1d6 damage at most) [{two_weapons}]",
            )
        if shield is not None:
            raise node.error("off_hand", "a hand holding a shield cannot hold a weapon")
    if weapon.hands == 2 and (off_hand is not None or shield is not None):
        key = "off_hand" if off_hand is not None else "shield"
        raise node.error(key, f"the {weapon.name} needs both hands")
    free = _strings(node, "free_actions")
    for i, kind in enumerate(free):
        if kind not in FREE_KINDS or free.index(kind) != i:
            raise node.error(
                "free_actions",
                f"entry {i}: {kind!r} must be one of {', '.join(FREE_KINDS)}, each at most once",
            )
    con = modifier(abilities["constitution"])
    hit_points = node.value("hit_points", int, 0, min=1)
    if not hit_points:
        hit_points = default_hit_points(profile.hit_die, level, con)
    sheet = Sheet(
        name=node.value("name", str, ""),
        profile=profile,
        level=level,
        abilities=abilities,
        weapon=weapon,
        hit_points=hit_points,
        off_hand=off_hand,
        carried=carried,
        armour=armour,
        shield=shield,
        initiative_bonus=node.value("initiative_bonus", int, 0),
        defence_bonus=node.value("defence_bonus", int, 0),
        stealth=node.value("stealth", int, 0, min=0),
        speed=node.value("speed", float, 20.0, min=0.5),
        capabilities=_strings(node, "capabilities"),
        free_actions=free,
    )
    node.finish()
    return sheet


def default_hit_points(hit_die: int, level: int, con_mod: int) -> int:
    """Hit points by profile: the whole hit die + CON at level 1, then the die's rounded-up
    average + CON per level, at least 1 per level (Interpretations)."""
    first = max(1, hit_die + con_mod)
    per_level = max(1, hit_die // 2 + 1 + con_mod)
    return first + (level - 1) * per_level


def _plain(obj: Any) -> Any:
    def value(_inst: Any, _attr: Any, v: Any) -> Any:
        if isinstance(v, DamageDice):
            return str(v)
        if isinstance(v, tuple):
            return list(v)
        return v

    return attrs.asdict(obj, recurse=False, value_serializer=value)


def sheet_data(sheet: Sheet) -> dict[str, Any]:
    """The full sheet as plain data, readable back by :func:`read_sheet`."""
    data: dict[str, Any] = {
        "name": sheet.name,
        "profile": _plain(sheet.profile),
        "level": sheet.level,
        "abilities": dict(sheet.abilities),
        "weapon": _plain(sheet.weapon),
        "hit_points": sheet.hit_points,
        "carried": [_plain(w) for w in sheet.carried],
        "armour": _plain(sheet.armour),
        "initiative_bonus": sheet.initiative_bonus,
        "defence_bonus": sheet.defence_bonus,
        "stealth": sheet.stealth,
        "speed": sheet.speed,
        "capabilities": list(sheet.capabilities),
        "free_actions": list(sheet.free_actions),
    }
    if sheet.off_hand is not None:
        data["off_hand"] = _plain(sheet.off_hand)
    if sheet.shield is not None:
        data["shield"] = _plain(sheet.shield)
    for item in (data["weapon"], data.get("off_hand"), *data["carried"]):
        if item is not None and item["kind"] == "melee":
            del item["range"]
    return data
