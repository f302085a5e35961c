"""What a RinKaNou fighter sees: its own full state, others' public state.

An opponent's started action, its start segment and its motion class (weapon motion,
movement) are public; its kind, target and end are hidden until it resolves, unless it is
public by nature (a forced lock) or the observer has read it (RULES-NOTES,
"Observability").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from segsim.actions import Action
from segsim.rules.rinkanou.content import Sheet, Weapon

MOTION = {
    "arm": "weapon",
    "strike": "weapon",
    "parry": "weapon",
    "lock": "weapon",
    "dodge": "movement",
    "reposition": "movement",
    "disengage": "movement",
    "move": "movement",
    "ready": "weapon",
    "shoot": "weapon",
    "draw": "weapon",
    "regrip": "weapon",
    "pick_up": "movement",
    "keep": "weapon",
    "projectile": "projectile",
}
"""Visible motion class of each action kind (a strike and a parry both start by arming)."""


@attrs.frozen
class SeenAction:
    """Another fighter's action as an observer sees it; hidden fields are None."""

    id: int
    start: int
    motion: str
    kind: str | None = None
    target: str | None = None
    ends_in: int | None = None


@attrs.frozen
class SelfView:
    id: str
    side: str
    position: tuple[float, float]
    sheet: Sheet
    reach: float  # the weapon's reach in metres
    armed: bool
    must_lock: bool
    ps: int  # points de situation: the score
    usable_ps: int  # what is left of a positive score for a new action now
    engaged: tuple[str, ...]  # opponents taken into account
    ps_against: Mapping[str, int]  # the score as it applies against each opponent
    wounds: int
    wound_level: str
    wound_malus: int
    surprise_malus: int
    weapon_pr: int
    shield_pr: int
    disengaged: bool
    command_points: int  # points de commandement (PC)
    wielding: str  # "melee" or "ranged"
    loaded: bool
    grip: str
    shield_aside: bool
    actions: tuple[Action, ...]
    oppose_disengage: bool = True  # its stance: it opposes an opponent's disengage
    _foe: Callable[[], str | None] = attrs.field(
        default=lambda: None, eq=False, repr=False, alias="foe"
    )

    def nearest_foe(self) -> str | None:
        """The nearest opponent, seen or not: where the enemy is (asked for, not built
        with every observation)."""
        return self._foe()

    @property
    def weapon(self) -> Weapon:
        return self.sheet.weapon

    def ps_limits(self, kind: str, duration: int | None = None) -> dict[str, int]:
        """The most of each PS spend and buy a new ``kind`` action could take now.

        ``duration`` defaults to the action's usual one (weapon speed, 3 for a dodge...).
        A negative score must be bought back first: see ``ps_against``.
        """
        from segsim.rules.rinkanou.situation import ps_limits

        usual = {"strike": self.weapon.speed, "dodge": 3, "reposition": 5, "disengage": 10}
        if kind == "parry":
            usual["parry"] = self.weapon.speed if self.armed else 2 * self.weapon.speed
        return ps_limits(
            kind=kind,
            duration=duration if duration is not None else usual.get(kind),
            rolled=kind in ("strike", "parry", "dodge", "reposition", "disengage", "read"),
            sheet=self.sheet,
            weapon_used=kind in ("strike", "parry"),
            usable=self.usable_ps,
        )

    def doing(self, channel: str) -> Action | None:
        """The non-continuous action in progress in a channel ("hands", "legs"...)."""
        for a in self.actions:
            if a.channel == channel and not a.continuous:
                return a
        return None


@attrs.frozen
class OtherView:
    id: str
    side: str
    position: tuple[float, float]
    weapon: Weapon
    reach: float
    has_shield: bool
    armed: bool
    wound_level: str
    actions: tuple[SeenAction, ...]
    wielding: str = "melee"
    grip: str = "held"

    def incoming(self, me: str) -> list[SeenAction]:
        """Its missiles in flight toward ``me``."""
        return [a for a in self.actions if a.kind == "projectile" and a.target == me]

    def motion(self, motion: str) -> SeenAction | None:
        for a in self.actions:
            if a.motion == motion:
                return a
        return None
