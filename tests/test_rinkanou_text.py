"""RinKaNou rules read again against RinKaNou: each test is built from the text's own
wording or example (the section is cited), for the rules where segsim used to depart
from it. Fighters are those of ``models/rinkanou/fighters.toml`` (see the headers of
test_rinkanou_melee.py and test_rinkanou_ranged.py for their numbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim import IllegalDeclaration
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.content import default_content
from segsim.script import load_script
from segsim.testing import declare, sheet

CONTENT = default_content()


# ------------------------------------------------------------------ 8. range malus


def test_the_range_malus_is_distance_over_increment_times_5_unfloored() -> None:
    """RinKaNou, "Les portées": malus to hit = distance / increment x 5. At 330 m with a
    50 m increment that is 6.6 x 5 = -33 %, not -30 % for six whole increments; the
    damage malus is distance / increment, 6 points once rounded down."""
    f = fight(
        {"jared": {0: declare("shoot", "jacou")}, "jacou": {}},
        [27, 15],
        sheets={"jared": "jared", "jacou": "jacou"},
        sides={"jared": "red", "jacou": "blue"},
        positions={"jared": (0.0, 0.0), "jacou": (330.0, 0.0)},
        setup={"jared": {"wielding": "ranged", "loaded": True}, "jacou": {}},
    )
    f.run()
    shot = one(f, "test.rolled", test="shoot")
    assert shot.modifiers["range"] == -33
    assert one(f, "wound.taken").detail["range"] == -6


# ------------------------------------------------------------------ 9. size table


def _greatsword_cut(**options: Any) -> Any:
    giant = attrs.evolve(
        sheet("veteran"),
        weapon=CONTENT.weapons["two_handed_sword"],
        skills={"combat": 55, "two_handed_sword": 60},
        characteristics={"strength": 35, "agility": 25, "reason": 25, "reflexes": 25},
    )
    robert = sheet("robert")
    robert = attrs.evolve(robert, characteristics={**robert.characteristics, "strength": 40})
    f = fight(
        {
            "robert": {0: declare("arm"), 7: declare("parry")},
            "margaret": {0: declare("arm"), 5: declare("strike", "robert", blow="cut")},
        },
        [40, 10, 15],
        sheets={"margaret": giant, "robert": robert},
        ruleset_options=options,
    )
    f.run()
    return f


def test_the_size_table_read_in_points_enters_the_strength_contest() -> None:
    """RinKaNou, "Coup de taille": the attacker's weapon size modifier adds to the
    strength contest. Default reading: one point per 10 % of the table (very large +4):
    Force +1 + 4 against Force +2 is 3 > 0, the blow goes through."""
    f = _greatsword_cut()
    assert "size" not in of(f, "test.rolled")[1].modifiers
    assert one(f, "attack.resolved").result == "hit"
    assert RinKaNou().size_table == "contest"


def test_the_size_table_read_as_a_percentage_malus_on_the_parry_roll() -> None:
    """RinKaNou: the table's own title, "Malus pour parer une arme en fonction de sa
    longueur", reads as a % malus to parry: with ``size_table = "parry"`` a very large
    weapon costs the interception roll 40 % and leaves the strength contest (Force +1
    against +2: blocked)."""
    f = _greatsword_cut(size_table="parry")
    parry = of(f, "test.rolled")[1]
    assert parry.modifiers["size"] == -40
    # 55 + 30 - Mr 50 + parry scores 0 - 40 = -5: the roll of 10 fails, the blow lands.
    assert parry.chance == -5 and not parry.success
    assert one(f, "attack.resolved").result == "hit"
    f = fight(
        {
            "robert": {0: declare("arm"), 7: declare("parry")},
            "margaret": {0: declare("arm"), 5: declare("strike", "robert", blow="cut")},
        },
        [70, 10],
        sheets={
            "margaret": attrs.evolve(
                sheet("veteran"),
                weapon=CONTENT.weapons["two_handed_sword"],
                skills={"combat": 55, "two_handed_sword": 60},
                characteristics={"strength": 35, "agility": 25, "reason": 25, "reflexes": 25},
            ),
            "robert": attrs.evolve(
                sheet("robert"),
                characteristics={**sheet("robert").characteristics, "strength": 40},
            ),
        },
        ruleset_options={"size_table": "parry"},
    )
    f.run()
    # Attack 70 vs 90: Mr 20; parry 55 + 30 - 20 - 40 = 25, roll 10: intercepted; the
    # contest is Force +1 against +2 with no size: blocked.
    assert of(f, "test.rolled")[1].success
    assert one(f, "attack.resolved").result == "blocked"


def test_the_size_table_option_is_checked() -> None:
    with pytest.raises(TypeError, match="size_table"):
        RinKaNou(size_table="metres")


# ------------------------------------------------------------------ 7. "non pris en compte"

GNUS = {"mimi": (0.0, 0.0), "g1": (1.4, 0.0), "g2": (0.0, 1.0), "g3": (-1.4, 0.0)}


def _busy_mimi(mimi: dict[int, Any], dice: list[int]) -> Any:
    return fight(
        {"mimi": mimi, "g1": {0: declare("reposition")}, "g2": {}, "g3": {}},
        dice,
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNUS,
        setup={"mimi": {"ps": 3, "engage": ["g1", "g2"]}},
    )


def test_an_opponent_who_acts_while_the_fighter_is_busy_is_no_longer_taken_into_account() -> None:
    """RinKaNou, "En mêlée": when an opponent taken into account resolves an action he is
    at once no longer taken into account; the fighter can still use its points against
    the others. Mimi is arming (3..5) when G1 resolves its reposition (in 4): she keeps
    her 3 PS (she is in the middle of an action) but against G2 only."""
    f = _busy_mimi({3: declare("arm")}, [50])
    f.run()
    changed = of(f, "ps.changed", actor="mimi")[-1]
    assert (changed.t, changed.ps, changed.engaged, changed.reason) == (4, 3, ("g2",), "engaged")
    f = _busy_mimi({3: declare("arm"), 6: declare("strike", "g1", ps={"bonus": 1})}, [50])
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()
    f = _busy_mimi({3: declare("arm"), 6: declare("strike", "g2", ps={"bonus": 1})}, [50, 98])
    f.run()
    assert one(f, "test.rolled", test="attack").modifiers["ps"] == 10


# ------------------------------------------------------------------ 2. defences have a target

GNU_HERD = {"mimi": (0.0, 0.0), "g1": (1.4, 0.0), "g2": (0.0, 1.0), "g3": (-1.4, 0.0)}
GNU_HERD["g4"] = (0.0, -1.1)


def _mimi_at_minus_two(later: dict[int, Any], dice: list[int], **kw: Any) -> Any:
    """RinKaNou, "En mêlée", the example: Mimi takes G1, G2 and G3 into account for a
    tactical move and ends at -2 PS, which applies against the nearest, G2 and G4."""
    mimi = {0: declare("reposition", engage=["g1", "g2", "g3"]), **later}
    return fight(
        {"mimi": mimi, "g1": {}, "g2": {}, "g3": {}, "g4": {}},
        [75, *dice],
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNU_HERD,
        **kw,
    )


def test_mimi_dodges_a_blow_of_g1_without_buying_back_but_not_one_of_g2() -> None:
    """RinKaNou, "En mêlée": Mimi "pourra agir sans malus de situation contre G1 et G3,
    mais sera désavantagée si G4 ou G2" attack her and she must dodge. A dodge is made
    against the opponent whose blow it meets."""
    f = _mimi_at_minus_two({5: declare("dodge", "g1")}, [50])
    f.run()
    dodge = one(f, "action.declared", kind="dodge")
    assert dodge.target == "g1" and "ps" not in dodge.params
    f = _mimi_at_minus_two({5: declare("dodge", "g2")}, [50])
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        f.run()
    f = _mimi_at_minus_two({5: declare("dodge", "g2", ps={"malus": 2})}, [50])
    f.run()
    assert one(f, "test.rolled", test="dodge").modifiers["ps"] == -20


def test_points_are_spent_on_a_dodge_only_against_opponents_taken_into_account() -> None:
    """RinKaNou, "En mêlée": "On ne peut pas utiliser ces points pour un adversaire non
    pris en compte"."""
    setup = {"mimi": {"ps": 2, "engage": ["g1"]}}
    f = fight(
        {"mimi": {0: declare("dodge", "g3", ps={"bonus": 1})}, "g1": {}, "g3": {}},
        [],
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNU_HERD,
        setup=setup,
    )
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()
    f = fight(
        {"mimi": {0: declare("dodge", "g1", ps={"bonus": 1})}, "g1": {}, "g3": {}},
        [50],
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNU_HERD,
        setup=setup,
    )
    f.run()
    assert one(f, "test.rolled", test="dodge").modifiers["ps"] == 10


