"""A Chroniques line battle: two sides drawn up in ranks (:func:`segsim.battle.ranks`),
the ruleset's own fighters and built-in policies, for tests and benchmarks
(``segsim.battle.battle("chroniques", per_side)``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.battle import ranks
from segsim.fight import Fight
from segsim.rules import frozen_sheet


def line_battle(
    per_side: int,
    *,
    seed: int = 0,
    width: int = 50,
    gap: float = 1.5,
    fighters: Sequence[str] = ("bandit", "aldric"),
    policies: Sequence[str] = ("aggressive", "cautious"),
    offsets: tuple[int, int] = (0, 0),
    **kwargs: Any,
) -> Fight:
    """Two Chroniques sides of ``per_side`` fighters, ``gap`` metres apart (in contact:
    the first ranks fight from their first turns), full rules. Each side's fighters
    take ``fighters`` (the default content's sheets) and ``policies`` in turn, the west
    side from index ``offsets[0]`` of both cycles and the east side from ``offsets[1]``.
    The rules' options are the defaults; other keywords go to :class:`Fight`
    (``max_segments``: 20,000 unless given)."""
    from segsim.rules.chroniques.ruleset import Chroniques

    if len(offsets) != 2 or not all(type(o) is int and o >= 0 for o in offsets):
        raise ValueError(f"offsets are two whole numbers from 0 (west, east), not {offsets!r}")
    rules = Chroniques()
    sheets = [frozen_sheet(rules, rules.content.fighters[name]) for name in fighters]
    width = max(1, min(width, per_side))
    specs = []
    for side, front, facing, prefix, offset in (
        ("west", 0.0, 1.0, "w", offsets[0]),
        ("east", gap, -1.0, "e", offsets[1]),
    ):
        specs += ranks(
            side,
            per_side,
            front=front,
            facing=facing,
            width=width,
            spacing=1.6,
            prefix=prefix,
            sheets=sheets,
            policies=policies,
            ruleset="chroniques",
            offset=offset,
        )
    kwargs.setdefault("max_segments", 20_000)
    return Fight(rules, specs, seed=seed, name=f"{per_side} v {per_side}", **kwargs)
