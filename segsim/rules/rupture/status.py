"""A Rupture fighter's mutable state during a fight."""

from __future__ import annotations

import attrs

from segsim.rules.rupture.content import Sheet


@attrs.frozen
class Wound:
    """A wound noted on the sheet after an overflow: its nature and the overflow's value
    (Rupture, "Dépassement")."""

    domain: str
    nature: str
    value: int


@attrs.define
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
    """

    effort: int
    max_effort: int
    stress: int = 0
    wounds: list[Wound] = attrs.field(factory=list)
    bonus: int = 0
    malus: int = 0
    targeted_at: int = -1
    rolled: tuple[str, str, int] | None = None
    dead: bool = False
    stabilised: bool = False

    @classmethod
    def of(cls, sheet: Sheet) -> Status:
        return cls(effort=sheet.effort, max_effort=sheet.effort)
