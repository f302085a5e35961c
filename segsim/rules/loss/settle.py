"""Resolution: actions in a phase, attacks and their parries or dodges, the round's end.

An attack is settled in two steps (docs/rules/loss.md): its test in the segment it is
declared; if it succeeds, the target answers in the next segment with a parry or a
dodge (or not at all), and the exchange is settled then: the four outcomes, the
partial defence, damage and special effects. Events are returned in the order they
happen; the settlement keeps what earlier events of the same batch changed (action
points, health, who is down) because the engine applies them only afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.dice import Dice
from segsim.events import ActionSpawned, Event, Moved, OutOfFight
from segsim.native import mypyc_attr
from segsim.rules.loss.content import RANGED_TESTS, UNARMED, Health, Sheet, Weapon
from segsim.rules.loss.declare import (
    ACT_CHANNEL,
    AWAIT,
    CONTACT,
    INTEND,
    TURN,
    chase_of,
    clock_of,
    distance,
    foes_near,
    fursa_of,
    score_of,
    weapon_for,
)
from segsim.rules.loss.effects import (
    BASE_DIFFICULTY,
    EXPLOIT_STEP,
    POOL_BONUS,
    TARGET_MALUS,
    keep_effects,
    partial_cancels,
)
from segsim.rules.loss.events import (
    CLOCK,
    ActionPointsSpent,
    ActionWasted,
    Aimed,
    AimedRound,
    AttackPending,
    AttackSettled,
    BrokenOff,
    CounterLapsed,
    Damaged,
    Disaster,
    EffectApplied,
    Intended,
    IntentionsCalled,
    Passed,
    PoolsSpent,
    Rearmed,
    RoundStarted,
    SocialAction,
    Spoke,
    StoodUp,
    Tested,
    Unhidden,
    Waited,
)
from segsim.rules.loss.pursuit import (
    LOST_FROM_SIGHT,
    SHOT_IN_MOTION,
    UNIT_DIFFICULTY,
    Chase,
    DistanceChanged,
    Escaped,
    PursuitEnded,
    PursuitStalled,
    Zigzagged,
    zigzag_against,
)
from segsim.rules.loss.status import Status
from segsim.state import Combatant, FightState

if TYPE_CHECKING:
    from segsim.rules.loss.ruleset import Loss

BLOW = "blow"
"""The rules' own action carrying a successful attack to the segment of its defence."""

DISTANCE_BANDS: tuple[tuple[float, int], ...] = (
    (10.0, 15),
    (20.0, 20),
    (40.0, 25),
    (60.0, 30),
)
"""Difficulty of a shot by distance in metres: proche 15, à portée 20, loin 25, très
loin 30, hors de portée 35 (Loss, "La distance de tir")."""
OUT_OF_RANGE = 35
POINT_BLANK = 2.0


def shot_difficulty(metres: float) -> int:
    for upto, diff in DISTANCE_BANDS:
        if metres <= upto:
            return diff
    return OUT_OF_RANGE


def weapon_by_id(sheet: Sheet, wid: object) -> Weapon:
    for w in (sheet.weapon, sheet.off_hand):
        if w is not None and w.id == wid:
            return w
    return UNARMED


_MALUS: dict[int, tuple[Health, tuple[int, ...]]] = {}


def wound_malus(health: Health, left: int) -> int:
    """``health.malus(left)``, from a table made once per health track (by identity:
    a sheet's track is shared by every fight of it)."""
    entry = _MALUS.get(id(health))
    if entry is None or entry[0] is not health:
        if len(_MALUS) >= 1024:
            _MALUS.clear()
        entry = _MALUS[id(health)] = (health, tuple(health.malus(n) for n in range(64)))
    table = entry[1]
    return table[left] if 0 <= left < 64 else health.malus(left)


