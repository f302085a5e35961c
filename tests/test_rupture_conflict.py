"""Rupture beyond the summary: the passe on the clock, psychological and social conflict,
the text's beaten opponent broken by a threat, untargeted actions, illegal declarations
(Rupture, "Les actions ciblées", "Dépassement", "Les actions non ciblées")."""

from __future__ import annotations

from typing import Any

import pytest
from rupture_helpers import RULES, arena, of_type, one, sheet

from segsim import IllegalDeclaration
from segsim.actions import Cancel, Declaration
from segsim.policy import Observation
from segsim.rules.rupture.status import Wound
from segsim.testing import Scripted, declare


class Never:
    """Declares nothing and never defends: its slots go by."""

    reactive = False
    name = "never"

    def decide(self, obs: Observation) -> Any:
        return None


# ---------------------------------------------------------------- the passe


@pytest.mark.parametrize(
    ("passe", "bran", "ysolde"),
    [(30, [0, 15, 30, 45], [0, 10, 20, 30, 40, 50]), (60, [0, 30], [0, 20, 40])],
)
def test_each_fighter_has_its_actions_per_passe(
    passe: int, bran: list[int], ysolde: list[int]
) -> None:
    # Bran has 2 actions per passe, Ysolde 3: a slot each, one action filling it.
    fight = arena(
        {"bran": ("a", "bran", Never()), "ysolde": ("b", "ysolde", Never())},
        options={"passe_segments": passe},
        max_segments=59,
    )
    fight.run()
    slots = {
        cid: [e.t for e in of_type(fight, "action.declared") if e.actor == cid]
        for cid in ("bran", "ysolde")
    }
    assert slots == {"bran": bran, "ysolde": ysolde}
    assert [e.passe for e in of_type(fight, "rupture.passe.started")] == list(
        range(1, 60 // passe + 1)
    )
    assert fight.clock.tick == passe


def test_a_last_slot_takes_the_rest_of_the_passe() -> None:
    # 4 actions in 30 segments: slots at 0, 7, 14 and 21, the last one to the passe's end.
    fight = arena(
        {"bran": ("a", sheet("bran", actions=4), Never()), "guard": ("b", "guard", Never())},
        max_segments=31,
    )
    fight.run()
    bran = [(e.t, e.duration) for e in of_type(fight, "action.declared") if e.actor == "bran"]
    assert bran == [(0, 7), (7, 7), (14, 7), (21, 9), (30, 7)]


def test_one_action_at_a_time_a_second_is_refused_naming_the_rule() -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("attack", "guard"), 5: declare("prepare")})),
            "guard": ("b", "guard", Never()),
        },
        dice=[1, 1, 1, 1, 1],
    )
    with pytest.raises(IllegalDeclaration) as err:
        fight.run()
    assert err.value.rule == "Rupture, Les actions ciblées"
    assert (err.value.actor, err.value.segment) == ("bran", 5)
    assert "one action at a time, 2 per passe" in err.value.message


# ---------------------------------------------------------------- the mind and the tongue


def test_the_texts_example_a_beaten_opponent_broken_by_a_threat() -> None:
    """Rupture, "Dépassement": beat a local with a sword without an overflow, then
    "surrender or die" overflows its mental threshold: it applies at once, with a wound
    of a psychological nature."""
    bran = Scripted(
        {
            0: declare("attack", "lout", weapon="sword"),
            15: declare("attack", "lout", weapon="sword"),
            30: declare("threaten", "lout"),
        }
    )
    lout = Scripted({44: declare("defend", "bran")})
    fight = arena(
        {"bran": ("a", "bran", bran), "lout": ("b", sheet("thug", stress_max=0), lout)},
        dice=[
            *[5, 1, 1, 1, 1],  # 13: 1 quality + Threat 2 = 3, not above the threshold 3
            *[5, 1, 1, 1, 1],  # 28: 3 again
            *[6, 6, 6, 6, 6],  # 43: intimidation 5: 5 qualities + the threat's 1 = 6
            6,  # 44: the lout's will, 1 die; its flaw (coward) raises the difficulty to 1
        ],
        max_segments=60,
    )
    fight.run()
    blows = of_type(fight, "rupture.blow")
    # Effort 4: 3 lost, then 1 lost and 2 stress; then the threat: 6 more stress.
    assert [(b.domain, b.final, b.effort, b.stress) for b in blows] == [
        ("physical", 3, 1, 0),
        ("physical", 3, 0, 2),
        ("mental", 6, 0, 8),
    ]
    defence = one(fight, "rupture.defence")
    assert (defence.skill, defence.faces, defence.difficulty, defence.success) == (
        "will",
        (6,),
        1,
        False,
    )
    over = one(fight, "rupture.overflow")  # only the threat overflows: 6 - 2 = 4
    assert (over.domain, over.nature, over.threshold, over.value, over.stress) == (
        "mental",
        "terror",
        2,
        4,
        12,
    )
    assert over.effect == "out of the fight"
    assert one(fight, "combatant.out").reason == "mental overflow of 4"
    assert fight.state.combatants["lout"].status.wounds == [Wound("mental", "terror", 4)]
    assert fight.outcome is not None and fight.outcome.winner == "a"


