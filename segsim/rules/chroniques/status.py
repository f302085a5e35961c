"""A Chroniques fighter's mutable state during a fight."""

from __future__ import annotations

import attrs

from segsim.rules.chroniques.content import Sheet, Weapon


@attrs.define
class Status:
    """Hit points, weapons in hand, the turn taken this round, temporary bonuses.

    Only events change it. ``acted_round`` is the last round whose turn was taken or
    lost; ``lowered`` the (round, initiative) a fighter lowered itself to;
    ``assists`` the concerted-attack bonuses it may use, by target.
    """

    hit_points: int
    max_hit_points: int
    weapon: Weapon
    off_hand: Weapon | None = None
    carried: tuple[Weapon, ...] = ()
    acted_round: int = 0
    lowered: tuple[int, int] | None = None
    defence_bonus: int = 0
    defence_kind: str = ""
    surprised: bool = False
    assists: dict[str, int] = attrs.field(factory=dict)

    @classmethod
    def of(cls, sheet: Sheet) -> Status:
        return cls(
            hit_points=sheet.hit_points,
            max_hit_points=sheet.hit_points,
            weapon=sheet.weapon,
            off_hand=sheet.off_hand,
            carried=sheet.carried,
        )
