"""The Fight: combatants as SimPy processes, the declaration phase, cancellation.

Two things happen at a segment boundary, each at most once per boundary:

* the **settlement** of segment ``n`` at simulation time ``n + 1`` with priority
  :data:`SETTLE`, after every normal event of that time: the ruleset resolves every
  action completing there together;
* the **declaration phase** at the start of segment ``n`` (time ``n``) with priority
  :data:`DECIDE`, after the settlement of that time: every combatant who must or may
  declare decides from the same state, and all declarations are applied together.

Both are one SimPy event: the boundary's event is scheduled with priority
:data:`SETTLE` and, once the settlement is done, runs the declaration phase at once
when nothing else is due before :data:`DECIDE` at that time (the usual case); otherwise
it schedules the phase as its own event with priority :data:`DECIDE`, so the order of
events is the same either way.

Nothing is polled: a combatant is called to a declaration phase only when its own
action resolves or it observes something (another combatant starts, cancels or resolves
an action). Its SimPy process lasts from its entry to the end of the fight; the phases
it takes part in are the boundary events', so no phase wakes the process.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Collection, Generator, Iterable, Mapping, Sequence
from heapq import heappop, heappush
from itertools import compress, count
from operator import not_
from typing import Any, cast

import attrs
import simpy
from simpy.core import EmptySchedule, StopSimulation
from simpy.events import EventPriority

from segsim.actions import (
    Action,
    ActionSpec,
    Cancel,
    Declaration,
    DeclarationLike,
    PolicyOutput,
    declaration_problem,
)
from segsim.clock import clock
from segsim.dice import Dice, DrawLike, LoadedDice
from segsim.errors import IllegalDeclaration
from segsim.eventbase import maker, slot_init, twin_of
from segsim.events import (
    ActionCancelled,
    CombatantJoined,
    CombatantLeft,
    DieRolled,
    Event,
    FightEnded,
    WaitEnded,
    die_rolled,
)
from segsim.input import MAX_COORDINATE
from segsim.native import mypyc_attr
from segsim.policy import Observation, is_external, is_reactive, policy_name
from segsim.rules import BaseRuleset, Outcome
from segsim.sleepers import Sleepers
from segsim.state import SMALL_NEAR, Combatant, FightState, by_order

SETTLE = EventPriority(2)
"""Priority of a settlement: after every NORMAL (1) and URGENT (0) event of its time."""
HOST = EventPriority(3)
"""Priority of what a host asked for at a boundary (a join, a leave): after the
settlement of that time, before its declaration phase, whenever the host asked."""
DECIDE = EventPriority(4)
"""Priority of a declaration phase: after the settlement of the same time."""
LIMIT = EventPriority(5)

MAX_DURATION = 10**9
"""The longest action a policy may declare, in segments (over three years)."""

RECORD_FORMAT = "segsim-record"
RECORD_VERSION = "2.0"
"""2.0: RinKaNou reads RinKaNou anew (moves in reach roll, keep at distance, reads,
disengage stances...): a 1.x record would not replay under these rules."""

Subscriber = Callable[[Event], None]
Unconcerned = Callable[[Any, FightState, str, int, bool], bool]
"""A policy's ``unconcerned(ruleset, state, cid, segment, called)``: see
:func:`unconcerned_hook`."""

_NO_PLANS: tuple[ActionSpec, ...] = ()  # what a fighter's first declaration follows
_MANY_FORCED = 64
"""More fighters than this called to a phase: what the rules impose on them is asked in
one call when the rules offer it (:meth:`Fight._force_many`)."""


class _OwnEnvironment(simpy.Environment):
    """The environment of a fight that has its own: SimPy's, less the binding of all
    its event classes to it when it is made (``BoundClass.bind_early``), which a duel
    would pay for each fight to use one of them (``process``), found when used."""

    def __init__(self) -> None:
        self._now = 0
        self._queue = []
        self._eid = count()
        self._active_proc = None

    def run(self, until: simpy.core.SimTime | simpy.Event | None = None) -> Any:
        """SimPy's ``run``, stepping through the events without a call of ``step`` for
        each (the same steps, in the same order, with the same outcome) when it runs
        until an event, as :meth:`Fight.run` does; otherwise SimPy's own."""
        if not isinstance(until, simpy.Event) or until.callbacks is None:
            return super().run(until)
        until.callbacks.append(StopSimulation.callback)
        queue = self._queue
        try:
            while True:
                # Environment.step(), without its call.
                try:
                    self._now, _, _, event = heappop(queue)
                except IndexError:
                    raise EmptySchedule from None
                callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]
                try:
                    for callback in callbacks:
                        callback(event)
                except StopSimulation:
                    event.callbacks = callbacks[callbacks.index(callback) + 1 :]
                    self.schedule(event, EventPriority(-1))
                    raise
                if not event._ok and not hasattr(event, "_defused"):
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    raise exc
        except StopSimulation as stop:
            return stop.args[0]
        except EmptySchedule:
            assert not until.triggered
            raise RuntimeError(
                f'No scheduled events left but "until" event was not triggered: {until}'
            ) from None


class _Scheduled(simpy.Event):
    """An event triggered on creation, processed at ``now + delay`` with ``priority``."""

    def __init__(
        self,
        env: simpy.Environment,
        delay: int | float,  # an int stays one (see Clock.delay)
        priority: EventPriority,
        at: int,
        callback: Callable[[Any], None],
    ) -> None:
        self.env = env
        self.callbacks = [callback]
        self.at = at
        self._value = at
        self._ok = True
        env.schedule(self, priority, delay)


class _Departure(_Scheduled):
    """The event of a host's :meth:`Fight.leave`: who leaves, and why."""

    def __init__(
        self,
        env: simpy.Environment,
        delay: int | float,
        at: int,
        callback: Callable[[Any], None],
        cid: str,
        reason: str,
    ) -> None:
        self.cid = cid
        self.reason = reason
        super().__init__(env, delay, HOST, at, callback)


class _Phase(_Scheduled):
    """A segment boundary's event (its settlement, then its declaration phase), or a
    declaration phase alone, and who is called to the phase (whether each must act:
    set by whoever makes the event). Made triggered but not yet scheduled: the fight
    books it (:meth:`Fight._boundary_event`, :meth:`Fight._book`)."""

    members: dict[str, bool]

    def __init__(self, env: simpy.Environment, at: int, callback: Callable[[Any], None]) -> None:
        self.env = env
        self.callbacks = [callback]
        self.at = at
        self._value = at
        self._ok = True


# A boundary's event made without calling its class, where its __new__ is object's (the
# pure build; the compiled build's class has a __new__ of its own that calls __init__).
_new_phase = _Phase.__new__
_PLAIN_PHASE = _new_phase is object.__new__

# A die's event made without its maker's call where the maker builds it through a twin
# class (the pure build; see eventbase.maker): Fight._on_draw() does the same stores.
_DIE_TWIN: Any = twin_of(DieRolled) if maker(DieRolled) is not DieRolled else None
_new_die: Any = _DIE_TWIN.__new__ if _DIE_TWIN is not None else None

_Decided = list[tuple[Combatant, list[Cancel] | list[ActionSpec] | ActionSpec]]
"""A phase's checked declarations, fighter by fighter: a list of what to apply, or the
one planned action of a single checked declaration (most decisions), applied by
:meth:`Fight._run_phase` without a call of :meth:`Fight._apply`."""


@attrs.define(eq=False)
class _Paused:
    """A declaration phase waiting on external decisions (see :meth:`Fight.advance`)."""

    segment: int
    decided: _Decided
    observations: dict[str, Observation]
    must: dict[str, bool]
    """Whether each external combatant must act, as the engine sees it (no action in
    progress): what run() would pass on, not the ruleset's own ``must_act``."""


@attrs.frozen(weakref_slot=False)  # (no weak reference: its twin class, of the same
class CombatantSpec:  # layout, can then make one without a call of the class: see maker)
    """A combatant to put in a fight: who, on which side, with what sheet and policy."""

    id: str
    side: str
    sheet: Any
    policy: Any
    name: str = ""
    position: tuple[float, float] = (0.0, 0.0)
    is_pc: bool = False
    setup: Mapping[str, Any] = attrs.field(factory=dict)
    """Ruleset-specific situation of this combatant at the start (surprised, command
    points...): the game master's calls, as scenario data."""


# Built for each combatant of each fight: the cheaper slot-storing __init__, and
# CombatantSpec(...) without a call of the class (a scenario's fights).
CombatantSpec.__init__ = slot_init(CombatantSpec) or CombatantSpec.__init__  # type: ignore[method-assign]
combatant_spec = maker(CombatantSpec)


