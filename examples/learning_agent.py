"""A small learning agent: a UCB1 bandit tunes the parameters of the rule-list policy
in examples/policies/striker.toml (PS bonus, dodging, patience), playing Margaret against
an aggressive Robert. Then, on fresh fight seeds (common to both), the tuned policy and
the random policy each take Margaret's place: the tuned one wins far more often, and the
95 % interval of the difference says by how much.
"""

import functools
import itertools
import math
import statistics

from segsim import load_scenario
from segsim.experiment import fight_seed, run, sweep
from segsim.policies import load_rule_list
from segsim.policy import make_policy

SCENARIO = "examples/scenarios/duel.toml"
RULES = "examples/policies/striker.toml"
OPPONENT = {"robert": "aggressive"}

scenario = load_scenario(SCENARIO)
grid = [
    {"max_bonus": bonus, "dodge": dodge, "patient": patient}
    for bonus, dodge, patient in itertools.product((0, 1, 2), (False, True), (False, True))
]
pulls = [0] * len(grid)
wins = [0.0] * len(grid)


def play(params: dict[str, object], t: int) -> float:
    """One training fight (seed t of master seed 1): 1 if Margaret's side wins."""
    fight = scenario.fight(
        fight_seed(1, t),
        policies={
            "margaret": load_rule_list(RULES, **params),
            "robert": make_policy("rinkanou", "aggressive"),
        },
    )
    outcome = fight.run()
    return 1.0 if outcome.winner == "red" else 0.0


for t in range(240):
    if t < len(grid):
        arm = t  # play every arm once
    else:
        arm = max(
            range(len(grid)),
            key=lambda i: wins[i] / pulls[i] + math.sqrt(2 * math.log(t) / pulls[i]),
        )
    pulls[arm] += 1
    wins[arm] += play(grid[arm], t)

best = max(range(len(grid)), key=lambda i: (pulls[i], wins[i]))
print(f"UCB1 over {len(grid)} parameter sets, 240 training fights against 'aggressive':")
for i in sorted(range(len(grid)), key=lambda i: -pulls[i])[:4]:
    print(f"  {grid[i]}: {pulls[i]} fights, {100 * wins[i] / pulls[i]:.0f} % won")
print(f"chosen: {grid[best]}")

# Evaluation on fresh seeds (master seed 99): the tuned rule list, then random, as Margaret.
tuned = functools.partial(load_rule_list, RULES, **grid[best])
experiment = sweep(
    SCENARIO,
    150,
    seed=99,
    policies={**OPPONENT, "margaret": tuned},
    compare={"margaret": "random"},
)
results = run(experiment)
summary = results.summary()
for arm, who in zip(summary.arms, ("tuned striker", "random"), strict=True):
    red = next(s for s in arm.sides if s.side == "red")
    lo, hi = red.interval
    print(
        f"{who:>14}: Margaret wins {100 * red.rate:5.1f} % "
        f"(95 % CI {100 * lo:.1f}-{100 * hi:.1f} %)"
    )

# The paired difference on the same seeds (common random numbers).
tuned_rows, random_rows = (results.arm_results(arm.label) for arm in experiment.arms)
diffs = [
    float(a.winner == "red") - float(b.winner == "red")
    for a, b in zip(tuned_rows, random_rows, strict=True)
]
mean = statistics.fmean(diffs)
half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
print(
    f"tuned minus random: {100 * mean:+.1f} points of Margaret's win rate, "
    f"95 % CI [{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] ({len(diffs)} paired seeds)"
)
