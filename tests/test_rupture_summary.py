"""Rupture, "Les bases résumées": every step of the summary with its numbers, and the
overflow rules of "Dépassement", on a duel with loaded dice.

Bran (melee 5 d6, sword: Threat 2) attacks the guard (melee 4 d6, effort 5, physical
rupture threshold 4, a shield of Cover 2 and a mace of Cover 0) at segment 0. Bran has 2
actions per passe, so his attack fills his slot, segments 0-14: its test is rolled and
published at the end of segment 13, the guard may declare its free defence at segment 14
(the slot's last), and the blow is settled at the end of segment 14, as the slot ends.
"""

from __future__ import annotations

from typing import Any

import pytest
from rupture_helpers import arena, of_type, one, sheet, types

from segsim.actions import Declaration
from segsim.policy import Observation
from segsim.rules.rupture.status import Wound
from segsim.testing import Scripted, declare

SWORD = declare("attack", "guard", weapon="sword")


class Defender:
    """Defends (with its default skill) against every attack whose published value is at
    least ``threshold``; remembers what it saw each time it was asked."""

    reactive = False
    name = "defender"

    def __init__(self, threshold: int = 1) -> None:
        self.threshold = threshold
        self.seen: list[tuple[int, tuple[Any, ...], bool]] = []

    def decide(self, obs: Observation) -> Any:
        me = obs.me
        self.seen.append((obs.segment, me.incoming, me.free))
        return [
            Declaration("defend", inc.attacker)
            for inc in me.incoming
            if inc.value >= self.threshold
        ] or None


def duel(
    attack: list[int],
    defence: list[int] | None = None,
    *,
    guard: Any = "guard",
    bran: Any = "bran",
    options: dict[str, Any] | None = None,
) -> Any:
    dice = [*attack, *(defence or [])]
    policy = Defender() if defence is not None else Defender(threshold=99)
    fight = arena(
        {
            "bran": ("a", bran, Scripted({0: SWORD})),
            "guard": ("b", guard, policy),
        },
        dice=dice,
        options=options,
    )
    fight.run()
    return fight


def test_step_1_the_attack_value_is_qualities_plus_threat_on_a_success() -> None:
    # 5d6 [6 5 2 1 3]: two qualities (5 and 6), + the sword's Threat 2 = 4.
    fight = duel([6, 5, 2, 1, 3], [1, 1, 1, 1])
    roll = one(fight, "rupture.attack")
    assert (roll.t, roll.pool, roll.faces, roll.difficulty) == (13, 5, (6, 5, 2, 1, 3), 0)
    assert (roll.success, roll.qualities, roll.threat, roll.value) == (True, 2, 2, 4)


def test_step_1_a_failed_attack_is_worth_nothing_and_gives_no_blow() -> None:
    # 5d6 [4 4 3 2 1]: no quality, so no Threat either: the attack value is 0, nothing
    # lands and the guard is not called to defend.
    fight = duel([4, 4, 3, 2, 1], [])
    roll = one(fight, "rupture.attack")
    assert (roll.success, roll.qualities, roll.value) == (False, 0, 0)
    assert of_type(fight, "action.spawned") == []
    assert of_type(fight, "rupture.blow") == []
    assert not [e for e in of_type(fight, "action.declared") if e.kind == "defend"]


def test_step_2_the_defence_value_is_qualities_plus_cover_on_a_success() -> None:
    # 4d6 [5 1 1 2]: one quality, + Cover 2 of the shield (the best the guard has) = 3.
    fight = duel([6, 5, 2, 1, 3], [5, 1, 1, 2])
    defence = one(fight, "rupture.defence")
    assert (defence.t, defence.skill, defence.pool, defence.faces) == (14, "melee", 4, (5, 1, 1, 2))
    assert (defence.qualities, defence.cover, defence.cover_from, defence.value) == (
        1,
        2,
        "bouclier",
        3,
    )


def test_step_2_a_failed_defence_adds_no_cover() -> None:
    # 4d6 [4 4 1 1]: no quality: defence value 0, the shield's Cover is not added.
    fight = duel([6, 5, 2, 1, 3], [4, 4, 1, 1])
    defence = one(fight, "rupture.defence")
    assert (defence.success, defence.cover, defence.value) == (False, 0, 0)
    blow = one(fight, "rupture.blow")
    assert (blow.attack, blow.defence, blow.final) == (4, 0, 4)


def test_step_3_and_5_final_value_is_attack_minus_defence_paid_in_effort() -> None:
    # Attack 4 - defence 3 = 1: the guard loses 1 effort point (5 -> 4), no stress.
    fight = duel([6, 5, 2, 1, 3], [5, 1, 1, 2])
    blow = one(fight, "rupture.blow")
    assert (blow.t, blow.attack, blow.defence, blow.final) == (14, 4, 3, 1)
    assert (blow.effort_lost, blow.stress_taken, blow.effort, blow.stress) == (1, 0, 4, 0)
    assert fight.state.combatants["guard"].status.effort == 4


