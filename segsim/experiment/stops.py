"""Stop rules checked between blocks: a target interval width and the SPRT (see
:class:`~segsim.experiment.stats.SPRT`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from segsim.experiment.design import Experiment, FightResult, _spec_name
from segsim.experiment.stats import H0, H1
from segsim.experiment.summary import summarize

if TYPE_CHECKING:
    from segsim.experiment.runner import Results


@attrs.frozen
class SPRTResult:
    """What the SPRT concluded about policies ``a`` and ``b``.

    ``accepted`` is ``"H1"`` (A is better than B by at least delta), ``"H0"`` (A is no
    better than B) or None (the fights ran out before either bound was reached).
    ``trials`` counts fight seeds, each a pair of fights (A on each side).
    """

    a: str
    b: str
    accepted: str | None
    trials: int
    llr: float
    bounds: tuple[float, float]
    stopped_at: int | None  # fight index of the decision

    @property
    def decision(self) -> str:
        """The conclusion in words."""
        if self.accepted == H1:
            return f"H1 accepted: {self.a} is better than {self.b}"
        if self.accepted == H0:
            return f"H0 accepted: {self.a} is no better than {self.b}"
        return "undecided: neither bound was reached"


def _precise(
    experiment: Experiment, done: Mapping[tuple[int, int], list[FightResult]], blocks: int, n: int
) -> bool:
    from segsim.experiment.runner import Results

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
    """Feeds A-versus-B trials in fight-index order. The experiment's two arms are A on
    the first side against B, then B on the first side against A."""

    def __init__(self, experiment: Experiment) -> None:
        assert experiment.sprt is not None and experiment.sprt_pair is not None
        self.test = experiment.sprt
        self.a, self.b = experiment.sprt_pair
        self.arms = experiment.arms
        self.llr = 0.0
        self.trials = 0
        self.stopped_at: int | None = None
        self.accepted: str | None = None

    def feed(self, done: Mapping[tuple[int, int], list[FightResult]], block: int) -> bool:
        """One trial per fight seed of the block, in index order: A's mean score over
        its fight on each side (a win 1, a draw half, a loss 0). A seed where either
        fight ended in an error is left out."""
        first, second = (done[(block, k)] for k in range(2))
        players = [dict(arm.players) for arm in self.arms]
        for one, two in zip(first, second, strict=True):
            if one.error is not None or two.error is not None:
                continue
            score = (self._score(one, players[0]) + self._score(two, players[1])) / 2
            self.trials += 1
            self.llr += self.test.step(score)
            decided = self.test.verdict(self.llr)
            if decided is not None:
                self.accepted = decided
                self.stopped_at = one.index
                return True
        return False

    def _score(self, fight: FightResult, players: dict[str, str]) -> float:
        if fight.winner is None:
            return 0.5
        return 1.0 if players.get(fight.winner) == self.a else 0.0

    def result(self) -> SPRTResult:
        return SPRTResult(
            _spec_name(self.a),
            _spec_name(self.b),
            self.accepted,
            self.trials,
            self.llr,
            self.test.bounds,
            self.stopped_at,
        )
