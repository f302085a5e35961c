"""RinKaNou ranged combat, command points, hard cover and manoeuvres (RinKaNou: "Les
portées", "Esquive de projectiles", "Points de commandement", "Cible sous couvert dur",
"Manœuvres de combat").

Jared Shotte: bow 55 + Souplesse 30, a longbow (increment 50 m, 15 segments per 100 m
direct, damage 10). Jacou Denlkask: Esquive 50 + Souplesse 35, gambeson (deflection 5,
absorption 2).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim import IllegalDeclaration
from segsim.rules.rinkanou.content import default_content
from segsim.rules.rinkanou.ranged import bearing, flight_segments, increments
from segsim.testing import declare, sheet

CONTENT = default_content()
LONGBOW = CONTENT.ranged["longbow"]
READY = {"wielding": "ranged", "loaded": True}


def archery(
    jared: dict[int, Any],
    jacou: dict[int, Any],
    dice: list[int],
    *,
    distance: float = 300.0,
    jacou_setup: dict[str, Any] | None = None,
    jared_setup: dict[str, Any] | None = None,
) -> Any:
    return fight(
        {"jared": jared, "jacou": jacou},
        dice,
        sheets={"jared": "jared", "jacou": "jacou"},
        sides={"jared": "red", "jacou": "blue"},
        positions={"jared": (0.0, 0.0), "jacou": (distance, 0.0)},
        setup={"jared": {**READY, **(jared_setup or {})}, "jacou": jacou_setup or {}},
    )


SHOT = {0: declare("shoot", "jacou")}  # 2 segments: loosed at the end of segment 1


# ------------------------------------------------------------------ ranges


def test_range_increments_and_point_blank() -> None:
    """RinKaNou, "Les portées": distance / increment; nothing within one increment."""
    assert increments(300, LONGBOW) == 6
    assert increments(49.9, LONGBOW) == 0
    assert increments(50, LONGBOW) == 1


def test_a_shot_at_300_m_costs_30_to_hit_and_6_damage() -> None:
    f = archery(SHOT, {}, [27, 15])  # hits the chest
    f.run()
    shot = one(f, "test.rolled", test="shoot")
    # 55 + 30 - 6 x 5 - deflection 5 = 50; roll 27: Mr 23, the seed's example.
    assert shot.modifiers["range"] == -30 and shot.chance == 50 and shot.margin == 23
    wound = one(f, "wound.taken")
    assert wound.detail["range"] == -6 and wound.damage == 10 + 2 - 6 - 2


def test_point_blank_has_no_range_modifier() -> None:
    f = archery(SHOT, {}, [27, 15], distance=40.0)
    f.run()
    assert "range" not in one(f, "test.rolled", test="shoot").modifiers


def test_the_missile_flies_flight_time_times_distance_over_100() -> None:
    """RinKaNou: the time to fly 100 m is in the weapon's description."""
    assert flight_segments(300, LONGBOW, "direct") == 45
    assert flight_segments(300, LONGBOW, "indirect") == 120
    f = archery(SHOT, {}, [27, 15])
    f.run()
    spawned = one(f, "action.spawned")
    assert (spawned.t, spawned.duration, spawned.kind) == (1, 45, "projectile")
    assert one(f, "attack.resolved").t == 1 + 45


def test_a_shot_beyond_the_last_range_band_is_refused() -> None:
    f = archery(SHOT, {}, [], distance=450.0)
    with pytest.raises(IllegalDeclaration, match="beyond the longbow's last range band") as err:
        f.run()
    assert "Les portées" in err.value.rule


def test_a_target_too_far_to_make_out_cannot_be_shot() -> None:
    """The silhouette vision factor is distance / 5; Jared makes out up to 120."""
    short_sighted = attrs.evolve(sheet("jared"), sight=50)
    f = fight(
        {"jared": SHOT, "jacou": {}},
        [],
        sheets={"jared": short_sighted, "jacou": "jacou"},
        sides={"jared": "red", "jacou": "blue"},
        positions={"jared": (0.0, 0.0), "jacou": (300.0, 0.0)},
        setup={"jared": READY},
    )
    with pytest.raises(IllegalDeclaration, match="vision factor 60 > 50"):
        f.run()


