"""The fight record: JSON Lines, with its own explicit serializer, read through visitors.

Line 1 is the header (``format``, ``version``, ruleset and options, seed, combatants with
their full sheets); then one line per event, each with ``t`` (segment), ``type`` and
``actor`` first; the last line is the ``end`` event. The same fight gives the same bytes:
nothing here depends on logging configuration, dict order of the moment, or the clock.
The format is specified in ``docs/record-format.md`` and by the JSON Schema
``segsim/schema/record-v2.schema.json``.

Reading follows python-chess's PGN visitors: one driver (:func:`read_record` for a file,
:func:`visit_fight` for a live fight, :meth:`Record.accept` for a record in memory) walks
the lines and calls a :class:`RecordVisitor`, which builds what it wants: a
:class:`Record` (:class:`RecordBuilder`), a fight to replay (``segsim.replay``), a
timeline (``segsim.timeline``) or a copy of the record (:class:`RecordWriter`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, overload

import attrs

from segsim.errors import InputError, RecordError
from segsim.events import Event
from segsim.fight import RECORD_FORMAT, RECORD_VERSION
from segsim.input import (
    MAX_DEPTH,
    MAX_RECORD_BYTES,
    MAX_RECORD_LINE,
    bad_value,
    decode,
    field_name,
    read_lines,
)

if TYPE_CHECKING:
    from segsim.fight import Fight

T = TypeVar("T")

MAJOR = int(RECORD_VERSION.split(".", 1)[0])
"""The major format version this segsim reads and writes."""

SCHEMA_RESOURCE = f"schema/record-v{MAJOR}.schema.json"
"""The JSON Schema of this format version, inside the ``segsim`` package."""


# ---------------------------------------------------------------- writing


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, frozenset | set):
        return sorted(value)
    raise TypeError(f"cannot record {value!r}")


def dumps(obj: Any) -> str:
    """Canonical JSON for one record line."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_plain)


def event_data(event: Event) -> dict[str, Any]:
    """An event as a record line's object: ``t``, ``type``, ``actor``, then its fields."""
    return {"t": event.t, "type": event.TYPE, "actor": event.actor, **event.fields()}


class Limits:
    """Counts what is written of a record and refuses (RecordError) a line longer than a
    reader accepts (:data:`segsim.input.MAX_RECORD_LINE`) or more than a reader reads in
    all (:data:`segsim.input.MAX_RECORD_BYTES`): segsim writes no record it cannot read."""

    def __init__(self, source: str = "record") -> None:
        self.source = source
        self.lines = 0
        self.size = 0

    def check(self, line: str) -> None:
        self.lines += 1
        size = len(line) if line.isascii() else len(line.encode("utf-8"))
        if size > MAX_RECORD_LINE:
            raise RecordError(
                self.source,
                self.lines,
                f"a line of {size} bytes, longer than a record line may be ({MAX_RECORD_LINE})",
            )
        self.size += size + 1
        if self.size > MAX_RECORD_BYTES:
            raise RecordError(
                self.source, self.lines, f"more than a record may hold ({MAX_RECORD_BYTES} bytes)"
            )


def within_limits(lines: Iterable[str], source: str = "record") -> Iterator[str]:
    """The lines, checked by :class:`Limits` as they go."""
    limits = Limits(source)
    for line in lines:
        limits.check(line)
        yield line


def record_lines(header: Mapping[str, Any], events: Iterable[Event]) -> Iterator[str]:
    """A record's lines (without newlines), checked against the readers' limits."""

    def lines() -> Iterator[str]:
        yield dumps(dict(header))
        for event in events:
            yield dumps(event_data(event))

    return within_limits(lines())


def fight_lines(fight: Fight) -> Iterator[str]:
    """The record of a fight, line by line (without newlines)."""
    return record_lines(fight.header(), fight.history)


def write_record(fight: Fight, target: str | Path | IO[str]) -> None:
    """Write a fight's record to a path or an open text file."""
    if isinstance(target, str | Path):
        with open(target, "w", encoding="utf-8", newline="\n") as f:
            write_record(fight, f)
        return
    for line in fight_lines(fight):
        target.write(line)
        target.write("\n")


