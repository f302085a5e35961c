"""The base of every event, and the registry that reads a record line back.

It lives apart from :mod:`segsim.events` so that :class:`segsim.actions.Action` can be
an event too: an action in progress is the ``action.declared`` line of its record (one
object from the plan to the record; see :mod:`segsim.actions`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import attrs

if TYPE_CHECKING:
    from segsim.state import FightState

EVENT_TYPES: dict[str, type[Event]] = {}
"""Every event class by its ``TYPE`` name: the class a record line is read back as."""


@attrs.define(slots=True)
class Event:
    """Base of all events: ``t`` is the segment in which it happened.

    Every event class is ``@attrs.frozen`` (a test checks this); the base is not, only
    so that :class:`segsim.actions.Action`, an event stamped in place by the engine
    before anyone sees it, can derive from it."""

    TYPE: ClassVar[str] = ""
    REGISTERED: ClassVar[bool] = True
    """False for an event class that writes a registered type's line (the live
    :class:`~segsim.actions.Action` writes ``action.declared``)."""

    CHANGES_STATE: ClassVar[bool] = False
    """Whether the class has an :meth:`apply` of its own (set for each class): the
    engine calls ``apply`` only then."""

    t: int
    actor: str | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.CHANGES_STATE = cls.apply is not Event.apply
        name = cls.__dict__.get("TYPE", "")
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
    """The account's line for a declared action (live or read from a record)."""
    target = f" -> {e.target}" if e.target else ""
    span = "until further notice" if e.ends_in is None else f"{e.duration} seg, ends in {e.ends_in}"
    forced = " (forced)" if e.forced else ""
    extra = "".join(f" {k}={v}" for k, v in e.params.items())
    return f"{e.actor} declares {e.kind}{target}{extra} [{span}]{forced}"
