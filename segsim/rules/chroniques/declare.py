"""Declarations during a turn: what each action kind needs and what a turn may hold
(Chroniques, "Les actions", "Résolution des attaques", "Attaque concertée", "Combat à deux
armes (L)", "Actions défensives", "Initiative", "Équipement interdit").

A fighter declares its whole turn at once, at the turn's first segment: one limited
action, or one move and one attack, or two moves, plus free actions. Each checker raises
:class:`IllegalDeclaration` naming the rule, before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from segsim.actions import Action, ActionSpec, Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules.chroniques.attack import (
    _EPS,
    CONTACT,
    Point,
    can_use_capabilities,
    distance,
    uses_forbidden,
    within,
)
from segsim.rules.chroniques.content import TEXT, Sheet, Weapon
from segsim.rules.chroniques.status import Hands, Status
from segsim.rules.chroniques.turns import TURN, initiative, round_of
from segsim.state import Combatant, FightState

RULE_ACTIONS = f"{TEXT}, Les actions"
RULE_INITIATIVE = f"{TEXT}, Initiative"
RULE_ATTACK = f"{TEXT}, Résolution des attaques"
RULE_CONCERTED = f"{TEXT}, Attaque concertée"
RULE_TWO_WEAPONS = f"{TEXT}, Combat à deux armes (L)"
RULE_FORBIDDEN = f"{TEXT}, Équipement interdit"
RULE_DEFENCE = f"{TEXT}, Actions défensives"

AWAIT = "await"
TURN_CHANNEL = "turn"
ACT_CHANNEL = "act"


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
"""Action kinds. L: limited, M: move, A: attack (Chroniques, "Les actions"); free actions
come on top; ``delay`` (lowering one's initiative) and ``pass`` take the whole turn;
``turn`` and ``await`` are declared by the rules; ``wait`` waits for nothing in
particular (scripts use it to be called at a segment)."""

UNTARGETED = frozenset(
    {"draw", "delay", "free", "pass", "simple_defence", "total_defence", "wait", TURN, AWAIT}
)
"""Kinds that take no target (a target given is refused, never recorded)."""

TURN_SHAPES = "a turn is 1 limited action, or 1 move and 1 attack, or 2 moves"


def check_shape(
    c: Combatant,
    d: Declaration,
    mine: Sequence[tuple[str, Mapping[str, Any]]],
    total_defence_move: bool = False,
) -> None:
    """1 limited action, or 1 move + 1 attack, or 2 moves; free actions on top
    (Chroniques, "Les actions"). Total defence leaves no attack, and no free move either
    unless ``total_defence_move`` (Chroniques, "Actions défensives": the fighter "ne fait
    que se défendre")."""
    new = _category(d.kind, d.params)
    if not mine and new != "free":
        return  # the turn's first action, alone: every shape holds one (the usual case)
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
                f"{c.id} has no capability that makes {d.kind} a free action",
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
    kinds = {d.kind, *(k for k, _ in mine)}
    if "total_defence" in kinds and kinds & {"attack", "concerted_attack", "two_weapons"}:
        raise IllegalDeclaration(
            "total defence: the fighter only defends this turn, no attack even a free one",
            rule=RULE_DEFENCE,
        )
    if "total_defence" in kinds and "move" in kinds and not total_defence_move:
        raise IllegalDeclaration(
            "total defence: the fighter only defends this turn, no move even a free one "
            "(option total_defence_move allows a free move)",
            rule=RULE_DEFENCE,
        )


def plan_attack(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    target = _opponent(state, c, d.target)
    hand = d.params.get("hand", "main")
    if hand not in ("main", "off"):
        raise IllegalDeclaration(f"hand must be 'main' or 'off', not {hand!r}")
    main, off = _weapons_after(c, planned)
    weapon = main if hand == "main" else off
    if weapon is None:
        raise IllegalDeclaration(f"{c.id} holds no weapon in its off hand")
    _check_reach(state, c, target, weapon, planned)
    params: dict[str, Any] = {}
    if hand == "off":
        params["hand"] = "off"
    if d.params.get("free"):
        params["free"] = True
    return target, params


def plan_concerted(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
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
    weapon = _weapons_after(c, planned)[0]
    if weapon.kind != "melee":
        raise IllegalDeclaration(
            f"a concerted attack is a melee attack test: {c.id} holds a {weapon.name}",
            rule=RULE_CONCERTED,
        )
    _check_reach(state, c, target, weapon, planned)
    return target, {"partner": ally.id}


def plan_two_weapons(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    hands = _hands_after(c, planned)
    if hands.off_hand is None or hands.weapon.kind != "melee":
        raise IllegalDeclaration(
            f"{c.id} needs a melee weapon in each hand (a light one in the off hand)",
            rule=RULE_TWO_WEAPONS,
        )
    target = _opponent(state, c, d.target)
    _check_reach(state, c, target, hands.weapon, planned)
    params: dict[str, Any] = {}
    second = d.params.get("second_target")
    if second is not None and second != target:
        second = _opponent(state, c, second)
        _check_reach(state, c, second, hands.off_hand, planned)
        params["second_target"] = second
    return target, params


def plan_move(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
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
        if within(start, where, CONTACT):
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
        if not within(start, dest, sheet.speed):
            raise IllegalDeclaration(
                f"a move action covers {sheet.speed:g} m at most, not "
                f"{distance(start, dest):.1f} m",
                rule=RULE_ACTIONS,
            )
    params["to"] = (round(dest[0], 2), round(dest[1], 2))
    if d.params.get("free"):
        params["free"] = True
    return None, params


def plan_draw(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    sheet: Sheet = c.sheet
    hands = _hands_after(c, planned)
    wid = d.params.get("weapon")
    weapon = hands.find(wid)
    if weapon is None:
        carried = ", ".join(w.id for w in hands.carried) or "nothing"
        raise IllegalDeclaration(f"{c.id} carries no weapon {wid!r} (carries: {carried})")
    hand = d.params.get("hand", "main")
    if hand not in ("main", "off"):
        raise IllegalDeclaration(f"hand must be 'main' or 'off', not {hand!r}")
    if hand == "off":
        if sheet.shield is not None or hands.weapon.hands == 2:
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


def plan_delay(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    value = d.params.get("initiative")
    now = initiative(c, round_of(state.segment))
    if not isinstance(value, int) or isinstance(value, bool) or value >= now:
        raise IllegalDeclaration(
            f"lowering one's initiative needs a whole number below {now}, not {value!r}",
            rule=RULE_INITIATIVE,
        )
    return None, {"initiative": max(0, value)}


def plan_capability(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
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


def plan_free(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    what = d.params.get("what", "free action")
    if not isinstance(what, str) or not what:
        raise IllegalDeclaration(f"what must be a text, not {what!r}")
    return None, {"what": what}


def plan_plain(
    state: FightState, c: Combatant, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[str | None, dict[str, Any]]:
    if d.target is not None:
        raise IllegalDeclaration(f"{d.kind} takes no target")
    return None, {}


Planner = Callable[
    [FightState, Combatant, Declaration, Sequence[ActionSpec]],
    tuple[str | None, dict[str, Any]],
]

PLANNERS: Mapping[str, Planner] = {
    "attack": plan_attack,
    "concerted_attack": plan_concerted,
    "two_weapons": plan_two_weapons,
    "move": plan_move,
    "draw": plan_draw,
    "delay": plan_delay,
    "capability": plan_capability,
    "free": plan_free,
    "simple_defence": plan_plain,
    "total_defence": plan_plain,
    "pass": plan_plain,
}


def _category(kind: str, params: Mapping[str, Any]) -> str:
    return "free" if params.get("free") else KINDS[kind].category


def plan_wait(d: Declaration, segment: int) -> ActionSpec:
    until = d.params.get("until")
    if until is None:
        return Action("wait", None, "wait", continuous=True)
    if not isinstance(until, int) or isinstance(until, bool) or until <= segment:
        raise IllegalDeclaration(
            f"wait until must be a later segment than {segment}, not {until!r}"
        )
    return Action("wait", until - segment, "wait", continuous=True, params={"until": until})


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


def _weapons_after(c: Combatant, planned: Sequence[ActionSpec]) -> tuple[Weapon, Weapon | None]:
    """The weapons in hand (main, off) after the draws already declared for this turn
    (:func:`_hands_after`'s, without making the hands when nothing is drawn)."""
    for p in planned:
        if p.kind == "draw":
            hands = _hands_after(c, planned)
            return hands.weapon, hands.off_hand
    status: Status = c.status
    return status.weapon, status.off_hand


def _hands_after(c: Combatant, planned: Sequence[ActionSpec]) -> Hands:
    """The fighter's weapons after the draws already declared for this turn."""
    status: Status = c.status
    hands = status.hands
    for p in planned:
        if p.kind == "draw":
            hands = hands.draw(str(p.params["weapon"]), str(p.params.get("hand", "main")))[0]
    return hands


def _check_reach(
    state: FightState, c: Combatant, target: str, weapon: Weapon, planned: Sequence[ActionSpec]
) -> None:
    where = _position_after(c, planned)
    there = state.combatants[target].position
    gap = distance(where, there)
    if weapon.kind == "melee":
        if not gap <= CONTACT + _EPS:  # within(where, there, CONTACT)
            raise IllegalDeclaration(
                f"{target} is {gap:.1f} m away: a melee attack needs contact ({CONTACT:g} m)",
                rule=RULE_ATTACK,
            )
    elif not gap <= weapon.range + _EPS:  # within(where, there, weapon.range)
        raise IllegalDeclaration(
            f"{target} is {gap:.1f} m away, beyond the {weapon.name}'s range ({weapon.range:g} m)",
            rule=RULE_ATTACK,
        )