@mypyc_attr(allow_interpreted_subclasses=True)
class Fight:
    """One fight of one ruleset, in its own or a host's SimPy environment.

    >>> fight = Fight(ruleset, combatants, seed=7)   # doctest: +SKIP
    >>> outcome = fight.run()                          # doctest: +SKIP

    Embedded: pass ``env`` (and ``scale``, environment units per segment), call
    :meth:`start` and wait on :attr:`done`; the fight never calls ``env.run()`` then.
    """

    # Slotted, as the compiled build's native class is: a fight has more fields than a
    # plain instance keeps inline (CPython shares the keys of at most 30), so without
    # slots every read of one of them is a dictionary lookup, about 5 % of the engine's
    # instructions. Like the compiled class, it takes no attribute it does not declare.
    __slots__ = (
        *("ruleset", "specs", "dice", "seed", "name", "fight_id", "max_segments"),
        *("_own_env", "env", "_scale", "clock", "state", "history", "outcome", "ended"),
        *("done", "_subscribers", "_phases", "_reactive", "_any_reactive", "_sighted"),
        *("_awareness", "_forces", "_turns", "_combatants", "_completion_order", "_told"),
        *("_on_boundary", "_on_phase", "_external", "_paused", "_stepping", "_policies"),
        *("_calls", "_started", "_process", "_limit_set", "_boundary_done", "_joining"),
        *("_sleepers", "_queue", "_t", "_plain_outcome", "_quiet_roster", "_forced_when"),
        *("_unconcerned", "_ranks", "_rest", "_plain_book"),
    )

    def __init__(
        self,
        ruleset: Any,
        combatants: Sequence[CombatantSpec],
        *,
        seed: int = 0,
        dice: Dice | None = None,
        env: simpy.Environment | None = None,
        scale: float = 1.0,
        max_segments: int = 36_000,
        fight_id: str = "fight",
        name: str = "",
        logger: Any = None,
    ) -> None:
        if not combatants:
            raise ValueError("a fight needs combatants")
        if max_segments < 1:
            raise ValueError("max_segments must be at least 1")
        self.ruleset = ruleset
        self.specs = tuple(combatants)
        # (Unique ids: checked as the combatants are made, below.)
        for spec in self.specs:
            position = spec.position
            if type(position) is not tuple or position not in _FIELD:  # (else found good)
                _on_the_field(spec)
        self.dice = dice if dice is not None else Dice(seed)
        self.seed = self.dice.seed
        self.name = name
        self.fight_id = fight_id
        self.max_segments = max_segments
        self._own_env = env is None
        self.env: simpy.Environment = env if env is not None else _OwnEnvironment()
        self._scale = scale
        # Whether a boundary's event is booked as _boundary_event()'s common case, which
        # the hot paths then do without its call: the pure build's event class, on the
        # fight's own environment (a SimPy heap), at one unit of time a segment.
        self._plain_book = _PLAIN_PHASE and env is None and scale == 1.0
        self.clock = clock(scale, self.env.now, getattr(ruleset, "tick", 1))  # (shared)
        # The combatants, and what the engine keeps of each policy, in one pass (not a
        # comprehension each: a call of its own, and a pass over them each).
        made: dict[str, Combatant] = {}
        reactive: dict[str, bool] = {}
        external: dict[str, bool] = {}
        policies: dict[str, list[tuple[int, str, bool]]] = {}
        unconcerned: dict[str, Unconcerned] = {}
        new_status = ruleset.new_status
        order = 0
        for spec in combatants:
            cid = spec.id
            if cid in made:
                _not_unique(combatants)
            policy = spec.policy
            made[cid] = Combatant(
                cid,
                spec.side,
                spec.sheet,
                new_status(spec.sheet),
                policy,
                spec.name or cid,
                spec.position,
                spec.is_pc,
                order,
                spec.setup,
            )
            order += 1  # noqa: SIM113
            # is_reactive(), is_external() and policy_name(), without their calls.
            reactive[cid] = watches = bool(getattr(policy, "reactive", True))
            external[cid] = outside = bool(getattr(policy, "external", False))
            named = getattr(policy, "name", None)
            named = named if isinstance(named, str) and named else type(policy).__name__
            policies[cid] = [(0, named, watches)]
            if not outside:  # unconcerned_hook(policy), without asking that again
                hook = getattr(policy, "unconcerned", None)
                if hook is not None and callable(hook):
                    unconcerned[cid] = hook
        self.state = FightState(made)
        self.history: list[Event] = []
        self.outcome: Outcome | None = None
        self.ended = False
        self.done: simpy.Event = simpy.Event(self.env)
        self._subscribers: list[tuple[Subscriber, frozenset[str] | None]] = []
        # Who is called to each declaration phase still to come (the dict its event holds
        # as ``members``), by segment.
        self._phases: dict[int, dict[str, bool]] = {}
        self._reactive = reactive
        self._any_reactive = True in reactive.values()
        self._unconcerned = unconcerned  # (most fights: none)
        self._sighted: dict[str, int] = {}  # the last phase a reactive one was called to by sight
        self._awareness: float | None = getattr(ruleset, "awareness", None)
        # What the ruleset's class says, worked out once per class (_class_facts): whether
        # it imposes actions (BaseRuleset's forced() never does); the status field without
        # which forced() imposes nothing, when the ruleset says so for the forced() it has
        # (``forced_when``): it is then not asked otherwise; whether its outcome is
        # BaseRuleset's (who is left on which side); whether it passes a turn order
        # (BaseRuleset's due() never calls anyone); whether it has an order_key of its own.
        forces, forced_when, plain_outcome, turns, _ = _class_facts(type(ruleset))
        self._forces = forces
        self._forced_when = forced_when
        self._plain_outcome = plain_outcome
        # The state's roster when the outcome last said the fight goes on (-1: never asked).
        self._quiet_roster = -1
        self._turns = turns
        # The kinds of action whose start the ruleset is told of (BaseRuleset.started).
        self._told: frozenset[str] = frozenset(getattr(ruleset, "started_kinds", ()))
        self._combatants = self.state.combatants
        # A ruleset's order of completion may come as a table by kind (order_table()),
        # which the sort reads without a call of order_key() per action.
        order_table = getattr(ruleset, "order_table", None)
        table = order_table() if order_table is not None else None
        # The sort key of more actions completing together than _ranks orders: made when
        # first needed (_completion_key), which in most fights is never.
        self._completion_order: Callable[[Action], tuple[Any, ...]] | None = None
        # That table as ranks (kind -> rank; any other kind's: _rest), when each key is a
        # rank alone: two actions completing together are then ordered without the sort.
        self._ranks = _ranks(*table) if table is not None else None
        self._rest: Any = table[1][0] if table is not None and self._ranks is not None else None
        # A boundary's event calls one of these: bound once, not at each boundary.
        self._on_boundary: Callable[[_Phase], None] = self._run_phase
        self._on_phase: Callable[[_Phase], None] = self._run_phase
        self._external = external
        self._paused: _Paused | None = None
        self._stepping = False
        self._policies = policies
        self._calls: list[tuple[str, int]] = []
        self._started = False
        self._process: simpy.Process | None = None
        self._limit_set = False
        self._boundary_done = -1  # the last segment boundary the fight has processed
        self._joining: list[tuple[CombatantSpec, int]] = []
        self._sleepers: Sleepers | None = None  # who waits for its way to clear
        # SimPy's event queue (a heap of (time, priority, id, event)), to see whether
        # anything else is due before a declaration phase; None: always assume so.
        queue = getattr(self.env, "_queue", None)
        self._queue: list[tuple[float, int, int, simpy.Event]] | None = (
            queue if isinstance(queue, list) else None
        )
        self._t = 0
        self.dice.sink = self._on_draw
        self.dice.sink_each = self._on_draws
        if logger is not None:
            from segsim.log import log_subscriber

            self.subscribe(log_subscriber(logger, fight_id))

    # ------------------------------------------------------------------ public API

    def subscribe(self, callback: Subscriber, types: Iterable[str] | None = None) -> None:
        """Call ``callback(event)`` for every event (or only those of the given types)."""
        self._subscribers.append((callback, frozenset(types) if types is not None else None))

    def start(self) -> simpy.Event:
        """Start the fight's processes in the environment; returns :attr:`done`."""
        if self._started:
            raise RuntimeError("this fight has already started")
        self._started = True
        now = self.env.now
        origin = self.clock.origin
        if type(origin) is not type(now) or origin != now:  # a host's clock moved on
            self.clock = attrs.evolve(self.clock, origin=now)
        self._t = 0
        for c in self.state.combatants.values():
            _bind(c.policy, c.id, self.seed, self)
        self._emit_all(self.ruleset.begin(self.state, self.dice))
        if self._check_outcome(0):
            return self.done
        for c in self.state.combatants.values():
            if c.in_fight:
                self._register(c, 0, must=True)
                _live(self.env, self.done)
        for cid, seg in self._calls:
            self._register(self.state.combatants[cid], seg, must=True)
        self._calls.clear()
        return self.done

    def _mind_the_limit(self, seg: int) -> None:
        """Set the time-limit timer once something is due past ``max_segments`` (and only
        then: a finished fight leaves no timer in a host's queue)."""
        if seg > self.max_segments and not self._limit_set:
            self._limit_set = True
            _Scheduled(
                self.env,
                self.clock.until(self.max_segments, self.env._now),
                LIMIT,
                self.max_segments,
                self._time_limit,
            )

    @property
    def process(self) -> simpy.Process:
        """The fight as a SimPy process a host can wait on (``yield fight.process``) or
        interrupt (``fight.process.interrupt(cause)``): an interrupted fight ends cleanly
        with the outcome "interrupted", its record closed by the usual ``end`` line."""
        if self._process is None:
            if not self._started:
                self.start()
            self._process = self.env.process(self._main())
        return self._process

    def _main(self) -> Any:
        try:
            yield self.done
        except simpy.Interrupt as interrupt:
            self.interrupt(str(interrupt.cause) if interrupt.cause is not None else "")
        return self.outcome

    def interrupt(self, cause: str = "") -> None:
        """End the fight now, in the current segment, with the outcome "interrupted"."""
        if self.ended:
            return
        if not self._started:
            raise RuntimeError("a fight that has not started cannot be interrupted")
        seg = self.clock.segment_during(self.env.now)
        self._end(seg, Outcome("interrupted", None, cause))

    def event_store(self, types: Iterable[str] | None = None) -> simpy.Store:
        """A ``simpy.Store`` that receives the fight's events (all, or those types), for
        host processes that ``yield store.get()``."""
        store = simpy.Store(self.env)

        def put(event: Event) -> None:
            store.put(event)

        self.subscribe(put, types)
        return store

    def join(self, spec: CombatantSpec, at: int | None = None) -> None:
        """Bring a combatant into the running fight at the start of segment ``at`` (the
        next segment by default): reinforcements. It comes in as fighters do at the
        start (its setup, the ruleset's entry rolls) and declares in that segment."""
        _on_the_field(spec)
        if spec.id in self.state.combatants or any(j.id == spec.id for j, _ in self._joining):
            raise ValueError(f"combatant id {spec.id!r} is already in this fight")
        seg = self._boundary(at)
        self._joining.append((spec, seg))
        _Scheduled(self.env, self.clock.until(seg, self.env._now), HOST, seg, self._arrive)

    def leave(self, cid: str, reason: str = "left", at: int | None = None) -> None:
        """Take a combatant out of the fight at the start of segment ``at`` (the next by
        default): it flees, or walks off the map. Its actions in progress are dropped."""
        c = self.state.combatants.get(cid)
        if c is None or not c.in_fight:
            raise ValueError(f"no combatant {cid!r} in the fight")
        seg = self._boundary(at)
        _Departure(self.env, self.clock.until(seg, self.env._now), seg, self._depart, cid, reason)

    def _boundary(self, at: int | None) -> int:
        if not self._started:
            raise RuntimeError("start the fight first")
        if self.ended:
            raise RuntimeError("the fight is over")
        now = self.clock.segment_at(self.env.now)
        at_boundary = abs(self.env.now - self.clock.env_time(now)) < 1e-9
        # A boundary the fight has not processed yet is still to come.
        nxt = now if at_boundary and now > self._boundary_done else now + 1
        if self.env.now > self.clock.env_time(now) + 1e-9:
            nxt = now + 1
        seg = nxt if at is None else at
        if seg < nxt:
            raise ValueError(f"segment {seg} has begun or passed (next is {nxt})")
        return seg

    def _arrive(self, event: _Scheduled) -> None:
        seg = event.at
        arriving = [spec for spec, when in self._joining if when == seg]
        self._joining = [(spec, when) for spec, when in self._joining if when != seg]
        if self.ended:
            return
        self._t = seg
        for spec in arriving:
            c = Combatant(
                id=spec.id,
                side=spec.side,
                sheet=spec.sheet,
                status=self.ruleset.new_status(spec.sheet),
                policy=spec.policy,
                name=spec.name or spec.id,
                position=spec.position,
                is_pc=spec.is_pc,
                order=len(self.state.combatants),
                setup=spec.setup,
            )
            self.state.add(c)
            self._reactive[c.id] = is_reactive(spec.policy)
            self._any_reactive = any(self._reactive.values())
            self._external[c.id] = is_external(spec.policy)
            self._set_unconcerned(c.id, spec.policy)
            _bind(spec.policy, c.id, self.seed, self)
            self._emit(
                CombatantJoined(
                    seg,
                    c.id,
                    c.name,
                    c.side,
                    c.is_pc,
                    c.position,
                    policy_name(c.policy),
                    self._reactive[c.id],
                    dict(c.setup),
                    self.ruleset.sheet_data(c.sheet),
                )
            )
            enter = getattr(self.ruleset, "enter", None)
            if enter is not None:
                self._emit_all(enter(self.state, c.id, self.dice, seg))
            self._register(c, seg, must=True)
            for _, when in [call for call in self._calls if call[0] == c.id]:
                self._register(c, when, must=True)
            self._calls = [call for call in self._calls if call[0] != c.id]
            _live(self.env, self.done)
            self._notify_observers({c.id}, seg)

    def _depart(self, event: _Departure) -> None:
        cid = event.cid
        if self.ended or not self.state.combatants[cid].in_fight:
            return
        seg = event.at
        self._t = seg
        self._emit(CombatantLeft(seg, cid, event.reason))
        if self._check_outcome(seg):
            return
        if self.state.vacated:
            self._clear_ways(seg)
        # Others see the fighter go; a turn order may pass to someone else.
        self._notify_observers({cid}, seg)
        for other in self.ruleset.due(self.state, seg):
            c = self.state.combatants[other]
            if c.in_fight:
                self._register(c, seg, must=True)

    def run(self) -> Outcome:
        """Run a fight that owns its environment to its end and return the outcome."""
        if not self._own_env:
            raise RuntimeError("an embedded fight is run by its host: start() it instead")
        done = self.start()
        env = self.env
        env.run(until=done)
        # What the run leaves queued of the fight's own and nothing waits on: its end
        # (queued again by SimPy's stop, with no callback left) and its combatants'
        # processes, ended with it. Let go, so that the environment is no cycle left to
        # the garbage collector (env -> queue -> process -> env); what else is queued
        # keeps its order (its keys are unique).
        queue = env._queue
        if queue:
            kept = [entry for entry in queue if not _spent(entry[3], done)]
            if len(kept) != len(queue):
                queue[:] = kept
                heapq.heapify(queue)
        assert self.outcome is not None
        return self.outcome

    @property
    def pending(self) -> Mapping[str, Observation]:
        """Observations of the combatants whose external decisions the fight waits on."""
        return dict(self._paused.observations) if self._paused is not None else {}

    def advance(self) -> Mapping[str, Observation]:
        """Run a fight that owns its environment until a declaration phase asks a policy
        whose ``external`` attribute is true, and return those combatants' observations
        (empty once the fight has ended). Give their decisions with :meth:`submit`.

        This is how an agent trained outside the simulation (segsim.envs) drives a
        fight one declaration boundary at a time: the phase stops after the other
        policies have decided from the same state and before anything is applied, and
        SimPy processes nothing more until :meth:`submit` completes it.
        """
        if not self._own_env:
            raise RuntimeError("an embedded fight is run by its host; advance() needs its own env")
        if self._paused is not None:
            return self.pending
        if not self._started:
            self.start()
        self._stepping = True
        try:
            while not self.ended and not self._waiting():
                self.env.step()
        finally:
            self._stepping = False
        return self.pending

    def _waiting(self) -> bool:
        """Whether a phase waits on external decisions. Asked anew after each step: a
        check written inline would be narrowed by the type checker to its value before the
        loop, which the compiled build (docs/performance.md) would then trust."""
        return self._paused is not None

    def submit(self, decisions: Mapping[str, PolicyOutput]) -> None:
        """Complete the paused phase with the external decisions (one output per
        combatant; a missing one is None). An illegal one raises IllegalDeclaration
        naming the policy and segment and leaves the phase paused, unchanged."""
        paused = self._paused
        if paused is None:
            raise RuntimeError("no declaration phase is waiting for decisions")
        unknown = sorted(set(decisions) - set(paused.observations))
        if unknown:
            raise ValueError(f"no decision is asked of {', '.join(unknown)} now")
        seg = paused.segment
        decided = list(paused.decided)
        for cid in paused.observations:
            c = self.state.combatants[cid]
            # The engine's own "must act" (no action in progress), as run() passes it on:
            # a ruleset's must_act may say more (a Loss turn), which is the policy's to read.
            decls = self._declarations(c, decisions.get(cid), paused.must[cid], seg)
            if decls:
                decided.append((c, self._plan_all(c, decls, seg)))
        decided.sort(key=lambda item: item[0].order)
        self._paused = None
        self._close_phase(seg, decided)

    @property
    def segment(self) -> int:
        """The current segment (start-of-segment boundary of the environment's time)."""
        return self.clock.segment_at(self.env.now)

    def call_at(self, cid: str, segment: int) -> None:
        """Call a combatant to the declaration phase of ``segment`` whatever its policy's
        reactivity (scripted and replayed fights declare at fixed segments).

        Calls made before :meth:`start` wait for it; later ones must name a segment whose
        phase has not run yet.
        """
        joining = any(spec.id == cid for spec, _ in self._joining)
        if cid not in self.state.combatants and not joining:
            raise ValueError(f"no combatant {cid!r} in this fight")
        if not self._started or joining:
            self._calls.append((cid, segment))
            return
        if segment < self.segment:
            raise ValueError(f"segment {segment} is past (now {self.segment})")
        self._register(self.state.combatants[cid], segment, must=True)

    def replace_policy(self, cid: str, policy: Any) -> None:
        """Let ``policy`` decide for ``cid`` from the current segment on (a what-if branch).

        The combatant is called to the current segment's declaration phase, and the
        change is written in the record header (``changes``) so the record replays.
        """
        if cid not in self.state.combatants:
            raise ValueError(f"no combatant {cid!r} in this fight")
        self.state.combatants[cid].policy = policy
        reactive = self._reactive[cid] = is_reactive(policy)
        self._any_reactive = any(self._reactive.values())
        self._external[cid] = is_external(policy)
        self._set_unconcerned(cid, policy)
        if self._started:
            _bind(policy, cid, self.seed, self)
        entry = (self.segment if self._started else 0, policy_name(policy), reactive)
        if self._started:
            self._policies[cid].append(entry)
            self.call_at(cid, entry[0])
        else:
            self._policies[cid][0] = entry

    def header(self) -> dict[str, Any]:
        """The record header: format, version, ruleset and options, seed, full sheets.

        Everything in it is as it was at the start (positions too), so a replay can
        begin from it at any time.
        """
        start = {spec.id: spec.position for spec in self.specs}
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "ruleset": self.ruleset.name,
            "options": dict(self.ruleset.options),
            "seed": self.seed,
            **({"dice": "entered"} if self.dice.entered else {}),
            "name": self.name,
            "max_segments": self.max_segments,
            "combatants": [
                {
                    "id": c.id,
                    "name": c.name,
                    "side": c.side,
                    "is_pc": c.is_pc,
                    "position": list(start[c.id]),
                    **self._policy_entry(c.id),
                    "setup": dict(c.setup),
                    "sheet": self.ruleset.sheet_data(c.sheet),
                }
                for c in self.state.combatants.values()
                if c.id in start  # reinforcements come in the record's combatant.joined
            ],
        }

    def _policy_entry(self, cid: str) -> dict[str, Any]:
        """Header fields of a combatant's policy: the first one, then any replacements."""
        (_, name, reactive), *changes = self._policies[cid]
        entry: dict[str, Any] = {"policy": name, "reactive": reactive}
        if changes:
            entry["changes"] = [{"at": t, "policy": n, "reactive": r} for t, n, r in changes]
        return entry

    def _repr_svg_(self) -> str:
        """The fight's timeline as SVG, so a notebook shows it."""
        from segsim.views.timeline import timeline_svg

        return timeline_svg(self)

    def _repr_html_(self) -> str:
        """The fight viewer (map, timeline, account on one slider), so a notebook shows
        it; self-contained, in an isolated frame."""
        from segsim.views.html import notebook_html

        return notebook_html(self)

    # ------------------------------------------------------------------ processes

    def _register(self, c: Combatant, seg: int, must: bool) -> None:
        """Call ``c`` to the declaration phase of segment ``seg`` (``must``: bound to
        act). Its parameters are positional, and so are the settlement's calls: CPython
        3.11 specializes no call with keywords, nor to a function with keyword-only
        parameters."""
        members = self._phases.get(seg)
        if members is None:
            members = self._boundary_event(seg)
        cid = c.id
        if must or cid not in members:  # a call that must act is never made optional
            members[cid] = must

    def _boundary_event(self, seg: int) -> dict[str, bool]:
        """Book the event of the boundary at the start of segment ``seg``: its settlement
        and declaration phase, or only a phase if that boundary's settlement is past; and
        return who is called to its phase (nobody yet)."""
        if seg > self.max_segments:
            self._mind_the_limit(seg)
        env = self.env
        now = env._now
        if seg > self._boundary_done:
            callback, priority = self._on_boundary, SETTLE
        else:
            callback, priority = self._on_phase, DECIDE
        if _PLAIN_PHASE:
            # _Phase(env, seg, callback), without the class's call (once a boundary: a
            # call of a Python class costs about as much again as its __init__'s stores).
            event = _new_phase(_Phase)
            event.env = env
            event.callbacks = [callback]
            event.at = event._value = seg
            event._ok = True
        else:  # the compiled build's class, whose __new__ calls its __init__
            event = _Phase(env, seg, callback)
        if self._own_env:
            # Clock.until() and Environment.schedule(), without their calls: the
            # fight's own environment is SimPy's, its queue a heap (once a boundary).
            scale = self._scale
            delay = (seg * scale if scale != 1.0 else seg) - (now - self.clock.origin)
            if not delay > 0:
                delay = 0
            heappush(env._queue, (now + delay, priority, next(env._eid), event))
        else:
            env.schedule(event, priority, self.clock.until(seg, now))
        members: dict[str, bool] = {}
        event.members = self._phases[seg] = members
        return members

    # ------------------------------------------------------------------ declaration phase

    def _run_phase(self, event: _Phase) -> None:
        """A segment boundary's event, or a declaration phase's alone. At a boundary not
        yet processed (the event :meth:`_boundary_event` booked with its settlement):
        settle what completes there, then hold the declaration phase now if nothing else
        is due before a phase at this time, else after it. (The boundary and its phase in
        one call: once a boundary. A phase alone is booked only for a boundary already
        processed, so the test tells the two apart as their booking did.)"""
        seg = event.at
        if seg > self._boundary_done:
            self._boundary_done = seg
            if seg in self.state.pending:
                self._settle(seg)
            if not event.members or self.ended:
                if self._phases.get(seg) is event.members:
                    del self._phases[seg]
                return
            queue = self._queue
            if queue is None or (queue and queue[0][0] <= self.env._now and queue[0][1] <= DECIDE):
                # Something of this time comes before a declaration phase (an event a
                # subscriber triggered, a host's join): the phase waits for it, with the
                # same members (whoever is called to it meanwhile too).
                deferred = _Phase(self.env, seg, self._on_phase)
                self.env.schedule(deferred, DECIDE, 0)
                deferred.members = event.members
                return
        called = self._phases.pop(seg)
        if self.ended:
            return
        state = self.state
        state.segment = seg
        self._t = seg
        combatants = state.combatants
        members = []
        for cid in called:
            c = combatants[cid]
            if c.in_fight:
                members.append(c)
        n = len(members)
        if n == 2:
            # members.sort(key=by_order) for two, without its calls (most phases of more
            # than one): swapped only if the second comes first, as a stable sort would.
            first_c, second_c = members
            if second_c.order < first_c.order:
                members.reverse()
        elif n > 2:
            members.sort(key=by_order)
        ruleset = self.ruleset
        # Consequences of the previous resolution (a lock after a strike) start first.
        if self._forces and (n <= _MANY_FORCED or not self._force_many(members, seg)):
            when = self._forced_when
            for c in members:
                if when is not None and not getattr(c.status, when):
                    continue  # nothing imposed: not asked (once a fighter and phase)
                forced = ruleset.forced(state, c.id, seg)
                if forced:
                    specs: list[Cancel] | list[ActionSpec]
                    imposed = forced[0]
                    if len(forced) == 1 and type(imposed) is Declaration:
                        # _apply(c, _plan_one(c, imposed, seg, True), seg), without their
                        # calls (most of them: one checked declaration, nothing cancelled
                        # in this segment); anything else, or what the rules refuse, by
                        # _plan_one(), which hands it to _plan_all() to name the error.
                        cancelled = state.cancelled_in
                        if imposed.checked and not (cancelled and cancelled.get(c.id) == seg):
                            try:
                                first: ActionSpec | None = ruleset.plan(
                                    state, c.id, imposed, seg, _NO_PLANS
                                )
                            except (
                                IllegalDeclaration,
                                TypeError,
                                ValueError,
                                KeyError,
                                IndexError,
                                OverflowError,
                            ):
                                first = None
                            if first is not None:
                                first.forced = first.public = True
                                first.declaration = imposed
                                self._start(c, first, seg)
                                continue
                        specs = self._plan_one(c, imposed, seg, True)
                    else:
                        specs = self._plan_all(c, forced, seg, True)  # (forced: positional)
                    self._apply(c, specs, seg)
        # Everyone decides from the same state; nothing is applied until all are checked.
        decided: _Decided = []
        external: dict[str, Observation] | None = None  # made when an external policy is met
        musts: dict[str, bool] | None = None  # likewise
        reactive = self._reactive
        externals = self._external
        unconcerned = self._unconcerned
        cancelled_in = state.cancelled_in  # (empty until someone cancels; never replaced)
        for c in members:
            cid = c.id
            must = not c.actions
            if not must:
                if not reactive[cid] and not called[cid]:
                    continue
                if unconcerned:  # its policy may say it would declare nothing new
                    hook = unconcerned.get(cid)
                    if hook is not None and hook(ruleset, state, cid, seg, called[cid]):
                        continue
            obs = ruleset.observe(state, cid, seg, must)
            if externals[cid]:
                if external is None or musts is None:
                    external, musts = {}, {}
                external[cid] = obs
                musts[cid] = must
                continue
            out = c.policy.decide(obs)
            if type(out) is Declaration:
                # _plan_one(c, out, seg), without its call (most decisions): a checked
                # declaration of a fighter who cancelled nothing in this segment, planned
                # at once; anything else, or whatever the rules refuse, by _plan_all().
                if out.checked and not (cancelled_in and cancelled_in.get(cid) == seg):
                    try:
                        spec: ActionSpec | None = ruleset.plan(state, cid, out, seg, _NO_PLANS)
                    except (
                        IllegalDeclaration,
                        TypeError,
                        ValueError,
                        KeyError,
                        IndexError,
                        OverflowError,
                    ):
                        spec = None
                    if spec is not None and (
                        spec.duration is None or spec.duration <= MAX_DURATION
                    ):
                        spec.declaration = out
                        decided.append((c, spec))  # (no list: applied below without _apply)
                        continue
                decided.append((c, self._plan_all(c, (out,), seg)))
                continue
            if out is None and not must:
                continue  # nothing new (over a third of the decisions of a duel)
            decls = self._declarations(c, out, must, seg)
            if len(decls) == 1:  # one declaration in a list, or the idling of who must act
                d = decls[0]
                if type(d) is Declaration and d.checked:
                    decided.append((c, self._plan_one(c, d, seg)))
                    continue
            if decls:
                decided.append((c, self._plan_all(c, decls, seg)))
        if external:
            if not self._stepping:
                raise RuntimeError(
                    f"{', '.join(external)}: an external policy decides through "
                    "Fight.advance() and Fight.submit(), not run()"
                )
            assert musts is not None
            self._paused = _Paused(seg, decided, external, musts)
            return
        # _close_phase(seg, decided), without its call (once a phase).
        actor: Combatant | None = None  # the first who started what others see
        observable: set[str] | None = None  # everyone who did, once there are two
        watched = self._any_reactive
        for c, items in decided:
            if type(items) is list:
                if not self._apply(c, items, seg) or not watched:
                    continue
            else:
                # _apply(c, [action], seg), without its call (most decisions): the one
                # action planned from a checked declaration (an ActionSpec, not a Cancel).
                action: ActionSpec = items  # type: ignore[assignment]
                actions = c.actions
                if actions:
                    channel = action.channel
                    for old in actions:  # (no call when none ends)
                        if old.continuous and old.channel == channel:
                            self._end_channel(actions, channel)
                            break
                cid = c.id
                action.id = state.next_action_id
                action.actor = cid
                action.start = action.t = seg
                if action.continuous:
                    action.visible = False
                state.next_action_id += 1
                actions.append(action)
                if self._told and action.kind in self._told:
                    ruleset.started(state, action)
                duration = action.duration
                if duration is not None:
                    end = seg + duration
                    pending = state.pending
                    batch = pending.get(end)
                    if batch is None:
                        pending[end] = [action]
                    else:
                        batch.append(action)
                    at_end = self._phases.get(end)
                    if at_end is None:
                        if self._plain_book and self._boundary_done < end <= self.max_segments:
                            # _boundary_event(end), without its call (an action that ends where
                            # no boundary is booked yet): its event, with its settlement.
                            env = self.env
                            now = env._now
                            booked = _new_phase(_Phase)
                            booked.env = env
                            booked.callbacks = [self._on_boundary]
                            booked.at = booked._value = end
                            booked._ok = True
                            delay = end - (now - self.clock.origin)
                            if not delay > 0:
                                delay = 0
                            heappush(env._queue, (now + delay, SETTLE, next(env._eid), booked))
                            at_end = {}
                            booked.members = self._phases[end] = at_end
                        else:
                            at_end = self._boundary_event(end)
                    if cid not in at_end:
                        at_end[cid] = False
                    if not action.visible and "clear" in action.params:
                        self._sleep(c, action)
                state.version += 1
                self.history.append(action)  # the stamped action is its action.declared
                if self._subscribers:  # (no iterator over an empty list: most fights)
                    for callback, types in self._subscribers:
                        if types is None or action.TYPE in types:
                            callback(action)
                if not action.visible or not watched:
                    continue
            if actor is None:
                actor = c  # (the first: most phases start what others see of one alone)
            elif observable is None:
                observable = {actor.id, c.id}
            else:
                observable.add(c.id)
        if actor is not None:
            if observable is None and self._awareness is None:
                # _notify_observers(), without its calls (most phases that start what
                # others see: one actor, whom every opponent sees): the reactive
                # opponents are called to the next phase, not bound to act.
                nxt = seg + 1
                side = actor.side
                found = state._against.get(side)  # FightState.against(), without its call
                sighted = self._sighted
                later: dict[str, bool] | None = None  # who is called to the next phase
                for o in found if found is not None else state.against(side):
                    ocid = o.id
                    if reactive[ocid]:
                        sighted[ocid] = nxt
                        if later is None:  # _register(o, nxt, False), without its call
                            later = self._phases.get(nxt)
                            if later is None:
                                later = self._boundary_event(nxt)
                        if ocid not in later:
                            later[ocid] = False
            else:
                self._notify_observers(observable or {actor.id}, seg + 1)
        if not state.pending and not any(self._phases.values()):
            self._end(seg, Outcome("stalemate", None))

    def _declarations(
        self, c: Combatant, out: PolicyOutput, must: bool, seg: int
    ) -> list[DeclarationLike]:
        """A policy's output as a list; one who must act and declares nothing idles."""
        if out is None:
            decls: list[Any] = []
        elif isinstance(out, list):
            decls = out
        elif isinstance(out, tuple):
            decls = list(out)
        else:
            decls = [out]
        if must and not decls:
            decls = [self.ruleset.idle(self.state, c.id, seg)]
        return decls

    def _close_phase(self, seg: int, decided: _Decided) -> None:
        """Apply a phase's checked declarations together, then wake who observes them.
        Everyone called who had to act now has an action: the declaration of one who
        must act is never empty (:meth:`_declarations` idles it), and each planned
        action is added to its fighter's."""
        observable: set[str] | None = None  # made when a reactive policy may see someone
        watched = self._any_reactive  # who started what matters only to reactive policies
        for c, items in decided:
            if not isinstance(items, list):
                items = [items]  # one action (see _Decided)
            if self._apply(c, items, seg) and watched:
                if observable is None:
                    observable = set()
                observable.add(c.id)
        if observable:
            self._notify_observers(observable, seg + 1)
        if not self.state.pending and not any(self._phases.values()):
            self._end(seg, Outcome("stalemate", None))

    def _plan_all(
        self, c: Combatant, decls: Sequence[DeclarationLike], seg: int, forced: bool = False
    ) -> list[Cancel] | list[ActionSpec]:
        """Check one combatant's declarations; raise IllegalDeclaration before any change.

        Either cancellations only (returned as they are), or the ruleset's verdict on each
        declaration: a planned action that carries the declaration it came from. No two
        continuous actions (waits) in one channel at once, and no declared action lasts
        longer than :data:`MAX_DURATION` (the rules' own may). (``forced`` is not
        keyword-only, so that its call at each decision is specialized, as
        :meth:`_register`'s.)"""
        try:
            cancels = 0
            # Read as plain objects until checked: a policy may return anything, and
            # the compiled build would refuse a wrong type before the check names it.
            given: Sequence[object] = decls  # (not cast(): a call per declaration)
            for item in given:
                if type(item) is not Declaration and isinstance(item, Cancel):
                    cancels += 1
            state = self.state
            cancelled = state.cancelled_in  # empty until someone cancels
            if (cancels and cancels != len(decls)) or (
                not cancels and cancelled and cancelled.get(c.id) == seg
            ):
                raise IllegalDeclaration(
                    "no new action may begin in the segment of a cancellation",
                    rule="RinKaNou, Échelonnement des actions dans le temps",
                )
            if cancels:
                return self._check_cancels(c, cast("Sequence[Cancel]", decls), seg)
            planned: list[ActionSpec] = []
            ruleset = self.ruleset
            for item in given:
                if type(item) is not Declaration or not item.checked:
                    problem = declaration_problem(item)
                    if problem is not None:
                        raise IllegalDeclaration(problem, rule="declarations")
                    assert isinstance(item, Declaration)  # not a Cancel: none was counted
                d = item
                try:
                    spec: ActionSpec = ruleset.plan(state, c.id, d, seg, planned)
                except (TypeError, ValueError, KeyError, IndexError, OverflowError) as exc:
                    # A value of the wrong type that the ruleset's checks did not expect.
                    raise IllegalDeclaration(
                        f"{d!r} has a value of the wrong type ({type(exc).__name__}: {exc})",
                        rule="declarations",
                    ) from None
                if (
                    planned
                    and spec.continuous
                    and any(p.continuous and p.channel == spec.channel for p in planned)
                ):
                    # The second would end the first at once: one of them says it all.
                    raise IllegalDeclaration(
                        f"two continuous actions ({spec.kind}) in the {spec.channel} "
                        "declared together",
                        rule="declarations",
                    )
                if forced:
                    spec.forced = spec.public = True
                elif spec.duration is not None and spec.duration > MAX_DURATION:
                    raise IllegalDeclaration(
                        f"{d.kind} would last {spec.duration} segments (at most {MAX_DURATION:,})",
                        rule="declarations",
                    )
                spec.declaration = d
                planned.append(spec)
        except IllegalDeclaration as exc:
            policy = None if forced else policy_name(c.policy)
            raise exc.located(actor=c.id, segment=seg, policy=policy) from None
        return planned

    def _plan_one(
        self, c: Combatant, d: Declaration, seg: int, forced: bool = False
    ) -> list[ActionSpec]:
        """``_plan_all(c, (d,), seg, forced)`` for one declaration (most decisions, and
        most of what the rules impose), with less to look over when it is a checked
        declaration and the fighter has cancelled nothing in this segment; whatever the
        rules refuse, or a value of the wrong type, is planned again by
        :meth:`_plan_all`, which raises the error it names (a refused plan changes
        nothing)."""
        cancelled = self.state.cancelled_in
        if not d.checked or (cancelled and cancelled.get(c.id) == seg):
            return self._plan_all(c, (d,), seg, forced)  # type: ignore[return-value]
        try:
            spec: ActionSpec = self.ruleset.plan(self.state, c.id, d, seg, _NO_PLANS)
        except (IllegalDeclaration, TypeError, ValueError, KeyError, IndexError, OverflowError):
            return self._plan_all(c, (d,), seg, forced)  # type: ignore[return-value]
        if forced:
            spec.forced = spec.public = True
        elif spec.duration is not None and spec.duration > MAX_DURATION:
            return self._plan_all(c, (d,), seg)  # type: ignore[return-value]
        spec.declaration = d
        return [spec]

    def _check_cancels(self, c: Combatant, cancels: Sequence[Cancel], seg: int) -> list[Cancel]:
        for i, cancel in enumerate(cancels):
            problem = declaration_problem(cancel)
            if problem is not None:
                raise IllegalDeclaration(problem, rule="declarations")
            if cancels.index(cancel) != i:
                raise IllegalDeclaration(
                    f"action #{cancel.action} is cancelled twice", rule="cancellation"
                )
            self._check_cancel(c, cancel, seg)
        return list(cancels)

    def _check_cancel(self, c: Combatant, cancel: Cancel, seg: int) -> None:
        action = next((a for a in c.actions if a.id == cancel.action), None)
        if action is None:
            raise IllegalDeclaration(
                f"no action #{cancel.action} of {c.id} is in progress", rule="cancellation"
            )
        if action.last is not None and seg >= action.last:
            raise IllegalDeclaration(
                f"{action.kind} #{action.id} is in its last segment ({action.last}) and can "
                "no longer be cancelled",
                rule="RinKaNou, Échelonnement des actions dans le temps",
            )
        self.ruleset.check_cancel(self.state, action, seg)

    def _apply(self, c: Combatant, items: Sequence[Cancel | ActionSpec], seg: int) -> bool:
        """Start or cancel actions; True if any of it is observable by others."""
        observable = False
        state = self.state
        for item in items:
            if type(item) is not Action and isinstance(item, Cancel):
                old = next(a for a in c.actions if a.id == item.action)
                new = old.cancelled_at(seg)
                self._unschedule(old)
                c.actions = [new if a.id == old.id else a for a in c.actions]
                self._schedule(new)
                self._register(c, seg + 1, must=False)
                state.cancelled_in[c.id] = seg
                self._emit(ActionCancelled(t=seg, actor=c.id, action=old.id, kind=old.kind))
                observable = True
                continue
            if self._start(c, item, seg):
                observable = True
        return observable

    def _force_many(self, members: list[Combatant], seg: int) -> bool:
        """What the rules impose on the many fighters called to a phase (more than
        :data:`_MANY_FORCED`: a battle's round start calls a thousand, most of whom are
        made to wait), asked in one call when the rules offer it: ``forced_all(state,
        members, segment)`` answers for each fighter in turn either an action planned as
        ``plan`` would plan what ``forced`` imposes (its ``declaration`` set), started here
        as :meth:`_run_phase` starts a forced action, or the declarations ``forced`` would
        return, planned here as :meth:`_run_phase` plans them, at that fighter's turn;
        or None for no answer. False, nothing done, when the rules offer no such call or
        give no answer (the phase then asks ``forced`` of each fighter)."""
        forced_all = getattr(self.ruleset, "forced_all", None)
        if forced_all is None or self._forced_when is not None:
            return False
        state = self.state
        answers: Sequence[ActionSpec | Sequence[Declaration]] | None = forced_all(
            state, members, seg
        )
        if answers is None:
            return False
        cancelled = state.cancelled_in
        pending = state.pending
        phases = self._phases
        told = self._told
        # What each start below adds to the fight, kept here while only these starts
        # happen and handed over in one go (_flush): the next action's id, the state's
        # version, the history's new actions, the batch and the phase of the boundary
        # where they end (most of them the same: a thousand awaits to the round's end).
        # Only without subscribers, who are told of each action as it starts.
        batched = not self._subscribers
        next_id = state.next_action_id
        started: list[Action] = []
        last_end = -1
        booked: list[Action] = []
        called: dict[str, bool] = {}
        for c, imposed in zip(members, answers, strict=True):
            if type(imposed) is Action:
                action: ActionSpec = imposed
                if not (cancelled and cancelled.get(c.id) == seg):
                    action.forced = action.public = True
                    actions = c.actions
                    if actions or not batched or (told and action.kind in told):
                        # (continuous actions of its channel to end, subscribers or the
                        # rules to tell: by _start, in the fight's own order)
                        next_id = self._flush(next_id, started)
                        self._start(c, action, seg)
                        next_id = state.next_action_id
                        last_end = -1
                        continue
                    # _start(c, action, seg), without its call (a fighter with no action
                    # in progress: a thousand at a battle's round start).
                    cid = c.id
                    action.id = next_id
                    next_id += 1
                    action.actor = cid
                    action.start = action.t = seg
                    if action.continuous:
                        action.visible = False
                    actions.append(action)
                    duration = action.duration
                    if duration is not None:
                        end = seg + duration
                        if end != last_end:
                            found = pending.get(end)
                            if found is None:
                                found = pending[end] = []
                            booked = found
                            found_called = phases.get(end)
                            if found_called is None:
                                found_called = self._boundary_event(end)
                            called = found_called
                            last_end = end
                        booked.append(action)
                        if cid not in called:
                            called[cid] = False
                        if not action.visible and "clear" in action.params:
                            self._sleep(c, action)
                    started.append(action)
                    continue
                assert action.declaration is not None
                imposed = (action.declaration,)
            decls: Sequence[Declaration] = imposed  # type: ignore[assignment]
            if decls:
                next_id = self._flush(next_id, started)
                specs: list[Cancel] | list[ActionSpec]
                if len(decls) == 1 and type(decls[0]) is Declaration:
                    specs = self._plan_one(c, decls[0], seg, True)
                else:
                    specs = self._plan_all(c, decls, seg, True)
                self._apply(c, specs, seg)
                next_id = state.next_action_id
                last_end = -1
        self._flush(next_id, started)
        return True

    def _flush(self, next_id: int, started: list[Action]) -> int:
        """Hand over what :meth:`_force_many`'s batched starts kept: the next action's id,
        the state's version (once a start, as :meth:`_start` counts it) and the history's
        new actions; ``started`` left empty. Returns the next id."""
        state = self.state
        state.next_action_id = next_id
        if started:
            state.version += len(started)
            self.history.extend(started)
            started.clear()
        return next_id

    def _start(self, c: Combatant, action: ActionSpec, seg: int) -> bool:
        """Start ``action``, planned for ``c`` in the phase of ``seg``: it ends the
        continuous actions of its channel, is stamped (its id, actor and start), booked
        for settlement at its end and recorded as its ``action.declared`` event; True if
        others see it. (:meth:`_run_phase` does the same inline for the one action of a
        checked declaration, most decisions.)"""
        state = self.state
        actions = c.actions
        if actions:
            channel = action.channel
            for old in actions:  # (no call when none ends)
                if old.continuous and old.channel == channel:
                    self._end_channel(actions, channel)
                    break
        # Action.stamp() and _record(), without their calls (once an action).
        cid = c.id
        action.id = state.next_action_id
        action.actor = cid
        action.start = action.t = seg
        if action.continuous:
            action.visible = False
        state.next_action_id += 1
        actions.append(action)
        if self._told and action.kind in self._told:
            self.ruleset.started(state, action)
        duration = action.duration
        if duration is not None:
            # _schedule(action, seg + duration, c), without its call (once an action).
            end = seg + duration
            pending = state.pending
            batch = pending.get(end)
            if batch is None:
                pending[end] = [action]
            else:
                batch.append(action)
            members = self._phases.get(end)
            if members is None:
                if self._plain_book and self._boundary_done < end <= self.max_segments:
                    # _boundary_event(end), without its call (an action that ends where no
                    # boundary is booked yet): its event, with its settlement.
                    env = self.env
                    now = env._now
                    booked = _new_phase(_Phase)
                    booked.env = env
                    booked.callbacks = [self._on_boundary]
                    booked.at = booked._value = end
                    booked._ok = True
                    delay = end - (now - self.clock.origin)
                    if not delay > 0:
                        delay = 0
                    heappush(env._queue, (now + delay, SETTLE, next(env._eid), booked))
                    members = {}
                    booked.members = self._phases[end] = members
                else:
                    members = self._boundary_event(end)
            if cid not in members:
                members[cid] = False
            if not action.visible and "clear" in action.params:
                self._sleep(c, action)
        # The stamped action is its action.declared event.
        state.version += 1
        self.history.append(action)
        if self._subscribers:  # (no iterator over an empty list: most fights)
            for callback, types in self._subscribers:
                if types is None or action.TYPE in types:
                    callback(action)
        return action.visible

    def _schedule(
        self, action: Action, end: int | None = None, caller: Combatant | None = None
    ) -> None:
        """Book ``action``'s settlement at its ``end`` (given when the caller has it);
        and call ``caller``, if given, to the declaration phase of that boundary, not
        bound to act (as :meth:`_register` would, in the same call: once an action)."""
        if end is None:
            end = action.end
            assert end is not None
        pending = self.state.pending
        batch = pending.get(end)
        if batch is None:
            pending[end] = [action]
        else:
            batch.append(action)
            if caller is None:
                return  # the boundary was booked with the batch
        members = self._phases.get(end)
        if members is None:
            members = self._boundary_event(end)
        if caller is not None and caller.id not in members:
            members[caller.id] = False

    def _end_channel(self, actions: list[Action], channel: str) -> None:
        """End the continuous actions (waits) of ``channel`` among a fighter's
        ``actions``, as an action starting on that channel does: each unbooked from its
        boundary and taken out of the list."""
        for old in actions[:]:  # a copy, not a comprehension's frame
            if old.continuous and old.channel == channel:
                self._unschedule(old)
                actions.remove(old)

    def _unschedule(self, action: Action) -> None:
        """Drop ``action`` (in progress, scheduled) from its batch: marked as dropped, and
        skipped when the batch is settled (:meth:`_settle`), rather than looked for in a
        batch that may hold hundreds."""
        end = action.end
        if end is None or end not in self.state.pending:
            return
        # Kept by identity (an action's equality compares its fields), and held, so that
        # its id names no other object until its batch is settled.
        marks = self.state.dropped.get(end)
        if marks is None:
            self.state.dropped[end] = {id(action): action}
        else:
            marks[id(action)] = action

    def _observers(self, actors: Iterable[str]) -> list[Combatant]:
        """The opponents of ``actors`` who see what they do (RULES-NOTES, "Waiting": an
        opponent starts, cancels or resolves an action): all of them, or those within
        the ruleset's ``awareness`` radius (metres), found through the spatial grid so
        that a battle's size does not weigh on each event. Do not modify the list."""
        radius = self._awareness
        combatants = self._combatants
        if radius is None:
            side = None
            for cid in actors:
                other = combatants[cid].side
                if side is None:
                    side = other
                elif other != side:
                    return self.state.against(None)
            if side is None:
                return []
            found = self.state._against.get(side)  # FightState.against(), without its call
            return found if found is not None else self.state.against(side)
        # (Found in the grids' order or the fighters' as it comes: whoever finds them
        # calls them to a phase, whose members are taken in the fight's order.)
        seen: dict[str, Combatant] = {}
        grids = self.state.side_grids
        dist = math.dist
        for cid in actors:
            actor = combatants[cid]
            here = actor.position
            for side, grid in grids.items():
                if side == actor.side:  # only the other sides' grids: allies never count
                    continue
                where = grid.where
                if len(where) <= SMALL_NEAR:  # a look at each: cheaper than the cells
                    for other, at in where.items():
                        if other not in seen and dist(here, at) <= radius:
                            seen[other] = combatants[other]
                else:
                    for other in grid.near(here, radius):
                        if other not in seen:
                            seen[other] = combatants[other]
        return list(seen.values())

    def _notify_observers(self, actors: set[str], seg: int) -> None:
        if not self._any_reactive:
            return  # only reactive policies are called by what they see
        reactive = self._reactive
        for c in self._observers(actors):
            if reactive[c.id] and (len(actors) > 1 or c.id not in actors):
                self._sighted[c.id] = seg
                self._register(c, seg, False)

    def _set_unconcerned(self, cid: str, policy: object) -> None:
        """Keep (or forget) the :func:`unconcerned_hook` of ``cid``'s new policy."""
        hook = unconcerned_hook(policy)
        if hook is None:
            self._unconcerned.pop(cid, None)
        else:
            self._unconcerned[cid] = hook

    def _sleep(self, c: Combatant, action: Action) -> None:
        """``c`` waits until its way clears (``action`` has a ``clear`` radius) or until
        its end: watch who moves near it from now on (RULES-NOTES, "Waiting")."""
        if self._sleepers is None:
            self._sleepers = Sleepers()
            self.state.vacated = []
        self._sleepers.add(c, action)

    def _clear_ways(self, seg: int) -> None:
        """End the waits of those whose way may have cleared in segment ``seg`` (someone
        within their radius moved away or left the fight) and call them to the next
        declaration phase: the wait counts as resolved in ``seg``."""
        vacated = self.state.vacated
        assert vacated is not None and self._sleepers is not None
        woken = self._sleepers.woken(vacated, self.state.combatants)
        vacated.clear()
        for c, action, by in woken:
            self._emit(WaitEnded(seg, c.id, action.id, by))
            self._register(c, seg + 1, True)

    def sighted(self, cid: str, segment: int) -> bool:
        """Whether ``cid`` (a reactive policy's combatant) is called to the phase of
        ``segment`` by something it saw: an opponent started, cancelled or resolved an
        action (a process policy raises :class:`segsim.process.Threat` then)."""
        return self._sighted.get(cid) == segment

    def check(self, cid: str, declarations: Sequence[DeclarationLike]) -> None:
        """Raise IllegalDeclaration (naming the rule, fighter, segment and policy) if
        ``cid`` may not declare these in the current declaration phase; nothing changes.
        What a process policy asks before answering, so its generator can catch it."""
        c = self.state.combatants[cid]
        self._plan_all(c, declarations, self.state.segment)

    # ------------------------------------------------------------------ settlement

    def _settle(self, time: int) -> None:
        """Resolve the actions completing at simulation ``time`` (in segment time - 1)."""
        state = self.state
        batch = state.pending.pop(time, None)
        if self.ended or not batch:
            return
        marks = state.dropped.pop(time, None) if state.dropped else None
        if marks and len(batch) > _MANY_FORCED:  # (a battle's thousand waits)
            batch = _kept(batch, marks)
            if not batch:
                return
            marks = None
        if marks:  # what was dropped from the batch (_unschedule) is not settled
            kept = []
            for a in batch:
                if marks.get(id(a)) is not a:
                    kept.append(a)
            if not kept:
                return
            batch = kept
        seg = time - 1
        self._t = seg
        combatants = self._combatants
        state.version += 1  # actions in progress change even if no event follows
        autonomous = state.autonomous
        for a in batch:
            if not autonomous or autonomous.pop(a.id, None) is None:
                # Combatant.finish(a), without its call (once an action).
                c = combatants[a.actor]
                actions = c.actions
                if actions and actions[0] is a:  # the oldest in progress, most often
                    del actions[0]
                else:
                    aid = a.id
                    i = 0
                    for other in actions:
                        if other.id == aid:
                            del actions[i]
                            break
                        i += 1  # noqa: SIM113
                recent = c.recent
                if recent:
                    horizon = a.start
                    if actions:  # (no iterator over nothing)
                        for other in actions:
                            if other.start < horizon:
                                horizon = other.start
                    drop = 0
                    for other in recent:
                        d = other.duration
                        if d is None or other.start + d >= horizon:
                            break
                        drop += 1
                    if drop:
                        del recent[:drop]
                recent.append(a)
        n = len(batch)
        if n > 1:
            ranks = self._ranks
            if n == 2 and ranks is not None:
                # batch.sort(key=self._completion_order) for two actions, without its
                # calls (most batches of more than one): the rank of each kind, then the
                # fighters' order, then the ids (never equal).
                first, second = batch
                rest = self._rest
                r1, r2 = ranks.get(first.kind, rest), ranks.get(second.kind, rest)
                if r2 < r1 or (
                    r2 == r1
                    and (combatants[second.actor].order, second.id)
                    < (combatants[first.actor].order, first.id)
                ):
                    batch.reverse()
            else:
                batch.sort(key=self._completion_order or self._completion_key())
        events = self.ruleset.resolve(state, seg, batch, self.dice)
        if events:
            # _emit_all(events), without its call (once a settlement that tells anything),
            # and without a look for subscribers at each event when there are none.
            history = self.history
            subscribers = self._subscribers
            spawned = state.spawned  # (a list the rules append to, never another)
            if subscribers:
                for event in events:
                    state.version += 1
                    if event.CHANGES_STATE:
                        event.apply(state)
                    history.append(event)
                    if spawned:
                        for action in spawned:
                            self._schedule(action)
                        spawned.clear()
                    for callback, types in subscribers:
                        if types is None or event.TYPE in types:
                            callback(event)
            else:
                for event in events:
                    state.version += 1
                    if event.CHANGES_STATE:
                        event.apply(state)
                    history.append(event)
                    if spawned:
                        for action in spawned:
                            self._schedule(action)
                        spawned.clear()
        state.segment = time
        # _check_outcome(), without its call; and without asking the rules again when
        # their outcome is BaseRuleset's (who is left on which side) and nobody has come
        # or gone since they last said the fight goes on (most settlements).
        if state.roster != self._quiet_roster:
            outcome = self.ruleset.outcome(state)
            if outcome is not None:
                self._end(seg, outcome)
                return
            if self._plain_outcome:
                self._quiet_roster = state.roster
        if state.vacated:
            self._clear_ways(seg)
        observable = False
        if n == 1:
            a = batch[0]
            actors: Collection[str] = (a.actor,)
            observable = a.visible
            actor = combatants[a.actor]
            if not actor.in_fight:
                observers: Sequence[Combatant] = ()
            elif self._awareness is None:  # what _observers() finds, without its call
                found = state._against.get(actor.side)  # FightState.against()'s list
                observers = found if found is not None else state.against(actor.side)
            else:
                observers = self._observers(actors)
        else:
            # One pass (no comprehension frames): who acted, those still in the fight, and
            # their side (mixed: more than one).
            seen: set[str] = set()
            staying: list[str] = []
            side: str | None = None
            mixed = False
            for a in batch:
                if a.visible:
                    observable = True
                cid = a.actor
                if cid not in seen:
                    seen.add(cid)
                    c = combatants[cid]
                    if c.in_fight:
                        staying.append(cid)
                        if side is None:
                            side = c.side
                        elif c.side != side:
                            mixed = True
            actors = seen
            if self._awareness is None:
                if side is None:
                    observers = ()
                else:
                    # What _observers() finds, without its call: everyone in the fight
                    # when the actors are of more than one side, else that side's
                    # opponents.
                    if mixed:
                        side = None
                    found = state._against.get(side)  # FightState.against(), no call
                    observers = found if found is not None else state.against(side)
            elif (observable and self._any_reactive) or len(staying) * 10 < len(
                state.against(None)
            ):
                observers = self._observers(staying)
            else:
                # A tenth of the fight or more acted, and nothing it did is seen or
                # nobody is reactive: of those around the actors, only one with no action
                # is called (below). With none in the fight but the actors (a battle's
                # round: a thousand waits end together), nobody is looked for around
                # them (a grid search each): a look at each fighter costs less.
                observers = ()
                for c in state.against(None):
                    if not c.actions and c.id not in seen:
                        observers = self._observers(staying)
                        break
        reactive = self._reactive
        register = self._register
        sighted = self._sighted
        for c in observers:
            cid = c.id
            if observable and reactive[cid]:
                sighted[cid] = time
            if not c.in_fight or cid in actors:
                continue  # whose own action resolved is called just below
            if not c.actions:
                register(c, time, True)
            elif observable and reactive[cid]:
                register(c, time, False)
        members = self._phases.get(time)  # who is called to this boundary's phase
        for cid in actors:
            c = combatants[cid]
            if c.in_fight:
                # Whose own action resolved and who is left waiting at most is called,
                # reactive or not: a wait lasts only until the fighter decides again.
                must = True
                if c.actions:  # (no iterator over nothing)
                    for a in c.actions:
                        if not a.continuous:
                            must = False
                            break
                if members is None:
                    register(c, time, must)
                elif must or cid not in members:  # _register(), without its call
                    members[cid] = must
        # Turn-based rulesets pass the initiative: whoever the rules call now declares.
        if self._turns:
            for cid in self.ruleset.due(state, time):
                c = combatants[cid]
                if c.in_fight:
                    register(c, time, True)

    # ------------------------------------------------------------------ events & end

    def _on_draw(self, die: str, value: int, purpose: str, actor: str | None) -> DieRolled:
        if _DIE_TWIN is not None:
            # die_rolled(...), without its call (once a draw, the pure build): its maker's
            # stores on a new object of the class's twin, made a DieRolled again.
            made: Any = _new_die(_DIE_TWIN)
            made.t = self._t
            made.actor = actor
            made.die = die
            made.value = value
            made.purpose = purpose
            made.__class__ = DieRolled
            event: DieRolled = made
        else:
            event = die_rolled(self._t, actor, die, value, purpose)  # (see die_rolled)
        # _record(event), without its call (once a draw).
        self.state.version += 1
        self.history.append(event)
        if self._subscribers:  # (no iterator over an empty list: most fights)
            for callback, types in self._subscribers:
                if types is None or event.TYPE in types:
                    callback(event)
        return event

    def _on_draws(
        self, die: str, faces: list[int], purpose: str, actors: Sequence[str | None]
    ) -> list[DrawLike]:
        """:meth:`_on_draw` for each draw of one ``Dice.roll_each`` (the faces of a
        round's initiative or of a tie-break's roll, one for each fighter in turn), in
        one call: the same events, recorded and handed to the subscribers in the same
        order."""
        t = self._t
        state = self.state
        history = self.history
        subscribers = self._subscribers
        if not subscribers:
            # Nobody to hand each event to before the next is made (most fights): the
            # events made in one pass, then recorded and counted at once, as the loop
            # below would one by one (nothing reads the version in between).
            events = [
                die_rolled(t, actor, die, value, purpose)
                for value, actor in zip(faces, actors, strict=True)
            ]
            state.version += len(events)
            history.extend(events)
            return cast("list[DrawLike]", events)  # (its events are draws: no copy)
        made: list[DrawLike] = []
        for value, actor in zip(faces, actors, strict=True):
            event = die_rolled(t, actor, die, value, purpose)  # (see die_rolled)
            state.version += 1
            history.append(event)
            for callback, types in subscribers:
                if types is None or event.TYPE in types:
                    callback(event)
            made.append(event)
        return made

    def _emit(self, event: Event) -> None:
        self._emit_all((event,))

    def _emit_all(self, events: Iterable[Event]) -> None:
        """Apply each event to the state in turn, record it, book the actions it started
        and hand it to the subscribers before the next one is applied."""
        state = self.state
        history = self.history
        subscribers = self._subscribers
        spawned = state.spawned  # (a list the rules append to, never another)
        for event in events:
            state.version += 1
            if event.CHANGES_STATE:
                event.apply(state)
            history.append(event)
            if spawned:
                for action in spawned:
                    self._schedule(action)
                spawned.clear()
            if subscribers:  # (no iterator over an empty list: most fights)
                for callback, types in subscribers:
                    if types is None or event.TYPE in types:
                        callback(event)

    def _record(self, event: Event) -> None:
        """:meth:`_emit` for the engine's own events that change nothing by applying
        (the engine has made the change itself)."""
        self.state.version += 1
        self.history.append(event)
        for callback, types in self._subscribers:
            if types is None or event.TYPE in types:
                callback(event)

    def _completion_key(self) -> Callable[[Action], tuple[Any, ...]]:
        """The sort key of actions completing together (see :func:`_completion_order`),
        made once per fight, when first needed."""
        ruleset = self.ruleset
        order_table = getattr(ruleset, "order_table", None)
        key = self._completion_order = _completion_order(
            ruleset.order_key if _class_facts(type(ruleset))[4] else None,
            self._combatants,
            order_table() if order_table is not None else None,
        )
        return key

    def _check_outcome(self, seg: int) -> bool:
        outcome = self.ruleset.outcome(self.state)
        if outcome is None:
            return False
        self._end(seg, outcome)
        return True

    def _time_limit(self, event: _Scheduled) -> None:
        if not self.ended:
            self._end(self.max_segments, Outcome("time limit", None))

    def _end(self, seg: int, outcome: Outcome) -> None:
        self.ended = True
        self.outcome = outcome
        survivors = tuple(c.id for c in self.state.combatants.values() if c.in_fight)
        self._emit(FightEnded(seg, None, outcome.result, outcome.winner, survivors))
        self._let_go()
        self.done.succeed(outcome)
        if isinstance(self.dice, LoadedDice):  # one behaviour with a fight script's dice
            self.dice.check_used(f"the fight ended at segment {seg} ({outcome.result})")

    def _let_go(self) -> None:
        """Untie a finished fight from itself, so that it is freed as soon as its last
        outside reference goes, not left to the garbage collector as a cycle (whose
        passes over a fight's history cost a tenth of a compiled duel): its boundary
        events' cached callbacks and its dice's sink, and in its own environment the
        events it still has queued (in a host's, each is dropped when the host's clock
        reaches it, and does nothing). The order of what stays queued is unchanged."""
        if self.dice.sink == self._on_draw:
            self.dice.sink = None
        if self.dice.sink_each == self._on_draws:
            self.dice.sink_each = None
        self._on_boundary = self._on_phase = _over
        if self._own_env:
            queue = self.env._queue
            kept = [entry for entry in queue if not _ours(entry[3], self)]
            if len(kept) != len(queue):
                queue[:] = kept
                heapq.heapify(queue)


