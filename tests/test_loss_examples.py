"""The worked examples of Les Chants de Loss (text 000) as fights with loaded dice."""

from __future__ import annotations

from typing import Any

import pytest

from segsim import Declaration, IllegalDeclaration
from segsim.events import OutOfFight
from segsim.rules.loss import Loss
from segsim.rules.loss.content import UNARMED
from segsim.rules.loss.events import (
    ActionPointsSpent,
    AttackSettled,
    Damaged,
    EffectApplied,
    Intended,
    IntentionsCalled,
    PoolsSpent,
    RoundStarted,
    Tested,
)
from tests.loss_helpers import Plays, arena, dodge, of_type, sheet


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


def test_diego_attacks_simply_and_the_malfrat_dodges_with_an_exploit() -> None:
    """Loss, "L'Action de Combat", example: Diego's plain attack makes 12 + 8 = 20
    against 15; the malfrat dodges at 15 + 5 for one Exploit and makes 12 + 9 = 21: the
    attack fails and the malfrat's Exploit succeeds (here: a counter-attack, the
    closest effect to the text's "bonus for an immediate next action")."""
    diego = Plays(turns=[Declaration("attack", "malfrat")])
    malfrat = Plays(answers=[dodge(effects=["counter"])])
    fight = arena(
        {"diego": ("heroes", "diego", diego), "malfrat": ("gang", "malfrat", malfrat)},
        dice=[7, 2, 8, 9],  # initiative 15 and 8, Diego's d10, the malfrat's d10
    )
    run_until(fight, 3)
    attack, defence = of_type(fight, Tested)
    assert (attack.roll, attack.score, attack.total, attack.difficulty) == (8, 12, 20, 15)
    assert attack.success and attack.exploits == 0
    assert (defence.test, defence.total, defence.difficulty, defence.exploits) == (
        "dodge",
        21,
        20,
        1,
    )
    assert defence.success
    assert [s.result for s in of_type(fight, AttackSettled)] == ["stopped"]
    assert [(e.effect, e.target) for e in of_type(fight, EffectApplied)] == [("counter", "diego")]
    assert not of_type(fight, Damaged)


def test_diego_spends_fursa_and_inspiration_and_a_partial_dodge_cancels_one_exploit() -> None:
    """Loss, second exchange: three Exploits of extra damage (difficulty 30), 12 + 7
    + two Fursa (+10) + one Inspiration (+5) = 34. The malfrat dodges at 30 with one
    Inspiration: 12 + 5 + 4 = 21, a partial defence that cancels one Exploit. Two remain:
    weapon + bonus + 3d10. Diego is a player character with Fursa of his own; the
    malfrat "n'a pas de Fursa (la réserve du MJ est vide)"."""
    diego = Plays(
        turns=[
            Declaration(
                "attack",
                "malfrat",
                {"effects": ["extra_damage"] * 3, "fursa": 2, "inspiration": 1},
            )
        ]
    )
    malfrat = Plays(answers=[dodge(inspiration=1)])
    fight = arena(
        {"diego": ("heroes", "diego", diego), "malfrat": ("gang", "malfrat", malfrat)},
        dice=[7, 2, 7, 4, 5, 3, 6],
        pcs=["diego"],
    )
    run_until(fight, 2)
    fursa = Declaration("dodge", params={"fursa": 1})
    with pytest.raises(IllegalDeclaration, match="malfrat has 0 fursa left"):
        fight.ruleset.plan(fight.state, "malfrat", fursa, 1, [])
    fight.env.run(until=3)
    attack, defence = of_type(fight, Tested)
    assert (attack.total, attack.difficulty, attack.exploits) == (34, 30, 3)
    assert attack.bonuses == {"fursa": 10, "inspiration": 5}
    assert (defence.total, defence.difficulty, defence.success) == (21, 30, False)
    pools = [(p.actor, p.fursa, p.inspiration) for p in of_type(fight, PoolsSpent)]
    assert pools == [("diego", 2, 1), ("malfrat", 0, 1)]
    settled = of_type(fight, AttackSettled)[0]
    assert (settled.result, settled.cancelled) == ("hit", 1)
    assert settled.effects == ("extra_damage", "extra_damage")
    (damage,) = of_type(fight, Damaged)
    assert damage.rolls == (5, 3, 6)  # 1d10 + two extra d10
    assert damage.damage == 5 + 3 + 6 + 3  # + the rapier's 3
    assert damage.lost == damage.damage - 1  # leather armour
    assert fight.state.combatants["diego"].status.fursa == 0
    assert fight.state.combatants["malfrat"].status.inspiration == 0


