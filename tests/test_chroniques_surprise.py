"""Chroniques surprise (Chroniques, "Surprise"): a SAG test against 10 + the ambushers'
DEX modifier and stealth bonus; who fails is surprised during the first round."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from segsim import Fight, LoadedDice
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.events import AbilityTested, AttackRolled, Surprised, TurnLost
from segsim.rules.chroniques.surprise import AmbushError
from segsim.testing import declare


class Attacker:
    """Attacks ``target`` on every turn when given one, otherwise passes."""

    reactive = False
    name = "attacker"

    def __init__(self, target: str | None = None) -> None:
        self.target = target
        self.turns: list[int] = []

    def decide(self, obs: Observation) -> Any:
        if not obs.me.my_turn:
            return None
        self.turns.append(obs.me.round)
        return declare("attack", self.target) if self.target else declare("pass")


def ambush(
    fighters: Mapping[str, tuple[str, str, Any]],
    dice: Iterable[int] = (),
    pcs: Iterable[str] = (),
    **options: Any,
) -> Fight:
    rules = Chroniques(**options)
    specs = [
        CombatantSpec(
            cid,
            side,
            rules.load_sheet(rules.content.fighters[who]),
            policy,
            position=(1.5 * i, 0.0),
            is_pc=cid in set(pcs),
        )
        for i, (cid, (side, who, policy)) in enumerate(fighters.items())
    ]
    return Fight(rules, specs, dice=LoadedDice(dice), max_segments=199)


BANDITS = {
    "chief": ("bandits", "bandit_chief", Attacker()),  # DEX +1, stealth 0: 1
    "cutthroat": ("bandits", "bandit", Attacker()),  # DEX +1, stealth 2: 3
    "archer": ("bandits", "bandit_archer", Attacker()),  # DEX +2, stealth 2: 4
    "aldric": ("party", "aldric", Attacker()),
}


@pytest.mark.parametrize(
    ("options", "difficulty"),
    [
        ({}, 11),  # the lowest: the chief gives the group away
        ({"ambush_difficulty": "highest"}, 14),
        ({"ambush_difficulty": "average"}, 12),  # (1 + 3 + 4) // 3
        ({"surprise_modifier": 2}, 13),  # the game master: closer, thinner cover
        ({"surprise_modifier": -3}, 8),
    ],
)
def test_the_difficulty_is_10_plus_the_ambushers_dex_modifier_and_stealth(
    options: dict[str, Any], difficulty: int
) -> None:
    fight = ambush(BANDITS, dice=[20], ambush="bandits", **options)
    value, parts = fight.ruleset.surprise_difficulty(fight.state)
    assert value == difficulty
    assert parts["base"] == 10
    fight.start()
    [test] = [e for e in fight.history if isinstance(e, AbilityTested)]
    assert (test.actor, test.test, test.ability, test.difficulty) == (
        "aldric",
        "surprise",
        "wisdom",
        difficulty,
    )


def test_who_fails_the_sag_test_is_surprised_and_loses_the_first_round() -> None:
    """Aldric (SAG +0) rolls 12 against 13 and is surprised; Nissa (SAG +1) rolls 12:
    13 succeeds. In round 1 the bandit hits Aldric's DEF 18 - 5 = 13 with 11 + 2; in
    round 2 Aldric acts and his DEF is 18 again."""
    aldric, nissa, bandit = Attacker(), Attacker(), Attacker("aldric")
    fight = ambush(
        {
            "aldric": ("party", "aldric", aldric),
            "bandit": ("bandits", "bandit", bandit),  # in contact with Aldric
            "nissa": ("party", "nissa", nissa),
        },
        dice=[12, 12, 11, 2, 14],
        pcs={"aldric", "nissa"},
        ambush="bandits",
    )
    fight.run()
    tests = [
        (e.actor, e.roll, e.total, e.success) for e in fight.history if isinstance(e, AbilityTested)
    ]
    assert tests == [("aldric", 12, 12, False), ("nissa", 12, 13, True)]
    assert [e.actor for e in fight.history if isinstance(e, Surprised)] == ["aldric"]
    [lost] = [e for e in fight.history if isinstance(e, TurnLost)]
    assert (lost.actor, lost.round, lost.reason) == ("aldric", 1, "surprised")
    assert aldric.turns == [2] and nissa.turns == [1, 2] and bandit.turns == [1, 2]
    first, second = [e for e in fight.history if isinstance(e, AttackRolled)]
    assert (first.t, first.difficulty, first.success) == (19, 13, True)
    assert (second.t, second.difficulty, second.success) == (119, 18, False)
    assert not fight.state.combatants["aldric"].status.surprised


def test_the_surprised_defence_malus_is_an_option() -> None:
    fight = ambush(
        {
            "aldric": ("party", "aldric", Attacker()),
            "bandit": ("bandits", "bandit", Attacker("aldric")),
        },
        dice=[1, 11, 2],
        ambush="bandits",
        surprised_defence_malus=0,
    )
    fight.run()
    first = next(e for e in fight.history if isinstance(e, AttackRolled))
    assert (first.difficulty, first.success) == (18, False)


def test_without_an_ambush_nobody_tests_and_everyone_acts_in_round_1() -> None:
    aldric = Attacker()
    fight = ambush(
        {"aldric": ("party", "aldric", aldric), "bandit": ("bandits", "bandit", Attacker())}
    )
    fight.run()
    assert not [e for e in fight.history if e.TYPE in ("die.rolled", "chroniques.test")]
    assert aldric.turns == [1, 2]


def test_an_ambush_by_a_side_that_is_not_there_is_an_error() -> None:
    fight = ambush(BANDITS, ambush="wolves")
    with pytest.raises(AmbushError, match="no combatant of side 'wolves'"):
        fight.run()
    assert fight.history == []
