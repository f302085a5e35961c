"""The timeline drawn for a terminal.

The same conventions as the SVG: spans per fighter with how they resolved and at whom,
what opponents' actions did to the fighter, rounds marked for coarse rulesets (drawn a
column per twentieth of a round), and a legend. Stretches where nothing starts or ends are
folded into one line, so the output (and the work) is bounded by what happens, not by
the number of segments.
"""

from __future__ import annotations

from segsim.clock import to_seconds
from segsim.views.timeline import Mark, Row, Span, Timeline

MAX_SCALE = 40
"""The most columns per segment (a larger ``scale`` is drawn at this)."""
CELL_COLUMNS = 10
"""Columns per cell of a coarse ruleset (a turn, a phase, a round)."""


def _cell_name(tl: Timeline) -> str:
    return "turn" if tl.cell < tl.tick else "phase" if tl.cell < 20 else "round"


def _span_text(span: Span, width: int, codes: dict[str, str]) -> str:
    if span.faint:
        return "." * width
    opening, closing = ("(", ")") if span.forced else ("[", "]")
    if span.cancelled:
        closing = "x"
    elif span.open:
        closing = ">"
    if width >= len(span.kind) + 2 or width >= 5:
        inner = width - 2
        label = span.kind[:inner]
        return opening + label + "-" * (inner - len(label)) + closing
    code = codes.setdefault(span.kind, _code(span.kind, codes))
    if width == 4:
        return opening + code + closing
    if width == 3:
        return code + closing
    return code[:width]


def _code(kind: str, codes: dict[str, str]) -> str:
    """A short label for an action too short for its word, told apart from those
    already given (the legend says what each stands for)."""
    taken = set(codes.values())
    seconds: list[str] = [*kind[1:], *"23456789"]
    for second in seconds:
        code = kind[0] + second
        if code not in taken and second.isalnum():
            return code
    short: str = kind[:2]
    return short


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


class _Cursor:
    """A row's spans lane by lane and its marks, walked once from left to right."""

    def __init__(self, row: Row) -> None:
        self.lanes: list[list[Span]] = [[] for _ in range(row.lanes)]
        for span in sorted(row.spans, key=lambda s: (s.first, s.action)):
            self.lanes[span.lane].append(span)
        self.at = [0] * row.lanes
        self.marks = sorted(row.marks, key=lambda m: m.t)
        self.mark_at = 0

    def spans(self, lane: int, first: int, last: int) -> list[Span]:
        """The lane's spans drawn in segments ``first..last`` (blocks come in order, and
        spans of one lane do not overlap, so passed spans are never looked at again)."""
        spans, i = self.lanes[lane], self.at[lane]
        while i < len(spans) and spans[i].final < first:
            i += 1
        self.at[lane] = i
        out = []
        while i < len(spans) and spans[i].first <= last:
            out.append(spans[i])
            i += 1
        return out

    def marks_in(self, first: int, last: int) -> list[Mark]:
        i = self.mark_at
        while i < len(self.marks) and self.marks[i].t < first:
            i += 1
        out = []
        while i < len(self.marks) and self.marks[i].t <= last:
            out.append(self.marks[i])
            i += 1
        self.mark_at = i
        return out


def _times(tl: Timeline) -> list[int]:
    """Every segment where something starts, ends or happens."""
    times = {0, tl.end}
    for row in tl.rows:
        for span in row.spans:
            times.add(span.first)
            times.add(span.final)
        times.update(m.t for m in row.marks)
    times.update(t for t, _ in tl.rounds)
    return sorted(t for t in times if 0 <= t <= tl.end)


