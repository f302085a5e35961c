"""Rupture, "Les actions ciblées": when the target does not defend, the attack value is
taken from its effort "immédiatement"; "Se défendre": the target may announce its
defence even after the attacker has rolled. So between a roll and its blow nothing
happens but the target's answer.

On segsim's clock an answer after the roll is a declaration, made in the declaration
phase that follows the roll (the segment after it), and the blow lands at the end of that
segment, before anything else settles there. These tests pin what makes that segment
invisible to the fight: the fighters of the exchange start nothing in it, and everyone
else sees the exchange as still to come until the blow lands.

Bran (2 actions per passe, melee 5d6, sword: Threat 2) attacks the guard at segment 0:
his roll is published at the end of segment 13 and the blow lands at the end of 14.
"""

from __future__ import annotations

from typing import Any

import pytest
from rupture_helpers import arena, of_type, one, sheet

from segsim import IllegalDeclaration
from segsim.actions import Declaration
from segsim.policy import Observation
from segsim.testing import Scripted, declare

SWORD = declare("attack", "guard", weapon="sword")
# Bran [6 6 6 1 1]: 3 qualities + Threat 2 = attack value 5.
BRAN_ROLL = [6, 6, 6, 1, 1]


def test_between_the_roll_and_the_blow_the_target_only_answers() -> None:
    """The guard (3 actions: slots 0, 10, 20) holds its second slot with a pass and is
    called at 14 to answer Bran's roll: it may defend, but an attack of its own would come
    between the roll and the blow and is refused, naming the rule. Once the blow has
    landed (15) it is free again, knowing what the blow cost it."""
    refused: list[IllegalDeclaration] = []

    def answer(obs: Observation) -> Any:
        try:
            fight.check("guard", [declare("attack", "bran", weapon="mace")])
        except IllegalDeclaration as exc:
            refused.append(exc)
        return declare("defend", "bran")

    guard = Scripted({10: declare("pass"), 14: answer, 15: declare("attack", "bran")})
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: SWORD})),
            "guard": ("b", sheet("guard", actions=3), guard),
        },
        # Bran's roll; the guard's defence 4d6 [1 1 1 1] fails; its attack 4d6 fails.
        dice=[*BRAN_ROLL, 1, 1, 1, 1, 1, 1, 1, 1],
    )
    fight.run()
    [exc] = refused
    assert exc.rule == "Rupture, Les actions ciblées"
    assert "immédiatement" in str(exc)
    assert guard.seen_at(14).me.free is False
    after = guard.seen_at(15).me
    assert (after.free, after.effort) == (True, 0)
    blow = one(fight, "rupture.blow")
    assert (blow.t, blow.final, blow.effort) == (14, 5, 0)
    mine = [(e.t, e.kind) for e in of_type(fight, "action.declared") if e.actor == "guard"]
    assert (14, "defend") in mine and (15, "attack") in mine


class StrikeOnce:
    """Defends against every roll if ``defends``; from segment 14 on, strikes Bran once
    as soon as it must act and is free; records what it saw."""

    reactive = False
    name = "strike-once"

    def __init__(self, defends: bool) -> None:
        self.defends = defends
        self.struck = False
        self.seen: list[tuple[int, bool, bool, int]] = []

    def decide(self, obs: Observation) -> Any:
        me = obs.me
        self.seen.append((obs.segment, obs.must_act, me.free, me.effort))
        out = [Declaration("defend", i.attacker) for i in me.incoming] if self.defends else []
        if obs.segment >= 14 and obs.must_act and me.free and not self.struck:
            self.struck = True
            out.append(declare("attack", "bran", weapon="mace"))
        return out or None


@pytest.mark.parametrize("defends", [True, False])
def test_a_slot_that_begins_as_the_blow_is_in_flight_starts_once_it_has_landed(
    defends: bool,
) -> None:
    """The guard has 4 actions per passe (slots 0, 7, 14, 21): its third slot begins at
    14, the segment in which it may answer Bran's roll. It must act there, but may start
    nothing before the blow: it answers (or not), and the rules call it again at 15, with
    the blow paid, to take that slot's action. Before, it struck at 14 without knowing
    what the blow would cost it."""
    policy = StrikeOnce(defends)
    defence = [1, 1, 1, 1] if defends else []
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: SWORD})),
            "guard": ("b", sheet("guard", actions=4), policy),
        },
        # Bran's roll; the guard's defence (if any) fails; its attack at 15 fails.
        dice=[*BRAN_ROLL, *defence, 1, 1, 1, 1],
    )
    fight.run()
    at = {seg: (must, free, effort) for seg, must, free, effort in policy.seen}
    assert at[14] == (True, False, 5)
    assert at[15] == (True, True, 0)
    attacks = [e.t for e in of_type(fight, "action.declared") if e.kind == "attack"]
    assert attacks == [0, 15]
    # The slot still ends at 21: the attack is rolled a segment before (at the end of 19).
    assert [e.t for e in of_type(fight, "rupture.attack")] == [13, 19]


def test_others_see_the_exchange_as_one_instant_at_the_blow() -> None:
    """The rogue (3 actions) hindered Bran earlier (a malus of 2 dice, spent by his
    roll at 13) and decides again at 14, while Bran's blow is in flight: to it Bran is
    still attacking the guard with his malus, as at a table where the roll, the answer
    and the blow come at once. At 15, with the blow landed, the exchange is over."""
    rogue = Scripted({0: declare("hinder", "bran", weapon="trip"), 14: None, 15: None})
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: SWORD})),
            "guard": ("b", "guard", Scripted({})),
            "rogue": ("b", sheet("rogue", actions=3), rogue),
        },
        positions={"rogue": (0.0, 1.5)},
        # The rogue's trip 4d6 [6 1 1 1]: 1 quality + Threat 1 = 2 dice off Bran's test;
        # Bran's attack 3d6 [6 6 1]: 2 qualities + 2 = 4, undefended.
        dice=[6, 1, 1, 1, 6, 6, 1],
    )
    fight.run()
    trip, roll = of_type(fight, "rupture.attack")
    assert (trip.t, trip.actor, trip.value) == (8, "rogue", 2)
    assert (roll.t, roll.pool, roll.malus, roll.value) == (13, 3, 2, 4)
    bran_at_14 = rogue.seen_at(14).other("bran")
    assert (bran_at_14.doing, bran_at_14.malus) == (("attack", "guard"), 2)
    assert rogue.seen_at(14).other("guard").effort == 5
    bran_at_15 = rogue.seen_at(15).other("bran")
    assert (bran_at_15.malus, rogue.seen_at(15).other("guard").effort) == (0, 1)
    # Bran himself knows his roll spent the malus.
    assert fight.ruleset.observe(fight.state, "bran", 14, False).me.malus == 0
