"""A round robin of policies on a two-sided scenario."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from segsim.experiment.design import (
    Arm,
    Experiment,
    ExperimentError,
    ScenarioText,
    _check_policies,
    _label,
    _sides,
    assign_policies,
)
from segsim.experiment.stats import SPRT


def tournament(
    scenario: str | Path | ScenarioText,
    policies: Sequence[str],
    fights: int,
    *,
    seed: int | None = None,
    chunk: int = 100,
    target_error: float | None = None,
    sprt: SPRT | None = None,
) -> Experiment:
    """A round robin of policies on a two-sided scenario: every ordered pair (A on the
    first side, B on the second, A != B) plays ``fights`` fights, all on the same seeds,
    so each pair meets on both sides. An arm is labelled by who plays each side
    (``blue=A, red=B``): its figures are per side; a pairing's score (``A against B``)
    is over both arms. With ``sprt``, exactly two policies, and the
    experiment stops as soon as the test decides whether the first beats the second.
    The master seed is the scenario's ``seed`` unless ``seed`` is given.
    """
    text = scenario if isinstance(scenario, ScenarioText) else ScenarioText.read(scenario)
    sc = text.load()
    sides = _sides(sc)
    if len(sides) != 2:
        raise ExperimentError(
            f"{text.path}: a tournament needs a scenario with two sides, not {len(sides)}"
        )
    names = list(dict.fromkeys(policies))
    if len(names) < 2:
        raise ExperimentError("a tournament needs at least two different policies")
    if sprt is not None and len(names) != 2:
        raise ExperimentError("the SPRT compares exactly two policies (A B)")
    _check_policies(sc, names)
    arms = []
    for a in names:
        for b in names:
            if a == b:
                continue
            assign = assign_policies(sc, {sides[0]: a, sides[1]: b})
            arms.append(
                Arm(
                    _label({sides[0]: a, sides[1]: b}),
                    tuple(assign.items()),
                    ((sides[0], a), (sides[1], b)),
                )
            )
    pair = (names[0], names[1]) if sprt is not None else None
    return Experiment(
        text,
        tuple(arms),
        fights,
        sc.seed if seed is None else seed,
        chunk,
        target_error,
        sprt,
        pair,
        "tournament",
    )
