"""A caravan crosses a bandit country: segsim fights embedded in a larger simulation.

The host is a SimPy environment that counts **seconds**. A caravan (three guards and a
merchant, with an outrider scouting ahead) travels four legs. On each leg bandits may lie
in ambush; the game master of the causeway and the pass plays RinKaNou, the one of the
forests Chroniques, so an ambush starts a fight of that region's ruleset in the host's
environment (one segment is 0.1 s: ``scale=0.1``) and the caravan waits on it. While a
fight runs, host processes take part:

* the outrider rides back and joins the fight if it still goes on (``fight.join``);
* the merchant flees as soon as he is hurt (``fight.leave`` from a subscriber);
* a road patrol may ride up and break the fight up (``fight.process.interrupt``);
* a watcher reads who falls from a ``fight.event_store`` (time to the first casualty).

Survivors travel on with their wounds: what a fighter lost is kept as a fraction of its
health, and its sheet in the next fight (of either ruleset) starts that much lower; who
is out leaves the caravan. The host's randomness is one ``random.Random(seed)`` of its
own, used only through ``random()`` (the one stream Python keeps stable across versions);
every fight gets its own seed drawn from it, so no two fights share dice and a seed
always gives the same statistics.

    python examples/caravan.py --crossings 40 --seed 1
    python examples/caravan.py --crossings 40 --seed 1 --records records

(the second also writes every fight's record in the folder records/).

docs-test: replace "--crossings 40" "--crossings 3" (the documentation's test keeps it short)
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
from collections import Counter
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import attrs
import simpy

from segsim.events import Event, OutOfFight
from segsim.fight import CombatantSpec, Fight
from segsim.policy import make_policy
from segsim.record import write_record
from segsim.rules import get_ruleset

SCALE = 0.1
"""Host time units (seconds) per segment."""
HOUR = 3600.0
REST = 12 * HOUR
"""The next caravan sets out half a day after the previous one arrived or was lost."""
CARAVAN = "caravan"
BANDITS = "bandits"
MERCHANT = "ambroise"
FLEES = "flees to the wagons"
HURT = ("wound.taken", "chroniques.damage")
"""Event types of a fighter being hurt, in RinKaNou and in Chroniques."""
MAX_SEGMENTS = {"rinkanou": 3_000, "chroniques": 6_000}
"""Five minutes of RinKaNou, ten of Chroniques (sixty rounds): then the bandits give up."""

Proc = Generator[simpy.Event, Any, Any]
"""A host process: a generator that yields SimPy events."""


# ----------------------------------------------------------------- people and places


@attrs.frozen
class Hire:
    """Someone of the caravan, with a sheet and a policy in each ruleset."""

    id: str
    name: str
    role: str  # guard, merchant or outrider
    rinkanou: tuple[str, str]  # (example fighter, policy)
    chroniques: tuple[str, str]

    def fighter(self, ruleset: str) -> tuple[str, str]:
        return self.rinkanou if ruleset == "rinkanou" else self.chroniques


GUARDS = (
    Hire("hugues", "Hugues", "guard", ("shieldbearer", "parrier"), ("aldric", "aggressive")),
    Hire("isabeau", "Isabeau", "guard", ("duellist", "counter"), ("nissa", "aggressive")),
    Hire("wendel", "Wendel", "guard", ("greatsword", "aggressive"), ("anselm", "aggressive")),
)
MERCHANT_HIRE = Hire(
    MERCHANT,
    "Ambroise the merchant",
    "merchant",
    ("recruit", "defender"),
    ("melisande", "cautious"),
)
OUTRIDER = Hire(
    "ottokar", "Ottokar the outrider", "outrider", ("spearman", "keeper"), ("aldric", "aggressive")
)


@attrs.frozen
class Leg:
    """A stretch of road: how long it takes, the ruleset its game master plays, who may
    lie in ambush there (the largest band; a smaller one takes the first of them)."""

    name: str
    ruleset: str
    hours: float
    ambush_chance: float
    patrol_chance: float
    band: tuple[tuple[str, str], ...]  # (example fighter, policy)


LEGS = (
    Leg(
        "salt-marsh causeway",
        "rinkanou",
        3.0,
        0.4,
        0.25,
        (
            ("recruit", "aggressive"),
            ("veteran", "pressure"),
            ("recruit", "aggressive"),
            ("spearman", "keeper"),
        ),
    ),
    Leg(
        "Old Weald",
        "chroniques",
        4.0,
        0.5,
        0.1,
        (
            ("bandit", "aggressive"),
            ("bandit_archer", "aggressive"),
            ("bandit", "aggressive"),
            ("bandit_chief", "aggressive"),
            ("bandit", "support"),
        ),
    ),
    Leg(
        "Grey Pass",
        "rinkanou",
        2.5,
        0.4,
        0.3,
        (
            ("veteran", "aggressive"),
            ("greatsword", "aggressive"),
            ("margaret", "pressure"),
            ("recruit", "aggressive"),
        ),
    ),
    Leg(
        "border woods",
        "chroniques",
        3.5,
        0.35,
        0.25,
        (
            ("bandit", "aggressive"),
            ("bandit_archer", "aggressive"),
            ("bandit_archer", "aggressive"),
            ("bandit", "aggressive"),
        ),
    ),
)


@attrs.define
class Caravan:
    """Who travels, and the fraction of health each has lost so far (0 = unhurt)."""

    members: list[Hire]
    outrider: Hire | None
    worn: dict[str, float]
    lost: bool = False

    @classmethod
    def hire(cls) -> Caravan:
        people = [*GUARDS, MERCHANT_HIRE, OUTRIDER]
        return cls([*GUARDS, MERCHANT_HIRE], OUTRIDER, {h.id: 0.0 for h in people})

    def leaves(self, cid: str) -> None:
        self.members = [h for h in self.members if h.id != cid]
        if self.outrider is not None and self.outrider.id == cid:
            self.outrider = None


# ----------------------------------------------------------------- wounds across rulesets

HEALTH_FIELD = {"rinkanou": "health", "chroniques": "hit_points"}
"""The sheet field that says how much a fighter can take, in each ruleset."""


def health_left(ruleset: str, sheet: Any, status: Any) -> int:
    """What a fighter can still take at the end of a fight, in its sheet's units."""
    if ruleset == "rinkanou":
        return int(sheet.health - status.wounds)  # RinKaNou counts wounds up to health
    return int(status.hit_points)  # Chroniques counts hit points down to 0


