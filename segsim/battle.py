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
from segsim.rules import frozen_sheet


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
    offset: int = 0,
) -> list[CombatantSpec]:
    """``count`` combatants in ranks of ``width``, the first rank at x = ``front``, the
    others behind it (``facing`` +1 or -1: the direction of the enemy). Combatant ``i``
    takes the sheet and the policy at ``i + offset`` in their cycles."""
    out = []
    for i in range(count):
        rank, file = divmod(i, width)
        x = front - facing * rank * spacing
        y = (file - (width - 1) / 2) * spacing
        out.append(
            CombatantSpec(
                id=f"{prefix}{i}",
                side=side,
                sheet=sheets[(i + offset) % len(sheets)],
                policy=make_policy(ruleset, policies[(i + offset) % len(policies)]),
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
    offsets: tuple[int, int] = (0, 0),
    **kwargs: Any,
) -> Fight:
    """Two RinKaNou sides of ``per_side`` fighters, ``gap`` metres apart, full rules.

    The fighters of each side take ``fighters`` (sheets) and ``policies`` in turn, the
    west side from index ``offsets[0]`` of both cycles and the east side from
    ``offsets[1]``: with the defaults, a duel (``per_side=1``) is two veteran attackers,
    and ``offsets=(0, 1)`` sets a recruit defender against a veteran attacker.
    """
    from segsim.rules.rinkanou import RinKaNou

    rules = RinKaNou(awareness=awareness)
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


def two_sides(
    rules: Any,
    per_side: int,
    *,
    seed: int,
    width: int,
    gap: float,
    fighters: Sequence[str],
    policies: Sequence[str],
    offsets: tuple[int, int] = (0, 0),
    spacing: float = 1.6,
    max_segments: int = 20_000,
    **kwargs: Any,
) -> Fight:
    """The fight every ruleset's ``line_battle`` builds: two sides (west at x = 0,
    east ``gap`` metres away) of ``per_side`` fighters of ``rules``' content in ranks of
    ``width`` (:func:`ranks`, ``spacing`` metres apart), taking ``fighters`` (sheets by
    name) and ``policies`` (the ruleset's registered names) in turn, the west side from
    index ``offsets[0]`` of both cycles and the east side from ``offsets[1]``. Other
    keywords go to :class:`Fight`. Bad arguments are a ValueError naming them."""
    if type(per_side) is not int or per_side < 1:
        raise ValueError(f"per_side is a whole number from 1, not {per_side!r}")
    if len(offsets) != 2 or not all(type(o) is int and o >= 0 for o in offsets):
        raise ValueError(f"offsets are two whole numbers from 0 (west, east), not {offsets!r}")
    known = rules.content.fighters
    for name in fighters:
        if name not in known:
            raise ValueError(
                f"no {type(rules).__name__} fighter {name!r} (known: {', '.join(sorted(known))})"
            )
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
            spacing=spacing,
            prefix=prefix,
            sheets=sheets,
            policies=policies,
            ruleset=rules.name,
            offset=offset,
        )
    name = f"{per_side} v {per_side}"
    return Fight(rules, specs, seed=seed, name=name, max_segments=max_segments, **kwargs)


def battle(ruleset: str, per_side: int, *, seed: int = 0, **kwargs: Any) -> Fight:
    """A line battle of ``per_side`` fighters a side in any built-in ruleset.

    RinKaNou's is :func:`line_battle`; each other ruleset's is the ``line_battle`` of its
    module ``segsim.rules.<ruleset>.battle``, with the same signature (``per_side``,
    ``seed`` and the ruleset's own keywords), built the same way (:func:`ranks`, and
    whatever keeps an action's cost flat as the battle grows).
    """
    import importlib

    from segsim.rules import ruleset_names

    name = ruleset.lower()
    if name not in ruleset_names():
        raise ValueError(
            f"no ruleset named {ruleset!r}: the rulesets are {', '.join(ruleset_names())}"
        )
    if name == "rinkanou":
        return line_battle(per_side, seed=seed, **kwargs)
    try:
        module = importlib.import_module(f"segsim.rules.{name}.battle")
    except ModuleNotFoundError as missing:
        raise ValueError(f"the ruleset {name!r} has no line battle yet") from missing
    built: Fight = module.line_battle(per_side, seed=seed, **kwargs)
    return built