def test_the_texts_example_with_the_mace_it_names() -> None:
    """Rupture, "Dépassement", word for word: "attendrir un péquin à coup de masse sans
    obtenir de dépassement", then "rends-toi ou crève" gives a psychological overflow,
    applied at once (effort, fatigue) with a wound of psychological nature. The mace
    (Threat 3) would overflow the péquin's physical threshold 3 on any success: the
    péquin parries each blow enough to stay at or below it."""
    weapons = RULES.content.weapons
    bran = sheet("bran", weapons=(weapons["mace"], weapons["threat"]))
    script = Scripted(
        {
            0: declare("attack", "lout", weapon="mace"),
            15: declare("attack", "lout", weapon="mace"),
            30: declare("threaten", "lout"),
        }
    )
    lout = Scripted({14: declare("defend", "bran"), 29: declare("defend", "bran")})
    fight = arena(
        {"bran": ("a", bran, script), "lout": ("b", sheet("thug", stress_max=0), lout)},
        dice=[
            *[5, 1, 1, 1, 1],  # 13: 1 quality + the mace's Threat 3 = 4
            *[5, 1, 1],  # 14: the péquin's parry, melee 3: 1 quality (club: no Cover)
            *[5, 1, 1, 1, 1],  # 28: 4 again
            *[6, 1, 1],  # 29: parried for 1 again
            *[6, 6, 6, 6, 6],  # 43: "rends-toi ou crève": 5 qualities + 1 = 6, undefended
        ],
        max_segments=60,
    )
    fight.run()
    blows = [
        (b.domain, b.attack, b.defence, b.final, b.effort, b.stress)
        for b in of_type(fight, "rupture.blow")
    ]
    # Effort 4: 3 lost; 1 lost and 2 stress; then the threat: 6 more stress at once.
    assert blows == [
        ("physical", 4, 1, 3, 1, 0),
        ("physical", 4, 1, 3, 0, 2),
        ("mental", 6, 0, 6, 0, 8),
    ]
    over = one(fight, "rupture.overflow")  # no physical overflow; the threat's: 6 - 2 = 4
    assert (over.t, over.domain, over.nature, over.value, over.stress) == (
        44,
        "mental",
        "terror",
        4,
        12,
    )
    assert fight.state.combatants["lout"].status.wounds == [Wound("mental", "terror", 4)]
    assert not fight.state.combatants["lout"].in_fight


def test_a_social_duel_runs_like_a_fight() -> None:
    # The countess persuades the envoy (eloquence 5, argument: Threat 1, social); the
    # envoy (effort 6) answers with eloquence 5 and the Cover 1 of its own argument.
    countess = Scripted({0: declare("persuade", "envoy"), 15: declare("persuade", "envoy")})
    envoy = Scripted({14: declare("defend", "countess", skill="eloquence"), 30: None})
    fight = arena(
        {
            "countess": ("court", "countess", countess),
            "envoy": ("embassy", sheet("envoy", rupture={"social": 1}), envoy),
        },
        dice=[
            *[6, 5, 1, 1, 1],  # 13: 2 qualities + 1 = 3
            *[5, 1, 1, 1, 1],  # 14: 1 quality + Cover 1 = 2: final 1
            *[6, 6, 6, 5, 1],  # 28: 4 + 1 = 5, undefended: final 5, overflow 5 - 1 = 4
        ],
        positions={"countess": (0.0, 0.0), "envoy": (3.0, 0.0)},
        max_segments=45,
    )
    fight.run()
    attacks = of_type(fight, "rupture.attack")
    assert [(a.kind, a.domain, a.skill, a.value) for a in attacks] == [
        ("persuade", "social", "eloquence", 3),
        ("persuade", "social", "eloquence", 5),
    ]
    defence = one(fight, "rupture.defence")
    assert (defence.skill, defence.value, defence.cover_from) == ("eloquence", 2, "argumentation")
    blows = of_type(fight, "rupture.blow")
    assert [(b.final, b.effort, b.stress) for b in blows] == [(1, 5, 0), (5, 0, 0)]
    over = one(fight, "rupture.overflow")
    assert (over.domain, over.nature, over.value) == ("social", "loss of face", 4)
    assert one(fight, "combatant.out").reason == "social overflow of 4"
    assert fight.outcome is not None and fight.outcome.winner == "court"


