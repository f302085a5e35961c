"""Dice: the only source of randomness in a fight.

Every draw is recorded with its die, value and purpose. Values come from
``random.Random.random()``, the one generator output Python promises to keep stable
across versions for a given integer seed; faces are derived from it with integer
arithmetic, so a seed means the same fight on every machine (DESIGN, principle 5). A seed
is a whole number from 0 to 2**63 - 1 (:data:`SEED_MAX`), refused otherwise.
Loaded dice replay recorded values instead, which is how a table fight is entered.
"""

from __future__ import annotations

from _random import Random as _Random  # random.Random's C base
from collections.abc import Callable, Iterable, Sequence
from math import floor
from typing import Protocol

import attrs

from segsim.errors import DiceExhausted, DiceLeftOver
from segsim.native import mypyc_attr


@attrs.frozen
class Draw:
    """One die draw: the die (``d100``), the face, why and for whom it was rolled."""

    die: str
    value: int
    purpose: str
    actor: str | None = None


class DrawLike(Protocol):
    """What a recorded draw has: the die, the face, why and for whom."""

    @property
    def die(self) -> str: ...
    @property
    def value(self) -> int: ...
    @property
    def purpose(self) -> str: ...
    @property
    def actor(self) -> str | None: ...


DrawSink = Callable[[str, int, str, "str | None"], DrawLike]
"""Called with each draw (die, value, purpose, actor); returns what the dice keep as its
record (a fight returns its ``die.rolled`` event, so a draw is one object)."""

DrawsSink = Callable[[str, list[int], str, Sequence["str | None"]], list[DrawLike]]
"""Called with the draws of one :meth:`Dice.roll_each` (die, faces, purpose, actors);
returns their records in order, as the :data:`DrawSink` it stands in for would one by
one (a fight's records them in one call)."""


SEED_MAX = 2**63 - 1
"""The greatest fight seed. A seed is a whole number from 0 to ``SEED_MAX``: what a TOML
integer and a record's 64-bit integers hold, and the values the generator turns into
distinct streams (``random.Random`` seeds from the absolute value, so -1 would play as
1)."""


