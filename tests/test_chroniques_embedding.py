"""A Chroniques fight (coarse 100-segment rounds) and a RinKaNou duel (native segments)
in one SimPy environment, each keeping its own correct time (DESIGN, principles 1 and 8;
issue: "each turn resolves at a segment inside its round")."""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from segsim import Declaration, Fight, LoadedDice
from segsim.events import Event
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.events import AttackRolled, RoundStarted
from segsim.rules.rinkanou import RinKaNou
from segsim.testing import Scripted, build_fight, declare


class Round2Attacker:
    """Passes in round 1, attacks ``target`` from round 2 on."""

    name = "round-2-attacker"
    reactive = False

    def __init__(self, target: str | None) -> None:
        self.target = target
        self.asked: list[tuple[int, bool]] = []

    def decide(self, obs: Observation) -> Any:
        self.asked.append((obs.segment, obs.me.my_turn))
        if not obs.me.my_turn:
            return None
        if obs.me.round < 2 or self.target is None:
            return Declaration("pass")
        return Declaration("attack", self.target)


def chroniques_fight(env: simpy.Environment, scale: float = 1.0) -> Fight:
    rules = Chroniques()
    sheets = {k: rules.load_sheet(rules.content.fighters[k]) for k in ("nissa", "apprentice")}
    specs = [
        CombatantSpec(
            "nissa", "party", sheets["nissa"], Round2Attacker("apprentice"), position=(0.0, 0.0)
        ),
        CombatantSpec(
            "apprentice", "cult", sheets["apprentice"], Round2Attacker(None), position=(1.5, 0.0)
        ),
    ]
    # Round 2: Nissa (+3) rolls 15 against DEF 11 and deals 1d6 (4) + 1 = 5 > 4 hit points.
    return Fight(rules, specs, dice=LoadedDice([15, 4]), env=env, scale=scale)


def rinkanou_duel(env: simpy.Environment, scale: float = 1.0) -> Fight:
    attack = {0: declare("arm"), 3: declare("strike", "robert", blow="cut")}
    return build_fight(
        {
            "robert": ("blue", "robert", Scripted({})),
            "margaret": ("red", "margaret", Scripted(attack)),
        },
        dice=[90],  # the strike misses
        ruleset=RinKaNou(start_roll=False),
        env=env,
        scale=scale,
    )


def clocked(fight: Fight, env: simpy.Environment) -> list[tuple[float, Event]]:
    seen: list[tuple[float, Event]] = []
    fight.subscribe(lambda e: seen.append((env.now, e)))
    return seen


def test_both_fights_keep_their_own_time_in_one_environment() -> None:
    env = simpy.Environment()
    duel, chron = rinkanou_duel(env), chroniques_fight(env)
    duel_seen, chron_seen = clocked(duel, env), clocked(chron, env)
    env.run(until=env.all_of([duel.start(), chron.start()]))
    # RinKaNou: the strike declared at segment 3 lasts 3 segments: its test is in segment
    # 5, settled at environment time 6; the duel then ends in a stalemate at segment 9.
    [test] = [(now, e) for now, e in duel_seen if e.TYPE == "test.rolled"]
    assert test[1].t == 5 and test[0] == 6
    assert duel.history[-1].t == 9
    # Chroniques: round 2 begins at segment 100; Nissa's turn is its first 10 segments,
    # so her attack resolves in segment 109, at environment time 110, and ends the fight.
    starts = [(now, e.round) for now, e in chron_seen if isinstance(e, RoundStarted)]
    assert starts == [(0, 1), (100, 2)]
    [attack] = [(now, e) for now, e in chron_seen if isinstance(e, AttackRolled)]
    assert attack[1].t == 109 and attack[0] == 110
    assert chron.outcome is not None and chron.outcome.winner == "party"
    assert chron.history[-1].t == 109
    assert env.now == 110
    # Every turn of the Chroniques fight began inside its round, in initiative order.
    turns = [
        (e.t, e.actor) for e in chron.history if e.TYPE == "action.declared" and e.kind == "turn"
    ]
    assert turns == [(0, "nissa"), (10, "apprentice"), (100, "nissa")]


def test_a_host_counting_seconds_embeds_both_with_a_scale() -> None:
    env = simpy.Environment()
    env.run(until=2.0)
    duel, chron = rinkanou_duel(env, scale=0.1), chroniques_fight(env, scale=0.1)
    chron_seen = clocked(chron, env)
    env.run(until=env.all_of([duel.start(), chron.start()]))
    # Round 2 of the Chroniques fight begins 10 s after its start, at host time 12.0.
    starts = [now for now, e in chron_seen if isinstance(e, RoundStarted)]
    assert starts == [pytest.approx(2.0), pytest.approx(12.0)]
    assert chron.history[-1].t == 109
    assert env.now == pytest.approx(2.0 + 11.0)
    assert duel.history[-1].t == 9


def test_the_next_fighter_is_called_by_the_rules_even_if_its_policy_is_not_reactive() -> None:
    """Engine: Ruleset.due() names who declares next; a non-reactive policy is asked on
    its turn though none of its own actions ended then, and nothing is polled."""
    env = simpy.Environment()
    chron = chroniques_fight(env)
    chron.start()
    env.run(until=chron.done)
    apprentice: Any = chron.state.combatants["apprentice"].policy
    assert apprentice.reactive is False
    # Asked at the start, on its turn (called by the rules at 10), after its turn, and
    # when the round it awaited the end of is over: never in between.
    assert apprentice.asked == [(0, False), (10, True), (20, False), (100, False)]
