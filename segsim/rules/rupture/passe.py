"""The passe on the segment clock (Rupture, "Les actions ciblées": an action is one of
the actions of the passe).

A passe lasts ``passe_segments`` segments (30 by default, RULES-NOTES "Time"): passe
``n`` (from 1) covers segments ``P (n - 1) .. P n - 1``. A fighter with ``k`` actions per
passe has ``k`` slots of ``P // k`` segments from the passe's first segment; an action
that costs one fills the rest of the slot it begins in, so the fighter declares again at
the next slot boundary (the last slot runs to the end of the passe when ``P`` is not a
multiple of ``k``); a targeted action is rolled a segment before that boundary and its
blow lands at it. One such action at a time, and therefore at most one per slot and
``k`` per passe.
"""

from __future__ import annotations


def passe_of(segment: int, passe: int) -> int:
    """The passe (from 1) a segment belongs to."""
    return segment // passe + 1


def passe_start(n: int, passe: int) -> int:
    """The first segment of passe ``n``."""
    return (n - 1) * passe


def slot_length(actions: int, passe: int) -> int:
    return max(1, passe // actions)


def slot_starts(n: int, actions: int, passe: int) -> list[int]:
    """The first segments of a fighter's slots in passe ``n``."""
    step = slot_length(actions, passe)
    base = passe_start(n, passe)
    return [base + k * step for k in range(min(actions, passe))]


def next_boundary(segment: int, actions: int, passe: int) -> int:
    """The first slot start after ``segment`` (possibly the next passe's first segment).

    Worked out rather than searched: the slots start every :func:`slot_length` segments
    from the passe's first, ``min(actions, passe)`` of them (asked at every decision)."""
    step = passe // actions if actions <= passe else 1
    base = segment - segment % passe
    k = (segment - base) // step + 1
    if k < (actions if actions < passe else passe):
        return base + k * step
    return base + passe


def slots_left(segment: int, actions: int, passe: int) -> int:
    """Slots of the passe beginning at or after ``segment``, counting the one in
    progress (the actions still to come if the fighter is free now)."""
    step = passe // actions if actions <= passe else 1
    count = actions if actions < passe else passe
    # The slot in progress is the k-th (from 0), the last one running to the passe's end.
    k = min((segment % passe) // step, count - 1)
    return count - k