@mypyc_attr(allow_interpreted_subclasses=True)
class Settlement:
    """The resolution of one segment's batch."""

    def __init__(self, rules: Loss, state: FightState, segment: int, dice: Dice) -> None:
        self.rules = rules
        self.state = state
        self.combatants = state.combatants
        self.segment = segment
        self.dice = dice
        self.events: list[Event] = []
        self.pa: dict[str, int] = {}
        self.health: dict[str, int] = {}
        self.out: set[str] = set()
        self.spawned = 0
        self.units: dict[tuple[str, str], int] | None = None
        self.last_difficulty = BASE_DIFFICULTY

    # -------------------------------------------------------- bookkeeping

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def fighter(self, cid: str) -> Combatant:
        return self.combatants[cid]

    def status(self, cid: str) -> Status:
        st: Status = self.combatants[cid].status
        return st

    def pa_of(self, cid: str) -> int:
        left = self.pa.get(cid)
        if left is None:
            st: Status = self.combatants[cid].status
            return st.pa
        return left

    def health_of(self, cid: str) -> int:
        left = self.health.get(cid)
        if left is None:
            st: Status = self.combatants[cid].status
            return st.health
        return left

    def standing(self, cid: str) -> bool:
        return cid not in self.out and self.combatants[cid].in_fight

    def spend(
        self, cid: str, what: str, cost: int, *, saved: int = 0, defence: bool = False
    ) -> None:
        left = self.pa.get(cid)
        if left is None:
            st: Status = self.combatants[cid].status
            left = st.pa
        left -= cost
        if left < 0:  # (max(0, ...) without its call)
            left = 0
        self.pa[cid] = left
        self.emit(ActionPointsSpent(self.segment, cid, what, cost, left, saved, defence))

    def knock_out(self, cid: str, reason: str) -> None:
        if cid in self.out:
            return
        self.out.add(cid)
        self.emit(OutOfFight(self.segment, cid, reason))

    def next_id(self) -> int:
        self.spawned += 1
        return self.state.next_action_id + self.spawned - 1

    def pools(self, cid: str, params: Mapping[str, Any], bonuses: dict[str, int]) -> None:
        if "fursa" not in params and "inspiration" not in params:
            return  # none spent (a pool is never below 0: Check.pools() says the same)
        st = self.status(cid)
        fursa = min(int(params.get("fursa", 0)), fursa_of(self.state, self.fighter(cid)))
        insp = min(int(params.get("inspiration", 0)), st.inspiration)
        if fursa or insp:
            self.emit(PoolsSpent(self.segment, cid, fursa, insp))
            bonuses["fursa"] = POOL_BONUS * fursa
            bonuses["inspiration"] = POOL_BONUS * insp

    def wounds(self, cid: str) -> int:
        sheet: Sheet = self.fighter(cid).sheet
        return wound_malus(sheet.health, self.health_of(cid))

    def situation(self, c: Combatant) -> dict[str, int]:
        """Difficulty modifiers of a fighter's own situation (Loss, "Modificateurs de
        combat au contact")."""
        st: Status = c.status
        setup = c.setup
        # Only those that count (a test's record shows no zero), in this order.
        mods: dict[str, int] = {}
        if self.rules.darkness or setup.get("darkness"):
            mods["darkness"] = 10
        if setup.get("lower_ground"):
            mods["lower ground"] = 5
        if st.prone:
            mods["prone"] = 10
        if st.difficulty_malus:
            mods["lasting wounds"] = st.difficulty_malus
        return mods

    # -------------------------------------------------------- acts

    def act(self, a: Action) -> None:
        handler = _ACTS.get(a.kind)  # act_<kind>, found once (see below)
        if handler is not None:
            handler(self, a)

    def _cost(self, a: Action, what: str) -> None:
        self.spend(a.actor, what, int(a.params.get("cost", 0)), saved=int(a.params.get("saved", 0)))

    def act_move(self, a: Action) -> None:
        self._cost(a, "a move")
        to = a.params["to"]
        self.emit(Moved(self.segment, a.actor, float(to[0]), float(to[1])))

    def act_get_up(self, a: Action) -> None:
        self._cost(a, "getting up")
        self.emit(StoodUp(self.segment, a.actor))

    def act_pick_up(self, a: Action) -> None:
        self._cost(a, "picking up its weapon")
        self.emit(Rearmed(self.segment, a.actor))

    def act_aim(self, a: Action) -> None:
        self._cost(a, "aiming")
        if a.params.get("round"):
            self.emit(AimedRound(self.segment, a.actor))
            return
        bonus = min(5, self.status(a.actor).aim + int(a.params["points"]))
        self.emit(Aimed(self.segment, a.actor, bonus))

    def act_social(self, a: Action) -> None:
        self._cost(a, "a social talent")
        self.emit(SocialAction(self.segment, a.actor, str(a.params.get("what", "talks"))))

    def act_prepare(self, a: Action) -> None:
        until = int(a.params["until"])
        left = self.pa_of(a.actor)
        if until < left:
            self.pa[a.actor] = until
            self.emit(Waited(self.segment, a.actor, left - until, until, True))

    def act_pass(self, a: Action) -> None:
        self.pa[a.actor] = 0
        self.emit(Passed(self.segment, a.actor))

    def act_grab(self, a: Action) -> None:
        self.act_attack(a)

    # -------------------------------------------------------- attacks

    def act_attack(self, a: Action) -> None:
        """The attacker's test; then each target either may answer next segment or is hit."""
        combatants = self.combatants  # (fighter() and standing(), without their calls)
        params = a.params
        c = combatants[a.actor]
        st: Status = c.status
        sheet: Sheet = c.sheet
        assert a.target is not None
        named = params.get("targets")
        targets = [a.target, *named] if named else [a.target]
        weapon_now = weapon_by_id(sheet, params.get("weapon"))
        if weapon_now.explosive and weapon_now.area > 0 and self.standing(a.target):
            centre = combatants[a.target]
            targets += [
                o.id
                for o in self.state.in_fight()
                if o.id not in targets
                and o.id != a.actor
                and distance(o, centre) <= weapon_now.area + 1e-9
            ]
        cost = int(params.get("cost", 0))
        label = "a counter-attack" if params.get("counter") else a.kind
        self.spend(a.actor, label, cost, saved=int(params.get("saved", 0)))
        target = combatants[a.target]
        if a.target in self.out or not target.in_fight:
            self.emit(ActionWasted(self.segment, a.actor, a.id, a.kind, f"{a.target} is down"))
            return
        weapon = weapon_now
        ranged = weapon.test in RANGED_TESTS  # weapon.ranged, without the property's call
        named_effects = params.get("effects")  # (tuple() called only when some are)
        effects: tuple[str, ...] = tuple(named_effects) if named_effects else ()
        exploits = int(params.get("exploits", 0))
        test = "unarmed" if a.kind == "grab" else weapon.test
        bonuses: dict[str, int] = {}
        self.pools(a.actor, params, bonuses)
        bonuses.update(self.attack_bonuses(c, target, weapon, effects, test))
        tsheet: Sheet = target.sheet
        if (
            tsheet.structure
            and exploits
            and sheet.has("destruction_de_fortifications", weapon)
            and "heavy" in weapon.tags
        ):
            bonuses["destruction de fortifications"] = 5
        mods = self.situation(c)
        base = BASE_DIFFICULTY
        chase = chase_of(self.state)
        units = chase.units(c.id, target.id) if chase is not None else None
        if ranged:
            if units is not None:
                base = UNIT_DIFFICULTY[units]
                mods["shot in motion"] = SHOT_IN_MOTION
            else:  # (the gap measured only for a shot's difficulty)
                base = shot_difficulty(distance(c, target))
            cover = target.setup.get("cover")
            if cover and "ricochet" not in effects:
                mods["cover"] = 15 if cover == "full" else 10
        else:
            if target.setup.get("cover") and "ricochet" not in effects:
                mods["cover"] = 10
            if chase is None:
                # (fewer than three opponents in the fight: none to count around it)
                outnumbered = len(self.state.against(c.side)) >= 3 and (
                    len(
                        [
                            o
                            for o in foes_near(self.state, c, CONTACT + 1e-9)
                            if not o.sheet.structure
                        ]
                    )
                    >= 3
                )
                if outnumbered:
                    mods["outnumbered"] = 5
        if a.params.get("hand") == "off" and not sheet.has("deux_armes", weapon):
            mods["off hand"] = 5
        tst: Status = target.status
        if tst.wall:
            mods["defensive wall"] = tst.wall
        # (mods holds only those that count: none is zero)
        difficulty = base + sum(mods.values()) + EXPLOIT_STEP * exploits
        roll = self.dice.roll(10, f"{label} test", a.actor)
        score = score_of(sheet, test)
        total = roll + score + sum(bonuses.values())
        success = total >= difficulty
        self.emit(
            Tested(
                self.segment,
                a.actor,
                label if a.kind != "grab" else "grab",
                a.id,
                a.target,
                roll,
                score,
                total,
                difficulty,
                exploits,
                success,
                {k: v for k, v in bonuses.items() if v},
                mods,
            )
        )
        if "assault" in effects:
            self.emit(EffectApplied(self.segment, a.actor, "assault"))
        if ranged and (st.aim or st.aimed):
            self.emit(Aimed(self.segment, a.actor, 0))
        hidden = st.hidden
        if hidden:
            self.emit(Unhidden(self.segment, a.actor))
        if not success:
            if exploits and c.is_pc and self.rules.disasters:
                self.emit(Disaster(self.segment, a.actor, label, exploits))
            for t in targets:
                self.emit(AttackSettled(self.segment, a.actor, t, a.id, "missed"))
            return
        waiting: list[str] = []
        extra = list(a.params.get("targets", ()))
        hands = [a.target, extra[0] if extra else a.target]  # main weapon, off hand
        land_params = {**a.params, "two_weapons": hands} if "two_weapons" in effects else a.params
        for t in targets:
            if not self.standing(t):
                continue
            if self.can_defend(t, weapon, False) and (not hidden or self.spots(t, c, weapon, a.id)):
                waiting.append(t)
                self.emit(
                    AttackPending(
                        self.segment,
                        a.actor,
                        t,
                        a.id,
                        difficulty,
                        exploits,
                        effects,
                        ranged,
                        weapon.explosive,
                        bool(a.params.get("counter")),
                    )
                )
            else:
                self.emit(AttackSettled(self.segment, a.actor, t, a.id, "hit", 0, effects))
                self.land(a.actor, t, a.id, weapon, effects, exploits, land_params, gap_of=t)
        if waiting:
            params = {k: v for k, v in a.params.items() if k not in ("cost", "saved")}
            params.update({"attack": a.id, "targets": waiting, "grab": a.kind == "grab"})
            if "two_weapons" in effects:
                params["two_weapons"] = hands
            self.emit(
                ActionSpawned(
                    self.segment, a.actor, self.next_id(), BLOW, a.target, 1, BLOW, params=params
                )
            )

    def attack_bonuses(
        self, c: Combatant, target: Combatant, weapon: Weapon, effects: Sequence[str], test: str
    ) -> dict[str, int]:
        """Bonuses to an attack test (Loss: modifiers, free raises, specialisations)."""
        st: Status = c.status
        sheet: Sheet = c.sheet
        tst: Status = target.status
        # Only those that count (the test's record shows no zero), in this order.
        b: dict[str, int] = {}
        free = sheet.free_raises.get(test, 0)
        if free:
            b["free raises"] = POOL_BONUS * free
        # (talent_bonus() of the pure Sheet class called only when it has some to count)
        specialised = sheet.talent_bonus(test, weapon) if sheet.talent_specialisations else 0
        if specialised:
            b["specialisation"] = specialised
        if c.setup.get("higher_ground"):
            b["higher ground"] = 5
        ranged = weapon.test in RANGED_TESTS  # weapon.ranged, without the property's call
        if tst.prone and not ranged:
            b["prone target"] = 10
        if tst.surprised:
            b["surprised target"] = 5
        elif self.from_behind(c, target):
            b["from behind"] = 5
        if st.feints and st.feints.get(target.id, 0) >= clock_of(self.state).round:
            b["feint"] = 2
        left = self.health.get(c.id)  # self.wounds(c.id), without its calls
        wounds = wound_malus(sheet.health, st.health if left is None else left)
        if wounds:
            b["wounds"] = -wounds
        if ranged:
            in_motion = chase_of(self.state) is not None
            if st.aim:
                b["aim"] = st.aim
            riding = c.setup.get("mounted") or target.setup.get("mounted")
            if riding and sheet.has("tir_monte", weapon):
                b["tir monte"] = 2
            if not in_motion and distance(c, target) < POINT_BLANK:
                b["point blank"] = 5
            if st.aimed == "round":
                b["aimed a round"] = 15 if sheet.has("visee", weapon) else 10
            elif st.aimed == "sequence":
                b["aimed a sequence"] = 15
        if weapon.improvised:
            b["improvised"] = 2 if sheet.has("armes_improvisees", weapon) else -2
        if "assault" in effects and sheet.has("charge", weapon):
            b["charge"] = 5
        if "disarm" in effects and sheet.has("desarmer", weapon):
            b["desarmer"] = 5
        if {"aim_limb", "precise_zone", "precise_point"} & set(effects) and sheet.has(
            "attaque", weapon
        ):
            b["attaque"] = 5
        if "neutralise" in effects and sheet.has("coup_mortel", weapon):
            b["coup mortel"] = 5
        if "feint" in effects and sheet.has("defense", weapon):
            b["defense"] = 5
        return b

    def from_behind(self, attacker: Combatant, target: Combatant) -> bool:
        """Whether ``attacker`` strikes ``target`` from behind (de dos, Loss,
        "Modificateurs de combat au contact"): the target faces another fighter still in
        the fight, and the attacker stands in the half plane at the target's back, away
        from that fighter (Interpretations). Positions do not count in a chase."""
        tst: Status = target.status
        faced = self.state.combatants.get(tst.facing) if tst.facing is not None else None
        if faced is None or faced is attacker or not faced.in_fight:
            return False
        if chase_of(self.state) is not None:
            return False
        tx, ty = target.position
        fx, fy = faced.position
        ax, ay = attacker.position
        return (fx - tx) * (ax - tx) + (fy - ty) * (ay - ty) < 0

    def spots(self, cid: str, shooter: Combatant, weapon: Weapon, attack: int) -> bool:
        """Whether ``cid`` sees a hidden shooter at the instant it fires, and so may
        defend (Loss, "Esquiver"): only when the shooter's setup gives a
        ``spot_difficulty`` (else it is unseen), by a Vigilance test against it, +5 when
        the shooter has Tir embusqué with a bow, crossbow or impulse weapon (Loss,
        "Les talents & spécialisations de combat"; Interpretations)."""
        spot = shooter.setup.get("spot_difficulty")
        if spot is None:
            return False
        ssheet: Sheet = shooter.sheet
        mods = {
            "tir embusque": 5
            if ssheet.has("tir_embusque", weapon)
            and {"bow", "crossbow", "impulse"} & set(weapon.tags)
            else 0
        }
        mods = {k: v for k, v in mods.items() if v}
        diff = int(spot) + sum(mods.values())
        sheet: Sheet = self.fighter(cid).sheet
        bonuses = {"wounds": -self.wounds(cid)}
        bonuses = {k: v for k, v in bonuses.items() if v}
        roll = self.dice.roll(10, "vigilance test", cid)
        score = score_of(sheet, "vigilance")
        total = roll + score + sum(bonuses.values())
        success = total >= diff
        self.emit(
            Tested(
                self.segment,
                cid,
                "vigilance",
                attack,
                shooter.id,
                roll,
                score,
                total,
                diff,
                0,
                success,
                bonuses,
                mods,
            )
        )
        return success

    def can_defend(self, cid: str, weapon: Weapon, hidden: bool) -> bool:
        """Whether the target may still parry or dodge: it sees the attack coming, is not
        surprised and has an action point left (Loss, "L'Esquive et la Parade")."""
        st = self.status(cid)
        sheet: Sheet = self.fighter(cid).sheet
        return not hidden and not st.surprised and not sheet.structure and self.pa_of(cid) >= 1

    # -------------------------------------------------------- the exchange

    def blow(self, blow: Action, defences: Sequence[Action]) -> None:
        attack = int(blow.params["attack"])
        for t in blow.params.get("targets", ()):
            if not self.standing(t):
                continue
            defence = next(
                (d for d in defences if d.actor == t and d.params.get("against") == attack), None
            )
            self.exchange(blow, t, defence)

    def exchange(self, blow: Action, tid: str, defence: Action | None) -> None:
        attacker = self.fighter(blow.actor)
        target = self.fighter(tid)
        tst: Status = target.status
        attack = int(blow.params["attack"])
        inc = tst.incoming.get(attack)
        if inc is None:  # pragma: no cover - the pending attack is always recorded
            return
        sheet: Sheet = attacker.sheet
        weapon = weapon_by_id(sheet, blow.params.get("weapon"))
        effects = inc.effects
        exploits = inc.exploits
        halved = False
        if defence is None:
            result, cancelled = "hit", 0
        else:
            success, total, diff = self.defence_test(defence, target, attacker, inc.difficulty)
            if success:
                result, cancelled = "stopped", 0
                self.defender_effects(defence, target, attacker)
                if inc.explosive:
                    result, halved = "hit", True
                    effects, exploits = (), 0
            else:
                cancelled = min(exploits, partial_cancels(total, diff))
                result = "hit"
                if cancelled:
                    effects, exploits = keep_effects(effects, exploits, cancelled)
        self.emit(
            AttackSettled(
                self.segment,
                blow.actor,
                tid,
                attack,
                result,
                cancelled,
                effects if result == "hit" else (),
            )
        )
        if result == "hit":
            self.land(
                blow.actor,
                tid,
                attack,
                weapon,
                effects,
                exploits,
                blow.params,
                halved=halved,
                gap_of=tid,
            )

    def defence_test(
        self, d: Action, target: Combatant, attacker: Combatant, base: int
    ) -> tuple[bool, int, int]:
        sheet: Sheet = target.sheet
        st: Status = target.status
        effects: tuple[str, ...] = tuple(d.params.get("effects", ()))
        exploits = int(d.params.get("exploits", 0))
        whole = "total_dodge" in effects or "defensive_wall" in effects
        self.spend(target.id, d.kind, self.pa_of(target.id) if whole else 1, defence=True)
        bonuses: dict[str, int] = {}
        self.pools(target.id, d.params, bonuses)
        shield = sheet.shield
        use_shield = d.kind == "parry" and d.params.get("with") == "shield"
        inc = st.incoming[int(d.params["against"])]
        wielded = weapon_for(sheet, st, "main")
        gear = shield if use_shield else (wielded if d.kind == "parry" else None)
        b = {
            "specialisation": sheet.talent_bonus(d.kind, gear),
            "free raises": POOL_BONUS * sheet.free_raises.get(d.kind, 0),
            "shield": shield.parry_bonus if use_shield and shield is not None else 0,
            "arme et bouclier": 2 if use_shield and sheet.has("arme_et_bouclier", shield) else 0,
            "parade": 2
            if d.kind == "parry" and not use_shield and sheet.has("parade", wielded)
            else 0,
            "shield weight": -shield.dodge_malus if d.kind == "dodge" and shield is not None else 0,
            "se mettre a couvert": 5
            if d.kind == "dodge"
            and inc.ranged
            and target.setup.get("cover")
            and sheet.has("se_mettre_a_couvert", wielded)
            else 0,
            "defense": 5
            if {"counter", "protect", "feint"} & set(effects) and sheet.has("defense", wielded)
            else 0,
            "esquive totale": 5
            if "total_dodge" in effects and sheet.has("esquive_totale", wielded)
            else 0,
            "higher ground": 5 if target.setup.get("higher_ground") else 0,
            "protected": st.protected,
            "feint": 2 if st.feints.get(attacker.id, 0) >= clock_of(self.state).round else 0,
            "wounds": -self.wounds(target.id),
        }
        bonuses.update(b)
        mods = self.situation(target)  # (only those that count)
        diff = base + sum(mods.values()) + EXPLOIT_STEP * exploits
        roll = self.dice.roll(10, f"{d.kind} test", target.id)
        score = score_of(sheet, d.kind)
        total = roll + score + sum(bonuses.values())
        success = total >= diff
        self.emit(
            Tested(
                self.segment,
                target.id,
                d.kind,
                d.id,
                attacker.id,
                roll,
                score,
                total,
                diff,
                exploits,
                success,
                {k: v for k, v in bonuses.items() if v},
                mods,
            )
        )
        if not success and exploits and target.is_pc and self.rules.disasters:
            self.emit(Disaster(self.segment, target.id, d.kind, exploits))
        return success, total, diff

    def defender_effects(self, d: Action, target: Combatant, attacker: Combatant) -> None:
        """Effects of a successful parry or dodge with Exploits."""
        effects: list[str] = list(d.params.get("effects", ()))
        exploits = int(d.params.get("exploits", 0))
        seg, me, them = self.segment, target.id, attacker.id
        for e in dict.fromkeys(effects):
            if e == "counter":
                self.emit(EffectApplied(seg, me, "counter", them))
            elif e == "feint":
                self.emit(EffectApplied(seg, me, "feint", them))
            elif e == "take_advantage":
                self.emit(EffectApplied(seg, me, "take_advantage", None, effects.count(e)))
            elif e == "protect":
                self.emit(EffectApplied(seg, me, "protect", str(d.params["ally"]), 5))
            elif e in ("total_dodge", "defensive_wall"):
                self.emit(EffectApplied(seg, me, e, None, EXPLOIT_STEP * exploits))
                self.pa[me] = 0
            elif e == "knock_down":
                self.emit(EffectApplied(seg, me, "knock_down", them))
            elif e == "disarm":
                self.emit(EffectApplied(seg, me, "disarm", them))
            elif e == "neutralise":
                self.emit(EffectApplied(seg, me, "neutralise", them))
                self.knock_out(them, f"neutralised by {me}")

    def land(
        self,
        aid: str,
        tid: str,
        attack: int,
        weapon: Weapon,
        effects: Sequence[str],
        exploits: int,
        params: Mapping[str, Any],
        *,
        halved: bool = False,
        gap_of: str | None = None,
    ) -> None:
        """A hit: minions fall to any Exploit, kill and neutralise end the fight for the
        target, other effects take hold, then damage (unless the attacker chose none)."""
        target = self.fighter(tid)
        tsheet: Sheet = target.sheet
        seg = self.segment
        if params.get("manoeuvre"):
            self.manoeuvre_lands(aid, tid, str(params["manoeuvre"]))
            return
        if params.get("grab"):
            self.emit(EffectApplied(seg, aid, "knock_down", tid))
            return
        if "kill" in effects:
            self.emit(EffectApplied(seg, aid, "kill", tid))
            self.health[tid] = 0
            self.knock_out(tid, f"killed outright by {aid}")
            return
        asheet: Sheet = self.fighter(aid).sheet
        if tsheet.minion and exploits >= 1 and not asheet.minion:
            # a player character or an adversary fells a minion with an Exploit; a minion
            # does not (Loss, "Les Sbires en combat": "un PJ (mais aussi un Adversaire
            # PNJ)"; mercenary minions fight minions like anyone)
            self.knock_out(tid, f"a minion felled by {aid}'s Exploit")
            return
        for e in dict.fromkeys(effects):
            if e in TARGET_MALUS or e in ("knock_down", "disarm", "feint"):
                self.emit(EffectApplied(seg, aid, e, tid))
            elif e == "take_advantage":
                self.emit(EffectApplied(seg, aid, e, None, list(effects).count(e)))
        if params.get("damage", True):
            for i, w in enumerate(self.weapons_on(aid, tid, weapon, effects, params)):
                if self.standing(tid):
                    self.damage(aid, tid, w, effects if i == 0 else (), halved)
        if "neutralise" in effects:
            self.emit(EffectApplied(seg, aid, "neutralise", tid))
            self.knock_out(tid, f"neutralised by {aid}")

    def weapons_on(
        self, aid: str, tid: str, weapon: Weapon, effects: Sequence[str], params: Mapping[str, Any]
    ) -> list[Weapon]:
        """The weapons whose damage a target takes: with two weapons (Loss, "Attaquer
        avec deux armes") the main weapon on the first target and the off hand on the
        second, or both on a single adversary; otherwise the weapon of the attack."""
        sheet: Sheet = self.fighter(aid).sheet
        hands = params.get("two_weapons")
        if "two_weapons" not in effects or sheet.off_hand is None or not hands:
            return [weapon]
        main, off = hands
        return [w for w, t in ((weapon, main), (sheet.off_hand, off)) if t == tid]

    def damage(
        self, aid: str, tid: str, weapon: Weapon, effects: Sequence[str], halved: bool
    ) -> None:
        """1d10 + weapon + bonus (+1d10 per extra damage Exploit) - armour and shield
        protection = health levels lost (Loss, "Application des dégâts")."""
        attacker = self.fighter(aid)
        target = self.fighter(tid)
        sheet: Sheet = attacker.sheet
        tsheet: Sheet = target.sheet
        dice = 1 + list(effects).count("extra_damage")
        rolls = tuple(self.dice.roll(10, f"damage ({weapon.name})", aid) for _ in range(dice))
        base = (
            weapon.assault if "assault" in effects and weapon.assault is not None else weapon.damage
        )
        amount = sum(rolls) + base + sheet.damage_bonus
        in_motion = chase_of(self.state) is not None
        if weapon.ranged and not in_motion and distance(attacker, target) > weapon.range:
            amount, halved = amount // 2, True
        elif halved:
            amount //= 2
        protection = tsheet.protection
        lost = max(0, amount - protection)
        left = max(0, self.health_of(tid) - lost)
        self.health[tid] = left
        self.emit(
            Damaged(
                self.segment, tid, aid, weapon.name, rolls, amount, protection, lost, left, halved
            )
        )
        if left == 0:
            self.knock_out(tid, "no health level left")

    # -------------------------------------------------------- pursuit

    def chase(self) -> Chase:
        chase = chase_of(self.state)
        assert chase is not None
        if self.units is None:
            self.units = dict(chase.distances)
        return chase

    def set_units(self, pair: tuple[str, str], units: int) -> None:
        assert self.units is not None
        if units > LOST_FROM_SIGHT:
            self.units.pop(pair, None)
        else:
            self.units[pair] = units
        self.emit(DistanceChanged(self.segment, None, pair[0], pair[1], units))

    def escapes(self) -> None:
        """A pursued fighter out of sight of every standing pursuer has escaped."""
        chase = self.chase()
        assert self.units is not None
        for c in self.state.in_fight():
            if c.side != chase.pursued_side or not self.standing(c.id):
                continue
            seen = [p for p in self.units if p[1] == c.id and self.standing(p[0])]
            if not seen:
                self.out.add(c.id)
                self.emit(Escaped(self.segment, c.id))

    def pursuit_test(self, a: Action, label: str, base: int, test: str = "pursuit") -> bool:
        c = self.fighter(a.actor)
        sheet: Sheet = c.sheet
        chase = self.chase()
        exploits = int(a.params.get("exploits", 0))
        bonuses: dict[str, int] = {}
        self.pools(a.actor, a.params, bonuses)
        bonuses["wounds"] = -self.wounds(a.actor)
        bonuses["specialisation"] = sheet.talent_bonus(test, weapon_by_id(sheet, sheet.weapon.id))
        bonuses["mount"] = int(c.setup.get("speed_bonus", 0)) if test == "pursuit" else 0
        mods = self.situation(c)
        mods["zigzag"] = zigzag_against(self.state, chase, a.actor, clock_of(self.state).round)
        mods = {k: v for k, v in mods.items() if v}
        diff = base + sum(mods.values()) + EXPLOIT_STEP * exploits
        roll = self.dice.roll(10, f"{label} test", a.actor)
        score = score_of(sheet, test)
        total = roll + score + sum(bonuses.values())
        success = total >= diff
        self.emit(
            Tested(
                self.segment,
                a.actor,
                label,
                a.id,
                a.target,
                roll,
                score,
                total,
                diff,
                exploits,
                success,
                {k: v for k, v in bonuses.items() if v},
                mods,
            )
        )
        self.last_difficulty = diff
        return success

    def act_change_distance(self, a: Action) -> None:
        """Modifier la distance: a pursuit test against the distance's difficulty; one unit
        closer or farther, two with two Exploits."""
        self._cost(a, "changing the distance")
        chase = self.chase()
        assert self.units is not None
        if a.target is not None:
            pair = chase.pair(a.actor, a.target)
            pairs = [pair] if pair is not None and pair in self.units else []
        else:
            pairs = [p for p in self.units if a.actor in p]
        if not pairs:
            return
        nearest = min(self.units[p] for p in pairs)
        if not self.pursuit_test(a, "changing the distance", UNIT_DIFFICULTY[nearest]):
            return
        step = 2 if int(a.params.get("exploits", 0)) >= 2 else 1
        for pair in pairs:
            units = self.units[pair]
            new = max(1, units - step) if a.params["direction"] == "closer" else units + step
            self.set_units(pair, new)
        self.escapes()

    def act_zigzag(self, a: Action) -> None:
        self._cost(a, "zigzags")
        if self.pursuit_test(a, "zigzag", BASE_DIFFICULTY):
            bonus = {0: 2, 1: 5}.get(int(a.params.get("exploits", 0)), 10)
            self.emit(Zigzagged(self.segment, a.actor, bonus, clock_of(self.state).round))

    def act_charge(self, a: Action) -> None:
        self.manoeuvre(a, "charge", 20, dodge_at=20)

    def act_clothesline(self, a: Action) -> None:
        self.manoeuvre(a, "clothesline", BASE_DIFFICULTY)

    def act_tackle(self, a: Action) -> None:
        self.manoeuvre(a, "tackle", BASE_DIFFICULTY)

    def act_shoot_legs(self, a: Action) -> None:
        """Tirer dans les jambes: a pursuit test at 15 keeps the distance, then a shot at 20."""
        c = self.fighter(a.actor)
        sheet: Sheet = c.sheet
        self._cost(a, "shooting the legs")
        chase = self.chase()
        assert a.target is not None and self.units is not None
        pair = chase.pair(a.actor, a.target)
        if pair is None or pair not in self.units:
            return
        keep = Action(a.kind, a.duration, id=a.id, actor=a.actor, start=a.start)
        if not self.pursuit_test(keep, "keeping the distance", BASE_DIFFICULTY):
            units = self.units[pair]
            self.set_units(pair, units + 1 if pair[0] == a.actor else max(1, units - 1))
            self.escapes()
            return
        self.manoeuvre(a, "shoot_legs", 20, test=sheet.weapon.test, pay=False)

    def manoeuvre(
        self,
        a: Action,
        kind: str,
        base: int,
        *,
        dodge_at: int | None = None,
        test: str = "pursuit",
        pay: bool = True,
    ) -> None:
        """A pursuit action the target may dodge: its test, then the dodge (or the fall)."""
        if pay:
            self._cost(a, kind.replace("_", " "))
        assert a.target is not None
        if not self.standing(a.target):
            return
        if not self.pursuit_test(a, kind.replace("_", " "), base, test):
            self.emit(AttackSettled(self.segment, a.actor, a.target, a.id, "missed"))
            return
        exploits = int(a.params.get("exploits", 0))
        if self.can_defend(a.target, UNARMED, False):
            difficulty = dodge_at if dodge_at is not None else self.last_difficulty
            self.emit(
                AttackPending(
                    self.segment, a.actor, a.target, a.id, difficulty, exploits, (), manoeuvre=kind
                )
            )
            params = {"attack": a.id, "targets": [a.target], "manoeuvre": kind}
            self.emit(
                ActionSpawned(
                    self.segment, a.actor, self.next_id(), BLOW, a.target, 1, BLOW, params=params
                )
            )
        else:
            self.emit(AttackSettled(self.segment, a.actor, a.target, a.id, "hit"))
            self.manoeuvre_lands(a.actor, a.target, kind)

    def manoeuvre_lands(self, aid: str, tid: str, kind: str) -> None:
        """Charge: the target falls. Clothesline, shooting the legs: it falls and loses a
        distance unit. Tackle: the chase stops, the fight goes on at contact."""
        seg = self.segment
        if kind == "tackle":
            self.emit(PursuitEnded(seg, aid, tid))
            x, y = self.fighter(tid).position
            self.emit(Moved(seg, aid, x + 1.0, y))
            return
        self.emit(EffectApplied(seg, aid, "knock_down", tid))
        if kind in ("clothesline", "shoot_legs"):
            chase = self.chase()
            assert self.units is not None
            pair = chase.pair(aid, tid)
            if pair is not None and pair in self.units:
                units = self.units[pair]
                self.set_units(pair, units + 1 if pair[0] == tid else max(1, units - 1))
                self.escapes()

    # -------------------------------------------------------- turns and rounds

    def turn_end(self, marker: Action) -> None:
        """A phase the fighter let go by without acting lowers its phase by one."""
        cid = marker.actor
        c = self.combatants[cid]
        if cid in self.out or not c.in_fight:
            return
        st: Status = c.status
        if st.last_act == marker.start:
            return
        left = self.pa.get(cid)
        if left is None:
            left = st.pa
        if left >= 1:
            self.pa[cid] = left - 1
            self.emit(Waited(self.segment, cid, 1, left - 1))

    def stalled(self, rnd: int) -> bool:
        """Whether the game master ends the chase at the end of round ``rnd``: option
        ``stalled_chase`` (N rounds), no distance changed in the last N rounds."""
        n = self.rules.stalled_chase
        chase = chase_of(self.state)
        if n is None or chase is None:
            return False
        if any(isinstance(e, DistanceChanged) for e in self.events):
            return False  # a distance changed in this very segment
        if rnd - chase.changed < n:
            return False
        away = tuple(
            c.id
            for c in self.state.in_fight()
            if c.side == chase.pursued_side and self.standing(c.id)
        )
        self.emit(PursuitStalled(self.segment, None, rnd - chase.changed, away))
        self.out.update(away)
        return True

    def broken_off(self) -> bool:
        """Whether the round that ends saw nobody spend an action point: the fighters
        have stopped fighting and the fight is over (Interpretations, "The end of a
        fight"). A chase goes on without actions (its fighters keep running)."""
        if clock_of(self.state).busy or chase_of(self.state) is not None:
            return False
        return not any(isinstance(e, ActionPointsSpent) for e in self.events)

    def lapse_counters(self, time: int, acts: Sequence[Action]) -> None:
        """A counter-attack not taken in its segment lapses (those of ``acts`` are taken)."""
        used: set[str] | None = None
        for c in self.combatants.values():  # (in_fight()'s order, without its list)
            st: Status = c.status
            if st.counters and c.in_fight and any(g < time for g in st.counters.values()):
                if used is None:
                    used = {a.actor for a in acts if a.params.get("counter")}
                if c.id not in used:
                    self.emit(CounterLapsed(self.segment, c.id))

    def round_end(self, time: int) -> None:
        """The round ends at a phase boundary once everyone has spent its action points,
        or after phase 1; the next one begins with fresh initiative rolls."""
        k = self.rules.phase_segments
        clock = self.state.extra.get(CLOCK)
        if clock is None:
            clock = clock_of(self.state)
        first = clock.start + clock.lead  # clock.first
        if time < first or (time - first) % k:
            return
        out = self.out
        if time < first + clock.top * k:  # clock.end(k)
            # Anyone with points left (pa_of(), without its call): the round goes on.
            # (Asked first: the checks below make no change either, and this one
            # answers at most phase boundaries.)
            pa = self.pa
            for c in self.combatants.values():
                if c.in_fight and c.id not in out:
                    left = pa.get(c.id)
                    if left is None:
                        st: Status = c.status
                        left = st.pa
                    if left > 0:
                        return
        fighters = [c for c in self.combatants.values() if c.in_fight and c.id not in out]
        if not fighters:
            return
        if any(a.kind == BLOW for a in self.state.autonomous.values() if a.end and a.end > time):
            return  # pragma: no cover - blows end within a phase
        if self.stalled(clock.round):
            return
        if self.broken_off():
            self.emit(BrokenOff(self.segment, None, clock.round))
            return
        started = new_round(
            self.state, self.dice, clock.round + 1, time, fighters, self.rules.group_initiative
        )
        self.emit(started)
        called = intentions(self.rules, started)
        if called is not None:
            self.emit(called)


