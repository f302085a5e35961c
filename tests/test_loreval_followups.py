"""Loreval rules finished after the first landing: the lock after a block, a caster's
concentration when a counter hits it, a voided counter's change step, moves on a
defensive counter (Loreval, "Bloquer une attaque", "Lancer un sort et Contre",
"Modifier son action", "Types de contre")."""

from __future__ import annotations

import attrs
import pytest

from segsim import IllegalDeclaration
from segsim.rules.loreval.combat import attention_scores
from segsim.rules.loreval.events import (
    ActionWasted,
    AttackRolled,
    CheckRolled,
    Countered,
    CounterRolled,
    Damaged,
    Declared,
    Locked,
    RoundStarted,
    SpellCast,
    TurnResolved,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

BLOCK = {"against": "defensive", "how": "block", "attention": {"environment": 1, "focus": 2}}


def test_a_successful_block_locks_both_fighters_until_a_strength_roll_frees_them() -> None:
    """Loreval, "Bloquer une attaque": when the block beats the attack, the assailant
    is held: both fighters at -2 in Security while it lasts, no moves (the block also
    prevents moving); the one blocked makes an opposed strength roll to get free."""
    a = ByRound({1: declare("counter", "g", **BLOCK), 2: declare("inaction")})
    g_plans = {1: declare("attack", "a"), 2: declare("attack", "a")}
    g = ByRound(g_plans)
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        # a 14, g 17; a's block roll 10 (19) beats g's attack 5 (14);
        # round 2: g's strength 3 (+4) loses to a's 15 (+3); g's attack 2 misses
        dice=[10, 15, 10, 5, 3, 15, 2],
        rounds=2,
    )
    states = []

    def watch(obs: object) -> object:
        st = fight.state
        states.append(
            (
                attention_scores(st.combatants["a"], 2).security,
                attention_scores(st.combatants["g"], 2).security,
            )
        )
        return declare("attack", "a")

    g.plan[2] = watch
    fight.run()
    lock = of_type(fight, Locked)
    assert [(e.actor, e.other, e.locked) for e in lock] == [("g", "a", True)]
    assert of_type(fight, Countered)[0].how == "block"
    # aldren had 0 Security, garrok 0: both at -2 while locked
    assert states == [(-2, -2)]
    contest = of_type(fight, CheckRolled, actor="g")[0]
    assert contest.check == "strength (breaking the lock)"
    assert not contest.success
    assert fight.state.combatants["g"].status.locked_with == "a"
    assert len(of_type(fight, AttackRolled, actor="g")) == 2  # locked, it still strikes


def test_winning_the_strength_roll_ends_the_lock() -> None:
    a = ByRound({1: declare("counter", "g", **BLOCK), 2: declare("inaction")})
    g = ByRound({1: declare("attack", "a"), 2: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, 10, 5, 15, 3, 2],
        rounds=2,
    )
    fight.run()
    assert [e.locked for e in of_type(fight, Locked)] == [True, False]
    assert fight.state.combatants["g"].status.locked_with is None
    assert fight.state.combatants["a"].status.locked_with is None


def test_fighters_locked_by_a_block_cannot_move() -> None:
    a = ByRound({1: declare("counter", "g", **BLOCK), 2: declare("move", to=[-3, 0])})
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, 10, 5, 10, 10],
        rounds=2,
    )
    with pytest.raises(IllegalDeclaration, match="locked with g by a block"):
        fight.run()


STRIKE = {"against": "offensive", "how": "strike", "attention": {"environment": 1, "security": 1}}


def _caster_fight(concentration: int, roll: int) -> object:
    from segsim.rules.loreval import Loreval

    rules = Loreval()
    sheet = rules.load_sheet(rules.content.fighters["sylva"])
    sheet = attrs.evolve(sheet, skills={**sheet.skills, "concentration": concentration})
    s = ByRound({1: declare("spell", "g", spell="sleep", level=2, attention={"focus": 1})})
    g = ByRound({1: declare("counter", "s", **STRIKE)})
    fight = arena(
        {"s": ("blue", sheet, s), "g": ("red", "garrok", g)},
        # s 8, g 17; g's counter strike 15 hits, damage 3 + 4 (+6); s's concentration
        dice=[1, 15, 15, 3, 4, roll],
    )
    fight.run()
    return fight


