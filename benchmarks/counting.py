"""Instructions per unit (action, timeout), counted by valgrind's cachegrind as the
difference between a long and a short run, as ``benchmarks/cost.py`` counts them, for
many runs at once.

cost.py starts a process of its own for each run, under valgrind: its start (the
interpreter's, segsim's imports, the translation of all that code by valgrind) costs
some 1.3 billion instructions and about 6 CPU seconds, far more than the runs
themselves, and the bench counts over thirty runs. Here one process under valgrind
(:func:`serve`) imports segsim and every ruleset once, then forks a child for each run,
two at a time (one per core): a forked child is counted by valgrind like its parent,
from the parent's count at the fork, and writes its own count when it exits. The short
and the long run of a unit are forked from the same parent state one after the other,
so their difference is the long run's extra units, as in cost.py (which this agrees
with to within 0.1 % on the duel and on Rupture's brawl).

Each child empties the cyclic garbage collector before its run (``gc.collect()``, the
same in the short and the long run, so it cancels out): a child otherwise inherits the
collector's counters from the counting process, which depend on the runs forked before
it, and a collection of the whole heap then fell inside some long runs and not in
others. The crossbow ambush read 149,430 or 156,420 instructions per action with the same
code depending on the order of the jobs; with the collector emptied, 149,414 to 149,491
over three orders.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Job = tuple[str, str, int]
"""A run: a kind of unit (``scenario``, or a kind of ``benchmarks/run.py``'s ``--units``),
its argument (a scenario's path, or ``""``) and the count (fights, segments)."""


def summary(text: str) -> int:
    """The instructions in a cachegrind output file (its ``summary:`` line) or in
    valgrind's report (its ``I refs`` line)."""
    found = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"I\s+refs:\s+([\d,]+)", text)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {text[-300:]!r}")
    return int(found.group(1).replace(",", ""))


def serve(jobs: Sequence[Job], run: Callable[[Job], int], width: int = 2) -> list[dict[str, Any]]:
    """Fork a child for each job (``width`` at a time), which runs it (``run``: the units
    it ran) and exits: the child's process id and units, in the order of ``jobs``."""
    done: dict[int, dict[str, Any]] = {}
    running: dict[int, tuple[int, int]] = {}  # pid: (job index, read end of its pipe)
    queue = list(enumerate(jobs))
    while queue or running:
        while queue and len(running) < width:
            index, job = queue.pop(0)
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: run the job, say how many units, and go
                os.close(read)
                status = 1
                try:
                    gc.collect()  # the same collector state whatever ran before
                    os.write(write, str(run(job)).encode())
                    status = 0
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(status)
            os.close(write)
            running[pid] = (index, read)
        pid, status = os.wait()
        if pid not in running:
            continue  # a child of the caller's, not a run (a server it left, say)
        index, read = running.pop(pid)
        units = os.read(read, 64).decode()
        os.close(read)
        if status != 0 or not units:
            raise RuntimeError(f"the run {jobs[index]} failed (status {status})")
        done[index] = {"job": list(jobs[index]), "pid": pid, "units": int(units)}
    return [done[i] for i in range(len(jobs))]


def count(
    script: Path, jobs: Sequence[Job], env: dict[str, str] | None = None
) -> list[tuple[int, int]]:
    """The instructions and units of each job, each run in a child of one process under
    valgrind's cachegrind (``script --count FILE``, which calls :func:`serve`)."""
    with tempfile.TemporaryDirectory(prefix="segsim-count-") as folder:
        where = Path(folder)
        (where / "jobs.json").write_text(json.dumps([list(j) for j in jobs]))
        command = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={where}/cg.%p",
            sys.executable,
            "-P",
            str(script),
            "--count",
            str(where / "jobs.json"),
        ]
        env = {**os.environ, **(env or {}), "PYTHONHASHSEED": "0"}  # the same dict layouts
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"valgrind's counting run failed: {done.stderr[-600:]}")
        ran: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
        return [(summary((where / f"cg.{r['pid']}").read_text()), int(r["units"])) for r in ran]


def per_unit(counted: tuple[tuple[int, int], tuple[int, int]]) -> float:
    """Instructions per unit from a short and a long run's (instructions, units): the
    long run's extra instructions over its extra units."""
    (few, few_units), (many, many_units) = counted
    if many_units <= few_units:
        raise ValueError(f"the long run ran no more units than the short one ({counted})")
    return (many - few) / (many_units - few_units)
