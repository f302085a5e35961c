"""What the Loss rules keep between checks gives the verdicts the checks give: declared
effects found well formed once are found so again for the same test and range only, and
what is refused stays refused (Loss, "Les effets spéciaux")."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from segsim.errors import IllegalDeclaration
from segsim.rules.loss.declare import Check
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
