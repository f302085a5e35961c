"""Look at a fight and at an experiment: a timeline, the HTML fight viewer, a report.

The same from the command line (from the repository's root):

    segsim run examples/scenarios/three_against_three.toml --record fight.jsonl
    segsim timeline fight.jsonl --svg fight.svg
    segsim view fight.jsonl --html fight.html
    segsim sweep examples/scenarios/duel.toml --fights 200 --compare red=pressure \\
        --report sweep.html --plot sweep.png
    segsim tournament examples/scenarios/duel.toml --policies aggressive counter pressure \\
        --fights 50 --report tournament.html

Run: python examples/views.py [OUT_DIR]   (default: a new temporary folder)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from segsim import load_scenario
from segsim.experiment import run, sweep, write_report
from segsim.record import write_record
from segsim.views import timeline
from segsim.views.html import write_viewer

HERE = Path(__file__).resolve().parent


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    fight = load_scenario(HERE / "scenarios/three_against_three.toml").fight()
    fight.run()
    record = out / "fight.jsonl"
    write_record(fight, record)
    view = timeline(record)
    (out / "fight.svg").write_text(view.svg(), encoding="utf-8")
    write_viewer(record, out / "fight.html")
    print(view.text(width=100).splitlines()[0])
    results = run(sweep(HERE / "scenarios/duel.toml", 100, compare={"red": "pressure"}))
    write_report(results, out / "sweep.html")
    print(results.summary().text().splitlines()[-1])
    for name in ("fight.jsonl", "fight.svg", "fight.html", "sweep.html"):
        print(f"wrote {out / name}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="segsim-")))
