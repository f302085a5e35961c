"""Loss read sentence by sentence: rules where segsim departed from the text, each
checked with the text's own wording (docs/rules/loss.md, "Traceability")."""

from __future__ import annotations

from typing import Any

import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.rules.loss.content import default_content
from segsim.rules.loss.events import ActionPointsSpent, AttackSettled, Damaged, Tested
from tests.loss_helpers import Plays, arena, dodge, of_type, parry, sheet

RICH = {"fursa": 2, "inspiration": 2}  # +20 to the test


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


def refused(fight, who: str, d: Declaration, segment: int) -> str:
    with pytest.raises(IllegalDeclaration) as info:
        fight.ruleset.plan(fight.state, who, d, segment, [])
    return str(info.value)


def duel(a: Plays, m: Plays, dice: list[int], **kwargs: Any):
    return arena({"a": ("heroes", "diego", a), "m": ("gang", "malfrat", m)}, dice=dice, **kwargs)


# ---------------------------------------------------------------- combat modifiers


def test_higher_ground_gives_5_to_a_dodge_too() -> None:
    """Loss, "Modificateurs de combat au contact": "Combattre plus haut que son
    adversaire ... Bonus +5", a bonus that "s'additionne au Test d'Action en combat du
    personnage": a dodge is one. The malfrat on the stairs dodges Diego: 12 + 1 + 5 = 18
    against 15."""
    fight = duel(
        Plays(turns=[Declaration("attack", "m")]),
        Plays(answers=[dodge()]),
        dice=[10, 1, 10, 1],
        setup={"m": {"higher_ground": True}},
    )
    run_until(fight, 3)
    attack, defence = of_type(fight, Tested)
    assert attack.bonuses == {}
    assert (defence.test, defence.bonuses, defence.total) == ("dodge", {"higher ground": 5}, 18)
    assert defence.success
    assert [s.result for s in of_type(fight, AttackSettled)] == ["stopped"]


# ---------------------------------------------------------------- Contre-attaquer


def test_a_fighter_counters_each_of_two_adversaries_in_the_same_phase() -> None:
    """Loss, "Contre-attaquer": "On ne peut contre-attaquer qu'une seule fois par
    adversaire et par Tour de Combat (donc face à trois sbires, on peut contre-attaquer
    trois fois...)". Two malfrats (phase 16) strike Diego together; he parries both with
    the counter effect and counter-attacks each of them right after."""
    diego = Plays(
        answers=[parry(effects=["counter"]), parry(effects=["counter"])],
        counters=[
            Declaration("attack", "m1", {"counter": True}),
            Declaration("attack", "m2", {"counter": True}),
        ],
    )
    fight = arena(
        {
            "a": ("heroes", "diego", diego),
            "m1": ("gang", "malfrat", Plays(turns=[Declaration("attack", "a")])),
            "m2": ("gang", "malfrat", Plays(turns=[Declaration("attack", "a")])),
        },
        positions={"a": (0.0, 0.0), "m1": (1.0, 0.0), "m2": (0.0, 1.0)},
        # initiative 9, 16, 16; both hit (20); Diego parries both (24 vs 20); his
        # two counter-attacks miss (13)
        dice=[1, 10, 10, 10, 10, 10, 10, 1, 1],
    )
    run_until(fight, 4)
    counters = [(t.actor, t.target) for t in of_type(fight, Tested) if "counter" in t.test]
    assert counters == [("a", "m1"), ("a", "m2")]
    spent = [(e.what, e.cost) for e in of_type(fight, ActionPointsSpent) if e.actor == "a"]
    assert spent == [("parry", 1), ("parry", 1), ("a counter-attack", 3), ("a counter-attack", 3)]
    assert fight.state.combatants["a"].status.pa == 9 - 2 - 6


def test_a_counter_attack_may_itself_be_countered() -> None:
    """Loss, "Contre-attaquer": the only limit is once per adversary and per round.
    Diego attacks; the malfrat parries and counters; Diego parries that counter-attack
    with the counter effect and counters in turn; the malfrat, who has already
    countered Diego this round, may not counter again."""
    diego = Plays(
        turns=[Declaration("attack", "m")],
        answers=[parry(effects=["counter"])],
        counters=[Declaration("attack", "m", {"counter": True})],
    )
    malfrat = Plays(
        answers=[parry(effects=["counter"]), None],
        counters=[Declaration("attack", "a", {"counter": True})],
    )
    # initiative 18 and 7; Diego hits (22); the malfrat parries (10 + 10 = 20 vs 20) and
    # counters (20 vs 15); Diego parries (24 vs 20) and counters: 12 + 1 misses
    fight = duel(diego, malfrat, dice=[10, 1, 10, 10, 10, 10, 1])
    run_until(fight, 6)
    tests = [(t.actor, t.test, t.success) for t in of_type(fight, Tested)]
    assert tests == [
        ("a", "attack", True),
        ("m", "parry", True),
        ("m", "a counter-attack", True),
        ("a", "parry", True),
        ("a", "a counter-attack", False),
    ]
    assert fight.state.combatants["m"].status.countered == {"a"}


