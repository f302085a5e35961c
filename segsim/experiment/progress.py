"""The progress display of a running experiment: fights done, elapsed time, a smoothed
rate and the time left, on stderr when it is a terminal (or when asked).

Drawn by tqdm (the ``progress`` extra). A timer redraws it twice a second, so the
elapsed time and the estimate move even while a long chunk of fights is running; the
rate is an exponential moving average of recent chunks, not an average since start-up.
Without tqdm, a terminal gets a one-line note saying how to install it and the
experiment runs without a display; asking for it explicitly (``enabled=True``) without
tqdm is an error, raised before the first fight.
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

from segsim.experiment.design import ExperimentError

INSTALL = "the progress display needs tqdm: pip install 'segsim[progress]'"
REDRAW = 0.5
"""Seconds between redraws of the display while fights run."""


def _tqdm() -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class Progress:
    """Fights done out of ``total`` (see the module's docstring)."""

    def __init__(
        self, total: int, stream: IO[str] | None = None, enabled: bool | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        wanted = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self._bar: Any = None
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        if not wanted:
            return
        tqdm = _tqdm()
        if tqdm is None:
            if enabled:
                raise ExperimentError(f"--progress on: {INSTALL}")
            self.stream.write(f"note: {INSTALL}\n")
            self.stream.flush()
            return
        self._bar = tqdm(
            total=total,
            unit="fight",
            file=self.stream,
            smoothing=0.1,
            mininterval=0.2,
            dynamic_ncols=True,
            leave=True,
            ascii=None,
        )
        self._timer = threading.Thread(target=self._redraw, name="segsim-progress", daemon=True)
        self._timer.start()

    @property
    def enabled(self) -> bool:
        return self._bar is not None

    def _redraw(self) -> None:
        while not self._stop.wait(REDRAW):
            bar = self._bar
            if bar is not None:
                bar.refresh()

    def update(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
            self._timer = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None


__all__ = ["INSTALL", "Progress"]
