"""One fixed colour per action kind for each ruleset, the same in every fight and every
view (timeline, fight viewer, report), and the shared text measures of the drawings."""

from __future__ import annotations

import zlib

WAIT_COLOUR = "#eeeeee"

# Attacks warm, defences blue, movement green, preparation purple/yellow, the rules' own
# bookkeeping grey. Kinds a ruleset does not list here get a colour from their name.
KIND_COLOURS: dict[str, dict[str, str]] = {
    "rinkanou": {
        "arm": "#f28e2b",
        "strike": "#e15759",
        "shoot": "#d37295",
        "parry": "#4e79a7",
        "dodge": "#76b7b2",
        "lock": "#9c755f",
        "reposition": "#59a14f",
        "disengage": "#8cd17d",
        "move": "#499894",
        "read": "#b07aa1",
        "ready": "#edc948",
        "draw": "#a0cbe8",
        "regrip": "#ff9da7",
        "pick_up": "#86bcb6",
        "keep": "#79706e",
        "wait": WAIT_COLOUR,
    },
    "chroniques": {
        "attack": "#e15759",
        "concerted_attack": "#d37295",
        "simple_defence": "#4e79a7",
        "total_defence": "#a0cbe8",
        "move": "#499894",
        "draw": "#f28e2b",
        "two_weapons": "#9c755f",
        "capability": "#b07aa1",
        "free": "#edc948",
        "delay": "#bab0ac",
        "pass": "#79706e",
        "turn": "#d9d2e9",
        "await": WAIT_COLOUR,
        "wait": WAIT_COLOUR,
    },
}
_FALLBACK = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
)


def kind_colour(ruleset: str, kind: str) -> str:
    """The colour of an action kind in a ruleset: fixed, whatever the fight."""
    known = KIND_COLOURS.get(ruleset, {}).get(kind)
    if known is not None:
        return known
    if kind == "wait":
        return WAIT_COLOUR
    return _FALLBACK[zlib.crc32(kind.encode("utf-8")) % len(_FALLBACK)]


def kind_order(ruleset: str, kinds: set[str] | frozenset[str]) -> list[str]:
    """Kinds in the ruleset's fixed order (legend order), unknown ones after by name."""
    listed = list(KIND_COLOURS.get(ruleset, {}))
    return [k for k in listed if k in kinds] + sorted(k for k in kinds if k not in listed)


def dark_text(colour: str) -> bool:
    """Whether a label on this fill reads better in dark ink (a light fill)."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 150


CHAR_WIDTH = 0.62
"""Width of a character in ems, an upper bound for the sans-serif labels drawn; label
boxes are computed with it, so labels that fit never overlap."""


def text_width(text: str, size: float) -> float:
    """The width a label takes at ``size`` px (see :data:`CHAR_WIDTH`)."""
    return len(text) * CHAR_WIDTH * size


__all__ = ["KIND_COLOURS", "dark_text", "kind_colour", "kind_order", "text_width"]
