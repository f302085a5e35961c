"""The account ``segsim run`` prints: what happened, one line each; the rules' bookkeeping
with ``--verbose``; declarations in the fight script's own syntax (issue 40, "The
account")."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from segsim.actions import Declaration
from segsim.cli import main
from segsim.events import ActionDeclared
from segsim.input import Source
from segsim.record import read_record
from segsim.script import _item, load_script

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
COARSE = {
    "chroniques": "chroniques_ambush.toml",
    "loss": "loss_street_brawl.toml",
    "loreval": "loreval_duel.toml",
}
EVERY = {**COARSE, "rinkanou": "duel.toml", "rupture": "rupture_brawl.toml"}
LINE = re.compile(r"^\s*(\d+)\s+\d+\.\ds  (.*)$")
ENTRY = re.compile(r"^([A-Za-z0-9_-]+) = (.*?)  # ")


def account(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    """The account lines (segment, text) of ``segsim run ARGS``."""
    assert main(["run", *args]) == 0
    return [m.group(0) for m in map(LINE.match, capsys.readouterr().out.splitlines()) if m]


@pytest.mark.parametrize("ruleset", sorted(COARSE))
def test_a_coarse_account_leaves_the_rules_bookkeeping_to_verbose(
    ruleset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = str(SCENARIOS / COARSE[ruleset])
    short = account(capsys, scenario)
    full = account(capsys, scenario, "--verbose")
    forced = [line for line in full if "forced by the rules" in line]
    assert forced, "the verbose account shows the turns and waits the rules force"
    assert not [line for line in short if ": turn, forced" in line or ": await, forced" in line]
    assert set(short) < set(full)  # nothing else is lost: the default is a part of it
    assert len(short) < len(full) * 0.8
    # What happened stays: every chosen declaration and every fighter out of the fight.
    for line in full:
        if ENTRY.search(LINE.match(line).group(2)) or "is out of the fight" in line:
            assert line in short


def test_loreval_shows_a_declaration_once_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    short = account(capsys, str(SCENARIOS / COARSE["loreval"]))
    assert not [line for line in short if " declares counter -> " in line]
    assert [line for line in short if 'aldren = { action = "counter"' in line]


def test_rinkanou_account_is_as_complete_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(SCENARIOS / "duel.toml")
    short = account(capsys, scenario)
    assert short == account(capsys, scenario, "--verbose")
    assert [line for line in short if "margaret: lock, forced by the rules" in line]


@pytest.mark.parametrize("ruleset", sorted(EVERY))
def test_no_python_in_an_account(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No ``('margaret',)``, ``{'bonus': 2}`` or ``base_duration=3``: words or the
    script's syntax."""
    lines = account(capsys, str(SCENARIOS / EVERY[ruleset]), "--verbose")
    python = re.compile(r"\('|\{'|\['|': |\b[a-z_]+=[^ =]")
    assert [line for line in lines if python.search(line)] == []


def _entries_of(lines: list[str]) -> dict[int, dict[str, list[str]]]:
    """The declarations of an account, as fight-script entries by segment and fighter."""
    out: dict[int, dict[str, list[str]]] = {}
    for line in lines:
        m = LINE.match(line)
        assert m is not None
        entry = ENTRY.match(m.group(2))
        if entry:
            out.setdefault(int(m.group(1)), {}).setdefault(entry.group(1), []).append(
                entry.group(2)
            )
    return out


