"""Running one fuzz case and saying how it ended.

Every case ends one of these ways: ``accepted`` (the input was good enough and did its
job), ``rejected`` (a clean error: a segsim error naming the file or the rule, or exit
2), ``traceback`` (any other exception: a bug), ``hang`` (over its time budget), or,
for declarations, ``state changed`` (a refused declaration left a trace) and
``divergence`` (an accepted one does not replay).
"""

from __future__ import annotations

import contextlib
import io
import signal
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from segsim.errors import IllegalDeclaration, SegsimError

OUTCOMES = ("accepted", "rejected", "traceback", "hang", "state changed", "divergence")
BAD = ("traceback", "hang", "state changed", "divergence")


class Hang(BaseException):
    """Raised by the alarm when a case runs over its budget (not an Exception, so the
    code under test cannot swallow it)."""


@contextlib.contextmanager
def budget(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise Hang()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class Outcome:
    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail

    def __repr__(self) -> str:
        return f"Outcome({self.kind!r}, {self.detail[:200]!r})"


def guarded(action: Callable[[], str], seconds: float) -> Outcome:
    """Run ``action`` (returning "accepted" or "rejected") within a time budget."""
    try:
        with budget(seconds):
            return Outcome(action())
    except Hang:
        return Outcome("hang", "".join(traceback.format_stack(limit=8)))
    except IllegalDeclaration:
        return Outcome("rejected")
    except SegsimError:
        return Outcome("rejected")
    except Exception:
        return Outcome("traceback", traceback.format_exc())


@contextlib.contextmanager
def _file(raw: bytes, suffix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="segsim-fuzz-") as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(raw)
        yield path


# ---------------------------------------------------------------- the input classes


def scenario_case(raw: bytes, seconds: float = 20.0) -> Outcome:
    """Load a scenario; if it loads, fight it to the end and write its record."""
    from segsim.record import write_record
    from segsim.scenario import load_scenario

    with _file(raw, ".toml") as path:

        def action() -> str:
            scenario = load_scenario(path)
            fight = scenario.fight(max_segments=min(scenario.max_segments, 300))
            fight.run()
            write_record(fight, io.StringIO())
            return "accepted"

        return guarded(action, seconds)


def script_case(raw: bytes, seconds: float = 20.0) -> Outcome:
    """Load a fight script and play it."""
    from segsim.script import load_script

    with _file(raw, ".toml") as path:

        def action() -> str:
            load_script(path).play()
            return "accepted"

        return guarded(action, seconds)


def record_case(raw: bytes, until: int, seconds: float = 20.0) -> Outcome:
    """Replay a record (a divergence is a fine answer), then branch it at ``until``."""
    from segsim.replay import branch, read_plan, replay

    with _file(raw, ".jsonl") as path:

        def action() -> str:
            plan = read_plan(path)
            replay(plan)
            branch(plan, until)
            return "accepted"

        return guarded(action, seconds)


def declaration_case(
    ruleset: str, scenario: Path, items: list[Any], at: int, seconds: float = 20.0
) -> Outcome:
    """A fight of the example scenario where one combatant declares ``items`` at
    segment ``at``: refused with the state untouched, or accepted and replayed."""
    from segsim.policies import RandomLegal
    from segsim.record import fight_record
    from segsim.replay import replay
    from segsim.scenario import load_scenario

    sc = load_scenario(scenario)
    who = sc.combatants[0].id
    seen: dict[str, Any] = {}

    class Fuzzed:
        name = "fuzzed"
        reactive = True

        def __init__(self) -> None:
            self.inner = RandomLegal(idle=0.3)

        def bind(self, actor: str, seed: int) -> None:
            self.inner.bind(actor, seed)

        def decide(self, observation: Any) -> Any:
            if observation.segment >= at and "snapshot" not in seen:
                seen["snapshot"] = snapshot(fight)
                legal = observation.legal()
                return [x.pick(legal) if hasattr(x, "pick") else x for x in items]
            return self.inner.decide(observation)

    fight = sc.fight(3, policies={who: Fuzzed()}, max_segments=300)

    def action() -> str:
        try:
            fight.run()
        except IllegalDeclaration:
            if seen.get("snapshot") != snapshot(fight):
                raise StateChanged() from None
            return "rejected"
        result = replay(fight_record(fight))
        if result.divergence is not None:
            raise Diverged(str(result.divergence))
        return "accepted"

    try:
        return guarded(action, seconds)
    except StateChanged:
        return Outcome("state changed", repr(items))
    except Diverged as exc:
        return Outcome("divergence", f"{items!r}: {exc}")


class StateChanged(BaseException):
    pass


class Diverged(BaseException):
    pass


def snapshot(fight: Any) -> Any:
    """What a refused declaration must not change."""
    state = fight.state
    return (
        len(fight.history),
        state.next_action_id,
        tuple(
            (c.id, repr(c.status), tuple(c.actions), c.position, c.in_fight)
            for c in state.combatants.values()
        ),
    )


def cli_case(
    argv: list[str], seconds: float = 30.0, damaged: tuple[str, bytes] | None = None
) -> Outcome:
    """``segsim ARGS``: exit 0, 1 (a divergence) or 2 (bad input), never a traceback.
    ``damaged`` is a file (path, bytes) to write first: the arguments may name it."""
    from segsim.cli import main

    if damaged is not None:
        Path(damaged[0]).write_bytes(damaged[1])

    def action() -> str:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
        except SystemExit as exc:  # argparse refusing the arguments
            code = exc.code if isinstance(exc.code, int) else 2
        if code == 2:
            return "rejected"
        if code in (0, 1):
            return "accepted"
        raise AssertionError(f"exit code {code!r}")

    return guarded(action, seconds)
