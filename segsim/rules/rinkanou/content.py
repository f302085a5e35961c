"""RinKaNou game content: weapons, armour, shields, tables and fighter sheets.

Everything here is data a game master may change; it is read from ``models/rinkanou/``
(TOML) and validated on load (DESIGN, principle 9). Sheets are frozen values.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from segsim.input import Node, Source
from segsim.models import models_dir

CHARACTERISTICS = ("strength", "agility", "reason", "reflexes")
"""Force, Souplesse, Raison, Réflexes."""
REACHES = ("contact", "short", "medium", "long", "very_long")
"""Allonge: contact, courte, moyenne, longue, très longue (RinKaNou, "Allonge")."""
SIZES = ("small", "medium", "large", "very_large")
"""Weapon sizes of the parry table (petite, moyenne, grande, très grande)."""
BLOWS = ("cut", "thrust")
"""Coup de taille, coup d'estoc."""
COMBAT_TRUNK = 30
"""Combat stands for any other combat skill up to 30 % (RinKaNou, "Compétences de combat")."""
COMBAT_LEAD = 10
"""No combat skill may exceed Combat by more than 10 %."""


@attrs.frozen
class Weapon:
    """A contact weapon (RinKaNou, "Caractéristiques des armes")."""

    id: str
    name: str
    skill: str
    speed: int  # vitesse, segments to arm, to strike, or to parry once armed
    durability: int  # points de résistance (PR)
    damage: Mapping[str, int]  # by blow: cut / thrust
    parry: int = 0  # parade, %: how well it parries and how hard it is to parry
    reach: str = "medium"
    size: str = "medium"
    hands: int = 1
    characteristic: str = "agility"
    blunt: bool = False  # contondant: keeps at distance worse than a cutting weapon

    @functools.cached_property
    def blows(self) -> tuple[str, ...]:
        """The blows it has, cut first (worked out on first use: the weapon is a value)."""
        return tuple(b for b in BLOWS if b in self.damage)


SHOTS = ("direct", "indirect")
"""Kinds of shot: tir direct, tir en cloche (RinKaNou, "Esquive de projectiles")."""


@attrs.frozen
class RangedWeapon:
    """A bow, crossbow or thrown weapon (RinKaNou, "Les portées")."""

    id: str
    name: str
    skill: str
    damage: int  # of the projectile
    increment: float  # incrément de portée, metres
    max_range: float  # metres: no shot beyond
    ready: int  # segments to nock and draw, to reload, or to take the next in hand
    shoot: int  # segments to loose once ready
    flight: Mapping[str, int]  # segments to fly 100 m, by kind of shot
    hands: int = 2
    size: str = "medium"
    thrown: bool = False  # thrown weapons add the thrower's strength bonus
    characteristic: str = "agility"


@attrs.frozen
class Armour:
    """Armour: deflection is a malus to the attacker's roll, absorption removes damage."""

    id: str
    name: str
    deflection: int
    absorption: int
    durability: int
    locations: tuple[str, ...] = ()  # empty: covers every location


NO_ARMOUR = Armour("none", "no armour", 0, 0, 0)


@attrs.frozen
class Shield:
    id: str
    name: str
    speed: int
    parry_bonus: int
    absorption: int
    durability: int
    size: str = "medium"


@attrs.frozen
class Location:
    name: str
    low: int
    high: int
    wound_factor: int  # percent applied to damage after armour


@attrs.frozen
class WoundLevel:
    name: str
    at: float  # fraction of health reached by the wound total
    malus: int = 0
    out: str = ""  # non-empty: the fighter leaves the fight for this reason


