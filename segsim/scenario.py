"""Scenarios: a TOML file describing a fight (ruleset, options, combatants) -> a Fight.

A scenario looks like this::

    [fight]
    name = "Sabre duel"
    ruleset = "rinkanou"
    seed = 7                 # default seed (the command line may override it)

    [[combatant]]
    id = "robert"
    side = "blue"
    fighter = "robert"       # an example fighter of models/<ruleset>/fighters.toml ...
    policy = "defender"
    position = [0.0, 0.0]

    [[combatant]]
    id = "margaret"
    side = "red"
    policy = "aggressive"
    position = [1.5, 0.0]
    [combatant.sheet]        # ... or a full sheet written inline
    ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.errors import InputError
from segsim.fight import Fight, combatant_spec
from segsim.input import Node, Source, seed_field
from segsim.policy import UnknownPolicy, data_policy, make_policy
from segsim.rules import frozen_sheet, ruleset_from_data


@attrs.frozen
class CombatantEntry:
    id: str
    side: str
    sheet: Any
    policy: str
    name: str
    position: tuple[float, float]
    is_pc: bool
    setup: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class Scenario:
    """A loaded, validated scenario; :meth:`fight` builds a fresh Fight from it."""

    path: str
    name: str
    ruleset: Any
    combatants: tuple[CombatantEntry, ...]
    seed: int = 0
    max_segments: int = 36_000

    def fight(
        self,
        seed: int | None = None,
        *,
        policies: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Fight:
        """A new fight of this scenario; ``policies`` replaces policies by combatant id."""
        given: Mapping[str, Any] = policies or {}
        if given:  # (a look for unknown ids only when some are given: most fights give none)
            unknown = sorted(set(given) - {c.id for c in self.combatants})
            if unknown:
                raise ValueError(f"no combatant {', '.join(unknown)} in {self.path}")
        name = self.ruleset.name
        specs = []
        for c in self.combatants:
            policy = given.get(c.id) or data_policy(name, c.policy)
            specs.append(  # CombatantSpec(...), without a call of the class
                combatant_spec(c.id, c.side, c.sheet, policy, c.name, c.position, c.is_pc, c.setup)
            )
        kwargs.setdefault("max_segments", self.max_segments)
        return Fight(
            self.ruleset,
            specs,
            seed=self.seed if seed is None else seed,
            name=self.name,
            **kwargs,
        )


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; errors name the file, line and field."""
    source = Source.read(path)
    return scenario_from_source(source)


def scenario_from_source(source: Source) -> Scenario:
    root = source.root()
    head = root.table("fight")
    ruleset = ruleset_from_data(root, head)
    name = head.value("name", str, "")
    seed = seed_field(head, 0)
    max_segments = head.value("max_segments", int, 36_000, min=1)
    head.finish()
    entries = []
    seen: set[str] = set()
    nodes = root.tables("combatant")
    if len(nodes) < 2:
        raise root.error("combatant", "a fight needs at least two [[combatant]] entries")
    for node in nodes:
        entries.append(_combatant(node, ruleset, seen))
    check_setups(ruleset, nodes, entries)
    if len({e.side for e in entries}) < 2:
        raise root.error("combatant", "all combatants are on one side: nobody to fight")
    root.finish()
    return Scenario(source.path, name, ruleset, tuple(entries), seed, max_segments)


def check_setups(ruleset: Any, nodes: Sequence[Node], entries: Sequence[Any]) -> None:
    """Check every fighter's setup against its sheet and the other fighters (a ruleset's
    ``setup_problem``), so that a bad setup is refused at load, not at the fight's start."""
    problem_of = getattr(ruleset, "setup_problem", None)
    if problem_of is None:
        return
    ids = [e.id for e in entries]
    for node, entry in zip(nodes, entries, strict=True):
        problem = problem_of(entry.setup, entry.sheet, ids)
        if problem is not None:
            key, message = problem
            raise node.table("setup", {}).error(key, message)


def _combatant(node: Node, ruleset: Any, seen: set[str]) -> CombatantEntry:
    return read_combatant(node, ruleset, seen)


def read_combatant(
    node: Node, ruleset: Any, seen: set[str], *, with_policy: bool = True
) -> CombatantEntry:
    """One ``[[combatant]]`` table (scenarios; fight scripts, whose fighters have no
    policy: ``with_policy=False`` leaves it empty)."""
    cid = node.value("id", str)
    if cid in seen:
        raise node.error("id", f"duplicate combatant id {cid!r}")
    seen.add(cid)
    side = node.value("side", str)
    policy = ""
    if with_policy:
        policy = node.value("policy", str)
        try:
            make_policy(ruleset.name, policy, from_data=True)
        except UnknownPolicy as exc:
            raise node.error("policy", str(exc)) from None
    if node.has("fighter") and node.has("sheet"):
        raise node.error("sheet", "give either fighter (an example fighter) or sheet, not both")
    if node.has("fighter"):
        fighter = node.value("fighter", str)
        known = getattr(getattr(ruleset, "content", None), "fighters", {})
        if fighter not in known:
            raise node.error(
                "fighter", f"unknown fighter {fighter!r} (known: {', '.join(sorted(known))})"
            )
        sheet = frozen_sheet(ruleset, known[fighter])
    elif node.has("sheet"):
        sheet = frozen_sheet(ruleset, node.table("sheet"))
    else:
        raise node.error("sheet", 'missing: give fighter = "..." or a [combatant.sheet] table')
    position = node.position("position", (0.0, 0.0))
    setup: Mapping[str, Any] = {}
    if node.has("setup"):
        setup_node = node.table("setup")
        load_setup = getattr(ruleset, "load_setup", None)
        if load_setup is None:
            setup_node.finish()
        else:
            setup = load_setup(setup_node)
    entry = CombatantEntry(
        id=cid,
        side=side,
        sheet=sheet,
        policy=policy,
        name=node.value("name", str, "") or getattr(sheet, "name", "") or cid,
        position=(position[0], position[1]),
        is_pc=node.value("is_pc", bool, False),
        setup=setup,
    )
    node.finish()
    return entry


__all__ = ["InputError", "Scenario", "load_scenario"]
