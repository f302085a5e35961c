"""Experiments: many fights of a scenario, with error bars, serial, on a process pool or
on Ray.

Fight ``i`` of an experiment with master seed ``S`` has the seed
:func:`fight_seed(S, i) <fight_seed>`, whatever the chunking, the number of workers or
the backend, so results (and the summary printed from them) depend only on the
experiment, and any fight can be run again alone (:meth:`Experiment.fight`) and
recorded. Every *arm* of an experiment (a set of policies: one for a sweep, one per
ordered pair of a tournament) plays the same fight seeds: comparisons use common random
numbers.

Work is cut into blocks of ``chunk`` fights per arm. Stop rules are checked at block
boundaries, in block order, so where an experiment stops depends on the chunk size but
never on the workers: ``target_error`` stops when every win-rate interval is narrower
than it; :class:`SPRT` stops at the first fight (in index order) where the sequential
test decides, and results computed past that point are dropped.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import math
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from segsim.errors import SegsimError
from segsim.fight import Fight
from segsim.policy import UnknownPolicy, make_policy
from segsim.scenario import Scenario, scenario_from_source

Z95 = 1.959963984540054
"""The two-sided 95 % normal quantile."""


class ExperimentError(SegsimError):
    """An experiment that cannot run as asked (no fights, unknown side or policy...)."""


# ---------------------------------------------------------------- seeds and statistics


def fight_seed(master_seed: int, index: int) -> int:
    """The seed of fight ``index`` of an experiment: 63 bits of BLAKE2b of both numbers.

    It depends on nothing else (not the chunk, the worker or the backend).
    """
    text = f"segsim fight {master_seed} {index}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % by default); (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, not {successes}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


@attrs.frozen
class SPRT:
    """Wald's sequential probability ratio test of "A beats B".

    Each decisive fight between A and B is a trial that A wins with probability ``p``;
    H0: ``p = 0.5 - delta`` (A is no better), H1: ``p = 0.5 + delta`` (A beats B).
    ``alpha`` is the chance of saying "A beats B" when H0 holds, ``beta`` of missing it
    when H1 holds. Draws are not trials.
    """

    alpha: float = 0.05
    beta: float = 0.05
    delta: float = 0.1

    def __attrs_post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ExperimentError(f"SPRT {name} is a probability in (0, 0.5), not {value}")
        if not 0 < self.delta < 0.5:
            raise ExperimentError(f"SPRT delta is in (0, 0.5), not {self.delta}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of the log-likelihood ratio."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def step(self, win: bool) -> float:
        """The log-likelihood ratio increment of one trial."""
        p0, p1 = 0.5 - self.delta, 0.5 + self.delta
        return math.log(p1 / p0) if win else math.log((1 - p1) / (1 - p0))


# ---------------------------------------------------------------- experiment definition

PolicySpec = str | Callable[[], Any]
"""A registered policy name, ``module:Class``, a rule-list file (``.toml``), or a
picklable callable returning a fresh policy."""


@attrs.frozen
class Arm:
    """One configuration of an experiment: who plays which policy.

    ``policies`` maps combatant ids to policy specs; unnamed combatants keep the
    scenario's policy. ``players`` names the policy playing each side (for tables).
    """

    label: str
    policies: tuple[tuple[str, PolicySpec], ...] = ()
    players: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class ScenarioText:
    """A scenario as its path and text, so worker processes and Ray nodes can load it."""

    path: str
    text: str

    @classmethod
    def read(cls, path: str | Path) -> ScenarioText:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ExperimentError(f"{path}: cannot read: {exc.strerror}") from None
        return cls(str(path), text)

    def load(self) -> Scenario:
        key = (self.path, hashlib.blake2b(self.text.encode()).hexdigest())
        got = _SCENARIOS.get(key)
        if got is None:
            from segsim.input import Source

            got = _SCENARIOS[key] = scenario_from_source(Source(self.path, self.text))
        return got


_SCENARIOS: dict[tuple[str, str], Scenario] = {}


def build_policy(ruleset: str, spec: PolicySpec) -> Any:
    """A fresh policy from a spec (see :data:`PolicySpec`)."""
    if callable(spec):
        return spec()
    if spec.endswith(".toml"):
        from segsim.policies import load_rule_list

        return load_rule_list(spec)
    return make_policy(ruleset, spec)


@attrs.frozen
class FightResult:
    """One fight of an experiment (a row of the results table).

    ``damage`` is the damage each side took (events with ``damage`` and ``attacker``:
    wounds after armour), ``actions`` the actions each side declared (forced ones
    excluded). ``error`` is set when the fight stopped on an error (an illegal
    declaration names the policy and the segment); such a fight has no winner.
    """

    arm: str
    index: int
    seed: int
    result: str
    winner: str | None
    segments: int
    damage: tuple[tuple[str, int], ...]
    actions: tuple[tuple[str, int], ...]
    error: str | None = None

    def row(self, sides: Sequence[str]) -> dict[str, Any]:
        damage, actions = dict(self.damage), dict(self.actions)
        out: dict[str, Any] = {
            "arm": self.arm,
            "index": self.index,
            "seed": self.seed,
            "result": self.result,
            "winner": self.winner or "",
            "segments": self.segments,
        }
        for side in sides:
            out[f"damage_{side}"] = damage.get(side, 0)
        for side in sides:
            out[f"actions_{side}"] = actions.get(side, 0)
        out["error"] = self.error or ""
        return out


@attrs.frozen
class Experiment:
    """N fights of a scenario for each arm, seeded from ``(seed, index)``.

    Build one with :func:`sweep` or :func:`tournament`; run it with :func:`run`.
    """

    scenario: ScenarioText
    arms: tuple[Arm, ...]
    fights: int
    seed: int = 0
    chunk: int = 100
    target_error: float | None = None
    sprt: SPRT | None = None
    sprt_pair: tuple[str, str] | None = None  # (A, B): the policies the SPRT compares
    kind: str = "sweep"

    def __attrs_post_init__(self) -> None:
        if self.fights < 1:
            raise ExperimentError(f"an experiment needs at least one fight, not {self.fights}")
        if self.chunk < 1:
            raise ExperimentError(f"chunk is at least one fight, not {self.chunk}")
        if self.target_error is not None and not 0 < self.target_error < 1:
            raise ExperimentError(
                f"target error is an interval width in (0, 1), not {self.target_error}"
            )
        if not self.arms:
            raise ExperimentError("an experiment needs at least one arm")

    @property
    def sides(self) -> tuple[str, ...]:
        return _sides(self.scenario.load())

    def arm(self, label: str) -> Arm:
        for arm in self.arms:
            if arm.label == label:
                return arm
        known = ", ".join(a.label for a in self.arms)
        raise ExperimentError(f"no arm {label!r} in this experiment (known: {known})")

    def fight(self, index: int, arm: str | None = None, **kwargs: Any) -> Fight:
        """Fight ``index`` of an arm (the first by default), built but not run: run it
        and write its record to look at one fight of the table in full."""
        if index < 0:
            raise ExperimentError(f"a fight index is >= 0, not {index}")
        the_arm = self.arms[0] if arm is None else self.arm(arm)
        return _build(self.scenario.load(), the_arm, fight_seed(self.seed, index), **kwargs)

    def blocks(self) -> int:
        return -(-self.fights // self.chunk)


def _sides(scenario: Scenario) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.side for c in scenario.combatants))


def _build(scenario: Scenario, arm: Arm, seed: int, **kwargs: Any) -> Fight:
    ruleset = scenario.ruleset.name
    policies = {cid: build_policy(ruleset, spec) for cid, spec in arm.policies}
    return scenario.fight(seed, policies=policies, **kwargs)


def _check_policies(scenario: Scenario, policies: Iterable[PolicySpec]) -> None:
    for spec in policies:
        try:
            build_policy(scenario.ruleset.name, spec)
        except UnknownPolicy:
            raise
        except SegsimError:
            raise
        except Exception as exc:
            raise ExperimentError(f"policy {spec!r} cannot be built: {exc}") from None


def assign_policies(
    scenario: Scenario, assignments: Mapping[str, PolicySpec]
) -> dict[str, PolicySpec]:
    """``{combatant id or side: policy}`` -> ``{combatant id: policy}`` (a combatant
    named by its id wins over its side); an unknown name is an error."""
    ids = [c.id for c in scenario.combatants]
    sides = _sides(scenario)
    out: dict[str, PolicySpec] = {}
    for who, spec in assignments.items():
        if who in ids:
            out[who] = spec
        elif who in sides:
            for c in scenario.combatants:
                if c.side == who:
                    out.setdefault(c.id, spec)
        else:
            raise ExperimentError(
                f"{scenario.path}: no combatant or side {who!r} (combatants: {', '.join(ids)}; "
                f"sides: {', '.join(sides)})"
            )
    return out


def _label(assignments: Mapping[str, PolicySpec]) -> str:
    if not assignments:
        return "scenario"
    return ", ".join(f"{k}={_spec_name(v)}" for k, v in assignments.items())


def _spec_name(spec: PolicySpec) -> str:
    if isinstance(spec, str):
        return Path(spec).stem if spec.endswith(".toml") else spec
    return getattr(spec, "__name__", type(spec).__name__)


def sweep(
    scenario: str | Path | ScenarioText,
    fights: int,
    *,
    seed: int = 0,
    policies: Mapping[str, PolicySpec] | None = None,
    compare: Mapping[str, PolicySpec] | None = None,
    chunk: int = 100,
    target_error: float | None = None,
) -> Experiment:
    """``fights`` fights of a scenario (policies replaced by combatant id or side).

    With ``compare``, a second arm plays the same seeds with those replacements on top
    of ``policies``: a comparison with common random numbers.
    """
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    sc = text.load()
    base = assign_policies(sc, policies or {})
    arms = [Arm(_label(policies or {}), tuple(base.items()))]
    if compare:
        other = {**base, **assign_policies(sc, compare)}
        label = _label({**(policies or {}), **compare})
        if label == arms[0].label:
            label += " (B)"
        arms.append(Arm(label, tuple(other.items())))
    _check_policies(sc, [spec for arm in arms for _, spec in arm.policies])
    return Experiment(text, tuple(arms), fights, seed, chunk, target_error)


def tournament(
    scenario: str | Path | ScenarioText,
    policies: Sequence[str],
    fights: int,
    *,
    seed: int = 0,
    chunk: int = 100,
    target_error: float | None = None,
    sprt: SPRT | None = None,
) -> Experiment:
    """A round robin of policies on a two-sided scenario: every ordered pair (A on the
    first side, B on the second, A != B) plays ``fights`` fights, all on the same seeds,
    so each pair meets on both sides. With ``sprt``, exactly two policies, and the
    experiment stops as soon as the test decides whether the first beats the second.
    """
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    sc = text.load()
    sides = _sides(sc)
    if len(sides) != 2:
        raise ExperimentError(
            f"{text.path}: a tournament needs a scenario with two sides, not {len(sides)}"
        )
    names = list(dict.fromkeys(policies))
    if len(names) < 2:
        raise ExperimentError("a tournament needs at least two different policies")
    if sprt is not None and len(names) != 2:
        raise ExperimentError("the SPRT compares exactly two policies (A B)")
    _check_policies(sc, names)
    arms = []
    for a in names:
        for b in names:
            if a == b:
                continue
            assign = assign_policies(sc, {sides[0]: a, sides[1]: b})
            arms.append(
                Arm(
                    f"{_spec_name(a)} vs {_spec_name(b)}",
                    tuple(assign.items()),
                    ((sides[0], a), (sides[1], b)),
                )
            )
    pair = (names[0], names[1]) if sprt is not None else None
    return Experiment(
        text, tuple(arms), fights, seed, chunk, target_error, sprt, pair, "tournament"
    )


# ---------------------------------------------------------------- running one chunk


@attrs.frozen
class Task:
    """Fights ``start .. stop-1`` of one arm: the unit of work sent to a worker."""

    scenario: ScenarioText
    arm: Arm
    seed: int
    start: int
    stop: int
    block: int
    arm_index: int


def run_task(task: Task) -> list[FightResult]:
    """Run a task's fights in order (in a worker, a Ray task or the calling process)."""
    scenario = task.scenario.load()
    sides = _sides(scenario)
    side_of = {c.id: c.side for c in scenario.combatants}
    return [
        run_one(scenario, task.arm, task.seed, i, sides, side_of)
        for i in range(task.start, task.stop)
    ]


