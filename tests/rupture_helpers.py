"""Helpers for the Rupture tests: sheets from models/rupture, fights with loaded dice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from segsim import Fight, LoadedDice
from segsim.events import Event
from segsim.fight import CombatantSpec
from segsim.rules.rupture import Rupture
from segsim.rules.rupture.content import Sheet

RULES = Rupture()


def sheet(who: str, **changes: Any) -> Sheet:
    """An example fighter's sheet with fields replaced (``rupture={...}`` merges)."""
    base: Sheet = RULES.load_sheet(RULES.content.fighters[who])
    if "rupture" in changes:
        changes["rupture"] = {**base.rupture, **changes["rupture"]}
    if "skills" in changes:
        changes["skills"] = {**base.skills, **changes["skills"]}
    return attrs.evolve(base, **changes) if changes else base


def arena(
    fighters: Mapping[str, tuple[str, str | Sheet, Any]],
    *,
    dice: Iterable[int] = (),
    options: Mapping[str, Any] | None = None,
    positions: Mapping[str, tuple[float, float]] | None = None,
    **kwargs: Any,
) -> Fight:
    """Fighters 1.5 m apart on a line unless placed, with loaded d6."""
    rules = Rupture(**dict(options or {}))
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        the_sheet = sheet(who) if isinstance(who, str) else who
        pos = (positions or {}).get(cid, (1.5 * i, 0.0))
        specs.append(CombatantSpec(cid, side, the_sheet, policy, position=pos))
    kwargs.setdefault("max_segments", 30)
    return Fight(rules, specs, dice=LoadedDice([("d6", v) for v in dice]), **kwargs)


def of_type(fight: Fight, kind: str) -> list[Any]:
    return [e for e in fight.history if kind == e.TYPE]


def one(fight: Fight, kind: str) -> Any:
    [found] = of_type(fight, kind)
    return found


def types(events: Iterable[Event], keep: Iterable[str]) -> list[tuple[int, str]]:
    wanted = set(keep)
    return [(e.t, e.TYPE) for e in events if e.TYPE in wanted]
