"""Settling one segment of RinKaNou: every action that completes in it, together.

Blows first: each strike rolls, then meets the defence its target timed to end in the
same segment (a parry, else a dodge); defences that met no blow, repositioning,
disengaging, reads and moves are resolved as actions of their own. Last, situation
points are recomputed for those who resolved an action and reset or narrowed for those
who were only watching (RinKaNou, "Points de situation").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.dice import Dice
from segsim.events import Event, Moved, OutOfFight
from segsim.native import mypyc_attr
from segsim.rules.rinkanou import manoeuvres, ranged
from segsim.rules.rinkanou.content import Sheet
from segsim.rules.rinkanou.difficulty import (
    DISARM_MALUS,
    DISENGAGE_AFTER_DODGE,
    THRUST_DODGE_MALUS,
    THRUST_PARRY_MALUS,
    after_a_dodge,
    attack_start,
    overlap_malus,
    read_modifier,
)
from segsim.rules.rinkanou.events import (
    CommandPointsChanged,
    Disengaged,
    GearDamaged,
    HandsChanged,
    IntentRead,
    SituationChanged,
    StanceChanged,
    SurpriseMalus,
    TestRolled,
)

# The settlement's most frequent events, made without a call of their classes (in the
# compiled build, by their native constructors: see the events module)
from segsim.rules.rinkanou.events import attack_resolved as _attack_resolved
from segsim.rules.rinkanou.events import situation_changed as _situation_changed
from segsim.rules.rinkanou.events import weapon_state as _weapon_state
from segsim.rules.rinkanou.events import wound_taken as _wound_taken
from segsim.rules.rinkanou.roll import Rolled, tens
from segsim.rules.rinkanou.ruleset import (
    REACH_TOLERANCE,
    SITUATION_KINDS,
    point_at,
    recomputes,
    toward_point,
    within,
)
from segsim.rules.rinkanou.situation import PS_PERCENT, PSUse
from segsim.spatial import Grid
from segsim.state import SMALL_FIGHT, Combatant, FightState, by_order

if TYPE_CHECKING:
    from segsim.rules.rinkanou.ruleset import RinKaNou

PERSONAL_SPACE = 0.5  # metres: nobody ends a move closer than this to someone else


def ps_from_result(result: Rolled, divisor: int) -> int:
    """Situation points after an action (RULES-NOTES, "Situation points after an action")."""
    if result.success:
        if result.critical:
            bonus = tens(result.roll) + 1
            return bonus if divisor == 20 else result.margin // divisor + bonus
        return result.margin // divisor
    if result.critical:
        return -tens(result.roll)
    return -(result.margin // divisor)


KNOWN_SHEETS = 1024
"""Sheets whose :class:`SheetFacts` a ruleset keeps (then it starts afresh)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class SheetFacts:
    """What a settlement reads of a fighter's sheet under one ruleset, worked out once per
    sheet (a sheet is frozen) rather than at every blow: the weapon's skill and
    characteristic, the dodge skill, agility, the strength bonus and the reach."""

    __slots__ = ("agility", "dodge", "reach", "sheet", "strength", "weapon_skill", "wielding")

    def __init__(self, rules: RinKaNou, sheet: Sheet) -> None:
        weapon = sheet.weapon
        self.sheet = sheet  # kept: while it is known, no other sheet can take its id
        self.weapon_skill = sheet.skill(weapon.skill)
        self.wielding = sheet.characteristic(weapon.characteristic)  # the weapon's
        self.dodge = sheet.skill("dodge")
        self.agility = sheet.characteristic("agility")
        self.strength = rules.content.tables.strength_bonus(sheet.characteristic("strength"))
        self.reach = rules.reach(sheet)


