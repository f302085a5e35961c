"""The resolution of a round's steps and of a round's end.

Events are returned in the order they happen; later parts of the same settlement see
what earlier ones changed (positions, hit points, fighters down) through the local
copies kept here, since the engine applies the events only once the settlement is over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from segsim.actions import Action
from segsim.dice import Dice
from segsim.eventbase import maker
from segsim.events import Event, Moved, OutOfFight
from segsim.native import mypyc_attr
from segsim.rules.lazy import Lazy
from segsim.rules.loreval import steps
from segsim.rules.loreval.attention import (
    focus_modifier,
    movement_modifier,
    perception_modifier,
    sneak_possible,
)
from segsim.rules.loreval.categories import chain_maluses, two_weapon_maluses
from segsim.rules.loreval.combat import (
    CHANGED_MALUS,
    CONTACT,
    Point,
    attack_modifiers,
    attention_scores,
    dangers,
    defence_value,
    distance,
    passive_difficulty,
    range_modifiers,
    round_moves,
    strength_damage,
    within,
)
from segsim.rules.loreval.content import FISTS, Sheet, Weapon
from segsim.rules.loreval.declare import CONCEALMENT
from segsim.rules.loreval.events import (
    HOLDS,
    ActionWasted,
    AttackRolled,
    ChangeAllowed,
    CheckRolled,
    Countered,
    CounterRolled,
    CounterUsed,
    CounterVoided,
    CriticalConfirmed,
    Damaged,
    Declared,
    Grappled,
    HeroicPassed,
    HeroismSaved,
    InitiativeRolled,
    LockChoice,
    Locked,
    Prone,
    RoundEnded,
    RoundStarted,
    Running,
    SpellCast,
    TurnResolved,
    WeaponLost,
    WeaponReadied,
)
from segsim.rules.loreval.grapple import resolve_grapple
from segsim.rules.loreval.jump import resolve_jump
from segsim.rules.loreval.manoeuvres import (
    on_declaration,
    resolve_manoeuvre,
    strength_contest,
)
from segsim.rules.loreval.ranged import shoot
from segsim.rules.loreval.reads import Heroism, HitPoints, Plans, Positions
from segsim.rules.loreval.rounds import rank_key, status_of
from segsim.rules.loreval.skills import resolve_skill
from segsim.rules.loreval.status import Plan, Status
from segsim.state import Combatant, FightState

if TYPE_CHECKING:
    from segsim.rules.loreval.ruleset import Loreval

INVISIBLE_ENVIRONMENT = 2
"""Environment needed to locate an invisible creature (Loreval, "Camouflage")."""
CHARGE_BONUS = 4
"""+4 to hit and to damage at the end of a charge (Loreval, "Charge")."""
BLOCK_MALUS = -4
"""Blocking an attack is a defence roll at -4 (Loreval, "Bloquer une attaque")."""
CONCERT_MALUS = -2
"""Per concerted attacker beyond the first, to the common target's defences
(Interpretations: the text says it divides its defences)."""


def initiative_roll(
    dice: Dice, c: Combatant, t: int, malus: int = 0
) -> tuple[InitiativeRolled, int]:
    """d20 + initiative skill (+ malus), never below 1 (Loreval, "Modifier son action")."""
    sheet: Sheet = c.sheet
    roll = dice.roll(20, "initiative", c.id)
    skill = sheet.skill("initiative")
    points = max(1, roll + skill + malus)
    return InitiativeRolled(t, c.id, roll, skill, points, malus), points


_initiative_rolled = maker(InitiativeRolled)  # InitiativeRolled(...), without a class call


def initiative_rolls(
    dice: Dice, fighters: Sequence[Combatant], t: int, events: list[Event], points: dict[str, int]
) -> None:
    """:func:`initiative_roll` (no malus) for each of ``fighters`` in turn: the same dice
    in the same order (one call of the dice for them all), each fighter's event added to
    ``events`` and its points to ``points`` (a battle's first round: a thousand fighters
    roll at once)."""
    faces = dice.roll_each(20, "initiative", [c.id for c in fighters])
    make = _initiative_rolled
    skills: dict[int, int] = {}  # each sheet's initiative skill, by the sheet's id (a
    # battle's thousand fighters share a few sheets; kept for this call alone)
    for c, roll in zip(fighters, faces, strict=True):
        sheet: Sheet = c.sheet
        skill = skills.get(id(sheet))
        if skill is None:
            skill = skills[id(sheet)] = sheet.skill("initiative")
        total = roll + skill
        if total < 1:  # max(1, roll + skill), without its call
            total = 1
        cid = c.id
        events.append(make(t, cid, roll, skill, total, 0))
        points[cid] = total


def round_started(
    state: FightState,
    dice: Dice,
    rnd: int,
    t: int,
    points: Mapping[str, int],
    grace: Mapping[str, str],
) -> RoundStarted:
    """The start of a round at segment ``t``: tie-break dice for fighters equal in
    points and dexterity (rolled again until they differ), the order, and who sits the
    round out.

    The order is that of the groups of equal points and dexterity (those descending),
    each group's fighters by their tie-break dice (descending: a sort that keeps the
    fight's order, and so the fighters' order, for equal values), rather than a sort of
    every fighter by a key made for each."""
    groups: dict[tuple[int, int], list[str]] = {}  # each in the fight's order
    for c in state.against(None):
        cid = c.id
        p = points.get(cid)
        if p is None:
            continue
        key = (p, c.sheet.characteristics["dexterity"])
        group = groups.get(key)
        if group is None:
            groups[key] = [cid]
        else:
            group.append(cid)
    ties: dict[str, int] = {}
    for group in groups.values():  # (the dice in the order the groups come)
        if len(group) > 1:
            break_ties(dice, group, ties)
    order: list[str] = []
    for key in sorted(groups, reverse=True):
        group = groups[key]
        if len(group) > 1:
            group.sort(key=ties.__getitem__, reverse=True)  # (stable, reversed or not)
        order += group
    return RoundStarted(
        t,
        None,
        rnd,
        tuple(order),
        {cid: points[cid] for cid in order},
        {cid: ties[cid] for cid in order if cid in ties} if ties else {},
        {cid: grace[cid] for cid in order if cid in grace} if grace else {},
    )


TIE_BASE = 21
"""The base in which a fighter's tie-break dice are read as one number: a d20's faces
(1 to 20) and the 0 of a roll it no longer took part in are its digits."""


def break_ties(dice: Dice, group: list[str], ties: dict[str, int]) -> None:
    """Tie-break dice for a group of fighters (ids) equal in points and dexterity: each
    rolls a d20 (in the group's order), those still equal roll again until they differ
    (Loreval, "Initiative...": 1d20 until a better score comes out). Still equal is equal
    to another of the group on every die so far: two fighters who already differ never
    roll again because each shares its last face with a third (with 5, 5, 7, 7 then 3,
    9, 3, 12, the first and the third are done on their 3s, as 5 then 3 stays behind 7
    then 3 whatever comes next: the four roll eight dice, not ten). All who still roll
    roll together, in the group's order.

    A fighter's tie-break value reads its dice as the digits of a number in base 21
    (:data:`TIE_BASE`), one digit for each roll of its group (a 0 for each roll it no
    longer took part in), so that the values compare as the rolls do, in turn: a face of
    20 is a digit of its own, never carried into the roll before it. Two fighters still
    rolling have the same value so far exactly when they rolled the same faces: the
    values are what a roll's faces are counted by.

    Each fighter's digits are added as it rolls, kept in a list beside those still
    rolling, and the zeros it is owed once the group is done (one multiplication); each
    roll of the group is one call of the dice (a battle's first round rolls some
    thousands of them)."""
    roll_each = dice.roll_each
    pending = group
    values: list[int] = []  # the dice so far of those still rolling, in turn
    out: list[tuple[str, int, int]] = []  # who stopped rolling: value, after how many rolls
    rolls = 0
    while len(pending) > 1:
        rolls += 1
        rolled = roll_each(20, "initiative tie-break", pending)
        if rolls == 1:  # no dice so far: the faces are the values
            now = rolled
        else:
            now = [so_far * TIE_BASE + face for so_far, face in zip(values, rolled, strict=True)]
        if len(set(now)) == len(now):  # all differ: everyone is done (a group's last roll)
            for cid, value in zip(pending, now, strict=True):
                out.append((cid, value, rolls))
            break
        counts: dict[int, int] = {}  # fighters by their dice so far
        for value in now:
            counts[value] = counts.get(value, 0) + 1
        still: list[str] = []
        kept: list[int] = []
        for cid, value in zip(pending, now, strict=True):
            if counts[value] > 1:
                still.append(cid)
                kept.append(value)
            else:
                out.append((cid, value, rolls))
        pending, values = still, kept
    for cid, value, made in out:
        ties[cid] = value * TIE_BASE ** (rolls - made) if made < rolls else value


MANOEUVRES = ("whirlwind", "trip", "disarm", "sunder", "overrun")
MOVING = frozenset(("attack", "charge", "grapple", *MANOEUVRES))
"""Actions that carry their declared moves toward their target."""


def lookup(values: Mapping[str, Any], cid: str, default: Any = None) -> Any:
    """``values.get(cid, default)`` of a settlement's :class:`Lazy` values, called as a
    mapping's method (the compiled build calls a dict's own ``get`` on a value typed as
    a dict, which would not read the state)."""
    return values.get(cid, default)


def _resolved(status: Any, rnd: int) -> bool:
    return bool(status.resolved_round >= rnd)


def _countered(status: Any, rnd: int) -> bool:
    return bool(status.counter_round == rnd)


def _blocked(status: Any, rnd: int) -> bool:
    return bool(status.blocked)


def _locked(status: Any, rnd: int) -> bool:
    return bool(status.locked_with)


@mypyc_attr(allow_interpreted_subclasses=True)
class Marks:
    """A set of fighters as a settlement sees it: a fighter's membership read from its
    status when first asked (``test(status, round)``), then kept, and changed by what
    the settlement marks (``add``, ``update``, ``difference_update``); the same as a set
    filled from every fighter's status when the settlement begins, without reading
    every fighter's."""

    __slots__ = ("_combatants", "_rnd", "_seen", "_test")

    def __init__(
        self, combatants: Mapping[str, Combatant], test: Callable[[Any, int], bool], rnd: int
    ) -> None:
        self._combatants = combatants
        self._test = test
        self._rnd = rnd
        self._seen: dict[str, bool] = {}

    def __contains__(self, cid: object) -> bool:
        key = str(cid)
        seen = self._seen.get(key)
        if seen is None:
            c = self._combatants.get(key)
            seen = self._seen[key] = c is not None and self._test(c.status, self._rnd)
        return seen

    def add(self, cid: str) -> None:
        self._seen[cid] = True

    def update(self, cids: Iterable[str]) -> None:
        for cid in cids:
            self._seen[cid] = True

    def difference_update(self, cids: Iterable[str]) -> None:
        for cid in cids:
            self._seen[cid] = False


