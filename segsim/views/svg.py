"""The timeline drawn as a standalone SVG document.

Conventions shared with the terminal view and the fight viewer: one fixed colour per
action kind of a ruleset (:mod:`segsim.views.style`), a legend that explains every
mark, an arrow from an action to its target's row, labels that never overlap (a label
that does not fit is shortened or dropped, and the tooltip keeps it), tooltips in the
account's words, and tracks of damage taken and situation points under each fighter.
Coarse rulesets are drawn at their own scale (rounds shaded and labelled); whatever the
fight's length, the drawing stays within a bounded width, and the work done is what is
drawn.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

import attrs

from segsim.clock import to_seconds
from segsim.views.account import clean
from segsim.views.style import dark_text, kind_colour, kind_order, text_width
from segsim.views.timeline import WAIT, Mark, Row, Span, Timeline

_LEFT = 150
_TOP = 74
_LANE = 26
_BAR = 16
_RESULT = 14
_TRACK = 12
_GAP = 8
_RIGHT = 24
_MAX_PLOT = 4800.0
"""The widest plot drawn, in px: longer fights get less than a pixel per segment."""
_LABEL = 11  # font sizes
_SMALL = 9
_AXIS = 10


def _n(value: float) -> str:
    """Numbers for SVG attributes: short and the same on every machine."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


@functools.lru_cache(maxsize=4096)
def _x(text: str) -> str:
    """Text content, with characters XML forbids replaced."""
    return escape(clean(text))


@functools.lru_cache(maxsize=4096)
def _q(text: str) -> str:
    """An attribute value, quoted, with characters XML forbids replaced."""
    return quoteattr(clean(text))


def scale_of(segments: int) -> float:
    """Pixels per segment: up to 24, at least 4 while the plot fits in
    :data:`_MAX_PLOT`, and less for very long fights."""
    segments = max(1, segments)
    return min(24.0, max(960.0 / segments, min(4.0, _MAX_PLOT / segments)))


def _step(px: float, room: float, unit: int = 1) -> int:
    """The smallest 1-2-5 multiple of ``unit`` segments whose width is at least ``room``."""
    power = 1
    while True:
        for base in (1, 2, 5):
            if unit * base * power * px >= room:
                return unit * base * power
        power *= 10


def _fit(text: str, room: float, size: float) -> str:
    """``text`` if it fits in ``room`` px, else its start with a full stop (at least two
    characters), else nothing."""
    if text_width(text, size) <= room:
        return text
    keep = int(room / (0.62 * size)) - 1
    return text[:keep] + "." if keep >= 2 else ""


@attrs.define
class _Line:
    """Labels on one line of text: each starts after the previous one ends."""

    size: float
    taken: float = -1e9

    def place(self, x: float, text: str, limit: float = 1e12) -> str:
        if x < self.taken + 3:
            return ""
        fitted = _fit(text, min(limit, 1e12) - x, self.size)
        if fitted:
            self.taken = x + text_width(fitted, self.size)
        return fitted


def _row_height(row: Row) -> int:
    return row.lanes * _LANE + _RESULT + _TRACK + _GAP


