"""Replay a fight record and report the first divergence; branch a record (what-if).

A replay rebuilds the fight from the record's header (ruleset and options, full sheets,
seed, limits), lets each combatant declare what the record says it declared
(:class:`ReplayDeclarations`) with the dice the record says fell (loaded dice), and
compares the record it produces with the original, line by line.

A branch replays a record up to segment ``T``, then lets live policies decide from ``T``
on, with fresh dice: the stream of a seed, positioned after the draws made before ``T``
(with the record's own seed, a branch that changes nothing goes on as the original did).

Nothing here knows a ruleset: everything comes from the header and the event lines the
engine writes (``action.declared``, ``action.cancelled``, ``die.rolled``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.actions import (
    Cancel,
    Declaration,
    PolicyOutput,
    declaration_problem,
)
from segsim.dice import Dice, LoadedDice
from segsim.errors import (
    DiceExhausted,
    IllegalDeclaration,
    InputError,
    RecordError,
    SegsimError,
    StaleDeclaration,
)
from segsim.fight import CombatantSpec, Fight
from segsim.input import Node, PathKey, Source, seed_field
from segsim.policy import Observation, UnknownPolicy, is_reactive, make_policy, policy_name
from segsim.record import (
    Line,
    Record,
    RecordBuilder,
    RecordVisitor,
    dumps,
    event_data,
    read_record,
)
from segsim.rules import frozen_sheet, ruleset_from_data
from segsim.scenario import check_setups
from segsim.script import CancelKind

Recorded = Declaration | Cancel | CancelKind
"""What a record says a combatant declared: an action, or a cancellation (by kind)."""

_DIE = re.compile(r"d[1-9][0-9]{0,8}", re.ASCII)

REPLAY = "replay"
"""The policy name that keeps a combatant on its recorded declarations in a branch."""


# ---------------------------------------------------------------- the replay policy


class ReplayDeclarations:
    """A policy that declares what a record says the combatant declared at each segment.

    It goes by the recorded policy's ``name`` and ``reactive`` flag, so the engine asks it
    exactly when it asked the original policy. A ``shadow`` policy, if given, is shown
    every observation too and its answer dropped: it follows the fight, so a policy with
    memory knows what it would have seen. From segment ``until`` on (if given) the shadow
    decides instead: a branch that keeps a combatant's recorded policy.
    """

    def __init__(
        self,
        declarations: Mapping[int, Sequence[Recorded]],
        *,
        name: str = REPLAY,
        reactive: bool = True,
        shadow: Any = None,
        until: int | None = None,
    ) -> None:
        if until is not None and shadow is None:
            raise ValueError("a shadow policy takes over at until: give one")
        self.declarations = {seg: tuple(ds) for seg, ds in declarations.items()}
        self.name = name
        self.reactive = reactive
        self.shadow = shadow
        self.until = until
        self.actor = ""
        self.actions: Callable[[], Sequence[Any]] = list

    @property
    def segments(self) -> list[int]:
        """The segments at which something is declared, in order."""
        return sorted(self.declarations)

    def bind(self, actor: str, seed: int) -> None:
        """Pass the fight's binding on to the shadow policy, as the original had it."""
        bind = getattr(self.shadow, "bind", None)
        if callable(bind):
            bind(actor, seed)

    def attach(self, fight: Fight, actor: str) -> None:
        """Let cancellations by kind find ``actor``'s actions in progress in ``fight``;
        pass the fight on to a shadow that wants it (a process policy)."""
        self.actor = actor

        def actions() -> Sequence[Any]:
            return list(fight.state.combatants[actor].actions)

        self.actions = actions
        attach = getattr(self.shadow, "attach", None)
        if callable(attach):
            attach(fight, actor)

    def decide(self, observation: Observation) -> PolicyOutput:
        if self.until is not None and observation.segment >= self.until:
            out: PolicyOutput = self.shadow.decide(observation)
            return out
        if self.shadow is not None:
            self.shadow.decide(observation)
        found = self.declarations.get(observation.segment)
        if not found:
            return None
        return [
            d.resolve(self.actions(), self.actor, observation.segment)
            if isinstance(d, CancelKind)
            else d
            for d in found
        ]


# ---------------------------------------------------------------- reading a record


@attrs.frozen
class PolicyChange:
    """A policy replaced during the fight: from segment ``at`` on (a branched record)."""

    at: int
    policy: str
    reactive: bool


