"""The fight record: JSON Lines, with its own explicit serializer.

Line 1 is the header (``format``, ``version``, ruleset and options, seed, combatants with
their full sheets); then one line per event, each with ``t`` (segment), ``type`` and
``actor`` first; the last line is the ``end`` event. The same fight gives the same bytes:
nothing here depends on logging configuration, dict order of the moment, or the clock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from segsim.errors import RecordError
from segsim.events import Event
from segsim.fight import RECORD_FORMAT, RECORD_VERSION, Fight


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


def record_lines(header: Mapping[str, Any], events: Iterable[Event]) -> Iterator[str]:
    yield dumps(dict(header))
    for event in events:
        yield dumps(event_data(event))


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


def read_record(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and event objects of a record; refuses unknown formats and versions."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(name, None, f"cannot read: {exc.strerror}") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        raise RecordError(name, len(lines), "truncated last line (no newline at the end)")
    if not lines:
        raise RecordError(name, None, "empty record")
    objects = []
    for i, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(name, i, f"not JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise RecordError(name, i, "a record line is a JSON object")
        objects.append(obj)
    header = objects[0]
    if header.get("format") != RECORD_FORMAT:
        raise RecordError(name, 1, f"not a segsim record (format {header.get('format')!r})")
    version = str(header.get("version", ""))
    major = version.split(".", 1)[0]
    if major != RECORD_VERSION.split(".", 1)[0]:
        raise RecordError(
            name,
            1,
            f"record format version {version!r} is not supported (this segsim reads "
            f"{RECORD_VERSION.split('.', 1)[0]}.x)",
        )
    for i, obj in enumerate(objects[1:], 2):
        for key in ("t", "type", "actor"):
            if key not in obj:
                raise RecordError(name, i, f"event has no {key!r}")
    return header, objects[1:]
