"""RL environments (segsim.envs): PettingZoo and Gymnasium API checks, the action
catalogue and its mask, and the engine's pause at declaration boundaries."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from segsim import load_scenario
from segsim.actions import Declaration
from segsim.envs import Agent, FightDriver, FightEnv, aec_env, catalogue_for, parallel_env
from segsim.errors import IllegalDeclaration, SegsimError
from segsim.experiment import fight_seed
from segsim.record import write_record
from segsim.rules.rinkanou.policies import Aggressive

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples/scenarios"
DUEL = SCENARIOS / "duel.toml"


@pytest.fixture(autouse=True)
def quiet_api_warnings() -> Any:
    """The PettingZoo checks warn about naming styles and dict observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# ---------------------------------------------------------------- the library checks


@pytest.mark.parametrize(
    "scenario", ["duel.toml", "one_against_three.toml", "chroniques_ambush.toml"]
)
def test_parallel_api(scenario: str) -> None:
    parallel_api_test(parallel_env(SCENARIOS / scenario), num_cycles=400)


def test_aec_api_through_pettingzoos_conversion() -> None:
    env = aec_env(DUEL)
    api_test(env, num_cycles=200)
    assert type(env.unwrapped).__name__ == "FightParallelEnv"


def test_parallel_seed() -> None:
    parallel_seed_test(lambda: parallel_env(DUEL), num_cycles=200)


def test_gymnasium_env_checker() -> None:
    check_env(FightEnv(DUEL, "margaret"), skip_render_check=True)


# ---------------------------------------------------------------- catalogue and mask


def test_the_action_catalogue_is_stable() -> None:
    env = parallel_env(DUEL)
    assert env.catalogue == [
        "continue",
        "wait",
        "arm",
        "dodge",
        "dodge +faster",
        "reposition",
        "disengage",
        "parry",
        "parry +parry_force",
        "parry(with=shield)",
        "strike @slot0",
        "strike(blow=cut) @slot0",
        "strike(blow=thrust) @slot0",
        "strike @slot0 +bonus",
        "strike @slot0 +faster",
        "move @slot0",
        "read @slot0",
    ]
    three = catalogue_for("rinkanou", 3)
    assert len(three) == 10 + 3 * 7
    assert three.labels()[10 + 7 + 3] == "strike @slot1 +bonus"
    assert env.action_space("robert").n == len(env.catalogue)  # type: ignore[attr-defined]


def test_mask_follows_the_rules_and_a_busy_agent_may_only_continue() -> None:
    env = parallel_env(DUEL)
    obs, infos = env.reset(seed=3)
    labels = env.catalogue
    for agent in env.agents:
        assert infos[agent]["asked"]
        legal = {labels[i] for i, ok in enumerate(obs[agent]["action_mask"]) if ok}
        # At segment 0 nobody is armed: arming, dodging, walking are legal, striking not.
        assert {"continue", "wait", "arm", "dodge"} <= legal
        assert not any(name.startswith("strike") for name in legal)
        assert "parry(with=shield)" not in legal  # neither has a shield
    arm = labels.index("arm")
    obs, _, _, _, infos = env.step({"robert": arm, "margaret": labels.index("wait")})
    # Robert is arming: unless something he sees happens, he is not asked again before
    # the arming ends; Margaret waits, so the next boundary is where the arming ends.
    seen_busy = False
    for _ in range(5):
        for agent in env.agents:
            mask = obs[agent]["action_mask"]
            if not infos[agent]["asked"]:
                seen_busy = True
                assert mask.tolist() == [1] + [0] * (len(labels) - 1)
        if not env.agents:
            break
        obs, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
    fight = env.driver.fight
    assert fight is not None
    declared = [(e.actor, e.kind) for e in fight.history if e.TYPE == "action.declared"]  # type: ignore[attr-defined]
    assert ("robert", "arm") in declared and ("margaret", "wait") in declared
    assert seen_busy or not env.agents


def test_a_masked_action_counts_as_continue_and_is_reported() -> None:
    env = FightEnv(DUEL, "robert")
    obs, info = env.reset(seed=1)
    strike = env.catalogue.index("strike @slot0")
    assert obs["action_mask"][strike] == 0  # not armed yet
    obs, _, _, _, info = env.step(strike)
    assert info["illegal_action"] is True
    fight = env.driver.fight
    assert fight is not None
    robert = [e for e in fight.history if e.TYPE == "action.declared" and e.actor == "robert"]
    assert [e.kind for e in robert] == ["wait"]  # type: ignore[attr-defined]


