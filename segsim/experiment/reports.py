"""The HTML report of an experiment: one self-contained file (no script, no network),
in the spirit of a SimulationCraft report.

It shows a tournament's scores over both sides (a pairing's figure), each side's win
rate arm by arm (an arm's figure), both with their 95 % intervals against a 0.5 line,
the paired difference of a comparison (against 0), a tournament's round-robin matrix as
a heat map with intervals, the fight-length distribution, how each kind of action
resolved, the damage per policy and per fighter and its distribution, the text
summary, and what reproduces it all: the command, the master seed, the fight seeds'
rule and the versions.
"""

from __future__ import annotations

import html
import platform
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from segsim.experiment.summary import Summary, summarize

if TYPE_CHECKING:
    from segsim.experiment.runner import Results

_BLUE = "#4e79a7"
_RED = "#e15759"
_GREY = "#888"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _n(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


# ---------------------------------------------------------------- charts (inline SVG)


def interval_chart(
    rows: Sequence[tuple[str, float, float, float]],
    *,
    reference: float,
    low: float = 0.0,
    high: float = 1.0,
    percent: bool = True,
    kind: str = "rates",
    fmt: Callable[[float], str] | None = None,
) -> str:
    """Points with their intervals, one row each, and a dashed reference line
    (``fmt`` writes a value and a tick, when neither a rate nor points of one)."""
    label_w, plot_w, row_h = 300, 420, 22
    width, height = label_w + plot_w + 70, 30 + row_h * len(rows) + 20

    def x(v: float) -> float:
        return label_w + plot_w * (min(max(v, low), high) - low) / (high - low)

    out = [
        f'<svg class="chart {kind}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="12">'
    ]
    for k in range(5):
        v = low + (high - low) * k / 4
        tick = fmt(v) if fmt else f"{100 * v:.0f}%" if percent else f"{100 * v:+.0f}"
        out.append(
            f'<line x1="{_n(x(v))}" y1="20" x2="{_n(x(v))}" y2="{height - 18}" stroke="#eee"/>'
            f'<text x="{_n(x(v))}" y="14" text-anchor="middle" fill="#555">{tick}</text>'
        )
    out.append(
        f'<line class="reference" x1="{_n(x(reference))}" y1="20" x2="{_n(x(reference))}" '
        f'y2="{height - 18}" stroke="#333" stroke-dasharray="4 3" data-value="{reference}"/>'
    )
    for i, (label, value, lo, hi) in enumerate(rows):
        y = 30 + i * row_h + row_h / 2
        colour = _BLUE if value >= reference else _RED
        shown = fmt(value) if fmt else _pct(value) if percent else f"{100 * value:+.1f} pts"
        out.append(
            f'<g class="row" data-label="{_e(label)}" data-value="{value:.4f}" '
            f'data-low="{lo:.4f}" data-high="{hi:.4f}">'
            f'<text x="{label_w - 8}" y="{_n(y + 4)}" text-anchor="end">{_e(label[:48])}</text>'
            f'<line x1="{_n(x(lo))}" y1="{_n(y)}" x2="{_n(x(hi))}" y2="{_n(y)}" '
            f'stroke="{colour}" stroke-width="2"/>'
            f'<circle cx="{_n(x(value))}" cy="{_n(y)}" r="4" fill="{colour}"/>'
            f'<text x="{label_w + plot_w + 6}" y="{_n(y + 4)}" fill="#333">{shown}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)


def histogram(values: Sequence[float], *, label: str, bins: int = 24, colour: str = _BLUE) -> str:
    """A small histogram with its axis range, for one distribution."""
    width, height, pad = 300, 130, 24
    if not values:
        return f'<p class="empty">{_e(label)}: no fights</p>'
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1
    counts = Counter(min(int((v - lo) / span * bins), bins - 1) for v in values)
    top = max(counts.values())
    bar_w = (width - 2 * pad) / bins
    out = [
        f'<svg class="chart histogram" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="11" data-label="{_e(label)}" '
        f'data-n="{len(values)}">',
        f'<text x="{pad}" y="12" font-weight="bold">{_e(label)}</text>',
    ]
    for b in range(bins):
        c = counts.get(b, 0)
        if c:
            h = (height - 2 * pad - 8) * c / top
            out.append(
                f'<rect x="{_n(pad + b * bar_w)}" y="{_n(height - pad - h)}" '
                f'width="{_n(bar_w - 1)}" height="{_n(h)}" fill="{colour}">'
                f"<title>{c}</title></rect>"
            )
    mean = statistics.fmean(values)
    out.append(
        f'<text x="{pad}" y="{height - 6}" fill="#555">{_n(lo)}</text>'
        f'<text x="{width - pad}" y="{height - 6}" fill="#555" text-anchor="end">{_n(hi)}</text>'
        f'<text x="{width / 2}" y="{height - 6}" fill="#555" text-anchor="middle">'
        f"mean {mean:.1f}, n {len(values)}</text></svg>"
    )
    return "".join(out)


def matrix(summary: Summary) -> str:
    """A tournament's round robin: the row's score against the column, as a heat map."""
    names = list(dict.fromkeys(p.a for p in summary.pairs))
    table = {(p.a, p.b): p for p in summary.pairs}
    cell_w, cell_h, left, top = 110, 40, 150, 40
    width, height = left + cell_w * len(names) + 10, top + cell_h * len(names) + 10
    out = [
        f'<svg class="chart matrix" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="11">'
    ]
    for j, b in enumerate(names):
        out.append(
            f'<text x="{left + j * cell_w + cell_w / 2}" y="{top - 8}" text-anchor="middle" '
            f'font-weight="bold">{_e(b[:16])}</text>'
        )
    for i, a in enumerate(names):
        y = top + i * cell_h
        out.append(
            f'<text x="{left - 8}" y="{y + cell_h / 2 + 4}" text-anchor="end" '
            f'font-weight="bold">{_e(a[:20])}</text>'
        )
        for j, b in enumerate(names):
            x = left + j * cell_w
            p = table.get((a, b))
            if p is None:
                out.append(
                    f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                    'fill="#f4f4f4"/>'
                )
                continue
            lo, hi = p.interval
            out.append(
                f'<g class="cell" data-row="{_e(a)}" data-column="{_e(b)}" '
                f'data-rate="{p.rate:.4f}" data-low="{lo:.4f}" data-high="{hi:.4f}">'
                f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{_heat(p.rate)}"><title>{_e(a)} against {_e(b)}: {p.wins} wins, '
                f"{p.losses} losses, {p.n} fights</title></rect>"
                f'<text x="{x + cell_w / 2}" y="{y + 16}" text-anchor="middle">{_pct(p.rate)}'
                f"</text>"
                f'<text x="{x + cell_w / 2}" y="{y + 31}" text-anchor="middle" fill="#333">'
                f"[{100 * lo:.0f}, {100 * hi:.0f}]</text></g>"
            )
    out.append("</svg>")
    return "".join(out)


def _heat(rate: float) -> str:
    """Red (0) through white (0.5) to blue (1)."""
    r0, g0, b0 = (0xE1, 0x57, 0x59) if rate < 0.5 else (0x4E, 0x79, 0xA7)
    k = abs(rate - 0.5) * 2
    mix = [round(255 + (c - 255) * k) for c in (r0, g0, b0)]
    return "#" + "".join(f"{c:02x}" for c in mix)


# ---------------------------------------------------------------- the report


def html_page(title: str, parts: Sequence[str], *, extra_style: str = "") -> str:
    """A whole report page: ``parts`` (HTML, one per line) under the reports' one style
    sheet (``extra_style``: rules of a report's own, set before the ``pre`` rule)."""
    style = (
        "body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1200px}"
        "h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;"
        f"padding:3px 8px;text-align:right}}th{{background:#f6f6f6}}{extra_style}"
        "pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        + "\n".join(parts)
        + "\n</body>\n</html>\n"
    )


def _versions() -> list[tuple[str, str]]:
    out = [("python", platform.python_version()), ("platform", platform.platform())]
    for dist in ("segsim", "simpy", "attrs", "structlog"):
        try:
            out.append((dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            out.append((dist, "not installed"))
    return out


def _outcome_table(results: Results) -> str:
    counts: Counter[tuple[str, str]] = Counter()
    for r in results.results:
        for kind, how, n in r.outcomes:
            counts[(kind, how)] += n
    if not counts:
        return "<p>No action resolved.</p>"
    kinds = sorted({k for k, _ in counts})
    hows = sorted({h for _, h in counts})
    head = "".join(f"<th>{_e(h)}</th>" for h in hows)
    rows = []
    for kind in kinds:
        total = sum(counts[(kind, h)] for h in hows)
        cells = "".join(
            f'<td data-kind="{_e(kind)}" data-how="{_e(h)}">'
            f"{_pct(counts[(kind, h)] / total) if counts[(kind, h)] else ''}</td>"
            for h in hows
        )
        rows.append(f"<tr><th>{_e(kind)}</th><td>{total}</td>{cells}</tr>")
    return (
        '<table class="outcomes"><tr><th>action</th><th>resolved</th>'
        f"{head}</tr>{''.join(rows)}</table>"
    )


def _damage_table(results: Results) -> str:
    arms = results.experiment.arms
    fighters = sorted({f for r in results.results for f, _ in r.dealt})
    if not fighters:
        return "<p>No damage dealt.</p>"
    head = "".join(f"<th>{_e(a.label)}</th>" for a in arms)
    rows = []
    for fighter in fighters:
        cells = []
        for arm in arms:
            ok = [r for r in results.arm_results(arm.label) if r.error is None]
            total = sum(dict(r.dealt).get(fighter, 0) for r in ok)
            cells.append(f"<td>{total / len(ok):.2f}</td>" if ok else "<td></td>")
        rows.append(f"<tr><th>{_e(fighter)}</th>{''.join(cells)}</tr>")
    return (
        f'<table class="damage"><tr><th>fighter (mean per fight)</th>{head}</tr>'
        f"{''.join(rows)}</table>"
    )


def pair_label(a: str, b: str) -> str:
    """How a pairing's score is named (never like an arm, whose figures are per side)."""
    return f"{a} against {b}, both sides"


def _policy_damage_table(summary: Summary) -> str:
    if not summary.damage:
        return "<p>No policy played.</p>"
    arms = summary.results.experiment.arms
    head = "".join(f"<th>{_e(a.label)}</th>" for a in arms)
    rows = []
    for d in summary.damage:
        per = {label: (dealt, taken) for label, dealt, taken in d.per_arm}
        cells = []
        for arm in arms:
            got = per.get(arm.label)
            if got is None:
                cells.append("<td></td>")
                continue
            dealt, taken = got
            cells.append(
                f"<td>{dealt:.2f}" + (f" / {taken:.2f}" if taken is not None else "") + "</td>"
            )
        total = f"{d.dealt:.2f}" + (f" / {d.taken:.2f}" if d.taken is not None else "")
        rows.append(
            f'<tr data-policy="{_e(d.policy)}"><th>{_e(d.policy)}</th><td>{d.fights}</td>'
            f"<td>{total}</td>{''.join(cells)}</tr>"
        )
    return (
        "<p>Per policy: the damage its fighters dealt / the damage its sides took, mean "
        "per fight (taken only where the policy plays whole sides).</p>"
        '<table class="policy-damage"><tr><th>policy</th><th>fights</th><th>all arms</th>'
        f"{head}</tr>{''.join(rows)}</table>"
        "<p>Per fighter: the damage dealt, mean per fight.</p>"
    )


def report_html(results: Results, *, command: str | None = None) -> str:
    """The report as one HTML document (the same results give the same bytes, apart
    from the versions and the command)."""
    summary = summarize(results)
    exp = results.experiment
    parts: list[str] = []
    w = parts.append
    title = f"segsim {exp.kind}: {exp.scenario.path}"
    w(f"<h1>{_e(title)}</h1>")
    w(
        f"<p>{results.fights} fights per arm, {len(exp.arms)} arm(s), master seed "
        f"{exp.seed}, chunk {exp.chunk}"
        + (f"; stopped: {_e(results.stopped)}" if results.stopped else "")
        + "</p>"
    )
    side_rows = [
        (
            f"[{arm.label}] side {s.side}" + (f" ({s.player})" if s.player else ""),
            s.rate,
            *s.interval,
        )
        for arm in summary.arms
        for s in arm.sides
    ]
    if summary.pairs:
        w('<section id="scores"><h2>Scores over both sides (95 % Wilson intervals)</h2>')
        rows = [(pair_label(p.a, p.b), p.rate, *p.interval) for p in summary.pairs]
        w(interval_chart(rows, reference=0.5, kind="scores"))
        w(
            "<p>A policy's score against another over both sides: the fights of the two "
            "arms where they meet (one on each side) together, a win 1, a draw half, a "
            "loss 0. The dashed line is 0.5: an even match.</p></section>"
        )
    w('<section id="rates"><h2>Win rates per side, arm by arm (95 % Wilson intervals)</h2>')
    w(interval_chart(side_rows, reference=0.5))
    labelled = (
        "by who plays each side"
        if summary.pairs
        else "by the policies it gives ([scenario]: the scenario's own)"
    )
    w(
        f"<p>Each arm is labelled {labelled}; a row is one side's share of that arm's "
        "fights, with the policy playing that side. The dashed line is 0.5: an even "
        "fight.</p></section>"
    )
    if summary.difference is not None:
        side, diff, (lo, hi) = summary.difference
        first, second = exp.arms
        w('<section id="difference"><h2>Paired difference (common random numbers)</h2>')
        w(
            interval_chart(
                [(f"side {side}: [{second.label}] against [{first.label}]", diff, lo, hi)],
                reference=0.0,
                low=-1.0,
                high=1.0,
                percent=False,
                kind="difference",
            )
        )
        w(
            f"<p>Side {_e(side)}'s win rate changes by {100 * diff:+.1f} points "
            f"(95 % CI [{100 * lo:+.1f}, {100 * hi:+.1f}]) with [{_e(second.label)}] "
            f"rather than [{_e(first.label)}], on the same fight seeds. The dashed line is "
            "no difference.</p></section>"
        )
    if summary.pairs:
        w('<section id="matrix"><h2>Round robin</h2>')
        w(
            "<p>The row's score against the column over both sides (a win 1, a draw half, "
            "a loss 0), not one side's win rate.</p>"
        )
        w(matrix(summary))
        w("</section>")
    w('<section id="lengths"><h2>Fight length (segments)</h2><div class="grid">')
    for arm in summary.arms:
        lengths = [r.segments for r in results.arm_results(arm.label) if r.error is None]
        w(histogram(lengths, label=arm.label))
    w("</div></section>")
    w('<section id="actions"><h2>How actions resolved</h2>')
    w(_outcome_table(results))
    w("</section>")
    w('<section id="damage"><h2>Damage per policy and per fighter</h2>')
    w(_policy_damage_table(summary))
    w(_damage_table(results))
    w('<div class="grid">')
    for each in exp.arms[:12]:
        ok = [r for r in results.arm_results(each.label) if r.error is None]
        for k, side in enumerate(results.sides):
            dealt = [sum(d for s, d in r.damage if s != side) for r in ok]
            w(
                histogram(
                    dealt,
                    label=f"[{each.label}] dealt by side {side}",
                    colour=(_BLUE, _RED, _GREY)[min(k, 2)],
                )
            )
    w("</div></section>")
    w('<section id="summary"><h2>Summary</h2>')
    w(f"<pre>{_e(summary.text())}</pre></section>")
    w('<section id="reproduce"><h2>Reproduce</h2>')
    if command:
        w(f'<p>Command:</p><pre class="command">{_e(command)}</pre>')
    w(
        f"<p>Master seed {exp.seed}; fight <i>i</i> has the seed <code>fight_seed({exp.seed}, "
        "i)</code> (BLAKE2b of both numbers), whatever the workers or the backend; "
        "<code>--rerun I --record OUT</code> writes any fight's record.</p>"
    )
    w('<table class="versions">')
    for name, version in _versions():
        w(f"<tr><th>{_e(name)}</th><td>{_e(version)}</td></tr>")
    w("</table></section>")
    return html_page(title, parts, extra_style=".grid{display:flex;flex-wrap:wrap;gap:8px}")


def write_report(results: Results, path: str | Path, *, command: str | None = None) -> None:
    """Write :func:`report_html` to ``path``."""
    page = report_html(results, command=command)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(page)


__all__ = ["histogram", "interval_chart", "matrix", "pair_label", "report_html", "write_report"]
