"""The ``segsim`` commands that answer a designer's questions: ``balance`` (a matrix of
win rates over varied content) and ``optimize`` (a policy's parameters searched).

Kept apart from :mod:`segsim.cli` so that module keeps one job; ``build_parser`` adds
these commands through :func:`add_commands`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _backend_options(cmd: argparse.ArgumentParser, seed_type: Any) -> None:
    cmd.add_argument(
        "--seed", type=seed_type, default=None, help="master seed (default: the scenario's seed)"
    )
    cmd.add_argument(
        "--workers", type=int, default=1, help="processes or Ray CPUs (default 1; 0: one per CPU)"
    )
    cmd.add_argument("--backend", choices=("local", "ray"), default="local")
    cmd.add_argument("--address", help="Ray cluster address (default: a local Ray instance)")
    cmd.add_argument(
        "--progress", choices=("on", "off"), help="progress bar on stderr (default: on a tty)"
    )


def _progress(args: argparse.Namespace) -> bool | None:
    return None if args.progress is None else args.progress == "on"


def _cmd_balance(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from segsim.cli import _assignments, _check_outputs, _command_line, _readable
    from segsim.experiment.balance import balance, check_balance_table
    from segsim.experiment.balance_report import write_balance_report

    if not args.vary:
        parser.error("balance needs at least one --vary NAME=VALUES")
    _check_outputs(parser, report=args.report)
    if args.table:
        check_balance_table(args.table)
    _readable(args.scenario)
    result = balance(
        args.scenario,
        args.vary,
        args.fights,
        seed=args.seed,
        side=args.side,
        policies=_assignments(args.policy, "--policy", parser),
        chunk=args.chunk,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        progress=_progress(args),
    )
    sys.stdout.write(result.text())
    if args.table:
        result.write_table(args.table)
        print(f"table written to {args.table}")
    if args.report:
        write_balance_report(result, args.report, command=_command_line())
        print(f"report written to {args.report}")
    return 0


def _cmd_optimize(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from pathlib import Path

    from segsim.cli import _assignments, _command_line, _readable
    from segsim.experiment.design import ExperimentError
    from segsim.experiment.optimize import optimize
    from segsim.experiment.optimize_report import write_optimization_report
    from segsim.experiment.outputs import check_path

    policy = _assignments(args.policy, "--policy", parser)
    if len(policy) != 1:
        parser.error("optimize takes one --policy WHO=FILE (the rule list to tune)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"--out {out}: is a file, not a folder")
    if not out.exists():
        check_path(out, "--out")  # its parent folder exists and is writable
    _readable(args.scenario)
    result = optimize(
        args.scenario,
        policy,
        args.budget,
        against=_assignments(args.against, "--against", parser),
        fights=args.fights,
        eval_fights=args.eval_fights,
        metric=args.metric,
        seed=args.seed,
        top=args.top,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        progress=_progress(args),
    )
    sys.stdout.write(result.text())
    out.mkdir(exist_ok=True)
    best = out / f"{Path(result.path).stem}_tuned.toml"
    result.write_best(best)
    report = out / "report.html"
    write_optimization_report(result, report, command=_command_line())
    who = next(iter(policy))
    print(f"best policy written to {best} (try: segsim sweep SCENARIO --policy {who}={best})")
    print(f"report written to {report}")
    return 0


def add_commands(sub: Any, seed_type: Any) -> None:
    """Add ``balance`` and ``optimize`` to the ``segsim`` sub-commands."""
    bal = sub.add_parser(
        "balance",
        help="play every combination of varied fields (weapons, armour, skills...) on the "
        "same seeds: a matrix of win rates with 95%% intervals",
        description="Each --vary NAME=V1,V2,... (or NAME=LO..HI:STEP for a number) names a "
        "field of the scenario by its dotted name: fight.FIELD, options.NAME, or a "
        "combatant id or side and a field of its entry or sheet (blue.weapon, "
        "robert.skills.sabre, red.armour). Every combination plays the same fight seeds.",
    )
    bal.add_argument("scenario", help="scenario file (TOML)")
    bal.add_argument(
        "--vary",
        action="append",
        metavar="NAME=VALUES",
        help="a field and its values: V1,V2,... or LO..HI:STEP (both ends included)",
    )
    bal.add_argument("--fights", type=int, default=100, help="fights per combination")
    bal.add_argument(
        "--side", help="whose win rate (default: the side the first --vary names, else the first)"
    )
    bal.add_argument(
        "--policy",
        action="append",
        metavar="WHO=POLICY",
        help="replace the policy of a combatant id or a whole side",
    )
    bal.add_argument("--chunk", type=int, default=100, help="fights per task")
    _backend_options(bal, seed_type)
    bal.add_argument("--table", metavar="OUT", help="one row per combination: .csv or .jsonl")
    bal.add_argument("--report", metavar="OUT.html", help="a self-contained HTML report")
    bal.set_defaults(func=_cmd_balance)

    opt = sub.add_parser(
        "optimize",
        help="search a rule-list policy's [tune] parameters (Optuna TPE, seeded) on common "
        "seeds; the best against the start on fresh seeds",
        description="Every candidate plays the same --fights training fights; the best "
        "--top and the starting parameters then play --eval-fights fresh seeds, never used "
        "in the search, and each is compared with the start fight by fight (paired 95%% "
        "interval). Writes OUT/<policy>_tuned.toml (a rule list run and sweep take as is) "
        "and OUT/report.html. Needs the optimize extra (Optuna).",
    )
    opt.add_argument("scenario", help="scenario file (TOML)")
    opt.add_argument(
        "--policy",
        action="append",
        required=True,
        metavar="WHO=FILE",
        help="the rule list to tune, for a combatant id or a side",
    )
    opt.add_argument(
        "--against",
        action="append",
        metavar="WHO=POLICY",
        help="the opponents' policies (default: the scenario's)",
    )
    opt.add_argument("--budget", type=int, default=30, help="candidates to try (default 30)")
    opt.add_argument("--fights", type=int, default=100, help="training fights per candidate")
    opt.add_argument(
        "--eval-fights", type=int, default=400, help="fresh fights for the final comparison"
    )
    opt.add_argument(
        "--metric",
        choices=("win", "damage", "length"),
        default="win",
        help="maximise the win rate or the damage dealt, or minimise the fight's length",
    )
    opt.add_argument("--top", type=int, default=3, help="best candidates compared on fresh seeds")
    _backend_options(opt, seed_type)
    opt.add_argument("--out", default="optimized", help="folder for the policy and the report")
    opt.set_defaults(func=_cmd_optimize)
