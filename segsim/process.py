"""Fighters written as SimPy-style processes: ``result = yield me.strike(foe, blow="cut")``.

A process policy is a generator function ``fn(me)`` wrapped by :func:`process_policy`.
It is a policy like any other (DESIGN, principle 10, "Behaviour two ways"): the fight
asks it at the same declaration phases as a callback policy with the same ``reactive``
flag, its declarations are checked by the rules and recorded the same way, and a fight
it took part in replays like any other. The wrapper runs the generator inside those
phases:

* each ``yield`` of a request (:meth:`Me.act` and its shortcuts ``me.arm()``,
  ``me.strike(target, blow=...)``..., :meth:`Me.all`, :meth:`Me.cancel`,
  :meth:`Me.wait`, :meth:`Me.idle`) declares it at the phase where it is yielded (in a
  ruleset played in turns, at the fighter's next turn) and resumes the generator at the
  first phase the fighter takes part in once it has resolved, with its :class:`Result`;
* a declaration the rules refuse raises :class:`~segsim.errors.IllegalDeclaration` at
  the ``yield``, where the generator may catch it and yield something else (nothing has
  changed);
* a *reactive* process (``reactive=True``) is interrupted when the fighter sees
  something (an opponent starts, cancels or resolves an action) while it waits: a
  :class:`Threat`, a :class:`simpy.Interrupt` carrying the observation, is raised at
  the ``yield``, at the phase where a reactive callback policy would have been called.
  The request it waited on goes on; yielding it again waits for it again.

The generator never sees more than a callback policy would: ``me.observation`` (the
observation of the current phase), and the results of its own actions.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import attrs
import simpy
import simpy.exceptions

from segsim.actions import Action, Cancel, Declaration, DeclarationLike, PolicyOutput
from segsim.errors import IllegalDeclaration
from segsim.events import ActionCancelled, Event, FightEnded, OutOfFight
from segsim.native import mypyc_attr, python_class
from segsim.observation import Observation

if TYPE_CHECKING:
    from segsim.fight import Fight

__all__ = [
    "Interrupt",
    "Me",
    "ProcessPolicy",
    "Request",
    "Result",
    "Sighting",
    "Threat",
    "process_policy",
]

MAX_STEPS = 1000
"""How many times a generator may be resumed within one phase without waiting (a
generator that catches every IllegalDeclaration and tries the same again forever)."""

FighterProcess: TypeAlias = Generator[Any, Any, Any]


# ---------------------------------------------------------------- what a process learns


@attrs.frozen
class Sighting:
    """An opponent's action that the fighter sees start: who, and what it sees of it
    (the ruleset's view of the action: in RinKaNou its motion, not its kind)."""

    actor: str
    action: Any


@python_class  # a native class cannot derive from an exception of Python's
class Interrupt(simpy.exceptions.Interrupt):
    """Base of what interrupts a fighter's process; ``cause`` is the observation of
    the phase (also :attr:`observation`)."""

    @property
    def observation(self) -> Observation:
        cause: Any = self.cause
        assert isinstance(cause, Observation)
        return cause


@python_class
class Threat(Interrupt):
    """What a reactive process sees while it waits: an opponent started, cancelled or
    resolved an action. ``started`` lists the actions it sees begin since it last ran
    (empty when only an end was seen, or when the ruleset shows no one's actions);
    ``actor`` and ``action`` are the latest of them (None if there are none)."""

    def __init__(self, observation: Observation, started: tuple[Sighting, ...] = ()) -> None:
        super().__init__(observation)
        self.started = started

    @property
    def actor(self) -> str | None:
        return self.started[-1].actor if self.started else None

    @property
    def action(self) -> Any:
        return self.started[-1].action if self.started else None

    def __str__(self) -> str:
        obs = self.observation
        what = f"{self.actor} start an action" if self.actor else "an opponent act"
        return f"segment {obs.segment}: {obs.actor} sees {what}"


@attrs.frozen
class Result:
    """What became of one declared action: the value a ``yield`` resumes with.

    ``events`` are the events naming the action (its tests, its resolution) and those
    its resolution did to its target (events whose ``attacker`` is the actor, such as
    wounds), in the order they happened.
    """

    action: int | None
    kind: str
    target: str | None
    start: int | None
    ends_in: int | None
    declaration: DeclarationLike | None
    cancelled: bool = False
    events: tuple[Event, ...] = ()

    def of(self, event_type: str) -> tuple[Event, ...]:
        """Its events of one type (``result.of("test.rolled")``)."""
        return tuple(e for e in self.events if event_type == e.TYPE)

    def _last(self, field: str) -> Any:
        for e in reversed(self.events):
            if getattr(e, "action", None) == self.action and hasattr(e, field):
                return getattr(e, field)
        return None

    @property
    def outcome(self) -> str | None:
        """How it ended as the rules say it (RinKaNou: "hit", "missed", "parried",
        "dodged"...; else "success"/"failure" of its roll; "cancelled")."""
        if self.cancelled:
            return "cancelled"
        said = self._last("result")
        if isinstance(said, str):
            return said
        success = self.success
        return None if success is None else ("success" if success else "failure")

    @property
    def success(self) -> bool | None:
        """Whether its (last) roll succeeded; None when it rolled nothing."""
        value = self._last("success")
        return None if value is None else bool(value)

    @property
    def margin(self) -> int | None:
        """The margin of its last roll (RinKaNou: Mr when positive, Me when negative)."""
        value = self._last("margin")
        return None if value is None else int(value)

    @property
    def damage(self) -> int:
        """Damage its resolution did (events with ``damage`` and ``attacker``)."""
        return sum(int(getattr(e, "damage", 0)) for e in self.events if hasattr(e, "attacker"))


# ---------------------------------------------------------------- requests


@mypyc_attr(allow_interpreted_subclasses=True)
class Request:
    """What a process yields: made by :class:`Me`, never by hand."""

    def leaves(self) -> list[_Leaf]:
        return []


@mypyc_attr(allow_interpreted_subclasses=True)
class _Leaf(Request):
    state = "new"  # new -> sent (declared this phase) -> running (in the fight) -> done

    def leaves(self) -> list[_Leaf]:
        return [self]

    def declaration(self, segment: int) -> DeclarationLike:  # pragma: no cover - abstract
        raise NotImplementedError


@mypyc_attr(allow_interpreted_subclasses=True)
class Act(_Leaf):
    """One action to declare; resolved once the action is no longer in progress."""

    def __init__(self, declaration: Declaration | None, segments: int | None = None) -> None:
        self._declaration = declaration
        self._segments = segments  # a wait: ``until`` is counted from its phase
        self.made: Declaration | None = None
        self.action: int | None = None
        self.kind = declaration.kind if declaration is not None else "wait"
        self.target = declaration.target if declaration is not None else None
        self.start: int | None = None
        self.ends_in: int | None = None
        self.cancelled = False
        self.events: list[Event] = []
        self.result: Result | None = None

    def declaration(self, segment: int) -> Declaration:
        if self._declaration is not None:
            self.made = self._declaration
        else:
            assert self._segments is not None
            self.made = Declaration("wait", params={"until": segment + self._segments})
        return self.made

    def finish(self) -> None:
        self.state = "done"
        self.result = Result(
            self.action,
            self.kind,
            self.target,
            self.start,
            self.ends_in,
            self.made,
            self.cancelled,
            tuple(self.events),
        )

    def __repr__(self) -> str:
        made = self.made or self._declaration
        shown = made if made is not None else f"wait {self._segments} segments"
        return f"<Act {shown!r} {self.state}>"


@mypyc_attr(allow_interpreted_subclasses=True)
class Cancelling(_Leaf):
    """Cancel one of one's actions in progress; resolved when it counts as resolved."""

    def __init__(self, action: int, act: Act | None) -> None:
        self.action = action
        self.act = act

    def declaration(self, segment: int) -> Cancel:
        return Cancel(self.action)

    def __repr__(self) -> str:
        return f"<Cancelling #{self.action} {self.state}>"


@mypyc_attr(allow_interpreted_subclasses=True)
class AllOf(Request):
    """Several requests at once; resumes with their values, in order."""

    def __init__(self, parts: tuple[Request, ...]) -> None:
        self.parts = parts

    def leaves(self) -> list[_Leaf]:
        return [leaf for part in self.parts for leaf in part.leaves()]


@mypyc_attr(allow_interpreted_subclasses=True)
class AnyOf(AllOf):
    """Several requests; resumes when the first is done, with the values of those done
    (None for those still going on)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Sight(Request):
    """Wait until something is seen (reactive) or the fighter is asked again."""

    def __init__(self) -> None:
        self.value: Threat | None = None
        self.done = False


@mypyc_attr(allow_interpreted_subclasses=True)
class Idle(Request):
    """Wait until nothing of the fighter's is in progress (a lock the rules imposed)."""


# ---------------------------------------------------------------- the fighter's handle


class Me:
    """What a process policy's generator gets: its fighter, seen from the current phase,
    and constructors of requests to yield.

    ``me.act(kind, target, **params)`` declares any action of the fight's ruleset;
    ``me.<kind>(target, **params)`` is the same for a kind that is a Python name
    (``me.arm()``, ``me.strike(foe, blow="cut")``, ``me.attack(foe)``; ``pass`` is
    ``me.act("pass")``). A target is a combatant id, a view of a combatant, a seen
    action (its author is the target) or a :class:`Threat` (its actor).
    """

    def __init__(self, run: _Run) -> None:
        self._run = run

    @property
    def id(self) -> str:
        return self._run.actor

    @property
    def observation(self) -> Observation:
        """The observation of the phase the process runs in (read it now, or freeze it)."""
        obs = self._run.obs
        if obs is None:  # pragma: no cover - the generator only runs inside phases
            raise RuntimeError("no declaration phase is under way")
        return obs

    @property
    def segment(self) -> int:
        return self.observation.segment

    @property
    def in_fight(self) -> bool:
        """Whether the fighter is still in the fight and the fight goes on."""
        fight = self._run.fight
        return not fight.ended and fight.state.combatants[self._run.actor].in_fight

    def nearest_foe(self) -> str | None:
        """The id of the nearest opponent in view (the ruleset's own answer if its view
        has ``nearest_foe()``), or None."""
        obs = self.observation
        mine = obs.me
        ask = getattr(mine, "nearest_foe", None)
        if callable(ask):
            found = ask()
            return None if found is None else str(found)
        side = getattr(mine, "side", None)
        here = getattr(mine, "position", (0.0, 0.0))
        best: tuple[float, str] | None = None
        for o in obs.others:
            if o.side == side:
                continue
            d = math.dist(here, o.position)
            if best is None or d < best[0]:
                best = (d, o.id)
        return best[1] if best is not None else None

    def act(self, kind: str, /, target: Any = None, **params: Any) -> Act:
        """Declare an action of ``kind`` (at the phase it is yielded)."""
        return Act(Declaration(kind, self._target(target), params))

    def __getattr__(self, kind: str) -> Callable[..., Act]:
        if kind.startswith("_"):
            raise AttributeError(kind)

        def make(target: Any = None, **params: Any) -> Act:
            return self.act(kind, target, **params)

        make.__name__ = kind
        return make

    def all(self, *requests: Request) -> AllOf:
        """Several requests together (actions at once, where the rules allow it)."""
        for r in requests:
            if not isinstance(r, Request):
                raise TypeError(f"me.all() takes requests made by me, not {r!r}")
        return AllOf(tuple(requests))

    def any(self, *requests: Request) -> AnyOf:
        """Several requests together; resumes when the first is done (a tuple with the
        values of those done, None for the others, which go on)."""
        return AnyOf(self.all(*requests).parts)

    def cancel(self, action: Any) -> Cancelling:
        """Cancel an action in progress: a request yielded before, its Result, an
        Action, or an action id. Resumes with the cancelled action's Result."""
        act = action if isinstance(action, Act) else None
        if isinstance(action, Act | Result):
            aid = action.action
        elif isinstance(action, int):
            aid = action
        else:
            aid = getattr(action, "id", None)
        if not isinstance(aid, int):
            raise TypeError(f"cannot cancel {action!r}: it has not been declared")
        if act is None:
            act = self._run.acts.get(aid)
        return Cancelling(aid, act)

    def wait(self, segments: int | None = None) -> Request:
        """Wait ``segments`` segments (a declared ``wait``: resumes with its Result), or,
        without a number, until something is seen (resumes with the :class:`Threat`; a
        process that is not reactive resumes the next time it is asked)."""
        if segments is None:
            return Sight()
        if not isinstance(segments, int) or isinstance(segments, bool) or segments < 1:
            raise ValueError(f"wait a whole number of segments >= 1, not {segments!r}")
        return Act(None, segments)

    def idle(self) -> Idle:
        """Wait until nothing of the fighter's is in progress (the lock the rules impose
        after a strike, an action a Threat interrupted...); resumes with None."""
        return Idle()

    def _target(self, target: Any) -> str | None:
        if target is None or isinstance(target, str):
            return target
        if isinstance(target, Threat):
            return target.actor
        tid = getattr(target, "id", None)
        if isinstance(tid, str):
            return tid
        actor = getattr(target, "actor", None)
        if isinstance(actor, str):
            return actor
        if isinstance(tid, int):  # an opponent's action as seen: its author
            for o in self.observation.others:
                if any(getattr(a, "id", None) == tid for a in getattr(o, "actions", ())):
                    return str(o.id)
        raise TypeError(f"not a target: {target!r} (give a combatant id or view)")

    def __repr__(self) -> str:
        return f"<Me {self._run.actor}>"


# ---------------------------------------------------------------- the policy


@mypyc_attr(allow_interpreted_subclasses=True)
class ProcessPolicy:
    """A generator function as a policy (make one with :func:`process_policy`).

    One object drives one fighter in one fight at a time; call it (``duelist()``) for
    a fresh one, as experiments and :func:`segsim.policy.make_policy` do. It pickles by
    the import path of its function (a module-level function). ``process`` is a SimPy
    event of the fight's environment that a host process can ``yield``: it succeeds
    with the generator's return value when the generator ends (at the latest when its
    fighter leaves the fight or the fight ends).
    """

    __segsim_policy_factory__ = True  # an import path may name one (segsim.policy)

    def __init__(
        self,
        fn: Callable[..., FighterProcess],
        *,
        name: str | None = None,
        reactive: bool = False,
        kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if not inspect.isgeneratorfunction(fn):
            raise TypeError(f"{fn!r} is not a generator function (it must yield requests)")
        self.fn = fn
        self.name = name or fn.__name__
        self.reactive = bool(reactive)
        self.kwargs = dict(kwargs or {})
        self._run: _Run | None = None

    def __call__(self, **kwargs: Any) -> ProcessPolicy:
        """A fresh policy of the same function (``kwargs`` go to the function)."""
        return ProcessPolicy(
            self.fn, name=self.name, reactive=self.reactive, kwargs={**self.kwargs, **kwargs}
        )

    def attach(self, fight: Fight, actor: str) -> None:
        """Called by the fight before the first decision: whom and where it drives."""
        run = self._run
        if run is not None and not run.fight.ended:
            if run.fight is fight and run.actor == actor:
                return
            raise RuntimeError(
                f"process policy {self.name!r} already drives {run.actor} in a fight that "
                f"goes on: give each fighter its own ({self.name}() makes a fresh one)"
            )
        self._run = _Run(self, fight, actor)

    def decide(self, observation: Observation) -> PolicyOutput:
        run = self._run
        if run is None:
            raise RuntimeError(
                f"process policy {self.name!r} decides inside a fight (the fight attaches it)"
            )
        return run.decide(observation)

    @property
    def process(self) -> simpy.Event:
        """The fighter's process as a SimPy event (see the class docstring)."""
        if self._run is None:
            raise RuntimeError(f"process policy {self.name!r} is not in a fight yet")
        return self._run.process

    def __reduce__(self) -> tuple[Any, ...]:
        qualname = self.fn.__qualname__
        if "<locals>" in qualname:
            raise TypeError(
                f"process policy {self.name!r} cannot be pickled: define its function at "
                "module level (it travels by its import path)"
            )
        return (_load, (self.fn.__module__, qualname, self.name, self.reactive, self.kwargs))

    def __repr__(self) -> str:
        return f"<ProcessPolicy {self.name} ({self.fn.__module__}.{self.fn.__qualname__})>"


def _load(
    module: str, qualname: str, name: str, reactive: bool, kwargs: Mapping[str, Any]
) -> ProcessPolicy:
    """A process policy again from its function's import path (unpickling)."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    fn = found.fn if isinstance(found, ProcessPolicy) else found
    return ProcessPolicy(fn, name=name, reactive=reactive, kwargs=kwargs)


def process_policy(
    fn: Callable[..., FighterProcess] | None = None,
    *,
    name: str | None = None,
    reactive: bool = False,
) -> Any:
    """Turn a generator function ``fn(me)`` into a policy; use it bare (``@process_policy``)
    or with options (``@process_policy(reactive=True, name="duelist")``).

    ``name`` is what records call the policy (the function's name by default);
    ``reactive`` makes the fight wake the process when its fighter sees something, and
    interrupts it with a :class:`Threat`.
    """
    if fn is None:

        def wrap(f: Callable[..., FighterProcess]) -> ProcessPolicy:
            return ProcessPolicy(f, name=name, reactive=reactive)

        return wrap
    return ProcessPolicy(fn, name=name, reactive=reactive)


# ---------------------------------------------------------------- one run of a generator


class _Run:
    """A generator driving one fighter in one fight."""

    def __init__(self, policy: ProcessPolicy, fight: Fight, actor: str) -> None:
        self.policy = policy
        self.fight = fight
        self.actor = actor
        self.me = Me(self)
        self.turns = getattr(fight.ruleset, "tick", 1) > 1
        self.process: simpy.Event = simpy.Event(fight.env)
        self.gen: FighterProcess | None = None
        self.waiting: Request | None = None
        self.finished = False
        self.obs: Observation | None = None
        self.expect: list[_Leaf] = []  # declared in this phase, not yet seen applied
        self.acts: dict[int, Act] = {}  # declared actions in progress, by id
        self.cancels: list[Cancelling] = []
        self.striking: dict[tuple[int, str], Act] = {}  # (segment, target) -> act
        self.seen: set[tuple[str, int]] = set()
        fight.subscribe(self.on_event)

    # ------------------------------------------------------------ events

    def on_event(self, ev: Event) -> None:
        me = self.actor
        if isinstance(ev, Action):  # a stamped action is its action.declared event
            if ev.actor == me and not ev.forced and self.expect:
                leaf = self.expect[0]
                if isinstance(leaf, Act) and leaf.made is not None and leaf.made.kind == ev.kind:
                    self.expect.pop(0)
                    leaf.state = "running"
                    leaf.action, leaf.start, leaf.ends_in = ev.action, ev.t, ev.ends_in
                    leaf.target = ev.target
                    self.acts[ev.action] = leaf
            return
        if isinstance(ev, ActionCancelled) and ev.actor == me:
            act = self.acts.get(ev.action)
            if act is not None:
                act.cancelled = True
            if self.expect:
                leaf = self.expect[0]
                if isinstance(leaf, Cancelling) and leaf.action == ev.action:
                    self.expect.pop(0)
                    leaf.state = "running"
                    self.cancels.append(leaf)
            return
        aid = getattr(ev, "action", None)
        if isinstance(aid, int) and aid in self.acts:
            act = self.acts[aid]
            act.events.append(ev)
            if act.target is not None:
                self.striking[(ev.t, act.target)] = act
        elif getattr(ev, "attacker", None) == me and ev.actor is not None:
            hit = self.striking.get((ev.t, ev.actor))
            if hit is not None:
                hit.events.append(ev)
        if isinstance(ev, FightEnded):
            self.finish()
        elif isinstance(ev, OutOfFight) and ev.actor == me:
            later = simpy.Event(self.fight.env)
            later.callbacks.append(lambda _: self.finish())
            later.succeed()

    def update(self) -> None:
        """Mark what has resolved since the fighter was last asked."""
        alive = {a.id for a in self.fight.state.combatants[self.actor].actions}
        for aid in [aid for aid in self.acts if aid not in alive]:
            self.acts.pop(aid).finish()
        for leaf in [c for c in self.cancels if c.action not in alive]:
            leaf.state = "done"
            self.cancels.remove(leaf)
        self.striking.clear()

    # ------------------------------------------------------------ requests

    def complete(self, req: Request) -> bool:
        if isinstance(req, _Leaf):
            return req.state == "done"
        if isinstance(req, AnyOf):
            return any(self.complete(p) for p in req.parts)
        if isinstance(req, AllOf):
            return all(self.complete(p) for p in req.parts)
        if isinstance(req, Sight):
            return req.done
        if isinstance(req, Idle):
            actions = self.fight.state.combatants[self.actor].actions
            return not any(not a.continuous for a in actions)
        raise TypeError(req)  # pragma: no cover

    def value(self, req: Request) -> Any:
        if isinstance(req, Act):
            return req.result
        if isinstance(req, Cancelling):
            act = req.act
            if act is not None and act.result is not None:
                return act.result
            return Result(req.action, "", None, None, None, Cancel(req.action), True)
        if isinstance(req, AllOf):
            return tuple(self.value(p) if self.complete(p) else None for p in req.parts)
        if isinstance(req, Sight):
            return req.value
        return None

    def request(self, got: Any) -> Request | None:
        if isinstance(got, Request):
            return got
        if isinstance(got, Declaration):
            return Act(got)
        if isinstance(got, Cancel):
            return Cancelling(got.action, self.acts.get(got.action))
        if isinstance(got, list | tuple) and all(isinstance(g, Request) for g in got):
            return AllOf(tuple(got))
        return None

    # ------------------------------------------------------------ the phase

    def decide(self, obs: Observation) -> PolicyOutput:
        self.obs = obs
        for leaf in self.expect:  # declared but never applied (a replay's shadow)
            leaf.state = "new"
        self.expect.clear()
        if self.finished:
            return None
        self.update()
        threat = None
        if self.policy.reactive:
            started = self.sightings(obs)
            if self.fight.sighted(self.actor, obs.segment):
                threat = Threat(obs, started)
        may = not self.turns or obs.must_act
        out: list[DeclarationLike] = []
        step: tuple[str, Any] | None = None
        waiting = self.waiting
        if self.gen is None:
            if not may:
                return None
            self.gen = self.policy.fn(self.me, **self.policy.kwargs)
            step = ("send", None)
        elif waiting is None:
            return None
        elif isinstance(waiting, Sight) and (
            threat is not None or (may and not self.policy.reactive)
        ):
            waiting.value, waiting.done = threat, True
            step = ("send", threat)
        elif may and self.complete(waiting):
            step = ("send", self.value(waiting))
        elif threat is not None:
            step = ("throw", threat)
        self.drive(step, out, may, obs.segment)
        return out or None

    def sightings(self, obs: Observation) -> tuple[Sighting, ...]:
        """Opponents' actions in view that were not in view at the last phase."""
        side = getattr(obs.me, "side", None)
        now: dict[tuple[str, int], Sighting] = {}
        for o in obs.others:
            if o.side == side:
                continue
            for a in getattr(o, "actions", ()):
                aid = getattr(a, "id", None)
                if isinstance(aid, int):
                    now[(o.id, aid)] = Sighting(o.id, a)
        started = [s for key, s in now.items() if key not in self.seen]
        self.seen = set(now)
        started.sort(key=lambda s: (getattr(s.action, "start", 0), s.action.id))
        return tuple(started)

    def drive(
        self, step: tuple[str, Any] | None, out: list[DeclarationLike], may: bool, seg: int
    ) -> None:
        for _ in range(MAX_STEPS):
            if step is not None:
                if not self.resume(step):
                    return
                step = None
            waiting = self.waiting
            assert waiting is not None
            if may and self.complete(waiting):
                step = ("send", self.value(waiting))
                continue
            new = [leaf for leaf in waiting.leaves() if leaf.state == "new"]
            if not new or not may:
                return
            decls = [leaf.declaration(seg) for leaf in new]
            try:
                self.fight.check(self.actor, decls)
            except IllegalDeclaration as exc:
                step = ("throw", exc)
                continue
            for leaf in new:
                leaf.state = "sent"
            self.expect.extend(new)
            out.extend(decls)
            return
        raise RuntimeError(
            f"segment {seg}: {self.actor}'s process {self.policy.name!r} was resumed "
            f"{MAX_STEPS} times without waiting for anything"
        )

    def resume(self, step: tuple[str, Any]) -> bool:
        """Run the generator to its next yield; False once it has ended."""
        gen = self.gen
        assert gen is not None
        how, value = step
        try:
            got = gen.send(value) if how == "send" else gen.throw(value)
        except StopIteration as stop:
            self.end(stop.value)
            return False
        except BaseException as exc:
            self.end(None, exc)
            raise
        req = self.request(got)
        while req is None:  # a yield of something else: raised at the yield, as SimPy does
            error = TypeError(f"a process yields requests made by me (me.strike(...)), not {got!r}")
            try:
                got = gen.throw(error)
            except StopIteration as stop:
                self.end(stop.value)
                return False
            except BaseException as exc:
                self.end(None, exc)
                raise
            req = self.request(got)
        self.waiting = req
        return True

    def end(self, value: Any, error: BaseException | None = None) -> None:
        self.finished = True
        self.waiting = None
        if self.process.triggered:
            return
        if error is None or not isinstance(error, Exception):
            self.process.succeed(value)
        else:
            self.process.fail(error)
            self.process.defused = True

    def finish(self) -> None:
        """The fight is over for this fighter: resume the generator with what it waited
        for (a result that has come, else None), then answer every further yield at once
        with None (nothing can be declared any more) until it returns."""
        if self.finished:
            return
        gen = self.gen
        if gen is None:
            self.end(None)
            return
        self.update()
        waiting = self.waiting
        value = self.value(waiting) if waiting is not None and self.complete(waiting) else None
        try:
            for _ in range(MAX_STEPS):
                gen.send(value)
                value = None
            gen.close()
        except StopIteration as stop:
            self.end(stop.value)
            return
        except BaseException as exc:
            self.end(None, exc)
            raise
        self.end(None)
