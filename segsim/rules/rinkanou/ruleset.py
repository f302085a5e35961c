"""The RinKaNou ruleset (seed 004): timed actions on the native segment timeline."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from segsim.actions import Action, ActionSpec, Declaration, DeclarationLike
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration
from segsim.events import Event, OutOfFight
from segsim.input import Node
from segsim.policy import Observation
from segsim.rules import BaseRuleset
from segsim.rules.rinkanou.content import Content, Sheet, default_content, read_sheet, sheet_data
from segsim.rules.rinkanou.events import AttackResolved, TestRolled, WeaponState, WoundTaken
from segsim.rules.rinkanou.roll import (
    TestResult,
    difficulty_value,
    roll_test,
    simultaneous_malus,
)
from segsim.rules.rinkanou.views import MOTION, OtherView, SeenAction, SelfView
from segsim.state import Combatant, FightState

SEED = "seed 004"
LOCK_SEGMENTS = 3  # Verrouiller, for every weapon (seed 004, "Actions de combat")
DODGE_SEGMENTS = 3  # Esquiver
REPOSITION_SEGMENTS = 5  # Se placer
THRUST_DODGE_MALUS = -20  # dodging a thrust (seed 004, "Esquive")


@attrs.frozen
class Kind:
    channel: str
    rolled: bool
    params: frozenset[str] = frozenset()


KINDS: Mapping[str, Kind] = {
    "wait": Kind("wait", False, frozenset({"until"})),
    "arm": Kind("hands", False),
    "strike": Kind("hands", True, frozenset({"blow", "difficulty"})),
    "lock": Kind("hands", False),
    "dodge": Kind("legs", True, frozenset({"difficulty"})),
    "reposition": Kind("legs", True, frozenset({"difficulty"})),
}
"""Action kinds: the channel each occupies (one action per channel), whether it rolls."""

ORDER = {"strike": 0, "dodge": 1, "reposition": 2, "arm": 3, "lock": 4, "wait": 5}


@attrs.define
class Status:
    """A RinKaNou fighter's mutable state."""

    armed: bool = False
    must_lock: bool = False
    wounds: int = 0
    wound_level: str = ""
    wound_malus: int = 0
    ps: int = 0  # points de situation (PS)


