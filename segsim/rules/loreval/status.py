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


@attrs.define
class Status:
    """Everything about a fighter that changes during a fight; only events change it.

    ``initiative`` is the fighter's initiative points now; ``start_points`` those it
    had when the round began (they set the order of the round: the cost of the round's
    action is taken at its end). ``grace`` says why the fighter sits out the round
    ("chosen", "forced" at 0 points, "surprise", "heroic" after a heroic action).
    """

    hit_points: int
    max_hit_points: int
    heroism: int
    weapon: Weapon
    off_hand: Weapon | None = None
    carried: tuple[Weapon, ...] = ()
    initiative: int = 0
    round: int = 0
    """The round in progress (0 before the fighter's first round starts)."""
    round_start: int = 0
    """The segment at which it began: a round lasts ``round_segments`` at least, longer
    when its steps need more (Interpretations)."""
    start_points: int = 0
    tie: int = 0
    grace: str = ""
    next_roll_malus: int = 0
    attention: Attention = attrs.field(factory=Attention)
    declared_round: int = 0
    resolved_round: int = 0
    plan: Plan | None = None
    surprised: bool = False
    weapon_ready: bool = True
    hidden: bool = False
    invisible: bool = False
    senses_lost: int = 0
    perception_malus: int = 0
    """Points of perception lost (the game master's call): as much off detection rolls,
    and 1 attention point per 4 (Loreval, "Nombre de points d'attention")."""
    slowed: bool = False
    hasted: bool = False
    blocked: bool = False
    change_round: int = 0
    used_heroic_round: int = 0
    heroic_asked_round: int = 0
    counter_round: int = 0
    momentum_round: int = 0
    holding: str | None = None
    """Whom the fighter holds in a grapple (lutte)."""
    held_by: str | None = None
    hold: str = ""
    """How the fighter is held: grabbed, lifted, pinned, down."""
    pinning: bool = False
    locked_with: str | None = None
    """Whom the fighter is locked with after a successful block (Bloquer une attaque)."""
    lock_roll: bool = False
    """Whether it is the blocked assailant, who must win a strength roll to get free."""
    lock_choice: bool = False
    """The blocked assailant has yet to choose: drop its weapon to get free at once, or
    stay locked (Loreval, "Bloquer une attaque")."""
    prone: bool = False
    bonus_round: int = 0
    attack_bonus: int = 0
    """A bonus to every attack of round ``bonus_round`` (juggling)."""
    weave_round: int = 0
    exposed_round: int = 0
    weapon_damage: int = 0

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