def _life(done: simpy.Event) -> Generator[simpy.Event, Any, None]:
    """A combatant's process: it lasts from the combatant's entry to the end of the
    fight (``done``). Its decision points are the declaration phases of the boundary
    events (:meth:`Fight._register` calls it to one), so no phase wakes the process: a
    wake there would do nothing but cost a SimPy event per decision. It holds the end,
    not the fight: a process still waiting when a fight's own environment stops does
    not keep the fight alive."""
    yield done


_new_process = simpy.Process.__new__


def _live(env: simpy.Environment, done: simpy.Event) -> simpy.Process:
    """A combatant's process (``env.process(_life(done))``), made already started: its
    generator has run to its one ``yield`` and the process waits on ``done``, as SimPy's
    would once its ``Initialize`` event is processed, without that event (booked, then
    stepped through, at every fighter's entry: some 20,000 instructions a fighter). What
    the process does is the same, nothing until the end; no other event's order changes
    (those of one time and priority keep the order in which they were booked)."""
    process = _new_process(simpy.Process)
    process.env = env
    process.callbacks = []
    life = _life(done)
    process._generator = life
    process._target = next(life)  # ``done``, its one yield
    done.callbacks.append(process._resume)
    return process


# What tells a combatant's process (see _live) from any other: the class of its
# generator (the compiled build's is its own), and in the pure build, whose generators
# are all of one class, its code.
_LIFE_GENERATOR: type = type(_life(simpy.Event(_OwnEnvironment())))
_LIFE_CODE: object = getattr(_life, "__code__", None)


