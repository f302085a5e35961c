"""Table mode's requests and answers as data: declarations sent by a page, views sent
back, and the refusals (:class:`TableError`, an HTTP status and a message)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import attrs

from segsim.actions import Cancel, Declaration, DeclarationLike, declaration_problem

MAX_ITEMS = 16
"""The most declarations one fighter may make in one phase through the table."""


class TableError(Exception):
    """A request the table refuses: an HTTP status and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


Item = Mapping[str, Any]


def parse_items(raw: Any) -> tuple[tuple[Item, ...], list[DeclarationLike]]:
    """A fighter's declarations as sent by a page: a list of ``{"kind", "target",
    "params"}`` and ``{"cancel": id}``. TableError 400 naming what is malformed."""
    if not isinstance(raw, list):
        raise TableError(400, "declarations: expected a list of declarations")
    if len(raw) > MAX_ITEMS:
        raise TableError(400, f"declarations: at most {MAX_ITEMS} in one phase")
    items: list[Item] = []
    decls: list[DeclarationLike] = []
    for i, item in enumerate(raw):
        where = f"declarations[{i}]"
        if not isinstance(item, dict):
            raise TableError(400, f"{where}: expected an object")
        if "cancel" in item:
            action = item["cancel"]
            if set(item) - {"cancel", "kind"}:
                raise TableError(400, f"{where}: a cancellation takes only cancel (an action id)")
            if not isinstance(action, int) or isinstance(action, bool) or action < 1:
                raise TableError(400, f"{where}.cancel: an action id (1 or more)")
            items.append({"cancel": action})
            decls.append(Cancel(action))
            continue
        extra = sorted(set(item) - {"kind", "target", "params"})
        if extra:
            raise TableError(400, f"{where}: unknown field {extra[0]!r}")
        kind, target, params = item.get("kind"), item.get("target"), item.get("params", {})
        if not isinstance(kind, str) or not kind:
            raise TableError(400, f"{where}.kind: an action kind")
        if target is not None and not isinstance(target, str):
            raise TableError(400, f"{where}.target: a fighter id or null")
        if not isinstance(params, dict):
            raise TableError(400, f"{where}.params: an object")
        declaration = Declaration(kind, target, params)
        problem = declaration_problem(declaration)
        if problem is not None:
            raise TableError(400, f"{where}: {problem}")
        items.append({"kind": kind, "target": target, "params": params})
        decls.append(declaration)
    return tuple(items), decls


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data for a page (attrs classes and views as objects)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth > 8:
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v, depth + 1) for v in value), key=str)
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        return plain(as_dict(), depth + 1)
    if attrs.has(type(value)):
        return {
            f.name: plain(getattr(value, f.name), depth + 1)
            for f in attrs.fields(type(value))
            if not f.name.startswith("_") and f.name not in ("memo", "declaration", "notes")
        }
    return str(value)


def declaration_data(d: DeclarationLike) -> dict[str, Any]:
    if isinstance(d, Cancel):
        return {"cancel": d.action}
    return {"kind": d.kind, "target": d.target, "params": plain(d.params)}


def load_body(raw: bytes) -> Any:
    """A request body as JSON (TableError 400 when it is not)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: a
        # number of more digits than Python converts, as well as JSONDecodeError
        raise TableError(400, f"malformed JSON: {exc}") from None


__all__ = [
    "MAX_ITEMS",
    "Item",
    "TableError",
    "declaration_data",
    "load_body",
    "parse_items",
    "plain",
]
