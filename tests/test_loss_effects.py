"""Special effects bought with Exploits (Loss, "Les Effets Spéciaux en Combat de
mêlée", "Les effets spéciaux en combat à distance"), modifiers and minions."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.events import OutOfFight
from segsim.rules.loss.content import Sheet
from segsim.rules.loss.events import (
    ActionPointsSpent,
    AttackPending,
    AttackSettled,
    Damaged,
    EffectApplied,
    RoundStarted,
    Tested,
)
from tests.loss_helpers import Plays, arena, dodge, of_type, parry, sheet

RICH = {"fursa": 2, "inspiration": 2}  # +20: Diego's 12 + d10 10 + 20 = 42


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


def one_attack(
    declaration: Declaration,
    *,
    answer: dict[str, Any] | None = None,
    dice: list[int],
    attacker: str | Sheet = "diego",
    defender: str | Sheet = "malfrat",
    until: int = 4,
    more: dict[str, tuple[str, str | Sheet, Any]] | None = None,
    **kwargs: Any,
):
    """Diego (or ``attacker``) at phase 18 attacks once; the defender answers once."""
    a = Plays(turns=[declaration])
    d = Plays(answers=[answer] if answer is not None else [None])
    fighters = {"a": ("heroes", attacker, a), "m": ("gang", defender, d), **(more or {})}
    fight = arena(fighters, dice=dice, **kwargs)
    run_until(fight, until)
    return fight, a, d


def refused(fight, who: str, d: Declaration, segment: int = 0) -> str:
    with pytest.raises(IllegalDeclaration) as info:
        fight.ruleset.plan(fight.state, who, d, segment, [])
    return str(info.value)


# ---------------------------------------------------------------- one Exploit


def test_an_assault_costs_4_deals_the_assault_damage_and_is_once_a_round() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["assault"]}), dice=[10, 1, 10, 4]
    )
    assert of_type(fight, ActionPointsSpent)[0].cost == 4
    (damage,) = of_type(fight, Damaged)
    assert damage.damage == 4 + 5  # the rapier's assault damage is 5
    assert fight.state.combatants["a"].status.assaulted
    assert "one assault per round" in refused(
        fight, "a", Declaration("attack", "m", {"effects": ["assault"]})
    )


def test_the_charge_specialisation_adds_5_to_an_assault() -> None:
    diego = sheet("diego", specialisations=("charge",))
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["assault"]}), dice=[10, 1, 10, 4], attacker=diego
    )
    assert of_type(fight, Tested)[0].bonuses == {"charge": 5}


def test_a_counter_attack_follows_a_successful_defence_once_per_opponent_and_round() -> None:
    m = Plays(turns=[Declaration("attack", "a")])
    a = Plays(
        answers=[parry(effects=["counter"]), parry(effects=["counter"])],
        counters=[Declaration("attack", "m", {"counter": True})],
    )
    fight = arena(
        {"a": ("heroes", "diego", a), "m": ("gang", "malfrat", m)},
        dice=[1, 10, 10, 10, 1],  # m first; hit; Diego parries; his counter misses
    )
    run_until(fight, 5)
    tests = [(t.actor, t.test, t.success) for t in of_type(fight, Tested)]
    assert tests == [("m", "attack", True), ("a", "parry", True), ("a", "a counter-attack", False)]
    assert fight.history.index(of_type(fight, Tested)[2]) > fight.history.index(
        of_type(fight, Tested)[1]
    )
    spent = [(e.actor, e.what, e.cost) for e in of_type(fight, ActionPointsSpent)]
    assert ("a", "a counter-attack", 3) in spent
    assert "m" in fight.state.combatants["a"].status.countered
    # A second counter against the same opponent in the same round is refused.
    fight.state.combatants["a"].status.incoming[99] = attrs_incoming(99, "m", 6)
    message = refused(
        fight, "a", Declaration("parry", params={"against": 99, "effects": ["counter"]}), 6
    )
    assert "already countered m this round" in message


def attrs_incoming(attack: int, attacker: str, granted: int, ranged: bool = False):
    from segsim.rules.loss.status import Incoming

    return Incoming(attack, attacker, 15, 0, (), ranged, False, granted)


def test_a_total_dodge_spends_every_point_and_raises_later_attacks() -> None:
    """Loss: consumes all the round's PA; every later attacker adds the difficulty of
    the Exploits it succeeded with."""
    m = Plays(turns=[Declaration("attack", "a")])
    a = Plays(answers=[dodge(effects=["total_dodge"])])
    fight = arena(
        {"a": ("heroes", "diego", a), "m": ("gang", "malfrat", m)},
        dice=[1, 10, 10, 10],
    )
    run_until(fight, 3)
    dodge_test = of_type(fight, Tested)[1]
    assert (dodge_test.difficulty, dodge_test.success) == (20, True)
    assert fight.state.combatants["a"].status.pa == 0
    assert fight.state.combatants["a"].status.wall == 5
    assert [(e.effect, e.value) for e in of_type(fight, EffectApplied)] == [("total_dodge", 5)]


def test_a_defensive_wall_needs_a_shield() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 1])
    fight.state.combatants["m"].status.incoming[99] = attrs_incoming(99, "a", 2)
    assert "needs a shield" in refused(
        fight,
        "m",
        Declaration("parry", params={"against": 99, "effects": ["defensive_wall"]}),
        2,
    )


def test_a_feint_gives_2_against_that_opponent_this_round_and_the_next() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["feint"]}), dice=[10, 1, 10, 1]
    )
    status = fight.state.combatants["a"].status
    assert status.feints == {"m": 2}


def test_protect_gives_an_ally_5_to_parry_or_dodge() -> None:
    m = Plays(turns=[Declaration("attack", "a")])
    a = Plays(answers=[dodge(effects=["protect"], ally="c")])
    fight = arena(
        {
            "a": ("heroes", "diego", a),
            "c": ("heroes", "canahan", Plays()),
            "m": ("gang", "malfrat", m),
        },
        dice=[1, 1, 10, 10, 10],
        positions={"a": (0, 0), "c": (0, 1), "m": (1, 0)},
    )
    run_until(fight, 3)
    assert fight.state.combatants["c"].status.protected == 5


@pytest.mark.parametrize(
    ("effect", "exploits", "malus"),
    [("aim_limb", 1, 2), ("precise_zone", 2, 5), ("precise_point", 3, 10)],
)
def test_aimed_blows_leave_a_lasting_difficulty_and_may_deal_no_damage(
    effect: str, exploits: int, malus: int
) -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": [effect], "damage": False, **RICH}),
        dice=[10, 1, 10],
    )
    assert fight.state.combatants["m"].status.difficulty_malus == malus
    assert not of_type(fight, Damaged)
    assert of_type(fight, Tested)[0].exploits == exploits


def test_no_damage_is_a_choice_only_for_effects_that_leave_it() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 1])
    assert "may deal no damage" in refused(
        fight, "a", Declaration("attack", "m", {"effects": ["extra_damage"], "damage": False})
    )


# ---------------------------------------------------------------- two Exploits and more


def test_two_weapons_hit_two_targets_at_the_slower_weapons_cost() -> None:
    from segsim.rules.loss.content import default_content

    dagger = default_content().weapons["dagger"]
    diego = sheet("diego", off_hand=dagger)
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["two_weapons"], "targets": ["t"], **RICH}),
        dice=[10, 1, 1, 10, 3, 4],
        attacker=diego,
        more={"t": ("gang", "malfrat", Plays(answers=[None]))},
        positions={"a": (0, 0), "m": (1, 0), "t": (0, 1)},
    )
    assert of_type(fight, ActionPointsSpent)[0].cost == 3
    assert [(d.actor, d.rolls) for d in of_type(fight, Damaged)] == [("m", (3,)), ("t", (4,))]


def test_a_moulinet_needs_a_long_weapon_and_reaches_three() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m"), dice=[10, 1, 1], attacker="malfrat", defender="diego"
    )
    assert "long weapon" in refused(
        fight, "a", Declaration("attack", "m", {"effects": ["moulinet"]})
    )


def test_a_moulinet_fells_every_minion_it_hits() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["moulinet"], "targets": ["t", "u"], **RICH}),
        dice=[10, 1, 1, 1, 10],
        defender="thug",
        more={
            "t": ("gang", "thug", Plays(answers=[None])),
            "u": ("gang", "thug", Plays(answers=[None])),
        },
        positions={"a": (0, 0), "m": (1, 0), "t": (0, 1), "u": (-1, 0)},
    )
    assert sorted(e.actor for e in of_type(fight, OutOfFight)) == ["m", "t", "u"]


def test_knocked_down_a_fighter_must_get_up_for_4_and_is_easier_to_hit() -> None:
    fight, _, d = one_attack(
        Declaration("attack", "m", {"effects": ["knock_down"], "damage": False, **RICH}),
        dice=[10, 1, 10],
        until=56,
    )
    assert fight.state.combatants["m"].status.prone
    seen = d.seen[0]  # its phase 7, at segment (18 - 7) * 5
    assert seen.segment == 55
    kinds = {x.kind for x in seen.legal()}
    assert "get_up" in kinds and not kinds & {"attack", "grab", "move"}
    assert "must get up first" in refused(fight, "m", Declaration("attack", "a"), 55)


def test_a_disarmed_fighter_cannot_attack_until_it_picks_up_its_weapon() -> None:
    """Loss, "Désarmer l'adversaire"."""
    fight, _, d = one_attack(
        Declaration("attack", "m", {"effects": ["disarm"], "damage": False, **RICH}),
        dice=[10, 1, 10],
        until=56,
    )
    m = fight.state.combatants["m"]
    assert m.status.disarmed == 1
    kinds = {x.kind for x in d.seen[0].legal()}
    assert "pick_up" in kinds and not kinds & {"attack", "grab"}
    assert "disarmed" in refused(fight, "m", Declaration("attack", "a"), 55)


def test_neutralise_and_kill_take_the_target_out() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["neutralise"], "damage": False, **RICH}),
        dice=[10, 1, 10],
    )
    assert [e.reason for e in of_type(fight, OutOfFight)] == ["neutralised by a"]
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"effects": ["kill"], **RICH}), dice=[10, 1, 10]
    )
    assert [e.reason for e in of_type(fight, OutOfFight)] == ["killed outright by a"]
    assert not of_type(fight, Damaged)


def test_kill_outright_is_for_human_sized_targets() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 1], defender="griffon")
    assert "human" in refused(fight, "a", Declaration("attack", "m", {"effects": ["kill"], **RICH}))


def test_a_storm_of_blades_reaches_five_and_no_more() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 1])
    message = refused(
        fight,
        "a",
        Declaration("attack", "m", {"effects": ["storm_of_blades"], "targets": list("bcdef")}),
    )
    assert "5 different targets at most" in message


def test_a_minion_hit_without_an_exploit_takes_damage_like_anyone() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 10, 6], defender="thug")
    (damage,) = of_type(fight, Damaged)
    assert damage.health == 10 - (6 + 3)
    assert not of_type(fight, OutOfFight)


def test_a_minion_that_dodges_does_not_fall() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m", {"exploits": 1}),
        answer=dodge(),
        dice=[10, 1, 10, 10],
        defender=sheet("thug", talents={"esquive": 10, "armes_de_melee": 4}),
    )
    assert [s.result for s in of_type(fight, AttackSettled)] == ["stopped"]
    assert not of_type(fight, OutOfFight)


# ---------------------------------------------------------------- modifiers


def test_melee_modifiers_add_to_the_difficulty_or_the_roll() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m"),
        dice=[10, 1, 1],
        setup={"a": {"lower_ground": True, "darkness": True}, "m": {"cover": "partial"}},
    )
    attack = of_type(fight, Tested)[0]
    assert attack.modifiers == {"darkness": 10, "lower ground": 5, "cover": 10}
    assert attack.difficulty == 40
    fight, _, _ = one_attack(
        Declaration("attack", "m"), dice=[10, 1, 1, 1], setup={"a": {"higher_ground": True}}
    )
    assert of_type(fight, Tested)[0].bonuses == {"higher ground": 5}


def test_three_opponents_in_contact_make_attacks_harder_but_not_defences() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m"),
        dice=[10, 1, 1, 1, 1],
        more={"t": ("gang", "thug", Plays()), "u": ("gang", "thug", Plays())},
        positions={"a": (0, 0), "m": (1, 0), "t": (0, 1), "u": (-1, 0)},
    )
    assert of_type(fight, Tested)[0].modifiers == {"outnumbered": 5}


def test_a_surprised_target_cannot_defend_and_is_easier_to_hit() -> None:
    fight, _, _ = one_attack(
        Declaration("attack", "m"), dice=[10, 1, 10, 1], setup={"m": {"surprised": True}}
    )
    assert of_type(fight, Tested)[0].bonuses == {"surprised target": 5}
    assert not of_type(fight, AttackPending)
    assert [s.result for s in of_type(fight, AttackSettled)] == ["hit"]


def behind_fight(a_at: tuple[float, float]):
    """b (phase 18) attacks m, who dodges it and so faces b; a (phase 9) then attacks m
    from ``a_at``. m stands at (0, 0), b at (1, 0)."""
    fighters = {
        "a": ("heroes", "diego", Plays(turns=[Declaration("attack", "m")])),
        "m": ("gang", "malfrat", Plays(answers=[dodge(), None])),
        "b": ("heroes", "diego", Plays(turns=[Declaration("attack", "m")])),
    }
    positions = {"m": (0.0, 0.0), "b": (1.0, 0.0), "a": a_at}
    # initiative a 1+8, m 1+6, b 10+8; b's attack 10, m's dodge 1, damage 1; a's attack 5
    fight = arena(fighters, dice=[1, 1, 10, 10, 1, 1, 5, 1], positions=positions)
    run_until(fight, 50)
    return fight


def test_attacking_from_behind_gives_5() -> None:
    """Loss, "Modificateurs de combat au contact": attacking an opponent from behind
    (de dos) gives +5; the opponent may still parry or dodge, not being surprised. m
    dodged b, so it faces b: a, on the other side of m, strikes its back."""
    fight = behind_fight((-1.0, 0.0))
    assert fight.state.combatants["m"].status.facing == "b"
    tests = [t for t in of_type(fight, Tested) if t.actor == "a"]
    assert tests[0].bonuses == {"from behind": 5}
    assert tests[0].total == 5 + 12 + 5
    assert [p.target for p in of_type(fight, AttackPending) if p.actor == "a"] == ["m"]


def test_an_attacker_beside_or_in_front_is_not_behind() -> None:
    """Loss, "Modificateurs de combat au contact": only the back counts; a at m's
    side (at a right angle to b) gets no bonus."""
    fight = behind_fight((0.0, 1.0))
    tests = [t for t in of_type(fight, Tested) if t.actor == "a"]
    assert "from behind" not in tests[0].bonuses


# ---------------------------------------------------------------- ranged


def shot(declaration: Declaration, metres: float, dice: list[int], **kwargs: Any):
    return one_attack(
        declaration,
        dice=dice,
        attacker=kwargs.pop("attacker", "archer"),
        positions={"a": (0.0, 0.0), "m": (metres, 0.0), **kwargs.pop("positions", {})},
        **kwargs,
    )


@pytest.mark.parametrize(
    ("metres", "difficulty"), [(5.0, 15), (15.0, 20), (30.0, 25), (50.0, 30), (100.0, 35)]
)
def test_a_shot_takes_the_difficulty_of_its_distance_band(metres: float, difficulty: int) -> None:
    fight, _, _ = shot(Declaration("attack", "m"), metres, [10, 1, 1])
    assert of_type(fight, Tested)[0].difficulty == difficulty


def test_point_blank_gives_5_and_beyond_the_range_damage_is_halved() -> None:
    fight, _, _ = shot(Declaration("attack", "m"), 1.0, [10, 1, 1, 1])
    assert of_type(fight, Tested)[0].bonuses == {"point blank": 5}
    import attrs

    from segsim.rules.loss.content import default_content

    short = attrs.evolve(default_content().weapons["crossbow"], range=10.0)
    archer = sheet("archer", weapon=short)
    fight, _, _ = shot(Declaration("attack", "m"), 15.0, [10, 1, 10, 8], attacker=archer)
    (damage,) = of_type(fight, Damaged)
    assert damage.halved and damage.damage == (8 + 6) // 2


def test_no_shot_beyond_the_limit() -> None:
    fight, _, _ = shot(Declaration("attack", "m"), 5.0, [10, 1, 1])
    fight.state.move("m", (200.0, 0.0))
    assert "limit" in refused(fight, "a", Declaration("attack", "m"))


def test_rechargement_rapide_takes_2_off_a_ranged_weapons_speed() -> None:
    fight, _, _ = shot(Declaration("attack", "m"), 5.0, [10, 1, 1])
    assert of_type(fight, ActionPointsSpent)[0].cost == 6 - 2


def test_cover_and_ricochet() -> None:
    fight, _, _ = shot(Declaration("attack", "m"), 5.0, [10, 1, 1], setup={"m": {"cover": "full"}})
    assert of_type(fight, Tested)[0].modifiers == {"cover": 15}
    fight, _, _ = shot(
        Declaration("attack", "m", {"effects": ["ricochet"]}),
        5.0,
        [10, 1, 1],
        setup={"m": {"cover": "full"}},
    )
    assert of_type(fight, Tested)[0].modifiers == {}


def test_a_shot_is_dodged_but_parried_only_with_a_shield_made_for_it() -> None:
    fight, _, _ = shot(
        Declaration("attack", "m"),
        5.0,
        [10, 1, 1, 1],
        more={"c": ("gang", "canahan", Plays())},
        positions={"c": (5.0, 1.0)},
    )
    for who, attack in (("m", 98), ("c", 99)):
        fight.state.combatants[who].status.incoming[attack] = attrs_incoming(attack, "a", 2, True)
    assert "shield made for it" in refused(
        fight, "m", Declaration("parry", params={"against": 98, "with": "weapon"}), 2
    )
    assert (
        fight.ruleset.plan(
            fight.state, "c", Declaration("parry", params={"against": 99}), 2, []
        ).params["with"]
        == "shield"
    )  # Canahan's round shield parries projectiles
    fight, _, _ = shot(Declaration("attack", "m"), 5.0, [10, 1, 10, 10], answer=dodge())
    assert [t.test for t in of_type(fight, Tested)] == ["attack", "dodge"]


def test_aiming_adds_one_per_action_point_to_the_next_shot() -> None:
    a = Plays(turns=[Declaration("aim", params={"points": 3}), Declaration("attack", "m")])
    fight = arena(
        {"a": ("heroes", "archer", a), "m": ("gang", "malfrat", Plays(answers=[None]))},
        dice=[10, 1, 1, 1],
        positions={"a": (0, 0), "m": (5, 0)},
    )
    run_until(fight, 20)
    assert of_type(fight, Tested)[0].bonuses == {"aim": 3}
    assert fight.state.combatants["a"].status.aim == 0


def test_a_hidden_shooters_first_shot_cannot_be_avoided() -> None:
    fight, _, _ = shot(
        Declaration("attack", "m"),
        5.0,
        [10, 1, 10, 1],
        answer=dodge(),
        setup={"a": {"hidden": True}},
    )
    assert not of_type(fight, AttackPending)
    assert not fight.state.combatants["a"].status.hidden


def spotted_shot(archer: Sheet) -> Any:
    """A hidden archer (phase 16) shoots m at 5 m; m's Vigilance is 5 + 5."""
    watcher = sheet("malfrat", traits={"instinct": 5}, talents={"vigilance": 5, "esquive": 7})
    fight, _, _ = shot(
        Declaration("attack", "m"),
        5.0,
        [10, 1, 10, 5, 1, 1],  # initiative, initiative, shot, vigilance, dodge or damage...
        attacker=archer,
        defender=watcher,
        answer=dodge(),
        setup={"a": {"hidden": True, "spot_difficulty": 15}},
    )
    return fight


