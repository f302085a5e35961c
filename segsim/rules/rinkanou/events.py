"""RinKaNou events: tests, arming, attack results, wounds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from segsim.eventbase import maker
from segsim.events import Event
from segsim.rules.rinkanou.roll import Margins, is_double

if TYPE_CHECKING:
    from segsim.state import FightState


IMPOSED = frozenset(
    {
        "difficulty",  # the game master's, on the declaration
        "deflection",
        "cover",
        "disarm",
        "range",
        "attacker Mr",
        "shooter Mr",
        "parry score",
        "attacking weapon",
        "size",
        "thrust",
        "missile",
        "reading",
        "after a dodge",
        "agility x2",
        "cutting",
        "blunt",
    }
)
"""Modifiers of a test that make its difficulty: what the rules and the game master
impose, not the fighter's own skill, characteristic, points, wounds or other actions
(RinKaNou, "Actions simultanées": the difficulty of the other action)."""


KEPT_DIFFICULTIES = 16
"""How many rolls' modifiers a fighter keeps before those of actions no longer in
progress or recent are forgotten (they are never read again: a bound, not a rule)."""


def imposed_difficulty(modifiers: Mapping[str, int]) -> int:
    """The difficulty of a test: the sum of its imposed modifiers."""
    total = 0
    for k, v in modifiers.items():  # a plain loop: a generator costs a call per item
        if k in IMPOSED:
            total += v
    return total


@attrs.frozen
class TestRolled(Event, Margins):
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

    @classmethod
    def rolled(
        cls,
        segment: int,
        actor: str,
        action: int | None,
        test: str,
        chance: int,
        roll: int,
        modifiers: Mapping[str, int],
    ) -> TestRolled:
        """The event of a test just rolled, keeping only the modifiers that counted: it
        is also the test's outcome (see :class:`segsim.rules.rinkanou.roll.Rolled`).
        ``modifiers`` is the caller's fresh table: kept as it is when none of it is 0
        (the settlement leaves out those that do not count), else filtered."""
        kept = modifiers
        if 0 in modifiers.values():  # a scan in C: the filter's Python loop only when needed
            counted: dict[str, int] = {}
            for k, v in modifiers.items():  # a plain loop: a comprehension is a call of its own
                if v:
                    counted[k] = v
            kept = counted
        success = roll <= chance
        margin = chance - roll if success else roll - chance
        make = _test_rolled if cls is TestRolled else cls  # (made without a class call)
        return make(
            segment, actor, action, test, chance, roll, success, is_double(roll), margin, kept
        )

    def apply(self, state: FightState) -> None:
        """Remember the modifiers of an action's roll while the action can still weigh
        on another (simultaneous actions): its difficulty is summed only if one does."""
        if self.action is None or self.actor is None:
            return
        c = state.combatants[self.actor]
        kept = c.status.rolled
        kept[self.action] = self.modifiers
        if self.test == "dodge":  # whether the dodge succeeded: a disengage may ask
            dodged = c.status.dodged
            dodged[self.action] = self.success and dodged.get(self.action, True)
            if len(dodged) > KEPT_DIFFICULTIES:
                alive = {a.id for a in c.recent} | {self.action}
                for old in [k for k in dodged if k not in alive]:
                    del dodged[old]
        if len(kept) > KEPT_DIFFICULTIES:  # forget the actions no longer alive, in one go
            alive = {a.id for a in c.actions} | {a.id for a in c.recent} | {self.action}
            for old in [k for k in kept if k not in alive]:
                del kept[old]

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


_test_rolled = maker(TestRolled)  # TestRolled(...), without a call of the class


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
        return f"{self.actor} must lock" if self.must_lock else f"{self.actor} has no blow armed"


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


@attrs.frozen
class SituationChanged(Event):
    """A fighter's situation points (PS) and the opponents it takes into account.

    ``since`` is the first segment whose declarations draw on this score; ``reason`` is
    "start", "result" (its own action resolved), "reset" (an opponent resolved while it
    did nothing) or "engaged" (an opponent it took into account resolved).
    """

    TYPE: ClassVar[str] = "ps.changed"

    ps: int
    since: int
    engaged: tuple[str, ...]
    reason: str

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.ps = self.ps
        status.ps_since = self.since
        status.engaged = self.engaged

    def describe(self) -> str:
        against = f" against {', '.join(self.engaged)}" if self.engaged else ""
        return f"{self.actor} has {self.ps:+d} PS{against} ({self.reason})"


@attrs.frozen
class SurpriseMalus(Event):
    """A surprised fighter's malus on its next roll (its Me), or 0 once it is spent."""

    TYPE: ClassVar[str] = "surprise.malus"

    malus: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.surprise_malus = self.malus

    def describe(self) -> str:
        if self.malus:
            return f"{self.actor} is surprised: {self.malus:+d} % on the next roll"
        return f"{self.actor} has shaken off the surprise"