@pytest.mark.parametrize(
    ("defence", "final"),
    [([6, 1, 1, 1], 0), ([6, 6, 1, 1], -1)],
)
def test_step_4_zero_or_less_is_dodged_or_turned_aside(defence: list[int], final: int) -> None:
    # Attack [5 1 1 1 1]: 1 quality + 2 = 3. Defence 1 + 2 = 3 (final 0) or 2 + 2 = 4
    # (final -1): turned aside, the guard keeps its 5 effort points.
    fight = duel([5, 1, 1, 1, 1], defence)
    blow = one(fight, "rupture.blow")
    assert (blow.attack, blow.final, blow.effort_lost, blow.stress_taken) == (3, final, 0, 0)
    assert "turned aside" in blow.describe()
    assert fight.state.combatants["guard"].status.effort == 5
    assert of_type(fight, "rupture.overflow") == []


def test_step_5_what_effort_cannot_pay_is_physical_stress() -> None:
    # Attack [6 6 6 1 1]: 3 + 2 = 5, undefended. The guard has 2 effort points left and a
    # threshold of 9: 2 effort points lost, 3 physical stress for the rest.
    guard = sheet("guard", effort=2, rupture={"physical": 9})
    fight = duel([6, 6, 6, 1, 1], guard=guard)
    blow = one(fight, "rupture.blow")
    assert (blow.defence, blow.final, blow.effort_lost, blow.stress_taken) == (0, 5, 2, 3)
    status = fight.state.combatants["guard"].status
    assert (status.effort, status.stress) == (0, 3)


def test_step_6_above_the_threshold_an_overflow_of_final_minus_threshold() -> None:
    # Attack [6 6 6 6 1]: 4 + 2 = 6, undefended, against threshold 4: 5 effort points
    # lost, 1 stress, and an overflow of 6 - 4 = 2: 2 more stress at once (3 in all) and a
    # wound noted with its nature and value; under 4, the guard fights on.
    fight = duel([6, 6, 6, 6, 1])
    over = one(fight, "rupture.overflow")
    assert (over.final, over.threshold, over.value, over.stress) == (6, 4, 2, 3)
    assert (over.domain, over.nature, over.wound, over.effect) == ("physical", "cut", True, "")
    status = fight.state.combatants["guard"].status
    assert (status.effort, status.stress) == (0, 3)
    assert status.wounds == [Wound("physical", "cut", 2)]
    assert fight.state.combatants["guard"].in_fight


def test_a_final_value_equal_to_the_threshold_is_no_overflow() -> None:
    # Attack 4 undefended against threshold 4: "supérieure" means strictly above.
    fight = duel([6, 5, 2, 1, 3])
    assert one(fight, "rupture.blow").final == 4
    assert of_type(fight, "rupture.overflow") == []


@pytest.mark.parametrize(
    ("threshold", "overflow", "in_fight", "reason"),
    [
        (3, 3, True, None),
        (2, 4, False, "physical overflow of 4"),
        (1, 5, False, "physical overflow of 5"),
    ],
)
def test_an_overflow_of_4_or_more_takes_the_target_out_of_the_fight(
    threshold: int, overflow: int, in_fight: bool, reason: str | None
) -> None:
    guard = sheet("guard", rupture={"physical": threshold}, stress_max=0)
    fight = duel([6, 6, 6, 6, 1], guard=guard)  # final 6
    over = one(fight, "rupture.overflow")
    assert over.value == overflow
    assert fight.state.combatants["guard"].in_fight is in_fight
    outs = of_type(fight, "combatant.out")
    assert [o.reason for o in outs] == ([] if reason is None else [reason])
    assert fight.state.combatants["guard"].status.wounds == [Wound("physical", "cut", overflow)]
    assert not fight.state.combatants["guard"].status.dead


def test_an_overflow_of_8_or_more_kills() -> None:
    # Melee 8: [6 6 6 6 6 6 1 1] = 6 qualities + 2 = 8 against threshold 0: overflow 8.
    bran = sheet("bran", skills={"melee": 8})
    guard = sheet("guard", rupture={"physical": 0})
    fight = duel([6, 6, 6, 6, 6, 6, 1, 1], bran=bran, guard=guard)
    over = one(fight, "rupture.overflow")
    assert (over.value, over.effect) == (8, "dead")
    assert one(fight, "combatant.out").reason == "dead"
    assert fight.state.combatants["guard"].status.dead
    assert fight.outcome is not None and fight.outcome.winner == "a"


def test_wound_from_sets_the_smallest_overflow_that_notes_a_wound() -> None:
    fight = duel([6, 6, 6, 6, 1], options={"wound_from": 3})  # overflow 2
    over = one(fight, "rupture.overflow")
    assert (over.value, over.wound, over.stress) == (2, False, 3)
    assert fight.state.combatants["guard"].status.wounds == []


@pytest.mark.parametrize("stress_out", [True, False])
def test_physical_stress_reaching_the_sheets_maximum_takes_the_fighter_out(
    stress_out: bool,
) -> None:
    guard = sheet("guard", effort=2, rupture={"physical": 9}, stress_max=3)
    fight = duel([6, 6, 6, 1, 1], guard=guard, options={"stress_out": stress_out})  # 3 stress
    assert fight.state.combatants["guard"].in_fight is not stress_out
    if stress_out:
        assert one(fight, "combatant.out").reason == "physical stress 3 of 3"


