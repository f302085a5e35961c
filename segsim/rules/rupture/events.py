"""Rupture events: passes, tests, attacks and defences, blows, overflows, help and care.

Every type name starts with ``rupture.`` so that no other ruleset's events collide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import attrs

from segsim.events import Event
from segsim.rules.rupture.content import TARGETED
from segsim.rules.rupture.status import Status, Wound

if TYPE_CHECKING:
    from segsim.state import FightState


def _status(state: FightState, cid: str | None) -> Status:
    assert cid is not None
    status: Status = state.combatants[cid].status
    return status


def _faces(faces: tuple[int, ...]) -> str:
    return " ".join(map(str, faces)) or "no dice"


def _difficulty(difficulty: int) -> str:
    return f", difficulty {difficulty}" if difficulty else ""


@attrs.frozen
class PasseStarted(Event):
    """A passe (the round of Rupture) begins."""

    TYPE: ClassVar[str] = "rupture.passe.started"

    passe: int

    def describe(self) -> str:
        return f"passe {self.passe} begins"


@attrs.frozen
class TestRolled(Event):
    """The test of an untargeted action (run, acrobatics, help, heal, work, prepare):
    ``pool`` d6 (``bonus`` of them won earlier), qualities after ``difficulty``."""

    TYPE: ClassVar[str] = "rupture.test"
    __test__: ClassVar[bool] = False  # not a pytest class

    action: int
    kind: str
    skill: str
    pool: int
    faces: tuple[int, ...]
    difficulty: int
    qualities: int
    success: bool
    bonus: int = 0
    what: str = ""
    malus: int = 0

    def apply(self, state: FightState) -> None:
        if self.bonus:
            _status(state, self.actor).bonus = 0
        if self.malus:
            _status(state, self.actor).malus = 0

    def describe(self) -> str:
        result = f"success, {self.qualities} qualities" if self.success else "failure"
        what = f" ({self.what})" if self.what else ""
        return (
            f"{self.actor} {self.kind}{what}: {self.skill} {self.pool}d6 [{_faces(self.faces)}]"
            f"{_difficulty(self.difficulty)} -> {result}"
        )


@attrs.frozen
class AttackRolled(Event):
    """The attacker's test of a targeted action, published before the target defends
    (Rupture, "Les bases résumées"): on a success the attack value is the qualities
    plus the weapon's Threat; on a failure it is 0."""

    TYPE: ClassVar[str] = "rupture.attack"

    action: int
    target: str
    kind: str
    domain: str
    weapon: str
    skill: str
    pool: int
    faces: tuple[int, ...]
    difficulty: int
    qualities: int
    success: bool
    threat: int
    value: int
    bonus: int = 0
    malus: int = 0

    def apply(self, state: FightState) -> None:
        status: Status = state.combatants[self.actor].status  # (_status(), without its call)
        status.targeted_at = self.t
        status.rolled = (self.kind, self.target, self.malus)
        if self.bonus:
            status.bonus = 0
        if self.malus:
            status.malus = 0

    def describe(self) -> str:
        if self.success:
            result = (
                f"{self.qualities} qualities + threat {self.threat} = attack value {self.value}"
            )
        else:
            result = "failure, attack value 0"
        return (
            f"{self.actor} {self.kind}s {self.target} ({self.domain}, {self.weapon}): "
            f"{self.skill} {self.pool}d6 [{_faces(self.faces)}]{_difficulty(self.difficulty)}"
            f" -> {result}"
        )


@attrs.frozen
class DefenceRolled(Event):
    """The target's free defence test: on a success the defence value is the qualities
    plus the Cover of what it defends with (Rupture, "Se défendre")."""

    TYPE: ClassVar[str] = "rupture.defence"

    attacker: str
    blow: int
    skill: str
    pool: int
    faces: tuple[int, ...]
    difficulty: int
    qualities: int
    success: bool
    cover: int
    cover_from: str
    value: int

    def describe(self) -> str:
        if self.success:
            source = f" ({self.cover_from})" if self.cover_from else ""
            result = (
                f"{self.qualities} qualities + cover {self.cover}{source} = defence value "
                f"{self.value}"
            )
        else:
            result = "failure, defence value 0"
        return (
            f"{self.actor} defends against {self.attacker}: {self.skill} {self.pool}d6 "
            f"[{_faces(self.faces)}]{_difficulty(self.difficulty)} -> {result}"
        )


