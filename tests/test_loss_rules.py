"""Loss rules (text 000): the test of action, the four outcomes, the partial defence,
action points and phases, damage, shields, bad declarations and bad content."""

from __future__ import annotations

from pathlib import Path

import pytest

from segsim import Declaration, IllegalDeclaration, InputError
from segsim.fight import CombatantSpec
from segsim.rules.loss import Loss
from segsim.rules.loss.content import load_content
from segsim.rules.loss.declare import prepared_cost
from segsim.rules.loss.effects import keep_effects, outcome, partial_cancels
from segsim.rules.loss.events import (
    ActionPointsSpent,
    AttackPending,
    AttackSettled,
    Damaged,
    EffectApplied,
    Joined,
    RoundStarted,
    Tested,
    Waited,
)
from tests.loss_helpers import Plays, arena, dodge, of_type, parry, sheet

ROOT = Path(__file__).resolve().parent.parent


def run_until(fight, segment: int) -> None:
    fight.start()
    fight.env.run(until=segment)


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(
    ("total", "difficulty", "cancels"),
    [(19, 30, 0), (20, 30, 1), (24, 30, 1), (25, 30, 2), (29, 35, 2), (30, 35, 3), (30, 30, 0)],
)
def test_a_failed_defence_of_20_or_more_cancels_one_exploit_per_step_of_5(
    total: int, difficulty: int, cancels: int
) -> None:
    """Loss, "Le défenseur réussit partiellement"."""
    assert partial_cancels(total, difficulty) == cancels


def test_cancelled_exploits_go_first_from_those_no_effect_uses_then_the_last_effect() -> None:
    assert keep_effects(("extra_damage",) * 3, 3, 1) == (("extra_damage",) * 2, 2)
    assert keep_effects(("knock_down",), 3, 1) == (("knock_down",), 2)
    assert keep_effects(("feint", "knock_down"), 3, 1) == (("feint",), 2)


def test_the_four_outcomes_of_an_attack_against_a_defence() -> None:
    """Loss, "L'Action de Combat": the attack misses when its test fails, is stopped
    when both succeed, and hits when the attacker succeeds and the defender fails."""
    assert outcome(False, None) == "missed"
    assert outcome(False, True) == "missed"
    assert outcome(True, True) == "stopped"
    assert outcome(True, False) == "hit"
    assert outcome(True, None) == "hit"


def test_waiting_saves_action_points_down_to_two() -> None:
    assert prepared_cost(6, 8, 4) == (4, 2)  # Eric
    assert prepared_cost(6, 8, 2) == (2, 4)
    assert prepared_cost(6, 1, 12) == (6, 0)
    assert prepared_cost(6, 0, 3) == (6, 0)
    assert prepared_cost(1, 5, 3) == (1, 0)


# ---------------------------------------------------------------- outcomes in a fight


def duel(attacker_turns, defender_answers, dice, **kwargs):
    a = Plays(turns=attacker_turns)
    d = Plays(answers=defender_answers)
    fight = arena(
        {"diego": ("heroes", "diego", a), "malfrat": ("gang", "malfrat", d)}, dice=dice, **kwargs
    )
    return fight, a, d


def test_a_failed_attack_asks_for_no_defence() -> None:
    fight, _, d = duel([Declaration("attack", "malfrat")], [dodge()], [7, 2, 1])
    run_until(fight, 3)
    assert [s.result for s in of_type(fight, AttackSettled)] == ["missed"]
    assert not of_type(fight, AttackPending)
    assert d.answers == [dodge()]  # never asked
    assert [e.actor for e in of_type(fight, ActionPointsSpent)] == ["diego"]


def test_a_hit_deals_d10_plus_weapon_minus_armour_in_health_levels() -> None:
    """Loss, "Application des dégâts": 1d10 + weapon + bonus - armour."""
    fight, _, _ = duel([Declaration("attack", "malfrat")], [dodge()], [7, 2, 9, 1, 6])
    run_until(fight, 3)
    (damage,) = of_type(fight, Damaged)
    assert (damage.damage, damage.protection, damage.lost) == (6 + 3, 1, 8)
    assert damage.health == 20 - 8
    assert fight.state.combatants["malfrat"].status.health == 12


