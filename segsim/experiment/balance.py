"""Balance: every combination of varied fields, on the same fight seeds, as a matrix of
win rates with their intervals (``segsim balance``).

Each combination is a sweep of the scenario with those fields set
(:mod:`.variables`), with the same master seed: fight ``i`` of every combination has
the seed ``fight_seed(S, i)``, so two cells differ only by what was varied (common
random numbers). A numeric variable (a range ``LO..HI:STEP``) gets the win rate plotted
against it with its band, where it crosses 50 %, and what one unit of it buys (the
least-squares slope of the win rate on it).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.experiment.backends import Backend, make_backend
from segsim.experiment.design import (
    Arm,
    Experiment,
    ExperimentError,
    PolicySpec,
    ScenarioText,
    _check_policies,
    _label,
    assign_policies,
)
from segsim.experiment.runner import Results, run
from segsim.experiment.stats import wilson
from segsim.experiment.variables import Variable, Varied, combinations
from segsim.scriptline import toml_value


@attrs.frozen
class Cell:
    """One combination's figures: ``side``'s wins out of ``n`` fights (errors left out)."""

    setting: tuple[tuple[str, Any], ...]
    wins: int
    losses: int
    n: int
    errors: int
    interval: tuple[float, float]
    mean_length: float

    @property
    def rate(self) -> float:
        return self.wins / self.n if self.n else 0.0

    @property
    def draws(self) -> int:
        return self.n - self.wins - self.losses


@attrs.frozen
class Crossing:
    """Where the win rate of one line (the other variables fixed) crosses 50 %, and its
    least-squares slope per unit of the numeric variable."""

    name: str
    fixed: tuple[tuple[str, Any], ...]
    at: float | None  # None: it never crosses within the range
    slope: float  # win-rate change per unit (0.01 is one point)


@attrs.frozen
class Balance:
    """The results of :func:`balance`."""

    scenario: ScenarioText
    variables: tuple[Variable, ...]
    side: str
    fights: int
    seed: int
    cells: tuple[Cell, ...]
    results: tuple[Results, ...]

    @property
    def numeric(self) -> Variable | None:
        """The numeric variable plotted on the x axis (the last numeric one)."""
        found = [v for v in self.variables if v.numeric]
        return found[-1] if found else None

    def cell(self, setting: Mapping[str, Any]) -> Cell:
        for c in self.cells:
            if dict(c.setting) == dict(setting):
                return c
        raise KeyError(setting)

    def crossings(self) -> list[Crossing]:
        x = self.numeric
        if x is None:
            return []
        others = [v for v in self.variables if v is not x]
        out = []
        for fixed in combinations(others) if others else [()]:
            line = [self.cell({**dict(fixed), x.name: value}) for value in x.values]
            xs = [float(v) for v in x.values]
            ys = [c.rate for c in line]
            out.append(Crossing(x.name, tuple(fixed), _crossing(xs, ys), _slope(xs, ys)))
        return out

    def text(self) -> str:
        return render_balance(self)

    def write_table(self, path: str | Path) -> None:
        write_balance_table(self, path)


def _crossing(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The first x where the piecewise-linear win rate reaches 0.5."""
    for k in range(len(xs) - 1):
        x0, y0, x1, y1 = xs[k], ys[k], xs[k + 1], ys[k + 1]
        if y0 == 0.5:
            return x0
        if (y0 - 0.5) * (y1 - 0.5) < 0:
            return x0 + (0.5 - y0) * (x1 - x0) / (y1 - y0)
    if ys and ys[-1] == 0.5:
        return xs[-1]
    return None


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0


def balance(
    scenario: str | Path | ScenarioText,
    variables: Sequence[Variable | str],
    fights: int,
    *,
    seed: int | None = None,
    side: str | None = None,
    policies: Mapping[str, PolicySpec] | None = None,
    chunk: int = 100,
    workers: int = 1,
    backend: str | Backend = "local",
    address: str | None = None,
    progress: bool | None = False,
) -> Balance:
    """Play every combination of the variables' values (``Variable`` or ``NAME=...``
    text), ``fights`` fights each on the same seeds, and count ``side``'s wins (by
    default the side the first variable names, else the scenario's first side).

    Every name and every combination is checked (its scenario loaded) before the
    first fight: an unknown name is an :class:`ExperimentError` naming it.
    """
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    varied = Varied(text)
    parsed = [v if isinstance(v, Variable) else _parse(v) for v in variables]
    if not parsed:
        raise ExperimentError("balance needs at least one --vary NAME=VALUES")
    names = [v.name for v in parsed]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ExperimentError(f"--vary {twice[0]} is given twice")
    for v in parsed:
        varied.check(v.name)
    settings = combinations(parsed)
    if len(settings) > 10_000:
        raise ExperimentError(f"{len(settings)} combinations is too many (10000 at most)")
    texts = [varied.text(s) for s in settings]  # each loaded: a bad value stops here
    base = text.load()
    chosen = side or _default_side(base, parsed[0].name, varied.sides)
    if chosen not in varied.sides:
        raise ExperimentError(
            f"--side {chosen}: no side {chosen!r} (sides: {', '.join(varied.sides)})"
        )
    assigned = assign_policies(base, policies or {})
    _check_policies(base, list(assigned.values()))
    master = base.seed if seed is None else seed
    arm = Arm(_label(policies or {}), tuple(assigned.items()))
    experiments = [Experiment(t, (arm,), fights, master, chunk) for t in texts]
    runner = backend if isinstance(backend, Backend) else make_backend(backend, workers, address)
    try:
        results = tuple(run(e, backend=runner, progress=progress) for e in experiments)
    finally:
        if not isinstance(backend, Backend):
            runner.close()
    for r in results:
        if r.failed is not None:
            raise ExperimentError(f"{r.stopped}")
    cells = tuple(_cell(s, r, chosen) for s, r in zip(settings, results, strict=True))
    return Balance(text, tuple(parsed), chosen, fights, master, cells, results)


