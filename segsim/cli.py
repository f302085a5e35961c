"""The ``segsim`` command: run a scenario, list rulesets."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from segsim.errors import SegsimError


def _cmd_run(args: argparse.Namespace) -> int:
    import structlog

    from segsim.log import AccountRenderer
    from segsim.record import write_record
    from segsim.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    logger = None
    if not args.quiet:
        structlog.configure(
            processors=[AccountRenderer(show_dice=args.dice)],
            logger_factory=structlog.PrintLoggerFactory(sys.stdout),
            cache_logger_on_first_use=False,
        )
        logger = structlog.get_logger("segsim")
    fight = scenario.fight(args.seed, logger=logger)
    title = scenario.name or args.scenario
    if not args.quiet:
        names = " vs ".join(f"{c.name} ({c.id}, {c.side}, {c.policy})" for c in scenario.combatants)
        print(f"{title}: {names}; seed {fight.seed}")
    outcome = fight.run()
    winner = f"side {outcome.winner} wins" if outcome.winner else "no winner"
    last = fight.history[-1].t
    print(
        f"outcome: {outcome.result}, {winner} after {last + 1} segments ({(last + 1) / 10:.1f} s)"
    )
    if args.record:
        write_record(fight, args.record)
        print(f"record written to {args.record}")
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from segsim.rules import ruleset_class, ruleset_names

    for name in ruleset_names():
        cls = ruleset_class(name)
        print(f"{name:<12} {cls.title}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="segsim", description="Simulate tabletop RPG combat on a segment timeline."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a scenario and print a segment-by-segment account")
    run.add_argument("scenario", help="scenario file (TOML)")
    run.add_argument("--seed", type=int, default=None, help="fight seed (default: the scenario's)")
    run.add_argument("--record", metavar="OUT", help="write the fight record (JSON Lines)")
    run.add_argument("--quiet", action="store_true", help="print only the outcome")
    run.add_argument("--dice", action="store_true", help="show every die draw in the account")
    run.set_defaults(func=_cmd_run)
    rules = sub.add_parser("rules", help="list the rulesets")
    rules.set_defaults(func=_cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except SegsimError as exc:
        print(f"segsim: error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
