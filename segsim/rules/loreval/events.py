"""Loreval events: initiative and rounds, declarations, attacks, damage, counters.

Every type name starts with ``loreval.`` so that no other ruleset's events collide.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from segsim.eventbase import ROUTINE_KINDS
from segsim.events import Event
from segsim.rules.loreval.attention import Attention
from segsim.rules.loreval.status import Plan, Status
from segsim.scriptline import params_in_words

if TYPE_CHECKING:
    from segsim.state import FightState


def _mods(modifiers: Mapping[str, int]) -> str:
    text = " ".join(f"{k} {v:+d}" for k, v in modifiers.items() if v)
    return f" [{text}]" if text else ""


HOLDS = "loreval.holds"
"""Set in ``state.extra`` once anyone in the fight has grappled or locked anyone
(:class:`Grappled`, :class:`Locked`): until then a fall lets go of nothing
(``Settlement.let_go``)."""


def _status(state: FightState, cid: str | None) -> Status:
    assert cid is not None
    status: Status = state.combatants[cid].status
    return status


ROUTINE_KINDS.update(("turn", "await"))  # the rules' own time-keeping: bookkeeping


@attrs.frozen
class InitiativeRolled(Event):
    """d20 + initiative skill (+ a malus after a grace round taken at a changed action):
    the fighter's new initiative points, at least 1."""

    TYPE: ClassVar[str] = "loreval.initiative"

    roll: int
    skill: int
    points: int
    malus: int = 0

    def apply(self, state: FightState) -> None:
        # _status(), without its call (a battle's first round applies a thousand)
        status: Status = state.combatants[self.actor].status
        status.initiative = self.points
        status.next_roll_malus = 0

    def describe(self) -> str:
        malus = f" {self.malus:+d}" if self.malus else ""
        return (
            f"{self.actor} rolls initiative: d20 {self.roll} + {self.skill}{malus} = "
            f"{self.points} points"
        )


@attrs.frozen
class SetUp(Event):
    """The game master's calls for a fighter at the start: its attention criteria before
    the first declaration, whether it is hidden, its weapon ready, senses lost."""

    TYPE: ClassVar[str] = "loreval.setup"

    attention: Mapping[str, int] = attrs.field(factory=dict)
    hidden: bool = False
    weapon_ready: bool = True
    senses_lost: int = 0
    slowed: bool = False
    hasted: bool = False

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.attention = Attention(**self.attention)
        status.hidden = self.hidden
        status.weapon_ready = self.weapon_ready
        status.senses_lost = self.senses_lost
        status.slowed = self.slowed
        status.hasted = self.hasted

    def describe(self) -> str:
        att = "/".join(str(self.attention.get(k, 0)) for k in ("environment", "security", "focus"))
        extra = " hidden" if self.hidden else ""
        extra += "" if self.weapon_ready else ", weapon not ready"
        extra += f", {self.senses_lost} sense(s) lost" if self.senses_lost else ""
        extra += ", slowed" if self.slowed else ""
        extra += ", hasted" if self.hasted else ""
        return f"{self.actor} starts with attention E/S/F {att}{extra}"


@attrs.frozen
class PerceptionLost(Event):
    """The fighter's Perception is under a malus (the game master's call at the start):
    its detection rolls lose as much, and its attention points 1 per 4 points lost,
    never below 1 (Loreval, "Nombre de points d'attention")."""

    TYPE: ClassVar[str] = "loreval.perception.lost"

    malus: int
    attention_points: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).perception_malus = self.malus

    def describe(self) -> str:
        return (
            f"{self.actor} has lost {self.malus} point(s) of perception: "
            f"{self.attention_points} attention point(s)"
        )


@attrs.frozen
class Invisible(Event):
    """The fighter is invisible (the game master's call at the start): an opponent must
    locate it to attack it, which needs 2 in Environment and a detection roll, and then
    attacks at -10 (Loreval, "Camouflage", "Environnement")."""

    TYPE: ClassVar[str] = "loreval.invisible"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).invisible = True

    def describe(self) -> str:
        return f"{self.actor} is invisible"


@attrs.frozen
class SitsOut(Event):
    """The fighter sits out the round as a grace round (it joined during the round)."""

    TYPE: ClassVar[str] = "loreval.sits_out"

    round: int
    reason: str

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.grace = self.reason
        status.declared_round = self.round
        status.resolved_round = self.round

    def describe(self) -> str:
        return f"{self.actor} sits out round {self.round} ({self.reason})"


