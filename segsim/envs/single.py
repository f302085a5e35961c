"""A fight as a single-agent Gymnasium env: one combatant is the agent, the others play
their scenario policies (or given ones).

A step is one declaration boundary at which the agent is asked. The observation is
``{"observation": features, "action_mask": mask}``; the mask is also in ``info`` and
:meth:`FightEnv.action_masks` (the method maskable-action learners look for). An action
the mask forbids counts as ``continue`` (``info["illegal_action"]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from segsim.envs.driver import FightDriver
from segsim.envs.features import LIMIT
from segsim.experiment import PolicySpec, fight_seed
from segsim.scenario import Scenario, load_scenario


class FightEnv(gym.Env[dict[str, np.ndarray], int]):
    """``agent`` is the combatant id the learner plays (default: the first).

    ``reset(seed=s)`` plays fight seed ``fight_seed(s, 0)``; each later ``reset()``
    without a seed the next one, ``fight_seed(s, k)``. Rewards: +1 a win, -1 a loss,
    ``stalemate`` (default -1: waiting forever is a loss) when nobody is left to act, 0
    when the time limit truncates; see :class:`~segsim.envs.driver.FightDriver`.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - as gymnasium.Env declares it

    def __init__(
        self,
        scenario: str | Path | Scenario,
        agent: str | None = None,
        *,
        policies: Mapping[str, PolicySpec] | None = None,
        shaping: float = 0.0,
        stalemate: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.agent = agent if agent is not None else sc.combatants[0].id
        self.driver = FightDriver(
            sc, [self.agent], policies=policies, shaping=shaping, stalemate=stalemate
        )
        n = len(self.driver.catalogue)
        self.observation_space: spaces.Space[Any] = spaces.Dict(
            {
                "observation": spaces.Box(-LIMIT, LIMIT, (self.driver.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self.action_space: spaces.Space[Any] = spaces.Discrete(n)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self._base_seed = 0
        self._episode = 0
        self._rendered = 0

    @property
    def catalogue(self) -> list[str]:
        return self.driver.catalogue.labels()

    def _obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": self.driver.observation(self.agent),
            "action_mask": self.driver.mask(self.agent),
        }

    def _info(self, illegal: bool) -> dict[str, Any]:
        fight = self.driver.fight
        assert fight is not None
        return {
            "segment": fight.state.segment,
            "action_mask": self.driver.mask(self.agent),
            "illegal_action": illegal,
        }

    def action_masks(self) -> np.ndarray:
        return self.driver.mask(self.agent)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._base_seed, self._episode = seed, 0
        else:
            self._episode += 1
        self.driver.reset(fight_seed(self._base_seed, self._episode))
        self._rendered = 0
        return self._obs(), self._info(False)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        driver = self.driver
        illegal = self.agent in driver.act({self.agent: action})
        reward = driver.rewards()[self.agent]
        out = driver.ended or not driver.in_fight(self.agent)
        if out:
            reward += driver.outcome_reward(self.agent)
        truncated = out and driver.truncated()
        return self._obs(), float(reward), out and not truncated, truncated, self._info(illegal)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        fight = self.driver.fight
        text = self.driver.render(self._rendered)
        self._rendered = len(fight.history) if fight is not None else 0
        return text
