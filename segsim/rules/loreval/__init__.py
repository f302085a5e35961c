"""Loreval (text 003): a D&D 3 adaptation with initiative points, attention criteria and
action categories, on rounds of 60 segments."""

from segsim.rules.loreval import policies as _policies  # noqa: F401  (registers them)
from segsim.rules.loreval.ruleset import Loreval

__all__ = ["Loreval"]
