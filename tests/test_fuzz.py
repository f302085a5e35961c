"""A short run of segsim's own fuzz suite (``make fuzz`` runs it for longer): for every
ruleset and every input class, hostile input ends in a clean rejection or is accepted,
never in a traceback, a hang or a crash; a refused declaration changes nothing, an
accepted one replays; what segsim writes replays; forged records are caught. And the
harness itself: a crash or a hang in a child process is counted, the snapshot sees the
whole state, the HTML judge sees data out of its place, the table has a row per
ruleset."""

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


def isolated(run: Any) -> cases.Outcome:
    """A case in a child process, as ``make fuzz`` runs it."""
    return cases.isolated(run, 40.0)


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
def test_declarations_through_advance_and_submit(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.declarations(rs), st.integers(0, 40))
    def run(items: list[Any], at: int) -> None:
        check(isolated(lambda: cases.paused_declaration_case(rs.name, rs.scenario, items, at)))

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_forged_records_are_caught(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.forgeries(rs))
    def run(forged: tuple[bytes, str, bool]) -> None:
        outcome = isolated(lambda: cases.forgery_case(forged[0], forged[2]))
        check(outcome)
        if forged[2]:
            assert outcome.kind == "detected"

    run()


@pytest.mark.parametrize("rs", RULESETS, ids=lambda r: r.name)
def test_content_files(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.content_files(rs))
    def run(files: dict[str, bytes]) -> None:
        check(isolated(lambda: cases.content_case(rs.name, files)))

    run()


@pytest.mark.parametrize("rs", [r for r in RULESETS if fs.rule_list_files(r)], ids=lambda r: r.name)
def test_rule_lists(rs: fs.FuzzRuleset) -> None:
    @SHORT
    @given(fs.rule_lists(rs))
    def run(raw: bytes) -> None:
        check(isolated(lambda: cases.rulelist_case(raw, fs.rule_list_scenario(rs))))

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
        "html": str(tmp_path / "out.html"),
        "svg": str(tmp_path / "out.svg"),
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


def test_a_crash_and_a_hang_in_a_child_are_counted_not_the_end_of_the_run() -> None:
    """A case that aborts (as a fault in C would) is a crash; one that sleeps where no
    alarm reaches it is killed and counted as a hang; the parent goes on."""
    import os
    import signal
    import time

    def abort() -> cases.Outcome:
        import faulthandler

        faulthandler.disable()  # pytest's: no dump of the abort on the run's stderr
        os.abort()

    def sleep_in_c() -> cases.Outcome:
        signal.signal(signal.SIGPROF, signal.SIG_IGN)
        time.sleep(60)
        return cases.Outcome("accepted")

    assert cases.isolated(abort, 5).kind == "crash"
    started = time.monotonic()
    assert cases.isolated(sleep_in_c, 0.5, grace=0.5).kind == "hang"
    assert time.monotonic() - started < 30
    assert cases.isolated(lambda: cases.Outcome("rejected", "fine"), 5).kind == "rejected"
    assert cases.isolated(lambda: cases.Outcome("unsafe", "x"), 5).detail == "x"


def test_the_snapshot_sees_the_ruleset_s_extra_state() -> None:
    """A refused declaration that left an entry in ``state.extra`` (a planner's scratch)
    would be a state change: the snapshot holds ``extra``."""
    from segsim import load_scenario

    fight = load_scenario(RULESETS[0].scenario).fight(3)
    fight.start()
    before = cases.snapshot(fight)
    fight.state.extra["scratch"] = {"left": True}
    after = cases.snapshot(fight)
    assert before != after
    assert "scratch" in cases.first_difference(before, after)


def test_an_undetected_forgery_is_a_finding() -> None:
    """The genuine record presented as a forgery of a die replays as genuine: the judge
    calls it undetected; the same record with a die changed is detected."""
    import json

    rs = RULESETS[0]
    lines = list(fs.record_lines(rs.name, 1))
    genuine = "".join(f"{line}\n" for line in lines).encode()
    assert cases.forgery_case(genuine, True).kind == "undetected"
    assert cases.forgery_case(genuine, False).kind == "accepted"
    i = next(i for i, line in enumerate(lines) if '"die.rolled"' in line)
    die = json.loads(lines[i])
    sides = int(die["die"][1:])
    die["value"] = die["value"] % sides + 1
    lines[i] = json.dumps(die, separators=(",", ":"))
    forged = "".join(f"{line}\n" for line in lines).encode()
    assert cases.forgery_case(forged, True).kind == "detected"


def test_the_html_judge_passes_plain_names_and_sees_a_broken_page() -> None:
    rs = RULESETS[0]
    assert cases.html_case(rs.scenario, ("A fight & co", "Bob <b>")).kind == "accepted"
    page = "<script>x</script>"
    problems = cases.html_problems(page + "<script>", page, "<svg></svg>", "<svg></svg>", "", "")
    assert any("'<script'" in p for p in problems) and any("no fight data" in p for p in problems)


def test_special_files_are_refused_or_counted(tmp_path: Path) -> None:
    """A folder, a device and a dangling link given as a scenario or a record are refused
    (named pipes, which once blocked ``open`` for ever, are in ``make fuzz``)."""
    for kind in ("dir", "null", "dangling"):
        for reader in ("scenario", "record", "cli-run"):
            assert cases.special_case(kind, reader, tmp_path).kind == "rejected", (kind, reader)


def test_most_generated_scripts_are_valid() -> None:
    """Scripts are valid fights with small edits: most of them play."""
    from segsim.script import load_script

    played = tried = 0
    for rs in RULESETS:

        @settings(SHORT, max_examples=12)  # enough fights per ruleset for a rate
        @given(fs.scripts(rs))
        def run(raw: bytes) -> None:
            nonlocal played, tried
            tried += 1
            outcome = cases.script_case(raw)
            check(outcome)
            played += outcome.kind == "accepted"

        run()
    assert load_script  # the reader the cases go through
    assert played * 2 > tried, (played, tried)


def test_the_table_has_a_row_per_ruleset_and_the_findings_columns(tmp_path: Path) -> None:
    from fuzz.run import Stats

    stats = Stats(tmp_path / "failures")
    stats.add("record/loss", cases.Outcome("accepted"), b"")
    stats.add("record/rupture", cases.Outcome("crash", "signal 6"), b"x")
    stats.add("special", cases.Outcome("hang", "fifo"), ("fifo", "scenario"))
    table = stats.table()
    assert "== record" in table and "== special" in table and "== total" in table
    for column in ("cases", "traceback", "hang", "crash", "state", "diverge", "undetected"):
        assert column in table
    assert stats.bad() == 2 and len(list((tmp_path / "failures").iterdir())) == 2


def test_the_soak_counts_fights_and_replays_per_ruleset(tmp_path: Path) -> None:
    """``make soak`` plays the ruleset with the fewest fights next, replays each fight
    (and branches it), and reports per ruleset."""
    from fuzz import soak

    tallies, problems, refusals = soak.soak(0, 3, tmp_path / "r.jsonl", fights=2, branch_every=2)
    assert set(tallies) == {rs.name for rs in RULESETS}
    assert not problems and not refusals
    for tally in tallies.values():
        assert tally.fights == 2 and tally.divergences == 0 and tally.refused == 0
        assert tally.identical == 2
    assert sum(t.branches for t in tallies.values()) >= 1
    shown = soak.table(tallies)
    assert all(rs.name in shown for rs in RULESETS) and "divergences" in shown