def test_a_parry_or_dodge_costs_one_action_point_even_when_it_fails() -> None:
    """Loss, "Dépenser les Points d'Action"."""
    fight, _, _ = duel([Declaration("attack", "malfrat")], [dodge()], [7, 2, 9, 1, 6])
    run_until(fight, 3)
    spent = [(e.actor, e.what, e.cost, e.left) for e in of_type(fight, ActionPointsSpent)]
    assert spent == [("diego", "attack", 3, 12), ("malfrat", "dodge", 1, 7)]
    assert not of_type(fight, Tested)[1].success


def test_the_defender_adds_its_own_modifiers_and_exploits_to_the_attackers_difficulty() -> None:
    fight, _, _ = duel(
        [Declaration("attack", "malfrat", {"effects": ["extra_damage"]})],
        [dodge(exploits=2)],
        [7, 2, 10, 10, 5],
        setup={"malfrat": {"lower_ground": True}},
    )
    run_until(fight, 3)
    attack, defence = of_type(fight, Tested)
    assert attack.difficulty == 20
    assert defence.difficulty == 20 + 5 + 10
    assert defence.modifiers == {"lower ground": 5}
    settled = of_type(fight, AttackSettled)[0]
    assert (settled.cancelled, settled.effects) == (1, ())  # 22: one Exploit cancelled
    assert of_type(fight, Damaged)[0].rolls == (5,)


def test_a_shield_protects_even_when_the_parry_fails() -> None:
    """Loss, "La parade au bouclier": the parry bonus, and a fixed protection."""
    a = Plays(turns=[Declaration("attack", "canahan", {"exploits": 1})])
    c = Plays(answers=[parry()])
    fight = arena(
        {"malfrat": ("gang", "malfrat", a), "canahan": ("heroes", "canahan", c)},
        dice=[9, 1, 10, 1, 5],
    )
    run_until(fight, 3)
    test = of_type(fight, Tested)[1]
    assert test.bonuses == {"shield": 1, "arme et bouclier": 2}
    assert not test.success
    (damage,) = of_type(fight, Damaged)
    # mail 3 + round shield 1 + arme et bouclier 1
    assert damage.protection == 5
    assert damage.lost == 5 + 3 - 5


# ---------------------------------------------------------------- phases and rounds


def test_equal_phases_act_in_the_same_segment() -> None:
    a, b = Plays(turns=[None]), Plays(turns=[None])
    fight = arena({"a": ("x", "malfrat", a), "b": ("y", "malfrat", b)}, dice=[4, 4])
    run_until(fight, 6)
    assert a.turn_segments[:2] == b.turn_segments[:2] == [0, 5]


def test_a_phase_let_go_by_lowers_the_phase_by_one() -> None:
    a = Plays()
    fight = arena({"a": ("x", "malfrat", a), "b": ("y", "malfrat", Plays())}, dice=[4, 1])
    run_until(fight, 11)
    held = [(e.actor, e.left) for e in of_type(fight, Waited) if e.actor == "a"]
    assert held[:2] == [("a", 9), ("a", 8)]


def test_the_round_ends_when_everyone_has_spent_its_points() -> None:
    """Loss, "Dépenser les Points d'Action": then everyone rolls initiative again."""
    a = Plays(turns=[Declaration("social"), Declaration("pass")])  # 1 PA, then the rest
    b = Plays(turns=[Declaration("pass")])
    fight = arena({"a": ("x", "malfrat", a), "b": ("y", "malfrat", b)}, dice=[4, 2, 3, 3])
    run_until(fight, 16)
    rounds = of_type(fight, RoundStarted)
    assert [(r.round, r.t, r.top) for r in rounds] == [(1, 0, 10), (2, 15, 9)]
    assert rounds[1].action_points == {"a": 9, "b": 9}
    assert b.turn_segments[0] == 10  # phase 8 of round 1


