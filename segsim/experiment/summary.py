"""The summary of an experiment's results: win rates, lengths, pairings, differences."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from segsim.experiment.design import _spec_name
from segsim.experiment.stats import Z95, _quantile, wilson

if TYPE_CHECKING:
    from segsim.experiment.runner import Results


@attrs.frozen
class SideStats:
    side: str
    player: str  # the policy playing the whole side, or "" when several do
    wins: int
    n: int
    interval: tuple[float, float]
    damage_taken: float  # mean per fight

    @property
    def rate(self) -> float:
        return self.wins / self.n if self.n else 0.0


@attrs.frozen
class ArmStats:
    label: str
    fights: int  # without errors
    errors: int
    sides: tuple[SideStats, ...]
    draws: int  # no winner (stalemate, time limit, all out)
    results: Mapping[str, int]
    length: tuple[float, float, int, int, int, int, int]  # mean, sd, min, p10, median, p90, max


@attrs.frozen
class PairStats:
    """A tournament pairing over both sides: ``a``'s score against ``b``."""

    a: str
    b: str
    wins: int
    losses: int
    n: int
    interval: tuple[float, float]

    @property
    def rate(self) -> float:
        """The score: wins, and half of each fight without a winner, per fight."""
        return (self.wins + (self.n - self.wins - self.losses) / 2) / self.n if self.n else 0.0


@attrs.frozen
class PolicyDamage:
    """The damage a policy's fighters dealt and took, mean per fight it played in.

    ``per_arm`` holds the same means arm by arm (label, dealt, taken). Damage taken is
    known per side: ``taken`` is None when the policy does not play whole sides.
    """

    policy: str
    fights: int
    dealt: float
    taken: float | None
    per_arm: tuple[tuple[str, float, float | None], ...]


@attrs.frozen
class Summary:
    results: Results
    arms: tuple[ArmStats, ...]
    pairs: tuple[PairStats, ...] = ()
    difference: tuple[str, float, tuple[float, float]] | None = None
    damage: tuple[PolicyDamage, ...] = ()

    def text(self) -> str:
        from segsim.experiment.tables import render_summary

        return render_summary(self)


def summarize(results: Results) -> Summary:
    sides = results.sides
    arms = []
    for arm in results.experiment.arms:
        rows = results.arm_results(arm.label)
        ok = [r for r in rows if r.error is None]
        n = len(ok)
        players = _side_players(results, arm.label)
        side_stats = []
        for side in sides:
            wins = sum(1 for r in ok if r.winner == side)
            taken = [dict(r.damage).get(side, 0) for r in ok]
            side_stats.append(
                SideStats(
                    side,
                    players.get(side, ""),
                    wins,
                    n,
                    wilson(wins, n),
                    statistics.fmean(taken) if taken else 0.0,
                )
            )
        lengths = sorted(r.segments for r in ok)
        length = (
            (
                statistics.fmean(lengths),
                statistics.pstdev(lengths),
                lengths[0],
                _quantile(lengths, 0.1),
                _quantile(lengths, 0.5),
                _quantile(lengths, 0.9),
                lengths[-1],
            )
            if lengths
            else (0.0, 0.0, 0, 0, 0, 0, 0)
        )
        arms.append(
            ArmStats(
                arm.label,
                n,
                len(rows) - n,
                tuple(side_stats),
                sum(1 for r in ok if r.winner is None),
                dict(sorted(Counter(r.result for r in rows).items())),
                length,
            )
        )
    pairs = _pairs(results) if results.experiment.kind == "tournament" else ()
    difference = _difference(results) if len(results.experiment.arms) == 2 and not pairs else None
    return Summary(results, tuple(arms), pairs, difference, policy_damage(results))


def _side_players(results: Results, label: str) -> dict[str, str]:
    """The policy playing each side of an arm, where one policy plays the whole side."""
    side_of = {c.id: c.side for c in results.experiment.scenario.load().combatants}
    names: dict[str, set[str]] = {}
    for cid, name in policy_of(results, label).items():
        names.setdefault(side_of[cid], set()).add(name)
    return {side: next(iter(n)) for side, n in names.items() if len(n) == 1}