def test_no_second_counter_against_the_same_adversary_in_a_round() -> None:
    """Loss, "Contre-attaquer": once per adversary and per round; the malfrat, having
    countered Diego, cannot counter Diego's counter-attack."""
    diego = Plays(
        turns=[Declaration("attack", "m")],
        answers=[parry(effects=["counter"])],
        counters=[Declaration("attack", "m", {"counter": True})],
    )
    malfrat = Plays(
        answers=[parry(effects=["counter"]), parry(effects=["counter"])],
        counters=[Declaration("attack", "a", {"counter": True})],
    )
    fight = duel(diego, malfrat, dice=[10, 1, 10, 10, 10, 10, 10, 10])
    with pytest.raises(IllegalDeclaration, match="already countered a this round"):
        fight.run()


# ---------------------------------------------------------------- Désarmer l'adversaire


def test_a_disarmed_fighter_attacks_no_more_in_that_round_even_rearmed() -> None:
    """Loss, "Désarmer l'adversaire": "il conserve ses PA mais ne peut plus du tout
    attaquer pour le Tour de Combat". The malfrat picks his cutlass up at phase 7 and
    still may not attack at phase 5; he may in the next round."""
    malfrat = Plays(turns=[Declaration("pick_up")], answers=[None])
    fight = duel(
        Plays(turns=[Declaration("attack", "m", {"effects": ["disarm"], "damage": False, **RICH})]),
        malfrat,
        dice=[10, 1, 10],
    )
    run_until(fight, 66)
    assert malfrat.turn_segments == [55, 65]
    status = fight.state.combatants["m"].status
    assert (status.disarmed, status.pa) == (0, 5)  # rearmed, 2 PA spent
    assert "no attack at all until the next one" in refused(
        fight, "m", Declaration("attack", "a"), 65
    )
    assert "no attack at all" in refused(fight, "m", Declaration("grab", "a"), 65)
    assert not any(x.kind == "attack" for x in malfrat.seen[-1].legal())


# ---------------------------------------------------------------- Attaquer avec deux armes


def test_two_weapons_against_one_adversary_deal_both_weapons_damage() -> None:
    """Loss, "Attaquer avec deux armes": "frapper ... un seul adversaire avec les
    deux armes"; "les dégâts sont appliqués ... sur une seule cible". Diego's rapier (3)
    and dagger (2) both strike the malfrat: 3 + 3 and 4 + 2, less his leather each."""
    dagger = default_content().weapons["dagger"]
    diego = sheet("diego", off_hand=dagger)
    fight = arena(
        {
            "a": (
                "heroes",
                diego,
                Plays(turns=[Declaration("attack", "m", {"effects": ["two_weapons"], **RICH})]),
            ),
            "m": ("gang", "malfrat", Plays(answers=[None])),
        },
        dice=[10, 1, 10, 3, 4],
    )
    run_until(fight, 3)
    damage = [(d.weapon, d.rolls, d.damage, d.lost) for d in of_type(fight, Damaged)]
    assert damage == [("rapière", (3,), 6, 5), ("poignard", (4,), 6, 5)]
    assert of_type(fight, ActionPointsSpent)[0].cost == 3  # the slower weapon's speed


def test_two_weapons_on_two_adversaries_strike_each_with_one_weapon() -> None:
    """Loss, "Attaquer avec deux armes": "frapper deux adversaires distincts
    simultanément": the rapier strikes the first, the dagger the second."""
    dagger = default_content().weapons["dagger"]
    diego = sheet("diego", off_hand=dagger)
    attack = Declaration("attack", "m", {"effects": ["two_weapons"], "targets": ["t"], **RICH})
    fight = arena(
        {
            "a": ("heroes", diego, Plays(turns=[attack])),
            "m": ("gang", "malfrat", Plays(answers=[None])),
            "t": ("gang", "malfrat", Plays(answers=[None])),
        },
        positions={"a": (0, 0), "m": (1, 0), "t": (0, 1)},
        dice=[10, 1, 1, 10, 3, 4],
    )
    run_until(fight, 3)
    damage = [(d.actor, d.weapon, d.damage) for d in of_type(fight, Damaged)]
    assert damage == [("m", "rapière", 3 + 3), ("t", "poignard", 4 + 2)]