def test_a_manoeuvre_reaches_within_earshot_and_a_weapon_within_its_range() -> None:
    # 5 m apart: a threat (10 m) is in range, the sword (2 m) is not.
    fight = arena(
        {"bran": ("a", "bran", Never()), "lout": ("b", "thug", Never())},
        positions={"bran": (0.0, 0.0), "lout": (5.0, 0.0)},
    )
    fight.start()
    fight.env.run(until=0.5)
    obs = fight.ruleset.observe(fight.state, "bran", 0, False)
    kinds = {(d.kind, d.params.get("weapon")) for d in obs.legal() if d.target == "lout"}
    assert ("threaten", "threat") in kinds and ("intimidate", "glare") in kinds
    assert ("attack", "sword") not in kinds
    with pytest.raises(IllegalDeclaration) as err:
        fight.ruleset.plan(fight.state, "bran", declare("attack", "lout"), 0, [])
    assert "beyond the reach of épée (2 m)" in err.value.message
    assert err.value.rule == "Rupture, Les actions ciblées"


# ---------------------------------------------------------------- untargeted actions


def test_a_move_needs_no_test_and_stops_next_to_the_fighter_it_goes_to() -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("move", "lout")})),
            "lout": ("b", "thug", Never()),
        },
        positions={"bran": (0.0, 0.0), "lout": (20.0, 0.0)},
        max_segments=15,
    )
    fight.run()
    moved = one(fight, "combatant.moved")
    assert (moved.t, moved.x, moved.y) == (14, 6.0, 0.0)  # speed 6 m
    assert of_type(fight, "die.rolled") == []


@pytest.mark.parametrize(("faces", "x"), [([5, 1, 1], 12.0), ([4, 1, 1], 6.0)])
def test_a_run_covers_twice_a_move_on_a_successful_athletics_test(
    faces: list[int], x: float
) -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("run", "lout")})),
            "lout": ("b", "thug", Never()),
        },
        positions={"bran": (0.0, 0.0), "lout": (20.0, 0.0)},
        dice=faces,
        max_segments=15,
    )
    fight.run()
    test = one(fight, "rupture.test")
    assert (test.kind, test.skill, test.pool) == ("run", "athletics", 3)
    assert one(fight, "combatant.moved").x == x


def test_prepare_gives_its_qualities_as_dice_to_the_next_action_test() -> None:
    # Tactics 2: [6 5] = 2 qualities: the next attack rolls 5 + 2 = 7 dice.
    bran = Scripted({0: declare("prepare"), 15: declare("attack", "guard")})
    fight = arena(
        {"bran": ("a", "bran", bran), "guard": ("b", "guard", Never())},
        dice=[6, 5, *[1] * 7],
    )
    fight.run()
    assert one(fight, "rupture.prepared").dice == 2
    roll = one(fight, "rupture.attack")
    assert (roll.pool, roll.bonus) == (7, 2)
    assert fight.state.combatants["bran"].status.bonus == 0


def test_help_gives_an_ally_dice_for_its_next_action_test() -> None:
    # Ysolde (tactics 3) helps Bran: [6 1 1] = 1 quality; Bran's attack at 15 rolls 6 dice.
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({15: declare("attack", "guard")})),
            "ysolde": ("a", "ysolde", Scripted({0: declare("help", "bran")})),
            "guard": ("b", "guard", Never()),
        },
        dice=[6, 1, 1, *[1] * 6],
        positions={"bran": (0.0, 0.0), "ysolde": (0.0, 1.0), "guard": (1.5, 0.0)},
    )
    fight.run()
    helped = one(fight, "rupture.helped")
    assert (helped.t, helped.actor, helped.ally, helped.dice) == (9, "ysolde", "bran", 1)
    assert one(fight, "rupture.attack").pool == 6


def test_heal_gives_an_ally_effort_back_up_to_its_maximum() -> None:
    # Medicine 4: [6 6 6 1] = 3 qualities, but Bran lacks only 2 of his 6 effort points.
    fight = arena(
        {
            "bran": ("a", "bran", Never()),
            "ysolde": ("a", "ysolde", Scripted({0: declare("heal", "bran")})),
            "guard": ("b", "guard", Never()),
        },
        dice=[6, 6, 6, 1],
        max_segments=10,
    )
    fight.state.combatants["bran"].status.effort = 4  # arranged: an earlier blow
    fight.run()
    healed = one(fight, "rupture.healed")
    assert (healed.ally, healed.restored, healed.effort) == ("bran", 2, 6)


