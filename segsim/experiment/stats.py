"""Statistics and the sequential test: Wilson intervals, Wald's SPRT, quantiles."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from segsim.experiment.design import ExperimentError

Z95 = 1.959963984540054
"""The two-sided 95 % normal quantile."""


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


def _quantile(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank quantile (an observed value, so it prints exactly)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]