class RinKaNou(BaseRuleset):
    """RinKaNou combat (seed 004): segments of 0.1 s, arm / strike / lock, dodge, d100."""

    name: ClassVar[str] = "rinkanou"
    title: ClassVar[str] = "RinKaNou: segment timeline, d100 with margins (seed 004)"
    tick = 1

    def __init__(self, *, content: Content | None = None) -> None:
        self.content = content or default_content()
        self.options: Mapping[str, Any] = {}

    # ------------------------------------------------------------ sheets

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def new_status(self, sheet: Sheet) -> Status:
        return Status()

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        return []

    # ------------------------------------------------------------ declarations

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        c = state.combatants[cid]
        if c.status.must_lock and not any(a.kind == "lock" for a in c.actions):
            return [Declaration("lock")]
        return []

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        c = state.combatants[cid]
        kind = KINDS.get(declaration.kind)
        if kind is None:
            raise IllegalDeclaration(
                f"unknown action {declaration.kind!r} (known: {', '.join(KINDS)})",
                rule=f"{SEED}, Actions de combat",
            )
        extra = set(declaration.params) - kind.params
        if extra:
            raise IllegalDeclaration(
                f"{declaration.kind} takes no parameter {', '.join(sorted(extra))}"
            )
        others: list[Action | ActionSpec] = [*c.actions, *planned]
        for other in others:
            if other.channel == kind.channel and not other.continuous:
                raise IllegalDeclaration(
                    f"cannot {declaration.kind} while doing {other.kind} "
                    f"(both need the {kind.channel})",
                    rule=f"{SEED}, Actions simultanées",
                )
        difficulty = difficulty_value(declaration.params.get("difficulty", 0))
        status: Status = c.status
        weapon = c.sheet.weapon
        hands_kind = kind.channel == "hands"
        if hands_kind and status.must_lock and declaration.kind != "lock":
            raise IllegalDeclaration(
                "after a strike the fighter must lock (3 segments) before anything else "
                "with the weapon",
                rule=f"{SEED}, Actions de combat (Verrouiller)",
            )
        target = None
        params: dict[str, Any] = {}
        if declaration.kind == "wait":
            until = declaration.params.get("until")
            if until is None:
                return ActionSpec("wait", None, "wait", continuous=True)
            if not isinstance(until, int) or isinstance(until, bool) or until <= segment:
                raise IllegalDeclaration(
                    f"wait until must be a later segment than {segment}, not {until!r}"
                )
            return ActionSpec(
                "wait", until - segment, "wait", continuous=True, params={"until": until}
            )
        if declaration.kind == "arm":
            if status.armed:
                raise IllegalDeclaration("the blow is already armed", rule=f"{SEED}, Attaque")
            duration = weapon.speed
        elif declaration.kind == "strike":
            if not status.armed:
                raise IllegalDeclaration(
                    "a strike needs an armed blow: arm first",
                    rule=f"{SEED}, Actions de combat (Attaquer = Armer + Frapper)",
                )
            target = self._opponent(state, c, declaration.target)
            blow = declaration.params.get("blow", _best_blow(c.sheet))
            if blow not in weapon.damage:
                raise IllegalDeclaration(
                    f"the {weapon.name} has no {blow!r} blow (it has: {', '.join(weapon.blows)})"
                )
            params["blow"] = blow
            duration = weapon.speed
        elif declaration.kind == "lock":
            if not status.must_lock:
                raise IllegalDeclaration("only a strike is followed by a lock")
            duration = LOCK_SEGMENTS
        elif declaration.kind == "dodge":
            duration = DODGE_SEGMENTS
        else:  # reposition
            duration = REPOSITION_SEGMENTS
        if difficulty:
            params["difficulty"] = difficulty
        return ActionSpec(
            declaration.kind,
            duration,
            kind.channel,
            target=target,
            rolled=kind.rolled,
            difficulty=difficulty,
            params=params,
        )

    def _opponent(self, state: FightState, c: Combatant, target: str | None) -> str:
        if target is None:
            raise IllegalDeclaration("a strike needs a target")
        other = state.combatants.get(target)
        if other is None:
            raise IllegalDeclaration(f"no combatant {target!r} in this fight")
        if not other.in_fight:
            raise IllegalDeclaration(f"{target} is out of the fight")
        if other.side == c.side:
            raise IllegalDeclaration(f"{target} is on the same side")
        return target

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        super().check_cancel(state, action, segment)
        if action.forced:
            raise IllegalDeclaration("a lock after a strike cannot be cancelled")

    # ------------------------------------------------------------ resolution

    def order_key(self, action: Action) -> tuple[Any, ...]:
        return (ORDER.get(action.kind, 9),)

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        return _Settlement(self, state, segment, batch, dice).run()

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        c = state.combatants[cid]
        st: Status = c.status
        me = SelfView(
            id=c.id,
            side=c.side,
            position=c.position,
            sheet=c.sheet,
            armed=st.armed,
            must_lock=st.must_lock,
            ps=st.ps,
            wounds=st.wounds,
            wound_level=st.wound_level,
            wound_malus=st.wound_malus,
            actions=tuple(c.actions),
        )
        others = tuple(
            _public_view(o) for o in state.combatants.values() if o.in_fight and o.id != cid
        )
        cache: list[tuple[DeclarationLike, ...]] = []

        def legal() -> tuple[DeclarationLike, ...]:
            if not cache:
                cache.append(self._legal(state, cid, segment))
            return cache[0]

        return Observation(segment, cid, must_act, me, others, legal=legal)

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        c = state.combatants[cid]
        candidates = [Declaration("wait"), Declaration("arm"), Declaration("dodge")]
        candidates.append(Declaration("reposition"))
        for o in state.opponents(cid):
            for blow in c.sheet.weapon.blows:
                candidates.append(Declaration("strike", o.id, {"blow": blow}))
        out: list[DeclarationLike] = []
        for d in candidates:
            try:
                self.plan(state, cid, d, segment, [])
            except IllegalDeclaration:
                continue
            out.append(d)
        return tuple(out)


