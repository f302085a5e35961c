"""Actions and declarations: what a combatant says it does, and the timed thing it becomes.

A :class:`Declaration` is what a policy returns. The ruleset checks it and turns it into
an :class:`Action` (duration, channel, whether it needs a roll); the engine stamps that
same object with an id, an actor and a start segment, and records it: the stamped
action is the ``action.declared`` event of the fight's history.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from operator import attrgetter
from types import MappingProxyType
from typing import Any, TypeAlias, cast

import attr
import attrs

from segsim.eventbase import Event, describe_declared
from segsim.native import field, mypyc_attr

EMPTY: Mapping[str, Any] = MappingProxyType({})


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if value is EMPTY:
        return value
    if type(value) is dict:  # the usual case, without an abstract-class check
        return MappingProxyType(value.copy()) if value else EMPTY
    if value is None or not value:
        return EMPTY
    if isinstance(value, MappingProxyType):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"params is a table (a mapping), not {value!r}")
    return MappingProxyType(dict(value))


SHARED_TABLES = 4096
"""How many parameter tables a :class:`SharedTables` holds before it starts anew."""


class SharedTables:
    """Read-only parameter tables by a key of plain values, shared by the actions that
    carry the same ones (the moves toward one fighter at one pace, the waits until one
    segment...), so that a battle's history holds a few hundred tables rather than one
    for each of its actions. A table is made by the planner, from the key's values, the
    first time its key is asked for; what is shared never changes, so sharing it changes
    no record. Bounded: it holds at most :data:`SHARED_TABLES` and then starts anew."""

    __slots__ = ("_tables",)

    def __init__(self) -> None:
        self._tables: dict[Any, Mapping[str, Any]] = {}

    def get(self, key: Any) -> Mapping[str, Any] | None:
        """The table kept under ``key`` (a tuple of plain values), or None."""
        return self._tables.get(key)

    def keep(self, key: Any, table: dict[str, Any]) -> Mapping[str, Any]:
        """Keep ``table`` (a new dict of plain values, owned from now on) under ``key``
        and return it read-only."""
        tables = self._tables
        if len(tables) >= SHARED_TABLES:
            tables.clear()
        frozen = tables[key] = MappingProxyType(table)
        return frozen

    def __len__(self) -> int:
        return len(self._tables)


def _declared_params(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A declaration's parameters, frozen, and so is each table directly inside (a
    copy): a declaration whose tables hold plain values (PS choices) can never change,
    so it is checked once."""
    frozen = _frozen_mapping(value)
    for item in frozen.values():
        if type(item) is dict:
            return MappingProxyType(
                {k: _frozen_mapping(v) if type(v) is dict else v for k, v in frozen.items()}
            )
    return frozen


@attrs.frozen
class Declaration:
    """A combatant's declared action: its kind, an optional target and parameters.

    ``params`` holds what the ruleset reads (a blow's kind, situation-point spends,
    a wait's ``until`` segment, a difficulty name...).
    """

    kind: str
    target: str | None = None
    params: Mapping[str, Any] = field(factory=dict, converter=_declared_params)
    # Set by :func:`declaration_problem` once it has found this declaration well formed
    # and every parameter a plain scalar or a frozen table of them: such a declaration
    # can never change, so the engine does not check it again (a policy hands out the
    # same one many times).
    checked: bool = field(default=False, init=False, eq=False, repr=False)
    # What a ruleset found from a checked declaration alone (its kind's rules, the
    # channel it takes...), kept by the ruleset as ``(owner, ...)`` with ``owner`` what
    # says the notes are its own: the same declaration handed out again is not looked
    # over again. Set once, by the ruleset (see RinKaNou.plan).
    notes: tuple[Any, ...] | None = field(default=None, init=False, eq=False, repr=False)

    def __repr__(self) -> str:
        me: Any = self  # its fields shown as they are, even ill-typed ones (a bad input)
        extra = f", target={me.target!r}" if me.target else ""
        if me.params:  # its frozen tables shown as the tables they were made from
            plain = {k: dict(v) if type(v) is MappingProxyType else v for k, v in me.params.items()}
            extra += f", params={plain!r}"
        return f"Declaration({me.kind!r}{extra})"


