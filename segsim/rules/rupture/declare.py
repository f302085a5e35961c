"""Declarations: what each action kind needs (Rupture, "Les actions ciblées", "Se
défendre", "Les actions non ciblées").

Targeted and untargeted actions each cost one of the passe's actions and fill the rest
of the fighter's slot (:mod:`segsim.rules.rupture.passe`): an untargeted action lasts until
the slot's end; a targeted one is rolled a segment earlier, so that its blow lands as the
slot ends (:func:`roll_duration`). A defence is free and is
declared against an attacker, either in the segment after its roll is published or
announced before the roll, while its targeted action is in progress.
Each checker raises :class:`IllegalDeclaration` naming the rule, before anything changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from segsim.actions import Action, ActionSpec, Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules import unknown_params
from segsim.rules.rupture.content import TARGETED, TEXT, Sheet, Weapon
from segsim.rules.rupture.passe import next_boundary
from segsim.rules.rupture.status import Status
from segsim.state import Combatant, FightState

# Planned actions are made as Action(...), not through its alias ActionSpec: the
# compiled build calls a native class's constructor directly only by the class's own
# name (through the alias it is a call of a Python object, its arguments parsed).

RULE_TARGETED = f"{TEXT}, Les actions ciblées"
RULE_DEFENCE = f"{TEXT}, Se défendre"
RULE_UNTARGETED = f"{TEXT}, Les actions non ciblées"
RULE_OVERFLOW = f"{TEXT}, Dépassement"
RULE_SUMMARY = f"{TEXT}, Les bases résumées"

ACT = "act"
"""The channel of actions that cost one of the passe's actions (and of ``pass``)."""
DEFENCE = "defence"
WAIT = "wait"
BLOW = "blow"
"""The kind of the action the rules start when an attack roll is published: it lands at
the end of the next segment, after the target has had its say."""
CONTACT = 1.5
"""Metres: a move toward a fighter stops this close."""
_EPS = 0.01

UNTARGETED = ("move", "run", "acrobatics", "help", "heal", "work", "prepare")
"""Untargeted action kinds (actions non ciblées)."""
TESTED: Mapping[str, str] = {
    "run": "athletics",
    "acrobatics": "acrobatics",
    "help": "tactics",
    "heal": "medicine",
    "work": "craft",
    "prepare": "tactics",
}
"""Untargeted actions that need a test, with the skill tested unless ``skill`` says
otherwise. A move needs none."""


@attrs.frozen
class Kind:
    """An action kind: whether it costs an action, and the parameters it takes."""

    costs: bool
    params: frozenset[str] = frozenset()


KINDS: Mapping[str, Kind] = {
    **{k: Kind(True, frozenset({"weapon"})) for k in TARGETED},
    "defend": Kind(False, frozenset({"skill", "with"})),
    "move": Kind(True, frozenset({"to"})),
    "run": Kind(True, frozenset({"to", "skill"})),
    "acrobatics": Kind(True, frozenset({"to", "what", "skill"})),
    "help": Kind(True, frozenset({"skill"})),
    "heal": Kind(True, frozenset({"skill"})),
    "work": Kind(True, frozenset({"what", "skill", "difficulty"})),
    "prepare": Kind(True, frozenset({"skill"})),
    "pass": Kind(False),
    "wait": Kind(False, frozenset({"until"})),
}


