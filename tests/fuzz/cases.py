"""Running one fuzz case and saying how it ended.

Every case ends one of these ways: ``accepted`` (the input was good enough and did its
job), ``rejected`` (a clean error: a segsim error naming the file or the rule, or exit
2), ``traceback`` (any other exception: a bug), ``hang`` (over its time budget),
``crash`` (the process died: a fault in C, an abort), ``state changed`` (a refused
declaration left a trace in the fight's state), ``divergence`` (what segsim wrote does
not replay identically), for forged records ``detected`` or ``undetected`` (a changed
die or event that replays as if genuine), and ``unsafe`` (HTML output that lets data
out of its place).

:func:`isolated` runs a case in a child process (forked, so nothing is imported
again): a crash or a hang in C ends the child, not the run, and is counted.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from segsim.errors import IllegalDeclaration, SegsimError

OUTCOMES = (
    "accepted",
    "rejected",
    "detected",
    "traceback",
    "hang",
    "crash",
    "state changed",
    "divergence",
    "undetected",
    "unsafe",
)
BAD = ("traceback", "hang", "crash", "state changed", "divergence", "undetected", "unsafe")


class Hang(BaseException):
    """Raised by the alarm when a case runs over its budget (not an Exception, so the
    code under test cannot swallow it)."""


@contextlib.contextmanager
def budget(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise Hang()

    # Processor time, not the clock's: a shared, loaded machine does not make a slow
    # case a hang. (A case blocked in a system call uses none: :func:`isolated` kills
    # it by the clock.)
    old = signal.signal(signal.SIGPROF, ring)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


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


def isolated(case: Callable[[], Outcome], seconds: float, grace: float | None = None) -> Outcome:
    """Run ``case`` in a forked child and return its outcome: ``hang`` if the child is
    still running ``seconds + grace`` after it started (default grace: twice ``seconds``
    and 10 s more, for a loaded machine; it is killed: blocked in a system call, or a
    loop in C that no alarm interrupts), ``crash`` if it dies without an answer (a
    signal, an abort)."""
    if grace is None:
        grace = 2 * seconds + 10
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, then leave at once (no cleanup
        os.close(read_end)  # of the parent's temporary folders, no atexit)
        code = 0
        try:
            outcome = case()
            answer = pickle.dumps((outcome.kind, outcome.detail))
        except BaseException:
            answer = pickle.dumps(("traceback", traceback.format_exc()))
        try:
            view = memoryview(answer)
            while view:
                view = view[os.write(write_end, view) :]
        except BaseException:
            code = 3
        os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds + grace
    killed = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if ready:
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if killed:
        return Outcome("hang", f"killed after {seconds + grace:.0f} s (blocked, or a loop in C)")
    if chunks:
        try:
            kind, detail = pickle.loads(b"".join(chunks))
            return Outcome(kind, detail)
        except Exception:
            pass
    if os.WIFSIGNALED(status):
        return Outcome("crash", f"killed by signal {os.WTERMSIG(status)}")
    return Outcome("crash", f"exit status {os.waitstatus_to_exitcode(status)}, no answer")


@contextlib.contextmanager
def _file(raw: bytes, suffix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="segsim-fuzz-") as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(raw)
        yield path


# ---------------------------------------------------------------- the input classes


class Diverged(BaseException):
    """What segsim wrote does not replay identically."""


def replays(fight: Any, folder: Path) -> None:
    """Write the fight's record to a file, read it back and replay it: identical, or
    :class:`Diverged`."""
    from segsim.record import write_record
    from segsim.replay import replay

    path = folder / "written.jsonl"
    write_record(fight, path)
    result = replay(path)
    if result.divergence is not None:
        raise Diverged(str(result.divergence))


def _judged(action: Callable[[], str], seconds: float) -> Outcome:
    try:
        return guarded(action, seconds)
    except Diverged as exc:
        return Outcome("divergence", str(exc))


def scenario_case(raw: bytes, seconds: float = 20.0) -> Outcome:
    """Load a scenario; if it loads, fight it, write its record and replay it."""
    from segsim.scenario import load_scenario

    with _file(raw, ".toml") as path:

        def action() -> str:
            scenario = load_scenario(path)
            fight = scenario.fight(max_segments=min(scenario.max_segments, 300))
            fight.run()
            replays(fight, path.parent)
            return "accepted"

        return _judged(action, seconds)


def script_case(raw: bytes, seconds: float = 20.0) -> Outcome:
    """Load a fight script, play it, and replay its record."""
    from segsim.script import load_script

    with _file(raw, ".toml") as path:

        def action() -> str:
            fight = load_script(path).play()
            replays(fight, path.parent)
            return "accepted"

        return _judged(action, seconds)


def record_case(raw: bytes, until: int, seconds: float = 20.0) -> Outcome:
    """Replay a record (a divergence is a fine answer), then branch it at ``until``."""
    from segsim.replay import branch, read_plan, replay

    with _file(raw, ".jsonl") as path:

        def action() -> str:
            plan = read_plan(path)
            replay(plan)
            replays(branch(plan, until).fight, path.parent)
            return "accepted"

        return _judged(action, seconds)


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
            after = snapshot(fight)
            if seen.get("snapshot") != after:
                raise StateChanged(first_difference(seen.get("snapshot", ""), after)) from None
            return "rejected"
        result = replay(fight_record(fight))
        if result.divergence is not None:
            raise Diverged(str(result.divergence))
        return "accepted"

    try:
        return guarded(action, seconds)
    except StateChanged as exc:
        return Outcome("state changed", f"{items!r}\n{exc}")
    except Diverged as exc:
        return Outcome("divergence", f"{items!r}: {exc}")


class StateChanged(BaseException):
    """A refused declaration changed the fight's state (the first difference)."""