@attrs.frozen
class IntentRead(Event):
    """A successful read of another fighter's action: its kind, target and end."""

    TYPE: ClassVar[str] = "intent.read"

    of: str
    action: int
    kind: str
    target: str | None
    ends_in: int | None

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.revealed[self.action] = (
            self.kind,
            self.target,
            self.ends_in,
        )

    def describe(self) -> str:
        target = f" at {self.target}" if self.target else ""
        return (
            f"{self.actor} reads {self.of}'s action: {self.kind}{target}, ending in {self.ends_in}"
        )


@attrs.frozen
class GearDamaged(Event):
    """A weapon or shield lost durability (PR); at 0 it is unusable."""

    TYPE: ClassVar[str] = "gear.damaged"

    item: str
    loss: int
    durability: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        if self.item == "shield":
            status.shield_pr = self.durability
        else:
            status.weapon_pr = self.durability

    def describe(self) -> str:
        broken = ", broken" if self.durability <= 0 else ""
        return f"{self.actor}'s {self.item} loses {self.loss} PR ({self.durability} left{broken})"


@attrs.frozen
class Disengaged(Event):
    """A fighter broke contact: it may now turn and run."""

    TYPE: ClassVar[str] = "combatant.disengaged"

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.disengaged = True

    def describe(self) -> str:
        return f"{self.actor} has disengaged"


@attrs.frozen
class HandsChanged(Event):
    """What a fighter holds and how: the weapon in hand (melee or ranged), whether the
    ranged weapon is ready, the weapon's grip (held, loose, dropped, taken) and whether
    its shield is pushed aside."""

    TYPE: ClassVar[str] = "hands.changed"

    wielding: str
    loaded: bool
    grip: str
    shield_aside: bool

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.wielding = self.wielding
        status.loaded = self.loaded
        status.grip = self.grip
        status.shield_aside = self.shield_aside

    def describe(self) -> str:
        parts = [f"wields its {self.wielding} weapon"]
        if self.wielding == "ranged":
            parts.append("ready to loose" if self.loaded else "not ready")
        if self.grip != "held":
            parts.append(f"weapon {self.grip}")
        if self.shield_aside:
            parts.append("shield pushed aside")
        return f"{self.actor} " + ", ".join(parts)


@attrs.frozen
class CommandPointsChanged(Event):
    """A fighter's command points (PC): fixed by the game master for a position, lost
    when the fighter moves."""

    TYPE: ClassVar[str] = "pc.changed"

    pc: int
    reason: str

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.combatants[self.actor].status.command_points = self.pc

    def describe(self) -> str:
        return f"{self.actor} has {self.pc:+d} PC ({self.reason})"


@attrs.frozen
class ItemDropped(Event):
    """A weapon knocked out of a fighter's hands lands on the ground at (x, y)."""

    TYPE: ClassVar[str] = "item.dropped"

    item: str
    x: float
    y: float

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.extra.setdefault("ground", {})[(self.actor, self.item)] = (self.x, self.y)

    def describe(self) -> str:
        return f"{self.actor}'s {self.item} falls at ({self.x:g}, {self.y:g})"


@attrs.frozen
class ItemPickedUp(Event):
    TYPE: ClassVar[str] = "item.picked_up"

    item: str

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.extra.get("ground", {}).pop((self.actor, self.item), None)

    def describe(self) -> str:
        return f"{self.actor} picks up its {self.item}"


@attrs.frozen
class KeptAtDistance(Event):
    """A keeper's roll against a fighter coming closer (RinKaNou, "Tenir à distance"):
    "held" off, in and free to attack at once ("in"), or in but its attack must wait for
    its next action ("close": the blow it armed, or is arming, is lost)."""

    TYPE: ClassVar[str] = "keep.result"

    keeper: str
    outcome: str
    lost_arm: int | None = None

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        if self.lost_arm is not None:
            state.combatants[self.actor].status.lost_arm = self.lost_arm

    def describe(self) -> str:
        what = {
            "held": "is held off",
            "in": "comes close and may attack at once",
            "close": "comes close but must wait for its next action to attack",
        }
        return f"{self.actor} {what.get(self.outcome, self.outcome)} ({self.keeper} keeps)"


@attrs.frozen
class StanceChanged(Event):
    """A fighter's standing choice about disengages (RinKaNou, "Se désengager"): whether
    it opposes an opponent's, and the PS it spends on each opposition roll."""

    TYPE: ClassVar[str] = "stance.changed"

    oppose_disengage: bool
    ps_bonus: int

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status = state.combatants[self.actor].status
        status.oppose_disengage = self.oppose_disengage
        status.oppose_bonus = self.ps_bonus

    def describe(self) -> str:
        if not self.oppose_disengage:
            return f"{self.actor} lets opponents disengage"
        spend = f", spending {self.ps_bonus} PS" if self.ps_bonus else ""
        return f"{self.actor} opposes opponents' disengages{spend}"
