"""Every ruleset's fights can be entered as fight scripts: the declarations and dice of
a simulated fight, written as a script and played through the rules, give the same
events (docs/replay.md, "Fight scripts"). Chroniques has a hand-entered example."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from segsim import load_scenario
from segsim.errors import InputError
from segsim.record import event_data, fight_record
from segsim.replay import branch, replay
from segsim.rules import ruleset_names
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))
FOREST = ROOT / "examples/scripts/forest_duel.toml"


def toml_value(value: Any) -> str:
    if isinstance(value, Mapping):  # a declaration's tables are frozen
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)  # strings, numbers, booleans


def script_of(path: Path, seed: int) -> tuple[str, list[dict[str, Any]]]:
    """A fight of the scenario, and the same fight written as a script."""
    fight = load_scenario(path).fight(seed)
    fight.run()
    events = [event_data(e) for e in fight.history]
    segments: dict[int, dict[str, list[Any]]] = {}
    rolls = []
    for e in events:
        if e["type"] == "action.declared" and not e["forced"]:
            d = e["declared"]
            entry = {"action": d["kind"], **({"target": d["target"]} if d["target"] else {})}
            entry.update(d["params"])
            segments.setdefault(e["t"], {}).setdefault(e["actor"], []).append(entry)
        elif e["type"] == "action.cancelled":
            segments.setdefault(e["t"], {}).setdefault(e["actor"], []).append({"cancel": e["kind"]})
        elif e["type"] == "die.rolled":
            rolls.append(f"{e['die']}:{e['value']}")
    lines = ["[fight]", f"scenario = {json.dumps(str(path))}", ""]
    for seg in sorted(segments):
        lines.append(f"[segment.{seg}]")
        for cid, items in segments[seg].items():
            lines.append(f"{cid} = {toml_value(items)}")
        lines.append("")
    lines += ["[dice]", f"rolls = {toml_value(rolls)}", ""]
    return "\n".join(lines), events


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_a_simulated_fight_written_as_a_script_plays_the_same(path: Path, tmp_path: Path) -> None:
    text, events = script_of(path, 1)
    script = tmp_path / "fight.toml"
    script.write_text(text, encoding="utf-8")
    fight = load_script(script, allow_outside=True).play()  # written in a scratch folder
    assert [event_data(e) for e in fight.history] == events
    assert replay(fight_record(fight)).identical


def test_the_examples_cover_every_ruleset() -> None:
    covered = {load_scenario(p).ruleset.name for p in SCENARIOS}
    assert covered == set(ruleset_names())


def test_the_chroniques_example_script_plays_replays_and_branches() -> None:
    fight = load_script(FOREST).play()
    assert fight.ruleset.name == "chroniques"
    assert fight.outcome is not None and fight.outcome.winner == "party"
    record = fight_record(fight)
    assert replay(record).identical
    assert branch(record, 100).first_difference() is None
    what_if = branch(record, 100, {"bandit": "cautious"})
    assert what_if.first_difference() is not None


def test_a_chroniques_turn_out_of_order_names_the_entry(tmp_path: Path) -> None:
    text = FOREST.read_text(encoding="utf-8").replace("[segment.10]", "[segment.5]")
    bad = tmp_path / "forest.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_script(bad).play()
    message = str(error.value)
    assert message.startswith(f"{bad}:") and "segment.5.aldric" in message
    assert "segment 5, aldric" in message
