"""``make soak``: record, replay and branch fights for a bounded time.

    python tests/fuzz/soak.py --seconds 300

Every example scenario of every ruleset, in turn, with a fresh seed: its own policies,
random policies for everyone, or a mix; the fight is recorded, read back and replayed
(it must be identical); then it is branched at a random segment with other policies
(registered names, random, or the recorded declarations), and the branch's own record
must replay identically too. Prints fights, events and divergences (must be 0); exit 1
otherwise, with the first divergences listed.
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

from fuzz.strategies import EXAMPLES
from segsim.errors import IllegalDeclaration
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


def soak(seconds: float, seed: int, tmp: Path) -> int:
    rng = random.Random(seed)
    scenarios: list[Scenario] = [load_scenario(p) for p in sorted(EXAMPLES.glob("*.toml"))]
    fights = events = divergences = branches = refused = 0
    problems: list[str] = []
    refusals: list[str] = []
    started = time.monotonic()
    per: dict[str, int] = {}
    while time.monotonic() - started < seconds:
        for sc in scenarios:
            if time.monotonic() - started >= seconds:
                break
            fight_seed = rng.randrange(2**32)
            mode = rng.choice(["own", "random", "mixed"])
            ids = [c.id for c in sc.combatants]
            chosen = ids if mode == "random" else rng.sample(ids, len(ids) // 2)
            policies = {cid: RandomLegal() for cid in chosen} if mode != "own" else {}
            where = f"{Path(sc.path).name} seed {fight_seed} ({mode})"
            stage = "fight"
            try:
                fight = sc.fight(fight_seed, policies=policies, max_segments=3000)
                fight.run()
                record = _record(fight, tmp)
                fights += 1
                events += len(record)
                per[sc.ruleset.name] = per.get(sc.ruleset.name, 0) + 1
                result = replay(record)
                if result.divergence is not None:
                    divergences += 1
                    problems.append(f"{where}: {result.divergence}")
                    continue
                until = rng.randrange(0, max(1, record.events[-1]["t"] + 1))
                names = [*policy_names(sc.ruleset.name), "replay"]
                then = {cid: rng.choice(names) for cid in ids if rng.random() < 0.5}
                stage = f"branch at {until} {then}"
                b = branch(record, until, then, seed=rng.choice([None, rng.randrange(2**32)]))
                branches += 1
                branched = visit_fight(b.fight, RecordBuilder(), complete=True)
                events += len(branched)
                again = replay(_record(b.fight, tmp))
                if again.divergence is not None:
                    divergences += 1
                    problems.append(f"{where}, branch at {until} {then}: {again.divergence}")
            except IllegalDeclaration as exc:
                # A policy declared what the rules refuse (a policy's own limits, shown
                # apart): the fight stopped cleanly, nothing diverged.
                refused += 1
                refusals.append(f"{where}, {stage}: {exc}")
            except Exception:
                divergences += 1
                problems.append(f"{where}: {traceback.format_exc()}")
    elapsed = time.monotonic() - started
    rulesets = ", ".join(f"{name} {n}" for name, n in sorted(per.items()))
    print(
        f"fights: {fights} ({rulesets}); branches: {branches}; events: {events}; "
        f"divergences: {divergences}; stopped by a policy's illegal declaration: {refused}; "
        f"{elapsed:.0f} s"
    )
    for problem in problems[:5]:
        print(problem)
    for refusal in sorted(set(refusals))[:10]:
        print(f"refused: {refusal}")
    return 1 if divergences else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", 60)))
    parser.add_argument("--seed", type=int, default=0, help="seed of the soak's own choices")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="segsim-soak-") as folder:
        return soak(args.seconds, args.seed, Path(folder) / "record.jsonl")


if __name__ == "__main__":
    sys.exit(main())
