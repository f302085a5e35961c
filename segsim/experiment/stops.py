"""Stop rules checked between blocks: a target interval width and the SPRT."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from segsim.experiment.design import Experiment, FightResult, _spec_name
from segsim.experiment.summary import summarize

if TYPE_CHECKING:
    from segsim.experiment.runner import Results


@attrs.frozen
class SPRTResult:
    decision: str  # "A beats B", "A does not beat B", "undecided"
    trials: int
    llr: float
    bounds: tuple[float, float]
    stopped_at: int | None  # fight index of the decision


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
