"""Two PettingZoo agents on the sabre duel (segsim.envs.parallel_env): Robert and
Margaret are both agents. First random agents, uniform among the actions each one's
mask allows; then two small learners, numpy only, that train against each other
(self-play): one preference per entry of the action catalogue each, a softmax over the
legal ones, trained by REINFORCE for 20 episodes. Both pairs are evaluated on the same
8 fight seeds (master seed 1000).

Rewards: +1 a won fight, -1 a lost one, -1 for both in a stalemate (nobody left to act,
as when both wait: waiting forever is a loss for both, so neither learner can settle
for it), 0 when the scenario's time limit truncates the episode; with shaping=1.0 each
step also adds (damage dealt - damage taken) / 10.

It needs the rl extra (pip install 'segsim[rl]'); run it from the repository's root:
the command is `python examples/pettingzoo_agents.py`.
"""

from collections import Counter
from collections.abc import Callable

import numpy as np

from segsim.envs import FightParallelEnv, parallel_env

SCENARIO = "examples/scenarios/duel.toml"
EVALUATION_SEED = 1000
Chooser = Callable[[str, np.ndarray], int]


def make_env() -> FightParallelEnv:
    return parallel_env(SCENARIO, shaping=1.0)


def softmax(preferences: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Probabilities over the catalogue: the legal entries' preferences, normalised."""
    z = np.where(mask == 1, preferences, -np.inf)
    e = np.exp(z - z.max())
    return e / e.sum()


def episode(
    env: FightParallelEnv, choose: Chooser, seed: int | None = None
) -> tuple[dict[str, float], str]:
    """One fight: each agent's return, and how it ended (who won, or why nobody did)."""
    observations, _ = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {a: choose(a, observations[a]["action_mask"]) for a in env.agents}
        observations, rewards, _, _, _ = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    outcome = env.driver.fight.outcome  # type: ignore[union-attr]
    ended = f"{outcome.winner} won" if outcome.winner is not None else outcome.result
    return returns, ended


def evaluate(env: FightParallelEnv, choose: Chooser, fights: int = 8) -> Counter[str]:
    """How the fights end on the evaluation seeds (the same for every pair of agents)."""
    ends: Counter[str] = Counter()
    for k in range(fights):
        _, ended = episode(env, choose, EVALUATION_SEED if k == 0 else None)
        ends[ended] += 1
    return ends


def train(
    env: FightParallelEnv, rng: np.random.Generator, episodes: int = 20, rate: float = 3.0
) -> dict[str, np.ndarray]:
    """Independent REINFORCE learners with running-mean baselines; a choice counts only
    where the agent had one (a busy agent's only legal action is continue)."""
    n = len(env.catalogue)
    preferences = {a: np.zeros(n) for a in env.possible_agents}
    baselines = dict.fromkeys(env.possible_agents, 0.0)
    # this episode's (action, probabilities) per agent
    choices: dict[str, list[tuple[int, np.ndarray]]] = {a: [] for a in preferences}

    def choose(agent: str, mask: np.ndarray) -> int:
        p = softmax(preferences[agent], mask)
        action = int(rng.choice(n, p=p))
        if mask.sum() > 1:
            choices[agent].append((action, p))
        return action

    env.reset(seed=0)
    for _ in range(episodes):
        for made in choices.values():
            made.clear()
        returns, _ = episode(env, choose)
        for agent, made in choices.items():
            advantage = returns[agent] - baselines[agent]
            baselines[agent] += 0.1 * advantage
            for action, p in made:
                gradient = -p
                gradient[action] += 1.0
                preferences[agent] += rate * advantage * gradient / len(made)
    return preferences


def main() -> None:
    env = make_env()
    rng = np.random.default_rng(0)

    def uniform(agent: str, mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    print(f"Robert (blue) and Margaret (red), both agents; {len(env.catalogue)} entries")
    print(f"random agents: {dict(sorted(evaluate(env, uniform).items()))}")
    preferences = train(env, rng)

    def learned(agent: str, mask: np.ndarray) -> int:
        p = softmax(preferences[agent], mask)
        return int(rng.choice(len(p), p=p))

    print(f"after 20 episodes of self-play: {dict(sorted(evaluate(env, learned).items()))}")
    for agent, prefs in preferences.items():
        top = np.argsort(prefs)[::-1][:3]
        print(f"{agent} prefers: " + ", ".join(env.catalogue[i] for i in top))


if __name__ == "__main__":
    main()
