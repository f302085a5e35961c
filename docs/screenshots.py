"""Regenerate the screenshots of docs/views.md and docs/table.md with segsim's own views
and headless Chromium: ``python docs/screenshots.py [OUT_DIR]`` (default: docs/images).

Needs Chromium (Debian: ``apt-get install chromium``; or set SEGSIM_CHROMIUM), the
``plot`` and ``table`` extras, and Playwright (the ``dev`` extra) for table mode's pages,
which are served live. Every picture comes from an example scenario with a fixed seed, so the
same checkout gives the same fights.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from segsim import load_scenario
from segsim.experiment import plot, run, sweep, tournament, write_report
from segsim.record import write_record
from segsim.views import timeline
from segsim.views.html import write_viewer

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples/scenarios"


def browser() -> str:
    for name in filter(None, [os.environ.get("SEGSIM_CHROMIUM"), "chromium", "chromium-browser"]):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("screenshots need Chromium: apt-get install chromium, or set SEGSIM_CHROMIUM")


def shoot(page: Path, out: Path, size: str, fragment: str = "") -> None:
    """A PNG of a page as headless Chromium draws it, once its scripts have run."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                browser(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={size}",
                "--virtual-time-budget=5000",
                f"--screenshot={out}",
                url,
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    print(f"wrote {out}")


def table_pages(out_dir: Path) -> None:
    """Table mode's pages in the middle of a duel: the game master's (Margaret has
    declared, Robert not yet) and Robert's player's, served by a real server."""
    import socket
    import threading
    import time

    import uvicorn
    from playwright.sync_api import sync_playwright

    from segsim.table.app import build_app
    from segsim.table.session import TableSession, TableSetup

    with tempfile.TemporaryDirectory() as scratch:
        setup = TableSetup.from_scenario(load_scenario(SCENARIOS / "duel.toml"))
        players = {"alice": ["robert"], "bob": ["margaret"]}
        session = TableSession(setup, Path(scratch) / "duel.jsonl", players=players)
        moves = [("margaret", [{"kind": "arm"}]), ("robert", [{"kind": "arm"}])]
        while moves:  # both arm, then the next phase with both called
            cid, items = moves.pop(0)
            session.declare(session.holder[cid], cid, session.phase, items)
        while not any(d["kind"] == "strike" for d in session.views["margaret"]["legal"]):
            for cid in list(session.views):  # until the sabres are drawn
                session.declare(session.holder[cid], cid, session.phase, [])
        strike = next(d for d in session.views["margaret"]["legal"] if d["kind"] == "strike")
        session.declare("bob", "margaret", session.phase, [strike])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(build_app(session), port=port, log_level="warning", access_log=False)
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                chrome = p.chromium.launch(executable_path=browser(), args=["--no-sandbox"])
                for name, url, size in (
                    ("table-gm.png", f"{base}/gm#token={session.gm_token}", (1400, 1000)),
                    (
                        "table-player.png",
                        f"{base}/play#token={session.tokens['alice']}",
                        (520, 1000),
                    ),
                ):
                    page = chrome.new_page(viewport={"width": size[0], "height": size[1]})
                    page.goto(url)
                    page.wait_for_selector("body[data-ready='1']")
                    if "gm" in name:
                        page.frame_locator("#viewer").locator("body[data-ready='1']").wait_for()
                    else:  # Robert's player about to strike, a situation point typed in
                        page.select_option(".form select.kind", "do:strike")
                        page.fill(".form input[data-typed='ps']", '{"bonus": 1}')
                    page.screenshot(path=str(out_dir / name))
                    print(f"wrote {out_dir / name}")
                chrome.close()
        finally:
            server.should_exit = True
            thread.join(timeout=10)


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    table_pages(out_dir)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for name, seed in (
            ("three_against_three", None),
            ("chroniques_ambush", None),
            ("loreval_duel", None),
        ):
            fight = load_scenario(SCENARIOS / f"{name}.toml").fight(seed)
            fight.run()
            record = work / f"{name}.jsonl"
            write_record(fight, record)
            svg = work / f"{name}.svg"
            svg.write_text(timeline(record).svg(), encoding="utf-8")
            shoot(svg, out_dir / f"timeline-{name}.png", "1500,760")
            page = work / f"{name}.html"
            write_viewer(record, page)
            shoot(page, out_dir / f"viewer-{name}.png", "1400,1000", "t=40")
        results = run(sweep(SCENARIOS / "duel.toml", 200, compare={"red": "pressure"}))
        report = work / "sweep.html"
        write_report(
            results,
            report,
            command="segsim sweep examples/scenarios/duel.toml "
            "--fights 200 --compare red=pressure --report sweep.html",
        )
        shoot(report, out_dir / "report-sweep.png", "1100,1300")
        plot(results, out_dir / "plot-sweep.png")
        print(f"wrote {out_dir / 'plot-sweep.png'}")
        games = run(tournament(SCENARIOS / "duel.toml", ["aggressive", "counter", "pressure"], 60))
        plot(games, out_dir / "plot-tournament.png")
        print(f"wrote {out_dir / 'plot-tournament.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "images")
