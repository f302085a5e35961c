"""What-if branches: a record followed up to segment T, then other policies and fresh dice
(docs/replay.md, "Branches")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.cli import main
from segsim.record import Record, fight_lines, fight_record, read_record
from segsim.replay import branch, replay
from segsim.rules.rinkanou.policies import Aggressive

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))


def record_of(path: Path, seed: int) -> Record:
    fight = load_scenario(path).fight(seed)
    fight.run()
    return fight_record(fight)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_a_branch_that_changes_nothing_is_the_original_byte_for_byte(path: Path) -> None:
    """Same policies (following the fight as shadows) and the record's own seed, whose
    stream goes on after the draws made before T: the fight goes on as it went."""
    for seed in (0, 1):
        record = record_of(path, seed)
        end = record.events[-1]["t"]
        for until in (0, 4, end // 2, end + 3):
            result = branch(record, until)
            assert list(fight_lines(result.fight)) == list(record.lines), (seed, until)
            assert result.first_difference() is None


def test_a_branch_with_another_policy_departs_after_t_and_replays() -> None:
    record = record_of(DUEL, 7)
    until = 6
    result = branch(record, until, {"robert": "aggressive"})
    assert result.policies == {"robert": "aggressive", "margaret": "aggressive"}
    first = result.first_difference()
    assert first is not None
    events = [json.loads(x) for x in record.lines[1:]]
    # everything before T is the record's, line for line
    assert first - 2 >= sum(1 for e in events if e["t"] < until)
    header = result.fight.header()
    robert = header["combatants"][0]
    assert robert["policy"] == "defender" and robert["reactive"] is True
    assert robert["changes"] == [{"at": until, "policy": "aggressive", "reactive": False}]
    assert "changes" not in header["combatants"][1]
    # the branch's record replays: policy changes are in its header
    branched = fight_record(result.fight)
    assert replay(branched).identical
    # and a branch of the branch that changes nothing is the branch again
    again = branch(branched, until + 5)
    assert list(fight_lines(again.fight)) == list(branched.lines)


def test_dice_after_t_come_from_the_given_seed() -> None:
    record = record_of(DUEL, 7)
    until = 4
    same = branch(record, until)
    other = branch(record, until, seed=12345)
    before = [e for e in record.events if e["t"] < until]
    assert [json.loads(x) for x in list(fight_lines(other.fight))[1 : len(before) + 1]] == before
    assert other.seed == 12345 and same.seed == 7
    draws = [e.value for e in other.fight.history if e.TYPE == "die.rolled"]
    recorded = [e["value"] for e in record.events if e["type"] == "die.rolled"]
    assert draws != recorded


def test_a_policy_object_can_take_over() -> None:
    record = record_of(DUEL, 3)
    result = branch(record, 10, {"robert": Aggressive()})
    assert result.policies["robert"] == "aggressive"
    assert result.fight.history[-1].TYPE == "end"


def test_the_branch_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "duel.jsonl"
    out = tmp_path / "branch.jsonl"
    assert main(["run", str(DUEL), "--seed", "7", "--record", str(rec), "--quiet"]) == 0
    capsys.readouterr()
    code = main(
        ["replay", str(rec), "--until", "9", "--then", "robert=aggressive", "--record", str(out)]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "replayed to segment 9 (0.9 s), then robert: aggressive, margaret: aggressive" in text
    assert "dice after it from seed 7" in text
    assert "recorded: victory" in text and "outcome:" in text
    assert all(
        int(line.split()[0]) >= 9 for line in text.splitlines() if line[:5].strip().isdigit()
    )
    assert read_record(out).header["combatants"][0]["changes"][0]["at"] == 9
    assert main(["replay", str(out)]) == 0
    # no --then: the recorded policies go on; with the record's seed, nothing changes
    assert main(["replay", str(rec), "--until", "9", "--quiet"]) == 0
    assert "the branch is the recorded fight, event for event" in capsys.readouterr().out
    # one policy for everyone
    assert main(["replay", str(rec), "--until", "0", "--then", "aggressive", "--quiet"]) == 0
    assert "robert: aggressive, margaret: aggressive" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--until", "5", "--then", "nobody=aggressive"], "no combatant 'nobody'"),
        (["--until", "5", "--then", "robert=timid"], "unknown policy 'timid'"),
        (["--until", "5", "--then", "robert="], "give a policy after '='"),
        (["--until", "5", "--then", "aggressive", "defender"], "two policies for everyone"),
        (["--then", "robert=aggressive"], "--then needs --until"),
        (["--seed", "3"], "--seed needs --until"),
        (["--until", "-1"], "segment number is >= 0"),
    ],
)
def test_bad_branch_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    rec = tmp_path / "duel.jsonl"
    assert main(["run", str(DUEL), "--seed", "7", "--record", str(rec), "--quiet"]) == 0
    capsys.readouterr()
    try:
        code = main(["replay", str(rec), *args])
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_scripted_fighter_keeps_its_recorded_declarations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from segsim.record import write_record
    from segsim.script import load_script

    fight = load_script(ROOT / "examples/scripts/table_duel.toml").play()
    record = fight_record(fight)
    result = branch(record, 20, {"margaret": "aggressive"})
    assert result.policies == {"robert": "replay", "margaret": "aggressive"}
    assert result.notes and "robert keeps its recorded declarations" in result.notes[0]
    assert replay(fight_record(result.fight)).identical
    # When the branch makes a recorded declaration illegal, the error says which (fresh
    # dice from seed 2 after T: robert has fewer situation points at segment 19).
    path = tmp_path / "table.jsonl"
    write_record(fight, path)
    argv = ["replay", str(path), "--until", "9", "--then", "margaret=aggressive", "--seed", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "segment 19, robert, policy replay: spends 2 PS" in err
    assert "replayed in the branch from segment 9, no longer fits" in err


# ---------------------------------------------------------------- records of every example

TABLE = ROOT / "examples/scripts/table_duel.toml"


def table_record() -> Record:
    from segsim.script import load_script

    return fight_record(load_script(TABLE).play())


def example_records() -> list[tuple[str, Record]]:
    from segsim.script import load_script

    out = [(p.name, record_of(p, load_scenario(p).seed or 0)) for p in SCENARIOS]
    scripts = sorted((ROOT / "examples/scripts").glob("*.toml"))
    return [*out, *((p.name, fight_record(load_script(p).play())) for p in scripts)]


class Spy:
    """Decides as ``inner`` does, and notes every segment it is asked at."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.reactive = getattr(inner, "reactive", True)
        self.name = f"spy-{getattr(inner, 'name', 'policy')}"
        self.calls: list[int] = []

    def bind(self, actor: str, seed: int) -> None:
        bind = getattr(self.inner, "bind", None)
        if bind is not None:
            bind(actor, seed)

    def decide(self, observation: object) -> object:
        self.calls.append(observation.segment)  # type: ignore[attr-defined]
        return self.inner.decide(observation)  # type: ignore[attr-defined]


