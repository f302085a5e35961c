"""Regenerate the screenshots of docs/views.md with segsim's own views and headless
Chromium: ``python docs/screenshots.py [OUT_DIR]`` (default: docs/images).

Needs Chromium (Debian: ``apt-get install chromium``; or set SEGSIM_CHROMIUM) and the
``plot`` extra. Every picture comes from an example scenario with a fixed seed, so the
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


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
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
