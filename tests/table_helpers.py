"""Table mode in tests: ``segsim table`` served by a real process, pages in Chromium.

:class:`TableServer` runs the command line (``python -m segsim table ...``) on a free
port and reads the links it prints; :func:`browser` launches Debian's Chromium through
Playwright (never a browser of Playwright's own); :class:`Seat` is one person's page
(the game master's or a player's) in a browser context of its own, driven by clicking
and typing.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from browser import chromium

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"^(game master|player (\S+) \([^)]*\)): (http://\S+)$")
WAIT_MS = 30_000  # a shared, loaded machine can be slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class TableServer:
    """``segsim table ARGS`` on a free port, until :meth:`stop` (or :meth:`kill`)."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "segsim", "table", *args, "--port", str(self.port)],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.gm = ""
        self.players: dict[str, str] = {}
        self.printed: list[str] = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.printed.append(line.rstrip("\n"))
            found = LINK.match(line.strip())
            if found and found.group(2):
                self.players[found.group(2)] = found.group(3)
            elif found:
                self.gm = found.group(3)
                if not any(a.startswith("--player") for a in args):
                    break
            if self.gm and len(self.players) == sum(a == "--player" for a in args):
                break
        if not self.gm:
            self.proc.kill()
            raise AssertionError(f"no links printed: {self.printed} {self.proc.stderr.read()}")  # type: ignore[union-attr]
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise AssertionError("the table server did not start") from None
                time.sleep(0.05)

        self.logs = ""
        """What it wrote after the links (its log, on stdout and stderr), once stopped."""

    def stop(self) -> None:
        self.proc.terminate()
        out, err = self.proc.communicate(timeout=10)
        self.logs = out + err

    def kill(self) -> None:
        """Stop it at once, as a crashed laptop would."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    @property
    def tokens(self) -> list[str]:
        return [url.split("#token=")[1] for url in (self.gm, *self.players.values())]


@contextmanager
def table_server(*args: str, cwd: Path) -> Iterator[TableServer]:
    server = TableServer(*args, cwd=cwd)
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.stop()


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chrome = p.chromium.launch(
            executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield chrome
        finally:
            chrome.close()


class Seat:
    """One person's page, in its own browser context."""

    def __init__(self, chrome: Any, url: str) -> None:
        self.context = chrome.new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready='1']")

    def attr(self, name: str) -> str:
        value: str = self.page.get_attribute("body", f"data-{name}") or ""
        return value

    @property
    def phase(self) -> int:
        return int(self.attr("phase"))

    @property
    def ended(self) -> bool:
        return self.attr("ended") == "1"

    def wait_phase(self, phase: int) -> None:
        """Wait until the page shows ``phase`` (or a later one) or the end."""
        self.page.wait_for_function(
            "(p) => Number(document.body.dataset.phase) >= p"
            " || document.body.dataset.ended === '1'",
            arg=phase,
            polling=20,
        )

    def forms(self) -> list[str]:
        """The fighters this page may declare for now (and has not yet)."""
        return [
            f.get_attribute("data-cid") or ""
            for f in self.page.query_selector_all(".form")
            if not f.query_selector(".declared")
        ]

    def options(self, cid: str) -> list[str]:
        values: list[str] = self.page.eval_on_selector_all(
            f".form[data-cid='{cid}'] select.kind option", "os => os.map(o => o.value)"
        )
        return values

    def choose(self, cid: str, kind: str, target: str | None = None, **params: str) -> None:
        """Fill ``cid``'s form: the action, its target and parameters (their shown text)."""
        form = f".form[data-cid='{cid}']"
        self.page.select_option(f"{form} select.kind", f"do:{kind}")
        if target is not None:
            self.page.select_option(f"{form} select.target", target)
        for key, value in params.items():
            self.page.select_option(f"{form} select[data-param='{key}']", label=value)

    def click(self, cid: str, button: str) -> None:
        self.page.click(f".form[data-cid='{cid}'] button.{button}")

    def error(self) -> str:
        text: str = self.page.inner_text("#error")
        return text

    def close(self) -> None:
        self.context.close()
