"""The resolution of a turn, and of a round's end.

Everything a fighter declared for its turn resolves at the turn's end, in the order
declared: a move before an attack is made from where the move ends. Events are
returned in the order they happen; later actions of the same turn see what earlier
ones changed (positions, hit points, fighters down).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from segsim.actions import Action
from segsim.dice import Dice
from segsim.events import Event, Moved, OutOfFight
from segsim.native import mypyc_attr
from segsim.rules.chroniques.attack import (
    CONCERTED_DIFFICULTY,
    SIMPLE_DEFENCE,
    TOTAL_DEFENCE,
    TWO_WEAPON_DIE,
    Point,
    concerted_bonus,
    critical_from,
    defence,
    range_modifiers,
)
from segsim.rules.chroniques.content import Sheet, Weapon
from segsim.rules.chroniques.events import (
    ActionWasted,
    Assisted,
    AttackRolled,
    CapabilityUsed,
    Damaged,
    DefenceEnded,
    DefenceTaken,
    ForbiddenEquipment,
    FreeActionTaken,
    InitiativeLowered,
    RoundStarted,
    TurnEnded,
    TurnLost,
    WeaponDrawn,
)
from segsim.rules.chroniques.status import Hands, Status
from segsim.rules.chroniques.turns import initiative_order, round_start
from segsim.rules.lazy import Lazy
from segsim.state import Combatant, FightState

if TYPE_CHECKING:
    from segsim.rules.chroniques.ruleset import Chroniques


def round_started(
    state: FightState, rnd: int, out: frozenset[str], order: list[Combatant] | None = None
) -> RoundStarted:
    """The round begins: its initiative order (``order``: the round's, sorted already;
    those in ``out`` are leaving the fight)."""
    if order is None:
        order = initiative_order(state, rnd)
    order = [c for c in order if c.id not in out]
    return RoundStarted(
        round_start(rnd),
        None,
        rnd,
        tuple(c.id for c in order),
        {c.id: c.sheet.initiative for c in order},
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class Settlement:
    """The resolution of one turn (and of a round's end): events in the order they
    happen, with what earlier events of the same turn changed (positions, hit points)."""

    def __init__(self, rules: Chroniques, state: FightState, segment: int, dice: Dice) -> None:
        self.rules = rules
        self.state = state
        self.segment = segment
        self.dice = dice
        self.events: list[Event] = []
        combatants = state.combatants
        # what this turn changes is written over the state's values, read on demand
        self.positions: Lazy[Point] = Lazy(lambda cid: combatants[cid].position)
        self.hit_points: Lazy[int] = Lazy(lambda cid: combatants[cid].status.hit_points)
        self.out: set[str] = set()
        self.done: set[str] = set()  # whose turn of the round is over
        self.assists_used: set[tuple[str, str]] = set()
        self.hands: dict[str, Hands] = {}

    def emit(self, event: Event) -> None:
        self.events.append(event)

    # -------------------------------------------------------- a turn

    def turn(self, marker: Action, actions: Sequence[Action]) -> None:
        c = self.state.combatants[marker.actor]
        rnd = int(marker.params["round"])
        delay = None
        for a in actions:  # (a loop, not next() over a generator: once a turn)
            if a.kind == "delay":
                delay = a
                break
        lost = delay is not None and int(delay.params["initiative"]) <= 0
        if (delay is None or lost) and c.status.defence_bonus:
            self.emit(DefenceEnded(self.segment, c.id))
        handlers = _HANDLERS
        for action in actions:
            handler = handlers.get(action.kind)
            if handler is not None:
                handler(self, action)
        if delay is not None and not lost:
            value = int(delay.params["initiative"])
            self.emit(InitiativeLowered(self.segment, c.id, rnd, value))
            return
        if lost:
            self.emit(TurnLost(self.segment, c.id, rnd, "initiative lowered to 0"))
        else:
            self.emit(TurnEnded(self.segment, c.id, rnd))
        self.done.add(c.id)

    def new_round(self, rnd: int) -> None:
        """The end of a round: who could not act loses its turn; the next round begins."""
        for c in self.state.in_fight():
            if c.id in self.out or c.id in self.done or c.status.acted_round >= rnd - 1:
                continue
            if c.status.defence_bonus:
                self.emit(DefenceEnded(self.segment, c.id))
            self.emit(TurnLost(self.segment, c.id, rnd - 1, "the round ran out of segments"))
        # The order the rules keep for the round, sorted once for both.
        order = self.rules.round_order(self.state, rnd).order
        self.emit(round_started(self.state, rnd, frozenset(self.out), order))

    # -------------------------------------------------------- helpers

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def hands_of(self, cid: str) -> Hands:
        """The fighter's weapons, after what it drew earlier in this turn."""
        found = self.hands.get(cid)
        if found is None:
            status: Status = self.fighter(cid).status
            found = status.hands
        return found

    def standing(self, action: Action, target: str | None) -> bool:
        """Whether the target is still up; if not, the action comes to nothing."""
        if target is not None and target in self.out:
            self.emit(
                ActionWasted(
                    self.segment,
                    action.actor,
                    action.id,
                    action.kind,
                    f"{target} is already out of the fight",
                )
            )
            return False
        return True

    def attack_test(
        self,
        action: Action,
        target: str,
        weapon: Weapon,
        *,
        label: str,
        die: int = 20,
        difficulty: int | None = None,
    ) -> AttackRolled:
        """Roll one attack test; against the target's DEF unless a difficulty is given."""
        attacker = self.fighter(action.actor)
        sheet: Sheet = attacker.sheet
        mods = sheet.attack_modifiers(weapon)
        if difficulty is None:
            mods.update(
                range_modifiers(
                    self.state,
                    attacker.id,
                    target,
                    weapon,
                    self.rules.dim_light,
                    self.positions,
                    dim_light_magic=self.rules.dim_light_magic,
                )
            )
            bonus = attacker.status.assists.get(target, 0)
            if bonus and (attacker.id, target) not in self.assists_used:
                mods["concerted"] = bonus
                self.assists_used.add((attacker.id, target))
            difficulty = defence(self.fighter(target), self.rules.surprised_defence_malus)[0]
        roll = self.dice.roll(die, f"attack ({label})", attacker.id)
        critical_face = critical_from(weapon, die, self.rules.two_weapon_criticals)
        critical = critical_face is not None and roll >= critical_face
        fumble = roll == 1
        total = roll + sum(mods.values())
        success = not fumble and (critical or total >= difficulty)
        event = AttackRolled(
            self.segment,
            attacker.id,
            action.id,
            target,
            label,
            weapon.name,
            die,
            roll,
            total,
            difficulty,
            success,
            critical and success,
            fumble,
            {k: v for k, v in mods.items() if v},
        )
        self.emit(event)
        return event

    def damage(self, attacker: Combatant, target: str, weapon: Weapon, critical: bool) -> None:
        """Weapon dice + FOR modifier (melee and thrown), at least 1; doubled on a critical
        success (Interpretations)."""
        sheet: Sheet = attacker.sheet
        dice = weapon.damage
        rolls = tuple(
            self.dice.roll(dice.sides, f"damage ({weapon.name})", attacker.id)
            for _ in range(dice.count)
        )
        mods = {"weapon": dice.bonus, "strength": sheet.damage_bonus(weapon)}
        amount = max(1, sum(rolls) + sum(mods.values()))
        if critical:
            amount *= 2
        left = max(0, self.hit_points[target] - amount)
        self.hit_points[target] = left
        self.emit(
            Damaged(
                self.segment,
                target,
                attacker.id,
                weapon.name,
                str(dice),
                rolls,
                amount,
                left,
                critical,
                {k: v for k, v in mods.items() if v},
            )
        )
        if left == 0 and target not in self.out:
            self.out.add(target)
            self.emit(OutOfFight(self.segment, target, "0 hit points"))

    # -------------------------------------------------------- handlers

    def attack(self, action: Action) -> None:
        assert action.target is not None
        if not self.standing(action, action.target):
            return
        attacker = self.fighter(action.actor)
        hands = self.hands_of(attacker.id)
        off = action.params.get("hand") == "off"
        weapon = hands.off_hand if off else hands.weapon
        assert weapon is not None
        test = self.attack_test(
            action, action.target, weapon, label="off hand" if off else "attack"
        )
        if test.success:
            self.damage(attacker, action.target, weapon, test.critical)

    def two_weapons(self, action: Action) -> None:
        """Two attacks, each on a d12, each with its weapon's normal damage."""
        assert action.target is not None
        attacker = self.fighter(action.actor)
        hands = self.hands_of(attacker.id)
        assert hands.off_hand is not None
        second = str(action.params.get("second_target", action.target))
        for weapon, target, label in (
            (hands.weapon, action.target, "two weapons, main hand"),
            (hands.off_hand, second, "two weapons, off hand"),
        ):
            if not self.standing(action, target):
                continue
            test = self.attack_test(action, target, weapon, label=label, die=TWO_WEAPON_DIE)
            if test.success:
                self.damage(attacker, target, weapon, test.critical)

    def concerted(self, action: Action) -> None:
        """A melee attack test against 15: +2 to the partner's next attack test against
        the target, +4 at 25 or on a critical success."""
        assert action.target is not None
        partner = str(action.params["partner"])
        if not self.standing(action, action.target) or not self.standing(action, partner):
            return
        attacker = self.fighter(action.actor)
        test = self.attack_test(
            action,
            action.target,
            self.hands_of(attacker.id).weapon,
            label="concerted",
            difficulty=CONCERTED_DIFFICULTY,
        )
        if test.success:
            bonus = concerted_bonus(test.total, test.critical)
            self.emit(Assisted(self.segment, attacker.id, partner, action.target, bonus))

    def move(self, action: Action) -> None:
        to = action.params["to"]
        dest = (float(to[0]), float(to[1]))
        self.positions[action.actor] = dest
        self.emit(Moved(self.segment, action.actor, dest[0], dest[1]))

    def draw(self, action: Action) -> None:
        wid = str(action.params["weapon"])
        hand = str(action.params.get("hand", "main"))
        after, away = self.hands_of(action.actor).draw(wid, hand)
        self.hands[action.actor] = after
        self.emit(WeaponDrawn(self.segment, action.actor, wid, hand, away))
        sheet: Sheet = self.fighter(action.actor).sheet
        drawn = after.off_hand if hand == "off" else after.weapon
        if drawn is not None and sheet.forbids(drawn):
            taboo = (drawn.name,) if sheet.taboo(drawn) else ()
            self.emit(ForbiddenEquipment(self.segment, action.actor, (drawn.name,), taboo))

    def simple_defence(self, action: Action) -> None:
        self.emit(DefenceTaken(self.segment, action.actor, "simple", SIMPLE_DEFENCE))

    def total_defence(self, action: Action) -> None:
        self.emit(DefenceTaken(self.segment, action.actor, "total", TOTAL_DEFENCE))

    def capability(self, action: Action) -> None:
        self.emit(CapabilityUsed(self.segment, action.actor, str(action.params["name"])))

    def free(self, action: Action) -> None:
        self.emit(FreeActionTaken(self.segment, action.actor, str(action.params["what"])))


_HANDLERS: dict[str, Callable[[Settlement, Action], None]] = {
    "attack": Settlement.attack,
    "concerted_attack": Settlement.concerted,
    "two_weapons": Settlement.two_weapons,
    "move": Settlement.move,
    "draw": Settlement.draw,
    "simple_defence": Settlement.simple_defence,
    "total_defence": Settlement.total_defence,
    "capability": Settlement.capability,
    "free": Settlement.free,
}
"""What each kind of a turn's actions does (made once, not for each turn)."""
