"""Content made immutable at load (DESIGN principle 12): what fights share (weapons,
tables, fighters' sheets) and what a rule list's expressions reach cannot be changed by
one fight for the next.

:func:`freeze` turns the tables inside a value into read-only mappings
(``MappingProxyType``), its lists into tuples and its sets into frozensets, in place
for frozen attrs instances (their fields are set once more, as their own ``__init__``
does), so that ``weapon.damage.update(cut=0)`` or ``sheet.skills["sabre"] = 300`` fail
instead of changing every later fight.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

_done: dict[int, weakref.ReferenceType[Any]] = {}
"""Attrs instances already frozen, by identity (a weapon shared by many sheets, a
ruleset's shipped content at each ruleset made, is walked once): a weak reference to
each by its ``id()``, dropped when it dies. By identity, not by a set's hash: a frozen
attrs instance with tables among its fields has no hash (a read-only mapping has
none), which left the shipped content walked again at each scenario's loading."""


def _forget(key: int) -> Any:
    """The callback that drops the entry of a frozen instance at ``id()`` ``key`` when
    it dies (unless another has taken its place)."""

    def gone(ref: weakref.ReferenceType[Any]) -> None:
        if _done.get(key) is ref:
            del _done[key]

    return gone


_SCALARS = (str, int, float, bool, bytes, type(None))


def freeze(value: T) -> T:
    """``value`` with everything inside it read-only (see the module's docstring)."""
    return _freeze(value)  # type: ignore[no-any-return]


def _freeze(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if type(value) is MappingProxyType or isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(_freeze(v) for v in value)
    if attrs.has(type(value)):
        key = id(value)
        seen = _done.get(key)
        if seen is not None and seen() is value:
            return value
        for field in attrs.fields(type(value)):
            old = getattr(value, field.name)
            new = _freeze(old)
            if new is not old:
                object.__setattr__(value, field.name, new)
        with contextlib.suppress(TypeError):  # not weakly referenceable: walked each time
            _done[key] = weakref.ref(value, _forget(key))
        return value
    if isinstance(value, Mapping):  # another read-only mapping: its values still
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    return value
