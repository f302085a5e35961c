"""A Chroniques line battle: two sides drawn up in ranks (:func:`segsim.battle.ranks`),
the ruleset's own fighters and built-in policies, for tests and benchmarks
(``segsim.battle.battle("chroniques", per_side)``).

The ruleset's ``awareness`` radius keeps an action's cost that of a small fight however
large the battle: each fighter sees (``obs.others``) only those within it, found through
the fight's spatial grid, and with no opponent in view the built-in policies go for the
nearest one (a grid search). The rounds' own bookkeeping (who acts next, how many are
still to act) is kept as the fight goes (:class:`~segsim.rules.chroniques.turns.RoundOrder`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.battle import two_sides
from segsim.fight import Fight

OPTIONS = (
    "ambush",
    "ambush_difficulty",
    "surprise_modifier",
    "surprised_defence_malus",
    "dim_light",
    "dim_light_magic",
    "total_defence_move",
    "turn_segments",
    "two_weapon_criticals",
)
"""The ruleset's options :func:`line_battle` takes as keywords (besides ``awareness``)."""


def line_battle(
    per_side: int,
    *,
    seed: int = 0,
    awareness: float | None = 2.5,
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
    ``awareness`` (metres, 2.5: a front-rank fighter sees the opponents facing it and its
    neighbours; None: everyone sees everyone, as at a table) and the ruleset's other
    options (:data:`OPTIONS`) may be given as keywords; the rest go to :class:`Fight`
    (``max_segments``: 20,000 unless given)."""
    from segsim.rules.chroniques.ruleset import Chroniques

    options = {key: kwargs.pop(key) for key in OPTIONS if key in kwargs}
    return two_sides(
        Chroniques(awareness=awareness, **options),
        per_side,
        seed=seed,
        width=width,
        gap=gap,
        fighters=fighters,
        policies=policies,
        offsets=offsets,
        **kwargs,
    )
