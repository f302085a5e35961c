"""A declaration's parameters and target are checked for every kind in every ruleset
(issue 39, item 10): what a kind does not take is refused, naming the parameter and
listing those it takes, and never recorded. The legal declarations each ruleset offers
in its example fights are taken one by one, and a bogus parameter or target added."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.fight import Fight
from segsim.scenario import Scenario
from segsim.testing import drive, externalize

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(p.name for p in (ROOT / "examples" / "scenarios").glob("*.toml"))

TARGETED = {
    # kinds that take a target although their legal forms name none: that target must
    # be a fighter of the fight (an ally to heal, an attacker to parry...).
    "chroniques": {"capability", "move"},
    "loss": {"change_distance", "intend", "social", "move"},
    "rinkanou": {"dodge", "parry", "move"},  # a move's target is the one it goes toward
    "loreval": {"counter"},
    "rupture": set(),
}


@cache
def scenario(name: str) -> Scenario:
    return load_scenario(ROOT / "examples" / "scenarios" / name)


def offered(name: str, seed: int, phases: int) -> Iterator[tuple[Fight, str, Declaration]]:
    """(fight paused at a phase, fighter, legal declaration) over the first phases; each
    is checked before the fight moves on."""
    fight = scenario(name).fight(seed)
    externalize(fight)
    for _ in range(phases):
        pending = fight.advance()
        if not pending:
            break
        for cid, observation in pending.items():
            for d in observation.legal():
                if isinstance(d, Declaration):
                    yield fight, cid, d
        drive(fight, 1)


@pytest.mark.parametrize("name", SCENARIOS)
def test_an_unknown_parameter_is_refused_naming_it_and_the_accepted_ones(name: str) -> None:
    checked = 0
    for fight, cid, d in offered(name, 1, 25):
        bogus = Declaration(d.kind, d.target, {**d.params, "bogus": 1})
        with pytest.raises(IllegalDeclaration) as caught:
            fight.check(cid, [bogus])
        assert f"{d.kind} takes no parameter bogus (it takes: " in caught.value.message
        for key in d.params:
            assert key in caught.value.message.split("it takes: ")[1]
        checked += 1
    assert checked


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_target_is_refused_where_the_kind_takes_none(name: str) -> None:
    ruleset = scenario(name).ruleset.name
    checked = 0
    for fight, cid, d in offered(name, 2, 25):
        if d.target is not None:
            continue
        with pytest.raises(IllegalDeclaration):
            fight.check(cid, [Declaration(d.kind, "nobody", dict(d.params))])
        if d.kind in TARGETED[ruleset]:
            continue
        other = next(o for o in fight.state.combatants if o != cid)
        with pytest.raises(IllegalDeclaration):
            fight.check(cid, [Declaration(d.kind, other, dict(d.params))])
        checked += 1
    assert checked


def test_chroniques_wait_with_a_target_is_refused() -> None:
    """The case found: Chroniques accepted wait with target 'nobody' and recorded it."""
    fight = scenario("chroniques_ambush.toml").fight(1)
    externalize(fight)
    pending = fight.advance()
    cid = next(iter(pending))
    for target in ("nobody", next(o for o in fight.state.combatants if o != cid)):
        with pytest.raises(IllegalDeclaration, match="wait takes no target"):
            fight.submit({cid: Declaration("wait", target, {"until": fight.segment + 5})})
    assert not [e for e in fight.history if getattr(e, "target", None) == "nobody"]
