"""The command line as a newcomer meets it (issue 40, "The account" and "Command line"):
the end of a fight, the legend, one time convention, argument orders, refused output
paths, ``--until`` past the end, misspelt options and commands, parameter errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from segsim.actions import Declaration
from segsim.cli import main
from segsim.errors import IllegalDeclaration
from segsim.scenario import load_scenario
from segsim.views.legend import TERMS

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
DUEL = str(SCENARIOS / "duel.toml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "duel.jsonl")
    assert main(["run", DUEL, "--quiet", "--record", path]) == 0
    capsys.readouterr()
    return path


# ---------------------------------------------------------------- the end of a fight


@pytest.mark.parametrize(
    ("scenario", "columns"),
    [
        ("duel.toml", ["wounds", "PS"]),
        ("chroniques_ambush.toml", ["HP"]),
        ("loss_street_brawl.toml", ["health", "PA", "Fursa", "inspiration"]),
        ("loreval_duel.toml", ["HP", "heroism"]),
        ("rupture_brawl.toml", ["effort", "stress", "wounds"]),
    ],
)
def test_a_fight_ends_with_each_fighters_state_in_its_rulesets_terms(
    scenario: str, columns: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    code, out, _ = run(capsys, "run", str(SCENARIOS / scenario), "--record", str(path))
    assert code == 0
    tail = out[out.index("record written to") :].splitlines()
    header = tail[2].split()
    assert header[:3] == ["fighter", "side", "state"] and header[3:] == columns
    fighters = load_scenario(SCENARIOS / scenario).combatants
    rows = {line.split()[0]: line for line in tail[4 : 4 + len(fighters)]}
    assert set(rows) == {c.id for c in fighters}
    assert any("out (" in row for row in rows.values())
    assert f"segsim replay {path}" in out and f"segsim view {path} --html" in out


def test_the_status_table_reads_the_fighters_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    """The duel with seed 7: margaret is out incapacitated with 41 wound points."""
    _, out, _ = run(capsys, "run", DUEL, "--seed", "7")
    row = next(line for line in out.splitlines() if line.startswith("margaret "))
    assert re.search(r"margaret\s+red\s+out \(incapacitated\)\s+41 \(incapacitated\)", row)
    assert "next: add --record FILE" in out


@pytest.mark.parametrize("ruleset", sorted(TERMS))
def test_the_legend_explains_the_terms_once(
    ruleset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = {
        "rinkanou": "duel.toml",
        "chroniques": "chroniques_ambush.toml",
        "loss": "loss_street_brawl.toml",
        "loreval": "loreval_duel.toml",
        "rupture": "rupture_brawl.toml",
    }[ruleset]
    _, plain, _ = run(capsys, "run", str(SCENARIOS / scenario))
    assert f"(terms explained: --legend, or docs/rules/{ruleset}.md" in plain.splitlines()[1]
    _, out, _ = run(capsys, "run", str(SCENARIOS / scenario), "--legend")
    assert out.splitlines()[1].startswith(f"legend ({ruleset}")
    block = out.split("\n    0 ")[0]  # the legend, before the account's first line
    for term, _what in TERMS[ruleset]:
        assert len([line for line in block.splitlines() if line.startswith(f"  {term}  ")]) == 1
    if ruleset == "rinkanou":
        assert "PS " in out and "Mr / Me" in out and "deflection" in out


# ---------------------------------------------------------------- time


def test_a_time_limit_says_how_many_segments_were_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``max_segments = 20``: segments 0 to 19 are played; the fight stops as segment
    20 would begin, 2.0 s."""
    text = (SCENARIOS / "duel.toml").read_text(encoding="utf-8")
    path = tmp_path / "short.toml"
    path.write_text(text.replace("[fight]\n", "[fight]\nmax_segments = 20\n", 1), encoding="utf-8")
    _, out, _ = run(capsys, "run", str(path), "--quiet", "--seed", "1")
    assert out.strip() == (
        "outcome: time limit, no winner: the limit of 20 segments (2.0 s) is reached"
    )


def test_a_branch_and_its_record_say_the_end_the_same_way(
    record: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "replay", record, "--until", "9", "--quiet")
    ours = re.search(r"^outcome: (.*)$", out, re.M)
    theirs = re.search(r"^recorded: (.*)$", out, re.M)
    assert ours and theirs and ours.group(1) == theirs.group(1)
    assert ours.group(1) == "victory, side blue wins in segment 55 (5.5 s)"


