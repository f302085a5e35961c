"""A Rupture test: a pool of d6, each 5 or 6 a quality, difficulty removes qualities
(RULES-NOTES, "Rupture"; Rupture, "Les actions ciblées": "Test (0)").
"""

from __future__ import annotations

import attrs

from segsim.dice import Dice

QUALITY_FACE = 5
"""A die showing this face or more is a quality (qualité)."""


@attrs.frozen
class TestRoll:
    """What a test gave: the faces, the qualities before and after difficulty.

    It succeeds with at least one quality left once the difficulty has removed its
    share; ``qualities`` is what is left (0 on a failure).
    """

    __test__ = False  # not a pytest class

    faces: tuple[int, ...]
    difficulty: int = 0

    @property
    def raw(self) -> int:
        """Dice showing 5 or 6."""
        return sum(1 for f in self.faces if f >= QUALITY_FACE)

    @property
    def qualities(self) -> int:
        return max(0, self.raw - self.difficulty)

    @property
    def success(self) -> bool:
        return self.qualities >= 1


def roll_test(dice: Dice, pool: int, difficulty: int, purpose: str, actor: str | None) -> TestRoll:
    """Roll ``pool`` d6 (none when the pool is empty: a sure failure)."""
    faces = tuple(dice.roll(6, purpose, actor) for _ in range(max(0, pool)))
    return TestRoll(faces, difficulty)
