"""Les Chants de Loss (text 000): action points spent in descending phases on the
segment clock.

How a round maps onto segments (docs/rules/loss.md): a round's phases count down from
its highest initiative to 1, each phase lasting ``phase_segments`` segments (5 by
default, RULES-NOTES "Time"). A fighter whose action points equal the phase gets a
``turn`` (declared by the rules) and declares one action; the action's cost lowers its
phase and the rules keep it waiting (``await``) until the round reaches its new phase.
Fighters at the same phase act together. An attack's test resolves in the first segment
of its phase; a target it hit answers in the next segment with a parry or a dodge; a
counter-attack follows in the segment after that.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from segsim.actions import Action, ActionSpec, Declaration, DeclarationLike
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration
from segsim.events import Event
from segsim.input import Node
from segsim.native import mypyc_attr
from segsim.observation import ViewObservation
from segsim.policy import Observation
from segsim.rules import (
    BaseRuleset,
    Outcome,
    given_content,
    known_target,
    unknown_params,
    untargeted,
)
from segsim.rules.loss.content import (
    UNARMED,
    Content,
    Sheet,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.loss.declare import (
    ACT_CHANNEL,
    ACTS,
    AWAIT,
    CONTACT,
    COSTS,
    DEFENCES,
    FREE,
    INTEND,
    MOST_ASSAILANTS,
    PARAMS,
    PREPARE_SAVINGS,
    PURSUIT_ACTS,
    RULE_COSTS,
    RULE_COUNTER,
    RULE_INTENTIONS,
    RULE_PHASES,
    RULE_PREPARE,
    TURN,
    TURN_CHANNEL,
    Check,
    attack_cost,
    chase_of,
    check_attack,
    check_can_attack,
    check_defence,
    check_pursuit,
    clock_of,
    distance,
    in_contact,
    prepared_cost,
    weapon_for,
)
from segsim.rules.loss.events import CLOCK, Joined, ReserveSet, SetUp
from segsim.rules.loss.pursuit import (
    LOST_FROM_SIGHT,
    PURSUIT,
    Chase,
    PursuitStarted,
)
from segsim.rules.loss.settle import BLOW, intentions, new_round, settle
from segsim.rules.loss.status import Status
from segsim.rules.loss.views import SelfView
from segsim.state import Combatant, FightState

KINDS = (*ACTS, *PURSUIT_ACTS, *DEFENCES, *FREE, "wait", INTEND, TURN, AWAIT)
KNOWN = frozenset(KINDS)
INTENDED = (*ACTS, *PURSUIT_ACTS)
NONE: frozenset[str] = frozenset()
"""What an intention may name."""
RULE_AIM_ROUND = "Loss, Modificateurs de combat à distance (Viser durant un Tour de Combat)"
UNTARGETED = frozenset(
    {*DEFENCES, "get_up", "pick_up", "aim", "prepare", "pass", "wait", "zigzag", TURN, AWAIT}
)
"""Kinds that take no target (a defence answers the attack its ``against`` names)."""
UNROLLED = frozenset({"move", "get_up", "pick_up", "aim", "social", "prepare", "pass"})
"""Acts that take no test."""
TURN_DECLARATION = Declaration(TURN)
AWAIT_DECLARATION = Declaration(AWAIT)
"""The rules' own declarations (forced), shared: they never change."""
DECLARATION_ORDERS = ("together", "initiative")
SETUP_FLAGS = (
    "surprised",
    "hidden",
    "prone",
    "darkness",
    "lower_ground",
    "higher_ground",
    "watched",
    "mounted",
)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