def run_one(
    scenario: Scenario,
    arm: Arm,
    master_seed: int,
    index: int,
    sides: Sequence[str],
    side_of: Mapping[str, str],
) -> FightResult:
    """One fight; an error in it becomes a result with ``error`` set, not an exception."""
    seed = fight_seed(master_seed, index)
    fight: Fight | None = None
    try:
        fight = _build(scenario, arm, seed)
        outcome = fight.run()
    except Exception as exc:
        message = str(exc) if isinstance(exc, SegsimError) else f"{type(exc).__name__}: {exc}"
        segments = fight.segment if fight is not None else 0
        return FightResult(arm.label, index, seed, "error", None, segments, (), (), message)
    damage: Counter[str] = Counter()
    actions: Counter[str] = Counter()
    for ev in fight.history:
        if ev.TYPE == "action.declared":
            if not getattr(ev, "forced", False) and ev.actor is not None:
                actions[side_of[ev.actor]] += 1
        elif ev.actor is not None and hasattr(ev, "attacker"):
            dmg = getattr(ev, "damage", None)
            if isinstance(dmg, int):
                damage[side_of[ev.actor]] += dmg
    last = fight.history[-1].t
    return FightResult(
        arm.label,
        index,
        seed,
        outcome.result,
        outcome.winner,
        last + 1,
        tuple((s, damage[s]) for s in sides),
        tuple((s, actions[s]) for s in sides),
    )