def _legend(tl: Timeline, kinds: list[str], width: float) -> list[tuple[float, float, str]]:
    """Legend items as (x, y offset, svg) laid out in lines that fit ``width``."""
    items: list[tuple[float, str]] = []
    for kind in kinds:
        colour = kind_colour(tl.ruleset, kind)
        label = _x(kind)
        items.append(
            (
                18 + text_width(kind, _AXIS),
                f'<rect x="0" y="-9" width="12" height="10" rx="2" fill="{colour}" '
                f'stroke="#333" stroke-width=".6"/><text class="axis" x="16" y="0">{label}</text>',
            )
        )
    symbols = [
        (
            '<rect x="0" y="-9" width="12" height="10" fill="#eee" stroke="#bbb" '
            'stroke-dasharray="2 2"/>',
            "waiting, or a turn or wait the rules impose (thin)",
        ),
        ('<rect x="0" y="-9" width="12" height="10" fill="#999" opacity=".6"/>', "forced"),
        (
            '<rect x="0" y="-9" width="12" height="10" fill="#999" stroke="#333" '
            'stroke-dasharray="3 2" opacity=".55"/>',
            "cancelled",
        ),
        ('<path d="M6 -10 l4 5 l-4 5 l-4 -5 z" fill="#222"/>', "resolved (how: below)"),
        ('<circle cx="6" cy="-4" r="3.5" fill="#c0392b"/>', "hit by an opponent's action"),
        ('<path d="M1 -9 l10 10 m0 -10 l-10 10" stroke="#c0392b" stroke-width="2"/>', "out"),
        (
            '<line x1="0" y1="-4" x2="10" y2="-4" stroke="#555" marker-end="url(#aim)"/>',
            "aimed at (to the target's row)",
        ),
        ('<line x1="0" y1="-4" x2="12" y2="-4" stroke="#c0392b" stroke-width="1.5"/>', "damage"),
        (
            '<line x1="0" y1="-4" x2="12" y2="-4" stroke="#2c7fb8" stroke-width="1.5"/>',
            "situation points",
        ),
    ]
    for shape, label in symbols:
        items.append(
            (
                18 + text_width(label, _AXIS),
                f'{shape}<text class="axis" x="16" y="0">{escape(label)}</text>',
            )
        )
    out: list[tuple[float, float, str]] = []
    x, y = 8.0, 0.0
    for w, svg in items:
        if x + w > width - 8 and x > 8:
            x, y = 8.0, y + 16
        out.append((x, y, svg))
        x += w + 14
    return out


