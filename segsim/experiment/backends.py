"""Where chunks run: here, on a local process pool, or on Ray."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
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
    """A local process pool.

    On Linux, when the calling process runs a single thread, the workers are forked from
    it here and now: they start in milliseconds, with segsim imported and the scenario
    already loaded. Otherwise (``spawn``: other systems, or a process running threads,
    where forking is unsafe) each starts as a fresh interpreter that imports segsim and
    loads the scenario once. ``start_method`` forces one of the two.
    """

    def __init__(self, workers: int, start_method: str | None = None) -> None:
        import concurrent.futures
        import multiprocessing

        method = start_method or _start_method()
        if method not in ("fork", "spawn"):
            raise ExperimentError(f"start method is 'fork' or 'spawn', not {method!r}")
        self.workers = workers
        self.start_method = method
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context(method)
        )
        if method == "fork":
            # Output still buffered here would be written again by every child.
            sys.stdout.flush()
            sys.stderr.flush()
            # The first task forks every worker at once (a forking pool never adds any
            # later), before the caller starts a thread (the progress display's).
            self._pool.submit(_ready).result()

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


def _ready() -> None:
    """The task that starts a pool's workers."""


def _start_method() -> str:
    """``fork`` on Linux in a process running one thread, else ``spawn``."""
    if sys.platform != "linux":
        return "spawn"
    try:
        threads = len(os.listdir("/proc/self/task"))  # native threads count too
    except OSError:
        return "spawn"
    return "fork" if threads == 1 else "spawn"


CONNECT_TIMEOUT = 20.0
"""Seconds to wait for a Ray cluster named by ``address`` before giving up."""


def _host_port(address: str) -> tuple[str, int] | None:
    """``host:port`` (or ``ray://host:port``) of a Ray address; None for ``auto``/``local``;
    an :class:`ExperimentError` for anything else."""
    if address in ("auto", "local"):
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise ExperimentError(
            f"--address {address!r}: a Ray address is HOST:PORT, ray://HOST:PORT or auto"
        )
    return host, int(port)


def _reachable(address: str, timeout: float) -> None:
    """Something listens at the address, within ``timeout`` seconds (Ray itself would
    retry for minutes)."""
    found = _host_port(address)
    if found is None:
        return
    try:
        socket.create_connection(found, timeout=timeout).close()
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise ExperimentError(
            f"--address {address}: no Ray cluster reachable there ({reason}, "
            f"waited up to {timeout:g} s)"
        ) from None


def _connect(ray: Any, address: str, timeout: float) -> None:
    """``ray.init(address)`` in a thread, given up after ``timeout`` seconds."""
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            outcome.append(None)
        except BaseException as exc:  # reported in the calling thread
            outcome.append(exc)

    thread = threading.Thread(target=connect, name="segsim-ray-connect", daemon=True)
    thread.start()
    thread.join(timeout)
    if not outcome:
        raise ExperimentError(
            f"--address {address}: no answer from a Ray cluster within {timeout:g} s"
        )
    error = outcome[0]
    if error is not None:
        raise ExperimentError(
            f"--address {address}: cannot join the Ray cluster: {error}"
        ) from None


class RayBackend(Backend):
    """Tasks on Ray: a running cluster (``address``) or a local instance started here
    with ``workers`` CPUs, shut down at the end."""

    def __init__(
        self, workers: int, address: str | None = None, *, timeout: float = CONNECT_TIMEOUT
    ) -> None:
        try:
            import ray
        except ImportError:
            raise ExperimentError("the ray backend needs Ray: pip install 'segsim[ray]'") from None
        if address is not None:
            _reachable(address, timeout)
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
                _connect(ray, address, timeout)
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


def make_backend(
    backend: str, workers: int, address: str | None = None, timeout: float = CONNECT_TIMEOUT
) -> Backend:
    """``local`` (serial with one worker, else a process pool) or ``ray``."""
    if workers < 0:
        raise ExperimentError(f"workers is >= 0 (0: one per CPU), not {workers}")
    if workers == 0:
        workers = os.cpu_count() or 1
    if backend == "ray":
        return RayBackend(workers, address, timeout=timeout)
    if backend != "local":
        raise ExperimentError(f"unknown backend {backend!r} (known: local, ray)")
    if address is not None:
        raise ExperimentError("--address is for the ray backend")
    return SerialBackend() if workers == 1 else PoolBackend(workers)
