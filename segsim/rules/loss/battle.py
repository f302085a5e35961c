"""A Loss line battle: two sides drawn up in ranks (segsim.battle.battle('loss', n)).

Each fighter sees only the actions of opponents within the ``awareness`` radius, and the
built-in policies look for opponents in reach, and for the nearest one, through the
fight's spatial grid: an action costs about what it costs in a small fight however
large the battle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.battle import two_sides
from segsim.fight import Fight


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

    rules = Loss(awareness=awareness, **dict(kwargs.pop("options", {})))
    return two_sides(
        rules,
        per_side,
        seed=seed,
        width=width,
        gap=gap,
        fighters=fighters,
        policies=policies,
        offsets=offsets,
        **kwargs,
    )
