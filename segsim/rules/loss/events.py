"""Loss events: rounds and action points, tests, attacks and defences, damage, effects.

Every type name starts with ``loss.`` so that no other ruleset's events collide.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import attrs

from segsim.eventbase import ROUTINE_KINDS
from segsim.events import Event
from segsim.rules.loss.effects import MAX_EXPLOITS, TARGET_MALUS
from segsim.rules.loss.status import Incoming, RoundClock, Status

if TYPE_CHECKING:
    from segsim.state import FightState

CLOCK = "loss"


def clock_of(state: FightState) -> RoundClock:
    clock: RoundClock | None = state.extra.get(CLOCK)  # only ever a RoundClock
    if clock is None:
        clock = state.extra[CLOCK] = RoundClock()
    return clock


def _status(state: FightState, cid: str | None) -> Status:
    assert cid is not None
    status: Status = state.combatants[cid].status
    return status


def _mods(modifiers: Mapping[str, int]) -> str:
    text = " ".join(f"{k} {v:+d}" for k, v in modifiers.items() if v)
    return f" [{text}]" if text else ""


ROUTINE_KINDS.update(("turn", "await"))  # the rules' own time-keeping: bookkeeping


@attrs.frozen
class RoundStarted(Event):
    """A round begins: every fighter's d10 + Initiative gives its action points and its
    first phase (Loss, "Générer les Points d'Actions")."""

    TYPE: ClassVar[str] = "loss.round.started"

    round: int
    top: int
    action_points: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        clock = clock_of(state)
        clock.round, clock.start, clock.top = self.round, self.t, self.top
        clock.busy = False
        for cid, pa in self.action_points.items():
            st = _status(state, cid)
            st.pa, st.round, st.waited = pa, self.round, 0
            st.rolled = pa
            st.advantage = 0
            st.countered = set()
            st.assaulted = False
            st.protected = 0
            st.wall = 0
            st.counters = {}
            st.watched = False
            if self.round > 1:
                st.surprised = False
            st.feints = {k: v for k, v in st.feints.items() if v >= self.round}
            st.intention = None
        clock.lead, clock.order = 0, ()

    def describe(self) -> str:
        pas = ", ".join(f"{k} {v}" for k, v in self.action_points.items())
        return f"round {self.round} begins at phase {self.top}; action points: {pas}"


@attrs.frozen
class IntentionsCalled(Event):
    """The optional order of declaring intentions (Loss, "Déclarer ses intentions"):
    before the round's first phase, fighters state what they prepare to do, one segment
    per initiative total, lowest first; the phases begin after them."""

    TYPE: ClassVar[str] = "loss.intentions"

    round: int
    order: tuple[tuple[str, ...], ...] = ()

    def apply(self, state: FightState) -> None:
        clock = clock_of(state)
        clock.lead, clock.order = len(self.order), tuple(tuple(g) for g in self.order)

    def describe(self) -> str:
        groups = "; then ".join(", ".join(g) for g in self.order)
        return f"intentions of round {self.round} are declared in this order: {groups}"


@attrs.frozen
class Intended(Event):
    """A fighter states its intention for the round: the first action it will take at
    its phase (binding while it can still be carried out; Interpretations)."""

    TYPE: ClassVar[str] = "loss.intention"

    round: int
    action: str
    target: str | None = None

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.intention, st.intended = (self.action, self.target), self.round

    def describe(self) -> str:
        on = f" {self.target}" if self.target else ""
        return f"{self.actor} intends to {self.action}{on} this round"


@attrs.frozen
class Joined(Event):
    """A fighter enters a fight in progress: it acts from the next round (Loss,
    "Entrer dans un combat en cours"), with +2 to its initiative if it watched."""

    TYPE: ClassVar[str] = "loss.joined"

    watched: bool

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.pa, st.round, st.watched = 0, clock_of(state).round, self.watched

    def describe(self) -> str:
        extra = " (+2 initiative next round: it watched the fight)" if self.watched else ""
        return f"{self.actor} joins the fight and acts from the next round{extra}"


@attrs.frozen
class ActionPointsSpent(Event):
    """Action points spent on an action (the fighter's phase goes down by as much)."""

    TYPE: ClassVar[str] = "loss.pa.spent"

    what: str
    cost: int
    left: int
    saved: int = 0  # saved by waiting (se préparer)
    defence: bool = False

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.pa = self.left
        clock_of(state).busy = True
        if not self.defence:
            st.intention = None
            st.waited = 0
            st.last_act = self.t
            st.counters = {}

    def describe(self) -> str:
        saved = f" ({self.saved} saved by waiting)" if self.saved else ""
        return f"{self.actor} spends {self.cost} PA on {self.what}{saved}: phase {self.left}"


@attrs.frozen
class Waited(Event):
    """The fighter lets phases go by without acting (se préparer): its phase goes down,
    and each phase waited may save action points on its next action."""

    TYPE: ClassVar[str] = "loss.waited"

    phases: int
    left: int
    declared: bool = False  # declared (prepare) rather than a phase let go by

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.pa = self.left
        st.waited += self.phases
        if self.declared:
            st.last_act = self.t

    def describe(self) -> str:
        return f"{self.actor} waits {self.phases} phase(s): now at phase {self.left}"


@attrs.frozen
class Passed(Event):
    """The fighter gives up the rest of its action points this round."""

    TYPE: ClassVar[str] = "loss.passed"

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.pa = 0
        st.intention = None
        st.last_act = self.t

    def describe(self) -> str:
        return f"{self.actor} passes for the rest of the round"


@attrs.frozen
class PoolsSpent(Event):
    """Fursa and Inspiration spent before a roll, +5 each."""

    TYPE: ClassVar[str] = "loss.pools"

    fursa: int
    inspiration: int

    def apply(self, state: FightState) -> None:
        c = state.combatants[str(self.actor)]
        st: Status = c.status
        if c.is_pc:
            st.fursa -= self.fursa
        else:  # a non-player character spends the game master's reserve
            clock_of(state).reserve -= self.fursa
        st.inspiration -= self.inspiration

    def describe(self) -> str:
        return f"{self.actor} spends {self.fursa} Fursa and {self.inspiration} Inspiration"


@attrs.frozen
class Tested(Event):
    """A test of action: d10 + Trait + Talent + bonuses against a difficulty."""

    TYPE: ClassVar[str] = "loss.test"
    __test__: ClassVar[bool] = False  # not a pytest class

    test: str
    action: int
    target: str | None
    roll: int
    score: int
    total: int
    difficulty: int
    exploits: int
    success: bool
    bonuses: Mapping[str, int] = attrs.field(factory=dict)
    modifiers: Mapping[str, int] = attrs.field(factory=dict)

    def apply(self, state: FightState) -> None:
        """A fighter faces the one it last tested against (attacked, parried, dodged)."""
        if self.target is not None and self.target in state.combatants:
            if self.test == "vigilance" and not self.success:
                return  # it did not see the shooter
            _status(state, self.actor).facing = self.target

    def describe(self) -> str:
        result = "success" if self.success else "failure"
        ex = f" with {self.exploits} Exploit(s)" if self.exploits else ""
        against = f" against {self.target}" if self.target else ""
        return (
            f"{self.actor} {self.test}{against}{ex}: d10 {self.roll} + {self.score}"
            f"{_mods(self.bonuses)} = {self.total} vs {self.difficulty}{_mods(self.modifiers)}"
            f" -> {result}"
        )


@attrs.frozen
class AttackPending(Event):
    """A successful attack the target may still parry or dodge (in the next segment)."""

    TYPE: ClassVar[str] = "loss.attack.pending"

    target: str
    attack: int
    difficulty: int
    exploits: int
    effects: tuple[str, ...]
    ranged: bool = False
    explosive: bool = False
    counter: bool = False
    manoeuvre: str = ""

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        st = _status(state, self.target)
        st.incoming[self.attack] = Incoming(
            self.attack,
            self.actor,
            self.difficulty,
            self.exploits,
            self.effects,
            self.ranged,
            self.explosive,
            self.t + 1,
            self.counter,
            self.manoeuvre,
        )

    def describe(self) -> str:
        return (
            f"{self.target} may parry or dodge {self.actor}'s attack #{self.attack} "
            f"(difficulty {self.difficulty} before its own modifiers)"
        )


@attrs.frozen
class AttackSettled(Event):
    """The outcome of an attack on one target: hit, stopped or missed; the Exploits a
    partial defence cancelled and the effects that remain."""

    TYPE: ClassVar[str] = "loss.attack"

    target: str
    attack: int
    result: str
    cancelled: int = 0
    effects: tuple[str, ...] = ()

    def apply(self, state: FightState) -> None:
        if self.target in state.combatants:
            _status(state, self.target).incoming.pop(self.attack, None)

    def describe(self) -> str:
        cancel = f", {self.cancelled} Exploit(s) cancelled" if self.cancelled else ""
        eff = f"; effects: {', '.join(self.effects)}" if self.effects else ""
        return f"{self.actor}'s attack #{self.attack} on {self.target}: {self.result}{cancel}{eff}"


@attrs.frozen
class Damaged(Event):
    """Damage: d10s + weapon + bonus - armour and shield = health levels lost."""

    TYPE: ClassVar[str] = "loss.damage"

    attacker: str
    weapon: str
    rolls: tuple[int, ...]
    damage: int
    protection: int
    lost: int
    health: int
    halved: bool = False

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).health = self.health

    def describe(self) -> str:
        half = " (halved)" if self.halved else ""
        return (
            f"{self.actor} takes {self.damage}{half} from {self.attacker}'s {self.weapon} "
            f"(d10 {'+'.join(map(str, self.rolls))}) - {self.protection} protection = "
            f"{self.lost} health level(s) lost; {self.health} left"
        )