def test_healing_a_fallen_ally_stabilises_it_without_bringing_it_back() -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Never()),
            "ysolde": ("a", "ysolde", Scripted({0: declare("heal", "bran")})),
            "guard": ("b", "guard", Never()),
        },
        dice=[5, 1, 1, 1],
        max_segments=10,
    )
    fight.state.remove("bran")  # arranged: out of the fight before it starts
    fight.run()
    assert one(fight, "rupture.stabilised").ally == "bran"
    assert not fight.state.combatants["bran"].in_fight


def test_working_equipment_is_a_test_at_the_game_masters_difficulty() -> None:
    # Craft is not on Bran's sheet: 0 dice, a sure failure; Ysolde's medicine is not craft
    # either, so the test is given a skill: tactics 3 [5 5 1], difficulty 1: 1 quality.
    fight = arena(
        {
            "ysolde": (
                "a",
                "ysolde",
                Scripted({0: declare("work", what="winch", skill="tactics", difficulty=1)}),
            ),
            "bran": ("a", "bran", Scripted({0: declare("work", what="lock")})),
            "guard": ("b", "guard", Never()),
        },
        dice=[5, 5, 1],
        max_segments=15,
    )
    fight.run()
    tests = {t.actor: t for t in of_type(fight, "rupture.test")}
    assert (tests["ysolde"].what, tests["ysolde"].faces) == (
        "winch",
        (5, 5, 1),
    )
    assert (tests["ysolde"].difficulty, tests["ysolde"].qualities, tests["ysolde"].success) == (
        1,
        1,
        True,
    )
    assert (tests["bran"].skill, tests["bran"].pool, tests["bran"].success) == ("craft", 0, False)


def test_acrobatics_moves_only_on_a_success() -> None:
    fight = arena(
        {
            "ysolde": (
                "a",
                "ysolde",
                Scripted({0: declare("acrobatics", what="over the table", to=[4.0, 0.0])}),
            ),
            "guard": ("b", "guard", Never()),
        },
        positions={"ysolde": (0.0, 0.0), "guard": (10.0, 0.0)},
        dice=[1, 2, 3],
        max_segments=10,
    )
    fight.run()
    assert not one(fight, "rupture.test").success
    assert of_type(fight, "combatant.moved") == []


# ---------------------------------------------------------------- illegal declarations


@pytest.mark.parametrize(
    ("decl", "rule", "text"),
    [
        (declare("attack", "ysolde"), "Rupture, Les actions ciblées", "same side"),
        (declare("defend", "guard"), "Rupture, Se défendre", "no attack of 'guard'"),
        (declare("help", "guard"), "Rupture, Les actions non ciblées", "for an ally"),
        (declare("persuade", "guard"), "Rupture, Les actions ciblées", "no persuade manoeuvre"),
        (declare("fly"), "Rupture, Les actions ciblées", "unknown action 'fly'"),
        (declare("attack", "guard", blow="cut"), "declarations", "takes no parameter blow"),
        (declare("move", to=[50.0, 0.0]), "Rupture, Les actions non ciblées", "6 m at most"),
    ],
)
def test_illegal_declarations_name_the_rule_and_change_nothing(
    decl: Declaration, rule: str, text: str
) -> None:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: decl})),
            "ysolde": ("a", "ysolde", Never()),
            "guard": ("b", "guard", Never()),
        }
    )
    with pytest.raises(IllegalDeclaration) as err:
        fight.run()
    assert err.value.rule == rule
    assert text in err.value.message
    assert not [e for e in fight.history if e.TYPE == "action.declared" and e.actor == "bran"]


def test_a_defence_answers_one_attack_once_with_a_skill_the_sheet_allows() -> None:
    def twice(obs: Observation) -> list[Declaration]:
        return [declare("defend", "bran"), declare("defend", "bran")]

    for script, text in (
        (twice, "already defends against bran's attack"),
        (declare("defend", "bran", skill="eloquence"), "with melee, athletics, not 'eloquence'"),
        (declare("defend", "bran", **{"with": "argument"}), "lends no cover"),
    ):
        fight = arena(
            {
                "bran": ("a", "bran", Scripted({0: declare("attack", "guard")})),
                "guard": ("b", "guard", Scripted({14: script})),
            },
            dice=[6, 1, 1, 1, 1],
        )
        with pytest.raises(IllegalDeclaration) as err:
            fight.run()
        assert err.value.rule == "Rupture, Se défendre"
        assert text in err.value.message


def test_a_declared_action_cannot_be_cancelled() -> None:
    def cancel(obs: Observation) -> Cancel:
        return Cancel(next(a.id for a in obs.me.actions if a.kind == "attack"))

    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("attack", "guard"), 3: cancel})),
            "guard": ("b", "guard", Never()),
        }
    )
    with pytest.raises(IllegalDeclaration) as err:
        fight.run()
    assert err.value.rule == "Rupture, Les actions ciblées"
    assert "cannot be cancelled" in err.value.message