@attrs.frozen
class Tables:
    """Rule tables as data: hit locations, their adjacency, strength bonus, wound model."""

    locations: tuple[Location, ...]
    adjacency: tuple[tuple[str, str], ...]
    strength_damage: tuple[tuple[int, int], ...]  # (minimum strength, bonus), ascending
    wound_levels: tuple[WoundLevel, ...]
    reach: Mapping[str, float] = attrs.field(factory=dict)  # metres by reach category
    parry_size: Mapping[str, int] = attrs.field(factory=dict)  # % by weapon size

    def neighbours(self, name: str) -> tuple[str, ...]:
        """Hit locations one step away (for oriented and approximate blows)."""
        out = [b for a, b in self.adjacency if a == name]
        out += [a for a, b in self.adjacency if b == name]
        return tuple(sorted(out, key=lambda n: self.location_named(n).low))

    def steps(self, start: str, goal: str) -> list[str]:
        """The shortest walk from ``start`` to ``goal`` along the adjacency (both ends)."""
        paths = {start: [start]}
        frontier = [start]
        while frontier and goal not in paths:
            nxt = []
            for here in frontier:
                for n in self.neighbours(here):
                    if n not in paths:
                        paths[n] = [*paths[here], n]
                        nxt.append(n)
            frontier = nxt
        return paths.get(goal, [start])

    def location(self, roll: int) -> Location:
        found = self._by_roll.get(roll)
        if found is None:
            raise ValueError(f"no hit location for {roll}")
        return found

    def location_named(self, name: str) -> Location:
        return self._by_name[name]

    @functools.cached_property
    def location_names(self) -> tuple[str, ...]:
        """The hit locations' names, in the table's order."""
        return tuple(loc.name for loc in self.locations)

    @functools.cached_property
    def _by_roll(self) -> dict[int, Location]:
        """Each face of the d100 and the location it hits (the first that spans it)."""
        found: dict[int, Location] = {}
        for loc in self.locations:
            for roll in range(loc.low, loc.high + 1):
                found.setdefault(roll, loc)
        return found

    @functools.cached_property
    def _by_name(self) -> dict[str, Location]:
        """Each location by its name (the first of a name)."""
        found: dict[str, Location] = {}
        for loc in self.locations:
            found.setdefault(loc.name, loc)
        return found

    def strength_bonus(self, strength: int) -> int:
        bonus = self.strength_damage[0][1]
        for minimum, value in self.strength_damage:
            if strength >= minimum:
                bonus = value
        return bonus

    def wound_level(self, total: int, health: int) -> WoundLevel | None:
        level = None
        for lv in self.wound_levels:
            if total >= lv.at * health:
                level = lv
        return level


@attrs.frozen
class Sheet:
    """A RinKaNou fighter's sheet."""

    name: str
    characteristics: Mapping[str, int]
    skills: Mapping[str, int]
    weapon: Weapon
    health: int
    armour: Armour = NO_ARMOUR
    shield: Shield | None = None
    specializations: Mapping[str, int] = attrs.field(factory=dict)
    movement: float = 1.5  # walking pace, metres per second (mvt/tour, one tour = 1 s)
    run_factor: float = 4.0  # facteur de course
    ranged: RangedWeapon | None = None
    sight: int = 100  # the largest vision factor (distance / 5) the fighter can make out

    def characteristic(self, name: str) -> int:
        return self.characteristics[name]

    def skill(self, name: str) -> int:
        """Skill % with the Combat trunk rule: Combat stands in up to 30 %."""
        skills = self.skills
        own = skills.get(name, 0)
        trunk = skills.get("combat", 0)
        if trunk > COMBAT_TRUNK:
            trunk = COMBAT_TRUNK
        return own if own >= trunk else trunk  # max(own, min(combat, 30))


@attrs.frozen
class Content:
    """Every weapon, armour, shield and example fighter known by id."""

    weapons: Mapping[str, Weapon]
    ranged: Mapping[str, RangedWeapon]
    armours: Mapping[str, Armour]
    shields: Mapping[str, Shield]
    fighters: Mapping[str, Node]
    tables: Tables


# ---------------------------------------------------------------- readers


def read_weapon(node: Node, wid: str) -> Weapon:
    dmg = node.table("damage")
    damage: dict[str, int] = {}
    for blow, value in dmg.items():
        if blow not in BLOWS:
            raise dmg.error(blow, f"unknown blow {blow!r} (known: {', '.join(BLOWS)})")
        damage[blow] = dmg._check(blow, value, int, min=0)
    if not damage:
        raise node.error("damage", "a weapon needs at least one blow (cut or thrust)")
    weapon = Weapon(
        id=node.value("id", str, wid),
        name=node.value("name", str, wid),
        skill=node.value("skill", str),
        speed=node.value("speed", int, min=1),
        durability=node.value("durability", int, min=0),
        damage=damage,
        parry=node.value("parry", int, 0),
        reach=node.value("reach", str, "medium", choices=REACHES),
        size=node.value("size", str, "medium", choices=SIZES),
        hands=node.value("hands", int, 1, choices=(1, 2)),
        characteristic=node.value("characteristic", str, "agility", choices=CHARACTERISTICS),
        blunt=node.value("blunt", bool, False),
    )
    node.finish()
    return weapon