@attrs.frozen
class Surprised(Event):
    """The fighter is surprised (pris au dépourvu): no initiative, a grace round, and its
    Security counts as 0 during the surprise round."""

    TYPE: ClassVar[str] = "loreval.surprised"

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.surprised = True
        status.initiative = 0

    def describe(self) -> str:
        return f"{self.actor} is surprised: no initiative, Security 0 this round"


@attrs.frozen
class SurpriseAvoided(Event):
    """The game master called a surprise, but the fighter's Environment rules it out:
    1 point and it is never surprised by what its own allies do, 2 and never by
    opponents who took no precautions (Loreval, "Déroulement d'un round de surprise")."""

    TYPE: ClassVar[str] = "loreval.surprise.avoided"

    by: str
    environment: int

    def describe(self) -> str:
        what = "its allies" if self.by == "allies" else "opponents who took no precautions"
        return f"{self.actor} is not surprised by {what}: {self.environment} in Environment"


@attrs.frozen
class DetectionRolled(Event):
    """A detection roll against a surprise (Environment 2: always allowed)."""

    TYPE: ClassVar[str] = "loreval.detection"

    roll: int
    total: int
    difficulty: int
    success: bool

    def describe(self) -> str:
        result = "detects the ambush" if self.success else "fails to detect the ambush"
        return (
            f"{self.actor} detection: d20 {self.roll} = {self.total} vs {self.difficulty}: {result}"
        )


@attrs.frozen
class RoundStarted(Event):
    """A round begins: who acts in which order (descending), everyone's points, the
    tie-break dice of the round and who sits out a grace round (and why)."""

    TYPE: ClassVar[str] = "loreval.round.started"

    round: int
    order: tuple[str, ...]
    points: Mapping[str, int] = attrs.field(factory=dict)
    ties: Mapping[str, int] = attrs.field(factory=dict)
    grace: Mapping[str, str] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        combatants = state.combatants
        rnd, t = self.round, self.t
        points, ties, grace = self.points, self.ties, self.grace
        later = rnd > 1
        for cid in self.order:  # (everyone in the fight: no call a fighter)
            status: Status = combatants[cid].status
            status.round, status.round_start = rnd, t
            status.start_points = points.get(cid, status.initiative)
            status.tie = ties.get(cid, 0)
            status.blocked = False
            status.plan = None
            if later:
                status.surprised = False
            if not grace:  # (nobody sits this round out: a battle's rounds)
                status.grace = ""
                continue
            why = status.grace = grace.get(cid, "")
            if why in ("forced", "surprise", "heroic"):
                status.declared_round = rnd
                status.resolved_round = rnd

    def describe(self) -> str:
        order = ", ".join(f"{cid} ({self.points.get(cid, '?')})" for cid in self.order)
        graces = ", ".join(f"{cid} ({why})" for cid, why in self.grace.items())
        tail = f"; grace round: {graces}" if graces else ""
        return f"round {self.round} begins; initiative: {order}{tail}"


@attrs.frozen
class Declared(Event):
    """A fighter's declaration of the round (in ascending order of initiative), with
    its attention criteria, which hold until its next declaration.

    ``extra_moves`` are the extra moves declared with this action (each adds a
    category); ``malus_moves`` those whose malus weighs on the fighter this round: the
    same, except for a changed action, which keeps the malus of the first declaration
    (Loreval, "Action de déplacement et action avec déplacement")."""

    TYPE: ClassVar[str] = "loreval.declared"
    ROUTINE: ClassVar[bool] = True

    round: int
    kind: str
    target: str | None
    category: int
    attention: Mapping[str, int]
    extra_moves: int = 0
    malus_moves: int = 0
    params: Mapping[str, Any] = attrs.field(factory=dict)
    changed: bool = False
    heroic: bool = False

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.attention = Attention(**self.attention)
        before = status.plan
        cost = before.spent if self.changed and before is not None else -1
        status.plan = Plan(
            self.kind,
            self.target,
            self.category,
            dict(self.params),
            self.malus_moves,
            self.changed,
            self.heroic,
            cost,
        )
        status.declared_round = self.round
        if self.kind == "grace":
            status.grace = "chosen"
            status.resolved_round = self.round
            if self.changed:
                status.next_roll_malus = -2
        if self.heroic:
            status.heroism -= 1
            status.used_heroic_round = self.round
            status.heroic_asked_round = self.round
            status.resolved_round = min(status.resolved_round, self.round - 1)
        if self.changed:
            status.change_round = 0
            if self.kind == "counter":
                status.counter_round = 0  # a counter changed into another one stands ready

    def describe(self) -> str:
        target = f" -> {self.target}" if self.target else ""
        att = "/".join(str(self.attention[k]) for k in ("environment", "security", "focus"))
        extra = params_in_words(self.params)
        extra = f" ({extra})" if extra else ""
        moves = f" +{self.extra_moves} moves" if self.extra_moves else ""
        if self.malus_moves != self.extra_moves:
            moves += f" (malus of {self.malus_moves})"
        how = " (changed action)" if self.changed else " (heroic action)" if self.heroic else ""
        return (
            f"{self.actor} declares {self.kind}{target}{extra}{moves}, category "
            f"{self.category}, attention E/S/F {att}{how}"
        )