@attrs.frozen
class Fighter:
    """A combatant as the record header describes it, with its sheet read back."""

    id: str
    name: str
    side: str
    is_pc: bool
    position: tuple[float, float]
    policy: str
    reactive: bool
    sheet: Any
    changes: tuple[PolicyChange, ...] = ()
    setup: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class HostChange:
    """What the host of an embedded fight did: a reinforcement joined, a fighter left,
    or the fight was interrupted, at the start of (or during) segment ``at``."""

    at: int
    kind: str  # "join", "leave" or "interrupt"
    cid: str = ""
    reason: str = ""
    fighter: Fighter | None = None


@attrs.frozen
class Draw:
    """A recorded die draw: the die, its face, and the segment it was drawn in."""

    die: str
    value: int
    t: int
    line: int = 0


@attrs.frozen
class ReplayPlan:
    """Everything needed to re-simulate a record, read from it once."""

    record: Record
    ruleset: Any
    fighters: tuple[Fighter, ...]
    seed: int
    name: str
    max_segments: int
    declarations: Mapping[str, Mapping[int, tuple[Recorded, ...]]]
    draws: tuple[Draw, ...]
    host: tuple[HostChange, ...] = ()
    entered: bool = False
    """Whether the dice were entered by hand (else they are the seed's stream)."""

    @property
    def everyone(self) -> tuple[Fighter, ...]:
        """The fighters of the header, then those who joined during the fight."""
        return (*self.fighters, *(c.fighter for c in self.host if c.fighter is not None))

    def fighter(self, cid: str) -> Fighter:
        for f in self.everyone:
            if f.id == cid:
                return f
        raise KeyError(cid)

    def specs(self, policies: Mapping[str, Any]) -> list[CombatantSpec]:
        """The header's fighters (those who join come through the host)."""
        return [
            CombatantSpec(
                f.id, f.side, f.sheet, policies[f.id], f.name, f.position, f.is_pc, f.setup
            )
            for f in self.fighters
        ]

    def new_fight(self, policies: Mapping[str, Any], dice: Dice) -> Fight:
        return Fight(
            self.ruleset,
            self.specs(policies),
            dice=dice,
            max_segments=self.max_segments,
            name=self.name,
            fight_id=Path(self.record.source).name,
        )


class _HeaderSource(Source):
    """The header as input data: every field is on line 1 of the record."""

    def __init__(self, path: str, data: Mapping[str, Any]) -> None:
        super().__init__(path, "", data)

    def line_of(self, path: PathKey) -> int | None:
        return 1


def _header_error(exc: InputError) -> RecordError:
    what = f"{exc.field}: {exc.message}" if exc.field else exc.message
    return RecordError(exc.path, 1, f"header: {what}")