def test_a_hidden_shooter_is_seen_by_a_vigilance_test_and_may_then_be_dodged() -> None:
    """Loss, "Esquiver": one dodges a shot when one sees the shooter as it fires. The
    game master's spot_difficulty (15) is met by m's 5 + 10: m sees the archer and may
    dodge."""
    fight = spotted_shot(sheet("archer"))
    spot = [t for t in of_type(fight, Tested) if t.test == "vigilance"]
    assert [(t.actor, t.total, t.difficulty, t.success) for t in spot] == [("m", 15, 15, True)]
    assert [p.target for p in of_type(fight, AttackPending)] == ["m"]
    assert fight.state.combatants["m"].status.facing == "a"


def test_tir_embusque_adds_5_to_the_vigilance_test_to_spot_the_shooter() -> None:
    """Loss, "Les talents & spécialisations de combat", Tir embusqué: no bonus to the
    shot, +5 to every Vigilance test to spot the shooter. The same 15 now fails against
    20: the shot cannot be avoided."""
    archer = sheet("archer", specialisations=("tir_embusque",))
    fight = spotted_shot(archer)
    (shot_test, spot) = of_type(fight, Tested)[:2]
    assert "tir embusque" not in shot_test.bonuses
    assert (spot.test, spot.difficulty, spot.modifiers, spot.success) == (
        "vigilance",
        20,
        {"tir embusque": 5},
        False,
    )
    assert not of_type(fight, AttackPending)
    assert [s.result for s in of_type(fight, AttackSettled)] == ["hit"]