@attrs.frozen
class EffectApplied(Event):
    """A special effect takes hold on ``target`` (or on the actor itself)."""

    TYPE: ClassVar[str] = "loss.effect"

    effect: str
    target: str | None = None
    value: int = 0

    def apply(self, state: FightState) -> None:
        assert self.actor is not None
        me = _status(state, self.actor)
        other = _status(state, self.target) if self.target in state.combatants else None
        e = self.effect
        if e == "take_advantage":
            me.advantage = min(MAX_EXPLOITS, me.advantage + self.value)
        elif e == "feint" and self.target is not None:
            me.feints[self.target] = clock_of(state).round + 1
        elif e in TARGET_MALUS and other is not None:
            other.difficulty_malus += TARGET_MALUS[e]
        elif e == "knock_down" and other is not None:
            other.prone = True
        elif e == "disarm" and other is not None:
            other.disarmed = other.unable = clock_of(state).round
        elif e == "protect" and other is not None:
            other.protected = 5
        elif e in ("defensive_wall", "total_dodge"):
            me.wall = self.value
            me.pa = 0
        elif e == "counter" and self.target is not None:
            me.counters[self.target] = self.t + 1
            me.countered.add(self.target)
        elif e == "assault":
            me.assaulted = True

    def describe(self) -> str:
        on = f" on {self.target}" if self.target else ""
        value = f" ({self.value:+d})" if self.value else ""
        return f"{self.actor}: {self.effect.replace('_', ' ')}{on}{value}"


