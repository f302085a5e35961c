"""Same scenario, seed and policies give the same record, byte for byte (DESIGN, 5-6)."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from segsim import load_scenario
from segsim.record import write_record


def record_text(root: Path, seed: int) -> str:
    fight = load_scenario(root / "examples/scenarios/duel.toml").fight(seed)
    fight.run()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


def test_same_seed_same_bytes_other_seed_other_fight(root: Path) -> None:
    a, b = record_text(root, 7), record_text(root, 7)
    assert a == b
    assert record_text(root, 8) != a


def test_the_record_has_a_header_events_and_an_end(root: Path) -> None:
    import json

    lines = [json.loads(line) for line in record_text(root, 7).splitlines()]
    header = lines[0]
    assert header["format"] == "segsim-record" and header["version"].startswith("2.")
    assert header["ruleset"] == "rinkanou" and header["seed"] == 7
    robert = header["combatants"][0]
    assert robert["sheet"]["weapon"]["speed"] == 3 and robert["policy"] == "defender"
    for event in lines[1:]:
        assert list(event)[:3] == ["t", "type", "actor"]
    assert lines[-1]["type"] == "end" and lines[-1]["outcome"]
    events = lines[1:]
    # One d100 per test, one per hit location: nothing else draws.
    assert sum(1 for e in events if e["type"] == "die.rolled") == sum(
        1 for e in events if e["type"] == "test.rolled"
    ) + sum(1 for e in events if e["type"] == "wound.taken")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_any_seed_gives_a_consistent_fight(seed: int) -> None:
    """Invariants of every fight: it ends; each rolled action resolves in the segment its
    declaration announced; dice draws are all recorded before what used them."""
    scenario = load_scenario(Path(__file__).parent.parent / "examples/scenarios/duel.toml")
    fight = scenario.fight(seed)
    outcome = fight.run()
    assert outcome.result in ("victory", "time limit", "stalemate")
    assert fight.history[-1].TYPE == "end"
    declared = {e.action: e for e in fight.history if e.TYPE == "action.declared"}
    cancelled = {e.action for e in fight.history if e.TYPE == "action.cancelled"}
    for e in fight.history:
        if e.TYPE == "test.rolled" and e.action is not None and e.action not in cancelled:
            assert e.t == declared[e.action].ends_in
    draws = [e for e in fight.history if e.TYPE == "die.rolled"]
    assert [d.value for d in draws] == [d.value for d in fight.dice.draws]
    assert all(a.t <= b.t for a, b in zip(fight.history, fight.history[1:], strict=False))