def structure_shot(gunner: Sheet, exploits: int) -> Any:
    wall = sheet("malfrat", name="palissade", structure=True, human=False)
    fight, _, _ = shot(
        Declaration("attack", "m", {"exploits": exploits}),
        5.0,
        [5, 5, 1],  # the gunner's initiative (a wall rolls none), the shot, damage
        attacker=gunner,
        defender=wall,
    )
    return fight


HEAVY = attrs.evolve(sheet("archer").weapon, id="bombard", name="bombarde", tags=("heavy",))


def test_destruction_de_fortifications_adds_5_with_exploits_against_a_structure() -> None:
    """Loss, "Les talents & spécialisations de combat", Destruction de
    fortifications: +5 to a test with Exploits aimed at destroying a structure, with a
    heavy weapon (Armes lourdes). A structure neither acts nor defends."""
    gunner = sheet("archer", weapon=HEAVY, specialisations=("destruction_de_fortifications",))
    fight = structure_shot(gunner, 1)
    (started, *_) = of_type(fight, RoundStarted)
    assert list(started.action_points) == ["a"]
    test = of_type(fight, Tested)[0]
    assert test.bonuses == {"destruction de fortifications": 5}
    assert not of_type(fight, AttackPending)
    assert [s.result for s in of_type(fight, AttackSettled)] == ["hit"]


