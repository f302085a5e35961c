"""Varying a scenario: a field named by a dotted name takes each of a list of values.

The names follow the scenario format (``segsim.scenario``): ``fight.max_segments`` and
``options.NAME`` are the scenario's own tables; any other name starts with a combatant
id or a side (a side names each of its combatants; an id wins over a side of the same
name) and goes on with a field of that ``[[combatant]]`` entry (``position``,
``policy``, ``fighter``...) or of its sheet (``weapon``, ``armour``,
``skills.sabre``...; ``sheet.weapon`` says the same). A combatant that names an example
fighter (``fighter = "robert"``) gets that fighter's sheet written inline first, so any
field of it can change.

A name must exist: its parent table must be in the scenario (or the fighter's sheet),
and a leaf that is absent must be a field the format itself checks (a field of the
sheet, of the combatant entry, of ``[fight]`` or ``[options]``), so that a misspelt name
is refused by the loader rather than ignored. Every varied scenario is loaded (and so
checked) before any fight runs.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from segsim.errors import InputError
from segsim.experiment.design import ExperimentError, ScenarioText, _sides
from segsim.input import Source
from segsim.scriptline import toml_key, toml_value

_ENTRY_FIELDS = ("id", "side", "fighter", "sheet", "policy", "name", "position", "is_pc", "setup")
_TOP = ("fight", "options")


@attrs.frozen
class Variable:
    """A dotted name and the values it takes, in order; ``numeric`` when it is a
    range (``LO..HI:STEP``) or every value is a number."""

    name: str
    values: tuple[Any, ...]

    @property
    def numeric(self) -> bool:
        return all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in self.values
        ) and (len(self.values) > 1)


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def _scalar(text: str) -> Any:
    number = _number(text)
    if number is not None:
        return number
    if text in ("true", "false"):
        return text == "true"
    return text


def parse_vary(text: str) -> Variable:
    """``NAME=V1,V2,...`` or ``NAME=LO..HI:STEP`` (both ends included) -> a Variable."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name or not values.strip():
        raise ExperimentError(f"--vary takes NAME=V1,V2,... or NAME=LO..HI:STEP, not {text!r}")
    if ".." in values:
        span, colon, step_text = values.partition(":")
        lo_text, _, hi_text = span.partition("..")
        lo, hi = _number(lo_text.strip()), _number(hi_text.strip())
        step = _number(step_text.strip()) if colon else 1
        if lo is None or hi is None or step is None or step <= 0 or hi < lo:
            raise ExperimentError(
                f"--vary {name}: a range is LO..HI:STEP with LO <= HI and STEP > 0, not {values!r}"
            )
        count = int((hi - lo) / step + 1e-9) + 1
        if count > 1000:
            raise ExperimentError(f"--vary {name}: {count} values is too many (1000 at most)")
        whole = all(isinstance(v, int) for v in (lo, hi, step))
        found = tuple(lo + k * step if whole else round(lo + k * step, 10) for k in range(count))
        return Variable(name, found)
    items = [v.strip() for v in values.split(",")]
    if any(not v for v in items):
        raise ExperimentError(f"--vary {name}: an empty value in {values!r}")
    if len(set(items)) != len(items):
        raise ExperimentError(f"--vary {name}: a value is given twice in {values!r}")
    return Variable(name, tuple(_scalar(v) for v in items))


