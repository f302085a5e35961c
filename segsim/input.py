"""Reading TOML input with errors that name the file, the line and the field.

:class:`Node` wraps one table of a parsed document and remembers its path, so every
check can report ``file:line: field.path: what is wrong``. Lines are found by a light
scan of the TOML text (tables, arrays of tables, keys, inline tables).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from segsim.errors import InputError

T = TypeVar("T")
PathKey = tuple[str | int, ...]

_KEY = r'(?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\')'
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*=")
_INLINE_KEY = re.compile(rf"[{{,]\s*({_KEY})\s*=")


def _split_key(text: str) -> list[str]:
    return [p.strip().strip("\"'") for p in re.findall(rf"{_KEY}", text)]


def _index_lines(text: str) -> dict[PathKey, int]:
    """Map every key path found in the text to the line where it is defined."""
    found: dict[PathKey, int] = {}
    arrays: dict[PathKey, int] = {}
    header: PathKey = ()

    def resolve(names: Sequence[str]) -> PathKey:
        path: list[str | int] = []
        for name in names:
            path.append(name)
            if tuple(path) in arrays:
                path.append(arrays[tuple(path)])
        return tuple(path)

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _HEADER.match(line)
        if m:
            names = _split_key(m.group(2))
            if m.group(1) == "[[":
                base = (*resolve(names[:-1]), names[-1])
                arrays[base] = arrays.get(base, -1) + 1
                header = (*base, arrays[base])
            else:
                header = resolve(names)
            found.setdefault(header, lineno)
            continue
        m = _ASSIGN.match(line)
        if m:
            key_path = header + tuple(_split_key(m.group(1)))
            found.setdefault(key_path, lineno)
            rest = line[m.end() :]
            if "{" in rest:
                for sub in _INLINE_KEY.finditer(rest):
                    found.setdefault((*key_path, sub.group(1).strip("\"'")), lineno)
    return found


MAX_DEPTH = 32
"""How deeply tables and arrays may nest in an input file (scenarios, scripts, rule
lists, content, records): far more than any real file, few enough that no reader
recurses out of its stack."""
MAX_COORDINATE = 1_000_000.0
"""The farthest a position in a data file lies from the origin along either axis, in
metres (1,000 km): far beyond any battlefield, near enough that distances and the
spatial grid's cells stay exact."""
MAX_BYTES = 16 * 1024 * 1024
"""The largest TOML input file read (16 MiB): scenarios, scripts, rule lists and content,
which people write and segsim does not. Records, which segsim writes, have limits of
their own (:data:`MAX_RECORD_LINE`, :data:`MAX_RECORD_BYTES`)."""
MAX_RECORD_LINE = 64 * 1024 * 1024
"""The longest record line read or written (64 MiB). The longest line is the header,
which holds every combatant's sheet: about 650 bytes a fighter for a battle's, so this
is a header of some 100,000 fighters; an event line is a few hundred bytes."""
MAX_RECORD_BYTES = 4 * 1024 * 1024 * 1024
"""The largest record read or written (4 GiB): a 2,000-fighter battle writes about
100 KiB a segment, so some 40,000 segments of one (beyond the default time limit of
36,000). Records are read line by line, never whole."""
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""Integers are 64-bit, as the TOML specification says."""
_DIGITS = re.compile(r"[0-9_]{4000,}")


def _clean(value: Any, depth: int, limit: int) -> bool:
    """Whether ``value`` (at ``depth``) holds nothing :func:`bad_value` would name: the
    quick pass over what parsers give (dicts, lists, strings, numbers), which builds no
    paths. Recursion stops at ``limit``, so it is bounded however deep the data goes."""
    if depth > limit:
        return False
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(INT_MIN <= value <= INT_MAX)
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        if depth >= limit and value:
            return False  # its items lie deeper than the limit
        for item in value.values():
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if not _clean(item, depth + 1, limit):
                return False
        return True
    if kind is list:
        if depth >= limit and value:
            return False
        for item in value:  # noqa: SIM110 (a loop: no generator per list)
            if not _clean(item, depth + 1, limit):
                return False
        return True
    return False  # anything else: the full pass decides


def bad_value(data: Any, limit: int = MAX_DEPTH) -> tuple[PathKey, str] | None:
    """The first value no input may hold, with what is wrong: nesting deeper than
    ``limit``, a number that is not finite (nan, inf), an integer beyond 64 bits.
    A quick pass (:func:`_clean`) clears the usual case; the full pass, iterative (no
    recursion however deep the data goes), finds and names the value."""
    if _clean(data, 0, limit):
        return None
    return _bad_value_found(data, limit)


def _bad_value_found(data: Any, limit: int) -> tuple[PathKey, str] | None:
    """:func:`bad_value`'s full pass: every value with its path."""
    stack: list[tuple[Any, PathKey]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > limit:
            return path, f"nested more than {limit} levels deep"
        if isinstance(value, Mapping):
            stack.extend((v, (*path, str(k))) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
        elif isinstance(value, float):
            if not math.isfinite(value):
                return path, f"expected a finite number, got {value!r}"
        elif (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not INT_MIN <= value <= INT_MAX
        ):
            return path, "an integer out of the 64-bit range"
    return None


def nesting_line(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The first line where brackets and braces open deeper than ``limit`` (strings are
    skipped roughly: enough to place the error)."""
    depth = 0
    quote = ""
    for lineno, line in enumerate(text.splitlines(), 1):
        for ch in line:
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch in "[{":
                depth += 1
                if depth > limit:
                    return lineno
            elif ch in "]}":
                depth = max(0, depth - 1)
        if quote == "'":  # a literal string does not span lines (multi-line: roughly)
            quote = ""
    return None


def long_number_line(text: str) -> int | None:
    """The line of a number too long to convert (thousands of digits), if any."""
    m = _DIGITS.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def decode(path: str, raw: bytes) -> str:
    """UTF-8 text, or an InputError naming the line of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            path, line, "", f"not UTF-8 text (byte {raw[exc.start]:#04x}: {exc.reason})"
        ) from None


def open_regular(path: str | Path) -> BinaryIO:
    """A file opened for reading in binary, refusing what is not a regular file.

    A named pipe, a device or a folder is refused before anything is read from it: the
    file is opened without waiting (a pipe with no writer would block ``open`` forever)
    and what was opened is checked, so nothing can be swapped in between a check and
    the read."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise InputError(name, None, "", f"cannot read: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(name, None, "", f"cannot read: {_file_kind(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except OSError as exc:
        os.close(fd)
        raise InputError(name, None, "", f"cannot read: {exc.strerror}") from None
    except BaseException:
        os.close(fd)
        raise
    return f


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, refusing what is not a regular file (:func:`open_regular`) or is
    too large."""
    name = str(path)
    with open_regular(path) as f:
        try:
            raw = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise InputError(name, None, "", f"cannot read: {exc.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise InputError(name, None, "", f"larger than {_size(MAX_BYTES)}")
    return raw


def read_lines(
    path: str | Path, max_line: int | None = None, max_bytes: int | None = None
) -> Iterator[tuple[int, bytes, bool]]:
    """A file's lines one at a time, without reading it whole: (number, bytes without
    the newline, whether a newline ended it). What is not a regular file is refused
    (:func:`open_regular`); a line longer than ``max_line`` or a file larger than
    ``max_bytes`` (default: a record's limits) is an InputError naming the line."""
    max_line = MAX_RECORD_LINE if max_line is None else max_line
    max_bytes = MAX_RECORD_BYTES if max_bytes is None else max_bytes
    with open_regular(path) as f:
        total = 0
        number = 0
        while True:
            try:
                raw = f.readline(max_line + 2)
            except OSError as exc:
                raise InputError(
                    str(path), number + 1, "", f"cannot read: {exc.strerror}"
                ) from None
            if not raw:
                return
            number += 1
            total += len(raw)
            ended = raw.endswith(b"\n")
            if ended:
                raw = raw[:-1]
            if len(raw) > max_line:
                raise InputError(str(path), number, "", f"a line longer than {_size(max_line)}")
            if total > max_bytes:
                raise InputError(str(path), number, "", f"larger than {_size(max_bytes)}")
            yield number, raw, ended


def _size(n: int) -> str:
    """A limit in bytes as text (``64 MiB``, ``4 GiB``)."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def _file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "a special file"


class Source:
    """A TOML document: its path, text and parsed data."""

    def __init__(self, path: str, text: str, data: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.text = text
        self._lines: dict[PathKey, int] | None = None
        if data is None:
            data = _parse_toml(path, text)
        self.data: Mapping[str, Any] = data

    @classmethod
    def read(cls, path: str | Path) -> Source:
        return cls(str(path), decode(str(path), read_bytes(path)))

    @classmethod
    def from_data(cls, path: str, data: Mapping[str, Any]) -> Source:
        """Data that did not come from a TOML text (a record header): no line numbers."""
        return cls(path, "", data)

    def line_of(self, path: PathKey) -> int | None:
        """The line defining ``path``, or the closest enclosing one found."""
        if not self.text:
            return None
        if self._lines is None:
            self._lines = _index_lines(self.text)
        for n in range(len(path), 0, -1):
            line = self._lines.get(path[:n])
            if line is not None:
                return line
        return None

    def root(self) -> Node:
        return Node(self, self.data, ())

    def entries(self, key: str) -> dict[str, Node]:
        """The tables ``[key.<id>]`` of a content file by id; any other top-level key is
        an error."""
        root = self.root()
        table = root.table(key, {})
        out = {name: table.child(name) for name, _ in list(table.items())}
        root.finish()
        return out


def _parse_toml(path: str, text: str) -> Mapping[str, Any]:
    """Parse TOML; every failure (syntax, nesting, huge numbers) is an InputError with
    the line, never a traceback."""
    deep = nesting_line(text)
    if deep is not None:
        raise InputError(path, deep, "", f"nested more than {MAX_DEPTH} levels deep")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        if line is None:
            m = re.search(r"line (\d+)", str(exc))
            line = int(m.group(1)) if m else None
        raise InputError(path, line, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise InputError(path, None, "", f"nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # an integer too long to convert
        raise InputError(
            path, long_number_line(text), "", "a number of thousands of digits (64-bit at most)"
        ) from None
    bad = bad_value(data)
    if bad is not None:
        where, message = bad
        raise InputError(path, Source(path, text, {}).line_of(where), field_name(where), message)
    return data


def seed_field(node: Node, default: Any = ...) -> Any:
    """The ``seed`` field of a table: a fight seed (0 to 2**63 - 1, segsim.dice), or
    ``default`` when absent."""
    from segsim.dice import seed_problem

    seed = node.value("seed", int, default)
    problem = None if seed is None else seed_problem(seed)
    if problem is not None:
        raise node.error("seed", problem)
    return seed


def field_name(path: PathKey) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


class Node:
    """One table of an input document, with typed accessors that report precisely."""

    def __init__(self, source: Source, data: Mapping[str, Any], path: PathKey) -> None:
        self.source = source
        self.data = data
        self.path = path
        self._used: set[str] = set()

    def error(self, key: str | int | None, message: str) -> InputError:
        path = self.path if key is None else (*self.path, key)
        return InputError(self.source.path, self.source.line_of(path), field_name(path), message)

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, required: bool) -> Any:
        self._used.add(key)
        if key not in self.data:
            if required:
                # A misspelt key is the likely cause: name it rather than the missing one.
                unread = [k for k in self.data if k not in self._used]
                for typo in difflib.get_close_matches(key, unread, n=1, cutoff=0.75):
                    raise self.error(typo, f"unknown field; did you mean {key!r}?")
                raise self.error(key, "missing (required field)")
            return None
        value = self.data[key]
        if value is None and required:  # JSON null in a record
            raise self.error(key, "null where a value is required")
        return value

    def value(self, key: str, kind: type[T], default: Any = ..., **checks: Any) -> T:
        """A scalar field of a given type; required unless a default is given."""
        raw = self._get(key, default is ...)
        if raw is None:
            return default  # type: ignore[no-any-return]
        return self._check(key, raw, kind, **checks)

    def _check(
        self,
        key: str | int,
        raw: Any,
        kind: type[T],
        *,
        min: float | None = None,
        max: float | None = None,
        choices: Sequence[Any] | None = None,
    ) -> T:
        ok = isinstance(raw, kind) and not (kind is not bool and isinstance(raw, bool))
        if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
            raw, ok = float(raw), True
        if not ok:
            raise self.error(key, f"expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {raw!r}")
        if isinstance(raw, float) and not math.isfinite(raw):
            raise self.error(key, f"expected a finite number, got {raw!r}")
        if isinstance(raw, int) and not isinstance(raw, bool) and not INT_MIN <= raw <= INT_MAX:
            raise self.error(key, "an integer out of the 64-bit range")
        if choices is not None and raw not in choices:
            raise self.error(key, f"{raw!r} is not one of {', '.join(repr(c) for c in choices)}")
        if min is not None and raw < min:
            raise self.error(key, f"{raw!r} is below the minimum {min!r}")
        if max is not None and raw > max:
            raise self.error(key, f"{raw!r} is above the maximum {max!r}")
        return raw  # type: ignore[no-any-return]

    def numbers(self, key: str, kind: type[T], length: int, default: Any = ...) -> tuple[T, ...]:
        """A fixed-length array of numbers (a position)."""
        raw = self._get(key, default is ...)
        if raw is None:
            return default  # type: ignore[no-any-return]
        if not isinstance(raw, list) or len(raw) != length:
            raise self.error(key, f"expected an array of {length} numbers, got {raw!r}")
        return tuple(self._check(key, v, kind) for v in raw)

    def position(self, key: str, default: Any = ...) -> tuple[float, float]:
        """A point ``[x, y]`` in metres, each coordinate within :data:`MAX_COORDINATE`
        of the origin (a finite number far beyond that overflows the spatial grid)."""
        point = self.numbers(key, float, 2, default)
        for v in point:
            if not -MAX_COORDINATE <= v <= MAX_COORDINATE:
                raise self.error(
                    key,
                    f"a coordinate is in metres from {-MAX_COORDINATE:,.0f} to "
                    f"{MAX_COORDINATE:,.0f}, not {v!r}",
                )
        return (point[0], point[1])

    def table(self, key: str, default: Any = ...) -> Node:
        raw = self._get(key, default is ...)
        if raw is None:
            return Node(self.source, default if default is not ... else {}, (*self.path, key))
        if not isinstance(raw, Mapping):
            raise self.error(key, f"expected a table, got {raw!r}")
        return Node(self.source, raw, (*self.path, key))

    def tables(self, key: str, default: Any = ...) -> list[Node]:
        raw = self._get(key, default is ...)
        if raw is None:
            return []
        if not isinstance(raw, list) or not all(isinstance(v, Mapping) for v in raw):
            raise self.error(key, "expected an array of tables")
        return [Node(self.source, v, (*self.path, key, i)) for i, v in enumerate(raw)]

    def items(self) -> Iterator[tuple[str, Any]]:
        """Every key of a free-form table (marks them all as used)."""
        for key, value in self.data.items():
            self._used.add(key)
            yield key, value

    def child(self, key: str) -> Node:
        """A sub-table of a free-form table."""
        value = self.data[key]
        if not isinstance(value, Mapping):
            raise self.error(key, f"expected a table, got {value!r}")
        self._used.add(key)
        return Node(self.source, value, (*self.path, key))

    def finish(self) -> None:
        """Refuse fields nobody read (a typo is an error, not a silent default)."""
        unknown = [k for k in self.data if k not in self._used]
        if unknown:
            raise self.error(unknown[0], f"unknown field{did_you_mean(unknown[0], self._used)}")


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to a misspelt one, or ``""``."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def read_entries(
    folder: Path, file: str, key: str, reader: Callable[[Node, str], T]
) -> dict[str, T]:
    """Every ``[key.id]`` table of a content file, read by ``reader(node, id)``."""
    return {k: reader(n, k) for k, n in Source.read(folder / file).entries(key).items()}


def item_or_table(
    node: Node,
    key: str,
    known: Mapping[str, T],
    what: str,
    reader: Callable[[Node, str], T],
) -> T:
    """An item a sheet gives by id (a string naming one of ``known``) or as a full table."""
    raw = node.data.get(key)
    if isinstance(raw, str):
        node.value(key, str)
        if raw not in known:
            raise node.error(key, f"unknown {what} {raw!r} (known: {', '.join(sorted(known))})")
        return known[raw]
    return reader(node.table(key), key)