def test_the_defence_is_declared_after_the_roll_is_published_and_the_record_shows_it() -> None:
    judge = Defender(threshold=4)
    fight = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", judge)},
        dice=[6, 5, 2, 1, 3, 5, 1, 1, 2],
    )
    fight.run()
    # Before the roll the guard saw no incoming attack; at segment 14 it saw the roll.
    asked = {seg: incoming for seg, incoming, _ in judge.seen}
    assert asked[0] == ()
    [incoming] = asked[14]
    assert (incoming.attacker, incoming.kind, incoming.domain, incoming.weapon) == (
        "bran",
        "attack",
        "physical",
        "sword",
    )
    assert (incoming.qualities, incoming.threat, incoming.value) == (2, 2, 4)
    # The record: roll (end of 13), the blow set off, the defence declared at 14, then the
    # defence test and the blow, both at the end of segment 14.
    keep = ("rupture.attack", "action.spawned", "rupture.defence", "rupture.blow")
    order = [
        (e.t, e.TYPE)
        for e in fight.history
        if e.TYPE in keep or (e.TYPE == "action.declared" and e.kind == "defend")
    ]
    assert order == [
        (13, "rupture.attack"),
        (13, "action.spawned"),
        (14, "action.declared"),
        (14, "rupture.defence"),
        (14, "rupture.blow"),
    ]


def test_the_defence_is_optional_and_its_policy_decides_from_the_roll() -> None:
    # The same attack is worth 3 ([5 1 1 1 1]): below the guard's 4, it does not defend.
    judge = Defender(threshold=4)
    fight = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", judge)},
        dice=[5, 1, 1, 1, 1],
    )
    fight.run()
    assert [seg for seg, incoming, _ in judge.seen if incoming] == [14]
    assert of_type(fight, "rupture.defence") == []
    blow = one(fight, "rupture.blow")
    assert (blow.defence, blow.final, blow.effort) == (0, 3, 2)


def test_the_free_defence_costs_no_action() -> None:
    # Ysolde has 3 actions per passe (slots at 0, 10, 20). She attacks Bran at 10; Bran's
    # attack on her is rolled at 13, she defends at 14 while her own attack runs, her
    # attack is still rolled at 18 (her slot's last segment is for Bran's answer) and she
    # acts again at 20: three actions in the passe.
    judge = Defender()
    ysolde = Scripted(
        {
            0: declare("move", to=[1.5, 0.0]),
            10: declare("attack", "bran", weapon="spear"),
            14: judge.decide,
        }
    )
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: declare("attack", "ysolde")})),
            "ysolde": ("b", "ysolde", ysolde),
        },
        dice=[6, 1, 1, 1, 1, 5, 1, 1, 1, 1, 1],
    )
    fight.run()
    [(seg, _, free)] = judge.seen
    assert (seg, free) == (14, False)
    seen = ysolde.seen_at(14).me
    assert (seen.free, seen.actions_left) == (False, 1)
    mine = [(e.t, e.kind) for e in of_type(fight, "action.declared") if e.actor == "ysolde"]
    assert ("defend" in {k for _, k in mine}) and (14, "defend") in mine
    # At 19 her attack is rolled but its slot is not over: she may only hold it.
    assert ysolde.seen_at(19).me.free is False
    assert [(t, k) for t, k in mine if k not in ("defend", "wait") and t < 30] == [
        (0, "move"),
        (10, "attack"),
        (19, "pass"),
        (20, "pass"),
    ]
    rolls = [(e.t, e.actor) for e in of_type(fight, "rupture.attack")]
    assert rolls == [(13, "bran"), (18, "ysolde")]
    assert types(fight.history, ["rupture.defence"]) == [(14, "rupture.defence")]


def test_an_undefended_blow_lands_before_anyone_acting_at_the_slots_end_decides() -> None:
    """Rupture, "Les actions ciblées": the value of an undefended attack is taken from
    effort "immédiatement". The roll is published one segment before the attacker's slot
    ends (13), the target may answer in the slot's last segment (14), and the blow lands
    as the slot ends: the attacker, and every fighter acting at that boundary, decides
    its next action (15) knowing the result. Before, the blow landed at the end of 15,
    after those decisions."""
    bran = Scripted({0: SWORD, 15: None})
    guard = Scripted({15: None})
    fight = arena(
        {"bran": ("a", "bran", bran), "guard": ("b", "guard", guard)},
        dice=[6, 6, 6, 1, 1],  # 3 qualities + Threat 2 = 5, undefended
    )
    fight.run()
    roll, blow = one(fight, "rupture.attack"), one(fight, "rupture.blow")
    assert (roll.t, blow.t, blow.defence, blow.final, blow.effort) == (13, 14, 0, 5, 0)
    # Both decide again at 15 with the blow already paid.
    assert [o.effort for o in bran.seen_at(15).others] == [0]
    assert guard.seen_at(15).me.effort == 0
    # Between the roll and the blow Bran could start nothing: his slot is not over.
    assert bran.seen_at(14).me.free is False