@pytest.mark.parametrize(
    ("weapon", "exploits"), [(HEAVY, 0), (None, 1)], ids=["no exploit", "not heavy"]
)
def test_destruction_de_fortifications_needs_exploits_and_a_heavy_weapon(
    weapon: Any, exploits: int
) -> None:
    """Loss: the bonus is for tests where one declares Exploits (Talent: Armes lourdes)."""
    changes = {"weapon": weapon} if weapon is not None else {}
    gunner = sheet("archer", specialisations=("destruction_de_fortifications",), **changes)
    fight = structure_shot(gunner, exploits)
    assert "destruction de fortifications" not in of_type(fight, Tested)[0].bonuses


def test_a_successful_defence_only_halves_an_explosion() -> None:
    """Loss, "Les explosions et éclaboussures"."""
    from segsim.rules.loss.content import default_content

    thrower = sheet(
        "vigile", weapon=default_content().weapons["acid_flask"], talents={"arme_de_jet": 5}
    )
    fight, _, _ = one_attack(
        Declaration("attack", "m"),
        answer=dodge(),
        dice=[10, 1, 10, 10, 9],
        attacker=thrower,
        positions={"a": (0, 0), "m": (5, 0)},
    )
    (damage,) = of_type(fight, Damaged)
    assert damage.halved and damage.damage == (9 + 5) // 2
    assert [t.success for t in of_type(fight, Tested)] == [True, True]


