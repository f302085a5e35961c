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
    "data_policy",
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
ANY_RULESET = "*"
"""Register a policy under this ruleset name to offer it to every ruleset."""
ENTRY_POINT_GROUP = "segsim.policies"
"""Installed packages offer policies through this entry point group: an entry named
``name`` (every ruleset) or ``ruleset.name`` whose value is ``module:Class``."""
_entry_points_loaded = False


def register_policy(ruleset: str, name: str, factory: Callable[..., Any]) -> None:
    """Make a policy available by name in scenarios (``policy = "aggressive"``).

    ``ruleset`` may be :data:`ANY_RULESET` to offer it to every ruleset. Data files
    (scenarios, records, scripts) can only name policies registered this way, by a
    ruleset, through the ``segsim.policies`` entry point group, or by the application.
    """
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"a policy name is a non-empty string without ':', not {name!r}")
    if not callable(factory):
        raise TypeError(f"a policy factory is callable, not {factory!r}")
    _REGISTRY[(ruleset, name)] = factory


def policy_factory(func: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a function as a policy factory, so that ``module:function`` may name it on
    the command line or in Python (an unmarked function is never called)."""
    func.__segsim_policy_factory__ = True  # type: ignore[attr-defined]
    return func


def _load_entry_points() -> None:
    """Register the policies installed packages declare (once, on first need)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ruleset, _, name = ep.name.rpartition(".")
        key = (ruleset or ANY_RULESET, name)
        if key in _REGISTRY or not name:
            continue
        _REGISTRY[key] = _LazyEntryPoint(ep)


class _LazyEntryPoint:
    """An installed policy, imported only when a fight first asks for it."""

    def __init__(self, ep: Any) -> None:
        self.ep = ep

    def __call__(self, **kwargs: Any) -> Any:
        try:
            factory = self.ep.load()
        except Exception as exc:  # an installed package that fails to import
            raise UnknownPolicy(
                f"policy {self.ep.name!r} from entry point {self.ep.value!r} cannot be "
                f"loaded: {type(exc).__name__}: {exc}"
            ) from None
        _check_factory(factory, self.ep.value)
        return factory(**kwargs)


def policy_names(ruleset: str) -> list[str]:
    """The policy names data files may use for ``ruleset``."""
    _load_entry_points()
    return sorted(n for (r, n) in _REGISTRY if r in (ruleset, ANY_RULESET))


class UnknownPolicy(SegsimError):
    pass


def _registered(ruleset: str, name: str) -> Callable[..., Any] | None:
    factory = _REGISTRY.get((ruleset, name)) or _REGISTRY.get((ANY_RULESET, name))
    if factory is None:
        _load_entry_points()
        factory = _REGISTRY.get((ruleset, name)) or _REGISTRY.get((ANY_RULESET, name))
    return factory


def _check_factory(factory: Any, spec: str) -> None:
    """Refuse anything that is not a policy class or a marked policy factory: an
    import path must never call an arbitrary function (``os:abort``)."""
    if isinstance(factory, type):
        if not callable(getattr(factory, "decide", None)):
            raise UnknownPolicy(f"{spec!r} is a class without a decide(observation) method")
        return
    if callable(factory) and getattr(factory, "__segsim_policy_factory__", False) is True:
        return
    if inspect.isgeneratorfunction(factory):  # a fighter written as a process
        return
    raise UnknownPolicy(
        f"{spec!r} is neither a policy class (with decide(observation)) nor a function "
        "marked with @segsim.policy.policy_factory"
    )


def _imported(spec: str) -> Callable[..., Any]:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UnknownPolicy(f"an import path is module:Class, not {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise UnknownPolicy(f"cannot load policy {spec!r}: {type(exc).__name__}: {exc}") from None
    factory = module
    for part in attr.split("."):
        if part.startswith("_"):
            raise UnknownPolicy(f"cannot load policy {spec!r}: {part!r} is private")
        try:
            factory = getattr(factory, part)
        except AttributeError as exc:
            raise UnknownPolicy(f"cannot load policy {spec!r}: {exc}") from None
    _check_factory(factory, spec)
    return factory  # type: ignore[return-value]


def data_policy(ruleset: str, spec: str) -> Any:
    """``make_policy(ruleset, spec, from_data=True)``, for a name a data file's loading
    accepted already (a scenario's, at each of its fights): a registered class is called
    as make_policy would call it, without its checks of the name; anything else goes
    through make_policy."""
    factory = _REGISTRY.get((ruleset, spec)) or _REGISTRY.get((ANY_RULESET, spec))
    if isinstance(factory, type):
        policy = factory()
        if not callable(getattr(policy, "decide", None)):
            raise UnknownPolicy(f"{spec!r} has no decide(observation) method")
        return policy
    return make_policy(ruleset, spec, from_data=True)


def make_policy(ruleset: str, spec: str, *, from_data: bool = False, **kwargs: Any) -> Any:
    """A policy from a registered name, or (unless ``from_data``) a ``module:Class`` path.

    Data files (scenarios, records, scripts) name registered policies only: they pass
    ``from_data=True``, and an import path is then refused without importing anything.
    From Python or the command line an import path is imported, and its attribute is
    called only if it is a policy class or a function marked with
    :func:`policy_factory`.
    """
    if not isinstance(spec, str) or not spec:
        raise UnknownPolicy(f"a policy is named by a non-empty string, not {spec!r}")
    factory = _registered(ruleset, spec)
    if factory is None and ":" in spec:
        if from_data:
            raise UnknownPolicy(
                f"{spec!r}: data files name registered policies only (known: "
                f"{', '.join(policy_names(ruleset)) or 'none'}); an import path is "
                "accepted from the command line or Python (see docs/security.md)"
            )
        factory = _imported(spec)
    if factory is None:
        known = ", ".join(policy_names(ruleset)) or "none"
        how = "" if from_data else "; or give module:Class"
        raise UnknownPolicy(
            f"unknown policy {spec!r} for ruleset {ruleset!r} (known: {known}{how})"
        )
    # A fighter written as a process (a class never is one: no look into its signature,
    # at each fight of a scenario).
    if not isinstance(factory, type) and inspect.isgeneratorfunction(factory):
        from segsim.process import process_policy

        factory = process_policy(factory)
    policy = factory(**kwargs)
    if not callable(getattr(policy, "decide", None)):
        raise UnknownPolicy(f"{spec!r} has no decide(observation) method")
    return policy
