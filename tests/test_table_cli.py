"""``segsim table`` on the command line: what it serves and where, the links it prints,
and the bad command lines it refuses (exit 2 with a message, nothing served, no record
overwritten); a table's finished record opens in ``segsim view --html``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from segsim.cli import build_parser, main
from segsim.table.cli import DEFAULT_PORT, build_session, links
from segsim.table.session import TABLE_POLICY

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")


def parse(*argv: str) -> tuple[argparse.Namespace, argparse.ArgumentParser]:
    parser = build_parser()
    return parser.parse_args(["table", *argv]), parser


def test_it_serves_this_machine_alone_by_default() -> None:
    args, _ = parse(DUEL)
    assert (args.host, args.port) == ("127.0.0.1", DEFAULT_PORT)


def test_the_links_carry_each_token_in_the_fragment(tmp_path: Path) -> None:
    args, parser = parse(DUEL, "--player", "alice=robert", "--record", str(tmp_path / "r.jsonl"))
    session = build_session(args, parser)
    shown = links(session, "127.0.0.1", 8000)
    assert shown == [
        f"game master: http://127.0.0.1:8000/gm#token={session.gm_token}",
        f"player alice (robert): http://127.0.0.1:8000/play#token={session.tokens['alice']}",
    ]
    lan = links(session, "0.0.0.0", 8000)
    assert lan and all("0.0.0.0" not in line for line in lan)
    assert all("#token=" in line for line in lan)
    assert session.gm_token != session.tokens["alice"] and len(session.gm_token) >= 20


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], "one"),
        ([DUEL, "--script", "x.toml"], "one"),
        ([DUEL, "--player", "alice"], "NAME=ID"),
        ([DUEL, "--player", "alice=nobody"], "no fighter 'nobody'"),
        ([DUEL, "--player", "alice=robert", "--player", "bob=robert"], "two players"),
        ([DUEL, "--player", "alice=robert", "--player", "alice=margaret"], "given twice"),
        ([DUEL, "--auto", "green"], "no fighter or side"),
        ([DUEL, "--auto", "red", "--player", "bob=margaret"], "played by its policy"),
        (["--script", str(ROOT / "examples/scripts/table_duel.toml"), "--auto", "red"], "policy"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "r.jsonl"
    code: int | str | None
    try:
        code = main(["table", *argv, "--record", str(record), "--port", "1"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert words in capsys.readouterr().err
    assert not record.exists()


def test_an_existing_record_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "r.jsonl"
    record.write_text("mine\n")
    assert main(["table", DUEL, "--record", str(record), "--port", "1"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert record.read_text() == "mine\n"


def test_a_finished_table_record_opens_in_the_viewer(tmp_path: Path) -> None:
    args, parser = parse(DUEL, "--auto", "red", "--record", str(tmp_path / "r.jsonl"))
    session = build_session(args, parser)
    while not session.ended:
        view = session.views["robert"]
        strikes = [d for d in view["legal"] if d["kind"] == "strike"]
        session.declare("gm", "robert", session.phase, strikes[:1])
    assert main(["view", str(tmp_path / "r.jsonl"), "--html", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "robert" in page and "victory" in page
    assert main(["replay", str(tmp_path / "r.jsonl")]) == 0
    assert f'"policy":"{TABLE_POLICY}"' in (tmp_path / "r.jsonl").read_text()


def test_resume_takes_the_seed_and_dice_from_the_record(tmp_path: Path) -> None:
    args, parser = parse(DUEL, "--record", str(tmp_path / "r.jsonl"))
    session = build_session(args, parser)
    session.declare("gm", "robert", 0, [{"kind": "arm"}])
    session.declare("gm", "margaret", 0, [{"kind": "arm"}])
    session.declare("gm", "robert", 1, [])  # pending: secret, and not in the record
    with pytest.raises(SystemExit):
        build_session(*parse("--resume", str(tmp_path / "r.jsonl"), "--seed", "3"))
    again = build_session(*parse("--resume", str(tmp_path / "r.jsonl"), "--player", "a=robert"))
    assert (again.phase, again.fight.state.segment) == (1, 1)
    assert again.views.keys() == session.views.keys() and not again.declared
    assert again.holder == {"robert": "a", "margaret": "gm"}
