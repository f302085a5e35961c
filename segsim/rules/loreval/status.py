"""A Loreval fighter's mutable state during a fight, and the plan it declared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from segsim.actions import EMPTY
from segsim.rules.loreval.attention import Attention
from segsim.rules.loreval.content import Sheet, Weapon


@attrs.frozen
class Plan:
    """The action a fighter declared for the round: what it resolves at its turn.

    ``category`` is its cost in initiative points; ``extra_moves`` the extra moves
    declared with it (their malus holds for the whole round); ``changed`` marks a changed
    action (action modifiée, -2 to every roll); ``heroic`` a heroic action (action
    d'éclat).
    """

    kind: str
    target: str | None
    category: int
    params: Mapping[str, Any] = EMPTY
    extra_moves: int = 0
    changed: bool = False
    heroic: bool = False
    cost: int = -1
    """Initiative points the round's action costs: its category, or for a changed
    action the category of the action declared first (Interpretations)."""

    @property
    def spent(self) -> int:
        return self.category if self.cost < 0 else self.cost


_FIELDS: tuple[str, ...] = (
    "hit_points",
    "max_hit_points",
    "heroism",
    "weapon",
    "off_hand",
    "carried",
    "initiative",
    "round",
    "round_start",
    "start_points",
    "tie",
    "grace",
    "next_roll_malus",
    "attention",
    "declared_round",
    "resolved_round",
    "plan",
    "surprised",
    "weapon_ready",
    "hidden",
    "invisible",
    "senses_lost",
    "perception_malus",
    "slowed",
    "hasted",
    "blocked",
    "change_round",
    "used_heroic_round",
    "heroic_asked_round",
    "counter_round",
    "momentum_round",
    "holding",
    "held_by",
    "hold",
    "pinning",
    "locked_with",
    "lock_roll",
    "lock_choice",
    "prone",
    "bonus_round",
    "attack_bonus",
    "weave_round",
    "exposed_round",
    "weapon_damage",
)
"""A status's fields, in the order of its constructor (its slots, equality and repr)."""


class Status:
    """Everything about a fighter that changes during a fight; only events change it.

    ``initiative`` is the fighter's initiative points now; ``start_points`` those it
    had when the round began (they set the order of the round: the cost of the round's
    action is taken at its end). ``grace`` says why the fighter sits out the round
    ("chosen", "forced" at 0 points, "surprise", "heroic" after a heroic action).

    A plain class rather than an attrs one, so that the compiled build makes it a
    native class whose fields compiled code reads directly (the rounds' bookkeeping,
    the settlement and the views read a fighter's status many times an action), as
    ``Combatant`` is; its equality and repr are written out below.
    """

    # Slotted, as the compiled build's native class is: more fields than CPython keeps
    # inline in a plain instance (at most 30), so each read would be a dictionary lookup.
    __slots__ = _FIELDS

    hit_points: int
    max_hit_points: int
    heroism: int
    weapon: Weapon
    off_hand: Weapon | None
    carried: tuple[Weapon, ...]
    initiative: int
    # The round in progress (0 before the fighter's first round starts).
    round: int
    # The segment at which it began: a round lasts ``round_segments`` at least,
    # longer when its steps need more (Interpretations).
    round_start: int
    start_points: int
    tie: int
    grace: str
    next_roll_malus: int
    attention: Attention
    declared_round: int
    resolved_round: int
    plan: Plan | None
    surprised: bool
    weapon_ready: bool
    hidden: bool
    invisible: bool
    senses_lost: int
    # Points of perception lost (the game master's call): as much off detection
    # rolls, and 1 attention point per 4 (Loreval, "Nombre de points d'attention").
    perception_malus: int
    slowed: bool
    hasted: bool
    blocked: bool
    change_round: int
    used_heroic_round: int
    heroic_asked_round: int
    counter_round: int
    momentum_round: int
    # Whom the fighter holds in a grapple (lutte).
    holding: str | None
    held_by: str | None
    # How the fighter is held: grabbed, lifted, pinned, down.
    hold: str
    pinning: bool
    # Whom the fighter is locked with after a successful block (Bloquer une
    # attaque).
    locked_with: str | None
    # Whether it is the blocked assailant, who must win a strength roll to get free.
    lock_roll: bool
    # The blocked assailant has yet to choose: drop its weapon to get free at once,
    # or stay locked (Loreval, "Bloquer une attaque").
    lock_choice: bool
    prone: bool
    bonus_round: int
    # A bonus to every attack of round ``bonus_round`` (juggling).
    attack_bonus: int
    weave_round: int
    exposed_round: int
    weapon_damage: int

    def __init__(
        self,
        hit_points: int,
        max_hit_points: int,
        heroism: int,
        weapon: Weapon,
        off_hand: Weapon | None = None,
        carried: tuple[Weapon, ...] = (),
        initiative: int = 0,
        round: int = 0,
        round_start: int = 0,
        start_points: int = 0,
        tie: int = 0,
        grace: str = "",
        next_roll_malus: int = 0,
        attention: Attention | None = None,
        declared_round: int = 0,
        resolved_round: int = 0,
        plan: Plan | None = None,
        surprised: bool = False,
        weapon_ready: bool = True,
        hidden: bool = False,
        invisible: bool = False,
        senses_lost: int = 0,
        perception_malus: int = 0,
        slowed: bool = False,
        hasted: bool = False,
        blocked: bool = False,
        change_round: int = 0,
        used_heroic_round: int = 0,
        heroic_asked_round: int = 0,
        counter_round: int = 0,
        momentum_round: int = 0,
        holding: str | None = None,
        held_by: str | None = None,
        hold: str = "",
        pinning: bool = False,
        locked_with: str | None = None,
        lock_roll: bool = False,
        lock_choice: bool = False,
        prone: bool = False,
        bonus_round: int = 0,
        attack_bonus: int = 0,
        weave_round: int = 0,
        exposed_round: int = 0,
        weapon_damage: int = 0,
    ) -> None:
        self.hit_points = hit_points
        self.max_hit_points = max_hit_points
        self.heroism = heroism
        self.weapon = weapon
        self.off_hand = off_hand
        self.carried = carried
        self.initiative = initiative
        self.round = round
        self.round_start = round_start
        self.start_points = start_points
        self.tie = tie
        self.grace = grace
        self.next_roll_malus = next_roll_malus
        self.attention = Attention() if attention is None else attention
        self.declared_round = declared_round
        self.resolved_round = resolved_round
        self.plan = plan
        self.surprised = surprised
        self.weapon_ready = weapon_ready
        self.hidden = hidden
        self.invisible = invisible
        self.senses_lost = senses_lost
        self.perception_malus = perception_malus
        self.slowed = slowed
        self.hasted = hasted
        self.blocked = blocked
        self.change_round = change_round
        self.used_heroic_round = used_heroic_round
        self.heroic_asked_round = heroic_asked_round
        self.counter_round = counter_round
        self.momentum_round = momentum_round
        self.holding = holding
        self.held_by = held_by
        self.hold = hold
        self.pinning = pinning
        self.locked_with = locked_with
        self.lock_roll = lock_roll
        self.lock_choice = lock_choice
        self.prone = prone
        self.bonus_round = bonus_round
        self.attack_bonus = attack_bonus
        self.weave_round = weave_round
        self.exposed_round = exposed_round
        self.weapon_damage = weapon_damage

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _FIELDS)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in _FIELDS)
        return f"Status({inner})"

    def attention_points(self, sheet: Sheet) -> int:
        """The attention points the fighter has now: the sheet's, less 1 per 4 points of
        perception lost, never below 1 (Loreval, "Nombre de points d'attention")."""
        return max(1, sheet.attention_points - self.perception_malus // 4)

    @classmethod
    def of(cls, sheet: Sheet) -> Status:
        return cls(
            hit_points=sheet.hit_points,
            max_hit_points=sheet.hit_points,
            heroism=sheet.heroism,
            weapon=sheet.weapon,
            off_hand=sheet.off_hand,
            carried=sheet.carried,
        )