def first_difference(before: str, after: str) -> str:
    """Where two snapshots first differ, with some context."""
    i = next((k for k, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
    if i is None:
        i = min(len(before), len(after))
    start = max(0, i - 120)
    return f"before: ...{before[start : i + 120]}...\nafter:  ...{after[start : i + 120]}..."


def snapshot(fight: Any) -> str:
    """The whole fight state, as text: what a refused declaration must not change (its
    history, dice, every combatant's status, actions and position, what is pending,
    and the ruleset's ``extra``)."""
    state = fight.state
    return repr(
        (
            len(fight.history),
            len(fight.dice.draws),
            state.segment,
            state.next_action_id,
            sorted(state.cancelled_in.items()),
            sorted((t, repr(actions)) for t, actions in state.pending.items()),
            repr(state.spawned),
            sorted((k, repr(a)) for k, a in state.autonomous.items()),
            sorted((str(k), repr(v)) for k, v in state.extra.items()),
            [
                (c.id, repr(c.status), repr(c.actions), repr(c.recent), c.position, c.in_fight)
                for c in state.combatants.values()
            ],
        )
    )


def paused_declaration_case(
    ruleset: str, scenario: Path, items: list[Any], at: int, seconds: float = 20.0
) -> Outcome:
    """As :func:`declaration_case`, through the paused API: one combatant is driven from
    outside (``advance``/``submit``), the others by their policies. A refused
    submission must leave the whole state as it was; the fight, played on, replays."""
    from segsim.policies import RandomLegal
    from segsim.scenario import load_scenario

    sc = load_scenario(scenario)
    who = sc.combatants[0].id

    class Outside:
        name = "outside"
        external = True

        def decide(self, observation: Any) -> Any:  # pragma: no cover - never asked
            raise AssertionError("an external policy is not asked")

    fight = sc.fight(3, policies={who: Outside()}, max_segments=300)
    inner = RandomLegal(idle=0.3)
    inner.bind(who, 3)

    def action() -> str:
        fuzzed = False
        verdict = "accepted"
        while True:
            pending = fight.advance()
            if not pending:
                break
            obs = pending[who]
            if not fuzzed and obs.segment >= at:
                fuzzed = True
                before = snapshot(fight)
                legal = obs.legal()
                try:
                    fight.submit({who: [x.pick(legal) if hasattr(x, "pick") else x for x in items]})
                except (IllegalDeclaration, TypeError, ValueError) as exc:
                    after = snapshot(fight)
                    if after != before:
                        raise StateChanged(first_difference(before, after)) from None
                    if not isinstance(exc, IllegalDeclaration):
                        raise
                    verdict = "rejected"
                else:
                    continue
            fight.submit({who: inner.decide(obs)})
        with tempfile.TemporaryDirectory(prefix="segsim-fuzz-") as folder:
            replays(fight, Path(folder))
        return verdict

    try:
        return _judged(action, seconds)
    except StateChanged as exc:
        return Outcome("state changed", f"{items!r}\n{exc}")


def cli_case(
    argv: list[str], seconds: float = 30.0, damaged: tuple[str, bytes] | None = None
) -> Outcome:
    """``segsim ARGS``: exit 0, 1 (a divergence) or 2 (bad input), never a traceback.
    ``damaged`` is a file (path, bytes) to write first: the arguments may name it. A
    ``run`` that wrote a record (``--record``) must have written one that
    ``segsim replay`` finds identical."""
    from segsim.cli import main

    if damaged is not None:
        Path(damaged[0]).write_bytes(damaged[1])

    def segsim(args: list[str]) -> int:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(args)
        except SystemExit as exc:  # argparse refusing the arguments
            code = exc.code if isinstance(exc.code, int) else 2
        return code

    def action() -> str:
        written = None
        if argv[:1] == ["run"] and "--record" in argv[:-1]:
            written = Path(argv[argv.index("--record") + 1])
            written.unlink(missing_ok=True)
        code = segsim(argv)
        if code == 2:
            return "rejected"
        if code not in (0, 1):
            raise AssertionError(f"exit code {code!r}")
        if code == 0 and written is not None and written.is_file():
            again = segsim(["replay", str(written)])
            if again != 0:
                raise Diverged(f"segsim {' '.join(argv)} wrote a record replay answers {again}")
        return "accepted"

    return _judged(action, seconds)


# ---------------------------------------------------------------- forged records


def forgery_case(raw: bytes, must_detect: bool, seconds: float = 20.0) -> Outcome:
    """Replay a genuine record with one line forged: ``detected`` when the replay
    diverges or the reader refuses the record, else ``undetected`` (a finding when
    ``must_detect``: a changed die or event line; a header line may change what the
    fight does not read, its name, say)."""
    from segsim.replay import replay

    with _file(raw, ".jsonl") as path:

        def action() -> str:
            try:
                result = replay(path)
            except SegsimError:
                return "detected"
            if result.divergence is not None:
                return "detected"
            return "undetected" if must_detect else "accepted"

        outcome = guarded(action, seconds)
        if outcome.kind == "undetected":
            outcome.detail = raw.decode("utf-8", "replace")[:4000]
        return outcome


# ---------------------------------------------------------------- content, rule lists


def content_case(ruleset: str, files: dict[str, bytes], seconds: float = 20.0) -> Outcome:
    """A copy of the ruleset's ``models/`` folder with some files damaged: loaded, then
    two of its fighters fight at random, and the fight replays."""
    import importlib

    from segsim.fight import CombatantSpec, Fight
    from segsim.models import models_dir
    from segsim.policies import RandomLegal
    from segsim.rules import ruleset_class

    with tempfile.TemporaryDirectory(prefix="segsim-fuzz-") as folder:
        base = Path(folder)
        for source in sorted((models_dir() / ruleset).glob("*.toml")):
            (base / source.name).write_bytes(files.get(source.name, source.read_bytes()))

        def action() -> str:
            cls = ruleset_class(ruleset)
            package = cls.__module__.rsplit(".", 1)[0]
            content = importlib.import_module(f"{package}.content").load_content(base)
            rules = cls(content=content)
            names = sorted(rules.content.fighters)[:2]
            if not names:
                return "accepted"  # loaded, with no fighter of its own to play a fight with
            specs = [
                CombatantSpec(
                    f"f{i}",
                    f"side{i}",
                    rules.load_sheet(rules.content.fighters[name]),
                    RandomLegal(),
                    position=(1.5 * i, 0.0),
                )
                for i, name in enumerate(names * (2 if len(names) == 1 else 1))
            ]
            fight = Fight(rules, specs, seed=1, max_segments=300)
            fight.run()
            replays(fight, base)
            return "accepted"

        return _judged(action, seconds)


def rulelist_case(raw: bytes, scenario: Path, seconds: float = 20.0) -> Outcome:
    """A rule list (damaged or not) plays the first combatant of a scenario; a rule list
    that declares what the rules refuse stops the fight cleanly (rejected)."""
    from segsim.policies import load_rule_list
    from segsim.scenario import load_scenario

    with _file(raw, ".toml") as path:

        def action() -> str:
            sc = load_scenario(scenario)
            before = content_snapshot(sc)
            policy = load_rule_list(path)
            fight = sc.fight(5, policies={sc.combatants[0].id: policy}, max_segments=300)
            try:
                fight.run()
            finally:
                after = content_snapshot(sc)
                if after != before:
                    raise StateChanged(
                        "the rule list changed the content\n" + first_difference(before, after)
                    )
            replays(fight, path.parent)
            return "accepted"

        try:
            return _judged(action, seconds)
        except StateChanged as exc:
            return Outcome("state changed", str(exc))


def content_snapshot(scenario: Any) -> str:
    """The content a fight reads, as text: the ruleset's shipped content and every
    combatant's sheet (what a rule list must not be able to change)."""
    rules = scenario.ruleset
    return repr(
        (repr(getattr(rules, "content", None)), [repr(c.sheet) for c in scenario.combatants])
    )


# ---------------------------------------------------------------- HTML output


def html_case(scenario: Path, names: tuple[str, str], seconds: float = 30.0) -> Outcome:
    """A fight whose name and first fighter's name are hostile text: its viewer must
    hold the names as data (the page's JSON gives them back exactly, its title escapes
    them) and add no element: as many ``<script`` and ``</script`` as a page of plain
    names; so must its SVG timeline (no ``<script`` at all)."""
    import attrs

    from segsim.record import fight_record
    from segsim.scenario import load_scenario
    from segsim.views.html import viewer_html
    from segsim.views.timeline import timeline_svg

    fight_name, fighter_name = names

    def page_of(name: str, fighter: str) -> tuple[str, str]:
        sc = load_scenario(scenario)
        first = attrs.evolve(sc.combatants[0], name=fighter)
        sc = attrs.evolve(sc, name=name, combatants=(first, *sc.combatants[1:]))
        fight = sc.fight(3, max_segments=80)
        fight.run()
        record = fight_record(fight)
        return viewer_html(record), timeline_svg(record)

    def action() -> str:
        plain, plain_svg = page_of("plain fight", "plain fighter")
        page, svg = page_of(fight_name, fighter_name)
        problems = html_problems(page, plain, svg, plain_svg, fight_name, fighter_name)
        if problems:
            raise Unsafe("; ".join(problems))
        return "accepted"

    try:
        return guarded(action, seconds)
    except Unsafe as exc:
        return Outcome("unsafe", f"{names!r}: {exc}")


def html_problems(
    page: str, plain: str, svg: str, plain_svg: str, fight_name: str, fighter_name: str
) -> list[str]:
    """What is wrong with a viewer page and an SVG timeline of a fight with hostile
    names, against those of the same fight with plain names."""
    import json
    import re

    problems = []
    for tag in ("<script", "</script", "<style", "</style", "<iframe"):
        if page.lower().count(tag) != plain.lower().count(tag):
            problems.append(f"{tag!r}: {page.lower().count(tag)} in the page")
    found = re.search(r'<script type="application/json" id="fight-data">(.*?)</script>', page, re.S)
    if found is None:
        problems.append("no fight data")
    else:
        try:
            data = json.loads(found.group(1))
        except ValueError as exc:
            problems.append(f"the fight data is not JSON: {exc}")
        else:
            if fight_name and data.get("title") != fight_name:
                problems.append(f"title read back as {str(data.get('title'))[:80]!r}")
            shown = {f.get("name") for f in data.get("fighters", [])}
            if fighter_name and fighter_name not in shown:
                problems.append("the fighter's name is not read back")
    if "<script" in svg.lower() or svg.count("<svg") != plain_svg.count("<svg"):
        problems.append("the SVG holds an element of the data")
    return problems


class Unsafe(BaseException):
    pass


# ---------------------------------------------------------------- special and huge files


def special_case(kind: str, reader: str, scratch: Path, seconds: float = 10.0) -> Outcome:
    """A special file (a named pipe, a device, a directory, links) given where a
    scenario, a script, a record or a rule list goes: refused, quickly."""
    path = special_file(kind, scratch)
    return read_as(reader, path, seconds)


def special_file(kind: str, scratch: Path) -> Path:
    """The special file ``kind`` (made once in ``scratch``)."""
    path = scratch / f"special-{kind}.toml"
    if path.exists() or path.is_symlink():
        return path
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    elif kind == "link-loop":
        path.symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(scratch / "nothing-here")
    elif kind == "link-fifo":
        fifo = special_file("fifo", scratch)
        path.symlink_to(fifo)
    else:  # a device: null, zero, urandom
        path.symlink_to(f"/dev/{kind}")
    return path


READERS = ("scenario", "script", "record", "rulelist", "cli-run", "cli-replay", "cli-view")


def read_as(reader: str, path: Path, seconds: float) -> Outcome:
    """Give ``path`` to one of segsim's readers."""
    from segsim.policies import load_rule_list
    from segsim.record import read_record
    from segsim.scenario import load_scenario
    from segsim.script import load_script

    if reader.startswith("cli-"):
        command = reader[4:]
        argv = [command, str(path)]
        if command == "view":
            argv += ["--html", str(path.parent / "out.html")]
        return cli_case(argv, seconds)

    def action() -> str:
        if reader == "scenario":
            load_scenario(path)
        elif reader == "script":
            load_script(path)
        elif reader == "record":
            read_record(path)
        else:
            load_rule_list(path)
        return "accepted"

    return guarded(action, seconds)


def huge_file(kind: str, scratch: Path) -> Path:
    """A large input (made once): a scenario padded past the 16 MiB a TOML input may
    be, a record line past the 64 MiB a record line may be, a record of a million
    lines, a 500-fighter battle's record (which segsim writes, so must read), a script
    of 100,000 segments."""
    from segsim.input import MAX_BYTES, MAX_RECORD_LINE

    path = scratch / f"huge-{kind}"
    if path.exists():
        return path
    with open(path, "w", encoding="utf-8") as f:
        if kind == "padded-scenario":
            f.write("# " + "x" * (MAX_BYTES + 10) + "\n[fight]\n")
        elif kind == "long-record-line":
            f.write('{"format":"segsim-record","version":"2.0","name":"')
            f.write("x" * (MAX_RECORD_LINE + 10))
            f.write('"}\n')
        elif kind == "many-record-lines":
            f.write('{"format":"segsim-record","version":"2.0"}\n')
            f.write('{"t":0,"type":"x","actor":null}\n' * 1_000_000)
        elif kind == "battle-record":  # a 500-fighter battle to its end (about 22 MiB)
            from segsim.battle import line_battle
            from segsim.record import write_record

            fight = line_battle(250, seed=3)
            fight.run()
            write_record(fight, f)
        else:  # many-segments script
            f.write('[fight]\nruleset = "rinkanou"\n')
            for i in range(100_000):
                f.write(f'[segment.{i}]\nrobert = "wait"\n')
    return path


def huge_case(kind: str, reader: str, scratch: Path, seconds: float = 30.0) -> Outcome:
    """A large input: refused or read within its budget; a record segsim wrote must
    be read (a refusal is a finding)."""
    outcome = read_as(reader, huge_file(kind, scratch), seconds)
    if kind == "battle-record" and outcome.kind == "rejected":
        return Outcome("divergence", "segsim refuses a record it wrote (a 500-fighter battle's)")
    return outcome
