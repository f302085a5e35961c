"""The RinKaNou ruleset (text 004): timed actions on the native segment timeline.

This module checks and times declarations, starts the fight and builds observations;
:mod:`segsim.rules.rinkanou.settle` resolves what completes in a segment.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import attr
import attrs

from segsim.actions import (
    EMPTY,
    Action,
    ActionSpec,
    Declaration,
    DeclarationLike,
    SharedTables,
)
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration
from segsim.events import Event
from segsim.input import Node
from segsim.native import attrs_dunders, field, mypyc_attr
from segsim.observation import ViewObservation
from segsim.policy import Observation
from segsim.rules import BaseRuleset, given_content, unknown_params
from segsim.rules.rinkanou.content import (
    SIZES,
    Content,
    RangedWeapon,
    Sheet,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.rinkanou.events import (
    CommandPointsChanged,
    HandsChanged,
    SituationChanged,
    StanceChanged,
    SurpriseMalus,
    TestRolled,
    WeaponState,
)
from segsim.rules.rinkanou.manoeuvres import KEEPING
from segsim.rules.rinkanou.roll import difficulty_value
from segsim.rules.rinkanou.situation import NO_PS, SHAPES, SPENDS, PSUse, parse_ps
from segsim.rules.rinkanou.views import Flights, Reaches, SelfView, SharedSeen, reach_of
from segsim.rules.rinkanou.viewstores import observation as _observation
from segsim.state import SMALL_FIGHT, Combatant, FightState, by_order

if TYPE_CHECKING:
    from segsim.rules.rinkanou.settle import SheetFacts

TEXT = "RinKaNou"
LOCK_SEGMENTS = 3  # Verrouiller, for every weapon (RinKaNou, "Actions de combat")
DODGE_SEGMENTS = 3  # Esquiver
REPOSITION_SEGMENTS = 5  # Se placer
DISENGAGE_SEGMENTS = 10  # Se désengager
READ_SEGMENTS = 1  # a read is a glance: one segment (see the rules page)
DRAW_SEGMENTS = 10  # changing weapons takes a second (see the rules page)
PICK_UP_SEGMENTS = 10  # stooping for a dropped weapon takes a second
PICK_UP_REACH = 0.5  # metres: within arm's length when stooping
PACES = ("walk", "run")
SIZE_TABLE_READINGS = ("contest", "parry")
"""How the parry's size table reads: points in the strength contest (one per 10 %), or a
% malus on the parry roll (its title: "Malus pour parer une arme")."""
AFTER_DODGE_READINGS = ("succeeded", "performed")
"""How "vient de réussir (effectuer ?) une esquive" reads (RinKaNou, "Se désengager")."""
THRUST_PARRY_READINGS = ("margin", "fixed")
"""Whether a parry against a thrust is against the attacker's Mr (RinKaNou, "Coup
d'estoc")."""
REACH_TOLERANCE = 1e-5  # positions are kept to the micrometre: a hair's breadth is in reach


def within(a: tuple[float, float], b: tuple[float, float], reach: float) -> bool:
    """Whether two positions are within ``reach`` metres of each other."""
    return math.dist(a, b) <= reach + REACH_TOLERANCE


def toward_point(
    start: tuple[float, float], goal: tuple[float, float], budget: float, stop: float
) -> tuple[float, float]:
    """Move from ``start`` toward ``goal`` by at most ``budget``, halting ``stop`` short."""
    distance = math.dist(start, goal)
    # min(budget, max(0.0, distance - stop)), without their calls (the same choices:
    # max() keeps its first of equals, min() likewise)
    short = distance - stop
    short = short if short > 0.0 else 0.0
    travel = short if short < budget else budget
    if distance == 0 or travel <= 0:
        return start
    return point_at(start, goal, travel / distance)


_WHOLE = 6755399441055744.0
"""1.5 * 2**52: a float below 2**51 in size, with this added and taken off again, comes
out rounded to the nearest whole number (by the float addition's own rounding)."""


def point_at(
    start: tuple[float, float], goal: tuple[float, float], f: float
) -> tuple[float, float]:
    """The point a fraction ``f`` of the way from ``start`` to ``goal``, each coordinate
    rounded to the micrometre as ``round(v, 6)`` rounds it (the grain of positions),
    most often without its call: ``round`` with digits goes through a decimal string,
    some 2,600 instructions a call, and a walk rounds four coordinates. ``v * 1e6``
    rounded to a whole number ``k`` by float arithmetic is the rounding ``round`` makes
    of the exact value whenever it lies clear of half way (by far more than the
    product's error: below 1e12 in size, under 1e-4), and ``k / 1e6`` (both exact, the
    quotient correctly rounded) is then the float nearest ``k`` millionths, ``round``'s
    own answer; a zero keeps ``v``'s sign, as ``round``'s does. Anything else (near half
    way, huge, not finite) is asked of ``round``. The same floats, bit for bit
    (tests/test_rinkanou_shortcuts.py checks them against ``round``)."""
    x = start[0] + (goal[0] - start[0]) * f
    p = x * 1e6
    if -1e12 < p < 1e12:
        k = p + _WHOLE - _WHOLE
        x = (k / 1e6 if k else x * 0.0) if -0.499 < p - k < 0.499 else round(x, 6)
    else:
        x = round(x, 6)
    y = start[1] + (goal[1] - start[1]) * f
    p = y * 1e6
    if -1e12 < p < 1e12:
        k = p + _WHOLE - _WHOLE
        y = (k / 1e6 if k else y * 0.0) if -0.499 < p - k < 0.499 else round(y, 6)
    else:
        y = round(y, 6)
    return (x, y)


NOTHING_FORCED: list[Declaration] = []
"""What :meth:`RinKaNou.forced` answers when nothing is imposed (one list, never
modified: the engine only asks whether it is empty)."""
LOCK = Declaration("lock")
"""The lock the rules impose after a strike (a value: one serves every time)."""

DEFENCES = frozenset({"parry", "dodge"})
"""Actions that meet a blow: without a target, their points count against its author."""
SITUATION_KINDS = frozenset({"strike", "parry", "dodge", "reposition", "disengage"})
"""Actions whose resolution recomputes situation points; a move does when it rolls."""


def recomputes(action: Action | ActionSpec) -> bool:
    """Whether resolving ``action`` recomputes its fighter's situation points (RinKaNou,
    "Points de situation": attack, parry, dodge, movement...)."""
    return action.kind in SITUATION_KINDS or (action.kind == "move" and action.rolled)


@attrs.frozen
class Kind:
    """An action kind: the channel it occupies, whether it rolls, what it accepts."""

    channel: str
    rolled: bool
    params: frozenset[str] = frozenset()
    situation: bool = False  # resolving it recomputes situation points


_ACT = frozenset({"difficulty", "ps", "engage"})
KINDS: Mapping[str, Kind] = {
    "wait": Kind("wait", False, frozenset({"until", "clear"})),
    "arm": Kind("hands", False, frozenset({"ps", "engage"})),
    "strike": Kind("hands", True, _ACT | {"blow", "disarm", "grab"}, situation=True),
    "parry": Kind("hands", True, _ACT | {"with"}, situation=True),
    "lock": Kind("hands", False),
    "dodge": Kind("legs", True, _ACT | {"pc"}, situation=True),
    "reposition": Kind("legs", True, _ACT, situation=True),
    "disengage": Kind("legs", True, _ACT, situation=True),
    "move": Kind("legs", False, frozenset({"to", "toward", "pace", "segments", "stop_at"}) | _ACT),
    "read": Kind("eyes", True, frozenset({"action_id", "difficulty", "pc"})),
    "ready": Kind("hands", False, frozenset({"pc"})),
    "shoot": Kind("hands", True, frozenset({"shot", "difficulty", "pc", "disarm"})),
    "draw": Kind("hands", False, frozenset({"weapon"})),
    "regrip": Kind("hands", False, frozenset({"item"})),
    "pick_up": Kind("hands", False),
    "keep": Kind("hands", False),
    "stance": Kind("stance", False, frozenset({"oppose_disengage", "ps_bonus"})),
}
"""Action kinds: the channel each occupies (one action per channel), whether it rolls."""
_BARE = frozenset(
    name for name, kind in KINDS.items() if kind.params.isdisjoint({"ps", "pc", "engage"})
)
"""Kinds that take neither points nor an engagement (a wait, a draw...): unless it rolls,
the planner has nothing to add to such an action."""

ORDER = {
    "strike": 0,
    "projectile": 0,
    "shoot": 0,
    "parry": 1,
    "dodge": 1,
    "disengage": 2,
    "reposition": 3,
    "read": 4,
    "move": 5,
    "arm": 6,
    "lock": 7,
    "ready": 7,
    "draw": 7,
    "regrip": 7,
    "pick_up": 7,
    "wait": 9,
}
"""Order of resolution inside one segment: blows first, then what defends against them."""
_ORDER_KEYS = {kind: (rank,) for kind, rank in ORDER.items()}  # order_key's, made once
_OTHER_KEY = (8,)


