"""The resolution of a round's steps and of a round's end.

Events are returned in the order they happen; later parts of the same settlement see
what earlier ones changed (positions, hit points, fighters down) through the local
copies kept here, since the engine applies the events only once the settlement is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.dice import Dice
from segsim.events import Event, Moved, OutOfFight
from segsim.rules.loreval.attention import sneak_possible
from segsim.rules.loreval.categories import chain_maluses, two_weapon_maluses
from segsim.rules.loreval.combat import (
    CONTACT,
    Point,
    attack_modifiers,
    attention_scores,
    distance,
    passive_difficulty,
    range_modifiers,
    strength_damage,
    within,
)
from segsim.rules.loreval.content import Sheet, Weapon
from segsim.rules.loreval.events import (
    ActionWasted,
    AttackRolled,
    ChangeAllowed,
    CriticalConfirmed,
    Damaged,
    Declared,
    HeroismSaved,
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    SpellCast,
    TurnResolved,
    WeaponReadied,
)
from segsim.rules.loreval.rounds import ACT_CHANNEL, round_start, status_of
from segsim.rules.loreval.status import Plan
from segsim.state import Combatant, FightState

if TYPE_CHECKING:
    from segsim.rules.loreval.ruleset import Loreval


def initiative_roll(
    dice: Dice, c: Combatant, t: int, malus: int = 0
) -> tuple[InitiativeRolled, int]:
    """d20 + initiative skill (+ malus), never below 1 (seed 003, "Modifier son action")."""
    sheet: Sheet = c.sheet
    roll = dice.roll(20, "initiative", c.id)
    points = max(1, roll + sheet.skill("initiative") + malus)
    return InitiativeRolled(t, c.id, roll, sheet.skill("initiative"), points, malus), points


def round_started(
    state: FightState,
    dice: Dice,
    rnd: int,
    length: int,
    points: Mapping[str, int],
    grace: Mapping[str, str],
) -> RoundStarted:
    """The start of a round: tie-break dice for fighters equal in points and dexterity
    (rolled again until they differ), the order, and who sits the round out."""
    fighters = [c for c in state.in_fight() if c.id in points]
    t = round_start(rnd, length)
    ties: dict[str, int] = {}
    groups: dict[tuple[int, int], list[Combatant]] = {}
    for c in fighters:
        groups.setdefault((points[c.id], c.sheet.characteristics["dexterity"]), []).append(c)
    for group in groups.values():
        pending = group
        while len(pending) > 1:
            rolled = {c.id: dice.roll(20, "initiative tie-break", c.id) for c in pending}
            for cid, value in rolled.items():
                ties[cid] = ties.get(cid, 0) * 20 + value
            counts: dict[int, int] = {}
            for value in rolled.values():
                counts[value] = counts.get(value, 0) + 1
            pending = [c for c in pending if counts[rolled[c.id]] > 1]
            if pending:  # those still equal roll again; the others keep their order
                for c in group:
                    if c not in pending:
                        ties[c.id] = ties[c.id] * 20
    order = sorted(
        fighters,
        key=lambda c: (
            -points[c.id],
            -c.sheet.characteristics["dexterity"],
            -ties.get(c.id, 0),
            c.order,
        ),
    )
    return RoundStarted(
        t,
        None,
        rnd,
        tuple(c.id for c in order),
        {c.id: points[c.id] for c in order},
        {c.id: ties[c.id] for c in order if c.id in ties},
        {c.id: grace[c.id] for c in order if c.id in grace},
    )


class Settlement:
    """The resolution of one settlement: steps of a round, the end of a round."""

    def __init__(
        self, rules: Loreval, state: FightState, segment: int, rnd: int, dice: Dice
    ) -> None:
        self.rules = rules
        self.state = state
        self.segment = segment
        self.rnd = rnd
        self.dice = dice
        self.events: list[Event] = []
        self.positions: dict[str, Point] = {c.id: c.position for c in state.combatants.values()}
        self.hit_points: dict[str, int] = {
            c.id: status_of(c).hit_points for c in state.combatants.values()
        }
        self.heroism: dict[str, int] = {
            c.id: status_of(c).heroism for c in state.combatants.values()
        }
        self.out: set[str] = set()

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def standing(self, cid: str | None) -> bool:
        if cid is None:
            return False
        c = self.state.combatants.get(cid)
        return c is not None and c.in_fight and cid not in self.out

    # -------------------------------------------------------- declaration steps

    def declare(self, marker: Action, acts: Sequence[Action], changed: Plan | None) -> Plan | None:
        """The declaration made at a step (inaction when the fighter declared nothing at
        its declaration step; nothing at a change step)."""
        c = self.fighter(marker.actor)
        act = next((a for a in acts if a.channel == ACT_CHANNEL), None)
        if act is None:
            if changed is not None:
                self.emit(TurnResolved(self.segment, c.id, self.rnd, "no changed action"))
                return None
            attention = status_of(c).attention.as_dict()
            event = Declared(self.segment, c.id, self.rnd, "inaction", None, 1, attention)
            self.emit(event)
            return None
        params = dict(act.params)
        category = int(params.pop("category"))
        attention = params.pop("attention")
        params.pop("malus_moves", None)
        malus = int(act.params.get("malus_moves", 0))
        self.emit(
            Declared(
                self.segment,
                c.id,
                self.rnd,
                act.kind,
                act.target,
                category,
                attention,
                malus,
                params,
                changed=changed is not None,
            )
        )
        return Plan(act.kind, act.target, category, params, malus, changed is not None)

    # -------------------------------------------------------- resolution

    def resolve(self, cid: str, plan: Plan | None) -> None:
        """Carry out a fighter's plan at its turn."""
        c = self.fighter(cid)
        if plan is None:
            self.emit(TurnResolved(self.segment, cid, self.rnd, "nothing declared"))
            return
        handler = {
            "attack": self.attack,
            "move": self.move,
            "spell": self.spell,
        }.get(plan.kind)
        if handler is None:
            self.emit(TurnResolved(self.segment, cid, self.rnd))
            return
        note = handler(c, plan)
        if note is not None and plan.category > 1 and not plan.changed:
            self.emit(ChangeAllowed(self.segment, cid, self.rnd, note))
            return
        if note is not None:
            self.emit(ActionWasted(self.segment, cid, plan.kind, note))
        self.emit(TurnResolved(self.segment, cid, self.rnd))

    def move_toward(self, c: Combatant, target: str, metres: float, stop: float) -> None:
        here = self.positions[c.id]
        there = self.positions[target]
        gap = distance(here, there)
        step = min(metres, max(0.0, gap - stop))
        if step <= 0:
            return
        dest = (
            round(here[0] + (there[0] - here[0]) * step / gap, 2),
            round(here[1] + (there[1] - here[1]) * step / gap, 2),
        )
        self.positions[c.id] = dest
        self.emit(Moved(self.segment, c.id, dest[0], dest[1]))

    def move(self, c: Combatant, plan: Plan) -> str | None:
        sheet: Sheet = c.sheet
        reach = (1 + int(plan.params.get("moves", 0))) * sheet.speed
        if plan.target is not None:
            if not self.standing(plan.target):
                return f"{plan.target} is out of the fight"
            self.move_toward(c, plan.target, reach, CONTACT)
            return None
        to = plan.params["to"]
        dest = (float(to[0]), float(to[1]))
        self.positions[c.id] = dest
        self.emit(Moved(self.segment, c.id, dest[0], dest[1]))
        return None

    def spell(self, c: Combatant, plan: Plan) -> str | None:
        if plan.target is not None and not self.standing(plan.target):
            return f"{plan.target} is out of the fight"
        self.emit(SpellCast(self.segment, c.id, str(plan.params.get("spell")), plan.target))
        return None

    def attack(self, c: Combatant, plan: Plan) -> str | None:
        target = plan.target
        if not self.standing(target):
            return f"{target} is out of the fight"
        assert target is not None
        status = status_of(c)
        sheet: Sheet = c.sheet
        wid = plan.params.get("weapon")
        weapon = status.weapon
        if wid is not None:
            weapon = next((w for w in (status.weapon, *status.carried) if w.id == wid), weapon)
            self.emit(WeaponReadied(self.segment, c.id, weapon.id))
        moves = int(plan.params.get("moves", 0))
        if not weapon.ranged:
            if moves:
                self.move_toward(c, target, moves * sheet.speed, CONTACT)
            if not within(self.positions[c.id], self.positions[target], CONTACT):
                return f"{target} is out of reach"
        mode = str(plan.params.get("mode", "one_weapon"))
        attacks = int(plan.params.get("attacks", 1))
        skill = str(plan.params.get("skill", weapon.skill))
        chain = chain_maluses(mode, attacks)
        off = status.off_hand if wid is None else None
        two = two_weapon_maluses(sheet, weapon, off) if mode == "two_weapons" else (0, 0)
        for i in range(attacks):
            if not self.standing(target):
                self.emit(ActionWasted(self.segment, c.id, "attack", f"{target} is down"))
                break
            off_hand = mode == "two_weapons" and i % 2 == 1
            used = off if off_hand and off is not None else weapon
            mods = attack_modifiers(c, used, skill, self.rnd, plan=plan)
            if chain[i]:
                mods["chained"] = chain[i]
            if mode == "two_weapons":
                mods["two weapons"] = two[1] if off_hand else two[0]
            if used.ranged:
                extra = range_modifiers(self.state, c, self.fighter(target), used, self.positions)
                if extra is None:
                    return f"{target} is beyond range"
                mods.update(extra)
            label = f"attack {i + 1} of {attacks}" if attacks > 1 else ""
            if off_hand:
                label += ", off hand"
            self.strike(c, target, used, mods, plan.kind, label.strip(", "), off_hand)
        return None

    def strike(
        self,
        c: Combatant,
        target: str,
        weapon: Weapon,
        mods: dict[str, int],
        kind: str,
        label: str,
        off_hand: bool,
        *,
        damage_bonus: Mapping[str, int] | None = None,
        multiplier: int = 1,
        critical_multiplier: int | None = None,
    ) -> bool:
        """One attack roll, its critical confirmation and damage; True on a hit."""
        defender = self.fighter(target)
        difficulty, against, _ = passive_difficulty(self.state, defender, self.positions, self.rnd)
        roll = self.dice.roll(20, f"attack ({kind})", c.id)
        total = roll + sum(mods.values())
        hit = roll == 20 or (roll != 1 and total >= difficulty)
        threat = hit and roll >= weapon.critical
        critical = False
        if threat:
            confirm = self.dice.roll(20, "critical confirmation", c.id)
            ctotal = confirm + sum(mods.values())
            critical = confirm == 20 or (confirm != 1 and ctotal >= difficulty)
        self.emit(
            AttackRolled(
                self.segment,
                c.id,
                kind,
                target,
                weapon.name,
                roll,
                total,
                difficulty,
                hit,
                threat,
                critical,
                {k: v for k, v in mods.items() if v},
                against,
                label,
            )
        )
        if threat:
            self.emit(
                CriticalConfirmed(self.segment, c.id, target, confirm, ctotal, difficulty, critical)
            )
        if hit:
            mult = multiplier
            if critical:
                mult = critical_multiplier or weapon.multiplier * multiplier
            self.damage(c, target, weapon, mult, off_hand, dict(damage_bonus or {}))
        return hit

    def damage(
        self,
        attacker: Combatant,
        target: str,
        weapon: Weapon,
        multiplier: int,
        off_hand: bool,
        bonus: dict[str, Any],
    ) -> None:
        """Weapon dice and strength, times the multiplier (critical, charge), plus bonuses
        that are not multiplied (charge, sneak attack dice); at least 1."""
        sheet: Sheet = attacker.sheet
        rolls: list[int] = []
        for _ in range(multiplier):
            rolls += [
                self.dice.roll(weapon.damage.sides, f"damage ({weapon.name})", attacker.id)
                for _ in range(weapon.damage.count)
            ]
        mods: dict[str, int] = {
            "weapon": weapon.damage.bonus * multiplier,
            "strength": strength_damage(sheet, weapon, off_hand) * multiplier,
        }
        mods.update(bonus)
        for name, rank in self.sneak(attacker, target):
            sneak = [self.dice.roll(6, name, attacker.id) for _ in range(rank)]
            rolls += sneak
            mods[name] = 0
        amount = max(1, sum(rolls) + sum(mods.values()))
        left = self.hit_points[target] - amount
        defender = self.fighter(target)
        if left <= 0 and self.rules.heroism_saves and self.heroism[target] > 0:
            self.heroism[target] -= 1
            self.emit(HeroismSaved(self.segment, target, attacker.id, amount))
            return
        self.hit_points[target] = left
        self.emit(
            Damaged(
                self.segment,
                target,
                attacker.id,
                weapon.name,
                tuple(rolls),
                amount,
                left,
                multiplier,
                {k: v for k, v in mods.items() if v},
            )
        )
        if left <= 0 and target not in self.out and defender.in_fight:
            self.out.add(target)
            self.emit(OutOfFight(self.segment, target, "0 hit points or fewer"))

    def sneak(self, attacker: Combatant, target: str) -> list[tuple[str, int]]:
        """Sneak and perfidious attacks that apply (Focus at least 2 above the target's
        Security; sneak attack adds its rank to Focus for that): +1d6 per rank each
        (D&D 3's sneak attack dice; Interpretations)."""
        sheet: Sheet = attacker.sheet
        if not sheet.sneak_attack and not sheet.perfidious_attack:
            return []
        mine = attention_scores(attacker, self.rnd)
        theirs = attention_scores(self.fighter(target), self.rnd)
        out = []
        if sheet.sneak_attack and sneak_possible(mine.focus, theirs.security, sheet.sneak_attack):
            out.append(("sneak attack", sheet.sneak_attack))
        if sheet.perfidious_attack and sneak_possible(mine.focus, theirs.security):
            out.append(("perfidious attack", sheet.perfidious_attack))
        return out

    # -------------------------------------------------------- round's end

    def end_round(self) -> None:
        """The points spent are taken; grace rounds roll initiative again; the next
        round begins."""
        rnd = self.rnd
        spent: dict[str, int] = {}
        points: dict[str, int] = {}
        for c in self.state.in_fight():
            if c.id in self.out:
                continue
            status = status_of(c)
            plan = status.plan
            cost = 0
            if plan is not None and status.declared_round == rnd and plan.kind != "grace":
                cost = plan.spent
            spent[c.id] = cost
            points[c.id] = max(0, status.initiative - cost)
        self.emit(RoundEnded(self.segment, None, rnd, spent))
        t = round_start(rnd + 1, self.rules.round_segments)
        grace: dict[str, str] = {}
        for c in self.state.in_fight():
            if c.id in self.out:
                continue
            status = status_of(c)
            if status.grace:
                event, points[c.id] = initiative_roll(self.dice, c, t, status.next_roll_malus)
                self.emit(event)
            if status.used_heroic_round == rnd:
                grace[c.id] = "heroic"
            elif points[c.id] == 0:
                grace[c.id] = "forced"
        self.emit(
            round_started(self.state, self.dice, rnd + 1, self.rules.round_segments, points, grace)
        )