def test_the_account_stamps_a_segment_with_the_second_it_begins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The hit of segment 8 is at 0.8 s in the account, and fight.clock.env_time(8) is
    0.8 for a host counting seconds (docs/embedding.md prints it so)."""
    _, out, _ = run(capsys, "run", DUEL, "--seed", "7")
    assert "    8    0.8s  margaret is hit in the abdomen by robert" in out
    fight = load_scenario(SCENARIOS / "duel.toml").fight(7, scale=0.1)
    assert fight.clock.env_time(8) == pytest.approx(0.8)


# ---------------------------------------------------------------- argument orders


def test_replay_takes_its_file_after_then(record: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = run(capsys, "replay", record, "--until", "9", "--then", "robert=aggressive")
    after = run(capsys, "replay", "--until", "9", "--then", "robert=aggressive", record)
    assert before[0] == after[0] == 0
    assert before[1] == after[1]
    assert "then robert: aggressive" in after[1]


def test_tournament_takes_its_scenario_after_policies(capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--fights", "2", "--progress", "off"]
    a = run(capsys, "tournament", DUEL, "--policies", "aggressive", "defender", *common)
    b = run(capsys, "tournament", "--policies", "aggressive", "defender", DUEL, *common)
    assert a[0] == b[0] == 0 and a[1] == b[1]


def test_a_missing_file_is_still_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "--until", "9", "--then", "aggressive")
    assert code == 2 and "the following arguments are required: file" in err


# ---------------------------------------------------------------- output paths


@pytest.mark.parametrize(
    "argv",
    [
        ["run", DUEL, "--record", "/no/such/dir/x.jsonl"],
        [
            "run",
            "--script",
            str(ROOT / "examples/scripts/table_duel.toml"),
            "--record",
            "/no/such/dir/x.jsonl",
        ],
        ["replay", "RECORD", "--until", "9", "--record", "/no/such/dir/x.jsonl"],
        ["timeline", "RECORD", "--svg", "/no/such/dir/x.svg"],
        ["view", "RECORD", "--html", "/no/such/dir/x.html"],
        ["sweep", DUEL, "--fights", "2", "--report", "/no/such/dir/r.html"],
        [
            "tournament",
            DUEL,
            "--policies",
            "aggressive",
            "defender",
            "--rerun",
            "0",
            "--record",
            "/no/such/dir/x.jsonl",
        ],
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_the_fight(
    argv: list[str], record: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [record if a == "RECORD" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert "/no/such/dir" in err and "no folder" in err
    assert out == ""  # nothing ran: no account, no outcome


def test_a_folder_is_not_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "run", DUEL, "--record", str(tmp_path))
    assert code == 2 and "is a folder" in err and out == ""


def test_until_past_the_end_says_so(record: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", record, "--until", "900")
    assert code == 2
    assert "--until 900 is past the end of the fight" in err
    assert "ends in segment 55 (victory); give T from 0 to 55" in err


# ---------------------------------------------------------------- misspellings


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["replya", "x.jsonl"], "did you mean 'replay'?"),
        (["tournement"], "did you mean 'tournament'?"),
        (["run", DUEL, "--recrod", "x.jsonl"], "did you mean --record (not --recrod)?"),
        (["run", DUEL, "--verbsoe"], "did you mean --verbose"),
        (["timeline", "x.jsonl", "--svgg", "x.svg"], "did you mean --svg"),
    ],
)
def test_a_misspelling_gets_a_suggestion(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and hint in err


# ---------------------------------------------------------------- parameter errors


@pytest.mark.parametrize(
    ("scenario", "who", "declaration", "accepted"),
    [
        ("duel.toml", "robert", Declaration("arm", params={"blow": "cut"}), "engage, ps"),
        (
            "loss_street_brawl.toml",
            "diego",
            Declaration("attack", "cutthroat2", {"weapon": "rapier"}),
            "effects, exploits",
        ),
        (
            "chroniques_ambush.toml",
            "nissa",
            Declaration("attack", "archer", {"weapon": "x"}),
            "free, hand",
        ),
        (
            "loreval_duel.toml",
            "aldren",
            Declaration("counter", "sylva", {"weapon": "x"}),
            "against",
        ),
        (
            "rupture_brawl.toml",
            "bran",
            Declaration("threaten", "guard", {"blow": "x"}),
            "it takes",
        ),
    ],
)
def test_a_parameter_a_kind_does_not_take_lists_those_it_does(
    scenario: str, who: str, declaration: Declaration, accepted: str
) -> None:
    fight = load_scenario(SCENARIOS / scenario).fight(1)
    fight.start()
    with pytest.raises(IllegalDeclaration) as info:
        fight.ruleset.plan(fight.state, who, declaration, 0, [])
    message = str(info.value)
    assert re.search(r"takes no parameter \w+ \(it takes", message), message
    assert accepted in message


# ---------------------------------------------------------------- segsim content


@pytest.mark.parametrize("ruleset", ["rinkanou", "chroniques", "loss", "loreval", "rupture"])
def test_every_parameter_of_every_kind_is_described(ruleset: str) -> None:
    """The descriptions follow the rules' own tables: none missing, none extra."""
    from segsim.rules.parameters import kinds, parameters

    table = kinds(ruleset)
    described = parameters(ruleset)
    used = {p for params in table.values() for p in params}
    assert used == set(described)
    assert all(text for text in described.values())


def test_content_lists_kinds_parameters_and_examples_in_any_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "content", "RinKaNou")
    assert code == 0 and out.startswith("rinkanou: ")
    actions = out[out.index("  actions (") :]
    assert "\n    strike\n" in actions
    assert re.search(r"\n      blow +cut or thrust", actions)
    assert re.search(r"\n      pace +one of walk, run", actions)
    assert "examples/scenarios/duel.toml" in out
    assert "examples/scripts/table_duel.toml" in out
    assert "examples/scenarios/loss_street_brawl.toml" not in out
    _, loss, _ = run(capsys, "content", "LOSS")
    assert "examples/scenarios/loss_street_brawl.toml" in loss
    assert re.search(r"\n      against +integer: the id of the attack answered", loss)


def test_a_scenario_may_name_its_ruleset_in_any_case(tmp_path: Path) -> None:
    text = (SCENARIOS / "duel.toml").read_text(encoding="utf-8")
    assert 'ruleset = "rinkanou"' in text
    path = tmp_path / "duel.toml"
    path.write_text(text.replace('ruleset = "rinkanou"', 'ruleset = "RinKaNou"'), encoding="utf-8")
    assert load_scenario(path).fight(7).run().winner == "blue"