def test_an_action_costing_more_than_the_points_left_is_refused() -> None:
    """Loss: after a dodge the points left may not pay for the declared action."""
    eric = Plays(answers=[dodge()])
    m = Plays(turns=[Declaration("attack", "eric")])
    fight = arena(
        {"eric": ("x", "eric", eric), "m": ("y", "malfrat", m)},
        dice=[1, 1, 10, 1, 1],  # initiative 6 and 7; a hit, a failed dodge, damage
    )
    run_until(fight, 11)
    assert eric.turn_segments == [10]  # its dodge took it from phase 6 to phase 5
    rules: Loss = fight.ruleset
    with pytest.raises(IllegalDeclaration, match="costs 6 PA; eric has 5 left"):
        rules.plan(fight.state, "eric", Declaration("attack", "m"), 10, [])


def test_illegal_declarations_name_the_rule() -> None:
    a = Plays()
    fight = arena(
        {"a": ("x", "malfrat", a), "b": ("y", "malfrat", Plays()), "c": ("y", "malfrat", Plays())},
        dice=[9, 1, 1],
        positions={"a": (0.0, 0.0), "b": (1.0, 0.0), "c": (9.0, 0.0)},
    )
    run_until(fight, 1)
    rules: Loss = fight.ruleset
    state = fight.state

    def refused(d: Declaration, who: str = "a") -> str:
        with pytest.raises(IllegalDeclaration) as info:
            rules.plan(state, who, d, 0, [])
        return str(info.value)

    assert "Loss" in refused(Declaration("attack", "c"))  # not in contact
    assert "5" in refused(Declaration("attack", "b", {"exploits": 6}))
    assert "unknown special effect" in refused(Declaration("attack", "b", {"effects": ["x"]}))
    assert "need 2 Exploit" in refused(
        Declaration("attack", "b", {"effects": ["knock_down"], "exploits": 1})
    )
    assert "not now" in refused(Declaration("attack", "a"), who="b")
    assert "fursa" in refused(Declaration("attack", "b", {"fursa": 1}))
    assert "no attack" in refused(Declaration("dodge", params={"against": 99}))
    assert "Se préparer" in refused(Declaration("prepare", params={"until": 20}))


def test_taking_the_advantage_adds_action_points_next_round() -> None:
    """Loss, "Prendre l'avantage": +1 PA per Exploit to next round's initiative."""
    a = Plays(
        turns=[
            Declaration("attack", "b", {"effects": ["take_advantage"] * 2, "fursa": 1}),
            Declaration("pass"),
        ]
    )
    fight = arena(
        {"a": ("x", "diego", a), "b": ("y", "malfrat", Plays(answers=[None]))},
        dice=[9, 1, 10, 5, 1, 1],
        setup={},
    )
    run_until(fight, 100)
    assert [(e.effect, e.value) for e in of_type(fight, EffectApplied)] == [("take_advantage", 2)]
    second = of_type(fight, RoundStarted)[1]
    assert second.action_points["a"] == 8 + 1 + 2


def test_a_fighter_joining_acts_from_the_next_round_with_2_if_it_watched() -> None:
    """Loss, "Entrer dans un combat en cours"."""
    a = Plays(turns=[Declaration("social"), Declaration("pass")])  # 1 PA, then the rest
    b, late = Plays(turns=[Declaration("pass")]), Plays()
    fight = arena({"a": ("x", "malfrat", a), "b": ("y", "malfrat", b)}, dice=[4, 4, 1, 1, 1])
    fight.start()
    fight.join(
        CombatantSpec("late", "x", sheet("vigile"), late, position=(0, 1), setup={"watched": True}),
        at=2,
    )
    fight.env.run(until=20)
    assert [(e.actor, e.watched) for e in of_type(fight, Joined)] == [("late", True)]
    # b passed at phase 10 and a at phase 9: round 1 ends with that phase, at segment 10.
    assert late.turn_segments[0] == 10
    assert of_type(fight, RoundStarted)[1].action_points["late"] == 1 + 6 + 2


# ---------------------------------------------------------------- options and content


def test_options_are_checked() -> None:
    with pytest.raises(TypeError, match="phase_segments"):
        Loss(phase_segments=3)
    with pytest.raises(TypeError, match="darkness"):
        Loss(darkness="yes")  # type: ignore[arg-type]
    assert Loss(phase_segments=10).tick == 10


def test_a_phase_lasts_phase_segments() -> None:
    a, b = Plays(turns=[None, None]), Plays()
    fight = arena(
        {"a": ("x", "malfrat", a), "b": ("y", "malfrat", b)},
        dice=[4, 1],
        options={"phase_segments": 10},
    )
    run_until(fight, 21)
    assert a.turn_segments[:3] == [0, 10, 20]


