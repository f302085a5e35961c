"""The base of every event, and the registry that reads a record line back.

It lives apart from :mod:`segsim.events` so that :class:`segsim.actions.Action` can be
an event too: an action in progress is the ``action.declared`` line of its record (one
object from the plan to the record; see :mod:`segsim.actions`).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import attr
import attrs

from segsim.native import mypyc_attr

if TYPE_CHECKING:
    from segsim.state import FightState

EVENT_TYPES: dict[str, type[Event]] = {}

E = TypeVar("E")
"""Every event class by its ``TYPE`` name: the class a record line is read back as."""


def slot_init(cls: type, written: bool = False) -> Callable[..., None] | None:
    """An ``__init__`` for a frozen slotted attrs class that stores each field through
    its slot's descriptor, where attrs' own goes through ``object.__setattr__`` and the
    class's attribute lookup: an event is built at every draw and test. None (attrs'
    own stays) for a class whose fields it does not handle: a converter, a validator,
    no init, an alias, keyword-only, a factory taking self, init hooks or a cached hash. Its
    ``__wrapped__`` is attrs' own ``__init__``, or with ``written`` the class's own (one
    that stores its fields in order, attrs' signature: see :func:`event_type`)."""
    props = attrs.inspect(cls)
    if not (props.is_frozen and props.is_slotted and (props.added_init or written)):
        return None
    if props.hashability is attrs.ClassProps.Hashability.HASHABLE_CACHED:
        return None  # attrs' init also clears the cached hash
    if hasattr(cls, "__attrs_pre_init__") or hasattr(cls, "__attrs_post_init__"):
        return None
    params: list[str] = []
    lines: list[str] = []  # each field set through its slot's descriptor
    stores: list[str] = []  # each field assigned (on the twin)
    names: dict[str, Any] = {"NOTHING": attrs.NOTHING}
    for f in attrs.fields(cls):
        name = f.name
        slot = inspect.getattr_static(cls, name, None)
        if (
            not f.init
            or f.converter is not None
            or f.validator is not None
            or f.alias != name
            or f.kw_only
            or not isinstance(slot, types.MemberDescriptorType | types.GetSetDescriptorType)
        ):
            return None
        names[f"_set_{name}"] = slot.__set__
        default = f.default
        value = name
        if default is attrs.NOTHING:
            params.append(name)
        elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]  # a class at run time
            if default.takes_self:
                return None
            names[f"_factory_{name}"] = default.factory
            params.append(f"{name}=NOTHING")
            value = f"_factory_{name}() if {name} is NOTHING else {name}"
        else:
            names[f"_default_{name}"] = default
            params.append(f"{name}=_default_{name}")
        lines.append(f"    _set_{name}(self, {value})")
        stores.append(f"    self.{name} = {value}")
    twin = _twin(cls) if len(stores) >= TWIN_FIELDS else None
    if twin is not None:
        # Its fields set by plain assignments on a mutable twin of the class (the same
        # layout), which the interpreter specialises; then it is the class again. (An
        # object of a subclass without an __init__ of its own is set field by field.)
        names.update(_Cls=cls, _Twin=twin, _set_class=_SET_CLASS)
        lines = [
            "    if type(self) is not _Cls:",
            *[f"    {line}" for line in lines],
            "        return",
            "    _set_class(self, _Twin)",
            *stores,
            "    self.__class__ = _Cls",
        ]
        # And the same object made without a call of the class (see :func:`maker`).
        names["_new"] = twin.__new__
        _TWINS[cls] = twin
        lines += [
            f"def make({', '.join(params)}):",
            "    self = _new(_Twin)",
            *stores,
            "    self.__class__ = _Cls",
            "    return self",
        ]
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(lines or ["    pass"])
    exec(compile(source, f"<slot init {cls.__module__}.{cls.__qualname__}>", "exec"), names)
    init: Callable[..., None] = names["__init__"]
    if "make" in names:
        names["make"].__qualname__ = f"{cls.__qualname__}.make"
        _MAKERS[cls] = names["make"]
    made = vars(cls)["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = made.__doc__
    init.__wrapped__ = made  # type: ignore[attr-defined]
    return init


TWIN_FIELDS = 3
"""The fewest fields for which :func:`slot_init` builds through a twin class: setting
the class twice costs about what two or three fields set through their descriptors
do (measured: from three fields on, the twin is cheaper)."""

# Sets an object's class, whatever its __setattr__ (read through vars(): the compiled
# build's compiler fails on object.__dict__).
_SET_CLASS: Any = vars(object)["__class__"].__set__


def _twin(cls: type) -> type | None:
    """A mutable class of the same layout as the frozen ``cls`` (its bases, its own
    slots): an object of ``cls`` can be made one, its fields set by plain assignments,
    then made a ``cls`` again. None where the interpreter refuses the exchange (a
    weak-reference slot past the class's own slots, which the compiled build's Event
    spares its events: see below the class)."""
    own = vars(cls).get("__slots__")
    if own is None or "__dict__" in own:
        return None
    twin = type(
        f"_{cls.__name__}Twin", cls.__bases__, {"__slots__": own, "__setattr__": object.__setattr__}
    )
    made: Any = cls
    try:
        probe = made.__new__(made)
        _SET_CLASS(probe, twin)
        probe.__class__ = cls
        fresh: Any = twin
        probe = fresh.__new__(fresh)  # as maker's functions make an object
        probe.__class__ = cls
    except TypeError:
        return None
    return twin


_MAKERS: dict[type, Callable[..., Any]] = {}
_TWINS: dict[type, type] = {}


def twin_of(cls: type) -> type | None:
    """The mutable twin through which :func:`maker`'s function makes an object of the
    event class ``cls`` (None if it has none: the compiled build's classes), for a hot
    path that does the same stores without the maker's call."""
    return _TWINS.get(cls)


def maker(cls: type[E]) -> Callable[..., E]:
    """A function that makes an object of the event class ``cls`` from the arguments of
    its ``__init__`` without calling the class: a Python class's call costs about as
    much again as the stores of its ``__init__``. For a class :func:`slot_init` builds
    through a twin, its fields are set on a new object of the twin, which is then made a
    ``cls`` (the same object as ``cls(...)`` makes); for any other, the class itself.
    For the engine's and the rulesets' hottest events (a die's draw, a test's roll)."""
    made: Callable[..., E] = _MAKERS.get(cls, cls)
    return made


@mypyc_attr(allow_interpreted_subclasses=True)
class EventClass:
    """The class constants and class hooks of every event, apart from :class:`Event`
    itself: in the compiled build (``hatch_build.py``) a class body's every name has an
    annotation, and attrs would take constants in the attrs class's own body for
    fields; and attrs calls the hook on a class of its own making too, which a native
    class's method would refuse unless that class derives from its class."""

    __slots__ = ()

    TYPE: ClassVar[str] = ""
    REGISTERED: ClassVar[bool] = True
    """False for an event class that writes a registered type's line (the live
    :class:`~segsim.actions.Action` writes ``action.declared``)."""

    ROUTINE: ClassVar[bool] = False
    """True for bookkeeping the rules do on their own (a turn's end, a summary of a
    declaration already shown): the account shows it only when asked to be verbose."""

    CHANGES_STATE: ClassVar[bool] = False
    """Whether the class has an :meth:`Event.apply` of its own (set for each class):
    the engine calls ``apply`` only then."""

    @classmethod
    def __attrs_init_subclass__(cls) -> None:
        """attrs calls this once it has made an event class: a frozen one is built by
        :func:`slot_init` (the same object as attrs' own ``__init__`` builds, cheaper)."""
        init = slot_init(cls)
        if init is not None:
            cls.__init__ = init  # type: ignore[method-assign]


@mypyc_attr(allow_interpreted_subclasses=True)
@attr.s(auto_attribs=True, slots=True, order=False)
class Event(EventClass):
    """Base of all events: ``t`` is the segment in which it happened.

    Every event class is ``@attrs.frozen`` (a test checks this); the base is not, only
    so that :class:`segsim.actions.Action`, an event stamped in place by the engine
    before anyone sees it, can derive from it. It is made with ``attr.s``, the form of
    attrs the compiled build makes a native class of (so is Action)."""

    t: int
    actor: Any  # str | None; Any so that Action, a native class too, may say str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.CHANGES_STATE = cls.apply is not Event.apply
        name = vars(cls).get("TYPE", "")
        if name and cls.REGISTERED:
            known = EVENT_TYPES.get(name)
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise TypeError(f"event type {name!r} is already {known.__qualname__}")
            EVENT_TYPES[name] = cls

    def apply(self, state: FightState) -> None:
        """Change the fight state; most events only report and change nothing."""

    def describe(self) -> str:
        """One readable line for the segment-by-segment account."""
        fields = ", ".join(f"{k}={v}" for k, v in self.fields().items())
        return f"{self.TYPE} {fields}".rstrip()

    def fields(self) -> dict[str, Any]:
        """The event's own fields (without ``t``, ``type`` and ``actor``), in order."""
        return {
            f.name: getattr(self, f.name)
            for f in _fields_of(type(self))
            if f.name not in ("t", "actor")
        }


def _no_weak_reference(self: object) -> None:
    """What ``__weakref__`` reads on an event of the compiled build: none (it takes no
    weak reference, as :class:`~segsim.actions.Action` takes none in either build)."""
    return None


if vars(Event).get("__weakref__") is None:
    # The compiled build, whose native Event has no weak-reference slot: attrs would give
    # each event class one after its own fields, and the interpreter then refuses the
    # exchange of classes slot_init builds an event with (it compares the slots added to
    # a base and finds the weak reference past them), so every event would be built
    # field by field through its descriptors. A base's __weakref__ tells attrs to add
    # none (a class of the same layout: the twin is accepted). The pure build's Event has
    # the real slot, and its events keep it.
    setattr(Event, "__weakref__", property(_no_weak_reference))  # noqa: B010


_NATIVE_DUNDERS = """
def __setattr__(self, name, value):
    raise FrozenInstanceError()

def __delattr__(self, name):
    raise FrozenInstanceError()

def __eq__(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return values(self) == values(other)

def __hash__(self):
    return hash((self.__class__, *values(self)))

def __repr__(self):
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields_of(type(self)))
    return f"{self.__class__.__qualname__}({shown})"
"""


def _values(event: Any) -> tuple[Any, ...]:
    """An event's fields' values, in order (what its equality compares)."""
    return tuple([getattr(event, f.name) for f in _fields_of(type(event))])


def event_type(cls: type[E], name: str) -> None:
    """Name the event class ``cls`` (its ``TYPE``, under which a record line reads back
    as it) and finish it. ``cls`` is an ``attr.s(auto_attribs=True, slots=True,
    frozen=True, init=False)`` class with its ``__init__`` written out, storing its
    fields in attrs' order by ``object.__setattr__`` (the form a compiled module's event
    classes take, ``segsim/native.py``): in the pure build it is built by
    :func:`slot_init` as an ``attrs.frozen`` class is; in the compiled build it is a
    native class, whose written ``__init__`` stores directly, and which is given here
    what attrs gives the pure one and the build drops: it refuses assignment
    (``FrozenInstanceError``), compares and hashes by its fields, and shows them."""
    made: Any = cls
    made.TYPE = name
    made.CHANGES_STATE = made.apply is not Event.apply
    known = EVENT_TYPES.get(name)
    if known is not None and known.__qualname__ != made.__qualname__:
        raise TypeError(f"event type {name!r} is already {known.__qualname__}")
    EVENT_TYPES[name] = made
    own = vars(made).get("__init__")
    if isinstance(own, types.FunctionType):  # the pure build: a Python class
        init = slot_init(made, written=True)
        if init is not None:
            made.__init__ = init
        return
    names: dict[str, Any] = {
        "FrozenInstanceError": attrs.exceptions.FrozenInstanceError,
        "values": _values,
        "fields_of": _fields_of,
    }
    exec(compile(_NATIVE_DUNDERS, f"<native event {made.__qualname__}>", "exec"), names)
    for dunder in ("__setattr__", "__delattr__", "__eq__", "__hash__", "__repr__"):
        setattr(made, dunder, names[dunder])


ROUTINE_KINDS: set[str] = set()
"""Kinds of the actions the rules impose to keep time (a coarse ruleset's ``turn`` and
``await``): a ruleset adds its own when imported. Declared by the rules (forced), they
are bookkeeping and the account shows them only when asked to be verbose; RinKaNou's
forced actions (a lock) are part of the fight and always shown."""


def is_routine(event: Any) -> bool:
    """Whether the account leaves ``event`` (a live event or one read back) out unless
    asked to be verbose: bookkeeping the rules force, not what a fighter chose or what
    happened to it."""
    if event.TYPE == "action.declared":
        return bool(event.forced) and event.kind in ROUTINE_KINDS
    return bool(type(event).ROUTINE)


_FIELDS_CACHE: dict[type, tuple[attrs.Attribute[Any], ...]] = {}


def _fields_of(cls: type) -> tuple[attrs.Attribute[Any], ...]:
    got = _FIELDS_CACHE.get(cls)
    if got is None:
        got = _FIELDS_CACHE[cls] = tuple(attrs.fields(cls))
    return got


class _Declared(Protocol):
    """What the account's line of a declared action reads (live or from a record)."""

    @property
    def actor(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def target(self) -> str | None: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def duration(self) -> int | None: ...
    @property
    def ends_in(self) -> int | None: ...
    @property
    def forced(self) -> bool: ...


def describe_declared(e: _Declared) -> str:
    """The account's line for a declared action (live or read from a record).

    One a fighter chose is written as a fight script's ``[segment.N]`` entry (see
    :mod:`segsim.scriptline`), so that it can be copied into a script, followed by a
    comment: the segments it takes and, in words, what the rules added when they
    planned it. One the rules impose (forced) is said in words."""
    from segsim.scriptline import params_in_words, script_entry

    start = getattr(e, "t", None)
    if e.ends_in is None:
        span = "until further notice"
    elif start is None or start == e.ends_in:
        span = f"segment {e.ends_in}"
    else:
        span = f"segments {start}-{e.ends_in}"
    if e.forced:
        extra = params_in_words(e.params)
        at = f" -> {e.target}" if e.target else ""
        said = f"{extra}; {span}" if extra else span
        return f"{e.actor}: {e.kind}{at}, forced by the rules ({said})"
    declared = getattr(e, "declared", None) or {}
    kind = declared.get("kind") or e.kind
    target: str | None = declared.get("target", e.target) if declared else e.target
    params = declared.get("params", e.params) if declared else e.params
    notes = []
    if e.target != target and e.target is not None:
        notes.append(f"target {e.target}")
    added = {
        k: v
        for k, v in e.params.items()
        if not (k in params and params[k] == v) and not (v == target and v is not None)
    }
    planned = params_in_words(added)
    if planned:
        notes.append(planned)
    tail = f"; {'; '.join(notes)}" if notes else ""
    return f"{script_entry(e.actor, kind, target, params)}  # {span}{tail}"
