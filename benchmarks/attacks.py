"""Resolved attacks per fight, one small counter per ruleset.

A resolved attack is an attack whose outcome was settled: the rules said whether it
missed, was stopped or hit. An attack still pending when the fight ends, or one that
came to nothing because its target had already fallen, is not counted. Each counter
reads a fight's events, live (``fight.history``: objects with ``TYPE``) or read back from
a record (mappings with ``"type"``):

* **RinKaNou**: one ``attack.resolved`` event per attack (a strike, a missile, a blow
  at a fighter kept at a distance), naming its result (missed, dodged, parried, blocked,
  hit).
* **Loss**: one ``loss.attack`` event per attack and target, once its outcome is known
  (missed at the attack test, or hit or stopped once the target's parry or dodge is
  settled; a ``loss.attack.pending`` attack is not yet resolved).
* **Chroniques**: one ``chroniques.attack`` event per attack test, whose outcome is
  settled at once (a success deals its damage in the same settlement).
* **Rupture**: an attack (any targeted action: an attack, a threat, an intimidation,
  a persuasion, a hindrance) is settled either at its test, when it fails
  (``rupture.attack`` with ``success`` false: attack value 0, nothing lands), or when
  its blow lands a segment later against the target's defence (``rupture.blow``, or
  ``rupture.hindered`` for a hindrance). A successful test is not counted itself: its
  blow is.
* **Loreval**: one ``loreval.attack`` event per attack roll, settled at once against
  a passive score or the defender's roll.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

WAITING = frozenset({"wait", "await"})
"""Action kinds that are waiting: RinKaNou's ``wait`` and the coarse rulesets' ``await``
(the rules' own wait for a fighter's turn); "actions other than waiting" leave them out."""


def event_type(event: Any) -> str:
    """The type of a live event (its ``TYPE``) or of one read back (its ``"type"``)."""
    if isinstance(event, Mapping):
        return str(event["type"])
    return str(event.TYPE)


def field(event: Any, name: str) -> Any:
    """A field of a live event or of one read back from a record."""
    if isinstance(event, Mapping):
        return event[name]
    return getattr(event, name)


def _count(events: Iterable[Any], *types: str) -> int:
    return sum(1 for e in events if event_type(e) in types)


def rinkanou(events: Iterable[Any]) -> int:
    """RinKaNou: ``attack.resolved``, one per attack, whatever its result."""
    return _count(events, "attack.resolved")


def loss(events: Iterable[Any]) -> int:
    """Loss: ``loss.attack``, one per attack and target once its outcome is settled."""
    return _count(events, "loss.attack")


def chroniques(events: Iterable[Any]) -> int:
    """Chroniques: ``chroniques.attack``, the attack test, settled at once."""
    return _count(events, "chroniques.attack")


def rupture(events: Iterable[Any]) -> int:
    """Rupture: a targeted action's failed test, or its blow landing (a blow or a
    hindrance) against the target's defence."""
    settled = 0
    for e in events:
        kind = event_type(e)
        landed = kind in ("rupture.blow", "rupture.hindered")
        settled += landed or (kind == "rupture.attack" and not field(e, "success"))
    return settled


def loreval(events: Iterable[Any]) -> int:
    """Loreval: ``loreval.attack``, each attack roll, settled at once."""
    return _count(events, "loreval.attack")


COUNTERS: dict[str, Callable[[Iterable[Any]], int]] = {
    "rinkanou": rinkanou,
    "loss": loss,
    "chroniques": chroniques,
    "rupture": rupture,
    "loreval": loreval,
}
"""The resolved-attack counter of each ruleset, by its name."""


def resolved_attacks(ruleset: str, events: Iterable[Any]) -> int:
    """The resolved attacks among a fight's ``events`` under ``ruleset``'s counter."""
    try:
        counter = COUNTERS[ruleset]
    except KeyError:
        raise ValueError(
            f"no resolved-attack counter for the ruleset {ruleset!r}: the counters are "
            f"{', '.join(COUNTERS)}"
        ) from None
    return counter(events)