@attrs.frozen
class TurnResolved(Event):
    """The fighter's action of the round has been resolved (or came to nothing)."""

    TYPE: ClassVar[str] = "loreval.turn.resolved"
    ROUTINE: ClassVar[bool] = True

    round: int
    note: str = ""

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.resolved_round = self.round
        status.change_round = 0

    def describe(self) -> str:
        note = f": {self.note}" if self.note else ""
        return f"{self.actor}'s action of round {self.round} is resolved{note}"


@attrs.frozen
class ChangeAllowed(Event):
    """The action cannot be carried out as declared: the fighter may declare a changed
    action of a strictly lower category, at -2 (Loreval, "Modifier son action")."""

    TYPE: ClassVar[str] = "loreval.change.allowed"

    round: int
    reason: str

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).change_round = self.round

    def describe(self) -> str:
        return f"{self.actor} may change its action ({self.reason})"


@attrs.frozen
class RoundEnded(Event):
    """The end of a round: each fighter's points go down by the cost of its action."""

    TYPE: ClassVar[str] = "loreval.round.ended"

    round: int
    spent: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        for cid, cost in self.spent.items():
            status = _status(state, cid)
            status.initiative = max(0, status.initiative - cost)
            status.change_round = 0

    def describe(self) -> str:
        spent = ", ".join(f"{cid} -{n}" for cid, n in self.spent.items() if n)
        return f"round {self.round} ends" + (f"; points spent: {spent}" if spent else "")


@attrs.frozen
class AttackRolled(Event):
    """One attack: d20 + modifiers against a difficulty (a passive score or the
    defender's roll of a counter)."""

    TYPE: ClassVar[str] = "loreval.attack"

    action: str  # the kind of action it belongs to (attack, charge, counter...)
    target: str
    weapon: str
    roll: int
    total: int
    difficulty: int
    success: bool
    threat: bool = False
    critical: bool = False
    modifiers: Mapping[str, int] = attrs.field(factory=dict)
    against: str = "passive"  # passive, defence roll, reflex roll...
    label: str = ""

    def describe(self) -> str:
        if self.critical:
            result = "critical hit"
        elif self.success:
            result = "hit" + (" (threat)" if self.threat else "")
        else:
            result = "miss"
        label = f" ({self.label})" if self.label else ""
        return (
            f"{self.actor} attacks {self.target} with {self.weapon}{label}: d20 {self.roll}"
            f"{_mods(self.modifiers)} = {self.total} vs {self.difficulty} ({self.against}) "
            f"-> {result}"
        )


@attrs.frozen
class CriticalConfirmed(Event):
    """The confirmation roll of a critical threat (D&D 3)."""

    TYPE: ClassVar[str] = "loreval.critical"

    target: str
    roll: int
    total: int
    difficulty: int
    confirmed: bool

    def describe(self) -> str:
        result = "confirmed" if self.confirmed else "not confirmed"
        return (
            f"{self.actor}'s critical threat on {self.target}: d20 {self.roll} = {self.total} "
            f"vs {self.difficulty}, {result}"
        )


@attrs.frozen
class Damaged(Event):
    """Damage taken and the hit points left."""

    TYPE: ClassVar[str] = "loreval.damage"

    attacker: str
    weapon: str
    rolls: tuple[int, ...]
    damage: int
    hit_points: int
    multiplier: int = 1
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).hit_points = self.hit_points

    def describe(self) -> str:
        mult = f" x{self.multiplier}" if self.multiplier > 1 else ""
        return (
            f"{self.actor} takes {self.damage} damage from {self.attacker}'s {self.weapon} "
            f"({'+'.join(map(str, self.rolls))}{_mods(self.modifiers)}{mult}); "
            f"{self.hit_points} hit points left"
        )


