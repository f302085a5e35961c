"""Chroniques (text 001): a d20 game of the Chroniques Oubliées family on coarse ticks."""

from segsim.rules.chroniques import policies
from segsim.rules.chroniques.declare import KINDS
from segsim.rules.chroniques.ruleset import Chroniques
from segsim.rules.chroniques.status import Status

__all__ = ["KINDS", "Chroniques", "Status", "policies"]
