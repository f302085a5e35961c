"""structlog integration: fight events to loggers, and the readable account renderer.

The library never configures structlog; applications (and segsim's CLI) do. A fight given
a logger sends every event as ``logger.info(event.TYPE, ...)`` with ``fight_id``,
``segment`` and ``combatant`` bound, so log pipelines get the same events as the record.
A fight without a logger does no structlog work at all: this module (and structlog) is
imported only when a logger is given.

Logging costs what its output needs. A logger whose level leaves ``info`` out costs one
check per event. When the chain ends in an :class:`AccountRenderer`, which reads only
the event object, the subscriber does not copy each event's fields into the event
dictionary, and die rolls the renderer would drop never enter the chain; the line
itself is formatted only by the renderer, as it prints it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, MutableMapping
from typing import Any

import structlog

from segsim.clock import to_seconds
from segsim.eventbase import is_routine
from segsim.events import Event

DIE_ROLLED = "die.rolled"


def log_subscriber(logger: Any, fight_id: str) -> Callable[[Event], None]:
    """A fight subscriber that logs each event through a structlog logger.

    Each event goes to ``logger.info(event.TYPE, segment=..., combatant=...,
    segsim_event=event, **event.fields())``, with ``fight_id`` bound; the fields are
    left out when the logger's chain ends in an :class:`AccountRenderer`, which does
    not read them (see the module's docstring).
    """
    bound = logger.bind(fight_id=fight_id)
    enabled = getattr(bound, "is_enabled_for", None)
    if enabled is not None and not enabled(logging.INFO):
        return _ignore
    info = bound.info
    renderer = _renderer(bound)
    if renderer is None:

        def emit(event: Event) -> None:
            info(
                event.TYPE,
                segment=event.t,
                combatant=event.actor,
                segsim_event=event,
                **event.fields(),
            )

        return emit

    hidden: frozenset[str] = frozenset() if renderer.show_dice else frozenset((DIE_ROLLED,))
    verbose = renderer.verbose

    def emit_account(event: Event) -> None:
        if event.TYPE not in hidden and (verbose or not is_routine(event)):
            info(event.TYPE, segment=event.t, combatant=event.actor, segsim_event=event)

    return emit_account


def _ignore(event: Event) -> None:
    """The subscriber of a logger that leaves ``info`` out."""


def _renderer(bound: Any) -> AccountRenderer | None:
    """The account renderer ending a structlog logger's processor chain, if it does."""
    processors = getattr(bound, "_processors", None)
    if not processors:
        return None
    last = list(processors)[-1]
    return last if isinstance(last, AccountRenderer) else None


class AccountRenderer:
    """A structlog renderer: one readable line per fight event, segment and seconds first.

    ``show_dice`` adds every die draw; ``verbose`` the bookkeeping the rules force (a
    coarse ruleset's turns and waits: :func:`segsim.eventbase.is_routine`)."""

    def __init__(self, show_dice: bool = False, verbose: bool = False) -> None:
        self.show_dice = show_dice
        self.verbose = verbose

    def __call__(self, logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> str:
        event = event_dict.get("segsim_event")
        if not isinstance(event, Event):
            return str(event_dict.get("event", ""))
        if (event.TYPE == DIE_ROLLED and not self.show_dice) or (
            not self.verbose and is_routine(event)
        ):
            raise structlog.DropEvent
        return _stamp(event.t) + event.describe()


@functools.lru_cache(maxsize=4096)
def _stamp(segment: int) -> str:
    """The start of an account line: the segment and its time in seconds (the same for
    every event of a segment, so made once)."""
    return f"{segment:>5} {to_seconds(segment):>6.1f}s  "