def seed_problem(seed: object) -> str | None:
    """What is wrong with ``seed`` as a fight seed (None: nothing)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        return f"a fight seed is a whole number, not {seed!r}"
    if not 0 <= seed <= SEED_MAX:
        return f"a fight seed is from 0 to {SEED_MAX} (2**63 - 1), not {seed}"
    return None


def check_seed(seed: object) -> int:
    """``seed`` if it is a fight seed, else TypeError (not an integer) or ValueError (out
    of range) saying what a seed is."""
    problem = seed_problem(seed)
    if problem is not None:
        raise (ValueError if isinstance(seed, int) and not isinstance(seed, bool) else TypeError)(
            problem
        )
    assert isinstance(seed, int)
    return seed


_DIE = {sides: f"d{sides}" for sides in (2, 3, 4, 6, 8, 10, 12, 20, 100)}


@mypyc_attr(allow_interpreted_subclasses=True)
class Dice:
    """Seeded dice. ``roll(100, "attack", actor="a")`` returns 1..100 and records it.

    ``entered`` is False: every face comes from the seed's stream, so a replay checks
    each recorded die against it (the record header says ``"dice": "entered"`` otherwise).
    """

    entered = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = check_seed(seed)
        # random.Random's C base: random.Random(seed) seeds it through a Python __init__
        # and seed() that, for an integer, only call this seeding. The same stream,
        # without those calls (some 6,000 instructions of each fight's making).
        self._random = _Random(seed).random
        self.draws: list[DrawLike] = []
        self.sink: DrawSink | None = None
        # The sink's counterpart for all the draws of one roll_each() (set with it by a
        # fight, cleared with it): their faces drawn first, then recorded in one call.
        self.sink_each: DrawsSink | None = None
        # Whether its faces are the seed's stream's (_face not overridden): roll() then
        # draws without a call of _face.
        self._streamed = type(self)._face is Dice._face

    def _face(self, sides: int, purpose: str, actor: str | None) -> int:
        return int(self._random() * sides) + 1

    def roll(self, sides: int, purpose: str, actor: str | None = None) -> int:
        """Roll one die of ``sides`` faces (1..sides)."""
        if sides < 1:
            raise ValueError(f"a die has at least one face, not {sides}")
        if self._streamed:  # _face(), without its call
            value = int(self._random() * sides) + 1
        else:
            value = self._face(sides, purpose, actor)
        die = _DIE.get(sides) or f"d{sides}"
        sink = self.sink
        self.draws.append(
            Draw(die, value, purpose, actor) if sink is None else sink(die, value, purpose, actor)
        )
        return value

    def roll_many(
        self, count: int, sides: int, purpose: str, actor: str | None = None
    ) -> list[int]:
        """``count`` dice of ``sides`` faces rolled for one purpose (a pool): what as many
        calls of :meth:`roll` return and record, in the same order, in one call."""
        if sides < 1:
            raise ValueError(f"a die has at least one face, not {sides}")
        die = _DIE.get(sides) or f"d{sides}"
        draws = self.draws
        faces: list[int] = []
        for _ in range(count):
            if self._streamed:  # _face(), without its call
                value = int(self._random() * sides) + 1
            else:
                value = self._face(sides, purpose, actor)
            faces.append(value)
            sink = self.sink
            if sink is None:
                draws.append(Draw(die, value, purpose, actor))
            else:
                draws.append(sink(die, value, purpose, actor))
        return faces

    def roll_each(self, sides: int, purpose: str, actors: Sequence[str | None]) -> list[int]:
        """One die of ``sides`` faces for each of ``actors`` in turn, for one purpose (a
        round's initiative, a group's tie-break): what as many calls of :meth:`roll`
        return and record, in the same order, in one call."""
        if sides < 1:
            raise ValueError(f"a die has at least one face, not {sides}")
        each = self.sink_each
        if each is not None and self._streamed and self.sink is not None:
            # The faces from the seed's stream, then their records in one call: nothing
            # the sink does draws a die, so the faces and records are the same.
            # (math.floor rather than int: the same whole number of a float from 0 up,
            # for less; a battle's first round rolls some 6,000 of them)
            random = self._random
            faces = [floor(random() * sides) + 1 for _ in actors]
            self.draws.extend(each(_DIE.get(sides) or f"d{sides}", faces, purpose, actors))
            return faces
        roll = self.roll  # (loaded dice, dice without a fight: die by die)
        return [roll(sides, purpose, actor) for actor in actors]

    def d100(self, purpose: str, actor: str | None = None) -> int:
        """:meth:`roll` of a d100."""
        return self.roll(100, purpose, actor)


@mypyc_attr(allow_interpreted_subclasses=True)
class LoadedDice(Dice):
    """Dice that hand out recorded values in order (replay, hand-entered fights).

    Each value may name its die (``("d100", 42)``) so a mismatch is caught at once.
    Running out raises :class:`DiceExhausted` naming the draw that was wanted; a fight
    that ends with values left over raises :class:`DiceLeftOver` (:meth:`check_used`),
    as a fight script does with its unused rolls. The faces are entered by hand
    (``entered``) unless a replay says they are the seed's. A replay, which compares
    the draws line by line itself, passes ``strict=False``.
    """

    def __init__(
        self,
        values: Iterable[int | tuple[str, int]],
        seed: int = 0,
        *,
        entered: bool = True,
        strict: bool = True,
    ) -> None:
        super().__init__(seed)
        self._values: Sequence[int | tuple[str, int]] = list(values)
        self._next = 0
        self.entered = entered
        self.strict = strict

    def check_used(self, ended: str) -> None:
        """Raise :class:`DiceLeftOver` if values are left once the fight is over
        (``ended`` says how it ended); nothing when not ``strict``."""
        left = self.remaining
        if self.strict and left:
            raise DiceLeftOver(
                f"{left} loaded value(s) left over from value {self._next + 1} on: {ended}"
            )

    @property
    def remaining(self) -> int:
        return len(self._values) - self._next

    def _face(self, sides: int, purpose: str, actor: str | None) -> int:
        who = f" for {actor}" if actor else ""
        if self._next >= len(self._values):
            raise DiceExhausted(
                f"no recorded value left for d{sides} ({purpose}{who}); "
                f"{len(self._values)} value(s) were given"
            )
        item = self._values[self._next]
        if isinstance(item, tuple):
            die, value = item
            if die != f"d{sides}":
                raise DiceExhausted(
                    f"recorded draw {self._next + 1} is a {die}, but a d{sides} is "
                    f"rolled ({purpose}{who})"
                )
        else:
            value = item
        if not 1 <= value <= sides:
            raise DiceExhausted(
                f"recorded draw {self._next + 1} is {value}, not a face of d{sides} "
                f"({purpose}{who})"
            )
        self._next += 1
        return value