def test_a_dodge_against_one_opponent_does_not_meet_anothers_blow() -> None:
    """A dodge is made against someone: the blow of another opponent lands."""
    f = fight(
        {
            "robert": {3: declare("dodge", "veteran")},
            "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow="cut")},
            "veteran": {},
        },
        [40, 15, 50],  # the cut, its hit location, then the dodge on its own
        positions={"robert": (0.0, 0.0), "margaret": (1.0, 0.0), "veteran": (0.0, 1.0)},
    )
    f.run()
    assert one(f, "attack.resolved").result == "hit"
    lone = one(f, "test.rolled", test="dodge")
    assert "attacker Mr" not in lone.modifiers  # its own test, not against the cut


def test_a_dodge_paid_with_command_points_keeps_its_opponents_taken_into_account() -> None:
    """The points a dodge earns count against the opponents it took into account, also
    when it spent command points (RinKaNou, "Points de commandement": PC and PS apart)."""
    f = fight(
        {"robert": {0: declare("dodge", pc={"bonus": 1})}, "margaret": {}},
        [20],
        setup={"robert": {"command_points": 2}},
    )
    f.run()
    changed = of(f, "ps.changed", actor="robert")[-1]
    assert changed.reason == "result" and changed.engaged == ("margaret",)


# ------------------------------------------------------------------ 4. simultaneous actions


