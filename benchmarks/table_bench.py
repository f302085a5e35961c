"""Table mode's benchmarks (issue 42, "Performance"), for ``make bench`` to call.

* **round trip** of a duel's phase: from the last declaration of a phase sent to the
  next phase shown (the player's page asking for the state again), over real HTTP to a
  real server (uvicorn in a thread of this process); the median in milliseconds
  (target: at most 100 ms);
* **memory** of the server over a scripted session of 1,000 phases (two players who
  dodge whenever they must act, a fight that never ends): the process's resident size
  after the first 100 phases and after the 1,000th, and the growth in between (target:
  flat, no more than 10 % of the size at phase 100; the fight's own history, which the
  record holds too, is the only thing meant to grow).

Needs the ``table`` extra (Starlette, uvicorn); the client is the standard library's.
``table_section(quick)`` returns the figures and verdicts; run this file for a report:
``python benchmarks/table_bench.py [--quick]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
ROUND_TRIP_TARGET_MS = 100.0
MEMORY_GROWTH_TARGET = 0.10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def new_session(folder: Path, name: str) -> Any:
    """A duel at the table: alice holds Robert, bob Margaret."""
    from segsim import load_scenario
    from segsim.table.session import TableSession, TableSetup

    setup = TableSetup.from_scenario(load_scenario(DUEL))
    players = {"alice": ["robert"], "bob": ["margaret"]}
    return TableSession(setup, folder / name, players=players)


@contextmanager
def serve(session: Any) -> Iterator[int]:
    """``session`` served by uvicorn in a thread; yields the port."""
    import uvicorn

    from segsim.table.app import build_app

    port = _free_port()
    config = uvicorn.Config(
        build_app(session), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class Client:
    """One person's HTTP connection to the table (kept alive, as a browser's is)."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers=self.headers)
        response = self.conn.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload)

    def close(self) -> None:
        self.conn.close()


def _by_rule(form: dict[str, Any]) -> list[dict[str, Any]]:
    """Strike when the rules list it, arm when bound to act, else nothing new."""
    for kind in ("strike", "arm"):
        for d in form["legal"]:
            if d["kind"] == kind and (kind == "strike" or form["must_act"]):
                return [d]
    return []


def round_trips(phases: int) -> list[float]:
    """Milliseconds from a phase's last declaration sent to the next phase shown, for
    ``phases`` phases of duels played by two HTTP clients."""
    times: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        fight = 0
        while len(times) < phases:
            fight += 1
            session = new_session(Path(scratch), f"duel{fight}.jsonl")
            with serve(session) as port:
                people = {who: Client(port, session.tokens[who]) for who in ("alice", "bob")}
                while len(times) < phases:
                    states = {who: c.call("GET", "/api/state") for who, c in people.items()}
                    if states["alice"]["outcome"] is not None:
                        break
                    todo = [(who, f) for who, s in states.items() for f in s["forms"]]
                    if not todo:
                        break
                    phase = states["alice"]["phase"]
                    for i, (who, form) in enumerate(todo):
                        body = {"fighter": form["cid"], "phase": phase}
                        body["declarations"] = _by_rule(form)
                        last = i == len(todo) - 1
                        started = time.perf_counter()
                        people[who].call("POST", "/api/declare", body)
                        if last:
                            shown = people[who].call("GET", "/api/state")
                            assert shown["phase"] > phase
                            times.append((time.perf_counter() - started) * 1000)
                for c in people.values():
                    c.close()
    return times


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0  # pragma: no cover - not Linux


def memory(phases: int, first: int = 100) -> dict[str, Any]:
    """The process's resident size after ``first`` phases and after ``phases`` of one
    scripted session (two dodging players) served over HTTP."""
    import gc

    with tempfile.TemporaryDirectory() as scratch:
        session = new_session(Path(scratch), "long.jsonl")
        at_first = 0
        with serve(session) as port:
            people = {who: Client(port, session.tokens[who]) for who in ("alice", "bob")}
            while session.phase < phases and not session.ended:
                phase = session.phase
                states = {who: c.call("GET", "/api/state") for who, c in people.items()}
                for who, state in states.items():
                    for form in state["forms"]:
                        dodge = [{"kind": "dodge"}] if form["must_act"] else []
                        body = {"fighter": form["cid"], "phase": phase, "declarations": dodge}
                        people[who].call("POST", "/api/declare", body)
                if session.phase >= first and not at_first:
                    gc.collect()
                    at_first = rss_kib()
            gc.collect()
            at_end = rss_kib()
            history = len(session.fight.history)
            reached = session.phase
            for c in people.values():
                c.close()
    return {
        "first": first,
        "phases": reached,
        "rss_at_first_kib": at_first,
        "rss_at_end_kib": at_end,
        "growth": (at_end - at_first) / at_first if at_first else 0.0,
        "events": history,
    }


def table_section(quick: bool = False) -> dict[str, Any]:
    """Both figures and their verdicts (``quick``: fewer phases)."""
    times = round_trips(20 if quick else 200)
    median = statistics.median(times)
    mem = memory(200 if quick else 1000, 20 if quick else 100)
    return {
        "round_trip_median_ms": round(median, 2),
        "round_trip_phases": len(times),
        "round_trip_ok": median <= ROUND_TRIP_TARGET_MS,
        "memory": mem,
        "memory_ok": mem["growth"] <= MEMORY_GROWTH_TARGET,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer phases")
    args = parser.parse_args(argv)
    out = table_section(args.quick)
    mem = out["memory"]
    print(
        f"table round trip: median {out['round_trip_median_ms']} ms over "
        f"{out['round_trip_phases']} phases (target <= {ROUND_TRIP_TARGET_MS:.0f} ms): "
        f"{'ok' if out['round_trip_ok'] else 'MISSED'}"
    )
    print(
        f"table memory: {mem['rss_at_first_kib']} KiB at phase {mem['first']}, "
        f"{mem['rss_at_end_kib']} "
        f"KiB at phase {mem['phases']} ({mem['growth']:+.1%}, {mem['events']} events; target "
        f"<= {MEMORY_GROWTH_TARGET:.0%}): {'ok' if out['memory_ok'] else 'MISSED'}"
    )
    return 0 if out["round_trip_ok"] and out["memory_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