def wounded(ruleset: str, sheet: Any, worn: float) -> Any:
    """The sheet with its health lowered by the fraction already lost: the host's own
    simplification (the fighter starts the fight with less to lose, and no wound
    level yet), the same for both rulesets."""
    field = HEALTH_FIELD[ruleset]
    full = getattr(sheet, field)
    return attrs.evolve(sheet, **{field: max(1, round(full * (1.0 - worn)))})


# ----------------------------------------------------------------- the host's randomness


def chance(rng: random.Random, p: float) -> bool:
    return rng.random() < p


def uniform(rng: random.Random, low: float, high: float) -> float:
    return low + (high - low) * rng.random()


def derive_seed(rng: random.Random) -> int:
    """A fight's own seed, drawn from the host's generator (``random()`` only)."""
    return int(rng.random() * 2**32)


# ----------------------------------------------------------------- reports


@attrs.frozen
class FightReport:
    """One ambush, as the host saw it (times in host seconds)."""

    crossing: int
    leg: int
    ruleset: str
    seed: int
    start: float
    seconds: float  # host time from the start of the fight to its end
    segments: int  # the same span in the fight's segments
    last_segment: int  # the segment of the fight's ``end`` event
    result: str
    winner: str | None
    bandits: int
    fallen: tuple[str, ...]  # caravan members out of the fight (not fled)
    merchant_fled: bool
    outrider_joined: bool
    patrol: bool  # a patrol interrupted the fight
    first_fall: float | None  # seconds from the start to the first fighter out
    events: int


@attrs.frozen
class CrossingReport:
    """One caravan's crossing, in host seconds."""

    number: int
    start: float
    end: float
    legs: int  # legs travelled (the last one perhaps only in part)
    completed: bool
    travel: float  # seconds on the road
    fighting: float  # seconds in fights


