"""Fighters written as SimPy-style processes (segsim.process; DESIGN, principle 10,
"Behaviour two ways"; docs/process.md): the same declaration phases, checks and record
as callback policies."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import pytest
import simpy

from segsim import (
    Declaration,
    IllegalDeclaration,
    ProcessPolicy,
    Threat,
    load_scenario,
    process_policy,
)
from segsim.actions import PolicyOutput
from segsim.cli import main
from segsim.experiment import render_summary, run, summarize, sweep
from segsim.policies import derive_seed
from segsim.policy import Observation, make_policy
from segsim.record import fight_record, read_record, write_record
from segsim.replay import branch, replay
from segsim.rules import ruleset_names
from segsim.rules.chroniques.policies import attack_turn, opponents, pick_target

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
AMBUSH = ROOT / "examples/scenarios/chroniques_ambush.toml"
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The examples folder on the Python path (worker processes inherit it): its
    process_duel module, imported by path as a user's own module would be."""
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import process_duel

    return process_duel


# ---------------------------------------------------------------- same record both ways


def test_a_generator_duelist_and_its_callback_twin_give_the_same_record(examples: Any) -> None:
    duel = load_scenario(DUEL)
    for seed in range(1, 9):
        as_process = duel.fight(seed, policies={"margaret": examples.duelist()})
        as_callback = duel.fight(seed, policies={"margaret": examples.Duelist()})
        as_process.run()
        as_callback.run()
        lines = fight_record(as_process).lines
        assert lines == fight_record(as_callback).lines, seed
        strikes = [e for e in as_process.history if e.TYPE == "action.declared"]
        assert any(e.actor == "margaret" and e.kind == "strike" for e in strikes)


@process_policy(name="aggressive")
def chroniques_aggressive(me: Any) -> Any:
    """The built-in Chroniques ``aggressive`` policy as a process: one turn per yield."""
    while me.in_fight:
        seen = me.observation
        targets = opponents(seen)
        if not targets:
            yield me.act("pass")
            continue
        turn = attack_turn(seen.me, pick_target(seen.me, targets))
        yield me.all(*[me.act(d.kind, d.target, **d.params) for d in turn])


def test_a_coarse_ruleset_resumes_processes_at_their_turns() -> None:
    """Chroniques turns (Chroniques, "Le tour de combat"): each yield is one turn, declared
    when the fighter's turn comes, so the process gives the callback's record."""
    ambush = load_scenario(AMBUSH)
    for seed in (11, 12, 13):
        policies = {
            c.id: chroniques_aggressive() for c in ambush.combatants if c.policy == "aggressive"
        }
        assert len(policies) > 3
        as_process = ambush.fight(seed, policies=policies)
        as_process.run()
        as_callback = ambush.fight(seed)
        as_callback.run()
        assert fight_record(as_process).lines == fight_record(as_callback).lines, seed
        assert sum(e.TYPE == "chroniques.attack" for e in as_process.history) > 3


# ---------------------------------------------------------------- interrupts


class Watcher:
    """A reactive callback that declares nothing and notes when it is asked."""

    name = "watcher"
    reactive = True

    def __init__(self) -> None:
        self.asked: list[int] = []

    def decide(self, observation: Observation) -> PolicyOutput:
        self.asked.append(observation.segment)
        return None


@process_policy(name="watcher", reactive=True)
def watcher(me: Any) -> Any:
    """Waits, noting every Threat: its segment and the actions it saw begin."""
    threats: list[tuple[int, tuple[tuple[str, int, int], ...]]] = []
    waiting = me.wait(1000)
    while me.in_fight:
        try:
            yield waiting  # the same wait again after an interruption
        except Threat as threat:
            begun = tuple((s.actor, s.action.id, s.action.start) for s in threat.started)
            threats.append((threat.observation.segment, begun))
            assert threat.actor == (begun[-1][0] if begun else None)
    return threats


