"""Checking declarations: what each action costs and when it may be declared.

A fighter acts when the round reaches its phase (its remaining action points): it
declares one action, whose cost lowers its phase (Loss, "Dépenser les Points
d'Action"). A parry or dodge answers an attack that succeeded, in the segment after
the attack's roll; a counter-attack follows a successful defence at once. Every check
raises :class:`IllegalDeclaration` naming the rule before anything changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from segsim.actions import ActionSpec, Declaration
from segsim.errors import IllegalDeclaration
from segsim.native import mypyc_attr
from segsim.rules.loss.content import (
    DEFAULT_TESTS,
    RANGED_TESTS,
    SPOTTING,
    TEXT,
    UNARMED,
    Sheet,
    Weapon,
)
from segsim.rules.loss.effects import (
    EFFECTS,
    MAX_EXPLOITS,
    MULTI_TARGET,
    RULE_MELEE_EFFECTS,
    RULE_RANGED_EFFECTS,
    RULE_TEST,
    exploits_of,
)
from segsim.rules.loss.events import CLOCK
from segsim.rules.loss.events import clock_of as new_clock
from segsim.rules.loss.pursuit import (
    COSTS as PURSUIT_COSTS,
)
from segsim.rules.loss.pursuit import (
    PURSUIT,
    RULE_PURSUIT,
    Chase,
)
from segsim.rules.loss.status import Incoming, RoundClock, Status
from segsim.state import SMALL_FIGHT, Combatant, FightState, by_order

RULE_COSTS = f"{TEXT}, Dépenser les Points d'Action"
RULE_PHASES = f"{TEXT}, Déroulement du Tour de Combat"
RULE_PREPARE = f"{TEXT}, Se préparer au combat"
RULE_DEFENCE = f"{TEXT}, L'Esquive et la Parade"
RULE_SHIELD = f"{TEXT}, La parade au bouclier"
RULE_RANGE = f"{TEXT}, La distance de tir"
RULE_COUNTER = f"{TEXT}, Contre-attaquer"
RULE_DISARM = f"{TEXT}, Désarmer l'adversaire"
RULE_TIR_MONTE = f"{TEXT}, Les talents & spécialisations de combat (Tir monté)"

TURN = "turn"
INTEND = "intend"
RULE_INTENTIONS = f"{TEXT}, Déclarer ses intentions"
AWAIT = "await"
TURN_CHANNEL = "turn"
ACT_CHANNEL = "act"
MOST_ASSAILANTS = 5
"""No fighter suffers the melee attacks of more than 5 adversaries at once."""
CONTACT = 2.0
"""Metres within which two fighters are au contact (a melee attack reaches)."""

COSTS: Mapping[str, int] = {
    "grab": 3,
    "assault": 4,
    "natural": 2,
    "unarmed": 2,
    "parry": 1,
    "dodge": 1,
    "pick_up": 2,
    "move": 2,
    "get_up": 4,
    "social": 1,
    "aim": 1,
}
"""Action points of the costs table (Loss, "Dépenser les Points d'Action"); an
attack with a weapon costs its speed, aiming 1 per +1."""

ACTS = ("attack", "grab", "move", "get_up", "pick_up", "aim", "social", "prepare", "pass")
FREE = ("speak",)
"""Free actions: speaking or shouting costs no action point and may be declared whenever
the fighter is called, besides its action (Loss, costs table)."""
PURSUIT_ACTS = ("change_distance", "zigzag", "charge", "clothesline", "tackle", "shoot_legs")
DEFENCES = ("parry", "dodge")
PARAMS: Mapping[str, frozenset[str]] = {
    "attack": frozenset(
        {"exploits", "effects", "fursa", "inspiration", "hand", "targets", "damage", "counter"}
    ),
    "grab": frozenset({"exploits", "fursa", "inspiration"}),
    "parry": frozenset({"against", "exploits", "effects", "fursa", "inspiration", "with", "ally"}),
    "dodge": frozenset({"against", "exploits", "effects", "fursa", "inspiration", "ally"}),
    "move": frozenset({"to"}),
    "aim": frozenset({"points", "round"}),
    "speak": frozenset({"what"}),
    "social": frozenset({"what"}),
    "prepare": frozenset({"until"}),
    "change_distance": frozenset({"direction", "exploits", "fursa", "inspiration"}),
    "zigzag": frozenset({"exploits", "fursa", "inspiration"}),
    "charge": frozenset({"exploits", "fursa", "inspiration"}),
    "clothesline": frozenset({"exploits", "fursa", "inspiration"}),
    "tackle": frozenset({"exploits", "fursa", "inspiration"}),
    "shoot_legs": frozenset({"exploits", "fursa", "inspiration"}),
    "wait": frozenset({"until"}),
    "intend": frozenset({"action"}),
}


def clock_of(state: FightState) -> RoundClock:
    """The round clock (``events.clock_of``: the same lookup, compiled with the modules
    that ask for it at every declaration and settlement)."""
    clock: RoundClock | None = state.extra.get(CLOCK)
    return new_clock(state) if clock is None else clock


def chase_of(state: FightState) -> Chase | None:
    """The running chase (``pursuit.chase_of``, compiled with its callers)."""
    chase = state.extra.get(PURSUIT)
    if chase is None or not isinstance(chase, Chase) or chase.over:
        return None
    return chase


def score_of(sheet: Sheet, test: str) -> int:
    """``sheet.score(test)``: Trait + Talent of a test, compiled with its callers."""
    trait, talent = sheet.tests.get(test, DEFAULT_TESTS.get(test, SPOTTING))
    return sheet.traits.get(trait, 0) + sheet.talents.get(talent, 0)


def _int(value: Any, name: str, low: int, high: int, rule: str = RULE_TEST) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise IllegalDeclaration(f"{name} must be a whole number from {low} to {high}", rule=rule)
    return value


def distance(a: Combatant, b: Combatant) -> float:
    return math.dist(a.position, b.position)


def in_contact(a: Combatant, b: Combatant) -> bool:
    return distance(a, b) <= CONTACT + 1e-9


def foes_near(state: FightState, c: Combatant, radius: float) -> list[Combatant]:
    """The opponents of ``c`` in the fight within ``radius`` metres of it, in the fight's
    order: a scan of them all in a small fight, the other sides' grids in a large one
    (the grid's test is the same ``math.dist(...) <= radius``)."""
    if len(state.grid) <= SMALL_FIGHT:
        here = c.position
        return [o for o in state.against(c.side) if math.dist(here, o.position) <= radius]
    combatants = state.combatants
    found = [
        combatants[oid]
        for side, grid in state.side_grids.items()
        if side != c.side
        for oid in grid.near(c.position, radius)
    ]
    found.sort(key=by_order)
    return found


def nearest_foe(state: FightState, c: Combatant) -> Combatant | None:
    """The opponent nearest to ``c`` (ties: the lowest id), or None: a scan in a small
    fight; in a large one the grids' nearest, then every opponent as near as it (a
    hair beyond, so that rounding never leaves a tie out) ranked the same way."""
    here = c.position
    if len(state.grid) <= SMALL_FIGHT:
        foes = state.against(c.side)
    else:
        best = min(
            (
                math.dist(here, grid.where[found[0]])
                for side, grid in state.side_grids.items()
                if side != c.side and (found := grid.nearest(here, 1, None, state.order_of))
            ),
            default=None,
        )
        if best is None:
            return None
        foes = foes_near(state, c, best + 1e-6)
    return min(foes, key=lambda o: (math.dist(here, o.position), o.id), default=None)


PREPARE_SAVINGS = ("example", "sentence")


def prepared_cost(cost: int, waited: int, pa: int, saving: str = "example") -> tuple[int, int]:
    """The cost of the next action after waiting ``waited`` phases, and the saving.

    Each phase waited saves one action point, never below 2 (Loss, "Se préparer au
    combat"). With ``saving = "example"`` (the default) only what the fighter needs is
    saved, as the text's example does (Eric waits 8 phases but saves 2: his claymore's
    6 PA come down to the 4 he has left); with ``"sentence"`` every phase waited saves
    one, as its rule's sentence says (Eric's claymore would cost 2). Interpretations.
    """
    if waited <= 0 or cost <= 2:
        return cost, 0
    new = max(2, cost - waited)
    if saving == "example":
        new = max(new, min(cost, pa))
    return new, cost - new


def fursa_of(state: FightState, c: Combatant) -> int:
    """Fursa a fighter may spend: a player character's own, the game master's reserve
    (la réserve du MJ) for everyone else (Loss, "L'Action de Combat", example)."""
    if c.is_pc:
        status: Status = c.status
        return status.fursa
    return clock_of(state).reserve


_EFFECTS_FOUND: dict[tuple[Any, ...], tuple[tuple[str, ...], int]] = {}
"""Declared effects and Exploits found well formed, by the test, whether it is ranged,
the Exploits declared (None: not given) and the effects' names."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Check:
    """What the rules need to know to check one fighter's declaration (a plain slotted
    class: one is made for each declaration checked)."""

    __slots__ = ("c", "segment", "sheet", "state", "status")

    def __init__(self, state: FightState, c: Combatant, segment: int) -> None:
        self.state = state
        self.c = c
        self.segment = segment
        self.status: Status = c.status
        self.sheet: Sheet = c.sheet

    def opponent(self, target: object, rule: str = RULE_TEST) -> Combatant:
        if not isinstance(target, str):
            raise IllegalDeclaration("this action needs a target", rule=rule)
        other = self.state.combatants.get(target)
        if other is None or not other.in_fight:
            raise IllegalDeclaration(f"no fighter {target!r} in the fight", rule=rule)
        if other.side == self.c.side:
            raise IllegalDeclaration(f"{target} is on the same side", rule=rule)
        return other

    def pools(self, params: Mapping[str, Any]) -> dict[str, int]:
        out: dict[str, int] = {}
        if "fursa" not in params and "inspiration" not in params:
            return out  # none spent (a pool is never below 0)
        fursa = fursa_of(self.state, self.c)
        for pool, have in (("fursa", fursa), ("inspiration", self.status.inspiration)):
            n = params.get(pool, 0)
            _int(n, pool, 0, 20)
            if n > have:
                raise IllegalDeclaration(
                    f"{self.c.id} has {have} {pool} left, not {n}", rule=RULE_TEST
                )
            if n:
                out[pool] = n
        return out

    def effects(
        self, params: Mapping[str, Any], test: str, ranged: bool
    ) -> tuple[tuple[str, ...], int]:
        """The declared effects and Exploits, checked against the test they ride on."""
        if "effects" not in params and "exploits" not in params:
            return (), 0  # none declared, and so no Exploit (most tests)
        raw = params.get("effects", [])
        given = params.get("exploits")
        key: tuple[Any, ...] | None = None
        if type(raw) in (list, tuple) and ("exploits" not in params or type(given) is int):
            # What these effects and Exploits were found to be before (the policies
            # declare the same few again and again): the checks depend on nothing else.
            key = (test, ranged, given, *raw)
            try:
                found = _EFFECTS_FOUND.get(key)
            except TypeError:  # an effect's name that is no name: checked below
                key = found = None
            if found is not None:
                return found
        if not isinstance(raw, list | tuple) or not all(isinstance(e, str) for e in raw):
            raise IllegalDeclaration(
                "effects must be a list of effect names", rule=RULE_MELEE_EFFECTS
            )
        rule = RULE_RANGED_EFFECTS if ranged else RULE_MELEE_EFFECTS
        for name in raw:
            effect = EFFECTS.get(name)
            if effect is None:
                raise IllegalDeclaration(
                    f"unknown special effect {name!r} (known: {', '.join(EFFECTS)})", rule=rule
                )
            if not getattr(effect, test):
                raise IllegalDeclaration(f"{name} does not apply to a {test}", rule=rule)
            if ranged and not effect.ranged:
                raise IllegalDeclaration(f"{name} does not apply in ranged combat", rule=rule)
            if not ranged and not effect.melee:
                raise IllegalDeclaration(f"{name} applies to ranged attacks only", rule=rule)
            if ranged and test == "parry" and name in ("counter", "take_advantage"):
                # "uniquement en réussissant une esquive", "sur une attaque ou esquivant"
                raise IllegalDeclaration(
                    f"against a shot, {name} follows a dodge only, not a parry", rule=rule
                )
            if ranged and name == "disarm" and test != "attack":
                raise IllegalDeclaration("in ranged combat disarm is an attack", rule=rule)
            if not effect.cumulable and raw.count(name) > 1:
                raise IllegalDeclaration(f"{name} cannot be declared twice", rule=rule)
        needed = exploits_of(raw)
        exploits = params.get("exploits", needed)
        _int(exploits, "exploits", 0, MAX_EXPLOITS)
        if exploits < needed:
            raise IllegalDeclaration(
                f"the effects {', '.join(raw)} need {needed} Exploit(s), not {exploits}", rule=rule
            )
        found = (tuple(raw), exploits)
        if key is not None:
            if len(_EFFECTS_FOUND) >= 1024:
                _EFFECTS_FOUND.clear()
            _EFFECTS_FOUND[key] = found
        return found


def weapon_for(sheet: Sheet, status: Status, hand: str) -> Weapon:
    if status.disarmed:
        return UNARMED
    if hand == "off":
        if sheet.off_hand is None:
            raise IllegalDeclaration("no weapon in the off hand", rule=RULE_COSTS)
        return sheet.off_hand
    return sheet.weapon


def attack_cost(sheet: Sheet, status: Status, weapon: Weapon, effects: Sequence[str]) -> int:
    """Action points of an attack: the weapon's speed (2 bare-handed or natural), 4 for
    an assault, the slower weapon's with two weapons (Loss, costs table)."""
    if "assault" in effects:
        return COSTS["assault"]
    test = weapon.test
    if test in ("unarmed", "natural"):
        cost = COSTS[test]
    else:  # sheet.speed(weapon): the weapon's speed, unless a ranged one reloads faster
        cost = sheet.speed(weapon) if test in RANGED_TESTS else weapon.speed
    if "two_weapons" in effects and sheet.off_hand is not None and not status.disarmed:
        cost = max(cost, sheet.speed(sheet.off_hand))
    return cost


