"""Timeline views of a fight: one row per combatant, actions as labelled spans over segments.

A :class:`TimelineBuilder` is a record visitor, so a timeline comes the same way from a
record file, a :class:`~segsim.record.Record` or a live :class:`~segsim.fight.Fight`.
:meth:`Timeline.text` draws it for a terminal, :meth:`Timeline.svg` as a standalone SVG
(segments on the x axis, seconds labelled); records and fights show the SVG in Jupyter.

Only engine events are read for the spans (``action.declared``, ``action.cancelled``,
``combatant.out``, ``end``); a ruleset's events are attached to the action they name
(an ``action`` field) and give its outcome: a ``result`` text, else ``success``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

import attrs

from segsim.clock import to_seconds
from segsim.record import Line, Record, RecordVisitor, read_record, visit_fight

if TYPE_CHECKING:
    from segsim.fight import Fight

WAIT = "wait"
"""The kind of a waiting action (``attendre``): drawn faintly, never labelled."""
_BOOKKEEPING = frozenset({"action.declared", "action.cancelled", "die.rolled", "end"})


@attrs.define
class Span:
    """One action of one combatant: segments ``start`` to ``last`` (both included)."""

    action: int
    kind: str
    start: int
    last: int | None
    target: str | None = None
    forced: bool = False
    cancelled: bool = False
    open: bool = False  # declared without an end (cut at the next one or the fight's end)
    spawned: bool = False  # started by the rules, owned by nobody's actions in progress
    outcome: str = ""
    notes: list[str] = attrs.field(factory=list)
    lane: int = 0

    @property
    def stop(self) -> int:
        """The last segment drawn."""
        return self.start if self.last is None else max(self.last, self.start)

    def title(self) -> str:
        target = f" -> {self.target}" if self.target else ""
        flags = " (forced)" if self.forced else ""
        flags += " (cancelled)" if self.cancelled else ""
        when = (
            f"segments {self.start}-{self.stop} "
            f"({to_seconds(self.start):.1f}-{to_seconds(self.stop + 1):.1f} s)"
        )
        head = f"{self.kind} #{self.action}{target}{flags}, {when}"
        return "\n".join([head, *self.notes])


@attrs.define
class Mark:
    """Something that happened to a combatant at segment ``t`` (an opponent's action
    resolved on it, or it left the fight)."""

    t: int
    label: str
    detail: str
    kind: str = "incoming"  # or "out", or "note" (another event about this combatant)


@attrs.define
class Row:
    """One combatant's line of the timeline."""

    id: str
    name: str
    side: str
    spans: list[Span] = attrs.field(factory=list)
    marks: list[Mark] = attrs.field(factory=list)
    out_at: int | None = None
    lanes: int = 1


@attrs.define
class Timeline:
    """A fight's actions per combatant over segments ``0 .. end``."""

    title: str
    ruleset: str
    rows: list[Row]
    end: int
    outcome: str = ""

    def row(self, cid: str) -> Row:
        for r in self.rows:
            if r.id == cid:
                return r
        raise KeyError(cid)

    def text(self, *, scale: int = 2, width: int = 100) -> str:
        """The timeline for a terminal: ``scale`` columns per segment, wrapped at
        ``width`` columns."""
        return _text(self, scale, width)

    def svg(self) -> str:
        """The timeline as a standalone SVG document."""
        return _svg(self)

    def _repr_svg_(self) -> str:
        return self.svg()


def _summary(event: Mapping[str, Any]) -> str:
    """One line for a tooltip: the type and the plain fields."""
    parts = [
        f"{k}={v}"
        for k, v in event.items()
        if k not in ("t", "type", "actor", "action") and isinstance(v, str | int | float | bool)
    ]
    return f"{event['type']}: {' '.join(parts)}".rstrip(": ")


def _outcome(event: Mapping[str, Any]) -> str:
    result = event.get("result")
    if isinstance(result, str) and result:
        return result
    success = event.get("success")
    if isinstance(success, bool):
        return "success" if success else "failure"
    return ""


