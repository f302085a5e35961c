"""Several ``make bench`` runs side by side, as Markdown tables for docs/performance.md.

    python benchmarks/summary.py bench-1.json bench-2.json bench-3.json

Each file is what ``benchmarks/run.py --json FILE`` wrote. The first table has a row per
verdict (its target, then each run's figure and status); then one table per ruleset, a
row per example scenario, each cell holding every run's figure in the order given
(``a / b / c``): instructions per action, CPU time per action, fights per CPU-second,
actions and resolved attacks per fight, instructions and CPU time per resolved attack.
Nothing is measured here: it only reads the reports.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Report = dict[str, Any]

SCENARIO_COLUMNS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("instructions_per_action", "instructions / action", lambda v: f"{v:,.0f}"),
    ("cpu_per_action", "CPU µs / action", lambda v: f"{v * 1e6:.1f}"),
    ("fights_per_cpu_second", "fights / CPU-s", lambda v: f"{v:,.0f}"),
    ("actions_per_fight", "actions / fight", lambda v: f"{v:,.1f}"),
    ("attacks_per_fight", "attacks / fight", lambda v: f"{v:,.1f}"),
    ("instructions_per_attack", "instructions / attack", lambda v: f"{v:,.0f}"),
    ("cpu_per_attack", "CPU µs / attack", lambda v: f"{v * 1e6:.1f}"),
)


def load(path: Path) -> Report:
    """A report ``run.py --json`` wrote; an error naming the file if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: not a bench report ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        raise SystemExit(f"{path}: not a bench report (no 'verdicts' list)")
    return data


def figure(value: float | None, unit: str) -> str:
    """A verdict's figure as its line prints it (whole above 1,000, else two decimals)."""
    if value is None:
        return "none"
    text = f"{value:,.0f}" if abs(value) >= 1_000 else f"{value:.2f}"
    return f"{text}{unit}"


# What a verdict's name says of one run only: the costliest scenario, the build waited for.
RUN_DETAIL = re.compile(r" \(highest: (?P<highest>[^)]*)\)|, the wait for .*? aside")


def verdict_key(name: str) -> str:
    """A verdict's name without what varies from run to run, so runs line up."""
    return RUN_DETAIL.sub("", name)


def verdict_table(reports: Sequence[Report]) -> list[str]:
    """A row per verdict, in the first run's order (a verdict only a later run has comes
    after), with its target and each run's figure and status (and the scenario a
    ruleset's verdict found costliest in that run)."""
    names: list[str] = []
    found: list[dict[str, dict[str, Any]]] = []
    for report in reports:
        by_name = {verdict_key(v["name"]): v for v in report["verdicts"]}
        found.append(by_name)
        names.extend(n for n in by_name if n not in names)
    head = "| target | " + " | ".join(f"run {i}" for i in range(1, len(reports) + 1)) + " |"
    lines = [head, "|---|" + "---|" * len(reports)]
    for name in names:
        first = next(r[name] for r in found if name in r)
        bound = ">=" if first["at_least"] else "<="
        cells = []
        for by_name in found:
            v = by_name.get(name)
            if v is None:
                cells.append("")
                continue
            highest = RUN_DETAIL.search(v["name"])
            which = f" ({highest['highest']})" if highest and highest["highest"] else ""
            cells.append(f"{figure(v['value'], v['unit'])} {v['status']}{which}")
        target = f"{bound} {figure(first['target'], first['unit'])}"
        lines.append(f"| {name} ({target}) | " + " | ".join(cells) + " |")
    passed = [sum(v["status"] == "PASS" for v in r["verdicts"]) for r in reports]
    totals = ", ".join(f"{p} of {len(r['verdicts'])}" for p, r in zip(passed, reports, strict=True))
    lines.append("")
    lines.append(f"Targets met, run by run: {totals}.")
    return lines


def scenario_tables(reports: Sequence[Report]) -> list[str]:
    """A table per ruleset, a row per example scenario, every run's figure in a cell."""
    tables = [r.get("figures", {}).get("scenarios", {}) for r in reports]
    rulesets: list[str] = []
    for table in tables:
        rulesets.extend(k for k in table if k not in rulesets)
    lines: list[str] = []
    for ruleset in rulesets:
        stems: list[str] = []
        for table in tables:
            stems.extend(s for s in table.get(ruleset, {}) if s not in stems)
        lines.append(f"**{ruleset}**")
        lines.append("")
        lines.append("| scenario | " + " | ".join(c[1] for c in SCENARIO_COLUMNS) + " |")
        lines.append("|---|" + "---|" * len(SCENARIO_COLUMNS))
        for stem in stems:
            rows = [t.get(ruleset, {}).get(stem, {}) for t in tables]
            cells = []
            for key, _, show in SCENARIO_COLUMNS:
                cells.append(" / ".join("-" if r.get(key) is None else show(r[key]) for r in rows))
            lines.append(f"| {stem} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def summary(reports: Sequence[Report]) -> str:
    """The verdicts' table, then the example scenarios' tables."""
    return "\n".join([*verdict_table(reports), "", *scenario_tables(reports)]).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, help="files run.py --json wrote")
    args = parser.parse_args(argv)
    sys.stdout.write(summary([load(p) for p in args.reports]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
