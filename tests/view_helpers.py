"""Shared helper for the tests that hold a view or observation made without a call of
its class equal to the one its class makes."""

from __future__ import annotations

import inspect
import types
from typing import Any


def slots_of(obj: Any) -> dict[str, Any]:
    """What the object's slots hold (not what its class shadows them with)."""
    names = {n for klass in type(obj).__mro__ for n in getattr(klass, "__slots__", ())}
    return {
        n: getattr(obj, n)
        for n in sorted(names - {"__dict__"})
        if isinstance(inspect.getattr_static(type(obj), n), types.MemberDescriptorType)
    }
