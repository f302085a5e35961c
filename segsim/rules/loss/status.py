"""A Loss fighter's mutable state, and the round clock shared by all.

Only events change them (DESIGN, principle 6).
"""

from __future__ import annotations

import attrs

from segsim.rules.loss.content import Sheet


@attrs.define
class RoundClock:
    """The current round (tour de combat): its number, first segment and top phase.

    Phase ``p`` of the round begins at segment ``start + (top - p) * phase_segments``:
    higher phases first (Loss, "Générer les Points d'Actions").
    """

    round: int = 0
    start: int = 0
    top: int = 0
    lead: int = 0  # segments of declared intentions before the first phase
    busy: bool = False  # whether anyone has spent action points this round
    over: bool = False  # the fight broke off: a whole round with nobody acting
    reserve: int = 0  # the game master's Fursa (la réserve du MJ), for non-player characters
    order: tuple[tuple[str, ...], ...] = ()  # who declares its intention in each of them

    @property
    def first(self) -> int:
        """The segment of the round's top phase (after the intentions, if any)."""
        return self.start + self.lead

    def phase_segment(self, phase: int, k: int) -> int:
        return self.first + (self.top - phase) * k

    def phase_at(self, segment: int, k: int) -> int | None:
        """The phase beginning at ``segment`` (None between phase boundaries)."""
        if segment < self.first or (segment - self.first) % k:
            return None
        return self.top - (segment - self.first) // k

    def end(self, k: int) -> int:
        """The segment after the round's last phase (phase 1)."""
        return self.first + self.top * k

    def intending(self, segment: int) -> tuple[str, ...]:
        """Who declares its intention in ``segment`` (Loss, "Déclarer ses
        intentions", the optional order)."""
        i = segment - self.start
        return self.order[i] if 0 <= i < len(self.order) else ()


@attrs.frozen
class Incoming:
    """A successful attack waiting for the target's parry or dodge."""

    attack: int
    attacker: str
    difficulty: int
    exploits: int
    effects: tuple[str, ...]
    ranged: bool
    explosive: bool
    granted: int  # the segment in which the target may answer
    counter: bool = False  # a counter-attack (countered only by one who has not yet)
    manoeuvre: str = ""  # a pursuit action, dodged only


@attrs.define
class Status:
    """Health levels, action points (the fighter's phase), pools and lasting effects.

    ``pa`` is the fighter's remaining action points for ``round``: it acts when the round
    reaches that phase. ``waited`` counts the phases it let go by since its last action
    (se préparer). ``incoming`` holds attacks it may still parry or dodge; ``counters`` the
    opponents it may counter-attack, each with the segment it may do so in (one
    counter-attack per adversary and round, several in one phase: Loss,
    "Contre-attaquer"). ``facing`` is the fighter it
    last tested against (attacked, or parried or dodged): its back is turned to the half
    plane away from that fighter (Interpretations, "From behind").
    """

    health: int
    fursa: int
    inspiration: int
    pa: int = 0
    rolled: int = 0  # action points at the start of the round
    round: int = 0
    waited: int = 0
    last_act: int = -1
    advantage: int = 0
    watched: bool = False
    incoming: dict[int, Incoming] = attrs.field(factory=dict)
    counters: dict[str, int] = attrs.field(factory=dict)  # opponent -> segment
    countered: set[str] = attrs.field(factory=set)
    assaulted: bool = False
    prone: bool = False
    disarmed: int = 0  # the round it was disarmed in (0: armed)
    unable: int = 0  # the round in which it may not attack at all (disarmed in it)
    difficulty_malus: int = 0
    feints: dict[str, int] = attrs.field(factory=dict)  # opponent -> last round of +2
    protected: int = 0
    wall: int = 0
    aim: int = 0
    aimed: str = ""  # aimed before the fight ("round", "sequence"), for the first shot
    hidden: bool = False
    surprised: bool = False
    facing: str | None = None  # the opponent it last attacked or defended against
    intention: tuple[str, str | None] | None = None  # (action, target) declared this round
    intended: int = 0  # the round of its last declared intention

    @classmethod
    def of(cls, sheet: Sheet) -> Status:
        return cls(
            health=sheet.health.levels,
            fursa=sheet.fursa,
            inspiration=sheet.inspiration,
        )
