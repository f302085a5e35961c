"""Rupture (text 002): a narrative system of d6 pools and qualities on coarse ticks."""

from segsim.rules.rupture import policies
from segsim.rules.rupture.declare import KINDS
from segsim.rules.rupture.ruleset import Rupture
from segsim.rules.rupture.status import Status

__all__ = ["KINDS", "Rupture", "Status", "policies"]