def test_canahan_dodges_two_griffons_and_acts_at_9_after_their_phase_11() -> None:
    """Loss, "Générer les Points d'Actions" and "Dépenser les Points d'Action":
    Canahan 11, Diego 15, the griffons 13. Diego attacks at 15; at 13 two griffons
    attack Canahan, who dodges both (1 PA each) and can act only at 9, while the
    griffons (2 PA per bite) attack again at 11."""
    canahan = Plays(answers=[dodge(), dodge()])
    diego = Plays(turns=[Declaration("attack", "g3")])
    bite = Plays(turns=[Declaration("attack", "canahan")])
    bite2 = Plays(turns=[Declaration("attack", "canahan")])
    g3 = Plays(turns=[Declaration("attack", "diego")])
    fight = arena(
        {
            "canahan": ("heroes", "canahan", canahan),
            "diego": ("heroes", "diego", diego),
            "g1": ("griffons", "griffon", bite),
            "g2": ("griffons", "griffon", bite2),
            "g3": ("griffons", "griffon", g3),
        },
        positions={
            "canahan": (0.0, 0.0),
            "g1": (1.0, 0.0),
            "g2": (0.0, 1.0),
            "diego": (10.0, 0.0),
            "g3": (11.0, 0.0),
        },
        # initiative 11, 15, 13, 13, 13; Diego misses; two bites hit, one misses;
        # Canahan's two dodges succeed.
        dice=[4, 7, 7, 7, 7, 1, 10, 10, 1, 10, 10],
    )
    run_until(fight, 31)
    pas = of_type(fight, RoundStarted)[0].action_points
    assert pas == {"canahan": 11, "diego": 15, "g1": 13, "g2": 13, "g3": 13}
    spent = [(e.actor, e.cost, e.left) for e in of_type(fight, ActionPointsSpent)]
    assert ("canahan", 1, 10) in spent and ("canahan", 1, 9) in spent
    assert ("g1", 2, 11) in spent and ("g2", 2, 11) in spent
    # Phase p begins at segment (15 - p) * 5: Diego at 15 then 12, the griffons at 13
    # and 11, Canahan only at 9.
    assert diego.turn_segments[:2] == [0, 15]
    assert bite.turn_segments[:2] == [10, 20] and bite2.turn_segments[:2] == [10, 20]
    assert canahan.turn_segments == [30]
    dodges = [t for t in of_type(fight, Tested) if t.test == "dodge"]
    assert [(t.actor, t.target, t.success) for t in dodges] == [
        ("canahan", "g1", True),
        ("canahan", "g2", True),
    ]
    # The shield's weight takes 1 off her dodge.
    assert dodges[0].bonuses == {"shield weight": -1}


def test_eric_waits_to_phase_4_and_his_claymore_costs_4() -> None:
    """Loss, "Se préparer au combat": Eric (initiative 12, claymore of speed 6) waits
    to act at 4; he saves 2 PA and his attack costs 4."""
    eric = Plays(turns=[Declaration("prepare", params={"until": 4}), Declaration("attack", "m")])
    fight = arena(
        {"eric": ("heroes", "eric", eric), "m": ("gang", "malfrat", Plays())},
        dice=[7, 1, 1],  # initiative 12 and 7; Eric's attack misses
    )
    run_until(fight, 45)
    assert eric.turn_segments == [0, 40]  # phase 12, then phase 4: (12 - 4) * 5
    attack = [e for e in of_type(fight, ActionPointsSpent) if e.actor == "eric"]
    assert [(e.cost, e.saved, e.left) for e in attack] == [(4, 2, 0)]


