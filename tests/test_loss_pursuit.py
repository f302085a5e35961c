"""Pursuit and fights in motion (Loss, "Poursuite & combat en mouvement")."""

from __future__ import annotations

from typing import Any

import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.events import Moved
from segsim.rules.loss.events import ActionPointsSpent, EffectApplied, RoundStarted, Tested
from segsim.rules.loss.pursuit import (
    DistanceChanged,
    Escaped,
    PursuitEnded,
    PursuitStalled,
    Zigzagged,
    chase_of,
)
from tests.loss_helpers import Plays, arena, dodge, of_type, sheet


def chase(
    runner: Plays,
    hunter: Plays,
    dice: list[int],
    *,
    distance: int = 2,
    until: int = 12,
    hunter_sheet: Any = "vigile",
    **kwargs: Any,
):
    fight = arena(
        {"diego": ("runaway", "diego", runner), "vigile": ("watch", hunter_sheet, hunter)},
        dice=dice,
        options={"pursuit": "runaway", "start_distance": distance, **kwargs.pop("options", {})},
        positions={"diego": (0.0, 0.0), "vigile": (-30.0, 0.0)},
        **kwargs,
    )
    fight.start()
    fight.env.run(until=until)
    return fight


def test_the_vigile_closes_in_while_diegos_zigzags_fail() -> None:
    """Loss, the example: at distance 2 the vigile spends 2 PA to change the distance
    and succeeds; Diego's zigzags fail; at distance 1 the vigile can strike him."""
    runner = Plays(turns=[Declaration("zigzag")])
    hunter = Plays(
        turns=[
            Declaration("change_distance", "diego", {"direction": "closer"}),
            Declaration("attack", "diego"),
        ],
    )
    # initiative: both 14; Diego's zigzag test 1 (12 < 15), the vigile's test 9 (20 >= 15)
    fight = chase(runner, hunter, [6, 8, 1, 9, 1], until=12)
    tests = [(t.actor, t.test, t.difficulty, t.success) for t in of_type(fight, Tested)]
    assert tests[:2] == [
        ("diego", "zigzag", 15, False),
        ("vigile", "changing the distance", 15, True),
    ]
    assert [(e.pursuer, e.pursued, e.units) for e in of_type(fight, DistanceChanged)] == [
        ("vigile", "diego", 1)
    ]
    spent = [(e.actor, e.cost) for e in of_type(fight, ActionPointsSpent)]
    assert spent[:2] == [("diego", 2), ("vigile", 2)]
    # At distance 1 the plane no longer matters: the vigile strikes from 30 m on the map.
    assert ("vigile", "attack", 15, False) in [
        (t.actor, t.test, t.difficulty, t.success) for t in of_type(fight, Tested)
    ]


def test_a_melee_attack_in_a_chase_needs_distance_1() -> None:
    fight = chase(Plays(), Plays(), [6, 8], until=1)
    with pytest.raises(IllegalDeclaration, match="distance 2: a melee attack needs contact"):
        fight.ruleset.plan(fight.state, "vigile", Declaration("attack", "diego"), 0, [])


def test_shots_in_a_chase_take_the_distance_difficulty_plus_10() -> None:
    hunter = Plays(turns=[Declaration("attack", "diego")])
    fight = chase(Plays(), hunter, [1, 10, 1], distance=3, hunter_sheet="archer", until=2)
    shot = of_type(fight, Tested)[0]
    assert (shot.difficulty, shot.modifiers) == (30, {"shot in motion": 10})


def test_zigzags_make_the_pursuers_actions_harder() -> None:
    runner = Plays(turns=[Declaration("zigzag", params={"exploits": 1})])
    hunter = Plays(turns=[Declaration("change_distance", "diego", {"direction": "closer"})])
    # Diego 17 acts first: 11 + 10 = 21 >= 20, +5 to the vigile's pursuit actions.
    fight = chase(runner, hunter, [9, 1, 10, 10], until=52)
    assert [(z.actor, z.bonus) for z in of_type(fight, Zigzagged)] == [("diego", 5)]
    change = next(t for t in of_type(fight, Tested) if t.actor == "vigile")
    assert (change.difficulty, change.modifiers) == (20, {"zigzag": 5})


def test_two_exploits_change_the_distance_by_two_and_beyond_6_the_runner_escapes() -> None:
    runner = Plays(
        turns=[
            Declaration(
                "change_distance",
                params={"direction": "away", "exploits": 2, "fursa": 2, "inspiration": 2},
            )
        ]
    )
    fight = chase(runner, Plays(), [9, 1, 10], distance=5, until=3)
    assert [(e.units) for e in of_type(fight, DistanceChanged)] == [7]
    assert [e.actor for e in of_type(fight, Escaped)] == ["diego"]
    assert fight.outcome is not None
    assert (fight.outcome.result, fight.outcome.winner) == ("escaped", "runaway")


def test_a_charge_at_distance_2_knocks_the_target_down_unless_it_dodges() -> None:
    hunter = Plays(turns=[Declaration("charge", "diego")])
    fight = chase(Plays(answers=[dodge()]), hunter, [1, 10, 10, 1], until=3)
    charge, dodged = of_type(fight, Tested)
    assert (charge.test, charge.difficulty, charge.success) == ("charge", 20, True)
    assert (dodged.test, dodged.difficulty, dodged.success) == ("dodge", 20, False)
    assert [(e.effect, e.target) for e in of_type(fight, EffectApplied)] == [
        ("knock_down", "diego")
    ]
    assert fight.state.combatants["diego"].status.prone
    assert of_type(fight, ActionPointsSpent)[0].cost == 3


