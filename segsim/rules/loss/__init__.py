"""Les Chants de Loss (text 000) on the segment clock."""

from segsim.rules.loss.ruleset import Loss

__all__ = ["Loss"]

from segsim.rules.loss import policies as _policies  # noqa: F401  (registers them)
