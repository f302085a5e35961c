"""Policies: the deciding minds of combatants.

A policy receives a frozen :class:`Observation` and returns a declaration, a list of
declarations, or None ("nothing new": a combatant who must act then waits). Policies are
plain classes; any object with ``decide(observation)`` is one. A policy whose
``reactive`` attribute is False is only asked when it must act, which saves work for
policies that never react to what others start.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from segsim.actions import PolicyOutput
from segsim.errors import SegsimError
from segsim.observation import LiveView, Observation, StaleObservation

__all__ = [
    "LiveView",
    "Observation",
    "Policy",
    "StaleObservation",
    "UnknownPolicy",
    "is_external",
    "is_reactive",
    "make_policy",
    "policy_name",
    "policy_names",
    "register_policy",
]


@runtime_checkable
class Policy(Protocol):
    """Observation in, declaration(s) out."""

    def decide(self, observation: Observation) -> PolicyOutput: ...


def policy_name(policy: object) -> str:
    """The name a policy goes by in records and errors."""
    name = getattr(policy, "name", None)
    return name if isinstance(name, str) and name else type(policy).__name__


def is_reactive(policy: object) -> bool:
    return bool(getattr(policy, "reactive", True))


def is_external(policy: object) -> bool:
    """Whether a policy decides outside the simulation (an RL agent): the fight then
    pauses at its declaration phases (:meth:`segsim.fight.Fight.advance`)."""
    return bool(getattr(policy, "external", False))


_REGISTRY: dict[tuple[str, str], Callable[..., Any]] = {}


def register_policy(ruleset: str, name: str, factory: Callable[..., Any]) -> None:
    """Make a policy available by name in scenarios (``policy = "aggressive"``)."""
    _REGISTRY[(ruleset, name)] = factory


def policy_names(ruleset: str) -> list[str]:
    return sorted(n for (r, n) in _REGISTRY if r == ruleset)


class UnknownPolicy(SegsimError):
    pass


def make_policy(ruleset: str, spec: str, **kwargs: Any) -> Any:
    """A policy from a registered name or a ``module:Class`` path (or ``module:function``
    naming a generator function or process policy: see :mod:`segsim.process`)."""
    factory = _REGISTRY.get((ruleset, spec))
    if factory is None and ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
            factory = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise UnknownPolicy(f"cannot load policy {spec!r}: {exc}") from None
    if factory is None:
        known = ", ".join(policy_names(ruleset)) or "none"
        raise UnknownPolicy(
            f"unknown policy {spec!r} for ruleset {ruleset!r} (known: {known}; "
            "or give module:Class)"
        )
    if inspect.isgeneratorfunction(factory):  # a fighter written as a process
        from segsim.process import process_policy

        factory = process_policy(factory)
    policy = factory(**kwargs)
    if not callable(getattr(policy, "decide", None)):
        raise UnknownPolicy(f"{spec!r} has no decide(observation) method")
    return policy