@pytest.mark.parametrize("ruleset", sorted(EVERY))
def test_an_account_copied_into_a_script_plays_the_same_fight(
    ruleset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Copy every declaration line of an account into a fight script, with the record's
    dice: the script plays the fight again, event for event."""
    shutil.copy(SCENARIOS / EVERY[ruleset], tmp_path / "fight.toml")
    record = tmp_path / "fight.jsonl"
    lines = account(capsys, str(tmp_path / "fight.toml"), "--record", str(record))
    text = ['[fight]\nscenario = "fight.toml"\n']
    for segment, fighters in sorted(_entries_of(lines).items()):
        text.append(f"[segment.{segment}]")
        for who, entries in fighters.items():
            text.append(
                f"{who} = [{', '.join(entries)}]" if len(entries) > 1 else f"{who} = {entries[0]}"
            )
    recorded = read_record(record)
    rolls = [f'"{e["die"]}:{e["value"]}"' for e in recorded.events if e["type"] == "die.rolled"]
    text.append(f"[dice]\nrolls = [{', '.join(rolls)}]\n")
    script = tmp_path / "script.toml"
    script.write_text("\n".join(text), encoding="utf-8")
    fight = load_script(script).play()
    played = [e.describe() for e in fight.history]
    assert played == [
        ActionDeclared(**{k: v for k, v in e.items() if k != "type"}).describe()
        if e["type"] == "action.declared"
        else _describe(e)
        for e in recorded.events
    ]


def _describe(line: dict) -> str:
    from segsim.views.account import describe

    return describe(line)


# Every kind of every ruleset, with parameters of every shape the rules take.
SAMPLES: dict[str, list[tuple[str, str | None, dict]]] = {
    "rinkanou": [
        ("wait", None, {"until": 12, "clear": 2.5}),
        ("arm", None, {"ps": {"bonus": 2}}),
        ("strike", "margaret", {"blow": "thrust", "ps": {"bonus": 1, "malus": 1}, "disarm": True}),
        ("parry", "margaret", {"with": "shield", "difficulty": -10}),
        ("lock", None, {}),
        ("dodge", "margaret", {"pc": 1}),
        ("reposition", "margaret", {}),
        ("disengage", "margaret", {}),
        ("move", None, {"to": [3.5, -1.0], "pace": "run"}),
        ("read", "margaret", {"action_id": 7}),
        ("ready", None, {}),
        ("shoot", "margaret", {"shot": "aimed"}),
        ("draw", None, {"weapon": "dagger"}),
        ("regrip", None, {"item": "sabre"}),
        ("pick_up", None, {}),
        ("keep", "margaret", {}),
        ("stance", None, {"oppose_disengage": False, "ps_bonus": 2}),
    ],
    "chroniques": [
        ("attack", "bandit", {"hand": "off"}),
        ("concerted_attack", "bandit", {"partner": "nissa"}),
        ("simple_defence", None, {}),
        ("move", "bandit", {"free": True}),
        ("draw", None, {"weapon": "dague", "hand": "off"}),
        ("two_weapons", "bandit", {"second_target": "archer"}),
        ("total_defence", None, {}),
        ("capability", "bandit", {"name": "Attaque puissante"}),
        ("free", None, {"what": "shout"}),
        ("delay", None, {"initiative": 5}),
        ("pass", None, {}),
        ("wait", None, {"until": 120}),
    ],
    "loss": [
        ("attack", "malfrat", {"exploits": 2, "effects": ["extra_damage", "knockdown"]}),
        ("parry", None, {"against": 9, "effects": ["counter"]}),
        ("dodge", None, {"against": 16, "exploits": 0}),
        ("wait", None, {"phases": 2}),
    ],
    "loreval": [
        ("attack", "sylva", {"attacks": 5, "attention": {"environment": 0, "focus": 2}}),
        ("counter", "sylva", {"against": "defensive", "how": "parry"}),
        ("grace", None, {"attention": {"security": 3}}),
    ],
    "rupture": [
        ("attack", "lout", {"weapon": "sword"}),
        ("defend", "lout", {"skill": "melee"}),
        ("threaten", "lout", {}),
        ("move", None, {"to": [2.5, 0.0]}),
        ("pass", None, {}),
    ],
}


def _kinds(ruleset: str) -> set[str]:
    """Every action kind a script may declare in a ruleset (not the rules' own)."""
    if ruleset == "rinkanou":
        from segsim.rules.rinkanou import KINDS

        return set(KINDS)
    if ruleset == "chroniques":
        from segsim.rules.chroniques import KINDS

        return set(KINDS) - {"turn", "await"}
    if ruleset == "rupture":
        from segsim.rules.rupture import KINDS

        return set(KINDS)
    if ruleset == "loss":
        from segsim.rules.loss.ruleset import KINDS

        return set(KINDS) - {"turn", "await"}
    from segsim.rules.loreval.declare import KIND_PARAMS

    return set(KIND_PARAMS) | {"wait", "drop"}


@pytest.mark.parametrize("ruleset", sorted(SAMPLES))
def test_every_kind_of_declaration_reads_back_from_its_account_line(ruleset: str) -> None:
    """The account's line of a declaration, pasted under ``[segment.N]``, is read by the
    script loader as the same declaration: for every kind of the ruleset."""
    samples = {kind: (target, params) for kind, target, params in SAMPLES[ruleset]}
    for kind in sorted(_kinds(ruleset)):
        target, params = samples.get(kind, (None, {"n": 1, "name": 'é "x"', "f": 0.5}))
        event = ActionDeclared(
            t=4,
            actor="robert",
            action=3,
            kind=kind,
            target=target,
            duration=3,
            ends_in=6,
            params={**params, "planned": ("a", "b")},
            declared={"kind": kind, "target": target, "params": params},
        )
        line = event.describe()
        entry = ENTRY.match(line)
        assert entry is not None, line
        assert "planned a, b" in line  # what the rules added, in words
        data = tomllib.loads(f"[segment.4]\n{line}")
        source = Source("script.toml", f"[segment.4]\n{line}", data)
        read = _item(
            source.root().table("segment").child("4"),
            "robert",
            data["segment"]["4"]["robert"],
            0,
            1,
        )
        assert read == Declaration(kind, target, _plain(params)), line


def _plain(params: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
