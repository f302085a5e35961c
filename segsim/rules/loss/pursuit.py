"""Pursuit and fights in motion (Loss, "Poursuite & combat en mouvement").

Between each pursuer and each pursued fighter runs a distance in distance units (unités
de distance): 1 au contact, 2 proche, 3 à portée, 4 loin, 5 très loin, 6 hors de
portée. Beyond 6 they lose sight of each other; a pursued fighter out of sight of every
pursuer has escaped. While the chase runs, the plane's positions do not count: a melee
attack needs distance 1, a shot takes the difficulty of the distance + 10.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import attrs

from segsim.events import Event

if TYPE_CHECKING:
    from segsim.state import FightState

PURSUIT = "loss.pursuit"
RULE_PURSUIT = "Loss, Poursuite & combat en mouvement"
LOST_FROM_SIGHT = 6
UNIT_DIFFICULTY: Mapping[int, int] = {1: 15, 2: 15, 3: 20, 4: 25, 5: 30, 6: 35}
"""Difficulty by distance: of a shot, and of changing the distance (15 at distance 1)."""
SHOT_IN_MOTION = 10
"""Every shot in a chase (but shooting the legs) is 10 harder."""
COSTS: Mapping[str, int] = {
    "charge": 3,
    "clothesline": 2,
    "change_distance": 2,
    "tackle": 2,
    "zigzag": 2,
}
"""Action points of the pursuit actions; shooting the legs costs the weapon's speed."""
MANOEUVRES = ("charge", "clothesline", "tackle", "shoot_legs")
"""Pursuit actions the target may dodge."""


@attrs.define
class Chase:
    """Distances of every (pursuer, pursued) pair, zigzags in force, who escaped."""

    pursued_side: str
    distances: dict[tuple[str, str], int] = attrs.field(factory=dict)
    zigzags: dict[str, tuple[int, int]] = attrs.field(factory=dict)  # id -> (bonus, round)
    escaped: list[str] = attrs.field(factory=list)
    over: bool = False
    changed: int = 0  # the round of the last change of distance (0: none yet)

    def units(self, a: str, b: str) -> int | None:
        """Distance between two fighters of the chase (None: not a pair, or lost)."""
        got = self.distances.get((a, b))
        return got if got is not None else self.distances.get((b, a))

    def pair(self, a: str, b: str) -> tuple[str, str] | None:
        if (a, b) in self.distances:
            return (a, b)
        if (b, a) in self.distances:
            return (b, a)
        return None


def chase_of(state: FightState) -> Chase | None:
    chase = state.extra.get(PURSUIT)
    if chase is None or not isinstance(chase, Chase) or chase.over:
        return None
    return chase


@attrs.frozen
class PursuitStarted(Event):
    """A fight in motion begins: the game master sets the distances."""

    TYPE: ClassVar[str] = "loss.pursuit.started"

    pursued_side: str
    distances: Mapping[str, int] = attrs.field(factory=dict)  # "pursuer>pursued" -> units

    def apply(self, state: FightState) -> None:
        chase = Chase(self.pursued_side)
        for key, units in self.distances.items():
            a, _, b = key.partition(">")
            chase.distances[(a, b)] = units
        state.extra[PURSUIT] = chase

    def describe(self) -> str:
        pairs = ", ".join(f"{k.replace('>', ' after ')}: {v}" for k, v in self.distances.items())
        return f"a chase begins ({self.pursued_side} pursued); distances {pairs}"


@attrs.frozen
class DistanceChanged(Event):
    """The distance between a pursuer and a pursued fighter changes."""

    TYPE: ClassVar[str] = "loss.distance"

    pursuer: str
    pursued: str
    units: int

    def apply(self, state: FightState) -> None:
        chase = chase_of(state)
        if chase is None:
            return
        from segsim.rules.loss.events import clock_of

        chase.changed = clock_of(state).round
        if self.units > LOST_FROM_SIGHT:
            chase.distances.pop((self.pursuer, self.pursued), None)
        else:
            chase.distances[(self.pursuer, self.pursued)] = self.units

    def describe(self) -> str:
        if self.units > LOST_FROM_SIGHT:
            return f"{self.pursuer} loses sight of {self.pursued}"
        return f"{self.pursuer} is now at distance {self.units} from {self.pursued}"


@attrs.frozen
class Zigzagged(Event):
    """Zigzags: every pursuit action of the fighter's adversaries is harder this round."""

    TYPE: ClassVar[str] = "loss.zigzag"

    bonus: int
    round: int

    def apply(self, state: FightState) -> None:
        chase = chase_of(state)
        if chase is not None and self.actor is not None:
            chase.zigzags[self.actor] = (self.bonus, self.round)

    def describe(self) -> str:
        return f"{self.actor} zigzags: +{self.bonus} to its pursuers' pursuit actions"


@attrs.frozen
class Escaped(Event):
    """A pursued fighter out of sight of every pursuer has escaped (it leaves the fight)."""

    TYPE: ClassVar[str] = "loss.escaped"

    def apply(self, state: FightState) -> None:
        chase = chase_of(state)
        if chase is not None and self.actor is not None:
            chase.escaped.append(self.actor)
            state.remove(self.actor)

    def describe(self) -> str:
        return f"{self.actor} has escaped: out of sight"


@attrs.frozen
class PursuitEnded(Event):
    """A tackle brings the chase to a stop: the fight goes on as a standard fight, the two
    fighters in contact."""

    TYPE: ClassVar[str] = "loss.pursuit.ended"

    target: str

    def apply(self, state: FightState) -> None:
        chase = state.extra.get(PURSUIT)
        if isinstance(chase, Chase):
            chase.over = True

    def describe(self) -> str:
        return f"{self.actor} tackles {self.target}: the chase is over, the fight goes on"


@attrs.frozen
class PursuitStalled(Event):
    """The game master ends a chase whose distances have not changed for ``rounds``
    rounds (option ``stalled_chase``): the pursuers give up, every pursued fighter
    still running gets away (Interpretations)."""

    TYPE: ClassVar[str] = "loss.pursuit.stalled"

    rounds: int
    escaped: tuple[str, ...] = ()

    def apply(self, state: FightState) -> None:
        chase = chase_of(state)
        if chase is None:
            return
        for cid in self.escaped:
            chase.escaped.append(cid)
            state.remove(cid)

    def describe(self) -> str:
        who = ", ".join(self.escaped) or "nobody"
        return (
            f"the chase has not changed distance for {self.rounds} round(s): the pursuers "
            f"give up; {who} get(s) away"
        )


def zigzag_against(state: FightState, chase: Chase, cid: str, rnd: int) -> int:
    """What the zigzags of ``cid``'s adversaries add to its pursuit actions."""
    me = state.combatants[cid]
    best = 0
    for other, (bonus, when) in chase.zigzags.items():
        o = state.combatants.get(other)
        if o is not None and o.in_fight and o.side != me.side and when == rnd:
            best = max(best, bonus)
    return best