_ACTS: dict[str, Callable[[Settlement, Action], None]] = {
    name[4:]: getattr(Settlement, name) for name in dir(Settlement) if name.startswith("act_")
}
"""The settlement of each kind of act (``Settlement.act_<kind>``), found once."""


def new_round(
    state: FightState,
    dice: Dice,
    rnd: int,
    time: int,
    fighters: Sequence[Combatant],
    grouped: bool = False,
) -> RoundStarted:
    """Everyone rolls d10 + Initiative (the die never explodes) + PA carried by taking the
    advantage (+2 if it watched the last round before joining). With ``grouped`` (option
    ``group_initiative``), identical adversaries (non-player characters of one side with
    the same sheet) share one roll, as the game master's for the three griffons."""
    pas: dict[str, int] = {}
    shared: list[tuple[str, Sheet, int]] = []
    for c in fighters:
        sheet: Sheet = c.sheet
        if sheet.structure:
            continue  # a structure never acts
        st: Status = c.status
        group = grouped and not c.is_pc
        same = [r for side, s, r in shared if side == c.side and s == sheet] if group else []
        if same:
            roll = same[0]
        else:
            roll = dice.roll(10, "initiative", c.id)
            if group:
                shared.append((c.side, sheet, roll))
        pas[c.id] = roll + sheet.initiative + st.advantage + (2 if st.watched else 0)
    top = max(pas.values(), default=1)
    return RoundStarted(time, None, rnd, max(1, top), pas)