@attrs.frozen
class Summary:
    """Statistics over all the crossings, with every fight and crossing report."""

    seed: int
    crossings: tuple[CrossingReport, ...]
    fights: tuple[FightReport, ...]
    host_seconds: float
    rest_seconds: float
    records: tuple[str, ...] = ()  # names of the record files written

    @property
    def completed(self) -> int:
        return sum(c.completed for c in self.crossings)

    @property
    def legs_travelled(self) -> int:
        return sum(c.legs for c in self.crossings)

    @property
    def travel_seconds(self) -> float:
        return sum(c.travel for c in self.crossings)

    @property
    def fight_seconds(self) -> float:
        return sum(f.seconds for f in self.fights)

    @property
    def ambushes_by_ruleset(self) -> dict[str, int]:
        counts = Counter(f.ruleset for f in self.fights)
        return {name: counts[name] for name in ("rinkanou", "chroniques")}

    @property
    def outcomes(self) -> dict[str, int]:
        return dict(sorted(Counter(_outcome(f) for f in self.fights).items()))

    @property
    def guards_lost(self) -> int:
        """Guards and outriders out of a fight (the merchant is counted apart)."""
        return sum(1 for f in self.fights for cid in f.fallen if cid != MERCHANT)

    def mean_seconds(self, ruleset: str | None = None) -> float:
        times = [f.seconds for f in self.fights if ruleset in (None, f.ruleset)]
        return statistics.fmean(times) if times else 0.0

    def text(self) -> str:
        n = len(self.crossings)
        by_rules = self.ambushes_by_ruleset
        falls = [f.first_fall for f in self.fights if f.first_fall is not None]
        outcomes = ", ".join(f"{k} {v}" for k, v in self.outcomes.items()) or "none"
        merchant_lost = sum(MERCHANT in f.fallen for f in self.fights)
        longest = max((f.seconds for f in self.fights), default=0.0)
        lines = [
            f"caravan: {n} crossings of {len(LEGS)} legs, seed {self.seed}",
            f"  completed {self.completed}, lost to bandits {n - self.completed}",
            f"  ambushes {len(self.fights)} on {self.legs_travelled} legs travelled "
            f"(rinkanou {by_rules['rinkanou']}, chroniques {by_rules['chroniques']})",
            f"  outcomes: {outcomes}",
            f"  guards and outriders lost {self.guards_lost}, the merchant {merchant_lost} times",
            f"  the merchant fled {sum(f.merchant_fled for f in self.fights)} fights, "
            f"the outrider joined {sum(f.outrider_joined for f in self.fights)}",
            f"  fight length: mean {self.mean_seconds():.1f} s (rinkanou "
            f"{self.mean_seconds('rinkanou'):.1f} s, chroniques "
            f"{self.mean_seconds('chroniques'):.1f} s), longest {longest:.1f} s",
            f"  first fighter out after {statistics.fmean(falls) if falls else 0.0:.1f} s "
            "on average",
            f"  host time {self.host_seconds:,.1f} s = travel {self.travel_seconds:,.1f} s"
            f" + fights {self.fight_seconds:,.1f} s + rest {self.rest_seconds:,.1f} s",
        ]
        return "\n".join(lines)


def _outcome(f: FightReport) -> str:
    if f.result == "victory":
        return f"{f.winner} won"
    return f.result


# ----------------------------------------------------------------- the host simulation


