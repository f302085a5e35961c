"""RinKaNou events: tests, arming, attack results, wounds.

Its classes are frozen attrs classes of the form the compiled build (``hatch_build.py``)
makes native (``segsim/native.py``): ``attr.s`` with their ``__init__`` written out (its
stores are ``object.__setattr__``, direct stores in the compiled build) and their type
named by :func:`~segsim.eventbase.event_type` after the class, which also gives a
compiled class the frozenness, equality, hash and repr attrs gives the pure one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attr

from segsim.eventbase import event_type, maker
from segsim.events import Event
from segsim.native import field
from segsim.rules.rinkanou.roll import DOUBLES

if TYPE_CHECKING:
    # (the fighters' status, which the events set: the ruleset's module imports this one)
    from segsim.rules.rinkanou.ruleset import Status
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


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class TestRolled(Event):
    """A d100 test: its name, final chance, roll, result and margin, and what made the
    chance (``modifiers``)."""

    action: int | None
    test: str
    chance: int
    roll: int
    success: bool
    critical: bool
    margin: int
    modifiers: Mapping[str, int] = field(factory=dict)

    def __init__(
        self,
        t: int,
        actor: Any,
        action: int | None,
        test: str,
        chance: int,
        roll: int,
        success: bool,
        critical: bool,
        margin: int,
        modifiers: Mapping[str, int] | None = None,
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "test", test)
        object.__setattr__(self, "chance", chance)
        object.__setattr__(self, "roll", roll)
        object.__setattr__(self, "success", success)
        object.__setattr__(self, "critical", critical)
        object.__setattr__(self, "margin", margin)
        object.__setattr__(self, "modifiers", {} if modifiers is None else modifiers)

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
        double = roll in DOUBLES  # is_double(roll), without its call
        if cls is not TestRolled:
            return cls(segment, actor, action, test, chance, roll, success, double, margin, kept)
        if _NATIVE:  # the compiled build: its native constructor, called directly
            return TestRolled(
                segment, actor, action, test, chance, roll, success, double, margin, kept
            )
        return _test_rolled(  # TestRolled(...), made without a call of the class
            segment, actor, action, test, chance, roll, success, double, margin, kept
        )

    def apply(self, state: FightState) -> None:
        """Remember the modifiers of an action's roll while the action can still weigh
        on another (simultaneous actions): its difficulty is summed only if one does."""
        if self.action is None or self.actor is None:
            return
        c = state.combatants[self.actor]
        status: Status = c.status
        kept = status.rolled
        kept[self.action] = self.modifiers
        if self.test == "dodge":  # whether the dodge succeeded: a disengage may ask
            dodged = status.dodged
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

    @property
    def mr(self) -> int:
        """Margin of success (0 on a failure), as :class:`~segsim.rules.rinkanou.roll.Margins`
        says (a native class derives from no Python class)."""
        return self.margin if self.success else 0

    @property
    def me(self) -> int:
        """Margin of failure (0 on a success)."""
        return 0 if self.success else self.margin


event_type(TestRolled, "test.rolled")
setattr(TestRolled, "__test__", False)  # noqa: B010  # not a pytest class


_test_rolled = maker(TestRolled)  # TestRolled(...), without a call of the class
_NATIVE = _test_rolled is TestRolled
"""Whether TestRolled is the compiled build's native class (no maker: compiled code
calls its constructor directly)."""


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class WeaponState(Event):
    """Whether a fighter's blow is armed, and whether it must lock (recover) next."""

    armed: bool
    must_lock: bool

    def __init__(self, t: int, actor: Any, armed: bool, must_lock: bool) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "armed", armed)
        object.__setattr__(self, "must_lock", must_lock)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.armed = self.armed
        status.must_lock = self.must_lock

    def describe(self) -> str:
        if self.armed:
            return f"{self.actor} has armed a blow"
        return f"{self.actor} must lock" if self.must_lock else f"{self.actor} has no blow armed"


event_type(WeaponState, "weapon.state")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class AttackResolved(Event):
    """What became of an attack: missed, dodged, parried, blocked or hit."""

    action: int
    target: str
    blow: str
    result: str

    def __init__(
        self, t: int, actor: Any, action: int, target: str, blow: str, result: str
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "blow", blow)
        object.__setattr__(self, "result", result)

    def describe(self) -> str:
        return f"{self.actor}'s {self.blow} at {self.target}: {self.result}"