def intentions(rules: Loss, started: RoundStarted) -> IntentionsCalled | None:
    """With the option ``declaration_order = "initiative"``: the order in which the
    round's fighters declare their intentions, lowest initiative total first, equal
    totals together (Loss, "Déclarer ses intentions", optional)."""
    if rules.declaration_order != "initiative" or not started.action_points:
        return None
    totals = sorted(set(started.action_points.values()))
    order = tuple(
        tuple(cid for cid, pa in started.action_points.items() if pa == total) for total in totals
    )
    return IntentionsCalled(started.t, None, started.round, order)


def settle(
    rules: Loss, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
) -> list[Event]:
    """Everything completing in ``segment``: acts first, then exchanges (blows with their
    defences), then the ends of turns, then the round's end."""
    s = Settlement(rules, state, segment, dice)
    time = segment + 1
    if len(batch) == 1:
        # One action (most settlements): what the pass below would do with it.
        a = batch[0]
        kind = a.kind
        if kind == AWAIT:
            s.lapse_counters(time, ())
        elif kind == TURN:
            s.lapse_counters(time, ())
            s.turn_end(a)
        elif kind != BLOW and not a.cancelled and a.channel == ACT_CHANNEL:
            s.lapse_counters(time, batch)
            if s.standing(a.actor):
                s.act(a)
        else:
            return _settle_all(s, state, segment, time, batch)
        s.round_end(time)
        return s.events
    for a in batch:
        kind = a.kind
        if kind != AWAIT and kind != TURN:
            return _settle_all(s, state, segment, time, batch)
    # Only the rules' turns and waits (a wait ends where a turn does): the turns' ends
    # in the batch's order, as the pass below would settle them.
    s.lapse_counters(time, ())
    for a in batch:
        if a.kind == TURN:
            s.turn_end(a)
    s.round_end(time)
    return s.events