class TimelineBuilder(RecordVisitor[Timeline]):
    """A record visitor that lays out a :class:`Timeline`."""

    def __init__(self) -> None:
        self.title = ""
        self.ruleset = ""
        self.rows: dict[str, Row] = {}
        self.spans: dict[int, tuple[Row, Span]] = {}
        self.open: dict[tuple[str, str], Span] = {}
        self.last_t = 0
        self.outcome = ""

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self.title = str(header.get("name") or line.source)
        self.ruleset = str(header.get("ruleset", ""))
        for c in header.get("combatants", ()):
            if isinstance(c, Mapping) and isinstance(c.get("id"), str):
                cid = c["id"]
                self.rows[cid] = Row(cid, str(c.get("name") or cid), str(c.get("side", "")))

    def _row(self, actor: Any) -> Row | None:
        return self.rows.get(actor) if isinstance(actor, str) else None

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        t: int = event["t"]
        self.last_t = max(self.last_t, t)
        kind = event["type"]
        row = self._row(event["actor"])
        if kind == "action.declared" and row is not None:
            self._declared(row, event, t)
        elif kind == "action.spawned" and row is not None:
            self._spawned(row, event, t)
        elif kind == "action.cancelled":
            found = self.spans.get(event.get("action", -1))
            if found is not None:
                found[1].cancelled, found[1].last, found[1].open = True, t, False
                found[1].outcome = "cancelled"
        elif kind == "wait.ended":  # its way cleared: the wait ends in segment t
            found = self.spans.get(event.get("action", -1))
            if found is not None:
                found[1].last, found[1].open = t, False
                found[1].outcome = f"way cleared by {event.get('by')}"
        elif kind == "combatant.out" and row is not None:
            row.out_at = t
            reason = str(event.get("reason", ""))
            row.marks.append(Mark(t, "out", f"out of the fight: {reason}", "out"))
            self._close_all(row.id, t)
        elif kind == "end":
            self.outcome = _end_text(event)
            for key in list(self.open):
                self._close(key, t)
        elif "action" in event and event["action"] in self.spans:
            self._resolution(event, t)
        elif row is not None and kind not in _BOOKKEEPING:
            row.marks.append(Mark(t, kind, _summary(event), "note"))

    def _declared(self, row: Row, event: Mapping[str, Any], t: int) -> None:
        action = event.get("action")
        if not isinstance(action, int):
            return
        kind = str(event.get("kind", "?"))
        last = event.get("ends_in")
        target = event.get("target")
        key = (row.id, kind)
        if key in self.open:  # an open action ends when one of its kind follows
            self._close(key, t - 1)
        waiting = (row.id, WAIT)
        if waiting in self.open and self.open[waiting].start < t:
            self._close(waiting, t - 1)  # a fighter who acts has stopped waiting
        span = Span(
            action,
            kind,
            t,
            last if isinstance(last, int) else None,
            target if isinstance(target, str) else None,
            forced=event.get("forced") is True,
            open=not isinstance(last, int),
        )
        params = event.get("params")
        if isinstance(params, Mapping) and params:
            span.notes.append("params: " + ", ".join(f"{k}={v}" for k, v in params.items()))
        if span.open or kind == WAIT:
            self.open[key] = span
        row.spans.append(span)
        self.spans[action] = (row, span)

    def _spawned(self, row: Row, event: Mapping[str, Any], t: int) -> None:
        """An action the rules start by themselves (a projectile in flight), from the
        next segment; drawn like a forced action."""
        action, duration = event.get("action"), event.get("duration")
        if not isinstance(action, int) or not isinstance(duration, int):
            return
        target = event.get("target")
        span = Span(
            action,
            str(event.get("kind", "?")),
            t + 1,
            t + duration,
            target if isinstance(target, str) else None,
            forced=True,
            spawned=True,
        )
        span.notes.append("started by the rules")
        row.spans.append(span)
        self.spans[action] = (row, span)

    def _close(self, key: tuple[str, str], t: int) -> None:
        span = self.open.pop(key)
        if span.open or span.last is None or span.last > t:
            span.last = max(t, span.start)

    def _close_all(self, cid: str, t: int) -> None:
        for key in [k for k in self.open if k[0] == cid]:
            self._close(key, t)
        for span in self.rows[cid].spans:
            if span.last is not None and span.last > t and not span.spawned:
                span.last = t
                span.outcome = span.outcome or "dropped"

    def _resolution(self, event: Mapping[str, Any], t: int) -> None:
        row, span = self.spans[event["action"]]
        span.notes.append(_summary(event))
        outcome = _outcome(event)
        if outcome and not (span.outcome and "result" not in event):
            span.outcome = outcome
        target = event.get("target")
        victim = self._row(target)
        if victim is not None and victim is not row and isinstance(event.get("result"), str):
            victim.marks.append(
                Mark(
                    t, event["result"], f"{row.id}'s {span.kind} #{span.action}: {event['result']}"
                )
            )

    def result(self) -> Timeline:
        rows = list(self.rows.values())
        for row in rows:
            for span in row.spans:  # what the end of the fight cut short
                if span.last is not None and span.last > self.last_t:
                    span.last = self.last_t
                    span.outcome = span.outcome or "unfinished"
            row.lanes = _assign_lanes(row.spans)
        return Timeline(self.title, self.ruleset, rows, self.last_t, self.outcome)