def _best_blow(sheet: Sheet) -> str:
    return max(sheet.weapon.blows, key=lambda b: sheet.weapon.damage[b])


def _public_view(o: Combatant) -> OtherView:
    seen = []
    for a in o.actions:
        if a.continuous:
            continue
        if a.public:
            seen.append(SeenAction(a.id, a.start, MOTION.get(a.kind, ""), a.kind, a.target, a.last))
        else:
            seen.append(SeenAction(a.id, a.start, MOTION.get(a.kind, "")))
    return OtherView(
        id=o.id,
        side=o.side,
        position=o.position,
        weapon=o.sheet.weapon,
        armed=o.status.armed,
        wound_level=o.status.wound_level,
        actions=tuple(seen),
    )


class _Settlement:
    """The resolution of one segment's batch: attacks first, then the defences they met,
    then everything else; wounds of simultaneous blows add up."""

    def __init__(
        self,
        rules: RinKaNou,
        state: FightState,
        segment: int,
        batch: Sequence[Action],
        dice: Dice,
    ) -> None:
        self.rules = rules
        self.tables = rules.content.tables
        self.state = state
        self.segment = segment
        self.batch = batch
        self.dice = dice
        self.events: list[Event] = []
        self.used: set[int] = set()
        self.wounds: dict[str, int] = {}
        self.out: set[str] = set()

    def run(self) -> list[Event]:
        handlers: dict[str, Callable[[Action], None]] = {
            "strike": self.strike,
            "dodge": self.lone_test,
            "reposition": self.lone_test,
            "arm": self.arm,
            "lock": self.lock,
        }
        for action in self.batch:
            if action.id in self.used:
                continue
            if action.cancelled:
                self.cancelled(action)
                continue
            handler = handlers.get(action.kind)
            if handler is not None:
                handler(action)
        return self.events

    # -------------------------------------------------------- helpers

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def overlap_malus(self, action: Action) -> int:
        """Simultaneous-actions malus from the actor's other overlapping rolled actions."""
        c = self.fighter(action.actor)
        total = 0
        seen: set[int] = {action.id}
        for other in [*c.actions, *c.recent, *self.batch]:
            if other.id in seen or other.actor != action.actor:
                continue
            seen.add(other.id)
            if other.rolled and not other.cancelled and other.overlaps(action, self.segment):
                total += simultaneous_malus(other.difficulty)
        return total

    def test(
        self, action: Action | None, actor: str, name: str, modifiers: dict[str, int]
    ) -> TestResult:
        c = self.fighter(actor)
        modifiers = {**modifiers, "wounds": c.status.wound_malus}
        if action is not None:
            modifiers["difficulty"] = action.difficulty
            modifiers["simultaneous"] = self.overlap_malus(action)
        chance = sum(modifiers.values())
        result = roll_test(self.dice, chance, name, actor)
        self.events.append(
            TestRolled(
                self.segment,
                actor,
                action.id if action is not None else None,
                name,
                chance,
                result.roll,
                result.success,
                result.critical,
                result.margin,
                {k: v for k, v in modifiers.items() if v},
            )
        )
        return result

    # -------------------------------------------------------- handlers

    def arm(self, action: Action) -> None:
        self.events.append(WeaponState(self.segment, action.actor, True, False))

    def lock(self, action: Action) -> None:
        self.events.append(WeaponState(self.segment, action.actor, False, False))

    def cancelled(self, action: Action) -> None:
        if action.kind in ("arm", "strike"):
            self.events.append(WeaponState(self.segment, action.actor, False, False))

    def lone_test(self, action: Action) -> None:
        """A dodge that met no attack, or a repositioning: a test of its own."""
        c = self.fighter(action.actor)
        sheet: Sheet = c.sheet
        if action.kind == "dodge":
            mods = {"dodge": sheet.skill("dodge"), "agility": sheet.characteristic("agility")}
        else:
            mods = {"combat": sheet.skill("combat"), "agility": sheet.characteristic("agility")}
        self.test(action, action.actor, action.kind, mods)

    def strike(self, action: Action) -> None:
        attacker = self.fighter(action.actor)
        assert action.target is not None
        defender = self.fighter(action.target)
        sheet: Sheet = attacker.sheet
        weapon = sheet.weapon
        blow = str(action.params["blow"])
        result = self.test(
            action,
            attacker.id,
            "attack",
            {
                weapon.skill: sheet.skill(weapon.skill),
                weapon.characteristic: sheet.characteristic(weapon.characteristic),
                "deflection": -defender.sheet.armour.deflection,
            },
        )
        self.events.append(WeaponState(self.segment, attacker.id, False, True))
        if not result.success:
            self.events.append(
                AttackResolved(self.segment, attacker.id, action.id, defender.id, blow, "missed")
            )
            return
        if self.dodged(action, defender, result, blow):
            self.events.append(
                AttackResolved(self.segment, attacker.id, action.id, defender.id, blow, "dodged")
            )
            return
        self.events.append(
            AttackResolved(self.segment, attacker.id, action.id, defender.id, blow, "hit")
        )
        self.hit(attacker, defender, blow, result)

    def dodged(self, attack: Action, defender: Combatant, result: TestResult, blow: str) -> bool:
        """An active-versus-passive dodge, only by a dodge ending in this same segment."""
        dodge = next(
            (
                a
                for a in self.batch
                if a.actor == defender.id
                and a.kind == "dodge"
                and not a.cancelled
                and a.id not in self.used
            ),
            None,
        )
        if dodge is None:
            return False
        self.used.add(dodge.id)
        sheet: Sheet = defender.sheet
        mods = {
            "dodge": sheet.skill("dodge"),
            "agility": sheet.characteristic("agility"),
            "attacker Mr": -result.mr,
        }
        if blow == "thrust":
            mods["thrust"] = THRUST_DODGE_MALUS
        return self.test(dodge, defender.id, "dodge", mods).success

    def hit(self, attacker: Combatant, defender: Combatant, blow: str, result: TestResult) -> None:
        sheet: Sheet = attacker.sheet
        location = self.tables.location(self.dice.d100("hit location", defender.id))
        armour = defender.sheet.armour
        covered = not armour.locations or location.name in armour.locations
        margin_bonus = result.mr // 5 if result.critical else result.mr // 10
        strength = self.tables.strength_bonus(sheet.characteristic("strength"))
        absorption = armour.absorption if covered else 0
        damage = max(0, sheet.weapon.damage[blow] + margin_bonus + strength - absorption)
        wound = (damage * location.wound_factor + 50) // 100
        before = self.wounds.get(defender.id, defender.status.wounds)
        total = before + wound
        self.wounds[defender.id] = total
        level = self.tables.wound_level(total, defender.sheet.health)
        self.events.append(
            WoundTaken(
                self.segment,
                defender.id,
                attacker.id,
                location.name,
                damage,
                wound,
                total,
                level.name if level else "",
                level.malus if level else 0,
                {
                    "weapon": sheet.weapon.damage[blow],
                    "margin": margin_bonus,
                    "strength": strength,
                    "absorption": -absorption,
                },
            )
        )
        if level is not None and level.out and defender.id not in self.out:
            self.out.add(defender.id)
            self.events.append(OutOfFight(self.segment, defender.id, level.out))
