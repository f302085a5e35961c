"""The verdicts of ``benchmarks/run.py``, the report ``--json`` writes, and how busy the
machine was (other processes' CPU time)."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import attrs
import simpy


@attrs.frozen
class Verdict:
    """A target and the figure judged against it: PASS or MISS; a MISS without a figure
    says why there is none (``why``); a figure measured while the machine was busy
    (``busy``: what took the cores) is not judged."""

    name: str
    value: float | None
    target: float
    unit: str = "x"
    at_least: bool = False
    why: str = ""
    busy: str = ""

    @property
    def status(self) -> str:
        if self.busy:
            return "BUSY"
        if self.value is None:
            return "MISS"
        ok = self.value >= self.target if self.at_least else self.value <= self.target
        return "PASS" if ok else "MISS"

    def line(self) -> str:
        bound = ">=" if self.at_least else "<="
        target = f"target {bound} {number(self.target)}{self.unit}"
        figure = self.why if self.value is None else f"{number(self.value)}{self.unit}"
        if self.status == "BUSY":
            return (
                f"  ----  {self.name}: {figure} ({target}; machine busy: not judged, {self.busy})"
            )
        return f"  {self.status}  {self.name}: {figure} ({target})"

    def data(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "status": self.status}


def number(value: float) -> str:
    """A figure as the verdict lines print it: whole above 1,000, else two decimals."""
    return f"{value:,.0f}" if abs(value) >= 1_000 else f"{value:.2f}"


@attrs.define
class Report:
    """Every figure (nested by part of the run) and verdict, for ``--json``."""

    quick: bool
    last: float = attrs.field(factory=lambda: time.perf_counter())  # when the last part ended
    cpu: float = attrs.field(factory=lambda: own_seconds())  # the CPU time used by then
    figures: dict[str, Any] = attrs.field(factory=dict)
    verdicts: list[Verdict] = attrs.field(factory=list)

    def lap(self, part: str) -> None:
        """Note the wall time of a part of the run (since the last part ended), and the
        CPU time this process and its children took meanwhile."""
        now, cpu = time.perf_counter(), own_seconds()
        self.figures.setdefault("time", {})[part] = {"wall": now - self.last, "cpu": cpu - self.cpu}
        self.last, self.cpu = now, cpu

    def times(self) -> str:
        """The wall and CPU time of each part noted, on one line."""
        parts = self.figures.get("time", {}).items()
        return ", ".join(f"{k} {v['wall']:.0f} s (CPU {v['cpu']:.0f} s)" for k, v in parts)

    def add(self, *verdicts: Verdict) -> None:
        self.verdicts.extend(verdicts)

    def print_verdicts(self) -> int:
        """Print the verdict lines and the tally; the number of targets met."""
        print("verdicts:")
        for v in self.verdicts:
            print(v.line())
        met = sum(v.status == "PASS" for v in self.verdicts)
        busy = sum(v.status == "BUSY" for v in self.verdicts)
        unjudged = f" ({busy} not judged: the machine was busy)" if busy else ""
        print(f"{met} of {len(self.verdicts)} targets met{unjudged}")
        return met

    def data(self) -> dict[str, Any]:
        return {
            "python": platform.python_version(),
            "simpy": simpy.__version__,
            "quick": self.quick,
            "figures": self.figures,
            "verdicts": [v.data() for v in self.verdicts],
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.data(), indent=2, sort_keys=True, default=list) + "\n")


class Load:
    """The cores other processes used from this object's making to each call of
    :meth:`others` (None where the system does not say): the machine's busy time
    (``/proc/stat``) less this process's and its finished children's."""

    def __init__(self) -> None:
        self.busy, self.mine, self.wall = busy_seconds(), own_seconds(), time.perf_counter()

    def others(self) -> float | None:
        busy, mine, wall = busy_seconds(), own_seconds(), time.perf_counter()
        if busy is None or self.busy is None or wall <= self.wall:
            return None
        return max(busy - self.busy - (mine - self.mine), 0.0) / (wall - self.wall)


def own_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def busy_seconds() -> float | None:
    """CPU seconds every process of the machine has used since boot (Linux), or None."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # but idle, iowait