# ---------------------------------------------------------------- backends


class Backend:
    """Runs tasks; yields ``(task, results)`` as they finish, in any order."""

    workers = 1

    def run(self, tasks: Iterator[Task], ahead: int) -> Iterator[tuple[Task, list[FightResult]]]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the backend's workers (cancelling what is still pending)."""


class SerialBackend(Backend):
    def run(self, tasks: Iterator[Task], ahead: int) -> Iterator[tuple[Task, list[FightResult]]]:
        for task in tasks:
            yield task, run_task(task)


class PoolBackend(Backend):
    """A local process pool (``spawn``: the workers import segsim afresh)."""

    def __init__(self, workers: int) -> None:
        import concurrent.futures
        import multiprocessing

        self.workers = workers
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        )

    def run(self, tasks: Iterator[Task], ahead: int) -> Iterator[tuple[Task, list[FightResult]]]:
        import concurrent.futures

        pending: dict[concurrent.futures.Future[list[FightResult]], Task] = {}
        exhausted = False
        while True:
            while not exhausted and len(pending) < ahead:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                else:
                    pending[self._pool.submit(run_task, task)] = task
            if not pending:
                return
            done, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in sorted(done, key=lambda f: (pending[f].block, pending[f].arm_index)):
                yield pending.pop(future), future.result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class RayBackend(Backend):
    """Tasks on Ray: a running cluster (``address``) or a local instance started here
    with ``workers`` CPUs, shut down at the end."""

    def __init__(self, workers: int, address: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ExperimentError("the ray backend needs Ray: pip install 'segsim[ray]'") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            # No usage report leaves the machine unless the user asked for it.
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            if address is None:
                ray.init(
                    num_cpus=workers,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                )
            else:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            self._started = True
        self.workers = workers
        self._remote = ray.remote(run_task)

    def run(self, tasks: Iterator[Task], ahead: int) -> Iterator[tuple[Task, list[FightResult]]]:
        ray = self._ray
        pending: dict[Any, Task] = {}
        exhausted = False
        while True:
            while not exhausted and len(pending) < ahead:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                else:
                    pending[self._remote.remote(task)] = task
            if not pending:
                return
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), ray.get(ref)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()