@attrs.frozen
class HeroismSaved(Event):
    """A heroism point spent to cancel a deadly outcome: the blow that would have taken
    the fighter out does nothing (Loreval, "Points d'héroïsme")."""

    TYPE: ClassVar[str] = "loreval.heroism.saved"

    attacker: str
    damage: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).heroism -= 1

    def describe(self) -> str:
        return (
            f"{self.actor} spends a heroism point: {self.attacker}'s blow "
            f"({self.damage} damage) does not take it out"
        )


@attrs.frozen
class WeaponReadied(Event):
    """The fighter readies its weapon (or takes a carried one in hand)."""

    TYPE: ClassVar[str] = "loreval.weapon.readied"

    weapon: str

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        status.weapon_ready = True
        if status.weapon.id != self.weapon:
            found = next((w for w in status.carried if w.id == self.weapon), None)
            if found is not None:
                status.carried = (
                    *(w for w in status.carried if w.id != self.weapon),
                    status.weapon,
                )
                status.weapon = found
                if found.hands == 2:
                    status.off_hand = None

    def describe(self) -> str:
        return f"{self.actor} readies {self.weapon}"


@attrs.frozen
class ActionWasted(Event):
    """A declared action (or one attack of it) that came to nothing."""

    TYPE: ClassVar[str] = "loreval.wasted"

    kind: str
    reason: str

    def describe(self) -> str:
        return f"{self.actor}'s {self.kind} comes to nothing: {self.reason}"


@attrs.frozen
class SpellCast(Event):
    """A spell or ritual is cast (its effects belong to the magic chapter, not in the
    excerpt: the game master plays them)."""

    TYPE: ClassVar[str] = "loreval.spell"

    spell: str
    target: str | None = None

    def describe(self) -> str:
        on = f" on {self.target}" if self.target else ""
        return f"{self.actor} casts {self.spell}{on}"


@attrs.frozen
class CounterRolled(Event):
    """A counter's own roll (contre): a defence or reflex roll (parry, dodge, block)
    that sets the attacker's difficulty, an obstruction's skilful attack against the
    mover's Reflex, or the opposed attack roll that answers a disarm or a sunder.
    ``roll`` is the d20, ``total`` the d20 plus ``modifiers``."""

    TYPE: ClassVar[str] = "loreval.counter"

    countered: str
    how: str
    roll: int
    total: int
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    round: int = 0

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).counter_round = self.round

    def describe(self) -> str:
        return (
            f"{self.actor} counters {self.countered} ({self.how}): d20 {self.roll}"
            f"{_mods(self.modifiers)} = {self.total}"
        )


@attrs.frozen
class CounterUsed(Event):
    """A counter that rolls nothing of its own is used: a strike, a charge made as a
    counter, receiving a charge. Its roll is the ``loreval.attack`` that follows (action
    ``counter``); this event only marks the counter spent for the round."""

    TYPE: ClassVar[str] = "loreval.counter.used"

    countered: str
    how: str
    round: int = 0

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).counter_round = self.round

    def describe(self) -> str:
        return f"{self.actor} counters {self.countered} ({self.how})"


@attrs.frozen
class Countered(Event):
    """A counter succeeded: the fighter is blocked in its action until the round ends."""

    TYPE: ClassVar[str] = "loreval.countered"

    by: str
    how: str

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).blocked = True

    def describe(self) -> str:
        return f"{self.actor} is blocked in its action by {self.by}'s counter ({self.how})"


@attrs.frozen
class CounterVoided(Event):
    """A counter that can no longer be carried out (the countered fighter changed its
    action, or fell)."""

    TYPE: ClassVar[str] = "loreval.counter.voided"

    countered: str
    reason: str
    round: int = 0

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).counter_round = self.round

    def describe(self) -> str:
        return f"{self.actor}'s counter on {self.countered} is void: {self.reason}"


@attrs.frozen
class Running(Event):
    """The fighter ended the round running (2 moves or more, no interaction): it may
    charge next round without moving (Loreval, "Charge en continuité de déplacement")."""

    TYPE: ClassVar[str] = "loreval.running"

    round: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).momentum_round = self.round

    def describe(self) -> str:
        return f"{self.actor} ends round {self.round} running"


