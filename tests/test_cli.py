"""The ``segsim`` command as a whole: help for every subcommand, ``--version``,
``python -m segsim``, ``segsim content``, the exit codes, and a record that survives a
closed pipe."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from segsim import __version__
from segsim.cli import EXIT_CODES, build_parser, main
from segsim.replay import replay

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")
SEGSIM = Path(sys.executable).with_name("segsim")


def subcommands() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def test_the_subcommands_are_the_documented_ones() -> None:
    assert {"run", "replay", "timeline", "sweep", "tournament", "rules", "content"} <= set(
        subcommands()
    )


@pytest.mark.parametrize("argv", [["--help"], ["-h"], *([c, "--help"] for c in subcommands())])
def test_every_help_prints_its_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A '%' in a help string once crashed `segsim --help` with a traceback."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: segsim")
    if argv[0] in ("--help", "-h"):
        assert "exit codes: 0 " in " ".join(out.split())


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"segsim {__version__}"


def test_python_dash_m_segsim_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "segsim", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == f"segsim {__version__}"


def test_content_lists_fighters_equipment_and_policies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "rinkanou"]) == 0
    out = capsys.readouterr().out
    sections = re.findall(r"^  (\w+) \((\d+)\):$", out, re.M)
    assert [name for name, _ in sections][:1] == ["fighters"]
    assert {"fighters", "weapons", "armours", "policies"} <= {name for name, _ in sections}
    robert = re.search(r"^    robert +(.*)$", out, re.M)
    assert robert is not None and "Robert Jeaispaniol" in robert.group(1)
    assert "sabre" in robert.group(1)
    aggressive = re.search(r"^    aggressive +(.*)$", out, re.M)
    assert aggressive is not None and "Attacks the nearest opponent" in aggressive.group(1)


def test_content_of_every_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    from segsim.policy import policy_names
    from segsim.rules import ruleset_names

    assert main(["content"]) == 0
    out = capsys.readouterr().out
    for name in ruleset_names():
        section = out[out.index(f"{name}: ") :].split("\n\n")[0]
        assert re.search(r"^  fighters \(\d+\):$", section, re.M), name
        for policy in policy_names(name):
            assert re.search(rf"^    {policy} +\S", section, re.M), (name, policy)
    assert re.search(r"^    bandit_chief +chef bandit", out, re.M)  # a Chroniques fighter


def test_content_of_an_unknown_ruleset_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "nope"]) == 2
    assert "unknown ruleset 'nope'" in capsys.readouterr().err


# ---------------------------------------------------------------- exit codes


def test_the_exit_codes_are_documented_in_one_place() -> None:
    page = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `(\d)` \| (.+) \|$", page, re.M))
    assert sorted(int(code) for code in table) == sorted(EXIT_CODES) == [0, 1, 2]


def test_exit_0_done(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "duel.jsonl"
    assert main(["run", DUEL, "--seed", "7", "--quiet", "--record", str(record)]) == 0
    assert main(["replay", str(record)]) == 0
    assert "identical (" in capsys.readouterr().out


def test_exit_1_a_replay_that_diverges(tmp_path: Path) -> None:
    record = tmp_path / "duel.jsonl"
    assert main(["run", DUEL, "--seed", "7", "--quiet", "--record", str(record)]) == 0
    lines = record.read_text(encoding="utf-8").splitlines()
    i, event = next(
        (i, json.loads(line))
        for i, line in enumerate(lines)
        if json.loads(line).get("type") == "die.rolled"
    )
    event["value"] = event["value"] % 100 + 1  # another face: the test it feeds differs
    lines[i] = json.dumps(event, separators=(",", ":"))
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(record)]) == 1


def test_exit_2_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[fight]\nruleset = "rinkanou"\n', encoding="utf-8")
    assert main(["run", str(bad)]) == 2
    assert "bad.toml" in capsys.readouterr().err


def test_exit_2_a_bad_command_line() -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", DUEL, "--seed", "seven"])
    assert exit_.value.code == 2


# ---------------------------------------------------------------- closed pipes


def test_the_record_is_written_when_the_reader_of_the_account_goes_away(tmp_path: Path) -> None:
    """`segsim run ... --record X | head` once lost the record with the pipe."""
    record = tmp_path / "duel.jsonl"
    done = subprocess.run(
        f"'{SEGSIM}' run '{DUEL}' --seed 7 --dice --record '{record}' | head -n 3",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert len(done.stdout.splitlines()) == 3
    assert "Traceback" not in done.stderr
    assert replay(record).identical