def _spent(event: simpy.Event, done: simpy.Event) -> bool:
    """Whether a queued ``event`` is a finished fight's end (``done``) or one of its
    combatants' ended processes (see :func:`_live`: nobody else holds them), with
    nothing left to call."""
    if event.callbacks:
        return False
    if event is done:
        return True
    if type(event) is not simpy.Process:
        return False
    generator = event._generator
    return type(generator) is _LIFE_GENERATOR and (
        _LIFE_CODE is None or getattr(generator, "gi_code", None) is _LIFE_CODE
    )


def _over(event: _Phase) -> None:
    """What a finished fight's boundary events would call: nothing is left to do."""


def _ours(event: simpy.Event, fight: Fight) -> bool:
    """Whether ``event`` is one of ``fight``'s own, queued for one of its methods."""
    if not isinstance(event, _Scheduled) or not event.callbacks:
        return False
    for callback in event.callbacks:  # noqa: SIM110 (any() over a generator: two calls)
        if getattr(callback, "__self__", None) is fight:
            return True
    return False


_FORCED_WHEN: dict[type, str | None] = {}


def _forced_when(cls: type) -> str | None:
    """The status field without which the ruleset class's ``forced()`` imposes nothing
    (its ``forced_when``), when the class that says so is the one whose ``forced`` it
    has (a subclass's own ``forced`` is asked every time unless it says so too); None
    otherwise. Worked out once per class."""
    if cls in _FORCED_WHEN:
        return _FORCED_WHEN[cls]
    found: str | None = None
    for klass in cls.__mro__:
        own = vars(klass)
        if "forced" in own:
            when = own.get("forced_when")
            found = when if isinstance(when, str) else None
            break
        if "forced_when" in own:  # said above the class whose forced() it has: not of it
            break
    _FORCED_WHEN[cls] = found
    return found