def make_backend(backend: str, workers: int, address: str | None = None) -> Backend:
    """``local`` (serial with one worker, else a process pool) or ``ray``."""
    if workers < 0:
        raise ExperimentError(f"workers is >= 0 (0: one per CPU), not {workers}")
    if workers == 0:
        workers = os.cpu_count() or 1
    if backend == "ray":
        return RayBackend(workers, address)
    if backend != "local":
        raise ExperimentError(f"unknown backend {backend!r} (known: local, ray)")
    if address is not None:
        raise ExperimentError("--address is for the ray backend")
    return SerialBackend() if workers == 1 else PoolBackend(workers)


# ---------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int, stream: IO[str] | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self.start = time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        width = 30
        filled = int(width * min(self.done, self.total) / max(self.total, 1))
        rate = self.done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} fights "
            f"({rate:.0f}/s)"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# ---------------------------------------------------------------- running an experiment


@attrs.frozen
class SPRTResult:
    decision: str  # "A beats B", "A does not beat B", "undecided"
    trials: int
    llr: float
    bounds: tuple[float, float]
    stopped_at: int | None  # fight index of the decision


@attrs.frozen
class Results:
    """What an experiment produced: the per-fight results, in (arm, index) order."""

    experiment: Experiment
    results: tuple[FightResult, ...]
    fights: int  # fights per arm that count (after a stop rule)
    stopped: str | None = None  # why it stopped before ``experiment.fights``
    sprt: SPRTResult | None = None

    @property
    def sides(self) -> tuple[str, ...]:
        return self.experiment.sides

    def arm_results(self, label: str) -> list[FightResult]:
        return [r for r in self.results if r.arm == label]

    @property
    def errors(self) -> list[FightResult]:
        return [r for r in self.results if r.error is not None]

    def rows(self) -> list[dict[str, Any]]:
        return [r.row(self.sides) for r in self.results]

    def write_table(self, path: str | Path) -> None:
        """The per-fight table: CSV, or Parquet for a ``.parquet`` path (needs pyarrow)."""
        rows = self.rows()
        columns = list(FightResult("", 0, 0, "", None, 0, (), ()).row(self.sides))
        if str(path).endswith(".parquet"):
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq
            except ImportError:
                raise ExperimentError(
                    "a Parquet table needs pyarrow: pip install 'segsim[parquet]'"
                ) from None
            table = pa.table({c: [r[c] for r in rows] for c in columns})
            pq.write_table(table, str(path))
            return
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    def summary(self) -> Summary:
        return summarize(self)


