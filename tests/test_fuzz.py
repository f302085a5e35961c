"""A short run of segsim's own fuzz suite (``make fuzz`` runs it for longer): for every
ruleset and every input class, hostile input ends in a clean rejection or is accepted,
never in a traceback or a hang; a refused declaration changes nothing, an accepted one
replays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fuzz import cases
from fuzz import strategies as fs
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

RULESETS = fs.fuzz_rulesets()
SHORT = settings(
    max_examples=5,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def check(outcome: cases.Outcome) -> None:
    assert outcome.kind not in cases.BAD, outcome.detail


def test_every_ruleset_is_fuzzed() -> None:
    from segsim.rules import ruleset_names

    assert {rs.name for rs in RULESETS} == set(ruleset_names())
    assert all(rs.kinds for rs in RULESETS)


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_scenarios(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.scenarios(rs))
    def run(raw: bytes) -> None:
        check(cases.scenario_case(raw))

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_scripts(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.scripts(rs))
    def run(raw: bytes) -> None:
        check(cases.script_case(raw))

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_records(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.records(rs), st.integers(0, 120))
    def run(raw: bytes, until: int) -> None:
        check(cases.record_case(raw, until))

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_declarations(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.declarations(rs), st.integers(0, 40))
    def run(items: list[Any], at: int) -> None:
        check(cases.declaration_case(rs.name, rs.scenario, items, at))

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_command_line(rs: fs.FuzzRuleset, tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    record.write_text("".join(f"{line}\n" for line in fs.record_lines(rs.name, 1)))
    damaged = str(tmp_path / "damaged.toml")
    files = {
        **fs.cli_files(rs),
        "record": str(record),
        "out": str(tmp_path / "out.jsonl"),
        "damaged": damaged,
    }

    @SHORT
    @given(fs.cli_cases(rs, files))
    def run(case: tuple[list[str], bytes]) -> None:
        check(cases.cli_case(case[0], damaged=(damaged, case[1])))

    run()


def test_the_judge_sees_a_traceback_and_a_hang() -> None:
    """The fuzz suite would notice: a bug is a traceback, a loop is a hang."""

    def bug() -> str:
        raise KeyError("bug")

    def loop() -> str:
        while True:
            pass

    assert cases.guarded(bug, 5).kind == "traceback"
    assert cases.guarded(loop, 0.2).kind == "hang"
