"""Running an experiment: blocks of fights on a backend, stop rules between blocks."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from segsim.experiment.backends import Backend, make_backend
from segsim.experiment.design import Experiment, ExperimentError, FightResult
from segsim.experiment.progress import Progress
from segsim.experiment.stops import SPRTResult, _precise, _SPRTState
from segsim.experiment.worker import Task

if TYPE_CHECKING:
    from segsim.experiment.summary import Summary


@attrs.frozen
class Results:
    """What an experiment produced: the per-fight results, in (arm, index) order."""

    experiment: Experiment
    results: tuple[FightResult, ...]
    fights: int  # fights per arm that count (after a stop rule)
    stopped: str | None = None  # why it stopped before ``experiment.fights``
    sprt: SPRTResult | None = None
    failed: FightResult | None = None  # the fight whose error stopped the experiment

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
        """The per-fight table in the format its extension names: ``.csv``, ``.parquet``
        (needs pyarrow) or ``.jsonl`` (JSON Lines); any other is refused."""
        from segsim.experiment.tables import write_table

        write_table(self, path)

    def summary(self) -> Summary:
        from segsim.experiment.summary import summarize

        return summarize(self)


def run(
    experiment: Experiment,
    *,
    workers: int = 1,
    backend: str | Backend = "local",
    address: str | None = None,
    progress: bool | None = None,
    on_error: str = "stop",
) -> Results:
    """Run an experiment; the results do not depend on ``workers`` or ``backend``.

    A fight that ends in an error (an illegal declaration, a policy that raises) stops
    the experiment at that fight (``on_error="stop"``: the first in fight order, so the
    same whatever the workers), or is kept as a row with its error while the others go
    on (``on_error="continue"``).
    """
    if on_error not in ("stop", "continue"):
        raise ExperimentError(f"on_error is 'stop' or 'continue', not {on_error!r}")
    # The backend first: a pool forks its workers before the progress display starts a
    # thread.
    runner = backend if isinstance(backend, Backend) else make_backend(backend, workers, address)
    try:
        bar = Progress(len(experiment.arms) * experiment.fights, enabled=progress)
        try:
            return _run(experiment, runner, bar, on_error == "stop")
        finally:
            bar.close()
    finally:
        if not isinstance(backend, Backend):
            runner.close()


def _first_error(
    done: Mapping[tuple[int, int], list[FightResult]], block: int, arms: int
) -> FightResult | None:
    """The first fight of a block (in index order, then arm order) that failed."""
    failed = [(r.index, k, r) for k in range(arms) for r in done[(block, k)] if r.error]
    return min(failed, key=lambda f: (f[0], f[1]))[2] if failed else None


PIECES_PER_WORKER = 4
"""A parallel run cuts its last blocks into smaller tasks, about this many per worker for
the fights left, so that the workers finish together."""


def _pieces(start: int, stop: int, fights: int, arms: int, workers: int) -> list[tuple[int, int]]:
    """The tasks of fights ``start .. stop-1`` of a block for one arm: the whole block,
    or, near the end of a parallel run, pieces sized by the work left (guided
    scheduling), so no worker idles long while another finishes a whole block."""
    if workers < 2:
        return [(start, stop)]
    left = (fights - start) * arms
    size = max(-(-left // (PIECES_PER_WORKER * workers)), 1)
    n = -(-(stop - start) // size)
    cuts = [start + i * (stop - start) // n for i in range(n + 1)]
    return list(itertools.pairwise(cuts))


def _block_size(experiment: Experiment, block: int) -> int:
    return min(experiment.chunk, experiment.fights - block * experiment.chunk)


def _run(experiment: Experiment, runner: Backend, bar: Progress, stop_on_error: bool) -> Results:
    arms = experiment.arms
    chunk = experiment.chunk

    def tasks() -> Iterator[Task]:
        for block in range(experiment.blocks()):
            start = block * chunk
            stop = min(start + chunk, experiment.fights)
            for k, arm in enumerate(arms):
                for a, b in _pieces(start, stop, experiment.fights, len(arms), runner.workers):
                    yield Task(experiment.scenario, arm, experiment.seed, a, b, block, k)

    done: dict[tuple[int, int], list[FightResult]] = {}
    parts: dict[tuple[int, int], list[tuple[int, list[FightResult]]]] = {}
    complete = 0  # blocks whose every arm is in
    stopped: str | None = None
    failed: FightResult | None = None
    sprt_state = _SPRTState(experiment) if experiment.sprt is not None else None
    ahead = max(2 * runner.workers, 1)
    for task, results in runner.run(tasks(), ahead):
        bar.update(len(results))
        key = (task.block, task.arm_index)
        got = parts.setdefault(key, [])
        got.append((task.start, results))
        if sum(len(r) for _, r in got) < _block_size(experiment, task.block):
            continue
        del parts[key]
        done[key] = [r for _, rs in sorted(got, key=lambda p: p[0]) for r in rs]
        while complete < experiment.blocks() and all(
            (complete, k) in done for k in range(len(arms))
        ):
            block = complete
            complete += 1
            if stop_on_error:
                failed = _first_error(done, block, len(arms))
                if failed is not None:
                    stopped = (
                        f"fight {failed.index} of [{failed.arm}] (seed {failed.seed}) "
                        f"ended in an error: {failed.error}"
                    )
                    break
            if sprt_state is not None and sprt_state.feed(done, block):
                stopped = f"the SPRT decided ({sprt_state.result().decision})"
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
    if failed is not None:
        limit = failed.index + 1
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
        failed,
    )