@attrs.frozen
class BlowSettled(Event):
    """A targeted action lands: final value = attack value - defence value. At 0 or less
    it is dodged, blocked or turned aside; otherwise the target loses that many effort
    points, and takes as physical stress what its effort cannot pay (Rupture, "Les bases
    résumées"). ``effort`` and ``stress`` are the totals after the blow."""

    TYPE: ClassVar[str] = "rupture.blow"

    attacker: str
    blow: int
    domain: str
    attack: int
    defence: int
    final: int
    effort_lost: int
    stress_taken: int
    effort: int
    stress: int

    @property
    def damage(self) -> int:
        """What got through (effort lost and stress taken): what sweeps count as damage."""
        return self.effort_lost + self.stress_taken

    def apply(self, state: FightState) -> None:
        status: Status = state.combatants[self.actor].status  # (_status(), without its call)
        status.effort = self.effort
        status.stress = self.stress

    def describe(self) -> str:
        head = (
            f"{self.attacker}'s {self.domain} blow on {self.actor}: {self.attack} - "
            f"{self.defence} = {self.final}"
        )
        if self.final <= 0:
            return f"{head} -> turned aside"
        stress = f", {self.stress_taken} physical stress" if self.stress_taken else ""
        return (
            f"{head} -> {self.effort_lost} effort lost{stress} (effort {self.effort}, "
            f"stress {self.stress})"
        )


@attrs.frozen
class Hindered(Event):
    """A hindrance lands (Rupture: a targeted action that "le gêne ou lui inflige des
    malus"): final value = attack value - defence value, as for any targeted action;
    above 0 the target loses that many dice (``dice``) from its next action test,
    ``malus`` in all. It costs no effort."""

    TYPE: ClassVar[str] = "rupture.hindered"

    attacker: str
    blow: int
    domain: str
    attack: int
    defence: int
    final: int
    dice: int
    malus: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).malus = self.malus

    def describe(self) -> str:
        head = (
            f"{self.attacker} hinders {self.actor} ({self.domain}): {self.attack} - "
            f"{self.defence} = {self.final}"
        )
        if self.dice <= 0:
            return f"{head} -> shrugged off"
        return f"{head} -> -{self.dice}d6 to its next action test (malus {self.malus})"


@attrs.frozen
class Overflowed(Event):
    """An overflow (dépassement): the final value exceeded the target's rupture threshold
    for that domain by ``value``; that much physical stress at once, a wound noted with
    its nature and value, out of the fight at 4, dead at 8 (Rupture, "Dépassement")."""

    TYPE: ClassVar[str] = "rupture.overflow"

    attacker: str
    domain: str
    nature: str
    final: int
    threshold: int
    value: int
    stress: int
    wound: bool
    effect: str  # "", "out of the fight", "dead"

    @property
    def damage(self) -> int:
        """The overflow's stress, on top of the blow's (what sweeps count as damage)."""
        return self.value

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.stress = self.stress
        if self.wound:
            status.wounds.append(Wound(self.domain, self.nature, self.value))
        if self.effect == "dead":
            status.dead = True

    def describe(self) -> str:
        wound = f"; wound noted: {self.nature} {self.value}" if self.wound else ""
        effect = f"; {self.effect}" if self.effect else ""
        return (
            f"{self.actor} overflows ({self.domain}): {self.final} - threshold "
            f"{self.threshold} = {self.value}, stress now {self.stress}{wound}{effect}"
        )


@attrs.frozen
class Prepared(Event):
    """A preparation succeeded: bonus dice for the fighter's next action test."""

    TYPE: ClassVar[str] = "rupture.prepared"

    dice: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).bonus += self.dice

    def describe(self) -> str:
        return f"{self.actor} prepares: +{self.dice}d6 to its next action test"


@attrs.frozen
class Helped(Event):
    """Help succeeded: bonus dice for the ally's next action test."""

    TYPE: ClassVar[str] = "rupture.helped"

    ally: str
    dice: int

    def apply(self, state: FightState) -> None:
        _status(state, self.ally).bonus += self.dice

    def describe(self) -> str:
        return f"{self.actor} helps {self.ally}: +{self.dice}d6 to its next action test"


@attrs.frozen
class Healed(Event):
    """Care in the fight gives an ally back effort points (never above its maximum)."""

    TYPE: ClassVar[str] = "rupture.healed"

    ally: str
    restored: int
    effort: int

    def apply(self, state: FightState) -> None:
        _status(state, self.ally).effort = self.effort

    def describe(self) -> str:
        return f"{self.actor} tends {self.ally}: +{self.restored} effort (effort {self.effort})"


@attrs.frozen
class Stabilised(Event):
    """A fallen ally (out of the fight, alive) is tended: it stays out of the fight."""

    TYPE: ClassVar[str] = "rupture.stabilised"

    ally: str

    def apply(self, state: FightState) -> None:
        _status(state, self.ally).stabilised = True

    def describe(self) -> str:
        return f"{self.actor} stabilises {self.ally}"


@attrs.frozen
class ActionWasted(Event):
    """A declared action that came to nothing (its target or its author fell first)."""

    TYPE: ClassVar[str] = "rupture.wasted"

    action: int
    kind: str
    reason: str

    def apply(self, state: FightState) -> None:
        if self.kind in TARGETED:
            status = _status(state, self.actor)
            status.targeted_at = self.t
            status.rolled = None

    def describe(self) -> str:
        return f"{self.actor}'s {self.kind} comes to nothing: {self.reason}"
