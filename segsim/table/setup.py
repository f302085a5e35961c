"""Table mode's set-up: who is in the fight, how the fight is built, and the dice.

A :class:`TableSetup` is what every fight of a session is built from (a scenario, a
fight script's set-up or a record's header); the fighters declared for at the table get
the :class:`TablePolicy`, an external policy (the fight pauses at their phases). With
:class:`TableDice` the table rolls real dice: the rules' next draw raises
:class:`DieWanted`, which the session turns into a question for the game master.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from segsim.dice import Dice
from segsim.errors import SegsimError
from segsim.fight import CombatantSpec, Fight
from segsim.policy import Observation, make_policy

TABLE_POLICY = "table"
"""The policy name of fighters declared for at the table, in the record header."""


class TablePolicy:
    """The policy of a fighter declared for at the table: external (the fight pauses at
    its phases) and reactive (called whenever it sees something start, as a person
    at the table would be)."""

    name = TABLE_POLICY
    reactive = True
    external = True

    def decide(self, observation: Observation) -> None:
        raise RuntimeError(f"{observation.actor} is declared for at the table")


class DieWanted(Exception):
    """The rules draw a die the table has not typed in yet: which, why, for whom."""

    def __init__(self, sides: int, purpose: str, actor: str | None, index: int) -> None:
        super().__init__(f"d{sides} ({purpose})")
        self.sides = sides
        self.purpose = purpose
        self.actor = actor
        self.index = index

    def data(self) -> dict[str, Any]:
        return {
            "draw": self.index,
            "die": f"d{self.sides}",
            "sides": self.sides,
            "purpose": self.purpose,
            "actor": self.actor,
        }


class TableDice(Dice):
    """The faces the table typed in, in order; the next draw raises :class:`DieWanted`."""

    def __init__(self, values: Iterable[tuple[str, int]], seed: int) -> None:
        super().__init__(seed)
        self.entered = True
        self.values = list(values)
        self.used = 0

    def _face(self, sides: int, purpose: str, actor: str | None) -> int:
        if self.used >= len(self.values):
            raise DieWanted(sides, purpose, actor, self.used)
        die, value = self.values[self.used]
        if die != f"d{sides}" or not 1 <= value <= sides:
            raise DieWanted(sides, purpose, actor, self.used)
        self.used += 1
        return value


@attrs.frozen
class TableFighter:
    """A fighter of the set-up; ``policy`` None: declared for at the table."""

    id: str
    side: str
    sheet: Any
    name: str
    position: tuple[float, float]
    is_pc: bool
    setup: Mapping[str, Any]
    policy: str | None


@attrs.frozen
class TableSetup:
    """What every fight of the session is built from (a scenario, a script's set-up or a
    record's header)."""

    ruleset: Any
    fighters: tuple[TableFighter, ...]
    seed: int
    max_segments: int
    name: str
    source: str

    @classmethod
    def from_scenario(
        cls, scenario: Any, auto: Iterable[str] = (), seed: int | None = None
    ) -> TableSetup:
        """A scenario's fighters; those named in ``auto`` (an id or a side) keep the
        scenario's policy, the others are declared for at the table."""
        auto = set(auto)
        ids = {c.id for c in scenario.combatants} | {c.side for c in scenario.combatants}
        unknown = sorted(auto - ids)
        if unknown:
            raise SegsimError(
                f"{scenario.path}: --auto {unknown[0]}: no fighter or side of that name"
            )
        fighters = tuple(
            TableFighter(
                c.id,
                c.side,
                c.sheet,
                c.name,
                c.position,
                c.is_pc,
                c.setup,
                c.policy if (c.id in auto or c.side in auto) else None,
            )
            for c in scenario.combatants
        )
        return cls(
            scenario.ruleset,
            fighters,
            scenario.seed if seed is None else seed,
            scenario.max_segments,
            scenario.name,
            str(scenario.path),
        )

    @classmethod
    def from_script(cls, script: Any, seed: int | None = None) -> TableSetup:
        """A fight script's fighters and ruleset, all declared for at the table."""
        fighters = tuple(
            TableFighter(c.id, c.side, c.sheet, c.name, c.position, c.is_pc, c.setup, None)
            for c in script.combatants
        )
        return cls(
            script.ruleset,
            fighters,
            script.seed if seed is None else seed,
            script.max_segments,
            script.name,
            str(script.path),
        )

    @classmethod
    def from_plan(cls, plan: Any) -> TableSetup:
        """A record's header (a fight played at the table, to resume)."""
        if plan.host or any(f.changes for f in plan.fighters):
            raise SegsimError(
                f"{plan.record.source}: a record with fighters joining or leaving, an "
                "interruption or policy changes was not played at the table"
            )
        fighters = tuple(
            TableFighter(
                f.id,
                f.side,
                f.sheet,
                f.name,
                f.position,
                f.is_pc,
                f.setup,
                None if f.policy == TABLE_POLICY else f.policy,
            )
            for f in plan.fighters
        )
        return cls(
            plan.ruleset, fighters, plan.seed, plan.max_segments, plan.name, plan.record.source
        )

    def fight(self, dice: Dice) -> Fight:
        """A fresh fight of the set-up with these dice."""
        specs = [
            CombatantSpec(
                f.id,
                f.side,
                f.sheet,
                TablePolicy()
                if f.policy is None
                else make_policy(self.ruleset.name, f.policy, from_data=True),
                f.name,
                f.position,
                f.is_pc,
                f.setup,
            )
            for f in self.fighters
        ]
        return Fight(
            self.ruleset,
            specs,
            dice=dice,
            max_segments=self.max_segments,
            name=self.name,
            fight_id=Path(self.source).name,
        )


__all__ = ["TABLE_POLICY", "DieWanted", "TableDice", "TableFighter", "TablePolicy", "TableSetup"]