def test_a_threat_interrupts_at_the_phase_a_reactive_callback_is_called() -> None:
    duel = load_scenario(DUEL)
    process = watcher()
    fight = duel.fight(7, policies={"robert": process})
    fight.run()
    callback = Watcher()
    twin = duel.fight(7, policies={"robert": callback})
    twin.run()
    threats = process.process.value
    assert len(threats) > 5
    assert [seg for seg, _ in threats] == [s for s in callback.asked if s > 0]
    # Margaret's actions are seen the segment after they begin; a forced one (the lock
    # after a strike) begins before the phase, so in the very phase it begins.
    seen = {aid: (seg, start) for seg, begun in threats for who, aid, start in begun}
    end = fight.history[-1].t
    for e in fight.history:
        if e.TYPE == "action.declared" and e.actor == "margaret" and e.t < end:
            assert seen.pop(e.action) == (e.t if e.forced else e.t + 1, e.t)
    assert not seen
    # The process's wait went on through every interruption: declared once.
    waits = [e for e in fight.history if e.TYPE == "action.declared" and e.actor == "robert"]
    assert [(w.t, w.kind, dict(w.params)) for w in waits] == [(0, "wait", {"until": 1000})]


def test_waiting_until_something_is_seen_resumes_with_the_threat() -> None:
    @process_policy(reactive=True)
    def lookout(me: Any) -> Any:
        seen: list[int] = []
        while me.in_fight:
            threat = yield me.wait()
            if threat is not None:
                assert isinstance(threat, Threat) and threat.observation is me.observation
                seen.append(me.segment)
        return seen

    duel = load_scenario(DUEL)
    process = lookout()
    duel.fight(7, policies={"robert": process}).run()
    callback = Watcher()
    duel.fight(7, policies={"robert": callback}).run()
    assert process.process.value == [s for s in callback.asked if s > 0]


def test_a_process_that_is_not_reactive_is_never_interrupted() -> None:
    quiet = process_policy(watcher.fn, name="quiet")()
    duel = load_scenario(DUEL)
    fight = duel.fight(7, policies={"robert": quiet})
    fight.run()
    assert quiet.process.value == []


def test_an_uncaught_threat_stops_the_fight_naming_who_saw_what() -> None:
    @process_policy(reactive=True)
    def careless(me: Any) -> Any:
        while True:
            yield me.wait(1000)

    fight = load_scenario(DUEL).fight(7, policies={"robert": careless})
    with pytest.raises(Threat, match="robert sees margaret start an action"):
        fight.run()


# ---------------------------------------------------------------- illegal declarations


def test_an_illegal_yield_is_raised_in_the_generator_and_can_be_caught() -> None:
    """A strike before the blow is armed is refused (RinKaNou, "Attaque"); the generator
    catches it and arms instead, in the same phase."""
    caught: list[IllegalDeclaration] = []

    @process_policy
    def hasty(me: Any) -> Any:
        foe = me.nearest_foe()
        try:
            yield me.strike(foe, blow="cut")
        except IllegalDeclaration as exc:
            caught.append(exc)
            yield me.arm()
        yield me.strike(foe, blow="cut")

    fight = load_scenario(DUEL).fight(7, policies={"margaret": hasty})
    fight.run()
    (error,) = caught
    assert (error.segment, error.actor, error.policy) == (0, "margaret", "hasty")
    assert "armed" in error.message and error.rule
    mine = [e for e in fight.history if e.TYPE == "action.declared" and e.actor == "margaret"]
    assert [(e.t, e.kind) for e in mine[:2]] == [(0, "arm"), (mine[0].ends_in + 1, "strike")]


def test_an_uncaught_illegal_yield_stops_the_fight_like_a_callbacks() -> None:
    @process_policy
    def hasty(me: Any) -> Any:
        yield me.strike(me.nearest_foe(), blow="cut")

    fight = load_scenario(DUEL).fight(7, policies={"margaret": hasty})
    with pytest.raises(IllegalDeclaration, match="segment 0, margaret, policy hasty"):
        fight.run()
    assert not any(e.TYPE == "action.declared" and e.actor == "margaret" for e in fight.history)


def test_a_yield_of_something_else_is_a_type_error_at_the_yield() -> None:
    seen: list[str] = []

    @process_policy
    def confused(me: Any) -> Any:
        try:
            yield "strike!"
        except TypeError as exc:
            seen.append(str(exc))
        yield me.arm()

    load_scenario(DUEL).fight(7, policies={"margaret": confused}).run()
    assert seen and "requests" in seen[0]


