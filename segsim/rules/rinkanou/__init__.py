"""RinKaNou (text 004): the native segment-timeline ruleset."""

from segsim.rules.rinkanou import policies, tactics
from segsim.rules.rinkanou.ruleset import KINDS, RinKaNou, Status

__all__ = ["KINDS", "RinKaNou", "Status", "policies", "tactics"]
