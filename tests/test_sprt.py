"""The SPRT: H0 "A is no better" (score 0.5) against H1 "A is better by delta" (score
0.5 + delta), a draw half a win, one trial per fight seed (A's mean score over both
sides). Its error rates are checked by simulation, seeded so the counts are fixed."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from segsim.cli import main
from segsim.experiment import SPRT, ExperimentError, run, tournament

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")

RUNS = 2000
"""Simulated SPRTs per case. The false-positive count of RUNS runs is binomial; three
standard deviations of its rate at alpha = 0.05 are 3 * sqrt(0.05 * 0.95 / 2000) =
0.0146, so a test whose true rate were alpha would pass all but 0.13 % of seeds, and one
that said "better" about half the time between equal policies (the old test did) fails."""


def _tolerance(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / RUNS)


def _fight(rng: random.Random, win: float, draw: float) -> float:
    """A's score in one fight: 1 with probability ``win``, a half with ``draw``, else 0."""
    u = rng.random()
    return 1.0 if u < win else 0.5 if u < win + draw else 0.0


def _independent(win: float, draw: float) -> Callable[[random.Random], Iterator[float]]:
    """Trials of two independent fights (A on each side), scored by their mean."""

    def trials(rng: random.Random) -> Iterator[float]:
        while True:
            yield (_fight(rng, win, draw) + _fight(rng, win, draw)) / 2

    return trials


def _same_outcome(win: float) -> Callable[[random.Random], Iterator[float]]:
    """Trials whose two fights always end alike (the worst correlation for a pair)."""

    def trials(rng: random.Random) -> Iterator[float]:
        while True:
            yield 1.0 if rng.random() < win else 0.0

    return trials


def _h1_rate(test: SPRT, make: Callable[[random.Random], Iterator[float]], seed: int) -> float:
    """How often H1 is accepted over RUNS seeded runs (none is undecided: the trials
    never run out)."""
    rng = random.Random(seed)
    counts = {"H0": 0, "H1": 0}
    for _ in range(RUNS):
        accepted, _, _ = test.sequential(make(rng))
        assert accepted is not None
        counts[accepted] += 1
    return counts["H1"] / RUNS


def test_the_bounds_are_walds_and_a_trial_is_a_bernoulli_step_on_the_score() -> None:
    test = SPRT(alpha=0.05, beta=0.1, delta=0.1)
    lower, upper = test.bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    assert (test.p0, test.p1) == (0.5, pytest.approx(0.6))
    assert test.step(1) == pytest.approx(math.log(0.6 / 0.5))
    assert test.step(0) == pytest.approx(math.log(0.4 / 0.5))
    # A draw is half a win: half of each.
    assert test.step(0.5) == pytest.approx((math.log(1.2) + math.log(0.8)) / 2)
    assert test.verdict(upper) == "H1" and test.verdict(lower) == "H0"
    assert test.verdict(0.0) is None
    with pytest.raises(ValueError, match=r"within 0\.\.1"):
        test.step(1.5)
    with pytest.raises(ExperimentError, match="alpha"):
        SPRT(alpha=0.7)


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("decisive fights", _independent(0.5, 0.0)),
        ("a third drawn", _independent(1 / 3, 1 / 3)),
        ("both fights of a seed alike", _same_outcome(0.5)),
    ],
)
def test_on_a_fair_coin_the_false_positive_rate_is_at_most_alpha(
    name: str, make: Callable[[random.Random], Iterator[float]]
) -> None:
    test = SPRT(alpha=0.05, beta=0.05, delta=0.1)
    rate = _h1_rate(test, make, seed=2026)
    assert rate <= test.alpha + _tolerance(test.alpha), name


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("decisive fights", _independent(0.6, 0.0)),
        ("a fifth drawn", _independent(0.5, 0.2)),  # score 0.5 + 0.1
        ("both fights of a seed alike", _same_outcome(0.6)),
    ],
)
def test_when_a_is_better_by_delta_the_power_is_at_least_one_minus_beta(
    name: str, make: Callable[[random.Random], Iterator[float]]
) -> None:
    test = SPRT(alpha=0.05, beta=0.05, delta=0.1)
    power = _h1_rate(test, make, seed=40)
    assert power >= 1 - test.beta - _tolerance(test.beta), name


def test_a_smaller_alpha_gives_fewer_false_positives() -> None:
    loose = _h1_rate(SPRT(alpha=0.2, beta=0.05), _independent(0.5, 0.0), seed=3)
    strict = _h1_rate(SPRT(alpha=0.01, beta=0.05), _independent(0.5, 0.0), seed=3)
    assert strict <= 0.01 + _tolerance(0.01)
    assert strict < loose <= 0.2 + _tolerance(0.2)


def test_a_policy_against_itself_is_no_better() -> None:
    # The same policy under two names plays the same fights on each seed: A wins on one
    # side exactly when it loses on the other, so every trial scores a half and the LLR
    # falls by (log 1.2 + log 0.8) / 2 a trial until it reaches the lower bound.
    same = "segsim.rules.rinkanou.policies:Aggressive"
    exp = tournament(DUEL, ["aggressive", same], 400, seed=3, chunk=40, sprt=SPRT())
    results = run(exp)
    assert results.sprt is not None
    step = SPRT().step(0.5)
    expected = math.ceil(SPRT().bounds[0] / step)
    assert results.sprt.accepted == "H0"
    assert results.sprt.trials == expected
    assert results.sprt.llr == pytest.approx(expected * step)
    assert results.fights == expected
    assert f"H0 accepted: aggressive is no better than {same}" in results.summary().text()


def test_fights_run_out_before_a_bound_and_the_test_says_undecided() -> None:
    exp = tournament(DUEL, ["pressure", "aggressive"], 6, seed=1, sprt=SPRT())
    results = run(exp)
    assert results.sprt is not None
    assert results.sprt.accepted is None and results.sprt.stopped_at is None
    assert results.sprt.trials == 6 and results.fights == 6
    assert results.stopped is None
    text = results.summary().text()
    assert "undecided: neither bound was reached, after 6 trials (12 fights)" in text
    assert "the fights ran out first: give more (--fights)" in text


def test_the_command_says_what_was_tested_and_accepted_with_the_bounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["tournament", DUEL, "--policies", "aggressive", "random", "--sprt"]
    assert main([*args, "--fights", "200", "--alpha", "0.01", "--progress", "off"]) == 0
    out = capsys.readouterr().out
    assert "SPRT, aggressive (A) against random (B)" in out
    assert "H0: A is no better (score 50 %)" in out
    assert "H1: A is better by delta 0.1 (score 60 %)" in out
    assert "alpha 0.01" in out and "beta 0.05" in out
    assert "H1 accepted: aggressive is better than random" in out
    lower, upper = SPRT(alpha=0.01).bounds
    assert f"bounds: H0 at or below {lower:.3f}, H1 at or above {upper:.3f}" in out
