"""Fights embedded in a host simulation (issue: embedding and battles at scale)."""

from __future__ import annotations

import io
from typing import Any

import pytest
import simpy

from segsim import load_scenario
from segsim.fight import CombatantSpec, Fight
from segsim.record import write_record
from segsim.rules.rinkanou import RinKaNou
from segsim.testing import Scripted, build_fight, declare, sheet


def duel(
    env: simpy.Environment, scale: float, scripts: dict[str, dict[int, Any]], **kw: Any
) -> Fight:
    return build_fight(
        {
            "robert": ("blue", "robert", Scripted(scripts.get("robert", {}))),
            "margaret": ("red", "margaret", Scripted(scripts.get("margaret", {}))),
        },
        ruleset=RinKaNou(start_roll=False),
        env=env,
        scale=scale,
        **kw,
    )


def test_a_host_counting_seconds_sees_a_37_segment_action_last_3_7_s() -> None:
    env = simpy.Environment(initial_time=5.0)
    f = duel(env, 0.1, {"robert": {0: declare("move", to=[-10.0, 0.0], segments=37)}})
    seen: dict[str, float] = {}
    f.subscribe(lambda e: seen.setdefault(e.TYPE, env.now), types=["combatant.moved"])
    env.run(until=f.start())
    assert seen["combatant.moved"] == pytest.approx(5.0 + 3.7)
    assert f.history[-1].TYPE == "end"


def test_a_host_counting_minutes() -> None:
    env = simpy.Environment()
    f = duel(env, 0.1 / 60, {"robert": {0: declare("move", to=[-10.0, 0.0], segments=600)}})
    env.run(until=f.start())
    assert env.now == pytest.approx(1.0)  # 600 segments: one minute, then the stalemate


def test_the_host_waits_on_the_fight_process_and_can_interrupt_it() -> None:
    env = simpy.Environment()
    f = load_scenario("examples/scenarios/duel.toml").fight(7, env=env, scale=0.1)
    results: list[Any] = []

    def host() -> Any:
        fight = env.process(waiter())
        yield env.timeout(2.05)  # the host's own clock: seconds
        f.process.interrupt("the watch arrives")
        results.append((yield fight))

    def waiter() -> Any:
        outcome = yield f.process
        return outcome

    env.process(host())
    env.run()
    [outcome] = results
    assert outcome.result == "interrupted" and outcome.cause == "the watch arrives"
    end = f.history[-1]
    assert end.TYPE == "end" and end.outcome == "interrupted" and end.t == 20
    out = io.StringIO()
    write_record(f, out)
    assert '"outcome":"interrupted"' in out.getvalue().splitlines()[-1]


def test_reinforcements_join_mid_fight_and_a_fighter_can_leave() -> None:
    env = simpy.Environment()
    f = duel(env, 1.0, {"robert": {0: declare("wait", until=30)}})
    f.start()
    env.run(until=5)
    recruit = CombatantSpec(
        "recruit", "blue", sheet("recruit"), Scripted({}, name="late"), position=(0.0, 1.5)
    )
    f.join(recruit)
    env.run(until=7)
    [joined] = [e for e in f.history if e.TYPE == "combatant.joined"]
    assert joined.t == 5 and joined.actor == "recruit" and joined.side == "blue"
    assert joined.sheet["weapon"]["id"] == "arming_sword"
    assert "recruit" in f.state.combatants and f.state.combatants["recruit"].in_fight
    asked = f.state.combatants["recruit"].policy.seen
    assert asked and asked[0].segment == 5 and asked[0].must_act
    f.leave("margaret", "fled")
    env.run(until=f.done)
    assert f.outcome is not None and (f.outcome.result, f.outcome.winner) == ("victory", "blue")
    out = [e for e in f.history if e.TYPE == "combatant.left"]
    assert [(e.t, e.actor, e.reason) for e in out] == [(7, "margaret", "fled")]


def test_joining_twice_or_leaving_nobody_is_refused() -> None:
    env = simpy.Environment()
    f = duel(env, 1.0, {"robert": {0: declare("wait", until=30)}})
    with pytest.raises(RuntimeError, match="start the fight first"):
        f.leave("margaret")
    f.start()
    with pytest.raises(ValueError, match="already in this fight"):
        f.join(CombatantSpec("robert", "blue", sheet("robert"), Scripted()))
    with pytest.raises(ValueError, match="no combatant 'ghost'"):
        f.leave("ghost")


def test_events_through_a_simpy_store() -> None:
    env = simpy.Environment()
    f = load_scenario("examples/scenarios/duel.toml").fight(3, env=env, scale=0.1)
    store = f.event_store(types=["attack.resolved", "end"])
    got: list[str] = []

    def host() -> Any:
        while True:
            event = yield store.get()
            got.append(event.TYPE)
            if event.TYPE == "end":
                return

    listener = env.process(host())
    f.start()
    env.run(until=listener)
    assert got[-1] == "end" and "attack.resolved" in got
    assert got.count("attack.resolved") == sum(1 for e in f.history if e.TYPE == "attack.resolved")


def record_of(f: Fight) -> str:
    out = io.StringIO()
    write_record(f, out)
    return out.getvalue()