@attr.s(auto_attribs=True, slots=True, init=False, order=False)
class Status:
    """A RinKaNou fighter's mutable state.

    In the compiled build it is a native class (``segsim/native.py``), whose fields the
    events' ``apply`` and the compiled code typed with it read and write directly: an
    ``attr.s`` class with its ``__init__`` written out in attrs' order, given attrs'
    equality and repr by :func:`~segsim.native.attrs_dunders` (which the pure build's
    attrs class has already)."""

    armed: bool = False
    must_lock: bool = False
    wounds: int = 0
    wound_level: str = ""
    wound_malus: int = 0
    ps: int = 0  # points de situation (PS)
    ps_since: int = 0  # declarations from this segment on draw on the current score
    # opponents taken into account ("pris en compte"): a tuple of ids (typed Any as the
    # event that sets it, SituationChanged.engaged, is)
    engaged: Any = ()
    surprise_malus: int = 0
    weapon_pr: int = 0
    shield_pr: int = 0
    disengaged: bool = False
    revealed: dict[int, tuple[str, str | None, int | None]] = field(factory=dict)
    command_points: int = 0  # points de commandement (PC)
    wielding: str = "melee"  # the weapon in hand: "melee" or "ranged"
    loaded: bool = False  # the ranged weapon is ready to loose
    grip: str = "held"  # the melee weapon: held, loose (two-handed), dropped, taken
    shield_aside: bool = False  # pushed aside by a disarm: no shield until regripped
    # action id -> its roll's modifiers (their imposed ones make its difficulty)
    rolled: dict[int, Mapping[str, int]] = field(factory=dict)
    # dodge action id -> whether every roll it made succeeded (Se désengager)
    dodged: dict[int, bool] = field(factory=dict)
    lost_arm: int = 0  # an arming whose blow a keeper spoiled (Tenir à distance)
    oppose_disengage: bool = True  # whether it opposes an opponent's disengage
    oppose_bonus: int = 0  # PS it spends on each such opposition roll

    def __init__(
        self,
        armed: bool = False,
        must_lock: bool = False,
        wounds: int = 0,
        wound_level: str = "",
        wound_malus: int = 0,
        ps: int = 0,
        ps_since: int = 0,
        engaged: Any = (),
        surprise_malus: int = 0,
        weapon_pr: int = 0,
        shield_pr: int = 0,
        disengaged: bool = False,
        revealed: dict[int, tuple[str, str | None, int | None]] | None = None,
        command_points: int = 0,
        wielding: str = "melee",
        loaded: bool = False,
        grip: str = "held",
        shield_aside: bool = False,
        rolled: dict[int, Mapping[str, int]] | None = None,
        dodged: dict[int, bool] | None = None,
        lost_arm: int = 0,
        oppose_disengage: bool = True,
        oppose_bonus: int = 0,
    ) -> None:
        self.armed = armed
        self.must_lock = must_lock
        self.wounds = wounds
        self.wound_level = wound_level
        self.wound_malus = wound_malus
        self.ps = ps
        self.ps_since = ps_since
        self.engaged = engaged
        self.surprise_malus = surprise_malus
        self.weapon_pr = weapon_pr
        self.shield_pr = shield_pr
        self.disengaged = disengaged
        self.revealed = {} if revealed is None else revealed
        self.command_points = command_points
        self.wielding = wielding
        self.loaded = loaded
        self.grip = grip
        self.shield_aside = shield_aside
        self.rolled = {} if rolled is None else rolled
        self.dodged = {} if dodged is None else dodged
        self.lost_arm = lost_arm
        self.oppose_disengage = oppose_disengage
        self.oppose_bonus = oppose_bonus


attrs_dunders(Status)