SHARED_DECLARATIONS = 4096
"""How many declarations :func:`shared_declaration` keeps before it starts anew."""
_DECLARATIONS: dict[tuple[object, ...], Declaration] = {}


def shared_declaration(
    kind: str, target: str | None = None, params: Mapping[str, Any] | None = None
) -> Declaration:
    """``Declaration(kind, target, params)``, made once for each shape and handed out
    again: a declaration never changes, so the engine checks a shared one once where it
    checks a new one each time, and what the built-in policies weigh at each decision
    costs no new object. Their values are plain (strings, numbers, lists and tables of
    them), so a key of the values, lists and tables made tuples, tells shapes apart as
    the record would. Bounded: :data:`SHARED_DECLARATIONS`, then it starts anew."""
    key: list[object] = [kind, target]
    if params:
        for name, value in params.items():
            key.append(name)
            kind_of = type(value)
            if kind_of is list:
                value = tuple(value)
            elif kind_of is dict:
                value = tuple(value.items())
            key.append(value)
    shape = tuple(key)
    found = _DECLARATIONS.get(shape)
    if found is None:
        if len(_DECLARATIONS) >= SHARED_DECLARATIONS:
            _DECLARATIONS.clear()
        found = _DECLARATIONS[shape] = Declaration(kind, target, params or {})
    return found


@attrs.frozen
class Cancel:
    """Cancel one of one's own actions in progress (RinKaNou, "Échelonnement...").

    Declared at the start of a segment and only before the action's last segment; no
    new action may begin in that segment; the cancelled action counts as resolved.
    """

    action: int


DeclarationLike: TypeAlias = Declaration | Cancel
PolicyOutput: TypeAlias = (
    DeclarationLike | list[DeclarationLike] | tuple[DeclarationLike, ...] | None
)