def test_shooting_through_needs_a_bow_crossbow_or_impulse_weapon_and_a_target_close_behind() -> (
    None
):
    fight, _, _ = shot(
        Declaration("attack", "m", {"effects": ["shoot_through"], "targets": ["t"], **RICH}),
        5.0,
        [10, 1, 1, 10, 2, 3],
        attacker=sheet("archer", fursa=2, inspiration=2),
        more={"t": ("gang", "malfrat", Plays(answers=[None]))},
        positions={"t": (6.0, 0.0)},
    )
    assert [s.target for s in of_type(fight, AttackSettled)] == ["m", "t"]


# ---------------------------------------------------------------- resources and options


def test_free_raises_give_5_to_the_tests_they_name() -> None:
    """Loss, "Les Augmentations Gratuites et spécialisations"."""
    malfrat = sheet("malfrat", free_raises={"dodge": 1})
    fight, _, _ = one_attack(
        Declaration("attack", "m"), answer=dodge(), dice=[10, 1, 10, 1], defender=malfrat
    )
    assert of_type(fight, Tested)[1].bonuses == {"free raises": 5}


def test_a_player_characters_failed_exploits_are_disasters_when_the_game_master_says_so() -> None:
    from segsim.rules.loss.events import Disaster

    for option, expected in ((True, 1), (False, 0)):
        fight, _, _ = one_attack(
            Declaration("attack", "m", {"exploits": 2}),
            dice=[10, 1, 1],
            pcs=["a"],
            options={"disasters": option},
        )
        assert len(of_type(fight, Disaster)) == expected


