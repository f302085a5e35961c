"""Rupture, "Les actions non ciblées": "Si une action influe sur l'état d'un adversaire,
le gène ou lui inflige des malus, c'est une action ciblée." A hindrance (``hinder``) is a
targeted action like an attack ("Les actions ciblées": a test, its qualities + the
Threat of the means; "Se défendre": the target may defend), whose final value becomes
dice taken from the target's next action test instead of effort points.

The rogue (athletics 4d6; trip: Threat 1, sand in the eyes: Threat 2) hinders the guard
(melee 4d6, effort 5, physical threshold 4, a shield of Cover 2) at segment 0: the roll
is published at the end of segment 13 and the hindrance lands at the end of 14.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rupture_helpers import arena, of_type, one, sheet

from segsim import IllegalDeclaration
from segsim.policy import make_policy
from segsim.testing import Scripted, declare

TRIP = declare("hinder", "guard", weapon="trip")


def hindered(guard_script: dict[int, Any], dice: list[int], rogue: Any = TRIP) -> Any:
    fight = arena(
        {
            "rogue": ("a", "rogue", Scripted({0: rogue})),
            "guard": ("b", "guard", Scripted(guard_script)),
        },
        dice=dice,
    )
    fight.run()
    return fight


def test_an_undefended_hindrance_takes_its_value_in_dice_from_the_next_action_test() -> None:
    # Trip: [6 5 1 1] = 2 qualities + Threat 1 = 3, undefended: the guard's attack at 15
    # rolls 4 - 3 = 1 die. The hindrance costs no effort.
    fight = hindered({15: declare("attack", "rogue")}, [6, 5, 1, 1, 1])
    roll = next(a for a in of_type(fight, "rupture.attack") if a.actor == "rogue")
    assert (roll.kind, roll.domain, roll.qualities, roll.threat, roll.value) == (
        "hinder",
        "physical",
        2,
        1,
        3,
    )
    got = one(fight, "rupture.hindered")
    assert (got.t, got.actor, got.attack, got.defence, got.final, got.dice) == (
        14,
        "guard",
        3,
        0,
        3,
        3,
    )
    assert of_type(fight, "rupture.blow") == []
    guard = next(a for a in of_type(fight, "rupture.attack") if a.actor == "guard")
    assert (guard.t, guard.pool, guard.malus) == (28, 1, 3)
    status = fight.state.combatants["guard"].status
    assert (status.effort, status.stress, status.malus) == (5, 0, 0)


def test_a_defence_reduces_a_hindrance_as_it_reduces_an_attack() -> None:
    # Trip 3; the guard defends with melee [5 1 1 1]: 1 quality + the shield's Cover 2 =
    # 3: final 0, the hindrance is shrugged off and its next test keeps its 4 dice.
    fight = hindered(
        {14: declare("defend", "rogue"), 15: declare("attack", "rogue")},
        [6, 5, 1, 1, 5, 1, 1, 1, 1, 1, 1, 1],
    )
    got = one(fight, "rupture.hindered")
    assert (got.attack, got.defence, got.final, got.dice) == (3, 3, 0, 0)
    assert "shrugged off" in got.describe()
    guard = next(a for a in of_type(fight, "rupture.attack") if a.actor == "guard")
    assert (guard.pool, guard.malus) == (4, 0)


def test_a_hindrance_above_the_threshold_overflows_nothing() -> None:
    # Sand: [6 6 6 6] = 4 + Threat 2 = 6, above the guard's physical threshold 4: no
    # overflow, no effort, but its next test loses all its 4 dice: a sure failure.
    fight = hindered(
        {15: declare("attack", "rogue")},
        [6, 6, 6, 6],
        rogue=declare("hinder", "guard", weapon="sand"),
    )
    assert one(fight, "rupture.hindered").dice == 6
    assert of_type(fight, "rupture.overflow") == []
    guard = next(a for a in of_type(fight, "rupture.attack") if a.actor == "guard")
    assert (guard.pool, guard.success, guard.malus) == (0, False, 6)
    assert fight.state.combatants["guard"].in_fight


def test_the_malus_weighs_on_an_untargeted_action_test_too() -> None:
    # Trip 3 undefended; the guard runs at 15: athletics 3 - 3 = 0 dice, a sure failure.
    fight = hindered({15: declare("run", to=[-6.0, 0.0])}, [6, 5, 1, 1])
    test = one(fight, "rupture.test")
    assert (test.kind, test.pool, test.malus, test.success) == ("run", 0, 3, False)


def test_maluses_add_up_until_the_next_action_test() -> None:
    # Two hindrances before the guard acts: trip 3 ([6 5 1 1]) then taunt, mental:
    # eloquence 3 [6 1 1] = 1 + 1 = 2; 5 dice off the guard's next test.
    rogue = sheet("rogue", actions=3)
    fight = arena(
        {
            "rogue": (
                "a",
                rogue,
                Scripted({0: TRIP, 10: declare("hinder", "guard", weapon="taunt")}),
            ),
            "guard": ("b", sheet("guard", actions=1), Scripted({30: declare("attack", "rogue")})),
        },
        dice=[6, 5, 1, 1, 6, 1, 1],
        max_segments=61,
    )
    fight.run()
    got = [(h.domain, h.dice, h.malus) for h in of_type(fight, "rupture.hindered")]
    assert got == [("physical", 3, 3), ("mental", 2, 5)]
    guard = next(a for a in of_type(fight, "rupture.attack") if a.actor == "guard")
    assert (guard.pool, guard.malus) == (0, 5)


def test_a_hindrance_needs_a_hindering_manoeuvre() -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("hinder", "guard")})),
            "guard": ("b", "guard", Scripted()),
        }
    )
    with pytest.raises(IllegalDeclaration) as err:
        fight.run()
    assert err.value.rule == "Rupture, Les actions ciblées"
    assert "no hinder manoeuvre on the sheet" in err.value.message


def test_the_harrier_hinders_the_most_dangerous_opponent_first() -> None:
    # Bran (melee 5, sword Threat 2) is more dangerous than the lout (melee 3, club 2).
    fight = arena(
        {
            "rogue": ("a", "rogue", make_policy("rupture", "harrier")),
            "lout": ("b", "thug", Scripted()),
            "bran": ("b", "bran", Scripted()),
        },
        positions={"rogue": (0.0, 0.0), "lout": (1.5, 0.0), "bran": (0.0, 1.5)},
        dice=[1] * 4,
        max_segments=20,
    )
    fight.run()
    first = next(e for e in of_type(fight, "action.declared") if e.actor == "rogue")
    assert (first.kind, first.target) == ("hinder", "bran")


def test_a_learning_agent_may_hinder(tmp_path: Path) -> None:
    """The RL catalogue offers ``hinder`` against each slot; the mask allows it when the
    fighter has a hindrance in reach of that opponent."""
    from segsim.envs import parallel_env

    path = tmp_path / "hinder.toml"
    path.write_text(
        """\
[fight]
name = "a trip"
ruleset = "rupture"
max_segments = 60

[[combatant]]
id = "rogue"
side = "a"
fighter = "rogue"
policy = "harrier"
position = [0.0, 0.0]

[[combatant]]
id = "lout"
side = "b"
fighter = "thug"
policy = "aggressive"
position = [1.5, 0.0]
""",
        encoding="utf-8",
    )
    env = parallel_env(path)
    obs, _ = env.reset(seed=1)
    labels = env.catalogue
    assert obs["rogue"]["action_mask"][labels.index("hinder @slot0")] == 1
    assert obs["lout"]["action_mask"][labels.index("hinder @slot0")] == 0
