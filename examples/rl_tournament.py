"""A learning agent against the built-in policies (segsim.envs, the rl extra).

Margaret is the agent in the Gymnasium env of the sabre duel (segsim.envs.FightEnv),
and Robert plays the built-in random policy while she trains: segsim.envs.learner's
LinearSoftmax, a softmax policy linear in the observation's features, trained by
REINFORCE (numpy only), with shaping so that damage counts before the fight ends.

Then a tournament on common seeds: Margaret played by the untrained agent, the trained
one (each choosing its likeliest action) and every built-in RinKaNou policy, against
Robert played by random, aggressive and pressure, 100 fights each on the same fight
seeds (master seed 2000: fight i has the seed fight_seed(2000, i) in the env and in
the sweeps alike). Each cell is Margaret's win rate with its 95 % Wilson interval.

It needs the rl extra (pip install 'segsim[rl]'); run it from the repository's root:
the command is `python examples/rl_tournament.py`.
"""

import numpy as np

from segsim.envs import FightEnv
from segsim.envs.learner import LinearSoftmax, train, wins
from segsim.experiment import run, sweep, wilson

SCENARIO = "examples/scenarios/duel.toml"
TRAINING_OPPONENT = "random"
OPPONENTS = ("random", "aggressive", "pressure")
BUILT_INS = ("aggressive", "defender", "parrier", "counter", "pressure", "random")
EPISODES = 150
FIGHTS = 100
SEED = 2000


def make_env(opponent: str) -> FightEnv:
    return FightEnv(SCENARIO, "margaret", policies={"robert": opponent}, shaping=1.0)


def trained_agent(episodes: int = EPISODES, seed: int = 0) -> tuple[LinearSoftmax, LinearSoftmax]:
    """The untrained agent and the one trained for ``episodes`` fights against Robert
    playing the training opponent."""
    env = make_env(TRAINING_OPPONENT)
    size = env.observation_space["observation"].shape[0]
    untrained = LinearSoftmax(size, int(env.action_space.n))
    agent = LinearSoftmax(size, int(env.action_space.n))
    train(env, agent, episodes, np.random.default_rng(seed))
    return untrained, agent


def table(
    agents: dict[str, LinearSoftmax], opponents: tuple[str, ...], fights: int
) -> dict[str, dict[str, int]]:
    """Margaret's wins, by who plays her (agents and built-ins) and who plays Robert."""
    out: dict[str, dict[str, int]] = {}
    for opponent in opponents:
        env = make_env(opponent)
        for name, agent in agents.items():
            out.setdefault(name, {})[opponent] = wins(env, agent, fights, SEED, "red")
        for policy in BUILT_INS:
            experiment = sweep(
                SCENARIO, fights, seed=SEED, policies={"robert": opponent, "margaret": policy}
            )
            results = run(experiment).results
            out.setdefault(policy, {})[opponent] = sum(r.winner == "red" for r in results)
    return out


def show(found: dict[str, dict[str, int]], opponents: tuple[str, ...], fights: int) -> str:
    lines = ["Margaret played by".ljust(18) + "".join(f"against {o}".rjust(24) for o in opponents)]
    for name, row in found.items():
        cells = []
        for o in opponents:
            lo, hi = wilson(row[o], fights)
            cells.append(
                f"{100 * row[o] / fights:5.1f} % [{100 * lo:3.0f}, {100 * hi:3.0f}]".rjust(24)
            )
        lines.append(name.ljust(18) + "".join(cells))
    return "\n".join(lines)


def main() -> None:
    untrained, agent = trained_agent()
    found = table({"untrained agent": untrained, "trained agent": agent}, OPPONENTS, FIGHTS)
    print(
        f"trained for {EPISODES} episodes against {TRAINING_OPPONENT}; {FIGHTS} fights per "
        f"cell on the same seeds (master seed {SEED}); Margaret's win rate, 95% interval"
    )
    print(show(found, OPPONENTS, FIGHTS))


if __name__ == "__main__":
    main()