@mypyc_attr(allow_interpreted_subclasses=True)
class RinKaNou(BaseRuleset):
    """RinKaNou combat (text 004): segments of 0.1 s, d100 tests with margins.

    Options: ``ps_divisor`` (20, or the text's alternative 10) divides the margin into
    situation points after an action; ``start_roll`` (true) rolls Combat + Raison at the
    start of the fight for every fighter whose setup does not fix its PS; ``awareness``
    (metres, default: the whole field) is how far a fighter sees others act, which keeps
    battles of thousands as cheap per action as a duel; ``size_table`` ("contest", or
    "parry") says how the parry's size table reads (see the rules page, "Size table");
    ``move_roll`` (true) makes a move within an opponent's reach roll and recompute PS;
    ``after_dodge`` ("succeeded", or "performed") says which dodge makes the disengage
    that follows it immanquable (see the rules page, "Disengaging"); ``thrust_parry``
    ("margin", or "fixed") whether a parry against a thrust is made against the
    attacker's Mr (see the rules page, "Thrust parry").
    """

    name: ClassVar[str] = "rinkanou"
    title: ClassVar[str] = "RinKaNou: segment timeline, d100 with margins (text 004)"
    tick = 1

    def __init__(
        self,
        *,
        # The options come from a scenario's data and are checked below, so that a
        # wrong one is named: typed Any, not as the int, bool, float | None, str and
        # bool they must be, which a compiled build would check first, unnamed.
        ps_divisor: Any = 20,
        start_roll: Any = True,
        awareness: Any = None,
        size_table: Any = "contest",
        move_roll: Any = True,
        after_dodge: Any = "succeeded",
        thrust_parry: Any = "margin",
        content: Content | None = None,
    ) -> None:
        if type(ps_divisor) is not int or ps_divisor not in (10, 20):
            raise TypeError(f"ps_divisor is 20 or 10 (the text's alternative), not {ps_divisor!r}")
        if not isinstance(start_roll, bool):
            raise TypeError(f"start_roll is true or false, not {start_roll!r}")
        if awareness is not None and (
            isinstance(awareness, bool)
            or not isinstance(awareness, int | float)
            or not 0 < awareness < math.inf
        ):
            raise TypeError(f"awareness is a distance in metres, not {awareness!r}")
        if size_table not in SIZE_TABLE_READINGS:
            raise TypeError(
                f"size_table is 'contest' (points in the strength contest) or 'parry' (a % "
                f"malus on the parry roll), not {size_table!r}"
            )
        self.content = given_content(content, Content, default_content)
        self._reaches = self.content.tables.reach  # metres by reach category
        self.ps_divisor: int = ps_divisor
        self.start_roll: bool = start_roll
        self.awareness: float | None = float(awareness) if awareness is not None else None
        self._ps_shapes = SHAPES  # parse_ps checks by shape (shared: keyed by all they read)
        # The parameter tables of waits and moves toward someone, one per shape: a
        # battle's rear ranks declare the same few thousands of times.
        self._tables = SharedTables()
        # What a checked move toward someone was found to say, by declaration (see
        # _plan_move), and the longest reach of the tables (a move's reach test).
        self._moves: dict[int, MoveShape] = {}
        self._longest = max(self._reaches.values())
        # The settlement module imports this one: found once here, not per settlement.
        from segsim.rules.rinkanou.settle import Settlement, quiet

        self._settlement = Settlement
        self._quiet = quiet
        self._sheet_facts: dict[int, SheetFacts] = {}  # by id of the sheet each one keeps
        # What the views ask again and again, kept by the ruleset rather than in a
        # fight's state (DESIGN, principle 11): each fighter's reach, and what every
        # observer who has not read an action sees of it. Both are worked out from what
        # never changes (a fighter's sheet, a stamped action), so whichever fight asks
        # first, the value is the same; each fight's start lets go of the last one's.
        self._fighter_reaches: Reaches = {}
        self._seen_actions: SharedSeen = {}
        self._flights: Flights | None = None  # the missiles in flight, while unchanged
        if not isinstance(move_roll, bool):
            raise TypeError(f"move_roll is true or false, not {move_roll!r}")
        if after_dodge not in AFTER_DODGE_READINGS:
            raise TypeError(
                f"after_dodge is 'succeeded' (the text's word) or 'performed' (its doubt), "
                f"not {after_dodge!r}"
            )
        self.size_table: str = size_table
        self.move_roll: bool = move_roll
        if thrust_parry not in THRUST_PARRY_READINGS:
            raise TypeError(
                f"thrust_parry is 'margin' (against the attacker's Mr, and -20 %) or 'fixed' "
                f"(only the fixed -20 %), not {thrust_parry!r}"
            )
        self.after_dodge: str = after_dodge
        self.thrust_parry: str = thrust_parry
        options: dict[str, Any] = {
            "ps_divisor": ps_divisor,
            "start_roll": start_roll,
            "size_table": size_table,
            "move_roll": move_roll,
        }
        if awareness is not None:
            options["awareness"] = self.awareness
        if after_dodge != "succeeded":  # listed when chosen: older records need not say it
            options["after_dodge"] = after_dodge
        if thrust_parry != "margin":
            options["thrust_parry"] = thrust_parry
        self.options: Mapping[str, Any] = options

    # ------------------------------------------------------------ sheets and setup

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def load_setup(self, node: Node) -> dict[str, Any]:
        """The game master's calls for one fighter at the start (``[combatant.setup]``)."""
        setup: dict[str, Any] = {}
        if node.has("surprised"):
            setup["surprised"] = node.value("surprised", bool)
        if node.has("surprise_modifier"):
            setup["surprise_modifier"] = node.value("surprise_modifier", int)
        if node.has("start_modifier"):
            setup["start_modifier"] = node.value("start_modifier", int)
        if node.has("ps"):
            setup["ps"] = node.value("ps", int)
        if node.has("armed"):
            setup["armed"] = node.value("armed", bool)
        if node.has("command_points"):
            setup["command_points"] = node.value("command_points", int)
        if node.has("wielding"):
            setup["wielding"] = node.value("wielding", str, choices=("melee", "ranged"))
        if node.has("loaded"):
            setup["loaded"] = node.value("loaded", bool)
        if node.has("hidden"):
            setup["hidden"] = node.value("hidden", bool)
        if node.has("cover"):
            names = [loc.name for loc in self.content.tables.locations]
            cover = node.value("cover", list)
            for loc in cover:
                if loc not in names:
                    raise node.error("cover", f"unknown hit location {loc!r}")
            setup["cover"] = list(cover)
        if node.has("oppose_disengage"):
            setup["oppose_disengage"] = node.value("oppose_disengage", bool)
        if node.has("engage"):
            engage = node.value("engage", list)
            if not engage or not all(isinstance(x, str) for x in engage):
                raise node.error("engage", "a list of opponent ids taken into account")
            setup["engage"] = list(engage)
        node.finish()
        return setup

    def setup_problem(
        self, setup: Mapping[str, Any], sheet: Sheet, ids: Sequence[str]
    ) -> tuple[str, str] | None:
        """What is wrong with a fighter's setup given its sheet and the fight's ids
        (field, message), or None: checked when a scenario or record is read, so the
        fight does not fail at its start."""
        if setup.get("wielding") == "ranged" and sheet.ranged is None:
            return "wielding", "this fighter has no ranged weapon to wield"
        for other in setup.get("engage", ()):
            if other not in ids:
                return "engage", f"no combatant {other!r} to take into account"
        return None

    def new_status(self, sheet: Sheet) -> Status:
        shield = sheet.shield
        # Status(weapon_pr=..., shield_pr=...), its arguments given by position (cheaper
        # to bind, once per fighter and fight): the defaults up to weapon_pr, then the two.
        return Status(
            False,
            False,
            0,
            "",
            0,
            0,
            0,
            (),
            0,
            sheet.weapon.durability,
            shield.durability if shield is not None else 0,
        )

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        """Surprise (Réflexes), then the start-of-fight Combat + Raison roll (RinKaNou,
        "Surprise" and "Points de situation / En duel"), fighter by fighter."""
        # What the views kept of the previous fight is let go with it.
        self._fighter_reaches.clear()
        self._seen_actions.clear()
        self._flights = None
        events: list[Event] = []
        for c in state.combatants.values():
            events += self.enter(state, c.id, dice, 0)
        return events

    def enter(self, state: FightState, cid: str, dice: Dice, segment: int) -> list[Event]:
        """One fighter comes into the fight (at the start, or as a reinforcement): its
        setup, its surprise roll and its start-of-fight roll."""
        c = state.combatants[cid]
        t = segment
        events: list[Event] = []
        setup = c.setup
        malus = 0
        if setup:  # (most fighters have none: no look for each of its keys)
            if setup.get("armed"):
                events.append(WeaponState(t, c.id, True, False))
            if setup.get("wielding", "melee") != "melee" or setup.get("loaded"):
                if setup.get("wielding") == "ranged" and c.sheet.ranged is None:
                    raise ValueError(f"{c.id} has no ranged weapon to wield")
                wielding = str(setup.get("wielding", "melee"))
                events.append(
                    HandsChanged(t, c.id, wielding, bool(setup.get("loaded")), "held", False)
                )
            if setup.get("command_points"):
                events.append(
                    CommandPointsChanged(t, c.id, int(setup["command_points"]), "position")
                )
            if setup.get("oppose_disengage") is False:
                events.append(StanceChanged(t, c.id, False, 0))
            if setup.get("surprised"):
                mods = {
                    "reflexes x2": 2 * c.sheet.characteristic("reflexes"),
                    "situation": int(setup.get("surprise_modifier", 0)),
                }
                chance = sum(mods.values())
                result = TestRolled.rolled(
                    t, c.id, None, "surprise", chance, dice.d100("surprise", c.id), mods
                )
                events.append(result)
                if not result.success:
                    malus = -result.margin
                    events.append(SurpriseMalus(t, c.id, malus))
        engaged = self.default_engaged(state, c.id)
        if "engage" in setup:
            unknown = [x for x in setup["engage"] if x not in state.combatants]
            if unknown:
                raise ValueError(f"{c.id}: engage names no combatant {unknown[0]!r}")
            engaged = tuple(setup["engage"])
        if "ps" in setup:
            ps = int(setup["ps"])
        elif self.start_roll:
            # The roll's modifiers in their order, only those that count (not 0): the
            # table TestRolled.rolled() keeps, made once rather than filtered.
            sheet = c.sheet
            mods = {}  # (a dict[str, int], as the surprise roll's above)
            chance = 0
            value = sheet.skill("combat")
            if value:
                mods["combat"] = value
                chance += value
            value = sheet.characteristics["reason"]  # (sheet.characteristic(), without its call)
            if value:
                mods["reason"] = value
                chance += value
            if setup:
                value = int(setup.get("start_modifier", 0))
                if value:
                    mods["situation"] = value
                    chance += value
            if malus:
                mods["surprise"] = malus
                chance += malus
            result = TestRolled.rolled(
                t, c.id, None, "start", chance, dice.d100("start of fight", c.id), mods
            )
            events.append(result)
            if malus:
                events.append(SurpriseMalus(t, c.id, 0))
            ps = result.margin // 10 if result.success else -(result.margin // 10)
            ps -= max(0, len(engaged) - 1)
        else:
            return events
        events.append(SituationChanged(t, c.id, ps, t, engaged, "start"))
        return events

    # ------------------------------------------------------------ situation points

    def default_engaged(self, state: FightState, cid: str) -> tuple[str, ...]:
        """Opponents taken into account when a declaration names none and has no target
        (with one, its target is: see :meth:`_engage`): the nearest opponent."""
        c = state.combatants[cid]
        if self.awareness is not None:  # look around first: the grid's rings cost more
            around = [o for o in state.near(c.position, self.awareness) if o.side != c.side]
            return tuple(self._nearest(state, c, around, 1))
        return tuple(nearest_opponents(state, cid, 1))

    def usable_ps(
        self,
        state: FightState,
        c: Combatant,
        against: str | None,
        planned: Sequence[ActionSpec] = (),
    ) -> int:
        """The score a new action of ``c`` can use (against ``against`` if it is known).

        A positive score serves only against opponents taken into account, less what
        actions declared on it already spend; a negative one applies against the nearest
        opponents, one per point below zero (RinKaNou, "En mêlée").
        """
        st: Status = c.status
        if st.ps > 0:
            if not st.engaged or (against is not None and against not in st.engaged):
                return 0  # points serve only against opponents taken into account
            committed = 0
            for a in c.actions:
                if a.start >= st.ps_since and "ps" in a.params:
                    net = self.ps_use(state, a).net
                    if net > 0:  # max(0, net), without its call
                        committed += net
            for spec in planned:  # declared in the same breath
                if "ps" in spec.params:
                    net = self._spec_use(c, spec).net
                    if net > 0:
                        committed += net
            left = st.ps - committed
            return left if left > 0 else 0  # max(0, left), without its call
        if st.ps < 0:
            if against is None:
                return st.ps
            affected = nearest_opponents(state, c.id, -st.ps)
            return st.ps if against in affected else 0
        return 0

    def _ps_against(
        self, state: FightState, c: Combatant, opponents: Sequence[Combatant]
    ) -> dict[str, int]:
        """The score as it applies against each opponent in view (one search for the
        opponents a negative score applies to, not one per opponent)."""
        st: Status = c.status
        ps = st.ps
        found: dict[str, int] = {}  # plain loops: a comprehension is a call of its own
        if ps == 0:
            for o in opponents:
                found[o.id] = 0
        elif ps < 0:
            affected = self._nearest(state, c, opponents, -ps)
            for o in opponents:
                found[o.id] = ps if o.id in affected else 0
        else:
            usable = self.usable_ps(state, c, None)
            engaged = st.engaged
            for o in opponents:
                found[o.id] = usable if o.id in engaged else 0
        return found

    def _nearest(
        self, state: FightState, c: Combatant, seen: Sequence[Combatant], count: int
    ) -> list[str]:
        """The ``count`` nearest opponents: among those in view when there are enough of
        them (all within the awareness radius are in view), else by a grid search."""
        if len(seen) < count or self.awareness is None:
            return nearest_opponents(state, c.id, count)
        ranked = sorted(seen, key=lambda o: (math.dist(c.position, o.position), o.order))
        return [o.id for o in ranked[:count]]

    def ps_use(self, state: FightState, action: Action) -> PSUse:
        """The effects of an action's PS choices (already checked at its declaration,
        which kept them with the action it planned, as its ``memo``: nothing of a refused
        plan stays in the fight's state)."""
        if not action.params.get("ps"):
            return NO_PS
        use = action.memo
        if type(use) is PSUse:
            return use
        use = action.memo = self._spec_use(state.combatants[action.actor], action)
        return use

    def pc_use(self, state: FightState, action: Action) -> PSUse:
        """The effects of an action's command-point choices (checked at its declaration,
        which kept them as its ``memo``, as :meth:`ps_use`'s: an action takes command
        points or situation points, never both)."""
        if not action.params.get("pc"):
            return NO_PS
        use = action.memo
        if type(use) is PSUse:
            return use
        use = action.memo = self._spec_use(state.combatants[action.actor], action, "pc")
        return use

    def _spec_use(self, c: Combatant, action: Action | ActionSpec, key: str = "ps") -> PSUse:
        return parse_ps(
            action.params.get(key),
            kind=action.kind,
            duration=action.params.get("base_duration", action.duration),
            rolled=action.rolled,
            sheet=c.sheet,
            weapon_used=action.kind in ("strike", "parry")
            and action.params.get("with") != "shield",
            available=10**9,
            tables=self.content.tables,
            cache=self._ps_shapes,
        )

    # ------------------------------------------------------------ declarations

    started_kinds: ClassVar[frozenset[str]] = frozenset({"keep"})

    def started(self, state: FightState, action: Action) -> None:
        """A keep has started: from now on, moves look for keepers (until then none can
        exist). A hint kept in the state only once a keep is under way, never by a keep
        that was only planned (a refused declaration leaves no trace)."""
        state.extra[KEEPING] = True

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        c = state.combatants[cid]
        if c.status.must_lock:
            for a in c.actions:
                if a.kind == "lock":
                    return NOTHING_FORCED  # the lock is under way
            return [LOCK]
        return NOTHING_FORCED  # (shared, not a new list: once a fighter and phase)

    forced_when: ClassVar[str] = "must_lock"
    """:meth:`forced` imposes nothing on a fighter whose status's ``must_lock`` is
    false, so the engine does not ask it then (once a fighter and phase); a subclass
    with a ``forced`` of its own is asked every time unless it says so too."""

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        c = state.combatants[cid]
        notes = declaration.notes
        if notes is None or notes[0] is not KINDS:
            notes = _noted(declaration)
        _, situation, channel, planner, bare = notes
        name = declaration.kind
        # a wait in progress gives way; one declared in the same breath does not (each
        # list looked through only when it holds something: no iterator over nothing)
        if c.actions:
            for other in c.actions:
                if other.channel == channel and not other.continuous:
                    raise IllegalDeclaration(
                        f"cannot {name} while doing {other.kind} (both need the {channel})",
                        rule=f"{TEXT}, Actions simultanées",
                    )
        if planned:
            for other in planned:
                if other.channel == channel:
                    raise IllegalDeclaration(
                        f"cannot {name} while doing {other.kind} (both need the {channel})",
                        rule=f"{TEXT}, Actions simultanées",
                    )
        status: Status = c.status
        if channel == "hands" and status.must_lock and name != "lock":
            raise IllegalDeclaration(
                "after a strike the fighter must lock (3 segments) before anything else "
                "with the weapon",
                rule=f"{TEXT}, Actions de combat (Verrouiller)",
            )
        spec: ActionSpec = planner(self, state, c, declaration, segment)
        if declaration.target is not None and spec.target != declaration.target:
            # Not taken (a wait), or taken from elsewhere (a move's toward): never ignored.
            raise IllegalDeclaration(
                f"{name} takes no target, not {declaration.target!r}"
                + (f" (it goes to {spec.target})" if spec.target is not None else ""),
                rule=f"{TEXT}, Actions de combat",
            )
        # recomputes(spec), without its call
        situational = situation or (
            spec.rolled and (spec.kind in SITUATION_KINDS or spec.kind == "move")
        )
        if not situational and bare:
            return spec  # no points to check and no engagement to add (arming, waiting)
        params = declaration.params
        added: dict[str, Any] = {}  # parameters the points and the engagement add
        duration = spec.duration
        if "pc" in params:
            if "ps" in params:
                raise IllegalDeclaration(
                    "command points and situation points are never mixed on one action",
                    rule=f"{TEXT}, Points de commandement",
                )
            duration = self._with_pc(c, spec, declaration, planned, added)
        elif (situational or ("ps" in params and spec.kind != "move")) and (
            # No choices, no negative score and a duration parse_ps would take: nothing
            # spent, bought or owed (what _with_ps answers then, without its call).
            "ps" in params or status.ps < 0 or (duration is not None and duration < 1)
        ):
            duration = self._with_ps(state, c, spec, declaration, planned, added)
        if situational or "engage" in params:
            target = spec.target
            if target is not None and "engage" not in params:
                added["engage"] = (target,)  # _engage's answer, without its call
            else:
                added["engage"] = self._engage(state, c, declaration, spec)
        if added:
            # The planner owns this unstamped action (see Action.revised): its fields are
            # set in place, its parameters once, read-only as Action keeps them.
            spec.duration = duration
            spec.params = MappingProxyType({**spec.params, **added})
        return spec

    def _engage(
        self, state: FightState, c: Combatant, declaration: Declaration, spec: ActionSpec
    ) -> tuple[str, ...]:
        raw = declaration.params.get("engage")
        if raw is None:  # the target (of a strike...), else the nearest opponent
            target = spec.target
            return (target,) if target is not None else self.default_engaged(state, c.id)
        if isinstance(raw, str) or not isinstance(raw, list | tuple) or not raw:
            raise IllegalDeclaration(
                f"engage lists the opponents taken into account, not {raw!r}",
                rule=f"{TEXT}, Points de situation (En mêlée)",
            )
        for cid in raw:
            if not isinstance(cid, str):
                raise IllegalDeclaration(
                    f"engage lists opponent ids, not {cid!r}",
                    rule=f"{TEXT}, Points de situation (En mêlée)",
                )
            self._opponent(state, c, cid, "take into account")
        if spec.target is not None and spec.target not in raw:
            raise IllegalDeclaration(
                f"the target {spec.target} must be among the opponents taken into account",
                rule=f"{TEXT}, Points de situation (En mêlée)",
            )
        return tuple(dict.fromkeys(raw))

    def _with_ps(
        self,
        state: FightState,
        c: Combatant,
        spec: ActionSpec,
        declaration: Declaration,
        planned: Sequence[ActionSpec],
        added: dict[str, Any],
    ) -> int | None:
        """Check an action's PS choices; put them (and the base duration they change) in
        ``added``; return the action's duration with them."""
        raw = declaration.params.get("ps")
        # With no choices, only a negative score can owe anything: the usable score is
        # worked out only if there are choices or such a score (it is 0 or more otherwise).
        owes_nothing = raw is None and c.status.ps >= 0
        if c.status.ps < 0 and spec.target is None and spec.kind in DEFENCES:
            # Whom it will meet is not known yet: what it owes is settled against the
            # author of the blow it meets (Settlement.defence_points), not refused now.
            available = 0
        elif owes_nothing:
            available = 0
        else:
            available = self.usable_ps(state, c, spec.target, planned)
        duration = spec.duration
        if raw is None and available >= 0 and (duration is None or duration >= 1):
            return duration  # nothing spent, bought or owed: nothing parse_ps would refuse
        use = parse_ps(
            raw,
            kind=spec.kind,
            duration=duration,
            rolled=spec.rolled,
            sheet=c.sheet,
            weapon_used=spec.kind in ("strike", "parry") and spec.channel == "hands",
            available=available,
            tables=self.content.tables,
            cache=self._ps_shapes,
        )
        if use is NO_PS or raw is None:
            return duration
        added["ps"] = dict(raw)
        spec.memo = use  # what ps_use will find for the action (the planner owns it)
        if use.duration and duration is not None:
            added["base_duration"] = duration
            duration += use.duration
        return duration

    def _with_pc(
        self,
        c: Combatant,
        spec: ActionSpec,
        declaration: Declaration,
        planned: Sequence[ActionSpec],
        added: dict[str, Any],
    ) -> int | None:
        """Command points: spent and bought like PS, on ranged and immobile actions; the
        same score can be used every segment, shared by what is declared in it. Like
        :meth:`_with_ps`, it fills ``added`` and returns the duration."""
        raw = declaration.params["pc"]
        committed = (  # what the fighter's other declarations of the segment take
            sum(max(0, self._spec_use(c, p, "pc").net) for p in planned if "pc" in p.params)
            if planned
            else 0
        )
        score = c.status.command_points
        use = parse_ps(
            raw,
            kind=spec.kind,
            duration=spec.duration,
            rolled=spec.rolled,
            sheet=c.sheet,
            weapon_used=False,
            available=score - committed if score > 0 else score,
            tables=self.content.tables,
            cache=self._ps_shapes,
            currency="PC",
        )
        added["pc"] = dict(raw)
        spec.memo = use  # what pc_use will find for the action (the planner owns it)
        duration = spec.duration
        if use.duration and duration is not None:
            added["base_duration"] = duration
            duration += use.duration
        return duration

    def _common(self, declaration: Declaration) -> dict[str, Any]:
        difficulty = difficulty_value(declaration.params.get("difficulty", 0))
        return {"difficulty": difficulty} if difficulty else {}

    def _plan_wait(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        until = d.params.get("until")
        clear = d.params.get("clear")
        if until is None:
            if clear is not None:
                raise IllegalDeclaration(
                    "a wait for the way to clear needs an until bound (nobody waits forever)",
                    rule="RULES-NOTES, Waiting",
                )
            # (Positional: a class called with keywords builds a dictionary of them.)
            return Action("wait", None, "wait", None, False, 0, True, False, False, False)
        if not isinstance(until, int) or isinstance(until, bool) or until <= segment:
            raise IllegalDeclaration(
                f"wait until must be a later segment than {segment}, not {until!r}"
            )
        if clear is not None:
            if (
                not isinstance(clear, int | float)
                or isinstance(clear, bool)
                or not 0 < clear < math.inf
            ):
                raise IllegalDeclaration(
                    f"clear is a radius in metres (above 0), not {clear!r}",
                    rule="RULES-NOTES, Waiting",
                )
            clear = float(clear)
        key = ("wait", until, clear)
        params = self._tables.get(key)
        if params is None:
            table: dict[str, Any] = {"until": until}
            if clear is not None:
                table["clear"] = clear
            params = self._tables.keep(key, table)
        return Action(
            "wait", until - segment, "wait", None, False, 0, True, False, False, False, params
        )

    def _usable_weapon(self, c: Combatant) -> None:
        status: Status = c.status
        if status.wielding == "melee" and status.grip == "held" and status.weapon_pr > 0:
            return
        if status.wielding != "melee":
            raise IllegalDeclaration(
                f"the {c.sheet.weapon.name} is not in hand: draw it first", rule=f"{TEXT}"
            )
        if status.grip != "held":
            what = {"loose": "has lost its grip: regrip first", "dropped": "is on the ground"}
            raise IllegalDeclaration(
                f"the {c.sheet.weapon.name} {what.get(status.grip, 'was taken')}",
                rule=f"{TEXT}, Manœuvres de combat (Désarmement)",
            )
        if status.weapon_pr <= 0:
            raise IllegalDeclaration(
                f"the {c.sheet.weapon.name} is broken (0 PR) and cannot be used",
                rule=f"{TEXT}, Caractéristiques des armes (Points de résistance)",
            )

    def _plan_arm(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        status: Status = c.status
        if status.wielding != "melee" or status.grip != "held" or status.weapon_pr <= 0:
            self._usable_weapon(c)  # (called only to name what is wrong)
        if status.armed:
            raise IllegalDeclaration("the blow is already armed", rule=f"{TEXT}, Attaque")
        return Action("arm", c.sheet.weapon.speed, "hands")

    def _plan_strike(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        status: Status = c.status
        if status.wielding != "melee" or status.grip != "held" or status.weapon_pr <= 0:
            self._usable_weapon(c)  # (called only to name what is wrong)
        if not status.armed:
            raise IllegalDeclaration(
                "a strike needs an armed blow: arm first",
                rule=f"{TEXT}, Actions de combat (Attaquer = Armer + Frapper)",
            )
        sheet: Sheet = c.sheet
        weapon = sheet.weapon
        target = self._opponent(state, c, d.target, "strike")
        p = d.params
        blow = p["blow"] if "blow" in p else _best_blow(sheet)
        if not isinstance(blow, str) or blow not in weapon.damage:
            raise IllegalDeclaration(
                f"the {weapon.name} has no {blow!r} blow (it has: {', '.join(weapon.blows)})"
            )
        reach = self.reach(sheet)
        distance = math.dist(c.position, state.combatants[target].position)
        if distance > reach + REACH_TOLERANCE:  # not within(): the same test
            raise IllegalDeclaration(
                f"{target} is {distance:.2f} m away, beyond the {weapon.name}'s reach "
                f"({weapon.reach}, {reach:g} m)",
                rule=f"{TEXT}, Caractéristiques des armes (Allonge)",
            )
        difficulty = difficulty_value(p["difficulty"]) if "difficulty" in p else 0
        frozen: Mapping[str, Any]
        if not difficulty and p.get("disarm") is None and not p.get("grab"):
            # A plain blow (most strikes): its table shared, not made for each strike.
            key = ("strike", blow)
            shared = self._tables.get(key)
            frozen = shared if shared is not None else self._tables.keep(key, {"blow": blow})
        else:
            params: dict[str, Any] = (
                {"blow": blow, "difficulty": difficulty} if difficulty else {"blow": blow}
            )
            if p.get("disarm") is not None or p.get("grab"):
                params.update(self._disarm_params(state, c, target, d))
            frozen = MappingProxyType(params)  # no copy of a table of its own
        return Action(  # (positional: no dictionary of keywords made for the call)
            "strike",
            weapon.speed,
            "hands",
            target,
            True,
            difficulty,
            False,
            False,
            False,
            True,
            frozen,
        )

    def _disarm_params(
        self, state: FightState, c: Combatant, target: str, d: Declaration
    ) -> dict[str, Any]:
        """Disarm (a localized blow at -50 %) and grab (a disarm with a free hand, then a
        strength duel) (RinKaNou, "Manœuvres de combat")."""
        what = d.params.get("disarm", "weapon")
        grab = bool(d.params.get("grab", False))
        if what not in ("weapon", "shield"):
            raise IllegalDeclaration(f"disarm 'weapon' or 'shield', not {what!r}")
        other = state.combatants[target]
        if what == "shield" and (other.sheet.shield is None or other.status.shield_aside):
            raise IllegalDeclaration(f"{target} has no shield in hand to push aside")
        if what == "weapon" and other.status.grip in ("dropped", "taken"):
            raise IllegalDeclaration(f"{target}'s weapon is no longer in hand")
        if grab:
            if c.sheet.weapon.hands == 2 or (
                c.sheet.shield is not None and not c.status.shield_aside
            ):
                raise IllegalDeclaration(
                    "grabbing needs a free hand (a one-handed weapon and no shield)",
                    rule=f"{TEXT}, Manœuvres de combat (Agripper)",
                )
            if what != "weapon":
                raise IllegalDeclaration("a shield cannot be torn away: push it aside instead")
        return {"disarm": what, **({"grab": True} if grab else {})}

    def _plan_parry(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        p = d.params
        using = p.get("with", "weapon")
        target = None
        if d.target is not None:
            target = self._opponent(state, c, d.target, "parry")
        difficulty = difficulty_value(p["difficulty"]) if "difficulty" in p else 0
        common = {"difficulty": difficulty, "with": using} if difficulty else {"with": using}
        if using == "shield":
            shield = c.sheet.shield
            if shield is None:
                raise IllegalDeclaration("no shield to parry with", rule=f"{TEXT}, Cas du bouclier")
            if c.status.shield_pr <= 0:
                raise IllegalDeclaration(
                    f"the {shield.name} is broken (0 PR)", rule=f"{TEXT}, Cas du bouclier"
                )
            if c.status.shield_aside:
                raise IllegalDeclaration(
                    f"the {shield.name} was pushed aside: regrip it first",
                    rule=f"{TEXT}, Manœuvres de combat (Désarmement)",
                )
            return Action("parry", shield.speed, "shield", target, True, difficulty, params=common)
        if using != "weapon":
            raise IllegalDeclaration(f"parry with 'weapon' or 'shield', not {using!r}")
        self._usable_weapon(c)
        status: Status = c.status
        speed = c.sheet.weapon.speed
        # A parry lasts a strike once armed, or arm + strike when not armed.
        duration = speed if status.armed else 2 * speed
        return Action(
            "parry", duration, "hands", target, True, difficulty, params=MappingProxyType(common)
        )

    def _plan_lock(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        if not c.status.must_lock:
            raise IllegalDeclaration("only a strike is followed by a lock")
        return Action("lock", LOCK_SEGMENTS, "hands")

    def _plan_dodge(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        """A dodge is made against someone (RinKaNou, "Esquive"): its ``target`` is the
        opponent whose blow (or missile) it meets, and the one its points count against;
        without one it meets the first blow and its points count against that blow's
        author, at settlement (RinKaNou, "En mêlée")."""
        spec = self._fixed(d, DODGE_SEGMENTS)
        if d.target is None:
            return spec
        return spec.revised(target=self._opponent(state, c, d.target, "dodge"))

    def _plan_reposition(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        return self._fixed(d, REPOSITION_SEGMENTS)

    def _plan_disengage(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        return self._fixed(d, DISENGAGE_SEGMENTS)

    def _fixed(self, d: Declaration, duration: int) -> ActionSpec:
        """A rolled movement of fixed duration (dodge, reposition, disengage)."""
        p = d.params
        difficulty = difficulty_value(p["difficulty"]) if "difficulty" in p else 0
        params = {"difficulty": difficulty} if difficulty else EMPTY
        # (Positional: no dictionary of keywords made for the call.)
        return Action(
            d.kind, duration, "legs", None, True, difficulty, False, False, False, True, params
        )

    def _plan_move(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        shape = self._moves.get(id(d))
        if shape is not None and shape[0] is d:
            return self._plan_known_move(state, c, d, shape)
        p = d.params
        pace = p.get("pace", "walk")
        if pace not in PACES:
            raise IllegalDeclaration(
                f"pace is walk or run, not {pace!r}", rule=f"{TEXT}, Mouvement"
            )
        segments = p.get("segments", 1)
        if not isinstance(segments, int) or isinstance(segments, bool) or segments < 1:
            raise IllegalDeclaration(f"segments must be a whole number >= 1, not {segments!r}")
        if ("to" in p) == ("toward" in p):
            raise IllegalDeclaration("move needs either to = [x, y] or toward = a combatant")
        params: Mapping[str, Any]
        if "to" in p:
            to = p["to"]
            if not (
                isinstance(to, list | tuple)
                and len(to) == 2
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
            ):
                raise IllegalDeclaration(f"move to [x, y] in metres, not {to!r}")
            params = {"pace": pace, "segments": segments, "to": [float(to[0]), float(to[1])]}
        else:
            other = p["toward"]
            if (
                not isinstance(other, str)
                or other not in state.combatants
                or not state.combatants[other].in_fight
            ):
                raise IllegalDeclaration(f"no combatant {other!r} in the fight to move toward")
            if other == c.id:
                raise IllegalDeclaration(
                    "a fighter cannot move toward itself", rule=f"{TEXT}, Mouvement"
                )
            stop = p.get("stop_at", self.reach(c.sheet))
            if not isinstance(stop, int | float) or isinstance(stop, bool) or stop < 0:
                raise IllegalDeclaration(f"stop_at is a distance in metres, not {stop!r}")
            stop = float(stop)
            key = ("move", pace, segments, other, stop)
            shared = self._tables.get(key)
            if shared is None:
                shared = self._tables.keep(
                    key, {"pace": pace, "segments": segments, "toward": other, "stop_at": stop}
                )
            params = shared
            if d.checked:  # what it says, found well formed: kept for its next time
                moves = self._moves
                if len(moves) >= MOVE_SHAPES:
                    moves.clear()
                given = p.get("stop_at")
                moves[id(d)] = (
                    d,
                    pace,
                    segments,
                    other,
                    None if given is None else stop,
                    _quiet_move_problem(p) is None,
                )
        # "Se déplacer" is multipliable: n segments declared at once are one action.
        if not (self.move_roll and self._in_reach_move(state, c, params)):
            problem = _quiet_move_problem(p)
            if problem is not None:
                raise IllegalDeclaration(problem, rule=f"{TEXT}, Mouvement (Se déplacer)")
            # A buy-back offered for it is moot (nothing to buy back): it is dropped, so a
            # policy need not guess whether its move will roll.
            return Action("move", segments, "legs", params=params)
        return self._rolled_move(state, c, d, segments, params)

    def _plan_known_move(
        self, state: FightState, c: Combatant, d: Declaration, shape: MoveShape
    ) -> ActionSpec:
        """:meth:`_plan_move` of a checked move toward someone it has planned before:
        what the declaration alone says was found well formed then (``shape``); what
        depends on the fight is checked as it was, in the same order."""
        _, pace, segments, other, stop, quiet = shape
        o = state.combatants.get(other)
        if o is None or not o.in_fight:
            raise IllegalDeclaration(f"no combatant {other!r} in the fight to move toward")
        if other == c.id:
            raise IllegalDeclaration(
                "a fighter cannot move toward itself", rule=f"{TEXT}, Mouvement"
            )
        if stop is None:  # the mover's reach (asked of the rules once per fighter)
            known = self._fighter_reaches.get(c)
            stop = float(known if known is not None else reach_of(self, c))
        key = ("move", pace, segments, other, stop)
        params = self._tables.get(key)
        if params is None:
            params = self._tables.keep(
                key, {"pace": pace, "segments": segments, "toward": other, "stop_at": stop}
            )
        if not (self.move_roll and self._in_reach_move(state, c, params)):
            if not quiet:
                problem = _quiet_move_problem(d.params)
                assert problem is not None
                raise IllegalDeclaration(problem, rule=f"{TEXT}, Mouvement (Se déplacer)")
            return Action("move", segments, "legs", params=params)
        return self._rolled_move(state, c, d, segments, params)

    def _rolled_move(
        self,
        state: FightState,
        c: Combatant,
        d: Declaration,
        segments: int,
        params: Mapping[str, Any],
    ) -> ActionSpec:
        """A move within an opponent's reach (see :meth:`_plan_move`)."""
        p = d.params
        # Within an opponent's reach it is a combat action: Combat + Souplesse, and it
        # recomputes situation points (RinKaNou, "Points de situation").
        difficulty = difficulty_value(p.get("difficulty", 0))
        target = params.get("toward")
        return Action(
            "move",
            segments,
            "legs",
            target if target is not None and self._is_opponent(state, c, target) else None,
            True,
            difficulty,
            params={**params, **self._common(d)},
        )

    def _in_reach_move(self, state: FightState, c: Combatant, params: Mapping[str, Any]) -> bool:
        """Whether a move starts or (as planned now) ends within an opponent's reach."""
        per_segment = c.sheet.movement / 10 * (c.sheet.run_factor if params["pace"] == "run" else 1)
        budget = per_segment * int(params["segments"])
        if "to" in params:
            goal = (float(params["to"][0]), float(params["to"][1]))
            stop = 0.0
        else:
            goal = state.combatants[params["toward"]].position
            stop = float(params["stop_at"])
        if self.awareness is not None:
            # An opponent counts when it is seen (within the awareness radius of the
            # mover, exactly, as its views count it) and has either spot within its
            # reach: one search around the mover, on the opponents' grids, finds every
            # such one. It is the search of the mover's own look around, which it has
            # just made to decide (the grid remembers the answer). Where the move ends
            # is worked out only if someone is seen (a rear rank sees nobody).
            seen = self.awareness
            combatants = state.combatants
            end: tuple[float, float] | None = None
            for side, grid in state.side_grids.items():
                if side == c.side:
                    continue
                for oid in grid.near(c.position, seen):
                    o = combatants[oid]
                    reach = self.reach(o.sheet)
                    if within(o.position, c.position, reach):
                        return True
                    if end is None:
                        end = toward_point(c.position, goal, budget, stop)
                    if within(o.position, end, reach):
                        return True
            return False
        longest = self._longest  # max(self.content.tables.reach.values())
        if len(state.grid.where) <= SMALL_FIGHT:  # len(state.grid), without its call
            # A small fight: its opponents scanned (the state's list), rather than two
            # searches of the grid. The grid's search names those within the longest
            # reach of a spot, then each is tested against its own: both tests here.
            # Where the move ends is worked out only for an opponent it may bring into
            # reach: the end lies within the budget of here (give or take its rounding,
            # which the margin covers), so one farther than the budget and its reach
            # from here is farther than its reach from the end.
            here = c.position
            bound = longest + REACH_TOLERANCE
            kept = state._against.get(c.side)  # FightState.against(), without its call
            dist = math.dist
            end_at: tuple[float, float] | None = None
            x = here[0]
            for o in kept if kept is not None else state.against(c.side):
                known = self._fighter_reaches.get(o)
                reach = (known if known is not None else reach_of(self, o)) + REACH_TOLERANCE
                far = reach + budget + _END_MARGIN
                at = o.position
                gap = at[0] - x
                if gap > far or -gap > far:
                    continue  # farther along x alone (math.dist is never shorter than a side)
                d = dist(at, here)
                if d <= reach and d <= bound:
                    return True
                if d > far:
                    continue
                if end_at is None:
                    end_at = toward_point(c.position, goal, budget, stop)
                d = dist(o.position, end_at)
                if d <= reach and d <= bound:
                    return True
            return False
        end = toward_point(c.position, goal, budget, stop)
        for spot in (c.position, end):
            for o in state.near(spot, longest + REACH_TOLERANCE):
                if o.side != c.side and within(o.position, spot, self.reach(o.sheet)):
                    return True  # an opponent has it in reach
        return False

    def _is_opponent(self, state: FightState, c: Combatant, cid: str) -> bool:
        other = state.combatants.get(cid)
        return other is not None and other.side != c.side

    def _plan_read(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        if d.target is None or d.target not in state.combatants or d.target == c.id:
            raise IllegalDeclaration("read names another combatant as its target")
        # ``action_id`` (not ``action``, which a fight script uses for the kind) names the
        # action read; without it, the target's latest visible action in progress.
        action_id = d.params.get("action_id")
        other = state.combatants[d.target]
        visible = [a for a in other.actions if a.visible]
        if action_id is None and visible:
            seen: Action | None = max(visible, key=lambda a: (a.start, a.id))
        else:
            seen = next((a for a in visible if a.id == action_id), None)
        if seen is None:
            raise IllegalDeclaration(
                f"{d.target} has no visible action #{action_id!r} in progress to read",
                rule=f"{TEXT}, Échelonnement des actions dans le temps",
            )
        difficulty = difficulty_value(d.params.get("difficulty", 0))
        return Action(
            "read",
            READ_SEGMENTS,
            "eyes",
            d.target,
            True,
            difficulty,
            visible=False,
            params={"action_id": seen.id, **self._common(d)},
        )

    # ------------------------------------------------------------ ranged and manoeuvres

    def _ranged(self, c: Combatant) -> RangedWeapon:
        ranged: RangedWeapon | None = c.sheet.ranged
        if ranged is None:
            raise IllegalDeclaration(f"{c.id} has no ranged weapon", rule=f"{TEXT}, Les portées")
        if c.status.wielding != "ranged":
            raise IllegalDeclaration(f"the {ranged.name} is not in hand: draw it first")
        return ranged

    def _plan_ready(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        ranged = self._ranged(c)
        if c.status.loaded:
            raise IllegalDeclaration(f"the {ranged.name} is already ready")
        return Action("ready", ranged.ready, "hands")

    def _plan_shoot(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        ranged = self._ranged(c)
        if not c.status.loaded:
            raise IllegalDeclaration(
                f"the {ranged.name} is not ready: ready it first ({ranged.ready} segments)"
            )
        target = self._opponent(state, c, d.target, "shoot")
        shot = d.params.get("shot", "direct")
        if shot not in ranged.flight:
            raise IllegalDeclaration(
                f"the {ranged.name} has no {shot!r} shot (it has: {', '.join(ranged.flight)})",
                rule=f"{TEXT}, Esquive de projectiles",
            )
        distance = math.dist(c.position, state.combatants[target].position)
        if distance > ranged.max_range:
            raise IllegalDeclaration(
                f"{target} is {distance:.0f} m away, beyond the {ranged.name}'s last range band "
                f"({ranged.max_range:g} m)",
                rule=f"{TEXT}, Les portées",
            )
        if distance / 5 > c.sheet.sight:
            raise IllegalDeclaration(
                f"{target} is too far to make out its silhouette (vision factor "
                f"{distance / 5:.0f} > {c.sheet.sight})",
                rule=f"{TEXT}, Les portées (La vision)",
            )
        p = d.params
        difficulty = difficulty_value(p["difficulty"]) if "difficulty" in p else 0  # (_common's)
        params: Mapping[str, Any]
        if not difficulty and not p.get("disarm"):
            # A plain shot (most of them): its table shared, not made for each shot.
            key = ("shoot", shot)
            shared = self._tables.get(key)
            params = shared if shared is not None else self._tables.keep(key, {"shot": shot})
            return Action("shoot", ranged.shoot, "hands", target, True, 0, params=params)
        params = {"shot": shot, "difficulty": difficulty} if difficulty else {"shot": shot}
        if p.get("disarm"):
            other = state.combatants[target]
            if not ranged.thrown or SIZES.index(ranged.size) < SIZES.index("medium"):
                raise IllegalDeclaration(
                    "only a thrown weapon of size M or more can disarm",
                    rule=f"{TEXT}, Manœuvres de combat (Désarmement avec une arme de jet)",
                )
            if other.sheet.weapon.hands != 1 or other.status.grip != "held":
                raise IllegalDeclaration(
                    "a thrown weapon disarms only a one-handed weapon in hand",
                    rule=f"{TEXT}, Manœuvres de combat (Désarmement avec une arme de jet)",
                )
            params["disarm"] = "weapon"
        return Action("shoot", ranged.shoot, "hands", target, True, difficulty, params=params)

    def _plan_draw(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        which = d.params.get("weapon", "ranged" if c.status.wielding == "melee" else "melee")
        if which not in ("melee", "ranged"):
            raise IllegalDeclaration(f"draw the 'melee' or the 'ranged' weapon, not {which!r}")
        if which == "ranged" and c.sheet.ranged is None:
            raise IllegalDeclaration(f"{c.id} has no ranged weapon to draw")
        if which == c.status.wielding:
            raise IllegalDeclaration(f"the {which} weapon is already in hand")
        return Action("draw", DRAW_SEGMENTS, "hands", params={"weapon": which})

    def _plan_regrip(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        item = d.params.get("item", "shield" if c.status.shield_aside else "weapon")
        if item == "shield":
            if not c.status.shield_aside or c.sheet.shield is None:
                raise IllegalDeclaration("the shield is in hand already")
            # As long as a parry with the shield (RinKaNou, Désarmement).
            return Action("regrip", c.sheet.shield.speed, "shield", params={"item": "shield"})
        if c.status.grip != "loose":
            raise IllegalDeclaration("there is no loosened grip to recover")
        # Half the arming time, rounded up (RULES-NOTES: "PI" means segments).
        duration = math.ceil(c.sheet.weapon.speed / 2)
        return Action("regrip", duration, "hands", params={"item": "weapon"})

    def _plan_pick_up(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        spot = state.extra.get("ground", {}).get((c.id, "weapon"))
        if spot is None:
            raise IllegalDeclaration("no weapon of yours lies on the ground")
        if not within(c.position, spot, PICK_UP_REACH):
            raise IllegalDeclaration(
                f"the weapon lies {math.dist(c.position, spot):.2f} m away: walk to it first"
            )
        return Action("pick_up", PICK_UP_SEGMENTS, "hands")

    def _plan_keep(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        self._usable_weapon(c)
        target = self._opponent(state, c, d.target, "keep at distance")
        mine = self.reach(c.sheet)
        theirs = self.reach(state.combatants[target].sheet)
        if mine <= theirs:
            raise IllegalDeclaration(
                f"keeping {target} at distance needs the longer weapon ({mine:g} m against "
                f"{theirs:g} m)",
                rule=f"{TEXT}, Manœuvres de combat (Tenir à distance)",
            )
        # Continuous like waiting (text 004): it lasts until the fighter does something else.
        return Action("keep", None, "hands", target, continuous=True, public=True)

    def _plan_stance(
        self, state: FightState, c: Combatant, d: Declaration, segment: int
    ) -> ActionSpec:
        """A fighter's standing choices, unseen by others: whether it opposes an
        opponent's disengage (RinKaNou, "Se désengager": only "s'il ne veut pas laisser
        le personnage s'échapper") and the PS it spends on that roll. A glance-long
        decision in a channel of its own; it holds from the next segment on."""
        oppose = d.params.get("oppose_disengage", c.status.oppose_disengage)
        if not isinstance(oppose, bool):
            raise IllegalDeclaration(f"oppose_disengage is true or false, not {oppose!r}")
        bonus = d.params.get("ps_bonus", 0)
        if not isinstance(bonus, int) or isinstance(bonus, bool) or bonus < 0:
            raise IllegalDeclaration(
                f"ps_bonus is a whole number of PS, not {bonus!r}",
                rule=f"{TEXT}, Se désengager",
            )
        params = {"oppose_disengage": oppose, "ps_bonus": bonus}
        return Action("stance", 1, "stance", visible=False, params=params)

    def _opponent(self, state: FightState, c: Combatant, target: str | None, what: str) -> str:
        if target is None:
            raise IllegalDeclaration(f"{what} needs a target")
        other = state.combatants.get(target)
        if other is None:
            raise IllegalDeclaration(f"no combatant {target!r} in this fight")
        if not other.in_fight:
            raise IllegalDeclaration(f"{target} is out of the fight")
        if other.side == c.side:
            raise IllegalDeclaration(f"{target} is on the same side")
        return target

    def reach(self, sheet: Sheet) -> float:
        """The weapon's reach in metres."""
        return self._reaches[sheet.weapon.reach]

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        super().check_cancel(state, action, segment)
        if action.forced:
            raise IllegalDeclaration("a lock after a strike cannot be cancelled")

    # ------------------------------------------------------------ resolution

    def order_key(self, action: Action) -> tuple[Any, ...]:
        return _ORDER_KEYS.get(action.kind, _OTHER_KEY)

    def order_table(self) -> tuple[Mapping[str, tuple[Any, ...]], tuple[Any, ...]] | None:
        """:meth:`order_key` as a table by kind and the key of any other kind, which the
        engine's sort reads without a call per action; None for a ruleset derived from
        this one that orders otherwise."""
        if type(self).order_key is not RinKaNou.order_key:
            return None
        return _ORDER_KEYS, _OTHER_KEY

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        events = self._quiet(state, segment, batch)  # arming, locking, waiting, readying only
        if events is None:
            events = self._settlement(self, state, segment, batch, dice).run()
        return events

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        # The view of the fighter and its observation, made without a call of their
        # classes and filled by an interpreted function in either build (see the
        # viewstores module: it stores into Python objects), given what it stores of the
        # fight's state, the fighter and the ruleset.
        c = state.combatants[cid]
        reach = self._fighter_reaches.get(c)
        return _observation(
            _new_self_view(SelfView),
            _new_observation(ViewObservation),
            self,
            state,
            state.version,
            segment,
            cid,
            must_act,
            c,
            c.side,
            c.position,
            tuple(c.actions),
            reach if reach is not None else reach_of(self, c),
            # With no awareness radius every opponent is in view: the state's list,
            # when it has one (as _seen() finds it, without its call).
            state._against.get(c.side) if self.awareness is None else None,
            None if state.autonomous else (),
        )

    def _in_view(self, state: FightState, c: Combatant) -> list[Combatant]:
        """Everyone ``c`` sees (itself included), in the fight's order."""
        return state.near(c.position, self.awareness)

    def _opponents_in_view(
        self, state: FightState, c: Combatant, in_view: list[Combatant] | None
    ) -> list[Combatant]:
        """The opponents ``c`` sees within the awareness radius, in the fight's order: of
        ``in_view`` when it is known. (With no radius, all are: ``state.against``.)"""
        radius = self.awareness
        assert radius is not None
        if in_view is not None:
            return [o for o in in_view if o.side != c.side]
        # The opponents' grids alone: in a battle, most in view are allies.
        combatants = state.combatants
        foes = [
            combatants[oid]
            for side, grid in state.side_grids.items()
            if side != c.side
            for oid in grid.near(c.position, radius)
        ]
        foes.sort(key=by_order)
        return foes

    def _sees(self, c: Combatant, o: Combatant) -> bool:
        """Whether ``c`` sees ``o``, another fighter in the fight."""
        return self.awareness is None or math.dist(c.position, o.position) <= self.awareness

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        c = state.combatants[cid]
        candidates = [
            Declaration("wait"),
            Declaration("arm"),
            Declaration("dodge"),
            Declaration("reposition"),
            Declaration("disengage"),
            Declaration("parry"),
            Declaration("parry", params={"with": "shield"}),
        ]
        for o in state.opponents(cid):
            for blow in c.sheet.weapon.blows:
                candidates.append(Declaration("strike", o.id, {"blow": blow}))
            candidates.append(Declaration("move", params={"toward": o.id}))
            for a in o.actions:
                if a.visible:
                    candidates.append(Declaration("read", o.id, {"action_id": a.id}))
        out: list[DeclarationLike] = []
        for d in candidates:
            try:
                self.plan(state, cid, d, segment, [])
            except IllegalDeclaration:
                continue
            out.append(d)
        return tuple(out)


# The deciding fighter's view and its observation, made without calling their classes
# (by their own __new__: object.__new__ in the pure build).
_new_self_view = SelfView.__new__
_new_observation = ViewObservation.__new__

_PLANNERS: dict[str, Callable[[RinKaNou, FightState, Combatant, Declaration, int], ActionSpec]] = {
    name: getattr(RinKaNou, f"_plan_{name}") for name in KINDS
}
"""The planner of each action kind (``RinKaNou._plan_<kind>``), found once."""


MOVE_SHAPES = 4096
"""How many checked moves' shapes a ruleset keeps at most (:data:`MoveShape`)."""

MoveShape = tuple[Declaration, str, int, str, float | None, bool]
"""What a checked move toward someone says, found well formed: the declaration itself
(whose identity the key is), its pace, segments, whom it goes toward, its ``stop_at``
(None: the mover's reach), and whether it may be a move without a roll."""


_END_MARGIN = 1e-3
"""Metres beyond the budget of a move within which its end is still worked out (the
end is rounded to a micrometre: :func:`toward_point`)."""


def _quiet_move_problem(p: Mapping[str, Any]) -> str | None:
    """Why a move's parameters ``p`` cannot be those of a move out of every opponent's
    reach (which has no roll), or None."""
    raw = p.get("ps") or {}
    # A declaration's own table is a frozen dict: no abstract-class check for it.
    table = type(raw) is MappingProxyType or type(raw) is dict or isinstance(raw, Mapping)
    spends = (
        table
        and not raw.keys().isdisjoint(SPENDS)  # a malus alone: nothing to scan
        and any(raw.get(k) for k in SPENDS)
    )
    if "difficulty" in p or not table or spends:
        return "a move out of every opponent's reach has no roll: no difficulty, no PS to spend"
    return None


def _noted(declaration: Declaration) -> tuple[Any, ...]:
    """What :meth:`RinKaNou.plan` reads from a declaration alone, checked: whether its
    kind recomputes situation points, the channel it takes, its planner, and whether it
    can take neither points nor an engagement. A checked declaration (one that never
    changes) keeps them in its notes, so one handed out again is not checked again."""
    name = declaration.kind
    try:
        kind = KINDS[name]
    except KeyError:
        raise IllegalDeclaration(
            f"unknown action {name!r} (known: {', '.join(KINDS)})",
            rule=f"{TEXT}, Actions de combat",
        ) from None
    params = declaration.params
    if params:
        if not kind.params.issuperset(params):
            unknown_params(name, params, kind.params)
        for key in ("ps", "pc"):
            if key in params:
                value = params[key]
                if not isinstance(value, Mapping):
                    raise IllegalDeclaration(
                        f"{key} choices are a table like {{faster = 1}}, not {value!r}",
                        rule=f"{TEXT}, Utilisation des points de situation",
                    )
    channel = kind.channel
    if name == "parry" and params.get("with", "weapon") == "shield":
        channel = "shield"
    notes = (KINDS, kind.situation, channel, _PLANNERS[name], not params or name in _BARE)
    if declaration.checked:
        object.__setattr__(declaration, "notes", notes)  # frozen: the one write it gets
    return notes


def nearest_opponents(state: FightState, cid: str, count: int) -> list[str]:
    """The ``count`` nearest opponents in the fight (ties: the order of the fight)."""
    if count == 1:
        # The only opponent (a duel): no distances to compare. Counted by side first: a
        # battle's list of opponents is not rebuilt each time someone leaves it.
        side = state.combatants[cid].side
        foes = 0
        for other, n in state.side_counts.items():
            if other != side:
                foes += n
        kept = state._against.get(side)  # FightState.against(), without its call
        opponents = kept if kept is not None else state.against(side)
        if foes == 1:
            return [opponents[0].id]
        if len(state.grid.where) <= SMALL_FIGHT:
            # FightState.nearest_opponents' scan, in a plain loop over the opponents in
            # the fight's order (the first of equals: its ties broken by that order),
            # without a tuple and a generator's step for each.
            here = state.combatants[cid].position
            dist = math.dist
            best = None
            best_d = math.inf
            for o in opponents:
                d = dist(here, o.position)
                if d < best_d:
                    best, best_d = o, d
            return [] if best is None else [best.id]
    return state.nearest_opponents(cid, count)


def _best_blow(sheet: Sheet) -> str:
    return max(sheet.weapon.blows, key=lambda b: sheet.weapon.damage[b])
