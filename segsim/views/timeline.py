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

import bisect
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from segsim.clock import to_seconds
from segsim.eventbase import ROUTINE_KINDS
from segsim.record import Line, Record, RecordVisitor, read_record, visit_fight
from segsim.scriptline import params_in_words
from segsim.views.account import clean, describe, load_rules, ruleset_of

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
    routine: bool = False  # the rules' own time-keeping (a coarse ruleset's turn, await)
    shown: tuple[int, int] | None = None  # drawn over these segments (a whole cell)

    @property
    def stop(self) -> int:
        """The last segment it occupies."""
        return self.start if self.last is None else max(self.last, self.start)

    @property
    def faint(self) -> bool:
        """Drawn faint and thin: a wait, or a turn or wait the rules impose."""
        return self.kind == WAIT or self.routine

    @property
    def first(self) -> int:
        """The first segment drawn (a coarse ruleset draws a chosen action over the
        whole cell it starts in: see :attr:`Timeline.cell`)."""
        return self.start if self.shown is None else self.shown[0]

    @property
    def final(self) -> int:
        """The last segment drawn."""
        return self.stop if self.shown is None else self.shown[1]

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
    damage: list[tuple[int, int]] = attrs.field(factory=list)  # (t, damage taken so far)
    ps: list[tuple[int, int]] = attrs.field(factory=list)  # (t, situation points)


@attrs.define
class Timeline:
    """A fight's actions per combatant over segments ``0 .. end``."""

    title: str
    ruleset: str
    rows: list[Row]
    end: int
    outcome: str = ""
    tick: int = 1  # the ruleset's unit in segments (a Chroniques round is 100)
    rounds: list[tuple[int, str]] = attrs.field(factory=list)  # (t, "round 2")
    cell: int = 1
    """Segments per cell of a coarse ruleset's timeline: a Chroniques turn (10), a Loss
    phase (5), a Loreval round (60); 1 draws segment by segment."""

    def row(self, cid: str) -> Row:
        for r in self.rows:
            if r.id == cid:
                return r
        raise KeyError(cid)

    def text(self, *, scale: int | None = None, width: int = 100) -> str:
        """The timeline for a terminal, wrapped at ``width`` columns: ``scale`` columns
        per segment (by default 2, and for a coarse ruleset one column per twentieth of its
        tick); stretches where nothing starts or ends are folded into one line."""
        from segsim.views.text import _text

        return _text(self, scale, width)

    def svg(self) -> str:
        """The timeline as a standalone SVG document."""
        from segsim.views.svg import _svg

        return _svg(self)

    def _repr_svg_(self) -> str:
        return self.svg()


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
        self.tick = 1
        self.cell = 1
        self.rounds: list[tuple[int, str]] = []
        self.routine: dict[tuple[str, str], Span] = {}

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self.title = clean(str(header.get("name") or line.source))
        self.ruleset = clean(str(header.get("ruleset", "")))
        rules = ruleset_of(self.ruleset, header.get("options"))
        tick = getattr(rules, "tick", None) if rules is not None else None
        self.tick = tick if isinstance(tick, int) and tick >= 1 else load_rules(self.ruleset)
        self.cell = _cell(self.ruleset, rules, self.tick)
        for c in header.get("combatants", ()):
            if isinstance(c, Mapping) and isinstance(c.get("id"), str):
                cid = c["id"]
                self.rows[cid] = Row(
                    clean(cid), clean(str(c.get("name") or cid)), clean(str(c.get("side", "")))
                )

    def _row(self, actor: Any) -> Row | None:
        return self.rows.get(actor) if isinstance(actor, str) else None

    def _tracks(self, row: Row | None, event: Mapping[str, Any], t: int) -> None:
        """Damage taken so far and situation points, per fighter."""
        if row is None:
            return
        damage = event.get("damage")
        if isinstance(event.get("attacker"), str) and type(damage) is int and damage > 0:
            before = row.damage[-1][1] if row.damage else 0
            row.damage.append((t, before + damage))
        ps = event.get("ps")
        if type(ps) is int:
            row.ps.append((t, ps))

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        t: int = event["t"]
        self.last_t = max(self.last_t, t)
        kind = event["type"]
        row = self._row(event["actor"])
        self._tracks(row, event, t)
        if kind.endswith("round.started") and type(event.get("round")) is int:
            self.rounds.append((t, f"round {event['round']}"))
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
            row.marks.append(Mark(t, "out", describe(event), "out"))
            self._close_all(row, t)
        elif kind == "end":
            self.outcome = _end_text(event)
            for key in list(self.open):
                self._close(key, t)
        elif "action" in event and event["action"] in self.spans:
            self._resolution(event, t)
        elif row is not None and kind not in _BOOKKEEPING:
            row.marks.append(Mark(t, kind, describe(event), "note"))

    def _declared(self, row: Row, event: Mapping[str, Any], t: int) -> None:
        action = event.get("action")
        if not isinstance(action, int):
            return
        kind = clean(str(event.get("kind", "?")))
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
            clean(target) if isinstance(target, str) else None,
            forced=event.get("forced") is True,
            open=not isinstance(last, int),
        )
        span.routine = span.forced and kind in ROUTINE_KINDS
        if span.routine:  # the rules' next turn or wait of a kind replaces the last one
            previous = self.routine.get(key)
            if previous is not None and previous.stop >= t > previous.start:
                previous.last = t - 1
                previous.open = False
            self.routine[key] = span
        params = event.get("params")
        if isinstance(params, Mapping) and params:
            span.notes.append(clean(params_in_words(params)))
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
            clean(str(event.get("kind", "?"))),
            t + 1,
            t + duration,
            clean(target) if isinstance(target, str) else None,
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

    def _close_all(self, row: Row, t: int) -> None:
        for key in [k for k in self.open if k[0] == row.id]:
            self._close(key, t)
        for span in row.spans:
            if span.last is not None and span.last > t and not span.spawned:
                span.last = t
                span.outcome = span.outcome or "dropped"

    def _resolution(self, event: Mapping[str, Any], t: int) -> None:
        row, span = self.spans[event["action"]]
        span.notes.append(describe(event))
        outcome = clean(_outcome(event))
        if outcome and not (span.outcome and "result" not in event):
            span.outcome = outcome
        target = event.get("target")
        victim = self._row(target)
        if victim is not None and victim is not row and isinstance(event.get("result"), str):
            victim.marks.append(Mark(t, clean(event["result"]), describe(event)))

    def result(self) -> Timeline:
        rows = list(self.rows.values())
        for row in rows:
            for span in row.spans:  # what the end of the fight cut short
                if span.last is not None and span.last > self.last_t:
                    span.last = self.last_t
                    span.outcome = span.outcome or "unfinished"
                if self.cell > 1 and not span.faint:
                    first = span.start - span.start % self.cell
                    span.shown = (first, min(max(span.stop, first + self.cell - 1), self.last_t))
            row.lanes = _assign_lanes(row.spans, squeeze=self.cell > 1)
        return Timeline(
            self.title,
            self.ruleset,
            rows,
            self.last_t,
            self.outcome,
            self.tick,
            self.rounds,
            self.cell,
        )


