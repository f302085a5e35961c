"""The Chroniques ruleset (seed 001): d20 against DEF, turns in initiative order, rounds
of 10 s on the segment clock.

How a round maps onto segments (see :mod:`segsim.rules.chroniques.turns`): the rules
declare for each fighter a ``turn`` action when its turn comes and an ``await`` action
until then; what the fighter declares during its turn lasts as long as the turn and
resolves with it. The engine calls the next fighter through :meth:`Chroniques.due` as
soon as a turn resolves, so the order of a round follows initiative however it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from segsim.actions import Action, ActionSpec, Declaration, DeclarationLike
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration, SegsimError
from segsim.events import Event, Moved, OutOfFight
from segsim.input import Node
from segsim.policy import Observation
from segsim.rules import BaseRuleset
from segsim.rules.chroniques.attack import (
    CONCERTED_DIFFICULTY,
    CONTACT,
    SIMPLE_DEFENCE,
    TOTAL_DEFENCE,
    TWO_WEAPON_DIE,
    Point,
    can_use_capabilities,
    concerted_bonus,
    critical_from,
    defence,
    distance,
    range_modifiers,
    uses_forbidden,
    within,
)
from segsim.rules.chroniques.content import (
    Content,
    Sheet,
    Weapon,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.chroniques.events import (
    AbilityTested,
    ActionWasted,
    Assisted,
    AttackRolled,
    CapabilityUsed,
    Damaged,
    DefenceEnded,
    DefenceTaken,
    ForbiddenEquipment,
    FreeActionTaken,
    InitiativeLowered,
    RoundStarted,
    Surprised,
    TurnEnded,
    TurnLost,
    WeaponDrawn,
)
from segsim.rules.chroniques.status import Status
from segsim.rules.chroniques.turns import (
    ROUND_SEGMENTS,
    TURN,
    initiative,
    initiative_order,
    next_due,
    round_of,
    round_start,
    turn_in_progress,
    turn_length,
)
from segsim.rules.chroniques.views import OtherView, SelfView
from segsim.state import Combatant, FightState

SEED = "seed 001"
RULE_ACTIONS = f"{SEED}, Les actions"
RULE_INITIATIVE = f"{SEED}, Initiative"
RULE_ATTACK = f"{SEED}, Résolution des attaques"
RULE_CONCERTED = f"{SEED}, Attaque concertée"
RULE_TWO_WEAPONS = f"{SEED}, Combat à deux armes (L)"
RULE_FORBIDDEN = f"{SEED}, Équipement interdit"
RULE_SURPRISE = f"{SEED}, Surprise"

AWAIT = "await"
TURN_CHANNEL = "turn"
ACT_CHANNEL = "act"
SURPRISE_BASE = 10
AMBUSH_DIFFICULTY = ("lowest", "highest", "average")
_EPS = 1e-9


@attrs.frozen
class Kind:
    """An action kind: its category in a turn (L, M, A, free, whole turn) and parameters."""

    category: str
    params: frozenset[str] = frozenset()


KINDS: Mapping[str, Kind] = {
    "attack": Kind("A", frozenset({"hand", "free"})),
    "concerted_attack": Kind("A", frozenset({"partner"})),
    "simple_defence": Kind("A"),
    "move": Kind("M", frozenset({"to", "free"})),
    "draw": Kind("M", frozenset({"weapon", "hand"})),
    "two_weapons": Kind("L", frozenset({"second_target"})),
    "total_defence": Kind("L"),
    "capability": Kind("L", frozenset({"name"})),
    "free": Kind("free", frozenset({"what"})),
    "delay": Kind("whole", frozenset({"initiative"})),
    "pass": Kind("whole"),
    "wait": Kind("wait", frozenset({"until"})),
    TURN: Kind("rules"),
    AWAIT: Kind("rules"),
}
"""Action kinds. L: limited, M: move, A: attack (seed 001, "Les actions"); free actions
come on top; ``delay`` (lowering one's initiative) and ``pass`` take the whole turn;
``turn`` and ``await`` are declared by the rules; ``wait`` waits for nothing in
particular (scripts use it to be called at a segment)."""

TURN_SHAPES = "a turn is 1 limited action, or 1 move and 1 attack, or 2 moves"


class AmbushError(SegsimError):
    """The ``ambush`` option names a side that has nobody in the fight."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Chroniques(BaseRuleset):
    """Chroniques (seed 001): d20 + modifiers against DEF, turns in initiative order.

    Options (the game master's calls for the fight): ``ambush`` (the side lying in
    ambush), ``ambush_difficulty`` (which ambusher sets the difficulty: lowest, highest or
    average DEX modifier + stealth), ``surprise_modifier`` (for distance and terrain),
    ``surprised_defence_malus``, ``dim_light``, ``turn_segments`` and
    ``two_weapon_criticals`` (see docs/rules/chroniques.md).
    """

    name: ClassVar[str] = "chroniques"
    title: ClassVar[str] = "Chroniques: d20 against DEF, turns in initiative order (seed 001)"
    tick = ROUND_SEGMENTS

    def __init__(
        self,
        *,
        ambush: str | None = None,
        ambush_difficulty: str = "lowest",
        surprise_modifier: int = 0,
        surprised_defence_malus: int = 5,
        dim_light: bool = False,
        turn_segments: int = 10,
        two_weapon_criticals: bool = True,
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
            _is_int(turn_segments) and 1 <= turn_segments <= ROUND_SEGMENTS,
            f"turn_segments must be an integer from 1 to {ROUND_SEGMENTS}, not {turn_segments!r}",
        )
        _check(
            isinstance(two_weapon_criticals, bool),
            f"two_weapon_criticals must be true or false, not {two_weapon_criticals!r}",
        )
        self.content = content or default_content()
        self.ambush = ambush
        self.ambush_difficulty = ambush_difficulty
        self.surprise_modifier = surprise_modifier
        self.surprised_defence_malus = surprised_defence_malus
        self.dim_light = dim_light
        self.turn_segments = turn_segments
        self.two_weapon_criticals = two_weapon_criticals
        self.options: Mapping[str, Any] = {
            "ambush": ambush,
            "ambush_difficulty": ambush_difficulty,
            "surprise_modifier": surprise_modifier,
            "surprised_defence_malus": surprised_defence_malus,
            "dim_light": dim_light,
            "turn_segments": turn_segments,
            "two_weapon_criticals": two_weapon_criticals,
        }

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
        events.append(_round_started(state, 1, frozenset()))
        return events

    def surprise_difficulty(self, state: FightState) -> tuple[int, dict[str, int]]:
        """10 + the ambushers' DEX modifier and stealth bonus (seed 001, "Surprise"), plus
        the game master's modifier; ``ambush_difficulty`` says which ambusher counts."""
        ambushers = [c for c in state.in_fight() if c.side == self.ambush]
        if not ambushers:
            raise AmbushError(f"ambush: no combatant of side {self.ambush!r} in this fight")
        values = [c.sheet.mod("dexterity") + c.sheet.stealth for c in ambushers]
        if self.ambush_difficulty == "lowest":
            value = min(values)
        elif self.ambush_difficulty == "highest":
            value = max(values)
        else:
            value = sum(values) // len(values)
        parts = {"base": SURPRISE_BASE, "ambushers": value}
        if self.surprise_modifier:
            parts["game master"] = self.surprise_modifier
        return sum(parts.values()), parts

    def _surprise(self, state: FightState, dice: Dice) -> list[Event]:
        difficulty, _ = self.surprise_difficulty(state)
        events: list[Event] = []
        for c in state.in_fight():
            if c.side == self.ambush:
                continue
            sheet: Sheet = c.sheet
            roll = dice.roll(20, "surprise (SAG test)", c.id)
            mods = {"wisdom": sheet.mod("wisdom")}
            total = roll + sum(mods.values())
            success = total >= difficulty
            events.append(
                AbilityTested(0, c.id, "surprise", "wisdom", roll, total, difficulty, success, mods)
            )
            if not success:
                events.append(Surprised(0, c.id, self.surprised_defence_malus))
                events.append(TurnLost(0, c.id, 1, "surprised"))
        return events

    # ------------------------------------------------------------ turns

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        """Its turn when it is due, otherwise an ``await`` until it is."""
        c = state.combatants[cid]
        if any(a.kind == TURN for a in c.actions):
            return []
        if not turn_in_progress(state) and next_due(state, segment) is c:
            return [Declaration(TURN)]
        if any(a.channel == TURN_CHANNEL for a in c.actions):
            return []
        return [Declaration(AWAIT)]

    def due(self, state: FightState, time: int) -> Sequence[str]:
        """The next fighter in initiative order once no turn is in progress."""
        if turn_in_progress(state):
            return ()
        c = next_due(state, time)
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
        kind = KINDS.get(declaration.kind)
        if kind is None:
            known = ", ".join(k for k, v in KINDS.items() if v.category != "rules")
            raise IllegalDeclaration(
                f"unknown action {declaration.kind!r} (known: {known})", rule=RULE_ACTIONS
            )
        extra = set(declaration.params) - kind.params
        if extra:
            raise IllegalDeclaration(
                f"{declaration.kind} takes no parameter {', '.join(sorted(extra))}"
            )
        if declaration.kind == TURN:
            return self._plan_turn(state, c, segment)
        if declaration.kind == AWAIT:
            return self._plan_await(state, c, segment)
        if declaration.kind == "wait":
            return _plan_wait(declaration, segment)
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
        self._check_shape(c, declaration, mine)
        target, params = _PLANNERS[declaration.kind](self, state, c, declaration, planned)
        return ActionSpec(
            declaration.kind,
            marker.end - segment,
            ACT_CHANNEL,
            target=target,
            rolled=declaration.kind in ("attack", "concerted_attack", "two_weapons"),
            params=params,
        )

    def _plan_turn(self, state: FightState, c: Combatant, segment: int) -> ActionSpec:
        if any(a.kind == TURN for a in c.actions) or turn_in_progress(state):
            raise IllegalDeclaration("a turn is already in progress", rule=RULE_INITIATIVE)
        if next_due(state, segment) is not c:
            raise IllegalDeclaration(f"it is not {c.id}'s turn", rule=RULE_INITIATIVE)
        rnd = round_of(segment)
        length = turn_length(state, segment, self.turn_segments)
        return ActionSpec(TURN, length, TURN_CHANNEL, public=True, params={"round": rnd})

    def _plan_await(self, state: FightState, c: Combatant, segment: int) -> ActionSpec:
        if any(a.channel == TURN_CHANNEL for a in c.actions):
            raise IllegalDeclaration(f"{c.id} already has its turn or awaits it")
        if next_due(state, segment) is None:
            # Nobody is left to act: the await ends with the round, which calls the next.
            length = round_start(round_of(segment) + 1) - segment
            return ActionSpec(AWAIT, length, TURN_CHANNEL, continuous=True)
        return ActionSpec(AWAIT, None, TURN_CHANNEL, continuous=True)

    def _check_shape(
        self, c: Combatant, d: Declaration, mine: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> None:
        """1 limited action, or 1 move + 1 attack, or 2 moves; free actions on top
        (seed 001, "Les actions")."""
        new = _category(d.kind, d.params)
        cats = [_category(k, p) for k, p in mine]
        whole = [k for k, _ in mine if KINDS[k].category == "whole"]
        if new == "whole" and d.kind == "delay" and mine:
            raise IllegalDeclaration(
                "lowering one's initiative postpones the whole turn: declare it alone",
                rule=RULE_INITIATIVE,
            )
        if "delay" in whole:
            raise IllegalDeclaration(
                "the turn is postponed (initiative lowered): nothing else now",
                rule=RULE_INITIATIVE,
            )
        if new == "whole" and any(cat != "free" for cat in cats):
            raise IllegalDeclaration(f"{d.kind} takes the whole turn", rule=RULE_ACTIONS)
        if whole and new != "free":
            raise IllegalDeclaration(f"the turn is taken by {whole[0]}", rule=RULE_ACTIONS)
        if new == "free" and d.kind != "free":
            sheet: Sheet = c.sheet
            if d.kind not in sheet.free_actions:
                raise IllegalDeclaration(
                    f"{c.id} has no capability that makes a {d.kind} a free action",
                    rule=RULE_ACTIONS,
                )
            if not can_use_capabilities(sheet, c.status):
                raise IllegalDeclaration(
                    f"{c.id} uses forbidden equipment and can use none of its capabilities",
                    rule=RULE_FORBIDDEN,
                )
            if any(k == d.kind and cat == "free" for (k, _), cat in zip(mine, cats, strict=True)):
                raise IllegalDeclaration(f"one free {d.kind} per turn", rule=RULE_ACTIONS)
        counts = {cat: [*cats, new].count(cat) for cat in ("L", "M", "A")}
        if (
            counts["L"] > 1
            or (counts["L"] and (counts["M"] or counts["A"]))
            or counts["A"] > 1
            or counts["M"] + counts["A"] > 2
        ):
            raise IllegalDeclaration(TURN_SHAPES, rule=RULE_ACTIONS)

    # ------------------------------------------------------------ planners by kind

    def _plan_attack(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        target = _opponent(state, c, d.target)
        hand = d.params.get("hand", "main")
        if hand not in ("main", "off"):
            raise IllegalDeclaration(f"hand must be 'main' or 'off', not {hand!r}")
        status: Status = c.status
        weapon = status.weapon if hand == "main" else status.off_hand
        if weapon is None:
            raise IllegalDeclaration(f"{c.id} holds no weapon in its off hand")
        _check_reach(state, c, target, weapon, planned)
        params: dict[str, Any] = {}
        if hand == "off":
            params["hand"] = "off"
        if d.params.get("free"):
            params["free"] = True
        return target, params

    def _plan_concerted(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        target = _opponent(state, c, d.target)
        partner = d.params.get("partner")
        ally = state.combatants.get(partner) if isinstance(partner, str) else None
        if ally is None or not ally.in_fight or ally.side != c.side or ally.id == c.id:
            raise IllegalDeclaration(
                f"a concerted attack helps a partner: another fighter of {c.id}'s side in the "
                f"fight, not {partner!r}",
                rule=RULE_CONCERTED,
            )
        weapon: Weapon = c.status.weapon
        if weapon.kind != "melee":
            raise IllegalDeclaration(
                f"a concerted attack is a melee attack test: {c.id} holds a {weapon.name}",
                rule=RULE_CONCERTED,
            )
        _check_reach(state, c, target, weapon, planned)
        return target, {"partner": ally.id}

    def _plan_two_weapons(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        status: Status = c.status
        if status.off_hand is None or status.weapon.kind != "melee":
            raise IllegalDeclaration(
                f"{c.id} needs a melee weapon in each hand (a light one in the off hand)",
                rule=RULE_TWO_WEAPONS,
            )
        target = _opponent(state, c, d.target)
        _check_reach(state, c, target, status.weapon, planned)
        params: dict[str, Any] = {}
        second = d.params.get("second_target")
        if second is not None and second != target:
            second = _opponent(state, c, second)
            _check_reach(state, c, second, status.off_hand, planned)
            params["second_target"] = second
        return target, params

    def _plan_move(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        sheet: Sheet = c.sheet
        start = _position_after(c, planned)
        to = d.params.get("to")
        if (to is None) == (d.target is None):
            raise IllegalDeclaration("a move goes toward a target or to a point (to = [x, y])")
        params: dict[str, Any] = {}
        if d.target is not None:
            other = state.combatants.get(d.target)
            if other is None or not other.in_fight or other.id == c.id:
                raise IllegalDeclaration(f"no other fighter {d.target!r} in the fight to move to")
            where = other.position
            gap = distance(start, where)
            if gap <= CONTACT + _EPS:
                raise IllegalDeclaration(f"{c.id} is already in contact with {other.id}")
            step = min(sheet.speed, gap - CONTACT)
            dest = (
                start[0] + (where[0] - start[0]) * step / gap,
                start[1] + (where[1] - start[1]) * step / gap,
            )
            params["toward"] = other.id
        else:
            if not (
                isinstance(to, list | tuple)
                and len(to) == 2
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
            ):
                raise IllegalDeclaration(f"to must be a point [x, y] in metres, not {to!r}")
            dest = (float(to[0]), float(to[1]))
            if distance(start, dest) > sheet.speed + _EPS:
                raise IllegalDeclaration(
                    f"a move action covers {sheet.speed:g} m at most, not "
                    f"{distance(start, dest):.1f} m",
                    rule=RULE_ACTIONS,
                )
        params["to"] = (round(dest[0], 2), round(dest[1], 2))
        if d.params.get("free"):
            params["free"] = True
        return None, params

    def _plan_draw(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        status: Status = c.status
        sheet: Sheet = c.sheet
        wid = d.params.get("weapon")
        weapon = next((w for w in status.carried if w.id == wid), None)
        if weapon is None:
            carried = ", ".join(w.id for w in status.carried) or "nothing"
            raise IllegalDeclaration(f"{c.id} carries no weapon {wid!r} (carries: {carried})")
        if any(p.kind == "draw" for p in planned):
            raise IllegalDeclaration("one draw per turn")
        hand = d.params.get("hand", "main")
        if hand not in ("main", "off"):
            raise IllegalDeclaration(f"hand must be 'main' or 'off', not {hand!r}")
        if hand == "off":
            if sheet.shield is not None or status.weapon.hands == 2:
                raise IllegalDeclaration(f"{c.id} has no free off hand")
            if weapon.kind != "melee" or weapon.hands != 1 or not weapon.light:
                raise IllegalDeclaration(
                    f"the off hand holds a light melee weapon (1d6 at most), not a {weapon.name}",
                    rule=RULE_TWO_WEAPONS,
                )
            return None, {"weapon": weapon.id, "hand": "off"}
        if weapon.hands == 2 and sheet.shield is not None:
            raise IllegalDeclaration(f"the {weapon.name} needs both hands: {c.id} has a shield")
        return None, {"weapon": weapon.id}

    def _plan_delay(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        value = d.params.get("initiative")
        now = initiative(c, round_of(state.segment))
        if not isinstance(value, int) or isinstance(value, bool) or value >= now:
            raise IllegalDeclaration(
                f"lowering one's initiative needs a whole number below {now}, not {value!r}",
                rule=RULE_INITIATIVE,
            )
        return None, {"initiative": max(0, value)}

    def _plan_capability(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        sheet: Sheet = c.sheet
        name = d.params.get("name")
        if name not in sheet.capabilities:
            known = ", ".join(sheet.capabilities) or "none"
            raise IllegalDeclaration(f"{c.id} has no capability {name!r} (has: {known})")
        if not can_use_capabilities(sheet, c.status):
            items = ", ".join(uses_forbidden(sheet, c.status))
            raise IllegalDeclaration(
                f"{c.id} uses forbidden equipment ({items}) and can use none of its capabilities",
                rule=RULE_FORBIDDEN,
            )
        return d.target, {"name": name}

    def _plan_free(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        what = d.params.get("what", "free action")
        if not isinstance(what, str) or not what:
            raise IllegalDeclaration(f"what must be a text, not {what!r}")
        return None, {"what": what}

    def _plan_plain(
        self, state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
    ) -> tuple[str | None, dict[str, Any]]:
        if d.target is not None:
            raise IllegalDeclaration(f"{d.kind} takes no target")
        return None, {}

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
        settlement = _Settlement(self, state, segment, dice)
        for marker in batch:
            if marker.kind == TURN and not marker.cancelled:
                own = [
                    a
                    for a in batch
                    if a.actor == marker.actor and a.channel == ACT_CHANNEL and not a.cancelled
                ]
                settlement.turn(marker, own)
        time = segment + 1
        if time % ROUND_SEGMENTS == 0:
            settlement.new_round(round_of(time))
        return settlement.events

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        c = state.combatants[cid]
        status: Status = c.status
        sheet: Sheet = c.sheet
        rnd = round_of(segment)
        marker = next((a for a in c.actions if a.kind == TURN and a.start == segment), None)
        me = SelfView(
            id=c.id,
            side=c.side,
            name=c.name,
            position=c.position,
            sheet=sheet,
            round=rnd,
            my_turn=marker is not None,
            turn_ends=marker.last if marker is not None else None,
            initiative=initiative(c, rnd),
            acted=status.acted_round >= rnd,
            surprised=status.surprised,
            hit_points=status.hit_points,
            max_hit_points=status.max_hit_points,
            defence=defence(c, self.surprised_defence_malus)[0],
            defence_bonus=status.defence_bonus,
            weapon=status.weapon,
            off_hand=status.off_hand,
            carried=status.carried,
            attack=sheet.attack_bonus(status.weapon),
            off_attack=(
                sheet.attack_bonus(status.off_hand) if status.off_hand is not None else None
            ),
            capabilities_usable=can_use_capabilities(sheet, status),
            assists=dict(status.assists),
            actions=tuple(c.actions),
        )
        others = tuple(
            self._view(o, rnd) for o in state.combatants.values() if o.in_fight and o.id != cid
        )
        cache: list[tuple[DeclarationLike, ...]] = []

        def legal() -> tuple[DeclarationLike, ...]:
            if not cache:
                cache.append(self._legal(state, cid, segment))
            return cache[0]

        return Observation(segment, cid, marker is not None, me, others, legal=legal)

    def _view(self, o: Combatant, rnd: int) -> OtherView:
        status: Status = o.status
        return OtherView(
            id=o.id,
            side=o.side,
            name=o.name,
            is_pc=o.is_pc,
            position=o.position,
            weapon=status.weapon,
            off_hand=status.off_hand,
            defence=defence(o, self.surprised_defence_malus)[0],
            hit_points=status.hit_points,
            max_hit_points=status.max_hit_points,
            initiative=initiative(o, rnd),
            acted=status.acted_round >= rnd,
            surprised=status.surprised,
        )

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


Planner = Callable[
    [Chroniques, FightState, Combatant, Declaration, Sequence[ActionSpec]],
    tuple[str | None, dict[str, Any]],
]

_PLANNERS: Mapping[str, Planner] = {
    "attack": Chroniques._plan_attack,
    "concerted_attack": Chroniques._plan_concerted,
    "two_weapons": Chroniques._plan_two_weapons,
    "move": Chroniques._plan_move,
    "draw": Chroniques._plan_draw,
    "delay": Chroniques._plan_delay,
    "capability": Chroniques._plan_capability,
    "free": Chroniques._plan_free,
    "simple_defence": Chroniques._plan_plain,
    "total_defence": Chroniques._plan_plain,
    "pass": Chroniques._plan_plain,
}


def _category(kind: str, params: Mapping[str, Any]) -> str:
    return "free" if params.get("free") else KINDS[kind].category


def _plan_wait(d: Declaration, segment: int) -> ActionSpec:
    until = d.params.get("until")
    if until is None:
        return ActionSpec("wait", None, "wait", continuous=True)
    if not _is_int(until) or until <= segment:
        raise IllegalDeclaration(
            f"wait until must be a later segment than {segment}, not {until!r}"
        )
    return ActionSpec("wait", until - segment, "wait", continuous=True, params={"until": until})


def _opponent(state: FightState, c: Combatant, target: str | None) -> str:
    if target is None:
        raise IllegalDeclaration("an attack needs a target", rule=RULE_ATTACK)
    other = state.combatants.get(target)
    if other is None:
        raise IllegalDeclaration(f"no combatant {target!r} in this fight")
    if not other.in_fight:
        raise IllegalDeclaration(f"{target} is out of the fight")
    if other.side == c.side:
        raise IllegalDeclaration(f"{target} is on the same side")
    return target


def _position_after(c: Combatant, planned: Sequence[ActionSpec]) -> Point:
    """Where the fighter stands after the moves already declared for this turn."""
    where = c.position
    for p in planned:
        if p.kind == "move":
            to = p.params["to"]
            where = (float(to[0]), float(to[1]))
    return where


def _check_reach(
    state: FightState, c: Combatant, target: str, weapon: Weapon, planned: Sequence[ActionSpec]
) -> None:
    where = _position_after(c, planned)
    there = state.combatants[target].position
    gap = distance(where, there)
    if weapon.kind == "melee":
        if not within(where, there, CONTACT):
            raise IllegalDeclaration(
                f"{target} is {gap:.1f} m away: a melee attack needs contact ({CONTACT:g} m)",
                rule=RULE_ATTACK,
            )
    elif not within(where, there, weapon.range):
        raise IllegalDeclaration(
            f"{target} is {gap:.1f} m away, beyond the {weapon.name}'s range ({weapon.range:g} m)",
            rule=RULE_ATTACK,
        )


def _round_started(state: FightState, rnd: int, out: frozenset[str]) -> RoundStarted:
    order = [c for c in initiative_order(state, rnd) if c.id not in out]
    return RoundStarted(
        round_start(rnd),
        None,
        rnd,
        tuple(c.id for c in order),
        {c.id: c.sheet.initiative for c in order},
    )


class _Settlement:
    """The resolution of one turn (and of a round's end): events in the order they
    happen, with what earlier events of the same turn changed (positions, hit points)."""

    def __init__(self, rules: Chroniques, state: FightState, segment: int, dice: Dice) -> None:
        self.rules = rules
        self.state = state
        self.segment = segment
        self.dice = dice
        self.events: list[Event] = []
        self.positions: dict[str, Point] = {c.id: c.position for c in state.combatants.values()}
        self.hit_points: dict[str, int] = {
            c.id: c.status.hit_points for c in state.combatants.values()
        }
        self.out: set[str] = set()
        self.done: set[str] = set()
        self.assists_used: set[tuple[str, str]] = set()

    def emit(self, event: Event) -> None:
        self.events.append(event)

    # -------------------------------------------------------- a turn

    def turn(self, marker: Action, actions: Sequence[Action]) -> None:
        c = self.state.combatants[marker.actor]
        rnd = int(marker.params["round"])
        delay = next((a for a in actions if a.kind == "delay"), None)
        lost = delay is not None and int(delay.params["initiative"]) <= 0
        if (delay is None or lost) and c.status.defence_bonus:
            self.emit(DefenceEnded(self.segment, c.id))
        handlers: dict[str, Callable[[Action], None]] = {
            "attack": self.attack,
            "concerted_attack": self.concerted,
            "two_weapons": self.two_weapons,
            "move": self.move,
            "draw": self.draw,
            "simple_defence": self.simple_defence,
            "total_defence": self.total_defence,
            "capability": self.capability,
            "free": self.free,
        }
        for action in actions:
            handler = handlers.get(action.kind)
            if handler is not None:
                handler(action)
        if delay is not None:
            if lost:
                self.emit(TurnLost(self.segment, c.id, rnd, "initiative lowered to 0"))
            else:
                value = int(delay.params["initiative"])
                self.emit(InitiativeLowered(self.segment, c.id, rnd, value))
        else:
            self.emit(TurnEnded(self.segment, c.id, rnd))
        self.done.add(c.id)

    def new_round(self, rnd: int) -> None:
        """The end of a round: who could not act loses its turn; the next round begins."""
        for c in self.state.in_fight():
            if c.id in self.out or c.id in self.done or c.status.acted_round >= rnd - 1:
                continue
            if c.status.defence_bonus:
                self.emit(DefenceEnded(self.segment, c.id))
            self.emit(TurnLost(self.segment, c.id, rnd - 1, "the round ran out of segments"))
        self.emit(_round_started(self.state, rnd, frozenset(self.out)))

    # -------------------------------------------------------- helpers

    def fighter(self, cid: str) -> Combatant:
        return self.state.combatants[cid]

    def standing(self, action: Action, target: str | None) -> bool:
        """Whether the target is still up; if not, the action comes to nothing."""
        if target is not None and target in self.out:
            self.emit(
                ActionWasted(
                    self.segment,
                    action.actor,
                    action.id,
                    action.kind,
                    f"{target} is already out of the fight",
                )
            )
            return False
        return True

    def attack_test(
        self,
        action: Action,
        target: str,
        weapon: Weapon,
        *,
        label: str,
        die: int = 20,
        difficulty: int | None = None,
    ) -> AttackRolled:
        """Roll one attack test; against the target's DEF unless a difficulty is given."""
        attacker = self.fighter(action.actor)
        sheet: Sheet = attacker.sheet
        mods = sheet.attack_modifiers(weapon)
        if difficulty is None:
            mods.update(
                range_modifiers(
                    self.state, attacker.id, target, weapon, self.rules.dim_light, self.positions
                )
            )
            bonus = attacker.status.assists.get(target, 0)
            if bonus and (attacker.id, target) not in self.assists_used:
                mods["concerted"] = bonus
                self.assists_used.add((attacker.id, target))
            difficulty = defence(self.fighter(target), self.rules.surprised_defence_malus)[0]
        roll = self.dice.roll(die, f"attack ({label})", attacker.id)
        critical_face = critical_from(weapon, die, self.rules.two_weapon_criticals)
        critical = critical_face is not None and roll >= critical_face
        fumble = roll == 1
        total = roll + sum(mods.values())
        success = not fumble and (critical or total >= difficulty)
        event = AttackRolled(
            self.segment,
            attacker.id,
            action.id,
            target,
            label,
            weapon.name,
            die,
            roll,
            total,
            difficulty,
            success,
            critical and success,
            fumble,
            {k: v for k, v in mods.items() if v},
        )
        self.emit(event)
        return event

    def damage(self, attacker: Combatant, target: str, weapon: Weapon, critical: bool) -> None:
        """Weapon dice + FOR modifier (melee and thrown), at least 1; doubled on a critical
        success (Interpretations)."""
        sheet: Sheet = attacker.sheet
        dice = weapon.damage
        rolls = tuple(
            self.dice.roll(dice.sides, f"damage ({weapon.name})", attacker.id)
            for _ in range(dice.count)
        )
        mods = {"weapon": dice.bonus, "strength": sheet.damage_bonus(weapon)}
        amount = max(1, sum(rolls) + sum(mods.values()))
        if critical:
            amount *= 2
        left = max(0, self.hit_points[target] - amount)
        self.hit_points[target] = left
        self.emit(
            Damaged(
                self.segment,
                target,
                attacker.id,
                weapon.name,
                str(dice),
                rolls,
                amount,
                left,
                critical,
                {k: v for k, v in mods.items() if v},
            )
        )
        if left == 0 and target not in self.out:
            self.out.add(target)
            self.emit(OutOfFight(self.segment, target, "0 hit points"))

    # -------------------------------------------------------- handlers

    def attack(self, action: Action) -> None:
        assert action.target is not None
        if not self.standing(action, action.target):
            return
        attacker = self.fighter(action.actor)
        status: Status = attacker.status
        off = action.params.get("hand") == "off"
        weapon = status.off_hand if off else status.weapon
        assert weapon is not None
        test = self.attack_test(
            action, action.target, weapon, label="off hand" if off else "attack"
        )
        if test.success:
            self.damage(attacker, action.target, weapon, test.critical)

    def two_weapons(self, action: Action) -> None:
        """Two attacks, each on a d12, each with its weapon's normal damage."""
        assert action.target is not None
        attacker = self.fighter(action.actor)
        status: Status = attacker.status
        assert status.off_hand is not None
        second = str(action.params.get("second_target", action.target))
        for weapon, target, label in (
            (status.weapon, action.target, "two weapons, main hand"),
            (status.off_hand, second, "two weapons, off hand"),
        ):
            if not self.standing(action, target):
                continue
            test = self.attack_test(action, target, weapon, label=label, die=TWO_WEAPON_DIE)
            if test.success:
                self.damage(attacker, target, weapon, test.critical)

    def concerted(self, action: Action) -> None:
        """A melee attack test against 15: +2 to the partner's next attack test against
        the target, +4 at 25 or on a critical success."""
        assert action.target is not None
        partner = str(action.params["partner"])
        if not self.standing(action, action.target) or not self.standing(action, partner):
            return
        attacker = self.fighter(action.actor)
        test = self.attack_test(
            action,
            action.target,
            attacker.status.weapon,
            label="concerted",
            difficulty=CONCERTED_DIFFICULTY,
        )
        if test.success:
            bonus = concerted_bonus(test.total, test.critical)
            self.emit(Assisted(self.segment, attacker.id, partner, action.target, bonus))

    def move(self, action: Action) -> None:
        to = action.params["to"]
        dest = (float(to[0]), float(to[1]))
        self.positions[action.actor] = dest
        self.emit(Moved(self.segment, action.actor, dest[0], dest[1]))

    def draw(self, action: Action) -> None:
        status: Status = self.fighter(action.actor).status
        wid = str(action.params["weapon"])
        hand = str(action.params.get("hand", "main"))
        drawn = next(w for w in status.carried if w.id == wid)
        away: tuple[Weapon | None, ...]
        if hand == "off":
            away = (status.off_hand,)
        elif drawn.hands == 2:
            away = (status.weapon, status.off_hand)
        else:
            away = (status.weapon,)
        names = tuple(w.id for w in away if w is not None)
        self.emit(WeaponDrawn(self.segment, action.actor, wid, hand, names))

    def simple_defence(self, action: Action) -> None:
        self.emit(DefenceTaken(self.segment, action.actor, "simple", SIMPLE_DEFENCE))

    def total_defence(self, action: Action) -> None:
        self.emit(DefenceTaken(self.segment, action.actor, "total", TOTAL_DEFENCE))

    def capability(self, action: Action) -> None:
        self.emit(CapabilityUsed(self.segment, action.actor, str(action.params["name"])))

    def free(self, action: Action) -> None:
        self.emit(FreeActionTaken(self.segment, action.actor, str(action.params["what"])))
