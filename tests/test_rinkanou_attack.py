"""RinKaNou attack, damage, wounds and simultaneous actions (RinKaNou: "Attaque",
"Actions simultanées", "Résultats critiques en combat"; RULES-NOTES: hit locations,
health)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from segsim.fight import Fight
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.content import default_content
from segsim.rules.rinkanou.events import TestRolled
from segsim.testing import Scripted, build_fight, declare, sheet

ATTACK = {0: declare("arm"), 3: declare("strike", "robert", blow="cut")}


def fight_of(
    robert: dict[int, Any], margaret: dict[int, Any], dice: list[int], robert_sheet: Any = "robert"
) -> Fight:
    return build_fight(
        {
            "robert": ("blue", robert_sheet, Scripted(robert)),
            "margaret": ("red", "margaret", Scripted(margaret)),
        },
        dice=dice,
        ruleset=RinKaNou(start_roll=False),
    )


def events(fight: Fight, type_: str) -> list[Any]:
    return [e for e in fight.history if type_ == e.TYPE]


def test_attack_chance_is_skill_plus_characteristic_minus_deflection() -> None:
    """RinKaNou, "Attaque": weapon skill + the weapon's characteristic, malus = the
    defender's armour deflection. Margaret: sabre 55 + agility 25 - leather 5 = 75."""
    fight = fight_of({}, ATTACK, [75, 15])
    fight.run()
    [test] = [e for e in fight.history if isinstance(e, TestRolled)]
    assert test.chance == 75 and test.success and test.margin == 0
    assert test.modifiers == {"sabre": 55, "agility": 25, "deflection": -5}


def test_damage_is_weapon_plus_mr_over_10_plus_strength_minus_absorption() -> None:
    """RinKaNou, "Attaque": yatagan cut 9 + Mr 42 // 10 = 4 + strength 30 -> +1 -
    leather absorption 3 = 11; chest wound factor 100 %."""
    fight = fight_of({}, ATTACK, [33 - 0, 15])  # roll 33 vs 75: Mr 42 (33 is a double!)
    fight.run()
    [wound] = events(fight, "wound.taken")
    # 33 is a double: a critical success, so the margin adds Mr / 5 = 8 instead of 4.
    assert wound.detail == {"weapon": 9, "margin": 8, "strength": 1, "absorption": -3}
    assert wound.damage == 15 and wound.location == "chest" and wound.wound == 15


def test_plain_success_adds_mr_over_10() -> None:
    fight = fight_of({}, ATTACK, [32, 15])  # Mr 43 -> +4
    fight.run()
    [wound] = events(fight, "wound.taken")
    assert wound.detail["margin"] == 4 and wound.damage == 11


def test_hit_location_lookups_agree_with_the_table() -> None:
    """Each face of the d100 finds the one location whose range spans it, and each name
    its location (RULES-NOTES hit locations); anything else is refused."""
    tables = default_content().tables
    for roll in range(1, 101):
        [spanning] = [loc for loc in tables.locations if loc.low <= roll <= loc.high]
        assert tables.location(roll) is spanning
    for loc in tables.locations:
        assert tables.location_named(loc.name) is loc
    with pytest.raises(ValueError, match="no hit location for 101"):
        tables.location(101)
    with pytest.raises(KeyError):
        tables.location_named("tail")


def test_hit_location_table_and_wound_factor() -> None:
    """RULES-NOTES hit locations: 07-08 throat (factor 200 %), 88-100 left leg (75 %)."""
    content = default_content()
    assert content.tables.location(8).name == "throat"
    assert content.tables.location(88).name == "left_leg"
    assert (
        sum(loc.high - loc.low + 1 for loc in content.tables.locations if "leg" in loc.name) == 26
    )
    fight = fight_of({}, ATTACK, [32, 7])
    fight.run()
    [wound] = events(fight, "wound.taken")
    assert wound.location == "throat" and wound.damage == 11 and wound.wound == 22


def test_armour_covering_some_locations_only_absorbs_there() -> None:
    mail = default_content().armours["mail"]  # no head, throat or legs
    robert = sheet("robert", armour=mail)
    # Mail deflects 10: chance 55 + 25 - 10 = 70, roll 32 -> Mr 38 -> +3.
    fight = fight_of({}, ATTACK, [32, 90], robert_sheet=robert)  # left leg: not covered
    fight.run()
    [wound] = events(fight, "wound.taken")
    assert wound.detail == {"weapon": 9, "margin": 3, "strength": 1, "absorption": 0}
    assert wound.damage == 13 and wound.wound == 10  # leg factor 75 %, rounded


