"""Where chunks run: here, on a local process pool, or on Ray."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

from segsim.experiment.design import ExperimentError, FightResult
from segsim.experiment.worker import Task, run_task


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
