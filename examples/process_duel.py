"""One tactic written both ways: a generator (a SimPy-style process) and a callback.

    python examples/process_duel.py

Margaret's tactic: walk into reach, arm, strike with her heaviest blow, let the lock the
rules impose after a strike run out, and again. ``duelist`` writes it as a process
(``yield me.strike(...)`` resumes with the strike's result); ``Duelist`` as a
``decide(observation)`` callback. Same seed, same record, byte for byte.

``wary`` is a reactive process: it strikes like the duelist, and when it sees the foe
start a weapon motion while its own legs are free it dodges (unless the rules refuse the
dodge: the IllegalDeclaration is caught where it was yielded), then goes on.

Other modules use them by import path (this folder on the Python path):
``segsim replay duel.jsonl --until 9 --then margaret=process_duel:duelist``.
"""

from __future__ import annotations

import math
from typing import Any

from segsim import Declaration, IllegalDeclaration, Threat, load_scenario, process_policy
from segsim.policy import Observation
from segsim.record import fight_record
from segsim.rules.rinkanou.ruleset import within


def heaviest(weapon: Any) -> str:
    """The blow of a weapon that deals the most damage."""
    return str(max(weapon.blows, key=lambda b: weapon.damage[b]))


def buy_back(seen: Any, foe: Any) -> dict[str, Any]:
    """The situation points a negative score against ``foe`` makes a strike buy back:
    slower first, then a malus (RinKaNou, "Achat de points de situation")."""
    deficit = -seen.ps_against.get(foe.id, 0)
    if deficit <= 0:
        return {}
    slower = min(deficit, math.ceil(seen.weapon.speed / 2))
    ps = {"slower": slower}
    if deficit > slower:
        ps["malus"] = deficit - slower
    return {"ps": ps}


@process_policy
def duelist(me: Any) -> Any:
    """Close in, arm, strike, recover, again; returns the hits it landed."""
    hits = 0
    while me.in_fight:
        seen = me.observation.me
        foe = me.observation.other(me.nearest_foe())
        if not within(seen.position, foe.position, seen.reach):
            yield me.move(toward=foe.id, segments=5)
        elif not seen.armed:
            yield me.arm()
        else:
            result = yield me.strike(foe, blow=heaviest(seen.weapon), **buy_back(seen, foe))
            hits += result.outcome == "hit"
            yield me.idle()  # the lock the rules impose after a strike
    return hits


class Duelist:
    """The same tactic as a callback: asked only when idle (not reactive)."""

    name = "duelist"
    reactive = False

    def decide(self, observation: Observation) -> Any:
        seen = observation.me
        if seen.must_lock or seen.doing("hands") or seen.doing("legs"):
            return None
        foe = observation.other(seen.nearest_foe())
        if not within(seen.position, foe.position, seen.reach):
            return Declaration("move", params={"toward": foe.id, "segments": 5})
        if not seen.armed:
            return Declaration("arm")
        return Declaration("strike", foe.id, {"blow": heaviest(seen.weapon), **buy_back(seen, foe)})


@process_policy(reactive=True)
def wary(me: Any) -> Any:
    """The duelist, dodging a weapon motion it sees the foe start while its legs are free."""
    dodged = 0
    while me.in_fight:
        seen = me.observation.me
        foe = me.observation.other(me.nearest_foe())
        try:
            if seen.must_lock or seen.doing("hands"):
                yield me.idle()  # a strike a Threat interrupted, or the lock after it
            elif not within(seen.position, foe.position, seen.reach):
                yield me.move(toward=foe.id, segments=5)
            elif not seen.armed:
                yield me.arm()
            else:
                yield me.strike(foe, blow=heaviest(seen.weapon), **buy_back(seen, foe))
        except Threat as threat:
            legs_free = me.observation.me.doing("legs") is None
            if threat.action is not None and threat.action.motion == "weapon" and legs_free:
                try:
                    yield me.dodge()
                    dodged += 1
                except IllegalDeclaration:
                    pass  # refused (a negative score to buy back first): nothing changed
                except Threat:
                    pass  # something else seen while dodging: look again
    return dodged


def main() -> None:
    scenario = load_scenario("examples/scenarios/duel.toml")
    for seed in (7, 8):
        as_process = scenario.fight(seed, policies={"margaret": duelist()})
        as_callback = scenario.fight(seed, policies={"margaret": Duelist()})
        as_process.run()
        as_callback.run()
        same = fight_record(as_process).lines == fight_record(as_callback).lines
        outcome = as_process.outcome
        assert outcome is not None
        print(
            f"seed {seed}: {outcome.result}, side {outcome.winner}; same record both ways: {same}"
        )
    policy = wary()
    fight = scenario.fight(7, policies={"margaret": policy})
    fight.run()
    print(f"wary margaret dodged {policy.process.value} times; {fight.outcome}")


if __name__ == "__main__":
    main()