def test_the_esquive_totale_specialisation_adds_5_to_a_total_dodge() -> None:
    diego = sheet("diego", specialisations=("esquive_totale",))
    m = Plays(turns=[Declaration("attack", "a")])
    a = Plays(answers=[dodge(effects=["total_dodge"])])
    fight = arena({"a": ("heroes", diego, a), "m": ("gang", "malfrat", m)}, dice=[1, 10, 10, 10])
    run_until(fight, 3)
    assert of_type(fight, Tested)[1].bonuses == {"esquive totale": 5}


def test_after_a_total_dodge_later_attackers_add_its_exploits_to_their_difficulty() -> None:
    m = Plays(turns=[Declaration("attack", "a")])
    t = Plays(turns=[Declaration("attack", "a")])
    a = Plays(answers=[dodge(effects=["total_dodge"])])
    fight = arena(
        {"a": ("heroes", "diego", a), "m": ("gang", "malfrat", m), "t": ("gang", "thug", t)},
        # a 9, m 16, t 13: m hits, a's total dodge succeeds; t attacks at 13
        dice=[1, 10, 9, 10, 10, 1],
        positions={"a": (0, 0), "m": (1, 0), "t": (0, 1)},
    )
    run_until(fight, 20)
    later = next(x for x in of_type(fight, Tested) if x.actor == "t")
    assert later.modifiers == {"defensive wall": 5}
    assert later.difficulty == 20


