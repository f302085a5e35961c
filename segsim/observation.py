"""Observations: what a combatant knows when it decides, paid for as it is read.

Everyone who decides in one declaration phase sees the same state, because nothing is
applied until all have decided (DESIGN, principle 3). So an observation need not copy
the state: it is a view over the live state, valid while the state is unchanged. Each
piece is computed when a policy first reads it (but for the few values nearly every
decision reads, which a ruleset may copy when it makes the view: plain values, true of
the view's phase for good). Read after its phase (once the state has
changed), an observation fails loudly with :class:`StaleObservation`; a policy that
wants to keep what it saw calls :meth:`Observation.freeze` during its phase.

Rulesets write their views as :class:`LiveView` subclasses whose fields are
:func:`live` properties (or :func:`live_attr` paths, for fields that only forward the
state), and build an :class:`Observation` whose ``others`` and ``legal`` are functions
called on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, overload

from segsim.errors import SegsimError

if TYPE_CHECKING:
    from segsim.actions import DeclarationLike
    from segsim.state import FightState

T = TypeVar("T")
V = TypeVar("V", bound="LiveView")


class StaleObservation(SegsimError):
    """An observation read after the state it views has changed (after its phase)."""


def _stale(what: str, segment: int) -> StaleObservation:
    return StaleObservation(
        f"{what} of segment {segment} read after the fight moved on: read what you need "
        "while deciding, or keep observation.freeze()"
    )


class live(Generic[V, T]):
    """A field of a :class:`LiveView`, computed from the live state when first read.

    The first read checks that the state has not changed since the view was made (else
    :class:`StaleObservation`) and keeps the value on the view, so later reads cost a
    plain attribute lookup and keep answering what was true in the view's phase.
    """

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable[[V], T]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "")  # __set_name__ names it in its class

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> live[V, T]: ...
    @overload
    def __get__(self, obj: V, owner: type | None = None) -> T: ...
    def __get__(self, obj: V | None, owner: type | None = None) -> T | live[V, T]:
        if obj is None:
            return self
        if obj._state.version != obj._version:
            raise _stale(f"{type(obj).__name__}.{self.name}", obj._segment)
        fn = self.fn  # read from its slot, then called (a method lookup would not be)
        value = obj.__dict__[self.name] = fn(obj)
        return value


def live_attr(path: str) -> live[Any, Any]:
    """A :func:`live` field that is an attribute path from the view, such as
    ``"_c.status.armed"``: read by :func:`operator.attrgetter`, without a Python call.
    Annotate the field with its type: ``armed: live[MyView, bool] = live_attr(...)``."""
    return live(attrgetter(path))


class LiveView:
    """Base of a ruleset's views: a combatant as seen from one phase of one fight.

    Subclasses declare their fields with :func:`live`. Two views are equal when they
    show the same fields with the same values.
    """

    # The phase it views in slots; the values of its live fields, once read, in its
    # __dict__ (where a non-data descriptor's value is found before the descriptor).
    __slots__ = ("__dict__", "_segment", "_state", "_version")

    _live_names: ClassVar[tuple[str, ...]] = ()
    _fixed: ClassVar[tuple[str, ...]] = ()
    """Plain attributes set when the view is made, shown by :meth:`as_dict` before the
    live fields: what never changes in a fight (an id, a sheet), and values a ruleset
    copies from the phase because nearly every decision reads them (they stay what they
    were in the view's phase)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, live) and name not in names:
                    names.append(name)
        cls._live_names = tuple(names)

    def __init__(self, state: FightState, segment: int) -> None:
        self._state = state
        self._version = state.version
        self._segment = segment

    @property
    def fresh(self) -> bool:
        """Whether the state this view reads is still the one it was made for."""
        return self._state.version == self._version

    def check(self) -> None:
        """Raise :class:`StaleObservation` if the state has moved on (for methods of a
        view that read the live state directly)."""
        if self._state.version != self._version:
            raise _stale(type(self).__name__, self._segment)

    def freeze(self: V) -> V:
        """Read every field now: the view then stays correct after its phase (what a
        test or a logging policy keeps)."""
        for name in self._live_names:
            getattr(self, name)
        return self

    def as_dict(self) -> dict[str, Any]:
        """Every field by name."""
        return {name: getattr(self, name) for name in (*self._fixed, *self._live_names)}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, LiveView)
        return self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        try:
            fields = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        except StaleObservation:
            return f"<{type(self).__name__} of segment {self._segment}, stale>"
        return f"{type(self).__name__}({fields})"


