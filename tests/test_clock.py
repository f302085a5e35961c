"""Segment timing (RinKaNou, "Échelonnement des actions dans le temps"; RULES-NOTES, Time)."""

from __future__ import annotations

import pytest
import simpy
from simpy.events import NORMAL, EventPriority

from segsim.clock import Clock, completion_time, from_seconds, last_segment, to_seconds


def test_seed_example_start_4_lasting_3_ends_in_6() -> None:
    # Started in the fourth segment and lasting 3, it runs in segments 4, 5 and 6.
    assert last_segment(4, 3) == 6
    assert completion_time(4, 3) == 7


def test_minimum_duration_is_one_segment() -> None:
    assert last_segment(4, 1) == 4
    with pytest.raises(ValueError, match="at least one segment"):
        completion_time(4, 0)


def test_a_fight_of_its_own_books_whole_segments() -> None:
    """At one unit per segment the delay stays an integer, so the environment's time does."""
    delay = Clock(origin=0).until(12, 7)
    assert delay == 5 and type(delay) is int


def test_seconds_conversion() -> None:
    assert to_seconds(37) == 3.7
    assert from_seconds(3.7) == 37
    assert Clock.seconds(10) == 1.0


def test_clock_scale_maps_segments_to_host_units() -> None:
    host_seconds = Clock(scale=0.1, origin=100.0)
    assert host_seconds.delay(37) == pytest.approx(3.7)
    assert host_seconds.segment_at(103.7) == 37
    assert host_seconds.env_time(5) == pytest.approx(100.5)
    # A boundary booked from the host's time: ahead of it, never behind it.
    assert host_seconds.until(37, 101.0) == pytest.approx(2.7)
    assert host_seconds.until(5, 101.0) == 0
    with pytest.raises(ValueError):
        Clock(scale=0)
    with pytest.raises(ValueError):
        Clock(tick=0)


def test_simpy_honours_a_custom_priority_after_normal_events() -> None:
    """The engine relies on this undocumented SimPy behaviour (DESIGN, principle 2): an
    already-triggered event scheduled with priority 2 runs after every NORMAL event of
    the same time, even those scheduled later; what it triggers with no delay runs after
    it."""
    env = simpy.Environment()
    order: list[str] = []

    late = simpy.Event(env)
    late._ok = True
    late._value = None
    late.callbacks.append(lambda _e: order.append("settle"))
    late.callbacks.append(
        lambda _e: env.timeout(0).callbacks.append(lambda _e: order.append("after"))
    )
    env.schedule(late, EventPriority(2), 5)

    def proc(name: str, delay: int) -> simpy.events.ProcessGenerator:
        yield env.timeout(delay)
        order.append(name)

    env.process(proc("normal-a", 5))
    env.process(proc("normal-b", 5))
    env.run()
    assert order == ["normal-a", "normal-b", "settle", "after"]
    assert NORMAL == 1