def test_a_defence_may_leave_out_the_attack_when_only_one_is_pending() -> None:
    fight, _, _ = one_attack(Declaration("attack", "m"), dice=[10, 1, 10, 1, 1])
    assert [s.result for s in of_type(fight, AttackSettled)] == ["hit"]
    m = fight.state.combatants["m"]
    m.status.incoming[99] = attrs_incoming(99, "a", 7)
    spec = fight.ruleset.plan(fight.state, "m", Declaration("dodge"), 7, [])
    assert spec.params["against"] == 99


def test_no_more_than_five_assailants_strike_one_fighter_in_melee() -> None:
    """Loss, "Modificateurs de combat au contact": 5 adversaries at most at once."""
    import math

    from segsim.rules.loss.declare import Check, check_attack

    ring = {f"t{i}": ("gang", "thug", Plays()) for i in range(6)}
    positions = {"a": (0.0, 0.0)}
    for i in range(6):
        r = 1.0 if i < 5 else 1.9  # t5 stands in contact, but behind the other five
        positions[f"t{i}"] = (r * math.cos(i), r * math.sin(i))
    fight = arena({"a": ("heroes", "diego", Plays()), **ring}, dice=[1] * 7, positions=positions)
    run_until(fight, 1)
    attack = Declaration("attack", "a")
    far = Check(fight.state, fight.state.combatants["t5"], 0)
    with pytest.raises(IllegalDeclaration, match="beset by 5 nearer assailants"):
        check_attack(far, attack, counter=False)
    near = Check(fight.state, fight.state.combatants["t0"], 0)
    assert check_attack(near, attack, counter=False)[0] == 3