def read_ranged(node: Node, rid: str) -> RangedWeapon:
    flight_node = node.table("flight")
    flight = {}
    for shot, value in list(flight_node.items()):
        if shot not in SHOTS:
            raise flight_node.error(
                shot, f"unknown kind of shot {shot!r} (known: {', '.join(SHOTS)})"
            )
        flight[shot] = flight_node._check(shot, value, int, min=1)
    if not flight:
        raise node.error("flight", "give the segments to fly 100 m for at least one kind of shot")
    increment = node.value("increment", float, min=0.1)
    weapon = RangedWeapon(
        id=node.value("id", str, rid),
        name=node.value("name", str, rid),
        skill=node.value("skill", str),
        damage=node.value("damage", int, min=0),
        increment=increment,
        max_range=node.value("max_range", float, min=increment),
        ready=node.value("ready", int, min=1),
        shoot=node.value("shoot", int, min=1),
        flight=flight,
        hands=node.value("hands", int, 2, choices=(1, 2)),
        size=node.value("size", str, "medium", choices=SIZES),
        thrown=node.value("thrown", bool, False),
        characteristic=node.value("characteristic", str, "agility", choices=CHARACTERISTICS),
    )
    node.finish()
    return weapon


def read_armour(node: Node, aid: str, locations: tuple[str, ...]) -> Armour:
    locs = node.value("locations", list, [])
    for i, loc in enumerate(locs):
        if loc not in locations:
            raise node.error("locations", f"unknown hit location {loc!r} at index {i}")
    armour = Armour(
        id=node.value("id", str, aid),
        name=node.value("name", str, aid),
        deflection=node.value("deflection", int, min=0),
        absorption=node.value("absorption", int, min=0),
        durability=node.value("durability", int, min=0),
        locations=tuple(locs),
    )
    node.finish()
    return armour


def read_shield(node: Node, sid: str) -> Shield:
    shield = Shield(
        id=node.value("id", str, sid),
        name=node.value("name", str, sid),
        speed=node.value("speed", int, min=1),
        parry_bonus=node.value("parry_bonus", int),
        absorption=node.value("absorption", int, min=0),
        durability=node.value("durability", int, min=0),
        size=node.value("size", str, "medium", choices=SIZES),
    )
    node.finish()
    return shield


def read_tables(node: Node) -> Tables:
    locations = []
    expected = 1
    for loc in node.tables("location"):
        low = loc.value("low", int, min=1, max=100)
        if low != expected:
            raise loc.error("low", f"locations must cover 1..100 in order; expected {expected}")
        high = loc.value("high", int, min=low, max=100)
        locations.append(
            Location(loc.value("name", str), low, high, loc.value("wound_factor", int, min=0))
        )
        loc.finish()
        expected = high + 1
    if expected != 101:
        raise node.error("location", "hit locations must cover 1..100")
    names = {loc.name for loc in locations}
    adjacency = []
    raw_adj = node.value("adjacency", list)
    for i, pair in enumerate(raw_adj):
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(end, str) and end in names for end in pair)
        ):
            raise node.error("adjacency", f"entry {i} is not a pair of known locations: {pair!r}")
        adjacency.append((pair[0], pair[1]))
    bands = node.value("strength_damage", list)
    strength = []
    for i, band in enumerate(bands):
        if not (
            isinstance(band, list) and len(band) == 2 and all(isinstance(v, int) for v in band)
        ):
            raise node.error("strength_damage", f"entry {i} is not [minimum, bonus]: {band!r}")
        strength.append((band[0], band[1]))
    reach_node = node.table("reach")
    reach = {r: reach_node.value(r, float, min=0.0) for r in REACHES}
    reach_node.finish()
    size_node = node.table("parry_size")
    parry_size = {z: size_node.value(z, int) for z in SIZES}
    size_node.finish()
    levels = []
    for lv in node.tables("wound_level"):
        levels.append(
            WoundLevel(
                name=lv.value("name", str),
                at=lv.value("at", float, min=0.0),
                malus=lv.value("malus", int, 0, max=0),
                out=lv.value("out", str, ""),
            )
        )
        lv.finish()
    node.finish()
    return Tables(
        tuple(locations),
        tuple(adjacency),
        tuple(sorted(strength)),
        tuple(sorted(levels, key=lambda lv: lv.at)),
        reach,
        parry_size,
    )