def run(
    experiment: Experiment,
    *,
    workers: int = 1,
    backend: str | Backend = "local",
    address: str | None = None,
    progress: bool | None = None,
) -> Results:
    """Run an experiment; the results do not depend on ``workers`` or ``backend``."""
    runner = backend if isinstance(backend, Backend) else make_backend(backend, workers, address)
    bar = Progress(len(experiment.arms) * experiment.fights, enabled=progress)
    try:
        return _run(experiment, runner, bar)
    finally:
        bar.close()
        if not isinstance(backend, Backend):
            runner.close()


def _run(experiment: Experiment, runner: Backend, bar: Progress) -> Results:
    arms = experiment.arms
    chunk = experiment.chunk

    def tasks() -> Iterator[Task]:
        for block in range(experiment.blocks()):
            start = block * chunk
            stop = min(start + chunk, experiment.fights)
            for k, arm in enumerate(arms):
                yield Task(experiment.scenario, arm, experiment.seed, start, stop, block, k)

    done: dict[tuple[int, int], list[FightResult]] = {}
    complete = 0  # blocks whose every arm is in
    stopped: str | None = None
    sprt_state = _SPRTState(experiment) if experiment.sprt is not None else None
    ahead = max(2 * runner.workers, 1)
    for task, results in runner.run(tasks(), ahead):
        done[(task.block, task.arm_index)] = results
        bar.update(len(results))
        while complete < experiment.blocks() and all(
            (complete, k) in done for k in range(len(arms))
        ):
            block = complete
            complete += 1
            if sprt_state is not None and sprt_state.feed(done, block):
                stopped = "the SPRT decided"
                break
            if experiment.target_error is not None and complete < experiment.blocks():
                n = min(complete * chunk, experiment.fights)
                if _precise(experiment, done, complete, n):
                    stopped = (
                        f"every win-rate interval is narrower than {experiment.target_error:g}"
                    )
                    break
        if stopped is not None:
            break
    # Keep what counts: every block up to the stop, cut at the SPRT's decision.
    limit = min(complete * chunk, experiment.fights)
    if sprt_state is not None and sprt_state.stopped_at is not None:
        limit = sprt_state.stopped_at + 1
    kept = [
        r
        for k in range(len(arms))
        for b in range(complete)
        for r in done.get((b, k), [])
        if r.index < limit
    ]
    return Results(
        experiment,
        tuple(kept),
        limit,
        stopped,
        sprt_state.result() if sprt_state is not None else None,
    )