# ---------------------------------------------------------------- visitors


@attrs.frozen
class Line:
    """Where a record line comes from: the source (file name), its number and its text."""

    source: str
    number: int
    text: str

    def error(self, message: str) -> RecordError:
        return RecordError(self.source, self.number, message)


class RecordVisitor(Generic[T]):
    """Receives a record from a driver, header first, then each event in order.

    Subclasses override what they need; :meth:`result` is what the driver returns.
    Raise ``line.error(...)`` to refuse a line: the message names the file and line.
    """

    def begin(self, source: str) -> None:
        """A new record starts (``source`` names the file or the fight)."""

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        """The header object (line 1)."""

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        """One event object; the last one is the ``end`` event."""

    def end(self) -> None:
        """The record is over."""

    def result(self) -> T:
        raise NotImplementedError


def check_header(header: Mapping[str, Any], line: Line) -> None:
    """Refuse what is not a segsim record or is of another major version."""
    fmt = header.get("format")
    if fmt != RECORD_FORMAT:
        raise line.error(f"not a segsim record: format is {fmt!r}, not {RECORD_FORMAT!r}")
    version = header.get("version")
    parts = version.split(".") if isinstance(version, str) else []
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise line.error(f'version: expected "MAJOR.MINOR", got {version!r}')
    major = int(parts[0])
    if major > MAJOR:
        raise line.error(
            f"record format version {version} is newer than this segsim reads "
            f"({MAJOR}.x): upgrade segsim to read it"
        )
    if major < MAJOR:
        raise line.error(
            f"record format version {version} is not supported (reads {MAJOR}.x): it was "
            "recorded under older RinKaNou rules and would not replay; play its scenario "
            "or script again to record it anew"
        )


def check_event(event: Mapping[str, Any], line: Line) -> None:
    """The fields every event line has: ``t``, ``type`` and ``actor``."""
    for key in ("t", "type", "actor"):
        if key not in event:
            raise line.error(f"event has no {key!r}")
    t = event["t"]
    if not isinstance(t, int) or isinstance(t, bool) or t < 0:
        raise line.error(f"t: expected a segment number (integer >= 0), got {t!r}")
    if not isinstance(event["type"], str) or not event["type"]:
        raise line.error(f"type: expected an event type name, got {event['type']!r}")
    actor = event["actor"]
    if actor is not None and not isinstance(actor, str):
        raise line.error(f"actor: expected a combatant id or null, got {actor!r}")
    # Fields that name other things (readers look them up: the timeline keys its
    # spans by action): plain names or numbers, never a table or an array.
    action = event.get("action")
    if action is not None and (isinstance(action, bool) or not isinstance(action, int | str)):
        raise line.error(f"action: expected an action id (or its kind) or null, got {action!r}")
    target = event.get("target")
    if target is not None and not isinstance(target, str):
        raise line.error(f"target: expected a combatant id or null, got {target!r}")


def _drive(
    source: str,
    items: Iterable[tuple[str, Mapping[str, Any]]],
    visitor: RecordVisitor[T],
    *,
    complete: bool = True,
) -> T:
    """Walk (text, object) pairs, header first, checking the framing; feed the visitor."""
    visitor.begin(source)
    ended: Line | None = None
    number = 0
    for number, (text, obj) in enumerate(items, 1):
        line = Line(source, number, text)
        if number == 1:
            check_header(obj, line)
            visitor.visit_header(obj, line)
            continue
        if ended is not None:
            raise line.error(f"a line after the end event (line {ended.number})")
        check_event(obj, line)
        if obj["type"] == "end":
            ended = line
        visitor.visit_event(obj, line)
    if number == 0:
        raise RecordError(source, None, "empty record")
    if ended is None and complete:
        raise RecordError(source, number, "the record stops before its end event (truncated?)")
    visitor.end()
    return visitor.result()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record holds")