def test_shooting_needs_the_bow_in_hand_and_ready() -> None:
    f = archery(SHOT, {}, [], jared_setup={"wielding": "melee", "loaded": False})
    with pytest.raises(IllegalDeclaration, match="not in hand: draw it first"):
        f.run()
    f = archery(SHOT, {}, [], jared_setup={"loaded": False})
    with pytest.raises(IllegalDeclaration, match="not ready: ready it first"):
        f.run()


def test_draw_then_ready_then_shoot() -> None:
    script = {0: declare("draw"), 10: declare("ready"), 20: declare("shoot", "jacou")}
    f = archery(script, {}, [90], jared_setup={"wielding": "melee", "loaded": False})
    f.run()
    kinds = [
        (e.t, e.kind, e.duration)
        for e in of(f, "action.declared")
        if e.actor == "jared" and e.kind != "wait"
    ]
    assert kinds == [(0, "draw", 10), (10, "ready", 10), (20, "shoot", 2)]


# ------------------------------------------------------------------ projectile dodge


def test_jacou_dodges_the_first_arrow_with_two_command_points() -> None:
    """RinKaNou example: Mr 23 and the -40 % make a difficulty of 63; 2 PC bring it to
    43. Jacou's Esquive + Souplesse is 85: his chance is 42; he rolls 40."""
    dodge = {44: declare("dodge", pc={"bonus": 2})}
    f = archery(SHOT, dodge, [27, 40], jacou_setup={"command_points": 2})
    f.run()
    test = one(f, "test.rolled", test="dodge")
    assert test.modifiers == {
        "dodge": 50,
        "agility": 35,
        "shooter Mr": -23,
        "missile": -40,
        "pc": 20,
    }
    assert test.chance == 85 - 43 and test.success
    assert one(f, "attack.resolved").result == "dodged"


def test_the_tens_digit_rule_puts_jacou_in_the_path_of_a_missed_arrow() -> None:
    """RinKaNou example: the second shot misses with Me 11; Jacou dodges with Mr 16: the
    tens digits match (1), the arrow that would have missed hits him."""
    dodge = {44: declare("dodge", pc={"bonus": 2})}
    f = archery(SHOT, dodge, [61, 49, 15], jacou_setup={"command_points": 2})
    f.run()
    shot = one(f, "test.rolled", test="shoot")
    assert (shot.success, shot.margin) == (False, 11)
    dodged = one(f, "test.rolled", test="dodge")
    assert (dodged.success, dodged.margin, dodged.chance) == (True, 16, 85 - 40 + 20)
    assert one(f, "attack.resolved").result == "hit"
    assert (
        one(f, "wound.taken").detail["weapon"] == 10
        and "margin" not in one(f, "wound.taken").detail
    )


def test_a_missed_arrow_stays_missed_when_the_tens_differ_or_nobody_dodges() -> None:
    f = archery(SHOT, {44: declare("dodge")}, [61, 44])  # Me 11 against Mr 1: 1 and 0
    f.run()
    assert one(f, "attack.resolved").result == "missed"
    f = archery(SHOT, {}, [61])
    f.run()
    assert one(f, "attack.resolved").result == "missed"


def test_a_dodge_that_does_not_end_when_the_arrow_arrives_does_not_count() -> None:
    f = archery(SHOT, {40: declare("dodge")}, [50, 27, 15])
    f.run()
    assert one(f, "attack.resolved").result == "hit"


def test_a_hidden_shooters_missile_is_not_seen() -> None:
    f = archery(SHOT, {}, [27, 15], jared_setup={"hidden": True})
    jacou = f.state.combatants["jacou"].policy
    f.run()
    assert all(o.other("jared").actions == () for o in jacou.seen)
    f = archery(SHOT, {}, [27, 15])
    jacou = f.state.combatants["jacou"].policy
    f.run()
    seen = jacou.seen_at(2).other("jared").incoming("jacou")
    assert len(seen) == 1 and seen[0].ends_in == 46


