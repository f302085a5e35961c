"""RinKaNou melee: parry, shields, dodge, reading, movement, surprise (text 004).

Fighters (models/rinkanou/fighters.toml): Robert has sabre 55, dodge 45, Combat 50,
Souplesse 30, Force 25 (bonus 0), Raison 25, Réflexes 25, boiled leather (deflection 5,
absorption 3). Margaret has sabre 55, Souplesse 25, Force 30 (bonus +1), a yatagan (speed
3, cut 9, thrust 5, parry -5) and a gambeson. Her attack on Robert: 55 + 25 - 5 = 75 %.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim import Declaration, IllegalDeclaration
from segsim.actions import SHARED_TABLES, SharedTables
from segsim.rules.rinkanou.content import default_content
from segsim.rules.rinkanou.settle import read_modifier
from segsim.testing import declare, sheet

CUT = {0: declare("arm"), 3: declare("strike", "robert", blow="cut")}
THRUST = {0: declare("arm"), 3: declare("strike", "robert", blow="thrust")}
CONTENT = default_content()


def strong_robert(strength: int) -> object:
    base = sheet("robert")
    return attrs.evolve(base, characteristics={**base.characteristics, "strength": strength})


# ------------------------------------------------------------------ parry timing


def test_parry_lasts_a_strike_once_armed_or_arm_plus_strike_otherwise() -> None:
    """RinKaNou, "Actions de combat": Parer = Frapper, ou Armer + Frapper."""
    f = fight({"robert": {0: declare("parry")}, "margaret": {}}, [50])
    f.run()
    assert one(f, "action.declared", kind="parry").duration == 6
    f = fight({"robert": {0: declare("arm"), 3: declare("parry")}, "margaret": {}}, [50])
    f.run()
    assert one(f, "action.declared", kind="parry").duration == 3


@pytest.mark.parametrize(("shield", "duration"), [("targe", 2), ("heater", 3)])
def test_a_shield_parry_lasts_the_shield_speed(shield: str, duration: int) -> None:
    """RinKaNou: targe 2, large shield 3."""
    robert = attrs.evolve(sheet("robert"), shield=CONTENT.shields[shield])
    shield_parry = declare("parry", **{"with": "shield"})
    f = fight({"robert": {0: shield_parry}, "margaret": {}}, [50], sheets={"robert": robert})
    f.run()
    assert one(f, "action.declared", kind="parry").duration == duration


def test_cut_parried_and_blocked_in_the_strength_contest() -> None:
    """RinKaNou, "Coup de taille": interception = skill + Souplesse - attacker's Mr + own
    parry score (and the attacking weapon's parry score counts against); then Force bonus
    + size vs Force bonus: Margaret +1 vs Robert (Force 30) +1: score 0, blocked."""
    f = fight(
        {"robert": {0: declare("parry")}, "margaret": CUT},
        [40, 50],  # attack 40 vs 75: Mr 35; parry 55 + 30 - 35 + 0 + 5 = 55
        sheets={"robert": strong_robert(30)},
    )
    f.run()
    attack, parry = of(f, "test.rolled")
    assert attack.margin == 35
    assert parry.test == "parry" and parry.chance == 55 and parry.success
    assert parry.modifiers == {
        "sabre": 55,
        "agility": 30,
        "attacker Mr": -35,
        "attacking weapon": 5,
    }
    assert one(f, "attack.resolved").result == "blocked"
    assert not of(f, "wound.taken")
    assert one(f, "gear.damaged").durability == 19  # the sabre took the blow: 20 -> 19


def test_cut_parried_but_forced_through_loses_the_defenders_score() -> None:
    """A two-handed sword (very large: +4 in the contest) with Force 35 (+1) against a
    defender of Force 40 (+2): score 5 - 2 = 3 > 0, the blow passes, reduced by 2."""
    giant = attrs.evolve(
        sheet("veteran"),
        weapon=CONTENT.weapons["two_handed_sword"],
        skills={"combat": 55, "two_handed_sword": 60},
        characteristics={"strength": 35, "agility": 25, "reason": 25, "reflexes": 25},
    )
    robert = strong_robert(40)
    script = {0: declare("arm"), 5: declare("strike", "robert", blow="cut")}
    f = fight(
        {"robert": {0: declare("arm"), 7: declare("parry")}, "margaret": script},
        [40, 10, 15],
        sheets={"margaret": giant, "robert": robert},
    )
    f.run()
    # Attack: skill 60 + Force 35 (the weapon's characteristic) - deflection 5 = 90.
    attack = of(f, "test.rolled")[0]
    assert attack.chance == 90 and attack.margin == 50
    assert one(f, "attack.resolved").result == "hit"
    wound = one(f, "wound.taken")
    # 14 cut + 50 // 10 + Force +1 - parry 2 - leather 3 = 15.
    assert wound.detail["parry"] == -2 and wound.damage == 15


def test_a_failed_interception_lets_the_blow_land_in_full() -> None:
    f = fight({"robert": {0: declare("parry")}, "margaret": CUT}, [40, 56, 15])
    f.run()
    assert one(f, "attack.resolved").result == "hit"
    assert "parry" not in one(f, "wound.taken").detail


def test_a_thrust_is_deflected_with_the_fixed_20_malus_and_no_contest() -> None:
    """RinKaNou, "Coup d'estoc": -20 %, no size modifier, no strength."""
    f = fight({"robert": {0: declare("parry")}, "margaret": THRUST}, [40, 35])
    f.run()
    parry = of(f, "test.rolled")[1]
    assert parry.modifiers["thrust"] == -20 and parry.chance == 35
    assert one(f, "attack.resolved").result == "deflected"
    assert not of(f, "gear.damaged")


def test_a_parry_one_segment_early_is_its_own_action_and_the_blow_lands() -> None:
    late = {0: declare("arm"), 4: declare("strike", "robert", blow="cut")}
    f = fight(
        {"robert": {0: declare("arm"), 3: declare("parry")}, "margaret": late},
        [50, 40, 15],  # the lone parry (ends in 5) rolls first, then the attack in 6
    )
    f.run()
    lone, attack = of(f, "test.rolled")
    assert (lone.test, lone.t, lone.chance) == ("parry", 5, 85)
    assert "attacker Mr" not in lone.modifiers
    assert (attack.test, attack.t) == ("attack", 6)
    assert one(f, "attack.resolved").result == "hit"


def test_shield_parry_bonus_halved_thrust_malus_and_the_shield_takes_the_blow() -> None:
    """RinKaNou, "Cas du bouclier": a bonus by shield size, thrust maluses halved, always
    a block, the shield takes the damage like armour."""
    robert = attrs.evolve(sheet("robert"), shield=CONTENT.shields["targe"])
    f = fight(
        {"robert": {4: declare("parry", **{"with": "shield"})}, "margaret": THRUST},
        [40, 30],
        sheets={"robert": robert},
    )
    f.run()
    parry = of(f, "test.rolled")[1]
    # Shield skill from the Combat trunk (30) + targe 10 + Souplesse 30 - Mr 35 + 5 - 10.
    assert parry.modifiers["shield"] == 30 and parry.modifiers["shield bonus"] == 10
    assert parry.modifiers["thrust"] == -10 and parry.chance == 30
    assert one(f, "attack.resolved").result == "shield"
    # Contest +1 vs 0: the blow goes into the shield: 5 thrust + 3 + 1 = 9 - targe 4 = 5.
    gear = one(f, "gear.damaged")
    assert (gear.item, gear.loss, gear.durability) == ("shield", 5, 10)
    assert not of(f, "wound.taken")


def test_a_broken_weapon_cannot_parry() -> None:
    f = fight({"robert": {0: declare("parry")}, "margaret": {}}, [])
    f.state.combatants["robert"].status.weapon_pr = 0
    with pytest.raises(IllegalDeclaration, match=r"broken \(0 PR\)"):
        f.run()


def test_no_shield_no_shield_parry() -> None:
    f = fight({"robert": {0: declare("parry", **{"with": "shield"})}, "margaret": {}}, [])
    with pytest.raises(IllegalDeclaration, match="no shield"):
        f.run()


# ------------------------------------------------------------------ dodge


def test_dodging_a_thrust_costs_20() -> None:
    f = fight({"robert": {3: declare("dodge")}, "margaret": THRUST}, [40, 10])
    f.run()
    dodge = of(f, "test.rolled")[1]
    assert dodge.modifiers["thrust"] == -20 and dodge.chance == 45 + 30 - 35 - 20
    assert one(f, "attack.resolved").result == "dodged"


TWO = {
    "robert": {3: declare("dodge")},
    "margaret": CUT,
    "recruit": {0: declare("arm"), 3: declare("strike", "robert")},
}
NEAR = {"robert": (0.0, 0.0), "margaret": (1.5, 0.0), "recruit": (0.0, 1.5)}


def test_two_blows_in_one_segment_one_dodge_meets_only_the_first() -> None:
    """RinKaNou, "Esquive": several simultaneous blows need a multiple dodge."""
    f = fight(TWO, [40, 10, 30, 15], positions=NEAR)
    f.run()
    results = {e.actor: e.result for e in of(f, "attack.resolved")}
    assert results == {"margaret": "dodged", "recruit": "hit"}
    assert [t.test for t in of(f, "test.rolled")] == ["attack", "dodge", "attack"]


def test_a_multiple_dodge_rolls_once_per_blow_and_costs_a_ps_each() -> None:
    """RinKaNou, "Esquive multiple": 1 PS per extra simultaneous blow, one roll each."""
    script = dict(TWO)
    script["robert"] = {3: declare("dodge", ps={"multiple": 1})}
    f = fight(script, [40, 10, 30, 20], positions=NEAR, setup={"robert": {}})
    f.state.combatants["robert"].status.ps = 1
    f.state.combatants["robert"].status.engaged = ("margaret",)
    f.run()
    results = {e.actor: e.result for e in of(f, "attack.resolved")}
    assert results == {"margaret": "dodged", "recruit": "dodged"}
    assert [t.test for t in of(f, "test.rolled")] == ["attack", "dodge", "attack", "dodge"]


def test_a_multiple_dodge_needs_the_points() -> None:
    script = dict(TWO)
    script["robert"] = {3: declare("dodge", ps={"multiple": 1})}
    f = fight(script, [], positions=NEAR)
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()


def test_a_dodge_shortened_to_one_segment_with_two_ps() -> None:
    """RinKaNou, "Esquive": with PS a dodge can be cut to 1 segment (at most half its
    3 segments rounded up, i.e. 2 PS)."""
    f = fight({"robert": {5: declare("dodge", ps={"faster": 2})}, "margaret": CUT}, [40, 10])
    f.state.combatants["robert"].status.ps = 2
    f.state.combatants["robert"].status.engaged = ("margaret",)
    f.run()
    dodge = one(f, "action.declared", kind="dodge")
    assert (dodge.t, dodge.duration, dodge.ends_in) == (5, 1, 5)
    assert one(f, "attack.resolved").result == "dodged"


def test_a_dodge_cannot_be_shortened_by_three() -> None:
    f = fight({"robert": {3: declare("dodge", ps={"faster": 3})}, "margaret": {}}, [])
    f.state.combatants["robert"].status.ps = 3
    f.state.combatants["robert"].status.engaged = ("margaret",)
    with pytest.raises(IllegalDeclaration, match="at most 2 PS can shorten it"):
        f.run()


# ------------------------------------------------------------------ reading


def test_reading_modifier_is_minus_70_plus_20_per_elapsed_segment() -> None:
    """RinKaNou example: Robert reads Margaret at -50 % after one segment of her action,
    at +30 % at its fifth."""
    assert read_modifier(1) == -50
    assert read_modifier(5) == 30


def test_robert_reads_margaret_and_the_observation_reveals_her_action() -> None:
    slow = attrs.evolve(sheet("margaret"), weapon=attrs.evolve(CONTENT.weapons["yatagan"], speed=7))

    def read(obs: object) -> object:
        return declare("read", "margaret", action_id=obs.other("margaret").actions[0].id)  # type: ignore[attr-defined]

    f = fight(
        {"robert": {1: read, 5: read}, "margaret": {0: declare("arm")}},
        [60, 20],
        sheets={"margaret": slow},
    )
    robert = f.state.combatants["robert"].policy
    f.run()
    first, second = of(f, "test.rolled")
    # Combat 50 + Raison 25: -50 % after one segment, +30 % after five.
    assert (first.t, first.chance, first.success) == (1, 25, False)
    assert (second.t, second.chance, second.success) == (5, 105, True)
    assert one(f, "intent.read").kind == "arm"
    before = robert.seen_at(5).other("margaret").actions[0]
    after = robert.seen_at(6).other("margaret").actions[0]
    assert (before.kind, before.ends_in) == (None, None)
    assert (after.kind, after.ends_in) == ("arm", 6)


def test_a_read_is_invisible_to_others() -> None:
    f = fight(
        {
            "robert": {
                1: lambda o: declare(
                    "read", "margaret", action_id=o.other("margaret").actions[0].id
                )
            },
            "margaret": {0: declare("arm")},
        },
        [90],
    )
    f.run()
    assert one(f, "action.declared", kind="read").duration == 1
    margaret = f.state.combatants["margaret"].policy
    assert all(o.other("robert").actions == () for o in margaret.seen)


def test_an_unread_action_is_one_shared_value_and_a_read_one_is_the_reader_s_own() -> None:
    """RULES-NOTES, "Observability": what everyone sees of an action (its motion while
    unread) is the same value for every observer, in every phase; the reader alone sees
    what it read."""
    slow = attrs.evolve(sheet("margaret"), weapon=attrs.evolve(CONTENT.weapons["yatagan"], speed=7))

    def read(obs: object) -> object:
        return declare("read", "margaret", action_id=obs.other("margaret").actions[0].id)  # type: ignore[attr-defined]

    f = fight(
        {"robert": {1: read, 3: None}, "veteran": {3: None}, "margaret": {0: declare("arm")}},
        [10],
        sheets={"margaret": slow},
        sides={"veteran": "blue"},
    )
    robert = f.state.combatants["robert"].policy
    veteran = f.state.combatants["veteran"].policy
    f.run()

    def seen(policy: Any, segment: int) -> Any:
        return policy.seen_at(segment).other("margaret").actions[0]

    assert seen(robert, 1) is seen(veteran, 1) is seen(veteran, 3)
    assert (seen(veteran, 3).kind, seen(veteran, 3).ends_in) == (None, None)
    assert (seen(robert, 3).kind, seen(robert, 3).ends_in) == ("arm", 6)
    assert seen(robert, 3).id == seen(veteran, 3).id


# ------------------------------------------------------------------ movement and reach


def test_walking_and_running_distances() -> None:
    """RinKaNou, "Se déplacer": a tenth of the movement a segment walking, times the
    running factor running; multipliable (n segments as one action)."""
    far = {"robert": (0.0, 0.0), "margaret": (5.0, 0.0)}
    f = fight(
        {"robert": {0: declare("move", toward="margaret", segments=5)}, "margaret": {}},
        [],
        positions=far,
    )
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(0.75)  # 1.5 m/s walking
    f = fight(
        {"robert": {0: declare("move", toward="margaret", pace="run", segments=5)}, "margaret": {}},
        [],
        positions=far,
    )
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(3.0)  # 4 x 0.15 m a segment
    f = fight(
        {"robert": {0: declare("move", toward="margaret", pace="run", segments=8)}, "margaret": {}},
        [50],  # it ends within her reach: the move rolls
        positions=far,
    )
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(3.5)  # stops at the sabre's reach


def test_moves_and_waits_of_one_shape_share_one_parameter_table() -> None:
    """Two fighters walking toward the same one for as long, and two waits until the
    same segment, carry one read-only table between them (a battle's history keeps a
    table per shape, not per action); another length or end makes another table, and
    each reads as it would unshared."""
    far = {"robert": (0.0, 0.0), "margaret": (20.0, 0.0), "alice": (0.0, 2.0)}
    f = fight(
        {
            "robert": {
                0: declare("move", toward="margaret", segments=5),
                5: declare("wait", until=9),
            },
            "alice": {
                0: declare("move", toward="margaret", segments=5),
                5: declare("wait", until=9),
            },
            "margaret": {0: declare("wait", until=9)},
        },
        [],
        sides={"alice": "blue"},
        positions=far,
        max_segments=12,
    )
    f.run()
    moves = of(f, "action.declared", kind="move")
    assert len(moves) == 2 and moves[0].params is moves[1].params
    assert dict(moves[0].params) == {
        "pace": "walk",
        "segments": 5,
        "toward": "margaret",
        "stop_at": 1.5,  # the sabre's reach, as a distance in metres
    }
    with pytest.raises(TypeError):
        moves[0].params["segments"] = 6  # type: ignore[index]
    # The script waits until its next entry: robert and alice until 5, then until 9 as
    # margaret has from the start (a wait's table holds its end, not its start).
    waits = {(w.actor, w.start): w.params for w in of(f, "action.declared", kind="wait")}
    assert waits["margaret", 0] is waits["robert", 5] is waits["alice", 5]
    assert dict(waits["robert", 5]) == {"until": 9}
    assert waits["robert", 0] is waits["alice", 0] is not waits["robert", 5]
    assert dict(waits["robert", 0]) == {"until": 5}


def test_the_shared_tables_are_bounded() -> None:
    """The tables kept for sharing start anew at :data:`SHARED_TABLES`: a long fight's
    ever-new wait ends do not pile up."""
    tables = SharedTables()
    for n in range(SHARED_TABLES):
        tables.keep(("wait", n, None), {"until": n})
    assert len(tables) == SHARED_TABLES and tables.get(("wait", 0, None)) == {"until": 0}
    kept = tables.keep(("wait", -1, None), {"until": -1})
    assert len(tables) == 1 and tables.get(("wait", 0, None)) is None
    assert tables.get(("wait", -1, None)) is kept


@pytest.mark.parametrize(("x", "rolls"), [(3.0, True), (3.000005, False)])
def test_with_an_awareness_radius_a_move_rolls_only_for_an_opponent_in_view(
    x: float, rolls: bool
) -> None:
    """A move rolls when it starts or ends within the reach of an opponent the mover
    sees: with an awareness radius, one within it exactly, as the fighter's views count
    (a hair beyond it is out of view, though the move ends within her reach)."""
    f = fight(
        {
            "robert": {0: Declaration("move", params={"toward": "margaret", "segments": 12})},
            "margaret": {},
        },
        [50] if rolls else [],
        positions={"robert": (0.0, 0.0), "margaret": (x, 0.0)},
        ruleset_options={"awareness": 3.0},
    )
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(x - 1.5)  # stops at the sabre's reach
    assert bool(of(f, "test.rolled", actor="robert")) is rolls


def test_moving_while_arming() -> None:
    f = fight(
        {"robert": {0: [declare("arm"), declare("move", to=[0.5, 0.0])]}, "margaret": {}},
        [50],  # within her reach, the step rolls (arming costs it nothing)
    )
    f.run()
    assert one(f, "weapon.state", actor="robert").armed
    assert one(f, "combatant.moved").x == pytest.approx(0.15)


def test_a_strike_needs_the_target_within_reach() -> None:
    f = fight(
        {"robert": {0: declare("arm"), 3: declare("strike", "margaret")}, "margaret": {}},
        [],
        positions={"robert": (0.0, 0.0), "margaret": (3.0, 0.0)},
    )
    with pytest.raises(IllegalDeclaration, match="beyond the sabre's reach") as err:
        f.run()
    assert "Allonge" in err.value.rule


def test_a_target_that_steps_out_of_reach_is_missed() -> None:
    f = fight(
        {
            "robert": {0: declare("arm"), 3: declare("strike", "margaret")},
            "margaret": {3: declare("move", to=[3.0, 0.0], pace="run", segments=2)},
        },
        [50],  # her move (from within his reach) rolls; his blow does not
    )
    f.run()
    assert one(f, "attack.resolved").result == "out of reach"
    assert not of(f, "test.rolled", test="attack")


def test_reposition_takes_5_segments_and_rolls_combat_plus_agility() -> None:
    f = fight({"robert": {0: declare("reposition")}, "margaret": {}}, [50])
    f.run()
    test = one(f, "test.rolled")
    assert (test.t, test.test, test.chance) == (4, "reposition", 80)


def test_disengage_takes_10_segments_opposed_active_against_active() -> None:
    f = fight({"robert": {0: declare("disengage")}, "margaret": {}}, [30, 90])
    f.run()
    own, theirs = of(f, "test.rolled")
    assert (own.t, own.test, own.chance) == (9, "disengage", 80)
    assert (theirs.actor, theirs.test, theirs.chance) == ("margaret", "oppose disengage", 75)
    one(f, "combatant.disengaged")
    assert one(f, "combatant.moved").x == pytest.approx(-0.5)  # 2 m from Margaret


def test_disengage_fails_when_the_opponent_wins_the_opposition() -> None:
    f = fight({"robert": {0: declare("disengage")}, "margaret": {}}, [60, 10])
    f.run()
    assert not of(f, "combatant.disengaged")


def test_disengage_right_after_a_dodge_is_immanquable() -> None:
    """RinKaNou, "Se désengager": +50 % after a dodge."""
    f = fight(
        {"robert": {0: declare("dodge"), 3: declare("disengage")}, "margaret": {}}, [50, 30, 90]
    )
    f.run()
    disengage = of(f, "test.rolled")[1]
    assert disengage.modifiers["after a dodge"] == 50 and disengage.chance == 130


# ------------------------------------------------------------------ surprise


def test_surprise_malus_equals_the_me_and_weighs_on_the_start_roll() -> None:
    """RinKaNou, "Surprise": a failed Réflexes roll gives a malus equal to its Me on the
    next roll, the start-of-fight roll included."""
    f = fight(
        {"robert": {}, "margaret": {}},
        [70, 30, 40],
        setup={"robert": {"surprised": True}},
        start_roll=True,
    )
    f.run()
    surprise, start, other = of(f, "test.rolled")
    # Réflexes 25, doubled for a test of the characteristic alone.
    assert (surprise.test, surprise.chance, surprise.margin) == ("surprise", 50, 20)
    assert start.test == "start" and start.modifiers["surprise"] == -20
    assert start.chance == 50 + 25 - 20
    assert of(f, "surprise.malus", actor="robert")[-1].malus == 0
    assert other.actor == "margaret" and "surprise" not in other.modifiers


def test_a_successful_surprise_roll_avoids_the_malus() -> None:
    f = fight(
        {"robert": {}, "margaret": {}},
        [40, 30, 40],
        setup={"robert": {"surprised": True}},
        start_roll=True,
    )
    f.run()
    assert not of(f, "surprise.malus")