_CLASS_FACTS: dict[type, tuple[bool, str | None, bool, bool, bool]] = {}


def _class_facts(cls: type) -> tuple[bool, str | None, bool, bool, bool]:
    """What a fight reads of its ruleset's class (worked out once per class, not at each
    fight's making): whether its ``forced`` is its own (not BaseRuleset's), its
    :func:`_forced_when`, whether its ``outcome`` is BaseRuleset's, whether its ``due``
    is its own, and whether its ``order_key`` is its own."""
    found = _CLASS_FACTS.get(cls)
    if found is None:
        found = _CLASS_FACTS[cls] = (
            getattr(cls, "forced", None) is not BaseRuleset.forced,
            _forced_when(cls),
            getattr(cls, "outcome", None) is BaseRuleset.outcome,
            getattr(cls, "due", None) is not BaseRuleset.due,
            getattr(cls, "order_key", None) is not BaseRuleset.order_key,
        )
    return found


_RANKS: dict[int, tuple[Mapping[str, tuple[Any, ...]], dict[str, Any] | None]] = {}


def _ranks(keys: Mapping[str, tuple[Any, ...]], other: tuple[Any, ...]) -> dict[str, Any] | None:
    """An order table's keys as ranks (kind -> rank) when each key, ``other`` too, is a
    rank alone; None otherwise. Worked out once per table (a ruleset's is one object)."""
    found = _RANKS.get(id(keys))
    if found is not None and found[0] is keys:
        return found[1]
    ranks: dict[str, Any] | None = None
    if len(other) == 1 and all(len(k) == 1 for k in keys.values()):
        ranks = {kind: k[0] for kind, k in keys.items()}
    if len(_RANKS) > 64:
        _RANKS.clear()
    _RANKS[id(keys)] = (keys, ranks)  # (the table held: its id names no other)
    return ranks


