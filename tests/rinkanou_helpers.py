"""Shared helpers for the RinKaNou rule tests: fights with scripts and loaded dice."""

from __future__ import annotations

from typing import Any

from segsim.fight import Fight
from segsim.rules.rinkanou import RinKaNou
from segsim.testing import Scripted, build_fight


def fight(
    scripts: dict[str, dict[int, Any]],
    dice: list[int],
    *,
    sheets: dict[str, Any] | None = None,
    sides: dict[str, str] | None = None,
    positions: dict[str, tuple[float, float]] | None = None,
    setup: dict[str, dict[str, Any]] | None = None,
    start_roll: bool = False,
    ruleset_options: dict[str, Any] | None = None,
    **kw: Any,
) -> Fight:
    """A fight of example fighters (robert: blue; the others: red by default)."""
    sheets = sheets or {}
    sides = sides or {}
    fighters = {
        cid: (
            sides.get(cid, "blue" if cid == "robert" else "red"),
            sheets.get(
                cid, cid if cid in ("robert", "margaret", "recruit", "veteran") else "recruit"
            ),
            Scripted(script, name=f"{cid}-script"),
        )
        for cid, script in scripts.items()
    }
    f = build_fight(
        fighters,
        dice=dice,
        ruleset=RinKaNou(start_roll=start_roll, **(ruleset_options or {})),
        positions=positions,
        **kw,
    )
    for cid, values in (setup or {}).items():
        f.state.combatants[cid].setup = values
    return f


def of(f: Fight, type_: str, **match: Any) -> list[Any]:
    """Events of a type whose fields match."""
    return [
        e
        for e in f.history
        if type_ == e.TYPE and all(getattr(e, k) == v for k, v in match.items())
    ]


def one(f: Fight, type_: str, **match: Any) -> Any:
    found = of(f, type_, **match)
    assert len(found) == 1, f"expected one {type_} {match}, got {found}"
    return found[0]