def test_the_simultaneous_malus_counts_the_difficulty_the_rules_impose() -> None:
    """RinKaNou, "Actions simultanées": a rolled action weighs on another by -10 % +
    its difficulty / 2. Robert dodges Margaret's thrust (her Mr 35, and -20 for a thrust:
    the dodge's difficulty is -55) while his own cut runs: the cut takes -10 - 27 = -37,
    not -10 as if the dodge were of average difficulty."""
    f = fight(
        {
            "robert": {
                0: declare("arm"),
                3: declare("dodge", "margaret"),
                4: declare("strike", "margaret", blow="cut"),
            },
            "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow="thrust")},
        },
        [40, 5, 20, 15],  # her thrust (Mr 35), his dodge, his cut, its hit location
    )
    f.run()
    thrust, dodge, cut = of(f, "test.rolled")
    assert thrust.margin == 35 and dodge.test == "dodge" and dodge.success
    # The dodge is settled first: the cut weighs with what its declaration fixes,
    # Margaret's deflection (-5): -10 - 2.5 = -12.
    assert dodge.modifiers["simultaneous"] == -12
    assert cut.test == "attack" and cut.modifiers["simultaneous"] == -37


def test_a_projectile_dodge_weighs_with_its_minus_40() -> None:
    """RinKaNou, "Esquive de projectiles": a missile dodge is at -40 % (and the shooter's
    Mr counts against it). Jacou dodges Jared's arrow (Mr 50) while stabbing a recruit:
    the stab takes -10 + (-50 - 40) / 2 = -55."""
    f = fight(
        {
            "jared": {0: declare("shoot", "jacou")},
            "jacou": {
                0: declare("arm"),
                2: declare("dodge", "jared"),
                4: declare("strike", "recruit", blow="thrust"),
            },
            "recruit": {},
        },
        [30, 50, 15, 50],  # the shot (Mr 50), the dodge (fails), hit location, the stab
        sheets={"jared": "jared", "jacou": "jacou"},
        sides={"jared": "red", "jacou": "blue", "recruit": "red"},
        positions={"jared": (20.0, 0.0), "jacou": (0.0, 0.0), "recruit": (0.0, 1.0)},
        setup={"jared": {"wielding": "ranged", "loaded": True}, "jacou": {}},
    )
    f.run()
    shot, dodge, stab = of(f, "test.rolled")
    assert shot.margin == 50 and dodge.modifiers["missile"] == -40
    assert stab.test == "attack" and stab.modifiers["simultaneous"] == -55


# ------------------------------------------------------------------ 3. reading intentions

SCRIPTS = Path(__file__).parent / "scripts"


def test_robert_reads_margaret_late_in_her_attack_at_plus_30() -> None:
    """RinKaNou, "Échelonnement des actions dans le temps", the example: -50 % after one
    segment of Margaret's action, +30 % at its fifth "alors que sa lame commence à
    s'abattre": arming and striking are one action. A fight script says it."""
    f = load_script(SCRIPTS / "read_late_in_the_attack.toml").play()
    early, late = of(f, "test.rolled", test="read")
    assert early.modifiers["reading"] == -50 and not early.success
    assert late.modifiers["reading"] == 30 and late.chance == 105 and late.success
    read = one(f, "intent.read")
    assert (read.kind, read.target, read.ends_in) == ("strike", "robert", 5)


