"""What a Loreval settlement reads of the fighters, as it sees them (:mod:`segsim.rules.lazy`):
each a :class:`Lazy` that reads one value of a fighter from the fight's state the first
time it is asked for, then keeps it (and what the settlement writes over it).

A class for each value, rather than a :class:`Lazy` given a function: made once per
settlement (every step), without a function made for it nor a Python ``__init__``
called (the dict's own makes it; the settlement then sets what it reads). Left out of
the compiled build: a dict subclass stays a Python class there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from segsim.rules.lazy import Lazy

if TYPE_CHECKING:
    from segsim.state import Combatant


class Positions(Lazy[tuple[float, float]]):
    """Where each fighter stands."""

    __slots__ = ("fighters",)
    fighters: Mapping[str, Combatant]
    __init__ = dict.__init__

    def __missing__(self, cid: str) -> tuple[float, float]:
        value = self[cid] = self.fighters[cid].position
        return value


class HitPoints(Lazy[int]):
    """Each fighter's hit points."""

    __slots__ = ("fighters",)
    fighters: Mapping[str, Combatant]
    __init__ = dict.__init__

    def __missing__(self, cid: str) -> int:
        value: int = self.fighters[cid].status.hit_points
        self[cid] = value
        return value


class Heroism(Lazy[int]):
    """Each fighter's heroism points."""

    __slots__ = ("fighters",)
    fighters: Mapping[str, Combatant]
    __init__ = dict.__init__

    def __missing__(self, cid: str) -> int:
        value: int = self.fighters[cid].status.heroism
        self[cid] = value
        return value


class Plans(Lazy[Any]):
    """Each fighter's plan of round ``rnd`` (None: it has declared none this round)."""

    __slots__ = ("fighters", "rnd")
    fighters: Mapping[str, Combatant]
    rnd: int
    __init__ = dict.__init__

    def __missing__(self, cid: str) -> Any:
        status = self.fighters[cid].status
        value = status.plan if status.declared_round == self.rnd else None
        self[cid] = value
        return value