@mypyc_attr(allow_interpreted_subclasses=True)
@attr.s(auto_attribs=True, slots=True, init=False, eq=False, repr=False, weakref_slot=False)
class Action(Event):
    """One timed action: the ruleset's verdict on a legal declaration, then the action
    in progress or finished, and its ``action.declared`` event (one object from the
    plan to the record).

    A ruleset's ``plan`` returns an unstamped action (it is also called
    :data:`ActionSpec`): ``duration`` is None for a continuous action (waiting) that
    lasts until the combatant declares something else; ``channel`` says what it occupies
    ("hands", "legs"...), one action per channel; ``rolled`` says whether resolving it
    needs a roll; a ``continuous`` action (a wait) ends silently when the combatant
    declares another action in the same channel; ``public`` actions show their kind to
    everyone (a forced lock after a strike); an action that is not ``visible`` (a wait,
    a glance to read an opponent) wakes nobody when it starts or resolves.

    The engine then stamps it with its ``id``, ``actor``, ``start`` segment (also its
    event's ``t``) and the declaration it came from, and appends it to the history: it
    occupies segments ``start .. last`` and completes at simulation time ``end``. After
    that it is a value: nothing changes it (a cancellation makes a new one). As an
    event it reads like :class:`segsim.events.ActionDeclared`, the class a record's
    ``action.declared`` line is read back as (``action`` is its id, ``ends_in`` its
    last segment, ``declared`` the declaration as made). It is not a frozen class only
    because frozen construction costs five times as much on the engine's hot path.

    Its ``__init__``, ``__eq__`` and ``__repr__`` are written out (attrs only describes
    its fields), so that the compiled build makes it a native class with a native
    constructor and behaves as the pure one; ``TYPE`` is set after the class.
    """

    kind: str
    duration: int | None
    channel: str = "main"
    target: str | None = None
    rolled: bool = False
    difficulty: int = 0
    continuous: bool = False
    public: bool = False
    forced: bool = False
    visible: bool = True
    params: Mapping[str, Any] = EMPTY  # frozen when made (below), like a declaration's
    id: int = 0
    actor: Any = ""  # str: typed as Event types it (see Event)
    start: int = 0
    cancelled: bool = False
    # Its event's segment: always its start (set from it, never given).
    t: int = field(init=False, eq=False, repr=False)
    declaration: Declaration | None = field(default=None, eq=False, repr=False)
    # What the ruleset worked out from it once (RinKaNou: the effects of its PS
    # choices): a cache kept with the action, so a refused plan leaves none in the fight's
    # state; never compared, shown or recorded, and a copy starts without it.
    memo: Any = field(default=None, init=False, eq=False, repr=False)

    def __init__(
        self,
        kind: str,
        duration: int | None,
        channel: str = "main",
        target: str | None = None,
        rolled: bool = False,
        difficulty: int = 0,
        continuous: bool = False,
        public: bool = False,
        forced: bool = False,
        visible: bool = True,
        params: Mapping[str, Any] = EMPTY,
        id: int = 0,
        actor: str = "",
        start: int = 0,
        cancelled: bool = False,
        declaration: Declaration | None = None,
    ) -> None:
        self.kind = kind
        self.duration = duration
        self.channel = channel
        self.target = target
        self.rolled = rolled
        self.difficulty = difficulty
        self.continuous = continuous
        self.public = public
        self.forced = forced
        self.visible = visible
        # Frozen like a declaration's: most actions have no params or already frozen ones.
        self.params = params if type(params) is MappingProxyType else _frozen_mapping(params)
        self.id = id
        self.actor = actor
        self.start = start
        self.cancelled = cancelled
        self.t = start
        self.declaration = declaration
        self.memo = None

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return _compared(self) == _compared(other)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(_SHOWN, _compared(self), strict=True)
        )
        return f"{type(self).__name__}({shown})"

    @property
    def action(self) -> int:
        """Its id, under the name its ``action.declared`` event gives it."""
        return self.id

    @property
    def ends_in(self) -> int | None:
        """Its last segment, under the name its ``action.declared`` event gives it."""
        return self.last

    @property
    def declared(self) -> dict[str, Any]:
        """The declaration as made (``kind``, ``target``, ``params``), before the
        ruleset planned it: what a replay declares again."""
        d: Declaration | Action = self.declaration or self
        return {"kind": d.kind, "target": d.target, "params": d.params}

    def fields(self) -> dict[str, Any]:
        """Its ``action.declared`` event's fields, in the record's order."""
        return {
            "action": self.id,
            "kind": self.kind,
            "target": self.target,
            "duration": self.duration,
            "ends_in": self.last,
            "forced": self.forced,
            "params": self.params,
            "declared": self.declared,
        }

    def describe(self) -> str:
        return describe_declared(self)

    @property
    def end(self) -> int | None:
        """Simulation time at which it completes (None while open-ended)."""
        d = self.duration
        return None if d is None else self.start + d

    @property
    def last(self) -> int | None:
        """The segment in which it ends (None while open-ended)."""
        d = self.duration
        return None if d is None else self.start + d - 1

    def overlaps(self, other: Action, now: int) -> bool:
        """Whether the two actions share at least one segment (open ones run to ``now``)."""
        # Each one's last segment (``last``), without its property's calls.
        d = self.duration
        a_last = now if d is None else self.start + d - 1
        d = other.duration
        b_last = now if d is None else other.start + d - 1
        return self.start <= b_last and other.start <= a_last

    def stamp(self, id: int, actor: str, start: int) -> Action:
        """Make this planned action the one in progress (the engine does this once, before
        anyone else sees it). The engine has already set what planning decides: the
        declaration it came from, and ``forced`` and ``public`` for a forced action."""
        self.id = id
        self.actor = actor
        self.start = self.t = start
        if self.continuous:
            self.visible = False
        return self

    def revised(self, **changes: Any) -> Action:
        """This planned action with some fields changed: in place while it is unstamped
        (the planner that made it owns it), a copy once it is in progress."""
        if self.id:
            return attrs.evolve(self, **changes)
        for name, value in changes.items():
            setattr(self, name, _frozen_mapping(value) if name == "params" else value)
        return self

    def cancelled_at(self, segment: int) -> Action:
        """The same action, cancelled in ``segment``: it counts as resolved there."""
        return self.ended_at(segment, True)

    def ended_at(self, segment: int, cancelled: bool = False) -> Action:
        """A copy of this action in progress that ends in ``segment`` (and is cancelled,
        if so): what ``attrs.evolve`` would make, by one call of the constructor rather
        than a walk over the fields."""
        return Action(
            self.kind,
            segment - self.start + 1,
            self.channel,
            self.target,
            self.rolled,
            self.difficulty,
            self.continuous,
            self.public,
            self.forced,
            self.visible,
            self.params,
            self.id,
            self.actor,
            self.start,
            cancelled or self.cancelled,
            self.declaration,
        )