def test_a_strike_begun_after_a_pause_on_guard_is_read_from_its_own_start() -> None:
    """Arming and striking are one action when the strike follows the arming at once; a
    blow held armed on guard and loosed later is read from the strike's start."""
    f = fight(
        {
            "robert": {6: declare("read", "margaret")},
            "margaret": {0: declare("arm"), 5: declare("strike", "robert", blow="cut")},
        },
        [60, 40, 15],
    )
    f.run()
    assert one(f, "test.rolled", test="read").modifiers["reading"] == -50


# ------------------------------------------------------------------ 1. keep at distance


def _spear(robert: dict[int, Any], dice: list[int]) -> Any:
    return fight(
        {"ottokar": {0: declare("keep", "robert")}, "robert": robert},
        dice,
        sheets={"ottokar": "spearman"},
        sides={"ottokar": "red", "robert": "blue"},
        positions={"ottokar": (0.0, 0.0), "robert": (3.0, 0.0)},
    )


def test_a_failed_keep_lets_the_approacher_in_and_a_bad_failure_lets_him_strike() -> None:
    """RinKaNou, "Tenir à distance": "En cas d'échec, il a réussi à s'approcher. De
    plus, si votre Me est supérieure à sa SPLx2, il peut vous attaquer." A move to a
    point is opposed like any other approach. A fight script says it."""
    f = load_script(SCRIPTS / "keep_at_distance_fails.toml").play()
    keep = one(f, "test.rolled", test="keep at distance")
    assert keep.chance == 20 and keep.margin == 70 and not keep.success
    assert one(f, "combatant.moved").x == pytest.approx(1.5)
    assert one(f, "keep.result").outcome == "in"
    assert one(f, "attack.resolved").result == "hit"


def test_a_mild_failure_lets_him_in_but_his_attack_waits_for_his_next_action() -> None:
    """RinKaNou: with a Me not above twice his Souplesse "il devra attendre son action
    suivante pour attaquer": the blow he armed on the way in is lost."""
    approach = {0: [declare("arm"), declare("move", to=[1.5, 0.0], segments=10)]}
    f = _spear(approach, [50, 50])  # his move (it rolls, within the spear's reach), Me 30
    f.run()
    assert one(f, "combatant.moved").x == pytest.approx(1.5)
    assert one(f, "keep.result").outcome == "close"
    assert not f.state.combatants["robert"].status.armed
    f = _spear({**approach, 10: declare("strike", "ottokar")}, [50, 50])
    with pytest.raises(IllegalDeclaration, match="needs an armed blow"):
        f.run()
    # Arming again is his next action; then he strikes.
    again = {**approach, 10: declare("arm"), 13: declare("strike", "ottokar")}
    f = _spear(again, [50, 50, 30, 15])
    f.run()
    assert one(f, "attack.resolved").result == "hit"


def test_a_blow_being_armed_when_he_comes_close_is_lost_too() -> None:
    """Arming while walking in (the arming ends after the approach) is part of the
    attack that must wait."""
    f = _spear({0: declare("move", to=[1.5, 0.0], segments=10), 8: declare("arm")}, [50, 50])
    f.run()
    assert one(f, "keep.result").lost_arm is not None
    assert not f.state.combatants["robert"].status.armed
    assert not of(f, "weapon.state", actor="robert", armed=True)


def test_a_move_to_a_point_within_reach_is_held_off_like_any_approach() -> None:
    """RinKaNou: "Chaque fois que votre ennemi cherchera à s'approcher": a successful
    keep stops him on his way, just beyond the spear's reach, wherever he was going."""
    f = _spear({0: declare("move", to=[1.5, 1.0], segments=10)}, [50, 5])
    f.run()
    moved = one(f, "combatant.moved")
    assert (moved.x**2 + moved.y**2) ** 0.5 == pytest.approx(2.6, abs=1e-5)
    assert one(f, "keep.result").outcome == "held"


# ------------------------------------------------------------------ 5. disengaging


def test_an_opponent_who_lets_the_fighter_go_does_not_oppose_the_disengage() -> None:
    """RinKaNou, "Se désengager": "Si ledit adversaire ne veut pas laisser le personnage
    s'échapper", the opposed roll resolves it; one who lets him go rolls nothing, and the
    fighter breaks away. Margaret's choice is her stance, in the record and in her own
    observation."""
    f = fight(
        {
            "robert": {1: declare("disengage")},
            "margaret": {0: declare("stance", oppose_disengage=False)},
        },
        [],
    )
    f.run()
    assert not of(f, "test.rolled")
    one(f, "combatant.disengaged")
    assert one(f, "stance.changed", actor="margaret").oppose_disengage is False
    margaret = f.state.combatants["margaret"].policy
    assert margaret.seen_at(0).me.oppose_disengage is True
    assert margaret.seen_at(1).me.oppose_disengage is False