# ---------------------------------------------------------------- results, all, cancel


def test_results_carry_the_rolls_and_the_outcome_of_the_action() -> None:
    results: list[Any] = []

    @process_policy
    def striker(me: Any) -> Any:
        foe = me.nearest_foe()
        while me.in_fight:
            yield me.arm()
            result = yield me.strike(foe, blow="cut")
            results.append(result)
            yield me.idle()

    fight = load_scenario(DUEL).fight(7, policies={"margaret": striker})
    fight.run()
    resolved = {e.action: e for e in fight.history if e.TYPE == "attack.resolved"}
    if results[-1] is None:  # the fight ended while a strike was under way
        results.pop()
    assert results and None not in results
    for r in results:
        assert r.kind == "strike" and r.target == "robert"
        if r.action in resolved:
            assert r.outcome == resolved[r.action].result
        tests = [e for e in fight.history if e.TYPE == "test.rolled" and e.action == r.action]
        assert r.of("test.rolled") == tuple(tests)
        if tests:
            assert (r.success, r.margin) == (tests[-1].success, tests[-1].margin)
        wounds = [e for e in r.events if e.TYPE == "wound.taken"]
        assert r.damage == sum(w.damage for w in wounds)
        assert bool(wounds) == (r.outcome == "hit")
    assert any(r.outcome == "hit" and r.damage > 0 for r in results)


def patiently(request: Any) -> Any:
    """Wait for a request through any Threat (``result = yield from patiently(...)``)."""
    while True:
        try:
            return (yield request)
        except Threat:
            pass


def test_all_any_and_cancel() -> None:
    log: list[Any] = []

    @process_policy(reactive=True)
    def mover(me: Any) -> Any:
        results = yield from patiently(me.all(me.arm(), me.wait(2)))
        log.append([(r.kind, r.start) for r in results])
        moving = me.move(to=[-3.0, 0.0], segments=10)
        first = yield from patiently(me.any(moving, me.wait(3)))
        log.append((first[0], first[1].kind, me.segment))
        cancelled = yield from patiently(me.cancel(moving))
        log.append((cancelled.action, cancelled.kind, cancelled.cancelled, me.segment))
        return "done"

    policy = mover()
    fight = load_scenario(DUEL).fight(7, policies={"robert": policy})
    fight.run()
    declared = [e for e in fight.history if e.TYPE == "action.declared" and e.actor == "robert"]
    arm, wait, move, wait3 = declared[:4]
    assert [arm.kind, wait.kind, move.kind, wait3.kind] == ["arm", "wait", "move", "wait"]
    assert log[0] == [("arm", 0), ("wait", 0)]  # both declared at once
    assert arm.t == wait.t == 0 and move.t == wait3.t == arm.ends_in + 1
    assert log[1] == (None, "wait", move.t + 3)  # the wait ended first, the move goes on
    (cancel,) = [e for e in fight.history if e.TYPE == "action.cancelled"]
    assert (cancel.actor, cancel.action, cancel.t) == ("robert", move.action, move.t + 3)
    assert log[2] == (move.action, "move", True, cancel.t + 1)
    assert policy.process.value == "done"


# ---------------------------------------------------------------- records, branches, sweeps


def test_a_reactive_process_fight_records_and_replays(tmp_path: Path, examples: Any) -> None:
    duel = load_scenario(DUEL)
    for seed in (7, 8):
        fight = duel.fight(seed, policies={"margaret": examples.wary()})
        fight.run()
        path = tmp_path / f"wary-{seed}.jsonl"
        write_record(fight, path)
        header = read_record(path).header
        margaret = next(c for c in header["combatants"] if c["id"] == "margaret")
        assert (margaret["policy"], margaret["reactive"]) == ("wary", True)
        result = replay(path)
        assert result.identical, result.divergence


