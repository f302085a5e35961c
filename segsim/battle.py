"""Battles: two sides drawn up in ranks, for tests, benchmarks and examples.

A battle is an ordinary fight with many combatants; give the ruleset an ``awareness``
radius so that each fighter only watches those around it, and the cost of an action
stays that of a duel however large the battle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from segsim.fight import CombatantSpec, Fight
from segsim.policy import make_policy


def ranks(
    side: str,
    count: int,
    *,
    front: float,
    facing: float,
    width: int,
    spacing: float,
    prefix: str,
    sheets: Sequence[Any],
    policies: Sequence[str],
    ruleset: str,
) -> list[CombatantSpec]:
    """``count`` combatants in ranks of ``width``, the first rank at x = ``front``, the
    others behind it (``facing`` +1 or -1: the direction of the enemy)."""
    out = []
    for i in range(count):
        rank, file = divmod(i, width)
        x = front - facing * rank * spacing
        y = (file - (width - 1) / 2) * spacing
        out.append(
            CombatantSpec(
                id=f"{prefix}{i}",
                side=side,
                sheet=sheets[i % len(sheets)],
                policy=make_policy(ruleset, policies[i % len(policies)]),
                position=(round(x, 6), round(y, 6)),
            )
        )
    return out


def line_battle(
    per_side: int,
    *,
    seed: int = 0,
    awareness: float = 3.0,
    width: int = 50,
    gap: float = 1.5,
    fighters: Sequence[str] = ("veteran", "recruit"),
    policies: Sequence[str] = ("aggressive", "defender"),
    **kwargs: Any,
) -> Fight:
    """Two RinKaNou sides of ``per_side`` fighters, ``gap`` metres apart, full rules."""
    from segsim.rules.rinkanou import RinKaNou

    rules = RinKaNou(awareness=awareness)
    sheets = [rules.load_sheet(rules.content.fighters[name]) for name in fighters]
    width = max(1, min(width, per_side))
    spacing = 1.6
    specs = []
    for side, front, facing, prefix in (("west", 0.0, 1.0, "w"), ("east", gap, -1.0, "e")):
        specs += ranks(
            side,
            per_side,
            front=front,
            facing=facing,
            width=width,
            spacing=spacing,
            prefix=prefix,
            sheets=sheets,
            policies=policies,
            ruleset="rinkanou",
        )
    kwargs.setdefault("max_segments", 20_000)
    return Fight(rules, specs, seed=seed, name=f"{per_side} v {per_side}", **kwargs)
