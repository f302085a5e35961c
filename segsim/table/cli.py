"""``segsim table``: build a session from the command line, print the links, serve it."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

from segsim.errors import SegsimError

DEFAULT_PORT = 8470


def add_parser(sub: Any, seed_type: Any) -> argparse.ArgumentParser:
    table: argparse.ArgumentParser = sub.add_parser(
        "table",
        help="run a live fight at the table from a browser: the game master's page and "
        "one page per player, declaring in secret (needs the 'table' extra)",
    )
    table.add_argument("scenario", nargs="?", help="scenario file (TOML)")
    table.add_argument("--script", metavar="FILE", help="start from a fight script's set-up")
    table.add_argument(
        "--resume", metavar="RECORD", help="go on with a fight played at the table (its record)"
    )
    table.add_argument(
        "--record",
        metavar="OUT",
        help="where the record is written as the fight goes (default: table-record.jsonl; "
        "with --resume: the record itself)",
    )
    table.add_argument(
        "--player",
        action="append",
        default=[],
        metavar="NAME=ID[,ID]",
        help="give fighters to a player (repeatable); the game master declares for the others",
    )
    table.add_argument(
        "--auto",
        action="append",
        default=[],
        metavar="ID|SIDE",
        help="let the scenario's policy decide for a fighter or a side (repeatable)",
    )
    table.add_argument(
        "--table-dice",
        action="store_true",
        help="the table rolls real dice: the game master types each one in",
    )
    table.add_argument("--seed", type=seed_type, default=None, help="fight seed")
    table.add_argument(
        "--allow-outside",
        action="store_true",
        help="let a script's scenario be outside the script's folder and the shipped models",
    )
    table.add_argument(
        "--host", default="127.0.0.1", help="address to serve (0.0.0.0: the local network)"
    )
    table.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to serve")
    return table


def _players(specs: list[str], parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, ids = spec.partition("=")
        if not sep or not name or not ids:
            parser.error(f"--player {spec!r}: give NAME=ID[,ID...]")
        if name in out:
            parser.error(f"--player {name}: given twice")
        out[name] = [i for i in ids.split(",") if i]
    return out


def build_session(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    """The session the command line describes (a new fight, or a resumed one)."""
    from segsim.table.session import TableSession, TableSetup

    given = [x for x in (args.scenario, args.script, args.resume) if x is not None]
    if len(given) != 1:
        parser.error("table takes a scenario file, --script FILE or --resume RECORD (one)")
    players = _players(args.player, parser)
    if args.resume is not None:
        from segsim.record import read_record
        from segsim.replay import ReplayBuilder

        if args.seed is not None or args.auto or args.table_dice:
            parser.error("--resume takes the seed, dice and policies from the record")
        plan = read_record(args.resume, ReplayBuilder(), complete=False)
        setup = TableSetup.from_plan(plan)
        return TableSession(
            setup,
            args.record or args.resume,
            table_dice=plan.entered,
            players=players,
            entered=[(d.die, d.value) for d in plan.draws],
            resume=plan,
        )
    record = Path(args.record or "table-record.jsonl")
    if record.exists():
        raise SegsimError(f"{record} exists: give another --record, or --resume {record}")
    if args.script is not None:
        from segsim.script import load_script

        if args.auto:
            parser.error("--auto needs a scenario: a script's fighters have no policy")
        script = load_script(args.script, allow_outside=args.allow_outside)
        setup = TableSetup.from_script(script, args.seed)
    else:
        from segsim.scenario import load_scenario

        setup = TableSetup.from_scenario(load_scenario(args.scenario), args.auto, args.seed)
    return TableSession(setup, record, table_dice=args.table_dice, players=players)


def _addresses(host: str) -> list[str]:
    """The addresses to print links for: the host, or this machine's on the network."""
    if host not in ("0.0.0.0", "::"):
        return [host]
    found = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))  # no packet is sent: it picks a route
            found.append(s.getsockname()[0])
    except OSError:
        pass
    return found or [socket.gethostname()]


def links(session: Any, host: str, port: int) -> list[str]:
    """The game master's link and one per player (each with its secret token)."""
    out = []
    for address in _addresses(host):
        base = f"http://{address}:{port}"
        out.append(f"game master: {base}/gm#token={session.gm_token}")
        for name, cids in session.players.items():
            out.append(
                f"player {name} ({', '.join(cids)}): {base}/play#token={session.tokens[name]}"
            )
    return out


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        import uvicorn

        from segsim.table.app import build_app
    except ImportError:
        raise SegsimError(
            "segsim table needs the 'table' extra: pip install 'segsim[table]'"
        ) from None
    session = build_session(args, parser)
    print(f"{session.setup.name or 'fight'} ({session.setup.ruleset.name}): table mode")
    print(f"record: {session.record_path}")
    for line in links(session, args.host, args.port):
        print(line)
    sys.stdout.flush()
    uvicorn.run(
        build_app(session),
        host=args.host,
        port=args.port,
        access_log=False,  # addresses never hold a token, but log nothing of the requests
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    return 0


__all__ = ["add_parser", "build_session", "links", "run"]
