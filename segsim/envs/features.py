"""Observation features: a fixed-length vector per agent, from its frozen Observation.

The vector has a self part and one block per target slot (the other combatants in the
fight's order); a slot whose combatant is out of the fight is all zeros. Values are
scaled to about [-1, 1] and clipped to [-LIMIT, LIMIT].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from segsim.policy import Observation

LIMIT = 10.0
Encoder = Callable[[Observation, Sequence[str]], list[float]]


def _channel_left(me: Any, channel: str, segment: int) -> float:
    a = me.doing(channel)
    if a is None or a.last is None:
        return 0.0
    return float(a.last - segment + 1) / 10.0


_KINDS = ("arm", "strike", "parry", "lock")


def rinkanou_features(obs: Observation, slot_ids: Sequence[str]) -> list[float]:
    me = obs.me
    seg = obs.segment
    waiting = any(a.kind == "wait" for a in me.actions)
    health = max(getattr(me.sheet, "health", 1) or 1, 1)
    out = [
        1.0,  # bias: never an all-zero vector
        float(obs.must_act),
        float(me.armed),
        float(me.must_lock),
        me.ps / 5.0,
        me.usable_ps / 5.0,
        me.wounds / health,
        me.wound_malus / 40.0,
        me.weapon.speed / 5.0,
        me.reach / 4.0,
        _channel_left(me, "hands", seg),
        _channel_left(me, "legs", seg),
        float(me.doing("eyes") is not None),
        float(waiting),
        float(me.weapon_pr > 0),
        float(me.sheet.shield is not None and me.shield_pr > 0),
    ]
    others = {o.id: o for o in obs.others}
    for cid in slot_ids:
        o = others.get(cid)
        if o is None:
            out += [0.0] * 16
            continue
        dx = o.position[0] - me.position[0]
        dy = o.position[1] - me.position[1]
        dist = math.hypot(dx, dy)
        weapon = o.motion("weapon")
        movement = o.motion("movement")
        kind = weapon.kind if weapon is not None else None
        ends = weapon.ends_in if weapon is not None else None
        out += [
            1.0,
            float(o.side != me.side),
            dx / 10.0,
            dy / 10.0,
            dist / 10.0,
            float(dist <= me.reach + 1e-5),
            float(dist <= o.reach + 1e-5),
            float(o.armed),
            float(weapon is not None),
            (seg - weapon.start) / 10.0 if weapon is not None else 0.0,
            *(float(kind == k) for k in _KINDS),
            (ends - seg + 1) / 10.0 if ends is not None else 0.0,
            float(movement is not None),
        ]
    return out


def generic_features(obs: Observation, slot_ids: Sequence[str]) -> list[float]:
    """For any ruleset whose views have ``side`` and ``position``: who is where, who
    is busy."""
    me = obs.me
    pos = getattr(me, "position", (0.0, 0.0))
    out = [1.0, float(obs.must_act), len(getattr(me, "actions", ())) / 5.0]
    for attr in ("hit_points", "max_hit_points"):
        out.append(float(getattr(me, attr, 0)) / 50.0)
    others = {o.id: o for o in obs.others}
    for cid in slot_ids:
        o = others.get(cid)
        if o is None:
            out += [0.0] * 6
            continue
        opos = getattr(o, "position", (0.0, 0.0))
        dx, dy = opos[0] - pos[0], opos[1] - pos[1]
        out += [
            1.0,
            float(getattr(o, "side", None) != getattr(me, "side", None)),
            dx / 10.0,
            dy / 10.0,
            math.hypot(dx, dy) / 10.0,
            float(getattr(o, "hit_points", 0)) / 50.0,
        ]
    return out


def _rupture_features(obs: Observation, slot_ids: Sequence[str]) -> list[float]:
    from segsim.rules.rupture.features import rupture_features

    return rupture_features(obs, slot_ids)


_ENCODERS: dict[str, Encoder] = {"rinkanou": rinkanou_features, "rupture": _rupture_features}


def register_encoder(ruleset: str, encoder: Encoder) -> None:
    _ENCODERS[ruleset] = encoder


def encoder_for(ruleset: str) -> Encoder:
    return _ENCODERS.get(ruleset, generic_features)


def to_array(values: Sequence[float]) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.clip(np.asarray(values, dtype=np.float32), -LIMIT, LIMIT)
