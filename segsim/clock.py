"""Segments, coarse ticks, and conversion to seconds or a host environment's unit.

Time in segsim is an integer count of segments of 0.1 s (RinKaNou, "Fonctionnement
général"). An action declared at segment ``s`` lasting ``d`` segments occupies segments
``s .. s + d - 1`` and completes at the end of segment ``s + d - 1``, which is simulation
time ``s + d`` (RULES-NOTES, "Time").
"""

from __future__ import annotations

import math
from typing import Any

import attrs

SEGMENT_SECONDS = 0.1
"""Length of one segment in seconds."""


def completion_time(start: int, duration: int) -> int:
    """Simulation time at which an action started at ``start`` for ``duration`` completes."""
    if duration < 1:
        raise ValueError(f"an action lasts at least one segment, not {duration}")
    return start + duration


def last_segment(start: int, duration: int) -> int:
    """The segment in which such an action ends (seed example: 4, 3 -> 6)."""
    return completion_time(start, duration) - 1


def to_seconds(segments: int | float) -> float:
    """Segments to seconds."""
    return round(segments * SEGMENT_SECONDS, 10)


def from_seconds(seconds: float) -> int:
    """Seconds to a whole number of segments (rounded to the nearest)."""
    return round(seconds / SEGMENT_SECONDS)


@attrs.frozen
class Clock:
    """Maps segments onto the time of the SimPy environment a fight runs in.

    ``scale`` is how many environment time units one segment lasts (1 for a fight that
    owns its environment; 0.1 for a host counting seconds; 1/600 for one counting
    minutes). ``origin`` is the environment time at which segment 0 begins.
    ``tick`` is the ruleset's coarse unit in segments (1 for RinKaNou).
    """

    scale: float = 1.0
    origin: int | float = 0.0  # an int stays one (see delay)
    tick: int = 1

    def __attrs_post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"time scale must be positive, not {self.scale}")
        if self.tick < 1:
            raise ValueError(f"a tick lasts at least one segment, not {self.tick}")

    def delay(self, segments: int) -> int | float:
        """Environment delay for a number of segments: an int at one unit per segment
        (a fight of its own books whole segments; ``int | float``, not ``float``, since
        the compiled build makes every float-typed value a float)."""
        return segments * self.scale if self.scale != 1.0 else segments

    def until(self, segment: int, env_time: int | float) -> int | float:
        """Environment delay from ``env_time`` to the start of ``segment`` (never negative):
        how far ahead the engine books a segment boundary."""
        scale = self.scale  # delay()'s arithmetic, without its call (once a boundary)
        delay = (segment * scale if scale != 1.0 else segment) - (env_time - self.origin)
        return delay if delay > 0 else 0

    def segment_at(self, env_time: float) -> int:
        """The segment boundary at an environment time (start of that segment)."""
        return round((env_time - self.origin) / self.scale)

    def segment_during(self, env_time: float) -> int:
        """The segment in progress at an environment time (between two boundaries)."""
        return math.floor((env_time - self.origin) / self.scale + 1e-9)

    def env_time(self, segment: int) -> float:
        """Environment time of the start of a segment."""
        return self.origin + segment * self.scale

    def ticks(self, segments: int) -> float:
        """Segments expressed in the ruleset's ticks."""
        return segments / self.tick

    @staticmethod
    def seconds(segments: int | float) -> float:
        return to_seconds(segments)


_CLOCKS: dict[tuple[Any, ...], Clock] = {}
CLOCKS_KEPT = 64
"""How many clocks :func:`clock` keeps to hand out again (hosts may start fights at many
times: the memo is emptied when full)."""


def clock(scale: float, origin: int | float, tick: int) -> Clock:
    """``Clock(scale=scale, origin=origin, tick=tick)``, the same value handed out again
    (a clock is frozen): a fight of its own is made with the same clock as every other,
    and ``Clock``'s checks and its attrs ``__init__`` cost some 7,000 instructions a
    fight. Keyed by the values' types too (an int origin stays one)."""
    key = (type(scale), scale, type(origin), origin, type(tick), tick)
    found = _CLOCKS.get(key)
    if found is None:
        found = Clock(scale=scale, origin=origin, tick=tick)
        if len(_CLOCKS) >= CLOCKS_KEPT:
            _CLOCKS.clear()
        _CLOCKS[key] = found
    return found
