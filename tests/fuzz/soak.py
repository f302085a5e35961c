"""``make soak``: record, replay and branch fights for a bounded time.

    python tests/fuzz/soak.py --seconds 300

Every example scenario of every ruleset, the ruleset with the fewest fights next, with a
fresh seed: its own policies, random policies for everyone, or a mix; the fight is
recorded, read back and replayed (it must be identical); then it is branched at a
random segment with other policies (registered names, random, or the recorded
declarations), and the branch's own record must replay identically too. Prints per
ruleset the fights, identical replays, branches, events, divergences and declarations a
live policy made that the rules refused (both must be 0); exit 1 otherwise, with the
first of them listed. A branch that keeps a combatant on its recorded declarations may
stop on one the branched fight no longer allows (a StaleDeclaration, as documented):
those are counted apart (``stale``), not as findings.

    python tests/fuzz/soak.py --fights 10000 --seconds 0 --workers 0 --branch-every 10

replays at least 10,000 fights of every ruleset (``make soak SOAK_FIGHTS=10000
SOAK_SECONDS=0``), on every CPU.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attrs

from fuzz.strategies import EXAMPLES
from segsim.errors import IllegalDeclaration, StaleDeclaration
from segsim.policies import RandomLegal
from segsim.policy import policy_names
from segsim.record import Record, RecordBuilder, read_record, visit_fight, write_record
from segsim.replay import branch, replay
from segsim.scenario import Scenario, load_scenario


def _record(fight: object, tmp: Path) -> Record:
    """Write the fight's record to a file and read it back, as a user would."""
    buffer = io.StringIO()
    write_record(fight, buffer)  # type: ignore[arg-type]
    tmp.write_text(buffer.getvalue(), encoding="utf-8")
    return read_record(tmp)


@attrs.define
class Tally:
    """What one ruleset's fights came to."""

    fights: int = 0
    identical: int = 0
    branches: int = 0
    events: int = 0
    divergences: int = 0
    refused: int = 0
    stale: int = 0

    def add(self, other: Tally) -> None:
        for field in attrs.fields(Tally):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


