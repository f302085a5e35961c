"""A Gymnasium agent on the sabre duel (segsim.envs.FightEnv): Margaret is the agent,
Robert plays segsim's random policy. First a random agent, uniform among the actions
the mask allows; then a small learner, numpy only: one preference per entry of the
action catalogue, a softmax over the legal ones, trained by REINFORCE for 60 episodes.
Both are evaluated on the same 10 fight seeds (master seed 1000).

Rewards: +1 a won fight, -1 a lost one, -1 a stalemate (nobody left to act, as when
both fighters wait: waiting forever is a loss for both), 0 when the scenario's time
limit truncates the episode; with shaping=1.0 each step also adds (damage dealt -
damage taken) / 10, which gives the learner a signal before the fight ends.

It needs the rl extra (pip install 'segsim[rl]'); run it from the repository's root:
the command is `python examples/gym_agent.py`.
"""

from collections import Counter
from collections.abc import Callable

import numpy as np

from segsim.envs import FightEnv

SCENARIO = "examples/scenarios/duel.toml"
EVALUATION_SEED = 1000
Chooser = Callable[[np.ndarray], int]


def make_env() -> FightEnv:
    return FightEnv(SCENARIO, "margaret", policies={"robert": "random"}, shaping=1.0)


def softmax(preferences: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Probabilities over the catalogue: the legal entries' preferences, normalised."""
    z = np.where(mask == 1, preferences, -np.inf)
    e = np.exp(z - z.max())
    return e / e.sum()


EPISODES = 60  # training episodes


def episode(env: FightEnv, choose: Chooser, seed: int | None = None) -> tuple[float, str]:
    """One fight: the agent's return and how it ended (won, lost, stalemate, time limit)."""
    obs, _ = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, _ = env.step(choose(obs["action_mask"]))
        total += reward
        done = terminated or truncated
    outcome = env.driver.fight.outcome  # type: ignore[union-attr]
    if outcome.winner is None:
        return total, outcome.result
    return total, "won" if outcome.winner == "red" else "lost"


def evaluate(env: FightEnv, choose: Chooser, fights: int = 10) -> Counter[str]:
    """How the agent's fights end on the evaluation seeds (the same for every agent)."""
    ends: Counter[str] = Counter()
    for k in range(fights):
        _, how = episode(env, choose, EVALUATION_SEED if k == 0 else None)
        ends[how] += 1
    return ends


def train(
    env: FightEnv, rng: np.random.Generator, episodes: int = EPISODES, rate: float = 4.0
) -> np.ndarray:
    """REINFORCE with a running-mean baseline: after each episode, every choice made
    moves the preferences toward it in proportion to how much better than usual the
    episode's return was."""
    preferences = np.zeros(env.action_space.n)
    baseline = 0.0
    choices: list[tuple[int, np.ndarray]] = []  # this episode's (action, probabilities)

    def choose(mask: np.ndarray) -> int:
        p = softmax(preferences, mask)
        action = int(rng.choice(len(p), p=p))
        choices.append((action, p))
        return action

    env.reset(seed=0)
    for _ in range(episodes):
        choices.clear()
        total, _ = episode(env, choose)
        advantage = total - baseline
        baseline += 0.1 * (total - baseline)
        for action, p in choices:
            gradient = -p
            gradient[action] += 1.0
            preferences += rate * advantage * gradient / len(choices)
    return preferences


def main() -> None:
    env = make_env()
    rng = np.random.default_rng(0)

    def uniform(mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    print(f"Margaret against a random Robert, {len(env.catalogue)} catalogue entries")
    print(f"random agent:  {dict(sorted(evaluate(env, uniform).items()))}")
    preferences = train(env, rng)

    def learned(mask: np.ndarray) -> int:
        p = softmax(preferences, mask)
        return int(rng.choice(len(p), p=p))

    print(f"after {EPISODES} training episodes: {dict(sorted(evaluate(env, learned).items()))}")
    top = np.argsort(preferences)[::-1][:3]
    print("preferred actions: " + ", ".join(env.catalogue[i] for i in top))


if __name__ == "__main__":
    main()
