"""Actions and declarations: what a combatant says it does, and the timed thing it becomes.

A :class:`Declaration` is what a policy returns. The ruleset checks it and turns it into
an :class:`ActionSpec` (duration, channel, whether it needs a roll); the engine stamps it
with an id and a start segment, giving an :class:`Action`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

import attrs

EMPTY: Mapping[str, Any] = MappingProxyType({})


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if value is None or (not value and value is not EMPTY):
        return EMPTY
    if isinstance(value, MappingProxyType):
        return value
    return MappingProxyType(dict(value))


@attrs.frozen
class Declaration:
    """A combatant's declared action: its kind, an optional target and parameters.

    ``params`` holds what the ruleset reads (a blow's kind, situation-point spends,
    a wait's ``until`` segment, a difficulty name...).
    """

    kind: str
    target: str | None = None
    params: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)

    def __repr__(self) -> str:
        extra = f", target={self.target!r}" if self.target else ""
        if self.params:
            extra += f", params={dict(self.params)!r}"
        return f"Declaration({self.kind!r}{extra})"


@attrs.frozen
class Cancel:
    """Cancel one of one's own actions in progress (seed 004, "Échelonnement...").

    Declared at the start of a segment and only before the action's last segment; no
    new action may begin in that segment; the cancelled action counts as resolved.
    """

    action: int


DeclarationLike: TypeAlias = Declaration | Cancel
PolicyOutput: TypeAlias = (
    DeclarationLike | list[DeclarationLike] | tuple[DeclarationLike, ...] | None
)


@attrs.frozen
class ActionSpec:
    """The ruleset's verdict on a legal declaration.

    ``duration`` is None for a continuous action (waiting) that lasts until the
    combatant declares something else. ``channel`` says what the action occupies
    ("hands", "legs"...): the ruleset allows one action per channel. ``rolled`` says
    whether resolving it needs a roll. A ``continuous`` action (a wait) ends silently
    when the combatant declares another action in the same channel. ``public`` actions
    show their kind to everyone (a forced lock after a strike). An action that is not
    ``visible`` (a wait, a glance to read an opponent) wakes nobody when it starts or
    resolves.
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
    params: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)


@attrs.frozen
class Action:
    """An action in progress or finished: declared at ``start`` for ``duration`` segments.

    It occupies segments ``start .. last`` and completes at simulation time ``end``.
    """

    id: int
    actor: str
    kind: str
    start: int
    duration: int | None
    channel: str = "main"
    target: str | None = None
    rolled: bool = False
    difficulty: int = 0
    continuous: bool = False
    public: bool = False
    forced: bool = False
    visible: bool = True
    cancelled: bool = False
    params: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)

    @property
    def end(self) -> int | None:
        """Simulation time at which it completes (None while open-ended)."""
        return None if self.duration is None else self.start + self.duration

    @property
    def last(self) -> int | None:
        """The segment in which it ends (None while open-ended)."""
        return None if self.duration is None else self.start + self.duration - 1

    def overlaps(self, other: Action, now: int) -> bool:
        """Whether the two actions share at least one segment (open ones run to ``now``)."""
        a_last = self.last if self.last is not None else now
        b_last = other.last if other.last is not None else now
        return self.start <= b_last and other.start <= a_last

    @classmethod
    def from_spec(cls, spec: ActionSpec, *, id: int, actor: str, start: int) -> Action:
        return cls(
            id=id,
            actor=actor,
            kind=spec.kind,
            start=start,
            duration=spec.duration,
            channel=spec.channel,
            target=spec.target,
            rolled=spec.rolled,
            difficulty=spec.difficulty,
            continuous=spec.continuous,
            public=spec.public,
            forced=spec.forced,
            visible=spec.visible and not spec.continuous,
            params=spec.params,
        )