@mypyc_attr(allow_interpreted_subclasses=True)
class Loss(BaseRuleset):
    """Les Chants de Loss (text 000): d10 + Trait + Talent against 15 + 5 per Exploit;
    action points spent in descending phases.

    Options: ``phase_segments`` (segments per phase, at least 4 so that an attack, its
    defence, a counter-attack and its defence fit in a phase), ``darkness`` (the whole
    fight in the dark, +10), ``disasters`` (a player character's failed Exploits are
    recorded as Désastres), ``move_metres`` (metres of one move), ``pursuit`` (the pursued
    side), ``start_distance``, ``stalled_chase`` (end a chase whose distances have not
    changed for that many rounds; off by default), ``declaration_order`` ("together": the
    fighters of a phase decide at once; "initiative": the optional rule, intentions
    declared before each round from the lowest initiative to the highest),
    ``prepare_saving`` ("example": waiting saves only what the next action needs, as the
    text's example; "sentence": every phase waited saves a point), ``gm_fursa`` (the game
    master's Fursa reserve, spent by non-player characters), ``group_initiative``
    (identical adversaries share one initiative roll, as the text's griffons),
    ``awareness`` (metres: a fighter sees the actions of opponents within it only, so
    that a battle's size does not weigh on each action; everyone sees everything by
    default, as at a table).
    """

    name: ClassVar[str] = "loss"
    title: ClassVar[str] = "Les Chants de Loss: action points spent in descending phases (text 000)"

    def __init__(
        self,
        *,
        # The options come from a scenario's data and are checked below, so that a
        # wrong one is named: typed Any, not as the int, bool, float, str they must be,
        # which a compiled build would check first, unnamed.
        phase_segments: Any = 5,
        darkness: Any = False,
        disasters: Any = False,
        move_metres: Any = 5.0,
        pursuit: Any = None,
        start_distance: Any = 3,
        stalled_chase: Any = None,
        declaration_order: Any = "together",
        prepare_saving: Any = "example",
        gm_fursa: Any = 0,
        group_initiative: Any = False,
        awareness: Any = None,
        content: Content | None = None,
    ) -> None:
        _check(
            isinstance(phase_segments, int)
            and not isinstance(phase_segments, bool)
            and 4 <= phase_segments <= 100,
            f"phase_segments must be an integer from 4 to 100, not {phase_segments!r}",
        )
        _check(isinstance(darkness, bool), f"darkness must be true or false, not {darkness!r}")
        _check(isinstance(disasters, bool), f"disasters must be true or false, not {disasters!r}")
        _check(
            isinstance(move_metres, int | float)
            and not isinstance(move_metres, bool)
            and math.isfinite(move_metres)
            and 3.0 <= move_metres <= 50.0,
            f"move_metres must be a number from 3 to 50, not {move_metres!r}",
        )
        _check(
            pursuit is None or (isinstance(pursuit, str) and bool(pursuit)),
            f"pursuit must name the pursued side, not {pursuit!r}",
        )
        _check(
            isinstance(start_distance, int)
            and not isinstance(start_distance, bool)
            and 1 <= start_distance <= LOST_FROM_SIGHT,
            f"start_distance must be a distance unit from 1 to 6, not {start_distance!r}",
        )
        _check(
            stalled_chase is None
            or (
                isinstance(stalled_chase, int)
                and not isinstance(stalled_chase, bool)
                and 1 <= stalled_chase <= 100
            ),
            f"stalled_chase must be a number of rounds from 1 to 100, not {stalled_chase!r}",
        )
        _check(
            declaration_order in DECLARATION_ORDERS,
            f"declaration_order must be one of {', '.join(DECLARATION_ORDERS)}, "
            f"not {declaration_order!r}",
        )
        _check(
            prepare_saving in PREPARE_SAVINGS,
            f"prepare_saving must be one of {', '.join(PREPARE_SAVINGS)}, not {prepare_saving!r}",
        )
        _check(
            isinstance(gm_fursa, int) and not isinstance(gm_fursa, bool) and 0 <= gm_fursa <= 100,
            f"gm_fursa must be a number of Fursa from 0 to 100, not {gm_fursa!r}",
        )
        _check(
            isinstance(group_initiative, bool),
            f"group_initiative must be true or false, not {group_initiative!r}",
        )
        _check(
            awareness is None
            or (
                isinstance(awareness, int | float)
                and not isinstance(awareness, bool)
                and math.isfinite(awareness)
                and 1.0 <= awareness <= 1000.0
            ),
            f"awareness must be a radius in metres from 1 to 1000, not {awareness!r}",
        )
        self.awareness: float | None = None if awareness is None else float(awareness)
        self._memo: tuple[Declaration, FightState, int, int, str, ActionSpec] | None = None
        self._earlier: tuple[Declaration, FightState, int, int, str, ActionSpec] | None = None
        self.prepare_saving: str = prepare_saving
        self.gm_fursa: int = gm_fursa
        self.group_initiative: bool = group_initiative
        self.declaration_order: str = declaration_order
        self.stalled_chase: int | None = stalled_chase
        self.pursuit: str | None = pursuit
        self.start_distance: int = start_distance
        self.content = given_content(content, Content, default_content)
        self.phase_segments: int = phase_segments
        self.tick: int = phase_segments
        self.darkness: bool = darkness
        self.disasters: bool = disasters
        self.move_metres = float(move_metres)
        self.options: Mapping[str, Any] = {
            "phase_segments": phase_segments,
            "darkness": darkness,
            "disasters": disasters,
            "move_metres": self.move_metres,
            "pursuit": pursuit,
            "start_distance": start_distance,
        }
        # Recorded only when set, so that older records stay the same.
        if stalled_chase is not None:
            self.options = {**self.options, "stalled_chase": stalled_chase}
        if declaration_order != "together":
            self.options = {**self.options, "declaration_order": declaration_order}
        if prepare_saving != "example":
            self.options = {**self.options, "prepare_saving": prepare_saving}
        if gm_fursa:
            self.options = {**self.options, "gm_fursa": gm_fursa}
        if group_initiative:
            self.options = {**self.options, "group_initiative": True}
        if awareness is not None:
            self.options = {**self.options, "awareness": self.awareness}

    # ------------------------------------------------------------ sheets and setup

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def new_status(self, sheet: Sheet) -> Status:
        return Status.of(sheet)

    def load_setup(self, node: Node) -> dict[str, Any]:
        """The game master's calls for one fighter (``[combatant.setup]``)."""
        setup: dict[str, Any] = {}
        for flag in SETUP_FLAGS:
            if node.has(flag):
                setup[flag] = node.value(flag, bool)
        if node.has("cover"):
            setup["cover"] = node.value("cover", str, choices=("partial", "full"))
        if node.has("aimed"):
            setup["aimed"] = node.value("aimed", str, choices=("round", "sequence"))
        if node.has("spot_difficulty"):
            setup["spot_difficulty"] = node.value("spot_difficulty", int, min=5, max=60)
        if node.has("speed_bonus"):
            # the mount's or vehicle's speed bonus to pursuit tests (Loss, "La
            # différence de Vitesse"); its sheet is in the missing equipment chapter
            setup["speed_bonus"] = node.value("speed_bonus", int, min=0, max=20)
        if node.has("distance"):
            setup["distance"] = node.value("distance", int, min=1, max=LOST_FROM_SIGHT)
        node.finish()
        return setup

    # ------------------------------------------------------------ start, joining

    def _setup_events(self, c: Combatant, t: int) -> list[Event]:
        s = c.setup
        if s.get("surprised") or s.get("hidden") or s.get("prone") or s.get("aimed"):
            return [
                SetUp(
                    t,
                    c.id,
                    bool(s.get("surprised")),
                    bool(s.get("hidden")),
                    bool(s.get("prone")),
                    str(s.get("aimed", "")),
                )
            ]
        return []

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        events: list[Event] = []
        for c in state.combatants.values():
            events.extend(self._setup_events(c, 0))
        reserve = self.gm_fursa + sum(_npc_fursa(c) for c in state.in_fight())
        if reserve:
            events.append(ReserveSet(0, None, reserve))
        if self.pursuit is not None:
            events.append(self._chase(state))
        started = new_round(state, dice, 1, 0, state.in_fight(), self.group_initiative)
        events.append(started)
        called = intentions(self, started)
        if called is not None:
            events.append(called)
        return events

    def _chase(self, state: FightState) -> PursuitStarted:
        """Every pursuer at ``start_distance`` from every pursued fighter, unless the
        setup of the pursuer (first) or of the pursued fighter gives a ``distance``."""
        assert self.pursuit is not None
        pursued = [c for c in state.in_fight() if c.side == self.pursuit]
        pursuers = [c for c in state.in_fight() if c.side != self.pursuit]
        distances = {
            f"{a.id}>{b.id}": int(
                a.setup.get("distance", b.setup.get("distance", self.start_distance))
            )
            for a in pursuers
            for b in pursued
        }
        return PursuitStarted(0, None, self.pursuit, distances)

    def outcome(self, state: FightState) -> Outcome | None:
        """A chase ends when every pursued fighter has escaped (out of sight)."""
        extra = state.extra
        clock = extra.get(CLOCK)
        if (clock if clock is not None else clock_of(state)).over:
            return Outcome("broken off", None)
        chase = extra.get(PURSUIT)
        if chase is not None and isinstance(chase, Chase) and chase.escaped:
            left = [c for c in state.in_fight() if c.side == chase.pursued_side]
            if not left:
                return Outcome("escaped", chase.pursued_side)
        # BaseRuleset.outcome(), without its call (once a settlement): one side left
        sides = state.sides_in_fight()
        if len(sides) > 1:
            return None
        if not sides:
            return Outcome("all out", None)
        return Outcome("victory", sides[0])

    def enter(self, state: FightState, cid: str, dice: Dice, segment: int) -> list[Event]:
        """A fighter joining a fight in progress acts from the next round (Loss,
        "Entrer dans un combat en cours")."""
        c = state.combatants[cid]
        events = [
            *self._setup_events(c, segment),
            Joined(segment, cid, bool(c.setup.get("watched"))),
        ]
        if _npc_fursa(c):
            events.append(ReserveSet(segment, None, _npc_fursa(c)))
        return events

    # ------------------------------------------------------------ phases

    def _await_end(self, state: FightState, c: Combatant, segment: int) -> int:
        clock = clock_of(state)
        k = self.phase_segments
        st: Status = c.status
        first = clock.start + clock.lead
        end = first + clock.top * k  # clock.end(k)
        if st.round == clock.round and st.pa >= 1:
            end = min(end, first + (clock.top - st.pa) * k)  # clock.phase_segment(st.pa, k)
        return max(end, segment + 1)

    def _turn_now(self, state: FightState, c: Combatant, segment: int) -> bool:
        clock = clock_of(state)
        st: Status = c.status
        if st.round != clock.round:
            return False
        k = self.phase_segments
        first = clock.start + clock.lead
        # clock.phase_at(segment, k), without its call: None between phase boundaries
        if segment < first or (segment - first) % k:
            return False
        return st.pa >= max(clock.top - (segment - first) // k, 1)

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        """A turn when the round reaches the fighter's phase, else a wait until it does."""
        c = state.combatants[cid]
        current = None
        for a in c.actions:
            kind = a.kind
            if kind == TURN:
                return []
            if kind == AWAIT and current is None:
                current = a
        # _turn_now() and _await_end(), without their calls and with one look at the
        # clock. A fighter with points left this round has its turn at the phase
        # boundary where the round reaches its phase (its wait's end), a fighter with
        # none at the round's end: phase p begins at first + (top - p) * k, and
        # p <= pa at a boundary from first + (top - pa) * k on.
        clock = state.extra.get(CLOCK) or clock_of(state)
        st: Status = c.status
        k = self.phase_segments
        first = clock.start + clock.lead
        pa = st.pa
        if pa >= 1 and st.round == clock.round:
            end = first + (clock.top - pa) * k  # clock.phase_segment(st.pa, k)
            if segment >= end and segment >= first and not (segment - first) % k:
                phase = clock.top - (segment - first) // k
                self._memo = (
                    TURN_DECLARATION,
                    state,
                    state.version,
                    segment,
                    cid,
                    Action(
                        TURN,
                        k,
                        TURN_CHANNEL,
                        None,
                        False,
                        0,
                        False,
                        True,
                        False,
                        True,
                        _phase_params(phase),
                    ),
                )
                self._earlier = None
                return [TURN_DECLARATION]
        else:
            end = first + clock.top * k  # clock.end(k)
        if end <= segment:
            end = segment + 1
        if current is not None:
            lasts = current.duration  # (current.end, without the property's call)
            if lasts is not None and current.start + lasts == end:
                return []
        d = AWAIT_DECLARATION
        spec = Action(AWAIT, end - segment, TURN_CHANNEL, None, False, 0, True, False, False, False)
        # What plan() of it would find (the engine plans it next): kept, as a view's
        # verdict is, so that the turn's phase and the wait's end are not found twice.
        self._memo = (d, state, state.version, segment, cid, spec)
        self._earlier = None
        return [d]

    def idle(self, state: FightState, cid: str, segment: int) -> Declaration:
        return AWAIT_DECLARATION

    def due(self, state: FightState, time: int) -> Sequence[str]:
        """Who the rules call now: everyone when a round begins, a target that may parry
        or dodge, a defender that may counter-attack."""
        clock = state.extra.get(CLOCK)
        if clock is None:
            clock = clock_of(state)
        combatants = state.combatants.values()
        if clock.start == time:
            return [c.id for c in combatants if c.in_fight]
        intending = clock.intending(time) if clock.order else ()
        out = []
        for c in combatants:
            if not c.in_fight:
                continue
            st: Status = c.status
            if intending and c.id in intending:
                out.append(c.id)
                continue
            pending = st.incoming
            if pending:
                found = False
                for i in pending.values():  # (a loop, not any(): once a fighter and time)
                    if i.granted == time:
                        found = True
                        break
                if found:
                    out.append(c.id)
                    continue
            granted = st.counters
            if granted and time in granted.values():
                out.append(c.id)
        return out

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        raise IllegalDeclaration(
            f"{action.kind} #{action.id} cannot be cancelled: its action points are spent",
            rule=RULE_COSTS,
        )

    # ------------------------------------------------------------ declarations

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        memo = self._memo
        if memo is not None:
            earlier = self._earlier
            self._memo = self._earlier = None
            kept, at, version, phase, who, spec = memo  # (one unpacking: fewer steps)
            if (
                at is state
                and version == state.version
                and phase == segment
                and who == cid
                and not planned
            ):
                if kept is declaration:
                    return spec
                if earlier is not None and earlier[0] is declaration:
                    return earlier[5]  # (the same phase, fighter and state as memo's)
        return self._plan(state, cid, declaration, segment, planned)

    def plan_alone(
        self, state: FightState, cid: str, declaration: Declaration, segment: int
    ) -> ActionSpec:
        """:meth:`plan` of one declaration on its own (what a fighter's view asks), its
        verdict kept for the engine's plan of that very declaration, in the same phase
        of the same fight, if it comes next (a policy asks about what it then declares:
        the rules' checks are not made twice); and the verdict before it, in the same
        phase of the same fighter and state (a parry asked about before a dodge)."""
        memo = self._memo
        same = (
            memo is not None
            and memo[1] is state
            and memo[2] == state.version
            and memo[3] == segment
            and memo[4] == cid
        )
        if same:
            assert memo is not None
            if memo[0] is declaration:
                return memo[5]  # asked again (its cost after whether it is accepted)
            earlier = self._earlier
            if earlier is not None and earlier[0] is declaration:
                return earlier[5]
        spec = self._plan(state, cid, declaration, segment, ())
        self._earlier = memo if same else None
        self._memo = (declaration, state, state.version, segment, cid, spec)
        return spec

    def attack_beyond_points(self, state: FightState, cid: str) -> bool:
        """Whether an attack with the weapon in hand costs ``cid`` more action points
        than it has left, so that the rules refuse it (:meth:`_plan`'s last check, after
        a wait's saving), whatever extra damage dice, Exploits or pools it declares: none
        of these changes its cost (an assault and two weapons do: not asked here). What a
        policy asks before it asks about each of its options (each refusal a check of
        the attack and an exception)."""
        c = state.combatants[cid]
        st: Status = c.status
        sheet: Sheet = c.sheet
        # check_attack()'s weapon and cost, _plan()'s saving
        weapon = sheet.weapon if not st.disarmed else weapon_for(sheet, st, "main")
        cost = attack_cost(sheet, st, weapon, ())
        if st.waited > 0 and cost > 2:
            cost, _ = prepared_cost(cost, st.waited, st.pa, self.prepare_saving)
        return cost > st.pa

    def _plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        c = state.combatants[cid]
        d = declaration
        if d is TURN_DECLARATION or d is AWAIT_DECLARATION:
            # the rules' own (forced), shared: a known kind with no target or parameter
            return self._plan_phase(state, c, d.kind, segment)
        if d.kind not in KNOWN:
            known = ", ".join(k for k in KINDS if k not in (TURN, AWAIT))
            raise IllegalDeclaration(f"unknown action {d.kind!r} (known: {known})", rule=RULE_COSTS)
        accepted = PARAMS.get(d.kind, NONE)
        for name in d.params:  # unknown_params() is called to name what it refuses
            if name not in accepted:
                unknown_params(d.kind, d.params, accepted)
        if d.target is not None:
            if d.kind in UNTARGETED:
                untargeted(d, accepted)
            if d.target not in state.combatants:  # known_target() called to refuse it
                known_target(state, d)
        if d.kind == TURN or d.kind == AWAIT:
            return self._plan_phase(state, c, d.kind, segment)
        if d.kind == "wait":
            return _plan_wait(d, segment)
        if d.kind == INTEND:
            return self._plan_intention(state, c, d, segment)
        ch = Check(state, c, segment)
        st: Status = c.status
        if d.kind == "speak":
            what = d.params.get("what", "")
            if not isinstance(what, str) or not what:
                raise IllegalDeclaration("what one says must be a text", rule=RULE_COSTS)
            if d.target is not None:
                other = state.combatants.get(d.target)
                if other is None or not other.in_fight or other is c:
                    raise IllegalDeclaration(f"no other fighter {d.target!r} in the fight")
            return Action("speak", 1, "speech", target=d.target, params={"what": what})
        if d.kind in DEFENCES:
            inc, params = check_defence(ch, d, planned)
            return Action(
                d.kind, 1, f"defence {inc.attack}", target=inc.attacker, rolled=True, params=params
            )
        if d.kind == "attack" and d.params.get("counter"):
            return self._plan_counter(ch, d, planned)
        for p in planned:
            if p.channel == ACT_CHANNEL:
                raise IllegalDeclaration("one action at a time", rule=RULE_PHASES)
        turn = False
        for a in c.actions:  # (loops: a generator is a call of its own)
            if a.channel == ACT_CHANNEL:
                raise IllegalDeclaration("one action at a time", rule=RULE_PHASES)
            if a.kind == TURN and a.start == segment:
                turn = True
        if not turn:
            raise IllegalDeclaration(f"{cid} acts at phase {st.pa}: not now", rule=RULE_PHASES)
        if (
            st.disarmed
            and st.disarmed < clock_of(state).round
            and d.kind
            not in (
                "pick_up",
                "pass",
                "prepare",
            )
        ):
            raise IllegalDeclaration(
                f"{cid} was disarmed last round: its first action is to pick up its weapon",
                rule="Loss, Désarmer l'adversaire",
            )
        if st.prone and d.kind not in ("get_up", "pass", "prepare"):
            raise IllegalDeclaration(
                f"{cid} is on the ground: it must get up first",
                rule="Loss, Renverser son adversaire",
            )
        if st.intention is not None:  # (what _check_intention() first asks)
            self._check_intention(ch, d)
        target, cost, params = self._plan_act(ch, d)
        saved = 0
        # prepared_cost() when it may save anything (after a phase waited)
        if st.waited > 0 and cost > 2 and d.kind not in ("prepare", "pass"):
            cost, saved = prepared_cost(cost, st.waited, st.pa, self.prepare_saving)
        if cost > st.pa:
            raise IllegalDeclaration(
                f"{d.kind} costs {cost} PA; {cid} has {st.pa} left", rule=RULE_COSTS
            )
        params["cost"] = cost
        if saved:
            params["saved"] = saved
        return Action(
            d.kind,
            1,
            ACT_CHANNEL,
            target,
            d.kind not in UNROLLED,
            0,
            False,
            False,
            False,
            True,
            params,
        )

    def _plan_phase(self, state: FightState, c: Combatant, kind: str, segment: int) -> ActionSpec:
        """The rules' own turn at the fighter's phase, or its wait until that phase."""
        if kind == TURN:
            if not self._turn_now(state, c, segment):
                raise IllegalDeclaration(f"it is not {c.id}'s phase", rule=RULE_PHASES)
            return self._turn_spec(state, segment)
        end = self._await_end(state, c, segment)
        return Action(AWAIT, end - segment, TURN_CHANNEL, continuous=True, visible=False)

    def _turn_spec(self, state: FightState, segment: int) -> ActionSpec:
        """The turn of a fighter whose phase begins at ``segment``."""
        k = self.phase_segments
        phase: int | None = clock_of(state).phase_at(segment, k)
        params: Mapping[str, Any] = {"phase": None}
        if phase is not None:
            params = _phase_params(phase)
        return Action(TURN, k, TURN_CHANNEL, public=True, params=params)

    def _plan_counter(self, ch: Check, d: Declaration, planned: Sequence[ActionSpec]) -> ActionSpec:
        """A counter-attack right after a successful parry or dodge with the counter
        effect, against that attacker; several in one segment against different
        adversaries, each paid in action points (Loss, "Contre-attaquer")."""
        c, st, segment = ch.c, ch.status, ch.segment
        if st.counters.get(str(d.target)) != segment:
            raise IllegalDeclaration(
                f"{c.id} may counter-attack only right after a successful parry or dodge "
                "with the counter effect, against that attacker",
                rule=RULE_COUNTER,
            )
        others = [p for p in planned if p.channel == ACT_CHANNEL]
        if any(not p.params.get("counter") or p.target == d.target for p in others) or any(
            a.channel == ACT_CHANNEL for a in c.actions
        ):
            raise IllegalDeclaration("one action at a time", rule=RULE_PHASES)
        cost, params = check_attack(ch, d, counter=True)
        left = st.pa
        for p in others:
            left -= int(p.params.get("cost", 0))
        if cost > left:
            raise IllegalDeclaration(
                f"the counter-attack costs {cost} PA; {c.id} has {left} left", rule=RULE_COSTS
            )
        return Action(
            "attack",
            1,
            ACT_CHANNEL,
            target=d.target,
            rolled=True,
            params={**params, "cost": cost},
        )

    def _plan_intention(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        """An intention: the first action (and its target) the fighter will take at its
        phase this round, declared in its place in the order (Loss, "Déclarer ses
        intentions", optional)."""
        clock = clock_of(state)
        st: Status = c.status
        if c.id not in clock.intending(segment):
            raise IllegalDeclaration(
                f"{c.id} does not declare its intention now", rule=RULE_INTENTIONS
            )
        if st.intended == clock.round:
            raise IllegalDeclaration(f"{c.id} has declared its intention", rule=RULE_INTENTIONS)
        action = d.params.get("action")
        if action not in INTENDED:
            raise IllegalDeclaration(
                f"an intention names an action ({', '.join(INTENDED)}), not {action!r}",
                rule=RULE_INTENTIONS,
            )
        if d.target is not None:
            other = state.combatants.get(d.target)
            if other is None or not other.in_fight or other is c:
                raise IllegalDeclaration(f"no other fighter {d.target!r} in the fight")
        return Action(INTEND, 1, INTEND, target=d.target, public=True, params={"action": action})

    def _check_intention(self, ch: Check, d: Declaration) -> None:
        """At its phase a fighter carries out the intention it declared, unless it can no
        longer do so (its target is down, its points are too few after defending...):
        waiting (prepare) delays it (Interpretations)."""
        st = ch.status
        if st.intention is None or st.intended != clock_of(ch.state).round:
            return
        action, target = st.intention
        if d.kind == "prepare" or (d.kind == action and d.target == target):
            return
        try:
            _, cost, _ = self._plan_act(ch, Declaration(action, target))
        except IllegalDeclaration:
            return
        cost, _ = prepared_cost(cost, st.waited, st.pa, self.prepare_saving)
        if cost > st.pa:
            return
        on = f" {target}" if target else ""
        raise IllegalDeclaration(
            f"{ch.c.id} declared it would {action}{on}: it does so while it can",
            rule=RULE_INTENTIONS,
        )

    def _plan_act(self, ch: Check, d: Declaration) -> tuple[str | None, int, dict[str, Any]]:
        st, sheet, c = ch.status, ch.sheet, ch.c
        kind = d.kind
        if kind in PURSUIT_ACTS:
            weapon = weapon_for(sheet, st, "main")
            if kind in ("shoot_legs", "charge", "clothesline", "tackle") and st.disarmed:
                raise IllegalDeclaration(f"{c.id} is disarmed", rule=RULE_COSTS)
            speed = sheet.speed(weapon) if weapon.ranged else 0
            return check_pursuit(ch, d, speed)
        if kind == "attack":
            cost, params = check_attack(ch, d, counter=False)
            return d.target, cost, params
        if kind == "grab":
            check_can_attack(ch)
            target = ch.opponent(d.target)
            if not in_contact(c, target):
                raise IllegalDeclaration(f"{target.id} is not in contact", rule=RULE_COSTS)
            exploits = d.params.get("exploits", 0)
            if (
                not isinstance(exploits, int)
                or isinstance(exploits, bool)
                or not 0 <= exploits <= 5
            ):
                raise IllegalDeclaration("exploits must be a whole number from 0 to 5")
            return (
                target.id,
                COSTS["grab"],
                {"weapon": "unarmed", "exploits": exploits, **ch.pools(d.params)},
            )
        if kind == "move":
            return None, COSTS["move"], {"to": self._destination(ch, d)}
        if kind == "get_up":
            if not st.prone:
                raise IllegalDeclaration(f"{c.id} is on its feet", rule=RULE_COSTS)
            return None, COSTS["get_up"], {}
        if kind == "pick_up":
            if not st.disarmed:
                raise IllegalDeclaration(f"{c.id} has its weapon", rule=RULE_COSTS)
            return None, COSTS["pick_up"], {}
        if kind == "aim" and d.params.get("round") is not None:
            return self._plan_aim_round(ch, d)
        if kind == "aim":
            points = d.params.get("points", 1)
            if not isinstance(points, int) or isinstance(points, bool) or not 1 <= points <= 5:
                raise IllegalDeclaration("aim points must be from 1 to 5", rule=RULE_COSTS)
            if not weapon_for(sheet, st, "main").ranged:
                raise IllegalDeclaration("one aims a ranged weapon", rule=RULE_COSTS)
            if st.aim + points > 5:
                raise IllegalDeclaration(
                    f"aiming gives +5 at most ({st.aim} already)", rule=RULE_COSTS
                )
            return None, COSTS["aim"] * points, {"points": points}
        if kind == "social":
            what = d.params.get("what", "talks")
            if not isinstance(what, str) or not what:
                raise IllegalDeclaration("what must be a text")
            return d.target, COSTS["social"], {"what": what}
        if kind == "prepare":
            until = d.params.get("until")
            if not isinstance(until, int) or isinstance(until, bool) or not 1 <= until < st.pa:
                raise IllegalDeclaration(
                    f"prepare until a phase from 1 to {st.pa - 1}, not {until!r}", rule=RULE_PREPARE
                )
            return None, 0, {"until": until}
        if d.target is not None:
            raise IllegalDeclaration(f"{kind} takes no target")
        return None, 0, {}  # pass

    def _plan_aim_round(self, ch: Check, d: Declaration) -> tuple[None, int, dict[str, Any]]:
        """Viser durant un Tour de Combat (Loss, "Modificateurs de combat à distance"):
        the fighter gives its whole round to aiming, so it declares it before spending
        anything this round, and it costs every point it has; its next shot gets +10
        (+15 with the Visée specialisation). Interpretations."""
        st = ch.status
        if d.params.get("round") is not True or "points" in d.params:
            raise IllegalDeclaration(
                "aim for a round is round = true, without points", rule=RULE_AIM_ROUND
            )
        if not weapon_for(ch.sheet, st, "main").ranged:
            raise IllegalDeclaration("one aims a ranged weapon", rule=RULE_AIM_ROUND)
        if st.pa != st.rolled or st.round != clock_of(ch.state).round:
            raise IllegalDeclaration(
                f"{ch.c.id} has spent points this round: aiming a round takes it all",
                rule=RULE_AIM_ROUND,
            )
        return None, st.pa, {"round": True}

    def _destination(self, ch: Check, d: Declaration) -> tuple[float, float]:
        start = ch.c.position
        to = d.params.get("to")
        if (to is None) == (d.target is None):
            raise IllegalDeclaration("a move goes toward a target or to a point (to = [x, y])")
        if d.target is not None:
            other = ch.state.combatants.get(d.target)
            if other is None or not other.in_fight or other is ch.c:
                raise IllegalDeclaration(f"no other fighter {d.target!r} to move to")
            gap = distance(ch.c, other)
            if gap <= CONTACT:
                raise IllegalDeclaration(f"{ch.c.id} is already in contact with {other.id}")
            step = min(self.move_metres, gap - (CONTACT - 0.5))
            x, y = start
            ox, oy = other.position
            return (round(x + (ox - x) * step / gap, 2), round(y + (oy - y) * step / gap, 2))
        if not (
            isinstance(to, list | tuple)
            and len(to) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
            and all(math.isfinite(v) for v in to)
        ):
            raise IllegalDeclaration(f"to must be a point [x, y] in metres, not {to!r}")
        dest = (float(to[0]), float(to[1]))
        if math.dist(start, dest) > self.move_metres + 1e-9:
            raise IllegalDeclaration(
                f"a move covers {self.move_metres:g} m at most", rule=RULE_COSTS
            )
        return (round(dest[0], 2), round(dest[1], 2))

    # ------------------------------------------------------------ resolution

    def order_key(self, action: Action) -> tuple[Any, ...]:
        if action.channel == ACT_CHANNEL:
            return (0,)
        if action.kind in DEFENCES:
            return (1,)
        if action.kind == BLOW:
            return (2,)
        return (3,)

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        return settle(self, state, segment, batch, dice)

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        # SelfView(state, segment, c, turn, self) and ViewObservation(segment, cid,
        # called, me, state), without calls of their classes, and the view's answerable()
        # and counterable() without theirs (once a decision: tests/test_loss_views.py
        # checks that they match).
        c = state.combatants[cid]
        st: Status = c.status
        turn = False
        for a in c.actions:
            if a.channel == ACT_CHANNEL:
                turn = False  # acting already: not its turn to declare
                break
            if a.kind == TURN and a.start == segment:
                turn = True
        me = _new_self_view(SelfView)
        me._state = state
        me._version = version = state.version
        me._segment = me._segment_now = segment
        me.id = cid
        me.side = c.side
        me.name = c.name
        me.is_pc = c.is_pc
        me._o = c
        sheet: Sheet = c.sheet
        me.minion = sheet.minion
        me.sheet = sheet
        me._turn = turn
        me._rules = self
        # What every decision reads, copied now (true of this phase for good): whether
        # it is its turn, the attacks it may answer and the opponents it may
        # counter-attack now.
        found = me.__dict__
        found["my_turn"] = turn
        pending = st.incoming
        incoming = tuple(i for i in pending.values() if i.granted == segment) if pending else ()
        found["incoming"] = incoming
        granted = st.counters
        counters = tuple(o for o, g in granted.items() if g == segment) if granted else ()
        found["counters"] = counters
        # And what the built-in policies read of it when they decide: its action points
        # left (any decision), and at its turn whether it is down, disarmed or in a chase
        # and its weapon (the live fields' values: weapon_for(sheet, st, "main"),
        # chase_of(state) is not None).
        found["phase"] = st.pa
        if turn:
            found["prone"] = st.prone
            disarmed = st.disarmed
            found["disarmed"] = bool(disarmed)
            found["weapon"] = UNARMED if disarmed else sheet.weapon
            chase = state.extra.get(PURSUIT)
            found["in_chase"] = chase is not None and isinstance(chase, Chase) and not chase.over
        called = turn or incoming != () or counters != ()  # (two tuples: no bool() calls)
        if not called:
            clock = state.extra.get(CLOCK)
            if clock is None:
                clock = clock_of(state)
            called = bool(clock.order) and cid in clock.intending(segment)
            called = called and st.intended != clock.round
        obs = _new_observation(ViewObservation)
        obs.segment = segment
        obs.actor = cid
        obs.must_act = called
        obs.me = me
        obs._others = obs._by_id = obs._legal = None
        obs._state = state
        obs._version = version
        return obs

    def uncalled(self, state: FightState, cid: str, segment: int) -> bool:
        """Whether the rules do not call ``cid`` in this phase: no turn starts now, no
        attack waits for its answer, no counter-attack is granted, no intention is to be
        declared (what :meth:`observe` finds sets ``must_act``, the same tests, without
        the views). The built-in policies then decide nothing, and say so to the engine
        through it (``policies.Aggressive.unconcerned``): what a fighter called to a
        phase only because it saw an opponent's action end costs no observation (most of
        the observations of a Loss fight: the built-in policies are reactive)."""
        c = state.combatants[cid]
        # What observe() finds calls the fighter, without the views (the same tests).
        for a in c.actions:
            if a.channel == ACT_CHANNEL:
                break
            if a.kind == TURN and a.start == segment:
                return False
        st: Status = c.status
        pending = st.incoming
        if pending:
            for i in pending.values():
                if i.granted == segment:
                    return False
        granted = st.counters
        if granted and segment in granted.values():
            return False
        if self.declaration_order == "together":
            return True  # (no intentions are declared: clock.order stays empty)
        clock = state.extra.get(CLOCK)
        if clock is None:
            clock = clock_of(state)
        return not (clock.order and cid in clock.intending(segment) and st.intended != clock.round)

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        c = state.combatants[cid]
        st: Status = c.status
        candidates: list[Declaration] = []
        for inc in st.incoming.values():
            if inc.granted != segment:
                continue
            base = {"against": inc.attack}
            candidates += [
                Declaration("parry", params=base),
                Declaration("parry", params={**base, "with": "weapon"}),
                Declaration("dodge", params=base),
                Declaration("dodge", params={**base, "effects": ["counter"]}),
                Declaration("parry", params={**base, "effects": ["counter"]}),
            ]
        for oid, granted in st.counters.items():
            if granted == segment:
                candidates.append(Declaration("attack", oid, {"counter": True}))
        if cid in clock_of(state).intending(segment):
            candidates.append(Declaration(INTEND, params={"action": "pass"}))
            for o in state.opponents(cid):
                candidates += [
                    Declaration(INTEND, o.id, {"action": "attack"}),
                    Declaration(INTEND, o.id, {"action": "move"}),
                ]
        turn = any(a.kind == TURN and a.start == segment for a in c.actions)
        if turn:
            candidates += [
                Declaration("pass"),
                Declaration("get_up"),
                Declaration("pick_up"),
                Declaration("aim", params={"points": 1}),
            ]
            if st.pa > 1:
                candidates.append(Declaration("prepare", params={"until": st.pa - 1}))
            chase = chase_of(state)
            if chase is not None:
                candidates += [
                    Declaration("zigzag"),
                    Declaration("change_distance", params={"direction": "away"}),
                ]
                for o in state.opponents(cid):
                    candidates += [
                        Declaration("change_distance", o.id, {"direction": "closer"}),
                        Declaration("change_distance", o.id, {"direction": "away"}),
                    ]
                    candidates += [
                        Declaration(kind, o.id)
                        for kind in ("charge", "clothesline", "tackle", "shoot_legs")
                    ]
        out: list[DeclarationLike] = [
            d for d in candidates if self._accepts(state, cid, d, segment)
        ]
        if turn:  # last, as they always came: already checked
            out += self._legal_against(state, c, segment)
        return tuple(out)

    def _accepts(self, state: FightState, cid: str, d: Declaration, segment: int) -> bool:
        """Whether :meth:`plan` accepts ``d`` alone."""
        try:
            self.plan(state, cid, d, segment, [])
        except IllegalDeclaration:
            return False
        return True

    def _legal_against(self, state: FightState, c: Combatant, segment: int) -> list[Declaration]:
        """The legal attacks, grabs and moves of a fighter at its phase, opponent by
        opponent (attack, attack with extra damage, grab, move), as :meth:`plan` would
        accept them, without asking it what it must refuse: in a crowd a fighter has
        hundreds of opponents, most of them beyond reach (tests/test_loss_scaling.py
        checks this list against :meth:`plan` asked of every candidate).

        What :meth:`plan` refuses whoever the opponent is (an action already under way,
        disarmed since last round, on the ground) leaves none; a disarmed fighter attacks
        or grabs nobody; a melee weapon outside a chase reaches only an opponent in
        contact, and only one it is among the nearest assailants of (Loss,
        "Modificateurs de combat au contact"); a grab reaches an opponent in contact; a
        move goes only to an opponent not in contact. Whether a grab or a move is
        accepted depends on the opponent only through the intention the fighter declared
        (its target is asked about on its own).
        """
        st: Status = c.status
        cid = c.id
        if (
            any(a.channel == ACT_CHANNEL for a in c.actions)
            or (st.disarmed and st.disarmed < clock_of(state).round)
            or st.prone
        ):
            return []
        melee = not st.disarmed and not weapon_for(c.sheet, st, "main").ranged
        reach_any = not melee or chase_of(state) is not None
        intended = st.intention is not None and st.intended == clock_of(state).round
        intention_target = st.intention[1] if intended and st.intention is not None else None
        # Whether a grab, or a move, of an opponent other than the intention's target is
        # accepted (asked of the first such opponent).
        shared: dict[str, bool] = {}

        def accepts(d: Declaration) -> bool:
            if d.target == intention_target:
                return self._accepts(state, cid, d, segment)
            known = shared.get(d.kind)
            if known is None:
                known = shared[d.kind] = self._accepts(state, cid, d, segment)
            return known

        out: list[Declaration] = []
        for o in state.opponents(cid):
            gap = distance(c, o)
            contact = gap <= CONTACT + 1e-9
            if not st.disarmed and (
                reach_any or (contact and cid in state.nearest_opponents(o.id, MOST_ASSAILANTS))
            ):
                for d in (
                    Declaration("attack", o.id),
                    Declaration("attack", o.id, {"effects": ["extra_damage"]}),
                ):
                    if self._accepts(state, cid, d, segment):
                        out.append(d)
            if contact and not st.disarmed:
                d = Declaration("grab", o.id)
                if accepts(d):
                    out.append(d)
            if gap > CONTACT:
                d = Declaration("move", o.id)
                if accepts(d):
                    out.append(d)
        return out


_PHASES: dict[int, Mapping[str, Any]] = {}


def _phase_params(phase: int) -> Mapping[str, Any]:
    """A turn's parameters (its phase), read-only and shared by every turn at that phase
    (an action's parameters never change)."""
    params = _PHASES.get(phase)
    if params is None:
        if len(_PHASES) >= 1024:
            _PHASES.clear()
        params = _PHASES[phase] = MappingProxyType({"phase": phase})
    return params


# The deciding fighter's view and its observation, made without calling their classes
# (by their own __new__: object.__new__ in the pure build).
_new_self_view = SelfView.__new__
_new_observation = ViewObservation.__new__


def _npc_fursa(c: Combatant) -> int:
    """The Fursa a non-player character's sheet brings to the game master's reserve."""
    sheet: Sheet = c.sheet
    return 0 if c.is_pc else sheet.fursa


def _plan_wait(d: Declaration, segment: int) -> ActionSpec:
    """Wait until a segment (or until further notice): what scripts use to be called."""
    until = d.params.get("until")
    if until is None:
        return Action("wait", None, "wait", continuous=True)
    if not isinstance(until, int) or isinstance(until, bool) or until <= segment:
        raise IllegalDeclaration(
            f"wait until must be a later segment than {segment}, not {until!r}"
        )
    return Action("wait", until - segment, "wait", continuous=True, params={"until": until})