def test_a_caster_hit_by_a_counter_must_win_a_concentration_roll() -> None:
    """Loreval, "Lancer un sort et Contre": an offensive counter against a caster is
    resolved before the spell; if it hurts the caster, a concentration roll against
    10 + damage taken + the spell's level decides whether the spell is finished."""
    fight = _caster_fight(0, 12)
    hit = of_type(fight, Damaged, actor="s")[0]
    assert hit.damage == 3 + 4 + 6
    roll = of_type(fight, CheckRolled, actor="s")[0]
    assert (roll.check, roll.total, roll.difficulty) == ("concentration", 12, 10 + 13 + 2)
    assert not roll.success
    assert not of_type(fight, SpellCast)
    assert of_type(fight, Countered)[0].actor == "s"


def test_a_caster_who_keeps_its_concentration_casts_its_spell() -> None:
    fight = _caster_fight(14, 12)
    roll = of_type(fight, CheckRolled, actor="s")[0]
    assert (roll.total, roll.success) == (26, True)
    assert [(e.actor, e.spell, e.target) for e in of_type(fight, SpellCast)] == [
        ("s", "sleep", "g")
    ]
    assert not of_type(fight, Countered)


def _tifin() -> object:
    """The text's Tifin: dexterity 14, strength 12, constitution 9, size Petite: 3.70 m."""
    from segsim.rules.loreval import Loreval

    rules = Loreval()
    sheet = rules.load_sheet(rules.content.fighters["sylva"])
    characteristics = {**sheet.characteristics, "dexterity": 14, "strength": 12}
    characteristics["constitution"] = 9
    return attrs.evolve(sheet, race="tifin", size="P", characteristics=characteristics)


def test_the_texts_jump_distances() -> None:
    """Loreval, "La compétence Saut": the Tifin moving 3.70 m clears 1.85 m standing
    with a 10, 0.185 m more per point (2 m needs 11); with a run-up 2.78 m, 0.28 m per
    point; never beyond VD standing, 1.5 VD with a run-up; 1/3 of it in height."""
    from segsim.rules.loreval.jump import cleared, jump_reach, needed

    assert jump_reach(3.7, 10, False) == pytest.approx(1.85)
    assert jump_reach(3.7, 11, False) - jump_reach(3.7, 10, False) == pytest.approx(0.185)
    assert needed(3.7, 2.0, 0.0, False) == 11
    assert jump_reach(3.7, 10, True) == pytest.approx(2.775)
    assert jump_reach(3.7, 11, True) - jump_reach(3.7, 10, True) == pytest.approx(0.2775)
    assert jump_reach(3.7, 40, False) == pytest.approx(3.7)
    assert jump_reach(3.7, 40, True) == pytest.approx(3.7 * 1.5)
    # A jump both long and high: 1/2 in length, 1/4 in height; straight up: 1/3.
    assert cleared(3.7, 10, False, 1.0, 1.0) == pytest.approx((1.85 / 2, 1.85 / 4))
    assert cleared(3.7, 10, False, 0.5, 0.0) == pytest.approx((0.0, 1.85 / 3))
    assert needed(3.7, 0.0, 1.85 / 3, False) == 10
    assert needed(3.7, 0.1, 1.85 / 3, False) > 10  # the same height with a length: 1/4


@pytest.mark.parametrize(("roll", "lands"), [(11, 2.0), (10, 1.85)])
def test_a_jump_is_a_category_5_skill_roll(roll: int, lands: float) -> None:
    """A jump in a fight is the use of a skill: category 5 (Focus 2), a roll; the
    Tifin jumping 2 m lands there with 11, short of it (1.85 m) with 10."""
    t = ByRound({1: declare("jump", to=[2.0, 0.0], attention={"focus": 2})})
    fight = arena(
        {"t": ("blue", _tifin(), t), "g": ("red", "garrok", ByRound())},
        positions={"t": (0.0, 0.0), "g": (0.0, 8.0)},
        dice=[10, 1, roll],
    )
    fight.run()
    declared = of_type(fight, Declared, actor="t")[0]
    assert (declared.kind, declared.category) == ("jump", 5)
    check = of_type(fight, CheckRolled, actor="t")[0]
    assert (check.total, check.difficulty, check.success) == (roll, 11, roll >= 11)
    assert fight.state.combatants["t"].position == (lands, 0.0)