def _cell(name: str, rules: Any, tick: int) -> int:
    """A coarse ruleset's cell (see :attr:`Timeline.cell`): its turn when it has one
    within its round (Chroniques), else its tick (a Loss phase, a Loreval round); 1 for
    the rulesets drawn segment by segment."""
    from segsim.views.legend import COARSE

    if name.lower() not in COARSE:
        return 1
    turn = getattr(rules, "turn_segments", None)
    cell = turn if isinstance(turn, int) and turn >= 1 else tick
    return cell if cell > 1 else 1


def _end_text(event: Mapping[str, Any]) -> str:
    outcome = clean(str(event.get("outcome", "")))
    winner = event.get("winner")
    winner = clean(winner) if isinstance(winner, str) else winner
    who = f", side {winner} wins" if winner else ""
    t = int(event["t"])
    return f"{outcome}{who} in segment {t} ({to_seconds(t):.1f} s)"


def _assign_lanes(spans: list[Span], *, squeeze: bool = False) -> int:
    """Overlapping actions of one combatant go to separate lanes (first free lane).
    ``squeeze`` (a coarse ruleset): a faint span that finds no free lane goes under the
    first lane's bars rather than into a lane of its own.

    Each lane keeps its spans sorted by start, so a free slot is found by bisection:
    the work grows with the number of spans times the lanes (a few), not its square.
    """
    starts: list[list[int]] = []
    stops: list[list[int]] = []
    actions = sorted((s for s in spans if not s.faint), key=lambda s: (s.first, s.action))
    waits = sorted((s for s in spans if s.faint), key=lambda s: (s.first, s.action))
    for span in actions + waits:  # actions first: waiting fills the gaps between them
        a, b = span.first, span.final
        for lane, (lane_starts, lane_stops) in enumerate(zip(starts, stops, strict=True)):
            i = bisect.bisect_left(lane_starts, a)
            if (i == 0 or lane_stops[i - 1] < a) and (i == len(lane_starts) or b < lane_starts[i]):
                lane_starts.insert(i, a)
                lane_stops.insert(i, b)
                span.lane = lane
                break
        else:
            if squeeze and span.faint and starts:
                span.lane = 0
                continue
            span.lane = len(starts)
            starts.append([a])
            stops.append([b])
    return max(1, len(starts))


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
    source: Timeline | Record | Fight | str | Path, *, scale: int | None = None, width: int = 100
) -> str:
    """The terminal timeline of a record file, a record or a fight."""
    return timeline(source).text(scale=scale, width=width)


__all__ = [
    "WAIT",
    "Mark",
    "Row",
    "Span",
    "Timeline",
    "TimelineBuilder",
    "timeline",
    "timeline_svg",
    "timeline_text",
]
