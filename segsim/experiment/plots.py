"""PNG plots of an experiment (matplotlib, the ``plot`` extra): the same findings as
the HTML report, as a picture.

Left, the win rates of each side (a tournament: each pairing's score over both sides)
with their 95 % intervals against a dashed 0.5 line. In the middle,
a comparison's paired difference against 0, or a tournament's round-robin matrix as a
heat map with intervals. Right, the fight lengths: overlaid histograms for one or two
arms, one box per arm beyond that (twenty overlaid histograms say nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from segsim.experiment.design import ExperimentError
from segsim.experiment.reports import pair_label
from segsim.experiment.summary import Summary, summarize

if TYPE_CHECKING:
    from segsim.experiment.runner import Results


def plot(results: Results, path: str | Path) -> None:
    """Write the experiment's plot to ``path`` (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ExperimentError("--plot needs matplotlib: pip install 'segsim[plot]'") from None
    summary = summarize(results)
    middle = bool(summary.pairs) or summary.difference is not None
    panels = 3 if middle else 2
    rows = len(summary.pairs) if summary.pairs else sum(len(a.sides) for a in summary.arms)
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, max(4.0, 1.0 + 0.45 * rows)))
    _rates(axes[0], summary)
    if summary.pairs:
        _matrix(fig, axes[1], summary)
    elif summary.difference is not None:
        _difference(axes[1], summary)
    _lengths(axes[-1], results, summary)
    fig.suptitle(f"{results.experiment.kind}: {results.experiment.scenario.path}")
    fig.tight_layout()
    fig.savefig(str(path), dpi=100)
    plt.close(fig)


def _rates(ax: Any, summary: Summary) -> None:
    labels: list[str] = []
    rates: list[float] = []
    errs: list[list[float]] = [[], []]
    if summary.pairs:
        items = [(pair_label(p.a, p.b), p.rate, p.interval) for p in summary.pairs]
    else:
        items = [
            (f"[{arm.label}] {s.side}", s.rate, s.interval)
            for arm in summary.arms
            for s in arm.sides
        ]
    for label, rate, (lo, hi) in items:
        labels.append(label)
        rates.append(rate)
        errs[0].append(rate - lo)
        errs[1].append(hi - rate)
    ys = list(range(len(labels)))
    ax.axvline(0.5, color="#333", linestyle="--", linewidth=1)
    ax.errorbar(rates, ys, xerr=errs, fmt="o", capsize=4)
    ax.set_yticks(ys, labels)
    ax.set_xlim(0, 1)
    what = "score over both sides" if summary.pairs else "win rate of one side"
    ax.set_xlabel(f"{what} (95 % Wilson interval; dashed: 0.5, an even fight)")
    ax.invert_yaxis()


def _difference(ax: Any, summary: Summary) -> None:
    assert summary.difference is not None
    side, diff, (lo, hi) = summary.difference
    first, second = summary.results.experiment.arms
    ax.axvline(0.0, color="#333", linestyle="--", linewidth=1, label="no difference")
    ax.errorbar(
        [100 * diff],
        [0],
        xerr=[[100 * (diff - lo)], [100 * (hi - diff)]],
        fmt="o",
        capsize=6,
        color="#e15759" if diff < 0 else "#4e79a7",
    )
    ax.set_yticks([0], [f"side {side}"])
    bound = max(10.0, 100 * max(abs(lo), abs(hi)) * 1.2)
    ax.set_xlim(-bound, bound)
    ax.set_xlabel(f"win-rate points with [{second.label}] against [{first.label}]")
    ax.set_title("paired difference (same seeds, 95 % CI)", fontsize="medium")
    ax.legend(fontsize="small")


def _matrix(fig: Any, ax: Any, summary: Summary) -> None:
    names = list(dict.fromkeys(p.a for p in summary.pairs))
    table = {(p.a, p.b): p for p in summary.pairs}
    grid = [[table[(a, b)].rate if (a, b) in table else float("nan") for b in names] for a in names]
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            p = table.get((a, b))
            if p is not None:
                lo, hi = p.interval
                ax.text(
                    j,
                    i,
                    f"{100 * p.rate:.0f}%\n[{100 * lo:.0f}, {100 * hi:.0f}]",
                    ha="center",
                    va="center",
                    fontsize="small",
                )
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_title("row's score against column (both sides)", fontsize="medium")
    fig.colorbar(image, ax=ax, fraction=0.046)


def _lengths(ax: Any, results: Results, summary: Summary) -> None:
    data = [
        (arm.label, [r.segments for r in results.arm_results(arm.label) if r.error is None])
        for arm in summary.arms
    ]
    data = [(label, lengths) for label, lengths in data if lengths]
    if len(data) <= 2:
        for label, lengths in data:
            ax.hist(lengths, bins=30, alpha=0.6, label=label)
        ax.set_xlabel("fight length (segments)")
        ax.set_ylabel("fights")
        if data:
            ax.legend(fontsize="small")
        return
    boxes = [lengths for _, lengths in data]
    try:
        ax.boxplot(boxes, orientation="horizontal")  # matplotlib 3.10 and later
    except TypeError:
        ax.boxplot(boxes, vert=False)
    ax.set_yticks(range(1, len(data) + 1), [label for label, _ in data])
    ax.invert_yaxis()
    ax.set_xlabel("fight length (segments)")


__all__ = ["plot"]