def _end_text(event: Mapping[str, Any]) -> str:
    outcome = str(event.get("outcome", ""))
    winner = event.get("winner")
    who = f", side {winner} wins" if winner else ""
    t = int(event["t"])
    return f"{outcome}{who} at segment {t} ({to_seconds(t):.1f} s)"


def _assign_lanes(spans: list[Span]) -> int:
    """Overlapping actions of one combatant go to separate lanes (first free lane)."""
    lanes: list[list[Span]] = []
    actions = sorted((s for s in spans if s.kind != WAIT), key=lambda s: (s.start, s.action))
    waits = sorted((s for s in spans if s.kind == WAIT), key=lambda s: (s.start, s.action))
    for span in actions + waits:  # actions first: waiting fills the gaps between them
        for lane, taken in enumerate(lanes):
            if all(o.stop < span.start or span.stop < o.start for o in taken):
                span.lane = lane
                taken.append(span)
                break
        else:
            span.lane = len(lanes)
            lanes.append([span])
    return max(1, len(lanes))


def timeline(source: Timeline | Record | Fight | str | Path) -> Timeline:
    """A timeline of a record file, a record, or a fight (running or ended)."""
    if isinstance(source, Timeline):
        return source
    if isinstance(source, Record):
        return source.accept(TimelineBuilder())
    if isinstance(source, str | Path):
        return read_record(source, TimelineBuilder())
    return visit_fight(source, TimelineBuilder())


def timeline_svg(source: Timeline | Record | Fight | str | Path) -> str:
    """The SVG timeline of a record file, a record or a fight."""
    return timeline(source).svg()


def timeline_text(
    source: Timeline | Record | Fight | str | Path, *, scale: int = 2, width: int = 100
) -> str:
    """The terminal timeline of a record file, a record or a fight."""
    return timeline(source).text(scale=scale, width=width)


# ---------------------------------------------------------------- terminal


def _span_text(span: Span, width: int) -> str:
    if span.kind == WAIT:
        return "." * width
    opening, closing = ("(", ")") if span.forced else ("[", "]")
    if span.cancelled:
        closing = "x"
    elif span.open:
        closing = ">"
    if width == 1:
        return span.kind[:1]
    inner = width - 2
    label = span.kind[:inner] if inner > 0 else ""
    if inner <= 0:
        return span.kind[:1] + closing
    return opening + label + "-" * (inner - len(label)) + closing