def volley(second_at: tuple[float, float], dodge: Any, dice: list[int], pc: int = 2) -> Any:
    scripts = {"jared": SHOT, "archer2": {0: declare("shoot", "jacou")}, "jacou": {44: dodge}}
    return fight(
        scripts,
        dice,
        sheets={"jared": "jared", "archer2": "jared", "jacou": "jacou"},
        sides={"jared": "red", "archer2": "red", "jacou": "blue"},
        positions={"jared": (0.0, 0.0), "archer2": second_at, "jacou": (300.0, 0.0)},
        setup={"jared": READY, "archer2": READY, "jacou": {"command_points": pc}},
    )


def test_a_multiple_dodge_of_missiles_from_one_direction_is_paid_with_pc() -> None:
    """RinKaNou: several missiles at once from one direction: a multiple dodge, with PC."""
    assert bearing((300.0, 0.0), (0.0, 0.0)) == pytest.approx(180.0)
    dodge = declare("dodge", pc={"multiple": 1})
    f = volley((1.0, 0.0), dodge, [27, 27, 10, 10])  # dodge: 85 - 23 - 40 = 22
    f.run()
    assert [e.result for e in of(f, "attack.resolved")] == ["dodged", "dodged"]


def test_missiles_from_two_directions_only_one_can_be_dodged() -> None:
    dodge = declare("dodge", pc={"multiple": 1})
    f = volley((300.0, 300.0), dodge, [27, 27, 10, 15])  # the second comes from the north
    f.run()
    assert [e.result for e in of(f, "attack.resolved")] == ["dodged", "hit"]


# ------------------------------------------------------------------ command points


def test_command_points_are_the_same_every_segment_until_the_fighter_moves() -> None:
    script = {
        0: declare("shoot", "jacou", pc={"bonus": 2}),
        2: declare("ready"),
        12: declare("shoot", "jacou", pc={"bonus": 2}),
        14: declare("move", to=[-1.0, 0.0]),
    }
    f = archery(script, {}, [90, 90], jared_setup={"command_points": 2})
    f.run()
    first, second = of(f, "test.rolled", test="shoot")
    assert first.modifiers["pc"] == 20 and second.modifiers["pc"] == 20
    assert of(f, "pc.changed", actor="jared")[-1].pc == 0  # it moved: the position is lost


@pytest.mark.parametrize(
    ("pc", "message"),
    [
        ({"bonus": 3}, "spends 3 PC and buys 0, but only 2"),
        ({"faster": 2}, "at most 1 PS can shorten it"),
        ({"damage": 1}, "only a strike"),
    ],
)
def test_command_points_follow_the_ps_caps_and_cannot_be_overspent(
    pc: dict[str, int], message: str
) -> None:
    f = archery({0: declare("shoot", "jacou", pc=pc)}, {}, [], jared_setup={"command_points": 2})
    with pytest.raises(IllegalDeclaration, match=message):
        f.run()


def test_command_points_and_situation_points_never_mix() -> None:
    f = archery(
        {0: declare("dodge", pc={"bonus": 1}, ps={"bonus": 1})},
        {},
        [],
        jared_setup={"command_points": 2},
    )
    with pytest.raises(IllegalDeclaration, match="never mixed"):
        f.run()


def test_command_points_serve_ranged_and_immobile_actions_only() -> None:
    f = fight(
        {
            "robert": {0: declare("arm"), 3: declare("strike", "margaret", pc={"bonus": 1})},
            "margaret": {},
        },
        [],
    )
    with pytest.raises(IllegalDeclaration, match="takes no parameter pc"):
        f.run()


# ------------------------------------------------------------------ hard cover