@mypyc_attr(allow_interpreted_subclasses=True)
class Settlement:
    """The resolution of one segment's batch."""

    __slots__ = (
        "batch",
        "claimed",
        "combatants",
        "dice",
        "directions",
        "dodges_left",
        "engage",
        "events",
        "facts",
        "gear",
        "moving",
        "out",
        "results",
        "rules",
        "segment",
        "spawned",
        "spoiled",
        "spots",
        "state",
        "surprise_spent",
        "tables",
        "used",
        "wounds",
    )

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
        self.facts = rules._sheet_facts
        self.state = state
        self.combatants = state.combatants
        self.segment = segment
        self.batch = batch
        self.dice = dice
        self.events: list[Event] = []
        self.used: set[int] = set()
        self.dodges_left: dict[int, int] = {}
        # Made when first written (most settlements wound nobody and damage no gear).
        self.wounds: dict[str, int] | None = None
        self.gear: dict[tuple[str, str], int] | None = None
        self.out: set[str] = set()
        self.surprise_spent: set[str] | None = None  # made when first written, likewise
        self.results: dict[str, list[Rolled | None]] = {}
        self.spawned = 0
        self.moving: set[str] = set()  # moved this segment (their old spots are free)
        # Where they moved to (a grid: a big battle moves many), made at the first move.
        self.claimed: Grid | None = None
        self.spots: list[tuple[float, float]] | None = None  # the same, in a small fight
        self.directions: dict[int, float] = {}  # dodge id -> bearing of what it dodges
        self.engage: dict[str, tuple[str, ...]] = {}
        self.spoiled: set[int] = set()  # arms whose blow a keeper spoiled (Tenir à distance)

    def run(self) -> list[Event]:
        handlers = _HANDLERS
        used = self.used
        for action in self.batch:
            kind = action.kind  # recomputes(action), without its call:
            if kind in SITUATION_KINDS or (kind == "move" and action.rolled):
                self.engage[action.actor] = tuple(action.params.get("engage", ()))
            if action.id in used:
                continue
            if action.cancelled:
                self.cancelled(action)
                continue
            handler = handlers.get(action.kind)
            if handler is not None:
                handler(self, action)
        self.situation()
        return self.events

    # -------------------------------------------------------- helpers

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def overlap_malus(self, action: Action) -> int:
        """The simultaneous-actions malus on ``action`` (RinKaNou, "Actions simultanées";
        see :func:`segsim.rules.rinkanou.difficulty.overlap_malus`)."""
        return overlap_malus(self, action)

    def test(self, action: Action, name: str, mods: dict[str, int]) -> Rolled:
        """One d100 test of an action, with every modifier named in the event. ``mods``
        is the caller's own fresh table: the test adds its own modifiers to it, and the
        event keeps it as it is when none is 0 (see :meth:`TestRolled.rolled`)."""
        actor = action.actor
        status = self.combatants[actor].status
        # Only those that count (the event keeps no other): most are 0.
        difficulty = action.difficulty
        if difficulty:
            mods["difficulty"] = difficulty
        simultaneous = overlap_malus(self, action)  # self.overlap_malus, without its call
        if simultaneous:
            mods["simultaneous"] = simultaneous
        wounds = status.wound_malus
        if wounds:
            mods["wounds"] = wounds
        spent = self.surprise_spent
        surprised = status.surprise_malus and (spent is None or actor not in spent)
        if surprised:
            mods["surprise"] = status.surprise_malus
            if spent is None:
                spent = self.surprise_spent = set()
            spent.add(actor)
        roll = self.dice.roll(100, name, actor)
        chance = sum(mods.values())
        result = TestRolled.rolled(self.segment, actor, action.id, name, chance, roll, mods)
        self.events.append(result)
        if surprised:
            self.events.append(SurpriseMalus(self.segment, actor, 0))
        kind = action.kind  # recomputes(action), without its call:
        if kind in SITUATION_KINDS or (kind == "move" and action.rolled):
            results = self.results.get(actor)
            if results is None:
                self.results[actor] = [result]
            else:
                results.append(result)
        return result

    def opposing_test(self, c: Combatant, name: str, modifiers: Mapping[str, int]) -> Rolled:
        """A test that belongs to no action of its fighter (opposing a disengage, a
        strength duel): the modifiers and the fighter's wounds."""
        mods = {**modifiers, "wounds": c.status.wound_malus}
        chance = sum(mods.values())
        result = TestRolled.rolled(
            self.segment, c.id, None, name, chance, self.dice.roll(100, name, c.id), mods
        )
        self.events.append(result)
        return result

    def use(self, action: Action) -> PSUse:
        return self.rules.ps_use(self.state, action)

    def pc(self, action: Action) -> PSUse:
        return self.rules.pc_use(self.state, action)

    def defence_points(self, defence: Action, defender: Combatant, author: str) -> tuple[int, int]:
        """What a defence's situation points give against the blow of ``author``: the
        % on its roll and the parry force (RinKaNou, "En mêlée").

        A defence that names its opponent was checked against him when declared. One
        that names nobody takes, now, the points and maluses against the author of the
        blow it meets, as if it had named him: its spends serve only if he is taken into
        account, and a negative score that applies against him weighs -10 % for each
        point its buys did not pay back (the price of the malus buy). If its fighter's
        score was recomputed since it was declared, it keeps what it spent and bought; one
        paid with command points has no PS to count (RinKaNou, "Points de commandement").
        One that meets no blow is settled as against the nearest opponent (lone_defence).
        """
        use = self.rules.ps_use(self.state, defence)  # self.use(defence), without its call
        status = defender.status
        if (
            defence.target is not None
            or status.ps == 0
            or defence.start < status.ps_since
            or "pc" in defence.params
        ):
            return use.chance, use.parry_force
        if status.ps > 0:
            if author in status.engaged:
                return use.chance, use.parry_force
            return use.chance - use.spent_chance, 0  # spent on nothing: only the buys
        owed = -self.rules.usable_ps(self.state, defender, author)  # 0 if not against him
        unpaid = owed + use.net
        if unpaid < 0:  # max(0, unpaid), without its call
            unpaid = 0
        return use.chance - PS_PERCENT * unpaid, use.parry_force

    def cover_malus(self, target: Combatant) -> int:
        """The chance of hitting the locations behind hard cover (RinKaNou, "Cible sous
        couvert dur": legs covered, -26 %)."""
        covered = target.setup.get("cover", ())
        if not covered:
            return 0
        return sum(loc.high - loc.low + 1 for loc in self.tables.locations if loc.name in covered)

    def next_id(self) -> int:
        """The id of the next action the rules start by themselves."""
        self.spawned += 1
        return self.state.next_action_id + self.spawned - 1

    def known(self, sheet: Sheet) -> SheetFacts:
        """The facts of a sheet, worked out the first time the ruleset meets it."""
        facts = self.facts
        found = facts.get(id(sheet))
        if found is None:
            if len(facts) >= KNOWN_SHEETS:
                facts.clear()
            found = facts[id(sheet)] = SheetFacts(self.rules, sheet)
        return found

    def strength(self, sheet: Sheet) -> int:
        return self.known(sheet).strength

    def lose_gear(self, owner: Combatant, item: str, loss: int) -> None:
        if loss <= 0:
            return
        key = (owner.id, item)
        gear = self.gear
        if gear is None:
            gear = self.gear = {}
        current = gear.get(
            key, owner.status.shield_pr if item == "shield" else owner.status.weapon_pr
        )
        left = max(0, current - loss)
        gear[key] = left
        self.events.append(GearDamaged(self.segment, owner.id, item, current - left, left))

    # -------------------------------------------------------- weapon actions

    def arm(self, action: Action) -> None:
        if action.id in self.spoiled or action.id == self.combatants[action.actor].status.lost_arm:
            return  # its blow was lost coming close to a keeper (Tenir à distance)
        self.events.append(_weapon_state(self.segment, action.actor, True, False))

    def lock(self, action: Action) -> None:
        self.events.append(_weapon_state(self.segment, action.actor, False, False))

    def cancelled(self, action: Action) -> None:
        """A cancelled action counts as resolved (no roll); an armed blow is lost."""
        if action.kind in ("arm", "strike") or (
            action.kind == "parry" and action.params.get("with") != "shield"
        ):
            self.events.append(_weapon_state(self.segment, action.actor, False, False))
        if recomputes(action):
            self.results.setdefault(action.actor, []).append(None)

    def resolved(self, attacker: str, action: Action, target: str, blow: str, result: str) -> None:
        """What became of a blow (``attack.resolved``)."""
        self.events.append(
            _attack_resolved(self.segment, attacker, action.id, target, blow, result)
        )

    def strike(self, action: Action) -> None:
        combatants = self.combatants
        attacker = combatants[action.actor]
        assert action.target is not None
        defender = combatants[action.target]
        sheet: Sheet = attacker.sheet
        weapon = sheet.weapon
        params = action.params
        blow = str(params["blow"])
        use = self.rules.ps_use(self.state, action)
        self.events.append(_weapon_state(self.segment, attacker.id, False, True))
        aid, did = attacker.id, defender.id
        facts = self.facts.get(id(sheet))  # self.known(sheet), without its call
        if facts is None:  # (the first time)
            facts = self.known(sheet)
        # within(), without its call
        if math.dist(attacker.position, defender.position) > facts.reach + REACH_TOLERANCE:
            self.results.setdefault(aid, []).append(None)
            self.resolved(aid, action, did, blow, "out of reach")
            return
        disarm = params.get("disarm")
        mods = {
            weapon.skill: facts.weapon_skill,
            weapon.characteristic: facts.wielding,
            "deflection": -defender.sheet.armour.deflection,
        }
        # Those that are most often 0 only when they count (the event keeps no other).
        cover = self.cover_malus(defender)
        if cover:
            mods["cover"] = -cover
        if disarm:
            mods["disarm"] = DISARM_MALUS
        if use.chance:
            mods["ps"] = use.chance
        result = self.test(action, "attack", mods)
        if not result.success:
            self.resolved(aid, action, did, blow, "missed")
            return
        reduction = 0
        parry = self.defence(defender, attacker, "parry")
        if parry is not None:
            outcome, reduction = self.parried(parry, action, defender, attacker, result, use)
            if outcome:
                self.resolved(aid, action, did, blow, outcome)
                return
        elif (dodge := self.defence(defender, attacker, "dodge")) is not None and self.dodged(
            dodge, defender, aid, result, blow
        ):
            self.resolved(aid, action, did, blow, "dodged")
            return
        if disarm:
            outcome = manoeuvres.disarm(self, action, attacker, defender)
            self.resolved(aid, action, did, blow, outcome)
            return
        # What the blow became, told once it lands (a partial: no Python frame of its own).
        resolved = partial(self.resolved, aid, action, did, blow)
        self.hit(attacker, defender, blow, result, use, reduction, resolved, facts)

    def defence(self, defender: Combatant, attacker: Combatant, kind: str) -> Action | None:
        """The defender's parry or dodge ending in this segment that can meet this blow."""
        for a in self.batch:
            if a.actor != defender.id or a.kind != kind or a.cancelled:
                continue
            if a.target is not None and a.target != attacker.id:
                continue
            if kind == "dodge":
                left = self.dodges_left.get(a.id)
                if left is None:
                    extra = self.use(a).multiple + self.pc(a).multiple
                    left = self.dodges_left[a.id] = 1 + extra
                if left > 0:
                    return a
            elif a.id not in self.used:
                return a
        return None

    def parried(
        self,
        parry: Action,
        strike: Action,
        defender: Combatant,
        attacker: Combatant,
        result: Rolled,
        attack_use: PSUse,
    ) -> tuple[str, int]:
        """A parry (RinKaNou, "Parade"): interception roll, then for a cut (or any blow on
        a shield) the strength contest. Returns the final result, or "" and the damage
        reduction when the blow goes through."""
        self.used.add(parry.id)
        sheet: Sheet = defender.sheet
        shield = parry.params.get("with") == "shield"
        if not shield:  # the armed blow is spent on the parry
            self.events.append(_weapon_state(self.segment, defender.id, False, False))
        blow = strike.params["blow"]
        chance, force = self.defence_points(parry, defender, attacker.id)
        facts = self.facts.get(id(sheet))  # self.known(sheet), without its call
        if facts is None:  # (the first time)
            facts = self.known(sheet)
        mods: dict[str, int] = {}
        if shield:
            assert sheet.shield is not None
            mods["shield"] = sheet.skill("shield")
            mods["shield bonus"] = sheet.shield.parry_bonus
        else:
            mods[sheet.weapon.skill] = facts.weapon_skill
            mods["parry score"] = sheet.weapon.parry
        mods["agility"] = facts.agility
        if blow != "thrust" or self.rules.thrust_parry == "margin":
            mods["attacker Mr"] = -result.mr
        mods["attacking weapon"] = -attacker.sheet.weapon.parry
        if blow == "thrust":
            mods["thrust"] = THRUST_PARRY_MALUS // 2 if shield else THRUST_PARRY_MALUS
        size = self.tables.parry_size[attacker.sheet.weapon.size]
        if self.rules.size_table == "parry" and blow != "thrust":
            mods["size"] = -size  # the table read as a % malus to parry (its title)
            size = 0
        if chance:  # most often 0: the event keeps no 0
            mods["ps"] = chance
        intercepted = self.test(parry, "parry", mods).success
        if not intercepted:
            return "", 0
        if blow == "thrust" and not shield:
            return "deflected", 0  # a thrust is turned aside: no strength contest
        push = self.strength(attacker.sheet) + int(size / 10) + attack_use.damage
        hold = facts.strength + force
        score = push - hold
        if not shield:
            self.lose_gear(defender, "weapon", 1)
            if score <= 0:
                return "blocked", 0
            return "", max(0, hold)
        assert sheet.shield is not None
        if score <= 0:
            self.lose_gear(defender, "shield", 1)
            return "blocked", 0
        damage = self.blow_damage(attacker, blow, result, attack_use) - max(0, hold)
        self.lose_gear(defender, "shield", max(1, damage - sheet.shield.absorption))
        return "shield", 0

    def dodged(
        self, dodge: Action, defender: Combatant, attacker: str, result: Rolled, blow: str
    ) -> bool:
        """An active-versus-passive dodge (RinKaNou, "Esquive"); one roll per blow, with
        the points against its author."""
        self.used.add(dodge.id)
        self.dodges_left[dodge.id] -= 1
        facts = self.facts.get(id(defender.sheet))  # self.known(defender.sheet), without its call
        if facts is None:  # (the first time)
            facts = self.known(defender.sheet)
        mods = {"dodge": facts.dodge, "agility": facts.agility, "attacker Mr": -result.mr}
        chance = self.defence_points(dodge, defender, attacker)[0]
        if chance:  # most often 0: the event keeps no 0
            mods["ps"] = chance
        if blow == "thrust":
            mods["thrust"] = THRUST_DODGE_MALUS
        return self.test(dodge, "dodge", mods).success

    def lone_defence(self, action: Action) -> None:
        """A parry or dodge that met no blow in its segment: a test of its own. Without
        a target it counts its points as against the nearest opponent, as a move does:
        a negative score, which always concerns the nearest, is bought back for it."""
        c = self.combatants[action.actor]
        sheet: Sheet = c.sheet
        facts = self.facts.get(id(sheet))  # self.known(sheet), without its call
        if facts is None:  # (the first time)
            facts = self.known(sheet)
        if action.kind == "dodge":
            mods = {"dodge": facts.dodge}
        elif action.params.get("with") == "shield":
            mods = {"shield": sheet.skill("shield")}
        else:
            mods = {sheet.weapon.skill: facts.weapon_skill}
            self.events.append(_weapon_state(self.segment, action.actor, False, False))
        mods["agility"] = facts.agility
        if action.target is None and c.status.ps:
            nearest = self.rules.default_engaged(self.state, c.id)
            chance = self.defence_points(action, c, nearest[0])[0] if nearest else 0
        else:
            chance = self.use(action).chance
        if chance:  # most often 0: the event keeps no 0
            mods["ps"] = chance
        self.test(action, action.kind, mods)

    def blow_damage(self, attacker: Combatant, blow: str, result: Rolled, use: PSUse) -> int:
        sheet: Sheet = attacker.sheet
        margin = result.mr // 5 if result.critical else result.mr // 10
        return sheet.weapon.damage[blow] + margin + self.strength(sheet) + use.damage

    def location(self, defender: Combatant, use: PSUse) -> tuple[str, dict[str, object]]:
        """Where the blow lands: aimed, or rolled then oriented or drifted."""
        if use.aim is not None:
            return use.aim, {"aimed": use.aim}
        rolled = self.tables.location(self.dice.roll(100, "hit location", defender.id)).name
        where = rolled
        if use.orient and use.toward is not None:
            path = self.tables.steps(rolled, use.toward)
            where = path[min(use.orient, len(path) - 1)]
        for _ in range(use.approximate):
            options = self.tables.neighbours(where)
            where = options[self.dice.roll(len(options), "approximate strike", defender.id) - 1]
        return where, ({"rolled": rolled} if where != rolled else {})

    def hit(
        self,
        attacker: Combatant,
        defender: Combatant,
        blow: str,
        result: Rolled,
        use: PSUse,
        reduction: int,
        announce: Callable[[str], None],
        facts: SheetFacts,
    ) -> None:
        """A melee blow lands: its damage by the rules of "Attaque". ``facts`` are the
        attacker's sheet's (the strike has them at hand)."""
        sheet: Sheet = attacker.sheet
        margin = result.mr // 5 if result.critical else result.mr // 10
        self.land(
            attacker,
            defender,
            use,
            announce,
            {
                "weapon": sheet.weapon.damage[blow],
                "margin": margin,
                "strength": facts.strength,
                "ps": use.damage,
                "parry": -reduction,
            },
        )

    def land(
        self,
        attacker: Combatant,
        defender: Combatant,
        use: PSUse,
        announce: Callable[[str], None],
        parts: dict[str, int],
    ) -> None:
        """Where a blow or missile lands and the wound it makes; ``announce`` gets "hit",
        or "cover" when it strikes the hard cover in front of a covered location (seed
        004, "Cible sous couvert dur")."""
        where, detail = self.location(defender, use)
        if where in defender.setup.get("cover", ()):
            announce("cover")
            return
        announce("hit")
        location = self.tables.location_named(where)
        armour = defender.sheet.armour
        covered = not armour.locations or location.name in armour.locations
        absorption = armour.absorption if covered else 0
        damage = sum(parts.values()) - absorption
        if damage < 0:  # max(0, damage), without its call
            damage = 0
        wound = (damage * location.wound_factor + 50) // 100
        wounds = self.wounds
        if wounds is None:
            wounds = self.wounds = {}
        total = wounds.get(defender.id, defender.status.wounds) + wound
        wounds[defender.id] = total
        level = self.tables.wound_level(total, defender.sheet.health)
        # After where it landed, what made the damage: the parts that count (the weapon's
        # always), then the armour's (always), in one table rather than merged then kept.
        for k, v in parts.items():
            if v or k == "weapon":
                detail[k] = v
        detail["absorption"] = -absorption
        self.events.append(
            _wound_taken(
                self.segment,
                defender.id,
                attacker.id,
                location.name,
                damage,
                wound,
                total,
                level.name if level else "",
                level.malus if level else 0,
                detail,
            )
        )
        if level is not None and level.out and defender.id not in self.out:
            self.out.add(defender.id)
            self.events.append(OutOfFight(self.segment, defender.id, level.out))

    # -------------------------------------------------------- movement and reading

    def reposition(self, action: Action) -> None:
        """Se placer: Combat + Souplesse (RinKaNou, "Mouvement")."""
        self.moved(self.fighter(action.actor))
        sheet: Sheet = self.fighter(action.actor).sheet
        self.test(
            action,
            "reposition",
            {
                "combat": sheet.skill("combat"),
                "agility": sheet.characteristic("agility"),
                "ps": self.use(action).chance,
            },
        )

    def disengage(self, action: Action) -> None:
        """Se désengager: Combat + Souplesse opposed, active against active, by every
        opponent that has the fighter within its reach and will not let it go (its
        stance); +50 % just after a dodge. Nobody opposing, it breaks away unrolled."""
        c = self.fighter(action.actor)
        sheet: Sheet = c.sheet
        self.moved(c)
        near = [
            o
            for o in self.state.near(c.position, max(self.tables.reach.values()) + 0.01)
            if o.side != c.side
            and o.id not in self.out
            and within(o.position, c.position, self.rules.reach(o.sheet))
        ]
        opposers = [o for o in near if o.status.oppose_disengage]
        won = True
        if opposers:
            mods = {
                "combat": sheet.skill("combat"),
                "agility": sheet.characteristic("agility"),
                "ps": self.use(action).chance,
            }
            if after_a_dodge(c, action, self.rules.after_dodge):
                mods["after a dodge"] = DISENGAGE_AFTER_DODGE
            own = self.test(action, "disengage", mods)
            won = own.success
            for o in opposers:
                theirs = self.opposing_test(o, "oppose disengage", self.opposition(o, c))
                if theirs.success and (not own.success or theirs.mr >= own.mr):
                    won = False
        else:
            self.results.setdefault(c.id, []).append(None)  # resolved without a roll
        if not won:
            return
        self.events.append(Disengaged(self.segment, c.id))
        if near:
            nearest = min(near, key=lambda o: math.dist(o.position, c.position))
            gap = max(self.rules.reach(o.sheet) for o in near) + 0.5
            x, y = _away(nearest.position, c.position, gap)
            self.events.append(Moved(self.segment, c.id, x, y))

    def opposition(self, o: Combatant, c: Combatant) -> dict[str, int]:
        """An opponent's roll against ``c``'s disengage: Combat + Souplesse and the PS its
        stance spends, as far as its score against ``c`` allows; a negative score against
        ``c`` weighs as the -10 % a point that buys it back (RinKaNou, "Se désengager")."""
        osheet: Sheet = o.sheet
        usable = self.rules.usable_ps(self.state, o, c.id)
        ps = min(o.status.oppose_bonus, usable) if usable > 0 else usable
        return {
            "combat": osheet.skill("combat"),
            "agility": osheet.characteristic("agility"),
            "ps": PS_PERCENT * ps,
        }

    def stance(self, action: Action) -> None:
        self.events.append(
            StanceChanged(
                self.segment,
                action.actor,
                bool(action.params["oppose_disengage"]),
                int(action.params["ps_bonus"]),
            )
        )

    def move(self, action: Action) -> None:
        """Se déplacer: movement / 10 metres a segment walking, times the run factor
        running; ``segments`` of it declared at once as one action."""
        combatants = self.combatants
        c = combatants[action.actor]  # (self.fighter(), without its call)
        if action.rolled:  # within an opponent's reach: Combat + Souplesse
            sheet: Sheet = c.sheet
            mods = {
                "combat": sheet.skill("combat"),
                "agility": sheet.characteristic("agility"),
                "ps": self.use(action).chance,
            }
            self.test(action, "move", mods)
        dest = _destination(combatants, c, action.params)
        state = self.state
        if state.extra.get(manoeuvres.KEEPING):  # (keep_off() has nothing to do otherwise)
            dest = manoeuvres.keep_off(self, c, c.position, dest)
        if len(state.grid.where) <= SMALL_FIGHT:  # free_spot()'s test, without its call
            x, y = self._free_spot_scanned(c, dest)
        else:
            x, y = self.free_spot(c, dest)
        if (x, y) != c.position:
            self.events.append(Moved(self.segment, c.id, x, y))
            if c.status.command_points:  # self.moved(c), without its call
                self.moved(c)

    def free_spot(self, c: Combatant, dest: tuple[float, float]) -> tuple[float, float]:
        """Where a move ends: its destination, or half way if that keeps PERSONAL_SPACE
        from everyone else, or where it began (see the rules page)."""
        start = c.position
        state = self.state
        if len(state.grid.where) <= SMALL_FIGHT:  # len(state.grid), without its call
            return self._free_spot_scanned(c, dest)
        for f in (1.0, 0.5):
            spot = point_at(start, dest, f)  # (rounded to the micrometre)
            # Someone else stands there (those moving in this settlement are leaving),
            # or a move of this settlement already ends there.
            if not state.grid.crowded(spot, PERSONAL_SPACE, c.id, self.moving) and (
                self.claimed is None or not self.claimed.crowded(spot, PERSONAL_SPACE)
            ):
                self.moving.add(c.id)
                if self.claimed is None:
                    self.claimed = Grid(1.0)
                self.claimed.add(str(len(self.claimed)), spot)
                return spot
        return start

    def _free_spot_scanned(self, c: Combatant, dest: tuple[float, float]) -> tuple[float, float]:
        """:meth:`free_spot` in a small fight (at most ``SMALL_FIGHT`` fighters): everyone
        in the fight, and the spots this settlement's moves already end on, scanned
        (:func:`_scanned_spot`), rather than asked of the fight's grid and of a grid of
        claimed spots made for the settlement."""
        spots = self.spots
        if spots is None:
            spots = self.spots = []
        # (everyone in the fight: the state's list, not modified)
        return _scanned_spot(self.state.against(None), c, dest, self.moving, spots)

    def moved(self, c: Combatant) -> None:
        """Command points are kept only until the fighter moves (text 004)."""
        if c.status.command_points:
            self.events.append(CommandPointsChanged(self.segment, c.id, 0, "moved"))

    def read(self, action: Action) -> None:
        """Reading another's action: Combat + Raison at -70 % + 20 % per segment of it
        already elapsed (RinKaNou, "Échelonnement des actions dans le temps")."""
        c = self.fighter(action.actor)
        sheet: Sheet = c.sheet
        assert action.target is not None
        observed = self.fighter(action.target)
        watched_id = action.params["action_id"]
        watched = next(
            (a for a in [*observed.actions, *observed.recent] if a.id == watched_id), None
        )
        start = action.start
        if watched is not None:
            start = attack_start(observed, watched)
        mods = {
            "combat": sheet.skill("combat"),
            "reason": sheet.characteristic("reason"),
            "reading": read_modifier(action.start - start),
        }
        result = self.test(action, "read", mods)
        if result.success and watched is not None:
            self.events.append(
                IntentRead(
                    self.segment,
                    c.id,
                    observed.id,
                    watched.id,
                    watched.kind,
                    watched.target,
                    watched.last,
                )
            )

    # -------------------------------------------------------- situation points

    def situation(self) -> None:
        """New scores for those who resolved an action; reset or narrowed scores for the
        others (RinKaNou, "Points de situation": "En duel", "En mêlée")."""
        results = self.results
        if not results:
            return
        divisor = self.rules.ps_divisor
        segment = self.segment
        since = segment + 1
        combatants = self.combatants
        events = self.events
        out = self.out
        # In the fight's order (a battle's size does not weigh on a settlement).
        resolvers = list(results)
        if len(resolvers) == 2:  # (a blow and the defence it met: no sort, no key calls)
            if combatants[resolvers[1]].order < combatants[resolvers[0]].order:
                resolvers.reverse()
        elif len(resolvers) > 2:
            resolvers.sort(key=lambda cid: combatants[cid].order)
        for cid in resolvers:
            if cid in out:
                continue
            rolls = results[cid]
            if len(rolls) == 1:  # the usual case: one action resolved
                rolled = rolls[0]
                if rolled is None:
                    ps = 0
                elif rolled.critical:
                    ps = ps_from_result(rolled, divisor)
                else:  # ps_from_result's answer to a roll that is not critical, without its call
                    ps = rolled.margin // divisor
                    if not rolled.success:
                        ps = -ps
            else:
                scores = [ps_from_result(r, divisor) for r in rolls if r is not None]
                ps = min(scores) if scores else 0
            engaged = self.engage.get(cid, ())
            if len(engaged) > 1:
                ps -= len(engaged) - 1
            events.append(_situation_changed(segment, cid, ps, since, engaged, "result"))
        # Who watched them: everyone (one list, kept by the state) or those around each.
        awareness = self.rules.awareness
        if awareness is None:
            state = self.state
            kept = state._against.get(None)  # FightState.against(None), without its call
            watching: Sequence[Combatant] = kept if kept is not None else state.against(None)
        else:
            # The grid's ids, sorted once for all resolvers (not once each).
            grid = self.state.grid
            around: dict[str, Combatant] = {}
            for cid in resolvers:
                for oid in grid.near(combatants[cid].position, awareness):
                    around[oid] = combatants[oid]
            watching = sorted(around.values(), key=by_order)
        for c in watching:
            status = c.status
            # Most take none of the resolvers into account: passed over first.
            for x in status.engaged:
                if x in results:
                    break
            else:
                continue  # nothing changed for it
            if not c.in_fight or c.id in results or c.id in out:
                continue
            engaged = status.engaged
            remaining = () if len(engaged) == 1 else tuple(x for x in engaged if x not in results)
            if remaining:
                # An opponent taken into account who resolves is at once no longer taken
                # into account ("En mêlée"), busy or not: the score serves against the
                # others.
                events.append(
                    SituationChanged(
                        segment, c.id, status.ps, status.ps_since, remaining, "engaged"
                    )
                )
                continue
            for a in c.actions:
                if not a.continuous:
                    break  # "En duel": a busy fighter finishes its action, its score as it is
            else:
                events.append(_situation_changed(segment, c.id, 0, since, (), "reset"))


