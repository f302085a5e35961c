"""Table mode's benchmark pieces on tiny inputs (the timing itself lives in ``make bench``):
the round trip is measured over real HTTP on phases that really close, and the scripted
session reaches the phases it is asked for, its resident size read at both ends."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("table_bench", ROOT / "benchmarks/table_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["table_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_round_trips_are_timed_on_phases_that_close(bench: ModuleType) -> None:
    times = bench.round_trips(5)
    assert len(times) == 5 and all(0 < t < 10_000 for t in times)


def test_the_scripted_session_reaches_its_phases(bench: ModuleType) -> None:
    mem = bench.memory(40, 10)
    assert mem["phases"] == 40 and mem["first"] == 10
    assert mem["rss_at_first_kib"] > 0 and mem["rss_at_end_kib"] > 0
    assert mem["events"] > 40