CONCERTING = " concert"
"""The key of :meth:`Settlement.planning` for the plans that join another's action in
concert (no kind of action's name: those have no space)."""

AIMS = "loreval.aims"
"""Where a large fight keeps its :class:`Aims` (``state.extra``)."""


def _concert(plan: Plan | None) -> Any:
    """The partner whose action a plan joins in concert, if any."""
    return None if plan is None else plan.params.get("concert")


def _loose(plan: Plan) -> bool:
    """A counter that may answer someone it does not name: hypothetical, or with no
    target."""
    return plan.kind == "counter" and (plan.target is None or bool(plan.params.get("hypothetical")))


@mypyc_attr(allow_interpreted_subclasses=True)
class Aims:
    """What the fighters of a large fight declared in a round, kept as they declare
    (every plan is made by :meth:`Settlement.declare`): who declared an action at whom
    (``by_target``), who joined whose action in concert (``by_concert``), and the
    counters that name nobody or are hypothetical (``loose``). A settlement then looks
    at those fighters, not at everyone, for the counters, charges and concerted actions
    that answer a step and for the opponents who declared an action at a defender
    (Loreval, "Sécurité"). They may hold fighters who changed their plan since: what
    they name is checked against the plans. Kept whole from the first round that starts
    after it is made (``whole``): one made when someone joins mid-round is not used
    until the next round."""

    __slots__ = ("by_concert", "by_target", "loose", "round", "whole")

    def __init__(self, rnd: int, whole: bool) -> None:
        self.round = rnd
        self.whole = whole
        self.by_target: dict[str, list[str]] = {}
        self.by_concert: dict[str, list[str]] = {}
        self.loose: list[str] = []

    def begin(self, rnd: int) -> Aims | None:
        """The index as a settlement of round ``rnd`` reads it (None: not whole, every
        fighter is looked at); a new round starts it anew."""
        if self.round < rnd:
            self.round = rnd
            self.whole = True
            self.by_target = {}
            self.by_concert = {}
            self.loose = []
        return self if self.whole else None

    def declared(self, cid: str, plan: Plan) -> None:
        if plan.target is not None:
            self.by_target.setdefault(plan.target, []).append(cid)
        partner = plan.params.get("concert")
        if isinstance(partner, str):
            self.by_concert.setdefault(partner, []).append(cid)
        if _loose(plan):
            self.loose.append(cid)


