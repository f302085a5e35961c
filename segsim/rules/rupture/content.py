"""Rupture game content: weapons, manoeuvres and fighter sheets (text 002).

The excerpt gives the mechanics (pools of d6, qualities, Threat and Cover, effort points,
physical stress, rupture thresholds, overflows) but no equipment list or character
sheet: ``models/rupture/`` ships example content in those terms
(docs/rules/rupture.md, "Interpretations"). A *weapon* is the means of a targeted action:
a sword, a bow, or a manoeuvre of the mind or the tongue (a threat, an argument), each
with the skill it tests, its Threat (menace) and its Cover (couverture). Everything is
validated on load; errors name the file, the line and the field.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from segsim import native
from segsim.input import Node, Source
from segsim.models import models_dir

TEXT = "Rupture"

DOMAINS = ("physical", "mental", "social")
"""The three natures of a targeted action and of the wound an overflow leaves: an armed
attack, a psychological hold (emprise psychologique), a social manoeuvre (Rupture,
"Dépassement")."""

TARGETED = ("attack", "threaten", "intimidate", "persuade", "hinder")
"""Targeted action kinds (actions ciblées): ``attack`` uses a physical weapon, the others a
manoeuvre of that kind. ``hinder`` hinders the target or gives it a malus (Rupture, "Les
actions non ciblées": an action that "le gêne ou lui inflige des malus" is targeted)."""

HINDER = "hinder"

MANOEUVRE_DOMAINS: Mapping[str, str] = {
    "threaten": "mental",
    "intimidate": "mental",
    "persuade": "social",
    HINDER: "physical",
}
"""The default domain of each manoeuvre kind: a threat ("rends-toi ou crève") gives a
psychological overflow in the text's example; persuasion is a social manoeuvre; a
hindrance is physical (a trip, sand in the eyes) unless it says otherwise (a taunt)."""

DEFAULT_DEFENCES: Mapping[str, tuple[str, ...]] = {
    "physical": ("melee", "athletics"),
    "mental": ("will",),
    "social": ("will", "eloquence"),
}
"""Skills a fighter may defend with, by domain, unless its sheet says otherwise (the text
asks for "a test of an appropriate skill")."""

MELEE_RANGE = 2.0
"""Metres: a physical weapon without a range strikes within this distance."""
VOICE_RANGE = 10.0
"""Metres: a manoeuvre without a range reaches who hears it."""


@attrs.frozen
class Weapon:
    """The means of a targeted action: a weapon or a manoeuvre.

    ``kind`` is the targeted action it serves (``attack`` for physical weapons,
    ``threaten``, ``intimidate``, ``persuade`` or ``hinder``); ``domain`` the nature of
    what it does;
    ``threat`` (Menace) is added to the attack value and ``cover`` (Couverture) to the
    defence value, each only on a successful test (Rupture, "Les actions ciblées",
    "Se défendre"). ``wound`` names the nature of the wounds it leaves.
    """

    id: str
    name: str
    kind: str
    domain: str
    skill: str
    threat: int = 0
    cover: int = 0
    range: float = MELEE_RANGE
    wound: str = ""

    @property
    def wound_nature(self) -> str:
        return self.wound or self.domain


@attrs.frozen
class Flaw:
    """A flaw (faille): it raises the difficulty of the bearer's tests of some skills
    (Rupture, "Les actions ciblées": a flaw or the circumstances change the difficulty)."""

    name: str
    skills: tuple[str, ...]
    difficulty: int = 1


class _Memo:
    """What a sheet's methods worked out, by argument (a sheet is shared content: what a
    fight reaches of it never changes)."""

    __slots__ = ("covers", "defence", "difficulty", "means")

    def __init__(self) -> None:
        self.defence: dict[str, str] = {}
        self.means: dict[str, tuple[Weapon, ...]] = {}
        self.covers: dict[str, tuple[Weapon, ...]] = {}
        self.difficulty: dict[str, int] = {}


@attrs.frozen
class Sheet:
    """A Rupture fighter's sheet.

    ``skills`` are pool sizes (d6 per point); ``effort`` the effort points (points
    d'effort); ``stress_max`` the physical stress that takes the fighter out (0: none);
    ``rupture`` the rupture threshold (seuil de rupture) by domain; ``actions`` the
    actions per passe; ``speed`` the metres of one move; ``defences`` the skills it may
    defend with, by domain.
    """

    name: str
    skills: Mapping[str, int]
    effort: int
    rupture: Mapping[str, int]
    weapons: tuple[Weapon, ...]
    actions: int = 2
    stress_max: int = 10
    speed: float = 6.0
    defences: Mapping[str, tuple[str, ...]] = native.field(factory=lambda: dict(DEFAULT_DEFENCES))
    flaws: tuple[Flaw, ...] = ()
    _memo: _Memo = native.field(init=False, factory=_Memo, eq=False, repr=False)
    """What its methods answer, worked out once when the sheet is made and kept on it
    (read in one attribute lookup): not a field of the sheet's data, and never changed
    by a fight (:func:`segsim.frozen.freeze` leaves it as it is)."""

    def __attrs_post_init__(self) -> None:
        memo = self._memo
        weapons = self.weapons
        for kind in TARGETED:
            memo.means[kind] = tuple(w for w in weapons if w.kind == kind)
        for domain in DOMAINS:
            memo.covers[domain] = tuple(w for w in weapons if w.domain == domain)
        skills = [*self.skills, *(w.skill for w in weapons)]
        skills += [s for listed in self.defences.values() for s in listed]
        skills += [s for f in self.flaws for s in f.skills]
        for skill in skills:
            memo.difficulty[skill] = self._flaws(skill)
        for domain, listed in self.defences.items():
            best: tuple[int, str] | None = None  # the most dice left, the first on a tie
            for skill in listed:
                left = self.skill(skill) - self.difficulty(skill)
                if best is None or left > best[0]:
                    best = (left, skill)
            if best is not None:
                memo.defence[domain] = best[1]

    def _flaws(self, skill: str) -> int:
        return sum(f.difficulty for f in self.flaws if skill in f.skills)

    def skill(self, name: str) -> int:
        """Dice in the pool of a skill (0 if the fighter lacks it)."""
        return self.skills.get(name, 0)

    def difficulty(self, skill: str) -> int:
        """What the fighter's flaws add to the difficulty of a test of ``skill``."""
        known = self._memo.difficulty.get(skill)
        return self._flaws(skill) if known is None else known

    def means(self, kind: str) -> tuple[Weapon, ...]:
        """The weapons or manoeuvres serving a targeted action kind."""
        known = self._memo.means.get(kind)
        return tuple(w for w in self.weapons if w.kind == kind) if known is None else known

    def best_defence(self, domain: str) -> str:
        """The skill allowed to defend against an action of ``domain`` with the most
        dice left once its flaws are counted (the first listed on a tie)."""
        return self._memo.defence[domain]

    def weapon(self, wid: str) -> Weapon | None:
        return next((w for w in self.weapons if w.id == wid), None)

    def covers(self, domain: str) -> tuple[Weapon, ...]:
        """What may lend its Cover to a defence against an action of ``domain``."""
        known = self._memo.covers.get(domain)
        return tuple(w for w in self.weapons if w.domain == domain) if known is None else known


@attrs.frozen
class Content:
    """Every weapon, manoeuvre and example fighter by id."""

    weapons: Mapping[str, Weapon]
    fighters: Mapping[str, Node]


# ---------------------------------------------------------------- readers


def _strings(node: Node, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    raw = node.value(key, list, list(default))
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            raise node.error(key, f"entry {i} is not a non-empty string: {item!r}")
    return tuple(raw)


def read_weapon(node: Node, wid: str, *, manoeuvre: bool | None = None) -> Weapon:
    """A weapon (``kind = "attack"``, physical) or a manoeuvre (threaten, intimidate,
    persuade: mental or social; hinder: any domain, physical by default)."""
    default_kind = None if manoeuvre is None else ("threaten" if manoeuvre else "attack")
    if default_kind is None or node.has("kind"):
        kind = node.value("kind", str, choices=TARGETED)
    else:
        kind = default_kind
    if manoeuvre is True and kind == "attack":
        raise node.error("kind", "a manoeuvre serves threaten, intimidate, persuade or hinder")
    if manoeuvre is False and kind != "attack":
        raise node.error("kind", "a weapon serves attack (manoeuvres are in manoeuvres.toml)")
    if kind == "attack":
        domain = node.value("domain", str, "physical", choices=("physical",))
        reach = MELEE_RANGE
    elif kind == HINDER:
        domain = node.value("domain", str, MANOEUVRE_DOMAINS[kind], choices=DOMAINS)
        reach = MELEE_RANGE if domain == "physical" else VOICE_RANGE
    else:
        domain = node.value("domain", str, MANOEUVRE_DOMAINS[kind], choices=("mental", "social"))
        reach = VOICE_RANGE
    weapon = Weapon(
        id=node.value("id", str, wid),
        name=node.value("name", str, wid),
        kind=kind,
        domain=domain,
        skill=node.value("skill", str),
        threat=node.value("threat", int, 0, min=0, max=20),
        cover=node.value("cover", int, 0, min=0, max=20),
        range=node.value("range", float, reach, min=0.5, max=1000.0),
        wound=node.value("wound", str, ""),
    )
    node.finish()
    return weapon


def _read_flaw(node: Node) -> Flaw:
    flaw = Flaw(
        name=node.value("name", str),
        skills=_strings(node, "skills"),
        difficulty=node.value("difficulty", int, 1, min=1, max=5),
    )
    if not flaw.skills:
        raise node.error("skills", "a flaw hampers at least one skill")
    node.finish()
    return flaw


def _weapons(node: Node, key: str, content: Content) -> tuple[Weapon, ...]:
    raw = node.value(key, list, [])
    out: list[Weapon] = []
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
    ids = [w.id for w in out]
    dupes = sorted({w for w in ids if ids.count(w) > 1})
    if dupes:
        raise node.error(key, f"weapon ids must be unique: {', '.join(dupes)}")
    return tuple(out)


def read_sheet(node: Node, content: Content) -> Sheet:
    """A sheet from a table: weapons and manoeuvres by id or as full tables."""
    skills_node = node.table("skills")
    skills = {k: skills_node.value(k, int, min=0, max=20) for k, _ in list(skills_node.items())}
    rupture_node = node.table("rupture")
    rupture = {d: rupture_node.value(d, int, min=0, max=50) for d in DOMAINS}
    rupture_node.finish()
    weapons = _weapons(node, "weapons", content)
    defences = dict(DEFAULT_DEFENCES)
    if node.has("defences"):
        dnode = node.table("defences")
        for d in DOMAINS:
            if dnode.has(d):
                listed = _strings(dnode, d)
                if not listed:
                    raise dnode.error(d, "give at least one skill")
                defences[d] = listed
        dnode.finish()
    sheet = Sheet(
        name=node.value("name", str, ""),
        skills=skills,
        effort=node.value("effort", int, min=0, max=100),
        rupture=rupture,
        weapons=weapons,
        actions=node.value("actions", int, 2, min=1, max=10),
        stress_max=node.value("stress_max", int, 10, min=0, max=100),
        speed=node.value("speed", float, 6.0, min=0.5, max=100.0),
        defences=defences,
        flaws=tuple(_read_flaw(f) for f in node.tables("flaws", [])),
    )
    node.finish()
    return sheet


def load_content(folder: Path | None = None) -> Content:
    """Read and validate ``models/rupture`` (or another folder of the same layout)."""
    folder = folder or models_dir() / "rupture"
    weapons: dict[str, Weapon] = {}
    for key, n in Source.read(folder / "weapons.toml").entries("weapon").items():
        weapons[key] = read_weapon(n, key, manoeuvre=False)
    for key, n in Source.read(folder / "manoeuvres.toml").entries("manoeuvre").items():
        if key in weapons:
            raise n.error(None, f"id {key!r} is already a weapon")
        weapons[key] = read_weapon(n, key, manoeuvre=True)
    fighters = Source.read(folder / "fighters.toml").entries("fighter")
    content = Content(weapons, fighters)
    for node in fighters.values():  # every example fighter must load
        read_sheet(node, content)
    return content


@functools.cache
def default_content() -> Content:
    return load_content()


def weapon_data(w: Weapon) -> dict[str, Any]:
    return {
        "id": w.id,
        "name": w.name,
        "kind": w.kind,
        "domain": w.domain,
        "skill": w.skill,
        "threat": w.threat,
        "cover": w.cover,
        "range": w.range,
        "wound": w.wound,
    }


def sheet_data(sheet: Sheet) -> dict[str, Any]:
    """The full sheet as plain data, readable back by :func:`read_sheet`."""
    return {
        "name": sheet.name,
        "skills": dict(sheet.skills),
        "effort": sheet.effort,
        "rupture": dict(sheet.rupture),
        "weapons": [weapon_data(w) for w in sheet.weapons],
        "actions": sheet.actions,
        "stress_max": sheet.stress_max,
        "speed": sheet.speed,
        "defences": {d: list(s) for d, s in sheet.defences.items()},
        "flaws": [
            {"name": f.name, "skills": list(f.skills), "difficulty": f.difficulty}
            for f in sheet.flaws
        ],
    }