def plan(
    state: FightState,
    c: Combatant,
    d: Declaration,
    segment: int,
    planned: Sequence[ActionSpec],
    passe: int,
) -> ActionSpec:
    """Check a declaration and time it."""
    what = d.kind
    kind = KINDS.get(what)
    if kind is None:
        raise IllegalDeclaration(
            f"unknown action {what!r} (known: {', '.join(KINDS)})", rule=RULE_TARGETED
        )
    given = d.params
    if given:
        accepted = kind.params
        for name in given:
            if name not in accepted:
                unknown_params(what, given, accepted)
    if what == "wait":
        return _plan_wait(d, segment)
    if what == "defend":
        return _plan_defence(state, c, d, segment, planned)
    sheet: Sheet = c.sheet
    for a in c.actions:
        if a.channel == ACT and not a.continuous:
            _busy(c, a.kind)
    for p in planned:
        if p.channel == ACT:
            _busy(c, p.kind)
    boundary = next_boundary(segment, sheet.actions, passe)
    duration = boundary - segment
    if what == "pass":
        if d.target is not None:
            raise IllegalDeclaration("pass takes no target")
        return Action("pass", duration, ACT, continuous=True)
    if settling(c, segment, passe):
        raise IllegalDeclaration(
            f"{c.id}'s targeted action is settled as its slot ends (segment "
            f"{boundary - 1}): one action at a time, {sheet.actions} per passe",
            rule=RULE_TARGETED,
        )
    blow = in_exchange(state, c.id, segment)
    if blow is not None:
        raise IllegalDeclaration(
            f"the blow between {blow.actor} and {blow.target} lands at the end of segment "
            f"{segment}: between a roll and its blow nothing happens but the defence (the "
            f'value of an undefended attack is taken "immédiatement"); {c.id} acts once '
            f"it has landed, in segment {segment + 1}",
            rule=RULE_TARGETED,
        )
    if d.kind in TARGETED:
        foe, params = _plan_targeted(state, c, d)
        return Action(d.kind, roll_duration(duration), ACT, target=foe, rolled=True, params=params)
    target, params = _plan_untargeted(state, c, d)
    return Action(d.kind, duration, ACT, target=target, rolled=d.kind in TESTED, params=params)


def _busy(c: Combatant, doing: str) -> None:
    sheet: Sheet = c.sheet
    raise IllegalDeclaration(
        f"{c.id} is busy with {doing} until the end of its slot: one action at a time, "
        f"{sheet.actions} per passe",
        rule=RULE_TARGETED,
    )


def roll_duration(left: int) -> int:
    """How long a targeted action lasts when ``left`` segments of its slot remain: until
    one segment before the slot's end, so that its roll is published, the target may
    answer it in the slot's last segment and the blow lands as the slot ends, before
    anyone who acts at that boundary decides again (Rupture, "Les actions ciblées": the
    value of an undefended attack is taken "immédiatement"). With a single segment left
    there is no room: the roll comes at the slot's end, the blow one segment later."""
    return left - 1 if left >= 2 else left


def settling(c: Combatant, segment: int, passe: int) -> bool:
    """Whether ``c``'s targeted action of the slot in progress has been rolled (or came
    to nothing) one segment before the slot's end: its blow lands as the slot ends, and
    until then its action is not over. (Rolled in an earlier segment of the same slot:
    the slot of that segment ends after this one.)"""
    status: Status = c.status
    done = status.targeted_at
    if done < 0 or done >= segment:
        return False
    sheet: Sheet = c.sheet
    return next_boundary(done, sheet.actions, passe) > segment


def free_now(state: FightState, c: Combatant, segment: int, passe: int) -> bool:
    """Whether ``c`` may begin an action in ``segment``: nothing but a ``pass`` in its
    slot, no targeted action of its own being settled at the slot's end
    (:func:`settling`), and no blow it gave or takes landing at the end of this segment
    (:func:`in_exchange`: it acts once the blow has landed)."""
    for a in c.actions:
        if a.channel == ACT and not a.continuous:
            return False
    if settling(c, segment, passe):
        return False
    return not state.autonomous or in_exchange(state, c.id, segment) is None


_landing: list[Any] = [(None, -1, -1, {})]
"""The last index :func:`landing` made, as one tuple (read and replaced at once):
the state's autonomous actions, the state's version, the segment, the index."""


