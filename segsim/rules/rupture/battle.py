"""A Rupture line battle: two sides drawn up in ranks (:func:`segsim.battle.ranks`),
the example fighters and the built-in policies, for tests and benchmarks.

The ruleset's ``awareness`` radius keeps an action's cost that of a small fight however
large the battle: each fighter sees (``obs.others``), and is woken by, only those within
it, found through the fight's spatial grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.battle import two_sides
from segsim.fight import Fight
from segsim.rules.rupture.ruleset import Rupture


def line_battle(
    per_side: int,
    *,
    seed: int = 0,
    awareness: float = 2.5,
    width: int = 50,
    gap: float = 1.5,
    fighters: Sequence[str] = ("bran", "guard", "thug"),
    policies: Sequence[str] = ("aggressive", "breaker", "harrier"),
    **kwargs: Any,
) -> Fight:
    """Two Rupture sides of ``per_side`` fighters, ``gap`` metres apart (within a
    weapon's reach), in ranks of ``width`` 1.6 m apart, full rules.

    The fighters of each side take ``fighters`` (example sheets) and ``policies`` in
    turn. Ruleset options other than ``awareness`` (``passe_segments``...) may be given
    as keywords; the rest go to :class:`~segsim.fight.Fight`.
    """
    options = {
        key: kwargs.pop(key)
        for key in ("passe_segments", "wound_from", "stress_out")
        if key in kwargs
    }
    rules = Rupture(awareness=awareness, **options)
    kwargs.setdefault("max_segments", 3_000)
    return two_sides(
        rules,
        per_side,
        seed=seed,
        width=width,
        gap=gap,
        fighters=fighters,
        policies=policies,
        **kwargs,
    )