def _precise(
    experiment: Experiment, done: Mapping[tuple[int, int], list[FightResult]], blocks: int, n: int
) -> bool:
    target = experiment.target_error
    assert target is not None
    results = [r for (b, _), rs in done.items() if b < blocks for r in rs]
    partial = Results(experiment, tuple(results), n)
    return all(hi - lo < target for lo, hi in _intervals(partial))


def _intervals(results: Results) -> list[tuple[float, float]]:
    summary = summarize(results)
    if summary.pairs:
        return [p.interval for p in summary.pairs]
    return [s.interval for arm in summary.arms for s in arm.sides]


class _SPRTState:
    """Feeds A-versus-B trials in fight-index order (A's side-1 arm first)."""

    def __init__(self, experiment: Experiment) -> None:
        assert experiment.sprt is not None and experiment.sprt_pair is not None
        self.test = experiment.sprt
        self.a, self.b = experiment.sprt_pair
        self.arms = experiment.arms
        self.llr = 0.0
        self.trials = 0
        self.stopped_at: int | None = None
        self.decision = "undecided"

    def feed(self, done: Mapping[tuple[int, int], list[FightResult]], block: int) -> bool:
        lower, upper = self.test.bounds
        per_arm = [done[(block, k)] for k in range(len(self.arms))]
        for rows in zip(*per_arm, strict=True):
            for arm, r in zip(self.arms, rows, strict=True):
                players = dict(arm.players)
                if r.winner is None:
                    continue
                winner_policy = players.get(r.winner)
                self.trials += 1
                self.llr += self.test.step(winner_policy == self.a)
                if self.llr >= upper or self.llr <= lower:
                    self.decision = (
                        f"{_spec_name(self.a)} beats {_spec_name(self.b)}"
                        if self.llr >= upper
                        else f"{_spec_name(self.a)} does not beat {_spec_name(self.b)}"
                    )
                    self.stopped_at = r.index
                    return True
        return False

    def result(self) -> SPRTResult:
        return SPRTResult(self.decision, self.trials, self.llr, self.test.bounds, self.stopped_at)


# ---------------------------------------------------------------- summary


@attrs.frozen
class SideStats:
    side: str
    player: str  # the policy playing it, or "" when the scenario's own
    wins: int
    n: int
    interval: tuple[float, float]
    damage_taken: float  # mean per fight

    @property
    def rate(self) -> float:
        return self.wins / self.n if self.n else 0.0


@attrs.frozen
class ArmStats:
    label: str
    fights: int  # without errors
    errors: int
    sides: tuple[SideStats, ...]
    draws: int  # no winner (stalemate, time limit, all out)
    results: Mapping[str, int]
    length: tuple[float, float, int, int, int, int, int]  # mean, sd, min, p10, median, p90, max


@attrs.frozen
class PairStats:
    """A tournament pairing over both sides: ``a``'s score against ``b``."""

    a: str
    b: str
    wins: int
    losses: int
    n: int
    interval: tuple[float, float]

    @property
    def rate(self) -> float:
        """The score: wins, and half of each fight without a winner, per fight."""
        return (self.wins + (self.n - self.wins - self.losses) / 2) / self.n if self.n else 0.0


@attrs.frozen
class Summary:
    results: Results
    arms: tuple[ArmStats, ...]
    pairs: tuple[PairStats, ...] = ()
    difference: tuple[str, float, tuple[float, float]] | None = None

    def text(self) -> str:
        return render_summary(self)


