"""Built-in Loss tactics.

* ``aggressive``: answers every attack (with a counter-attack when it is likely to
  work), takes every counter-attack, and at its phase attacks: minions with the one
  Exploit that fells them, adversaries with as many extra damage dice as it can likely
  afford; it closes in when nobody is in reach and lets a phase go by (saving action
  points) when its attack costs more than it has left.
* ``defensive``: defends the same way but keeps two action points for parries and
  dodges until late in the round, declares a total dodge (or a defensive wall behind
  a shield) when hurt and beset, and attacks without Exploits except against minions.

Both are reactive: the rules call them when an attack may be answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.actions import shared_declaration as declared
from segsim.native import mypyc_attr
from segsim.policies import register_rule_helpers
from segsim.policy import Observation, register_policy
from segsim.rules.loss.content import RANGED_TESTS
from segsim.rules.loss.declare import CONTACT, score_of
from segsim.rules.loss.effects import BASE_DIFFICULTY, EXPLOIT_STEP
from segsim.rules.loss.pursuit import UNIT_DIFFICULTY
from segsim.rules.loss.status import Incoming
from segsim.rules.loss.views import OtherView, SelfView

if TYPE_CHECKING:
    from segsim.rules.loss.ruleset import Loss
    from segsim.state import FightState

GET_UP = Declaration("get_up")
PICK_UP = Declaration("pick_up")
PASS = Declaration("pass")
COUNTER: Mapping[str, Any] = {"counter": True}
AWAY: Mapping[str, Any] = {"direction": "away"}
CLOSER: Mapping[str, Any] = {"direction": "closer"}


def chance(score: int, difficulty: int) -> float:
    """Chance that d10 + ``score`` reaches ``difficulty``."""
    # the faces from max(1, difficulty - score) to 10, counted without a loop
    return max(0, min(10, 11 - max(1, difficulty - score))) / 10


def opponents(obs: Observation) -> list[OtherView]:
    """The views of the deciding fighter's opponents (``obs.others`` of the other
    sides), made without views of its allies."""
    me: SelfView = obs.me
    return me.foes()


def defence_score(me: SelfView, kind: str) -> int:
    score = score_of(me.sheet, kind)
    shield = me.sheet.shield
    if kind == "parry" and shield is not None:
        score += shield.parry_bonus
    if kind == "dodge" and shield is not None:
        score -= shield.dodge_malus
    return score


def answer(me: SelfView, inc: Incoming, effects: Sequence[str] = ()) -> Declaration | None:
    """The better of parry and dodge the rules accept against ``inc``."""
    options = []
    for kind in ("parry", "dodge"):
        params: dict[str, object] = {"against": inc.attack}
        if effects:
            params["effects"] = list(effects)
        d = declared(kind, None, params)
        if me.accepts(d):
            options.append((defence_score(me, kind), kind == "dodge", d))
    if not options:
        return None
    return max(options, key=lambda o: (o[0], o[1]))[2]


def defend(me: SelfView, *, counter_at: float, total_when_hurt: bool) -> list[DeclarationLike]:
    out: list[DeclarationLike] = []
    left = me.phase
    incoming = sorted(me.incoming, key=lambda i: i.attack)
    hurt = me.health <= me.max_health // 2
    for inc in incoming:
        if left < 1:
            break
        d: Declaration | None = None
        best = max(defence_score(me, "parry"), defence_score(me, "dodge"))
        beset = total_when_hurt and hurt and len(incoming) >= 2 and not out
        if beset and chance(best, inc.difficulty + EXPLOIT_STEP) >= 0.5:
            whole = "defensive_wall" if me.sheet.shield is not None else "total_dodge"
            d = answer(me, inc, [whole])
        if d is None and chance(best, inc.difficulty + EXPLOIT_STEP) >= counter_at:
            d = answer(me, inc, ["counter"])
        if d is None:
            d = answer(me, inc)
        if d is not None:
            out.append(d)
            left -= (
                me.phase if d.params.get("effects") in (["total_dodge"], ["defensive_wall"]) else 1
            )
    return out


def counter_attacks(me: SelfView) -> list[DeclarationLike]:
    """Every counter-attack it may make now, while its action points last."""
    out: list[DeclarationLike] = []
    left = me.phase
    for oid in me.counters:
        d = declared("attack", oid, COUNTER)
        cost = me.cost(d)
        if cost is not None and cost <= left:
            out.append(d)
            left -= cost
    return out


def reach(me: SelfView, targets: list[OtherView]) -> list[OtherView]:
    weapon = me.weapon
    if weapon.ranged:
        return [o for o in targets if me.distance(o) <= weapon.limit]
    return [o for o in targets if me.in_contact(o)]


def attack(me: SelfView, target: OtherView, most: int) -> Declaration | None:
    """An attack with as many extra damage dice (up to ``most``) as keep the chance of
    success at one in two, spending Fursa then Inspiration (one each at most) when that
    is what it takes; one Exploit (or none) against a minion."""
    if me.attack_beyond_points():
        return None  # every option refused for its cost (none changes it): not asked
    tid = target.id
    if target.minion:
        for d in (_attack_option(tid, -1, 0, 0), _attack_option(tid, 0, 0, 0)):
            if me.accepts(d):
                return d
        return None
    # chance(score + bonus, difficulty) >= 0.5 exactly when difficulty - score - bonus
    # <= 6 (six faces or more of the d10 reach it): the pools tried in turn (none, then
    # Fursa, then Inspiration too), without a call of chance() each; each option asked
    # about as it is found (the first accepted is the one declared).
    score = score_of(me.sheet, me.weapon.test)
    fursa, inspiration = me.fursa, me.inspiration
    for e in range(most, 0, -1):
        short = BASE_DIFFICULTY + EXPLOIT_STEP * e - score - 6
        if short <= 0:
            d = _attack_option(tid, e, 0, 0)
        elif fursa:
            if short <= 5:
                d = _attack_option(tid, e, 1, 0)
            elif inspiration and short <= 10:
                d = _attack_option(tid, e, 1, 1)
            else:
                continue
        elif inspiration and short <= 5:
            d = _attack_option(tid, e, 0, 1)
        else:
            continue
        if me.accepts(d):
            return d
    d = _attack_option(tid, 0, 0, 0)
    return d if me.accepts(d) else None


_ATTACK_OPTIONS: dict[tuple[str, int, int, int], Declaration] = {}
"""The attacks :func:`attack` weighs, by target, extra damage dice (-1: one Exploit),
Fursa and Inspiration: the shared declarations, found once."""


def _attack_option(target: str, dice: int, fursa: int, inspiration: int) -> Declaration:
    """An attack on ``target`` with ``dice`` extra damage dice (-1: one Exploit, 0:
    none) and one point of Fursa and of Inspiration when given: its shared declaration
    (``declared("attack", target, params)``), kept by its values."""
    key = (target, dice, fursa, inspiration)
    found = _ATTACK_OPTIONS.get(key)
    if found is None:
        params: dict[str, object] = {}
        if dice < 0:
            params["exploits"] = 1
        elif dice:
            params["effects"] = ["extra_damage"] * dice
        if fursa:
            params["fursa"] = 1
        if inspiration:
            params["inspiration"] = 1
        if len(_ATTACK_OPTIONS) >= 4096:
            _ATTACK_OPTIONS.clear()
        found = _ATTACK_OPTIONS[key] = declared("attack", target, params)
    return found


def turn(obs: Observation, most: int, reserve: int) -> PolicyOutput:
    me: SelfView = obs.me
    # The rules refuse getting up to a fighter on its feet and picking up a weapon to
    # one who holds it: asked only of one who is down or disarmed.
    if me.prone and me.accepts(GET_UP):
        return GET_UP
    if me.disarmed and me.accepts(PICK_UP):
        return PICK_UP
    if me.in_chase:
        targets = opponents(obs)
        if not targets:
            return PASS
        return chase_turn(me, targets, most)
    # Those within reach, then the nearest, asked of the view: in a battle it looks
    # around itself only (what reach() and min() over every opponent would find).
    weapon = me.weapon
    near = me.foes_within(weapon.limit if weapon.test in RANGED_TESTS else CONTACT + 1e-9)
    if near:
        # (one opponent within reach, most often: min() would call its key for nothing)
        target = near[0] if len(near) == 1 else min(near, key=_weakest)
        d = attack(me, target, most)
        if d is None:
            return None  # let the phase go by: waiting saves action points
        if reserve:
            cost = me.cost(d) or 0
            if me.phase - cost < reserve and me.phase > reserve + 1:
                return None
        return d
    nearest = me.nearest_foe()
    if nearest is None:
        return PASS
    move = declared("move", nearest.id)
    return move if me.accepts(move) else None


def _weakest(o: OtherView) -> tuple[bool, int, str]:
    """Who a fighter attacks first among those within reach: minions, then the most
    hurt, then the lowest id."""
    return (not o.minion, o.health, o.id)


def first_accepted(me: SelfView, options: list[Declaration]) -> Declaration | None:
    return next((d for d in options if me.accepts(d)), None)


def chase_turn(me: SelfView, targets: list[OtherView], most: int) -> Declaration | None:
    """In a chase the pursued runs (two Exploits when likely, zigzags otherwise) or
    strikes at contact; pursuers close in, the aggressive ones charge at distance 2, strike
    or tackle at contact, shoot when they hold a ranged weapon."""
    seen = [(u, o) for o in targets if (u := me.units(o.id)) is not None]
    if not seen:
        return None
    units, target = min(seen, key=lambda x: (x[0], x[1].id))
    score = score_of(me.sheet, "pursuit")
    if me.pursued:
        if units == 1 and most and not me.weapon.ranged:
            strike = attack(me, target, most)
            if strike is not None:
                return strike
        run: list[Declaration] = []
        for e in (2, 0):
            spend = boost(me, score, UNIT_DIFFICULTY[units] + EXPLOIT_STEP * e)
            if spend is not None:
                params = {"direction": "away", "exploits": e, **spend}
                run.append(declared("change_distance", None, params))
        if units <= 2 and chance(score, BASE_DIFFICULTY) >= 0.5:
            run.insert(1, declared("zigzag"))
        run.append(declared("change_distance", None, AWAY))
        return first_accepted(me, run)
    options: list[Declaration] = []
    if units == 1:
        strike = attack(me, target, most) if not me.weapon.ranged else None
        options += [strike] if strike is not None and most else []
        options.append(declared("tackle", target.id))
    if units == 2 and most and chance(score, 20) >= 0.5:
        options.append(declared("charge", target.id))
    if me.weapon.ranged and (most or units <= 3):  # the legs are shot from 3 at most
        options.append(declared("attack", target.id) if most else declared("shoot_legs", target.id))
    spend = boost(me, score, UNIT_DIFFICULTY[units]) if units > 2 else None
    closer: dict[str, object] = {"direction": "closer", **(spend or {})}
    options.append(declared("change_distance", target.id, closer))
    options.append(declared("change_distance", target.id, CLOSER))
    return first_accepted(me, options)


def boost(me: SelfView, score: int, difficulty: int) -> dict[str, object] | None:
    """The fewest pools (Fursa first, one each at most) that bring the chance of a test
    to one in two; None when even both do not."""
    spend: dict[str, object] = {}
    bonus = 0
    for pool, left in [("", 1), ("fursa", me.fursa), ("inspiration", me.inspiration)]:
        if pool:
            if not left:
                continue
            spend[pool] = 1
            bonus += 5
        if chance(score + bonus, difficulty) >= 0.5:
            return dict(spend)
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive:
    """Attacks at every phase it can afford, with extra damage Exploits."""

    name = "aggressive"
    reactive = True

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if me.counters:
            return counter_attacks(me) or None
        if me.incoming:
            return defend(me, counter_at=0.5, total_when_hurt=False) or None
        if not me.my_turn:
            return None
        return turn(obs, most=3, reserve=0)

    def unconcerned(
        self, rules: Loss, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """True when the rules do not call it now: see :func:`uncalled` (its test,
        without its call: once a fighter called by sight)."""
        return type(self) in CALLED_ONLY and rules.uncalled(state, cid, segment)


@mypyc_attr(allow_interpreted_subclasses=True)
class Defensive:
    """Keeps action points for defences, counter-attacks whenever it can."""

    name = "defensive"
    reactive = True

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        if me.counters:
            return counter_attacks(me) or None
        if me.incoming:
            return defend(me, counter_at=0.4, total_when_hurt=True) or None
        if not me.my_turn:
            return None
        return turn(obs, most=0, reserve=2)

    def unconcerned(
        self, rules: Loss, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """True when the rules do not call it now: see :func:`uncalled` (its test,
        without its call: once a fighter called by sight)."""
        return type(self) in CALLED_ONLY and rules.uncalled(state, cid, segment)


register_policy("loss", "aggressive", Aggressive)
register_policy("loss", "defensive", Defensive)

CALLED_ONLY: frozenset[type] = frozenset({Aggressive, Defensive})
"""The policies that decide nothing when the rules do not call them (no counter-attack,
no attack to answer, not their turn: their observation's ``must_act`` is false).
Exactly these classes: a subclass may decide otherwise."""


def uncalled(policy: object, rules: Loss, state: FightState, cid: str, segment: int) -> bool:
    """A built-in policy's ``unconcerned()`` (the engine's shortcut for the phases a
    reactive policy is called to by sight alone, :func:`segsim.fight.unconcerned_hook`):
    True, promising it would decide nothing, when it is one of :data:`CALLED_ONLY` and
    the rules do not call its fighter (:meth:`Loss.uncalled`); the engine then neither
    observes it nor asks it to decide."""
    return type(policy) in CALLED_ONLY and rules.uncalled(state, cid, segment)


def _accepts(ctx: Any, kind: str, target: Any = None, **params: Any) -> bool:
    """Rule-list helper: whether the rules would accept this declaration now."""
    tid = target if target is None or isinstance(target, str) else target.id
    me: SelfView = ctx.me
    return me.accepts(Declaration(kind, tid, params))


def _units(ctx: Any, other: Any) -> int | None:
    """Rule-list helper: distance units to another fighter in a chase."""
    me: SelfView = ctx.me
    return me.units(other if isinstance(other, str) else other.id)


def _hit_chance(ctx: Any, exploits: int = 0, bonus: int = 0) -> float:
    """Rule-list helper: the chance that the fighter's attack with its weapon succeeds
    with ``exploits`` Exploits (difficulty +5 each) and ``bonus`` added to its score (+5
    a pool point), as the built-in policies reckon it (d10 + score against the
    difficulty)."""
    me: SelfView = ctx.me
    score = me.sheet.score(me.weapon.test) + bonus
    return chance(score, BASE_DIFFICULTY + EXPLOIT_STEP * exploits)


def _defence_chance(ctx: Any, incoming: Incoming | None, exploits: int = 0) -> float:
    """Rule-list helper: the chance that the better of a parry and a dodge meets
    ``incoming`` (one of ``me.incoming``) with ``exploits`` Exploits (a counter is one);
    0 when there is nothing to meet."""
    if incoming is None:
        return 0.0
    me: SelfView = ctx.me
    best = max(defence_score(me, "parry"), defence_score(me, "dodge"))
    return chance(best, incoming.difficulty + EXPLOIT_STEP * exploits)


def _best_defence(ctx: Any) -> str:
    """Rule-list helper: "parry" or "dodge", whichever the fighter's score is better at
    (a dodge on a tie, as the built-in policies choose)."""
    me: SelfView = ctx.me
    parry, dodge = defence_score(me, "parry"), defence_score(me, "dodge")
    return "parry" if parry > dodge else "dodge"


register_rule_helpers(
    "loss",
    {
        "best_defence": _best_defence,
        "accepts": _accepts,
        "units": _units,
        "hit_chance": _hit_chance,
        "defence_chance": _defence_chance,
    },
)
