"""A declaration written the way a fight script writes it, and plain values in words.

The account prints every declaration a fighter chose as the line a fight script's
``[segment.N]`` table would hold (``margaret = { action = "strike", target = "robert",
blow = "cut", ps = { bonus = 2 } }``), so that a line can be copied from an account into
a script (docs/replay.md, "Fight scripts"). What the rules add to a declaration when
they plan it (a weapon, a cost, the opponents engaged) is said in words after it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, quoted otherwise."""
    return key if _BARE_KEY.fullmatch(key) else toml_value(key)


def toml_value(value: Any) -> str:
    """A plain value (string, number, boolean, list, table) as a TOML inline value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, Mapping):
        items = [f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items() if v is not None]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def script_entry(
    actor: str | None, kind: str, target: str | None, params: Mapping[str, Any]
) -> str:
    """The fight script's line for a declaration: ``actor = "kind"`` or ``actor = {
    action = ..., target = ..., param = ... }`` (parameters without a value left out)."""
    items = [(k, v) for k, v in params.items() if v is not None]
    who = toml_key(actor or "?")
    if target is None and not items:
        return f"{who} = {toml_value(kind)}"
    table: dict[str, Any] = {"action": kind}
    if target is not None:
        table["target"] = target
    table.update(items)
    return f"{who} = {toml_value(table)}"


def words(value: Any) -> str:
    """A plain value in words: ``margaret, robert`` for a list of names, ``(2.5, 0)``
    for a point, ``bonus 2`` for a table, ``yes``/``no`` for a boolean."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {words(v)}" for k, v in value.items()) or "nothing"
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            return "(" + ", ".join(words(v) for v in value) + ")"
        return ", ".join(words(v) for v in value) or "nobody"
    return str(value)


def params_in_words(params: Mapping[str, Any], skip: Mapping[str, Any] | None = None) -> str:
    """``key value`` pairs in words, without those whose value ``skip`` already gives."""
    skip = skip or {}
    return ", ".join(
        f"{k.replace('_', ' ')} {words(v)}"
        for k, v in params.items()
        if v is not None and not (k in skip and skip[k] == v)
    )


__all__ = ["params_in_words", "script_entry", "toml_key", "toml_value", "words"]