def test_a_jump_needs_focus_two_and_no_run_up_without_running() -> None:
    for plan, message in (
        (declare("jump", to=[2.0, 0.0], attention={"focus": 1}), "Focus of 2"),
        (declare("jump", to=[2.0, 0.0], run_up=True, attention={"focus": 2}), "run-up"),
    ):
        fight = arena(
            {"t": ("blue", _tifin(), ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
            positions={"t": (0.0, 0.0), "g": (0.0, 8.0)},
            dice=[10, 1],
        )
        with pytest.raises(IllegalDeclaration, match=message):
            fight.run()


def test_other_modes_of_locomotion_have_their_own_raw_speed() -> None:
    """Loreval, "Déplacement": a humanoid swims from 3 m (amphibious 6, quadruped 4),
    walks on four legs from 8 m, flies from 5 m (self-propelled) or 12 m (winged); the
    characteristic adjustment and the size multiplier apply as for walking."""
    from segsim.rules.loreval.content import movement_speed

    elfin = {"dexterity": 12, "strength": 9, "constitution": 12}  # the text's Elfin: +0.2 m
    assert movement_speed(elfin, "M") == 5.2
    assert movement_speed(elfin, "M", 3.0) == 3.2
    assert movement_speed(elfin, "M", 12.0) == 12.2
    tifin = _tifin()
    assert tifin.speed == 3.7
    assert tifin.speed_in("swim") == 2.4  # (3 + 0.6) x 2/3
    assert tifin.speed_in("fly") is None
    winged = attrs.evolve(tifin, locomotion={"fly": "winged"})
    assert winged.speed_in("fly") == 8.4  # (12 + 0.6) x 2/3


def test_a_move_may_swim_or_fly_at_that_speed() -> None:
    from segsim.rules.loreval import Loreval

    rules = Loreval()
    sheet = rules.load_sheet(rules.content.fighters["aldren"])  # 6.2 m walking, 4.2 swimming
    bird = attrs.evolve(sheet, locomotion={"fly": "winged"})
    plans = {1: declare("move", to=[12.0, 0.0], mode="fly", attention={"security": 2})}
    fight = arena(
        {"a": ("blue", bird, ByRound(plans)), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "g": (0.0, 20.0)},
        dice=[10, 1],
    )
    fight.run()
    assert fight.state.combatants["a"].position == (12.0, 0.0)
    swim = {1: declare("move", to=[5.0, 0.0], mode="swim", attention={"security": 2})}
    fight = arena(
        {"a": ("blue", sheet, ByRound(swim)), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "g": (0.0, 20.0)},
        dice=[10, 1],
    )
    with pytest.raises(IllegalDeclaration, match=r"cover 4\.2 m"):
        fight.run()
    fly = {1: declare("move", to=[4.0, 0.0], mode="fly", attention={"security": 2})}
    fight = arena(
        {"a": ("blue", sheet, ByRound(fly)), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "g": (0.0, 20.0)},
        dice=[10, 1],
    )
    with pytest.raises(IllegalDeclaration, match="moves by walk, swim, not 'fly'"):
        fight.run()


@pytest.mark.parametrize(("knee_roll", "damage"), [(15, (4 + 3) * 2), (1, 0)])
def test_throwing_an_opponent_onto_ones_knee(knee_roll: int, damage: int) -> None:
    """Loreval, "Jeter": a wrestler throwing its opponent at its feet may land it on its
    knee: Focus 2, one more initiative point, and a skilful attack once the throw is
    done. The opponent lies at the thrower's feet; landing on the knee (something that
    hurts) doubles the damage."""
    w = ByRound(
        {
            1: declare("grapple", "b", attention={"focus": 1, "security": 1}),
            2: declare("grapple", "b", move="lift"),
            3: declare("grapple", "b", move="throw", knee=True, attention={"focus": 2}),
        }
    )
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 10, 10, knee_roll, 4],
        rounds=3,
        max_segments=179,
    )
    fight.run()
    declared = of_type(fight, Declared, actor="w")[-1]
    assert (declared.category, declared.params["knee"]) == (4, True)
    knee = of_type(fight, CheckRolled, actor="w", check="onto the knee")[0]
    assert knee.success == (knee_roll == 15)
    hurt = of_type(fight, Damaged, actor="b")
    if damage:
        assert (hurt[0].weapon, hurt[0].damage, hurt[0].multiplier) == ("throw", damage, 2)
    else:
        assert (hurt[0].damage, hurt[0].multiplier) == (4 + 3, 1)
    assert fight.state.combatants["b"].position == (1.5, 0.0)  # at the thrower's feet
    assert fight.state.combatants["b"].status.prone or not fight.state.combatants["b"].in_fight