def _kept(batch: list[Action], marks: dict[int, Action]) -> list[Action]:
    """The actions of a large ``batch`` (more than :data:`_MANY_FORCED`) not dropped
    from it (:meth:`Fight._unschedule`'s ``marks``), in its order, picked in C rather
    than by a loop: an id found among the marks is the action's own, since the marks
    hold the actions they name and no two objects alive share an id."""
    return list(compress(batch, map(not_, map(marks.__contains__, map(id, batch)))))


def _completion_order(
    order_key: Callable[[Action], tuple[Any, ...]] | None,
    combatants: Mapping[str, Combatant],
    table: tuple[Mapping[str, tuple[Any, ...]], tuple[Any, ...]] | None = None,
) -> Callable[[Action], tuple[Any, ...]]:
    """The sort key of actions completing together: the ruleset's order (None: the
    ruleset has none; ``table``: its keys by kind and for any other kind, as its
    ``order_key`` gives them), then the fighters' order, then their ids (made once per
    fight, not at each settlement)."""
    if table is not None:
        keys, other = table
        ranks = _ranks(keys, other)
        if ranks is not None:
            # Keys of one rank each (RinKaNou's): the rank itself, which sorts as its
            # 1-tuple would, without building a list to unpack into the key (once an
            # action completing with another).
            rest = other[0]

            def by_rank(a: Action) -> tuple[Any, ...]:
                return (ranks.get(a.kind, rest), combatants[a.actor].order, a.id)

            return by_rank

        def by_table(a: Action) -> tuple[Any, ...]:
            return (*keys.get(a.kind, other), combatants[a.actor].order, a.id)

        return by_table
    if order_key is None:

        def plain(a: Action) -> tuple[Any, ...]:
            return (combatants[a.actor].order, a.id)

        return plain

    def key(a: Action) -> tuple[Any, ...]:
        return (*order_key(a), combatants[a.actor].order, a.id)

    return key