# ---------------------------------------------------------------- effects in ranged combat


def test_against_a_shot_take_the_advantage_follows_a_dodge_not_a_parry() -> None:
    """Loss, "Les effets spéciaux en combat à distance": Prendre l'avantage is
    "applicable sur une attaque ou esquivant": Canahan's shield may parry the bolt, but
    not with that effect; she may dodge with it."""
    canahan = Plays(answers=[parry(effects=["take_advantage"])])
    fight = arena(
        {
            "c": ("heroes", "canahan", canahan),
            "x": ("gang", "archer", Plays(turns=[Declaration("attack", "c")])),
        },
        positions={"c": (0, 0), "x": (8, 0)},
        dice=[1, 10, 10],
    )
    with pytest.raises(IllegalDeclaration, match="take_advantage follows a dodge only"):
        fight.run()
    fight = arena(
        {
            "c": ("heroes", "canahan", Plays(answers=[dodge(effects=["take_advantage"])])),
            "x": ("gang", "archer", Plays(turns=[Declaration("attack", "c")])),
        },
        positions={"c": (0, 0), "x": (8, 0)},
        dice=[1, 10, 10, 10, 1],  # the dodge (19 against 20) fails: damage
    )
    run_until(fight, 3)
    assert [(t.test, t.exploits) for t in of_type(fight, Tested)] == [("attack", 0), ("dodge", 1)]


# ---------------------------------------------------------------- Protéger


def test_protect_shields_an_ally_close_by_only() -> None:
    """Loss, "Protéger": a bonus of +5 "à un allié proche en combat, en jouant le
    rôle de bouclier humain": Canahan, 8 m away, is not close enough."""
    m = Plays(turns=[Declaration("attack", "a")])
    fight = arena(
        {
            "a": ("heroes", "diego", Plays(answers=[dodge(effects=["protect"], ally="c")])),
            "c": ("heroes", "canahan", Plays()),
            "m": ("gang", "malfrat", m),
        },
        dice=[1, 1, 10, 10, 10],
        positions={"a": (0, 0), "c": (0, 8), "m": (1, 0)},
    )
    with pytest.raises(IllegalDeclaration, match="an ally close by"):
        fight.run()


# ---------------------------------------------------------------- specialisations


def feint(attacker, dice: list[int]):
    fight = arena(
        {
            "a": (
                "heroes",
                attacker,
                Plays(turns=[Declaration("attack", "m", {"effects": ["feint"]})]),
            ),
            "m": ("gang", "malfrat", Plays(answers=[None])),
        },
        dice=dice,
    )
    run_until(fight, 3)
    return of_type(fight, Tested)[0]


def test_corps_a_corps_specialisations_count_bare_handed_only() -> None:
    """Loss, "Corps-à-corps" ("toutes les techniques du combat sans armes"):
    Défense gives +5 to a feint bare-handed, nothing to a feint with the rapier."""
    from segsim.rules.loss.content import UNARMED

    armed = sheet("diego", specialisations=("defense",))
    assert feint(armed, [10, 1, 10, 1]).bonuses == {}
    bare = sheet("diego", specialisations=("defense",), weapon=UNARMED)
    assert feint(bare, [10, 1, 10, 1]).bonuses == {"defense": 5}


def test_a_specialisation_tied_to_a_weapon_type_counts_with_it_only() -> None:
    """Loss, "Les talents & spécialisations de combat": "Une spécialisation
    s'applique à un type d'arme choisi dans la liste des armes". Diego's Parade chosen
    for the sabre gives nothing with his rapier; chosen for the rapier, +2."""

    def parry_bonuses(tied: str) -> dict[str, int]:
        diego = sheet("diego", specialisation_weapons={"parade": tied})
        fight = arena(
            {
                "a": ("heroes", diego, Plays(answers=[parry()])),
                "m": ("gang", "malfrat", Plays(turns=[Declaration("attack", "a")])),
            },
            dice=[1, 10, 10, 5],
        )
        run_until(fight, 3)
        return dict(of_type(fight, Tested)[1].bonuses)

    assert parry_bonuses("sabre") == {}
    assert parry_bonuses("rapier") == {"parade": 2}