def _destination(
    combatants: Mapping[str, Combatant], c: Combatant, params: Mapping[str, Any]
) -> tuple[float, float]:
    """Where ``c``'s move of parameters ``params`` would take it, before anyone's personal
    space or a keeper is weighed (:meth:`Settlement.move`'s walk): movement / 10 metres a
    segment walking, times the run factor running, toward a point or a fighter (halting
    ``stop_at`` short of it)."""
    sheet: Sheet = c.sheet
    pace = params.get("pace", "walk")
    per_segment = sheet.movement / 10 * (sheet.run_factor if pace == "run" else 1.0)
    budget = per_segment * int(params.get("segments", 1))
    if "to" in params:
        goal = tuple(params["to"])
        stop = 0.0
    else:
        other = combatants[str(params["toward"])]
        goal = other.position
        stop = float(params.get("stop_at", 0.0))
    return toward_point(c.position, (float(goal[0]), float(goal[1])), budget, stop)


def _scanned_spot(
    everyone: Sequence[Combatant],
    c: Combatant,
    dest: tuple[float, float],
    moving: set[str],
    spots: list[tuple[float, float]],
) -> tuple[float, float]:
    """Where ``c``'s move toward ``dest`` ends in a small fight (:meth:`Settlement.
    free_spot`'s rule): its destination, or half way if that keeps ``PERSONAL_SPACE``
    from ``everyone`` else in the fight (those ``moving`` in this settlement are
    leaving their spots) and from the ``spots`` its other moves end on, or where it
    began; scanned with the grids' own test. A spot taken is added to ``spots``, and
    ``c`` to ``moving``."""
    start = c.position
    dist = math.dist
    for f in (1.0, 0.5):
        spot = point_at(start, dest, f)  # (rounded to the micrometre)
        x = spot[0]
        crowded = False
        for o in everyone:
            at = o.position
            gap = at[0] - x  # farther along x alone: not crowding (dist is no shorter)
            if gap > PERSONAL_SPACE or -gap > PERSONAL_SPACE:
                continue
            if dist(spot, at) <= PERSONAL_SPACE and o is not c and o.id not in moving:
                crowded = True
                break
        if crowded:
            continue
        for at in spots:
            if dist(spot, at) <= PERSONAL_SPACE:
                crowded = True
                break
        if crowded:
            continue
        moving.add(c.id)
        spots.append(spot)
        return spot
    return start