def test_each_catalogue_entry_resolves_to_the_declaration_it_names() -> None:
    driver = FightDriver(load_scenario(DUEL), ["robert"])
    driver.reset(5)
    labels = driver.catalogue.labels()
    decls = driver.declarations("robert", labels.index("arm"))
    assert decls == [Declaration("arm")]
    move = driver.declarations("robert", labels.index("move @slot0"))
    assert move == [Declaration("move", params={"toward": "margaret", "segments": 5})]
    assert driver.declarations("robert", labels.index("strike @slot0")) is None
    assert driver.declarations("robert", 0) == []


# ---------------------------------------------------------------- episodes


def test_seeded_resets_play_the_experiment_fight_seeds() -> None:
    env = FightEnv(DUEL, "robert")
    env.reset(seed=9)
    assert env.driver.fight is not None and env.driver.fight.seed == fight_seed(9, 0)
    env.reset()
    assert env.driver.fight.seed == fight_seed(9, 1)
    env.reset(seed=9)
    assert env.driver.fight.seed == fight_seed(9, 0)


def _outcome(outcome: Any, side: str) -> float:
    """The documented outcome reward of an agent still in the fight: +1 a win, -1 a
    loss or a stalemate, 0 the time limit."""
    if outcome.winner is not None:
        return 1.0 if outcome.winner == side else -1.0
    return {"stalemate": -1.0, "time limit": 0.0}[outcome.result]


def test_an_episode_ends_with_the_outcome_as_reward() -> None:
    env = FightEnv(DUEL, "robert")  # against Margaret's aggressive policy
    rewards = []
    for episode in range(6):
        obs, _ = env.reset(seed=episode)
        done = False
        total = 0.0
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, terminated, truncated, _ = env.step(int(legal[-1]))
            total += reward
            done = terminated or truncated
        fight = env.driver.fight
        assert fight is not None and fight.outcome is not None
        assert total == _outcome(fight.outcome, "blue")
        rewards.append(total)
    assert set(rewards) <= {-1.0, 0.0, 1.0}


def test_shaping_rewards_damage_dealt_and_penalises_damage_taken() -> None:
    env = parallel_env(DUEL, agents=["margaret"], shaping=1.0)
    obs, _ = env.reset(seed=2)
    total = 0.0
    while env.agents:
        legal = np.flatnonzero(obs["margaret"]["action_mask"])
        obs, rewards, _, _, _ = env.step({"margaret": int(legal[-1])})
        total += rewards["margaret"]
    fight = env.driver.fight
    assert fight is not None and fight.outcome is not None
    dealt = sum(e.damage for e in fight.history if e.TYPE == "wound.taken" and e.actor == "robert")  # type: ignore[attr-defined]
    taken = sum(
        e.damage for e in fight.history if e.TYPE == "wound.taken" and e.actor == "margaret"
    )  # type: ignore[attr-defined]
    assert total == pytest.approx(_outcome(fight.outcome, "red") + (dealt - taken) / 10.0)


def test_env_render_shows_the_fight() -> None:
    env = parallel_env(DUEL, render_mode="ansi")
    env.reset(seed=0)
    first = env.render()
    assert "robert start: rolls" in first and "die" not in first
    assert env.render() == ""  # only what happened since the last render


def test_bad_env_input() -> None:
    with pytest.raises(SegsimError, match="agents must be combatants"):
        FightDriver(load_scenario(DUEL), ["zorro"])
    with pytest.raises(SegsimError, match="no action catalogue for ruleset 'no_such'"):
        catalogue_for("no_such", 1)
    with pytest.raises(ValueError, match="render_mode"):
        parallel_env(DUEL, render_mode="human")


# ---------------------------------------------------------------- the engine's pause


def test_a_fight_driven_from_outside_is_the_same_fight_byte_for_byte() -> None:
    scenario = load_scenario(DUEL)
    inside = scenario.fight(7)
    inside.run()
    expected = io.StringIO()
    write_record(inside, expected)

    class Outside(Agent):
        def __init__(self) -> None:
            super().__init__("aggressive")
            self.reactive = False

    brain = Aggressive()
    fight = scenario.fight(7, policies={"margaret": Outside()})
    boundaries = 0
    while pending := fight.advance():
        assert list(pending) == ["margaret"]
        boundaries += 1
        fight.submit({cid: brain.decide(obs) for cid, obs in pending.items()})
    got = io.StringIO()
    write_record(fight, got)
    assert boundaries > 3
    assert got.getvalue() == expected.getvalue()