def check_can_attack(ch: Check) -> None:
    """A disarmed fighter attacks no more: not until it has picked up its weapon, and
    not at all in the round it was disarmed in (Loss, "Désarmer l'adversaire": "ne
    peut plus du tout attaquer pour le Tour de Combat")."""
    st = ch.status
    if st.disarmed:
        raise IllegalDeclaration(
            f"{ch.c.id} is disarmed: no attack until it has picked up its weapon",
            rule=RULE_DISARM,
        )
    if st.unable and st.unable == clock_of(ch.state).round:
        raise IllegalDeclaration(
            f"{ch.c.id} was disarmed this round: no attack at all until the next one",
            rule=RULE_DISARM,
        )


def check_attack(ch: Check, d: Declaration, counter: bool) -> tuple[int, dict[str, Any]]:
    """Cost and planned parameters of an attack (or counter-attack)."""
    st, sheet = ch.status, ch.sheet
    if st.disarmed or st.unable:  # (what check_can_attack() refuses, asked only then)
        check_can_attack(ch)
    target = ch.opponent(d.target)
    given = d.params
    hand = given.get("hand", "main") if given else "main"
    if hand not in ("main", "off"):
        raise IllegalDeclaration(f"hand must be 'main' or 'off', not {hand!r}")
    # weapon_for(sheet, st, hand), its call left for the off hand
    weapon = sheet.weapon if hand == "main" and not st.disarmed else weapon_for(sheet, st, hand)
    ranged = weapon.test in RANGED_TESTS  # weapon.ranged, without the property's call
    effects, exploits = ch.effects(given, "attack", ranged)
    if "heavy" in weapon.tags and ch.c.setup.get("mounted"):
        raise IllegalDeclaration(
            f"the {weapon.name} is a heavy weapon: not from a mount", rule=RULE_TIR_MONTE
        )
    chase = chase_of(ch.state)
    if chase is not None:
        units = chase.units(ch.c.id, target.id)
        if units is None:
            raise IllegalDeclaration(f"{target.id} is out of sight", rule=RULE_PURSUIT)
        if not ranged and units != 1:
            raise IllegalDeclaration(
                f"{target.id} is at distance {units}: a melee attack needs contact (1)",
                rule=RULE_PURSUIT,
            )
    elif ranged:
        gap = distance(ch.c, target)
        if gap > weapon.limit:
            raise IllegalDeclaration(
                f"{target.id} is {gap:.1f} m away, beyond the {weapon.name}'s limit "
                f"({weapon.limit:g} m)",
                rule=RULE_RANGE,
            )
    elif math.dist(ch.c.position, target.position) > CONTACT + 1e-9:  # not in_contact()
        raise IllegalDeclaration(
            f"{target.id} is {distance(ch.c, target):.1f} m away: a melee attack needs contact "
            f"({CONTACT:g} m)",
            rule=RULE_TEST,
        )
    if (
        not ranged
        and chase is None
        # (with no more opponents than that in the fight, the attacker is among them)
        and (len(ch.state.against(target.side)) > MOST_ASSAILANTS or not ch.c.in_fight)
        and ch.c.id not in ch.state.nearest_opponents(target.id, MOST_ASSAILANTS)
    ):
        raise IllegalDeclaration(
            f"{target.id} is already beset by {MOST_ASSAILANTS} nearer assailants",
            rule="Loss, Modificateurs de combat au contact",
        )
    if "assault" in effects:
        if weapon.assault is None:
            raise IllegalDeclaration(f"the {weapon.name} cannot assault", rule=RULE_MELEE_EFFECTS)
        if st.assaulted:
            raise IllegalDeclaration("one assault per round", rule=RULE_MELEE_EFFECTS)
    if "moulinet" in effects and not weapon.long:
        raise IllegalDeclaration("a moulinet needs a long weapon", rule=RULE_MELEE_EFFECTS)
    if "two_weapons" in effects and (sheet.off_hand is None or st.disarmed):
        raise IllegalDeclaration("two weapons need a weapon in each hand", rule=RULE_MELEE_EFFECTS)
    if "shoot_through" in effects and not {"bow", "crossbow", "impulse"} & set(weapon.tags):
        raise IllegalDeclaration(
            "shooting through needs a bow, a crossbow or an impulse weapon",
            rule=RULE_RANGED_EFFECTS,
        )
    if "kill" in effects and (not target.sheet.human or target.sheet.structure):
        raise IllegalDeclaration(
            "kill outright works on a human or human-sized target", rule=RULE_MELEE_EFFECTS
        )
    extra = _targets(ch, d, target, effects, weapon) if "targets" in given else ()
    if extra and chase is not None:
        raise IllegalDeclaration(
            "multi-target effects are not played in a chase (Interpretations)", rule=RULE_PURSUIT
        )
    damage = given.get("damage", True) if given else True
    if damage is not True and damage is not False:  # (not a bool: without isinstance())
        raise IllegalDeclaration("damage must be true or false")
    if not damage and not any(EFFECTS[e].choose_damage for e in effects):
        raise IllegalDeclaration(
            "only an effect that leaves the choice (aim, disarm, knock down, neutralise...) "
            "may deal no damage",
            rule=RULE_MELEE_EFFECTS,
        )
    # (ch.pools() finds none spent when the declaration names none)
    pools = ch.pools(given) if "fursa" in given or "inspiration" in given else None
    cost = attack_cost(sheet, st, weapon, effects)
    params: dict[str, Any] = {"weapon": weapon.id, "exploits": exploits}
    if effects:
        params["effects"] = list(effects)
    if extra:
        params["targets"] = list(extra)
    if hand == "off":
        params["hand"] = "off"
    if not damage:
        params["damage"] = False
    if counter:
        params["counter"] = True
    if pools:
        params.update(pools)
    return cost, params