def _svg(tl: Timeline) -> str:
    segments = tl.end + 1
    px = scale_of(segments)
    plot_w = segments * px
    width = max(_LEFT + plot_w + _RIGHT, 720.0)
    kinds = kind_order(tl.ruleset, {s.kind for r in tl.rows for s in r.spans if not s.faint})
    legend = _legend(tl, kinds, width)
    rows_h = sum(_row_height(r) for r in tl.rows)
    bottom = _TOP + rows_h
    legend_h = (legend[-1][1] + 16 if legend else 0) + 24
    height = bottom + legend_h
    title = f"{tl.title}: {tl.outcome}" if tl.outcome else tl.title
    scale_note = f"{tl.ruleset}, tick {tl.tick} segments" if tl.tick > 1 else tl.ruleset
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="sans-serif" font-size="11">',
        f"<title>{_x(title)}</title>",
        "<style>"
        ".grid{stroke:#e4e4e4;stroke-width:1}.major{stroke:#999;stroke-width:1}"
        ".label{fill:#222}.axis{fill:#555;font-size:10px}.round{fill:#f3f0fa}"
        ".span rect{stroke:#333;stroke-width:.6}.wait rect{stroke:#bbb;"
        "stroke-dasharray:2 2}.cancelled rect{stroke-dasharray:3 2;opacity:.55}"
        ".forced rect{opacity:.7}.outcome{font-size:9px;fill:#333}.hit{font-size:9px;"
        "fill:#c0392b}.incoming{fill:#c0392b}.out{stroke:#c0392b;stroke-width:2}"
        ".note{stroke:#888;stroke-width:1}.gone{fill:#f4f4f4}"
        ".aim{stroke-width:1;opacity:.45;fill:none}.damage{stroke:#c0392b;fill:none;"
        "stroke-width:1.5}.ps{stroke:#2c7fb8;fill:none;stroke-width:1.5}"
        "</style>",
        '<defs><marker id="aim" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" '
        'markerHeight="6" orient="auto-start-reverse"><path d="M0 0 L6 3 L0 6 z" '
        'fill="#555"/></marker></defs>',
        f'<text class="label" x="8" y="18" font-size="13" font-weight="bold">{_x(title)}</text>',
    ]
    out.extend(_axis(tl, segments, px, bottom))
    ys: dict[str, tuple[float, Row]] = {}
    y = float(_TOP)
    for row in tl.rows:
        ys[row.id] = (y, row)
        y += _row_height(row)
    peak_damage = max([d for r in tl.rows for _, d in r.damage] + [1])
    peak_ps = max([abs(p) for r in tl.rows for _, p in r.ps] + [1])
    for row in tl.rows:
        top, _ = ys[row.id]
        out.extend(_row(tl, row, top, px, segments, peak_damage, peak_ps))
    out.append('<g class="targets">')
    for row in tl.rows:
        top, _ = ys[row.id]
        aimed: set[tuple[int, str | None]] = set()
        for span in _visible(row, px):
            key = (int((span.stop + 0.5) * px), span.target)
            if key not in aimed:  # one arrow per pixel column and target
                aimed.add(key)
                out.extend(_aim(tl, span, top, ys.get(span.target or ""), px, row))
    out.append("</g>")
    out.append(f'<g class="legend" transform="translate(0,{_n(bottom + 26)})">')
    for x, dy, item in legend:
        out.append(f'<g transform="translate({_n(x)},{_n(dy)})">{item}</g>')
    out.append("</g>")
    out.append(f"<desc>{_x(scale_note)}</desc>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _axis(tl: Timeline, segments: int, px: float, bottom: float) -> Iterable[str]:
    """Grid lines and labels thinned to what fits; rounds shaded for coarse rulesets."""
    yield '<g class="x-axis">'
    yield '<text class="axis" x="8" y="50">segment</text>'
    yield '<text class="axis" x="8" y="64">seconds</text>'
    rounds = [(t, label) for t, label in tl.rounds if t < segments]
    if rounds:
        yield '<text class="axis" x="8" y="36">round</text>'
        line = _Line(_AXIS)
        for i, (t, label) in enumerate(rounds):
            x = _LEFT + t * px
            stop = rounds[i + 1][0] if i + 1 < len(rounds) else segments
            if i % 2 == 0:
                yield (
                    f'<rect class="round" x="{_n(x)}" y="{_TOP}" '
                    f'width="{_n((stop - t) * px)}" height="{_n(bottom - _TOP)}"/>'
                )
            yield f'<line class="major" x1="{_n(x)}" y1="28" x2="{_n(x)}" y2="{_n(bottom)}"/>'
            text = line.place(x + 2, label.removeprefix("round ") if px * 100 < 60 else label)
            if text:
                yield f'<text class="axis" x="{_n(x + 2)}" y="36">{_x(text)}</text>'
    label_w = text_width(f"{segments}", _AXIS) + 8
    seconds_w = text_width(f"{to_seconds(segments):.1f} s", _AXIS) + 8
    unit = tl.tick if tl.tick > 1 and tl.tick * px >= label_w else 1
    major = _step(px, max(label_w, seconds_w), unit)
    # A coarse ruleset: a line per cell (its turn, phase or round), else per tenth of a tick.
    minor = _step(px, 6.0, tl.cell if tl.cell > 1 else max(1, tl.tick // 10))
    if minor < major and major % minor == 0:
        for s in range(0, segments + 1, minor):
            if s % major:
                x = _LEFT + s * px
                yield (
                    f'<line class="grid" x1="{_n(x)}" y1="{_TOP}" x2="{_n(x)}" y2="{_n(bottom)}"/>'
                )
    for s in range(0, segments + 1, major):
        x = _LEFT + s * px
        yield f'<line class="major" x1="{_n(x)}" y1="{_TOP - 4}" x2="{_n(x)}" y2="{_n(bottom)}"/>'
        if s < segments or s == 0:
            yield f'<text class="axis" x="{_n(x + 2)}" y="50">{s}</text>'
            yield f'<text class="axis" x="{_n(x + 2)}" y="64">{to_seconds(s):.1f} s</text>'
    yield "</g>"


def _track(points: list[tuple[int, int]], top: float, peak: int, px: float, end: int) -> str:
    """A step line of a value over the fight, 0 at the bottom of the track."""
    if not points:
        return ""
    base = top + _TRACK - 2
    h = _TRACK - 4
    coords = [f"{_n(_LEFT)},{_n(base)}"]
    value = 0.0
    for t, v in points:
        x = _LEFT + t * px
        coords.append(f"{_n(x)},{_n(base - value)}")
        value = h * v / peak
        coords.append(f"{_n(x)},{_n(base - value)}")
    coords.append(f"{_n(_LEFT + (end + 1) * px)},{_n(base - value)}")
    return " ".join(coords)


def _row(
    tl: Timeline, row: Row, top: float, px: float, segments: int, peak_damage: int, peak_ps: int
) -> Iterable[str]:
    h = _row_height(row)
    yield f'<g class="row" data-fighter={_q(row.id)}>'
    yield f"<title>{_x(f'{row.name} ({row.id}), side {row.side}')}</title>"
    name = _fit(row.id, _LEFT - 16, _LABEL)
    yield f'<text class="label" x="8" y="{_n(top + _BAR)}">{_x(name)}</text>'
    if row.side and row.lanes * _LANE >= _BAR + 14:
        side = _fit(f"side {row.side}", _LEFT - 16, _AXIS)
        yield f'<text class="axis" x="8" y="{_n(top + _BAR + 13)}">{_x(side)}</text>'
    if row.out_at is not None and row.out_at < segments - 1:
        x = _LEFT + (row.out_at + 1) * px
        yield (
            f'<rect class="gone" x="{_n(x)}" y="{_n(top)}" width="{_n(_LEFT + segments * px - x)}" '
            f'height="{h - _GAP}"/>'
        )
    for span in _visible(row, px):
        yield from _span(tl, span, top, px)
    # One line of labels under the lanes: how this fighter's actions resolved (dark) and
    # what opponents' actions did to it (red), left to right, never overlapping.
    base = top + row.lanes * _LANE
    labels: list[tuple[float, int, str, str, str]] = []
    for span in row.spans:
        if span.outcome and not span.faint:
            x = _LEFT + span.first * px
            labels.append((x, 1, span.outcome, "outcome", span.title()))
    for mark in row.marks:
        x = _LEFT + (mark.t + 0.5) * px
        yield from _mark(mark, x, top, base)
        if mark.kind == "incoming":
            labels.append((x + 5, 0, mark.label, "hit", f"segment {mark.t}: {mark.detail}"))
    line = _Line(_SMALL)
    for x, _, text, cls, tip in sorted(labels, key=lambda item: (item[0], item[1])):
        shown = line.place(x, text)
        if shown:
            yield (
                f'<text class="{cls}" x="{_n(x)}" y="{_n(base + 9)}"><title>{_x(tip)}</title>'
                f"{_x(shown)}</text>"
            )
    track_top = base + _RESULT
    damage = _track(row.damage, track_top, peak_damage, px, tl.end)
    if damage:
        tip = _x(f"{row.id}: damage taken, {row.damage[-1][1]} by the end")
        yield (f'<polyline class="damage" points="{damage}"><title>{tip}</title></polyline>')
    ps = _track([(t, abs(v)) for t, v in row.ps], track_top, peak_ps, px, tl.end)
    if ps:
        values = ", ".join(f"{v} at {t}" for t, v in row.ps[-8:])
        tip = _x(f"{row.id}: situation points (last: {values})")
        yield (f'<polyline class="ps" points="{ps}"><title>{tip}</title></polyline>')
    yield "</g>"


def _visible(row: Row, px: float) -> list[Span]:
    """The spans worth drawing, waits first: in each lane, a span whose pixel is already
    taken by an earlier one adds nothing to the picture (its tooltip is the earlier
    one's neighbour), so a lane never draws more bars than it has pixels."""
    out = []
    taken: dict[int, int] = {}  # lane: the last pixel column drawn
    for span in sorted(row.spans, key=lambda s: (not s.faint, s.lane, s.first, s.action)):
        lane = span.lane * 2 + (not span.faint)
        last_px = int((span.final + 1) * px)
        if last_px <= taken.get(lane, -1):
            continue
        taken[lane] = last_px
        out.append(span)
    return out


def _span(tl: Timeline, span: Span, row_top: float, px: float) -> list[str]:
    x = _LEFT + span.first * px
    w = max((span.final - span.first + 1) * px, 1.0)
    top = row_top + span.lane * _LANE + 3
    classes = ["span", f"kind-{_css(span.kind)}"]
    if span.faint:  # a wait, or the rules' own turn or wait: faint and thin
        classes.append("wait")
        colour = kind_colour(tl.ruleset, WAIT)
        return [
            f'<g class="{" ".join(classes)}" data-action="{span.action}" '
            f'data-start="{span.start}" data-stop="{span.stop}">',
            f"<title>{_x(span.title())}</title>",
            f'<rect x="{_n(x)}" y="{_n(top + _BAR / 2 - 2)}" width="{_n(w)}" height="4" '
            f'fill="{colour}"/>',
            "</g>",
        ]
    if span.cancelled:
        classes.append("cancelled")
    if span.forced:
        classes.append("forced")
    colour = kind_colour(tl.ruleset, span.kind)
    out = [
        f'<g class="{" ".join(classes)}" data-action="{span.action}" '
        f'data-start="{span.start}" data-stop="{span.stop}">',
        f"<title>{_x(span.title())}</title>",
        f'<rect x="{_n(x)}" y="{_n(top)}" width="{_n(w)}" height="{_BAR}" rx="3" fill="{colour}"/>',
    ]
    if span.kind != WAIT:
        label = _fit(span.kind, w - 6, _LABEL)
        if label:
            ink = "#222" if dark_text(colour) else "#fff"
            style = ' font-style="italic"' if span.forced else ""
            out.append(
                f'<text x="{_n(x + 3)}" y="{_n(top + _BAR - 4)}" fill="{ink}"{style}>'
                f"{_x(label)}</text>"
            )
        if span.outcome:
            end_x = x + w
            out.append(
                f'<path d="M{_n(end_x)} {_n(top + 3)} l4 5 l-4 5 l-4 -5 z" fill="#222" '
                'stroke="#fff"/>'
            )
    out.append("</g>")
    return out


def _aim(
    tl: Timeline,
    span: Span,
    row_top: float,
    target: tuple[float, Row] | None,
    px: float,
    row: Row,
) -> list[str]:
    """An arrow from an action to its target's row."""
    if target is None or span.faint or span.cancelled or target[1] is row:
        return []
    target_top, target_row = target
    x = _LEFT + (span.stop + 0.5) * px
    y1 = row_top + span.lane * _LANE + 3 + _BAR / 2
    below = target_top > row_top
    y2 = target_top + 2 if below else target_top + target_row.lanes * _LANE + 2
    colour = kind_colour(tl.ruleset, span.kind)
    return [
        f'<line class="aim" x1="{_n(x)}" y1="{_n(y1)}" x2="{_n(x)}" y2="{_n(y2)}" '
        f'stroke="{colour}" marker-end="url(#aim)" data-from={_q(row.id)} '
        f"data-to={_q(target_row.id)}/>"
    ]


def _mark(mark: Mark, x: float, top: float, base: float) -> list[str]:
    tip = f"<title>{_x(f'segment {mark.t}: {mark.detail}')}</title>"
    if mark.kind == "out":
        return [
            f'<g class="out-mark">{tip}',
            f'<path class="out" d="M{_n(x - 5)} {_n(top + 3)} l10 10 m0 -10 l-10 10"/>',
            "</g>",
        ]
    if mark.kind == "note":
        return [
            f'<g class="note-mark">{tip}',
            f'<line class="note" x1="{_n(x)}" y1="{_n(base - 1)}" x2="{_n(x)}" '
            f'y2="{_n(base + 3)}"/>',
            "</g>",
        ]
    return [
        f'<g class="incoming-mark">{tip}',
        f'<circle class="incoming" cx="{_n(x)}" cy="{_n(base + 5)}" r="3.5"/>',
        "</g>",
    ]


def _css(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)


def colours(tl: Timeline) -> Mapping[str, str]:
    """The colour of every action kind drawn in a timeline (fixed per ruleset)."""
    return {s.kind: kind_colour(tl.ruleset, s.kind) for r in tl.rows for s in r.spans}


__all__ = ["colours", "scale_of"]