class Road:
    """The host: one SimPy environment counting seconds, one random generator, the two
    rulesets, and the caravans that travel one after another."""

    def __init__(
        self,
        seed: int,
        *,
        records: Path | None = None,
        on_fight: Callable[[Fight], None] | None = None,
    ) -> None:
        self.seed = seed
        self.env = simpy.Environment()
        self.rng = random.Random(seed)
        self.rules = {
            "rinkanou": get_ruleset("rinkanou"),
            "chroniques": get_ruleset("chroniques", {"ambush": BANDITS}),
        }
        self.records = records
        self.on_fight = on_fight
        self._sheets: dict[tuple[str, str], Any] = {}
        self.fights: list[FightReport] = []
        self.crossings: list[CrossingReport] = []
        self.rest = 0.0
        self.written: list[str] = []

    def run(self, crossings: int) -> Summary:
        done = self.env.process(self.journeys(crossings))
        self.env.run(until=done)
        return Summary(
            self.seed,
            tuple(self.crossings),
            tuple(self.fights),
            self.env.now,
            self.rest,
            tuple(self.written),
        )

    def journeys(self, crossings: int) -> Proc:
        for number in range(crossings):
            if number:
                yield self.env.timeout(REST)
                self.rest += REST
            yield self.env.process(self.crossing(number))

    def crossing(self, number: int) -> Proc:
        env, rng = self.env, self.rng
        caravan = Caravan.hire()
        start, travel, fighting, legs = env.now, 0.0, 0.0, 0
        for index, leg in enumerate(LEGS):
            legs += 1
            road = leg.hours * HOUR * uniform(rng, 0.8, 1.2)
            if chance(rng, leg.ambush_chance):
                before = road * rng.random()
                yield env.timeout(before)
                travel += before
                road -= before
                report: FightReport = yield env.process(self.ambush(number, index, leg, caravan))
                fighting += report.seconds
                if caravan.lost:
                    break
            yield env.timeout(road)
            travel += road
        self.crossings.append(
            CrossingReport(number, start, env.now, legs, not caravan.lost, travel, fighting)
        )

    # ------------------------------------------------------------- one ambush

    def sheet(self, ruleset: str, fighter: str) -> Any:
        key = (ruleset, fighter)
        if key not in self._sheets:
            rules = self.rules[ruleset]
            self._sheets[key] = rules.load_sheet(rules.content.fighters[fighter])
        return self._sheets[key]

    def spec(
        self, hire: Hire, ruleset: str, worn: float, position: tuple[float, float]
    ) -> CombatantSpec:
        fighter, policy = hire.fighter(ruleset)
        setup = {"surprised": True} if ruleset == "rinkanou" else {}
        return CombatantSpec(
            hire.id,
            CARAVAN,
            wounded(ruleset, self.sheet(ruleset, fighter), worn),
            make_policy(ruleset, policy),
            name=hire.name,
            position=position,
            is_pc=True,
            setup=setup,
        )

    def band(self, leg: Leg, size: int) -> list[CombatantSpec]:
        near = leg.ruleset == "rinkanou"  # RinKaNou bandits spring from the reeds at 3 m
        setup = {"armed": True} if near else {}
        return [
            CombatantSpec(
                f"bandit{i + 1}",
                BANDITS,
                self.sheet(leg.ruleset, fighter),
                make_policy(leg.ruleset, policy),
                position=(3.0, 2.0 * i) if near else (9.0 + 2.0 * (i % 2), 3.0 * i - 3.0),
                setup=setup,
            )
            for i, (fighter, policy) in enumerate(leg.band[:size])
        ]

    def ambush(self, number: int, index: int, leg: Leg, caravan: Caravan) -> Proc:
        """Start a fight of the leg's ruleset in the host's environment, let the host's
        processes take part, wait for its end and carry its wounds on."""
        env, rng = self.env, self.rng
        # Every draw of the host is made here, in a fixed order, before the fight starts.
        size = 2 + int(rng.random() * (len(leg.band) - 1))
        seed = derive_seed(rng)
        ride_back = uniform(rng, 5.0, 40.0)
        patrol = uniform(rng, 5.0, 30.0) if chance(rng, leg.patrol_chance) else None

        guards = [h for h in caravan.members if h.role == "guard"]
        specs = [
            self.spec(h, leg.ruleset, caravan.worn[h.id], (0.0, 2.0 * i))
            for i, h in enumerate(guards)
        ]
        if MERCHANT_HIRE in caravan.members:
            specs.append(self.spec(MERCHANT_HIRE, leg.ruleset, caravan.worn[MERCHANT], (-3.0, 2.0)))
        specs += self.band(leg, size)
        fight = Fight(
            self.rules[leg.ruleset],
            specs,
            seed=seed,
            env=env,
            scale=SCALE,
            max_segments=MAX_SEGMENTS[leg.ruleset],
            fight_id=f"crossing{number:03d}-leg{index}",
            name=f"Ambush on the {leg.name}",
        )
        if self.on_fight is not None:
            self.on_fight(fight)

        if any(s.id == MERCHANT for s in specs):
            fight.subscribe(MerchantFlees(fight, leg.ruleset), types=[*HURT, "action.declared"])
        outs = fight.event_store(["combatant.out"])  # subscribed before anything happens
        falls: list[float] = []

        start = env.now
        process = fight.process  # starts the fight now, at host time `start`
        env.process(watch_falls(env, fight, outs, falls))
        if caravan.outrider is not None:
            rider = caravan.outrider
            spec = self.spec(rider, leg.ruleset, caravan.worn[rider.id], (-4.0, 1.0))
            env.process(reinforce(env, fight, spec, ride_back))
        if patrol is not None:
            env.process(break_up(env, fight, patrol))
        outcome = yield process  # the host waits on the fight
        assert outcome is not None and fight.ended

        # Survivors travel on with their wounds; who is out leaves the caravan.
        reasons = {e.actor: e.reason for e in fight.history if isinstance(e, OutOfFight)}
        hires = {h.id: h for h in (*GUARDS, MERCHANT_HIRE, OUTRIDER)}
        fallen: list[str] = []
        for cid, c in fight.state.combatants.items():
            if c.side != CARAVAN:
                continue
            base = self.sheet(leg.ruleset, hires[cid].fighter(leg.ruleset)[0])
            full = getattr(base, HEALTH_FIELD[leg.ruleset])
            left = health_left(leg.ruleset, c.sheet, c.status)
            caravan.worn[cid] = min(1.0, max(0.0, 1.0 - left / full))
            if not c.in_fight and reasons.get(cid) != FLEES:
                fallen.append(cid)
                caravan.leaves(cid)
        caravan.lost = outcome.winner == BANDITS or outcome.result == "all out"
        if self.records is not None:
            path = self.records / f"{fight.fight_id}.jsonl"
            if save_record(fight, path):
                self.written.append(path.name)
        report = FightReport(
            crossing=number,
            leg=index,
            ruleset=leg.ruleset,
            seed=seed,
            start=start,
            seconds=env.now - start,
            segments=fight.segment,
            last_segment=fight.history[-1].t,
            result=outcome.result,
            winner=outcome.winner,
            bandits=size,
            fallen=tuple(fallen),
            merchant_fled=reasons.get(MERCHANT) == FLEES,
            outrider_joined=any(e.TYPE == "combatant.joined" for e in fight.history),
            patrol=outcome.result == "interrupted",
            first_fall=falls[0] - start if falls else None,
            events=len(fight.history),
        )
        self.fights.append(report)
        return report


