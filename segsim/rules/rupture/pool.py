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
    share; ``qualities`` is what is left (0 on a failure). ``raw``, ``qualities`` and
    ``success`` are worked out once, when the roll is made (a settlement reads them
    several times).
    """

    __test__ = False  # not a pytest class

    faces: tuple[int, ...]
    difficulty: int = 0
    raw: int = attrs.field(init=False, eq=False, repr=False)
    """Dice showing 5 or 6."""
    qualities: int = attrs.field(init=False, eq=False, repr=False)
    success: bool = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        raw = 0
        for f in self.faces:
            if f >= QUALITY_FACE:
                raw += 1
        qualities = raw - self.difficulty if raw > self.difficulty else 0
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "qualities", qualities)
        object.__setattr__(self, "success", qualities >= 1)


def roll_test(dice: Dice, pool: int, difficulty: int, purpose: str, actor: str | None) -> TestRoll:
    """Roll ``pool`` d6 (none when the pool is empty: a sure failure)."""
    roll = dice.roll
    faces = [roll(6, purpose, actor) for _ in range(pool)] if pool > 0 else []
    return TestRoll(tuple(faces), difficulty)