@pytest.mark.parametrize(
    ("environment", "dice", "attacks"),
    [
        (0, [10, 1], []),  # cannot locate it at all
        (2, [10, 1, 5], []),  # detection 5 + 3 = 8 < 15: not located
        (2, [10, 1, 12, 15], [(15, -10)]),  # located (15): attacks at -10
    ],
)
def test_an_invisible_fighter_is_attacked_only_once_located(
    environment: int, dice: list[int], attacks: list[tuple[int, int]]
) -> None:
    """Loreval, "Camouflage": against an invisible creature the -10 of total
    concealment applies only once it is located, which needs 2 in Environment
    ("Environnement": 2 points detect an invisible presence, with a detection roll)."""
    attention = {"environment": environment, "focus": 1}
    a = ByRound({1: declare("attack", "b", attention=attention)})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", ByRound())},
        setup={"b": {"invisible": True}},
        dice=dice,
    )
    fight.run()
    rolled = of_type(fight, AttackRolled, actor="a")
    assert [(e.roll, e.modifiers.get("invisible")) for e in rolled] == attacks
    if environment < 2:
        assert "needs 2 in Environment" in of_type(fight, ActionWasted, actor="a")[0].reason
    else:
        detection = of_type(fight, CheckRolled, actor="a")[0]
        assert (detection.check, detection.difficulty) == ("detection (invisible b)", 15)


def test_a_voided_counter_declares_after_the_new_declaration_and_acts_first() -> None:
    """Loreval, "Modifier son action", the text's example: the villain meant to strike
    the hero's companion, the hero (faster) to counter that attack; the companion (even
    faster) gets out of reach, so the villain must change its action, which voids the
    counter. The hero waits for the villain's new declaration (an attack on the hero),
    then declares an attack on the villain, and acts before it."""
    seen: list[object] = []

    def answer(obs: object) -> object:
        seen.append(obs.other("v").declared)  # type: ignore[attr-defined]
        return declare("attack", "v")

    strike = {"against": "offensive", "how": "strike", "attention": {"environment": 1}}
    p = ByRound({1: declare("counter", "v", **strike)}, change={1: answer})
    c = ByRound({1: declare("move", to=[7.5, 0.0], attention={"security": 2})})
    v = ByRound(
        {1: declare("attack", "c", attacks=2, attention={"focus": 1, "security": 1})},
        change={1: declare("attack", "p")},
    )
    fight = arena(
        {"c": ("blue", "sylva", c), "p": ("blue", "aldren", p), "v": ("red", "bandit", v)},
        positions={"v": (0.0, 0.0), "c": (1.5, 0.0), "p": (0.0, 1.5)},
        # c 22, p 14, v 3; p's attack 15, damage 3; v's changed attack 10
        dice=[15, 10, 1, 15, 3, 10],
    )
    fight.run()
    changes = [e for e in of_type(fight, Declared) if e.changed]
    assert [(e.actor, e.target) for e in changes] == [("v", "p"), ("p", "v")]
    assert seen == [{"kind": "attack", "target": "p", "category": 1}]
    attacks = of_type(fight, AttackRolled)
    assert [e.actor for e in attacks] == ["p", "v"]
    assert attacks[0].modifiers["changed action"] == -2
    assert attacks[1].modifiers["changed action"] == -2


