"""The HTML report and the PNG plot of experiments, the progress display, and the fight
viewer's data (issue 16). The browser renders them in tests/test_browser.py."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.cli import main
from segsim.experiment import Progress, report_html, run, sweep, tournament
from segsim.record import fight_record, write_record
from segsim.views.html import viewer_html

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")


class Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def tags(text: str) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(text)
    return parser.tags


def test_a_sweep_report_has_rates_difference_lengths_actions_damage_and_how_to_redo_it() -> None:
    results = run(sweep(DUEL, 30, compare={"red": "pressure"}))
    page = report_html(results, command="segsim sweep duel.toml --compare red=pressure")
    found = tags(page)
    assert not any(tag == "script" for tag, _ in found)  # self-contained, nothing to run
    assert not re.search(r"(src|href)=\"https?:", page)  # no network
    rates = [a for tag, a in found if tag == "g" and "data-low" in a and "data-label" in a]
    summary = results.summary()
    for arm in summary.arms:
        for s in arm.sides:
            row = next(
                a for a in rates if a["data-label"].startswith(f"[{arm.label}] side {s.side}")
            )
            assert float(row["data-value"]) == pytest.approx(s.rate, abs=1e-4)
            assert float(row["data-low"]) == pytest.approx(s.interval[0], abs=1e-4)
    references = [a for tag, a in found if tag == "line" and a.get("class") == "reference"]
    assert {r["data-value"] for r in references} == {"0.5", "0.0"}  # rates and difference
    assert summary.difference is not None
    assert f"{100 * summary.difference[1]:+.1f} points" in page
    assert 'id="lengths"' in page and 'id="actions"' in page and 'id="damage"' in page
    assert "strike" in page and "hit" in page  # per action kind outcomes
    assert "segsim sweep duel.toml --compare red=pressure" in page
    assert f"master seed {results.experiment.seed}" in page.lower() or "Master seed" in page
    assert "simpy" in page and "structlog" in page  # versions


def test_a_tournament_report_has_the_round_robin_heat_map() -> None:
    results = run(tournament(DUEL, ["aggressive", "counter", "pressure"], 10))
    page = report_html(results)
    cells = [a for tag, a in tags(page) if tag == "g" and a.get("class") == "cell"]
    pairs = {(p.a, p.b): p for p in results.summary().pairs}
    assert len(cells) == len(pairs) == 6
    for cell in cells:
        p = pairs[(cell["data-row"], cell["data-column"])]
        assert float(cell["data-rate"]) == pytest.approx(p.rate, abs=1e-4)
        assert float(cell["data-high"]) == pytest.approx(p.interval[1], abs=1e-4)


def test_cli_report_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, png = tmp_path / "r.html", tmp_path / "r.png"
    args = ["tournament", DUEL, "--policies", "aggressive", "pressure", "--fights", "6"]
    assert main([*args, "--report", str(report), "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert f"report written to {report}" in out and f"plot written to {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'class="chart matrix"' in report.read_text(encoding="utf-8")


def test_a_bad_report_path_is_refused_before_the_first_fight(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sweep", DUEL, "--fights", "2", "--report", "nowhere/r.html"]) == 2
    assert "report nowhere/r.html: no folder" in capsys.readouterr().err


# ---------------------------------------------------------------- progress


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_elapsed_rate_and_time_left() -> None:
    tty = Tty()
    bar = Progress(200, stream=tty)
    for _ in range(4):
        bar.update(50)
    bar.close()
    shown = tty.getvalue()
    assert "200/200" in shown and "fight/s" in shown
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", shown)  # elapsed<left


def _without_tqdm(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['tqdm'] = None\n" + code],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_without_tqdm_a_terminal_gets_a_note_and_the_sweep_runs() -> None:
    done = _without_tqdm(
        "import io\n"
        "from segsim.experiment import Progress\n"
        "class Tty(io.StringIO):\n"
        "    def isatty(self): return True\n"
        "s = Tty(); p = Progress(5, stream=s); p.update(5); p.close(); print(s.getvalue())"
    )
    assert done.returncode == 0, done.stderr
    assert "note: the progress display needs tqdm: pip install 'segsim[progress]'" in done.stdout


def test_without_tqdm_asking_for_progress_is_an_error_before_any_fight() -> None:
    done = _without_tqdm(
        "from segsim.cli import main\n"
        f"sys.exit(main(['sweep', {DUEL!r}, '--fights', '2', '--progress', 'on']))"
    )
    assert done.returncode == 2
    assert "--progress on: the progress display needs tqdm" in done.stderr
    assert "wins" not in done.stdout


# ---------------------------------------------------------------- the viewer's file


def _data(page: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" id="fight-data">(.*?)</script>', page, re.S)
    assert m is not None
    payload: dict[str, object] = json.loads(m.group(1))
    return payload


def test_the_viewer_is_one_file_with_its_data_and_scripts_inline(tmp_path: Path) -> None:
    fight = load_scenario(ROOT / "examples/scenarios/three_against_three.toml").fight(None)
    fight.run()
    page = viewer_html(fight)
    found = tags(page)
    assert not any(a.get("src") or (t == "link" and a.get("href")) for t, a in found)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    data = _data(page)
    record = fight_record(fight)
    assert [f["id"] for f in data["fighters"]] == record.combatants  # type: ignore[index]
    assert data["end"] == record.end["t"]  # type: ignore[index]
    assert len(data["account"]) == sum(1 for e in record.events if e["type"] != "die.rolled")  # type: ignore[arg-type]
    out = tmp_path / "fight.html"
    write_record(fight, tmp_path / "fight.jsonl")
    assert main(["view", str(tmp_path / "fight.jsonl"), "--html", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == page


def test_a_name_cannot_end_the_data_script_early(tmp_path: Path) -> None:
    fight = load_scenario(ROOT / "examples/scenarios/duel.toml").fight(1)
    fight.run()
    path = tmp_path / "duel.jsonl"
    write_record(fight, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["combatants"][0]["name"] = "</script><b>x</b><!--"
    lines[0] = json.dumps(header)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = viewer_html(path)
    assert page.count("</script>") == 2  # the data's and the viewer's, nothing injected
    names = [f["name"] for f in _data(page)["fighters"]]  # type: ignore[index]
    assert "</script><b>x</b><!--" in names


def test_fights_and_records_show_the_viewer_in_a_notebook() -> None:
    fight = load_scenario(ROOT / "examples/scenarios/duel.toml").fight(1)
    fight.run()
    shown = fight._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and "fight-data" in shown
    assert fight_record(fight)._repr_html_() == shown


def test_view_refuses_bad_input_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fight = load_scenario(ROOT / "examples/scenarios/duel.toml").fight(1)
    fight.run()
    record = tmp_path / "duel.jsonl"
    write_record(fight, record)
    assert main(["view", str(record), "--html", str(tmp_path / "no" / "x.html")]) == 2
    assert "viewer " in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n', encoding="utf-8")
    assert main(["view", str(bad), "--html", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: not a segsim record" in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()