def _settle_all(
    s: Settlement, state: FightState, segment: int, time: int, batch: Sequence[Action]
) -> list[Event]:
    """:func:`settle` of a batch of any size."""
    # One pass sorts the batch (most of it is the rules' own turns and waits); each
    # kind is then settled in the batch's order, as before.
    acts: list[Action] = []
    intends: list[Action] = []
    speeches: list[Action] = []
    defences: list[Action] = []
    blows: list[Action] = []
    turns: list[Action] = []
    for a in batch:
        kind = a.kind
        if kind == AWAIT:
            continue
        if kind == TURN:
            turns.append(a)
        elif kind == BLOW:
            blows.append(a)
        elif a.cancelled:
            continue
        elif a.channel == ACT_CHANNEL:
            acts.append(a)
        elif kind == INTEND:
            intends.append(a)
        elif kind == "speak":
            speeches.append(a)
        if kind == "parry" or kind == "dodge":
            defences.append(a)
    s.lapse_counters(time, acts)
    for a in intends:
        if s.standing(a.actor):
            s.emit(
                Intended(
                    segment,
                    a.actor,
                    clock_of(state).round,
                    str(a.params["action"]),
                    a.target,
                )
            )
    for a in speeches:
        if s.standing(a.actor):
            s.emit(Spoke(segment, a.actor, str(a.params.get("what", "")), a.target))
    for a in acts:
        if s.standing(a.actor):
            s.act(a)
    for a in blows:
        s.blow(a, defences)
    for a in turns:
        s.turn_end(a)
    s.round_end(time)
    return s.events
