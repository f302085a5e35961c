"""The HTML report of a balance run: the matrix as a heat map with intervals, the win
rate against a numeric variable with its band and its crossing of 50 %, and what
reproduces it. One self-contained file, no script, no network."""

from __future__ import annotations

from pathlib import Path

from segsim.experiment.balance import Balance, crossing_text, grid, shown
from segsim.experiment.reports import _e, _heat, _n, _pct, _versions, html_page

_COLOURS = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#9c755f")


def heat_matrix(result: Balance) -> str:
    """Rows: the first variable's values; columns: the others' combinations."""
    rows, cols, cells = grid(result)
    cell_w, cell_h, left, top = 130, 40, 170, 44
    width = left + cell_w * len(cols) + 10
    height = top + cell_h * len(rows) + 10
    out = [
        f'<svg class="chart balance-matrix" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{height}" font-family="sans-serif" font-size="11">'
    ]
    across = ", ".join(v.name for v in result.variables[1:]) or f"side {result.side}"
    out.append(
        f'<text x="{left - 8}" y="{top - 10}" text-anchor="end" fill="#555">'
        f"{_e(result.variables[0].name[:24])} \u2193</text>"
        f'<text x="{left}" y="12" fill="#555">{_e(across[:60])} \u2192</text>'
    )
    for j, col in enumerate(cols):
        out.append(
            f'<text x="{left + j * cell_w + cell_w / 2}" y="{top - 10}" text-anchor="middle" '
            f'font-weight="bold">{_e(col[:20])}</text>'
        )
    for i, (label, line) in enumerate(zip(rows, cells, strict=True)):
        y = top + i * cell_h
        out.append(
            f'<text x="{left - 8}" y="{y + cell_h / 2 + 4}" text-anchor="end" '
            f'font-weight="bold">{_e(label[:24])}</text>'
        )
        for j, cell in enumerate(line):
            x = left + j * cell_w
            lo, hi = cell.interval
            setting = ", ".join(f"{n}={shown(v)}" for n, v in cell.setting)
            out.append(
                f'<g class="cell" data-setting="{_e(setting)}" data-rate="{cell.rate:.4f}" '
                f'data-low="{lo:.4f}" data-high="{hi:.4f}" data-fights="{cell.n}">'
                f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{_heat(cell.rate)}"><title>{_e(setting)}: side {_e(result.side)} '
                f"wins {cell.wins} of {cell.n}</title></rect>"
                f'<text x="{x + cell_w / 2}" y="{y + 16}" text-anchor="middle">'
                f"{_pct(cell.rate)}</text>"
                f'<text x="{x + cell_w / 2}" y="{y + 31}" text-anchor="middle" fill="#333">'
                f"[{100 * lo:.0f}, {100 * hi:.0f}]</text></g>"
            )
    out.append("</svg>")
    return "".join(out)


