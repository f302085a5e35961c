"""Rounds, initiative order and the steps of a round on the segment clock (Loreval,
"Déroulement d'un round de combat", "Initiative, renouvellement de l'initiative...").

A round lasts 60 segments by default (a D&D 3 round of 6 s; RULES-NOTES "Time"): round
``n`` (from 1) covers segments ``60 (n - 1) .. 60 n - 1``. Its steps follow each other
from its first segment, one fighter at a time, each a ``turn`` action the rules declare:

1. *declare*: in ascending order of initiative, each fighter declares its action of the
   round (and its attention) in a step of one segment, having seen every declaration
   made before it;
2. *resolve*: in descending order, each fighter's action is resolved at the end of its
   step (a few segments: the rest of the round shared among the steps left, at most
   ``resolve_segments``);
3. *change*: a fighter whose action cannot be carried out any more (its target fell)
   may declare a changed action in a step of one segment right after its own;
4. *lock*: an assailant locked by a block chooses at once, in a step of one segment,
   whether to drop its weapon to get free (Loreval, "Bloquer une attaque").

Every fighter waits for its steps with an ``await`` that ends with the round, so the
round's end always comes: the points spent are taken, grace rounds roll initiative
again, and the next round begins. A round is never cut: when its steps are not over at
its last segment (a fight too big for it), it goes on until they are, and ends in the
segment after its last step (an *end* step when nothing else settles there); the
statuses keep the round in progress and where it began (:func:`current_round`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from segsim.rules.loreval.status import Status

if TYPE_CHECKING:
    from segsim.state import Combatant, FightState

ROUND_SEGMENTS = 60
TURN = "turn"
AWAIT = "await"
TURN_CHANNEL = "turn"
ACT_CHANNEL = "act"
DECLARE = "declare"
HEROIC = "heroic"
RESOLVE = "resolve"
CHANGE = "change"
LOCK = "lock"
END = "end"
HEROIC_POINTS = 6
"""A heroic action needs at least 6 initiative points left (Loreval, "Action d'éclat")."""


def round_of(segment: int, length: int) -> int:
    """The round (from 1) a segment belongs to."""
    return segment // length + 1


def round_start(rnd: int, length: int) -> int:
    """Where round ``rnd`` begins when no round before it stretched."""
    return (rnd - 1) * length


def current_round(state: FightState, segment: int, length: int) -> tuple[int, int]:
    """The round in progress and the segment it began at, as the last round's start
    recorded them (a round stretches when its steps need more than its length)."""
    for c in state.combatants.values():
        if c.in_fight:
            status: Status = c.status
            if status.round:
                return status.round, status.round_start
    rnd = round_of(segment, length)
    return rnd, round_start(rnd, length)


def status_of(c: Combatant) -> Status:
    status: Status = c.status
    return status


def rank_key(c: Combatant) -> tuple[int, int, int, int]:
    """Who acts first: the most initiative points at the start of the round, then the
    higher dexterity, then the round's tie-break die (not part of the points), then the
    scenario order (Loreval, "Initiative...")."""
    status: Status = c.status
    return (-status.start_points, -c.sheet.characteristics["dexterity"], -status.tie, c.order)


def action_order(state: FightState) -> list[Combatant]:
    """Fighters in the fight in the order their actions resolve (descending)."""
    return sorted(state.against(None), key=rank_key)


def next_step(state: FightState, rnd: int) -> tuple[Combatant, str] | None:
    """The fighter whose step comes next in round ``rnd`` and its kind (None: the round
    has nothing left but waiting for its end)."""
    fighters = state.against(None)
    # One pass for the locks (the first wins at once), the first change and the
    # highest of those still to declare (rank keys are unique: c.order is)
    change = declare = None
    best: tuple[int, int, int, int] | None = None
    for c in fighters:
        status: Status = c.status
        if status.lock_choice:
            return c, LOCK
        if change is None and status.change_round == rnd and waits_for(state, c, rnd) is None:
            change = c
        if status.declared_round < rnd:
            # rank_key(c), without its call (once a fighter still to declare)
            key = (
                -status.start_points,
                -c.sheet.characteristics["dexterity"],
                -status.tie,
                c.order,
            )
            if best is None or key > best:
                declare, best = c, key
    if change is not None:
        return change, CHANGE
    if declare is not None:
        return declare, DECLARE
    # One pass for the highest offered a heroic action and, while none is, the first to
    # resolve: both only of those who declared this round and have not resolved yet
    # (may_go_heroic() and _to_resolve(), without a call for every fighter)
    hero = first = None
    hero_key: tuple[int, int, int, int] | None = None
    first_key: tuple[int, tuple[int, int, int, int]] | None = None
    for c in fighters:
        status = c.status
        if status.declared_round != rnd or status.resolved_round >= rnd:
            continue
        if (
            status.heroism > 0
            and status.initiative >= HEROIC_POINTS
            and not status.grace
            and status.heroic_asked_round < rnd
        ):
            key = rank_key(c)
            if hero_key is None or key > hero_key:
                hero, hero_key = c, key
        elif hero is None:
            # _to_resolve(state, c, rnd), without its call (its first test passed above)
            plan = status.plan
            partner = plan.params.get("concert") if plan is not None else None
            if isinstance(partner, str):
                p = state.combatants.get(partner)
                if p is not None and p.in_fight:
                    ps: Status = p.status
                    if ps.declared_round == rnd and ps.resolved_round < rnd:
                        continue  # resolves with its partner, at the partner's step
            # resolve_key(c), without its calls
            order = (
                int(not (plan is not None and plan.heroic)),
                (
                    -status.start_points,
                    -c.sheet.characteristics["dexterity"],
                    -status.tie,
                    c.order,
                ),
            )
            if first_key is None or order < first_key:
                first, first_key = c, order
    if hero is not None:
        return hero, HEROIC
    if first is not None:
        return first, RESOLVE
    return None


def waits_for(state: FightState, c: Combatant, rnd: int) -> Combatant | None:
    """The fighter whose new declaration a voided counter waits for: the counterer
    declares its new action after the one it meant to counter (Loreval, "Modifier son
    action")."""
    plan = c.status.plan
    if plan is None or plan.kind != "counter" or plan.target is None:
        return None
    other = state.combatants.get(plan.target)
    if other is None or not other.in_fight or other is c:
        return None
    return other if other.status.change_round == rnd else None


def voided_on(state: FightState, cid: str, rnd: int) -> bool:
    """Whether a counter voided by ``cid``'s change still waits for its new declaration."""
    return any(
        waits_for(state, c, rnd) is state.combatants[cid]
        for c in state.against(None)
        if c.id != cid and c.status.change_round == rnd
    )


def resolve_order(state: FightState, rnd: int) -> list[Combatant]:
    """Fighters whose resolve steps are still to come, in the order they come."""
    return sorted((c for c in state.against(None) if _to_resolve(state, c, rnd)), key=resolve_key)


def may_go_heroic(c: Combatant, rnd: int) -> bool:
    """Offered a heroic action this round: a heroism point, 6 points left, not in a
    grace round, not yet asked (Loreval, "Action d'éclat")."""
    status: Status = c.status
    return (
        status.heroism > 0
        and status.initiative >= HEROIC_POINTS
        and not status.grace
        and status.declared_round == rnd
        and status.resolved_round < rnd
        and status.heroic_asked_round < rnd
    )


def resolve_key(c: Combatant) -> tuple[int, tuple[int, int, int, int]]:
    """Heroic actions first, then descending initiative."""
    status: Status = c.status
    plan = status.plan
    return (int(not (plan is not None and plan.heroic)), rank_key(c))


def _to_resolve(state: FightState, c: Combatant, rnd: int) -> bool:
    status: Status = c.status
    if status.declared_round != rnd or status.resolved_round >= rnd:
        return False
    plan = status.plan
    partner = plan.params.get("concert") if plan is not None else None
    if isinstance(partner, str):
        # a concerted action resolves with the partner it joined, at the step of the
        # last of a chain of partners (Loreval, "Action concertée"): it has no step of
        # its own while that partner's action waits
        p = state.combatants.get(partner)
        if p is not None and p.in_fight:
            ps: Status = p.status
            if ps.declared_round == rnd and ps.resolved_round < rnd:
                return False
    return True


def steps_left(state: FightState, rnd: int) -> int:
    """Resolve steps still to come in the round (for sharing out its segments)."""
    left = 0  # (a loop: no generator's frame)
    for c in state.against(None):
        status: Status = c.status
        if status.resolved_round < rnd and status.change_round != rnd:
            left += 1
    return left


def turn_in_progress(state: FightState) -> bool:
    return any(a.kind == TURN for c in state.against(None) for a in c.actions)
