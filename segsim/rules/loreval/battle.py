"""A Loreval line battle: two sides drawn up in ranks (:func:`segsim.battle.ranks`),
the ruleset's own fighters and built-in policies, for tests and benchmarks
(``segsim.battle.battle("loreval", per_side)``).

The ruleset's ``awareness`` radius keeps an action's cost that of a small fight however
large the battle: each fighter sees (``obs.others``) only those within it, found through
the fight's spatial grid, and the nearest opponent when none is within it; the round's
bookkeeping (who is due next) is kept from step to step
(:mod:`segsim.rules.loreval.steps`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.battle import two_sides
from segsim.fight import Fight


def line_battle(
    per_side: int,
    *,
    seed: int = 0,
    width: int = 50,
    gap: float = 1.5,
    fighters: Sequence[str] = ("bandit", "aldren"),
    policies: Sequence[str] = ("aggressive", "counter"),
    offsets: tuple[int, int] = (0, 0),
    awareness: float | None = 2.0,
    **kwargs: Any,
) -> Fight:
    """Two Loreval sides of ``per_side`` fighters, ``gap`` metres apart (in contact:
    the first ranks fight from their first turns), full rules. Each side's fighters
    take ``fighters`` (the default content's sheets) and ``policies`` in turn, the west
    side from index ``offsets[0]`` of both cycles and the east side from ``offsets[1]``.
    The rules' options are the defaults but ``awareness`` (2 m: each fighter sees those
    around it, contact's 1.5 m and a little more, and the nearest opponent when none is
    around it, which keeps an action's cost that of a small fight however large the
    battle; None: everyone sees everyone);
    other keywords go to :class:`Fight` (``max_segments``: 20,000 unless given)."""
    from segsim.rules.loreval.ruleset import Loreval

    return two_sides(
        Loreval(awareness=awareness),
        per_side,
        seed=seed,
        width=width,
        gap=gap,
        fighters=fighters,
        policies=policies,
        offsets=offsets,
        **kwargs,
    )
