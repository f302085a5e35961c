"""Optimize: search a rule-list policy's tunable parameters (``segsim optimize``).

The search is Optuna's TPE sampler (a Bayesian optimiser that handles whole numbers,
real numbers and choices together, seeded so that the same seed and budget give the
same search), asked and told one candidate at a time. Every candidate plays the same
training fights (fight ``i`` has the seed ``fight_seed(S, i)``: common random numbers,
so two candidates' scores differ only by their parameters). The starting parameters
(the file's ``[params]``) are the first candidate.

The best candidates by training score are then played again, with the starting policy,
on fresh seeds never used in the search (master seed :func:`held_out_seed` of ``S``),
and each is compared with the starting policy fight by fight: the paired difference
and its 95 % interval, an honest estimate because these seeds played no part in
choosing it. The best candidate is written as a rule-list file that ``segsim run`` and
``segsim sweep`` take as is.

Each parameter's importance is given twice: Optuna's PED-ANOVA (how much the parameter
decides whether a candidate lands among the best tenth) and the share of the score's
variance over the candidates that the parameter alone explains (a one-way analysis of
variance; a number is cut into quartiles).
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.experiment.backends import Backend, make_backend
from segsim.experiment.design import (
    Arm,
    Experiment,
    ExperimentError,
    FightResult,
    PolicySpec,
    ScenarioText,
    _check_policies,
    _sides,
    assign_policies,
    fight_seed,
)
from segsim.experiment.runner import Results, run
from segsim.experiment.stats import Z95, wilson
from segsim.tuning import Tunable

METRICS = {
    "win": ("maximize", "win rate of the tuned side"),
    "damage": ("maximize", "damage dealt by the tuned side per fight"),
    "length": ("minimize", "fight length in segments"),
}
"""What a candidate is scored on, and in which direction."""


def held_out_seed(seed: int) -> int:
    """The master seed of the fresh fights: 63 bits of BLAKE2b, apart from every
    ``fight_seed(seed, i)`` of the search."""
    text = f"segsim held-out {seed}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


_LOADED: dict[tuple[str, int, int], Any] = {}


@attrs.frozen
class Tuned:
    """A picklable policy spec: the rule list at ``path`` with ``params`` set (loaded
    once per process; each fight gets its own copy)."""

    path: str
    params: tuple[tuple[str, Any], ...]

    def __call__(self) -> Any:
        from segsim.policies import load_rule_list

        info = os.stat(self.path)
        key = (os.path.abspath(self.path), info.st_mtime_ns, info.st_size)
        rules = _LOADED.get(key)
        if rules is None:
            rules = _LOADED[key] = load_rule_list(self.path)
        return rules.with_params(**dict(self.params))


@attrs.frozen
class Trial:
    number: int
    params: tuple[tuple[str, Any], ...]
    value: float


@attrs.frozen
class Comparison:
    """A candidate against the starting policy on the fresh seeds."""

    label: str
    params: tuple[tuple[str, Any], ...]
    train: float  # its training score
    value: float  # its score on the fresh seeds
    interval: tuple[float, float]  # of that score (Wilson for a win rate)
    difference: float  # candidate minus start, mean over paired fresh seeds
    diff_interval: tuple[float, float]
    n: int


@attrs.frozen
class Optimization:
    """What :func:`optimize` found."""

    scenario: ScenarioText
    path: str  # the tuned rule list
    who: str
    side: str
    against: tuple[tuple[str, str], ...]
    metric: str
    seed: int
    held_out: int
    fights: int
    eval_fights: int
    tunable: tuple[Tunable, ...]
    start: tuple[tuple[str, Any], ...]
    trials: tuple[Trial, ...]
    start_value: float  # the starting policy's score on the fresh seeds
    start_interval: tuple[float, float]
    comparisons: tuple[Comparison, ...]
    importance: tuple[tuple[str, float | None, float], ...]  # name, PED-ANOVA, eta squared
    train_seeds: tuple[int, ...]
    eval_seeds: tuple[int, ...]

    @property
    def direction(self) -> str:
        return METRICS[self.metric][0]

    @property
    def best(self) -> Comparison:
        return self.comparisons[0]

    def text(self) -> str:
        from segsim.experiment.optimize_report import render_optimization

        return render_optimization(self)

    def best_policy_text(self) -> str:
        return tuned_file_text(self)

    def write_best(self, path: str | Path) -> None:
        """The best candidate as a rule-list file (checked by loading it back)."""
        from segsim.policies import load_rule_list

        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.best_policy_text())
        load_rule_list(path)


def _score(metric: str, result: FightResult, side: str) -> float:
    if metric == "win":
        return 1.0 if result.winner == side else 0.0
    if metric == "damage":
        return float(sum(d for s, d in result.damage if s != side))
    return float(result.segments)


def _mean_score(metric: str, results: Sequence[FightResult], side: str) -> float:
    return statistics.fmean(_score(metric, r, side) for r in results) if results else 0.0


def _distributions(tunable: Sequence[Tunable]) -> dict[str, Any]:
    import optuna

    out: dict[str, Any] = {}
    for t in tunable:
        if t.choices:
            out[t.name] = optuna.distributions.CategoricalDistribution(list(t.choices))
        elif t.whole:
            out[t.name] = optuna.distributions.IntDistribution(
                int(t.low or 0), int(t.high or 0), step=int(t.step or 1)
            )
        else:
            out[t.name] = optuna.distributions.FloatDistribution(
                float(t.low or 0), float(t.high or 0), step=t.step
            )
    return out


def _direction(metric: str) -> Any:
    from optuna.study import StudyDirection

    maximize = METRICS[metric][0] == "maximize"
    return StudyDirection.MAXIMIZE if maximize else StudyDirection.MINIMIZE


def _need_optuna() -> None:
    import importlib.util

    if importlib.util.find_spec("optuna") is None:
        raise ExperimentError("segsim optimize needs Optuna: pip install 'segsim[optimize]'")


def optimize(
    scenario: str | Path | ScenarioText,
    policy: Mapping[str, str],
    budget: int,
    *,
    against: Mapping[str, PolicySpec] | None = None,
    fights: int = 100,
    eval_fights: int = 400,
    metric: str = "win",
    seed: int | None = None,
    top: int = 3,
    chunk: int = 100,
    workers: int = 1,
    backend: str | Backend = "local",
    address: str | None = None,
    progress: bool | None = False,
) -> Optimization:
    """Search the ``[tune]`` parameters of the rule list ``policy`` (``{who: file}``,
    one combatant id or side) against the ``against`` policies: ``budget`` candidates,
    ``fights`` training fights each on the same seeds, then the ``top`` best and the
    start on ``eval_fights`` fresh seeds. Deterministic for a given seed and budget,
    whatever the workers or the backend."""
    _need_optuna()
    from segsim.policies import load_rule_list

    if metric not in METRICS:
        raise ExperimentError(f"--metric is one of {', '.join(METRICS)}, not {metric!r}")
    if len(policy) != 1:
        raise ExperimentError("optimize tunes one rule list: give one --policy WHO=FILE")
    if budget < 1 or fights < 1 or eval_fights < 2 or top < 1:
        raise ExperimentError(
            "--budget and --fights are at least 1, --eval-fights at least 2 (a paired "
            "interval needs two fights)"
        )
    ((who, path),) = policy.items()
    if not str(path).endswith(".toml"):
        raise ExperimentError(
            f"--policy {who}={path}: optimize tunes a rule-list file (.toml) with a [tune] "
            "table; a built-in policy is Python, with nothing declared to tune"
        )
    rules = load_rule_list(path)
    if not rules.tunable:
        raise ExperimentError(
            f'{path}: no [tune] table, so nothing to search (see docs/experiments.md, "Optimize")'
        )
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    sc = text.load()
    tuned_ids = assign_policies(sc, {who: path})
    sides = {c.side for c in sc.combatants if c.id in tuned_ids}
    if len(sides) != 1:
        raise ExperimentError(f"--policy {who}: the tuned fighters must be on one side")
    (side,) = sides
    opposing = assign_policies(sc, dict(against or {}))
    clash = sorted(set(opposing) & set(tuned_ids))
    if clash:
        raise ExperimentError(f"--against names {', '.join(clash)}, whom --policy tunes")
    _check_policies(sc, list(opposing.values()))
    if len(_sides(sc)) < 2:
        raise ExperimentError(f"{text.path}: nobody to fight")
    master = sc.seed if seed is None else seed
    held = held_out_seed(master)
    tunable = tuple(rules.tunable.values())
    start = tuple((t.name, rules.params[t.name]) for t in tunable)
    fixed = tuple((cid, spec) for cid, spec in opposing.items())

    def arm(label: str, params: Sequence[tuple[str, Any]]) -> Arm:
        spec = Tuned(str(path), tuple(params))
        return Arm(label, fixed + tuple((cid, spec) for cid in tuned_ids))

    runner = backend if isinstance(backend, Backend) else make_backend(backend, workers, address)
    try:
        trials = _search(
            text, arm, tunable, start, budget, fights, master, metric, side, chunk, runner, progress
        )
        ranked = _ranked(trials, METRICS[metric][0])
        chosen = [t for t in ranked if t.params != start][:top] or ranked[:1]
        arms = [arm("start", start)] + [arm(f"candidate {t.number}", t.params) for t in chosen]
        held_results = _run(
            Experiment(text, tuple(arms), eval_fights, held, chunk), runner, progress
        )
    finally:
        if not isinstance(backend, Backend):
            runner.close()
    base = held_results.arm_results("start")
    start_value = _mean_score(metric, base, side)
    comparisons = []
    for t in chosen:
        rows = held_results.arm_results(f"candidate {t.number}")
        diffs = [
            _score(metric, r, side) - _score(metric, b, side)
            for r, b in zip(rows, base, strict=True)
        ]
        mean = statistics.fmean(diffs)
        half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
        comparisons.append(
            Comparison(
                f"candidate {t.number}",
                t.params,
                t.value,
                _mean_score(metric, rows, side),
                _interval(metric, rows, side),
                mean,
                (mean - half, mean + half),
                len(diffs),
            )
        )
    train_seeds = tuple(fight_seed(master, i) for i in range(fights))
    eval_seeds = tuple(r.seed for r in base)
    return Optimization(
        text,
        str(path),
        who,
        side,
        tuple(
            (k, v if isinstance(v, str) else getattr(v, "__name__", str(v)))
            for k, v in (against or {}).items()
        ),
        metric,
        master,
        held,
        fights,
        eval_fights,
        tunable,
        start,
        tuple(trials),
        start_value,
        _interval(metric, base, side),
        tuple(comparisons),
        _importance(trials, tunable, metric, master),
        train_seeds,
        eval_seeds,
    )


def _run(experiment: Experiment, runner: Backend, progress: bool | None) -> Results:
    results = run(experiment, backend=runner, progress=progress)
    if results.failed is not None:
        raise ExperimentError(f"a fight failed: {results.stopped}")
    return results


def _search(
    text: ScenarioText,
    arm: Any,
    tunable: Sequence[Tunable],
    start: tuple[tuple[str, Any], ...],
    budget: int,
    fights: int,
    master: int,
    metric: str,
    side: str,
    chunk: int,
    runner: Backend,
    progress: bool | None,
) -> list[Trial]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=master % 2**32, n_startup_trials=min(10, budget))
    study = optuna.create_study(direction=_direction(metric), sampler=sampler)
    study.enqueue_trial(dict(start))
    distributions = _distributions(tunable)
    trials: list[Trial] = []
    for _ in range(budget):
        trial = study.ask(distributions)
        params = tuple((t.name, _tidy(trial.params[t.name])) for t in tunable)
        experiment = Experiment(
            text, (arm(f"trial {trial.number}", params),), fights, master, chunk
        )
        results = _run(experiment, runner, progress)
        value = _mean_score(metric, results.results, side)
        study.tell(trial, value)
        trials.append(Trial(trial.number, params, value))
    return trials


def _tidy(value: Any) -> Any:
    """A sampled real number without the binary noise of its step (0.30000000000000004
    is written 0.3)."""
    return round(value, 10) if isinstance(value, float) else value


def _ranked(trials: Sequence[Trial], direction: str) -> list[Trial]:
    """Best first; among equals the earlier; one trial per distinct parameter set."""
    sign = -1 if direction == "maximize" else 1
    seen: set[tuple[tuple[str, Any], ...]] = set()
    out = []
    for t in sorted(trials, key=lambda t: (sign * t.value, t.number)):
        if t.params not in seen:
            seen.add(t.params)
            out.append(t)
    return out


def _interval(metric: str, rows: Sequence[FightResult], side: str) -> tuple[float, float]:
    scores = [_score(metric, r, side) for r in rows]
    if metric == "win":
        return wilson(sum(scores), len(scores))
    if len(scores) < 2:
        return (scores[0], scores[0]) if scores else (0.0, 0.0)
    mean = statistics.fmean(scores)
    half = Z95 * statistics.stdev(scores) / math.sqrt(len(scores))
    return (mean - half, mean + half)


def _importance(
    trials: Sequence[Trial], tunable: Sequence[Tunable], metric: str, seed: int
) -> tuple[tuple[str, float | None, float], ...]:
    ped = _ped_anova(trials, tunable, metric)
    values = [t.value for t in trials]
    total = statistics.pvariance(values) if len(values) > 1 else 0.0
    out = []
    for k, t in enumerate(tunable):
        groups: dict[Any, list[float]] = {}
        raw = [trial.params[k][1] for trial in trials]
        keys = raw if t.choices else _quartiles(raw)
        for key, v in zip(keys, values, strict=True):
            groups.setdefault(key, []).append(v)
        mean = statistics.fmean(values) if values else 0.0
        between = sum(len(g) * (statistics.fmean(g) - mean) ** 2 for g in groups.values())
        eta = between / (total * len(values)) if total > 0 else 0.0
        out.append((t.name, ped.get(t.name) if ped is not None else None, eta))
    return tuple(out)


def _quartiles(values: Sequence[Any]) -> list[int]:
    ordered = sorted(values)
    cuts = [ordered[min(len(ordered) - 1, (len(ordered) * q) // 4)] for q in (1, 2, 3)]
    return [sum(v > c for c in cuts) for v in values]


def _ped_anova(
    trials: Sequence[Trial], tunable: Sequence[Tunable], metric: str
) -> dict[str, float] | None:
    """Optuna's PED-ANOVA importances, or None when there are too few candidates."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances

    if len(trials) < 10:
        return None
    study = optuna.create_study(direction=_direction(metric))
    distributions = _distributions(tunable)
    for t in trials:
        study.add_trial(
            optuna.trial.create_trial(
                params=dict(t.params), distributions=distributions, value=t.value
            )
        )
    try:
        found = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
    except (ValueError, RuntimeError):
        return None
    return {k: float(v) for k, v in found.items()}


