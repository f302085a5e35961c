"""structlog integration: fight events to loggers, and the readable account renderer.

The library never configures structlog; applications (and segsim's CLI) do. A fight given
a logger sends every event as ``logger.info(event.TYPE, ...)`` with ``fight_id``,
``segment`` and ``combatant`` bound, so log pipelines get the same events as the record.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import structlog

from segsim.clock import to_seconds
from segsim.events import Event


def log_subscriber(logger: Any, fight_id: str) -> Callable[[Event], None]:
    """A fight subscriber that logs each event through a structlog logger."""
    bound = logger.bind(fight_id=fight_id)

    def emit(event: Event) -> None:
        bound.info(
            event.TYPE,
            segment=event.t,
            combatant=event.actor,
            segsim_event=event,
            **event.fields(),
        )

    return emit


class AccountRenderer:
    """A structlog renderer: one readable line per fight event, segment and seconds first."""

    def __init__(self, show_dice: bool = False) -> None:
        self.show_dice = show_dice

    def __call__(self, logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> str:
        event = event_dict.get("segsim_event")
        if not isinstance(event, Event):
            return str(event_dict.get("event", ""))
        if event.TYPE == "die.rolled" and not self.show_dice:
            raise structlog.DropEvent
        return f"{event.t:>5} {to_seconds(event.t):>6.1f}s  {event.describe()}"