def test_waiting_lets_eric_pay_two_parries_and_still_strike() -> None:
    """Loss, "Se préparer au combat": the parries and dodges made while waiting are
    paid, but waiting brings the attack down to 2 PA: after two dodges he strikes for 2."""
    eric = Plays(
        turns=[Declaration("prepare", params={"until": 4}), Declaration("attack", "m")],
        answers=[dodge(), dodge()],
    )
    m = Plays(turns=[Declaration("attack", "eric"), Declaration("attack", "eric")])
    fight = arena(
        {"eric": ("heroes", "eric", eric), "m": ("gang", "malfrat", m)},
        # initiative 12 and 7; the malfrat hits, Eric dodges; again; Eric strikes.
        dice=[7, 1, 10, 10, 10, 10, 1],
    )
    run_until(fight, 55)
    spent = [
        (e.cost, e.saved, e.left) for e in of_type(fight, ActionPointsSpent) if e.actor == "eric"
    ]
    assert spent == [(1, 0, 3), (1, 0, 2), (2, 4, 0)]
    assert eric.turn_segments == [0, 50]


def test_diego_fells_a_drunken_sailor_with_one_exploit() -> None:
    """Loss, "Les Sbires en combat": the sailors are minions; Diego (Puissance 5 +
    Corps-à-corps 6) declares one Exploit and spends one Inspiration: 11 + 5 + 6 = 22
    against 20. The sailor dodges with Courage 5 + Esquive 4 and makes 13: it falls, no
    damage rolled."""
    diego_sheet = sheet(
        "diego", weapon=UNARMED, traits={"puissance": 5, "agilite": 6, "courage": 5}
    )
    diego = Plays(turns=[Declaration("attack", "s1", {"exploits": 1, "inspiration": 1})])
    fight = arena(
        {
            "diego": ("heroes", diego_sheet, diego),
            "s1": ("sailors", "sailor", Plays(answers=[dodge()])),
            "s2": ("sailors", "sailor", Plays()),
        },
        positions={"diego": (0.0, 0.0), "s1": (1.0, 0.0), "s2": (0.0, 1.0)},
        dice=[9, 1, 1, 6, 4],
    )
    run_until(fight, 4)
    attack, defence = of_type(fight, Tested)
    assert (attack.test, attack.total, attack.difficulty, attack.success) == (
        "attack",
        22,
        20,
        True,
    )
    assert (defence.score, defence.total, defence.success) == (9, 13, False)
    assert [(e.actor, e.reason) for e in of_type(fight, OutOfFight)] == [
        ("s1", "a minion felled by diego's Exploit")
    ]
    assert not of_type(fight, Damaged)
    assert fight.state.combatants["s2"].in_fight  # one minion per attack