def test_a_talent_specialisation_gives_2_to_its_test_with_its_weapon() -> None:
    """Loss, "Les Augmentations Gratuites et spécialisations": "un bonus de +2 au
    Test du Talent à laquelle elles sont liées, quand s'applique la condition"."""
    from segsim.rules.loss.content import TalentSpecialisation

    rapier = sheet("diego", talent_specialisations=(TalentSpecialisation("melee", "rapier"),))
    assert feint(rapier, [10, 1, 10, 1]).bonuses == {"specialisation": 2}
    sabre = sheet("diego", talent_specialisations=(TalentSpecialisation("melee", "sabre"),))
    assert feint(sabre, [10, 1, 10, 1]).bonuses == {}
    dodging = sheet("diego", talent_specialisations=(TalentSpecialisation("dodge"),))
    assert feint(dodging, [10, 1, 10, 1]).bonuses == {}


def test_specialisations_with_weapons_read_from_a_sheet_and_back() -> None:
    from segsim.input import Source
    from segsim.rules.loss import Loss

    rules = Loss()
    text = (
        'initiative = 5\nweapon = "rapier"\nspecialisations = ["parade"]\n'
        'specialisation_weapons = { parade = "rapier" }\n'
        'talent_specialisations = [{ test = "dodge", name = "Roulade" }]\n'
    )
    read = rules.load_sheet(Source("s.toml", text).root())
    assert read.has("parade", read.weapon)
    data = rules.sheet_data(read)
    assert data["specialisation_weapons"] == {"parade": "rapier"}
    assert data["talent_specialisations"] == [{"test": "dodge", "name": "Roulade"}]
    bad = text.replace('{ parade = "rapier" }', '{ charge = "rapier" }')
    with pytest.raises(Exception, match="charge"):
        rules.load_sheet(Source("s.toml", bad).root())
    bad = text.replace('test = "dodge"', 'test = "cooking"')
    with pytest.raises(Exception, match="talent_specialisations"):
        rules.load_sheet(Source("s.toml", bad).root())


@pytest.mark.parametrize(
    ("kind", "effects", "message"),
    [
        ("parry", ["counter"], "counter follows a dodge only"),  # "uniquement ... une esquive"
        ("parry", ["take_advantage"], "take_advantage follows a dodge only"),
        (
            "dodge",
            ["disarm"],
            "in ranged combat disarm is an attack",
        ),  # "applicable sur une attaque"
        ("dodge", ["feint"], "does not apply in ranged combat"),  # not in the ranged list
        ("dodge", ["protect"], "does not apply in ranged combat"),
    ],
)
def test_against_a_shot_only_the_ranged_lists_effects_ride_on_a_defence(
    kind: str, effects: list[str], message: str
) -> None:
    """Loss, "Les effets spéciaux en combat à distance": its own list, and its own
    conditions (counter-attack after a dodge only, disarm on an attack only)."""
    from segsim.rules.loss.status import Incoming

    fight = arena(
        {"c": ("heroes", "canahan", Plays()), "x": ("gang", "archer", Plays())},
        positions={"c": (0, 0), "x": (8, 0)},
        dice=[1, 10],
    )
    run_until(fight, 1)
    fight.state.combatants["c"].status.incoming[99] = Incoming(99, "x", 15, 0, (), True, False, 1)
    d = Declaration(kind, params={"against": 99, "effects": effects, "ally": "c"})
    assert message in refused(fight, "c", d, 1)


# ---------------------------------------------------------------- Les Sbires en combat


def test_a_minion_does_not_fell_another_minion_with_an_exploit() -> None:
    """Loss, "Les Sbires en combat": "Dès lors qu'un PJ (mais aussi un Adversaire
    PNJ) tente et réussit un Exploit ... contre un Sbire": a hired cutthroat's Exploit
    against a sailor deals damage, it does not fell him outright."""
    thug = Plays(turns=[Declaration("attack", "s", {"exploits": 1})])
    veteran = sheet("thug", talents={"armes_de_melee": 5, "esquive": 4})
    fight = arena(
        {"t": ("mercenaries", veteran, thug), "s": ("sailors", "sailor", Plays(answers=[None]))},
        dice=[10, 1, 10, 4],  # 5 + 5 + 10 = 20 against 20; damage 4 + the cutlass's 3
    )
    run_until(fight, 3)
    attack = of_type(fight, Tested)[0]
    assert attack.success and attack.exploits == 1
    (damage,) = of_type(fight, Damaged)
    assert damage.health == 10 - (4 + 3)
    assert not [e for e in fight.history if type(e).__name__ == "OutOfFight"]
