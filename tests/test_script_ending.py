"""Fight scripts that run out of declarations, and answers named by attacker and kind
(issue 40, "Fight scripts")."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from loss_helpers import Plays, arena

from segsim.actions import Declaration
from segsim.cli import main
from segsim.errors import IllegalDeclaration, InputError
from segsim.record import read_record
from segsim.replay import replay
from segsim.rules.loss.status import Incoming
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent

TWO_ACTIONS = """
[fight]
name = "two actions"
ruleset = "chroniques"
seed = 3

[[combatant]]
id = "aldric"
side = "party"
fighter = "aldric"
position = [0.0, 0.0]
is_pc = true

[[combatant]]
id = "bandit"
side = "bandits"
fighter = "bandit"
position = [1.5, 0.0]

[segment.0]
bandit = { action = "attack", target = "aldric" }

[segment.10]
aldric = { action = "attack", target = "bandit" }

[dice]
rolls = ["d20:5", "d20:11", "d8:3"]
"""


def test_a_script_that_runs_out_ends_the_fight_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Chroniques attacks, then nothing: the fight ends with their round (segment
    100), not at the 36,000-segment time limit."""
    path = tmp_path / "two.toml"
    path.write_text(TWO_ACTIONS, encoding="utf-8")
    fight = load_script(path).play()
    assert fight.outcome.result == "interrupted"
    assert fight.outcome.cause == "the script has no declaration after segment 10"
    assert fight.history[-1].t == 100
    record = tmp_path / "two.jsonl"
    assert main(["run", "--script", str(path), "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "outcome: interrupted (the script has no declaration after segment 10)" in out
    assert record.stat().st_size < 10_000
    assert replay(record).divergence is None


def test_a_script_ending_leaves_the_rules_their_own_end() -> None:
    """RinKaNou's table duel ends by the rules (margaret is out), as before."""
    fight = load_script(ROOT / "examples/scripts/table_duel.toml").play()
    assert fight.outcome.result == "victory"


def test_a_script_answers_an_attack_named_by_attacker_and_kind(tmp_path: Path) -> None:
    """``against = { by = "malfrat", kind = "attack" }`` answers malfrat's attack at
    this fighter: the same fight as with its id."""
    shutil.copy(ROOT / "examples/scenarios/loss_street_brawl.toml", tmp_path / "fight.toml")
    record = tmp_path / "fight.jsonl"
    assert main(["run", str(tmp_path / "fight.toml"), "--quiet", "--record", str(record)]) == 0
    events = read_record(record).events
    declared = [e for e in events if e["type"] == "action.declared" and not e["forced"]]
    by_id = {e["action"]: e for e in declared}
    lines = ['[fight]\nscenario = "fight.toml"']
    segments: dict[int, list[str]] = {}
    named = 0
    for e in declared:
        params = dict(e["declared"]["params"])
        against = params.get("against")
        entry = [f'action = "{e["kind"]}"']
        if e["declared"]["target"]:
            entry.append(f'target = "{e["declared"]["target"]}"')
        for key, value in params.items():
            if key == "against":
                attack = by_id[against]
                value = f'{{ by = "{attack["actor"]}", kind = "{attack["kind"]}" }}'
                named += 1
            elif isinstance(value, str):
                value = f'"{value}"'
            elif isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, list):
                value = "[" + ", ".join(f'"{v}"' for v in value) + "]"
            entry.append(f"{key} = {value}")
        segments.setdefault(e["t"], []).append(f"{e['actor']} = {{ {', '.join(entry)} }}")
    for t, entries in sorted(segments.items()):
        lines.append(f"[segment.{t}]")
        lines.extend(entries)
    rolls = [f'"{e["die"]}:{e["value"]}"' for e in events if e["type"] == "die.rolled"]
    lines.append(f"[dice]\nrolls = [{', '.join(rolls)}]")
    script = tmp_path / "script.toml"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert named >= 3
    fight = load_script(script).play()
    played = [e for e in fight.history if e.TYPE == "action.declared" and not e.forced]
    assert [(e.t, e.actor, e.kind, e.params.get("against")) for e in played] == [
        (e["t"], e["actor"], e["kind"], e["params"].get("against")) for e in declared
    ]
    assert fight.history[-1].describe() == "fight ends: victory, side gang wins"


def test_naming_an_attack_that_was_not_made_says_what_to_write(tmp_path: Path) -> None:
    text = TWO_ACTIONS.replace(
        'aldric = { action = "attack", target = "bandit" }',
        'aldric = { action = "attack", target = "bandit", against = { by = "bandit" } }',
    )
    path = tmp_path / "s.toml"
    path.write_text(text.replace('"d8:3"', ""), encoding="utf-8")
    with pytest.raises(InputError, match="takes no parameter against"):
        load_script(path).play()
    path.write_text(text.replace("by = ", "who = "), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape('against = { by = "canahan"')):
        load_script(path)


def test_several_attacks_to_answer_name_their_attackers_and_what_to_write() -> None:
    """Loss, "L'Esquive et la Parade": a defence answers one attack; with two
    pending and none named, the refusal lists them and says how to name one."""
    fight = arena(
        {
            "a": ("x", "malfrat", Plays()),
            "b": ("y", "malfrat", Plays()),
            "c": ("y", "malfrat", Plays()),
        },
        dice=[9, 1, 1],
    )
    fight.start()
    fight.env.run(until=1)
    status = fight.state.combatants["a"].status
    for attack, attacker in ((9, "b"), (12, "c")):
        status.incoming[attack] = Incoming(attack, attacker, 15, 0, (), False, False, granted=0)
    with pytest.raises(IllegalDeclaration) as info:
        fight.ruleset.plan(fight.state, "a", Declaration("dodge"), 0, [])
    message = str(info.value)
    assert "several attacks to answer now (pending: #9 by b, #12 by c)" in message
    assert 'against = { by = "ATTACKER", kind = "attack" }' in message
    assert "#None" not in message