def landing(state: FightState, segment: int) -> Mapping[str, list[Action]]:
    """The blows landing at the end of ``segment``, by the fighters who gave or take
    them, in the order they were set off. Made once per state and version (a
    declaration phase's decisions and plans all ask it, and nothing changes the state
    until they are applied), so that a battle's many blows in flight are looked over
    once per phase rather than at each decision."""
    autonomous = state.autonomous
    kept, version, at, index = _landing[0]
    if kept is autonomous and version == state.version and at == segment:
        found: dict[str, list[Action]] = index
        return found
    found = {}
    for a in autonomous.values():
        if a.start == segment and a.kind == BLOW:
            for cid in (a.actor, a.target):
                if cid is not None:
                    blows = found.get(cid)
                    if blows is None:
                        found[cid] = [a]
                    elif blows[-1] is not a:
                        blows.append(a)
    _landing[0] = (autonomous, state.version, segment, found)
    return found


def in_exchange(state: FightState, cid: str, segment: int) -> Action | None:
    """The blow landing at the end of ``segment`` that ``cid`` gave or takes, if any.

    Between an attack's roll and its blow only the target's defence happens (Rupture,
    "Les actions ciblées": an undefended attack's value is taken "immédiatement"; "Se
    défendre": the defence may come after the roll): neither fighter starts anything
    else until the blow has landed, at the end of the segment in which the target may
    answer."""
    if not state.autonomous:
        return None
    found = landing(state, segment).get(cid)
    return found[0] if found else None


def _plan_wait(d: Declaration, segment: int) -> ActionSpec:
    if d.target is not None:
        raise IllegalDeclaration("wait takes no target")
    until = d.params.get("until")
    if until is None:
        return Action(WAIT, None, WAIT, continuous=True)
    if not isinstance(until, int) or isinstance(until, bool) or until <= segment:
        raise IllegalDeclaration(
            f"wait until must be a later segment than {segment}, not {until!r}"
        )
    return Action(WAIT, until - segment, WAIT, continuous=True, params={"until": until})


def opponent(state: FightState, c: Combatant, target: str | None, what: str) -> Combatant:
    if target is None:
        raise IllegalDeclaration(f"{what} needs a target", rule=RULE_TARGETED)
    other = state.combatants.get(target)
    if other is None:
        raise IllegalDeclaration(f"no combatant {target!r} in this fight")
    if not other.in_fight:
        raise IllegalDeclaration(f"{target} is out of the fight")
    if other.side == c.side:
        raise IllegalDeclaration(
            f"{target} is on the same side: a targeted action acts on an adversary",
            rule=RULE_TARGETED,
        )
    return other


def means_for(sheet: Sheet, kind: str, wid: object) -> Weapon:
    """The weapon or manoeuvre a targeted action uses: the one named, else the sheet's
    first of that kind."""
    found = sheet.means(kind)
    if not found:
        what = "weapon" if kind == "attack" else f"{kind} manoeuvre"
        raise IllegalDeclaration(f"no {what} on the sheet", rule=RULE_TARGETED)
    if wid is None:
        return found[0]
    weapon = next((w for w in found if w.id == wid), None)
    if weapon is None:
        known = ", ".join(w.id for w in found)
        raise IllegalDeclaration(f"no {kind} means {wid!r} on the sheet (has: {known})")
    return weapon


def _plan_targeted(state: FightState, c: Combatant, d: Declaration) -> tuple[str, dict[str, Any]]:
    other = opponent(state, c, d.target, d.kind)
    sheet: Sheet = c.sheet
    weapon = means_for(sheet, d.kind, d.params.get("weapon"))
    gap = math.dist(c.position, other.position)
    if gap > weapon.range + _EPS:
        raise IllegalDeclaration(
            f"{other.id} is {gap:.1f} m away, beyond the reach of {weapon.name} "
            f"({weapon.range:g} m)",
            rule=RULE_TARGETED,
        )
    return other.id, {"weapon": weapon.id}


def pending_blow(state: FightState, defender: str, attacker: str, segment: int) -> Any:
    """The blow of ``attacker`` against ``defender`` landing at the end of ``segment``."""
    if not state.autonomous:
        return None
    for a in landing(state, segment).get(defender, ()):
        if a.actor == attacker and a.target == defender:
            return a
    return None


