"""A fight as a PettingZoo ``ParallelEnv``; its AEC form through PettingZoo's own
``parallel_to_aec``.

One step is one declaration boundary: the observations are those of a declaration
phase in which at least one agent is asked; an agent that is not asked (busy, or not
concerned by what happened) has only ``continue`` in its action mask, and its action
is ignored. Observations are ``{"observation": features, "action_mask": mask}``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from segsim.envs.driver import FightDriver
from segsim.envs.features import LIMIT
from segsim.experiment import PolicySpec, fight_seed
from segsim.scenario import Scenario, load_scenario


def _scenario(scenario: str | Path | Scenario) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


class FightParallelEnv(ParallelEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """Every combatant named in ``agents`` (default: all) is an agent; the others keep
    their scenario policy (or the one ``policies`` gives them).

    ``reset(seed=s)`` plays fight seed ``fight_seed(s, 0)``; each later ``reset()``
    without a seed plays the next episode, ``fight_seed(s, k)``. Choosing an action the
    mask forbids counts as ``continue`` (``info["illegal_action"]`` says so). Rewards:
    +1 a win, -1 a loss, ``stalemate`` (default -1 for every agent: waiting forever is a
    loss for both) when nobody is left to act, 0 when the time limit truncates; see
    :class:`~segsim.envs.driver.FightDriver`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "segsim_fight_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        scenario: str | Path | Scenario,
        agents: Sequence[str] | None = None,
        *,
        policies: Mapping[str, PolicySpec] | None = None,
        shaping: float = 0.0,
        stalemate: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.driver = FightDriver(
            _scenario(scenario), agents, policies=policies, shaping=shaping, stalemate=stalemate
        )
        self.possible_agents = list(self.driver.agents)
        self.agents: list[str] = []
        self.render_mode = render_mode
        self._base_seed = 0
        self._episode = 0
        self._rendered = 0

    @functools.cache  # noqa: B019 - one space object per agent, as PettingZoo asks
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.Dict(
            {
                "observation": spaces.Box(-LIMIT, LIMIT, (self.driver.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.driver.catalogue),), np.int8),
            }
        )

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.Discrete(len(self.driver.catalogue))

    @property
    def catalogue(self) -> list[str]:
        """What each action index means."""
        return self.driver.catalogue.labels()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        if seed is not None:
            self._base_seed, self._episode = seed, 0
        else:
            self._episode += 1
        self.driver.reset(fight_seed(self._base_seed, self._episode))
        self.agents = list(self.possible_agents)
        self._rendered = 0
        illegal: set[str] = set()
        return (
            {a: self._obs(a) for a in self.agents},
            {a: self._info(a, illegal) for a in self.agents},
        )

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        return {
            "observation": self.driver.observation(agent),
            "action_mask": self.driver.mask(agent),
        }

    def _info(self, agent: str, illegal: set[str]) -> dict[str, Any]:
        fight = self.driver.fight
        assert fight is not None
        return {
            "segment": fight.state.segment,
            "asked": agent in self.driver.pending,
            "illegal_action": agent in illegal,
        }

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        driver = self.driver
        illegal = driver.act({a: actions.get(a, 0) for a in self.agents})
        shaped = driver.rewards()
        ended = driver.ended
        truncated = driver.truncated()
        obs, rewards, terms, truncs, infos = {}, {}, {}, {}, {}
        for a in self.agents:
            out = ended or not driver.in_fight(a)
            obs[a] = self._obs(a)
            rewards[a] = shaped[a] + (driver.outcome_reward(a) if out else 0.0)
            terms[a] = out and not truncated
            truncs[a] = out and truncated
            infos[a] = self._info(a, illegal)
        self.agents = [a for a in self.agents if not (terms[a] or truncs[a])]
        if self.render_mode == "ansi":
            print(self.render())
        return obs, rewards, terms, truncs, infos

    def render(self) -> str:
        """The events since the last render, as text."""
        fight = self.driver.fight
        text = self.driver.render(self._rendered)
        self._rendered = len(fight.history) if fight is not None else 0
        return text

    def close(self) -> None:
        self.driver.fight = None

    def state(self) -> np.ndarray:
        """The concatenated observations of every possible agent."""
        return np.concatenate([self.driver.observation(a) for a in self.possible_agents])


def parallel_env(scenario: str | Path | Scenario, **kwargs: Any) -> FightParallelEnv:
    """A PettingZoo parallel env of a scenario (see :class:`FightParallelEnv`)."""
    return FightParallelEnv(scenario, **kwargs)


def aec_env(scenario: str | Path | Scenario, **kwargs: Any) -> AECEnv[str, Any, Any]:
    """The AEC form, through PettingZoo's own ``parallel_to_aec`` conversion."""
    return parallel_to_aec(FightParallelEnv(scenario, **kwargs))
