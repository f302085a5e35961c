"""Rules of Loss that segsim had simplified or left out: the game master's Fursa,
one initiative for a group, aiming a whole round, speaking, the two readings of "Se
préparer", mounts in a chase, and how a fight ends when nobody fights any more."""

from __future__ import annotations

from pathlib import Path

import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.rules.loss import Loss
from segsim.rules.loss.events import (
    ActionPointsSpent,
    AimedRound,
    BrokenOff,
    PoolsSpent,
    ReserveSet,
    RoundStarted,
    Spoke,
    Tested,
)
from tests.loss_helpers import Plays, arena, dodge, of_type, sheet


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


# ---------------------------------------------------------------- la réserve du MJ


def test_non_player_characters_spend_the_game_masters_fursa() -> None:
    """Loss, "L'Action de Combat", example: the malfrat "n'a pas de Fursa (la
    réserve du MJ est vide)". With one Fursa in the game master's reserve, the malfrat
    spends it on his dodge; then the reserve is empty for every non-player character."""
    malfrat = Plays(answers=[dodge(fursa=1)])
    diego = Plays(turns=[Declaration("attack", "m")])
    fight = arena(
        {
            "d": ("heroes", "diego", diego),
            "m": ("gang", "malfrat", malfrat),
            "n": ("gang", "malfrat", Plays()),
        },
        dice=[10, 1, 1, 10, 1, 3],
        options={"gm_fursa": 1},
        pcs=["d"],
        positions={"d": (0, 0), "m": (1, 0), "n": (20, 0)},
    )
    run_until(fight, 3)
    assert [e.fursa for e in of_type(fight, ReserveSet)] == [1]
    assert [(p.actor, p.fursa) for p in of_type(fight, PoolsSpent)] == [("m", 1)]
    assert of_type(fight, Tested)[1].bonuses == {"fursa": 5}
    from segsim.rules.loss.declare import Check

    with pytest.raises(IllegalDeclaration, match="n has 0 fursa left"):
        Check(fight.state, fight.state.combatants["n"], 3).pools({"fursa": 1})
    assert fight.state.combatants["d"].status.fursa == 2  # a player character's own


def test_a_non_player_characters_sheet_fursa_goes_to_the_reserve() -> None:
    fight = arena(
        {"d": ("heroes", "diego", Plays()), "m": ("gang", "malfrat", Plays())},
        dice=[1, 1],
        options={"gm_fursa": 3},
    )
    run_until(fight, 1)
    assert [e.fursa for e in of_type(fight, ReserveSet)] == [3 + 2]  # Diego is no PC here
    assert Loss(gm_fursa=3).options["gm_fursa"] == 3
    with pytest.raises(TypeError, match="gm_fursa"):
        Loss(gm_fursa=-1)


# ---------------------------------------------------------------- group initiative


def test_the_game_master_rolls_one_initiative_for_the_three_griffons() -> None:
    """Loss, "Générer les Points d'Actions", example: Canahan (7) makes 11, Diego (8)
    15, and "le MJ fait un Test d'Initiative général pour les trois griffons, et obtient
    un 13" (option group_initiative): three dice for five fighters."""
    fighters = {
        "canahan": ("heroes", "canahan", Plays()),
        "diego": ("heroes", "diego", Plays()),
        **{g: ("griffons", "griffon", Plays()) for g in ("g1", "g2", "g3")},
    }
    fight = arena(
        fighters,
        dice=[4, 7, 7],
        options={"group_initiative": True},
        pcs=["canahan", "diego"],
        positions={
            "canahan": (0, 0),
            "diego": (20, 0),
            "g1": (40, 0),
            "g2": (60, 0),
            "g3": (80, 0),
        },
    )
    run_until(fight, 1)
    (started,) = of_type(fight, RoundStarted)
    assert started.action_points == {"canahan": 11, "diego": 15, "g1": 13, "g2": 13, "g3": 13}
    assert len(fight.dice.draws) == 3


# ---------------------------------------------------------------- Viser durant un Tour