def _not_unique(combatants: Sequence[CombatantSpec]) -> None:
    """Raise the ValueError of combatants whose ids are not all unique."""
    ids = [c.id for c in combatants]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    raise ValueError(f"combatant ids must be unique: {', '.join(dupes)}")


_FIELD: set[tuple[float, float]] = set()
"""Positions found on the field by :func:`_on_the_field` (pairs of floats)."""


def _on_the_field(spec: CombatantSpec) -> None:
    """A combatant's position lies within MAX_COORDINATE of the origin, as data files'
    do (segsim.input): a finite number far beyond overflows the spatial grid's cells.
    A position found good already (a scenario's, fight after fight) is not checked
    again."""
    position = spec.position
    if type(position) is tuple and position in _FIELD:
        return
    try:
        x, y = spec.position
        ok = -MAX_COORDINATE <= float(x) <= MAX_COORDINATE
        ok = ok and -MAX_COORDINATE <= float(y) <= MAX_COORDINATE
    except (TypeError, ValueError):
        ok = False
    if ok and type(position) is tuple and type(x) is float and type(y) is float:
        if len(_FIELD) > 256:
            _FIELD.clear()
        _FIELD.add(position)
    if not ok:
        raise ValueError(
            f"{spec.id}: a position is [x, y] in metres, each from "
            f"{-MAX_COORDINATE:,.0f} to {MAX_COORDINATE:,.0f}, not {spec.position!r}"
        )