def announced_attack(state: FightState, defender: str, attacker: str) -> Action | None:
    """The targeted action of ``attacker`` against ``defender`` in progress, not yet
    rolled: a defence may be announced against it before its roll (Rupture, "Se
    défendre": announcing after the roll is allowed "même", so before is the ordinary
    case)."""
    other = state.combatants.get(attacker)
    if other is None:
        return None
    for a in other.actions:
        if a.kind in TARGETED and a.target == defender and a.channel == ACT:
            return a
    return None


def defends_against(c: Combatant, attacker: str, planned: Sequence[ActionSpec]) -> bool:
    """Whether ``c`` already defends (or has announced its defence) against ``attacker``."""
    for a in c.actions:
        if a.target == attacker and a.kind == "defend":
            return True
    return any(p.target == attacker and p.kind == "defend" for p in planned)


def _plan_defence(
    state: FightState,
    c: Combatant,
    d: Declaration,
    segment: int,
    planned: Sequence[ActionSpec],
) -> ActionSpec:
    """A free defence against ``d.target``: after its attack roll is published (in the
    next segment, with the blow), or announced before it, while the attacker's targeted
    action against ``c`` is in progress. Either way the defence test is rolled as the
    blow lands, so both orders give the same fight."""
    if d.target is None:
        raise IllegalDeclaration("a defence names the attacker it answers", rule=RULE_DEFENCE)
    blow = pending_blow(state, c.id, d.target, segment)
    attack = None if blow is not None else announced_attack(state, c.id, d.target)
    if blow is None and attack is None:
        raise IllegalDeclaration(
            f"no attack of {d.target!r} against {c.id} is in progress or has just been "
            "rolled: a defence answers a declared targeted action, before its roll or in "
            "the segment after it",
            rule=RULE_DEFENCE,
        )
    if defends_against(c, d.target, planned):
        raise IllegalDeclaration(
            f"{c.id} already defends against {d.target}'s attack", rule=RULE_DEFENCE
        )
    sheet: Sheet = c.sheet
    if blow is not None:
        domain = str(blow.params["domain"])
    else:
        assert attack is not None
        attacker = state.combatants[d.target]
        domain = means_for(attacker.sheet, attack.kind, attack.params.get("weapon")).domain
    allowed = sheet.defences[domain]
    skill = d.params.get("skill", allowed[0])
    if skill not in allowed:
        raise IllegalDeclaration(
            f"{c.id} defends against a {domain} action with {', '.join(allowed)}, not {skill!r}",
            rule=RULE_DEFENCE,
        )
    params: dict[str, Any] = {"skill": skill}
    if blow is not None:
        params["blow"] = blow.id
    else:
        assert attack is not None
        params["attack"] = attack.id
    cover = d.params.get("with")
    if cover is not None:
        usable = sheet.covers(domain)
        if not any(w.id == cover for w in usable):
            known = ", ".join(w.id for w in usable) or "nothing"
            raise IllegalDeclaration(
                f"{cover!r} lends no cover against a {domain} action (usable: {known})",
                rule=RULE_DEFENCE,
            )
        params["with"] = cover
    if blow is not None:
        return Action("defend", 1, DEFENCE, target=d.target, rolled=True, params=params)
    # Announced: it waits for the blow, which lands one segment after the attack's roll
    # (at its end), and is settled with it. A hold of its own channel, so that it neither
    # keeps the defender from its slots nor ends another announced defence.
    assert attack is not None and attack.end is not None
    return Action(
        "defend",
        attack.end + 1 - segment,
        f"{DEFENCE} {d.target}",
        target=d.target,
        rolled=True,
        continuous=True,
        params=params,
    )


def _skill(d: Declaration) -> str:
    skill = d.params.get("skill", TESTED[d.kind])
    if not isinstance(skill, str) or not skill:
        raise IllegalDeclaration(f"skill must be a skill name, not {skill!r}")
    return skill