def _targets(
    ch: Check, d: Declaration, target: Combatant, effects: Sequence[str], weapon: Weapon
) -> tuple[str, ...]:
    """Extra targets of a multi-target effect (two weapons, moulinet, storm of blades,
    shoot through, rain of projectiles)."""
    if "targets" not in d.params:
        return ()
    raw = d.params.get("targets", [])
    if not isinstance(raw, list | tuple) or not all(isinstance(t, str) for t in raw):
        raise IllegalDeclaration("targets must be a list of fighter ids")
    if not raw:
        return ()
    multi = [e for e in effects if e in MULTI_TARGET]
    if not multi:
        raise IllegalDeclaration(
            "more targets need a multi-target effect (two weapons, moulinet, storm of blades, "
            "shoot through, rain of projectiles)",
            rule=RULE_MELEE_EFFECTS,
        )
    most = max(EFFECTS[e].targets for e in multi)
    if len(raw) + 1 > most or len(set(raw)) != len(raw) or target.id in raw:
        raise IllegalDeclaration(
            f"{', '.join(multi)}: {most} different targets at most", rule=RULE_MELEE_EFFECTS
        )
    for t in raw:
        other = ch.opponent(t)
        if weapon.ranged:
            if distance(ch.c, other) > weapon.limit:
                raise IllegalDeclaration(f"{t} is beyond the weapon's limit", rule=RULE_RANGE)
            if "shoot_through" in multi and distance(target, other) > CONTACT:
                raise IllegalDeclaration(
                    f"{t} must stand close behind {target.id} to be shot through",
                    rule=RULE_RANGED_EFFECTS,
                )
        elif not in_contact(ch.c, other):
            raise IllegalDeclaration(f"{t} is not in contact", rule=RULE_MELEE_EFFECTS)
    return tuple(raw)


