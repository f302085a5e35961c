"""The account's words for a record line: the same sentence ``segsim run`` prints.

A record line is turned back into its event class (every event type registers itself)
and asked to describe itself; a line no class can take (another version, a ruleset not
installed) falls back to its plain fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from segsim.events import EVENT_TYPES

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """``text`` without control characters (terminal escapes, characters XML forbids):
    each becomes U+FFFD, so names print and serialise safely and stay recognisable."""
    return _CONTROL.sub("\ufffd", text)


def load_rules(ruleset: str) -> int:
    """Import a ruleset (so its event classes describe themselves); its tick in segments
    (1 when the ruleset is unknown here)."""
    try:
        from segsim.rules import ruleset_class

        tick = getattr(ruleset_class(ruleset), "tick", 1)
    except Exception:  # an unknown ruleset still draws, with plain descriptions
        return 1
    return tick if isinstance(tick, int) and tick >= 1 else 1


def ruleset_of(ruleset: str, options: Any = None) -> Any:
    """A ruleset with a record's options (so its event classes describe themselves and
    its units are the fight's), or None when it is unknown here or refuses them."""
    try:
        from segsim.rules import get_ruleset

        return get_ruleset(ruleset, dict(options) if isinstance(options, Mapping) else None)
    except Exception:  # an unknown ruleset still draws, with plain descriptions
        load_rules(ruleset)
        return None


def routine_line(event: Mapping[str, Any]) -> bool:
    """Whether a record line is bookkeeping the rules force (see
    :func:`segsim.eventbase.is_routine`), which an account leaves out unless verbose."""
    from segsim.eventbase import ROUTINE_KINDS

    if event.get("type") == "action.declared":
        return event.get("forced") is True and event.get("kind") in ROUTINE_KINDS
    cls = EVENT_TYPES.get(str(event.get("type")))
    return bool(cls is not None and cls.ROUTINE)


def plain(event: Mapping[str, Any]) -> str:
    """The type and the plain fields of an event (the fallback)."""
    parts = [
        f"{k}={v}"
        for k, v in event.items()
        if k not in ("t", "type", "actor", "action") and isinstance(v, str | int | float | bool)
    ]
    return f"{event.get('type', '?')}: {' '.join(parts)}".rstrip(": ")


def describe(event: Mapping[str, Any]) -> str:
    """One readable line for a record event, as the account words it."""
    cls = EVENT_TYPES.get(str(event.get("type")))
    if cls is not None:
        try:
            names = {f.name for f in attrs.fields(cls)}
            return clean(cls(**{k: v for k, v in event.items() if k in names}).describe())
        except Exception:  # a line its class cannot take: say it plainly
            pass
    return clean(plain(event))


__all__ = ["clean", "describe", "load_rules", "plain", "routine_line", "ruleset_of"]
