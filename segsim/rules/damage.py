"""Damage written as dice (``1d8``, ``2d6``, ``1d4+1``): the d20 rulesets' weapons
(Chroniques, Loreval) read their damage with :func:`parse_damage`."""

from __future__ import annotations

import re

import attrs

_DICE = re.compile(r"^\s*(\d+)\s*d\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")


@attrs.frozen
class DamageDice:
    """A damage expression ``NdM+K`` (dégâts, DM)."""

    count: int
    sides: int
    bonus: int = 0

    @property
    def maximum(self) -> int:
        return self.count * self.sides + self.bonus

    @property
    def average(self) -> float:
        return self.count * (self.sides + 1) / 2 + self.bonus

    def __str__(self) -> str:
        extra = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}d{self.sides}{extra}"


def parse_damage(text: str) -> DamageDice:
    """``"1d8"``, ``"2d6"``, ``"1d4+1"``; raises ValueError on anything else."""
    m = _DICE.match(text)
    if m is None:
        raise ValueError(f"{text!r} is not a dice expression like 1d8, 2d6 or 1d4+1")
    count, sides = int(m.group(1)), int(m.group(2))
    if not 1 <= count <= 20 or not 2 <= sides <= 100:
        raise ValueError(f"{text!r}: expected 1 to 20 dice of 2 to 100 faces")
    bonus = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    return DamageDice(count, sides, bonus)