def test_a_missed_attack_does_no_damage() -> None:
    fight = fight_of({}, ATTACK, [76])
    fight.run()
    [result] = events(fight, "attack.resolved")
    assert result.result == "missed"
    assert not events(fight, "wound.taken")


def test_wounds_give_a_malus_to_every_roll_and_take_a_fighter_out() -> None:
    """The wound model (docs/rules/rinkanou.md): levels at 25/50/75/100 % of health."""
    weak = sheet("robert", health=12)
    script = {0: declare("arm"), 3: declare("strike", "robert", blow="cut")}
    script |= {9: declare("arm"), 12: declare("strike", "robert", blow="cut")}
    # First blow: Mr 43 -> 11 damage to the chest: 11 >= 0.75 * 12 -> grave (-40).
    fight = fight_of({}, script, [32, 15, 75 - 40, 20], robert_sheet=weak)
    fight.run()
    first, second = events(fight, "wound.taken")
    assert (first.total, first.level, first.malus) == (11, "grave", -40)
    assert fight.state.combatants["robert"].in_fight is False
    [out] = events(fight, "combatant.out")
    assert out.actor == "robert" and out.reason in ("incapacitated", "dead")
    assert fight.outcome is not None and fight.outcome.winner == "red"
    assert second.total >= 12


def test_the_wounded_attacker_rolls_with_the_wound_malus() -> None:
    script = {0: declare("arm"), 3: declare("strike", "margaret", blow="cut")}
    fight = build_fight(
        {
            "robert": ("blue", "robert", Scripted(script)),
            "margaret": ("red", "margaret", Scripted({})),
        },
        dice=[90],
        ruleset=RinKaNou(start_roll=False),
    )
    fight.state.combatants["robert"].status.wound_malus = -20
    fight.run()
    [test] = [e for e in fight.history if isinstance(e, TestRolled)]
    assert test.modifiers["wounds"] == -20 and test.chance == 55 + 30 - 5 - 20


@pytest.mark.parametrize(
    ("difficulty", "malus"), [("average", -10), ("easy", -2), ("very_easy", 0)]
)
def test_overlapping_rolled_actions_penalise_each_other(difficulty: str, malus: int) -> None:
    """RinKaNou, "Actions simultanées": a strike while repositioning suffers
    -10 % + (the reposition's difficulty / 2), never a bonus."""
    script = {
        0: declare("arm"),
        3: [declare("strike", "robert"), declare("reposition", difficulty=difficulty)],
    }
    fight = fight_of({}, script, [90, 50])
    fight.run()
    attack, reposition = [e for e in fight.history if isinstance(e, TestRolled)]
    assert attack.modifiers.get("simultaneous", 0) == malus
    # The strike weighs on the reposition the other way round, with the difficulty the
    # rules imposed on it: Robert's armour deflection, -5: -10 - 2.5 = -12.
    assert reposition.test == "reposition" and reposition.modifiers["simultaneous"] == -12


def test_actions_without_a_roll_cause_no_malus() -> None:
    """RinKaNou: arming needs no roll, so dodging while arming costs nothing."""
    fight = fight_of({0: declare("arm"), 1: declare("dodge")}, {}, [50])
    fight.run()
    [dodge] = [e for e in fight.history if isinstance(e, TestRolled)]
    assert dodge.test == "dodge" and "simultaneous" not in dodge.modifiers
    assert dodge.chance == 45 + 30


def test_combat_is_the_trunk_of_every_combat_skill_up_to_30() -> None:
    """RinKaNou, "Compétences de combat"."""
    recruit = sheet("recruit")  # combat 25, no sword skill
    assert recruit.skill("sword") == 25 and recruit.skill("dodge") == 25
    veteran = sheet("veteran")  # combat 55, sword 60
    assert veteran.skill("sword") == 60
    assert veteran.skill("axe") == 30  # combat stands in only up to 30 %
    assert attrs.evolve(veteran, skills={"combat": 20}).skill("sword") == 20


def test_a_rolled_test_keeps_only_the_modifiers_that_count() -> None:
    """A table with a 0 in it is filtered into a new one (in order); a table without is
    the event's own, as the caller handed it over (``TestRolled.rolled``)."""
    mods = {"sword": 40, "cover": 0, "agility": 12, "ps": 0}
    filtered = TestRolled.rolled(3, "a", 7, "attack", 52, 30, mods)
    assert list(filtered.modifiers.items()) == [("sword", 40), ("agility", 12)]
    assert filtered.modifiers is not mods and filtered.success and filtered.margin == 22
    clean = {"sword": 40, "agility": 12}
    kept = TestRolled.rolled(3, "a", 7, "attack", 52, 60, clean)
    assert kept.modifiers is clean and not kept.success and kept.margin == 8