def check_defence(
    ch: Check, d: Declaration, planned: Sequence[ActionSpec]
) -> tuple[Incoming, dict[str, Any]]:
    """A parry or dodge against one pending attack (Loss, "L'Esquive et la Parade")."""
    st, sheet = ch.status, ch.sheet
    against = d.params.get("against")
    if against is None:
        now = [a for a, i in st.incoming.items() if i.granted == ch.segment]
        if len(now) == 1:
            against = now[0]  # the only attack to answer (what a fight script writes)
    inc = st.incoming.get(against) if isinstance(against, int) else None
    if inc is None or inc.granted != ch.segment:
        pending = ", ".join(
            f"#{a} by {i.attacker}" for a, i in st.incoming.items() if i.granted == ch.segment
        )
        if against is None:
            which = "several attacks to answer" if pending else "no attack to answer"
        else:
            which = f"no attack #{against!r} to answer"
        say = (
            '; say which: against = ID, or in a fight script against = { by = "ATTACKER", '
            'kind = "attack" }'
            if pending
            else ""
        )
        raise IllegalDeclaration(
            f"{which} now (pending: {pending or 'none'}){say}", rule=RULE_DEFENCE
        )
    if any(p.params.get("against") == against for p in planned):
        raise IllegalDeclaration(f"attack #{against} is already answered", rule=RULE_DEFENCE)
    spent = 0
    for p in planned:
        if p.kind in DEFENCES:
            spent += 1
    if st.pa - spent < 1:
        raise IllegalDeclaration(f"{ch.c.id} has no action point left to {d.kind}", rule=RULE_COSTS)
    if st.surprised:
        raise IllegalDeclaration(f"{ch.c.id} is surprised and cannot defend", rule=RULE_DEFENCE)
    params: dict[str, Any] = {"against": against}
    if inc.manoeuvre and d.kind != "dodge":
        raise IllegalDeclaration(f"a {inc.manoeuvre} is dodged, not parried", rule=RULE_PURSUIT)
    if d.kind == "parry":
        use = d.params.get("with", "shield" if sheet.shield is not None else "weapon")
        if use not in ("weapon", "shield"):
            raise IllegalDeclaration(f"with must be 'weapon' or 'shield', not {use!r}")
        if use == "shield" and sheet.shield is None:
            raise IllegalDeclaration(f"{ch.c.id} has no shield", rule=RULE_SHIELD)
        if use == "weapon" and (st.disarmed or not sheet.weapon.parry):
            raise IllegalDeclaration(
                f"{ch.c.id} has nothing solid to parry with", rule=RULE_DEFENCE
            )
        if inc.ranged and (use != "shield" or sheet.shield is None or not sheet.shield.projectiles):
            raise IllegalDeclaration(
                "a projectile is parried only with a shield made for it", rule=RULE_DEFENCE
            )
        params["with"] = use
    effects, exploits = ch.effects(d.params, d.kind, inc.ranged)
    if "defensive_wall" in effects and params.get("with") != "shield":
        raise IllegalDeclaration("a defensive wall needs a shield", rule=RULE_MELEE_EFFECTS)
    if "counter" in effects and inc.attacker in st.countered:
        # once per adversary and round; a counter-attack may itself be countered
        raise IllegalDeclaration(
            f"{ch.c.id} has already countered {inc.attacker} this round", rule=RULE_COUNTER
        )
    if "protect" in effects:
        ally = d.params.get("ally")
        other = ch.state.combatants.get(ally) if isinstance(ally, str) else None
        if other is None or not other.in_fight or other.side != ch.c.side or other is ch.c:
            raise IllegalDeclaration(
                "protect gives its bonus to an ally in the fight: name it with ally",
                rule=RULE_MELEE_EFFECTS,
            )
        if chase_of(ch.state) is None and not in_contact(ch.c, other):
            raise IllegalDeclaration(
                f"protect shields an ally close by (un allié proche): {ally} is "
                f"{distance(ch.c, other):.1f} m away",
                rule=RULE_MELEE_EFFECTS,
            )
        params["ally"] = ally
    params["exploits"] = exploits
    if effects:
        params["effects"] = list(effects)
    params.update(ch.pools(d.params))
    return inc, params