def test_aiming_a_whole_round_gives_10_to_the_next_shot() -> None:
    """Loss, "Modificateurs de combat à distance": "Viser durant un Tour de Combat:
    Bonus de +10" (+15 with Visée): the crossbowman gives round 1 to aiming (all his 12
    points) and shoots in round 2 with +10."""
    x = Plays(turns=[Declaration("aim", params={"round": True}), Declaration("attack", "m")])
    fight = arena(
        {"x": ("heroes", "archer", x), "m": ("gang", "malfrat", Plays(answers=[None]))},
        dice=[6, 1, 1, 1, 1, 1],
        positions={"x": (0, 0), "m": (8, 0)},
    )
    run_until(fight, 62)
    aiming = of_type(fight, ActionPointsSpent)[0]
    assert (aiming.what, aiming.cost, aiming.left) == ("aiming", 12, 0)
    assert [e.actor for e in of_type(fight, AimedRound)] == ["x"]
    shot = next(t for t in of_type(fight, Tested) if t.actor == "x")
    assert shot.bonuses == {"aimed a round": 10}


def test_aiming_a_round_takes_the_whole_round() -> None:
    x = Plays(turns=[Declaration("aim", params={"points": 1})])
    fight = arena(
        {"x": ("heroes", "archer", x), "m": ("gang", "malfrat", Plays())},
        dice=[6, 1],
        positions={"x": (0, 0), "m": (8, 0)},
    )
    run_until(fight, 6)
    with pytest.raises(IllegalDeclaration, match="aiming a round takes it all"):
        fight.ruleset.plan(fight.state, "x", Declaration("aim", params={"round": True}), 5, [])


# ---------------------------------------------------------------- Se préparer


def test_with_the_sentences_reading_each_phase_waited_saves_a_point() -> None:
    """Loss, "Se préparer au combat": the sentence ("chaque Phase d'Action ainsi
    décalée ... jusqu'à un minimum de 2") against the example (Eric saves 2). With
    prepare_saving = "sentence", Eric's 8 phases bring his claymore down to 2."""
    eric = Plays(turns=[Declaration("prepare", params={"until": 4}), Declaration("attack", "m")])
    fight = arena(
        {"eric": ("heroes", "eric", eric), "m": ("gang", "malfrat", Plays())},
        dice=[7, 1, 1],
        options={"prepare_saving": "sentence"},
    )
    run_until(fight, 45)
    attack = [e for e in of_type(fight, ActionPointsSpent) if e.actor == "eric"]
    assert [(e.cost, e.saved, e.left) for e in attack] == [(2, 4, 2)]
    with pytest.raises(TypeError, match="prepare_saving"):
        Loss(prepare_saving="both")


# ---------------------------------------------------------------- Parler


def test_speaking_costs_no_action_point() -> None:
    """Loss, "Dépenser les Points d'Action": "Parler ou crier ne consomme pas de
    Points d'Action": Diego shouts and attacks in the same phase, paying only the
    rapier's 3."""
    shout = Declaration("speak", "m", {"what": "Rends-toi !"})

    class Shouts(Plays):
        def decide(self, obs):  # type: ignore[override]
            out = super().decide(obs)
            if not obs.me.my_turn or out is None:
                return out
            return [shout, *(out if isinstance(out, list) else [out])]

    fight = arena(
        {
            "d": ("heroes", "diego", Shouts(turns=[Declaration("attack", "m")])),
            "m": ("gang", "malfrat", Plays(answers=[None])),
        },
        dice=[10, 1, 1],
    )
    run_until(fight, 2)
    assert [(e.actor, e.what, e.target) for e in of_type(fight, Spoke)] == [
        ("d", "Rends-toi !", "m")
    ]
    assert [(e.what, e.cost) for e in of_type(fight, ActionPointsSpent)] == [("attack", 3)]


# ---------------------------------------------------------------- the end of a fight


