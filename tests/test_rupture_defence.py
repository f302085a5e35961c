"""Rupture, "Se défendre": a defence may be announced before the attack roll (the
ordinary case) or after it ("Elle peut même annoncer sa défense après que l'adversaire
ait lancé les dés"). Both orders, in a test script, a fight script and through
Fight.advance/submit, give the same fight: the defence test is rolled as the blow lands.

Bran (melee 5d6, sword: Threat 2) attacks the guard (melee 4d6, shield: Cover 2) at
segment 0; his roll is published at the end of segment 13 and the blow lands at the end
of segment 14, the last of his slot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from rupture_helpers import arena, of_type, one

from segsim import IllegalDeclaration
from segsim.actions import Declaration
from segsim.policy import Observation
from segsim.script import load_script
from segsim.testing import Scripted, declare

# Bran [6 5 2 1 3]: 2 qualities + 2 = 4; the guard [5 1 1 2]: 1 quality + Cover 2 = 3.
DICE = [6, 5, 2, 1, 3, 5, 1, 1, 2]
SWORD = declare("attack", "guard", weapon="sword")


def settled(fight: Any) -> list[Any]:
    """What the fight settled: rolls, defences, blows, overflows, every field but the
    blow's action id (an announced defence takes an id before the blow is set off)."""
    keep = ("die.rolled", "rupture.attack", "rupture.defence", "rupture.blow", "rupture.overflow")
    return [
        attrs.evolve(e, blow=0) if hasattr(e, "blow") else e
        for e in fight.history
        if e.TYPE in keep
    ]


def duel(defend_at: int, dice: list[int] = DICE, **params: Any) -> Any:
    fight = arena(
        {
            "bran": ("a", "bran", Scripted({0: SWORD})),
            "guard": ("b", "guard", Scripted({defend_at: declare("defend", "bran", **params)})),
        },
        dice=dice,
    )
    fight.run()
    return fight


@pytest.mark.parametrize("before", [1, 5, 13])
def test_a_defence_announced_before_the_roll_settles_as_one_declared_after_it(
    before: int,
) -> None:
    early, late = duel(before), duel(14)
    assert settled(early) == settled(late)
    defence, blow = one(early, "rupture.defence"), one(early, "rupture.blow")
    assert (defence.t, defence.faces, defence.value) == (14, (5, 1, 1, 2), 3)
    assert (blow.t, blow.attack, blow.defence, blow.final, blow.effort) == (14, 4, 3, 1, 4)
    for fight in (early, late):
        status = fight.state.combatants["guard"].status
        assert (status.effort, status.stress) == (4, 0)
    [announced] = [e for e in of_type(early, "action.declared") if e.kind == "defend"]
    attack = one(early, "rupture.attack").action
    assert (announced.t, announced.target, announced.params["attack"]) == (before, "bran", attack)


def test_an_announced_defence_keeps_its_skill_and_cover() -> None:
    # Defending with athletics (3d6 [5 1 1]) and the mace (Cover 0): 1 + 0 = 1.
    dice = [6, 5, 2, 1, 3, 5, 1, 1]
    early = duel(3, dice, skill="athletics", **{"with": "mace"})
    late = duel(14, dice, skill="athletics", **{"with": "mace"})
    assert settled(early) == settled(late)
    defence = one(early, "rupture.defence")
    assert (defence.skill, defence.pool, defence.cover, defence.value) == ("athletics", 3, 0, 1)


def test_an_announced_defence_against_a_failed_attack_rolls_nothing() -> None:
    fight = duel(5, [4, 4, 3, 2, 1])
    assert not one(fight, "rupture.attack").success
    assert of_type(fight, "rupture.defence") == [] and of_type(fight, "rupture.blow") == []
    assert len(of_type(fight, "die.rolled")) == 5


