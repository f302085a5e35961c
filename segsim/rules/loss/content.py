"""Loss game content: weapons, armour, shields, the health track and fighter sheets.

The excerpt (text 000) gives the costs table, the shield rules and the structure of a
test (d10 + Trait + Talent) but not the equipment chapter, the talents chapter or the
health chapter: ``models/loss/`` holds example content and a documented health model
(docs/rules/loss.md, "Interpretations"). Everything is validated on load; every error
names the file, the line and the field (DESIGN, principle 9).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from segsim.input import Node, Source, item_or_table, read_entries
from segsim.models import models_dir

TEXT = "Loss"

TEST_KINDS = (
    "melee",
    "unarmed",
    "natural",
    "ranged",
    "thrown",
    "parry",
    "dodge",
    "pursuit",
    "vigilance",
)
"""The tests of combat, each a Trait + Talent pair of the sheet (vigilance: spotting a
hidden shooter as it fires)."""
WEAPON_TESTS = ("melee", "unarmed", "natural", "ranged", "thrown")
DEFAULT_TESTS: Mapping[str, tuple[str, str]] = {
    "melee": ("puissance", "armes_de_melee"),
    "unarmed": ("puissance", "corps_a_corps"),
    "natural": ("puissance", "corps_a_corps"),
    "ranged": ("instinct", "armes_a_distance"),
    "thrown": ("instinct", "arme_de_jet"),
    "parry": ("puissance", "armes_de_melee"),
    "dodge": ("agilite", "esquive"),
    "pursuit": ("agilite", "athletisme"),
}
"""Which Trait and Talent a test adds when the sheet does not say (Loss: Diego
attacks with Puissance + arme de mêlée, the malfrat dodges with Agilité + Esquive)."""
SPOTTING: tuple[str, str] = ("instinct", "vigilance")
"""The Trait and Talent of a Vigilance test when the sheet does not say (kept out of
:data:`DEFAULT_TESTS` so that a sheet's data lists it only when given)."""

SPECIALISATIONS = (
    "parade",  # +2 to parries with a weapon
    "arme_et_bouclier",  # +2 to shield parries, shield protection +1
    "armes_improvisees",  # +2 instead of -2 with improvised weapons
    "charge",  # +5 when attempting the assault exploit
    "desarmer",  # +5 when attempting the disarm exploit
    "deux_armes",  # no +5 difficulty for the off hand
    "attaque",  # +5 when attempting aim a limb / precise zone / precise point
    "coup_mortel",  # +5 when attempting neutralise
    "defense",  # +5 when attempting counter-attack, protect or feint
    "esquive_totale",  # +5 when attempting total dodge
    "se_mettre_a_couvert",  # +5 to dodge a ranged attack with cover at hand
    "rechargement_rapide",  # ranged weapon speed -2, at least 2
    "tir_monte",  # +2 to shots in a fight in motion
    "tir_embusque",  # +5 to the Vigilance tests to spot the hidden shooter (bow, impulse)
    "destruction_de_fortifications",  # +5 to tests with Exploits against a structure
    "visee",  # aiming a whole round gives +15 instead of +10
)
"""Combat specialisations (Loss, "Les talents & spécialisations de combat") with
an effect on the rules of combat."""

BARE_HANDED = ("attaque", "coup_mortel", "defense")
"""The Corps-à-corps specialisations: they count only when the fighter fights bare-handed
(its weapon is its hands or natural weapons: Loss, "Corps-à-corps": "toutes les
techniques du combat sans armes"; Interpretations)."""
TALENT_BONUS = 2
"""A specialisation of a talent gives +2 to that talent's test when its condition holds
(Loss, "Les Augmentations Gratuites et spécialisations")."""


@attrs.frozen
class TalentSpecialisation:
    """A generic specialisation: +2 to one test of combat, with one type of weapon when it
    names one (a weapon id or a tag: "rapier", "bow")."""

    test: str
    weapon: str | None = None
    name: str = ""


RANGED_TESTS = ("ranged", "thrown")
"""The tests of ranged weapons (``Weapon.ranged``; the hot paths ask ``weapon.test in
RANGED_TESTS`` without the property's call)."""


@attrs.frozen
class Weapon:
    """A weapon: its test, speed (action points per attack) and damage.

    ``assault`` is the damage of an assault (None: the weapon cannot assault); ``long``
    weapons may make a moulinet; ``range``/``limit`` (metres) are the portée (half damage
    beyond) and the limite (no hit beyond) of ranged weapons; ``explosive`` weapons burst
    (a successful defence halves the damage); ``tags`` name families ("bow",
    "crossbow", "impulse", "heavy", "improvised").
    """

    id: str
    name: str
    test: str
    speed: int
    damage: int
    assault: int | None = None
    hands: int = 1
    long: bool = False
    parry: bool = True
    range: float = 0.0
    limit: float = 0.0
    explosive: bool = False
    area: float = 0.0  # metres around the point of impact an explosive reaches
    tags: tuple[str, ...] = ()

    @property
    def ranged(self) -> bool:
        return self.test in ("ranged", "thrown")  # RANGED_TESTS (a constant: no lookup)

    @property
    def improvised(self) -> bool:
        return "improvised" in self.tags


UNARMED = Weapon("unarmed", "mains nues", "unarmed", 2, 0, parry=False)
"""Bare hands: an unarmed attack costs 2 PA (Loss, costs table)."""


@attrs.frozen
class Armour:
    """Armour: its protection, taken off every damage (Loss, "Application des dégâts")."""

    id: str
    name: str
    protection: int


NO_ARMOUR = Armour("none", "aucune", 0)


@attrs.frozen
class Shield:
    """A shield (Loss, "La parade au bouclier"): a bonus to parry with it, a fixed
    protection like armour, a malus to dodge, and whether it can parry projectiles."""

    id: str
    name: str
    parry_bonus: int
    protection: int
    dodge_malus: int = 0
    projectiles: bool = False


@attrs.frozen
class Band:
    """A band of the health track: ``levels`` boxes; while the fighter's worst wound is in
    this band, its tests take ``malus``."""

    name: str
    levels: int
    malus: int = 0


@attrs.frozen
class Health:
    """The health track (Niveaux de Santé): bands lost from the first to the last; a
    fighter with no level left is out of the fight."""

    bands: tuple[Band, ...]

    @property
    def levels(self) -> int:
        return sum(b.levels for b in self.bands)

    def band_of(self, left: int) -> Band | None:
        """The band in which a fighter with ``left`` levels is (None when none left)."""
        if left <= 0:
            return None
        lost = self.levels - left
        for band in self.bands:
            if lost < band.levels:
                return band
            lost -= band.levels
        return self.bands[-1]

    def malus(self, left: int) -> int:
        band = self.band_of(left)
        return 0 if band is None else band.malus


MINION_HEALTH = Health((Band("sbire", 10, 0),))
"""A minion has 10 health levels and no wound bands (Loss, "Les Sbires en combat")."""


@attrs.frozen
class Sheet:
    """A Loss fighter's sheet.

    ``traits`` and ``talents`` are scores by name; ``tests`` says which pair each test of
    combat adds (defaults in :data:`DEFAULT_TESTS`). ``fursa`` and ``inspiration`` are
    pools of +5 bonuses spent before a roll; ``free_raises`` (Augmentations Gratuites)
    give +5 to the tests they name; ``specialisations`` name combat specialisations.
    A ``minion`` (Sbire) has 10 health levels, no inspiration and no free raises. A
    ``structure`` (a wall, a fortification, a ship's hull) is a target that never acts,
    rolls no initiative and neither parries nor dodges (Interpretations).
    """

    name: str
    initiative: int
    traits: Mapping[str, int]
    talents: Mapping[str, int]
    tests: Mapping[str, tuple[str, str]]
    health: Health
    weapon: Weapon = UNARMED
    off_hand: Weapon | None = None
    shield: Shield | None = None
    armour: Armour = NO_ARMOUR
    damage_bonus: int = 0
    fursa: int = 0
    inspiration: int = 0
    free_raises: Mapping[str, int] = attrs.field(factory=dict)
    specialisations: tuple[str, ...] = ()
    specialisation_weapons: Mapping[str, str] = attrs.field(factory=dict)
    talent_specialisations: tuple[TalentSpecialisation, ...] = ()
    minion: bool = False
    human: bool = True
    structure: bool = False

    def score(self, test: str) -> int:
        """Trait + Talent of a test (a missing trait or talent counts 0)."""
        trait, talent = self.tests.get(test, DEFAULT_TESTS.get(test, SPOTTING))
        return self.traits.get(trait, 0) + self.talents.get(talent, 0)

    def has(self, specialisation: str, gear: Weapon | Shield | None = None) -> bool:
        """Whether the specialisation counts with ``gear`` (the weapon or shield in use).

        A specialisation applies to one type of weapon chosen from the weapons list
        (Loss, "Les talents & spécialisations de combat"): one tied to a type in
        ``specialisation_weapons`` counts only with a weapon (or shield) of that id or
        tag; the Corps-à-corps ones only bare-handed.
        """
        if specialisation not in self.specialisations:
            return False
        if specialisation in BARE_HANDED and not (
            isinstance(gear, Weapon) and gear.test in ("unarmed", "natural")
        ):
            return False
        tied = self.specialisation_weapons.get(specialisation)
        return tied is None or (gear is not None and _of_type(gear, tied))

    def talent_bonus(self, test: str, gear: Weapon | Shield | None) -> int:
        """+2 per generic specialisation of this test whose weapon type is in use."""
        if not self.talent_specialisations:
            return 0
        return sum(
            TALENT_BONUS
            for t in self.talent_specialisations
            if t.test == test
            and (t.weapon is None or (gear is not None and _of_type(gear, t.weapon)))
        )

    @property
    def protection(self) -> int:
        """Armour + shield protection (a shield protects even when the parry fails)."""
        shield = 0
        if self.shield is not None:
            bonus = 1 if self.has("arme_et_bouclier", self.shield) else 0
            shield = self.shield.protection + bonus
        return self.armour.protection + shield

    def speed(self, weapon: Weapon) -> int:
        """Action points of an attack with ``weapon``: its speed, less 2 for a ranged
        weapon with rechargement rapide (at least 2)."""
        if weapon.ranged and self.has("rechargement_rapide", weapon):
            return max(2, weapon.speed - 2)
        return weapon.speed


def _of_type(gear: Weapon | Shield, kind: str) -> bool:
    """Whether a weapon (or shield) is of a type: its id or one of its tags."""
    return gear.id == kind or kind in getattr(gear, "tags", ())


@attrs.frozen
class Content:
    """Every weapon, armour, shield, the health track and example fighters by id."""

    weapons: Mapping[str, Weapon]
    armours: Mapping[str, Armour]
    shields: Mapping[str, Shield]
    health: Health
    fighters: Mapping[str, Node]


# ---------------------------------------------------------------- readers


def _strings(node: Node, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    raw = node.value(key, list, list(default))
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            raise node.error(key, f"entry {i} is not a non-empty string: {item!r}")
    return tuple(raw)


def read_weapon(node: Node, wid: str) -> Weapon:
    test = node.value("test", str, choices=WEAPON_TESTS)
    ranged = test in ("ranged", "thrown")
    if ranged:
        rng = node.value("range", float, min=1.0)
        limit = node.value("limit", float, rng, min=rng)
    else:
        for key in ("range", "limit"):
            if node.has(key):
                raise node.error(key, "a melee weapon strikes at contact: no range")
        rng = limit = 0.0
    assault = node.value("assault", int, None, min=0, max=30)
    if ranged and assault is not None:
        raise node.error("assault", "an assault is made with a melee weapon")
    weapon = Weapon(
        id=node.value("id", str, wid),
        name=node.value("name", str, wid),
        test=test,
        speed=node.value("speed", int, min=1, max=12),
        damage=node.value("damage", int, min=0, max=30),
        assault=assault,
        hands=node.value("hands", int, 1, choices=(1, 2)),
        long=node.value("long", bool, False),
        parry=node.value("parry", bool, not ranged and test == "melee"),
        range=rng,
        limit=limit,
        explosive=node.value("explosive", bool, False),
        area=node.value("area", float, 0.0, min=0.0, max=50.0),
        tags=_strings(node, "tags"),
    )
    node.finish()
    return weapon


def read_armour(node: Node, aid: str) -> Armour:
    armour = Armour(
        id=node.value("id", str, aid),
        name=node.value("name", str, aid),
        protection=node.value("protection", int, min=0, max=20),
    )
    node.finish()
    return armour


def read_shield(node: Node, sid: str) -> Shield:
    shield = Shield(
        id=node.value("id", str, sid),
        name=node.value("name", str, sid),
        parry_bonus=node.value("parry_bonus", int, min=0, max=10),
        protection=node.value("protection", int, min=0, max=10),
        dodge_malus=node.value("dodge_malus", int, 0, min=0, max=10),
        projectiles=node.value("projectiles", bool, False),
    )
    node.finish()
    return shield


def read_health(node: Node) -> Health:
    bands = []
    for b in node.tables("band"):
        bands.append(
            Band(
                name=b.value("name", str),
                levels=b.value("levels", int, min=1, max=100),
                malus=b.value("malus", int, 0, min=0, max=30),
            )
        )
        b.finish()
    if not bands:
        raise node.error("band", "the health track needs at least one [[band]]")
    node.finish()
    return Health(tuple(bands))


T = TypeVar("T")


def load_content(folder: Path | None = None) -> Content:
    """Read and validate ``models/loss`` (or another folder of the same layout)."""
    folder = folder or models_dir() / "loss"
    weapons = read_entries(folder, "weapons.toml", "weapon", read_weapon)
    weapons.setdefault("unarmed", UNARMED)
    armours = read_entries(folder, "armour.toml", "armour", read_armour)
    armours.setdefault("none", NO_ARMOUR)
    shields = read_entries(folder, "shields.toml", "shield", read_shield)
    root = Source.read(folder / "health.toml").root()
    health = read_health(root.table("health"))
    root.finish()
    fighters = Source.read(folder / "fighters.toml").entries("fighter")
    content = Content(weapons, armours, shields, health, fighters)
    for node in fighters.values():  # every example fighter must load
        read_sheet(node, content)
    return content


@functools.cache
def default_content() -> Content:
    return load_content()


def _scores(node: Node, key: str) -> dict[str, int]:
    table = node.table(key, {})
    out = {}
    for name, _ in list(table.items()):
        out[name] = table._check(name, table.data[name], int, min=0, max=20)
    return out


def read_sheet(node: Node, content: Content) -> Sheet:
    """A sheet from a table: equipment by id or as full tables."""
    minion = node.value("minion", bool, False)
    tests: dict[str, tuple[str, str]] = dict(DEFAULT_TESTS)
    table = node.table("tests", {})
    for name, raw in list(table.items()):
        if name not in TEST_KINDS:
            raise table.error(name, f"unknown test {name!r} (known: {', '.join(TEST_KINDS)})")
        if not (
            isinstance(raw, list) and len(raw) == 2 and all(isinstance(x, str) and x for x in raw)
        ):
            raise table.error(name, f"expected [trait, talent], got {raw!r}")
        tests[name] = (raw[0], raw[1])
    weapon = UNARMED
    if node.has("weapon"):
        weapon = item_or_table(node, "weapon", content.weapons, "weapon", read_weapon)
    off_hand = None
    if node.has("off_hand"):
        off_hand = item_or_table(node, "off_hand", content.weapons, "weapon", read_weapon)
    armour = NO_ARMOUR
    if node.has("armour"):
        armour = item_or_table(node, "armour", content.armours, "armour", read_armour)
    shield = None
    if node.has("shield"):
        shield = item_or_table(node, "shield", content.shields, "shield", read_shield)
    if off_hand is not None and shield is not None:
        raise node.error("off_hand", "a hand holding a shield cannot hold a weapon")
    if weapon.hands == 2 and (off_hand is not None or shield is not None):
        key = "off_hand" if off_hand is not None else "shield"
        raise node.error(key, f"the {weapon.name} needs both hands")
    specs = _strings(node, "specialisations")
    for i, s in enumerate(specs):
        if s not in SPECIALISATIONS:
            raise node.error(
                "specialisations",
                f"entry {i}: unknown specialisation {s!r} (known: {', '.join(SPECIALISATIONS)})",
            )
    tied_table = node.table("specialisation_weapons", {})
    tied: dict[str, str] = {}
    for name, raw in list(tied_table.items()):
        if name not in specs:
            raise tied_table.error(name, f"{name!r} is not one of the sheet's specialisations")
        if not isinstance(raw, str) or not raw:
            raise tied_table.error(name, f"expected a weapon id or tag, got {raw!r}")
        tied[name] = raw
    generic = []
    for i, raw in enumerate(node.value("talent_specialisations", list, [])):
        where = f"entry {i}"
        if not isinstance(raw, dict):
            raise node.error("talent_specialisations", f"{where}: expected a table")
        extra = set(raw) - {"test", "weapon", "name"}
        test = raw.get("test")
        weapon_type = raw.get("weapon")
        if extra or test not in TEST_KINDS:
            raise node.error(
                "talent_specialisations",
                f"{where}: a table with test (one of {', '.join(TEST_KINDS)}) and optionally "
                f"weapon and name, got {raw!r}",
            )
        if weapon_type is not None and (not isinstance(weapon_type, str) or not weapon_type):
            raise node.error("talent_specialisations", f"{where}: weapon is a weapon id or tag")
        generic.append(TalentSpecialisation(test, weapon_type, str(raw.get("name", ""))))
    raises = node.table("free_raises", {})
    free_raises: dict[str, int] = {}
    for name, raw in list(raises.items()):
        if name not in TEST_KINDS:
            raise raises.error(name, f"unknown test {name!r} (known: {', '.join(TEST_KINDS)})")
        free_raises[name] = raises._check(name, raw, int, min=0, max=5)
    if minion:
        health = MINION_HEALTH
        for key in ("health", "inspiration", "free_raises"):
            if node.has(key):
                raise node.error(
                    key, f"a minion has 10 health levels, no inspiration, no free raises [{TEXT}]"
                )
    elif node.has("health"):
        health = read_health(node.table("health"))
    else:
        health = content.health
    sheet = Sheet(
        name=node.value("name", str, ""),
        initiative=node.value("initiative", int, min=0, max=20),
        traits=_scores(node, "traits"),
        talents=_scores(node, "talents"),
        tests=tests,
        health=health,
        weapon=weapon,
        off_hand=off_hand,
        shield=shield,
        armour=armour,
        damage_bonus=node.value("damage_bonus", int, 0, min=-5, max=20),
        fursa=node.value("fursa", int, 0, min=0, max=20),
        inspiration=0 if minion else node.value("inspiration", int, 0, min=0, max=20),
        free_raises=free_raises,
        specialisations=specs,
        specialisation_weapons=tied,
        talent_specialisations=tuple(generic),
        minion=minion,
        human=node.value("human", bool, True),
        structure=node.value("structure", bool, False),
    )
    node.finish()
    return sheet


def _plain(obj: Any) -> Any:
    def value(_inst: Any, _attr: Any, v: Any) -> Any:
        if isinstance(v, tuple):
            return list(v)
        return v

    return attrs.asdict(obj, recurse=False, value_serializer=value)


def _weapon_data(w: Weapon) -> dict[str, Any]:
    data: dict[str, Any] = _plain(w)
    if not w.ranged:
        del data["range"], data["limit"]
    if not w.explosive:
        del data["area"]
    if data["assault"] is None:
        del data["assault"]
    return data


def sheet_data(sheet: Sheet) -> dict[str, Any]:
    """The full sheet as plain data, readable back by :func:`read_sheet`."""
    data: dict[str, Any] = {
        "name": sheet.name,
        "initiative": sheet.initiative,
        "traits": dict(sheet.traits),
        "talents": dict(sheet.talents),
        "tests": {k: list(v) for k, v in sheet.tests.items()},
        "weapon": _weapon_data(sheet.weapon),
        "armour": _plain(sheet.armour),
        "damage_bonus": sheet.damage_bonus,
        "fursa": sheet.fursa,
        "free_raises": dict(sheet.free_raises),
        "specialisations": list(sheet.specialisations),
        "minion": sheet.minion,
        "human": sheet.human,
    }
    if sheet.structure:
        data["structure"] = True
    if sheet.specialisation_weapons:
        data["specialisation_weapons"] = dict(sheet.specialisation_weapons)
    if sheet.talent_specialisations:
        data["talent_specialisations"] = [
            {k: v for k, v in _plain(t).items() if v not in (None, "")}
            for t in sheet.talent_specialisations
        ]
    if not sheet.minion:
        data["inspiration"] = sheet.inspiration
        data["health"] = {"band": [_plain(b) for b in sheet.health.bands]}
    else:
        del data["free_raises"]
    if sheet.off_hand is not None:
        data["off_hand"] = _weapon_data(sheet.off_hand)
    if sheet.shield is not None:
        data["shield"] = _plain(sheet.shield)
    return data