def test_a_round_in_which_nobody_acts_ends_the_fight() -> None:
    """Loss, "Le temps en combat": a round lasts while its fighters spend their
    points; a round in which nobody spends one is no fight: it breaks off."""
    fight = arena(
        {"a": ("x", "malfrat", Plays(turns=[Declaration("pass")])), "b": ("y", "malfrat", Plays())},
        dice=[4, 2],
    )
    outcome = fight.run()
    assert (outcome.result, outcome.winner) == ("broken off", None)
    assert [e.round for e in of_type(fight, BrokenOff)] == [1]
    assert len(of_type(fight, RoundStarted)) == 1


def test_a_fight_script_without_max_segments_ends_when_its_declarations_run_out(
    tmp_path: Path,
) -> None:
    """A fight entered at the table stops when its script stops: after round 1's blow the
    script holds no more declarations, so the round is played to its end and the fight
    ends there, saying why, instead of asking for more initiative dice (a round in which
    nobody acts ends a fight played by policies: the test above)."""
    from segsim.script import load_script

    script = tmp_path / "brawl.toml"
    script.write_text(
        """
[fight]
name = "A blow and a stand-off"
ruleset = "loss"

[[combatant]]
id = "diego"
side = "heroes"
fighter = "diego"
position = [0.0, 0.0]

[[combatant]]
id = "malfrat"
side = "gang"
fighter = "malfrat"
position = [1.0, 0.0]

[segment.0]
diego = { action = "attack", target = "malfrat" }

[dice]
rolls = [9, 1, 2]
""",
        encoding="utf-8",
    )
    fight = load_script(script).play()
    assert fight.outcome is not None
    assert fight.outcome.result == "interrupted"
    assert "no declaration after segment 0" in str(fight.outcome.cause)
    assert [r.round for r in of_type(fight, RoundStarted)] == [1]


# ---------------------------------------------------------------- mounts and vehicles


def ride(hunter: Plays, hunter_sheet, setup: dict, dice: list[int], until: int):
    fight = arena(
        {"diego": ("runaway", "diego", Plays()), "vigile": ("watch", hunter_sheet, hunter)},
        dice=dice,
        options={"pursuit": "runaway", "start_distance": 3},
        positions={"diego": (0.0, 0.0), "vigile": (-30.0, 0.0)},
        setup=setup,
    )
    run_until(fight, until)
    return fight


def test_a_mounts_speed_bonus_adds_to_pursuit_tests() -> None:
    """Loss, "La différence de Vitesse": the speed in a chase is "Trait + Talent
    employé dans la poursuite + bonus vitesse du véhicule": the vigile's horse gives +3
    to his test to close in."""
    hunter = Plays(turns=[Declaration("change_distance", "diego", {"direction": "closer"})])
    fight = ride(hunter, "vigile", {"vigile": {"mounted": True, "speed_bonus": 3}}, [1, 9, 5], 2)
    (test,) = of_type(fight, Tested)
    assert test.bonuses == {"mount": 3}
    assert test.total == 5 + 11 + 3


def test_tir_monte_counts_on_a_mount_and_heavy_weapons_do_not() -> None:
    """Loss, "Tir monté": +2 to shots "quand l'attaquant et/ou la cible est ...
    chevauchant une monture ou à bord d'un véhicule"; "Les Armes lourdes ne peuvent pas
    être utilisée sur une monture"."""
    archer = sheet("archer", specialisations=("tir_monte",))
    shot = Plays(turns=[Declaration("attack", "diego")])
    on_foot = ride(shot, archer, {}, [1, 10, 1], 2)
    assert of_type(on_foot, Tested)[0].bonuses == {}
    shot = Plays(turns=[Declaration("attack", "diego")])
    riding = ride(shot, archer, {"vigile": {"mounted": True}}, [1, 10, 1], 2)
    assert of_type(riding, Tested)[0].bonuses == {"tir monte": 2}
    import attrs

    bombard = attrs.evolve(archer.weapon, id="bombard", tags=("heavy",))
    gunner = sheet("archer", weapon=bombard)
    fight = ride(Plays(), gunner, {"vigile": {"mounted": True}}, [1, 10], 1)
    with pytest.raises(IllegalDeclaration, match="heavy weapon: not from a mount"):
        fight.ruleset.plan(fight.state, "vigile", Declaration("attack", "diego"), 0, [])
