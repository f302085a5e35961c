"""Chroniques events: rounds and turns, surprise, attacks, damage, defences.

Every type name starts with ``chroniques.`` so that no other ruleset's events collide.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import attrs

from segsim.eventbase import ROUTINE_KINDS
from segsim.events import Event
from segsim.rules.chroniques.turns import turn_counts

if TYPE_CHECKING:
    from segsim.state import FightState


def _mods(modifiers: Mapping[str, int]) -> str:
    text = " ".join(f"{k} {v:+d}" for k, v in modifiers.items() if v)
    return f" [{text}]" if text else ""


ROUTINE_KINDS.update(("turn", "await"))  # the rules' own time-keeping: bookkeeping


@attrs.frozen
class RoundStarted(Event):
    """A round (tour de combat, 100 segments) begins, with its initiative order."""

    TYPE: ClassVar[str] = "chroniques.round.started"

    round: int
    order: tuple[str, ...]
    initiative: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        if self.round > 1:
            for c in state.combatants.values():
                c.status.surprised = False

    def describe(self) -> str:
        order = ", ".join(f"{cid} ({self.initiative.get(cid, '?')})" for cid in self.order)
        return f"round {self.round} begins; initiative order: {order}"


@attrs.frozen
class AbilityTested(Event):
    """A d20 ability test (the SAG test against an ambush)."""

    TYPE: ClassVar[str] = "chroniques.test"
    __test__: ClassVar[bool] = False  # not a pytest class

    test: str
    ability: str
    roll: int
    total: int
    difficulty: int
    success: bool
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def describe(self) -> str:
        result = "success" if self.success else "failure"
        return (
            f"{self.actor} {self.test} ({self.ability}): rolls {self.roll}"
            f"{_mods(self.modifiers)} = {self.total} vs {self.difficulty} -> {result}"
        )


@attrs.frozen
class Surprised(Event):
    """The fighter is surprised (Surpris): it loses the first round."""

    TYPE: ClassVar[str] = "chroniques.surprised"

    defence_malus: int = 0

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.surprised = True

    def describe(self) -> str:
        malus = f", DEF {-self.defence_malus:+d}" if self.defence_malus else ""
        return f"{self.actor} is surprised: no turn in round 1{malus}"


@attrs.frozen
class ForbiddenEquipment(Event):
    """The fighter uses equipment its profile forbids: untrained maluses, no capabilities;
    a taboo (moral interdiction) is a shock the player must play."""

    TYPE: ClassVar[str] = "chroniques.forbidden"

    items: tuple[str, ...]
    taboo: tuple[str, ...] = ()

    def describe(self) -> str:
        shock = (
            f"; taboo broken ({', '.join(self.taboo)}): play the psychological shock"
            if self.taboo
            else ""
        )
        return (
            f"{self.actor} uses forbidden equipment ({', '.join(self.items)}): "
            f"untrained maluses, no capabilities{shock}"
        )


@attrs.frozen
class InitiativeLowered(Event):
    """The fighter lowers its initiative to act later in this round."""

    TYPE: ClassVar[str] = "chroniques.initiative.lowered"

    round: int
    initiative: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.lowered = (self.round, self.initiative)
        turn_counts(state).lowered += 1

    def describe(self) -> str:
        return f"{self.actor} lowers its initiative to {self.initiative}"


@attrs.frozen
class TurnEnded(Event):
    """The fighter's turn of a round is over."""

    TYPE: ClassVar[str] = "chroniques.turn.ended"
    ROUTINE: ClassVar[bool] = True

    round: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.acted_round = self.round
        acted = turn_counts(state).acted
        acted[self.round] = acted.get(self.round, 0) + 1

    def describe(self) -> str:
        return f"{self.actor}'s turn of round {self.round} is over"


@attrs.frozen
class TurnLost(Event):
    """The fighter has no turn in this round (surprised, initiative down to 0, or the
    round ran out of segments)."""

    TYPE: ClassVar[str] = "chroniques.turn.lost"

    round: int
    reason: str

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.acted_round = self.round
        acted = turn_counts(state).acted
        acted[self.round] = acted.get(self.round, 0) + 1

    def describe(self) -> str:
        return f"{self.actor} loses its turn of round {self.round} ({self.reason})"