def test_gol_bargs_target_behind_a_wall_covering_its_legs_costs_26() -> None:
    """RinKaNou, "Cible sous couvert dur": legs covered, -26 %; a hit rolled on a covered
    location strikes the cover."""
    cover = {"cover": ["right_leg", "left_leg"]}
    f = archery(SHOT, {}, [20, 80], distance=40.0, jacou_setup=cover)
    f.run()
    shot = one(f, "test.rolled", test="shoot")
    assert shot.modifiers["cover"] == -26
    assert one(f, "attack.resolved").result == "cover"
    assert not of(f, "wound.taken")


def test_cover_also_weighs_on_melee_blows() -> None:
    f = fight(
        {"robert": {}, "margaret": {0: declare("arm"), 3: declare("strike", "robert")}},
        [20, 15],
        setup={"robert": {"cover": ["hips", "right_leg", "left_leg"]}},
    )
    f.run()
    assert one(f, "test.rolled").modifiers["cover"] == -36
    assert one(f, "attack.resolved").result == "hit"


# ------------------------------------------------------------------ manoeuvres

DISARM = {0: declare("arm"), 3: declare("strike", "robert", disarm="weapon")}


def test_disarming_a_one_handed_weapon_sends_it_flying() -> None:
    """RinKaNou, "Désarmement": a localized blow at -50 %; 1d8 for the direction, 1d100
    cm for the distance."""
    f = fight({"robert": {}, "margaret": DISARM}, [10, 3, 80])
    f.run()
    attack = one(f, "test.rolled")
    assert attack.modifiers["disarm"] == -50 and attack.chance == 25
    assert one(f, "attack.resolved").result == "disarmed"
    dropped = one(f, "item.dropped")
    assert (dropped.x, dropped.y) == pytest.approx((0.0, 0.8))  # direction 3: 90 degrees
    assert f.state.combatants["robert"].status.grip == "dropped"


def test_a_disarmed_fighter_must_walk_to_its_weapon_and_pick_it_up() -> None:
    f = fight({"robert": {8: declare("arm")}, "margaret": DISARM}, [10, 3, 80])
    with pytest.raises(IllegalDeclaration, match="is on the ground"):
        f.run()
    script = {8: declare("pick_up"), 18: declare("arm")}
    f = fight({"robert": script, "margaret": DISARM}, [10, 3, 40])  # 40 cm away
    f.run()
    assert one(f, "action.declared", kind="pick_up").duration == 10
    assert one(f, "weapon.state", actor="robert").armed
    far = fight({"robert": {8: declare("pick_up")}, "margaret": DISARM}, [10, 3, 80])
    with pytest.raises(IllegalDeclaration, match="walk to it first"):
        far.run()


def test_a_two_handed_weapon_is_loosened_then_torn_away_before_the_regrip() -> None:
    """RinKaNou: a first disarm loosens the grip (regrip: half the arming time, RULES-NOTES);
    a second before the regrip tears it away: 1d8 direction, 1d2 metres."""
    wendel = sheet("greatsword")
    twice = {**DISARM, 9: declare("arm"), 12: declare("strike", "robert", disarm="weapon")}
    f = fight({"robert": {}, "margaret": twice}, [10, 10, 1, 2], sheets={"robert": wendel})
    f.run()
    results = [e.result for e in of(f, "attack.resolved")]
    assert results == ["grip loosened", "disarmed"]
    dropped = one(f, "item.dropped")
    assert (dropped.x, dropped.y) == pytest.approx((2.0, 0.0))
    regrip = fight(
        {"robert": {6: declare("regrip")}, "margaret": DISARM}, [10], sheets={"robert": wendel}
    )
    regrip.run()
    assert one(regrip, "action.declared", kind="regrip").duration == 3  # speed 5 / 2, up
    assert regrip.state.combatants["robert"].status.grip == "held"