def unconcerned_hook(policy: object) -> Unconcerned | None:
    """A policy's shortcut for the phases it is called to where it need not act.

    A reactive policy is called whenever someone it sees starts or ends an action, and a
    fighter with an action still in progress may be called by the rules (a turn order's
    new round) or by the end of another of its actions; a policy whose decision is often
    "nothing new" there (an archer reloading while nobody comes at it, a turn-based
    fighter between its turns) may say so without an observation:
    ``unconcerned(ruleset, state, cid, segment, called)`` answering True promises that
    its ``decide`` would return nothing here and change nothing the next decisions read
    (it makes any change that decision would). ``called`` is False when what it saw
    alone called it, True when the rules, a host or its own action's end did. The engine
    then neither observes nor calls it in that phase: the records are the same. Only
    asked of a fighter that need not act (it has an action in progress), after the
    rules' forced actions; never of an external policy (it decides outside the fight)."""
    if is_external(policy):
        return None
    hook = getattr(policy, "unconcerned", None)
    return hook if callable(hook) else None


def _bind(policy: object, cid: str, seed: int, fight: Fight) -> None:
    """Tell a policy with a ``bind(actor, seed)`` method whom it decides for and the
    fight's seed, before its first decision (a random policy seeds itself from it); a
    policy with ``attach(fight, actor)`` (a process policy) gets the fight itself."""
    bind = getattr(policy, "bind", None)
    if callable(bind):
        bind(cid, seed)
    attach = getattr(policy, "attach", None)
    if callable(attach):
        attach(fight, cid)
