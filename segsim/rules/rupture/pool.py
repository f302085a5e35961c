"""A Rupture test: a pool of d6, each 5 or 6 a quality, difficulty removes qualities
(RULES-NOTES, "Rupture"; Rupture, "Les actions ciblées": "Test (0)").
"""

from __future__ import annotations

from typing import ClassVar

from segsim.dice import Dice

QUALITY_FACE = 5
"""A die showing this face or more is a quality (qualité)."""


class TestRoll:
    """What a test gave: the faces, the qualities before and after difficulty.

    It succeeds with at least one quality left once the difficulty has removed its
    share; ``qualities`` is what is left (0 on a failure). ``raw``, ``qualities`` and
    ``success`` are worked out once, when the roll is made (a settlement reads them
    several times). A value: never changed once made, equal to another of the same
    faces and difficulty. (A plain class rather than a frozen attrs one: one is made
    for each test, and attrs' frozen ``__init__`` sets each field through
    ``object.__setattr__``; and a native class in the compiled build.)
    """

    __slots__ = ("difficulty", "faces", "qualities", "raw", "success")
    __test__: ClassVar[bool] = False  # not a pytest class

    def __init__(self, faces: tuple[int, ...], difficulty: int = 0) -> None:
        raw = 0
        for f in faces:
            if f >= QUALITY_FACE:
                raw += 1
        qualities = raw - difficulty if raw > difficulty else 0
        self.faces = faces
        self.difficulty = difficulty
        self.raw = raw  # dice showing 5 or 6
        self.qualities = qualities
        self.success = qualities >= 1

    def __eq__(self, other: object) -> bool:
        if type(other) is not TestRoll:
            return NotImplemented
        return self.faces == other.faces and self.difficulty == other.difficulty

    def __hash__(self) -> int:
        return hash((self.faces, self.difficulty))

    def __repr__(self) -> str:
        return f"TestRoll(faces={self.faces!r}, difficulty={self.difficulty!r})"


def roll_test(dice: Dice, pool: int, difficulty: int, purpose: str, actor: str | None) -> TestRoll:
    """Roll ``pool`` d6 (none when the pool is empty: a sure failure)."""
    faces = dice.roll_many(pool, 6, purpose, actor) if pool > 0 else ()
    return TestRoll(tuple(faces), difficulty)