def test_a_clothesline_fells_the_pursuer_who_loses_a_unit() -> None:
    runner = Plays(turns=[Declaration("clothesline", "vigile")])
    fight = chase(runner, Plays(answers=[None]), [9, 1, 10], until=3)
    assert fight.state.combatants["vigile"].status.prone
    assert [e.units for e in of_type(fight, DistanceChanged)] == [3]


def test_a_tackle_at_contact_ends_the_chase() -> None:
    hunter = Plays(turns=[Declaration("tackle", "diego")])
    fight = chase(Plays(answers=[None]), hunter, [1, 10, 10], distance=1, until=3)
    assert [e.target for e in of_type(fight, PursuitEnded)] == ["diego"]
    assert chase_of(fight.state) is None
    (moved,) = of_type(fight, Moved)
    assert (moved.actor, moved.x, moved.y) == ("vigile", 1.0, 0.0)


def test_shooting_the_legs_first_keeps_the_distance_then_shoots_at_20() -> None:
    hunter = Plays(turns=[Declaration("shoot_legs", "diego")])
    archer = sheet("archer", talents={"athletisme": 6, "armes_a_distance": 6, "esquive": 4})
    fight = chase(
        Plays(answers=[None]), hunter, [1, 10, 10, 10], distance=3, hunter_sheet=archer, until=3
    )
    keep, shot = of_type(fight, Tested)
    assert (keep.test, keep.difficulty, keep.success) == ("keeping the distance", 15, True)
    assert (shot.test, shot.difficulty, shot.success) == ("shoot legs", 20, True)
    assert fight.state.combatants["diego"].status.prone
    assert [e.units for e in of_type(fight, DistanceChanged)] == [2]
    assert of_type(fight, ActionPointsSpent)[0].cost == 4  # the crossbow, reloaded fast


def test_pursuit_actions_need_a_chase_and_the_right_role_and_distance() -> None:
    fight = chase(Plays(), Plays(), [6, 8], until=1)
    rules = fight.ruleset
    state = fight.state

    def refused(who: str, d: Declaration) -> str:
        with pytest.raises(IllegalDeclaration) as info:
            rules.plan(state, who, d, 0, [])
        return str(info.value)

    assert "for the pursued" in refused("vigile", Declaration("zigzag"))
    assert "is for a pursuer" in refused("diego", Declaration("tackle", "vigile"))
    assert "at distance 1, not 2" in refused("vigile", Declaration("tackle", "diego"))
    plain = arena({"a": ("x", "diego", Plays()), "b": ("y", "vigile", Plays())}, dice=[9, 1])
    plain.start()
    plain.env.run(until=1)
    with pytest.raises(IllegalDeclaration, match="no chase is running"):
        plain.ruleset.plan(plain.state, "a", Declaration("zigzag"), 0, [])


def test_options_of_a_chase_are_checked() -> None:
    from segsim.rules.loss import Loss

    with pytest.raises(TypeError, match="start_distance"):
        Loss(pursuit="x", start_distance=7)
    with pytest.raises(TypeError, match="pursuit"):
        Loss(pursuit="")


def stalled(hunter_turns: list[Declaration], dice: list[int], **options: Any):
    runner = Plays(turns=[Declaration("pass")] * 100)
    hunter = Plays(turns=hunter_turns)
    fight = arena(
        {"diego": ("runaway", "diego", runner), "vigile": ("watch", "vigile", hunter)},
        dice=dice,
        options={"pursuit": "runaway", "start_distance": 2, **options},
        positions={"diego": (0.0, 0.0), "vigile": (-30.0, 0.0)},
    )
    return fight, fight.run()


def test_a_stalled_chase_ends_after_n_rounds_without_a_change_of_distance() -> None:
    """Option stalled_chase (Interpretations, "Pursuit"): nobody changes the distance for
    2 rounds, so the game master ends the chase at the end of round 2; the pursued
    gets away."""
    fight, outcome = stalled([Declaration("pass")] * 5, [6, 8, 6, 8], stalled_chase=2)
    assert (outcome.result, outcome.winner) == ("escaped", "runaway")
    assert len(of_type(fight, RoundStarted)) == 2
    (end,) = of_type(fight, PursuitStalled)
    assert (end.rounds, end.escaped) == (2, ("diego",))


def test_a_change_of_distance_restarts_the_count_of_a_stalled_chase() -> None:
    """The vigile closes in during round 1: the chase stalls only after rounds 2 and 3."""
    hunter = [
        Declaration("change_distance", "diego", {"direction": "closer"}),
        *[Declaration("pass")] * 4,
    ]
    fight, outcome = stalled(hunter, [6, 8, 9, 6, 8, 6, 8], stalled_chase=2)
    assert [e.units for e in of_type(fight, DistanceChanged)] == [1]
    assert len(of_type(fight, RoundStarted)) == 3
    assert outcome.result == "escaped"
    assert of_type(fight, PursuitStalled)[0].rounds == 2


def test_without_the_option_a_chase_never_stalls() -> None:
    """By default the chase runs until the time limit (records stay as they were)."""
    fight, outcome = stalled([Declaration("pass")] * 100, [6, 8] * 81)
    assert not of_type(fight, PursuitStalled)
    assert len(of_type(fight, RoundStarted)) > 2
    assert outcome.result != "escaped"


@pytest.mark.parametrize("bad", [0, 101, True, "3", 2.5])
def test_stalled_chase_must_be_a_number_of_rounds(bad: Any) -> None:
    from segsim.rules.loss import Loss

    with pytest.raises(TypeError, match="stalled_chase"):
        Loss(stalled_chase=bad)