def test_an_explosion_reaches_everyone_in_its_area_and_a_defence_halves_it() -> None:
    """Loss, "Les explosions et éclaboussures": the acid flask bursts 2 m around."""
    from segsim.rules.loss.content import default_content

    thrower = sheet(
        "vigile", weapon=default_content().weapons["acid_flask"], talents={"arme_de_jet": 5}
    )
    fight, _, _ = one_attack(
        Declaration("attack", "m"),
        dice=[10, 1, 1, 1, 10, 9, 10, 7],  # hit; m takes 9 + 5; t dodges, takes half of 7 + 5
        attacker=thrower,
        more={
            "t": ("gang", "malfrat", Plays(answers=[dodge()])),
            "far": ("gang", "malfrat", Plays(answers=[dodge()])),
        },
        positions={"a": (0, 0), "m": (5, 0), "t": (6, 1), "far": (9, 0)},
    )
    hits = [(d.actor, d.damage, d.halved) for d in of_type(fight, Damaged)]
    assert hits == [("m", 9 + 5, False), ("t", (7 + 5) // 2, True)]
    assert "far" not in [p.target for p in of_type(fight, AttackPending)]


@pytest.mark.parametrize(
    ("aimed", "specialisations", "bonus"),
    [("round", (), 10), ("round", ("visee",), 15), ("sequence", (), 15)],
)
def test_aiming_before_the_fight_helps_the_first_shot_only(
    aimed: str, specialisations: tuple[str, ...], bonus: int
) -> None:
    """Loss, "Modificateurs de combat à distance": +10 for a round (+15 with Visée),
    +15 for a sequence or out of the fight; no more."""
    archer = sheet("archer", specialisations=("rechargement_rapide", *specialisations))
    a = Plays(turns=[Declaration("attack", "m"), Declaration("attack", "m")])
    fight = arena(
        {"a": ("heroes", archer, a), "m": ("gang", "malfrat", Plays(answers=[None, None]))},
        dice=[10, 1, 1, 1, 1],
        positions={"a": (0, 0), "m": (5, 0)},
        setup={"a": {"aimed": aimed}},
    )
    run_until(fight, 25)
    first, second = (t for t in of_type(fight, Tested) if t.actor == "a")
    assert sum(first.bonuses.values()) == bonus
    assert second.bonuses == {}