# ----------------------------------------------------------------- host processes in a fight


class MerchantFlees:
    """A subscriber: the merchant runs for the wagons as soon as he is hurt.

    In RinKaNou he is gone at the next segment boundary. In Chroniques he slips away one
    segment into the next turn of someone else: a fighter who leaves during its own turn,
    or as it begins, keeps the next one from being called and the fight ends in a
    stalemate (an engine limitation for now), so he never leaves on his own turn.
    """

    def __init__(self, fight: Fight, ruleset: str) -> None:
        self.fight = fight
        self.turn_based = ruleset == "chroniques"
        self.hurt = False
        self.going = False

    def __call__(self, event: Event) -> None:
        fight = self.fight
        if self.going or fight.ended or not fight.state.combatants[MERCHANT].in_fight:
            return
        if event.TYPE in HURT:
            self.hurt = self.hurt or event.actor == MERCHANT
            if self.hurt and not self.turn_based:
                self.going = True
                fight.leave(MERCHANT, FLEES)  # at the next segment boundary
        elif self.hurt and event.actor != MERCHANT and getattr(event, "kind", "") == "turn":
            self.going = True
            fight.leave(MERCHANT, FLEES, at=event.t + 1)


def reinforce(env: simpy.Environment, fight: Fight, spec: CombatantSpec, delay: float) -> Proc:
    """The outrider hears the fight and rides back; he joins it if it still goes on."""
    yield env.timeout(delay) | fight.done
    if not fight.ended:
        fight.join(spec)  # at the next segment boundary


def break_up(env: simpy.Environment, fight: Fight, delay: float) -> Proc:
    """A road patrol rides up: the bandits scatter and the fight ends, "interrupted".

    It arrives on a tenth of a second, a segment boundary: a fight interrupted at any
    other time ends there, between two segments."""
    yield env.timeout(round(delay / SCALE) * SCALE) | fight.done
    if not fight.ended:
        fight.process.interrupt("a road patrol rides up")


def watch_falls(
    env: simpy.Environment, fight: Fight, outs: simpy.Store, falls: list[float]
) -> Proc:
    """Take "combatant.out" events from the store until the fight is over, noting the
    host time of each."""
    while True:
        get = outs.get()
        yield get | fight.done
        if not get.triggered:  # the fight is over and the store is empty
            get.cancel()
            return
        falls.append(env.now)


def save_record(fight: Fight, path: Path) -> bool:
    """Write the fight's own record (header, every event, the end)."""
    text = io.StringIO()
    write_record(fight, text)
    path.write_text(text.getvalue(), encoding="utf-8")
    return True


# ----------------------------------------------------------------- command line


def run_crossings(
    crossings: int = 40,
    seed: int = 1,
    *,
    records: Path | None = None,
    on_fight: Callable[[Fight], None] | None = None,
) -> Summary:
    """Send ``crossings`` caravans across, one after another, and collect statistics.
    ``on_fight`` is called with every fight before it starts (to subscribe to it)."""
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    return Road(seed, records=records, on_fight=on_fight).run(crossings)


def main(argv: list[str] | None = None) -> Summary:
    parser = argparse.ArgumentParser(description="Caravans cross a bandit country.")
    parser.add_argument("--crossings", type=int, default=40, help="caravans sent (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="the host's seed (default 1)")
    parser.add_argument("--records", type=Path, help="write each fight's record in this folder")
    args = parser.parse_args(argv)
    if args.crossings < 0:
        parser.error("--crossings must be 0 or more")
    summary = run_crossings(args.crossings, args.seed, records=args.records)
    print(summary.text())
    if args.records is not None:
        skipped = len(summary.fights) - len(summary.records)
        print(f"  {len(summary.records)} fight records in {args.records} ({skipped} skipped)")
    return summary


if __name__ == "__main__":
    main()