class ReplayBuilder(RecordVisitor[ReplayPlan]):
    """A visitor that reads a record into a :class:`ReplayPlan`: the header's ruleset and
    sheets, every combatant's declarations by segment, and the dice in order."""

    def __init__(self) -> None:
        self.record = RecordBuilder()
        self.ruleset: Any = None
        self.fighters: list[Fighter] = []
        self.seed = 0
        self.entered = False
        self.name = ""
        self.max_segments = 1
        self.declared: dict[str, dict[int, list[Recorded]]] = {}
        self.draws: list[Draw] = []
        self.host: list[HostChange] = []

    def begin(self, source: str) -> None:
        self.record.begin(source)

    def visit_header(self, header: Mapping[str, Any], line: Line) -> None:
        self.record.visit_header(header, line)
        try:
            self._read_header(_HeaderSource(line.source, header).root())
        except InputError as exc:
            raise _header_error(exc) from None

    def _read_header(self, root: Node) -> None:
        for key in ("format", "version"):
            root.value(key, str)
        self.ruleset = ruleset_from_data(root, root)
        self.seed = seed_field(root)
        self.entered = root.value("dice", str, "seed", choices=("entered",)) == "entered"
        self.name = root.value("name", str, "")
        self.max_segments = root.value("max_segments", int, min=1)
        seen: set[str] = set()
        nodes = root.tables("combatants")
        for node in nodes:
            fighter = self._read_fighter(node)
            if fighter.id in seen:
                raise node.error("id", f"duplicate combatant id {fighter.id!r}")
            seen.add(fighter.id)
            self.fighters.append(fighter)
            self.declared[fighter.id] = {}
        if not self.fighters:
            raise root.error("combatants", "a record needs at least one combatant")
        check_setups(self.ruleset, nodes, self.fighters)
        root.finish()

    def _read_fighter(self, node: Node) -> Fighter:
        cid = node.value("id", str)
        position = node.position("position", (0.0, 0.0))
        changes = []
        for change in node.tables("changes", []):
            changes.append(
                PolicyChange(
                    change.value("at", int, min=1),
                    change.value("policy", str),
                    change.value("reactive", bool),
                )
            )
            change.finish()
        if [c.at for c in changes] != sorted({c.at for c in changes}):
            raise node.error("changes", "policy changes must be in increasing segment order")
        fighter = Fighter(
            id=cid,
            name=node.value("name", str, cid),
            side=node.value("side", str),
            is_pc=node.value("is_pc", bool, False),
            position=(position[0], position[1]),
            policy=node.value("policy", str),
            reactive=node.value("reactive", bool),
            sheet=frozen_sheet(self.ruleset, node.table("sheet")),
            changes=tuple(changes),
            setup=self._read_setup(node.table("setup", {})),
        )
        node.finish()
        return fighter

    def _read_setup(self, node: Node) -> Mapping[str, Any]:
        load_setup = getattr(self.ruleset, "load_setup", None)
        if load_setup is None:
            return dict(node.items())
        setup: Mapping[str, Any] = load_setup(node)
        return setup

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        self.record.visit_event(event, line)
        kind = event["type"]
        if kind == "die.rolled":
            die, value = event.get("die"), event.get("value")
            if not (isinstance(die, str) and _DIE.fullmatch(die)):
                raise line.error(f"die: expected a die name like 'd100', got {die!r}")
            if not isinstance(value, int) or isinstance(value, bool):
                raise line.error(f"value: expected an integer face, got {value!r}")
            self.draws.append(Draw(die, value, event["t"], line.number))
        elif kind == "action.declared":
            if event.get("forced", False) is True:
                return  # the rules impose it again by themselves
            self._declare(event, line, self._declaration(event, line))
        elif kind == "combatant.joined":
            fighter = self._joined(event, line)
            self.host.append(HostChange(event["t"], "join", fighter.id, fighter=fighter))
            self.declared[fighter.id] = {}
        elif kind == "combatant.left":
            self.host.append(
                HostChange(event["t"], "leave", str(event["actor"]), str(event.get("reason", "")))
            )
        elif kind == "end" and event.get("outcome") == "interrupted":
            self.host.append(HostChange(event["t"], "interrupt"))
        elif kind == "action.cancelled":
            # The kind survives a branch that numbers actions otherwise; the id picks
            # among several actions of that kind.
            action, what = event.get("action"), event.get("kind")
            if not isinstance(action, int) or isinstance(action, bool) or action < 1:
                raise line.error(f"action: expected an action id, got {action!r}")
            if what is None:
                self._declare(event, line, Cancel(action))
            elif not isinstance(what, str) or not what:
                raise line.error(f"kind: expected an action kind, got {what!r}")
            else:
                self._declare(event, line, CancelKind(what, action))

    def _joined(self, event: Mapping[str, Any], line: Line) -> Fighter:
        """A reinforcement, read like a header's combatant."""
        data = {k: v for k, v in event.items() if k not in ("t", "type")}
        data["id"] = data.pop("actor")
        source = _HeaderSource(line.source, data)
        try:
            return self._read_fighter(source.root())
        except InputError as exc:
            raise line.error(f"{exc.field}: {exc.message}") from None

    def _declaration(self, event: Mapping[str, Any], line: Line) -> Declaration:
        """The declaration as made (``declared``), else the action as planned."""
        declared = event.get("declared")
        where = "declared."
        if declared is None:
            declared, where = event, ""
        elif not isinstance(declared, dict):
            raise line.error(f"declared: expected an object, got {declared!r}")
        kind, target = declared.get("kind"), declared.get("target")
        params = declared.get("params", {})
        if not isinstance(kind, str) or not kind:
            raise line.error(f"{where}kind: expected an action kind, got {kind!r}")
        if target is not None and not isinstance(target, str):
            raise line.error(f"{where}target: expected a combatant id or null, got {target!r}")
        if not isinstance(params, dict):
            raise line.error(f"{where}params: expected an object, got {params!r}")
        declaration = Declaration(kind, target, params)
        problem = declaration_problem(declaration)
        if problem is not None:
            raise line.error(f"{where}{problem}")
        return declaration

    def _declare(self, event: Mapping[str, Any], line: Line, item: Recorded) -> None:
        actor = event["actor"]
        by_segment = self.declared.get(actor) if isinstance(actor, str) else None
        if by_segment is None:
            raise line.error(f"actor: {actor!r} is not a combatant of this record")
        by_segment.setdefault(event["t"], []).append(item)

    def result(self) -> ReplayPlan:
        record = self.record.result()
        return ReplayPlan(
            record=record,
            ruleset=self.ruleset,
            fighters=tuple(self.fighters),
            seed=self.seed,
            name=self.name,
            max_segments=self.max_segments,
            declarations={
                cid: {seg: tuple(ds) for seg, ds in by_seg.items()}
                for cid, by_seg in self.declared.items()
            },
            draws=tuple(self.draws),
            host=tuple(self.host),
            entered=self.entered,
        )