RECORDS = example_records()
NAMES = [name for name, _ in RECORDS]


@pytest.mark.parametrize(("name", "record"), RECORDS, ids=NAMES)
def test_every_example_record_branches_to_itself_when_nothing_changes(
    name: str, record: Record
) -> None:
    """Scenario runs (their default seeds; other seeds above) and the hand-entered table
    duel alike (its dice are the table's: the branch goes on with the table's rolls)."""
    end = record.events[-1]["t"]
    for until in sorted({1, 3, 9, end // 3, end}):
        result = branch(record, until)
        assert list(fight_lines(result.fight)) == list(record.lines), (name, until)


@pytest.mark.parametrize(("name", "record"), RECORDS, ids=NAMES)
def test_a_new_policy_is_called_at_t_and_after(name: str, record: Record) -> None:
    from segsim.policy import make_policy

    ruleset = record.ruleset
    combatants = record.header["combatants"]
    gone = {
        e["actor"]: e["t"]
        for e in reversed(record.events)
        if e["type"] in ("combatant.out", "combatant.left")
    }
    scripted = combatants[0]["policy"] == "script"
    end = record.events[-1]["t"]
    for until in sorted({3, end // 2}):
        # The spy decides for the first fighter still in the fight at T.
        i, who = next(
            (i, c["id"]) for i, c in enumerate(combatants) if gone.get(c["id"], end + 1) >= until
        )
        # A hand-entered fighter's recorded declarations may not fit the branch: the
        # random policy decides for the others of a script.
        others = {c["id"]: "random" for c in combatants} if scripted else {}
        spy = Spy(make_policy(ruleset, "random"))
        result = branch(record, until, {**others, who: spy})
        assert result.policies[who] == spy.name
        if result.fight.history[-1].t >= until:  # (before T it follows the fight)
            after = [t for t in spy.calls if t >= until]
            assert after and after[0] == until, (name, until, spy.calls)
        header = result.fight.header()["combatants"][i]
        assert header["changes"][-1] == {"at": until, "policy": spy.name, "reactive": True}


def test_a_script_fighter_given_a_policy_keeps_being_called() -> None:
    """`--until 9 --then robert=aggressive` on the table duel (the command of its header)
    once left robert idle after his lock, forever: the branch ended in a stalemate."""
    spy = Spy(Aggressive())
    result = branch(table_record(), 9, {"robert": spy})
    assert 9 in spy.calls
    assert any(t > 14 for t in spy.calls)  # after his lock (segments 12-14)
    assert result.fight.outcome is not None and result.fight.outcome.result == "victory"
    strikes = [
        e for e in result.fight.history if e.TYPE == "action.declared" and e.actor == "robert"
    ]
    assert sum(1 for e in strikes if e.kind == "strike" and e.t > 14) >= 1


@pytest.mark.parametrize("then", [["robert=defender"], ["robert=random"], ["aggressive"]])
def test_cancellations_by_kind_survive_a_branch(
    then: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Margaret's cancellation of her arming in segment 10 once named action #8, which a
    branch numbering actions otherwise did not have (exit 2)."""
    path = tmp_path / "table.jsonl"
    assert main(["run", "--script", str(TABLE), "--quiet", "--record", str(path)]) == 0
    out = tmp_path / "branch.jsonl"
    code = main(["replay", str(path), "--until", "9", "--then", *then, "--record", str(out)])
    assert code == 0, capsys.readouterr().err
    assert replay(out).identical
    cancelled = [json.loads(x) for x in read_record(path).lines if "action.cancelled" in x]
    assert [(e["actor"], e["kind"]) for e in cancelled] == [("margaret", "arm")]


def test_an_old_cancellation_without_its_kind_still_reads(tmp_path: Path) -> None:
    """Records name the kind of a cancelled action; a line without it is cancelled by id."""
    record = table_record()
    lines = []
    for line in record.lines:
        event = json.loads(line)
        if event.get("type") == "action.cancelled":
            del event["kind"]
            line = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        lines.append(line)
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = replay(path)
    assert result.divergence is not None and '"kind":"arm"' in str(result.divergence.produced)


AMBUSH = ROOT / "examples/scenarios/chroniques_ambush.toml"


def _ambush_branch_kept_on_replay() -> tuple[Record, int, dict[str, str]]:
    """A Chroniques ambush, everyone on ``random``, branched at segment 88 with two
    fighters given a policy and aldric kept on his recorded declarations: the fight
    changes around him, and by segment 260 his recorded attack comes out of turn."""
    from segsim.policies import RandomLegal

    scenario = load_scenario(AMBUSH)
    policies = {c.id: RandomLegal() for c in scenario.combatants}
    fight = scenario.fight(3268245658, policies=policies, max_segments=3000)
    fight.run()
    return fight_record(fight), 88, {"aldric": "replay", "melisande": "random"}


def test_a_recorded_declaration_the_branch_made_illegal_is_a_stale_declaration() -> None:
    """docs/replay.md: a combatant kept on ``replay`` declares what it declared in the
    record; once the branch has changed the fight, that can be illegal. The branch
    stops with a StaleDeclaration naming the policy ``replay`` and the branch point, not
    the recorded policy (``random``), which never declared it in this fight."""
    from segsim import IllegalDeclaration, StaleDeclaration

    record, until, then = _ambush_branch_kept_on_replay()
    with pytest.raises(StaleDeclaration) as caught:
        branch(record, until, {**then, "anselm": "random"}, seed=815398389)
    exc = caught.value
    assert isinstance(exc, IllegalDeclaration)
    assert exc.actor == "aldric" and exc.policy == "replay"
    assert exc.segment is not None and exc.segment >= until
    assert f"replayed in the branch from segment {until}" in str(exc)
    assert "give aldric a live policy" in str(exc) and "[Chroniques" in str(exc)
    # The same branch with aldric on a live policy goes on to the end, and replays.
    live = branch(record, until, {**then, "aldric": "random", "anselm": "random"}, seed=815398389)
    assert live.fight.history[-1].TYPE == "end"
    assert replay(fight_record(live.fight)).identical


def test_a_stale_declaration_exits_2_from_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, until, _ = _ambush_branch_kept_on_replay()
    path = tmp_path / "ambush.jsonl"
    path.write_text("".join(line + "\n" for line in record.lines), encoding="utf-8")
    args = ["replay", str(path), "--until", str(until), "--seed", "815398389"]
    args += ["--then", "aldric=replay", "--then", "melisande=random", "--then", "anselm=random"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "aldric, policy replay" in err and "no longer fits the branched fight" in err