def _ally(state: FightState, c: Combatant, target: str | None, kind: str) -> Combatant:
    if target is None:
        raise IllegalDeclaration(f"{kind} names the ally it is for", rule=RULE_UNTARGETED)
    ally = state.combatants.get(target)
    if ally is None:
        raise IllegalDeclaration(f"no combatant {target!r} in this fight")
    if ally.side != c.side or ally.id == c.id:
        raise IllegalDeclaration(
            f"{kind} is for an ally (another fighter of {c.id}'s side), not {target}",
            rule=RULE_UNTARGETED,
        )
    return ally


def _destination(
    state: FightState, c: Combatant, d: Declaration, reach: float
) -> tuple[float, float]:
    to = d.params.get("to")
    if d.target is not None and to is not None:
        raise IllegalDeclaration("a move goes toward a fighter or to a point, not both")
    if d.target is not None:
        other = state.combatants.get(d.target)
        if other is None or not other.in_fight or other.id == c.id:
            raise IllegalDeclaration(f"no other fighter {d.target!r} in the fight to move to")
        gap = math.dist(c.position, other.position)
        if gap <= CONTACT + _EPS:
            raise IllegalDeclaration(f"{c.id} is already next to {other.id}")
        step = min(reach, gap - CONTACT)
        x, y = c.position
        tx, ty = other.position
        return (round(x + (tx - x) * step / gap, 2), round(y + (ty - y) * step / gap, 2))
    if not (
        isinstance(to, list | tuple)
        and len(to) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
        and all(math.isfinite(v) for v in to)
    ):
        raise IllegalDeclaration(f"to must be a point [x, y] in metres, not {to!r}")
    dest = (float(to[0]), float(to[1]))
    if math.dist(c.position, dest) > reach + _EPS:
        raise IllegalDeclaration(
            f"{d.kind} covers {reach:g} m at most, not {math.dist(c.position, dest):.1f} m",
            rule=RULE_UNTARGETED,
        )
    return dest


def _plan_untargeted(
    state: FightState, c: Combatant, d: Declaration
) -> tuple[str | None, dict[str, Any]]:
    sheet: Sheet = c.sheet
    params: dict[str, Any] = {}
    target: str | None = None
    if d.kind in TESTED:
        params["skill"] = _skill(d)
    if d.kind in ("move", "run"):
        reach = sheet.speed * (2 if d.kind == "run" else 1)
        params["to"] = _destination(state, c, d, reach)
        if d.target is not None:
            params["toward"] = d.target
    elif d.kind == "acrobatics":
        if d.target is not None:
            raise IllegalDeclaration("acrobatics takes no target (give to = [x, y] to move)")
        if d.params.get("to") is not None:
            params["to"] = _destination(state, c, d, sheet.speed)
        params["what"] = _text(d, "acrobatics")
    elif d.kind == "help":
        ally = _ally(state, c, d.target, "help")
        if not ally.in_fight:
            raise IllegalDeclaration(f"{ally.id} is out of the fight")
        target = ally.id
    elif d.kind == "heal":
        ally = _ally(state, c, d.target, "heal")
        if ally.status.dead:
            raise IllegalDeclaration(f"{ally.id} is dead", rule=RULE_OVERFLOW)
        target = ally.id
    elif d.kind == "work":
        if d.target is not None:
            raise IllegalDeclaration("work takes no target: it concerns equipment")
        params["what"] = _text(d, "equipment")
        difficulty = d.params.get("difficulty", 0)
        if (
            not isinstance(difficulty, int)
            or isinstance(difficulty, bool)
            or not (0 <= difficulty <= 10)
        ):
            raise IllegalDeclaration(
                f"difficulty is the game master's call, 0 to 10, not {difficulty!r}"
            )
        if difficulty:
            params["difficulty"] = difficulty
    elif d.target is not None:  # prepare
        raise IllegalDeclaration(f"{d.kind} takes no target")
    return target, params


def _text(d: Declaration, default: str) -> str:
    what = d.params.get("what", default)
    if not isinstance(what, str) or not what:
        raise IllegalDeclaration(f"what must be a text, not {what!r}")
    return what