event_type(AttackResolved, "attack.resolved")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class WoundTaken(Event):
    """Damage that passed armour, where, and the fighter's wound track after it."""

    attacker: str
    location: str
    damage: int
    wound: int
    total: int
    level: str
    malus: int
    detail: Mapping[str, Any] = field(factory=dict)

    def __init__(
        self,
        t: int,
        actor: Any,
        attacker: str,
        location: str,
        damage: int,
        wound: int,
        total: int,
        level: str,
        malus: int,
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "attacker", attacker)
        object.__setattr__(self, "location", location)
        object.__setattr__(self, "damage", damage)
        object.__setattr__(self, "wound", wound)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "malus", malus)
        object.__setattr__(self, "detail", {} if detail is None else detail)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.wounds = self.total
        status.wound_level = self.level
        status.wound_malus = self.malus

    def describe(self) -> str:
        level = f", {self.level}" if self.level else ""
        return (
            f"{self.actor} is hit in the {self.location.replace('_', ' ')} by {self.attacker}: "
            f"{self.damage} damage, wound {self.wound} (total {self.total}{level})"
        )


event_type(WoundTaken, "wound.taken")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class SituationChanged(Event):
    """A fighter's situation points (PS) and the opponents it takes into account.

    ``since`` is the first segment whose declarations draw on this score; ``reason`` is
    "start", "result" (its own action resolved), "reset" (an opponent resolved while it
    did nothing) or "engaged" (an opponent it took into account resolved).
    """

    ps: int
    since: int
    # tuple[str, ...]; Any, as a native class would refuse the list an account reads
    # back from a record (the schema says what it is: segsim.schema._EXACT)
    engaged: Any
    reason: str

    def __init__(self, t: int, actor: Any, ps: int, since: int, engaged: Any, reason: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "ps", ps)
        object.__setattr__(self, "since", since)
        object.__setattr__(self, "engaged", engaged)
        object.__setattr__(self, "reason", reason)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.ps = self.ps
        status.ps_since = self.since
        status.engaged = self.engaged

    def describe(self) -> str:
        against = f" against {', '.join(self.engaged)}" if self.engaged else ""
        return f"{self.actor} has {self.ps:+d} PS{against} ({self.reason})"


event_type(SituationChanged, "ps.changed")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class SurpriseMalus(Event):
    """A surprised fighter's malus on its next roll (its Me), or 0 once it is spent."""

    malus: int

    def __init__(self, t: int, actor: Any, malus: int) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "malus", malus)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.surprise_malus = self.malus

    def describe(self) -> str:
        if self.malus:
            return f"{self.actor} is surprised: {self.malus:+d} % on the next roll"
        return f"{self.actor} has shaken off the surprise"


event_type(SurpriseMalus, "surprise.malus")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class IntentRead(Event):
    """A successful read of another fighter's action: its kind, target and end."""

    of: str
    action: int
    kind: str
    target: str | None
    ends_in: int | None

    def __init__(
        self,
        t: int,
        actor: Any,
        of: str,
        action: int,
        kind: str,
        target: str | None,
        ends_in: int | None,
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "of", of)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "ends_in", ends_in)

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


event_type(IntentRead, "intent.read")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class GearDamaged(Event):
    """A weapon or shield lost durability (PR); at 0 it is unusable."""

    item: str
    loss: int
    durability: int

    def __init__(self, t: int, actor: Any, item: str, loss: int, durability: int) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "item", item)
        object.__setattr__(self, "loss", loss)
        object.__setattr__(self, "durability", durability)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        if self.item == "shield":
            status.shield_pr = self.durability
        else:
            status.weapon_pr = self.durability

    def describe(self) -> str:
        broken = ", broken" if self.durability <= 0 else ""
        return f"{self.actor}'s {self.item} loses {self.loss} PR ({self.durability} left{broken})"


event_type(GearDamaged, "gear.damaged")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class Disengaged(Event):
    """A fighter broke contact: it may now turn and run."""

    def __init__(self, t: int, actor: Any) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.disengaged = True

    def describe(self) -> str:
        return f"{self.actor} has disengaged"


event_type(Disengaged, "combatant.disengaged")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class HandsChanged(Event):
    """What a fighter holds and how: the weapon in hand (melee or ranged), whether the
    ranged weapon is ready, the weapon's grip (held, loose, dropped, taken) and whether
    its shield is pushed aside."""

    wielding: str
    loaded: bool
    grip: str
    shield_aside: bool

    def __init__(
        self, t: int, actor: Any, wielding: str, loaded: bool, grip: str, shield_aside: bool
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "wielding", wielding)
        object.__setattr__(self, "loaded", loaded)
        object.__setattr__(self, "grip", grip)
        object.__setattr__(self, "shield_aside", shield_aside)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
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


event_type(HandsChanged, "hands.changed")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class CommandPointsChanged(Event):
    """A fighter's command points (PC): fixed by the game master for a position, lost
    when the fighter moves."""

    pc: int
    reason: str

    def __init__(self, t: int, actor: Any, pc: int, reason: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "pc", pc)
        object.__setattr__(self, "reason", reason)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.command_points = self.pc

    def describe(self) -> str:
        return f"{self.actor} has {self.pc:+d} PC ({self.reason})"