Action.TYPE = "action.declared"
Action.REGISTERED = False  # a record line reads back as ActionDeclared
_SHOWN = tuple(f.name for f in attrs.fields(Action) if f.eq)
"""The fields an action's equality compares and its repr shows (all but ``t`` and
``declaration``), in order: as attrs' own would."""
_compared = attrgetter(*_SHOWN)

ActionSpec = Action
"""A planned action, before the engine stamps it (see :class:`Action`)."""


MAX_PARAM_DEPTH = 8
"""How deeply a declaration's parameters may nest (tables of tables...)."""
_INT_LIMIT = 2**63


def _value_problem(value: Any, depth: int = 0) -> str | None:
    """What makes a parameter value unfit for a declaration (and its record), or None:
    values are plain data, numbers are finite and 64-bit, keys are strings."""
    if value is None or isinstance(value, bool | str):
        return None
    if isinstance(value, int):
        return None if -_INT_LIMIT <= value < _INT_LIMIT else "an integer beyond 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} is not a finite number"
    if depth >= MAX_PARAM_DEPTH:
        return f"nested more than {MAX_PARAM_DEPTH} levels deep"
    if isinstance(value, list | tuple):
        for item in value:
            problem = _value_problem(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if type(value) is dict or isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"a parameter name is a string, not {key!r}"
            problem = _value_problem(item, depth + 1)
            if problem is not None:
                return f"{key}: {problem}"
        return None
    return f"{type(value).__name__} is not a value a declaration holds"


def declaration_problem(item: object) -> str | None:
    """Why ``item`` is not a well-formed declaration, or None.

    Checks the shape only (the ruleset checks what it means): a :class:`Declaration`
    has a non-empty string kind, a combatant id or None as target, and parameters that
    are plain data (strings, booleans, finite numbers, lists and tables of them); a
    :class:`Cancel` names an action by its integer id.
    """
    if type(item) is Declaration or isinstance(item, Declaration):
        d: Any = item  # its fields read as they are (the compiled build checks types)
        kind = d.kind
        if not kind or not isinstance(kind, str):
            return f"an action kind is a non-empty string, not {kind!r}"
        target = d.target
        if target is not None and (not isinstance(target, str) or not target):
            return f"a target is a combatant id (a string) or None, not {target!r}"
        params: Any = d.params
        scalars = True
        for key, value in params.items():
            if type(key) is not str and not isinstance(key, str):
                return f"a parameter name is a string, not {key!r}"
            kind_of = type(value)
            if kind_of is str or kind_of is bool or value is None:
                continue  # the common plain values, without the general walk
            if kind_of is int and -_INT_LIMIT <= value < _INT_LIMIT:
                continue
            problem = _value_problem(value)
            if problem is not None:
                return f"parameter {key}: {problem}"
            if kind_of is MappingProxyType:  # a frozen table (PS choices): of plain values?
                for inner in value.values():
                    if isinstance(inner, list | tuple | Mapping):
                        scalars = False
            elif isinstance(value, list | tuple | Mapping):
                scalars = False  # a list or table inside could still be changed
        if scalars and type(params) is MappingProxyType:
            object.__setattr__(item, "checked", True)  # frozen: the one write it gets
        return None
    if isinstance(item, Cancel):
        action: Any = cast(Any, item).action
        if isinstance(action, bool) or not isinstance(action, int) or action < 1:
            return f"a cancellation names an action by its id (an integer >= 1), not {action!r}"
        return None
    return f"a policy returns Declaration or Cancel objects, not {item!r}"


def no_such_parameter(kind: str, given: Iterable[str], accepted: Iterable[str]) -> str:
    """The message for parameters a kind of action does not take, with those it takes:
    ``attack takes no parameter weapon (it takes: effects, exploits)``; ``... (it takes: none)``."""
    known = sorted(accepted)
    takes = f"it takes: {', '.join(known)}" if known else "it takes: none"
    return f"{kind} takes no parameter {', '.join(sorted(given))} ({takes})"