def dump_toml(data: Mapping[str, Any]) -> str:
    """A scenario's data as TOML text: top-level tables as ``[name]``, arrays of tables
    as ``[[name]]``, anything deeper inline."""
    lines: list[str] = []
    for key, value in data.items():
        if not isinstance(value, Mapping) and not _table_array(value):
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    for key, value in data.items():
        if isinstance(value, Mapping):
            lines.append(f"\n[{toml_key(key)}]")
            lines += [f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()]
        elif _table_array(value):
            for item in value:
                lines.append(f"\n[[{toml_key(key)}]]")
                lines += [f"{toml_key(str(k))} = {toml_value(v)}" for k, v in item.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


class Varied:
    """A scenario whose fields the dotted names change; :meth:`text` gives one
    combination's scenario."""

    def __init__(self, scenario: ScenarioText) -> None:
        self.base = scenario
        loaded = scenario.load()
        self.ruleset = loaded.ruleset
        self.sides = _sides(loaded)
        self.data = dict(Source(scenario.path, scenario.text).data)

    def _combatants(self, who: str) -> list[dict[str, Any]]:
        entries = self.data.get("combatant", [])
        named = [c for c in entries if c.get("id") == who]
        return named or [c for c in entries if c.get("side") == who]

    def _entry_level(self, name: str) -> bool:
        parts = name.split(".")
        return len(parts) > 1 and parts[1] in _ENTRY_FIELDS and parts[1] != "sheet"

    def check(self, name: str) -> None:
        """Refuse a name that does not exist, naming it and what exists."""
        self._apply(copy.deepcopy(self.data), name, None, dry=True)

    def _apply(self, data: dict[str, Any], name: str, value: Any, dry: bool = False) -> None:
        parts = name.split(".")
        if len(parts) < 2 or any(not p for p in parts):
            raise ExperimentError(
                f"--vary {name}: a name is fight.FIELD, options.NAME, or a combatant id or "
                "side followed by a field (blue.weapon, robert.skills.sabre)"
            )
        head, rest = parts[0], parts[1:]
        if head in _TOP and not self._combatants(head):
            table = data.setdefault(head, {}) if head == "options" else data.get(head, {})
            self._set(table, rest, value, name, schema=True, dry=dry)
            return
        targets = [c for c in data.get("combatant", []) if c.get("id") == head] or [
            c for c in data.get("combatant", []) if c.get("side") == head
        ]
        if not targets:
            ids = [str(c.get("id")) for c in data.get("combatant", [])]
            raise ExperimentError(
                f"--vary {name}: no combatant or side {head!r} in {self.base.path} "
                f"(combatants: {', '.join(ids)}; sides: {', '.join(self.sides)}; or fight., "
                "options.)"
            )
        for entry in targets:
            if rest[0] in _ENTRY_FIELDS and rest[0] != "sheet":
                self._set(entry, rest, value, name, schema=True, dry=dry)
                continue
            path = rest[1:] if rest[0] == "sheet" else rest
            if not path:
                raise ExperimentError(f"--vary {name}: name a field of the sheet")
            sheet = self._inline_sheet(entry)
            self._set(sheet, path, value, name, schema=True, dry=dry)

    def _inline_sheet(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The entry's sheet as a table of its own (an example fighter's written inline)."""
        if "sheet" in entry:
            sheet: dict[str, Any] = entry["sheet"]
            return sheet
        fighter = entry.get("fighter")
        known = getattr(getattr(self.ruleset, "content", None), "fighters", {})
        node = known.get(fighter)
        if node is None:
            return {}
        entry.pop("fighter")
        entry["sheet"] = copy.deepcopy(dict(getattr(node, "data", node)))
        sheet = entry["sheet"]
        return sheet

    @staticmethod
    def _set(
        table: Any, path: Sequence[str], value: Any, name: str, *, schema: bool, dry: bool
    ) -> None:
        for depth, key in enumerate(path):
            last = depth == len(path) - 1
            if not isinstance(table, dict):
                raise ExperimentError(
                    f"--vary {name}: {'.'.join(path[:depth])} is a value, not a table"
                )
            if last:
                if key not in table and not (schema and depth == 0):
                    known = ", ".join(sorted(table)) or "none"
                    raise ExperimentError(
                        f"--vary {name}: no field {key!r} there (fields: {known})"
                    )
                if not dry and isinstance(table.get(key), dict) and not isinstance(value, dict):
                    raise ExperimentError(
                        f"--vary {name}: {key} is a table, not a value: name a field in it"
                    )
                if not dry:
                    table[key] = value
                return
            if key not in table or not isinstance(table[key], dict):
                known = ", ".join(sorted(k for k, v in table.items() if isinstance(v, dict)))
                raise ExperimentError(
                    f"--vary {name}: no table {key!r} there (tables: {known or 'none'})"
                )
            table = table[key]

    def text(self, setting: Sequence[tuple[str, Any]]) -> ScenarioText:
        """The scenario with every ``(name, value)`` set, loaded once to check it."""
        data = copy.deepcopy(self.data)
        # Fields of the combatant entry first: a new example fighter, then its sheet's
        # fields.
        for name, value in sorted(setting, key=lambda nv: not self._entry_level(nv[0])):
            self._apply(data, name, value)
        scenario = ScenarioText(self.base.path, dump_toml(data))
        try:
            scenario.load()
        except InputError as exc:
            unknown = exc.message.startswith("unknown field") or "unexpected keyword" in exc.message
            if unknown:
                leaf = exc.field.rsplit(".", 1)[-1]
                for name, _ in setting:
                    last = name.rsplit(".", 1)[-1]
                    if last == leaf or f"'{last}'" in exc.message:
                        raise ExperimentError(
                            f"--vary {name}: no such field in {self.base.path} "
                            f"({exc.field}: {exc.message})"
                        ) from None
            shown = ", ".join(f"{n}={toml_value(v)}" for n, v in setting)
            raise ExperimentError(
                f"{self.base.path} with {shown}: {exc.field + ': ' if exc.field else ''}"
                f"{exc.message}"
            ) from None
        return scenario


def combinations(variables: Sequence[Variable]) -> list[tuple[tuple[str, Any], ...]]:
    """Every combination of the variables' values, the first variable slowest."""
    names = [v.name for v in variables]
    return [
        tuple(zip(names, values, strict=True))
        for values in itertools.product(*(v.values for v in variables))
    ]


__all__ = ["Variable", "Varied", "combinations", "dump_toml", "parse_vary"]
