"""The building blocks of the built-in RinKaNou policies' decisions: the declarations
they hand out again, buying back a negative score, striking or arming, walking toward an
opponent, where a seen blow should land, which defences are in progress and what a
declaration spends (:mod:`segsim.rules.rinkanou.policies` and
:mod:`segsim.rules.rinkanou.tactics` build their policies from them)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from segsim.actions import Action, Declaration, DeclarationLike
from segsim.policy import Observation
from segsim.rules.rinkanou.content import Weapon
from segsim.rules.rinkanou.ruleset import within
from segsim.rules.rinkanou.settle import PERSONAL_SPACE
from segsim.rules.rinkanou.views import MOTION, OtherView, SeenAction, SelfView
from segsim.state import Combatant

ARM = Declaration("arm")
DRAW_MELEE = Declaration("draw", params={"weapon": "melee"})
DRAW_RANGED = Declaration("draw", params={"weapon": "ranged"})
READY = Declaration("ready")
"""A declaration is a value: the same one serves every time."""

SHAPES = 4096
"""How many declarations of each shape the built-in policies keep to hand out again (a
Declaration is frozen, so one value serves every fight; the caches are bounded)."""


def nearest_opponent(obs: Observation) -> OtherView | None:
    """The closest combatant of another side (ties: the order of the fight)."""
    me: SelfView = obs.me
    return me.nearest()


def buy_back(
    me: SelfView,
    decl: Declaration,
    *,
    against: str | None,
    duration: int | None,
    keep_timing: bool,
) -> Declaration:
    """Add the PS buys a negative score requires: slower first (unless the timing must
    hold), then a malus to the roll."""
    # (its own status read straight, as its live fields would read it in this phase)
    score = me.ps_against.get(against, 0) if against is not None else me._c.status.ps
    if score >= 0:
        return decl
    slower, malus = buy_back_amounts(score, duration, keep_timing)
    ps = dict(decl.params.get("ps", {}))
    if slower is not None:
        ps["slower"] = slower
    if malus is not None:
        ps["malus"] = ps.get("malus", 0) + malus
    return Declaration(decl.kind, decl.target, {**decl.params, "ps": ps})


def buy_back_amounts(
    score: int, duration: int | None, keep_timing: bool
) -> tuple[int | None, int | None]:
    """The ``slower`` and ``malus`` buys that bring a negative ``score`` back to zero
    (None: not taken; nothing when the score is not negative)."""
    if score >= 0:
        return None, None
    need = -score
    slower = None
    if duration is not None and not keep_timing:
        slower = min(need, math.ceil(duration / 2))
        need -= slower
    return slower, need or None


@lru_cache(maxsize=SHAPES)
def shared_declaration(
    kind: str,
    target: str | None,
    lead: tuple[str, ...],
    ps: tuple[str, ...],
    *values: object,
) -> Declaration:
    """The shared declaration of one shape: ``lead`` the names of its parameters before
    any PS (a blow, a wait's end...), ``ps`` the names of its PS choices in order, and
    ``values`` theirs, the lead's first (a PS amount of None is not taken). The names
    are constants and the values plain, so the cache's key is cheap to hash and to
    compare. Built as the policies built it, so the record does not change; each
    parameter keeps one type (the cache does not tell 1 from 1.0 or True)."""
    n = len(lead)
    params: dict[str, object] = dict(zip(lead, values[:n], strict=True))
    taken = {k: v for k, v in zip(ps, values[n:], strict=True) if v is not None}
    if taken:
        params["ps"] = taken
    return Declaration(kind, target, params)


_BLOWS: dict[int, tuple[Weapon, str]] = {}


def best_blow(weapon: Weapon) -> str:
    """The weapon's blow with the most damage (the first of equals), looked up once
    per weapon (the entry keeps the weapon, so its id is not reused meanwhile)."""
    entry = _BLOWS.get(id(weapon))
    if entry is None or entry[0] is not weapon:
        if len(_BLOWS) >= SHAPES:
            _BLOWS.clear()
        entry = _BLOWS[id(weapon)] = (weapon, max(weapon.blows, key=weapon.damage.__getitem__))
    return entry[1]


def arm_for(me: SelfView) -> Declaration:
    """How to get the melee weapon ready: draw it first when another weapon (a crossbow,
    a bow) is in hand, else arm it."""
    return DRAW_MELEE if me._c.status.wielding != "melee" else ARM  # (me.wielding)


def strike_or_arm(obs: Observation, target: OtherView, spent: int = 0) -> Declaration | None:
    """Arm when not armed, strike when armed and in reach; nothing while the weapon is
    busy. A strike spends up to two points of a positive score on its roll (``spent``:
    points already promised to another action this segment) and buys back a negative
    score by taking more time."""
    return _strike_or_arm(obs.me, target.id, spent)


def _strike_or_arm(me: SelfView, target: str, spent: int = 0) -> Declaration | None:
    """:func:`strike_or_arm` for the fighter ``me`` against the opponent of id
    ``target`` (whose view need not be built for it)."""
    if me.must_lock or me.weapon_pr <= 0:
        return None
    if me.actions:  # me.doing("hands"), without its call (nor an iterator over nothing)
        for a in me.actions:
            if a.channel == "hands" and not a.continuous:
                return None
    # A crossbow or bow in hand: the melee weapon first. (Its own status read straight,
    # as me.wielding would read it in this phase, without a live field's first read.)
    if me._c.status.wielding != "melee":
        return DRAW_MELEE
    if not me.armed:
        return ARM
    weapon = me.weapon
    # A score of 0 is 0 against everyone, and a positive one is the usable score
    # against an opponent taken into account (the target is in view), else 0:
    # ps_against (a table of every opponent in view) is made only for a negative score.
    status = me._c.status
    ps = status.ps
    if ps == 0:
        score = 0
    elif ps > 0:
        score = me.usable_ps if target in status.engaged else 0
    else:
        score = me.ps_against.get(target, 0)
    usable = score
    if score > 0:  # min(score, what is left), without its call
        left = me.usable_ps - spent
        if left < score:
            usable = left
    # A positive score against the target: +10 % a point, two at most; a negative one
    # is bought back (as buy_back does) by striking slower, then with a malus.
    bonus = (usable if usable < 2 else 2) if usable > 0 else None  # (min(usable, 2))
    slower, malus = buy_back_amounts(score, weapon.speed, False) if score < 0 else (None, None)
    entry = _BLOWS.get(id(weapon))  # best_blow(weapon), without its call once known
    blow = entry[1] if entry is not None and entry[0] is weapon else best_blow(weapon)
    # shared_declaration(...) found by one lookup of the values that vary (its own
    # cache's call hashes seven arguments, the constant ones too)
    key = (target, blow, bonus, slower, malus)
    strike = _STRIKES.get(key)
    if strike is None:
        if len(_STRIKES) >= SHAPES:
            _STRIKES.clear()
        strike = _STRIKES[key] = shared_declaration(
            "strike", target, ("blow",), ("bonus", "slower", "malus"), blow, bonus, slower, malus
        )
    return strike


_STRIKES: dict[tuple[str, str, int | None, int | None, int | None], Declaration] = {}
"""The built-in policies' strikes by target, blow and PS choices (the shared
declarations :func:`shared_declaration` makes of them; bounded as it is)."""


def approach(
    obs: Observation, target: OtherView, last: dict[str, object] | None = None
) -> Declaration | None:
    """Walk toward an opponent out of reach (a few segments at a time). A move into an
    opponent's reach rolls, so a negative score is bought back with a malus (on a move
    that does not roll, the ruleset drops the offer).

    ``last`` (a policy's memory) remembers where and when the last walk would end: a
    fighter called as that walk ends, still where it began (its way blocked, in a
    crowd), waits instead of walking into the crowd again, until someone near it moves
    away or leaves the fight, and at most as long as a walk (it keeps the same pace of
    decisions, without a move that others must watch).
    """
    return _approach(obs, target.id, last)


def _approach(
    obs: Observation, target: str, last: dict[str, object] | None = None
) -> Declaration | None:
    """:func:`approach` toward the opponent of id ``target`` (whose view need not be
    built for it)."""
    me: SelfView = obs.me
    for a in me.actions:  # me.doing("legs"), without its call
        if a.channel == "legs" and not a.continuous:
            return None
    if last is not None:
        walk = last.pop("walk", None)
        if obs.must_act and walk == (me.position, obs.segment):
            way = me.sheet.movement / 10 * APPROACH_SEGMENTS + PERSONAL_SPACE
            until = obs.segment + APPROACH_SEGMENTS
            return shared_declaration("wait", None, ("until", "clear"), (), until, way)
        last["walk"] = (me.position, obs.segment + APPROACH_SEGMENTS)
    # buy_back against the target, keeping the timing: a malus (if the move rolls). Only
    # a negative score is bought back, and the score against anyone is negative only if
    # the score itself is: ps_against (a table of every opponent in view) is made then.
    score = me.ps_against.get(target, 0) if me._c.status.ps < 0 else 0
    # buy_back_amounts(score, None, True)'s malus, without its call: what the score owes
    malus = -score if score < 0 else None
    key = (target, malus)  # (its shared declaration by one lookup, as a strike's)
    move = _APPROACHES.get(key)
    if move is None:
        if len(_APPROACHES) >= SHAPES:
            _APPROACHES.clear()
        walk = ("toward", "segments")
        move = _APPROACHES[key] = shared_declaration(
            "move", None, walk, ("malus",), target, APPROACH_SEGMENTS, malus
        )
    return move


_APPROACHES: dict[tuple[str, int | None], Declaration] = {}
"""The approaches' walks by target and malus (shared declarations, as :data:`_STRIKES`)."""


APPROACH_SEGMENTS = 5  # segments of walking an approach declares at a time
BLOCKED_WAIT = 100
"""Segments at most that a fighter whose way is blocked waits before trying again when
nothing near it moves: the engine wakes it as soon as someone near it moves away or
leaves the fight (a wait with ``clear``), so this is only the bound."""
ADVANCE_SEGMENTS = 5  # segments of walking an advance declares at a time


def advance(obs: Observation, last: dict[str, object] | None = None) -> Declaration | None:
    """Walk toward the nearest opponent when none is in sight (a battle's rear ranks).

    ``last`` (a policy's memory) remembers where the last advance began: a fighter that
    did not get anywhere (its way blocked by its own side) waits until its way clears,
    that is until someone within reach of its next steps moves away or leaves the fight
    (at most :data:`BLOCKED_WAIT` segments), and then tries again.
    """
    me: SelfView = obs.me
    if me.doing("legs") is not None:
        return None
    if last is not None:
        stuck = last.get("from") == me.position and not last.pop("waited", False)
        last["from"] = me.position
        if stuck and obs.must_act:
            last["waited"] = True
            # Whoever stands within a walk's length plus personal space may block it.
            way = me.sheet.movement / 10 * ADVANCE_SEGMENTS + PERSONAL_SPACE
            until = obs.segment + BLOCKED_WAIT
            return shared_declaration("wait", None, ("until", "clear"), (), until, way)
    foe = me.nearest_foe()
    if foe is None:
        return None
    # buy_back against no one in particular (me.ps, read straight)
    _, malus = buy_back_amounts(me._c.status.ps, None, True)
    walk = ("toward", "segments")
    return shared_declaration("move", None, walk, ("malus",), foe, ADVANCE_SEGMENTS, malus)


def in_reach(obs: Observation, target: OtherView, reach: float) -> bool:
    me: SelfView = obs.me
    return within(me.position, target.position, reach)


def expected_landing(other: OtherView) -> int | None:
    """The segment in which ``other``'s weapon motion would land as a blow, if it is one.

    A motion begun unarmed is read as arm then strike (two weapon speeds); a motion begun
    armed as a strike (one speed). A known lock is no threat; a revealed strike lands
    when the read said.
    """
    return _landing(other, other.motion("weapon"))


def _landing(other: OtherView, motion: SeenAction | None) -> int | None:
    """:func:`expected_landing` of ``other``'s weapon motion ``motion`` (read by the
    caller, who may read it again)."""
    if motion is None:
        return None
    kind = motion.kind
    if kind == "lock" or kind == "parry":
        return None
    ends = motion.ends_in
    speed = other.weapon.speed
    return blow_lands(kind, ends, motion.start, speed, ends is None and other.armed)


def blow_lands(kind: str | None, ends: int | None, start: int, speed: int, armed: bool) -> int:
    """Where a weapon motion that is not a lock or a parry lands as a blow, as an
    observer expects it: its ``kind`` and last segment ``ends`` when it is public or
    read (a strike lands then, anything else, an arming, one weapon ``speed`` later);
    else from its ``start``: one speed on for a striker already ``armed`` (a strike),
    two for one who is not (arm, then strike). ``armed`` is read only when ``ends`` is
    None."""
    if ends is not None:  # read, or public
        return ends if kind == "strike" else ends + speed
    if armed:
        return start + speed - 1
    return start + 2 * speed - 1


def seen_blow_lands(
    a: Action, o: Combatant, revealed: Mapping[int, tuple[str, str | None, int | None]]
) -> int | None:
    """Where ``o``'s action ``a`` lands as a blow, as a fighter who has read ``revealed``
    of the others' actions expects it (:func:`_landing` of what it sees, read from the
    fight state: the action as it is if public, as read if read, else its motion); None
    when ``a`` is not a visible weapon motion or is seen as a lock or a parry (what the
    shortcuts of the built-in policies weigh without building views)."""
    if not a.visible or MOTION.get(a.kind) != "weapon":
        return None
    kind: str | None
    ends: int | None
    if a.public:
        kind, ends = a.kind, a.last
    elif revealed and a.id in revealed:
        kind, _, ends = revealed[a.id]
    else:
        kind = ends = None
    if kind == "lock" or kind == "parry":
        return None
    speed = o.sheet.weapon.speed
    return blow_lands(kind, ends, a.start, speed, ends is None and o.status.armed)


def _hands_busy(c: Combatant) -> bool:
    """Whether ``c``'s hands are busy: a lock due, or an action of the hands in progress
    (what the shortcuts read before anything else: a policy whose hands are free may
    strike, arm or shoot)."""
    if c.status.must_lock:
        return True
    for a in c.actions:  # noqa: SIM110 (any() over a generator: two calls)
        if a.channel == "hands" and not a.continuous:
            return True
    return False


def _defended(actions: Sequence[Action]) -> AbstractSet[int | None]:
    """The segments in which the defences in progress (parries, dodges) end (no set
    is made when there are none, as in most decisions)."""
    covered: set[int | None] | None = None
    for a in actions:
        if a.kind == "parry" or a.kind == "dodge":
            if covered is None:
                covered = set()
            covered.add(a.last)
    return _NO_SEGMENTS if covered is None else covered


_NO_SEGMENTS: frozenset[int | None] = frozenset()

_PARRY_PS = ("parry_force", "malus")
"""A parry's PS choices, in the order the defender makes them (its shared shape)."""


def ps_spent(d: DeclarationLike) -> int:
    """PS a declaration spends (spends only; what it buys serves itself alone)."""
    if not isinstance(d, Declaration):
        return 0
    ps = d.params.get("ps")
    if not ps:
        return 0
    cost = 0
    for k, v in ps.items():
        if k in _SPENDS:
            cost += int(v)
        elif k == "aim" and v:
            cost += 3
    return cost


_SPENDS = frozenset(
    {"faster", "bonus", "specialization", "damage", "orient", "multiple", "parry_force"}
)
