"""The timeline drawn as a standalone SVG document."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from xml.sax.saxutils import escape, quoteattr

from segsim.clock import to_seconds
from segsim.views.timeline import WAIT, Mark, Span, Timeline

_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
)
_LEFT = 140
_TOP = 56
_LANE = 30
_BAR = 16
_RESULT = 16
_GAP = 10
_RIGHT = 24


def _colours(tl: Timeline) -> dict[str, str]:
    """A colour per action kind, in order of first appearance (then by name's hash)."""
    kinds: dict[str, str] = {}
    for row in tl.rows:
        for span in sorted(row.spans, key=lambda s: (s.start, s.action)):
            if span.kind not in kinds:
                n = len(kinds)
                if n >= len(_PALETTE):
                    n = zlib.crc32(span.kind.encode("utf-8"))
                kinds[span.kind] = _PALETTE[n % len(_PALETTE)]
    return kinds


def _n(value: float) -> str:
    """Numbers for SVG attributes: short and the same on every machine."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _svg(tl: Timeline) -> str:
    segments = tl.end + 1
    px = max(4.0, min(24.0, 960.0 / segments))
    plot_w = segments * px
    width = _LEFT + plot_w + _RIGHT
    row_heights = [r.lanes * _LANE + _RESULT + _GAP for r in tl.rows]
    height = _TOP + sum(row_heights) + 30
    title = f"{tl.title}: {tl.outcome}" if tl.outcome else tl.title
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="sans-serif" font-size="11">',
        f"<title>{escape(title)}</title>",
        "<style>"
        ".grid{stroke:#ddd;stroke-width:1}.major{stroke:#999;stroke-width:1}"
        ".label{fill:#222}.axis{fill:#555;font-size:10px}"
        ".span rect{stroke:#333;stroke-width:.6}.wait rect{fill:#eee;stroke:#bbb;"
        "stroke-dasharray:2 2}.cancelled rect{stroke-dasharray:3 2;opacity:.55}"
        ".forced rect{opacity:.7}.outcome{font-size:9px;fill:#333}"
        ".incoming{fill:#c0392b}.out{stroke:#c0392b;stroke-width:2}"
        ".note{stroke:#888;stroke-width:1}.gone{fill:#f4f4f4}"
        "</style>",
        f'<text class="label" x="8" y="18" font-size="13" font-weight="bold">'
        f"{escape(title)}</text>",
    ]
    bottom = _TOP + sum(row_heights)
    colours = _colours(tl)
    # Axis: a line per segment when there is room, a major line and seconds every 10.
    out.append('<g class="x-axis">')
    out.append(f'<text class="axis" x="8" y="{_TOP - 22}">segment</text>')
    out.append(f'<text class="axis" x="8" y="{_TOP - 8}">seconds</text>')
    for s in range(segments + 1):
        x = _LEFT + s * px
        if s % 10 == 0:
            cls = "major"
        elif s % 5 == 0 or px >= 8:
            cls = "grid"
        else:
            continue
        out.append(f'<line class="{cls}" x1="{_n(x)}" y1="{_TOP - 4}" x2="{_n(x)}" y2="{bottom}"/>')
        if s % 5 == 0 and s < segments:
            out.append(f'<text class="axis" x="{_n(x + 1)}" y="{_TOP - 22}">{s}</text>')
        if s % 10 == 0:
            out.append(
                f'<text class="axis" x="{_n(x + 1)}" y="{_TOP - 8}">{to_seconds(s):.1f} s</text>'
            )
    out.append("</g>")
    y = float(_TOP)
    for row, h in zip(tl.rows, row_heights, strict=True):
        out.append(
            f'<g class="row" data-fighter={quoteattr(row.id)} transform="translate(0,{_n(y)})">'
        )
        out.append(f"<title>{escape(f'{row.name} ({row.id}), side {row.side}')}</title>")
        out.append(f'<text class="label" x="8" y="{_BAR}">{escape(row.id)}</text>')
        if row.side:
            out.append(
                f'<text class="axis" x="8" y="{_BAR + 13}">{escape(f"side {row.side}")}</text>'
            )
        if row.out_at is not None and row.out_at < segments - 1:
            x = _LEFT + (row.out_at + 1) * px
            out.append(
                f'<rect class="gone" x="{_n(x)}" y="0" width="{_n(_LEFT + plot_w - x)}" '
                f'height="{h - _GAP}"/>'
            )
        for span in sorted(row.spans, key=lambda s: (s.kind != WAIT, s.start, s.action)):
            out.extend(_svg_span(span, px, colours))
        for mark in row.marks:
            out.extend(_svg_mark(mark, px, row.lanes))
        out.append("</g>")
        y += h
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_span(span: Span, px: float, colours: Mapping[str, str]) -> list[str]:
    x = _LEFT + span.start * px
    w = (span.stop - span.start + 1) * px
    top = span.lane * _LANE + 3
    classes = ["span", f"kind-{_css(span.kind)}"]
    if span.kind == WAIT:
        classes.append("wait")
    if span.cancelled:
        classes.append("cancelled")
    if span.forced:
        classes.append("forced")
    fill = "" if span.kind == WAIT else f' fill="{colours[span.kind]}"'
    out = [
        f'<g class="{" ".join(classes)}" data-action="{span.action}">',
        f"<title>{escape(span.title())}</title>",
        f'<rect x="{_n(x)}" y="{top}" width="{_n(w)}" height="{_BAR}" rx="3"{fill}/>',
    ]
    if span.kind != WAIT and w >= 7 * len(span.kind) * 0.8:
        style = ' font-style="italic"' if span.forced else ""
        out.append(
            f'<text x="{_n(x + 3)}" y="{top + _BAR - 4}" fill="#fff"{style}>'
            f"{escape(span.kind)}</text>"
        )
    if span.outcome and span.kind != WAIT:
        end_x = x + w
        out.append(
            f'<path d="M{_n(end_x)} {top + 3} l4 5 l-4 5 l-4 -5 z" fill="#222" stroke="#fff"/>'
        )
        if len(span.outcome) * 5 <= w + 12:  # else the tooltip and the marker say it
            out.append(
                f'<text class="outcome" x="{_n(x + 1)}" y="{top + _BAR + 9}">'
                f"{escape(span.outcome)}</text>"
            )
    out.append("</g>")
    return out


def _svg_mark(mark: Mark, px: float, lanes: int) -> list[str]:
    x = _LEFT + (mark.t + 0.5) * px
    base = lanes * _LANE
    if mark.kind == "out":
        return [
            '<g class="out-mark">',
            f"<title>{escape(f'segment {mark.t}: {mark.detail}')}</title>",
            f'<path class="out" d="M{_n(x - 5)} 3 l10 10 m0 -10 l-10 10"/>',
            "</g>",
        ]
    if mark.kind == "note":
        return [
            '<g class="note-mark">',
            f"<title>{escape(f'segment {mark.t}: {mark.detail}')}</title>",
            f'<line class="note" x1="{_n(x)}" y1="{base - 1}" x2="{_n(x)}" y2="{base + 3}"/>',
            "</g>",
        ]
    return [
        '<g class="incoming-mark">',
        f"<title>{escape(f'segment {mark.t}: {mark.detail}')}</title>",
        f'<circle class="incoming" cx="{_n(x)}" cy="{base + 6}" r="3.5"/>',
        f'<text class="outcome" x="{_n(x + 5)}" y="{base + 10}">{escape(mark.label)}</text>',
        "</g>",
    ]


def _css(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)
