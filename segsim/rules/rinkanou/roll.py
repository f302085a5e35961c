"""The RinKaNou test: d100 roll-under with margins and criticals (RULES-NOTES, "Test").

Success when ``roll <= chance``; margin of success ``Mr = chance - roll`` or margin of
failure ``Me = roll - chance``. A double (11, 22, ... 99, and 100 read as "00") is
critical: a critical success when it succeeds, a critical failure when it fails.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, Protocol

import attrs

from segsim.dice import Dice
from segsim.errors import IllegalDeclaration

DIFFICULTY: Mapping[str, int] = {
    "cant_miss": 50,  # immanquable
    "very_easy": 30,  # très facile
    "easy": 15,  # facile
    "average": 0,  # moyenne
    "hard": -15,  # difficile
    "very_hard": -30,  # très difficile
    "extremely_hard": -70,  # extrêmement difficile
}
"""The difficulty ladder: modifier added to the chance (RULES-NOTES, "Difficulty ladder")."""


MAX_DIFFICULTY = 100
"""A difficulty given as a number is a modifier of at most 100 % either way (the ladder
spans -70 to +50): beyond it a test is decided before the die is cast."""


def difficulty_value(value: object) -> int:
    """A difficulty given by ladder name or as a signed percentage."""
    if isinstance(value, bool):
        raise IllegalDeclaration(f"difficulty {value!r} is neither a name nor a number")
    if isinstance(value, int):
        if not -MAX_DIFFICULTY <= value <= MAX_DIFFICULTY:
            raise IllegalDeclaration(
                f"difficulty {value} is beyond +/-{MAX_DIFFICULTY} %",
                rule="RULES-NOTES, Difficulty ladder",
            )
        return value
    if isinstance(value, str) and value in DIFFICULTY:
        return DIFFICULTY[value]
    raise IllegalDeclaration(
        f"unknown difficulty {value!r} (known: {', '.join(DIFFICULTY)}, or a number)",
        rule="RULES-NOTES, Difficulty ladder",
    )


DOUBLES = frozenset({*range(11, 100, 11), 100})
"""The faces of the d100 that are doubles (11, 22, ... 99, and 100 read as "00")."""


def is_double(roll: int) -> bool:
    return roll in DOUBLES


def tens(roll: int) -> int:
    """The tens digit of the die (100 -> 10)."""
    return roll // 10


class Margins:
    """Mr and Me of a d100 test, from its ``success`` and ``margin``."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def success(self) -> bool: ...
        @property
        def margin(self) -> int: ...

    @property
    def mr(self) -> int:
        """Margin of success (0 on a failure)."""
        return self.margin if self.success else 0

    @property
    def me(self) -> int:
        """Margin of failure (0 on a success)."""
        return 0 if self.success else self.margin


@attrs.frozen
class TestResult(Margins):
    """A d100 test's chance and roll, and what follows from them."""

    __test__: ClassVar[bool] = False  # not a pytest class

    chance: int
    roll: int

    @property
    def success(self) -> bool:
        return self.roll <= self.chance

    @property
    def critical(self) -> bool:
        return is_double(self.roll)

    @property
    def margin(self) -> int:
        """Mr on a success, Me on a failure (both non-negative)."""
        return self.chance - self.roll if self.success else self.roll - self.chance


class Rolled(Protocol):
    """What a d100 test's outcome offers (a :class:`TestResult`, or the ``test.rolled``
    event itself, which a settlement keeps instead of a second object)."""

    @property
    def chance(self) -> int: ...
    @property
    def roll(self) -> int: ...
    @property
    def success(self) -> bool: ...
    @property
    def critical(self) -> bool: ...
    @property
    def margin(self) -> int: ...
    @property
    def mr(self) -> int: ...
    @property
    def me(self) -> int: ...


def roll_test(dice: Dice, chance: int, purpose: str, actor: str | None) -> TestResult:
    return TestResult(chance, dice.d100(purpose, actor))


def simultaneous_malus(other_difficulty: int) -> int:
    """Malus one rolled action puts on another of the same fighter (RinKaNou, Actions
    simultanées): -10 % + the other's difficulty / 2, truncated toward zero, never a bonus.
    """
    malus = math.trunc(-10 + other_difficulty / 2)
    return malus if malus < 0 else 0  # min(0, malus), without its call
