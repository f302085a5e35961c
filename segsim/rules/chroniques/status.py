"""A Chroniques fighter's mutable state during a fight."""

from __future__ import annotations

import attrs

from segsim.rules.chroniques.content import Sheet, Weapon


@attrs.frozen
class Hands:
    """The weapon in hand, the one in the off hand, and the weapons carried."""

    weapon: Weapon
    off_hand: Weapon | None = None
    carried: tuple[Weapon, ...] = ()

    def find(self, wid: object) -> Weapon | None:
        return next((w for w in self.carried if w.id == wid), None)

    def draw(self, wid: str, hand: str = "main") -> tuple[Hands, tuple[str, ...]]:
        """The hands after drawing a carried weapon into ``hand`` (a move action), and the
        ids of what was put away to free that hand (both hands for a two-handed one)."""
        carried = list(self.carried)
        drawn = carried.pop(next(i for i, w in enumerate(carried) if w.id == wid))
        if hand == "off":
            away: tuple[Weapon, ...] = () if self.off_hand is None else (self.off_hand,)
            after = Hands(self.weapon, drawn, (*carried, *away))
        else:
            away = (self.weapon,)
            off = self.off_hand
            if drawn.hands == 2 and off is not None:
                away, off = (self.weapon, off), None
            after = Hands(drawn, off, (*carried, *away))
        return after, tuple(w.id for w in away)


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

    @property
    def hands(self) -> Hands:
        return Hands(self.weapon, self.off_hand, self.carried)

    def hold(self, hands: Hands) -> None:
        self.weapon, self.off_hand, self.carried = hands.weapon, hands.off_hand, hands.carried
