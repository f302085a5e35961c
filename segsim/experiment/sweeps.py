"""A sweep: many fights of one scenario, and optionally a second arm on the same seeds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from segsim.experiment.design import (
    Arm,
    Experiment,
    PolicySpec,
    ScenarioText,
    _check_policies,
    _label,
    assign_policies,
)


def sweep(
    scenario: str | Path | ScenarioText,
    fights: int,
    *,
    seed: int | None = None,
    policies: Mapping[str, PolicySpec] | None = None,
    compare: Mapping[str, PolicySpec] | None = None,
    chunk: int = 100,
    target_error: float | None = None,
) -> Experiment:
    """``fights`` fights of a scenario (policies replaced by combatant id or side).

    With ``compare``, a second arm plays the same seeds with those replacements on top
    of ``policies``: a comparison with common random numbers. The master seed is the
    scenario's ``seed`` unless ``seed`` is given.
    """
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    sc = text.load()
    base = assign_policies(sc, policies or {})
    arms = [Arm(_label(policies or {}), tuple(base.items()))]
    if compare:
        other = {**base, **assign_policies(sc, compare)}
        label = _label({**(policies or {}), **compare})
        if label == arms[0].label:
            label += " (B)"
        arms.append(Arm(label, tuple(other.items())))
    _check_policies(sc, [spec for arm in arms for _, spec in arm.policies])
    master = sc.seed if seed is None else seed
    return Experiment(text, tuple(arms), fights, master, chunk, target_error)