def load_content(folder: Path | None = None) -> Content:
    """Read and validate ``models/rinkanou`` (or another folder of the same layout)."""
    folder = folder or models_dir() / "rinkanou"
    tables = read_tables(Source.read(folder / "tables.toml").root())
    names = tuple(loc.name for loc in tables.locations)
    weapons = {
        k: read_weapon(n, k)
        for k, n in Source.read(folder / "weapons.toml").entries("weapon").items()
    }
    ranged = {
        k: read_ranged(n, k)
        for k, n in Source.read(folder / "ranged.toml").entries("ranged").items()
    }
    armours = {
        k: read_armour(n, k, names)
        for k, n in Source.read(folder / "armour.toml").entries("armour").items()
    }
    armours.setdefault("none", NO_ARMOUR)
    shields = {
        k: read_shield(n, k)
        for k, n in Source.read(folder / "shields.toml").entries("shield").items()
    }
    fighters = Source.read(folder / "fighters.toml").entries("fighter")
    return Content(weapons, ranged, armours, shields, fighters, tables)


@functools.cache
def default_content() -> Content:
    return load_content()


def _lookup(node: Node, key: str, known: Mapping[str, Any], what: str) -> Any:
    raw = node.data.get(key)
    if isinstance(raw, str):
        node.value(key, str)
        if raw not in known:
            raise node.error(key, f"unknown {what} {raw!r} (known: {', '.join(sorted(known))})")
        return known[raw]
    return None


def read_sheet(node: Node, content: Content) -> Sheet:
    """A sheet from a table: weapon/armour/shield by id or as full tables."""
    chars_node = node.table("characteristics")
    chars = {c: chars_node.value(c, int, min=0, max=200) for c in CHARACTERISTICS}
    chars_node.finish()
    skills_node = node.table("skills")
    skills: dict[str, int] = {}
    for name, value in list(skills_node.items()):
        skills[name] = skills_node._check(name, value, int, min=0, max=200)
    if "combat" not in skills:
        raise skills_node.error("combat", "missing (every fighter has the Combat skill)")
    for name, value in skills.items():
        if name != "combat" and value > skills["combat"] + COMBAT_LEAD:
            raise skills_node.error(
                name,
                f"{value} % exceeds Combat ({skills['combat']} %) by more than {COMBAT_LEAD} % "
                "[RinKaNou, Compétences de combat]",
            )
    specs_node = node.table("specializations", {})
    specs = {k: specs_node._check(k, v, int, min=0, max=100) for k, v in list(specs_node.items())}

    weapon = _lookup(node, "weapon", content.weapons, "weapon")
    if weapon is None:
        weapon = read_weapon(node.table("weapon"), "weapon")
    armour = NO_ARMOUR
    if node.has("armour"):
        armour = _lookup(node, "armour", content.armours, "armour")
        if armour is None:
            names = tuple(loc.name for loc in content.tables.locations)
            armour = read_armour(node.table("armour"), "armour", names)
    shield = None
    if node.has("shield"):
        shield = _lookup(node, "shield", content.shields, "shield")
        if shield is None:
            shield = read_shield(node.table("shield"), "shield")
    ranged = None
    if node.has("ranged"):
        ranged = _lookup(node, "ranged", content.ranged, "ranged weapon")
        if ranged is None:
            ranged = read_ranged(node.table("ranged"), "ranged")
    sheet = Sheet(
        name=node.value("name", str, ""),
        characteristics=chars,
        skills=skills,
        weapon=weapon,
        health=node.value("health", int, min=1),
        armour=armour,
        shield=shield,
        specializations=specs,
        movement=node.value("movement", float, 1.5, min=0.0),
        run_factor=node.value("run_factor", float, 4.0, min=1.0),
        ranged=ranged,
        sight=node.value("sight", int, 100, min=0),
    )
    node.finish()
    return sheet


def sheet_data(sheet: Sheet) -> dict[str, Any]:
    """The full sheet as plain data, readable back by :func:`read_sheet`."""

    def plain(obj: Any) -> Any:
        return attrs.asdict(
            obj, value_serializer=lambda _i, _a, v: list(v) if isinstance(v, tuple) else v
        )

    data: dict[str, Any] = {
        "name": sheet.name,
        "characteristics": dict(sheet.characteristics),
        "skills": dict(sheet.skills),
        "specializations": dict(sheet.specializations),
        "health": sheet.health,
        "movement": sheet.movement,
        "run_factor": sheet.run_factor,
        "weapon": plain(sheet.weapon),
        "armour": plain(sheet.armour),
    }
    if sheet.shield is not None:
        data["shield"] = plain(sheet.shield)
    if sheet.ranged is not None:
        data["ranged"] = plain(sheet.ranged)
        data["sight"] = sheet.sight
    return data
