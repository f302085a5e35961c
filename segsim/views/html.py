"""The HTML fight viewer: one self-contained file (scripts and styles inline, no server,
no network) to replay a recorded fight.

A battle map shows every fighter's position and facing at the current segment, the
timeline its actions, the account what happened; one segment slider ties them together
(play/pause, arrow keys to step, a click on a bar or an account line jumps there). A
filter by side or fighter and the zoom keep battles of hundreds of fighters usable: the
timeline draws only the rows in view, the account only the lines near the segment.

The page reads its initial segment from the address (``#t=25``), marks ``<body
data-ready="1">`` once drawn, and lists script errors in ``#errors``; the browser tests
rely on these. Each fighter of the map carries its world position (``data-x``,
``data-y``) and state (``data-state``: ``in``, ``out`` or ``absent``).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from segsim.record import Line, Record, RecordVisitor, read_record, visit_fight
from segsim.views.account import clean, describe, routine_line
from segsim.views.style import kind_colour, kind_order
from segsim.views.timeline import Timeline, TimelineBuilder

if TYPE_CHECKING:
    from segsim.fight import Fight

_QUIET = frozenset({"die.rolled"})
"""Events the account leaves out (the dice are in the record)."""


class ViewerBuilder(TimelineBuilder):
    """A record visitor that gathers what the viewer shows: the timeline, the positions
    over time, the account."""

    def __init__(self) -> None:
        super().__init__()
        self.moves: dict[str, list[tuple[int, float, float]]] = {}
        self.joined: dict[str, int] = {}
        self.account: list[tuple[int, str | None, str]] = []

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        super().visit_header(header, line)
        for c in header.get("combatants", ()):
            if isinstance(c, Mapping) and isinstance(c.get("id"), str):
                self.moves[clean(c["id"])] = [(0, *_point(c.get("position")))]

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        kind = event["type"]
        actor = event["actor"]
        if kind == "combatant.joined" and isinstance(actor, str):
            cid = clean(actor)
            if cid not in self.rows:
                from segsim.views.timeline import Row

                self.rows[cid] = Row(
                    cid, clean(str(event.get("name") or cid)), clean(str(event.get("side", "")))
                )
            self.joined[cid] = int(event["t"])
            self.moves[cid] = [(int(event["t"]), *_point(event.get("position")))]
        super().visit_event(event, line)
        if "x" in event and "y" in event and isinstance(actor, str):
            x, y = _point((event.get("x"), event.get("y")))
            self.moves.setdefault(clean(actor), []).append((int(event["t"]), x, y))
        if kind not in _QUIET and not routine_line(event):  # as segsim run shows it
            who = clean(actor) if isinstance(actor, str) else None
            self.account.append((int(event["t"]), who, describe(event)))


def _point(value: Any) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        return (0.0, 0.0)
    if x != x or y != y or abs(x) == float("inf") or abs(y) == float("inf"):
        return (0.0, 0.0)
    return (round(x, 3), round(y, 3))


def viewer_data(builder: ViewerBuilder) -> dict[str, Any]:
    """The viewer's data (what the page's script reads), from a filled builder."""
    tl: Timeline = builder.result()
    index = {row.id: i for i, row in enumerate(tl.rows)}
    kinds = kind_order(tl.ruleset, {s.kind for r in tl.rows for s in r.spans})
    kind_index = {k: i for i, k in enumerate(kinds)}
    spans = []
    for i, row in enumerate(tl.rows):
        # Faint bars first: the actions a fighter chose are drawn over them.
        for s in sorted(row.spans, key=lambda s: (not s.faint, s.first, s.action)):
            flags = (1 if s.forced else 0) | (2 if s.cancelled else 0) | (4 if s.faint else 0)
            spans.append(
                [
                    i,
                    s.first,
                    s.final,
                    s.lane,
                    kind_index[s.kind],
                    s.outcome,
                    index.get(s.target or "", -1),
                    flags,
                    s.title(),
                ]
            )
    sides = list(dict.fromkeys(row.side for row in tl.rows))
    return {
        "title": tl.title,
        "ruleset": tl.ruleset,
        "tick": tl.tick,
        "cell": tl.cell,
        "end": tl.end,
        "outcome": tl.outcome,
        "sides": sides,
        "fighters": [
            {
                "id": row.id,
                "name": row.name,
                "side": row.side,
                "lanes": row.lanes,
                "out": row.out_at,
                "joined": builder.joined.get(row.id, 0),
                "moves": [list(m) for m in builder.moves.get(row.id, [(0, 0.0, 0.0)])],
            }
            for row in tl.rows
        ],
        "kinds": kinds,
        "colours": [kind_colour(tl.ruleset, k) for k in kinds],
        "spans": spans,
        "rounds": [list(r) for r in tl.rounds],
        "account": [[t, index.get(who or "", -1), text] for t, who, text in builder.account],
    }


def _asset(name: str) -> str:
    return files("segsim.views").joinpath(name).read_text(encoding="utf-8")


def viewer_html(source: Record | Fight | str | Path) -> str:
    """The viewer of a record file, a record or a fight, as one HTML document."""
    if isinstance(source, Record):
        builder = source.accept(_Keep(ViewerBuilder()))
    elif isinstance(source, str | Path):
        builder = read_record(source, _Keep(ViewerBuilder()))
    else:
        builder = visit_fight(source, _Keep(ViewerBuilder()))
    data = viewer_data(builder)
    title = f"{data['title']}: {data['outcome']}" if data["outcome"] else data["title"]
    return fill_page(
        _asset("viewer.html"),
        {
            "TITLE": html.escape(title, quote=True),
            "STYLE": _asset("viewer.css"),
            "DATA": script_json(data),
            "SCRIPT": _asset("viewer.js"),
        },
    )


_SLOT = re.compile(r"\{\{([A-Z]+)\}\}")

_SCRIPT_SAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
"""What JSON inside a ``<script>`` element must not hold as it is: ``<`` (``</script>``
or ``<!--`` would end or change the element), ``>`` and ``&`` (read differently by
older parsers, and in the page's XHTML form), and the line separators U+2028/9 (line
ends to JavaScript before ES2019). Each becomes its JSON escape: the same string."""


def script_json(data: Any) -> str:
    """``data`` as JSON to place inside a ``<script>`` element, as text no data can end
    or turn into markup (see :data:`_SCRIPT_SAFE`)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