def test_a_defensive_counter_may_carry_moves_played_at_the_fighters_own_step() -> None:
    """Loreval, "Types de contre": moves may be added to a defensive counter, but the
    fighter cannot move right after its counter: it plays them at its own turn. The
    counter costs one more category per move and carries the moves' malus."""
    parry = {"against": "defensive", "how": "parry", "attention": {"environment": 1}}
    a = ByRound({1: declare("counter", "g", moves=1, to=[-4.0, 0.0], **parry)})
    g = ByRound({1: declare("attack", "a", attention={"security": 2})})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[1, 15, 10, 5],  # a 5, g 17; a's parry roll 10; g's attack 5
    )
    fight.run()
    declared = of_type(fight, Declared, actor="a")[0]
    assert (declared.category, declared.extra_moves) == (2, 1)
    counter = of_type(fight, CounterRolled)[0]
    assert counter.modifiers["extra moves"] == -4
    assert counter.total == 10 + 13 - 4
    moved = [e for e in fight.history if e.TYPE == "combatant.moved" and e.actor == "a"]
    assert [(e.t > counter.t) for e in moved] == [True]
    assert fight.state.combatants["a"].position == (-4.0, 0.0)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"moves": 1}, "to a point"),
        ({"to": [-1.0, 0.0]}, "to a point"),
        ({"moves": 1, "to": [-9.0, 0.0]}, "cover 6.2 m"),
        ({"against": "offensive", "how": "strike", "to": [1.0, 0.0]}, "no to"),
    ],
)
def test_a_defensive_counters_moves_need_a_point_in_reach(params: dict, message: str) -> None:
    base = {"against": "defensive", "how": "parry", "attention": {"environment": 1}}
    plan = declare("counter", "g", **{**base, **params})
    fight = arena(
        {"a": ("blue", "aldren", ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
        dice=[1, 15],
    )
    with pytest.raises(IllegalDeclaration, match=message):
        fight.run()


def _battle(per_side: int, rounds: int) -> object:
    """``per_side`` bandits against as many, in pairs in contact; each attacks its pair."""
    from segsim import Fight
    from segsim.fight import CombatantSpec
    from segsim.rules.loreval import Loreval

    rules = Loreval()
    sheet = rules.load_sheet(rules.content.fighters["bandit"])

    def policy(pair: str) -> ByRound:
        def attack(obs: object) -> object:
            if pair not in {o.id for o in obs.others}:  # type: ignore[attr-defined]
                return None  # its pair is down: inaction
            return declare("attack", pair, attention={"security": 2})

        return ByRound(default=attack)

    specs = []
    for i in range(per_side):
        specs.append(CombatantSpec(f"b{i}", "blue", sheet, policy(f"r{i}"), position=(3.0 * i, 0)))
        specs.append(CombatantSpec(f"r{i}", "red", sheet, policy(f"b{i}"), position=(3.0 * i, 1.5)))
    fight = Fight(rules, specs, seed=11, max_segments=60 * rounds)
    fight.run()
    return fight


def test_a_forty_fighter_battle_plays_whole_rounds() -> None:
    """Loreval, "Déroulement d'un round de combat": every fighter declares, then every
    action is resolved, each round. With 40 fighters the 60 segments of a round cannot
    hold 80 steps of a segment: resolutions share a step (in descending order, stopping
    at an action that must change), and every round still ends with every action
    resolved."""
    fight = _battle(20, 3)
    for rnd in (1, 2, 3):
        end = 60 * rnd
        out = {e.actor for e in fight.history if e.TYPE == "combatant.out" and e.t < end}
        declared = of_type(fight, Declared, round=rnd)
        standing = {e.actor for e in declared if e.kind != "grace"} - out
        resolved = {e.actor for e in of_type(fight, TurnResolved, round=rnd)}
        assert standing and standing <= resolved, rnd
    order = [e.actor for e in of_type(fight, TurnResolved, round=1)]
    started = of_type(fight, RoundStarted)[0]
    assert order == [cid for cid in started.order if cid in set(order)]
    turns = [e for e in fight.history if e.TYPE == "action.declared" and e.kind == "turn"]
    assert any(len(e.params.get("group", ())) > 1 for e in turns)


def test_a_small_fight_keeps_one_resolution_per_step() -> None:
    fight = _battle(3, 1)
    turns = [e for e in fight.history if e.TYPE == "action.declared" and e.kind == "turn"]
    assert turns and not any("group" in e.params for e in turns)