def tuned_file_text(result: Optimization) -> str:
    """The tuned rule list: the original file's data with the best parameters, and a
    header saying where they come from."""
    from segsim.experiment.variables import dump_toml
    from segsim.input import Source
    from segsim.scriptline import toml_value

    data = dict(Source.read(result.path).data)
    best = result.best
    data["params"] = {**data.get("params", {}), **dict(best.params)}
    lo, hi = best.diff_interval
    against = ", ".join(f"{k}={v}" for k, v in result.against) or "the scenario's policies"
    changed = ", ".join(
        f"{k} = {toml_value(v)}" for k, v in best.params if dict(result.start).get(k) != v
    )
    head = [
        f"# {Path(result.path).name} tuned by segsim optimize on {result.scenario.path}",
        f"# for {result.who} against {against}; metric {result.metric}, seed {result.seed},",
        f"# {len(result.trials)} candidates of {result.fights} fights each.",
        f"# Changed from the start: {changed or 'nothing'}.",
        f"# On {best.n} fresh seeds: {best.difference:+.4g} against the starting parameters",
        f"# (paired 95 % interval [{lo:+.4g}, {hi:+.4g}]).",
        "",
    ]
    return "\n".join(head) + dump_toml(data)


__all__ = [
    "METRICS",
    "Comparison",
    "Optimization",
    "Trial",
    "Tuned",
    "held_out_seed",
    "optimize",
    "tuned_file_text",
]