@attrs.frozen
class HeroicPassed(Event):
    """The fighter, offered a heroic action, declares none this round."""

    TYPE: ClassVar[str] = "loreval.heroic.passed"
    ROUTINE: ClassVar[bool] = True

    round: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).heroic_asked_round = self.round

    def describe(self) -> str:
        return f"{self.actor} declares no heroic action"


@attrs.frozen
class Grappled(Event):
    """A grapple (lutte) changes: ``actor`` holds ``held`` (grabbed, lifted, pinned,
    down) or lets go (released)."""

    TYPE: ClassVar[str] = "loreval.grapple"

    held: str
    hold: str

    def apply(self, state: FightState) -> None:
        state.extra[HOLDS] = True  # (a fall may now let go of someone: settle.let_go)
        holder = _status(state, self.actor)
        held = _status(state, self.held)
        if self.hold == "released":
            holder.holding = None
            holder.pinning = False
            held.held_by = None
            held.hold = ""
            return
        holder.holding = self.held
        holder.pinning = self.hold == "pinned"
        held.held_by = self.actor
        held.hold = self.hold
        if self.hold == "down":
            held.prone = True

    def describe(self) -> str:
        if self.hold == "released":
            return f"{self.actor} no longer holds {self.held}"
        what = {"grabbed": "grabs", "lifted": "lifts", "pinned": "pins", "down": "takes down"}
        return f"{self.actor} {what.get(self.hold, self.hold)} {self.held}"


@attrs.frozen
class Locked(Event):
    """A successful block locks the assailant (``actor``) and the blocker together: both
    at -2 in Security, neither moving, until the assailant wins an opposed strength roll
    (``locked`` false: they are free) (Loreval, "Bloquer une attaque")."""

    TYPE: ClassVar[str] = "loreval.locked"

    other: str
    locked: bool = True

    def apply(self, state: FightState) -> None:
        state.extra[HOLDS] = True  # (a fall may now let go of someone: settle.let_go)
        mine = _status(state, self.actor)
        theirs = _status(state, self.other)
        if self.locked:
            from segsim.rules.loreval.content import FISTS

            mine.locked_with, mine.lock_roll = self.other, True
            mine.lock_choice = mine.weapon.id != FISTS.id  # a weapon it could drop
            theirs.locked_with, theirs.lock_roll = self.actor, False
            return
        for status in (mine, theirs):
            status.locked_with, status.lock_roll, status.lock_choice = None, False, False

    def describe(self) -> str:
        if self.locked:
            return (
                f"{self.actor} is locked by {self.other}'s block: both at -2 in Security, "
                "neither moves"
            )
        return f"{self.actor} and {self.other} are no longer locked together"


@attrs.frozen
class LockChoice(Event):
    """The assailant locked by a block chooses at once: drop its weapon to get free
    (``dropped``; the weapon falls and the lock ends), or keep it and stay locked, at
    -2 in Security until a strength roll frees it (Loreval, "Bloquer une attaque")."""

    TYPE: ClassVar[str] = "loreval.lock.choice"

    other: str
    weapon: str
    dropped: bool

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).lock_choice = False

    def describe(self) -> str:
        if self.dropped:
            return f"{self.actor} drops its {self.weapon} to get free of {self.other}'s block"
        return f"{self.actor} keeps its {self.weapon} and stays locked by {self.other}'s block"


@attrs.frozen
class Prone(Event):
    """The fighter falls (a trip, an overrun, a throw) or stands up again."""

    TYPE: ClassVar[str] = "loreval.prone"

    prone: bool

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).prone = self.prone

    def describe(self) -> str:
        return f"{self.actor} {'falls' if self.prone else 'stands up'}"


@attrs.frozen
class CheckRolled(Event):
    """A check outside an attack: acrobatics for a manoeuvre, opposed strength for a
    trip, an opposed grapple roll."""

    TYPE: ClassVar[str] = "loreval.check"

    check: str
    roll: int
    total: int
    difficulty: int
    success: bool
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def describe(self) -> str:
        result = "success" if self.success else "failure"
        return (
            f"{self.actor} {self.check}: d20 {self.roll}{_mods(self.modifiers)} = {self.total} "
            f"vs {self.difficulty} -> {result}"
        )


