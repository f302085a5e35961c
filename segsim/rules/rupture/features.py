"""Observation features for learning agents (segsim.envs): a fixed-length vector of what a
Rupture fighter sees, scaled to about [-1, 1]."""

from __future__ import annotations

import math
from collections.abc import Sequence

from segsim.policy import Observation
from segsim.rules.rupture.content import DOMAINS

SLOT_FEATURES = 11


def rupture_features(obs: Observation, slot_ids: Sequence[str]) -> list[float]:
    """Self: effort, stress, bonus dice, whether free, actions left, the attacks rolled
    against it; per slot: side, position, effort, stress, thresholds, wounds, whether
    it is busy, the value of its attack on the viewer just rolled."""
    me = obs.me
    incoming = me.incoming
    out = [
        1.0,
        float(obs.must_act),
        me.effort / max(1, me.max_effort),
        me.stress / max(1, me.stress_max or 10),
        me.bonus / 5.0,
        float(me.free),
        me.actions_left / 5.0,
        len(incoming) / 3.0,
        max((i.value for i in incoming), default=0) / 10.0,
    ]
    by_attacker = {i.attacker: i.value for i in incoming}
    others = {o.id: o for o in obs.others}
    for cid in slot_ids:
        o = others.get(cid)
        if o is None:
            out += [0.0] * SLOT_FEATURES
            continue
        dx = o.position[0] - me.position[0]
        dy = o.position[1] - me.position[1]
        out += [
            1.0,
            float(o.side != me.side),
            dx / 10.0,
            dy / 10.0,
            math.hypot(dx, dy) / 10.0,
            o.effort / max(1, o.max_effort),
            o.stress / max(1, o.stress_max or 10),
            *(o.rupture[d] / 10.0 for d in DOMAINS),
            by_attacker.get(cid, 0) / 10.0,
        ]
    return out
