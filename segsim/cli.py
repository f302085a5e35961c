"""The ``segsim`` command: run a scenario or a fight script, replay or branch a record,
draw a timeline, list rulesets.

Exit codes: 0 done (a replay identical to its record), 1 a replay that diverges, 2 bad
input (a message names the file, line and field, or the segment, fighter and rule).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from segsim.errors import SegsimError


def _configure_account(show_dice: bool) -> Any:
    import structlog

    from segsim.log import AccountRenderer

    structlog.configure(
        processors=[AccountRenderer(show_dice=show_dice)],
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=False,
    )
    return structlog.get_logger("segsim")


def _outcome_line(fight: Any) -> str:
    outcome = fight.outcome
    winner = f"side {outcome.winner} wins" if outcome.winner else "no winner"
    last = fight.history[-1].t
    return (
        f"outcome: {outcome.result}, {winner} after {last + 1} segments ({(last + 1) / 10:.1f} s)"
    )


def _cmd_run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.record import write_record

    if (args.scenario is None) == (args.script is None):
        parser.error("run takes a scenario file or --script FILE (one of them)")
    logger = None if args.quiet else _configure_account(args.dice)
    if args.script is not None:
        from segsim.script import load_script

        if args.seed is not None:
            parser.error("--seed does not apply to --script: the script gives the dice")
        script = load_script(args.script)
        if not args.quiet:
            names = " vs ".join(f"{c.name} ({c.id}, {c.side})" for c in script.combatants)
            print(f"{script.name or args.script}: {names}; played from {args.script}")
        fight = script.play(logger=logger)
    else:
        from segsim.scenario import load_scenario

        scenario = load_scenario(args.scenario)
        fight = scenario.fight(args.seed, logger=logger)
        if not args.quiet:
            names = " vs ".join(
                f"{c.name} ({c.id}, {c.side}, {c.policy})" for c in scenario.combatants
            )
            print(f"{scenario.name or args.scenario}: {names}; seed {fight.seed}")
        fight.run()
    print(_outcome_line(fight))
    if args.record:
        write_record(fight, args.record)
        print(f"record written to {args.record}")
    return 0


def _cmd_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.replay import read_plan, replay

    if args.until is None:
        for flag, value in (("--then", args.then), ("--seed", args.seed)):
            if value is not None:
                parser.error(f"{flag} needs --until T (the segment the branch starts from)")
        if args.record is not None:
            parser.error("--record needs --until T (a replay writes nothing)")
        result = replay(args.file)
        if result.divergence is None:
            print(str(result))
            return 0
        print(f"{args.file}: the replay diverges at {result.divergence}")
        return 1
    return _branch(args, read_plan(args.file))


def _branch(args: argparse.Namespace, plan: Any) -> int:
    from segsim.clock import to_seconds
    from segsim.record import write_record
    from segsim.replay import branch, parse_then

    fighters = [f.id for f in plan.fighters]
    then = parse_then(args.then or [], fighters)
    result = branch(plan, args.until, then, seed=args.seed)
    fight = result.fight
    who = ", ".join(f"{cid}: {policy}" for cid, policy in result.policies.items())
    print(
        f"{args.file}: replayed to segment {args.until} ({to_seconds(args.until):.1f} s), "
        f"then {who}; dice after it from seed {result.seed}"
    )
    for note in result.notes:
        print(f"note: {note}")
    if not args.quiet:
        for event in fight.history:
            if event.t >= args.until and (args.dice or event.TYPE != "die.rolled"):
                print(f"{event.t:>5} {to_seconds(event.t):>6.1f}s  {event.describe()}")
    print(_outcome_line(fight))
    end = plan.record.end
    if end is not None:
        winner = f"side {end['winner']} wins" if end.get("winner") else "no winner"
        print(f"recorded: {end.get('outcome')}, {winner} at segment {end['t']}")
    first = result.first_difference()
    if first is None:
        print("the branch is the recorded fight, event for event")
    else:
        print(f"the branch departs from the record at line {first}")
    if args.record:
        write_record(fight, args.record)
        print(f"record written to {args.record}")
    return 0


def _cmd_timeline(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.timeline import timeline

    if args.scale < 1 or args.width < 20:
        parser.error("--scale is at least 1 and --width at least 20")
    view = timeline(args.file)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8", newline="\n") as f:
            f.write(view.svg())
    if not args.svg or args.text:
        sys.stdout.write(view.text(scale=args.scale, width=args.width))
    if args.svg:
        print(f"timeline written to {args.svg}")
    return 0


def _cmd_rules(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.rules import ruleset_class, ruleset_names

    for name in ruleset_names():
        cls = ruleset_class(name)
        print(f"{name:<12} {cls.title}")
    return 0


def _segment(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a segment number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a segment number is >= 0, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="segsim", description="Simulate tabletop RPG combat on a segment timeline."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser(
        "run",
        help="run a scenario, or play a hand-entered fight script, with a segment-by-segment "
        "account",
    )
    run.add_argument("scenario", nargs="?", help="scenario file (TOML)")
    run.add_argument(
        "--script", metavar="FILE", help="play a fight script (TOML) instead of a scenario"
    )
    run.add_argument("--seed", type=int, default=None, help="fight seed (default: the scenario's)")
    run.add_argument("--record", metavar="OUT", help="write the fight record (JSON Lines)")
    run.add_argument("--quiet", action="store_true", help="print only the outcome")
    run.add_argument("--dice", action="store_true", help="show every die draw in the account")
    run.set_defaults(func=_cmd_run)

    rep = sub.add_parser(
        "replay",
        help="re-simulate a record and compare it line by line; or branch it (--until)",
        description="Without --until: exit 0 and 'identical (N events)' when the record "
        "replays exactly, exit 1 and the first divergence when it does not. With --until T: "
        "replay to segment T, then let policies decide (--then) with fresh dice.",
    )
    rep.add_argument("file", help="fight record (JSON Lines)")
    rep.add_argument(
        "--until",
        type=_segment,
        metavar="T",
        help="branch: follow the record up to segment T, then let policies decide",
    )
    rep.add_argument(
        "--then",
        nargs="+",
        action="extend",
        metavar="POLICY",
        help="who decides from T on: ID=POLICY per combatant (a registered name, module:Class, "
        "or 'replay' to keep the recorded declarations), or POLICY for everyone not named; "
        "default: each combatant's recorded policy",
    )
    rep.add_argument(
        "--seed", type=int, default=None, help="seed of the dice after T (default: the record's)"
    )
    rep.add_argument("--record", metavar="OUT", help="write the branch's record")
    rep.add_argument("--quiet", action="store_true", help="print only the outcome of a branch")
    rep.add_argument("--dice", action="store_true", help="show die draws in a branch's account")
    rep.set_defaults(func=_cmd_replay)

    tl = sub.add_parser(
        "timeline", help="draw a record's timeline: one row per fighter, actions over segments"
    )
    tl.add_argument("file", help="fight record (JSON Lines)")
    tl.add_argument("--svg", metavar="OUT", help="write the timeline as a standalone SVG")
    tl.add_argument("--text", action="store_true", help="with --svg, print the text view too")
    tl.add_argument("--scale", type=int, default=2, help="columns per segment (default 2)")
    tl.add_argument("--width", type=int, default=100, help="wrap at this many columns")
    tl.set_defaults(func=_cmd_timeline)

    rules = sub.add_parser("rules", help="list the rulesets")
    rules.set_defaults(func=_cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args, parser)
    except SegsimError as exc:
        print(f"segsim: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (segsim ... | head): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        print(f"segsim: error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
