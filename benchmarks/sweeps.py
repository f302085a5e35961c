"""The sweeps of ``benchmarks/run.py``: ``segsim sweep --workers 2`` against serial,
judged only when no other work ran (other processes' CPU time, ``/proc/stat``)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from verdicts import Report, Verdict, busy_seconds

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
TARGET_SWEEP = 1.8  # at least
BUSY = 0.25  # cores: other processes taking more than this leave a sweep unjudged


def sweep_set(fights: int) -> tuple[float, list[float], list[float]]:
    """Sweeps of ``fights`` duels on 2 workers, then 1, then 2 again: the median of the
    rate ratios of the serial run to each pooled run beside it (a slow spell of the
    machine moves them opposite ways), the rates (serial first) and the cores other
    processes used during each sweep. The serial run, the longest, runs once."""
    rates: dict[int, list[float]] = {1: [], 2: []}
    others: list[float] = []
    for workers in (2, 1, 2):
        rate, other = sweep_rate(fights, workers)
        rates[workers].append(rate)
        if other is not None:
            others.append(other)
    serial = rates[1][0]
    ratio = statistics.median(pooled / serial for pooled in rates[2])
    return ratio, [serial, *rates[2]], others


def sweep_section(fights: int, attempts: int, deadline: float, report: Report) -> Verdict:
    """The sweeps' ratio (:func:`sweep_set`), judged only if other processes took at
    most :data:`BUSY` cores during each sweep: while they took more, the set is measured
    again (``attempts`` sets at most, none started past ``deadline`` on the
    :func:`time.perf_counter` clock, judging by the last set's length); if every set
    met a busy machine, the figure is flagged not judged."""
    name = "sweep --workers 2 against serial"
    sets: list[dict[str, Any]] = []
    for attempt in range(attempts):
        start = time.perf_counter()
        ratio, rates, others = sweep_set(fights)
        busiest = max(others) if others else None
        sets.append({"ratio": ratio, "rates": rates, "others": others})
        print(
            f"sweep of {fights:,} duels: {rates[0]:,.0f} fights/s serial, "
            f"{' and '.join(f'{r:,.0f}' for r in rates[1:])} on 2 workers ({ratio:.2f}x; the "
            f"serial run between two pooled runs, wall clock; {os.cpu_count()} CPUs"
            + (f", other processes {busiest:.2f} cores at most)" if busiest is not None else ")")
        )
        quiet = busiest is None or busiest <= BUSY
        took = time.perf_counter() - start
        if quiet or attempt + 1 == attempts or time.perf_counter() + took > deadline:
            break
        print(
            f"  (the machine was busy: other processes took {busiest:.2f} cores; measuring again)"
        )
    report.figures["sweeps"] = sets
    busy = "" if quiet else f"other processes took up to {busiest:.2f} cores"
    return Verdict(name, ratio, TARGET_SWEEP, at_least=True, busy=busy)


def sweep_rate(fights: int, workers: int) -> tuple[float, float | None]:
    """Fights per second of ``segsim sweep duel.toml --fights N --workers W``, as its
    ``--timing`` line reports it (wall clock of the run, pool start and stop included),
    in a fresh process like any command; and the cores other processes used meanwhile
    (None where the system does not say)."""
    command = [sys.executable, "-m", "segsim", "sweep", str(DUEL), "--fights", str(fights)]
    command += ["--workers", str(workers), "--timing", "--progress", "off"]
    busy, mine = busy_seconds(), os.times()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    busy_after, mine_after = busy_seconds(), os.times()
    found = re.search(r"(\d+) fights in ([\d.]+) s", done.stderr)
    if found is None:
        raise RuntimeError(f"no timing line from segsim sweep: {done.stderr!r}")
    others = None
    if busy is not None and busy_after is not None:
        used = sum(mine_after[:4]) - sum(mine[:4])  # this process and the command's
        others = max(busy_after - busy - used, 0.0) / wall
    return int(found[1]) / float(found[2]), others
