"""``make fuzz``: fuzz every input class of every ruleset for a bounded time.

    python tests/fuzz/run.py --seconds 600

Input classes take turns in rounds of a few dozen cases until the time is up; at the
end (and after every round with ``--verbose``) it prints, per class, the cases, how many
were accepted, cleanly rejected, ended in a traceback or a hang (and, for declarations,
left a trace or did not replay). Every bad case is written to ``--out`` (default
``fuzz-failures/``) with its input and traceback. Exit 1 if there was any.
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
        self.out = out
        self.saved = 0

    def add(self, name: str, outcome: cases.Outcome, value: Any) -> None:
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
        head = f"{'input class':<24}{'cases':>8}{'accepted':>10}{'rejected':>10}"
        head += f"{'traceback':>11}{'hang':>6}{'state':>7}{'diverge':>9}"
        rows = [head]
        total: collections.Counter[str] = collections.Counter()
        for name in sorted(self.counts):
            c = self.counts[name]
            total.update(c)
            rows.append(_row(name, c))
        rows.append(_row("total", total))
        return "\n".join(rows)


def _row(name: str, c: collections.Counter[str]) -> str:
    return (
        f"{name:<24}{sum(c.values()):>8}{c['accepted']:>10}{c['rejected']:>10}"
        f"{c['traceback']:>11}{c['hang']:>6}{c['state changed']:>7}{c['divergence']:>9}"
    )


def classes(scratch: Path) -> list[tuple[str, st.SearchStrategy[Any], Callable[[Any], Any]]]:
    """Every (name, strategy, run) of every ruleset."""
    out: list[tuple[str, st.SearchStrategy[Any], Callable[[Any], Any]]] = []
    for rs in fs.fuzz_rulesets():
        record = scratch / f"{rs.name}.jsonl"
        record.write_text("".join(f"{line}\n" for line in fs.record_lines(rs.name, 1)))
        damaged = str(scratch / f"{rs.name}-damaged.toml")
        files = {
            **fs.cli_files(rs),
            "record": str(record),
            "out": str(scratch / "out.jsonl"),
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
                f"declaration/{rs.name}",
                st.tuples(fs.declarations(rs), st.integers(0, 40)),
                lambda v, rs=rs: cases.declaration_case(rs.name, rs.scenario, v[0], v[1]),
            ),
            (
                f"cli/{rs.name}",
                fs.cli_cases(rs, files),
                lambda v, damaged=damaged: cases.cli_case(v[0], damaged=(damaged, v[1])),
            ),
        ]
    return out


def explore(
    name: str,
    strategy: st.SearchStrategy[Any],
    run: Callable[[Any], cases.Outcome],
    stats: Stats,
    examples: int,
    seed: int | None,
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
        stats.add(name, run(value), value)

    one()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("FUZZ_SECONDS", 60)))
    parser.add_argument("--round", type=int, default=25, help="cases per class per round")
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
            for name, strategy, run in todo:
                if time.monotonic() - started >= args.seconds:
                    break
                explore(name, strategy, run, stats, args.round, None)
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
