"""A Loss line battle: two sides drawn up in ranks (segsim.battle.battle('loss', n)).

Each fighter sees only the actions of opponents within the ``awareness`` radius, and the
built-in policies look for opponents in reach, and for the nearest one, through the
fight's spatial grid: an action costs about what it costs in a small fight however
large the battle.
"""

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
    awareness: float | None = 6.0,
    width: int = 50,
    gap: float = 1.8,
    fighters: Sequence[str] = ("vigile", "malfrat"),
    policies: Sequence[str] = ("aggressive", "defensive"),
    offsets: tuple[int, int] = (0, 0),
    **kwargs: Any,
) -> Fight:
    """Two Loss sides of ``per_side`` fighters, ``gap`` metres apart (in contact: 2 m
    at most), full rules.

    The fighters of each side take ``fighters`` (example sheets) and ``policies`` in
    turn, the west side from index ``offsets[0]`` of both cycles and the east side from
    ``offsets[1]``; ranks of ``width`` fighters 1.6 m apart. Other keywords go to
    :class:`Fight` (``max_segments``, 20,000 by default), but ``options``: a mapping of
    Loss options (``awareness`` is given on its own; None: everyone sees everything).
    """
    from segsim.rules.loss import Loss

    if type(per_side) is not int or per_side < 1:
        raise ValueError(f"per_side is a whole number from 1, not {per_side!r}")
    if len(offsets) != 2 or not all(type(o) is int and o >= 0 for o in offsets):
        raise ValueError(f"offsets are two whole numbers from 0 (west, east), not {offsets!r}")
    rules = Loss(awareness=awareness, **dict(kwargs.pop("options", {})))
    known = rules.content.fighters
    for name in fighters:
        if name not in known:
            raise ValueError(f"no Loss fighter {name!r} (known: {', '.join(sorted(known))})")
    sheets = [frozen_sheet(rules, known[name]) for name in fighters]
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
            ruleset="loss",
            offset=offset,
        )
    kwargs.setdefault("max_segments", 20_000)
    return Fight(rules, specs, seed=seed, name=f"{per_side} v {per_side}", **kwargs)
