"""What the Loss rules keep between checks gives the verdicts the checks give: declared
effects found well formed once are found so again for the same test and range only, and
what is refused stays refused (Loss, "Les effets spéciaux"); a fighter's two last
verdicts of a phase serve the engine's plan of their declarations, once."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import pytest

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules.loss.declare import Check
from segsim.rules.loss.ruleset import Loss
from segsim.scenario import load_scenario

DUEL = Path(__file__).resolve().parent.parent / "examples" / "scenarios" / "loss_duel.toml"


def _check() -> Check:
    fight = load_scenario(DUEL).fight(0)
    return Check(fight.state, fight.state.combatants["diego"], 0)


def test_effects_found_once_are_found_again_only_for_the_same_test_and_range() -> None:
    ch = _check()
    counter = MappingProxyType({"effects": ["counter"]})
    for _ in range(2):  # found, then found again from what was kept
        assert ch.effects(counter, "dodge", True) == (("counter",), 1)
    # against a shot, a counter follows a dodge only, never a parry, however often asked
    for _ in range(2):
        with pytest.raises(IllegalDeclaration, match="follows a dodge only"):
            ch.effects(counter, "parry", True)
    assert ch.effects(counter, "parry", False) == (("counter",), 1)


def test_declared_exploits_are_part_of_what_is_kept() -> None:
    ch = _check()
    extra = ["extra_damage", "extra_damage"]
    assert ch.effects({"effects": extra}, "attack", False) == (tuple(extra), 2)
    assert ch.effects({"effects": extra, "exploits": 3}, "attack", False) == (tuple(extra), 3)
    with pytest.raises(IllegalDeclaration, match="need 2 Exploit"):
        ch.effects({"effects": extra, "exploits": 1}, "attack", False)
    with pytest.raises(IllegalDeclaration, match="exploits must be a whole number"):
        ch.effects({"effects": extra, "exploits": True}, "attack", False)
    with pytest.raises(IllegalDeclaration, match="list of effect names"):
        ch.effects({"effects": [["extra_damage"]]}, "attack", False)


class Asked(Loss):
    """Loss that, at the first turn it sees, asks about two attacks as a view does and
    then plans them as the engine does."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.seen: list[bool] = []

    def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Any:
        obs = super().observe(state, cid, segment, must_act)
        if obs.me.my_turn and not self.seen:
            foe = next(o.id for o in state.combatants.values() if o.id != cid)
            plain = Declaration("attack", foe)
            extra = Declaration("attack", foe, {"effects": ["extra_damage"]})
            first = self.plan_alone(state, cid, plain, segment)
            second = self.plan_alone(state, cid, extra, segment)
            # the engine's plan of either verdict's declaration, alone, is that verdict
            self.seen.append(self.plan(state, cid, plain, segment, []) is first)
            # and a plan clears both: the other is checked again, to the same verdict
            again = self.plan(state, cid, extra, segment, [])
            self.seen.append(again is not second and again.params == second.params)
            # never for another fighter, nor with other actions planned beside it: the
            # rules check those, and refuse them (not the foe's phase; one act at a time)
            for who, beside in ((foe, []), (cid, [first])):
                self.plan_alone(state, cid, plain, segment)
                try:
                    self.plan(state, who, plain, segment, beside)
                except IllegalDeclaration:
                    self.seen.append(True)
        return obs


def test_the_rules_keep_two_verdicts_of_a_fighters_phase_for_the_engine_plan() -> None:
    scenario = load_scenario(DUEL)
    rules = Asked(**scenario.ruleset.options)
    attrs.evolve(scenario, ruleset=rules).fight(0).run()
    assert rules.seen == [True, True, True, True]