def policy_of(results: Results, label: str) -> dict[str, str]:
    """Who plays which policy in an arm: ``{combatant id: policy name}`` (the arm's
    replacement, else the scenario's policy)."""
    arm = results.experiment.arm(label)
    given = dict(arm.policies)
    return {
        c.id: _spec_name(given[c.id]) if c.id in given else c.policy
        for c in results.experiment.scenario.load().combatants
    }


def policy_damage(results: Results) -> tuple[PolicyDamage, ...]:
    """Per policy, over the arms where it plays: the damage its fighters dealt (summed
    over them) and, when it plays whole sides, the damage those sides took."""
    side_of = {c.id: c.side for c in results.experiment.scenario.load().combatants}
    # policy -> [(arm label, fights, dealt total, taken total or None)]
    rows: dict[str, list[tuple[str, int, int, int | None]]] = {}
    for arm in results.experiment.arms:
        players = policy_of(results, arm.label)
        ok = [r for r in results.arm_results(arm.label) if r.error is None]
        for policy in dict.fromkeys(players.values()):
            mine = {cid for cid, name in players.items() if name == policy}
            sides = {side_of[cid] for cid in mine}
            whole = all(players[cid] == policy for cid in side_of if side_of[cid] in sides)
            dealt = sum(d for r in ok for cid, d in r.dealt if cid in mine)
            taken = sum(d for r in ok for side, d in r.damage if side in sides) if whole else None
            rows.setdefault(policy, []).append((arm.label, len(ok), dealt, taken))
    out = []
    for policy, per in rows.items():
        fights = sum(n for _, n, _, _ in per)
        dealt = sum(d for _, _, d, _ in per)
        takens = [t for _, _, _, t in per]
        taken = None if any(t is None for t in takens) else sum(t or 0 for t in takens)
        out.append(
            PolicyDamage(
                policy,
                fights,
                dealt / fights if fights else 0.0,
                None if taken is None else taken / fights if fights else 0.0,
                tuple(
                    (label, d / n if n else 0.0, None if t is None else t / n if n else 0.0)
                    for label, n, d, t in per
                ),
            )
        )
    return tuple(out)


def _pairs(results: Results) -> tuple[PairStats, ...]:
    """Each policy against each other, over both sides (draws count as half)."""
    score: dict[tuple[str, str], list[float]] = {}
    for arm in results.experiment.arms:
        players = dict(arm.players)
        a_side, b_side = results.sides
        a, b = _spec_name(players[a_side]), _spec_name(players[b_side])
        for r in results.arm_results(arm.label):
            if r.error is not None:
                continue
            for me, other, side in ((a, b, a_side), (b, a, b_side)):
                s = score.setdefault((me, other), [0, 0, 0])
                if r.winner == side:
                    s[0] += 1
                elif r.winner is not None:
                    s[1] += 1
                s[2] += 1
    out = []
    for (a, b), (w, losses, n) in score.items():
        points = w + (n - w - losses) / 2
        out.append(PairStats(a, b, int(w), int(losses), int(n), wilson(points, int(n))))
    return tuple(out)


def changed_side(results: Results) -> str:
    """The side a comparison is about: the one whose combatants change policy between
    the two arms, when exactly one does; else the first side."""
    first, second = results.experiment.arms
    a, b = dict(first.policies), dict(second.policies)
    side_of = {c.id: c.side for c in results.experiment.scenario.load().combatants}
    changed = {side_of[cid] for cid in set(a) | set(b) if a.get(cid) != b.get(cid)}
    sides = [s for s in results.sides if s in changed]
    return sides[0] if len(sides) == 1 else results.sides[0]


def _difference(results: Results) -> tuple[str, float, tuple[float, float]] | None:
    """Paired difference of a side's win rate between two arms (same seeds): the side
    whose policies the second arm changes (the first side when both or none change)."""
    first, second = results.experiment.arms
    side = changed_side(results)
    a = {r.index: r for r in results.arm_results(first.label) if r.error is None}
    b = {r.index: r for r in results.arm_results(second.label) if r.error is None}
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return None
    diffs = [float(b[i].winner == side) - float(a[i].winner == side) for i in common]
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return (side, mean, (mean - half, mean + half))
