"""Tables: the summary as text, and the per-fight table (CSV, Parquet or JSON Lines)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

from segsim.experiment.design import ExperimentError, FightResult
from segsim.experiment.stats import wilson

if TYPE_CHECKING:
    from segsim.experiment.runner import Results
    from segsim.experiment.stats import SPRT
    from segsim.experiment.stops import SPRTResult
    from segsim.experiment.summary import Summary


def _pct(x: float) -> str:
    return f"{100 * x:5.1f} %"


def render_summary(summary: Summary) -> str:
    """The summary as text: the same results always give the same bytes."""
    res = summary.results
    exp = res.experiment
    out = io.StringIO()
    w = out.write
    w(f"{exp.kind}: {exp.scenario.path}, master seed {exp.seed}, ")
    w(f"{res.fights} fights per arm, {len(exp.arms)} arm(s), chunk {exp.chunk}\n")
    if res.stopped:
        w(f"stopped after {res.fights} fights: {res.stopped}\n")
    for arm in summary.arms:
        w(f"\n[{arm.label}] {arm.fights} fights")
        if arm.errors:
            w(f", {arm.errors} ended in an error")
        w("\n")
        for s in arm.sides:
            who = f" ({s.player})" if s.player else ""
            lo, hi = s.interval
            w(
                f"  side {s.side + who:<28} wins {s.wins:>5}  {_pct(s.rate)}  "
                f"95% CI [{_pct(lo)}, {_pct(hi)}]  damage taken {s.damage_taken:6.2f}\n"
            )
        draws = arm.draws / arm.fights if arm.fights else 0.0
        w(f"  no winner {arm.draws:>5}  {_pct(draws)}   results: ")
        w(", ".join(f"{k} {v}" for k, v in arm.results.items()) + "\n")
        mean, sd, lo_len, p10, med, p90, hi_len = arm.length
        w(
            f"  length (segments): mean {mean:.1f}, sd {sd:.1f}, min {lo_len}, p10 {p10}, "
            f"median {med}, p90 {p90}, max {hi_len}\n"
        )
    if summary.difference is not None:
        side, diff, (lo, hi) = summary.difference
        first, second = exp.arms
        w(
            f"\ncommon random numbers: side {side}'s win rate is {100 * diff:+.1f} points "
            f"with [{second.label}] against [{first.label}], 95% CI "
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}]\n"
        )
    if summary.pairs:
        w(
            "\nround robin: the row's score against the column over both sides (its two "
            "arms' fights\ntogether; a win 1, a draw half, a loss 0), not one side's win "
            "rate:\n"
        )
        names = list(dict.fromkeys([p.a for p in summary.pairs]))
        table = {(p.a, p.b): p for p in summary.pairs}
        width = max(10, *(len(n) for n in names))
        w(" " * (width + 2) + "".join(f"{n:>22}" for n in names) + "\n")
        for a in names:
            w(f"{a:<{width}}  ")
            for b in names:
                p = table.get((a, b))
                if p is None:
                    w(f"{'-':>22}")
                else:
                    lo, hi = p.interval
                    cell = f"{100 * p.rate:3.0f}% [{100 * lo:3.0f},{100 * hi:3.0f}]"
                    w(f"{cell:>22}")
            w("\n")
        w("\nranking (mean score against the others):\n")
        ranking = []
        for a in names:
            mine = [p for p in summary.pairs if p.a == a]
            wins = sum(p.wins + (p.n - p.wins - p.losses) / 2 for p in mine)
            n = sum(p.n for p in mine)
            ranking.append((-(wins / n if n else 0.0), a, wins, n))
        for rank, (neg, a, wins, n) in enumerate(sorted(ranking), 1):
            lo, hi = wilson(wins, n)
            w(f"  {rank}. {a:<{width}} {_pct(-neg)}  95% CI [{_pct(lo)}, {_pct(hi)}]\n")
        w("\ndamage per policy (mean per fight, over both sides; wounds after armour):\n")
        for d in summary.damage:
            taken = f"  taken {d.taken:6.2f}" if d.taken is not None else ""
            w(f"  {d.policy:<{width}} dealt {d.dealt:6.2f}{taken}  ({d.fights} fights)\n")
    if res.sprt is not None and exp.sprt is not None:
        w("\n" + render_sprt(res.sprt, exp.sprt))
    errors = res.errors
    if errors:
        w(f"\nerrors: {len(errors)} fight(s) ended in an error; first ones:\n")
        for r in errors[:5]:
            w(f"  [{r.arm}] fight {r.index} (seed {r.seed}): {r.error}\n")
    return out.getvalue()


def render_sprt(result: SPRTResult, test: SPRT) -> str:
    """What the SPRT tested, what it accepted, and the numbers that decided it."""
    a, b = result.a, result.b
    lower, upper = result.bounds
    at = f"; decided at fight {result.stopped_at}" if result.stopped_at is not None else ""
    return (
        f"SPRT, {a} (A) against {b} (B), one trial per fight seed: A's mean score over\n"
        "its fight on each side (a draw is half a win)\n"
        f"  H0: A is no better (score {100 * test.p0:g} %)   "
        f"H1: A is better by delta {test.delta:g} (score {100 * test.p1:g} %)\n"
        f"  alpha {test.alpha:g} (the chance of accepting H1 under H0), "
        f"beta {test.beta:g} (of accepting H0 under H1)\n"
        f"  {result.decision}, after {result.trials} trials ({2 * result.trials} fights{at})\n"
        f"  LLR {result.llr:.3f}; bounds: H0 at or below {lower:.3f}, H1 at or above {upper:.3f}\n"
        + (
            "  the fights ran out first: give more (--fights); the test stops as soon as it "
            "decides\n"
            if result.accepted is None
            else ""
        )
    )


TABLE_FORMATS = {".csv": "CSV", ".parquet": "Parquet", ".jsonl": "JSON Lines"}
"""The per-fight table's formats, by the extension of its path."""


def table_format(path: str | Path) -> str:
    """The table's format named by the path's extension (``.csv``, ``.parquet``,
    ``.jsonl``); any other is refused with the accepted ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_FORMATS:
        accepted = ", ".join(f"{ext} ({name})" for ext, name in TABLE_FORMATS.items())
        shown = f"the extension {suffix!r}" if suffix else "no extension"
        raise ExperimentError(f"table {path}: {shown} names no table format; use {accepted}")
    return suffix


def write_table(results: Results, path: str | Path) -> None:
    """The per-fight table in the format its extension names: ``.csv``, ``.parquet``
    (needs pyarrow) or ``.jsonl`` (one JSON object a line); another extension is an
    :class:`ExperimentError`."""
    kind = table_format(path)
    rows = results.rows()
    columns = list(FightResult("", 0, 0, "", None, 0, (), ()).row(results.sides))
    if kind == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ExperimentError(
                "a Parquet table needs pyarrow: pip install 'segsim[parquet]'"
            ) from None
        table = pa.table({c: [r[c] for r in rows] for c in columns})
        pq.write_table(table, str(path))
        return
    with open(path, "w", encoding="utf-8", newline="") as f:
        if kind == ".jsonl":
            for row in rows:
                f.write(json.dumps({c: row[c] for c in columns}, ensure_ascii=False) + "\n")
            return
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