def _quantile(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank quantile (an observed value, so it prints exactly)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def summarize(results: Results) -> Summary:
    sides = results.sides
    arms = []
    for arm in results.experiment.arms:
        rows = results.arm_results(arm.label)
        ok = [r for r in rows if r.error is None]
        n = len(ok)
        players = dict(arm.players)
        side_stats = []
        for side in sides:
            wins = sum(1 for r in ok if r.winner == side)
            taken = [dict(r.damage).get(side, 0) for r in ok]
            side_stats.append(
                SideStats(
                    side,
                    _spec_name(players[side]) if side in players else "",
                    wins,
                    n,
                    wilson(wins, n),
                    statistics.fmean(taken) if taken else 0.0,
                )
            )
        lengths = sorted(r.segments for r in ok)
        length = (
            (
                statistics.fmean(lengths),
                statistics.pstdev(lengths),
                lengths[0],
                _quantile(lengths, 0.1),
                _quantile(lengths, 0.5),
                _quantile(lengths, 0.9),
                lengths[-1],
            )
            if lengths
            else (0.0, 0.0, 0, 0, 0, 0, 0)
        )
        arms.append(
            ArmStats(
                arm.label,
                n,
                len(rows) - n,
                tuple(side_stats),
                sum(1 for r in ok if r.winner is None),
                dict(sorted(Counter(r.result for r in rows).items())),
                length,
            )
        )
    pairs = _pairs(results) if results.experiment.kind == "tournament" else ()
    difference = _difference(results) if len(results.experiment.arms) == 2 and not pairs else None
    return Summary(results, tuple(arms), pairs, difference)


def _pairs(results: Results) -> tuple[PairStats, ...]:
    """Each policy against each other, over both sides (draws count as half)."""
    score: dict[tuple[str, str], list[float]] = {}
    for arm in results.experiment.arms:
        players = dict(arm.players)
        a_side, b_side = results.sides
        a, b = _spec_name(players[a_side]), _spec_name(players[b_side])
        for r in results.arm_results(arm.label):
            if r.error is not None:
                continue
            for me, other, side in ((a, b, a_side), (b, a, b_side)):
                s = score.setdefault((me, other), [0, 0, 0])
                if r.winner == side:
                    s[0] += 1
                elif r.winner is not None:
                    s[1] += 1
                s[2] += 1
    out = []
    for (a, b), (w, losses, n) in score.items():
        points = w + (n - w - losses) / 2
        out.append(PairStats(a, b, int(w), int(losses), int(n), wilson(points, int(n))))
    return tuple(out)


def _difference(results: Results) -> tuple[str, float, tuple[float, float]] | None:
    """Paired difference of the first side's win rate between two arms (same seeds)."""
    first, second = results.experiment.arms
    side = results.sides[0]
    a = {r.index: r for r in results.arm_results(first.label) if r.error is None}
    b = {r.index: r for r in results.arm_results(second.label) if r.error is None}
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return None
    diffs = [float(b[i].winner == side) - float(a[i].winner == side) for i in common]
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return (side, mean, (mean - half, mean + half))


def _pct(x: float) -> str:
    return f"{100 * x:5.1f} %"


def render_summary(summary: Summary) -> str:
    """The summary as text: the same results always give the same bytes."""
    res = summary.results
    exp = res.experiment
    out = io.StringIO()
    w = out.write
    w(f"{exp.kind}: {exp.scenario.path}, master seed {exp.seed}, ")
    w(f"{res.fights} fights per arm, {len(exp.arms)} arm(s), chunk {exp.chunk}\n")
    if res.stopped:
        w(f"stopped after {res.fights} fights: {res.stopped}\n")
    for arm in summary.arms:
        w(f"\n[{arm.label}] {arm.fights} fights")
        if arm.errors:
            w(f", {arm.errors} ended in an error")
        w("\n")
        for s in arm.sides:
            who = f" ({s.player})" if s.player else ""
            lo, hi = s.interval
            w(
                f"  side {s.side + who:<28} wins {s.wins:>5}  {_pct(s.rate)}  "
                f"95% CI [{_pct(lo)}, {_pct(hi)}]  damage taken {s.damage_taken:6.2f}\n"
            )
        draws = arm.draws / arm.fights if arm.fights else 0.0
        w(f"  no winner {arm.draws:>5}  {_pct(draws)}   results: ")
        w(", ".join(f"{k} {v}" for k, v in arm.results.items()) + "\n")
        mean, sd, lo_len, p10, med, p90, hi_len = arm.length
        w(
            f"  length (segments): mean {mean:.1f}, sd {sd:.1f}, min {lo_len}, p10 {p10}, "
            f"median {med}, p90 {p90}, max {hi_len}\n"
        )
    if summary.difference is not None:
        side, diff, (lo, hi) = summary.difference
        first, second = exp.arms
        w(
            f"\ncommon random numbers: side {side} wins {100 * diff:+.1f} points with "
            f"[{second.label}] rather than [{first.label}], 95% CI "
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}]\n"
        )
    if summary.pairs:
        w("\nround robin (row's score against column over both sides; a draw is half):\n")
        names = list(dict.fromkeys([p.a for p in summary.pairs]))
        table = {(p.a, p.b): p for p in summary.pairs}
        width = max(10, *(len(n) for n in names))
        w(" " * (width + 2) + "".join(f"{n:>22}" for n in names) + "\n")
        for a in names:
            w(f"{a:<{width}}  ")
            for b in names:
                p = table.get((a, b))
                if p is None:
                    w(f"{'-':>22}")
                else:
                    lo, hi = p.interval
                    cell = f"{100 * p.rate:3.0f}% [{100 * lo:3.0f},{100 * hi:3.0f}]"
                    w(f"{cell:>22}")
            w("\n")
        w("\nranking (mean score against the others):\n")
        ranking = []
        for a in names:
            mine = [p for p in summary.pairs if p.a == a]
            wins = sum(p.wins + (p.n - p.wins - p.losses) / 2 for p in mine)
            n = sum(p.n for p in mine)
            ranking.append((-(wins / n if n else 0.0), a, wins, n))
        for rank, (neg, a, wins, n) in enumerate(sorted(ranking), 1):
            lo, hi = wilson(wins, n)
            w(f"  {rank}. {a:<{width}} {_pct(-neg)}  95% CI [{_pct(lo)}, {_pct(hi)}]\n")
    if res.sprt is not None:
        t = res.sprt
        at = f" at fight {t.stopped_at}" if t.stopped_at is not None else ""
        w(
            f"\nSPRT (alpha {exp.sprt.alpha if exp.sprt else 0:g}, beta "
            f"{exp.sprt.beta if exp.sprt else 0:g}, delta {exp.sprt.delta if exp.sprt else 0:g}): "
            f"{t.decision} after {t.trials} decisive fights{at} "
            f"(LLR {t.llr:.3f}, bounds [{t.bounds[0]:.3f}, {t.bounds[1]:.3f}])\n"
        )
    errors = res.errors
    if errors:
        w(f"\nerrors: {len(errors)} fight(s) ended in an error; first ones:\n")
        for r in errors[:5]:
            w(f"  [{r.arm}] fight {r.index} (seed {r.seed}): {r.error}\n")
    return out.getvalue()