def test_a_branch_hands_over_to_a_process_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], examples: Any
) -> None:
    rec = tmp_path / "duel.jsonl"
    out = tmp_path / "branch.jsonl"
    assert main(["run", str(DUEL), "--seed", "7", "--record", str(rec), "--quiet"]) == 0
    then = ["--until", "9", "--then", "margaret=process_duel:duelist"]
    code = main(["replay", str(rec), *then, "--record", str(out)])
    assert code == 0
    assert "then robert: defender, margaret: duelist" in capsys.readouterr().out
    margaret = read_record(out).header["combatants"][1]
    assert margaret["changes"] == [{"at": 9, "policy": "duelist", "reactive": False}]
    branched = read_record(out).events
    assert any(
        e["type"] == "action.declared" and e["actor"] == "margaret" and e["t"] >= 9
        for e in branched
    )
    assert main(["replay", str(out)]) == 0


def test_a_branch_of_a_process_fight_that_keeps_its_process(examples: Any) -> None:
    """The process follows the replayed fight before T as a shadow (its declarations
    are matched with the recorded ones), then goes on: with the record's seed the branch
    is the recorded fight."""
    fight = load_scenario(DUEL).fight(8, policies={"margaret": examples.wary()})
    fight.run()
    record = fight_record(fight)
    result = branch(record, 20, {"margaret": examples.wary()})
    assert result.first_difference() is None
    assert result.policies["margaret"] == "wary"


def test_a_process_policy_by_import_path_and_by_pickling(examples: Any) -> None:
    policy = make_policy("rinkanou", "process_duel:duelist")
    assert isinstance(policy, ProcessPolicy) and policy is not examples.duelist
    assert (policy.name, policy.reactive) == ("duelist", False)
    plain = make_policy("rinkanou", "test_process:plain_duelist")
    assert isinstance(plain, ProcessPolicy) and plain.name == "plain_duelist"
    again = pickle.loads(pickle.dumps(examples.wary()))
    assert isinstance(again, ProcessPolicy) and again.fn is examples.wary.fn
    assert (again.name, again.reactive) == ("wary", True)

    @process_policy
    def local(me: Any) -> Any:
        yield me.arm()

    with pytest.raises(TypeError, match="define its function at module level"):
        pickle.dumps(local)
    with pytest.raises(TypeError, match="not a generator function"):
        process_policy(lambda me: None)


def plain_duelist(me: Any) -> Any:
    """A generator function not wrapped: make_policy wraps it."""
    while me.in_fight:
        yield me.arm()
        yield me.strike(me.nearest_foe(), blow="cut")
        yield me.idle()


def test_a_sweep_of_a_process_policy_gives_the_same_summary_with_two_workers(
    examples: Any,
) -> None:
    for spec in ("process_duel:duelist", examples.duelist):
        experiment = sweep(DUEL, 6, seed=4, chunk=3, policies={"margaret": spec})
        serial = run(experiment)
        pooled = run(experiment, workers=2)
        assert serial.results == pooled.results
        assert render_summary(summarize(serial)) == render_summary(summarize(pooled))
        assert len(serial.results) == 6 and not any(r.error for r in serial.results)


def test_one_process_policy_drives_one_fighter_at_a_time(examples: Any) -> None:
    duel = load_scenario(DUEL)
    shared = examples.duelist()
    with pytest.raises(RuntimeError, match="already drives robert"):
        duel.fight(7, policies={"robert": shared, "margaret": shared}).start()
    fresh = examples.duelist()
    for seed in (1, 2):  # one after the other is fine: each fight starts it afresh
        duel.fight(seed, policies={"margaret": fresh}).run()
        assert isinstance(fresh.process.value, int)


# ---------------------------------------------------------------- embedding


def test_a_host_process_waits_on_a_fighters_process_and_on_the_fight(examples: Any) -> None:
    duel = load_scenario(DUEL)
    env = simpy.Environment()
    log: list[Any] = []
    margaret = examples.duelist()
    fight = duel.fight(7, env=env, scale=0.1, policies={"margaret": margaret})

    def host(env: simpy.Environment) -> Any:
        yield env.timeout(2.0)
        outcome_process = fight.process  # starts the fight
        hits = yield margaret.process
        log.append(("margaret", env.now, hits, fight.ended))
        outcome = yield outcome_process
        log.append(("fight", env.now, outcome.result))

    env.run(until=env.process(host(env)))
    end = fight.history[-1].t
    landed = sum(
        e.TYPE == "attack.resolved" and e.actor == "margaret" and e.result == "hit"
        for e in fight.history
    )
    assert log[0] == ("margaret", pytest.approx(fight.clock.env_time(end + 1)), landed, True)
    assert log[1] == ("fight", pytest.approx(fight.clock.env_time(end + 1)), "victory")
    assert landed > 0