@attrs.frozen
class CounterLapsed(Event):
    """A counter-attack not taken at once is lost (all those the fighter let go)."""

    TYPE: ClassVar[str] = "loss.counter.lapsed"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).counters = {}

    def describe(self) -> str:
        return f"{self.actor} lets its counter-attack go"


@attrs.frozen
class StoodUp(Event):
    TYPE: ClassVar[str] = "loss.stood_up"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).prone = False

    def describe(self) -> str:
        return f"{self.actor} gets up"


@attrs.frozen
class Rearmed(Event):
    TYPE: ClassVar[str] = "loss.rearmed"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).disarmed = 0

    def describe(self) -> str:
        return f"{self.actor} picks up its weapon"


@attrs.frozen
class Aimed(Event):
    """Aiming: +1 per action point to the next shot, at most +5."""

    TYPE: ClassVar[str] = "loss.aimed"

    bonus: int

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.aim = self.bonus
        if not self.bonus:
            st.aimed = ""  # a shot uses up the aim

    def describe(self) -> str:
        return f"{self.actor} aims: +{self.bonus} to its next shot"


@attrs.frozen
class Unhidden(Event):
    """A hidden shooter has fired: its targets see it from now on."""

    TYPE: ClassVar[str] = "loss.unhidden"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).hidden = False

    def describe(self) -> str:
        return f"{self.actor} is seen"


