"""What a ruleset ships, in words: its example fighters, their equipment and its
policies, each on one line (``segsim content``), so a scenario can be written without
reading the content files."""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from segsim.input import Node
from segsim.policy import make_policy, policy_names
from segsim.rules import get_ruleset

_FIGHTER_KEYS = (
    "profile",
    "level",
    "weapon",
    "weapons",
    "ranged",
    "off_hand",
    "armour",
    "shield",
)
_WIDTH = 100


def _clip(text: str) -> str:
    return text if len(text) <= _WIDTH else text[: _WIDTH - 3].rstrip(" ,;") + "..."


def _value(value: Any) -> str:
    if isinstance(value, Mapping):
        return "/".join(f"{k} {_value(v)}" for k, v in value.items())
    if isinstance(value, tuple | list):
        return ",".join(_value(v) for v in value)
    return str(value)


def _fighter(node: Node) -> str:
    data = node.data
    name = data.get("name", "")
    gear = [
        f"{k} {_value(data[k])}"
        for k in _FIGHTER_KEYS
        if isinstance(data.get(k), str | int)
        or (isinstance(data.get(k), list) and all(isinstance(v, str) for v in data[k]))
    ]
    return ", ".join([str(name), *gear]) if gear else str(name)


def _item(item: Any) -> str:
    """An attrs record of equipment: its name, then its other plain fields."""
    if not attrs.has(type(item)):
        return str(item)
    parts = [str(getattr(item, "name", ""))]
    for field in attrs.fields(type(item)):
        if field.name in ("id", "name"):
            continue
        value = getattr(item, field.name)
        if value in ((), {}, None, "") or (
            field.default is not attrs.NOTHING and value == field.default
        ):
            continue
        parts.append(f"{field.name} {_value(value)}")
    return ", ".join(parts)


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line."""
    text = " ".join((doc or "").split())
    for end in (". ", ": "):
        if end in text:
            text = text.split(end, 1)[0]
    return text.rstrip(".")


def class_doc(cls: type) -> str | None:
    """A class's docstring, also in the compiled build (``hatch_build.py``), whose
    compiled classes keep none: there it is read from the module's source, which the
    build ships beside the compiled module."""
    doc = cls.__dict__.get("__doc__")
    path = getattr(sys.modules.get(cls.__module__), "__file__", None) or ""
    if not path.endswith(_EXTENSIONS):  # a pure module, or one with no file at all
        return doc if isinstance(doc, str) else None
    return _source_docs(Path(path).with_name(Path(path).name.split(".", 1)[0] + ".py")).get(
        cls.__name__
    )


_EXTENSIONS = (".so", ".pyd")
"""The suffixes of a compiled module's file (``segsim/fight.cpython-311-...so``)."""


@cache
def _source_docs(source: Path) -> dict[str, str | None]:
    """The docstring of each class in a module's source, by name (none without it)."""
    if not source.is_file():
        return {}
    tree = ast.parse(source.read_text(encoding="utf-8"))
    return {
        node.name: ast.get_docstring(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def _actions(ruleset_name: str) -> list[str]:
    """Each action kind a fighter may declare, with its parameters and what they take."""
    from segsim.rules.parameters import kinds, parameters

    table = kinds(ruleset_name)
    said = parameters(ruleset_name)
    lines = [
        f"  actions ({len(table)}; in a fight script: fighter = {{ action = KIND, "
        "target = ID, PARAMETER = VALUE... }}):"
    ]
    for kind, params in table.items():
        lines.append(f"    {kind}" + ("" if params else " (no parameter)"))
        for name in params:
            lines.append(f"      {name:<18} {said.get(name, '')}".rstrip())
    return lines


def examples_of(ruleset_name: str) -> list[tuple[str, str]]:
    """The example scenarios and fight scripts of a ruleset in a checkout's
    ``examples/`` folder, beside the package or else in the current folder (an
    installed wheel has none): (path, name) pairs."""
    import tomllib

    here = Path(__file__).resolve().parent.parent / "examples"
    root = here if here.is_dir() else Path.cwd() / "examples"
    found: list[tuple[str, str]] = []
    for folder in ("scenarios", "scripts"):
        for path in sorted((root / folder).glob("*.toml")):
            try:
                fight = tomllib.loads(path.read_text(encoding="utf-8")).get("fight", {})
            except (OSError, ValueError):
                continue
            name = fight.get("ruleset")
            if name is None and isinstance(fight.get("scenario"), str):
                try:
                    other = tomllib.loads((path.parent / fight["scenario"]).read_text("utf-8"))
                except (OSError, ValueError):
                    continue
                name = other.get("fight", {}).get("ruleset")
            if str(name).lower() == ruleset_name:
                found.append((f"examples/{folder}/{path.name}", str(fight.get("name", ""))))
    return found


def describe_content(ruleset_name: str) -> str:
    """The content of a ruleset and its policies, one line each, by section; its action
    kinds with their parameters; its example scenarios and fight scripts."""
    ruleset = get_ruleset(ruleset_name)
    ruleset_name = ruleset.name
    lines = [f"{ruleset_name}: {ruleset.title}"]
    content = getattr(ruleset, "content", None)
    sections: list[tuple[str, Mapping[str, Any]]] = []
    if content is not None and attrs.has(type(content)):
        for field in attrs.fields(type(content)):
            value = getattr(content, field.name)
            if isinstance(value, Mapping):
                sections.append((field.name, value))
    sections.sort(key=lambda s: s[0] != "fighters")
    for title, entries in sections:
        lines.append(f"  {title} ({len(entries)}):")
        for key, entry in entries.items():
            text = _fighter(entry) if isinstance(entry, Node) else _item(entry)
            lines.append(_clip(f"    {key:<16} {text}"))
    names = policy_names(ruleset_name)
    lines.append(f"  policies ({len(names)}):")
    for name in names:
        policy = make_policy(ruleset_name, name)
        lines.append(_clip(f"    {name:<16} {first_sentence(class_doc(type(policy)))}"))
    lines.extend(_actions(ruleset_name))
    examples = examples_of(ruleset_name)
    lines.append(f"  examples ({len(examples)}; segsim run FILE, or segsim run --script FILE):")
    for path, name in examples:
        lines.append(_clip(f"    {path:<46} {name}"))
    return "\n".join(lines) + "\n"


__all__ = ["class_doc", "describe_content", "first_sentence"]
