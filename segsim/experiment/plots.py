"""PNG plots of an experiment (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from segsim.experiment.design import ExperimentError
from segsim.experiment.summary import summarize

if TYPE_CHECKING:
    from segsim.experiment.runner import Results


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