@attrs.frozen
class Disaster(Event):
    """A player character failed a test with Exploits: the game master may turn the
    failed Exploits into a Désastre (Loss, glossary; option ``disasters``)."""

    TYPE: ClassVar[str] = "loss.disaster"

    test: str
    exploits: int

    def describe(self) -> str:
        return f"{self.actor} fails {self.test} with {self.exploits} Exploit(s): a Désastre"


@attrs.frozen
class SocialAction(Event):
    """A social talent used in a fight (1 PA); its effect is the game master's."""

    TYPE: ClassVar[str] = "loss.social"

    what: str

    def describe(self) -> str:
        return f"{self.actor}: {self.what}"


@attrs.frozen
class ActionWasted(Event):
    """A declared action that came to nothing (its target fell first)."""

    TYPE: ClassVar[str] = "loss.wasted"

    action: int
    kind: str
    reason: str

    def describe(self) -> str:
        return f"{self.actor}'s {self.kind} comes to nothing: {self.reason}"


@attrs.frozen
class SetUp(Event):
    """The game master's calls for a fighter at the start (scenario ``setup``): surprised
    (no parry or dodge in round 1), hidden (its first shot cannot be avoided), prone."""

    TYPE: ClassVar[str] = "loss.setup"

    surprised: bool = False
    hidden: bool = False
    prone: bool = False
    aimed: str = ""  # "round" or "sequence": aimed before the fight, for its first shot

    def apply(self, state: FightState) -> None:
        st = _status(state, self.actor)
        st.surprised, st.hidden, st.prone = self.surprised, self.hidden, self.prone
        st.aimed = self.aimed

    def describe(self) -> str:
        what = [n for n in ("surprised", "hidden", "prone") if getattr(self, n)]
        if self.aimed:
            what.append(f"having aimed a {self.aimed}")
        return f"{self.actor} starts {', '.join(what)}"


@attrs.frozen
class ReserveSet(Event):
    """The game master's Fursa (la réserve du MJ) grows by ``fursa``: at the start, the
    option ``gm_fursa`` and the Fursa of the non-player characters' sheets; later, the
    Fursa of a non-player character joining (Loss, "L'Action de Combat", example:
    the malfrat has no Fursa because the reserve is empty)."""

    TYPE: ClassVar[str] = "loss.reserve"

    fursa: int

    def apply(self, state: FightState) -> None:
        clock_of(state).reserve += self.fursa

    def describe(self) -> str:
        return f"the game master's reserve gains {self.fursa} Fursa"


@attrs.frozen
class AimedRound(Event):
    """A fighter spends a whole round aiming (Viser durant un Tour de Combat): +10 to its
    next shot, +15 with the Visée specialisation (Loss, "Modificateurs de combat à
    distance")."""

    TYPE: ClassVar[str] = "loss.aimed.round"

    def apply(self, state: FightState) -> None:
        _status(state, self.actor).aimed = "round"

    def describe(self) -> str:
        return f"{self.actor} aims for the whole round"


@attrs.frozen
class Spoke(Event):
    """Speaking or shouting: free, no action point (Loss, "Dépenser les Points
    d'Action": "Parler ou crier ne consomme pas de Points d'Action")."""

    TYPE: ClassVar[str] = "loss.spoke"

    what: str
    target: str | None = None

    def describe(self) -> str:
        to = f" to {self.target}" if self.target else ""
        return f"{self.actor} says{to}: {self.what}"


@attrs.frozen
class BrokenOff(Event):
    """A whole round went by with nobody spending an action point: the fight is over,
    nobody fights any more (Interpretations, "The end of a fight")."""

    TYPE: ClassVar[str] = "loss.broken_off"

    round: int

    def apply(self, state: FightState) -> None:
        clock_of(state).over = True

    def describe(self) -> str:
        return f"nobody acted in round {self.round}: the fight breaks off"
