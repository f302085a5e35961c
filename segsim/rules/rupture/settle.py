"""The settlement of one segment: blows landing, then moves, then the other actions.

A targeted action is settled in two steps (Rupture, "Se défendre": the target may
declare its defence after the attacker's roll): when the action completes its test is
rolled and published (:class:`AttackRolled`) and the rules start a ``blow`` that lands at
the end of the next segment; in that segment the target may declare a free defence, and
the blow is settled with it (:meth:`Settlement.blow`, the steps of "Les bases résumées").
Events are returned in the order they happen; later ones see what earlier ones changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.dice import Dice
from segsim.events import ActionSpawned, Event, Moved, OutOfFight
from segsim.native import mypyc_attr
from segsim.rules.rupture.content import HINDER, TARGETED, Sheet
from segsim.rules.rupture.declare import ACT, BLOW, TESTED, means_for
from segsim.rules.rupture.events import (
    ActionWasted,
    AttackRolled,
    BlowSettled,
    DefenceRolled,
    Healed,
    Helped,
    Hindered,
    Overflowed,
    Prepared,
    Stabilised,
    TestRolled,
)
from segsim.rules.rupture.pool import TestRoll, roll_test
from segsim.rules.rupture.status import Status
from segsim.state import Combatant, FightState

if TYPE_CHECKING:
    from segsim.rules.rupture.ruleset import Rupture

OUT_AT = 4
"""An overflow of 4 or more takes the target out of the fight (Rupture, "Dépassement")."""
DEAD_AT = 8
"""An overflow of 8 or more kills it."""


def settle_value(attack: int, defence: int) -> int:
    """The final value of an attack: attack value - defence value (Rupture, "Les bases
    résumées")."""
    return attack - defence


def pay(effort: int, final: int) -> tuple[int, int]:
    """(effort lost, physical stress taken) for a final value: effort first, stress for
    what it cannot pay (RULES-NOTES, "Rupture")."""
    if final <= 0:
        return 0, 0
    lost = min(effort, final)
    return lost, final - lost


def overflow(final: int, threshold: int) -> int:
    """The overflow of a final value over a rupture threshold (0 when not above it)."""
    return max(0, final - threshold)


def overflow_effect(value: int) -> str:
    if value >= DEAD_AT:
        return "dead"
    if value >= OUT_AT:
        return "out of the fight"
    return ""


@mypyc_attr(allow_interpreted_subclasses=True)
class Settlement:
    """The resolution of one segment's completions, with what earlier events of it
    changed (effort, stress, who is out, bonus dice)."""

    def __init__(self, rules: Rupture, state: FightState, segment: int, dice: Dice) -> None:
        self.rules = rules
        self.state = state
        self.segment = segment
        self.dice = dice
        self.events: list[Event] = []
        self.effort: dict[str, int] = {}
        self.stress: dict[str, int] = {}
        self.bonus: dict[str, int] = {}
        self.malus: dict[str, int] = {}
        self.out: set[str] = set()
        self.spawned = 0

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def status(self, cid: str) -> Status:
        status: Status = self.fighter(cid).status
        return status

    def effort_of(self, cid: str) -> int:
        return self.effort.get(cid, self.status(cid).effort)

    def stress_of(self, cid: str) -> int:
        return self.stress.get(cid, self.status(cid).stress)

    def standing(self, cid: str) -> bool:
        return self.fighter(cid).in_fight and cid not in self.out

    def wasted(self, action: Action, reason: str) -> None:
        self.emit(ActionWasted(self.segment, action.actor, action.id, action.kind, reason))

    def take_out(self, cid: str, reason: str) -> None:
        if cid not in self.out:
            self.out.add(cid)
            self.emit(OutOfFight(self.segment, cid, reason))

    def test(
        self, cid: str, skill: str, purpose: str, difficulty: int = 0
    ) -> tuple[TestRoll, int, int]:
        """Roll a test of ``skill`` for an action: the pool, plus bonus dice won earlier,
        less the dice a hindrance took, against the difficulty plus the fighter's flaws.
        Returns the roll, the bonus and the malus (both spent)."""
        c = self.state.combatants[cid]
        sheet: Sheet = c.sheet
        status: Status = c.status
        bonus = self.bonus.get(cid)
        if bonus is None:
            bonus = status.bonus
        malus = self.malus.get(cid)
        if malus is None:
            malus = status.malus
        self.bonus[cid] = 0
        self.malus[cid] = 0
        total = max(0, difficulty + self.difficulty(cid, skill))
        pool = sheet.skills.get(skill, 0)  # sheet.skill(), without its call
        roll = roll_test(self.dice, pool + bonus - malus, total, purpose, cid)
        return roll, bonus, malus

    def malus_of(self, cid: str) -> int:
        return self.malus.get(cid, self.status(cid).malus)

    def difficulty(self, cid: str, skill: str) -> int:
        """What the fighter's flaws and the game master's circumstances add to the
        difficulty of a test of ``skill`` (circumstances may offset flaws; a difficulty
        never goes below 0)."""
        c = self.state.combatants[cid]
        sheet: Sheet = c.sheet
        circumstances = c.setup.get("circumstances") if c.setup else None
        # A sheet without flaws adds nothing to any test (most sheets: no call then).
        flaws = sheet.difficulty(skill) if sheet.flaws else 0
        if not circumstances:
            return max(0, flaws)
        return max(0, flaws + int(circumstances.get(skill, 0)))

    # -------------------------------------------------------- the segment

    def run(self, batch: Sequence[Action]) -> None:
        defences: dict[tuple[str, int], Action] = {}
        live: list[Action] = []
        for a in batch:
            if a.cancelled:
                continue
            kind = a.kind
            if kind == "defend":
                # After the roll a defence names the blow; announced before, the attack.
                key = ("blow", int(a.params["blow"])) if "blow" in a.params else None
                defences[key or ("attack", int(a.params["attack"]))] = a
            elif kind != "pass" and kind != "wait":
                live.append(a)
        if not live:
            return  # slots let go by, waits over, defences without their blow
        for a in live:
            if a.kind == BLOW:
                defence = defences.get(("blow", a.id)) or defences.get(
                    ("attack", int(a.params["attack"]))
                )
                self.blow(a, defence)
        moves = [a for a in live if a.kind in ("move", "run")]
        others = [a for a in live if a.kind not in (BLOW, "move", "run")]
        for a in [*moves, *others]:
            if a.channel == ACT and a.actor in self.out:
                self.wasted(a, f"{a.actor} fell before it was done")
            elif a.kind in TARGETED:
                self.attack(a)
            else:
                self.untargeted(a)

    # -------------------------------------------------------- targeted actions

    def attack(self, action: Action) -> None:
        """The attacker's test, published; on a success a blow lands next segment."""
        assert action.target is not None
        if not self.standing(action.target):
            self.wasted(action, f"{action.target} is already out of the fight")
            return
        attacker = self.fighter(action.actor)
        sheet: Sheet = attacker.sheet
        weapon = means_for(sheet, action.kind, action.params.get("weapon"))
        roll, bonus, malus = self.test(attacker.id, weapon.skill, f"{action.kind} ({weapon.skill})")
        value = roll.qualities + weapon.threat if roll.success else 0
        self.emit(
            AttackRolled(
                self.segment,
                attacker.id,
                action.id,
                action.target,
                action.kind,
                weapon.domain,
                weapon.name,
                weapon.skill,
                len(roll.faces),
                roll.faces,
                roll.difficulty,
                roll.qualities,
                roll.success,
                weapon.threat,
                value,
                bonus,
                malus,
            )
        )
        if not roll.success:
            return
        self.emit(
            ActionSpawned(
                self.segment,
                attacker.id,
                self.state.next_action_id + self.spawned,
                BLOW,
                action.target,
                1,
                "blow",
                params={
                    "attack": action.id,
                    "kind": action.kind,
                    "domain": weapon.domain,
                    "weapon": weapon.id,
                    "nature": weapon.wound_nature,
                    "qualities": roll.qualities,
                    "threat": weapon.threat,
                    "value": value,
                },
            )
        )
        self.spawned += 1

    def defence(self, defender: Combatant, attacker: str, blow: Action, action: Action) -> int:
        """The free defence test: qualities + Cover on a success, else 0."""
        sheet: Sheet = defender.sheet
        domain = str(blow.params["domain"])
        skill = str(action.params["skill"])
        roll = roll_test(
            self.dice,
            sheet.skills.get(skill, 0),  # sheet.skill(), without its call
            self.difficulty(defender.id, skill),
            f"defence ({skill})",
            defender.id,
        )
        usable = sheet.covers(domain)
        chosen = action.params.get("with")
        source = (
            next(w for w in usable if w.id == chosen)
            if chosen is not None
            else max(usable, key=lambda w: w.cover, default=None)
        )
        cover = source.cover if source is not None else 0
        value = roll.qualities + cover if roll.success else 0
        self.emit(
            DefenceRolled(
                self.segment,
                defender.id,
                attacker,
                blow.id,
                skill,
                len(roll.faces),
                roll.faces,
                roll.difficulty,
                roll.qualities,
                roll.success,
                cover if roll.success else 0,
                source.name if source is not None and roll.success and cover else "",
                value,
            )
        )
        return value

    def blow(self, blow: Action, defence: Action | None) -> None:
        """Settle a published attack: defence, final value, effort and stress, overflow."""
        assert blow.target is not None
        target = self.fighter(blow.target)
        if not target.in_fight:
            self.wasted(blow, f"{target.id} is already out of the fight")
            return
        p: Any = blow.params
        attack = int(p["value"])
        defence_value = 0
        if defence is not None:
            defence_value = self.defence(target, blow.actor, blow, defence)
        final = settle_value(attack, defence_value)
        if p["kind"] == HINDER:
            self.hindrance(blow, target, attack, defence_value, final)
            return
        effort = self.effort_of(target.id)
        lost, stress_taken = pay(effort, final)
        effort -= lost
        stress = self.stress_of(target.id) + stress_taken
        domain = str(p["domain"])
        self.emit(
            BlowSettled(
                self.segment,
                target.id,
                blow.actor,
                blow.id,
                domain,
                attack,
                defence_value,
                final,
                lost,
                stress_taken,
                effort,
                stress,
            )
        )
        self.effort[target.id] = effort
        self.stress[target.id] = stress
        sheet: Sheet = target.sheet
        threshold = sheet.rupture[domain]
        value = overflow(final, threshold)
        effect = ""
        if value:
            stress += value
            self.stress[target.id] = stress
            effect = overflow_effect(value)
            self.emit(
                Overflowed(
                    self.segment,
                    target.id,
                    blow.actor,
                    domain,
                    str(p["nature"]),
                    final,
                    threshold,
                    value,
                    stress,
                    value >= self.rules.wound_from,
                    effect,
                )
            )
        if effect:
            reason = "dead" if effect == "dead" else f"{domain} overflow of {value}"
            self.take_out(target.id, reason)
        elif self.rules.stress_out and sheet.stress_max and stress >= sheet.stress_max:
            self.take_out(target.id, f"physical stress {stress} of {sheet.stress_max}")

    def hindrance(
        self, blow: Action, target: Combatant, attack: int, defence: int, final: int
    ) -> None:
        """A hindrance that gets through (final value above 0) takes that many dice from
        the target's next action test; it costs no effort and overflows nothing (segsim's
        reading of "le gêne ou lui inflige des malus", docs/rules/rupture.md)."""
        dice = max(0, final)
        malus = self.malus_of(target.id) + dice
        self.malus[target.id] = malus
        self.emit(
            Hindered(
                self.segment,
                target.id,
                blow.actor,
                blow.id,
                str(blow.params["domain"]),
                attack,
                defence,
                final,
                dice,
                malus,
            )
        )

    # -------------------------------------------------------- untargeted actions

    def untargeted(self, action: Action) -> None:
        cid = action.actor
        p = action.params
        roll: TestRoll | None = None
        if action.kind in TESTED:
            if (
                action.kind == "help"
                and action.target is not None
                and not self.standing(action.target)
            ):
                self.wasted(action, f"{action.target} is out of the fight")
                return
            skill = str(p["skill"])
            roll, bonus, malus = self.test(
                cid, skill, f"{action.kind} ({skill})", int(p.get("difficulty", 0))
            )
            self.emit(
                TestRolled(
                    self.segment,
                    cid,
                    action.id,
                    action.kind,
                    skill,
                    len(roll.faces),
                    roll.faces,
                    roll.difficulty,
                    roll.qualities,
                    roll.success,
                    bonus,
                    str(p.get("what", "")),
                    malus,
                )
            )
        if action.kind in ("move", "run", "acrobatics") and "to" in p:
            to = p["to"]
            dest = (float(to[0]), float(to[1]))
            if action.kind == "run" and roll is not None and not roll.success:
                dest = self._part_way(cid, dest, self.fighter(cid).sheet.speed)
            if action.kind != "acrobatics" or (roll is not None and roll.success):
                self.emit(Moved(self.segment, cid, dest[0], dest[1]))
        if roll is None or not roll.success:
            return
        if action.kind == "prepare":
            self.emit(Prepared(self.segment, cid, roll.qualities))
        elif action.kind == "help":
            assert action.target is not None
            self.emit(Helped(self.segment, cid, action.target, roll.qualities))
        elif action.kind == "heal":
            assert action.target is not None
            self._heal(cid, action.target, roll.qualities)

    def _heal(self, cid: str, ally: str, qualities: int) -> None:
        if self.standing(ally):
            status = self.status(ally)
            before = self.effort_of(ally)
            after = min(status.max_effort, before + qualities)
            self.effort[ally] = after
            self.emit(Healed(self.segment, cid, ally, after - before, after))
        elif not self.status(ally).dead and not self.status(ally).stabilised:
            self.emit(Stabilised(self.segment, cid, ally))

    def _part_way(self, cid: str, dest: tuple[float, float], reach: float) -> tuple[float, float]:
        """Where a failed run ends: one move's distance toward its destination."""
        x, y = self.fighter(cid).position
        gap = ((dest[0] - x) ** 2 + (dest[1] - y) ** 2) ** 0.5
        if gap <= reach:
            return dest
        return (
            round(x + (dest[0] - x) * reach / gap, 2),
            round(y + (dest[1] - y) * reach / gap, 2),
        )