def check_pursuit(
    ch: Check, d: Declaration, weapon_speed: int
) -> tuple[str | None, int, dict[str, Any]]:
    """A pursuit action (Loss, "Les Actions de Poursuite"): who may take it, at what
    distance, and its cost."""
    chase = chase_of(ch.state)
    if chase is None:
        raise IllegalDeclaration(
            f"{d.kind} is a pursuit action: no chase is running", rule=RULE_PURSUIT
        )
    pursued = ch.c.side == chase.pursued_side
    exploits = d.params.get("exploits", 0)
    _int(exploits, "exploits", 0, MAX_EXPLOITS, RULE_PURSUIT)
    params: dict[str, Any] = {"exploits": exploits, **ch.pools(d.params)}
    if d.kind == "zigzag":
        if not pursued:
            raise IllegalDeclaration("zigzags are for the pursued", rule=RULE_PURSUIT)
        if exploits > 2:
            raise IllegalDeclaration("zigzags take two Exploits at most", rule=RULE_PURSUIT)
        if d.target is not None:
            raise IllegalDeclaration("zigzag takes no target")
        return None, PURSUIT_COSTS["zigzag"], params
    if d.kind == "change_distance":
        direction = d.params.get("direction")
        if direction not in ("closer", "away"):
            raise IllegalDeclaration("direction must be 'closer' or 'away'", rule=RULE_PURSUIT)
        if exploits not in (0, 2):
            raise IllegalDeclaration(
                "two Exploits change the distance by one more unit (0 or 2)", rule=RULE_PURSUIT
            )
        params["direction"] = direction
        if d.target is None:
            if not any(ch.c.id in pair for pair in chase.distances):
                raise IllegalDeclaration(f"{ch.c.id} is in sight of nobody", rule=RULE_PURSUIT)
            return None, PURSUIT_COSTS["change_distance"], params
    target = ch.opponent(d.target, RULE_PURSUIT)
    units = chase.units(ch.c.id, target.id)
    if units is None:
        raise IllegalDeclaration(f"{target.id} is out of sight", rule=RULE_PURSUIT)
    if d.kind == "change_distance":
        return target.id, PURSUIT_COSTS["change_distance"], params
    needs = {"charge": (False, 2), "clothesline": (True, 2), "tackle": (False, 1)}
    if d.kind in needs:
        by_pursued, at = needs[d.kind]
        if by_pursued != pursued:
            who = "the pursued" if by_pursued else "a pursuer"
            raise IllegalDeclaration(f"{d.kind} is for {who}", rule=RULE_PURSUIT)
        if units != at:
            raise IllegalDeclaration(
                f"{d.kind} is made at distance {at}, not {units}", rule=RULE_PURSUIT
            )
        return target.id, PURSUIT_COSTS[d.kind], params
    # shoot the legs
    if weapon_speed <= 0:
        raise IllegalDeclaration("shooting the legs needs a ranged weapon", rule=RULE_PURSUIT)
    if units > 3:
        raise IllegalDeclaration(
            f"{target.id} is at distance {units}: 3 at most", rule=RULE_PURSUIT
        )
    return target.id, weapon_speed, params