def _file_items(path: str | Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The (text, object) pairs of a record file, read line by line (a record may be far
    larger than what a scenario may be: :data:`segsim.input.MAX_RECORD_BYTES`)."""
    name = str(path)
    lines = read_lines(path)
    while True:
        try:
            item = next(lines, None)
        except InputError as exc:  # a line or a file too long, a file that cannot be read
            raise RecordError(name, exc.line, exc.message) from None
        if item is None:
            return
        i, data, ended = item
        try:
            raw = decode(name, data)
        except InputError as exc:
            raise RecordError(name, i, exc.message) from None
        try:
            obj = json.loads(raw, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            if not ended:
                raise RecordError(
                    name, i, "truncated last line (no newline at the end and incomplete JSON)"
                ) from None
            what = "empty line" if not raw.strip() else exc.msg
            raise RecordError(name, i, f"not JSON ({what}, column {exc.colno})") from None
        except RecursionError:
            raise RecordError(name, i, f"nested more than {MAX_DEPTH} levels deep") from None
        except ValueError as exc:  # NaN, Infinity, or an integer of thousands of digits
            raise RecordError(name, i, f"not a record line: {exc}") from None
        if not isinstance(obj, dict):
            raise RecordError(name, i, "a record line is a JSON object")
        bad = bad_value(obj)
        if bad is not None:
            where, message = bad
            raise RecordError(name, i, f"{field_name(where)}: {message}")
        yield raw, obj


@overload
def read_record(path: str | Path, *, complete: bool = True) -> Record: ...


@overload
def read_record(path: str | Path, visitor: RecordVisitor[T], *, complete: bool = True) -> T: ...


def read_record(
    path: str | Path, visitor: RecordVisitor[Any] | None = None, *, complete: bool = True
) -> Any:
    """Read a record file and drive ``visitor`` (default: build a :class:`Record`).

    Raises :class:`RecordError` naming the file and line for anything malformed: not
    JSON, a truncated last line, another format or a newer major version, an event
    without ``t``/``type``/``actor``, no end line (unless not ``complete``: the record
    of a fight still going on, which table mode resumes).
    """
    return _drive(str(path), _file_items(path), visitor or RecordBuilder(), complete=complete)


def visit_fight(fight: Fight, visitor: RecordVisitor[T], *, complete: bool = False) -> T:
    """Drive a visitor from a live fight's header and history (running or ended)."""

    def items() -> Iterator[tuple[str, Mapping[str, Any]]]:
        text = dumps(fight.header())
        yield text, json.loads(text)  # plain JSON values, as a reader of the file sees them
        for event in fight.history:
            text = dumps(event_data(event))
            yield text, json.loads(text)

    return _drive(fight.fight_id or "fight", items(), visitor, complete=complete)


# ---------------------------------------------------------------- the record object


@attrs.frozen
class Record:
    """A fight record in memory: its header, its event objects and their text lines.

    >>> record = read_record("duel.jsonl")    # doctest: +SKIP
    >>> record.header["seed"], len(record)      # doctest: +SKIP
    (7, 126)

    In a notebook a record shows its timeline (:meth:`_repr_svg_`).
    """

    source: str
    header: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...]
    lines: tuple[str, ...]
    """The text of every line, header first (line ``n`` is ``lines[n - 1]``)."""

    @property
    def ruleset(self) -> str:
        return str(self.header.get("ruleset", ""))

    @property
    def seed(self) -> Any:
        return self.header.get("seed")

    @property
    def combatants(self) -> list[str]:
        return [str(c.get("id")) for c in self.header.get("combatants", ())]

    @property
    def end(self) -> Mapping[str, Any] | None:
        """The end event (None for a record built from a fight still running)."""
        if self.events and self.events[-1]["type"] == "end":
            return self.events[-1]
        return None

    def __len__(self) -> int:
        """The number of events (lines after the header)."""
        return len(self.events)

    def accept(self, visitor: RecordVisitor[T]) -> T:
        """Drive a visitor over this record, as reading its file would."""
        return _drive(
            self.source,
            zip(self.lines, (self.header, *self.events), strict=True),
            visitor,
            complete=self.end is not None,
        )

    def write(self, target: str | Path | IO[str]) -> None:
        """Write the record in canonical form (an export through :class:`RecordWriter`)."""
        if isinstance(target, str | Path):
            with open(target, "w", encoding="utf-8", newline="\n") as f:
                self.write(f)
            return
        self.accept(RecordWriter(target))

    def _repr_svg_(self) -> str:
        from segsim.views.timeline import timeline_svg

        return timeline_svg(self)

    def _repr_html_(self) -> str:
        from segsim.views.html import notebook_html

        return notebook_html(self)


