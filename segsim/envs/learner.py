"""A small learner for :class:`~segsim.envs.FightEnv`, numpy only (extra ``segsim[rl]``).

:class:`LinearSoftmax` scores every catalogue entry as a linear function of the
observation's features (the first feature is a constant, so it also holds one
preference per entry), draws among the legal entries by a softmax, and learns by
REINFORCE with a running-mean baseline: after each episode, every choice made moves the
weights toward it in proportion to how much better than usual the episode's return was
(Williams 1992). It is a few dozen lines a reader can check, trains in seconds on one
core, and needs no deep-learning library: Stable-Baselines3 would bring torch (hundreds
of megabytes) into the ``rl`` extra for a problem this size.

Choices where the mask leaves only ``continue`` are not learnt from (there was no
choice). All randomness comes from the generator passed in: the same seed, the same
weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Array = np.ndarray[Any, np.dtype[np.float64]]


class LinearSoftmax:
    """A softmax policy linear in the features: ``weights`` has one column per catalogue
    entry."""

    def __init__(self, features: int, actions: int) -> None:
        self.weights: Array = np.zeros((features, actions))

    def probabilities(self, features: Any, mask: Any) -> Array:
        """The chance of each entry: the legal ones' scores, normalised (0 elsewhere)."""
        z = np.asarray(features, dtype=np.float64) @ self.weights
        z = np.where(np.asarray(mask) == 1, z, -np.inf)
        e = np.exp(z - z.max())
        out: Array = e / e.sum()
        return out

    def act(self, observation: Any, rng: np.random.Generator | None = None) -> int:
        """An entry for an env observation: drawn with ``rng``, or the likeliest
        (the first of equals) without one."""
        p = self.probabilities(observation["observation"], observation["action_mask"])
        if rng is None:
            return int(np.argmax(p))
        return int(rng.choice(len(p), p=p))

    def learn(
        self, choices: Sequence[tuple[Array, int, Array]], advantage: float, rate: float
    ) -> None:
        """One REINFORCE step: for each (features, entry, probabilities) of an episode,
        the gradient of log p(entry) is features x (one-hot(entry) - p)."""
        if not choices:
            return
        for x, action, p in choices:
            gradient = -p
            gradient[action] += 1.0
            self.weights += rate * advantage * np.outer(x, gradient) / len(choices)


def episode(
    env: Any, agent: LinearSoftmax, rng: np.random.Generator | None, seed: int | None = None
) -> tuple[float, str | None, list[tuple[Array, int, Array]]]:
    """One fight in the env: the agent's return, the winning side, and its choices."""
    obs, _ = env.reset(seed=seed)
    total, done = 0.0, False
    choices: list[tuple[Array, int, Array]] = []
    while not done:
        x = np.asarray(obs["observation"], dtype=np.float64)
        mask = obs["action_mask"]
        p = agent.probabilities(x, mask)
        action = int(np.argmax(p)) if rng is None else int(rng.choice(len(p), p=p))
        if int(np.sum(mask)) > 1:
            choices.append((x, action, p))
        obs, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        done = bool(terminated or truncated)
    return total, env.driver.fight.outcome.winner, choices


def train(
    env: Any,
    agent: LinearSoftmax,
    episodes: int,
    rng: np.random.Generator,
    *,
    rate: float = 0.5,
    seed: int = 0,
) -> list[float]:
    """REINFORCE for ``episodes`` fights (the env's episodes from master seed ``seed``);
    the returns, in order."""
    baseline = 0.0
    returns = []
    for k in range(episodes):
        total, _, choices = episode(env, agent, rng, seed if k == 0 else None)
        agent.learn(choices, total - baseline, rate)
        baseline += 0.05 * (total - baseline)
        returns.append(total)
    return returns


def wins(env: Any, agent: LinearSoftmax, fights: int, seed: int, side: str) -> int:
    """How many of the fights of master seed ``seed`` (``fight_seed(seed, i)``, as an
    experiment's) ``side`` wins with the agent choosing its likeliest entry."""
    won = 0
    for k in range(fights):
        _, winner, _ = episode(env, agent, None, seed if k == 0 else None)
        won += winner == side
    return won


__all__ = ["LinearSoftmax", "episode", "train", "wins"]
