"""What a Chroniques fighter sees when it decides.

Chroniques is played in turns at a table: every fighter's position, weapon, DEF and hit
points are known to all; a fighter's own view adds its sheet and the state of its turn.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from segsim.actions import Action
from segsim.rules.chroniques.attack import CONTACT, Point, distance, within
from segsim.rules.chroniques.content import Sheet, Weapon


@attrs.frozen
class OtherView:
    """Another fighter as everyone sees it."""

    id: str
    side: str
    name: str
    is_pc: bool
    position: Point
    weapon: Weapon
    off_hand: Weapon | None
    defence: int
    hit_points: int
    max_hit_points: int
    initiative: int
    acted: bool  # has taken (or lost) its turn of the current round
    surprised: bool

    def distance(self, other: OtherView | SelfView) -> float:
        return distance(self.position, other.position)


@attrs.frozen
class SelfView:
    """The deciding fighter's own state.

    ``my_turn`` says whether it may declare its turn now; ``turn_ends`` is the segment in
    which that turn resolves. ``attack`` gives the standing attack bonus of the weapon in
    hand (and ``off_attack`` of the off-hand weapon).
    """

    id: str
    side: str
    name: str
    position: Point
    sheet: Sheet
    round: int
    my_turn: bool
    turn_ends: int | None
    initiative: int
    acted: bool
    surprised: bool
    hit_points: int
    max_hit_points: int
    defence: int
    defence_bonus: int
    weapon: Weapon
    off_hand: Weapon | None
    carried: tuple[Weapon, ...]
    attack: int
    off_attack: int | None
    capabilities_usable: bool
    assists: Mapping[str, int]
    actions: tuple[Action, ...]

    def distance(self, other: OtherView) -> float:
        return distance(self.position, other.position)

    def in_contact(self, other: OtherView) -> bool:
        return within(self.position, other.position, CONTACT)

    def in_range(self, other: OtherView, weapon: Weapon | None = None) -> bool:
        """Whether ``other`` can be attacked from here with ``weapon`` (default: in hand)."""
        weapon = weapon or self.weapon
        reach = CONTACT if weapon.kind == "melee" else weapon.range
        return within(self.position, other.position, reach)
