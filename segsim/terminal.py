"""Text for terminals: names and messages from data files are shown, never obeyed.

A fighter named ``"\\x1b[2J"`` must not clear the screen of whoever runs the scenario:
:func:`printable` writes control characters (C0 but newline and tab, DEL, C1, and the
Unicode controls that reorder text) as visible escapes, and :class:`SafeWriter` does it
for everything written to a stream.
"""

from __future__ import annotations

import re
from typing import TextIO

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character written as an escape (``\\x1b``)."""
    return _CONTROL.sub(_escape, text)


class SafeWriter:
    """A text stream that writes :func:`printable` text to another one."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(printable(text))

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()