def soak(
    seconds: float, seed: int, tmp: Path, fights: int = 0, branch_every: int = 1
) -> tuple[dict[str, Tally], list[str], list[str]]:
    """Fights of every ruleset until the time is up (``seconds`` > 0) or every ruleset
    has ``fights`` (> 0), the ruleset with the fewest so far next; every
    ``branch_every``-th fight is also branched. Returns the tallies by ruleset, the
    problems (divergences, tracebacks) and the refusals (a policy's illegal
    declaration)."""
    rng = random.Random(seed)
    by_ruleset: dict[str, list[Scenario]] = {}
    for path in sorted(EXAMPLES.glob("*.toml")):
        sc = load_scenario(path)
        by_ruleset.setdefault(sc.ruleset.name, []).append(sc)
    tallies = {name: Tally() for name in by_ruleset}
    problems: list[str] = []
    refusals: list[str] = []
    started = time.monotonic()
    count = 0

    def done() -> bool:
        if seconds > 0 and time.monotonic() - started >= seconds:
            return True
        return fights > 0 and all(t.fights >= fights for t in tallies.values())

    while not done():
        name = min(tallies, key=lambda n: (tallies[n].fights, n))
        tally = tallies[name]
        sc = by_ruleset[name][tally.fights % len(by_ruleset[name])]
        count += 1
        if count % 1000 == 0:  # a long soak shows it is alive, and how far it is
            bad = sum(t.divergences + t.refused for t in tallies.values())
            print(
                f"soak {seed}: {count} fights, {time.monotonic() - started:.0f} s, "
                f"divergences and refusals: {bad}",
                file=sys.stderr,
                flush=True,
            )
        fight_seed = rng.randrange(2**32)
        mode = rng.choice(["own", "random", "mixed"])
        ids = [c.id for c in sc.combatants]
        chosen = ids if mode == "random" else rng.sample(ids, len(ids) // 2)
        policies = {cid: RandomLegal() for cid in chosen} if mode != "own" else {}
        where = f"{Path(sc.path).name} seed {fight_seed} ({mode})"
        stage = "fight"
        tally.fights += 1
        try:
            fight = sc.fight(fight_seed, policies=policies, max_segments=3000)
            fight.run()
            record = _record(fight, tmp)
            tally.events += len(record)
            result = replay(record)
            if result.divergence is not None:
                tally.divergences += 1
                problems.append(f"{where}: {result.divergence}")
                continue
            tally.identical += 1
            if tally.fights % branch_every:
                continue
            until = rng.randrange(0, max(1, record.events[-1]["t"] + 1))
            names = [*policy_names(sc.ruleset.name), "replay"]
            then = {cid: rng.choice(names) for cid in ids if rng.random() < 0.5}
            stage = f"branch at {until} {then}"
            b = branch(record, until, then, seed=rng.choice([None, rng.randrange(2**32)]))
            tally.branches += 1
            branched = visit_fight(b.fight, RecordBuilder(), complete=True)
            tally.events += len(branched)
            again = replay(_record(b.fight, tmp))
            if again.divergence is not None:
                tally.divergences += 1
                problems.append(f"{where}, branch at {until} {then}: {again.divergence}")
        except StaleDeclaration:
            # A combatant kept on its recorded declarations in a branch declared one that
            # the branched fight no longer allows: the documented stop, not a finding.
            tally.stale += 1
        except IllegalDeclaration as exc:
            # A policy (built in, or random) declared what the rules refuse: a finding.
            tally.refused += 1
            refusals.append(f"{where}, {stage}: {exc}")
        except Exception:
            tally.divergences += 1
            problems.append(f"{where}, {stage}: {traceback.format_exc()}")
    return tallies, problems, refusals


def _work(job: tuple[float, int, int, int]) -> tuple[dict[str, Tally], list[str], list[str]]:
    """One worker's share (in a process of its own)."""
    import tempfile

    seconds, seed, fights, branch_every = job
    with tempfile.TemporaryDirectory(prefix="segsim-soak-") as folder:
        return soak(seconds, seed, Path(folder) / "record.jsonl", fights, branch_every)


def table(tallies: dict[str, Tally]) -> str:
    """Per ruleset: fights, identical replays, branches (and those stopped by a stale
    recorded declaration), events, divergences, refused declarations."""
    names = ("fights", "identical", "branches", "stale", "events", "divergences", "refused")
    rows = [f"{'ruleset':<12}" + "".join(f"{n:>13}" for n in names)]
    total = Tally()
    for name in sorted(tallies):
        total.add(tallies[name])
        rows.append(f"{name:<12}" + "".join(f"{getattr(tallies[name], n):>13}" for n in names))
    rows.append(f"{'all':<12}" + "".join(f"{getattr(total, n):>13}" for n in names))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", 60)))
    parser.add_argument(
        "--fights",
        type=int,
        default=int(os.environ.get("SOAK_FIGHTS", 0)),
        help="stop once every ruleset has this many fights (0: by time alone); with "
        "--seconds 0, by this alone",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("SOAK_WORKERS", 1)),
        help="processes (0: one per CPU); each plays its share of the fights",
    )
    parser.add_argument(
        "--branch-every", type=int, default=1, help="branch one fight in N (default: each)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the soak's own choices")
    args = parser.parse_args(argv)
    if args.seconds <= 0 and args.fights <= 0:
        parser.error("give --seconds or --fights (or both)")
    workers = args.workers or os.cpu_count() or 1
    share = -(-args.fights // workers) if args.fights > 0 else 0
    jobs = [(args.seconds, args.seed + i, share, max(1, args.branch_every)) for i in range(workers)]
    started = time.monotonic()
    if workers == 1:
        results = [_work(jobs[0])]
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            results = pool.map(_work, jobs)
    tallies: dict[str, Tally] = {}
    problems: list[str] = []
    refusals: list[str] = []
    for found, bad, refused in results:
        for name, tally in found.items():
            tallies.setdefault(name, Tally()).add(tally)
        problems += bad
        refusals += refused
    print(table(tallies))
    divergences = sum(t.divergences for t in tallies.values())
    print(
        f"{workers} worker(s), {time.monotonic() - started:.0f} s; divergences: {divergences}; "
        f"stopped by a policy's illegal declaration: {len(refusals)}"
    )
    for problem in problems[:5]:
        print(problem)
    for refusal in sorted(set(refusals))[:10]:
        print(f"refused: {refusal}")
    return 1 if divergences or refusals else 0


if __name__ == "__main__":
    sys.exit(main())