@mypyc_attr(allow_interpreted_subclasses=True)
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
        combatants = state.combatants
        # what this settlement changes is written over the state's values, read on demand
        # (segsim.rules.loreval.reads: no function made for each, nor __init__ called)
        positions = Positions()
        positions.fighters = combatants
        self.positions: Lazy[Point] = positions
        # hit points and heroism: made when first asked for (most steps hurt nobody)
        self._hit_points: Lazy[int] | None = None
        self._heroism: Lazy[int] | None = None
        plans = Plans()
        plans.fighters = combatants
        plans.rnd = rnd
        self.plans: Lazy[Plan | None] = plans
        # who has resolved, countered, is blocked or locked: read from a fighter's
        # status when first asked (the state does not change during a settlement), then
        # as the settlement marks them; each made when first asked for (a declaration
        # step asks for none)
        self._resolved: Marks | None = None
        self._used_counters: Marks | None = None
        self._blocked: Marks | None = None
        self._locked: Marks | None = None
        self.no_move: set[str] = set()
        self.last: tuple[int, int] = (0, 0)  # total and difficulty of the last attack
        self.concert_malus: dict[str, int] = {}
        self.locations: dict[tuple[str, str], bool] = {}
        self.out: set[str] = set()
        self._order: list[Combatant] | None = None
        # planning()'s, until a declaration changes a plan
        self._planned: dict[str, list[Combatant]] | None = None
        self._looked = 0  # events looked at for a change step, and whether one was found
        self._changes = False
        kept: Aims | None = state.extra.get(AIMS)  # a large fight's
        self._aims = None if kept is None else kept.begin(rnd)

    @property
    def hit_points(self) -> Lazy[int]:
        """Each fighter's hit points, as this settlement sees them."""
        found = self._hit_points
        if found is None:
            made = HitPoints()
            made.fighters = self.state.combatants
            found = self._hit_points = made
        return found

    @property
    def heroism(self) -> Lazy[int]:
        """Each fighter's heroism points, as this settlement sees them."""
        found = self._heroism
        if found is None:
            made = Heroism()
            made.fighters = self.state.combatants
            found = self._heroism = made
        return found

    @property
    def resolved(self) -> Marks:
        """Who has resolved this round."""
        found = self._resolved
        if found is None:
            found = self._resolved = Marks(self.state.combatants, _resolved, self.rnd)
        return found

    @property
    def used_counters(self) -> Marks:
        """Whose counter of this round is spent."""
        found = self._used_counters
        if found is None:
            found = self._used_counters = Marks(self.state.combatants, _countered, self.rnd)
        return found

    @property
    def blocked(self) -> Marks:
        """Who is blocked in its action until the round ends."""
        found = self._blocked
        if found is None:
            found = self._blocked = Marks(self.state.combatants, _blocked, self.rnd)
        return found

    @property
    def locked(self) -> Marks:
        """Who is locked with someone by a block."""
        found = self._locked
        if found is None:
            found = self._locked = Marks(self.state.combatants, _locked, self.rnd)
        return found

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def standing(self, cid: str | None) -> bool:
        if cid is None:
            return False
        c = self.state.combatants.get(cid)
        return c is not None and c.in_fight and cid not in self.out

    def in_order(self) -> list[Combatant]:
        """Fighters still standing, highest initiative first (sorted once: only who
        falls during the settlement changes it)."""
        order = self._order
        if order is None:  # the round's order the rules keep (sorted once per round)
            order = self._order = self.rules.round_order(self.state, self.rnd)
        out = self.out
        return [c for c in order if c.id not in out] if out else list(order)

    def planning(self, kind: str) -> list[Combatant]:
        """:meth:`in_order` restricted to the fighters whose plan is of ``kind`` (or, for
        :data:`CONCERTING`, joins another's action in concert): a small fight's loops that
        look for a counter, a charge or a concerted action answering a step look only at
        those, in the same order. Found once for every kind, again only after a
        declaration changes a plan."""
        planned = self._planned
        if planned is None:
            planned = {}
            plans = self.plans
            rnd = self.rnd
            for c in self.in_order():
                # plans[c.id], without its __missing__ call: what it would read
                oid = c.id
                if oid in plans:
                    plan = plans[oid]
                else:
                    st: Status = c.status
                    plan = st.plan if st.declared_round == rnd else None
                if plan is not None:
                    found = planned.get(plan.kind)
                    if found is None:
                        planned[plan.kind] = [c]
                    else:
                        found.append(c)
                    if isinstance(plan.params.get("concert"), str):
                        joined = planned.get(CONCERTING)
                        if joined is None:
                            planned[CONCERTING] = [c]
                        else:
                            joined.append(c)
            self._planned = planned
        found = planned.get(kind)
        if found is None:
            return []
        out = self.out
        return [c for c in found if c.id not in out] if out else found

    def among(self, cids: Iterable[str]) -> list[Combatant]:
        """:meth:`in_order` restricted to ``cids``: the fighters among them still
        standing, highest initiative first."""
        combatants = self.state.combatants
        out = self.out
        found = [c for c in (combatants[cid] for cid in set(cids)) if c.in_fight]
        if out:
            found = [c for c in found if c.id not in out]
        found.sort(key=rank_key)
        return found

    def aiming_at(self, cid: str, *also: str) -> list[Combatant]:
        """:meth:`in_order` restricted, in a large fight, to the fighters whose plan
        may answer or target ``cid``: those who declared an action at it, the counters
        that name nobody or are hypothetical, and ``also``. A loop over them looking for
        such a plan finds what a loop over everyone would, in the same order."""
        aims = self._aims
        if aims is None:
            return self.in_order()
        found = self.among([*aims.by_target.get(cid, ()), *aims.loose, *also])
        if steps.CHECK:
            ids = {c.id for c in found}
            for c in self.in_order():
                plan = self.plans[c.id]
                if plan is not None and (plan.target == cid or _loose(plan) or c.id in also):
                    assert c.id in ids, (c.id, cid)
        return found

    def joining(self, cid: str) -> list[Combatant]:
        """:meth:`in_order` restricted to the fighters who may have joined ``cid``'s
        action in concert: in a large fight those the aims name, in a small one those
        whose plan joins someone's."""
        aims = self._aims
        if aims is None:  # (only those joining someone's action may have joined this one)
            return self.planning(CONCERTING)
        found = self.among(aims.by_concert.get(cid, ()))
        if steps.CHECK:
            joined = [c for c in self.in_order() if _concert(self.plans[c.id]) == cid]
            assert joined == [c for c in found if _concert(self.plans[c.id]) == cid]
        return found

    def danger_scope(self, defender: Combatant) -> list[Combatant] | None:
        """The fighters :func:`dangers` need look at for ``defender`` in a large fight:
        those within contact of it (the grid's, and those this settlement moved) and
        those who declared an action at it this round; None in a small fight (everyone)."""
        aims = self._aims
        if aims is None:
            return None
        here = lookup(self.positions, defender.id)
        cids = self._near(here)
        cids.update(aims.by_target.get(defender.id, ()))
        combatants = self.state.combatants
        found = [c for c in (combatants[cid] for cid in cids) if c.in_fight]
        if steps.CHECK:
            assert dangers(self.state, defender, self.positions, self.rnd) == dangers(
                self.state, defender, self.positions, self.rnd, found
            )
        return found

    def _near(self, here: Point) -> set[str]:
        """Fighters in the fight who may be within contact of ``here`` as this settlement
        sees them: the grid's within a little more than contact, and whoever this
        settlement moved (the grid has them where they were)."""
        cids = set(self.state.grid.near(here, CONTACT + 0.05))
        combatants = self.state.combatants
        for cid, where in self.positions.items():
            if where != combatants[cid].position:
                cids.add(cid)
        return cids

    def done(self, cid: str, note: str = "") -> None:
        self.resolved.add(cid)
        self.events.append(TurnResolved(self.segment, cid, self.rnd, note))

    # -------------------------------------------------------- declaration steps

    def declare(
        self, marker: Action, acts: Sequence[Action], changed: Plan | None, heroic: bool = False
    ) -> Plan | None:
        """The declaration made at a step (inaction when the fighter declared nothing at
        its declaration step; nothing at a change or heroic step). ``acts``: the
        fighter's actions of the round's channel in the step's batch."""
        c = self.state.combatants[marker.actor]
        act = acts[0] if acts else None
        if act is None:
            if changed is not None:
                self.done(c.id, "no changed action")
            elif heroic:
                self.emit(HeroicPassed(self.segment, c.id, self.rnd))
            else:
                attention = c.status.attention.as_dict()
                self.emit(Declared(self.segment, c.id, self.rnd, "inaction", None, 1, attention))
            return None
        params = dict(act.params)
        category = int(params.pop("category"))
        attention = params.pop("attention")
        malus = int(params.pop("malus_moves", 0))
        self.events.append(
            Declared(
                self.segment,
                c.id,
                self.rnd,
                act.kind,
                act.target,
                category,
                attention,
                int(params.get("moves", 0)),
                malus,
                params,
                changed=changed is not None,
                heroic=heroic,
            )
        )
        plan = Plan(act.kind, act.target, category, params, malus, changed is not None, heroic)
        self.plans[c.id] = plan
        self._planned = None  # a plan changed: who plans what is found again
        if self._aims is not None:
            self._aims.declared(c.id, plan)
        p = plan.params
        if p.get("juggle") or p.get("weave") or plan.kind in ("disarm", "sunder"):
            on_declaration(self, c, plan)  # (called only when it has something to roll)
        return plan

    # -------------------------------------------------------- resolution

    def resolve(self, cid: str, plan: Plan | None) -> None:
        """Carry out a fighter's plan at its step: first the concerted actions that
        joined it, a charge that takes precedence, offensive counters against it."""
        resolved = self.resolved  # (each made when first asked for: once here)
        if cid in resolved and not (plan is not None and plan.changed):
            return
        if plan is None or not plan.changed:  # a changed action resolved late rolled already
            self.break_lock(cid)
        if plan is None:
            self.done(cid, "nothing declared")
            return
        blocked = self.blocked
        if cid in blocked:
            self.moves_anyway(cid, plan)
            self.done(cid, "blocked by a counter")
            return
        if plan.kind == "counter":
            to = plan.params.get("to")
            if to is not None and cid not in self.no_move and cid not in self.locked:
                # a defensive counter's moves come at the fighter's own step
                dest = (float(to[0]), float(to[1]))
                self.positions[cid] = dest
                self.emit(Moved(self.segment, cid, dest[0], dest[1]))
            spent = cid in self.used_counters
            self.done(cid, "counter spent" if spent else "counter stands ready")
            return
        joined = self.concerted_with(cid)
        group = [p for p in joined if p not in resolved] if joined else joined
        if group:
            self.concert_malus = self.concert_maluses([*group, cid])
            for partner in group:
                self.carry_out(partner, self.plans[partner])
        note = self.unfeasible(cid, plan)
        if note is not None and not plan.changed and not plan.heroic:
            # seen at its step, before any counter: the counters on it are void
            self.emit(ChangeAllowed(self.segment, cid, self.rnd, note))
            self.void_counters_on(cid)
            self.concert_malus = {}
            return
        self.charge_first(cid, plan)
        # self.standing(cid), without its call
        c = self.state.combatants.get(cid)
        standing = c is not None and c.in_fight and cid not in self.out
        if standing and cid not in blocked and not self.countered_before(cid, plan):
            self.carry_out(cid, plan)
        elif standing and cid not in self.out:  # (a counter may have felled it)
            self.moves_anyway(cid, plan)
            self.done(cid, "blocked by a counter")
        if self.concert_malus:  # (an empty one stays: no new dictionary for each step)
            self.concert_malus = {}

    def moves_anyway(self, cid: str, plan: Plan) -> None:
        """A successful counter blocks the fighter in its action until the round ends,
        but not in its moves, unless it aimed at them (an obstruction; a block, which
        also prevents moving): a blocked fighter still makes the moves it declared, at
        its step (Loreval, "Actions de contre": "sauf ses déplacements")."""
        c = self.fighter(cid)
        if plan.kind == "move":
            self.move(c, plan)
            return
        if plan.kind not in MOVING:
            return
        units = int(plan.params.get("moves", 0)) + int(plan.params.get("free_move", 0))
        if units and plan.target is not None and self.standing(plan.target):
            sheet: Sheet = c.sheet
            self.move_toward(c, plan.target, units * sheet.speed, CONTACT)

    def unfeasible(self, cid: str, plan: Plan) -> str | None:
        """Why the action can no longer be carried out as declared, seen at the
        fighter's step: its target is out of the fight, or out of reach even with the
        moves declared (Loreval, "Modifier son action")."""
        if plan.kind not in MOVING or plan.target is None:
            return None
        if plan.kind == "whirlwind":
            return None
        if not self.standing(plan.target):
            return f"{plan.target} is out of the fight"
        if plan.kind == "grapple" and plan.params.get("move", "grab") != "grab":
            return None
        c = self.state.combatants[cid]
        status: Status = c.status
        wid = plan.params.get("weapon")
        weapon = status.weapon
        if wid is not None:  # (a loop: no generator's frame)
            for w in (status.weapon, *status.carried):
                if w.id == wid:
                    weapon = w
                    break
        if weapon.ranged and plan.kind == "attack":
            target = self.fighter(plan.target)
            if range_modifiers(self.state, c, target, weapon, self.positions) is None:
                return f"{plan.target} is beyond range"
            return None
        sheet: Sheet = c.sheet
        units = int(plan.params.get("moves", 0)) + int(plan.params.get("free_move", 0))
        if cid in self.no_move or cid in self.locked:
            units = 0
        reach = CONTACT + units * sheet.speed
        if not within(self.positions[cid], self.positions[plan.target], reach):
            return f"{plan.target} is out of reach"
        return None

    def round_over(self) -> bool:
        """Whether the round has nothing left once this settlement is applied: every
        fighter still standing has declared and resolved, no change or lock step
        waits."""
        if self.change_pending():
            return False
        declared: set[Any] = set()  # (one loop: no comprehensions' frames)
        chosen: set[Any] = set()
        for e in self.events:
            if isinstance(e, Declared):
                declared.add(e.actor)
            if isinstance(e, LockChoice):
                chosen.add(e.actor)
        for e in self.events:
            if isinstance(e, Locked) and e.locked and e.actor not in chosen:
                armed = status_of(self.fighter(str(e.actor))).weapon.id != FISTS.id
                if armed:
                    return False  # its lock step comes next
        kept = self.state.extra.get(steps.KEY)
        if kept is None:
            return self._all_done(self.state.against(None), declared, chosen)
        # a large fight: only those its tracker says may still hold the round up, each
        # group looked at lazily (the first one not done answers: most often the next)
        locks, order, n, unresolved = kept.waiting(self.state, self.rnd)
        # (the groups' fighters by C iterators, not generators' frames: the order's first
        # n from the last, a set's by the fight's table; an empty group not looked at)
        get = self.state.combatants.__getitem__
        done = (
            (not locks or self._all_done(map(get, locks), declared, chosen))
            and (
                n <= 0
                or self._all_done(islice(reversed(order), len(order) - n, None), declared, chosen)
            )
            and (not unresolved or self._all_done(map(get, unresolved), declared, chosen))
        )
        if steps.CHECK:
            assert done == self._all_done(self.state.against(None), declared, chosen)
        return done

    def _all_done(
        self, fighters: Iterable[Combatant], declared: set[Any], chosen: set[Any]
    ) -> bool:
        """Whether each of the fighters still standing has declared, resolved and made
        its lock choice, once this settlement is applied."""
        rnd = self.rnd
        for c in fighters:
            if c.id in self.out or not c.in_fight:
                continue
            status: Status = c.status
            if status.lock_choice and c.id not in chosen:
                return False
            if status.declared_round < rnd and c.id not in declared:
                return False
            if status.resolved_round < rnd and c.id not in self.resolved:
                return False
        return True

    def change_pending(self) -> bool:
        """Whether this settlement has given someone a change step (the events are
        looked at once: the answer, once yes, stays yes)."""
        if self._changes:
            return True
        events = self.events
        for i in range(self._looked, len(events)):
            if isinstance(events[i], ChangeAllowed):
                self._changes = True
                return True
        self._looked = len(events)
        return False

    def carry_out(self, cid: str, plan: Plan | None) -> None:
        if plan is None or not self.standing(cid):
            return
        c = self.state.combatants[cid]
        if plan.params.get("stand") and c.status.prone:
            self.emit(Prone(self.segment, cid, False))  # stands up as part of its action
        kind = plan.kind
        if kind == "grapple":
            note = resolve_grapple(self, c, plan)
        elif kind == "jump":
            note = resolve_jump(self, c, plan)
        elif kind == "skill":
            note = resolve_skill(self, c, plan)
        elif kind in MANOEUVRES:
            note = resolve_manoeuvre(self, c, plan)
        # the handlers by kind, without a table of bound methods made for each
        elif kind == "attack":
            note = self.attack(c, plan)
        elif kind == "charge":
            note = self.charge(c, plan)
        elif kind == "move":
            note = self.move(c, plan)
        elif kind == "spell":
            note = self.spell(c, plan)
        else:
            self.done(cid)
            return
        if note is not None and not plan.changed and not plan.heroic:
            self.emit(ChangeAllowed(self.segment, cid, self.rnd, note))
            self.void_counters_on(cid)
            return
        if note is not None:
            self.emit(ActionWasted(self.segment, cid, plan.kind, note))
        self.done(cid)

    def concerted_with(self, cid: str) -> list[str]:
        """Fighters whose concerted actions resolve at ``cid``'s step (and those that
        joined them), highest initiative first."""
        found: list[str] = []
        todo = [cid]
        plans = self.plans
        rnd = self.rnd
        while todo:
            current = todo.pop()
            for c in self.joining(current):
                # self.plans[c.id], without its __missing__ call: what it would read
                oid = c.id
                if oid in plans:
                    plan = plans[oid]
                else:
                    st: Status = c.status
                    plan = st.plan if st.declared_round == rnd else None
                if plan is not None and plan.params.get("concert") == current:
                    found.append(c.id)
                    todo.append(c.id)
        if not found:
            return found
        ranked = self.in_order() if self._aims is None else self.among(found)
        order = {c.id: i for i, c in enumerate(ranked)}
        return sorted(found, key=lambda x: order.get(x, 0))

    def concert_maluses(self, group: list[str]) -> dict[str, int]:
        """A target of several concerted attackers divides its defence: -2 per attacker
        beyond the first (Interpretations)."""
        counts: dict[str, int] = {}
        for cid in group:
            plan = lookup(self.plans, cid)
            if plan is not None and plan.target is not None:
                counts[plan.target] = counts.get(plan.target, 0) + 1
        return {t: CONCERT_MALUS * (n - 1) for t, n in counts.items() if n > 1}

    def void_counters_on(self, cid: str) -> None:
        """Counters aimed at a fighter who must change its action cannot be carried out;
        their fighters may change theirs (Loreval, "Modifier son action")."""
        for c in self.planning("counter") if self._aims is None else self.aiming_at(cid):
            plan = self.plans[c.id]
            if (
                plan is not None
                and plan.kind == "counter"
                and plan.target == cid
                and c.id not in self.used_counters
            ):
                self.used_counters.add(c.id)
                self.emit(
                    CounterVoided(self.segment, c.id, cid, f"{cid} changes its action", self.rnd)
                )
                self.emit(ChangeAllowed(self.segment, c.id, self.rnd, f"{cid} changed its action"))

    # -------------------------------------------------------- moves

    def move_toward(self, c: Combatant, target: str, metres: float, stop: float) -> None:
        if c.id in self.no_move or c.id in self.locked:
            return
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
        units = 1 + int(plan.params.get("moves", 0)) + int(plan.params.get("free_move", 0))
        if c.id in self.no_move or c.id in self.locked:
            return None
        if plan.target is not None:
            if not self.standing(plan.target):
                return f"{plan.target} is out of the fight"
            speed = sheet.speed_in(str(plan.params.get("mode", "walk"))) or sheet.speed
            self.move_toward(c, plan.target, units * speed, CONTACT)
        else:
            to = plan.params["to"]
            dest = (float(to[0]), float(to[1]))
            self.positions[c.id] = dest
            self.emit(Moved(self.segment, c.id, dest[0], dest[1]))
        here = self.positions[c.id]
        if units >= 2 and not self.engaged(c, here):
            self.emit(Running(self.segment, c.id, self.rnd))
        return None

    def engaged(self, c: Combatant, here: Point) -> bool:
        """Whether an opponent still standing is in contact with ``here`` (a large
        fight asks the grid who may be, rather than looking at everyone)."""
        if self._aims is None:
            around = self.in_order()
        else:
            combatants = self.state.combatants
            around = [
                o
                for o in (combatants[cid] for cid in self._near(here))
                if o.in_fight and o.id not in self.out
            ]
        return any(within(self.positions[o.id], here, CONTACT) for o in around if o.side != c.side)

    def spell(self, c: Combatant, plan: Plan) -> str | None:
        """A spell: a counter-spell stops it (an offensive one at its source, a
        defensive one when it aims at the counterer); an aimed spell makes a targeting
        roll, which a dodge counter sets the difficulty of; a resisting target rolls its
        resistance. What the spell does is the game master's (Loreval, "Les différents
        contres", "Lancer un sort et Contre")."""
        target = plan.target
        if target is not None and not self.standing(target):
            return f"{target} is out of the fight"
        found = self.spell_counter(c, plan, "counterspell")
        if found is not None:
            self.used_counters.add(found[0].id)
            self.emit_counter_use(found[0], c.id, "counterspell")
            self.block(c.id, found[0].id, "counterspell")
            return None
        if target is not None and plan.params.get("aimed") and not self.targets(c, plan, target):
            return None
        if target is not None and not plan.params.get("irresistible"):
            found = self.spell_counter(c, plan, "resist")
            if found is not None:
                self.resist(found[0], found[1], c, plan)
        self.emit(SpellCast(self.segment, c.id, str(plan.params.get("spell")), target))
        return None

    def spell_counter(
        self, caster: Combatant, spell: Plan, how: str
    ) -> tuple[Combatant, Plan] | None:
        """The counter of kind ``how`` that answers this spell, if any: a defensive one
        of the spell's target, or an offensive counter-spell of the caster's opponent,
        aimed at the caster or hypothetical (Loreval, "Les différents contres": a
        defensive counter-spell only protects the counterer)."""
        for k in self.aiming_at(caster.id):
            plan = self.plans[k.id]
            if (
                plan is None
                or plan.kind != "counter"
                or plan.params.get("how") != how
                or k.id in self.used_counters
                or k.id in self.blocked
                or k.id == caster.id
                or not (plan.target == caster.id or plan.params.get("hypothetical"))
            ):
                continue
            against = plan.params.get("against")
            if against == "defensive" and k.id == spell.target:
                return k, plan
            if against == "offensive" and k.side != caster.side:
                return k, plan
        return None

    def targets(self, c: Combatant, plan: Plan, target: str) -> bool:
        """An aimed spell's targeting roll: d20 + attaque habile + the caster's
        modifiers against the target's passive Reflex, or the roll of its dodge counter
        (Loreval, "Esquiver un sort"; Interpretations). A miss against a dodge counter
        blocks the caster; otherwise the spell is wasted."""
        defender = self.fighter(target)
        difficulty, _ = defence_value(
            self.state, defender, "reflex", self.positions, self.rnd, self.danger_scope(defender)
        )
        against = "passive reflex"
        found = self.spell_counter(c, plan, "dodge")
        if found is not None:
            k, counter = found
            malus = CHANGED_MALUS if counter.params.get("hypothetical") else 0
            difficulty, against = self.counter_roll(k, counter, c, defender, malus)
        mods = attack_modifiers(c, c.status.weapon, "skilful", self.rnd, plan=plan)
        name = str(plan.params.get("spell"))
        if plan.heroic and defender.sheet.heroism == 0:
            roll = 20
        else:
            roll = self.dice.roll(20, f"targeting ({name})", c.id)
        total = roll + sum(mods.values())
        hit = roll == 20 or (roll != 1 and total >= difficulty)
        shown = {k2: v for k2, v in mods.items() if v}
        self.emit(
            AttackRolled(
                self.segment,
                c.id,
                "spell",
                target,
                name,
                roll,
                total,
                difficulty,
                hit,
                modifiers=shown,
                against=against,
                label="targeting",
            )
        )
        if hit:
            return True
        if found is not None:
            self.block(c.id, found[0].id, "dodge")
        else:
            self.emit(ActionWasted(self.segment, c.id, "spell", f"{name} misses {target}"))
        return False

    def resist(self, k: Combatant, counter: Plan, caster: Combatant, spell: Plan) -> None:
        """Resisting a spell (a defensive counter): d20 + the resistance the spell calls
        for (``will`` by default, ``vigour`` or ``reflex``) + Focus's modifier and the
        usual counter maluses. The total opposes the spell's penetration roll, which
        belongs to the magic chapter: it is recorded for the game master (Loreval,
        "Résister à un sort")."""
        sheet: Sheet = k.sheet
        which = str(spell.params.get("resistance", "will"))
        mods = {
            which: sheet.skill(which),
            "focus": focus_modifier(attention_scores(k, self.rnd).focus),
            "extra moves": movement_modifier(counter.extra_moves),
            "hypothetical": CHANGED_MALUS if counter.params.get("hypothetical") else 0,
            "changed action": CHANGED_MALUS if counter.changed else 0,
        }
        roll = self.dice.roll(20, f"counter (resist {which})", k.id)
        total = roll + sum(mods.values())
        self.used_counters.add(k.id)
        shown = {n: v for n, v in mods.items() if v}
        self.emit(
            CounterRolled(self.segment, k.id, caster.id, "resist", roll, total, shown, self.rnd)
        )

    # -------------------------------------------------------- attacks

    def attack(self, c: Combatant, plan: Plan) -> str | None:
        target = plan.target
        if not self.standing(target):
            return f"{target} is out of the fight"
        assert target is not None
        status: Status = c.status
        sheet: Sheet = c.sheet
        wid = plan.params.get("weapon")
        weapon = status.weapon
        if wid is not None:
            weapon = next((w for w in (status.weapon, *status.carried) if w.id == wid), weapon)
            self.emit(WeaponReadied(self.segment, c.id, weapon.id))
        moves = int(plan.params.get("moves", 0)) + int(plan.params.get("free_move", 0))
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
        combatants = self.state.combatants
        for i in range(attacks):
            # self.standing(target), without its call (once a blow)
            foe = combatants.get(target)
            if foe is None or not foe.in_fight or target in self.out:
                self.emit(ActionWasted(self.segment, c.id, "attack", f"{target} is down"))
                break
            off_hand = mode == "two_weapons" and i % 2 == 1
            used = off if off_hand and off is not None else weapon
            mods = attack_modifiers(c, used, skill, self.rnd, plan=plan)
            if chain[i]:
                mods["chained"] = chain[i]
            if mode == "two_weapons":
                mods["two weapons"] = two[1] if off_hand else two[0]
            label = f"attack {i + 1} of {attacks}" if attacks > 1 else ""
            if off_hand:
                label += ", off hand"
            power = int(plan.params.get("power", 0))
            bonus = {"power attack": power} if power else None
            if used.ranged:
                shot = shoot(self, c, target, used, mods, plan, label.strip(", "))
                if shot is not None:
                    return shot
                continue
            result = self.strike(
                c, target, used, mods, plan, label.strip(", "), off_hand, damage_bonus=bonus
            )
            if result == "countered":
                break
        return None

    def charge(self, c: Combatant, plan: Plan) -> str | None:
        """A charge: the moves, then one attack by attaque en force at +4 to hit and to
        damage, the weapon's damage doubled (x4 on a critical) (Loreval, "Charge")."""
        target = plan.target
        if not self.standing(target):
            return f"{target} is out of the fight"
        assert target is not None
        return self.charge_attack(c, target, plan)

    def charge_attack(self, c: Combatant, target: str, plan: Plan) -> str | None:
        sheet: Sheet = c.sheet
        status: Status = c.status
        weapon = status.weapon
        units = int(plan.params.get("moves", 0)) + int(plan.params.get("free_move", 0))
        self.move_toward(c, target, units * sheet.speed, CONTACT)
        if not within(self.positions[c.id], self.positions[target], CONTACT):
            return f"{target} is out of reach"
        if self.received(c, target):
            return None
        mods = attack_modifiers(c, weapon, "strength", self.rnd, plan=plan, charge=True)
        mods["charge"] = CHARGE_BONUS
        bonus = {"charge": CHARGE_BONUS}
        if plan.params.get("power"):
            bonus["power attack"] = int(plan.params["power"])
        self.strike(
            c,
            target,
            weapon,
            mods,
            plan,
            "charge",
            False,
            damage_bonus=bonus,
            multiplier=2,
            critical_multiplier=4,
        )
        return None

    def received(self, charger: Combatant, target: str) -> bool:
        """A polearm receiving the charge strikes first, its damage doubled; a hit stops
        the charge (Loreval, "Réception de charge")."""
        for k in self.among((target,)) if self._aims is not None else self.planning("counter"):
            plan = self.plans[k.id]
            if (
                plan is None
                or plan.kind != "counter"
                or plan.params.get("how") != "receive"
                or k.id in self.used_counters
                or k.id in self.blocked
                or (plan.target is not None and plan.target != charger.id)
                or k.id != target
            ):
                continue
            self.used_counters.add(k.id)
            self.emit_counter_use(k, charger.id, "receive")
            weapon = k.status.weapon
            mods = attack_modifiers(k, weapon, weapon.skill, self.rnd, plan=plan)
            if plan.params.get("hypothetical"):
                mods["hypothetical"] = CHANGED_MALUS
            hit = self.strike(
                k, charger.id, weapon, mods, plan, "receiving the charge", False, multiplier=2
            )
            if hit == "hit" and self.standing(charger.id):
                self.block(charger.id, k.id, "receive")
                return True
            return not self.standing(charger.id)
        return False

    def charge_first(self, cid: str, plan: Plan) -> None:
        """A charge is a counter against its target: a charger who ended the last round
        running strikes before its target acts against it, unless that is a charge too
        (Loreval, "Initiative et charge")."""
        if plan.kind == "charge" or plan.target is None:
            return
        for c in self.planning("charge") if self._aims is None else self.among((plan.target,)):
            other = self.plans[c.id]
            if (
                other is None
                or other.kind != "charge"
                or other.target != cid
                or c.id != plan.target
                or c.id in self.resolved
                or c.id in self.blocked
                or c.status.momentum_round != self.rnd - 1
            ):
                continue
            before = len(self.events)
            self.charge_attack(c, cid, other)
            self.done(c.id, "its charge came first")
            hit = any(
                isinstance(e, AttackRolled) and e.actor == c.id and e.success
                for e in self.events[before:]
            )
            if hit and self.standing(cid):
                self.block(cid, c.id, "charge")

    def strike(
        self,
        c: Combatant,
        target: str,
        weapon: Weapon,
        mods: dict[str, int],
        plan: Plan | None,
        label: str,
        off_hand: bool,
        *,
        damage_bonus: Mapping[str, int] | None = None,
        multiplier: int = 1,
        critical_multiplier: int | None = None,
        cover: int = 0,
    ) -> str:
        """One attack roll (against a counter's roll when the defender counters), its
        critical confirmation and damage: "hit", "miss" or "countered"."""
        defender = self.state.combatants[target]
        target_status: Status = defender.status
        # self.located(c, target) asked only of an invisible target (always located else)
        if target_status.invisible and not self.located(c, target):
            return "miss"
        if target_status.invisible and "concealment" not in mods:
            mods["invisible"] = CONCEALMENT["total"]
        difficulty, against = passive_difficulty(
            self.state,
            defender,
            self.positions,
            self.rnd,
            None if self._aims is None else self.danger_scope(defender),  # None: small
        )
        malus = self.concert_malus.get(target, 0)
        difficulty += malus + cover
        if cover:
            against += f", cover +{cover}"
        counter = self.defensive_counter(c, defender)
        if counter is not None:
            difficulty, against = self.counter_roll(counter[0], counter[1], c, defender, counter[2])
        kind = plan.kind if plan is not None else "attack"
        heroic = plan is not None and plan.heroic
        if heroic and defender.sheet.heroism == 0:
            # the best result against a common foe, a sure critical: no die is rolled
            roll = 20
        else:  # against one touched by fate too, the die is rolled (Points d'héroïsme)
            roll = self.dice.roll(20, f"attack ({kind})", c.id)
        natural = roll
        added = sum(mods.values())
        total = roll + added
        if heroic and natural < weapon.critical:
            total = 20 + added  # the best score, not a natural 20
            hit = counter is None or total >= difficulty
        else:
            hit = natural == 20 or (natural != 1 and total >= difficulty)
        threat = hit and natural >= weapon.critical
        critical = False
        confirm = ctotal = 0
        if threat and heroic:
            critical = True
        elif threat:
            confirm = self.dice.roll(20, "critical confirmation", c.id)
            ctotal = confirm + added
            critical = confirm == 20 or (confirm != 1 and ctotal >= difficulty)
        self.last = (total, difficulty)
        shown: dict[str, int] = {}  # the modifiers that count (a loop: no comprehension's frame)
        for name, value in mods.items():
            if value:
                shown[name] = value
        self.events.append(
            AttackRolled(
                self.segment,
                c.id,
                kind,
                target,
                weapon.name,
                natural,
                total,
                difficulty,
                hit,
                threat,
                critical,
                shown,
                against,
                label,
            )
        )
        if threat and not heroic:
            self.emit(
                CriticalConfirmed(self.segment, c.id, target, confirm, ctotal, difficulty, critical)
            )
        if not hit:
            if counter is not None:
                self.block(c.id, counter[0].id, str(counter[1].params.get("how", "parry")))
                return "countered"
            return "miss"
        mult = multiplier
        if critical:
            mult = critical_multiplier or weapon.multiplier * multiplier
        self.damage(c, target, weapon, mult, off_hand, dict(damage_bonus or {}))
        return "hit"

    def action_die(
        self, c: Combatant, plan: Plan | None, purpose: str, foe: Combatant | None = None
    ) -> tuple[int, int, bool]:
        """The d20 of a roll of ``c``'s action, as (the die shown, the die counted, a
        sure success). A heroic action's rolls are successes (Loreval, "Action
        d'éclat"): with no foe, or against one without heroism points, no die is drawn
        and the best result, 20, is a sure success; against a holder of heroism points
        the die is drawn and counts as 20, which the foe's own roll may still beat
        ("Points d'héroïsme")."""
        if plan is None or not plan.heroic:
            roll = self.dice.roll(20, purpose, c.id)
            return roll, roll, False
        if foe is None or foe.sheet.heroism == 0:
            return 20, 20, True
        return self.dice.roll(20, purpose, c.id), 20, False

    def located(self, c: Combatant, target: str) -> bool:
        """Whether the attacker locates its target: always, unless the target is
        invisible; then it needs 2 in Environment and a detection roll (d20 + perception
        + Environment's modifier against ``detection_difficulty``), once per action and
        settlement (Loreval, "Camouflage", "Environnement")."""
        status: Status = self.state.combatants[target].status
        if not status.invisible:
            return True
        key = (c.id, target)
        if key in self.locations:
            return self.locations[key]
        environment = attention_scores(c, self.rnd).environment
        if environment < INVISIBLE_ENVIRONMENT:
            found = False
            self.emit(
                ActionWasted(
                    self.segment,
                    c.id,
                    "attack",
                    f"{target} is invisible: locating it needs 2 in Environment",
                )
            )
        else:
            sheet: Sheet = c.sheet
            mods = {
                "perception": sheet.skill("perception"),
                "perception lost": -c.status.perception_malus,
                "environment": perception_modifier(environment),
                "extra moves": movement_modifier(round_moves(c, self.rnd)),
            }
            roll = self.dice.roll(20, f"detection ({target})", c.id)
            total = roll + sum(mods.values())
            difficulty = self.rules.detection_difficulty
            found = total >= difficulty
            shown = {k: v for k, v in mods.items() if v}
            self.emit(
                CheckRolled(
                    self.segment,
                    c.id,
                    f"detection (invisible {target})",
                    roll,
                    total,
                    difficulty,
                    found,
                    shown,
                )
            )
        self.locations[key] = found
        return found

    def block(self, cid: str, by: str, how: str) -> None:
        if cid in self.blocked:
            return
        self.blocked.add(cid)
        self.emit(Countered(self.segment, cid, by, how))
        if how == "block" and status_of(self.fighter(cid)).locked_with is None:
            self.locked.update((cid, by))
            self.emit(Locked(self.segment, cid, by))

    def lock_choice(self, cid: str, dropped: bool) -> None:
        """The locked assailant's choice, made at once: dropping its weapon frees both
        fighters (Loreval, "Bloquer une attaque")."""
        status = status_of(self.fighter(cid))
        other = status.locked_with
        if other is None:
            return
        self.emit(LockChoice(self.segment, cid, other, status.weapon.name, dropped))
        if dropped:
            self.emit(WeaponLost(self.segment, cid, status.weapon.name, "dropped to get free"))
            self.locked.difference_update((cid, other))
            self.emit(Locked(self.segment, cid, other, locked=False))

    def break_lock(self, cid: str) -> None:
        """The assailant locked by a block makes an opposed strength roll at its next
        step: winning frees both fighters (Loreval, "Bloquer une attaque")."""
        status: Status = self.state.combatants[cid].status  # (no calls: every resolution)
        other = status.locked_with
        if other is None or not status.lock_roll or not self.standing(other):
            return
        if strength_contest(self, self.fighter(cid), self.fighter(other), "breaking the lock"):
            self.locked.difference_update((cid, other))
            self.emit(Locked(self.segment, cid, other, locked=False))

    # -------------------------------------------------------- counters

    def emit_counter_use(self, k: Combatant, countered: str, how: str) -> None:
        """Counters that roll nothing of their own (a strike, a charge, receiving a
        charge: their roll is the attack that follows) are marked used."""
        self.emit(CounterUsed(self.segment, k.id, countered, how, self.rnd))

    def defensive_counter(
        self, attacker: Combatant, defender: Combatant
    ) -> tuple[Combatant, Plan, int] | None:
        """The counter that answers this attack, if any: the defender's own defensive
        counter (against this attacker, hypothetical, or turned against this second
        assailant as a changed action at -2), or an ally's offensive parry."""
        if self._aims is None:
            aiming = self.planning("counter")
        else:
            aiming = self.aiming_at(attacker.id, defender.id)
        for k in aiming:  # (only a counter answers: a small fight looks at those alone)
            plan = self.plans[k.id]
            if (
                plan is None
                or plan.kind != "counter"
                or k.id in self.used_counters
                or k.id in self.blocked
                or k.id == attacker.id
            ):
                continue
            p = plan.params
            how = p.get("how")
            if how in ("resist", "counterspell"):
                continue  # they answer spells only
            hypothetical = bool(p.get("hypothetical"))
            malus = CHANGED_MALUS if hypothetical else 0
            if p.get("against") == "defensive" and k.id == defender.id:
                if plan.target == attacker.id or hypothetical:
                    return k, plan, malus
                aimed = lookup(self.plans, plan.target or "")
                if aimed is None or aimed.target != defender.id:
                    return k, plan, CHANGED_MALUS  # the expected assailant went elsewhere
            if (
                p.get("against") == "offensive"
                and how == "parry"
                and k.side == defender.side
                and (plan.target == attacker.id or hypothetical)
                and within(self.positions[k.id], self.positions[defender.id], CONTACT)
            ):
                return k, plan, malus
        return None

    def counter_roll(
        self, k: Combatant, plan: Plan, attacker: Combatant, defender: Combatant, malus: int
    ) -> tuple[int, str]:
        """A defence (parry, block) or reflex (dodge) roll whose result is the attacker's
        difficulty (Loreval, "Les différents contres")."""
        how = str(plan.params.get("how", "parry"))
        which = "reflex" if how == "dodge" else "defence"
        value, parts = defence_value(
            self.state, k, which, self.positions, self.rnd, self.danger_scope(k)
        )
        mods = {k2: v for k2, v in parts.items() if k2 != which}
        mods[which] = value - sum(mods.values()) - 10
        hypothetical = bool(plan.params.get("hypothetical"))
        if malus and hypothetical:
            mods["hypothetical"] = malus
        if how == "block":
            mods["block"] = BLOCK_MALUS
        if plan.changed or (malus and not hypothetical):
            # declared at a change step, or turned against a second assailant: either
            # way a changed action, -2 once (Loreval, "Types de contre")
            mods["changed action"] = CHANGED_MALUS
        mods["focus"] = focus_modifier(attention_scores(k, self.rnd).focus)
        roll = self.dice.roll(20, f"counter ({how})", k.id)
        total = roll + sum(mods.values())
        self.used_counters.add(k.id)
        self.emit(
            CounterRolled(
                self.segment,
                k.id,
                attacker.id,
                how,
                roll,
                total,
                {n: v for n, v in mods.items() if v},
                self.rnd,
            )
        )
        return total, f"{k.id}'s {how} roll"

    def countered_before(self, cid: str, plan: Plan) -> bool:
        """Offensive counters resolved before the action they answer: a strike, a charge
        or an obstruction (which only stops the moves). True if the fighter is blocked."""
        target_side = None
        combatants = self.state.combatants  # (self.fighter() without its calls)
        if plan.target is not None and plan.target in combatants:
            target_side = combatants[plan.target].side
        hostile = plan.kind in ("attack", "charge", "spell")
        moving = plan.kind in ("move", "charge") or bool(plan.params.get("moves"))
        me = combatants[cid]
        # (only a counter answers: a small fight looks at those alone)
        for k in self.planning("counter") if self._aims is None else self.aiming_at(cid):
            counter = self.plans[k.id]
            if (
                counter is None
                or counter.kind != "counter"
                or counter.params.get("against") != "offensive"
                or k.id in self.used_counters
                or k.id in self.blocked
                or k.side == me.side
            ):
                continue
            how = counter.params.get("how")
            if how not in ("strike", "charge", "obstruct"):
                continue
            if counter.target is not None and counter.target != cid:
                continue
            if counter.target is None and not (
                hostile and (target_side in (None, k.side) or plan.kind == "spell")
            ):
                continue
            if how == "obstruct" and not moving:
                continue
            if self.counter_strike(k, counter, cid, str(how), plan):
                return True
            if not self.standing(cid):
                return True
        return False

    def counter_strike(
        self, k: Combatant, counter: Plan, cid: str, how: str, countered: Plan | None = None
    ) -> bool:
        """An offensive counter made before the action it answers; True when it blocks
        the action (a hit; a caster hit keeps its spell if it wins a concentration
        roll)."""
        self.used_counters.add(k.id)
        weapon = k.status.weapon
        sheet: Sheet = k.sheet
        before_hp = lookup(self.hit_points, cid, 0)
        if how == "charge":
            self.emit_counter_use(k, cid, how)
            before = len(self.events)
            note = self.charge_attack(k, cid, counter)
            if note is not None:
                self.emit(CounterVoided(self.segment, k.id, cid, note, self.rnd))
                return False
            hit = any(
                isinstance(e, AttackRolled) and e.actor == k.id and e.success
                for e in self.events[before:]
            )
            if hit and countered is not None and countered.kind == "spell":
                return not self.concentrates(cid, countered, before_hp - self.hit_points[cid])
            return hit
        moves = int(counter.params.get("moves", 0))
        if not weapon.ranged:
            if moves:
                self.move_toward(k, cid, moves * sheet.speed, CONTACT)
            if not within(self.positions[k.id], self.positions[cid], CONTACT):
                self.emit(
                    CounterVoided(self.segment, k.id, cid, f"{cid} is out of reach", self.rnd)
                )
                return False
        skill = "skilful" if how == "obstruct" else weapon.skill
        mods = attack_modifiers(k, weapon, skill, self.rnd, plan=counter)
        if counter.params.get("hypothetical"):
            mods["hypothetical"] = CHANGED_MALUS
        if how == "obstruct":
            defender = self.fighter(cid)
            value, _ = defence_value(
                self.state,
                defender,
                "reflex",
                self.positions,
                self.rnd,
                self.danger_scope(defender),
            )
            roll = self.dice.roll(20, "counter (obstruct)", k.id)
            total = roll + sum(mods.values())
            self.emit(
                CounterRolled(
                    self.segment,
                    k.id,
                    cid,
                    how,
                    roll,
                    total,
                    {n: v for n, v in mods.items() if v},
                    self.rnd,
                )
            )
            if roll == 20 or (roll != 1 and total >= value):
                self.no_move.add(cid)
                self.emit(Countered(self.segment, cid, k.id, "obstruct: no move this round"))
            return False
        self.emit_counter_use(k, cid, how)
        result = self.strike(k, cid, weapon, mods, counter, "counter", False)
        if result == "hit" and self.standing(cid):
            hurt = before_hp - self.hit_points[cid]
            if (
                countered is not None
                and countered.kind == "spell"
                and self.concentrates(cid, countered, hurt)
            ):
                return False
            self.block(cid, k.id, how)
            return True
        return False

    def concentrates(self, cid: str, spell: Plan, damage: int) -> bool:
        """A caster hurt by a counter finishes its spell only if it wins a concentration
        roll against 10 + the damage taken + the spell's level (Loreval, "Lancer un
        sort et Contre"); unhurt, it casts. The roll: d20 + concentration + the armour's
        malus + Focus's modifier + the malus of extra moves."""
        if damage <= 0:
            return True
        c = self.fighter(cid)
        sheet: Sheet = c.sheet
        mods = {
            "concentration": sheet.skill("concentration"),
            "armour": sheet.body_malus,
            "focus": focus_modifier(attention_scores(c, self.rnd).focus),
            "extra moves": movement_modifier(spell.extra_moves),
            "changed action": CHANGED_MALUS if spell.changed else 0,
        }
        difficulty = 10 + damage + int(spell.params.get("level", 0))
        roll = self.dice.roll(20, "concentration", cid)
        total = roll + sum(mods.values())
        success = total >= difficulty
        shown = {k: v for k, v in mods.items() if v}
        self.emit(
            CheckRolled(self.segment, cid, "concentration", roll, total, difficulty, success, shown)
        )
        return success

    # -------------------------------------------------------- damage

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
        dice = self.dice
        sides, count = weapon.damage.sides, weapon.damage.count
        purpose = f"damage ({weapon.name})"  # (made once: the same words for every die)
        for _ in range(multiplier):
            for _ in range(count):  # (loops: no comprehension's frame)
                rolls.append(dice.roll(sides, purpose, attacker.id))
        mods: dict[str, int] = {
            "weapon": weapon.damage.bonus * multiplier,
            "strength": strength_damage(sheet, weapon, off_hand) * multiplier,
        }
        mods.update(bonus)
        for name, rank in self.sneak(attacker, target):
            rolls += [self.dice.roll(6, name, attacker.id) for _ in range(rank)]
        amount = max(1, sum(rolls) + sum(mods.values()))
        self.hurt(attacker, target, weapon.name, tuple(rolls), amount, mods, multiplier)

    def hurt(
        self,
        attacker: Combatant,
        target: str,
        what: str,
        rolls: tuple[int, ...],
        amount: int,
        mods: Mapping[str, int],
        multiplier: int = 1,
    ) -> None:
        """Damage taken: a heroism point may cancel a deadly blow; at 0 hit points or
        fewer the fighter is out of the fight."""
        left = self.hit_points[target] - amount
        defender = self.fighter(target)
        if left <= 0 and self.rules.heroism_saves and self.heroism[target] > 0:
            self.heroism[target] -= 1
            self.emit(HeroismSaved(self.segment, target, attacker.id, amount))
            return
        self.hit_points[target] = left
        shown: dict[str, int] = {}  # the modifiers that count (a loop: no comprehension's frame)
        for name, value in mods.items():
            if value:
                shown[name] = value
        self.events.append(
            Damaged(self.segment, target, attacker.id, what, rolls, amount, left, multiplier, shown)
        )
        if left <= 0 and target not in self.out and defender.in_fight:
            self.out.add(target)
            self.emit(OutOfFight(self.segment, target, "0 hit points or fewer"))
            self.let_go(target)

    def let_go(self, cid: str) -> None:
        """A fighter out of the fight holds nobody and is held by nobody any more."""
        if HOLDS not in self.state.extra:
            for e in self.events:  # (a loop: no generator's frame)
                if isinstance(e, (Grappled, Locked)):
                    break
            else:
                return  # nobody has ever held or locked anyone in this fight (a battle)
        holds = {(c.id, c.status.holding) for c in self.state.combatants.values()}
        for e in self.events:
            if isinstance(e, Grappled):
                pair = (str(e.actor), e.held)
                if e.hold == "released":
                    holds.discard(pair)
                else:
                    holds.add(pair)
        for holder, held in sorted(h for h in holds if h[1] is not None):
            if cid in (holder, held):
                self.emit(Grappled(self.segment, holder, str(held), "released"))
        locks = {
            (c.id, other)
            for c in self.state.combatants.values()
            if (other := c.status.locked_with) is not None and c.status.lock_roll
        }
        for e in self.events:
            if isinstance(e, Locked):
                pair = (str(e.actor), e.other)
                if e.locked:
                    locks.add(pair)
                else:
                    locks.discard(pair)
        for a, b in sorted(locks):
            if cid in (a, b):
                self.locked.difference_update((a, b))
                self.emit(Locked(self.segment, a, str(b), locked=False))

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
        for c in self.state.against(None):
            if c.id in self.out:
                continue
            status: Status = c.status
            plan = self.plans[c.id]
            cost = 0
            if plan is not None and plan.kind != "grace":
                cost = status.initiative if plan.heroic else plan.spent
            spent[c.id] = cost
            points[c.id] = max(0, status.initiative - cost)
        self.emit(RoundEnded(self.segment, None, rnd, spent))
        t = self.segment + 1
        grace: dict[str, str] = {}
        for c in self.state.against(None):
            if c.id in self.out:
                continue
            status = c.status
            plan = self.plans[c.id]
            chose = plan is not None and plan.kind == "grace"
            if (status.grace and status.grace != "joined") or chose:  # a grace round ends
                malus = -2 if chose and plan is not None and plan.changed else 0
                event, points[c.id] = initiative_roll(self.dice, c, t, malus)
                self.emit(event)
            if plan is not None and plan.heroic:
                grace[c.id] = "heroic"
            elif points[c.id] == 0:
                grace[c.id] = "forced"
        self.emit(round_started(self.state, self.dice, rnd + 1, t, points, grace))
