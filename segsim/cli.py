"""The ``segsim`` command: run a scenario or a fight script, replay or branch a record,
draw a timeline, run experiments (sweep, tournament; balance and optimize in
:mod:`segsim.cli_questions`), list rulesets and their content.

Exit codes (:data:`EXIT_CODES`, documented in docs/cli.md): 0 done (a replay identical
to its record), 1 a replay that diverges or an experiment in which some fights failed,
2 bad input (a message names the file, line and field, or the segment, fighter and
rule), a bad command line included.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from segsim.errors import SegsimError

EXIT_CODES = {
    0: "done; a replay identical to its record",
    1: "a replay that diverges from its record; an experiment in which some fights failed",
    2: "bad input (file, line and field named) or a bad command line",
}
"""What ``segsim`` exits with, for every command."""


def _configure_account(show_dice: bool, verbose: bool = False) -> Any:
    import structlog

    from segsim.log import AccountRenderer

    structlog.configure(
        processors=[AccountRenderer(show_dice=show_dice, verbose=verbose)],
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=False,
    )
    return structlog.get_logger("segsim")


def ended_in(outcome: str, winner: str | None, segment: int) -> str:
    """How a fight ended, in the one time convention (docs/cli.md, "Time"): an event
    of segment N is at N x 0.1 s, when its segment begins; a time limit of N segments
    ends the fight when segment N would begin, N segments (0 to N - 1) played."""
    from segsim.clock import to_seconds

    who = f"side {winner} wins" if winner else "no winner"
    if outcome == "time limit":
        return (
            f"{outcome}, {who}: the limit of {segment} segments ({to_seconds(segment):.1f} s) "
            "is reached"
        )
    return f"{outcome}, {who} in segment {segment} ({to_seconds(segment):.1f} s)"


def _outcome_line(fight: Any) -> str:
    outcome = fight.outcome
    cause = getattr(outcome, "cause", "")
    result = f"{outcome.result} ({cause})" if cause else outcome.result
    return "outcome: " + ended_in(result, outcome.winner, fight.history[-1].t)


def _check_outputs(parser: argparse.ArgumentParser, **paths: str | None) -> None:
    """Refuse an output path that cannot be written, before anything runs (exit 2)."""
    from segsim.experiment.outputs import check_path

    for flag, path in paths.items():
        if path is not None:
            check_path(path, flag)  # its error exits with 2 and says which file


def _end_of_fight(fight: Any, ruleset: str, record: str | None) -> None:
    """The fighters' state at the end, and what to do next with the record."""
    from segsim.views.status import status_table

    out = {e.actor: e.reason for e in fight.history if e.TYPE == "combatant.out"}
    print()
    sys.stdout.write(status_table(ruleset, fight.state.combatants.values(), out))
    if record:
        shown = _shell_word(record)
        commands = [
            (f"segsim replay {shown}", "check that it replays identically"),
            (f"segsim replay {shown} --until T --then ID=POLICY", "branch it at segment T"),
            (f"segsim timeline {shown}", "draw its timeline"),
            (f"segsim view {shown} --html fight.html", "a viewer to open in a browser"),
        ]
        width = max(len(c) for c, _ in commands)
        print()
        print("next:")
        for command, what in commands:
            print(f"  {command.ljust(width)}  # {what}")
    else:
        print()
        print(
            "next: add --record FILE to keep the fight, then segsim replay FILE, "
            "segsim view FILE --html OUT.html"
        )


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _account_head(ruleset: Any, legend: bool) -> None:
    """The legend (--legend), or where to find it."""
    from segsim.views.legend import legend as legend_of
    from segsim.views.legend import where

    name = _ruleset_name(ruleset)
    if legend:
        sys.stdout.write(legend_of(name))
    else:
        print(where(name))


