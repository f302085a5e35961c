"""Spending and buying situation points (PS) on one action (RinKaNou, "Utilisation des
points de situation", "Achat de points de situation", "Faire jouer une spécialisation").

A declaration carries its PS choices in ``params["ps"]``, for example
``{"faster": 1, "bonus": 2}`` or ``{"slower": 2}``. :func:`parse_ps` checks every cap and
the balance (what is spent may not exceed what the fighter can use plus what it buys)
and returns the effects. Points bought serve only the action they are bought on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from segsim.errors import IllegalDeclaration
from segsim.rules.rinkanou.content import Sheet, Tables

TEXT = "RinKaNou"
USE = f"{TEXT}, Utilisation des points de situation"
BUY = f"{TEXT}, Achat de points de situation"

SPENDS = ("faster", "bonus", "specialization", "damage", "aim", "orient", "multiple", "parry_force")
"""Ways to spend PS: act faster (-1 segment each), +10 % each, specialization +20 % each,
+5 damage each, aim a location (3 PS), orient the blow (one location step each),
multiple dodge (one more simultaneous attack each), parry force (+5 each)."""
BUYS = ("slower", "malus", "spec_malus", "limit_damage", "approximate")
"""Ways to buy PS: act slower (+1 segment each), -10 % each, specialization -5 % each,
-5 damage each, approximate strike (the location drifts one step each, at most 3)."""
AIM_COST = 3
APPROXIMATE_MAX = 3
PS_PERCENT = 10  # +/-10 % per PS
SPEC_PERCENT = 20  # +20 % per PS with a specialization
SPEC_MALUS_PERCENT = 5  # -5 % per PS bought with a specialization
DAMAGE_PER_PS = 5  # +/-5 damage per PS
PARRY_FORCE_PER_PS = 5  # the text gives no rate: the same as damage (see the rules page)

ROLLED_ONLY = {"bonus", "malus", "specialization", "spec_malus"}
STRIKE_ONLY = {"damage", "limit_damage"}
LOCATION_USES = {"aim", "orient", "approximate"}  # a strike, or a shot (with PC)
WEAPON_ONLY = {"specialization", "spec_malus"}


@attrs.frozen
class PSUse:
    """The effects of one action's PS choices."""

    cost: int = 0
    gain: int = 0
    duration: int = 0  # segments added (negative: faster)
    chance: int = 0  # % added to the roll
    spent_chance: int = 0  # the part of ``chance`` the spends make (bonus, specialization)
    damage: int = 0
    parry_force: int = 0
    aim: str | None = None
    orient: int = 0
    toward: str | None = None
    approximate: int = 0
    multiple: int = 0

    @property
    def net(self) -> int:
        """PS taken from the fighter's score (negative: more bought than spent)."""
        return self.cost - self.gain


NO_PS = PSUse()


def _count(ps: Mapping[str, Any], key: str) -> int:
    value = ps.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise IllegalDeclaration(
            f"PS {key} must be a whole number of points, not {value!r}", rule=USE
        )
    return value


def parse_ps(
    raw: object,
    *,
    kind: str,
    duration: int | None,
    rolled: bool,
    sheet: Sheet,
    weapon_used: bool,
    available: int,
    tables: Tables,
    currency: str = "PS",
    cache: dict[tuple[Any, ...], PSUse] | None = None,
) -> PSUse:
    """Check one declaration's PS choices against the caps and the fighter's score.

    ``available`` is the score the fighter can use for this action (negative when its
    negative score applies against this opponent: it must then buy the deficit back).
    With a ``cache`` (:data:`SHAPES`, shared by every ruleset), the checks of one
    declaration shape are made once; only the score is checked again each time. A shape
    is everything the checks read: the choices and the types of their values (1, 1.0
    and True are equal keys, but only 1 is a number of points), the action, the
    weapon's specialization and the hit locations of the tables.
    """
    # (a declaration's frozen table or a dict first: the abstract Mapping check costs
    # more than the lookup)
    if cache is not None and (
        raw is None
        or type(raw) is MappingProxyType
        or type(raw) is dict
        or isinstance(raw, Mapping)
    ):
        weapon = sheet.weapon
        try:
            choices = tuple(raw.items()) if raw else ()
            # The values' types, when not all are plain ints (1, 1.0 and True are equal):
            # () stands for all ints, never the types of a shape that has another.
            types: tuple[type, ...] = ()
            for _, value in choices:
                if type(value) is not int:
                    types = tuple([type(v) for _, v in choices])
                    break
            key = (
                choices,
                types,
                tables.location_names,
                kind,
                duration,
                rolled,
                weapon_used,
                sheet.specializations.get(weapon.id, 0),
                weapon.id,
                weapon.name,
                currency,
            )
            use = cache.get(key)
        except TypeError:  # unhashable values: checked (and refused) below
            key, use = None, None
        if use is None:
            use = _parse_shape(raw, kind, duration, rolled, sheet, weapon_used, tables, currency)
            if key is not None:
                if len(cache) >= SHAPE_CACHE:
                    cache.clear()
                cache[key] = use
        if use.cost - use.gain > available:
            _check_available(use, available, currency)  # refuses, saying why
        return use
    use = _parse_shape(raw, kind, duration, rolled, sheet, weapon_used, tables, currency)
    _check_available(use, available, currency)
    return use


