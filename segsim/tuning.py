"""Tunable parameters of a rule-list policy: the ``[tune]`` table, data only.

A rule list's ``[params]`` are the numbers, words and switches its rules read; its
``[tune]`` table says which of them ``segsim optimize`` may change, and within what::

    [params]
    max_bonus = 2
    reach = 1.5
    dodge = false
    blow = "cut"

    [tune]
    max_bonus = { low = 0, high = 3 }           # whole numbers 0, 1, 2, 3
    reach = { low = 0.5, high = 3.0, step = 0.5 }  # numbers (step optional)
    dodge = { choices = [false, true] }
    blow = { choices = ["cut", "thrust"] }

A range's type is its bounds' (both whole: whole numbers), and a parameter's value in
``[params]`` (the starting point) must lie in its range or be one of its choices.
Nothing here runs code: a ``[tune]`` entry is read, checked and kept as numbers and
words. Errors name the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from segsim.input import Node

Value = int | float | str | bool


@attrs.frozen
class Tunable:
    """One parameter's search space: a range ``low..high`` (whole numbers when both
    bounds are, ``step`` optional) or a list of ``choices``."""

    name: str
    low: int | float | None = None
    high: int | float | None = None
    step: int | float | None = None
    choices: tuple[Value, ...] = ()

    @property
    def whole(self) -> bool:
        return isinstance(self.low, int) and isinstance(self.high, int)

    def contains(self, value: Any) -> bool:
        if self.choices:
            return any(value == c and type(value) is type(c) for c in self.choices)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        assert self.low is not None and self.high is not None
        return self.low <= value <= self.high and (not self.whole or isinstance(value, int))

    def describe(self) -> str:
        if self.choices:
            return "one of " + ", ".join(_shown(c) for c in self.choices)
        step = f" step {_shown(self.step)}" if self.step is not None else ""
        return f"{_shown(self.low)}..{_shown(self.high)}{step}"

    def data(self) -> dict[str, Any]:
        """The ``[tune]`` entry as it is written."""
        if self.choices:
            return {"choices": list(self.choices)}
        out: dict[str, Any] = {"low": self.low, "high": self.high}
        if self.step is not None:
            out["step"] = self.step
        return out


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def _number(node: Node, key: str) -> int | float:
    raw = node.data.get(key)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return node.value(key, int)
    return node.value(key, float)  # else an error: missing, or not a number


def read_tune(root: Node, params: Mapping[str, Any]) -> dict[str, Tunable]:
    """The ``[tune]`` table of a rule list whose ``[params]`` are ``params``."""
    table = root.table("tune", {})
    out: dict[str, Tunable] = {}
    for name, raw in list(table.items()):
        if name not in params:
            known = ", ".join(sorted(params)) or "none"
            raise table.error(name, f"not a parameter of this rule list ([params]: {known})")
        if not isinstance(raw, Mapping):
            raise table.error(
                name, "a tunable parameter is { low = ..., high = ... } or { choices = [...] }"
            )
        entry = table.child(name)
        if entry.has("choices"):
            choices = entry.data["choices"]
            if (
                not isinstance(choices, list)
                or len(choices) < 2
                or not all(isinstance(c, int | float | str | bool) for c in choices)
            ):
                raise entry.error("choices", "a list of at least two numbers, words or booleans")
            entry.value("choices", list)
            if len({(type(c), c) for c in choices}) != len(choices):
                raise entry.error("choices", "a choice is given twice")
            tunable = Tunable(name, choices=tuple(choices))
        else:
            low, high = _number(entry, "low"), _number(entry, "high")
            if not low < high:
                raise entry.error("high", f"the range is empty: high {high} is not above low {low}")
            step = _number(entry, "step") if entry.has("step") else None
            if step is not None and (step <= 0 or step > high - low):
                raise entry.error("step", f"a step is above 0 and at most high - low, not {step}")
            whole = isinstance(low, int) and isinstance(high, int)
            if whole and step is not None and not isinstance(step, int):
                raise entry.error("step", "a range of whole numbers takes a whole step")
            tunable = Tunable(name, low, high, step)
        entry.finish()
        if not tunable.contains(params[name]):
            raise table.error(
                name,
                f"the starting value {_shown(params[name])} (in [params]) is not in "
                f"{tunable.describe()}",
            )
        out[name] = tunable
    return out


__all__ = ["Tunable", "read_tune"]