class Observation:
    """What one combatant knows at the start of a segment.

    ``me`` is the ruleset's view of the deciding combatant; ``others`` the views of
    those it can see, built on first read; :meth:`other` finds one of them by id (only
    that one is built when the ruleset gives a lookup); :meth:`legal` lists the
    declarations the ruleset would accept now.
    """

    __slots__ = (
        "_by_id",
        "_legal",
        "_legal_fn",
        "_other_fn",
        "_others",
        "_others_fn",
        "_state",
        "_version",
        "actor",
        "me",
        "must_act",
        "segment",
    )

    def __init__(
        self,
        segment: int,
        actor: str,
        must_act: bool,
        me: Any,
        others: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = (),
        *,
        legal: Callable[[], tuple[DeclarationLike, ...]],
        other: Callable[[str], Any] | None = None,
        state: FightState | None = None,
    ) -> None:
        self.segment = segment
        self.actor = actor
        self.must_act = must_act
        self.me = me  # a plain attribute: policies read it several times a decision
        if type(others) is tuple:  # the common case first: no call to tell it
            self._others: tuple[Any, ...] | None = others
            self._others_fn: Callable[[], tuple[Any, ...]] | None = None
        elif callable(others):
            self._others = None
            self._others_fn = others
        else:
            self._others = tuple(others)
            self._others_fn = None
        self._other_fn = other
        self._by_id: dict[str, Any] | None = None
        self._legal: tuple[DeclarationLike, ...] | None = None
        self._legal_fn = legal
        self._state = state
        self._version = state.version if state is not None else 0

    def _check(self, what: str) -> None:
        state = self._state
        if state is not None and state.version != self._version:
            raise _stale(f"observation.{what}", self.segment)

    @property
    def fresh(self) -> bool:
        """Whether the fight is still in this observation's phase."""
        return self._state is None or self._state.version == self._version

    @property
    def others(self) -> tuple[Any, ...]:
        others = self._others
        if others is None:
            self._check("others")
            others = self._others = self._find_others()
        return others

    # What others, other() and legal() compute on first use (a subclass may find them
    # otherwise: see ViewObservation).
    def _find_others(self) -> tuple[Any, ...]:
        assert self._others_fn is not None
        return self._others_fn()

    def _find_other(self, cid: str) -> Any:
        assert self._other_fn is not None
        return self._other_fn(cid)

    def _find_legal(self) -> tuple[DeclarationLike, ...]:
        return self._legal_fn()

    def other(self, cid: str) -> Any:
        """The view of another combatant by id (KeyError if it is not seen)."""
        if self._others is None and self._other_fn is not None:
            by_id = self._by_id
            if by_id is None:
                by_id = self._by_id = {}
            view = by_id.get(cid)
            if view is None:
                self._check("other()")
                view = self._find_other(cid)
                if view is None:
                    raise KeyError(cid)
                by_id[cid] = view
            return view
        for o in self.others:
            if o.id == cid:
                return o
        raise KeyError(cid)

    def legal(self) -> tuple[DeclarationLike, ...]:
        """The declarations the ruleset would accept now (each one on its own)."""
        legal = self._legal
        if legal is None:
            self._check("legal()")
            legal = self._legal = self._find_legal()
        return legal

    def freeze(self) -> Observation:
        """Compute everything now so the observation stays correct after its phase."""
        for view in (self.me, *self.others):
            if isinstance(view, LiveView):
                view.freeze()
        self.legal()
        self._state = None
        return self

    def __iter__(self) -> Iterator[Any]:  # pragma: no cover - guard against misuse
        raise TypeError("an Observation is not iterable: read .me, .others, .legal()")

    def __repr__(self) -> str:
        return (
            f"Observation(segment={self.segment}, actor={self.actor!r}, must_act={self.must_act})"
        )


def _found_by_the_view(*args: Any) -> Any:  # pragma: no cover - never called
    raise AssertionError("a ViewObservation's own view finds what it shows")


class ViewObservation(Observation):
    """An observation whose deciding combatant's view finds the rest itself: ``others``
    is ``me._others()``, ``other(cid)`` is ``me._other(cid)`` (None: not seen) and
    ``legal()`` is ``me._legal()``, so that no function is made for each observation
    (a ruleset's view of the deciding combatant provides the three)."""

    __slots__ = ()

    # What the generic observation calls is the view's to find (see _find_others...):
    # class-wide, not set on each observation.
    _others_fn = _other_fn = _legal_fn = _found_by_the_view

    def __init__(
        self, segment: int, actor: str, must_act: bool, me: Any, state: FightState
    ) -> None:
        self.segment = segment
        self.actor = actor
        self.must_act = must_act
        self.me = me
        self._others = self._by_id = self._legal = None
        self._state = state
        self._version = me._version

    def _find_others(self) -> tuple[Any, ...]:
        others: tuple[Any, ...] = self.me._others()
        return others

    def _find_other(self, cid: str) -> Any:
        return self.me._other(cid)

    def _find_legal(self) -> tuple[DeclarationLike, ...]:
        legal: tuple[DeclarationLike, ...] = self.me._legal()
        return legal
