"""RinKaNou events: tests, arming, attack results, wounds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from segsim.events import Event

if TYPE_CHECKING:
    from segsim.state import FightState


@attrs.frozen
class TestRolled(Event):
    """A d100 test: its name, final chance, roll, result and margin, and what made the
    chance (``modifiers``)."""

    TYPE: ClassVar[str] = "test.rolled"
    __test__: ClassVar[bool] = False  # not a pytest class

    action: int | None
    test: str
    chance: int
    roll: int
    success: bool
    critical: bool
    margin: int
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def describe(self) -> str:
        crit = "critical " if self.critical else ""
        result = (
            f"{crit}success, Mr {self.margin}"
            if self.success
            else f"{crit}failure, Me {self.margin}"
        )
        mods = " ".join(f"{k} {v:+d}" for k, v in self.modifiers.items() if v)
        mods = f" [{mods}]" if mods else ""
        return f"{self.actor} {self.test}: rolls {self.roll} vs {self.chance}{mods} -> {result}"


@attrs.frozen
class WeaponState(Event):
    """Whether a fighter's blow is armed, and whether it must lock (recover) next."""

    TYPE: ClassVar[str] = "weapon.state"

    armed: bool
    must_lock: bool

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.armed = self.armed
        status.must_lock = self.must_lock

    def describe(self) -> str:
        if self.armed:
            return f"{self.actor} has armed a blow"
        return f"{self.actor} must lock" if self.must_lock else f"{self.actor} is back on guard"


@attrs.frozen
class AttackResolved(Event):
    """What became of an attack: missed, dodged, parried, blocked or hit."""

    TYPE: ClassVar[str] = "attack.resolved"

    action: int
    target: str
    blow: str
    result: str

    def describe(self) -> str:
        return f"{self.actor}'s {self.blow} at {self.target}: {self.result}"


@attrs.frozen
class WoundTaken(Event):
    """Damage that passed armour, where, and the fighter's wound track after it."""

    TYPE: ClassVar[str] = "wound.taken"

    attacker: str
    location: str
    damage: int
    wound: int
    total: int
    level: str
    malus: int
    detail: Mapping[str, Any] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.wounds = self.total
        status.wound_level = self.level
        status.wound_malus = self.malus

    def describe(self) -> str:
        level = f", {self.level}" if self.level else ""
        return (
            f"{self.actor} is hit in the {self.location.replace('_', ' ')} by {self.attacker}: "
            f"{self.damage} damage, wound {self.wound} (total {self.total}{level})"
        )
