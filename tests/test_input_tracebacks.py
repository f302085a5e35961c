"""Inputs that used to end in a traceback end in an error naming the file, line and
field (issue 39, item 4): ``options.content`` in a data file, a position so far away it
overflows the spatial grid, a record event whose ``action`` is a table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from segsim import InputError, load_scenario
from segsim.cli import main
from segsim.errors import RecordError
from segsim.fight import CombatantSpec, Fight
from segsim.record import fight_lines
from segsim.replay import replay
from segsim.rules import frozen_sheet, get_ruleset
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
ONE_PER_RULESET = [
    "duel.toml",
    "loss_street_brawl.toml",
    "chroniques_ambush.toml",
    "rupture_brawl.toml",
    "loreval_duel.toml",
]


def with_options(text: str, line: str) -> str:
    """A scenario's text with one more line in its [options] table (made if need be)."""
    if "[options]\n" in text:
        return text.replace("[options]\n", f"[options]\n{line}\n", 1)
    return text.replace("[[combatant]]", f"[options]\n{line}\n\n[[combatant]]", 1)


@pytest.mark.parametrize("name", ONE_PER_RULESET)
@pytest.mark.parametrize("value", ["5", '"models"', "{ tables = 1 }", "[1, 2]"])
def test_content_is_not_an_option_of_a_data_file(name: str, value: str, tmp_path: Path) -> None:
    path = tmp_path / name
    text = (SCENARIOS / name).read_text(encoding="utf-8")
    path.write_text(with_options(text, f"content = {value}"), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.field == "options.content"
    assert caught.value.line is not None
    assert "given in Python" in caught.value.message


def test_content_is_not_an_option_of_a_fight_script(tmp_path: Path) -> None:
    script = (ROOT / "examples" / "scripts" / "forest_duel.toml").read_text(encoding="utf-8")
    if "[options]" not in script:
        script = script.replace("[fight]\n", "[options]\ncontent = 5\n\n[fight]\n", 1)
    else:
        script = script.replace("[options]\n", "[options]\ncontent = 5\n", 1)
    path = tmp_path / "script.toml"
    path.write_text(script, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_script(path)
    assert caught.value.field == "options.content"


@pytest.mark.parametrize("ruleset", ["rinkanou", "loss", "chroniques", "rupture", "loreval"])
def test_content_given_in_python_must_be_the_rulesets_content(ruleset: str) -> None:
    with pytest.raises(TypeError, match="content is the ruleset's"):
        get_ruleset(ruleset, {"content": {"tables": 1}})
    rules = get_ruleset(ruleset)
    assert get_ruleset(ruleset, {"content": rules.content}).content is rules.content


@pytest.mark.parametrize("name", ONE_PER_RULESET)
@pytest.mark.parametrize("point", ["[1e308, -1e308]", "[0.0, -1e308]", "[1000000.5, 0.0]"])
def test_a_position_too_far_is_refused_in_every_ruleset(
    name: str, point: str, tmp_path: Path
) -> None:
    text = (SCENARIOS / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_text(re.sub(r"position = \[[^\]]*\]", f"position = {point}", text, count=1), "utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.field == "combatant[0].position"
    assert "from -1,000,000 to 1,000,000" in caught.value.message


def test_the_farthest_position_allowed_plays(tmp_path: Path) -> None:
    text = (SCENARIOS / "loss_street_brawl.toml").read_text(encoding="utf-8")
    path = tmp_path / "far.toml"
    path.write_text(
        re.sub(r"position = \[[^\]]*\]", "position = [1e6, -1e6]", text, count=1), "utf-8"
    )
    fight = load_scenario(path).fight(1)
    fight.run()
    assert fight.outcome is not None


@pytest.mark.parametrize("name", ONE_PER_RULESET)
def test_a_position_too_far_in_a_record_header_is_refused(name: str, tmp_path: Path) -> None:
    fight = load_scenario(SCENARIOS / name).fight(2)
    fight.run()
    lines = list(fight_lines(fight))
    header = json.loads(lines[0])
    header["combatants"][0]["position"] = [1e308, -1e308]
    lines[0] = json.dumps(header)
    path = tmp_path / "far.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        replay(path)
    assert caught.value.line == 1 and "combatants[0].position" in str(caught.value)


def test_a_position_too_far_from_python_is_a_value_error() -> None:
    rules = get_ruleset("rinkanou")
    sheet = frozen_sheet(rules, rules.content.fighters["robert"])
    near = CombatantSpec("b", "blue", sheet, None)
    far = CombatantSpec("a", "red", sheet, None, position=(1e308, 0.0))
    with pytest.raises(ValueError, match="a: a position is"):
        Fight(rules, [far, near])
    fight = Fight(rules, [CombatantSpec("c", "red", sheet, None), near])
    with pytest.raises(ValueError, match="a: a position is"):
        fight.join(far)


def duel_record(tmp_path: Path, change: str) -> Path:
    """The duel's record with the ``action`` of the first event of type ``change``
    turned into a table."""
    fight = load_scenario(SCENARIOS / "duel.toml").fight(7)
    fight.run()
    lines = list(fight_lines(fight))
    index = next(i for i, line in enumerate(lines) if f'"type":"{change}"' in line)
    event = json.loads(lines[index])
    event["action"] = {"x": 1}
    lines[index] = json.dumps(event)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("change", ["action.declared", "test.rolled"])
@pytest.mark.parametrize("command", ["timeline", "view", "replay"])
def test_a_record_action_that_is_a_table_is_refused(
    change: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = duel_record(tmp_path, change)
    args = [command, str(path)]
    if command == "view":
        args += ["--html", str(tmp_path / "page.html")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:" in err and "action: expected an action id" in err
    assert not (tmp_path / "page.html").exists()