def test_run_refuses_an_external_policy_and_submit_checks_decisions() -> None:
    scenario = load_scenario(DUEL)
    with pytest.raises(RuntimeError, match="external policy"):
        scenario.fight(1, policies={"robert": Agent()}).run()
    fight = scenario.fight(1, policies={"robert": Agent("learner")})
    with pytest.raises(RuntimeError, match="no declaration phase is waiting"):
        fight.submit({})
    pending = fight.advance()
    assert list(pending) == ["robert"] and fight.pending.keys() == pending.keys()
    history = len(fight.history)
    with pytest.raises(IllegalDeclaration) as exc:
        fight.submit({"robert": Declaration("strike", "margaret")})
    assert exc.value.policy == "learner" and exc.value.segment == 0
    assert len(fight.history) == history and fight.pending  # unchanged, still waiting
    with pytest.raises(ValueError, match="no decision is asked of margaret"):
        fight.submit({"margaret": None})
    fight.submit({"robert": Declaration("arm")})
    assert any(e.TYPE == "action.declared" and e.actor == "robert" for e in fight.history)


def test_policies_are_bound_to_the_fight_seed_before_deciding() -> None:
    seen: list[tuple[str, int]] = []

    class Binder(Aggressive):
        def bind(self, actor: str, seed: int) -> None:
            seen.append((actor, seed))

    load_scenario(DUEL).fight(123, policies={"margaret": Binder()}).run()
    assert seen == [("margaret", 123)]


# ---------------------------------------------------------------- waiting forever


def test_two_agents_that_wait_reach_a_stalemate_that_is_a_loss_for_both() -> None:
    env = parallel_env(DUEL)
    env.reset(seed=0)
    wait = env.catalogue.index("wait")
    _, rewards, terms, truncs, _ = env.step({a: wait for a in env.agents})
    fight = env.driver.fight
    assert fight is not None and fight.outcome is not None
    assert (fight.outcome.result, fight.outcome.winner) == ("stalemate", None)
    assert rewards == {"robert": -1.0, "margaret": -1.0}
    assert terms == {"robert": True, "margaret": True}  # an end, not a truncation
    assert truncs == {"robert": False, "margaret": False}
    assert env.agents == []


def test_a_stalemate_scored_as_a_draw_when_asked() -> None:
    env = parallel_env(DUEL, stalemate=0.0)
    env.reset(seed=0)
    _, rewards, _, _, _ = env.step({a: 0 for a in env.agents})  # both declare nothing
    assert env.driver.fight is not None and env.driver.fight.outcome is not None
    assert env.driver.fight.outcome.result == "stalemate"
    assert rewards == {"robert": 0.0, "margaret": 0.0}


class _Waits:
    """A policy that only ever waits on guard."""

    def decide(self, observation: Any) -> Declaration:
        return Declaration("wait")


def test_a_single_agent_waiting_for_an_opponent_who_waits_loses() -> None:
    env = FightEnv(DUEL, "margaret", policies={"robert": _Waits})
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(env.catalogue.index("wait"))
    assert env.driver.fight is not None and env.driver.fight.outcome is not None
    assert env.driver.fight.outcome.result == "stalemate"
    assert (reward, terminated, truncated) == (-1.0, True, False)


def test_the_time_limit_truncates_with_no_reward(tmp_path: Path) -> None:
    text = DUEL.read_text(encoding="utf-8").replace("seed = 7", "seed = 7\nmax_segments = 3")
    short = tmp_path / "short.toml"
    short.write_text(text, encoding="utf-8")
    env = FightEnv(short, "margaret")
    obs, _ = env.reset(seed=0)
    done, total, steps = False, 0.0, 0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        arm = env.catalogue.index("arm")
        obs, reward, terminated, truncated, _ = env.step(arm if arm in legal else int(legal[0]))
        total += reward
        steps += 1
        done = terminated or truncated
    assert env.driver.fight is not None and env.driver.fight.outcome is not None
    assert env.driver.fight.outcome.result == "time limit"
    assert (total, terminated, truncated) == (0.0, False, True)