def _text(tl: Timeline, scale: int | None, width: int) -> str:
    if scale is None and tl.cell > 1:  # a coarse ruleset: a turn, phase or round per cell
        per, scale = tl.cell, CELL_COLUMNS
    else:  # segments per column
        per = 1 if scale is not None or tl.tick < 20 else tl.tick // 20
        scale = max(1, min(scale if scale is not None else (2 if per == 1 else 1), MAX_SCALE))
    name_w = min(max([len(r.id) for r in tl.rows] + [8]) + 2, 24)
    columns = max(scale, width - name_w)
    per_block = max(1, columns // scale) * per
    if per_block > 5 * per:
        per_block -= per_block % (5 * per)
    rounds = dict(tl.rounds)
    title = f"{tl.title} ({tl.ruleset})" if tl.ruleset else tl.title
    out = [title + (f": {tl.outcome}" if tl.outcome else "")]
    codes: dict[str, str] = {}
    if tl.cell > 1 and per == tl.cell:
        out.append(
            f"one cell of {scale} columns per {_cell_name(tl)} ({per} segments, "
            f"{to_seconds(per):.1f} s); an action is drawn over the cell it starts in"
        )
    elif per > 1:
        out.append(f"one column per {per} segments ({to_seconds(per):.1f} s)")
    cursors = [_Cursor(row) for row in tl.rows]
    blocks = sorted({t // per_block for t in _times(tl)})
    previous = -1
    for block in blocks:
        first = block * per_block
        if block > previous + 1:
            a, b = (previous + 1) * per_block, first - 1
            out.append("")
            out.append(f"... segments {a}-{b}: nothing starts or ends")
        previous = block
        last = min(first + per_block - 1, tl.end)
        out.extend(_block(tl, cursors, first, last, per, scale, name_w, rounds, codes))
    out.append("")
    out.append(
        f"[kind] an action the fighter chose ({scale} column(s) per "
        f"{'segment' if per == 1 else f'{per} segments'}); (kind) one the rules impose; "
        "x] cancelled; > open-ended; ... waiting, or a turn or wait the rules impose"
    )
    if codes:
        out.append(
            "short labels (an action too short for its word): "
            + ", ".join(
                f"{code} {kind}" for kind, code in sorted(codes.items(), key=lambda kc: kc[1])
            )
        )
    out.append(
        "under each span: how it resolved, >target: at whom; *result: an opponent's action "
        "resolved on this fighter; X out of the fight; | in the round line: a new round"
    )
    return "\n".join(out) + "\n"


def _block(
    tl: Timeline,
    cursors: list[_Cursor],
    first: int,
    last: int,
    per: int,
    scale: int,
    name_w: int,
    rounds: dict[int, str],
    codes: dict[str, str],
) -> list[str]:
    def col(s: int) -> int:
        return ((s - first) // per) * scale

    cols = col(last) + scale
    seg_line = [" "] * (cols + 8)
    sec_line = [" "] * (cols + 8)
    ruler = [" "] * cols
    round_line = [" "] * (cols + 12)
    every = 5 * per
    for s in range(first - first % per, last + 1, per):
        c = col(max(s, first))
        ruler[c] = "|" if s % (2 * every) == 0 else "'" if s % every == 0 else "."
        if s % every == 0:
            _put(seg_line, c, str(s), over=False)
        if s % (2 * every) == 0:
            _put(sec_line, c, f"{to_seconds(s):.1f}s", over=False)
    starts = [
        (col(t), "|" + (label.removeprefix("round ") if per > 1 else label))
        for t, label in rounds.items()
        if first <= t <= last
    ]
    out = [""]
    if starts:
        _put_all(round_line, sorted(starts))
        out.append("round".ljust(name_w) + "".join(round_line).rstrip())
    out.append("segment".ljust(name_w) + "".join(seg_line).rstrip())
    out.append("seconds".ljust(name_w) + "".join(sec_line).rstrip())
    out.append(" " * name_w + "".join(ruler).rstrip())
    for row, cursor in zip(tl.rows, cursors, strict=True):
        lanes = [[" "] * cols for _ in range(row.lanes)]
        resolved: list[list[tuple[int, str]]] = [[] for _ in range(row.lanes)]
        for lane in range(row.lanes):
            # Faint bars first: a chosen action drawn over a cell is never hidden by them.
            spans = sorted(cursor.spans(lane, first, last), key=lambda s: not s.faint)
            for span in spans:
                a, b = max(span.first, first), min(span.final, last)
                text = _span_text(span, col(b) - col(a) + scale, codes)
                _put(lanes[lane], col(a), text)
                if span.outcome and span.final <= last and not span.faint:
                    aim = f" >{span.target}" if span.target and span.target != row.id else ""
                    resolved[lane].append((col(a), span.outcome + aim))
        marks = sorted(
            (col(m.t), m.kind != "out", "X out" if m.kind == "out" else f"*{m.label}")
            for m in cursor.marks_in(first, last)
            if m.kind != "note"
        )
        label = row.id[: name_w - 1].ljust(name_w)
        for i, lane_text in enumerate(lanes):
            text = "".join(lane_text).strip()
            if i > 0 and not resolved[i] and not text.strip("."):
                continue  # a lane of waits alone: the bars the fighter chose say enough
            out.append((label if i == 0 else " " * name_w) + "".join(lane_text).rstrip())
            if resolved[i]:
                results = [" "] * cols
                _put_all(results, sorted(resolved[i]))
                out.append(" " * name_w + "".join(results).rstrip())
        if marks:
            incoming = [" "] * cols
            _put_all(incoming, [(c, text) for c, _, text in marks])
            out.append(" " * name_w + "".join(incoming).rstrip())
    return out