def rate_curve(result: Balance) -> str:
    """The win rate against the numeric variable: a line per combination of the others,
    its 95 % band, the 50 % line and where each line crosses it."""
    x_var = result.numeric
    if x_var is None:
        return ""
    crossings = result.crossings()
    xs = [float(v) for v in x_var.values]
    lo_x, hi_x = min(xs), max(xs)
    span = (hi_x - lo_x) or 1.0
    left, top, plot_w, plot_h = 60, 20, 560, 300
    width, height = left + plot_w + 220, top + plot_h + 50

    def px(v: float) -> float:
        return left + plot_w * (v - lo_x) / span

    def py(r: float) -> float:
        return top + plot_h * (1 - r)

    out = [
        f'<svg class="chart balance-curve" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{height}" font-family="sans-serif" font-size="12">'
    ]
    for k in range(5):
        r = k / 4
        out.append(
            f'<line x1="{left}" y1="{_n(py(r))}" x2="{left + plot_w}" y2="{_n(py(r))}" '
            f'stroke="#eee"/><text x="{left - 6}" y="{_n(py(r) + 4)}" text-anchor="end" '
            f'fill="#555">{100 * r:.0f}%</text>'
        )
    for v in xs:
        out.append(
            f'<text x="{_n(px(v))}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'fill="#555">{_n(v)}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2}" y="{top + plot_h + 36}" text-anchor="middle">'
        f"{_e(x_var.name)}</text>"
    )
    out.append(
        f'<line class="reference" x1="{left}" y1="{_n(py(0.5))}" x2="{left + plot_w}" '
        f'y2="{_n(py(0.5))}" stroke="#333" stroke-dasharray="4 3"/>'
    )
    for k, crossing in enumerate(crossings):
        colour = _COLOURS[k % len(_COLOURS)]
        line = [result.cell({**dict(crossing.fixed), x_var.name: v}) for v in x_var.values]
        upper = [(px(x), py(c.interval[1])) for x, c in zip(xs, line, strict=True)]
        lower = [(px(x), py(c.interval[0])) for x, c in zip(xs, line, strict=True)]
        band = " ".join(f"{_n(a)},{_n(b)}" for a, b in upper + lower[::-1])
        points = " ".join(f"{_n(px(x))},{_n(py(c.rate))}" for x, c in zip(xs, line, strict=True))
        label = ", ".join(f"{n}={shown(v)}" for n, v in crossing.fixed) or f"side {result.side}"
        at = "" if crossing.at is None else f"{crossing.at:.6g}"
        out.append(
            f'<g class="line" data-label="{_e(label)}" data-crossing="{at}" '
            f'data-slope="{crossing.slope:.6f}">'
            f'<polygon class="band" points="{band}" fill="{colour}" fill-opacity="0.15"/>'
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        for x, c in zip(xs, line, strict=True):
            out.append(
                f'<circle cx="{_n(px(x))}" cy="{_n(py(c.rate))}" r="3" fill="{colour}">'
                f"<title>{_e(x_var.name)} = {_n(x)}: {_pct(c.rate)}</title></circle>"
            )
        if crossing.at is not None:
            out.append(
                f'<line class="crossing" x1="{_n(px(crossing.at))}" y1="{top}" '
                f'x2="{_n(px(crossing.at))}" y2="{top + plot_h}" stroke="{colour}" '
                'stroke-dasharray="2 3"/>'
            )
        out.append(
            f'<text x="{left + plot_w + 12}" y="{top + 14 + 18 * k}" fill="{colour}">'
            f"{_e(label[:30])}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)


def balance_html(result: Balance, *, command: str | None = None) -> str:
    title = f"segsim balance: {result.scenario.path}"
    parts = [f"<h1>{_e(title)}</h1>"]
    w = parts.append
    names = ", ".join(
        f"{v.name} ({', '.join(shown(x) for x in v.values)})" for v in result.variables
    )
    w(
        f"<p>{len(result.cells)} combination(s) of {_e(names)}; {result.fights} fights each, "
        f"every combination on the same fight seeds (master seed {result.seed}). The figure "
        f"is side {_e(result.side)}'s win rate with its 95 % Wilson interval.</p>"
    )
    w('<section id="matrix"><h2>Win rates</h2>')
    w(heat_matrix(result))
    w("</section>")
    curve = rate_curve(result)
    if curve:
        w('<section id="curve"><h2>Win rate against a number</h2>')
        w(curve)
        w("<ul>")
        for crossing in result.crossings():
            w(f"<li>{_e(crossing_text(result, crossing))}</li>")
        w("</ul><p>The band is each point's 95 % interval; the dashed line is 50 %.</p>")
        w("</section>")
    w('<section id="summary"><h2>Summary</h2>')
    w(f"<pre>{_e(result.text())}</pre></section>")
    w('<section id="reproduce"><h2>Reproduce</h2>')
    if command:
        w(f'<p>Command:</p><pre class="command">{_e(command)}</pre>')
    w(
        f"<p>Fight <i>i</i> of every combination has the seed <code>fight_seed("
        f'{result.seed}, i)</code>.</p><table class="versions">'
    )
    for name, version in _versions():
        w(f"<tr><th>{_e(name)}</th><td>{_e(version)}</td></tr>")
    w("</table></section>")
    return html_page(title, parts)


def write_balance_report(result: Balance, path: str | Path, *, command: str | None = None) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(balance_html(result, command=command))


__all__ = ["balance_html", "heat_matrix", "rate_curve", "write_balance_report"]
