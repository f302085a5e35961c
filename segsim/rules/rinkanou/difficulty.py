"""What the rules impose on a RinKaNou test (its difficulty), and the simultaneous-actions
malus it makes on a fighter's other rolled actions (RinKaNou, "Actions simultanées").

An action's difficulty is everything the rules and the game master impose on its roll:
the declared difficulty, the defender's deflection and cover on an attack, -20 % against
a thrust, -40 % against a missile, the parry scores, the range, the reading modifier,
and, once it has rolled, the attacker's margin a defence is made against. The malus one
rolled action puts on another of its fighter is -10 % + that difficulty / 2
(:func:`segsim.rules.rinkanou.roll.simultaneous_malus`).

The two maluses of two actions settled in the same segment are worked out from the two
declarations before either rolls (:func:`known_difficulty`), so neither depends on the
order in which the fighters are listed, which is the order their rolls are made in. An
action settled in an earlier segment weighs with its whole difficulty, as its roll fixed
it (the record's ``test.rolled`` shows it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from segsim.actions import Action
from segsim.rules.rinkanou.content import Sheet
from segsim.rules.rinkanou.events import imposed_difficulty
from segsim.rules.rinkanou.ranged import PROJECTILE_DODGE_MALUS, range_malus
from segsim.rules.rinkanou.roll import simultaneous_malus
from segsim.state import Combatant

if TYPE_CHECKING:
    from segsim.rules.rinkanou.settle import Settlement

DISARM_MALUS = -50  # a localized blow at the weapon (RinKaNou, "Désarmement")
THRUST_PARRY_MALUS = -20  # RinKaNou, "Coup d'estoc"
THRUST_DODGE_MALUS = -20  # RinKaNou, "Esquive"
READ_BASE = -70  # extrêmement difficile (RinKaNou, "Échelonnement des actions")
READ_PER_SEGMENT = 20
DISENGAGE_AFTER_DODGE = 50  # immanquable


def attack_start(c: Combatant, action: Action) -> int:
    """Where an action begins for a reader: a strike (or a weapon parry) that follows its
    arming at once is one action with it ("Attaquer = Armer + Frapper"; the seed's own
    example reads Margaret's strike at its fifth segment, arming included)."""
    if action.kind not in ("strike", "parry") or action.channel != "hands":
        return action.start
    arm = next(
        (a for a in c.recent if a.kind == "arm" and not a.cancelled and a.last == action.start - 1),
        None,
    )
    return arm.start if arm is not None else action.start


def read_modifier(elapsed: int) -> int:
    """Reading an action: -70 % + 20 % per segment of it already elapsed."""
    return READ_BASE + READ_PER_SEGMENT * elapsed


def after_a_dodge(c: Combatant, action: Action, reading: str) -> bool:
    """Whether a disengage starts right after a dodge of its fighter, which makes it
    immanquable, +50 % (RinKaNou, "Se désengager": "vient de réussir (effectuer ?) une
    esquive"). ``reading`` is the ruleset's ``after_dodge``: "succeeded" asks that every
    roll of that dodge succeeded, "performed" only that it was made (not cancelled)."""
    start = action.start
    return any(
        a.kind == "dodge"
        and not a.cancelled
        and a.last == start - 1
        and (reading == "performed" or c.status.dodged.get(a.id, False))
        for a in c.recent
    )


def overlap_malus(s: Settlement, action: Action) -> int:
    """The simultaneous-actions malus on ``action`` from its fighter's other rolled
    actions that share a segment with it: -10 % + each one's difficulty / 2.

    The fighter's actions in progress and recent ones are all there is to read: the
    engine finishes every action of the batch (moves it into ``recent``) before it calls
    ``resolve``, but for autonomous ones (projectiles in flight), which belong to no
    fighter's actions and never roll. An action is in one of the two lists at most, once
    (tests/test_rinkanou_settle.py checks all three)."""
    c = s.combatants[action.actor]
    total = 0
    aid = action.id
    segment = s.segment
    # Action.overlaps() and Action.last, without their calls (an open action runs to now).
    duration = action.duration
    last = segment if duration is None else action.start + duration - 1
    start = action.start
    # Its actions in progress, then its recent ones (one list to look through: most
    # often the recent ones alone, its last action just finished).
    actions = c.actions
    for other in actions + c.recent if actions else c.recent:
        # Only its rolled actions weigh: the others are passed over before any lookup.
        if not other.rolled or other.id == aid or other.cancelled:
            continue
        duration = other.duration
        other_last = segment if duration is None else other.start + duration - 1
        if other.start <= last and start <= other_last:
            mods = None
            if duration is not None and other_last < segment:
                mods = c.status.rolled.get(other.id)  # settled earlier: its own roll
            if mods is not None:
                difficulty = imposed_difficulty(mods)
            else:
                difficulty = known_difficulty(s, c, other)
            total += simultaneous_malus(difficulty)
    return total


def known_difficulty(s: Settlement, c: Combatant, action: Action) -> int:
    """The difficulty of ``c``'s ``action`` as its declaration and the fight before this
    segment's rolls fix it: what the rules impose, but no other roll's outcome (the
    margin of the blow a defence meets is not known before that blow rolls)."""
    total = action.difficulty
    kind = action.kind
    combatants = s.combatants
    if kind == "strike" and action.target is not None:
        target = combatants[action.target]
        total -= target.sheet.armour.deflection + s.cover_malus(target)
        if action.params.get("disarm"):
            total += DISARM_MALUS
    elif kind == "shoot" and action.target is not None:
        target = combatants[action.target]
        weapon = c.sheet.ranged
        if weapon is not None:
            total += range_malus(math.dist(c.position, target.position), weapon)
        total -= target.sheet.armour.deflection + s.cover_malus(target)
    elif kind in ("dodge", "parry"):
        total += _defence_difficulty(s, c, action)
    elif kind == "read" and action.target is not None:
        observed = combatants[action.target]
        watched_id = action.params.get("action_id")
        watched = next(
            (a for a in [*observed.actions, *observed.recent] if a.id == watched_id), None
        )
        start = attack_start(observed, watched) if watched is not None else action.start
        total += read_modifier(action.start - start)
    elif kind == "disengage" and after_a_dodge(c, action, s.rules.after_dodge):
        total += DISENGAGE_AFTER_DODGE
    return total


def _defence_difficulty(s: Settlement, c: Combatant, defence: Action) -> int:
    """What the rules impose on a parry or a dodge before the blow it meets rolls: the
    weapons' parry scores (and the size table read as a parry malus), -20 % against a
    thrust (-10 % on a shield), -40 % against a missile. The blow is the one the
    declarations time it against: ending in the same segment, on its fighter, from its
    target if it names one (the first, as the settlement takes them)."""
    shield = defence.params.get("with") == "shield"
    sheet: Sheet = c.sheet
    total = 0
    if defence.kind == "parry" and not shield:
        total += sheet.weapon.parry
    if defence.last != s.segment:
        return total  # it meets nothing before it ends: no blow is known yet
    for blow in s.batch:
        if blow.target != c.id or blow.cancelled or blow.kind not in ("strike", "projectile"):
            continue
        if defence.target is not None and blow.actor != defence.target:
            continue
        if blow.kind == "projectile":
            if defence.kind == "dodge":
                return total + PROJECTILE_DODGE_MALUS
            continue  # a missile is dodged, not parried
        thrust = blow.params.get("blow") == "thrust"
        if defence.kind == "dodge":
            return total + (THRUST_DODGE_MALUS if thrust else 0)
        attacking: Sheet = s.combatants[blow.actor].sheet
        total -= attacking.weapon.parry
        if thrust:
            return total + (THRUST_PARRY_MALUS // 2 if shield else THRUST_PARRY_MALUS)
        if s.rules.size_table == "parry":
            total -= s.tables.parry_size[attacking.weapon.size]
        return total
    return total