@attrs.frozen
class WeaponLost(Event):
    """The fighter loses its weapon in hand (disarmed, broken, dropped): it fights with
    its fists until it readies another."""

    TYPE: ClassVar[str] = "loreval.weapon.lost"

    weapon: str
    how: str

    def apply(self, state: FightState) -> None:
        from segsim.rules.loreval.content import FISTS

        status = _status(state, self.actor)
        status.weapon = FISTS
        status.off_hand = None
        status.weapon_damage = 0

    def describe(self) -> str:
        return f"{self.actor} loses its {self.weapon} ({self.how})"


@attrs.frozen
class WeaponDamaged(Event):
    """A sundered weapon takes damage; it breaks at its durability."""

    TYPE: ClassVar[str] = "loreval.weapon.damaged"

    weapon: str
    damage: int
    total: int

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).weapon_damage = self.total

    def describe(self) -> str:
        return f"{self.actor}'s {self.weapon} takes {self.damage} damage ({self.total} in all)"


@attrs.frozen
class Manoeuvred(Event):
    """A manoeuvre's lasting effect for the round: juggling's +4 to every attack,
    moving in melee's +4 to defences."""

    TYPE: ClassVar[str] = "loreval.manoeuvre"

    round: int
    manoeuvre: str
    bonus: int

    def apply(self, state: FightState) -> None:
        status = _status(state, self.actor)
        if self.manoeuvre == "juggling":
            status.bonus_round = self.round
            status.attack_bonus = self.bonus
        elif self.manoeuvre == "exposed":
            status.exposed_round = self.round
        else:
            status.weave_round = self.round

    def describe(self) -> str:
        return f"{self.actor}'s {self.manoeuvre}: {self.bonus:+d} this round"


