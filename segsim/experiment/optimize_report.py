"""What ``segsim optimize`` prints and its HTML report: the search's progress, the best
candidates against the starting policy on fresh seeds (paired 95 % intervals), and each
parameter's importance. One self-contained file, no script, no network."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from segsim.experiment.optimize import METRICS, Optimization
from segsim.experiment.reports import _e, _n, _versions, html_page, interval_chart
from segsim.scriptline import toml_value


def _params(params: Any) -> str:
    return ", ".join(f"{k} = {toml_value(v)}" for k, v in params)


def _value(result: Optimization, v: float) -> str:
    return f"{100 * v:.1f} %" if result.metric == "win" else f"{v:.2f}"


def _diff(result: Optimization, v: float) -> str:
    return f"{100 * v:+.1f} pts" if result.metric == "win" else f"{v:+.2f}"


def render_optimization(result: Optimization) -> str:
    """The terminal summary (the same search gives the same bytes)."""
    out = io.StringIO()
    w = out.write
    direction, what = METRICS[result.metric]
    w(
        f"optimize: {result.path} as {result.who} (side {result.side}) on "
        f"{result.scenario.path}, {direction} the {what}\n"
    )
    w(
        f"{len(result.trials)} candidates (Optuna TPE, seed {result.seed}), "
        f"{result.fights} training fights each on the same seeds; the best against the "
        f"start on {result.eval_fights} fresh seeds (master seed {result.held_out})\n"
    )
    w(f"start: {_params(result.start)}\n")
    w(
        f"  fresh seeds: {_value(result, result.start_value)} "
        f"[{_value(result, result.start_interval[0])}, "
        f"{_value(result, result.start_interval[1])}]\n"
    )
    for c in result.comparisons:
        lo, hi = c.diff_interval
        verdict = (
            "better"
            if (lo > 0 if direction == "maximize" else hi < 0)
            else "worse"
            if (hi < 0 if direction == "maximize" else lo > 0)
            else "no clear difference"
        )
        w(f"{c.label}: {_params(c.params)}\n")
        w(
            f"  training {_value(result, c.train)}; fresh seeds {_value(result, c.value)} "
            f"[{_value(result, c.interval[0])}, {_value(result, c.interval[1])}]; against "
            f"the start {_diff(result, c.difference)}, paired 95% CI [{_diff(result, lo)}, "
            f"{_diff(result, hi)}]: {verdict}\n"
        )
    w("importance (PED-ANOVA; share of the score's variance the parameter alone explains):\n")
    for name, ped, eta in result.importance:
        shown = "n/a (fewer than 10 candidates)" if ped is None else f"{ped:.2f}"
        w(f"  {name:<20} {shown:>8}  {eta:.2f}\n")
    return out.getvalue()


def progress_chart(result: Optimization) -> str:
    """Each candidate's training score (points) and the best so far (a step line)."""
    trials = result.trials
    values = [t.value for t in trials] + [result.start_value]
    lo, hi = min(values), max(values)
    if result.metric == "win":
        lo, hi = 0.0, 1.0
    span = (hi - lo) or 1.0
    left, top, plot_w, plot_h = 60, 16, 600, 240
    width, height = left + plot_w + 20, top + plot_h + 40
    n = max(len(trials), 2)

    def px(i: int) -> float:
        return left + plot_w * i / (n - 1)

    def py(v: float) -> float:
        return top + plot_h * (1 - (v - lo) / span)

    out = [
        f'<svg class="chart progress" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="12">'
    ]
    for k in range(5):
        v = lo + span * k / 4
        out.append(
            f'<line x1="{left}" y1="{_n(py(v))}" x2="{left + plot_w}" y2="{_n(py(v))}" '
            f'stroke="#eee"/><text x="{left - 6}" y="{_n(py(v) + 4)}" text-anchor="end" '
            f'fill="#555">{_e(_value(result, v))}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">candidate '
        f"(in the order tried)</text>"
    )
    best: float | None = None
    steps = []
    maximize = result.direction == "maximize"
    for i, t in enumerate(trials):
        if best is None or (t.value > best if maximize else t.value < best):
            best = t.value
        steps.append(f"{_n(px(i))},{_n(py(best))}")
        out.append(
            f'<circle class="trial" cx="{_n(px(i))}" cy="{_n(py(t.value))}" r="3" '
            f'fill="#4e79a7" data-value="{t.value:.4f}"><title>candidate {t.number}: '
            f"{_e(_params(t.params))}: {_e(_value(result, t.value))}</title></circle>"
        )
    out.append(
        f'<polyline class="best" points="{" ".join(steps)}" fill="none" stroke="#e15759" '
        'stroke-width="2"/></svg>'
    )
    return "".join(out)


