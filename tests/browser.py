"""Headless Chromium for the browser tests: open a page, let its scripts run, read the
rendered document back (``--dump-dom``).

Chromium is required, never skipped: ``make test`` installs Debian's ``chromium`` when
it is missing and apt-get can be used (as root); elsewhere install it yourself or point
``SEGSIM_CHROMIUM`` at a Chromium or Chrome binary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

HOW = (
    "the browser tests need Chromium: on Debian or Ubuntu `apt-get install -y chromium` "
    "(`make test` does it when run as root), elsewhere install Chromium or Chrome and set "
    "SEGSIM_CHROMIUM=/path/to/it"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def chromium() -> str:
    """The Chromium binary, or a test failure saying how to get one."""
    wanted = os.environ.get("SEGSIM_CHROMIUM")
    for name in ([wanted] if wanted else []) + ["chromium", "chromium-browser", "google-chrome"]:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(HOW, pytrace=False)


def run_chromium(args: list[str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="segsim-chromium-") as profile:
        return subprocess.run(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def dump_dom(page: Path, fragment: str = "", *, budget_ms: int = 5000) -> str:
    """The document of ``page`` after its scripts ran (``fragment``: ``t=25``...)."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    done = run_chromium(
        ["--window-size=1400,1000", f"--virtual-time-budget={budget_ms}", "--dump-dom", url]
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, out: Path, *, fragment: str = "", size: str = "1400,1000") -> None:
    """A PNG of ``page`` as the browser draws it."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    done = run_chromium(
        [f"--window-size={size}", "--virtual-time-budget=5000", f"--screenshot={out}", url]
    )
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]


def with_script(page: Path, script: str, out: Path) -> Path:
    """A copy of ``page`` with ``script`` run once the page has loaded and drawn itself
    (a test driving the page through its real controls, as a user would)."""
    text = page.read_text(encoding="utf-8")
    head, tail = text.rsplit("</body>", 1)
    wrapped = f'window.addEventListener("load", () => {{\n{script}\n}});'
    out.write_text(f"{head}<script>\n{wrapped}\n</script>\n</body>{tail}", encoding="utf-8")
    return out


class Elements(HTMLParser):
    """Every start tag's attributes, and the text of ``#errors``."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.errors = ""
        self._in_errors = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.tags.append((tag, found))
        self._in_errors = found.get("id") == "errors"

    def handle_endtag(self, tag: str) -> None:
        self._in_errors = False

    def handle_data(self, data: str) -> None:
        if self._in_errors:
            self.errors += data


def elements(dom: str) -> Elements:
    parser = Elements()
    parser.feed(dom)
    return parser
