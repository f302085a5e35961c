"""A fighter's value as a settlement sees it, read from the fight's state on demand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

V = TypeVar("V")


class Lazy(dict[str, V]):
    """A fighter's value as this settlement sees it: read from the state the first time
    it is asked for, then kept (and overwritten by what the settlement changes), so a
    settlement costs nothing for the fighters it does not touch."""

    __slots__ = ("_read",)

    def __init__(self, read: Callable[[str], V]) -> None:
        self._read = read  # starts empty: dict.__new__ made it

    def __missing__(self, cid: str) -> V:
        value = self[cid] = self._read(cid)
        return value

    def get(self, cid: str, default: Any = None) -> Any:
        try:
            return self[cid]
        except KeyError:
            return default