def _parse(text: str) -> Variable:
    from segsim.experiment.variables import parse_vary

    return parse_vary(text)


def _default_side(scenario: Any, name: str, sides: Sequence[str]) -> str:
    head = name.split(".")[0]
    if head in sides:
        return head
    for c in scenario.combatants:
        if c.id == head:
            return str(c.side)
    return sides[0]


def _cell(setting: tuple[tuple[str, Any], ...], results: Results, side: str) -> Cell:
    ok = [r for r in results.results if r.error is None]
    wins = sum(1 for r in ok if r.winner == side)
    losses = sum(1 for r in ok if r.winner is not None and r.winner != side)
    length = sum(r.segments for r in ok) / len(ok) if ok else 0.0
    return Cell(
        setting,
        wins,
        losses,
        len(ok),
        len(results.results) - len(ok),
        wilson(wins, len(ok)),
        length,
    )


# ---------------------------------------------------------------- text and table


def shown(value: Any) -> str:
    """A varied value as written on the command line."""
    return value if isinstance(value, str) else toml_value(value)


def _rate(cell: Cell) -> str:
    lo, hi = cell.interval
    return f"{100 * cell.rate:5.1f} % [{100 * lo:3.0f}, {100 * hi:3.0f}]"


def grid(result: Balance) -> tuple[list[str], list[str], list[list[Cell]]]:
    """The matrix: rows are the first variable's values, columns the combinations of
    the others (one column when there is one variable)."""
    first, rest = result.variables[0], result.variables[1:]
    columns = combinations(rest) if rest else [()]
    col_names = [", ".join(f"{n}={shown(v)}" for n, v in c) or "win rate" for c in columns]
    if len(rest) == 1:
        col_names = [shown(c[0][1]) for c in columns]
    rows = [shown(v) for v in first.values]
    cells = [[result.cell({first.name: v, **dict(c)}) for c in columns] for v in first.values]
    return rows, col_names, cells


def render_balance(result: Balance) -> str:
    """The terminal summary: the matrix, then each numeric line's crossing of 50 %."""
    out = io.StringIO()
    w = out.write
    w(
        f"balance: {result.scenario.path}, {len(result.cells)} combination(s), "
        f"{result.fights} fights each on the same seeds (master seed {result.seed})\n"
    )
    w(f"win rate of side {result.side}, 95% Wilson interval in points\n\n")
    rows, cols, cells = grid(result)
    first = result.variables[0].name
    corner = first + (" \\ " + result.variables[1].name if len(result.variables) == 2 else "")
    width0 = max(len(corner), *(len(r) for r in rows))
    widths = [max(len(c), 22) for c in cols]
    w(
        corner.ljust(width0)
        + "".join("  " + c.rjust(wd) for c, wd in zip(cols, widths, strict=True))
    )
    w("\n")
    for label, line in zip(rows, cells, strict=True):
        w(label.ljust(width0))
        w("".join("  " + _rate(c).rjust(wd) for c, wd in zip(line, widths, strict=True)))
        w("\n")
    errors = sum(c.errors for c in result.cells)
    if errors:
        w(f"\n{errors} fight(s) ended in an error and are left out\n")
    for crossing in result.crossings():
        w("\n" + crossing_text(result, crossing) + "\n")
    return out.getvalue()


def crossing_text(result: Balance, crossing: Crossing) -> str:
    fixed = ", ".join(f"{n}={shown(v)}" for n, v in crossing.fixed)
    where = f" (with {fixed})" if fixed else ""
    if crossing.at is None:
        crosses = f"the win rate of side {result.side} does not cross 50 % over the range"
    else:
        crosses = (
            f"the win rate of side {result.side} crosses 50 % at {crossing.name} = "
            f"{crossing.at:.3g}"
        )
    return (
        f"{crosses}{where}; one unit of {crossing.name} buys {100 * crossing.slope:+.2f} "
        "points of win rate (least-squares slope over the range)"
    )


def table_rows(result: Balance) -> list[dict[str, Any]]:
    rows = []
    for c in result.cells:
        row: dict[str, Any] = {name: value for name, value in c.setting}
        lo, hi = c.interval
        row.update(
            side=result.side,
            fights=c.n,
            wins=c.wins,
            losses=c.losses,
            draws=c.draws,
            errors=c.errors,
            win_rate=round(c.rate, 6),
            low=round(lo, 6),
            high=round(hi, 6),
            mean_length=round(c.mean_length, 3),
        )
        rows.append(row)
    return rows


def write_balance_table(result: Balance, path: str | Path) -> None:
    """One row per combination, as ``.csv`` or ``.jsonl``."""
    suffix = Path(path).suffix.lower()
    rows = table_rows(result)
    with open(path, "w", encoding="utf-8", newline="") as f:
        if suffix == ".csv":
            writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        elif suffix == ".jsonl":
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:  # refused before any fight by check_balance_table
            raise ExperimentError(f"table {path}: .csv or .jsonl, not {suffix or 'no extension'}")


def check_balance_table(path: str | Path) -> None:
    from segsim.experiment.outputs import check_path

    check_path(path, "table")
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise ExperimentError(
            f"table {path}: the balance table is .csv or .jsonl, not {suffix or 'no extension'}"
        )


__all__ = [
    "Balance",
    "Cell",
    "Crossing",
    "balance",
    "check_balance_table",
    "crossing_text",
    "grid",
    "render_balance",
    "table_rows",
    "write_balance_table",
]