# ---------------------------------------------------------------- plot


def plot(results: Results, path: str | Path) -> None:
    """Win rates with their 95 % intervals, and fight-length histograms (matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ExperimentError("--plot needs matplotlib: pip install 'segsim[plot]'") from None
    summary = summarize(results)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 0.5 * max(6, 2 + len(summary.arms))))
    labels: list[str] = []
    rates: list[float] = []
    errs: list[list[float]] = [[], []]
    if summary.pairs:
        for p in summary.pairs:
            labels.append(f"{p.a} vs {p.b}")
            rates.append(p.rate)
            errs[0].append(p.rate - p.interval[0])
            errs[1].append(p.interval[1] - p.rate)
    else:
        for arm in summary.arms:
            for s in arm.sides:
                labels.append(f"[{arm.label}] {s.side}")
                rates.append(s.rate)
                errs[0].append(s.rate - s.interval[0])
                errs[1].append(s.interval[1] - s.rate)
    ys = list(range(len(labels)))
    left.errorbar(rates, ys, xerr=errs, fmt="o", capsize=4)
    left.set_yticks(ys, labels)
    left.set_xlim(0, 1)
    left.set_xlabel("win rate (95 % Wilson interval)")
    left.invert_yaxis()
    for arm in summary.arms:
        lengths = [r.segments for r in results.arm_results(arm.label) if r.error is None]
        if lengths:
            style = "bar" if len(summary.arms) <= 2 else "step"
            right.hist(lengths, bins=30, alpha=0.6, histtype=style, label=arm.label)
    right.set_xlabel("fight length (segments)")
    right.set_ylabel("fights")
    if len(summary.arms) <= 8:
        right.legend(fontsize="small")
    fig.suptitle(f"{results.experiment.kind}: {results.experiment.scenario.path}")
    fig.tight_layout()
    fig.savefig(str(path), dpi=100)
    plt.close(fig)


__all__ = [
    "SPRT",
    "Arm",
    "Experiment",
    "ExperimentError",
    "FightResult",
    "Results",
    "Summary",
    "fight_seed",
    "plot",
    "run",
    "summarize",
    "sweep",
    "tournament",
    "wilson",
]
