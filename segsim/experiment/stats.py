"""Statistics and the sequential test: Wilson intervals, Wald's SPRT, quantiles."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

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


H0 = "H0"
H1 = "H1"


@attrs.frozen
class SPRT:
    """Wald's sequential probability ratio test of "A is better than B", as chess engine
    testing runs it (fishtest): H0 "A is no better" (A's expected score ``p = 0.5``)
    against H1 "A is better by ``delta``" (``p = 0.5 + delta``).

    A trial is scored from A's side: 1 for a win, 0 for a loss, and a draw (a fight
    without a winner) is half a win. The log-likelihood ratio of a trial scored ``x`` is
    the Bernoulli one, linear in ``x``: ``x log(p1/p0) + (1 - x) log((1 - p1)/(1 - p0))``.
    A tournament feeds one trial per fight seed: A's mean score over its two fights on
    that seed (A on each side), so a trial is scored 0, 1/4, 1/2, 3/4 or 1.

    Why this holds its error rates whatever the draws and however the two fights of a
    seed are correlated (common random numbers correlate them): the likelihood ratio of
    a trial, ``exp(increment)``, is convex in ``x``, so over any scores in [0, 1] with
    mean 0.5 (H0) its expectation is at most that of a Bernoulli trial with p = 0.5,
    which is 1. The likelihood ratio is then a non-negative supermartingale under H0
    and, by Ville's inequality, reaches the upper bound ``(1 - beta) / alpha`` with
    probability at most ``alpha / (1 - beta) <= alpha``; symmetrically (the inverse
    ratio under H1) the test accepts H0 when A is better by ``delta`` with probability
    at most ``beta / (1 - alpha)``. The same holds for ``p < 0.5`` under H0 and
    ``p > 0.5 + delta`` under H1. Draws and pairing make the test conservative: it may
    need more trials than a test estimating the score's variance would.
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
    def p0(self) -> float:
        """A's expected score under H0 (no better): 0.5."""
        return 0.5

    @property
    def p1(self) -> float:
        """A's expected score under H1 (better by delta): 0.5 + delta."""
        return 0.5 + self.delta

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of the log-likelihood ratio: at or below the lower, H0 is
        accepted; at or above the upper, H1."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def step(self, score: float) -> float:
        """The log-likelihood ratio increment of one trial that A scored ``score``
        (1 a win, 0 a loss, 0.5 a draw, or a mean of such scores)."""
        if not 0 <= score <= 1:
            raise ValueError(f"a trial's score is within 0..1, not {score}")
        p0, p1 = self.p0, self.p1
        return score * math.log(p1 / p0) + (1 - score) * math.log((1 - p1) / (1 - p0))

    def verdict(self, llr: float) -> str | None:
        """``"H1"`` at or above the upper bound, ``"H0"`` at or below the lower, else None."""
        lower, upper = self.bounds
        if llr >= upper:
            return H1
        if llr <= lower:
            return H0
        return None

    def sequential(self, scores: Iterable[float]) -> tuple[str | None, int, float]:
        """Feed trials until a bound is reached: (the hypothesis accepted or None when
        the scores ran out first, the trials used, the log-likelihood ratio)."""
        llr = 0.0
        trials = 0
        for score in scores:
            trials += 1
            llr += self.step(score)
            decided = self.verdict(llr)
            if decided is not None:
                return decided, trials, llr
        return None, trials, llr


def _quantile(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank quantile (an observed value, so it prints exactly)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]