def importance_chart(result: Optimization) -> str:
    rows = result.importance
    label_w, bar_w, row_h = 180, 300, 22
    width, height = label_w + 2 * bar_w + 60, 30 + row_h * len(rows)
    out = [
        f'<svg class="chart importance" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="12">'
        f'<text x="{label_w}" y="14" fill="#555">PED-ANOVA</text>'
        f'<text x="{label_w + bar_w + 30}" y="14" fill="#555">variance explained</text>'
    ]
    for i, (name, ped, eta) in enumerate(rows):
        y = 24 + i * row_h
        shown = "" if ped is None else f"{ped:.4f}"
        out.append(
            f'<g class="parameter" data-name="{_e(name)}" data-ped="{shown}" '
            f'data-eta="{eta:.4f}"><text x="{label_w - 8}" y="{y + 13}" text-anchor="end">'
            f"{_e(name)}</text>"
        )
        if ped is not None:
            out.append(
                f'<rect x="{label_w}" y="{y + 2}" width="{_n(max(1.0, bar_w * ped))}" '
                f'height="{row_h - 6}" fill="#4e79a7"/>'
            )
        out.append(
            f'<rect x="{label_w + bar_w + 30}" y="{y + 2}" width="{_n(max(1.0, bar_w * eta))}" '
            f'height="{row_h - 6}" fill="#59a14f"/></g>'
        )
    out.append("</svg>")
    return "".join(out)


def optimization_html(result: Optimization, *, command: str | None = None) -> str:
    title = f"segsim optimize: {result.path} on {result.scenario.path}"
    parts = [f"<h1>{_e(title)}</h1>"]
    w = parts.append
    direction, what = METRICS[result.metric]
    w(
        f"<p>{_e(result.who)} (side {_e(result.side)}) plays the rule list; Optuna's TPE "
        f"sampler (seed {result.seed}) tried {len(result.trials)} candidates to {direction} "
        f"the {_e(what)}, each on the same {result.fights} training fights. The best were "
        f"then played with the starting parameters on {result.eval_fights} fresh seeds "
        f"(master seed {result.held_out}), never used in the search.</p>"
    )
    w('<section id="progress"><h2>Progress of the search (training fights)</h2>')
    w(progress_chart(result))
    w("<p>Points: each candidate's score; line: the best so far.</p></section>")
    w('<section id="best"><h2>Best candidates against the start, on fresh seeds</h2>')
    diffs = [c.difference for c in result.comparisons]
    bounds = [b for c in result.comparisons for b in c.diff_interval] + diffs
    reach = max(abs(b) for b in bounds) or 1.0
    if result.metric == "win":
        reach = min(1.0, max(0.1, reach * 1.2))
    rows = [(c.label, c.difference, *c.diff_interval) for c in result.comparisons]
    w(
        interval_chart(
            rows,
            reference=0.0,
            low=-reach,
            high=reach,
            percent=False,
            kind="difference",
            fmt=lambda v: _diff(result, v),
        )
    )
    w(
        '<table class="candidates"><tr><th>candidate</th><th>parameters</th><th>training'
        "</th><th>fresh seeds</th><th>against the start (paired 95 % CI)</th></tr>"
    )
    w(
        f'<tr><th>start</th><td style="text-align:left">{_e(_params(result.start))}</td>'
        f"<td></td><td>{_e(_value(result, result.start_value))}</td><td></td></tr>"
    )
    for c in result.comparisons:
        lo, hi = c.diff_interval
        w(
            f'<tr data-label="{_e(c.label)}"><th>{_e(c.label)}</th>'
            f'<td style="text-align:left">{_e(_params(c.params))}</td>'
            f"<td>{_e(_value(result, c.train))}</td><td>{_e(_value(result, c.value))}</td>"
            f"<td>{_e(_diff(result, c.difference))} [{_e(_diff(result, lo))}, "
            f"{_e(_diff(result, hi))}]</td></tr>"
        )
    w("</table><p>The dashed line is no difference from the starting parameters.</p>")
    w("</section>")
    w('<section id="importance"><h2>Importance of each parameter</h2>')
    w(importance_chart(result))
    w(
        "<p>PED-ANOVA (Optuna): how much the parameter decides whether a candidate lands "
        "among the best tenth (needs 10 candidates). Variance explained: the share of the "
        "candidates' score variance the parameter alone explains (numbers cut into "
        "quartiles).</p></section>"
    )
    w('<section id="summary"><h2>Summary</h2>')
    w(f"<pre>{_e(result.text())}</pre></section>")
    w('<section id="reproduce"><h2>Reproduce</h2>')
    if command:
        w(f'<p>Command:</p><pre class="command">{_e(command)}</pre>')
    w(
        f"<p>Training fight <i>i</i> has the seed <code>fight_seed({result.seed}, i)</code>; "
        f"fresh fight <i>i</i> <code>fight_seed({result.held_out}, i)</code>.</p>"
        '<table class="versions">'
    )
    for name, version in _versions():
        w(f"<tr><th>{_e(name)}</th><td>{_e(version)}</td></tr>")
    w("</table></section>")
    return html_page(title, parts)


def write_optimization_report(
    result: Optimization, path: str | Path, *, command: str | None = None
) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(optimization_html(result, command=command))


__all__ = [
    "importance_chart",
    "optimization_html",
    "progress_chart",
    "render_optimization",
    "write_optimization_report",
]
