"""Loreval's cost per action against Chroniques', and a profile of a Loreval fight.

Both sides run in turn (A B A B ...), times are CPU times and every figure is the
median of the rounds, as in ``benchmarks/run.py``. An action is any action the engine
started (``state.next_action_id - 1``: the rules' steps and waits included).

    python benchmarks/loreval_cost.py [--rounds 7] [--fights 20] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from run import interleaved  # noqa: E402

from segsim import load_scenario  # noqa: E402
from segsim.actions import Action  # noqa: E402

SCENARIOS = ROOT / "examples/scenarios"
LOREVAL = ("loreval_duel.toml", "loreval_skirmish.toml")
CHRONIQUES = "chroniques_ambush.toml"


STEPS = frozenset({"turn", "await", "wait"})
"""The rules' own steps and waits: not what a fighter does in a round."""


def fights(name: str, n: int, steps: bool = True) -> int:
    """``n`` fights of a scenario (seeds 0..n-1); the number of actions started (with
    ``steps`` false: of round actions, the rules' steps and waits left out)."""
    scenario = load_scenario(SCENARIOS / name)
    actions = 0
    for seed in range(n):
        fight = scenario.fight(seed)
        fight.run()
        if steps:
            actions += fight.state.next_action_id - 1
        else:
            # A declared action is its own action.declared event.
            actions += sum(
                1 for e in fight.history if isinstance(e, Action) and e.kind not in STEPS
            )
    return actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--fights", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="profile loreval_skirmish")
    args = parser.parse_args(argv)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(fights, "loreval_skirmish.toml", args.fights)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return 0
    for steps, unit in ((True, "action"), (False, "round action")):
        for name in LOREVAL:
            lore, chro, ratio = interleaved(
                args.rounds,
                lambda name=name, steps=steps: fights(name, args.fights, steps),  # type: ignore[misc]
                lambda steps=steps: fights(CHRONIQUES, args.fights, steps),  # type: ignore[misc]
            )
            print(
                f"per {unit}: {name} {lore * 1e6:.1f} us, {CHRONIQUES} {chro * 1e6:.1f} us, "
                f"ratio {ratio:.2f}x (median of {args.rounds} interleaved rounds)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
