"""``make fuzz``: fuzz every input class of every ruleset for a bounded time.

    python tests/fuzz/run.py --seconds 600

Input classes take turns in rounds of a few dozen cases until the time is up; each
case runs in a child process of its own (:func:`fuzz.cases.isolated`), so a crash or a
hang in C is counted rather than ending the run. At the end (and after every round with
``--verbose``) it prints a table per input class: the cases, how many were accepted or
cleanly rejected, forged records detected, and the findings: tracebacks, hangs,
crashes, state changes (a refused declaration left a trace), divergences (a record
segsim wrote does not replay), undetected forgeries and unsafe HTML. Every finding is
written to ``--out`` (default ``fuzz-failures/``) with its input and detail. Exit 1 if
there was any.

The input classes, for every ruleset: scenarios, fight scripts (mostly valid ones with
small edits), records (damaged; forged), declarations (through ``run`` and through
``advance``/``submit``), the command line (every command), content files (``models/``),
rule lists, HTML output (hostile names); and, once, special files (pipes, devices,
links, folders) and huge inputs given to every reader.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzz import cases  # noqa: E402
from fuzz import strategies as fs  # noqa: E402


class Stats:
    """Counts per input class, and the bad cases kept for a report."""

    def __init__(self, out: Path) -> None:
        self.counts: dict[str, collections.Counter[str]] = {}
        self.groups: dict[str, set[str]] = {}
        self.out = out
        self.saved = 0

    def add(self, name: str, outcome: cases.Outcome, value: Any) -> None:
        group = name.split("/", 1)[0]
        if outcome.kind not in cases.OUTCOMES:
            outcome = cases.Outcome("traceback", f"unknown outcome {outcome.kind!r}")
        self.groups.setdefault(group, set()).add(name)
        self.counts.setdefault(name, collections.Counter())[outcome.kind] += 1
        if outcome.kind in cases.BAD:
            self.out.mkdir(parents=True, exist_ok=True)
            self.saved += 1
            path = self.out / f"{name.replace('/', '-')}-{self.saved}.txt"
            shown = value if isinstance(value, bytes | str) else repr(value)
            path.write_text(f"{outcome.kind}\n{shown!r}\n\n{outcome.detail}\n", encoding="utf-8")

    def bad(self) -> int:
        return sum(c[k] for c in self.counts.values() for k in cases.BAD)

    def table(self) -> str:
        """One table per input class (its rows: rulesets), then the totals."""
        out = []
        total: collections.Counter[str] = collections.Counter()
        for group in sorted(self.groups):
            rows = [f"== {group}", HEAD]
            sub: collections.Counter[str] = collections.Counter()
            for name in sorted(self.groups[group]):
                c = self.counts[name]
                sub.update(c)
                rows.append(_row(name.split("/", 1)[-1] if "/" in name else "-", c))
            if len(self.groups[group]) > 1:
                rows.append(_row("all", sub))
            total.update(sub)
            out.append("\n".join(rows))
        out.append("\n".join(["== total", HEAD, _row("all", total)]))
        return "\n\n".join(out)


COLUMNS = [
    ("cases", None),
    ("accepted", "accepted"),
    ("rejected", "rejected"),
    ("detected", "detected"),
    ("traceback", "traceback"),
    ("hang", "hang"),
    ("crash", "crash"),
    ("state", "state changed"),
    ("diverge", "divergence"),
    ("undetected", "undetected"),
    ("unsafe", "unsafe"),
]
HEAD = f"{'':<16}" + "".join(f"{title:>{len(title) + 2}}" for title, _ in COLUMNS)


def _row(name: str, c: collections.Counter[str]) -> str:
    cells = []
    for title, kind in COLUMNS:
        n = sum(c.values()) if kind is None else c[kind]
        cells.append(f"{n:>{len(title) + 2}}")
    return f"{name:<16}" + "".join(cells)


Class = tuple[str, st.SearchStrategy[Any], Callable[[Any], cases.Outcome]]

BUDGETS = {"special": 10.0, "huge": 30.0}
"""Seconds of processor time a case of the class may take (default 40); a case still
running after about three times as long by the clock is killed as a hang."""


def classes(scratch: Path) -> list[Class]:
    """Every (name, strategy, run) of every ruleset, and the special and huge files."""
    out: list[Class] = []
    for rs in fs.fuzz_rulesets():
        record = scratch / f"{rs.name}.jsonl"
        record.write_text("".join(f"{line}\n" for line in fs.record_lines(rs.name, 1)))
        damaged = str(scratch / f"{rs.name}-damaged.toml")
        files = {
            **fs.cli_files(rs),
            "record": str(record),
            "out": str(scratch / "out.jsonl"),
            "html": str(scratch / "out.html"),
            "svg": str(scratch / "out.svg"),
            "damaged": damaged,
        }
        out += [
            (f"scenario/{rs.name}", fs.scenarios(rs), cases.scenario_case),
            (f"script/{rs.name}", fs.scripts(rs), cases.script_case),
            (
                f"record/{rs.name}",
                st.tuples(fs.records(rs), st.integers(0, 120)),
                lambda v: cases.record_case(*v),
            ),
            (
                f"forgery/{rs.name}",
                fs.forgeries(rs),
                lambda v: cases.forgery_case(v[0], v[2]),
            ),
            (
                f"declaration/{rs.name}",
                st.tuples(fs.declarations(rs), st.integers(0, 40)),
                lambda v, rs=rs: cases.declaration_case(rs.name, rs.scenario, v[0], v[1]),
            ),
            (
                f"paused/{rs.name}",
                st.tuples(fs.declarations(rs), st.integers(0, 40)),
                lambda v, rs=rs: cases.paused_declaration_case(rs.name, rs.scenario, v[0], v[1]),
            ),
            (
                f"cli/{rs.name}",
                fs.cli_cases(rs, files),
                lambda v, damaged=damaged: cases.cli_case(v[0], damaged=(damaged, v[1])),
            ),
            (
                f"content/{rs.name}",
                fs.content_files(rs),
                lambda v, rs=rs: cases.content_case(rs.name, v),
            ),
            (
                f"html/{rs.name}",
                fs.html_names(),
                lambda v, rs=rs: cases.html_case(rs.scenario, v),
            ),
        ]
        if fs.rule_list_files(rs):
            out.append(
                (
                    f"rulelist/{rs.name}",
                    fs.rule_lists(rs),
                    lambda v, rs=rs: cases.rulelist_case(v, fs.rule_list_scenario(rs)),
                )
            )
    specials = st.tuples(
        st.sampled_from(["fifo", "link-fifo", "dir", "link-loop", "dangling", "null", "zero"]),
        st.sampled_from(cases.READERS),
    )
    out.append(("special", specials, lambda v: cases.special_case(v[0], v[1], scratch)))
    huge = st.sampled_from(
        [
            ("padded-scenario", "scenario"),
            ("padded-scenario", "cli-run"),
            ("long-record-line", "record"),
            ("long-record-line", "cli-replay"),
            ("many-record-lines", "record"),
            ("many-segments", "script"),
            ("battle-record", "record"),
            ("battle-record", "cli-replay"),
        ]
    )
    out.append(("huge", huge, lambda v: cases.huge_case(v[0], v[1], scratch)))
    return out


def explore(
    name: str,
    strategy: st.SearchStrategy[Any],
    run: Callable[[Any], cases.Outcome],
    stats: Stats,
    examples: int,
    seed: int | None,
    budget: float = 40.0,
) -> None:
    """One round of ``examples`` cases of one class (no shrinking: every case counts)."""

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=seed is not None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(value: Any) -> None:
        stats.add(name, cases.isolated(lambda: run(value), budget), value)

    one()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("FUZZ_SECONDS", 60)))
    parser.add_argument(
        "--round", type=int, default=25, help="cases per class per round (after the first)"
    )
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument("--only", help="run only the input classes whose name contains this")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    stats = Stats(args.out)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="segsim-fuzz-") as scratch:
        todo = [c for c in classes(Path(scratch)) if not args.only or args.only in c[0]]
        rounds = 0
        while time.monotonic() - started < args.seconds:
            # The first rounds are short (2, 4, 8... cases a class), so that a short run
            # still visits every class; then --round cases a class.
            size = min(args.round, 2 ** (rounds + 1))
            for name, strategy, run in todo:
                if time.monotonic() - started >= args.seconds:
                    break
                budget = BUDGETS.get(name.split("/", 1)[0], 40.0)
                explore(name, strategy, run, stats, size, None, budget)
            rounds += 1
            if args.verbose:
                print(stats.table(), flush=True)
    elapsed = time.monotonic() - started
    print(stats.table())
    print(f"{rounds} round(s) in {elapsed:.0f} s; {stats.bad()} bad case(s)", end="")
    print(f" written to {args.out}/" if stats.bad() else "")
    summary = {name: dict(c) for name, c in stats.counts.items()}
    (Path(tempfile.gettempdir()) / "segsim-fuzz-last.json").write_text(json.dumps(summary))
    return 1 if stats.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