def test_the_target_who_announced_is_not_called_again_to_defend() -> None:
    # When the roll is published (13) the guard, which saw it, has nothing left to answer.
    guard = Scripted({5: declare("defend", "bran")})
    fight = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", guard)},
        dice=DICE,
    )
    fight.run()
    assert guard.seen_at(14).me.incoming == ()
    assert guard.seen_at(5).me.declared_against[0].attacker == "bran"
    assert guard.seen_at(5).me.declared_against[0].rolls_at == 13
    assert guard.seen_at(15).me.declared_against == ()


@pytest.mark.parametrize(
    ("script", "text"),
    [
        ({0: declare("defend", "bran")}, "no attack of 'bran' against guard"),
        (
            {5: [declare("defend", "bran"), declare("defend", "bran")]},
            "already defends against bran's attack",
        ),
        ({5: declare("defend", "bran"), 14: declare("defend", "bran")}, "already defends"),
    ],
)
def test_announcing_needs_a_declared_attack_and_happens_once(
    script: dict[int, Any], text: str
) -> None:
    # At 0 Bran's attack is declared in the same phase: the guard cannot know of it yet.
    fight = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", Scripted(script))},
        dice=DICE,
    )
    with pytest.raises(IllegalDeclaration) as err:
        fight.run()
    assert err.value.rule == "Rupture, Se défendre"
    assert text in err.value.message


class Announcer:
    """Announces its defence as soon as it sees a targeted action declared against it."""

    reactive = True
    name = "announcer"

    def decide(self, obs: Observation) -> Any:
        return [Declaration("defend", d.attacker) for d in obs.me.declared_against] or None


def test_a_policy_may_announce_from_what_it_sees_declared_against_it() -> None:
    policy = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", Announcer())},
        dice=DICE,
    )
    policy.run()
    [announced] = [e for e in of_type(policy, "action.declared") if e.kind == "defend"]
    assert announced.t == 1  # the segment after Bran's declaration, which it saw
    assert settled(policy) == settled(duel(14))


class External:
    """An agent outside the fight (Fight.advance/submit)."""

    external = True
    reactive = True
    name = "agent"

    def decide(self, obs: Observation) -> Any:  # pragma: no cover - never called
        raise AssertionError


def through_the_api(defend_at: int) -> Any:
    fight = arena(
        {"bran": ("a", "bran", Scripted({0: SWORD})), "guard": ("b", "guard", External())},
        dice=DICE,
    )
    fight.call_at("guard", defend_at)
    while True:
        pending = fight.advance()
        if not pending:
            return fight
        obs = pending["guard"]
        answer = None
        if obs.segment == defend_at:
            assert obs.me.declared_against if defend_at < 14 else obs.me.incoming
            answer = Declaration("defend", "bran")
        fight.submit({"guard": answer})


@pytest.mark.parametrize("before", [1, 7])
def test_both_orders_through_advance_and_submit(before: int) -> None:
    early, late = through_the_api(before), through_the_api(14)
    assert settled(early) == settled(late) == settled(duel(14))
    assert one(early, "rupture.blow").final == 1


SCRIPT = """\
[fight]
name = "a defence {when} the roll"
ruleset = "rupture"
max_segments = 30

[[combatant]]
id = "bran"
side = "a"
fighter = "bran"
position = [0.0, 0.0]

[[combatant]]
id = "guard"
side = "b"
fighter = "guard"
position = [1.5, 0.0]

[segment.0]
bran = {{ action = "attack", target = "guard", weapon = "sword" }}

[segment.{at}]
guard = {{ action = "defend", target = "bran" }}

[dice]
rolls = [6, 5, 2, 1, 3, 5, 1, 1, 2]
"""


def test_both_orders_in_a_fight_script(tmp_path: Path) -> None:
    fights = []
    for when, at in (("before", 6), ("after", 14)):
        path = tmp_path / f"{when}.toml"
        path.write_text(SCRIPT.format(when=when, at=at), encoding="utf-8")
        fights.append(load_script(path).play())
    early, late = fights
    assert settled(early) == settled(late)
    blow = one(early, "rupture.blow")
    assert (blow.t, blow.attack, blow.defence, blow.final) == (14, 4, 3, 1)