def read_plan(source: str | Path | Record) -> ReplayPlan:
    """Read a record (a file or a :class:`Record`) into a :class:`ReplayPlan`."""
    if isinstance(source, Record):
        return source.accept(ReplayBuilder())
    return read_record(source, ReplayBuilder())


# ---------------------------------------------------------------- replay


@attrs.frozen
class Divergence:
    """The first line where the replay differs from the record.

    ``expected`` is None when the record has no such line, ``produced`` is None when the
    replay produced no such line (``stopped`` then says why, if it stopped on an error).
    """

    line: int
    expected: str | None
    produced: str | None
    stopped: str = ""

    def __str__(self) -> str:
        expected = self.expected if self.expected is not None else "(the record ends here)"
        if self.produced is not None:
            produced = self.produced
        elif self.stopped:
            produced = f"nothing: the replay stopped: {self.stopped}"
        else:
            produced = "(the replay ends here)"
        return f"line {self.line}:\n  expected: {expected}\n  produced: {produced}"


@attrs.frozen
class ReplayResult:
    """What a replay found: identical, or the first divergence."""

    record: Record
    fight: Fight
    divergence: Divergence | None

    @property
    def identical(self) -> bool:
        return self.divergence is None

    @property
    def events(self) -> int:
        """The number of events (lines after the header) of the record."""
        return len(self.record)

    def __str__(self) -> str:
        if self.divergence is None:
            return f"identical ({self.events} events)"
        return f"{self.record.source}: diverges at {self.divergence}"


