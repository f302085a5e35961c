"""RinKaNou (seed 004): the native segment-timeline ruleset."""

from segsim.rules.rinkanou import policies
from segsim.rules.rinkanou.ruleset import KINDS, RinKaNou, Status

__all__ = ["KINDS", "RinKaNou", "Status", "policies"]
