"""Built-in RinKaNou policies: an aggressive attacker and a defender.

They use only what the observation shows: an opponent's motion and its start segment,
never its hidden kind or end. Both handle situation points: a negative score is bought
back (the attacker by striking slower, the defender by taking a malus so its timing
holds), and the defender spends points to shorten a late dodge or to dodge two blows.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from functools import lru_cache

from segsim.actions import Declaration, DeclarationLike, PolicyOutput
from segsim.actions import shared_declaration as shared_table_declaration
from segsim.native import mypyc_attr
from segsim.policy import Observation, register_policy
from segsim.rules.rinkanou.decisions import (
    _NO_SEGMENTS,
    _PARRY_PS,
    DRAW_MELEE,
    DRAW_RANGED,
    READY,
    SHAPES,
    _approach,
    _defended,
    _hands_busy,
    _strike_or_arm,
    advance,
    approach,
    buy_back_amounts,
    ps_spent,
    seen_blow_lands,
    shared_declaration,
)
from segsim.rules.rinkanou.ruleset import DODGE_SEGMENTS, REACH_TOLERANCE, RinKaNou, within
from segsim.rules.rinkanou.views import (
    MOTION,
    OtherView,
    SelfView,
    _coming,
    closest,
    reach_of,
)
from segsim.state import Combatant, FightState


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive:
    """Attacks the nearest opponent again and again: arm, strike, (lock), repeat; walks
    into reach first."""

    name = "aggressive"
    reactive = False

    def __init__(self) -> None:
        self.last: dict[str, object] = {}

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        near = me.nearest_at()  # its id and position: no view of it is built
        if near is None:
            return advance(obs, self.last)
        # within(), without its call (once a decision)
        if math.dist(me.position, near[1]) > me.reach + REACH_TOLERANCE:
            return _approach(obs, near[0], self.last)  # (its view is not needed)
        return _strike_or_arm(me, near[0])

    def unconcerned(
        self, rules: RinKaNou, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """Whether, called to a phase it need not act in (the engine asks: see
        :func:`segsim.fight.unconcerned_hook`; most often the end of its strike, its
        forced lock begun), it would declare nothing and change nothing: its hands are
        busy (a lock due, or an action of the hands), so it neither strikes nor arms;
        and its legs are busy, or its nearest opponent stands within its reach, so it
        does not walk (:meth:`decide`'s steps, read straight from the fight state; with
        an awareness radius it decides). For this class alone: a subclass may decide
        otherwise."""
        if rules.awareness is not None or type(self) is not Aggressive:
            return False
        c = state.combatants[cid]
        hands = c.status.must_lock
        legs = False
        for a in c.actions:
            if not a.continuous:
                channel = a.channel
                if channel == "hands":
                    hands = True
                elif channel == "legs":
                    legs = True
        if not hands:
            return False
        if legs:
            return True
        kept = state._against.get(c.side)  # its view's opponents (all in view)
        seen = kept if kept is not None else state.against(c.side)
        if not seen:
            return False  # it would advance (decide's advance())
        # The nearest (SelfView.nearest_at's: only its distance counts) and its reach.
        o = seen[0] if len(seen) == 1 else closest(c.position, seen)
        assert o is not None
        reach = rules._fighter_reaches.get(c)
        if reach is None:
            reach = reach_of(rules, c)
        return math.dist(c.position, o.position) <= reach + REACH_TOLERANCE


def _waiting_until(c: Combatant, start: int) -> bool:
    """Whether ``c`` already waits until segment ``start`` (the wait a defender declares
    for a defence it must start then)."""
    return any(a.kind == "wait" and a.params.get("until") == start for a in c.actions)


def _dodge_waited(c: Combatant, defend_at: int, segment: int) -> bool:
    """Whether a dodge of the blow landing at ``defend_at`` is not due yet at ``segment``
    and already waited for: then a defender's decision would declare nothing new (due
    now or hurried, it decides)."""
    if defend_at - segment + 1 <= DODGE_SEGMENTS:
        return False
    return _waiting_until(c, defend_at - DODGE_SEGMENTS + 1)


@mypyc_attr(allow_interpreted_subclasses=True)
class Defender:
    """Stays on guard (a blow armed), times a defence to end in the segment a seen blow
    should land, and ripostes while the attacker locks after its strike.

    The defence is a shield parry when it has a shield; otherwise a dodge, which keeps
    the armed blow for the riposte (``prefer="parry"`` parries with the weapon instead,
    spending a PS on parry force when it can). A dodge seen late is shortened with PS
    when the score allows; two blows landing together are dodged with a multiple dodge.
    """

    name = "defender"
    reactive = True

    def __init__(self, prefer: str = "dodge") -> None:
        self.missile = False
        if prefer not in ("dodge", "parry"):
            raise ValueError(f"prefer is 'dodge' or 'parry', not {prefer!r}")
        self.prefer = prefer
        if prefer == "parry":
            self.name = "parrier"
        self.defend_at: int | None = None
        self.blows = 1
        self.last: dict[str, object] = {}
        # False: its defences, waits and steps alone, without the strikes and armings
        # (an archer's guard, which would not keep them).
        self.attacks = True

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        segment = obs.segment
        here = me.position
        # The segments in which seen blows (of those within their reach of it) and
        # missiles land, from now on.
        landings: list[int] = []
        threat = motion = None  # the last threat and its weapon motion (a duel's only)
        for threat in me.threats():
            motion = threat.motion("weapon")
            # _landing(threat, motion), what it and blow_lands do, without their calls
            if motion is None:
                continue
            kind = motion.kind
            if kind == "lock" or kind == "parry":
                continue
            ends = motion.ends_in
            if ends is not None:  # read, or public
                t = ends if kind == "strike" else ends + threat.weapon.speed
            elif threat.armed:
                t = motion.start + threat.weapon.speed - 1
            else:
                t = motion.start + 2 * threat.weapon.speed - 1
            if t >= segment:
                landings.append(t)
        missile = False
        incoming = me._incoming  # () when nothing was in flight: no call to say so
        if incoming is None:
            incoming = me.incoming()
        if incoming:  # (no iterator over nothing: most decisions)
            for a in incoming:
                if a.ends_in is not None:
                    missile = True
                    if a.ends_in >= segment:
                        landings.append(a.ends_in)
        self.missile = missile
        # The segments the defences in progress meet, looked for only when weighed:
        # _defended(me.actions), what it does without its call (no set made when none).
        covered: AbstractSet[int | None] = _NO_SEGMENTS
        awaited = self.defend_at
        if landings or (awaited is not None and awaited >= segment):
            found: set[int | None] | None = None
            for mine in me.actions:
                if mine.kind == "parry" or mine.kind == "dodge":
                    if found is None:
                        found = set()
                    found.add(mine.last)
            if found is not None:
                covered = found
        if landings:  # those a defence in progress does not already meet
            if covered:
                landings = [t for t in landings if t not in covered]
            if landings:
                if len(landings) == 1:  # (most often: min() and count() without calls)
                    first, count = landings[0], 1
                else:
                    first = min(landings)
                    count = landings.count(first)
                if self.defend_at is None or first < self.defend_at:
                    self.defend_at = first
                    self.blows = count
        defend_at = self.defend_at
        if defend_at is not None and (defend_at < segment or defend_at in covered):
            self.defend_at = None  # past, or already met by a defence in progress
        # What it declares: at most a defence (or a wait for it), then an attack or a
        # guard (two names rather than a list: most decisions declare one thing or none).
        defending: Declaration | None = None
        attacking: Declaration | None = None
        hands_planned = False
        spent = 0
        if self.defend_at is not None:
            start, defence = self.plan(obs, self.defend_at)
            if defence is not None and start == segment:
                defending = defence
                self.defend_at = None
                hands_planned = defence.kind == "parry"
                spent = ps_spent(defence)
            elif start > segment:
                for action in me.actions:
                    if action.kind == "wait" and action.params.get("until") == start:
                        break  # already waiting for it
                else:
                    defending = shared_declaration("wait", None, ("until",), (), start)
        # The nearest opponent's view is built only if it can be read: an archer's
        # guard (no attacks) reads it only when bound to act.
        target: OtherView | None = None
        if self.attacks or obs.must_act:
            near = me._near  # nearest(), without its call when threats() found it already
            target = me.nearest() if near is False else near
        dist = math.dist  # within(), without its calls
        if (
            obs.must_act
            and defending is None
            and (target is None or dist(here, target.position) > 2 * me.reach + REACH_TOLERANCE)
        ):
            step = advance(obs, self.last) if target is None else approach(obs, target, self.last)
            return step
        if not self.attacks:
            # An archer's guard: of the attacks below, only a step toward the target
            # (which may be a wait, when the last one got nowhere) is kept; it is taken
            # when armed, bound to act, with no defence declared and out of reach (a
            # lock seen makes no difference there).
            if (
                target is not None
                and not hands_planned
                and self.defend_at is None
                and me.armed
                and obs.must_act
                and defending is None
                and not within(here, target.position, me.reach)
            ):
                attacking = approach(obs, target, self.last)
        elif target is not None and not hands_planned and self.defend_at is None:
            if target is not threat:
                motion = target.motion("weapon")
            opening = motion is not None and motion.kind == "lock"
            if opening and dist(here, target.position) <= me.reach + REACH_TOLERANCE:
                attacking = _strike_or_arm(me, target.id, spent)
            elif not me.armed:
                attacking = _strike_or_arm(me, target.id, spent)  # arms: on guard
            elif obs.must_act and defending is None:
                # Nothing coming and nothing else to do: take the initiative rather than
                # wait on an opponent who may be waiting too.
                if within(here, target.position, me.reach):
                    attacking = _strike_or_arm(me, target.id, spent)
                else:
                    attacking = approach(obs, target, self.last)
        if attacking is None:
            return defending  # one declaration: the same as a list of one
        if defending is None:
            return attacking
        return [defending, attacking]

    def unconcerned(
        self, rules: RinKaNou, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """Whether, called to a phase it need not act in (the engine asks: see
        :func:`segsim.fight.unconcerned_hook`; most often an opponent's action begun or
        ended), it would declare nothing and change nothing but what it changes here
        (:meth:`decide`'s steps, read straight from the fight state, on the safe side):
        no missile is in flight; no opponent within its own reach of it shows a weapon
        motion that could land (anything but a lock or a parry seen as such) from now
        on and that no defence in progress meets (where it lands worked out as the
        decision does), before the defence it awaits if any (a later one changes
        nothing: the decision keeps the first); the defence it awaits (``defend_at``),
        unless past or met by a defence in progress (then forgotten here, as the
        decision forgets it), is a dodge or a shield's parry not due yet and already
        waited for, one begun too late, or one its busy legs or shield leave for later
        (parrying with its weapon, it decides); and with no defence awaited, its hands
        are busy (a lock due, or an action of the hands), so it neither ripostes nor
        arms, or it is armed and no opponent within its reach shows a lock (an opening
        for its riposte). With an awareness radius it decides; and for this class alone
        (a subclass may decide otherwise)."""
        if state.autonomous or rules.awareness is not None or type(self) is not Defender:
            return False
        c = state.combatants[cid]
        covered: AbstractSet[int | None] | None = None  # its defences' ends, once found
        awaited = defend_at = self.defend_at
        if defend_at is not None:
            covered = _defended(c.actions)
            if defend_at < segment or defend_at in covered:
                defend_at = None  # past, or met by a defence in progress: forgotten
        mine = -1.0  # no riposte looked for: its hands busy, or a defence awaited
        if defend_at is None:
            busy = c.status.must_lock  # _hands_busy(c), without its call:
            if not busy:
                for a in c.actions:
                    if a.channel == "hands" and not a.continuous:
                        busy = True
                        break
            if not busy:
                if not c.status.armed:
                    return False  # it arms
                # Armed, its hands free: it strikes only into an opening (a lock of its
                # nearest opponent, within its reach), looked for below on the safe side.
                mine = reach_of(rules, c) + REACH_TOLERANCE
        here = c.position
        reaches = rules._fighter_reaches
        revealed = c.status.revealed  # what it has read of the others' actions
        kept = state._against.get(c.side)  # its view's opponents (all in view)
        for o in kept if kept is not None else state.against(c.side):
            apart = math.dist(o.position, here)
            if apart <= mine:
                for a in o.actions:  # any lock it may see, of any opponent in its reach
                    if a.kind == "lock" and a.visible:
                        return False
            reach = reaches.get(o)
            if reach is None:
                reach = reach_of(rules, o)
            if apart > reach + REACH_TOLERANCE:
                continue  # no threat (SelfView.threats)
            for a in o.actions:  # a weapon motion that may land (expected_landing)
                # Where, as the decision expects it: seen_blow_lands(a, o, revealed) and
                # its blow_lands, what they do without their calls.
                if not a.visible or MOTION.get(a.kind) != "weapon":
                    continue  # no blow
                kind: str | None
                ends: int | None
                if a.public:
                    kind, ends = a.kind, a.last
                elif revealed and a.id in revealed:
                    kind, _, ends = revealed[a.id]
                else:
                    kind = ends = None
                if kind == "lock" or kind == "parry":
                    continue  # no blow
                if ends is not None:  # read, or public
                    t = ends if kind == "strike" else ends + o.sheet.weapon.speed
                elif o.status.armed:
                    t = a.start + o.sheet.weapon.speed - 1
                else:
                    t = a.start + 2 * o.sheet.weapon.speed - 1
                if t < segment:
                    continue  # past
                if covered is None:
                    covered = _defended(c.actions)
                if t not in covered and (awaited is None or t < awaited):
                    return False  # a defence to plan (one after that awaited: no change)
        if defend_at is not None:
            # The defence awaited (Defender.plan's): a shield's parry (with the shield in
            # hand and whole; no missile, as none flies) or a dodge, declared when it
            # must start to end as the blow lands, waited for until then; none now with
            # the shield or the legs busy, nor a parry begun too late. (Parrying with
            # the weapon: it decides.)
            status = c.status
            shield = c.sheet.shield
            if shield is not None and status.shield_pr > 0 and not status.shield_aside:
                for a in c.actions:
                    if a.channel == "shield" and not a.continuous:
                        break  # the shield busy: no parry now
                else:
                    start = defend_at - shield.speed + 1
                    if start == segment:
                        return False  # due now: it parries
                    if start > segment and not _waiting_until(c, start):
                        return False
            elif self.prefer != "dodge":
                return False
            else:
                for a in c.actions:
                    if a.channel == "legs" and not a.continuous:
                        break  # its legs busy: no dodge now
                else:
                    if not _dodge_waited(c, defend_at, segment):
                        return False
        else:
            self.defend_at = None  # (forgotten, as decide() forgets it)
        return True

    def plan(self, obs: Observation, land: int) -> tuple[int, Declaration | None]:
        """When to start which defence so that it ends in ``land``."""
        me: SelfView = obs.me
        shield = me.sheet.shield
        status = me._c.status  # its own, read straight (as its live fields would, now)
        if (
            shield is not None
            and status.shield_pr > 0
            and not status.shield_aside
            and not self.missile
        ):
            if me.doing("shield") is not None:
                return -1, None
            # A point on parry force when one is usable (only a positive score has any),
            # and a negative score bought back as buy_back does, keeping the timing: a
            # malus. The declaration is a shared one of its shape (checked once).
            _, malus = buy_back_amounts(status.ps, shield.speed, True)
            force = 1 if status.ps > 0 and me.usable_ps >= 1 else None
            parry = shared_declaration("parry", None, ("with",), _PARRY_PS, "shield", force, malus)
            return land - shield.speed + 1, parry
        speed = me.weapon.speed
        parrying = (
            self.prefer == "parry" and me.weapon_pr > 0 and not me.must_lock and not self.missile
        )
        if parrying and me.armed and me.doing("hands") is None:
            start = land - speed + 1
            if start >= obs.segment:
                # (as the shield's parry above)
                _, malus = buy_back_amounts(status.ps, speed, True)
                force = 1 if status.ps > 0 and me.usable_ps >= 1 else None
                return start, shared_declaration("parry", None, (), _PARRY_PS, force, malus)
        for a in me.actions:  # me.doing("legs"), without its call
            if a.channel == "legs" and not a.continuous:
                return -1, None
        left = land - obs.segment + 1  # segments available, this one included
        faster = 0
        if left < DODGE_SEGMENTS:
            faster = DODGE_SEGMENTS - left
            # (a score of 0 or less leaves nothing usable: faster is 1 or more here)
            if faster > math.ceil(DODGE_SEGMENTS / 2) or status.ps <= 0 or me.usable_ps < faster:
                return -1, None
        elif left > DODGE_SEGMENTS:
            return land - DODGE_SEGMENTS + 1, None
        command_points = status.command_points
        if self.missile and command_points > 0:
            # Against missiles command points serve: a multiple dodge or a bonus.
            pc: dict[str, int] = {}
            if self.blows > 1 and command_points >= self.blows - 1:
                pc["multiple"] = self.blows - 1
            left_pc = command_points - pc.get("multiple", 0)
            if left_pc > 0:
                pc["bonus"] = left_pc
            # (a shared declaration of its shape: checked once)
            return obs.segment, shared_table_declaration("dodge", None, {"pc": pc})
        multiple = None
        if self.blows > 1 and status.ps > 0 and me.usable_ps - faster >= self.blows - 1:
            multiple = self.blows - 1
        # buy_back, keeping the timing
        _, malus = buy_back_amounts(status.ps, DODGE_SEGMENTS, True)
        ps = ("faster", "multiple", "malus")
        return obs.segment, shared_declaration(
            "dodge", None, (), ps, faster or None, multiple, malus
        )


@mypyc_attr(allow_interpreted_subclasses=True)
class Archer:
    """Shoots the nearest opponent it can make out: draws its ranged weapon, readies it,
    looses, again; spends its command points on the roll. It dodges the missiles it sees
    coming, as the defender does. In melee reach it draws its melee weapon and fights
    like the aggressive policy."""

    name = "archer"
    reactive = True

    def __init__(self) -> None:
        self.guard = Defender()
        self.guard.attacks = False  # its strikes and armings would be dropped

    def decide(self, obs: Observation) -> PolicyOutput:
        # Its guard's dodges and waits (it declares a Declaration, a list of them, or
        # nothing; its strikes and armings are not asked for: they would be dropped).
        guard = self.guard.decide(obs)
        if guard is None:  # (most decisions) its shot alone: one declaration, not a list
            return self.shoot(obs)
        dodges: list[DeclarationLike] = []
        spent = 0  # PS the dodges spend
        dodging = False
        for d in guard if type(guard) is list else () if guard is None else (guard,):
            if isinstance(d, Declaration):
                kind = d.kind
                if kind == "dodge":
                    dodging = True
                elif kind != "wait":
                    continue
                dodges.append(d)
                if d.params.get("ps"):  # (ps_spent() has nothing to count otherwise)
                    spent += ps_spent(d)
        shot = self.shoot(obs, spent)
        if shot is None or (dodging and shot.kind == "move"):  # (the legs are dodging)
            if len(dodges) == 1:
                return dodges[0]  # the same as a list of one, which the engine plans slower
            return dodges or None
        dodges.append(shot)
        return dodges

    def unconcerned(
        self, rules: RinKaNou, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """Whether, called to this phase by what it saw alone (the engine asks: see
        :func:`segsim.fight.unconcerned_hook`), it would declare nothing: its hands are
        busy (reloading, loosing, locking...), so it does not shoot; no opponent within
        its own reach of it shows a weapon motion that lands from now on where no defence
        in progress meets it (anything but a lock or a parry seen as such, where it lands
        worked out as its guard does: the defender's test), so no blow is to be met; and
        the missiles it sees coming
        leave its guard nothing to declare now: each is met by a dodge in progress, or
        the first of the others is awaited by a wait already declared, or its legs are
        busy. Its guard then makes the changes its decision would (the landing it
        awaits, forgotten once met or past); anything else, and it is observed and
        decides as usual (Defender.decide and Defender.plan, whose steps these are).

        Read straight from the fight state: the missiles it sees are those of
        opponents in the fight who are not hidden (with an awareness radius, any
        missile at it, or any opponent within its reach, makes it decide), and any
        opponent in the fight within its reach counts, on the safe side (a decision
        weighs those it sees). Called otherwise
        (``called``: the end of its other action, a host), it decides as usual."""
        if called:
            return False
        c = state.combatants[cid]
        # Its actions in one pass (_hands_busy's, _defended's and the legs' tests,
        # without their calls): whether its hands and legs are busy, and the segments
        # in which its defences in progress end.
        hands = c.status.must_lock
        legs = False
        covered: set[int | None] | None = None
        for a in c.actions:
            if not a.continuous:
                channel = a.channel
                if channel == "hands":
                    hands = True
                elif channel == "legs":
                    legs = True
            kind = a.kind
            if kind == "dodge" or kind == "parry":
                duration = a.duration
                end = None if duration is None else a.start + duration - 1  # (Action.last)
                if covered is None:
                    covered = {end}
                else:
                    covered.add(end)
        if not hands:
            return False
        here = c.position
        reaches = rules._fighter_reaches
        dist = math.dist
        revealed = c.status.revealed  # what it has read of the others' actions
        kept = state._against.get(c.side)  # FightState.against(), without its call
        x = here[0]
        for o in kept if kept is not None else state.against(c.side):
            reach = reaches.get(o)
            if reach is None:
                reach = reach_of(rules, o)
            limit = reach + REACH_TOLERANCE
            at = o.position
            # Farther along x alone, it is no nearer (math.dist is never shorter than
            # a side: the same answer without its call, as for most far opponents).
            gap = at[0] - x
            if gap > limit or -gap > limit or dist(at, here) > limit:
                continue  # no threat (SelfView.threats)
            if rules.awareness is not None:
                return False  # what it makes out: asked of its view
            for a in o.actions:  # a weapon motion that may land (the defender's hook's test)
                t = seen_blow_lands(a, o, revealed)  # where, as its guard expects it
                if t is not None and t >= segment and (covered is None or t not in covered):
                    return False  # a blow to come that no defence in progress meets
        # The missiles it sees coming (SelfView.incoming's), as its guard weighs them:
        # where they land from now on, those no defence in progress meets.
        guard = self.guard
        defend_at = guard.defend_at
        blows = guard.blows
        missile = False
        if state.autonomous:
            # Those of opponents in the fight who are not hidden, and where they land
            # (found once while the same missiles fly).
            coming = _coming(state, rules, c)
            if coming is None:
                return False  # one it may have read, or one that never lands: its view
            lands = coming[1]
            if lands:
                if rules.awareness is not None:
                    return False  # what it makes out: asked of its view
                missile = True
                first = -1  # the first landing to come that no defence meets, and how many
                count = 0
                for t in lands:
                    if t < segment or (covered is not None and t in covered):
                        continue
                    if t == first:
                        count += 1
                    elif first < 0 or t < first:
                        first, count = t, 1
                if count and (defend_at is None or first < defend_at):
                    defend_at = first
                    blows = count
        if defend_at is not None and (
            defend_at < segment or (covered is not None and defend_at in covered)
        ):
            defend_at = None  # past, or met by a defence in progress
        if defend_at is not None:
            # The defence awaited (Defender.plan): with its legs busy, none now; a dodge
            # not yet due is waited for. (A shield's or weapon's parry: it decides.)
            if c.sheet.shield is not None or guard.prefer != "dodge":
                return False
            if not legs and not _dodge_waited(c, defend_at, segment):
                return False
        guard.missile = missile
        guard.defend_at = defend_at
        guard.blows = blows
        return True

    def shoot(self, obs: Observation, spent: int = 0) -> Declaration | None:
        """Its next step toward a shot (or a melee strike); ``spent``: PS its dodges
        already take this segment (a strike's bonus takes what is left)."""
        me: SelfView = obs.me
        if me.must_lock:
            return None  # its hands are busy: nothing of the target is looked at
        for a in me.actions:  # me.doing("hands"), without its call
            if a.channel == "hands" and not a.continuous:
                return None
        # The nearest opponent (nearest_opponent(obs)'s): its id, position and reach,
        # without building its view (a walk toward it alone needs that).
        near = me._nearest_reach()
        if near is None:
            return None
        target, at, theirs = near
        reach = me.reach
        apart = math.dist(me.position, at)  # in_reach(), without its calls
        status = me._c.status  # its own, read straight (as its live fields would, now)
        longer = reach if reach > theirs else theirs  # max(theirs, reach), without its call
        if apart <= longer + 1.0 + REACH_TOLERANCE or me.sheet.ranged is None:
            if status.wielding != "melee":
                return DRAW_MELEE
            if apart > reach + REACH_TOLERANCE:
                view = me.nearest()
                assert view is not None
                return approach(obs, view)
            return _strike_or_arm(me, target, spent)
        if status.wielding != "ranged":
            return DRAW_RANGED
        if not status.loaded:
            return READY
        return _shot(target, status.command_points)


@lru_cache(maxsize=SHAPES)
def _shot(target: str, command_points: int) -> Declaration:
    """A shot at ``target`` spending all its command points on the roll (a bonus; a
    negative score, a malus): a shared declaration of its shape (checked once, as the
    strikes are), found by one lookup of its two values."""
    if command_points > 0:
        return shared_table_declaration("shoot", target, {"pc": {"bonus": command_points}})
    if command_points < 0:
        return shared_table_declaration("shoot", target, {"pc": {"malus": -command_points}})
    return shared_table_declaration("shoot", target, None)


@mypyc_attr(allow_interpreted_subclasses=True)
class Keeper:
    """Keeps a shorter-armed opponent at distance with a longer weapon, and strikes once
    it is within reach anyway (RinKaNou, "Tenir à distance")."""

    name = "keeper"
    reactive = True

    def decide(self, obs: Observation) -> PolicyOutput:
        me: SelfView = obs.me
        # The nearest opponent (nearest_opponent(obs)'s): its id, position and reach,
        # without building its view.
        near = me._nearest_reach()
        if near is None:
            return None
        target, at, theirs = near
        # in_reach() and strike_or_arm(), without their calls: one distance, two reaches
        apart = math.dist(me.position, at)
        reach = me.reach
        if apart <= theirs + REACH_TOLERANCE or not reach > theirs:
            if apart <= reach + REACH_TOLERANCE:
                return _strike_or_arm(me, target)
            return _approach(obs, target)
        if me.doing("hands") is None and not me.must_lock:
            for a in me.actions:
                if a.kind == "keep":
                    return None  # keeping already
            return shared_declaration("keep", target, (), ())
        return None

    def unconcerned(
        self, rules: RinKaNou, state: FightState, cid: str, segment: int, called: bool
    ) -> bool:
        """Whether, called to this phase by what it saw alone (the engine asks: see
        :func:`segsim.fight.unconcerned_hook`), it would declare nothing: its hands are
        busy (a blow, an arming, a lock, a keep), so it neither strikes, arms nor keeps,
        and it would not walk: its nearest opponent is within its reach, or it keeps
        that one at distance, or its legs are busy (:meth:`decide`'s steps, read
        straight from the fight state; with an awareness radius, or called otherwise
        (``called``: the end of its other action, a host), it decides)."""
        if called or rules.awareness is not None:
            return False
        c = state.combatants[cid]
        if not _hands_busy(c):
            return False
        kept = state._against.get(c.side)  # its view's opponents (all in view)
        seen = kept if kept is not None else state.against(c.side)
        if not seen:
            return True
        # The nearest (SelfView._find_nearest's), its distance and both reaches.
        o = seen[0] if len(seen) == 1 else closest(c.position, seen)
        assert o is not None
        apart = math.dist(c.position, o.position)
        reaches = rules._fighter_reaches
        reach = reaches.get(c)
        if reach is None:
            reach = reach_of(rules, c)
        theirs = reaches.get(o)
        if theirs is None:
            theirs = reach_of(rules, o)
        if (apart <= theirs + REACH_TOLERANCE or not reach > theirs) and (
            apart > reach + REACH_TOLERANCE
        ):
            for a in c.actions:  # out of its reach: it walks unless its legs are busy
                if a.channel == "legs" and not a.continuous:
                    break
            else:
                return False
        return True


register_policy("rinkanou", "aggressive", Aggressive)
register_policy("rinkanou", "defender", Defender)
register_policy("rinkanou", "parrier", lambda: Defender(prefer="parry"))
register_policy("rinkanou", "archer", Archer)
register_policy("rinkanou", "keeper", Keeper)