_ROUND = "the round it belongs to (1, 2...)"
_MODS = "the modifiers added to the die, by name (only those not 0)"
FIELD_MEANINGS: Mapping[str, Mapping[str, str]] = {
    "loreval.initiative": {
        "roll": "the d20",
        "skill": "the fighter's Initiative skill",
        "points": "its initiative points now: roll + skill + malus, at least 1",
        "malus": "-2 after a grace round taken as a changed action, else 0",
    },
    "loreval.setup": {
        "attention": "attention points put in environment, security, focus before the "
        "first declaration",
        "hidden": "unseen by its opponents at the start",
        "weapon_ready": "false when readying its weapon adds a category",
        "senses_lost": "senses lost: 1 off each attention criterion per sense",
        "slowed": "under a slow effect: actions count one category more",
        "hasted": "under a haste effect: actions count one category less",
    },
    "loreval.perception.lost": {
        "malus": "points of perception lost",
        "attention_points": "the attention points left: 1 fewer per 4 points lost, at least 1",
    },
    "loreval.sits_out": {"round": _ROUND, "reason": "why it sits the round out"},
    "loreval.surprise.avoided": {
        "by": "what the game master said would surprise it (allies, careless)",
        "environment": "its Environment score, which rules the surprise out",
    },
    "loreval.detection": {
        "roll": "the d20",
        "total": "d20 + perception + Environment's modifier",
        "difficulty": "the detection difficulty",
        "success": "the ambush is detected: no surprise",
    },
    "loreval.round.started": {
        "round": _ROUND,
        "order": "fighter ids, first to act first (descending initiative)",
        "points": "each fighter's initiative points at the start of the round",
        "ties": "tie-break dice of fighters equal in points and dexterity (each fighter's faces "
        "in turn as one number in base 21, a 0 for a roll it no longer took part in)",
        "grace": "fighters sitting the round out and why (forced, surprise, heroic, "
        "joined, chosen)",
    },
    "loreval.declared": {
        "round": _ROUND,
        "kind": "the action declared (attack, move, counter, charge...)",
        "target": "the fighter it aims at, if any",
        "category": "its category (1-5), what it costs in initiative points",
        "attention": "the attention points spread over environment, security, focus",
        "extra_moves": "extra moves declared with it (each adds a category)",
        "malus_moves": "extra moves whose malus weighs on the fighter this round: "
        "extra_moves, or for a changed action those of the first declaration",
        "params": "the action's own parameters as checked (moves, how, concert...)",
        "changed": "a changed action (-2 to every roll)",
        "heroic": "a heroic action",
    },
    "loreval.turn.resolved": {"round": _ROUND, "note": "how it ended, when of note"},
    "loreval.change.allowed": {"round": _ROUND, "reason": "why the action cannot be made"},
    "loreval.round.ended": {
        "round": _ROUND,
        "spent": "initiative points each fighter spent in the round",
    },
    "loreval.attack": {
        "action": "the kind of action the attack belongs to (attack, charge, counter...)",
        "target": "the fighter attacked",
        "weapon": "the weapon's name",
        "roll": "the d20 (20 without a die for a heroic attack on a foe without heroism points)",
        "total": "d20 + modifiers",
        "difficulty": "the defender's passive Defence or Reflex, or its counter's total",
        "success": "the attack hits",
        "threat": "a critical threat (the die in the weapon's range)",
        "critical": "a critical hit",
        "modifiers": _MODS,
        "against": "what the difficulty is (passive defence, passive reflex, a counter's roll)",
        "label": "which attack of the action (attack 2 of 3, charge, counter...)",
    },
    "loreval.critical": {
        "target": "the fighter attacked",
        "roll": "the confirmation d20",
        "total": "d20 + the attack's modifiers",
        "difficulty": "the attack's difficulty",
        "confirmed": "the critical is confirmed",
    },
    "loreval.damage": {
        "attacker": "who dealt it",
        "weapon": "with what",
        "rolls": "the damage dice",
        "damage": "the damage taken, at least 1",
        "hit_points": "hit points left",
        "multiplier": "how many times the weapon's dice and strength count",
        "modifiers": "the bonuses added, by name",
    },
    "loreval.heroism.saved": {
        "attacker": "whose blow is cancelled",
        "damage": "the damage it would have dealt",
    },
    "loreval.weapon.readied": {"weapon": "the weapon now in hand"},
    "loreval.wasted": {"kind": "the action", "reason": "why it came to nothing"},
    "loreval.spell": {"spell": "the spell's name", "target": "its target, if any"},
    "loreval.counter": {
        "countered": "the fighter whose action is countered",
        "how": "parry, dodge, block, obstruct, resist (a spell), grapple (against an "
        "escape), or opposed attack (against a disarm or a sunder)",
        "roll": "the d20",
        "total": "d20 + modifiers: the attacker's difficulty (parry, dodge, block, "
        "opposed attack), the obstruction's attack against the mover's Reflex, or what "
        "a spell's penetration roll must beat (resist)",
        "modifiers": _MODS,
        "round": _ROUND,
    },
    "loreval.counter.used": {
        "countered": "the fighter whose action is countered",
        "how": "strike, charge, receive or counterspell",
        "round": _ROUND,
    },
    "loreval.countered": {
        "by": "the fighter whose counter succeeded",
        "how": "the counter (its moves are still made, unless it was an obstruction or a block)",
    },
    "loreval.counter.voided": {
        "countered": "the fighter the counter aimed at",
        "reason": "why it cannot be made",
        "round": _ROUND,
    },
    "loreval.running": {"round": "the round it ended running"},
    "loreval.heroic.passed": {"round": _ROUND},
    "loreval.grapple": {
        "held": "the fighter held",
        "hold": "grabbed, lifted, pinned, down, or released",
    },
    "loreval.locked": {
        "other": "the blocker",
        "locked": "true when the lock begins, false when it ends",
    },
    "loreval.lock.choice": {
        "other": "the blocker",
        "weapon": "the assailant's weapon",
        "dropped": "it dropped the weapon to get free",
    },
    "loreval.prone": {"prone": "true when it falls, false when it stands up"},
    "loreval.check": {
        "check": "what is rolled (acrobatics, strength, a skill, detection...)",
        "roll": "the d20 (20 without a die for a heroic skill)",
        "total": "d20 + modifiers",
        "difficulty": "the difficulty, or the opposed total (0 when a heroic action's "
        "sure success needs no opposing roll)",
        "success": "the check succeeds",
        "modifiers": _MODS,
    },
    "loreval.weapon.lost": {
        "weapon": "the weapon lost",
        "how": "disarmed, broken, dropped",
    },
    "loreval.weapon.damaged": {
        "weapon": "the weapon sundered",
        "damage": "damage this time",
        "total": "damage taken in all (it breaks at its durability)",
    },
    "loreval.manoeuvre": {
        "round": _ROUND,
        "manoeuvre": "juggling, moving in melee, or exposed (disarm, sunder)",
        "bonus": "the bonus (or malus) it gives for the round",
    },
}
"""What each field of each Loreval event means: the record format's documentation and
the JSON schema's descriptions are generated from it (``python -m segsim.schema``)."""
