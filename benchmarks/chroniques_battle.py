"""How a Chroniques line battle's cost per action grows with its size, in instructions.

    python benchmarks/chroniques_battle.py                 # 1,000 against 10 fighters
    python benchmarks/chroniques_battle.py --awareness none --big 50

For each size (``--small`` and ``--big`` fighters a side; the battles of the small size
are ``--battles`` of them, seeds 0..n-1, the big one seed 0), valgrind's cachegrind
counts the instructions of a run to ``--short`` segments and of a run to ``--long``
segments, each in a process of its own; the difference, over the difference of the
actions the engine started (``state.next_action_id - 1``, waits included) and of those
other than waiting (every started action but ``await`` and ``wait``), is the cost per
action of the segments between the two windows, the battle's start left out. The
ratios of the big size's figures to the small one's are the battles' scaling
(docs/performance.md, "Chroniques battles").
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WAITING = frozenset({"await", "wait"})


def units(per_side: int, battles: int, window: int, awareness: float | None) -> tuple[int, int]:
    """Battles of ``per_side`` a side (seeds 0..battles-1) run to ``window`` segments: the
    actions the engine started, and those other than waiting."""
    from segsim.actions import Action
    from segsim.battle import battle

    started = working = 0
    for seed in range(battles):
        fight = battle("chroniques", per_side, seed=seed, max_segments=window, awareness=awareness)
        fight.run()
        started += fight.state.next_action_id - 1
        working += sum(1 for e in fight.history if isinstance(e, Action) and e.kind not in WAITING)
    return started, working


def _valgrind(args: list[str]) -> tuple[int, int, int]:
    from cost import cachegrind  # (a sibling script; not importable in the -P child)

    count, words = cachegrind(Path(__file__).resolve(), args)
    started, working = words[-2:]
    return count, int(started), int(working)


def per_action(
    per_side: int, battles: int, short: int, long: int, awareness: str
) -> tuple[float, float, int]:
    """Instructions per action and per action other than waiting between the windows,
    and the actions started between them."""
    runs = [[str(per_side), str(battles), str(w), awareness] for w in (short, long)]
    with ThreadPoolExecutor(2) as pool:
        (i0, s0, w0), (i1, s1, w1) = pool.map(_valgrind, runs)
    return (i1 - i0) / (s1 - s0), (i1 - i0) / (w1 - w0), s1 - s0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=5, help="fighters a side, small size")
    parser.add_argument("--big", type=int, default=500, help="fighters a side, big size")
    parser.add_argument("--battles", type=int, default=4, help="battles of the small size")
    parser.add_argument("--short", type=int, default=100, help="segments of the short run")
    parser.add_argument("--long", type=int, default=300, help="segments of the long run")
    parser.add_argument("--awareness", default="2.5", help="metres, or none")
    parser.add_argument("--units", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.units:
        per_side, battles, window, radius = args.units
        aware = None if radius == "none" else float(radius)
        print(*units(int(per_side), int(battles), int(window), aware))
        return 0
    figures = {}
    for per_side, battles in ((args.small, args.battles), (args.big, 1)):
        every, working, started = per_action(
            per_side, battles, args.short, args.long, args.awareness
        )
        figures[per_side] = (every, working)
        print(
            f"{2 * per_side:,} fighters: {every:,.0f} instructions per action, "
            f"{working:,.0f} per action other than waiting ({started:,} actions started "
            f"from segment {args.short} to {args.long})",
            flush=True,
        )
    big, small = figures[args.big], figures[args.small]
    print(
        f"ratio: {big[0] / small[0]:.2f}x all actions, {big[1] / small[1]:.2f}x other than waiting"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
