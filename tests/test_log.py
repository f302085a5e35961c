"""Fight events to structlog (segsim.log): every event with its fields for a general
pipeline, the account's lines, nothing at all without a logger or with ``info`` off."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture

from segsim import load_scenario
from segsim.fight import Fight
from segsim.log import AccountRenderer
from segsim.record import fight_lines

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"


def duel(logger: Any = None, seed: int = 7) -> Fight:
    fight = load_scenario(DUEL).fight(seed, logger=logger)
    fight.run()
    return fight


def test_a_fight_without_a_logger_does_no_structlog_work() -> None:
    """Without a logger neither structlog nor segsim.log is even imported."""
    code = (
        "import sys\n"
        "from segsim import load_scenario\n"
        f"fight = load_scenario({str(DUEL)!r}).fight(7)\n"
        "fight.run()\n"
        "assert len(fight.history) > 50\n"
        "print(sorted(m for m in sys.modules if m == 'structlog' or m == 'segsim.log'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_a_pipeline_gets_every_event_with_its_fields() -> None:
    capture = LogCapture()
    logger = structlog.wrap_logger(structlog.PrintLogger(io.StringIO()), processors=[capture])
    fight = duel(logger)
    entries = capture.entries
    assert len(entries) == len(fight.history)
    assert any(e["event"] == "die.rolled" for e in entries)
    for entry, event in zip(entries, fight.history, strict=True):
        assert entry["event"] == event.TYPE
        assert entry["log_level"] == "info"
        assert entry["fight_id"] == fight.fight_id
        assert entry["segment"] == event.t
        assert entry["combatant"] == event.actor
        assert entry["segsim_event"] is event
        for name, value in event.fields().items():
            assert entry[name] == value


def expected_account(fight: Fight, dice: bool) -> list[str]:
    return [
        f"{e.t:>5} {e.t / 10:>6.1f}s  {e.describe()}"
        for e in fight.history
        if dice or e.TYPE != "die.rolled"
    ]


@pytest.mark.parametrize("dice", [False, True])
def test_the_account_is_one_line_per_event_dice_shown_when_asked(dice: bool) -> None:
    out = io.StringIO()
    seen: list[set[str]] = []

    def spy(logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> Any:
        seen.append(set(event_dict))
        return event_dict

    logger = structlog.wrap_logger(
        structlog.PrintLogger(out), processors=[spy, AccountRenderer(show_dice=dice)]
    )
    fight = duel(logger)
    assert out.getvalue().splitlines() == expected_account(fight, dice)
    # The renderer reads the event object: the fields are not copied into the event
    # dictionary, and hidden dice never enter the chain.
    assert len(seen) == len(expected_account(fight, dice))
    assert all(
        keys == {"event", "fight_id", "segment", "combatant", "segsim_event"} for keys in seen
    )


def test_a_logger_with_info_off_gets_nothing_and_the_fight_is_the_same() -> None:
    capture = LogCapture()
    logger = structlog.wrap_logger(
        structlog.PrintLogger(io.StringIO()),
        processors=[capture],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
    )
    logged = duel(logger)
    assert capture.entries == []
    assert list(fight_lines(logged)) == list(fight_lines(duel()))