def _put(line: list[str], col: int, text: str, *, over: bool = True) -> None:
    for i, ch in enumerate(text):
        if 0 <= col + i < len(line) and (over or line[col + i] == " "):
            line[col + i] = ch


def _put_all(line: list[str], items: list[tuple[int, str]]) -> None:
    """Write texts at their columns, each cut short where the next one begins."""
    line.extend(" " * 8)
    taken = -1
    for i, (col, text) in enumerate(items):
        if col <= taken:
            continue
        limit = items[i + 1][0] - 1 if i + 1 < len(items) else len(line)
        text = text[: max(1, limit - col)]
        _put(line, col, text)
        taken = col + len(text) - 1


def _text(tl: Timeline, scale: int, width: int) -> str:
    scale = max(1, scale)
    name_w = min(max([len(r.id) for r in tl.rows] + [8]) + 2, 24)
    per_block = max(5, (width - name_w) // scale)
    per_block -= per_block % 5 if per_block > 5 else 0
    segments = tl.end + 1
    title = f"{tl.title} ({tl.ruleset})" if tl.ruleset else tl.title
    out = [title + (f": {tl.outcome}" if tl.outcome else "")]
    for first in range(0, segments, per_block):
        count = min(per_block, segments - first)
        cols = count * scale
        seg_line = [" "] * cols
        sec_line = [" "] * cols
        ruler = [" "] * cols
        seg_line.extend(" " * 8)
        sec_line.extend(" " * 8)
        for s in range(first, first + count):
            col = (s - first) * scale
            ruler[col] = "|" if s % 10 == 0 else "'" if s % 5 == 0 else "."
            if s % 5 == 0:
                _put(seg_line, col, str(s), over=False)
            if s % 10 == 0:
                _put(sec_line, col, f"{to_seconds(s):.1f}s", over=False)
        out.append("")
        out.append("segment".ljust(name_w) + "".join(seg_line).rstrip())
        out.append("seconds".ljust(name_w) + "".join(sec_line).rstrip())
        out.append(" " * name_w + "".join(ruler).rstrip())
        last = first + count - 1
        for row in tl.rows:
            lanes = [[" "] * cols for _ in range(row.lanes)]
            resolved: list[list[tuple[int, str]]] = [[] for _ in range(row.lanes)]
            for span in row.spans:
                if span.stop < first or span.start > last:
                    continue
                a, b = max(span.start, first), min(span.stop, last)
                text = _span_text(span, (b - a + 1) * scale)
                _put(lanes[span.lane], (a - first) * scale, text)
                if span.outcome and span.stop <= last and span.kind != WAIT:
                    resolved[span.lane].append(((a - first) * scale, span.outcome))
            marks = sorted(
                (
                    (m.t - first) * scale,
                    m.kind != "out",
                    "X out" if m.kind == "out" else f"*{m.label}",
                )
                for m in row.marks
                if first <= m.t <= last and m.kind != "note"
            )
            label = row.id[: name_w - 1].ljust(name_w)
            for i, lane in enumerate(lanes):
                out.append((label if i == 0 else " " * name_w) + "".join(lane).rstrip())
                if resolved[i]:
                    results = [" "] * cols
                    _put_all(results, sorted(resolved[i]))
                    out.append(" " * name_w + "".join(results).rstrip())
            if marks:
                incoming = [" "] * cols
                _put_all(incoming, [(col, text) for col, _, text in marks])
                out.append(" " * name_w + "".join(incoming).rstrip())
    out.append("")
    out.append(
        f"[kind] action, {scale} column(s) per segment; (kind) forced by the rules; "
        "x] cancelled; > open-ended; ... waiting"
    )
    out.append(
        "under each span: how it resolved; *result: an opponent's action resolved on "
        "this fighter; X out of the fight"
    )
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- SVG

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


__all__ = [
    "Mark",
    "Row",
    "Span",
    "Timeline",
    "TimelineBuilder",
    "timeline",
    "timeline_svg",
    "timeline_text",
]
