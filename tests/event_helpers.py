"""Shared helper for the tests that build every event class with placeholder values."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

import attrs


def is_native(cls: type) -> bool:
    """Whether ``cls`` is a native class of the compiled build: its ``__init__`` is
    compiled (written out, see :func:`segsim.eventbase.event_type`), not a Python
    function, and it checks its fields' types."""
    return not isinstance(vars(cls).get("__init__"), types.FunctionType)


def _placeholder(hint: Any) -> Any:
    """A value of the type ``hint`` names (None where it allows None or says nothing)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any or type(None) in args:
        return None
    if origin in (typing.Union, types.UnionType):
        return _placeholder(args[0])
    simple = {bool: False, int: 0, float: 0.0, str: ""}
    if hint in simple:
        return simple[hint]
    if origin is tuple or hint is tuple:
        return ()
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return {}
    return None


def placeholders(cls: type) -> dict[str, Any]:
    """A placeholder of its type for every field of the event class ``cls`` that its
    ``__init__`` takes: what a native class of the compiled build accepts, which checks
    each field's type (a Python class takes anything)."""
    hints = typing.get_type_hints(cls)
    return {f.name: _placeholder(hints.get(f.name, Any)) for f in attrs.fields(cls) if f.init}
