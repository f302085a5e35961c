"""What an experiment is: its arms (who plays which policy), its seeds, and one fight's
result; :func:`~segsim.experiment.sweep` and :func:`~segsim.experiment.tournament` build
one."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from segsim.dice import seed_problem
from segsim.errors import InputError, SegsimError
from segsim.fight import Fight
from segsim.policy import UnknownPolicy, make_policy
from segsim.scenario import Scenario, scenario_from_source

if TYPE_CHECKING:
    from segsim.experiment.stats import SPRT


class ExperimentError(SegsimError):
    """An experiment that cannot run as asked (no fights, unknown side or policy...)."""


def fight_seed(master_seed: int, index: int) -> int:
    """The seed of fight ``index`` of an experiment: 63 bits of BLAKE2b of both numbers.

    It depends on nothing else (not the chunk, the worker or the backend).
    """
    text = f"segsim fight {master_seed} {index}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


# ---------------------------------------------------------------- experiment definition

PolicySpec = str | Callable[[], Any]
"""A registered policy name, ``module:Class``, a rule-list file (``.toml``), or a
picklable callable returning a fresh policy."""


@attrs.frozen
class Arm:
    """One configuration of an experiment: who plays which policy.

    ``policies`` maps combatant ids to policy specs; unnamed combatants keep the
    scenario's policy. ``players`` names the policy playing each side (for tables).
    """

    label: str
    policies: tuple[tuple[str, PolicySpec], ...] = ()
    players: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class ScenarioText:
    """A scenario as its path and text, so worker processes and Ray nodes can load it."""

    path: str
    text: str

    @classmethod
    def read(cls, path: str | Path) -> ScenarioText:
        from segsim.input import decode, read_bytes

        try:  # a regular file only (a named pipe would block), of a bounded size
            text = decode(str(path), read_bytes(path))
        except InputError as exc:
            raise ExperimentError(str(exc)) from None
        return cls(str(path), text)

    def load(self) -> Scenario:
        key = (self.path, hashlib.blake2b(self.text.encode()).hexdigest())
        got = _SCENARIOS.get(key)
        if got is None:
            from segsim.input import Source

            got = _SCENARIOS[key] = scenario_from_source(Source(self.path, self.text))
        return got


_SCENARIOS: dict[tuple[str, str], Scenario] = {}


def build_policy(ruleset: str, spec: PolicySpec) -> Any:
    """A fresh policy from a spec (see :data:`PolicySpec`)."""
    if callable(spec):
        return spec()
    if spec.endswith(".toml"):
        from segsim.policies import load_rule_list

        return load_rule_list(spec)
    return make_policy(ruleset, spec)


@attrs.frozen
class FightResult:
    """One fight of an experiment (a row of the results table).

    ``damage`` is the damage each side took (events with ``damage`` and ``attacker``:
    wounds after armour), ``actions`` the actions each side declared (forced ones
    excluded). ``outcomes`` counts how each kind of action resolved (hit, parried,
    dodged...; the ruleset's words), ``dealt`` the damage each fighter dealt: the report
    reads them. ``error`` is set when the fight stopped on an error (an illegal
    declaration names the policy and the segment); such a fight has no winner.
    """

    arm: str
    index: int
    seed: int
    result: str
    winner: str | None
    segments: int
    damage: tuple[tuple[str, int], ...]
    actions: tuple[tuple[str, int], ...]
    error: str | None = None
    outcomes: tuple[tuple[str, str, int], ...] = ()  # (action kind, how it resolved, count)
    dealt: tuple[tuple[str, int], ...] = ()  # damage each fighter dealt (wounds after armour)

    def row(self, sides: Sequence[str]) -> dict[str, Any]:
        damage, actions = dict(self.damage), dict(self.actions)
        out: dict[str, Any] = {
            "arm": self.arm,
            "index": self.index,
            "seed": self.seed,
            "result": self.result,
            "winner": self.winner or "",
            "segments": self.segments,
        }
        for side in sides:
            out[f"damage_{side}"] = damage.get(side, 0)
        for side in sides:
            out[f"actions_{side}"] = actions.get(side, 0)
        out["error"] = self.error or ""
        return out


@attrs.frozen
class Experiment:
    """N fights of a scenario for each arm, seeded from ``(seed, index)``.

    Build one with :func:`sweep` or :func:`tournament`; run it with :func:`run`.
    """

    scenario: ScenarioText
    arms: tuple[Arm, ...]
    fights: int
    seed: int = 0
    chunk: int = 100
    target_error: float | None = None
    sprt: SPRT | None = None
    sprt_pair: tuple[str, str] | None = None  # (A, B): the policies the SPRT compares
    kind: str = "sweep"

    def __attrs_post_init__(self) -> None:
        if self.fights < 1:
            raise ExperimentError(f"an experiment needs at least one fight, not {self.fights}")
        if self.chunk < 1:
            raise ExperimentError(f"chunk is at least one fight, not {self.chunk}")
        if self.target_error is not None and not 0 < self.target_error < 1:
            raise ExperimentError(
                f"target error is an interval width in (0, 1), not {self.target_error}"
            )
        if not self.arms:
            raise ExperimentError("an experiment needs at least one arm")
        problem = seed_problem(self.seed)
        if problem is not None:
            raise ExperimentError(f"master seed: {problem}")

    @property
    def sides(self) -> tuple[str, ...]:
        return _sides(self.scenario.load())

    def arm(self, label: str) -> Arm:
        for arm in self.arms:
            if arm.label == label:
                return arm
        known = ", ".join(a.label for a in self.arms)
        raise ExperimentError(f"no arm {label!r} in this experiment (known: {known})")

    def fight(self, index: int, arm: str | None = None, **kwargs: Any) -> Fight:
        """Fight ``index`` of an arm (the first by default), built but not run: run it
        and write its record to look at one fight of the table in full."""
        if index < 0:
            raise ExperimentError(f"a fight index is >= 0, not {index}")
        the_arm = self.arms[0] if arm is None else self.arm(arm)
        return _build(self.scenario.load(), the_arm, fight_seed(self.seed, index), **kwargs)

    def blocks(self) -> int:
        return -(-self.fights // self.chunk)


def _sides(scenario: Scenario) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.side for c in scenario.combatants))


def _build(scenario: Scenario, arm: Arm, seed: int, **kwargs: Any) -> Fight:
    ruleset = scenario.ruleset.name
    policies = {cid: build_policy(ruleset, spec) for cid, spec in arm.policies}
    return scenario.fight(seed, policies=policies, **kwargs)


def _check_policies(scenario: Scenario, policies: Iterable[PolicySpec]) -> None:
    for spec in policies:
        try:
            build_policy(scenario.ruleset.name, spec)
        except UnknownPolicy:
            raise
        except SegsimError:
            raise
        except Exception as exc:
            raise ExperimentError(f"policy {spec!r} cannot be built: {exc}") from None


def assign_policies(
    scenario: Scenario, assignments: Mapping[str, PolicySpec]
) -> dict[str, PolicySpec]:
    """``{combatant id or side: policy}`` -> ``{combatant id: policy}`` (a combatant
    named by its id wins over its side); an unknown name is an error."""
    ids = [c.id for c in scenario.combatants]
    sides = _sides(scenario)
    out: dict[str, PolicySpec] = {}
    for who, spec in assignments.items():
        if who in ids:
            out[who] = spec
        elif who in sides:
            for c in scenario.combatants:
                if c.side == who:
                    out.setdefault(c.id, spec)
        else:
            raise ExperimentError(
                f"{scenario.path}: no combatant or side {who!r} (combatants: {', '.join(ids)}; "
                f"sides: {', '.join(sides)})"
            )
    return out


def _label(assignments: Mapping[str, PolicySpec]) -> str:
    if not assignments:
        return "scenario"
    return ", ".join(f"{k}={_spec_name(v)}" for k, v in assignments.items())


def _spec_name(spec: PolicySpec) -> str:
    if isinstance(spec, str):
        return Path(spec).stem if spec.endswith(".toml") else spec
    return getattr(spec, "__name__", type(spec).__name__)
