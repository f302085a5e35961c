"""The end of a fight as a table: one row per fighter, in the ruleset's own terms.

RinKaNou counts wounds and situation points (PS), Chroniques and Loreval hit points,
Loss health levels and action points (PA), Rupture effort and stress: each ruleset's
columns are read from its fighters' status. A fighter out of the fight says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Cells = list[tuple[str, str]]


def _rinkanou(st: Any, sheet: Any) -> Cells:
    level = getattr(st, "wound_level", "") or "unhurt"
    return [("wounds", f"{st.wounds} ({level})"), ("PS", f"{st.ps:+d}")]


def _hit_points(st: Any, sheet: Any) -> Cells:
    return [("HP", f"{st.hit_points}/{st.max_hit_points}")]


def _loreval(st: Any, sheet: Any) -> Cells:
    return [*_hit_points(st, sheet), ("heroism", str(st.heroism))]


def _loss(st: Any, sheet: Any) -> Cells:
    return [
        ("health", f"{st.health} level(s) left"),
        ("PA", str(st.pa)),
        ("Fursa", str(st.fursa)),
        ("inspiration", str(st.inspiration)),
    ]


def _rupture(st: Any, sheet: Any) -> Cells:
    wounds = getattr(st, "wounds", ())
    return [
        ("effort", f"{st.effort}/{st.max_effort}"),
        ("stress", str(st.stress)),
        ("wounds", str(len(wounds))),
    ]


COLUMNS: dict[str, Callable[[Any, Any], Cells]] = {
    "rinkanou": _rinkanou,
    "chroniques": _hit_points,
    "loreval": _loreval,
    "loss": _loss,
    "rupture": _rupture,
}
"""Each ruleset's columns, from a fighter's status and sheet."""


def status_table(ruleset: str, combatants: Iterable[Any], out_reasons: dict[str, str]) -> str:
    """The table of the fighters at the end of a fight (``combatants`` are the fight
    state's; ``out_reasons`` why each fighter out of the fight left it)."""
    columns = COLUMNS.get(ruleset.lower())
    header = ["fighter", "side", "state"]
    rows: list[list[str]] = []
    for c in combatants:
        state = "in the fight" if c.in_fight else f"out ({out_reasons.get(c.id, 'out')})"
        cells: Cells = []
        if columns is not None:
            try:
                cells = columns(c.status, c.sheet)
            except AttributeError:  # a status without these fields: say less
                cells = []
        for label, _ in cells:
            if label not in header:
                header.append(label)
        row = [c.id, c.side, state]
        values = dict(cells)
        row.extend(values.get(label, "") for label in header[3:])
        rows.append(row)
    return _format([header, *rows])


def _format(table: Sequence[Sequence[str]]) -> str:
    count = len(table[0])
    widths = [max(len(row[i]) if i < len(row) else 0 for row in table) for i in range(count)]
    lines = []
    for n, row in enumerate(table):
        cells = [(row[i] if i < len(row) else "").ljust(widths[i]) for i in range(len(widths))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


__all__ = ["COLUMNS", "status_table"]