QUIET_KINDS = frozenset({"arm", "lock", "wait", "ready"})
"""Actions whose resolution rolls nothing and touches no situation points."""


def quiet(state: FightState, segment: int, batch: Sequence[Action]) -> list[Event] | None:
    """The events of a batch that only arms, locks, waits, readies a ranged weapon and
    walks out of every opponent's reach in a small fight, made without a
    :class:`Settlement` (the most common batches of a fight, most of a shooter's reloads
    and a walk toward the enemy); None for any other batch.

    They are the events :meth:`Settlement.run` makes of such a batch (its ``arm``,
    ``lock`` and ``move``, and :func:`manoeuvres.hands` for a ``ready``): nothing is
    rolled, no points change, and no blow can be spoiled (that takes a keep planned in
    the fight, with which a walk is settled in full). A walk ends where
    :meth:`Settlement.move` ends it, the spots of the batch's earlier walks weighed."""
    events: list[Event] = []
    combatants = state.combatants
    moving: set[str] | None = None  # who walks, and where to (made at the first walk)
    spots: list[tuple[float, float]] | None = None
    for action in batch:
        kind = action.kind
        if action.cancelled:
            return None
        if kind not in QUIET_KINDS:
            # A walk without a roll, in a small fight where nobody keeps anyone away.
            if (
                kind != "move"
                or action.rolled
                or len(state.grid.where) > SMALL_FIGHT
                or state.extra.get(manoeuvres.KEEPING)
            ):
                return None
            c = combatants[action.actor]
            dest = _destination(combatants, c, action.params)
            if moving is None or spots is None:
                moving, spots = set(), []
            x, y = _scanned_spot(state.against(None), c, dest, moving, spots)
            if (x, y) != c.position:
                events.append(Moved(segment, c.id, x, y))
                if c.status.command_points:  # Settlement.moved()'s
                    events.append(CommandPointsChanged(segment, c.id, 0, "moved"))
            continue
        if kind == "arm":
            if action.id != combatants[action.actor].status.lost_arm:
                events.append(_weapon_state(segment, action.actor, True, False))
        elif kind == "lock":
            events.append(_weapon_state(segment, action.actor, False, False))
        elif kind == "ready":  # its ranged weapon ready to loose, the rest as it is
            st = combatants[action.actor].status
            events.append(
                HandsChanged(segment, action.actor, st.wielding, True, st.grip, st.shield_aside)
            )
    return events


_HANDLERS: dict[str, Callable[[Settlement, Action], None]] = {
    "strike": Settlement.strike,
    "parry": Settlement.lone_defence,
    "dodge": Settlement.lone_defence,
    "reposition": Settlement.reposition,
    "disengage": Settlement.disengage,
    "read": Settlement.read,
    "move": Settlement.move,
    "arm": Settlement.arm,
    "lock": Settlement.lock,
    "shoot": ranged.shoot,
    "projectile": ranged.projectile,
    "ready": manoeuvres.hands,
    "draw": manoeuvres.hands,
    "regrip": manoeuvres.hands,
    "pick_up": manoeuvres.hands,
    "stance": Settlement.stance,
}
"""How each kind of action is resolved (made once: a settlement only looks it up)."""


def _away(
    origin: tuple[float, float], here: tuple[float, float], gap: float
) -> tuple[float, float]:
    """A point ``gap`` metres from ``origin`` on the line through ``here``."""
    dx, dy = here[0] - origin[0], here[1] - origin[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        dx, dy, norm = 1.0, 0.0, 1.0
    return (round(origin[0] + dx / norm * gap, 6), round(origin[1] + dy / norm * gap, 6))