def _canonical(obj: Any) -> str:
    """Key order does not matter; types do (1 is not 1.0 nor true)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=dict)


def _host(
    fight: Fight,
    plan: ReplayPlan,
    policies: Mapping[str, Any],
    calls: Mapping[str, Sequence[int]],
) -> None:
    """Do again what the host did, at the boundaries it did it: reinforcements join
    (called at their recorded segments), fighters leave. A branch may have ended the
    fight or taken the fighter out by then: nothing happens. (The interruption is
    :func:`_run`'s.)"""
    changes = [c for c in plan.host if c.kind in ("join", "leave")]
    if not changes:
        return

    def host() -> Any:
        for change in changes:
            delay = fight.clock.env_time(change.at) - fight.env.now
            if delay > 0:
                yield fight.env.timeout(delay)
            if fight.ended:
                return
            if change.kind == "join":
                assert change.fighter is not None
                f = change.fighter
                spec = CombatantSpec(
                    f.id, f.side, f.sheet, policies[f.id], f.name, f.position, f.is_pc, f.setup
                )
                fight.join(spec, at=change.at)
                for seg in calls.get(f.id, ()):
                    fight.call_at(f.id, seg)
            else:
                c = fight.state.combatants.get(change.cid)
                if c is not None and c.in_fight:
                    fight.leave(change.cid, change.reason, at=change.at)

    fight.env.process(host())


@attrs.frozen
class _Interruption:
    """Where the host stopped the fight: in segment ``at``, once the fight had produced
    ``events`` events (the record's lines before its ``end``)."""

    at: int
    events: int
    cause: str = ""


def _interruption(plan: ReplayPlan) -> _Interruption | None:
    for change in plan.host:
        if change.kind == "interrupt":
            end = plan.record.events[-1]
            return _Interruption(change.at, len(plan.record.events) - 1, str(end.get("cause", "")))
    return None


def _interrupt(fight: Fight, stop: _Interruption) -> None:
    """Interrupt the fight in segment ``stop.at`` at the same point as the host did.

    A host may interrupt on the boundary of ``stop.at`` before the settlement that falls
    there, between it and the declarations, or after them, or later in the segment. The
    engine is stepped one event at a time from the boundary on, and the fight is
    interrupted as soon as it has produced as many events as the record has before its
    end (or when the segment's boundary work is over)."""
    env = fight.env
    boundary = fight.clock.env_time(stop.at)
    while not fight.done.triggered and len(fight.history) < stop.events:
        if env.peek() > boundary:
            break
        env.step()
    if not fight.done.triggered:
        fight.interrupt(stop.cause)


def _run(
    fight: Fight,
    switches: Mapping[int, Sequence[tuple[str, Any]]],
    host: Callable[[], None] | None = None,
    stop: _Interruption | None = None,
) -> None:
    """Run a fight that replaces policies at given segments (before anything happens in
    that segment, even the settlement of the previous one), and that the host may
    interrupt (``stop``)."""
    done = fight.start()
    if host is not None:
        host()
    points = sorted({*switches, *([stop.at] if stop is not None else [])})
    for at in points:
        if at > fight.env.now and not done.triggered:
            fight.env.run(until=at)
        if done.triggered:
            break
        for cid, policy in switches.get(at, ()):
            fight.replace_policy(cid, policy)
        if stop is not None and at == stop.at:
            _interrupt(fight, stop)
    if not done.triggered:
        fight.env.run(until=done)


def replay(source: str | Path | Record | ReplayPlan) -> ReplayResult:
    """Re-simulate a record from its header, declarations and dice; compare line by line.

    Malformed records raise :class:`RecordError` (file and line named); a record that
    reads well but does not replay gives a result with a :class:`Divergence`.
    """
    plan = source if isinstance(source, ReplayPlan) else read_plan(source)
    policies: dict[str, ReplayDeclarations] = {}
    switches: dict[int, list[tuple[str, Any]]] = {}
    joined = [c.fighter for c in plan.host if c.fighter is not None]
    for f in [*plan.fighters, *joined]:
        decls = plan.declarations[f.id]
        policies[f.id] = ReplayDeclarations(decls, name=f.policy, reactive=f.reactive)
        for change in f.changes:
            policy = ReplayDeclarations(decls, name=change.policy, reactive=change.reactive)
            switches.setdefault(change.at, []).append((f.id, policy))
    dice = LoadedDice(
        [(d.die, d.value) for d in plan.draws],
        seed=plan.seed,
        entered=plan.entered,
        strict=False,  # the comparison reports draws the replay did not make
    )
    fight = plan.new_fight(policies, dice)
    for f in plan.fighters:
        for seg in policies[f.id].segments:
            fight.call_at(f.id, seg)
    stopped = ""
    try:
        calls = {f.id: policies[f.id].segments for f in joined}
        _run(fight, switches, lambda: _host(fight, plan, policies, calls), _interruption(plan))
    except SegsimError as exc:
        stopped = str(exc)
    divergence = _compare(plan.record, fight, stopped)
    if not plan.entered:
        changed = _seed_divergence(plan)
        if changed is not None and (divergence is None or changed.line < divergence.line):
            divergence = changed
    return ReplayResult(plan.record, fight, divergence)


def _seed_divergence(plan: ReplayPlan) -> Divergence | None:
    """The first recorded die that is not the face the seed's stream gives there (a
    changed die that decides nothing new is caught too), or None."""
    draw = random.Random(plan.seed).random
    for d in plan.draws:
        face = int(draw() * int(d.die[1:])) + 1
        if face != d.value:
            text = plan.record.lines[d.line - 1]
            event = dict(plan.record.events[d.line - 2])
            event["value"] = face
            return Divergence(d.line, text, dumps(event), f"the seed {plan.seed} gives {face}")
    return None


def _compare(record: Record, fight: Fight, stopped: str) -> Divergence | None:
    produced: list[Mapping[str, Any]] = [fight.header()]
    produced.extend(event_data(e) for e in fight.history)
    expected = (record.header, *record.events)
    for i, (exp, got) in enumerate(zip(expected, produced, strict=False)):
        if _canonical(exp) != _canonical(got):
            return Divergence(i + 1, record.lines[i], dumps(got))
    if len(expected) > len(produced):
        n = len(produced)
        return Divergence(n + 1, record.lines[n], None, stopped)
    if len(produced) > len(expected):
        n = len(expected)
        return Divergence(n + 1, None, dumps(produced[n]))
    if stopped:  # pragma: no cover - an error after the end event
        return Divergence(len(expected), record.lines[-1], None, stopped)
    return None


# ---------------------------------------------------------------- branches


class BranchDice(Dice):
    """Recorded faces first, then the stream of ``seed`` positioned after them.

    Each recorded draw also advances the seeded stream, so with the record's own seed a
    branch draws after ``T`` exactly what the original fight drew. ``then`` are recorded
    faces that follow while they fit (the die asked is the die recorded): the table's
    rolls of a hand-entered fight after ``T``; the first that does not fit ends them.
    """

    def __init__(
        self,
        values: Iterable[tuple[str, int]],
        seed: int,
        then: Iterable[tuple[str, int]] = (),
        *,
        entered: bool = False,
    ) -> None:
        super().__init__(seed)
        self._values = list(values)
        self._then = list(then)
        self._next = 0
        self.entered = entered

    def _face(self, sides: int, purpose: str, actor: str | None) -> int:
        fresh = int(self._random() * sides) + 1
        if self._next >= len(self._values):
            if self._then and self._then[0][0] == f"d{sides}" and 1 <= self._then[0][1] <= sides:
                return self._then.pop(0)[1]
            self._then = []
            return fresh
        die, value = self._values[self._next]
        if die != f"d{sides}" or not 1 <= value <= sides:
            who = f" for {actor}" if actor else ""
            raise DiceExhausted(
                f"recorded draw {self._next + 1} is {die} {value}, but a d{sides} is rolled "
                f"({purpose}{who})"
            )
        self._next += 1
        return value


def seeded(plan: ReplayPlan) -> bool:
    """Whether the record's dice are its seed's (a simulated fight), not a table's."""
    dice = Dice(plan.seed)
    return all(dice.roll(int(d.die[1:]), "check") == d.value for d in plan.draws)


@attrs.frozen
class Branch:
    """A what-if fight: the record replayed up to segment ``until``, then live policies."""

    plan: ReplayPlan
    fight: Fight
    until: int
    policies: Mapping[str, str]
    """Who decides from ``until`` on, by combatant: a policy name or ``replay``."""
    notes: tuple[str, ...]
    seed: int
    table_dice: bool = False
    """Whether the table's later rolls came first after ``until`` (a hand-entered fight)."""

    def first_difference(self) -> int | None:
        """The first event line (2..) where the branch differs from the record, if any."""
        record = self.plan.record
        produced = [event_data(e) for e in self.fight.history]
        for i, (exp, got) in enumerate(zip(record.events, produced, strict=False)):
            if _canonical(exp) != _canonical(got):
                return i + 2
        if len(produced) != len(record.events):
            return min(len(produced), len(record.events)) + 2
        return None


def parse_then(
    specs: Iterable[str], fighters: Sequence[str], source: str = "--then"
) -> dict[str, str]:
    """``robert=aggressive`` (one combatant) or ``aggressive`` (everyone not named)."""
    named: dict[str, str] = {}
    default: str | None = None
    for spec in specs:
        cid, sep, policy = spec.partition("=")
        if not sep:
            if default is not None:
                raise RecordError(source, None, f"two policies for everyone: {default}, {spec}")
            default = spec
            continue
        if cid not in fighters:
            raise RecordError(
                source, None, f"no combatant {cid!r} in the record (it has {', '.join(fighters)})"
            )
        if not policy:
            raise RecordError(source, None, f"{spec!r}: give a policy after '='")
        named[cid] = policy
    if default is not None:
        for cid in fighters:
            named.setdefault(cid, default)
    return named


def branch(
    source: str | Path | Record | ReplayPlan,
    until: int,
    then: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
) -> Branch:
    """Replay a record up to segment ``until``, then let live policies decide.

    ``then`` maps combatant ids to a policy (an object, a registered name, a
    ``module:Class`` path, or ``"replay"`` to keep the recorded declarations). Others keep
    their recorded policy, rebuilt by name; one that is not a registered policy keeps its
    recorded declarations. Dice drawn before ``until`` are the recorded ones; later ones
    come from ``seed`` (default: the record's), after as many draws as were recorded
    before ``until``. A record whose dice are not its seed's (a fight entered by hand)
    goes on with the table's later rolls while they fit, unless ``seed`` is given: so a
    branch that changes nothing is the recorded fight again, whatever its dice.
    """
    plan = source if isinstance(source, ReplayPlan) else read_plan(source)
    if until < 0:
        raise ValueError(f"a branch starts at a segment >= 0, not {until}")
    then = dict(then or {})
    joined = {c.fighter.id: c.at for c in plan.host if c.fighter is not None}
    unknown = sorted(set(then) - {f.id for f in plan.everyone})
    if unknown:
        raise ValueError(f"no combatant {', '.join(unknown)} in {plan.record.source}")
    later: list[tuple[str, int]] = []
    if seed is None and not seeded(plan):  # a table's dice: its later rolls while they fit
        later = [(d.die, d.value) for d in plan.draws if d.t >= until]
    seed = plan.seed if seed is None else seed
    draws = [(d.die, d.value) for d in plan.draws if d.t < until]
    policies: dict[str, Any] = {}
    switches: dict[int, list[tuple[str, Any]]] = {}
    calls: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    notes: list[str] = []
    for f in plan.everyone:
        before = tuple(c for c in f.changes if c.at < until)
        current = before[-1] if before else PolicyChange(0, f.policy, f.reactive)
        live = _live_policy(plan, f.id, then.get(f.id), current.policy, notes)
        recorded = plan.declarations[f.id]
        if live is None:  # recorded declarations all along, with their reactivity
            names[f.id] = REPLAY
            decls, changes = recorded, f.changes
        else:
            names[f.id] = policy_name(live)
            decls = {seg: ds for seg, ds in recorded.items() if seg < until}
            changes = before
        calls[f.id] = sorted(decls)
        same = live is not None and (policy_name(live), is_reactive(live)) == (
            current.policy,
            current.reactive,
        )
        if live is not None and joined.get(f.id, 0) >= until:  # live from its start
            policies[f.id] = live
            continue
        # The policy in force at ``until`` hands over to a live one of the same name and
        # reactivity without a trace; another live policy replaces it (a recorded change).
        stages = [PolicyChange(0, f.policy, f.reactive), *changes]
        for i, stage in enumerate(stages):
            policy = ReplayDeclarations(
                decls,
                name=stage.policy,
                reactive=stage.reactive,
                shadow=live,
                until=until if same and i == len(stages) - 1 else None,
            )
            if i == 0:
                policies[f.id] = policy
            else:
                switches.setdefault(stage.at, []).append((f.id, policy))
        if live is not None and not same:
            switches.setdefault(until, []).append((f.id, live))
    entered = plan.entered or bool(later) or (seed != plan.seed and bool(draws))
    fight = plan.new_fight(policies, BranchDice(draws, seed, later, entered=entered))
    for cid, segs in calls.items():
        if cid not in joined:
            for seg in segs:
                fight.call_at(cid, seg)
    try:
        _run(fight, switches, lambda: _host(fight, plan, policies, calls), _interruption(plan))
    except IllegalDeclaration as exc:
        actor, segment = exc.actor, exc.segment
        if (
            actor is None
            or segment is None
            or segment < until
            or exc.policy is None  # a forced action: the rules' own, not a declaration
            or names.get(actor) != REPLAY
        ):
            raise
        raise StaleDeclaration(
            f"{exc.message} (its recorded declaration, replayed in the branch from segment "
            f"{until}, no longer fits the branched fight: give {actor} a live policy)",
            rule=exc.rule,
            actor=actor,
            segment=segment,
            policy=REPLAY,
        ) from None
    return Branch(plan, fight, until, names, tuple(notes), seed, bool(later))


def _live_policy(plan: ReplayPlan, cid: str, wanted: Any, current: str, notes: list[str]) -> Any:
    """The policy that decides for ``cid`` after the branch point (None: keep replaying)."""
    ruleset = plan.ruleset.name
    if wanted is None:
        try:
            return make_policy(ruleset, current, from_data=True)
        except UnknownPolicy:
            notes.append(
                f"{cid} keeps its recorded declarations: its policy {current!r} is not a "
                "registered policy"
            )
            return None
    if isinstance(wanted, str):
        return None if wanted == REPLAY else make_policy(ruleset, wanted)
    return wanted


__all__ = [
    "REPLAY",
    "Branch",
    "BranchDice",
    "Divergence",
    "ReplayBuilder",
    "ReplayDeclarations",
    "ReplayPlan",
    "ReplayResult",
    "branch",
    "parse_then",
    "read_plan",
    "replay",
]