@attrs.frozen
class AttackRolled(Event):
    """An attack test: d20 (d12 with two weapons) + modifiers against a difficulty (the
    target's DEF, or 15 for a concerted attack)."""

    TYPE: ClassVar[str] = "chroniques.attack"

    action: int
    target: str
    attack: str  # attack, off hand, concerted
    weapon: str
    die: int
    roll: int
    total: int
    difficulty: int
    success: bool
    critical: bool = False
    fumble: bool = False
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        if self.modifiers.get("concerted"):
            state.combatants[self.actor].status.assists.pop(self.target, None)

    def describe(self) -> str:
        if self.critical and self.success:
            result = "critical success"
        elif self.fumble:
            result = "fumble"
        else:
            result = "success" if self.success else "failure"
        label = "" if self.attack == "attack" else f" ({self.attack})"
        return (
            f"{self.actor} attacks {self.target} with {self.weapon}{label}: d{self.die} "
            f"{self.roll}{_mods(self.modifiers)} = {self.total} vs {self.difficulty} "
            f"-> {result}"
        )


@attrs.frozen
class Damaged(Event):
    """Damage (DM) taken and the hit points left."""

    TYPE: ClassVar[str] = "chroniques.damage"

    attacker: str
    weapon: str
    dice: str
    rolls: tuple[int, ...]
    damage: int
    hit_points: int
    critical: bool = False
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.hit_points = self.hit_points

    def describe(self) -> str:
        crit = " (critical: doubled)" if self.critical else ""
        return (
            f"{self.actor} takes {self.damage} damage from {self.attacker}'s {self.weapon} "
            f"({self.dice}: {'+'.join(map(str, self.rolls))}{_mods(self.modifiers)}){crit}; "
            f"{self.hit_points} hit points left"
        )


@attrs.frozen
class DefenceTaken(Event):
    """Simple (+2) or total (+4) defence until the fighter's next turn."""

    TYPE: ClassVar[str] = "chroniques.defence"

    kind: str
    bonus: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.defence_bonus = self.bonus
        status.defence_kind = self.kind

    def describe(self) -> str:
        return f"{self.actor} takes {self.kind} defence: DEF {self.bonus:+d} until its next turn"


@attrs.frozen
class DefenceEnded(Event):
    """A defence bonus ends with the start of the fighter's next turn."""

    TYPE: ClassVar[str] = "chroniques.defence.ended"

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.defence_bonus = 0
        status.defence_kind = ""

    def describe(self) -> str:
        return f"{self.actor}'s defence bonus ends"


@attrs.frozen
class Assisted(Event):
    """A successful concerted attack: a bonus to the partner's next attack test against
    the target."""

    TYPE: ClassVar[str] = "chroniques.assist"

    partner: str
    target: str
    bonus: int

    def apply(self, state: FightState) -> None:
        assists = state.combatants[self.partner].status.assists
        assists[self.target] = assists.get(self.target, 0) + self.bonus

    def describe(self) -> str:
        return (
            f"{self.actor} distracts {self.target}: {self.partner} gets {self.bonus:+d} "
            f"to its next attack test against {self.target}"
        )


@attrs.frozen
class WeaponDrawn(Event):
    """The fighter readies a carried weapon in one hand; what that hand held (both hands'
    weapons for a two-handed one) is put away."""

    TYPE: ClassVar[str] = "chroniques.weapon.drawn"

    weapon: str
    hand: str
    put_away: tuple[str, ...]

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.hold(status.hands.draw(self.weapon, self.hand)[0])

    def describe(self) -> str:
        away = f" (puts away {', '.join(self.put_away)})" if self.put_away else ""
        hand = " in its off hand" if self.hand == "off" else ""
        return f"{self.actor} draws {self.weapon}{hand}{away}"


@attrs.frozen
class CapabilityUsed(Event):
    """A limited capability was used (its effects belong to chapters not in the excerpt)."""

    TYPE: ClassVar[str] = "chroniques.capability"

    capability: str

    def describe(self) -> str:
        return f"{self.actor} uses {self.capability}"


@attrs.frozen
class FreeActionTaken(Event):
    """A free action without rules effect (speaking, dropping something...)."""

    TYPE: ClassVar[str] = "chroniques.free"

    what: str

    def describe(self) -> str:
        return f"{self.actor}: {self.what} (free action)"


@attrs.frozen
class ActionWasted(Event):
    """A declared action that came to nothing (its target fell earlier in the turn)."""

    TYPE: ClassVar[str] = "chroniques.wasted"

    action: int
    kind: str
    reason: str

    def describe(self) -> str:
        return f"{self.actor}'s {self.kind} comes to nothing: {self.reason}"
