"""A Rupture fighter's mutable state during a fight."""

from __future__ import annotations

from typing import ClassVar

import attrs

from segsim.rules.rupture.content import Sheet


@attrs.frozen
class Wound:
    """A wound noted on the sheet after an overflow: its nature and the overflow's value
    (Rupture, "Dépassement")."""

    domain: str
    nature: str
    value: int


class Status:
    """Effort points left, physical stress taken, wounds, bonus dice for the next action.

    Only events change it. ``bonus`` holds dice won by preparing or by an ally's help,
    spent on the fighter's next action test; ``malus`` the dice an opponent's hindrance
    takes from that test (Rupture: a targeted action may "inflict maluses");
    ``targeted_at`` the segment its last targeted action was rolled in (or came to
    nothing): its slot is over only when the blow has landed, at the slot's end;
    ``rolled`` that action's kind and target and the malus its test spent, which the
    others see as still to come until the blow lands (docs/rules/rupture.md,
    "Immédiatement").

    A plain class (with attrs' equality and repr written out) rather than an attrs one:
    the compiled build makes it a native class, whose fields the compiled settlement,
    planner and views read directly (segsim/native.py).
    """

    __slots__ = (
        "bonus",
        "dead",
        "effort",
        "malus",
        "max_effort",
        "rolled",
        "stabilised",
        "stress",
        "targeted_at",
        "wounds",
    )
    _FIELDS: ClassVar[tuple[str, ...]] = (
        "effort",
        "max_effort",
        "stress",
        "wounds",
        "bonus",
        "malus",
        "targeted_at",
        "rolled",
        "dead",
        "stabilised",
    )

    def __init__(
        self,
        effort: int,
        max_effort: int,
        stress: int = 0,
        wounds: list[Wound] | None = None,
        bonus: int = 0,
        malus: int = 0,
        targeted_at: int = -1,
        rolled: tuple[str, str, int] | None = None,
        dead: bool = False,
        stabilised: bool = False,
    ) -> None:
        self.effort = effort
        self.max_effort = max_effort
        self.stress = stress
        self.wounds: list[Wound] = [] if wounds is None else wounds
        self.bonus = bonus
        self.malus = malus
        self.targeted_at = targeted_at
        self.rolled = rolled
        self.dead = dead
        self.stabilised = stabilised

    @classmethod
    def of(cls, sheet: Sheet) -> Status:
        return cls(sheet.effort, sheet.effort)

    def _values(self) -> tuple[object, ...]:
        return (
            self.effort,
            self.max_effort,
            self.stress,
            self.wounds,
            self.bonus,
            self.malus,
            self.targeted_at,
            self.rolled,
            self.dead,
            self.stabilised,
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not Status:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as attrs.define's

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._FIELDS, self._values(), strict=True)
        )
        return f"Status({shown})"