SHAPE_CACHE = 4096
"""Declaration shapes whose PS checks are kept (then the cache starts afresh)."""

SHAPES: dict[tuple[Any, ...], PSUse] = {}
"""The effects of every declaration shape checked in this process, by shape (see
:func:`parse_ps`): a pure function of its key, so every ruleset and fight shares it."""


def _check_available(use: PSUse, available: int, currency: str) -> None:
    cost, gain = use.cost, use.gain
    if cost - gain > available:
        if available < 0:
            raise IllegalDeclaration(
                f"a score of {available} {currency} applies here: buy the deficit back "
                f"before acting (this declaration spends {cost} and buys {gain})",
                rule=BUY,
            )
        raise IllegalDeclaration(
            f"spends {cost} {currency} and buys {gain}, but only {available} can be used",
            rule=USE,
        )


def _parse_shape(
    raw: object,
    kind: str,
    duration: int | None,
    rolled: bool,
    sheet: Sheet,
    weapon_used: bool,
    tables: Tables,
    currency: str,
) -> PSUse:
    """The effects of one declaration's PS choices, every cap checked but the score."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise IllegalDeclaration(f"{currency} choices are a table like {{faster = 1}}, not {raw!r}")
    ps = dict(raw)
    unknown = sorted(set(ps) - set(SPENDS) - set(BUYS) - {"toward"})
    if unknown:
        raise IllegalDeclaration(
            f"unknown {currency} use {unknown[0]!r} (spend: {', '.join(SPENDS)}; "
            f"buy: {', '.join(BUYS)})",
            rule=USE,
        )
    used = {k for k, v in ps.items() if v}
    if not rolled and used & ROLLED_ONLY:
        raise IllegalDeclaration(
            f"{kind} has no roll to modify ({', '.join(sorted(used & ROLLED_ONLY))})", rule=USE
        )
    if kind != "strike" and used & STRIKE_ONLY:
        raise IllegalDeclaration(
            f"only a strike can use {', '.join(sorted(used & STRIKE_ONLY))}", rule=USE
        )
    if kind != "dodge" and ps.get("multiple"):
        raise IllegalDeclaration("multiple dodge is for a dodge", rule=f"{USE} (Esquive multiple)")
    if kind != "parry" and ps.get("parry_force"):
        raise IllegalDeclaration("parry force is for a parry", rule=USE)
    if used & {"faster", "slower"} and duration is None:
        raise IllegalDeclaration(f"{kind} has no duration to change", rule=USE)
    faster = _count(ps, "faster")
    slower = _count(ps, "slower")
    if faster and slower:
        raise IllegalDeclaration("an action is either faster or slower, not both", rule=USE)
    if duration is not None:
        half = math.ceil(duration / 2)
        if faster > half or duration - faster < 1:
            limit = min(half, duration - 1)
            raise IllegalDeclaration(
                f"{kind} lasts {duration} segments: at most {limit} PS can shorten it "
                "(half its duration rounded up, never below 1 segment)",
                rule=f"{USE} (Agir plus rapidement)",
            )
        if slower > half:
            raise IllegalDeclaration(
                f"{kind} lasts {duration} segments: it can be lengthened by at most {half}",
                rule=f"{BUY} (Agir plus lentement)",
            )
    level = sheet.specializations.get(sheet.weapon.id, 0)
    spec = _count(ps, "specialization")
    spec_malus = _count(ps, "spec_malus")
    if (spec or spec_malus) and (not weapon_used or level <= 0):
        raise IllegalDeclaration(
            f"no specialization in the {sheet.weapon.name} to use",
            rule=f"{TEXT}, Faire jouer une spécialisation d'arme",
        )
    if spec and SPEC_PERCENT * (spec - 1) >= level:
        raise IllegalDeclaration(
            f"a specialization of {level} % is worth at most {math.ceil(level / SPEC_PERCENT)} PS",
            rule=f"{TEXT}, Faire jouer une spécialisation d'arme",
        )
    if spec_malus and SPEC_MALUS_PERCENT * spec_malus * 2 > level:
        raise IllegalDeclaration(
            f"the specialization malus may not exceed half the level ({level} %)",
            rule=f"{BUY} (Faire jouer une spécialisation d'arme)",
        )
    aim = ps.get("aim")
    names = {loc.name for loc in tables.locations}
    if aim is not None and aim not in names:
        raise IllegalDeclaration(
            f"cannot aim at {aim!r} (locations: {', '.join(sorted(names))})", rule=USE
        )
    orient = _count(ps, "orient")
    toward = ps.get("toward")
    if orient and toward not in names:
        raise IllegalDeclaration(
            "orient needs toward = a hit location", rule=f"{USE} (Orienter son coup)"
        )
    approximate = _count(ps, "approximate")
    if approximate > APPROXIMATE_MAX:
        raise IllegalDeclaration(
            f"an approximate strike buys at most {APPROXIMATE_MAX} PS",
            rule=f"{BUY} (Frappe approximative)",
        )
    if sum(1 for x in (aim is not None, orient > 0, approximate > 0) if x) > 1:
        raise IllegalDeclaration("aim, orient and approximate strike exclude each other", rule=USE)
    bonus = _count(ps, "bonus")
    malus = _count(ps, "malus")
    damage = _count(ps, "damage")
    limit = _count(ps, "limit_damage")
    multiple = _count(ps, "multiple")
    parry_force = _count(ps, "parry_force")
    cost = (
        faster + bonus + spec + damage + (AIM_COST if aim else 0) + orient + multiple + parry_force
    )
    gain = slower + malus + spec_malus + limit + approximate
    spent_chance = PS_PERCENT * bonus + min(SPEC_PERCENT * spec, level if spec else 0)
    return PSUse(
        cost=cost,
        gain=gain,
        duration=slower - faster,
        chance=PS_PERCENT * (bonus - malus)
        + min(SPEC_PERCENT * spec, level if spec else 0)
        - SPEC_MALUS_PERCENT * spec_malus,
        spent_chance=spent_chance,
        damage=DAMAGE_PER_PS * (damage - limit),
        parry_force=PARRY_FORCE_PER_PS * parry_force,
        aim=aim,
        orient=orient,
        toward=toward if orient else None,
        approximate=approximate,
        multiple=multiple,
    )


def ps_limits(
    *,
    kind: str,
    duration: int | None,
    rolled: bool,
    sheet: Sheet,
    weapon_used: bool,
    usable: int,
) -> dict[str, int]:
    """The most of each spend and buy one action could take now, alone (0: not allowed).

    Spends are bounded by ``usable`` (the fighter's score it can use) and each rule's cap;
    buys only by their caps. Policies read it from ``observation.me.ps_limits(...)``.
    """
    spend = max(0, usable)
    level = sheet.specializations.get(sheet.weapon.id, 0) if weapon_used else 0
    half = math.ceil(duration / 2) if duration is not None else 0
    limits = {
        "faster": min(spend, half, (duration or 1) - 1),
        "bonus": spend if rolled else 0,
        "specialization": min(spend, math.ceil(level / SPEC_PERCENT)) if rolled else 0,
        "damage": spend if kind == "strike" else 0,
        "aim": AIM_COST if kind == "strike" and spend >= AIM_COST else 0,
        "orient": spend if kind == "strike" else 0,
        "multiple": spend if kind == "dodge" else 0,
        "parry_force": spend if kind == "parry" else 0,
        "slower": half,
        "malus": 10 if rolled else 0,
        "spec_malus": level // 10 if rolled else 0,
        "limit_damage": 10 if kind == "strike" else 0,
        "approximate": APPROXIMATE_MAX if kind == "strike" else 0,
    }
    return limits