def test_a_fighters_process_ends_when_it_falls_while_the_fight_goes_on(examples: Any) -> None:
    path = ROOT / "examples/scenarios/one_against_three.toml"
    scenario = load_scenario(path)
    env = simpy.Environment()
    processes = {c.id: examples.duelist() for c in scenario.combatants}
    fight = scenario.fight(3, env=env, policies=processes)
    ended: dict[str, float] = {}

    def watch(cid: str) -> Any:
        yield processes[cid].process
        ended[cid] = env.now

    for cid in processes:
        env.process(watch(cid))
    fight.start()
    env.run()
    outs = {e.actor: e.t for e in fight.history if e.TYPE == "combatant.out"}
    end = fight.history[-1].t
    assert set(ended) == set(processes)
    early = [cid for cid, t in outs.items() if t < end]
    assert early, "someone falls before the end"
    for cid in processes:
        fell = outs.get(cid, end)
        assert ended[cid] == pytest.approx(fight.clock.env_time(fell + 1)), cid


# ---------------------------------------------------------------- every ruleset


@process_policy(name="legal picks")
def legal_picks(me: Any) -> Any:
    """A legal declaration picked at random each time it may act (its own stream)."""
    draw = random.Random(derive_seed("legal picks", me.id)).random
    while me.in_fight:
        legal = [
            d
            for d in me.observation.legal()
            if isinstance(d, Declaration) and d.kind not in ("wait", "pass", "delay")
        ]
        if not legal:
            yield me.wait(10)
            continue
        d = legal[min(int(draw() * len(legal)), len(legal) - 1)]
        try:
            yield me.act(d.kind, d.target, **d.params)
        except IllegalDeclaration:
            yield me.wait(10)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_process_fights_of_every_ruleset_record_and_replay(ruleset: str) -> None:
    path = next(p for p in SCENARIOS if load_scenario(p).ruleset.name == ruleset)
    scenario = load_scenario(path)
    policies = {c.id: legal_picks() for c in scenario.combatants}
    fight = scenario.fight(5, policies=policies, max_segments=400)
    fight.run()
    assert fight.ended
    declared = {e.actor for e in fight.history if e.TYPE == "action.declared" and not e.forced}
    assert declared == {c.id for c in scenario.combatants}, path.name
    assert all(p.process.triggered for p in policies.values())
    result = replay(fight_record(fight))
    assert result.identical, (path.name, result.divergence)


# ---------------------------------------------------------------- the documentation page

PAGE = ROOT / "docs/process.md"


def blocks(kind: str) -> list[str]:
    """The page's fenced blocks of one kind (``python``, ``sh``), in order; a fragment
    marked ``<!-- docs-test: skip (...) -->`` is left out (tests/test_docs.py)."""
    found, current, inside, before = [], [], False, ""
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        skipped = before.startswith("<!-- docs-test: skip")
        before = line.strip()
        if not inside and line.strip() == f"```{kind}" and not skipped:
            inside, current = True, []
        elif inside and line.strip() == "```":
            inside = False
            found.append("\n".join(current))
        elif inside:
            current.append(line)
    return found


def test_the_pages_python_blocks_print_what_they_say(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {"__name__": "process_page"}
    code = blocks("python")
    assert len(code) >= 7
    for block in code:
        lines = block.splitlines()
        expected: list[str] = []
        while lines and lines[-1].startswith("# "):
            expected.insert(0, lines.pop()[2:])
        exec(compile(block, str(PAGE), "exec"), namespace)
        assert capsys.readouterr().out.splitlines() == expected, block


def test_the_pages_commands_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (command_block,) = blocks("sh")
    for line in command_block.splitlines():
        words = line.split()
        if words[0] == "PYTHONPATH=examples":
            monkeypatch.syspath_prepend(str(ROOT / "examples"))
            words = words[1:]
        assert words[0] == "segsim"
        args = [str(ROOT / w) if w.startswith("examples/") else w for w in words[1:]]
        assert main(args) == 0, line
    assert "duelist" in capsys.readouterr().out