class Intends(Plays):
    """Plays, and declares ``intention`` (action, target) when called to declare it;
    keeps what it saw of the others' intentions then."""

    def __init__(self, intention: tuple[str, str | None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.intention = intention
        self.saw: dict[str, Any] = {}

    def decide(self, obs: Any) -> Any:
        me = obs.me
        if obs.must_act and not me.my_turn and not me.incoming and me.counter is None:
            self.saw = {o.id: o.intention for o in obs.others}
            action, target = self.intention
            return Declaration("intend", target, {"action": action})
        return super().decide(obs)


def test_intentions_are_declared_from_the_lowest_initiative_to_the_highest() -> None:
    """Loss, "Déclarer ses intentions", the optional order and its example: Canahan
    (11) says first what she will do, without knowing what the griffons (13) prepare;
    Diego (15) declares last, knowing theirs. Then the round's phases begin."""
    canahan = Intends(("attack", "g1"))
    diego = Intends(("attack", "g3"))
    griffons = {g: Intends(("attack", "canahan")) for g in ("g1", "g2", "g3")}
    fight = arena(
        {
            "canahan": ("heroes", "canahan", canahan),
            "diego": ("heroes", "diego", diego),
            **{g: ("griffons", "griffon", p) for g, p in griffons.items()},
        },
        positions={
            "canahan": (0.0, 0.0),
            "g1": (1.0, 0.0),
            "g2": (0.0, 1.0),
            "diego": (10.0, 0.0),
            "g3": (11.0, 0.0),
        },
        dice=[4, 7, 7, 7, 7, 1, 10, 10, 1, 10, 10],
        options={"declaration_order": "initiative"},
    )
    run_until(fight, 4)
    (order,) = of_type(fight, IntentionsCalled)
    assert order.order == (("canahan",), ("g1", "g2", "g3"), ("diego",))
    said = [(e.t, e.actor, e.action, e.target) for e in of_type(fight, Intended)]
    assert said == [
        (0, "canahan", "attack", "g1"),
        (1, "g1", "attack", "canahan"),
        (1, "g2", "attack", "canahan"),
        (1, "g3", "attack", "canahan"),
        (2, "diego", "attack", "g3"),
    ]
    assert canahan.saw == {"diego": None, "g1": None, "g2": None, "g3": None}
    assert diego.saw["g3"] == ("attack", "canahan")
    assert diego.saw["canahan"] == ("attack", "g1")
    # The phases begin after the three segments of intentions: Diego's 15 at segment 3.
    assert diego.turn_segments == [3]


def test_a_declared_intention_binds_the_first_action_while_it_can_be_done() -> None:
    """Loss, "Déclarer ses intentions": what a fighter prepares to do is its first
    action; it may wait (se préparer) but not do something else while it can."""
    diego = Intends(("attack", "g3"))
    fight = arena(
        {
            "diego": ("heroes", "diego", diego),
            "g3": ("griffons", "griffon", Intends(("attack", "diego"))),
            "g4": ("griffons", "griffon", Intends(("attack", "diego"))),
        },
        positions={"diego": (0.0, 0.0), "g3": (1.0, 0.0), "g4": (-1.0, 0.0)},
        dice=[7, 7, 7],
        options={"declaration_order": "initiative"},
    )
    run_until(fight, 3)
    assert diego.turn_segments == [2]
    with pytest.raises(IllegalDeclaration, match="declared it would attack g3"):
        fight.ruleset.plan(fight.state, "diego", Declaration("attack", "g4"), 2, [])
    for ok in (Declaration("attack", "g3"), Declaration("prepare", params={"until": 10})):
        fight.ruleset.plan(fight.state, "diego", ok, 2, [])


def test_the_declaration_order_option_is_checked() -> None:
    with pytest.raises(TypeError, match="declaration_order"):
        Loss(declaration_order="random")


def test_the_alley_example_entered_as_a_script_plays_the_texts_numbers() -> None:
    """examples/scripts/loss_alley.toml: Loss's worked example of "L'Action de
    Combat" as played at the table: 20 against 15, the dodge of 21 against 20, then 34
    against 30 and the partial dodge of 21 that cancels one Exploit; the script ends with
    round 2, and the fight with it."""
    from pathlib import Path

    from segsim.record import fight_record
    from segsim.replay import replay
    from segsim.rules.loss.events import BrokenOff
    from segsim.script import load_script

    root = Path(__file__).resolve().parent.parent
    fight = load_script(root / "examples/scripts/loss_alley.toml").play()
    tests = [(t.actor, t.total, t.difficulty) for t in of_type(fight, Tested)]
    assert tests == [
        ("diego", 20, 15),
        ("malfrat", 21, 20),
        ("malfrat", 18, 15),
        ("diego", 34, 30),
        ("malfrat", 21, 30),
    ]
    assert [s.cancelled for s in of_type(fight, AttackSettled)][-1] == 1
    assert [d.rolls for d in of_type(fight, Damaged)] == [(2,), (5, 3, 6)]
    assert not of_type(fight, BrokenOff)
    assert fight.outcome is not None and fight.outcome.result == "interrupted"
    assert replay(fight_record(fight)).identical
