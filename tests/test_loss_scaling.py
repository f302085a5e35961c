"""A Loss fight's cost with many fighters (issue 39, item 8).

A fighter's list of legal declarations at its phase names every opponent (attack,
grab, move); it is built without asking the rules what they must refuse, and the nearest
assailants of a fighter are asked once between two moves. These tests check that the
list is still exactly what :meth:`Loss.plan` accepts, and that a crowd of 1,000 fighters
plays its 30 segments.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from segsim import Fight
from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.fight import CombatantSpec
from segsim.policies import RandomLegal
from segsim.policy import Observation, PolicyOutput, make_policy
from segsim.rules.loss import Loss
from segsim.rules.loss.declare import TURN
from segsim.state import FightState


def crowd(
    count: int,
    *,
    spread: float,
    seed: int,
    segments: int = 30,
    rules: Loss | None = None,
    policy: Callable[[Loss], Any] | None = None,
) -> Fight:
    """``count`` fighters of every example sheet, two sides, playing at random (or
    ``policy(rules)``): on one spot (``spread`` 0) or ``spread`` metres apart in a grid
    of ten columns."""
    rules = rules or Loss()
    names = sorted(rules.content.fighters)
    specs = [
        CombatantSpec(
            f"c{i}",
            "east" if i % 2 else "west",
            rules.load_sheet(rules.content.fighters[names[i % len(names)]]),
            make_policy("loss", "random") if policy is None else policy(rules),
            position=(spread * (i % 10), spread * (i // 10)),
        )
        for i in range(count)
    ]
    return Fight(rules, specs, seed=seed, max_segments=segments)


def every_candidate(rules: Loss, state: FightState, cid: str, segment: int) -> list[Declaration]:
    """The attacks, grabs and moves ``_legal`` lists, found by asking :meth:`Loss.plan`
    of each of them against every opponent (how the list was made before)."""
    c = state.combatants[cid]
    out = []
    if any(a.kind == TURN and a.start == segment for a in c.actions):
        for o in state.opponents(cid):
            for d in (
                Declaration("attack", o.id),
                Declaration("attack", o.id, {"effects": ["extra_damage"]}),
                Declaration("grab", o.id),
                Declaration("move", o.id),
            ):
                try:
                    rules.plan(state, cid, d, segment, [])
                except IllegalDeclaration:
                    continue
                out.append(d)
    return out


class Checking(RandomLegal):
    """Plays at random, checking first that the legal list names the attacks, grabs and
    moves :meth:`Loss.plan` accepts."""

    checked: ClassVar[list[int]] = []

    def __init__(self, rules: Loss) -> None:
        super().__init__()
        self.rules = rules
        self.fight: Fight | None = None  # set once the fight is built

    def decide(self, observation: Observation) -> PolicyOutput:
        assert self.fight is not None
        state = self.fight.state
        legal = [
            d
            for d in observation.legal()
            if isinstance(d, Declaration)
            and d.kind in ("attack", "grab", "move")
            and d.target
            and not d.params.get("counter")
        ]
        expected = every_candidate(self.rules, state, observation.actor, observation.segment)
        assert legal == expected, observation.actor
        self.checked.append(len(legal))
        return super().decide(observation)


@pytest.mark.parametrize(
    ("spread", "seed", "options"),
    [
        (0.0, 1, {}),
        (1.5, 2, {}),
        (2.5, 3, {}),
        (1.5, 4, {"declaration_order": "initiative"}),
    ],
)
def test_the_legal_attacks_grabs_and_moves_are_those_plan_accepts(
    spread: float, seed: int, options: dict[str, Any]
) -> None:
    """At every decision of a 40-fighter crowd (on one spot, in contact, a little apart;
    intentions declared or not), the legal attacks, grabs and moves are exactly, in
    order, the candidates :meth:`Loss.plan` accepts when asked of each one."""
    rules = Loss(**options)
    fight = crowd(40, spread=spread, seed=seed, segments=150, rules=rules, policy=Checking)
    for spec in fight.specs:
        spec.policy.fight = fight
    Checking.checked.clear()
    fight.run()
    assert len(Checking.checked) > 40
    assert sum(Checking.checked) > 0


def test_a_thousand_fighter_loss_fight_plays_thirty_segments() -> None:
    """1,000 fighters on one spot, playing at random for 30 segments (the random policy
    lists every legal declaration at each decision): the fight comes to its limit. It
    runs in a child process so that a fight that never ends fails the test rather than
    the run."""
    code = textwrap.dedent(
        """
        from tests.test_loss_scaling import crowd
        fight = crowd(1000, spread=0.0, seed=5)
        outcome = fight.run()
        print(fight.state.segment, len(fight.history), outcome.result, sep="|")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    segment, events, result = done.stdout.strip().split("|")
    assert int(segment) >= 30 and int(events) > 1000, done.stdout
    assert result == "time limit", done.stdout