def _cmd_run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run with names from data shown as text: control characters are escaped."""
    import contextlib

    from segsim.terminal import SafeWriter

    _check_outputs(parser, record=args.record)
    with contextlib.redirect_stdout(SafeWriter(sys.stdout)):
        return _run_fight(args, parser)


def _run_fight(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.record import write_record

    if (args.scenario is None) == (args.script is None):
        parser.error("run takes a scenario file or --script FILE (one of them)")
    logger = None if args.quiet else _configure_account(args.dice, args.verbose)
    if args.script is not None:
        from segsim.script import load_script

        if args.seed is not None:
            parser.error("--seed does not apply to --script: the script gives the dice")
        script = load_script(args.script, allow_outside=args.allow_outside)
        ruleset = script.ruleset
        if not args.quiet:
            names = " vs ".join(f"{c.name} ({c.id}, {c.side})" for c in script.combatants)
            print(f"{script.name or args.script}: {names}; played from {args.script}")
            _account_head(ruleset, args.legend)
        fight = script.play(logger=logger)
    else:
        from segsim.scenario import load_scenario

        scenario = load_scenario(args.scenario)
        ruleset = scenario.ruleset
        fight = scenario.fight(args.seed, logger=logger)
        if not args.quiet:
            names = " vs ".join(
                f"{c.name} ({c.id}, {c.side}, {c.policy})" for c in scenario.combatants
            )
            print(f"{scenario.name or args.scenario}: {names}; seed {fight.seed}")
            _account_head(ruleset, args.legend)
        fight.run()
    print(_outcome_line(fight))
    if args.record:
        write_record(fight, args.record)
        print(f"record written to {args.record}")
    if not args.quiet:
        _end_of_fight(fight, _ruleset_name(ruleset), args.record)
    return 0


def _ruleset_name(ruleset: Any) -> str:
    return str(getattr(ruleset, "name", "") or type(ruleset).__name__).lower()


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
    _check_outputs(parser, record=args.record)
    plan = read_plan(args.file)
    end = plan.record.end
    if end is not None and args.until > end["t"]:
        parser.error(
            f"--until {args.until} is past the end of the fight: {args.file} ends in "
            f"segment {end['t']} ({end.get('outcome', '?')}); give T from 0 to {end['t']}"
        )
    return _branch(args, plan)


def _branch(args: argparse.Namespace, plan: Any) -> int:
    from segsim.clock import to_seconds
    from segsim.eventbase import is_routine
    from segsim.record import write_record
    from segsim.replay import branch, parse_then

    fighters = [f.id for f in plan.everyone]
    then = parse_then(args.then or [], fighters)
    result = branch(plan, args.until, then, seed=args.seed)
    fight = result.fight
    who = ", ".join(f"{cid}: {policy}" for cid, policy in result.policies.items())
    print(
        f"{args.file}: replayed to segment {args.until} ({to_seconds(args.until):.1f} s), "
        f"then {who}; dice after it "
        + ("the table's rolls while they fit, then " if result.table_dice else "")
        + f"from seed {result.seed}"
    )
    for note in result.notes:
        print(f"note: {note}")
    if not args.quiet:
        _account_head(fight.ruleset, args.legend)
        for event in fight.history:
            if (
                event.t >= args.until
                and (args.dice or event.TYPE != "die.rolled")
                and (args.verbose or not is_routine(event))
            ):
                print(f"{event.t:>5} {to_seconds(event.t):>6.1f}s  {event.describe()}")
    print(_outcome_line(fight))
    end = plan.record.end
    if end is not None:
        print("recorded: " + ended_in(end.get("outcome", "?"), end.get("winner"), end["t"]))
    first = result.first_difference()
    if first is None:
        print("the branch is the recorded fight, event for event")
    else:
        print(f"the branch departs from the record at line {first}")
    if args.record:
        write_record(fight, args.record)
        print(f"record written to {args.record}")
    if not args.quiet:
        _end_of_fight(fight, _ruleset_name(fight.ruleset), args.record)
    return 0


def _cmd_timeline(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.views.timeline import timeline

    if (args.scale is not None and args.scale < 1) or args.width < 20:
        parser.error("--scale is at least 1 and --width at least 20")
    _check_outputs(parser, svg=args.svg)
    view = timeline(args.file)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8", newline="\n") as f:
            f.write(view.svg())
    if not args.svg or args.text:
        sys.stdout.write(view.text(scale=args.scale, width=args.width))
    if args.svg:
        print(f"timeline written to {args.svg}")
    return 0


def _cmd_view(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.views.html import write_viewer

    _check_outputs(parser, viewer=args.html)
    write_viewer(args.file, args.html)
    print(f"viewer written to {args.html} (open it in a browser; no server needed)")
    return 0


def _cmd_table(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.table.cli import run

    return run(args, parser)


def _cmd_rules(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.rules import ruleset_class, ruleset_names

    for name in ruleset_names():
        cls = ruleset_class(name)
        print(f"{name:<12} {cls.title}")
    return 0


def _cmd_content(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.content import describe_content
    from segsim.rules import ruleset_names

    names = [args.ruleset] if args.ruleset else ruleset_names()
    for i, name in enumerate(names):
        if i:
            print()
        sys.stdout.write(describe_content(name))
    return 0


def _assignments(values: Sequence[str] | None, flag: str, parser: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values or []:
        who, sep, policy = item.partition("=")
        if not sep or not who or not policy:
            parser.error(f"{flag} takes ID=POLICY or SIDE=POLICY, not {item!r}")
        out[who] = policy
    return out


def _run_experiment(args: argparse.Namespace, experiment: Any) -> int:
    """Shared by sweep and tournament: rerun one fight, or run all and report."""
    import time

    from segsim import experiment as ex
    from segsim.record import write_record

    if args.rerun is not None:
        if not args.record:
            raise ex.ExperimentError("--rerun I writes that fight's record: give --record OUT")
        arm = args.arm or experiment.arms[0].label
        fight = experiment.fight(args.rerun, arm)
        fight.run()
        print(f"[{arm}] fight {args.rerun}, seed {fight.seed}")
        print(_outcome_line(fight))
        write_record(fight, args.record)
        print(f"record written to {args.record}")
        return 0
    if args.arm or args.record:
        raise ex.ExperimentError("--arm and --record go with --rerun I")
    # Outputs and their extras are checked before the first fight, not after the last.
    ex.check_outputs(table=args.table, plot=args.plot, report=args.report)
    started = time.perf_counter()
    results = ex.run(
        experiment,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        progress=None if args.progress is None else args.progress == "on",
        on_error="continue" if args.keep_going else "stop",
    )
    elapsed = time.perf_counter() - started
    failed = results.failed
    if failed is not None:
        print(f"segsim: error: {results.stopped}", file=sys.stderr)
        print(
            f"segsim: the sweep stopped there; see that fight with --rerun {failed.index} "
            f"--arm '{failed.arm}' --record OUT, or go on past errors with --keep-going",
            file=sys.stderr,
        )
        return 1
    sys.stdout.write(results.summary().text())
    if args.table:
        results.write_table(args.table)
        print(f"table written to {args.table}")
    if args.plot:
        ex.plot(results, args.plot)
        print(f"plot written to {args.plot}")
    if args.report:
        ex.write_report(results, args.report, command=_command_line())
        print(f"report written to {args.report}")
    if args.timing:
        n = len(results.results)
        print(
            f"{n} fights in {elapsed:.2f} s ({n / elapsed:.0f} fights/s) on {args.backend} "
            f"with {args.workers} worker(s)",
            file=sys.stderr,
        )
    return 1 if results.errors else 0


def _command_line() -> str:
    """The command as typed, quoted for a POSIX shell (for a report to show)."""
    import shlex

    return " ".join(["segsim", *(shlex.quote(a) for a in sys.argv[1:])])


def _readable(path: str) -> None:
    """Refuse a file that is not UTF-8 text (or too large) with its line, before an
    experiment reads it."""
    from segsim.input import decode, read_bytes

    decode(path, read_bytes(path))


def _cmd_sweep(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.experiment import sweep

    _check_outputs(parser, record=args.record, report=args.report, table=args.table, plot=args.plot)
    _readable(args.scenario)
    experiment = sweep(
        args.scenario,
        args.fights,
        seed=args.seed,
        policies=_assignments(args.policy, "--policy", parser),
        compare=_assignments(args.compare, "--compare", parser),
        chunk=args.chunk,
        target_error=args.target_error,
    )
    return _run_experiment(args, experiment)


def _cmd_tournament(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.experiment import SPRT, tournament

    _check_outputs(parser, record=args.record, report=args.report, table=args.table, plot=args.plot)
    _readable(args.scenario)
    sprt = SPRT(args.alpha, args.beta, args.delta) if args.sprt else None
    experiment = tournament(
        args.scenario,
        args.policies,
        args.fights,
        seed=args.seed,
        chunk=args.chunk,
        target_error=args.target_error,
        sprt=sprt,
    )
    return _run_experiment(args, experiment)


def _experiment_options(cmd: argparse.ArgumentParser, fights: int) -> None:
    cmd.add_argument("scenario", nargs="?", help="scenario file (TOML)")
    cmd.add_argument(
        "--fights", type=int, default=fights, help=f"fights per arm (default {fights})"
    )
    cmd.add_argument(
        "--seed", type=_seed, default=None, help="master seed (default: the scenario's seed)"
    )
    cmd.add_argument(
        "--workers", type=int, default=1, help="processes or Ray CPUs (default 1; 0: one per CPU)"
    )
    cmd.add_argument(
        "--chunk",
        type=int,
        default=100,
        help="fights per block: stop rules are checked between blocks; a task is a block "
        "or, near the end of a parallel run, part of one",
    )
    cmd.add_argument("--backend", choices=("local", "ray"), default="local")
    cmd.add_argument("--address", help="Ray cluster address (default: a local Ray instance)")
    cmd.add_argument(
        "--target-error",
        type=float,
        metavar="E",
        help="stop when every win-rate 95%% interval is narrower than E (checked per chunk)",
    )
    cmd.add_argument(
        "--table",
        metavar="OUT",
        help="per-fight table, in the format its extension names: .csv, .parquet or .jsonl",
    )
    cmd.add_argument(
        "--plot",
        metavar="OUT.png",
        help="win rates, the paired difference or the round-robin matrix, and fight lengths "
        "(matplotlib)",
    )
    cmd.add_argument(
        "--report",
        metavar="OUT.html",
        help="a self-contained HTML report: win rates with intervals, the paired difference "
        "or the round-robin matrix, lengths, how actions resolved, damage, and what "
        "reproduces it",
    )
    cmd.add_argument(
        "--keep-going",
        action="store_true",
        help="keep running past fights that end in an error (default: stop at the first)",
    )
    cmd.add_argument("--rerun", type=int, metavar="I", help="run only fight I (with --record)")
    cmd.add_argument("--arm", help="with --rerun: the arm (policies) of the fight to run")
    cmd.add_argument("--record", metavar="OUT", help="with --rerun: write the fight's record")
    cmd.add_argument(
        "--progress", choices=("on", "off"), help="progress bar on stderr (default: on a tty)"
    )
    cmd.add_argument("--timing", action="store_true", help="print fights per second to stderr")


def _segment(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a segment number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a segment number is >= 0, not {value}")
    return value


def _account_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--verbose",
        action="store_true",
        help="show the bookkeeping the rules force too (a coarse ruleset's turns and waits)",
    )
    cmd.add_argument("--legend", action="store_true", help="explain the account's terms before it")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors suggest the option or command meant: a
    misspelt ``--recrod`` or ``replya`` is answered with ``did you mean ...?``."""

    def error(self, message: str) -> NoReturn:
        import difflib
        import re

        hint = ""
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2))
            close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if unknown:
            known = sorted(_option_strings(self))
            for word in unknown.group(1).split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.6)
                    if close:
                        hint += f"; did you mean {close[0]} (not {word})?"
        super().error(message + hint)


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of a parser and of its sub-commands."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
    return found