def test_many_fights_in_one_environment_never_share_dice() -> None:
    alone = load_scenario("examples/scenarios/duel.toml").fight(11)
    alone.run()
    env = simpy.Environment()
    fights = [
        load_scenario("examples/scenarios/duel.toml").fight(11, env=env, scale=0.1),
        load_scenario("examples/scenarios/rapier_vs_sabre.toml").fight(12, env=env, scale=0.1),
        load_scenario("examples/scenarios/chroniques_ambush.toml").fight(13, env=env, scale=0.1),
    ]
    env.run(until=env.all_of([f.start() for f in fights]))
    assert all(f.history[-1].TYPE == "end" for f in fights)
    # The first fight is the same fight, byte for byte, with neighbours or without.
    assert record_of(fights[0]) == record_of(alone)


def test_records_of_fights_the_host_changed_replay_identically(tmp_path: Any) -> None:
    from segsim.policy import make_policy
    from segsim.replay import replay

    env = simpy.Environment()
    f = load_scenario("examples/scenarios/duel.toml").fight(7, env=env, scale=0.1)
    f.start()
    env.run(until=0.5)
    hugues = CombatantSpec(
        "hugues",
        "blue",
        sheet("shieldbearer"),
        make_policy("rinkanou", "aggressive"),
        position=(-1.0, 0.0),
    )
    f.join(hugues)
    env.run(until=1.0)
    f.leave("robert", "fled")
    env.run(until=f.done)
    path = tmp_path / "host.jsonl"
    write_record(f, path)
    header = f.header()
    assert [c["id"] for c in header["combatants"]] == ["robert", "margaret"]
    assert any(e.TYPE == "combatant.left" and e.actor == "robert" for e in f.history)
    result = replay(path)
    assert result.identical, str(result)


def test_an_interruption_during_a_segment_belongs_to_that_segment(tmp_path: Any) -> None:
    from segsim.replay import replay

    env = simpy.Environment()
    f = load_scenario("examples/scenarios/duel.toml").fight(7, env=env, scale=0.1)
    process = f.process

    def host() -> Any:
        yield env.timeout(2.06)  # late in segment 20
        process.interrupt("patrol")

    env.process(host())
    env.run(until=process)
    assert f.history[-1].t == 20
    path = tmp_path / "interrupted.jsonl"
    write_record(f, path)
    assert replay(path).identical


def test_a_finished_fight_leaves_no_timer_in_the_host() -> None:
    env = simpy.Environment()
    f = load_scenario("examples/scenarios/duel.toml").fight(7, env=env, scale=0.1)
    f.start()
    env.run()
    # Only what was already due around the end remains: no time-limit timer an hour on.
    assert env.now < (f.history[-1].t + 1) * 0.1 + 1.0 < f.max_segments * 0.1


def test_leaving_during_ones_own_turn_passes_the_turn_on() -> None:
    """Chroniques: a fighter who leaves during its turn does not stall the turn order."""
    from segsim.policy import make_policy
    from segsim.rules import get_ruleset

    rules = get_ruleset("chroniques")

    def spec(cid: str, side: str, x: float) -> CombatantSpec:
        return CombatantSpec(
            cid,
            side,
            rules.load_sheet(rules.content.fighters[cid]),
            make_policy("chroniques", "aggressive"),
            position=(x, 0.0),
        )

    env = simpy.Environment()
    f = Fight(
        rules,
        [spec("aldric", "party", 0.0), spec("nissa", "party", 1.0), spec("ogre", "monsters", 1.5)],
        seed=3,
        env=env,
    )
    f.start()
    env.run(until=1)
    f.leave("nissa", "flees", at=5)
    env.run(until=f.done)
    assert f.outcome is not None and f.outcome.result == "victory"


def test_what_a_settlement_sets_off_in_the_host_runs_before_that_boundary_s_phase() -> None:
    """A boundary's settlement and declaration phase are one SimPy event in the usual
    case; when a subscriber sets off a host event of the same time during the
    settlement, the phase waits for it, as a phase of priority DECIDE would."""
    env = simpy.Environment()
    f = duel(env, 1.0, {"robert": {0: declare("dodge", "margaret")}, "margaret": {}})
    store = f.event_store(["test.rolled"])
    seen: list[tuple[float, list[int], int]] = []

    def host() -> Any:
        event = yield store.get()
        # Resumed at the time of the settlement, before anyone declared at that boundary.
        starts = [e.t for e in f.history if e.TYPE == "action.declared"]
        seen.append((env.now, starts, event.t))

    env.process(host())
    env.run(until=f.start())
    assert seen == [(3.0, [0, 0], 2)]
    # ... and then the phase did run: robert, his dodge over, declared at 3.
    assert [e.t for e in f.history if e.TYPE == "action.declared"] == [0, 0, 3]


def test_a_boundary_with_nothing_else_due_runs_its_phase_in_the_same_event() -> None:
    """The usual case: one SimPy event per boundary, not a settlement and a phase."""
    env = simpy.Environment()
    f = duel(env, 1.0, {"robert": {0: declare("dodge", "margaret")}, "margaret": {}})
    processed: list[Any] = []
    f.start()
    while not f.ended:
        processed.append(env.peek())
        env.step()
    # The dodge resolves at 3 and both fighters declare again: one event at that time,
    # not a settlement, a process's wake and a phase.
    assert processed.count(3.0) == 1