class RecordBuilder(RecordVisitor[Record]):
    """Collects a record into a :class:`Record`."""

    def __init__(self) -> None:
        self.source = ""
        self.header: Mapping[str, Any] = {}
        self.events: list[Mapping[str, Any]] = []
        self.lines: list[str] = []

    def begin(self, source: str) -> None:
        self.source = source

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self.header = header
        self.lines.append(line.text)

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        self.events.append(event)
        self.lines.append(line.text)

    def result(self) -> Record:
        return Record(self.source, self.header, tuple(self.events), tuple(self.lines))


def fight_record(fight: Fight) -> Record:
    """A live fight's record as a :class:`Record` (its history so far)."""
    return visit_fight(fight, RecordBuilder())


class RecordWriter(RecordVisitor[int]):
    """Writes what it visits as canonical record lines; the result is the line count."""

    def __init__(self, target: IO[str]) -> None:
        self.target = target
        self.count = 0
        self.limits = Limits(str(getattr(target, "name", "record")))

    def _write(self, obj: Mapping[str, Any]) -> None:
        line = dumps(dict(obj))
        self.limits.check(line)
        self.target.write(line)
        self.target.write("\n")
        self.count += 1

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self._write(header)

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        self._write(event)

    def result(self) -> int:
        return self.count


# ---------------------------------------------------------------- schema


def schema() -> dict[str, Any]:
    """The JSON Schema of this record format version (``$defs``: ``header``, ``event``)."""
    from importlib.resources import files

    text = files("segsim").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def schema_errors(lines: Iterable[str | Mapping[str, Any]]) -> list[str]:
    """Check record lines (texts or objects, header first) against the schema.

    Returns one message per problem (``line N: path: message``). Each event is checked
    against the common event fields and its own type's definition, which is what the
    schema's ``if``/``then`` list says, only faster. Needs the ``jsonschema`` package
    (segsim's ``dev`` extra).
    """
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "schema_errors needs jsonschema: pip install jsonschema (or 'segsim[dev]')",
            name="jsonschema",
        ) from None

    root = schema()
    defs = dict(root["$defs"])
    defs["event"] = {k: v for k, v in defs["event"].items() if k != "allOf"}
    cls = jsonschema.validators.validator_for(root)
    validators: dict[str, Any] = {}

    def validator(ref: str) -> Any:
        found = validators.get(ref)
        if found is None:
            parts = [{"$ref": "#/$defs/event"}] if ref.startswith("event:") else []
            found = cls({"allOf": [*parts, {"$ref": f"#/$defs/{ref}"}], "$defs": defs})
            validators[ref] = found
        return found

    out = []
    for number, item in enumerate(lines, 1):
        obj = json.loads(item) if isinstance(item, str) else item
        if number == 1:
            ref = "header"
        else:
            kind = obj.get("type") if isinstance(obj, Mapping) else None
            ref = f"event:{kind}" if f"event:{kind}" in defs else "event"
        for err in validator(ref).iter_errors(obj):
            where = "/".join(str(p) for p in err.absolute_path) or "(line)"
            out.append(f"line {number}: {where}: {err.message}")
    return out


__all__ = [
    "MAJOR",
    "Line",
    "Record",
    "RecordBuilder",
    "RecordVisitor",
    "RecordWriter",
    "dumps",
    "event_data",
    "fight_lines",
    "fight_record",
    "read_record",
    "record_lines",
    "schema",
    "schema_errors",
    "visit_fight",
    "write_record",
]
