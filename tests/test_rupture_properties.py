"""Properties of any Rupture fight, checked on random legal fights of the example
scenarios: the passe's action budget, the two steps of a targeted action, effort and
stress bookkeeping (Rupture; docs/rules/rupture.md)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segsim import load_scenario
from segsim.policy import make_policy
from segsim.rules.rupture.content import TARGETED
from segsim.rules.rupture.declare import KINDS
from segsim.rules.rupture.passe import (
    next_boundary,
    passe_of,
    passe_start,
    slot_starts,
    slots_left,
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("rupture_*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), own=st.booleans())
def test_random_fights_keep_the_rules(path: Path, seed: int, own: bool) -> None:
    scenario = load_scenario(path)
    policies = (
        None if own else {c.id: make_policy("rupture", "random") for c in scenario.combatants}
    )
    fight = scenario.fight(seed, policies=policies)
    fight.run()
    passe = fight.ruleset.passe
    sheets = {c.id: c.sheet for c in scenario.combatants}
    costly: Counter[tuple[str, int]] = Counter()
    rolls: dict[int, tuple[int, str, str]] = {}  # blow id -> (roll segment, attacker, target)
    effort = {cid: s.effort for cid, s in sheets.items()}
    stress = dict.fromkeys(sheets, 0)
    declared: dict[int, Any] = {}
    for e in fight.history:
        if e.TYPE == "action.declared":
            declared[e.id] = e
        if e.TYPE == "action.declared" and KINDS[e.kind].costs:
            costly[(e.actor, e.t // passe)] += 1
            # A costly action ends at a slot boundary of its fighter; a targeted one a
            # segment before it (its blow lands at the boundary), unless it began in the
            # slot's last segment.
            step = max(1, passe // sheets[e.actor].actions)
            end = e.t + e.duration
            if e.kind in TARGETED and e.duration >= 1:
                boundary = next_boundary(e.t, sheets[e.actor].actions, passe)
                assert end == (boundary - 1 if boundary - e.t >= 2 else boundary), e
            else:
                assert end % passe == 0 or (end % passe) % step == 0, e
        elif e.TYPE == "action.spawned":
            rolls[e.action] = (e.t, e.actor, e.target)
        elif e.TYPE == "action.declared" and e.kind == "defend" and "blow" in e.params:
            t, attacker, target = rolls[e.params["blow"]]
            assert (e.t, e.target, e.actor) == (t + 1, attacker, target)
        elif e.TYPE == "action.declared" and e.kind == "defend":
            # Announced before the roll: while the attack against it is in progress.
            attack = declared[e.params["attack"]]
            assert (e.target, e.actor) == (attack.actor, attack.target)
            assert attack.t < e.t < attack.t + attack.duration
        elif e.TYPE == "rupture.blow":
            t, attacker, target = rolls[e.blow]
            assert (e.t, e.attacker, e.actor) == (t + 1, attacker, target)
            assert e.final == e.attack - e.defence
            assert e.effort_lost == max(0, min(effort[e.actor], e.final))
            assert e.stress_taken == max(0, e.final) - e.effort_lost
            effort[e.actor] -= e.effort_lost
            stress[e.actor] += e.stress_taken
            assert (e.effort, e.stress) == (effort[e.actor], stress[e.actor])
        elif e.TYPE == "rupture.overflow":
            assert e.value == e.final - sheets[e.actor].rupture[e.domain] > 0
            stress[e.actor] += e.value
            assert e.stress == stress[e.actor]
            assert e.effect == (
                "dead" if e.value >= 8 else "out of the fight" if e.value >= 4 else ""
            )
        elif e.TYPE == "rupture.healed":
            effort[e.ally] = e.effort
            assert e.effort <= sheets[e.ally].effort
    for (cid, _), n in costly.items():
        assert n <= sheets[cid].actions
    for c in fight.state.combatants.values():
        assert 0 <= c.status.effort <= c.status.max_effort


def test_an_agent_sees_the_roll_against_it_and_may_answer_it() -> None:
    """The RL environment: Rupture features and the catalogue's defend entry. Bran
    attacks the lout at 0; when the roll is published the lout's vector carries its
    value and its mask allows defending against Bran."""
    from segsim.envs import parallel_env

    env = parallel_env(ROOT / "examples/scenarios/rupture_surrender.toml")
    labels = env.catalogue
    obs, infos = env.reset(seed=2)
    slots = len(env.possible_agents) - 1
    for agent in env.agents:
        assert obs[agent]["observation"].shape == (9 + 11 * slots,)
    attack = labels.index("attack @slot0")
    seen = False
    for _ in range(40):
        if not env.agents:
            break
        actions = dict.fromkeys(env.agents, 0)
        if "bran" in env.agents and infos["bran"]["asked"]:
            actions["bran"] = attack
        lout = obs.get("lout")
        if lout is not None and lout["observation"][8] > 0:  # an attack rolled against it
            seen = True
            assert lout["action_mask"][labels.index("defend @slot0")] == 1
            assert lout["observation"][9 + 10] == lout["observation"][8]  # Bran's slot
            actions["lout"] = labels.index("defend @slot0")
        obs, _, _, _, infos = env.step(actions)
    assert seen
    fight = env.driver.fight
    assert fight is not None
    assert any(e.TYPE == "action.declared" and e.kind == "defend" for e in fight.history)


@settings(max_examples=300, deadline=None)
@given(passe=st.integers(1, 120), actions=st.integers(1, 130), segment=st.integers(0, 400))
def test_the_slot_arithmetic_walks_the_slots_of_the_passe(
    passe: int, actions: int, segment: int
) -> None:
    """Rupture, "Les actions ciblées" (an action is one of the passe's): the next slot
    boundary is the first of the passe's slot starts after the segment (else the next
    passe's first segment), and the slots left count those not over yet; worked out
    arithmetically, they agree with the slot starts listed one by one."""
    n = passe_of(segment, passe)
    starts = slot_starts(n, actions, passe)
    after = [s for s in starts if s > segment]
    expected = after[0] if after else passe_start(n + 1, passe)
    assert next_boundary(segment, actions, passe) == expected
    ends = [*starts[1:], passe_start(n + 1, passe)]
    assert slots_left(segment, actions, passe) == sum(1 for end in ends if end > segment)
