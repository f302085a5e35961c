"""The timeline drawn for a terminal."""

from __future__ import annotations

from segsim.clock import to_seconds
from segsim.views.timeline import WAIT, Span, Timeline


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
