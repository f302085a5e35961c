"""The Chroniques ruleset (text 001): d20 against DEF, turns in initiative order, rounds
of 10 s on the segment clock.

How a round maps onto segments (see :mod:`segsim.rules.chroniques.turns`): the rules
declare for each fighter a ``turn`` action when its turn comes and an ``await`` action
until then; what the fighter declares during its turn lasts as long as the turn and
resolves with it. The engine calls the next fighter through :meth:`Chroniques.due` as
soon as a turn resolves, so the order of a round follows initiative however it changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    given_content,
    is_distance,
    known_target,
    unknown_params,
    untargeted,
)
from segsim.rules.chroniques.attack import (
    uses_forbidden,
)
from segsim.rules.chroniques.content import (
    Content,
    Sheet,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.chroniques.declare import (
    ACT_CHANNEL,
    AWAIT,
    KINDS,
    PLANNERS,
    RULE_ACTIONS,
    RULE_INITIATIVE,
    TURN_CHANNEL,
    UNTARGETED,
    check_shape,
    plan_wait,
)
from segsim.rules.chroniques.events import (
    ForbiddenEquipment,
)
from segsim.rules.chroniques.settle import Settlement, round_started
from segsim.rules.chroniques.status import Status
from segsim.rules.chroniques.surprise import AMBUSH_DIFFICULTY, surprise_difficulty, surprise_tests
from segsim.rules.chroniques.turns import (
    ROUND_SEGMENTS,
    TURN,
    RoundOrder,
    initiative,
    round_of,
    round_start,
    turn_counts,
    turn_in_progress,
)
from segsim.rules.chroniques.views import SelfView, _new_self_view
from segsim.state import Combatant, FightState

_TURN = Declaration(TURN)
_AWAIT = Declaration(AWAIT)
"""The rules' own declarations, made once (a declaration never changes): the engine
checks their shape once, and :meth:`Chroniques.plan` knows them at once."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@mypyc_attr(allow_interpreted_subclasses=True)
class Chroniques(BaseRuleset):
    """Chroniques (text 001): d20 + modifiers against DEF, turns in initiative order.

    Options (the game master's calls for the fight): ``ambush`` (the side lying in
    ambush), ``ambush_difficulty`` (which ambusher sets the difficulty: lowest, highest or
    average DEX modifier + stealth), ``surprise_modifier`` (for distance and terrain),
    ``surprised_defence_malus``, ``dim_light``, ``dim_light_magic`` (whether dim light
    weighs on magic attacks too), ``total_defence_move`` (whether total defence allows a
    free move), ``turn_segments``,
    ``two_weapon_criticals`` and ``awareness`` (metres: a fighter sees only those within
    it, and a built-in policy with no opponent in view goes for the nearest one; None,
    the default: everyone, as at a table; for battles) (see docs/rules/chroniques.md).
    """

    name: ClassVar[str] = "chroniques"
    title: ClassVar[str] = "Chroniques: d20 against DEF, turns in initiative order (text 001)"
    tick = ROUND_SEGMENTS

    def __init__(
        self,
        *,
        # Any: read from data, checked below (the compiled build would refuse a wrong
        # type at the call, before the check names the option).
        ambush: Any = None,
        ambush_difficulty: Any = "lowest",
        surprise_modifier: Any = 0,
        surprised_defence_malus: Any = 5,
        dim_light: Any = False,
        dim_light_magic: Any = False,
        total_defence_move: Any = False,
        turn_segments: Any = 10,
        two_weapon_criticals: Any = True,
        awareness: Any = None,
        content: Content | None = None,
    ) -> None:
        _check(
            ambush is None or (isinstance(ambush, str) and bool(ambush)),
            f"ambush must be a side name, not {ambush!r}",
        )
        _check(
            ambush_difficulty in AMBUSH_DIFFICULTY,
            f"ambush_difficulty must be one of {', '.join(AMBUSH_DIFFICULTY)}, "
            f"not {ambush_difficulty!r}",
        )
        _check(
            _is_int(surprise_modifier),
            f"surprise_modifier must be an integer, not {surprise_modifier!r}",
        )
        _check(
            _is_int(surprised_defence_malus) and surprised_defence_malus >= 0,
            f"surprised_defence_malus must be an integer >= 0, not {surprised_defence_malus!r}",
        )
        _check(isinstance(dim_light, bool), f"dim_light must be true or false, not {dim_light!r}")
        _check(
            isinstance(dim_light_magic, bool),
            f"dim_light_magic must be true or false, not {dim_light_magic!r}",
        )
        _check(
            isinstance(total_defence_move, bool),
            f"total_defence_move must be true or false, not {total_defence_move!r}",
        )
        _check(
            _is_int(turn_segments) and 1 <= turn_segments <= ROUND_SEGMENTS,
            f"turn_segments must be an integer from 1 to {ROUND_SEGMENTS}, not {turn_segments!r}",
        )
        _check(
            isinstance(two_weapon_criticals, bool),
            f"two_weapon_criticals must be true or false, not {two_weapon_criticals!r}",
        )
        _check(
            awareness is None or is_distance(awareness),
            f"awareness is a distance in metres, not {awareness!r}",
        )
        self.content = given_content(content, Content, default_content)
        # next_due() and turn_in_progress() of the last state version asked about: the
        # engine asks due(), forced() and plan() about one state several times.
        self._due: tuple[object, int, int, Combatant | None] = (None, -1, 0, None)
        self._turn: tuple[object, int, bool] = (None, -1, False)
        # The round's initiative order as the fight goes on (turns.RoundOrder), and the
        # fighter whose turn was planned last in which state (a turn in progress can only
        # be its: the rules plan one turn at a time).
        self._order: RoundOrder | None = None
        self._holder: tuple[object, Combatant | None] = (None, None)
        self.ambush: str | None = ambush
        self.ambush_difficulty: str = ambush_difficulty
        self.surprise_modifier: int = surprise_modifier
        self.surprised_defence_malus: int = surprised_defence_malus
        self.dim_light: bool = dim_light
        self.dim_light_magic: bool = dim_light_magic
        self.total_defence_move: bool = total_defence_move
        self.turn_segments: int = turn_segments
        self.two_weapon_criticals: bool = two_weapon_criticals
        self.options: Mapping[str, Any] = {
            "ambush": ambush,
            "ambush_difficulty": ambush_difficulty,
            "surprise_modifier": surprise_modifier,
            "surprised_defence_malus": surprised_defence_malus,
            "dim_light": dim_light,
            "dim_light_magic": dim_light_magic,
            "total_defence_move": total_defence_move,
            "turn_segments": turn_segments,
            "two_weapon_criticals": two_weapon_criticals,
        }
        self.awareness: float | None = None if awareness is None else float(awareness)
        if awareness is not None:  # only then: the records of fights without it hold
            self.options = {**self.options, "awareness": self.awareness}

    # ------------------------------------------------------------ sheets

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def new_status(self, sheet: Sheet) -> Status:
        return Status.of(sheet)

    # ------------------------------------------------------------ start of the fight

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        events: list[Event] = []
        for c in state.combatants.values():
            sheet: Sheet = c.sheet
            items = uses_forbidden(sheet, c.status)
            if items:
                held = (c.status.weapon, c.status.off_hand, sheet.armour, sheet.shield)
                taboo = tuple(i.name for i in held if i is not None and sheet.taboo(i))
                events.append(ForbiddenEquipment(0, c.id, tuple(items), taboo))
        if self.ambush is not None:
            events.extend(self._surprise(state, dice))
        events.append(round_started(state, 1, frozenset(), self.round_order(state, 1).order))
        return events

    def surprise_difficulty(self, state: FightState) -> tuple[int, dict[str, int]]:
        """The difficulty of the SAG test against this fight's ambush and its parts."""
        assert self.ambush is not None
        return surprise_difficulty(
            state, self.ambush, self.ambush_difficulty, self.surprise_modifier
        )

    def _surprise(self, state: FightState, dice: Dice) -> list[Event]:
        difficulty, _ = self.surprise_difficulty(state)
        assert self.ambush is not None
        return surprise_tests(state, dice, self.ambush, difficulty, self.surprised_defence_malus)

    # ------------------------------------------------------------ turns

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        """Its turn when it is due, otherwise an ``await`` until it is."""
        c = state.combatants[cid]
        waits = False  # whether it awaits its turn already (loops, not any(): per action)
        for a in c.actions:
            if a.kind == TURN:
                return []
            if a.channel == TURN_CHANNEL:
                waits = True
        if not self._in_turn(state) and self._next_due(state, segment) is c:
            return [_TURN]
        return [] if waits else [_AWAIT]

    def _next_due(self, state: FightState, segment: int) -> Combatant | None:
        """:func:`next_due`, worked out once per state of the fight and round."""
        rnd = round_of(segment)
        memo = self._due
        if memo[0] is state and memo[1] == state.version and memo[2] == rnd:
            return memo[3]
        c = self.round_order(state, rnd).next_due()
        self._due = (state, state.version, rnd, c)
        return c

    def round_order(self, state: FightState, rnd: int) -> RoundOrder:
        """The round's initiative order (:class:`RoundOrder`), sorted again only when
        someone joins the fight, the round changes or someone lowers its initiative."""
        counts = turn_counts(state)
        order = self._order
        if order is None or not order.fits(state, rnd, counts):
            order = self._order = RoundOrder(state, rnd, counts)
        return order

    def _in_turn(self, state: FightState) -> bool:
        """:func:`turn_in_progress`, worked out once per state of the fight: only the
        fighter whose turn was planned last can hold one (a state the rules have not
        planned a turn in yet is looked over whole)."""
        memo = self._turn
        if memo[0] is state and memo[1] == state.version:
            return memo[2]
        holder = self._holder
        if holder[0] is state:
            busy = False
            c = holder[1]
            if c is not None:
                for a in c.actions:
                    if a.kind == TURN:
                        busy = True
                        break
        else:
            busy = turn_in_progress(state)
            self._holder = (
                state,
                next((c for c in state.in_fight() if any(a.kind == TURN for a in c.actions)), None),
            )
        self._turn = (state, state.version, busy)
        return busy

    def due(self, state: FightState, time: int) -> Sequence[str]:
        """The next fighter in initiative order once no turn is in progress."""
        if self._in_turn(state):
            return ()
        c = self._next_due(state, time)
        return () if c is None else (c.id,)

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        c = state.combatants[cid]
        if declaration is _TURN:  # the rules' own, well formed: no need to look it over
            return self._plan_turn(state, c, segment)
        if declaration is _AWAIT:
            return self._plan_await(state, c, segment)
        kind = KINDS.get(declaration.kind)
        if kind is None:
            known = ", ".join(k for k, v in KINDS.items() if v.category != "rules")
            raise IllegalDeclaration(
                f"unknown action {declaration.kind!r} (known: {known})", rule=RULE_ACTIONS
            )
        unknown_params(declaration.kind, declaration.params, kind.params)
        if declaration.kind in UNTARGETED:
            untargeted(declaration, kind.params)
        known_target(state, declaration)
        if declaration.kind == TURN:
            return self._plan_turn(state, c, segment)
        if declaration.kind == AWAIT:
            return self._plan_await(state, c, segment)
        if declaration.kind == "wait":
            return plan_wait(declaration, segment)
        marker = next((a for a in c.actions if a.kind == TURN and a.start == segment), None)
        if marker is None:
            raise IllegalDeclaration(
                f"it is not {cid}'s turn: fighters act one at a time in initiative order",
                rule=RULE_INITIATIVE,
            )
        assert marker.end is not None
        mine = [
            (a.kind, a.params) for a in c.actions if a.channel == ACT_CHANNEL and a.start == segment
        ] + [(p.kind, p.params) for p in planned if p.channel == ACT_CHANNEL]
        check_shape(c, declaration, mine, self.total_defence_move)
        target, params = PLANNERS[declaration.kind](state, c, declaration, planned)
        return Action(
            declaration.kind,
            marker.end - segment,
            ACT_CHANNEL,
            target=target,
            rolled=declaration.kind in ("attack", "concerted_attack", "two_weapons"),
            params=params,
        )

    def _plan_turn(self, state: FightState, c: Combatant, segment: int) -> ActionSpec:
        for a in c.actions:
            if a.kind == TURN:
                raise IllegalDeclaration("a turn is already in progress", rule=RULE_INITIATIVE)
        if self._in_turn(state):
            raise IllegalDeclaration("a turn is already in progress", rule=RULE_INITIATIVE)
        if self._next_due(state, segment) is not c:
            raise IllegalDeclaration(f"it is not {c.id}'s turn", rule=RULE_INITIATIVE)
        rnd = round_of(segment)
        left = round_start(rnd + 1) - segment
        waiting = self.round_order(state, rnd).still_to_act(turn_counts(state))
        # turn_length(state, segment, self.turn_segments), from the order kept
        length = max(1, min(self.turn_segments, left // max(1, waiting)))
        self._holder = (state, c)
        return Action(TURN, length, TURN_CHANNEL, public=True, params={"round": rnd})

    def _plan_await(self, state: FightState, c: Combatant, segment: int) -> ActionSpec:
        for a in c.actions:
            if a.channel == TURN_CHANNEL:
                raise IllegalDeclaration(f"{c.id} already has its turn or awaits it")
        if self._next_due(state, segment) is None:
            # Nobody is left to act: the await ends with the round, which calls the next.
            length = round_start(round_of(segment) + 1) - segment
            return Action(AWAIT, length, TURN_CHANNEL, continuous=True)
        return Action(AWAIT, None, TURN_CHANNEL, continuous=True)

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        raise IllegalDeclaration(
            f"{action.kind} #{action.id} cannot be cancelled: a declared turn is played",
            rule=RULE_ACTIONS,
        )

    # ------------------------------------------------------------ resolution

    def order_key(self, action: Action) -> tuple[Any, ...]:
        """A turn's own actions in the order declared, then the end of the turn."""
        return (int(action.kind == TURN),)

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        settlement = Settlement(self, state, segment, dice)
        for marker in batch:
            if marker.kind == TURN and not marker.cancelled:
                actor = marker.actor
                own = [
                    a
                    for a in batch
                    if a.actor == actor and a.channel == ACT_CHANNEL and not a.cancelled
                ]
                settlement.turn(marker, own)
        time = segment + 1
        if time % ROUND_SEGMENTS == 0:
            settlement.new_round(round_of(time))
        return settlement.events

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        """The fighter's own view finds the others and the legal declarations when asked
        (a :class:`ViewObservation`: no function made for each observation)."""
        c = state.combatants[cid]
        rnd = round_of(segment)
        marker = None
        for a in c.actions:
            if a.kind == TURN and a.start == segment:
                marker = a
                break
        # SelfView(state, segment, self, c, rnd, marker), without calls of its class
        # and of its bases' (once an observation).
        me = _new_self_view(SelfView)
        me._state = state
        me._version = state.version
        me._segment = segment
        me.id = cid
        me.side = c.side
        me.name = c.name
        me.is_pc = c.is_pc
        me._rules = self
        me._o = c
        me._round = rnd
        me.sheet = c.sheet
        me.round = rnd
        me._marker = marker
        return ViewObservation(segment, cid, marker is not None, me, state)

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        c = state.combatants[cid]
        status: Status = c.status
        sheet: Sheet = c.sheet
        candidates = [
            Declaration("pass"),
            Declaration("simple_defence"),
            Declaration("total_defence"),
            Declaration("delay", params={"initiative": initiative(c, round_of(segment)) - 1}),
        ]
        for o in state.in_fight():
            if o.id == cid:
                continue
            candidates.append(Declaration("move", o.id))
            if o.side == c.side:
                continue
            candidates.append(Declaration("attack", o.id))
            candidates.append(Declaration("two_weapons", o.id))
            for ally in state.in_fight():
                if ally.side == c.side and ally.id != cid:
                    candidates.append(Declaration("concerted_attack", o.id, {"partner": ally.id}))
        candidates += [Declaration("draw", params={"weapon": w.id}) for w in status.carried]
        candidates += [Declaration("capability", params={"name": n}) for n in sheet.capabilities]
        out: list[DeclarationLike] = []
        for d in candidates:
            try:
                self.plan(state, cid, d, segment, [])
            except IllegalDeclaration:
                continue
            out.append(d)
        return tuple(out) or (Declaration("wait"),)
