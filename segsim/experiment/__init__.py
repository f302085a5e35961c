"""Experiments: many fights of a scenario, with error bars, serial, on a process pool or
on Ray.

Fight ``i`` of an experiment with master seed ``S`` has the seed
:func:`fight_seed(S, i) <fight_seed>`, whatever the chunking, the number of workers or
the backend, so results (and the summary printed from them) depend only on the
experiment, and any fight can be run again alone (:meth:`Experiment.fight`) and
recorded. Every *arm* of an experiment (a set of policies: one for a sweep, one per
ordered pair of a tournament) plays the same fight seeds: comparisons use common random
numbers.

Work is cut into blocks of ``chunk`` fights per arm. Stop rules are checked at block
boundaries, in block order, so where an experiment stops depends on the chunk size but
never on the workers: ``target_error`` stops when every win-rate interval is narrower
than it; :class:`SPRT` stops at the first fight (in index order) where the sequential
test decides, and results computed past that point are dropped.

One module per concern: :mod:`.design` (arms, seeds, results of one fight),
:mod:`.sweeps` and :mod:`.tournaments` (building experiments), :mod:`.stats` and
:mod:`.stops` (intervals, the SPRT, stop rules), :mod:`.worker` and :mod:`.backends`
(running chunks), :mod:`.runner` and :mod:`.progress` (running an experiment),
:mod:`.summary` and :mod:`.tables` (what came out), :mod:`.plots` and :mod:`.reports`
(pictures and the HTML report).
"""

from __future__ import annotations

from segsim.experiment.backends import (
    Backend,
    PoolBackend,
    RayBackend,
    SerialBackend,
    make_backend,
)
from segsim.experiment.design import (
    Arm,
    Experiment,
    ExperimentError,
    FightResult,
    PolicySpec,
    ScenarioText,
    assign_policies,
    build_policy,
    fight_seed,
)
from segsim.experiment.outputs import check_outputs
from segsim.experiment.plots import plot
from segsim.experiment.progress import Progress
from segsim.experiment.reports import report_html, write_report
from segsim.experiment.runner import Results, run
from segsim.experiment.stats import SPRT, Z95, wilson
from segsim.experiment.stops import SPRTResult
from segsim.experiment.summary import ArmStats, PairStats, SideStats, Summary, summarize
from segsim.experiment.sweeps import sweep
from segsim.experiment.tables import render_summary
from segsim.experiment.tournaments import tournament
from segsim.experiment.worker import Task, run_one, run_task

__all__ = [
    "SPRT",
    "Z95",
    "Arm",
    "ArmStats",
    "Backend",
    "Experiment",
    "ExperimentError",
    "FightResult",
    "PairStats",
    "PolicySpec",
    "PoolBackend",
    "Progress",
    "RayBackend",
    "Results",
    "SPRTResult",
    "ScenarioText",
    "SerialBackend",
    "SideStats",
    "Summary",
    "Task",
    "assign_policies",
    "build_policy",
    "check_outputs",
    "fight_seed",
    "make_backend",
    "plot",
    "render_summary",
    "report_html",
    "run",
    "run_one",
    "run_task",
    "summarize",
    "sweep",
    "tournament",
    "wilson",
    "write_report",
]