def test_a_fighter_set_up_to_let_go_does_not_oppose() -> None:
    f = fight(
        {"robert": {0: declare("disengage")}, "margaret": {}},
        [],
        setup={"margaret": {"oppose_disengage": False}},
    )
    f.run()
    one(f, "combatant.disengaged")


def test_situation_points_serve_both_sides_of_a_disengage() -> None:
    """RinKaNou: the difficulty is average when both are on guard, "on peut néanmoins
    utiliser des PS pour gagner des bonus": Robert spends one on his roll, Margaret one on
    her opposition (her stance says how many)."""
    f = fight(
        {
            "robert": {1: declare("disengage", ps={"bonus": 1})},
            "margaret": {0: declare("stance", oppose_disengage=True, ps_bonus=1)},
        },
        [30, 20],
        setup={"robert": {"ps": 2}, "margaret": {"ps": 1}},
    )
    f.run()
    own, theirs = of(f, "test.rolled")
    assert own.modifiers["ps"] == 10 and theirs.modifiers["ps"] == 10
    assert theirs.chance == 50 + 25 + 10
    assert not of(f, "combatant.disengaged")  # her Mr 65 beats his 60


# ------------------------------------------------------------------ 6. moving in a fight


def test_a_move_within_an_opponents_reach_rolls_and_recomputes_situation_points() -> None:
    """RinKaNou, "Points de situation": the score is recomputed whenever a fighter
    resolves a combat action, "mouvement" included; "Achat de points de situation": the
    current score counts to resolve a move, "ce qui implique de racheter d'éventuels PS
    négatifs". Combat is the skill of moves in a fight ("Compétences de combat")."""
    step = {0: declare("move", to=[0.3, 0.0])}
    f = fight({"robert": step, "margaret": {}}, [50], setup={"robert": {"ps": -1}})
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        f.run()
    step = {0: declare("move", to=[0.3, 0.0], ps={"malus": 1})}
    f = fight({"robert": step, "margaret": {}}, [50], setup={"robert": {"ps": -1}})
    f.run()
    test = one(f, "test.rolled", test="move")
    assert test.modifiers == {"combat": 50, "agility": 30, "ps": -10}
    assert test.chance == 70 and test.margin == 20
    changed = of(f, "ps.changed", actor="robert")[-1]
    assert (changed.t, changed.ps, changed.reason) == (0, 20 // 20, "result")
    assert one(f, "combatant.moved").x == pytest.approx(0.15)


def test_walking_up_into_reach_rolls_too_but_a_move_far_from_everyone_does_not() -> None:
    far = {"robert": (0.0, 0.0), "margaret": (5.0, 0.0)}
    run_in = {0: declare("move", toward="margaret", pace="run", segments=8)}
    f = fight({"robert": run_in, "margaret": {}}, [50], positions=far)
    f.run()
    assert one(f, "test.rolled", test="move").t == 7
    walk = {0: declare("move", toward="margaret", segments=5)}
    f = fight({"robert": walk, "margaret": {}}, [], positions=far)
    f.run()
    assert not of(f, "test.rolled") and not of(f, "ps.changed")


def test_the_option_move_roll_false_keeps_moves_silent() -> None:
    step = {0: declare("move", to=[0.3, 0.0])}
    f = fight(
        {"robert": step, "margaret": {}},
        [],
        setup={"robert": {"ps": -1}},
        ruleset_options={"move_roll": False},
    )
    f.run()
    assert not of(f, "test.rolled")
    assert RinKaNou(move_roll=False).options["move_roll"] is False


def test_a_move_out_of_reach_refuses_spends_and_drops_a_moot_buy_back() -> None:
    far = {"robert": (0.0, 0.0), "margaret": (5.0, 0.0)}
    walk = {0: declare("move", toward="margaret", segments=5, ps={"malus": 1})}
    f = fight({"robert": walk, "margaret": {}}, [], positions=far, setup={"robert": {"ps": -1}})
    f.run()
    assert "ps" not in one(f, "action.declared", kind="move").params
    walk = {0: declare("move", toward="margaret", segments=5, ps={"bonus": 1})}
    f = fight({"robert": walk, "margaret": {}}, [], positions=far, setup={"robert": {"ps": 2}})
    with pytest.raises(IllegalDeclaration, match="no roll"):
        f.run()