event_type(CommandPointsChanged, "pc.changed")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class ItemDropped(Event):
    """A weapon knocked out of a fighter's hands lands on the ground at (x, y)."""

    item: str
    x: float  # (always a float: the compiled build would make an int one)
    y: float

    def __init__(self, t: int, actor: Any, item: str, x: float, y: float) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "item", item)
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.extra.setdefault("ground", {})[(self.actor, self.item)] = (self.x, self.y)

    def describe(self) -> str:
        return f"{self.actor}'s {self.item} falls at ({self.x:g}, {self.y:g})"


event_type(ItemDropped, "item.dropped")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class ItemPickedUp(Event):
    item: str

    def __init__(self, t: int, actor: Any, item: str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "item", item)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        state.extra.get("ground", {}).pop((self.actor, self.item), None)

    def describe(self) -> str:
        return f"{self.actor} picks up its {self.item}"


event_type(ItemPickedUp, "item.picked_up")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class KeptAtDistance(Event):
    """A keeper's roll against a fighter coming closer (RinKaNou, "Tenir à distance"):
    "held" off, in and free to attack at once ("in"), or in but its attack must wait for
    its next action ("close": the blow it armed, or is arming, is lost)."""

    keeper: str
    outcome: str
    lost_arm: int | None = None

    def __init__(
        self, t: int, actor: Any, keeper: str, outcome: str, lost_arm: int | None = None
    ) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "keeper", keeper)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "lost_arm", lost_arm)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        if self.lost_arm is not None:
            status: Status = state.combatants[self.actor].status
            status.lost_arm = self.lost_arm

    def describe(self) -> str:
        what = {
            "held": "is held off",
            "in": "comes close and may attack at once",
            "close": "comes close but must wait for its next action to attack",
        }
        return f"{self.actor} {what.get(self.outcome, self.outcome)} ({self.keeper} keeps)"


event_type(KeptAtDistance, "keep.result")


@attr.s(auto_attribs=True, slots=True, frozen=True, init=False, order=False, collect_by_mro=True)
class StanceChanged(Event):
    """A fighter's standing choice about disengages (RinKaNou, "Se désengager"): whether
    it opposes an opponent's, and the PS it spends on each opposition roll."""

    oppose_disengage: bool
    ps_bonus: int

    def __init__(self, t: int, actor: Any, oppose_disengage: bool, ps_bonus: int) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "oppose_disengage", oppose_disengage)
        object.__setattr__(self, "ps_bonus", ps_bonus)

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        status: Status = state.combatants[self.actor].status
        status.oppose_disengage = self.oppose_disengage
        status.oppose_bonus = self.ps_bonus

    def describe(self) -> str:
        if not self.oppose_disengage:
            return f"{self.actor} lets opponents disengage"
        spend = f", spending {self.ps_bonus} PS" if self.ps_bonus else ""
        return f"{self.actor} opposes opponents' disengages{spend}"


event_type(StanceChanged, "stance.changed")


# The settlement's most frequent events. In the compiled build each function, which the
# compiled settlement calls directly, calls its native class's constructor directly (a
# class held in a variable, as a maker is, would be called as a Python object, its
# arguments parsed); in the pure build each is replaced below by its class's maker (the
# same object, made without a call of the class).


def weapon_state(t: int, actor: Any, armed: bool, must_lock: bool) -> WeaponState:
    """``WeaponState(t, actor, armed, must_lock)``."""
    return WeaponState(t, actor, armed, must_lock)


def situation_changed(
    t: int, actor: Any, ps: int, since: int, engaged: Any, reason: str
) -> SituationChanged:
    """``SituationChanged(t, actor, ps, since, engaged, reason)``."""
    return SituationChanged(t, actor, ps, since, engaged, reason)


def attack_resolved(
    t: int, actor: Any, action: int, target: str, blow: str, result: str
) -> AttackResolved:
    """``AttackResolved(t, actor, action, target, blow, result)``."""
    return AttackResolved(t, actor, action, target, blow, result)


def wound_taken(
    t: int,
    actor: Any,
    attacker: str,
    location: str,
    damage: int,
    wound: int,
    total: int,
    level: str,
    malus: int,
    detail: Mapping[str, Any] | None = None,
) -> WoundTaken:
    """``WoundTaken(t, actor, attacker, location, damage, wound, total, level, malus,
    detail)``."""
    return WoundTaken(t, actor, attacker, location, damage, wound, total, level, malus, detail)


if not _NATIVE:  # the pure build
    globals().update(
        weapon_state=maker(WeaponState),
        situation_changed=maker(SituationChanged),
        attack_resolved=maker(AttackResolved),
        wound_taken=maker(WoundTaken),
    )