def test_darkness_adds_10_to_every_difficulty() -> None:
    fight, _, _ = duel(
        [Declaration("attack", "malfrat")], [None], [7, 2, 9, 1], options={"darkness": True}
    )
    run_until(fight, 3)
    attack = of_type(fight, Tested)[0]
    assert (attack.difficulty, attack.modifiers) == (25, {"darkness": 10})


def test_bad_content_names_the_file_line_and_field(tmp_path: Path) -> None:
    src = ROOT / "models" / "loss"
    for f in src.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    weapons = tmp_path / "weapons.toml"
    text = weapons.read_text(encoding="utf-8").replace(
        "speed = 6\ndamage = 7", "speed = 0\ndamage = 7"
    )
    weapons.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_content(tmp_path)
    message = str(info.value)
    assert "weapons.toml" in message and "weapon.claymore.speed" in message
    line = text.splitlines().index("speed = 0") + 1
    assert f":{line}:" in message


def test_a_minion_sheet_refuses_inspiration(tmp_path: Path) -> None:
    rules = Loss()
    from segsim.input import Source

    src = Source("sheet.toml", "minion = true\ninitiative = 3\ninspiration = 1\n")
    with pytest.raises(InputError, match="minion"):
        rules.load_sheet(src.root())


def test_the_rules_page_blocks_run() -> None:
    """docs/rules/loss.md: its Python blocks run from the repository root."""
    import os
    import re

    text = (ROOT / "docs" / "rules" / "loss.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            exec(compile(block, "docs/rules/loss.md", "exec"), {})
    finally:
        os.chdir(here)


def test_a_loss_fight_played_at_the_table_is_entered_as_a_fight_script(tmp_path: Path) -> None:
    """Fight scripts (docs/replay.md) play Loss: the sailors example, as declared."""
    from segsim.record import fight_record
    from segsim.replay import replay
    from segsim.script import load_script

    script = tmp_path / "sailors.toml"
    script.write_text(
        """
[fight]
name = "Diego and the sailors"
ruleset = "loss"

[[combatant]]
id = "diego"
side = "diego"
fighter = "diego"
position = [0.0, 0.0]
is_pc = true

[[combatant]]
id = "sailor"
side = "sailors"
fighter = "sailor"
position = [1.0, 0.0]

[segment.0]
diego = { action = "attack", target = "sailor", exploits = 1, inspiration = 1 }

[segment.1]
sailor = "dodge"

[dice]
rolls = [9, 1, 6, 4]
""",
        encoding="utf-8",
    )
    fight = load_script(script).play()
    assert fight.outcome is not None
    assert (fight.outcome.result, fight.outcome.winner) == ("victory", "diego")
    dodged = [e for e in fight.history if isinstance(e, Tested) and e.test == "dodge"]
    assert [(t.total, t.success) for t in dodged] == [(9 + 4, False)]
    assert replay(fight_record(fight)).identical


def test_a_bad_structure_flag_or_spot_difficulty_is_named() -> None:
    """Bad input names its field: a sheet's ``structure`` is true or false, a setup's
    ``spot_difficulty`` a whole number from 5 to 60."""
    from segsim.input import Source

    rules = Loss()
    sheet_src = Source("wall.toml", 'initiative = 0\nstructure = "yes"\n')
    with pytest.raises(InputError, match="structure"):
        rules.load_sheet(sheet_src.root())
    setup_src = Source("setup.toml", "hidden = true\nspot_difficulty = 2\n")
    with pytest.raises(InputError, match="spot_difficulty") as info:
        rules.load_setup(setup_src.root())
    assert "setup.toml:2" in str(info.value)


def test_a_structure_sheet_reads_back_from_its_data() -> None:
    from segsim.input import Source

    rules = Loss()
    wall = rules.load_sheet(
        Source("wall.toml", "initiative = 0\nstructure = true\nhuman = false\n").root()
    )
    assert wall.structure
    assert rules.sheet_data(wall)["structure"] is True
    assert "structure" not in rules.sheet_data(sheet("diego"))
