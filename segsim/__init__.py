"""segsim: tabletop RPG combat as a discrete-event simulation on SimPy.

The RinKaNou segment timeline (0.1 s segments) is native; other rulesets run on the same
clock with coarser ticks.
"""

from segsim import policies as _policies  # noqa: F401  (registers random for every ruleset)
from segsim.actions import Action, ActionSpec, Cancel, Declaration
from segsim.clock import SEGMENT_SECONDS, Clock, to_seconds
from segsim.dice import Dice, LoadedDice
from segsim.errors import (
    DiceExhausted,
    DiceLeftOver,
    IllegalDeclaration,
    InputError,
    RecordError,
    SegsimError,
    StaleDeclaration,
)
from segsim.events import Event
from segsim.fight import CombatantSpec, Fight
from segsim.policy import Observation, Policy
from segsim.process import Interrupt, ProcessPolicy, Result, Threat, process_policy
from segsim.rules import Outcome, get_ruleset
from segsim.scenario import Scenario, load_scenario

__version__ = "0.1.0"

__all__ = [
    "SEGMENT_SECONDS",
    "Action",
    "ActionSpec",
    "Cancel",
    "Clock",
    "CombatantSpec",
    "Declaration",
    "Dice",
    "DiceExhausted",
    "DiceLeftOver",
    "Event",
    "Fight",
    "IllegalDeclaration",
    "InputError",
    "Interrupt",
    "LoadedDice",
    "Observation",
    "Outcome",
    "Policy",
    "ProcessPolicy",
    "RecordError",
    "Result",
    "Scenario",
    "SegsimError",
    "StaleDeclaration",
    "Threat",
    "get_ruleset",
    "load_scenario",
    "process_policy",
    "to_seconds",
]