def fill_page(template: str, slots: Mapping[str, str]) -> str:
    """The template with each ``{{NAME}}`` slot replaced, in one pass over the template
    alone: what a slot is filled with is never read again, so data that looks like a
    slot (a fight named ``{{SCRIPT}}``) stays data. Each value is escaped by the caller
    for where its slot stands. An unknown slot is an error (a template bug)."""

    def fill(match: re.Match[str]) -> str:
        return slots[match.group(1)]

    return _SLOT.sub(fill, template)


def write_viewer(source: Record | Fight | str | Path, out: str | Path) -> None:
    """Write the viewer of a record file, a record or a fight to ``out`` (nothing is
    written when the record cannot be read)."""
    page = viewer_html(source)
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(page)


def notebook_html(source: Record | Fight) -> str:
    """The viewer inside an ``<iframe srcdoc>``, for ``_repr_html_``: isolated from the
    notebook's page and its other outputs."""
    doc = html.escape(viewer_html(source), quote=True)
    return (
        f'<iframe srcdoc="{doc}" style="width:100%;height:780px;border:1px solid #ccc" '
        'sandbox="allow-scripts"></iframe>'
    )


class _Keep(RecordVisitor[ViewerBuilder]):
    """Drives a :class:`ViewerBuilder` and returns the builder itself (not its
    timeline), so the viewer can read what it gathered besides."""

    def __init__(self, inner: ViewerBuilder) -> None:
        self.inner = inner

    def begin(self, source: str) -> None:
        self.inner.begin(source)

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self.inner.visit_header(header, line)

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        self.inner.visit_event(event, line)

    def end(self) -> None:
        self.inner.end()

    def result(self) -> ViewerBuilder:
        return self.inner


__all__ = ["ViewerBuilder", "notebook_html", "viewer_data", "viewer_html", "write_viewer"]