# A positional file given after an option of several values is taken by that option:
# (command, positional, option of several values).
_SWALLOWED = (("replay", "file", "then"), ("tournament", "scenario", "policies"))
_REQUIRED = {"replay": "file", "sweep": "scenario", "tournament": "scenario"}


def _positional_back(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Give a positional file back when an option taking several values swallowed it
    (``segsim replay --until 9 --then robert=aggressive duel.jsonl``): the last value
    is the file when it names one (its extension, or a file that exists)."""
    for command, positional, option in _SWALLOWED:
        values = getattr(args, option, None)
        if args.command == command and getattr(args, positional) is None and values:
            last = values[-1]
            named = "=" not in last  # not an ID=POLICY assignment
            if named and (last.endswith((".jsonl", ".toml", ".json")) or os.path.isfile(last)):
                setattr(args, positional, last)
                values.pop()
                if not values:
                    setattr(args, option, None)
    needed = _REQUIRED.get(args.command)
    if needed is not None and getattr(args, needed) is None:
        parser.error(f"the following arguments are required: {needed}")
    if args.command == "tournament" and not args.policies:
        parser.error("--policies takes at least one policy before the scenario file")


def _seed(text: str) -> int:
    """A fight or master seed from the command line (0 to 2**63 - 1, segsim.dice)."""
    from segsim.dice import seed_problem

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, not {text!r}") from None
    problem = seed_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def build_parser() -> argparse.ArgumentParser:
    from segsim import __version__

    parser = _Parser(
        prog="segsim",
        description="Simulate tabletop RPG combat on a segment timeline.",
        epilog="exit codes: "
        + "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items()).replace("%", "%%"),
    )
    parser.add_argument("--version", action="version", version=f"segsim {__version__}")
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
    run.add_argument(
        "--allow-outside",
        action="store_true",
        help="let a script's scenario be outside the script's folder and the shipped models",
    )
    run.add_argument(
        "--seed", type=_seed, default=None, help="fight seed (default: the scenario's)"
    )
    run.add_argument("--record", metavar="OUT", help="write the fight record (JSON Lines)")
    run.add_argument("--quiet", action="store_true", help="print only the outcome")
    run.add_argument("--dice", action="store_true", help="show every die draw in the account")
    _account_options(run)
    run.set_defaults(func=_cmd_run)

    rep = sub.add_parser(
        "replay",
        help="re-simulate a record and compare it line by line; or branch it (--until)",
        description="Without --until: exit 0 and 'identical (N events)' when the record "
        "replays exactly, exit 1 and the first divergence when it does not. With --until T: "
        "replay to segment T, then let policies decide (--then) with fresh dice.",
    )
    rep.add_argument("file", nargs="?", help="fight record (JSON Lines)")
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
        "--seed", type=_seed, default=None, help="seed of the dice after T (default: the record's)"
    )
    rep.add_argument("--record", metavar="OUT", help="write the branch's record")
    rep.add_argument("--quiet", action="store_true", help="print only the outcome of a branch")
    rep.add_argument("--dice", action="store_true", help="show die draws in a branch's account")
    _account_options(rep)
    rep.set_defaults(func=_cmd_replay)

    tl = sub.add_parser(
        "timeline", help="draw a record's timeline: one row per fighter, actions over segments"
    )
    tl.add_argument("file", help="fight record (JSON Lines)")
    tl.add_argument("--svg", metavar="OUT", help="write the timeline as a standalone SVG")
    tl.add_argument("--text", action="store_true", help="with --svg, print the text view too")
    tl.add_argument(
        "--scale",
        type=int,
        default=None,
        help="columns per segment (default 2; a coarse ruleset: one column per twentieth of its "
        "round)",
    )
    tl.add_argument("--width", type=int, default=100, help="wrap at this many columns")
    tl.set_defaults(func=_cmd_timeline)

    vw = sub.add_parser(
        "view",
        help="write a self-contained HTML viewer of a record: battle map, timeline and "
        "account on one segment slider",
    )
    vw.add_argument("file", help="fight record (JSON Lines)")
    vw.add_argument("--html", metavar="OUT.html", required=True, help="the viewer to write")
    vw.set_defaults(func=_cmd_view)

    sw = sub.add_parser(
        "sweep",
        help="run N fights of a scenario and summarize win rates (95%% Wilson intervals), "
        "lengths and damage",
        description="Fight i is seeded from (--seed, i), so the summary is the same for any "
        "--workers, --chunk and backend. A fight that ends in an error stops the sweep "
        "there with that error (exit 1); with --keep-going the others count and the "
        "errors are listed (exit 1).",
    )
    _experiment_options(sw, 100)
    sw.add_argument(
        "--policy",
        action="append",
        metavar="WHO=POLICY",
        help="replace the policy of a combatant id or a whole side (a registered name, "
        "module:Class, or a rule-list .toml)",
    )
    sw.add_argument(
        "--compare",
        action="append",
        metavar="WHO=POLICY",
        help="a second arm with these replacements, on the same fight seeds",
    )
    sw.set_defaults(func=_cmd_sweep)

    tn = sub.add_parser(
        "tournament",
        help="round robin of policies on a two-sided scenario, both sides, same seeds",
    )
    _experiment_options(tn, 50)
    tn.add_argument("--policies", nargs="+", required=True, metavar="POLICY")
    tn.add_argument(
        "--sprt",
        action="store_true",
        help="with two policies A B: stop when Wald's sequential test accepts H0 (A is no "
        "better than B: A's score is 50%%) or H1 (A is better by delta: 50%% + delta); a "
        "draw is half a win",
    )
    tn.add_argument(
        "--alpha", type=float, default=0.05, help="SPRT: the chance of accepting H1 under H0"
    )
    tn.add_argument(
        "--beta", type=float, default=0.05, help="SPRT: the chance of accepting H0 under H1"
    )
    tn.add_argument("--delta", type=float, default=0.1, help="SPRT: H1 is a score of 0.5 + delta")
    tn.set_defaults(func=_cmd_tournament)

    from segsim.table.cli import add_parser as add_table

    add_table(sub, _seed).set_defaults(func=_cmd_table)

    from segsim.cli_questions import add_commands

    add_commands(sub, _seed)

    rules = sub.add_parser("rules", help="list the rulesets")
    rules.set_defaults(func=_cmd_rules)

    content = sub.add_parser(
        "content",
        help="list a ruleset's shipped fighters, weapons, armours and policies",
        description="What a scenario can name: the example fighters (fighter = ID), the "
        "equipment their sheets refer to, and the registered policies (policy = NAME), "
        "each with a one-line description.",
    )
    content.add_argument("ruleset", nargs="?", help="one ruleset (default: every ruleset)")
    content.set_defaults(func=_cmd_content)
    return parser


class _Stdout:
    """Standard output that outlives its reader: once the pipe closes (``segsim run ...
    --record X | head``), what is printed goes nowhere and the command carries on, so
    the files it writes are complete."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.closed_pipe = False

    def _gone(self) -> None:
        self.closed_pipe = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.stream.fileno())
        finally:
            os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return int(self.stream.write(text))
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self._gone()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _positional_back(args, parser)
    stdout = sys.stdout
    guarded = sys.stdout = _Stdout(stdout)
    try:
        code: int = args.func(args, parser)
        guarded.flush()
    except SegsimError as exc:
        from segsim.terminal import printable

        print(f"segsim: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"segsim: error: {exc}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