def test_a_shield_is_pushed_aside_not_taken() -> None:
    hugues = sheet("shieldbearer")
    script = {0: declare("arm"), 3: declare("strike", "robert", disarm="shield")}
    shield_parry = declare("parry", **{"with": "shield"})
    f = fight({"robert": {7: shield_parry}, "margaret": script}, [10], sheets={"robert": hugues})
    with pytest.raises(IllegalDeclaration, match="pushed aside: regrip it first"):
        f.run()
    assert one(f, "attack.resolved").result == "shield pushed aside"
    f = fight(
        {"robert": {7: declare("regrip")}, "margaret": script}, [10], sheets={"robert": hugues}
    )
    f.run()
    assert one(f, "action.declared", kind="regrip").duration == 3  # a parry with it


def test_grab_needs_a_free_hand_then_wins_a_strength_duel() -> None:
    """RinKaNou, "Agripper": a free hand, a successful disarm, then a Force duel."""
    grab = {0: declare("arm"), 3: declare("strike", "robert", disarm="weapon", grab=True)}
    f = fight({"robert": {}, "margaret": grab}, [10, 30, 70])
    f.run()
    duel = of(f, "test.rolled", test="strength duel")
    assert [d.chance for d in duel] == [60, 50]  # Force 30 and 25, doubled
    assert one(f, "attack.resolved").result == "weapon grabbed"
    assert f.state.combatants["robert"].status.grip == "taken"
    wendel = sheet("greatsword")  # a two-handed sword: no free hand
    slow_grab = {0: declare("arm"), 5: declare("strike", "robert", disarm="weapon", grab=True)}
    f = fight({"robert": {}, "margaret": slow_grab}, [], sheets={"margaret": wendel})
    with pytest.raises(IllegalDeclaration, match="needs a free hand"):
        f.run()


def test_keeping_at_distance_needs_the_longer_weapon() -> None:
    f = fight({"robert": {0: declare("keep", "margaret")}, "margaret": {}}, [])
    with pytest.raises(IllegalDeclaration, match="needs the longer weapon") as err:
        f.run()
    assert "Tenir à distance" in err.value.rule


def spear_duel(dice: list[int]) -> Any:
    return fight(
        {
            "ottokar": {0: declare("keep", "robert")},
            "robert": {0: declare("move", toward="ottokar", segments=10)},
        },
        dice,
        sheets={"ottokar": "spearman"},
        sides={"ottokar": "red", "robert": "blue"},
        positions={"ottokar": (0.0, 0.0), "robert": (3.0, 0.0)},
    )


def test_keep_at_distance_holds_off_and_hits_on_a_great_success() -> None:
    """RinKaNou: the keeper's attack against twice the approacher's Souplesse (60); on a
    success it cannot come in; with Mr above 60 it is hit."""
    f = spear_duel([50, 5])  # his move; spear 55 + Souplesse 25 - 60 = 20; roll 5: Mr 15
    f.run()
    keep = one(f, "test.rolled", test="keep at distance")
    assert keep.chance == 20 and keep.success
    assert one(f, "combatant.moved").x == pytest.approx(2.6)  # held off beyond the 2.5 m reach
    assert not of(f, "wound.taken")


def test_keep_at_distance_failure_lets_it_in() -> None:
    """RinKaNou: "En cas d'échec, il a réussi à s'approcher", whatever the margin."""
    f = spear_duel(
        [50, 90]
    )  # his move, then the keep: Me 70 > 60: it closes all the way, and may attack at once
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(1.5)
    assert one(f, "keep.result").outcome == "in"
    f = spear_duel([50, 50])  # Me 30: it closes all the way too; its attack must wait
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(1.5)
    assert one(f, "keep.result").outcome == "close"


def test_a_thrown_weapon_disarms_only_with_size_m_and_a_one_handed_target() -> None:
    knife_thrower = attrs.evolve(sheet("jared"), ranged=CONTENT.ranged["throwing_knife"])
    f = fight(
        {"jared": {0: declare("shoot", "robert", disarm=True)}, "robert": {}},
        [],
        sheets={"jared": knife_thrower},
        sides={"jared": "red"},
        setup={"jared": READY},
    )
    with pytest.raises(IllegalDeclaration, match="size M or more"):
        f.run()
