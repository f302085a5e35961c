"""Loreval rules the traceability table names that had no test of their own (Loreval,
"Modifier son action", "Inaction", "Se déplacer sans se déplacer", "Etre sur la
défensive", "Note concernant la déclaration")."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.events import OutOfFight
from segsim.rules.loreval.events import (
    AttackRolled,
    CheckRolled,
    CounterRolled,
    Declared,
    InitiativeRolled,
    Manoeuvred,
    RoundEnded,
    TurnResolved,
)
from segsim.testing import declare, sheet
from tests.loreval_helpers import ByRound, arena, of_type

MELEE = {"a": (0.0, 0.0), "s": (0.0, 1.0), "b1": (1.0, 0.0), "b2": (1.0, 1.0)}


def _falls_first(change: object, dice: list[int]):  # type: ignore[no-untyped-def]
    """Aldren (5 points) declared two attacks on bandit 1, whom Sylva (26) kills
    first: Aldren gets a change step, where he declares ``change``."""
    a = ByRound(
        {1: declare("attack", "b1", attacks=2, attention={"security": 2, "focus": 1})},
        change={1: change},
    )
    s = ByRound({1: declare("attack", "b1")})
    return arena(
        {
            "a": ("blue", "aldren", a),
            "s": ("blue", "sylva", s),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", ByRound()),
        },
        positions=MELEE,
        # initiative: a 5, s 26, b1 12, b2 7; Sylva's 18 threat, confirmed 15, damage
        dice=[1, 19, 10, 5, 18, 15, 6, 6, *dice],
    )


def test_a_changed_action_keeps_the_attention_of_the_declaration() -> None:
    """Loreval, "Note concernant la déclaration": a changed action is made in the same
    conditions: its attention criteria cannot be changed."""
    other = declare("attack", "b2", attention={"security": 3})
    fight = _falls_first(other, [])
    with pytest.raises(IllegalDeclaration, match="keeps the attention") as err:
        fight.run()
    assert "Modifier son action" in str(err.value)


def test_a_changed_action_adds_at_most_one_move() -> None:
    """Loreval, "Action de déplacement...": changing its action, a fighter keeps its
    malus and adds at most one move to those declared."""
    fight = _falls_first(declare("move", to=[-10.0, 0.0], moves=2), [])
    with pytest.raises(IllegalDeclaration, match="at most one move"):
        fight.run()


def test_a_grace_round_taken_as_a_changed_action_costs_two_on_the_next_roll() -> None:
    """Loreval, "Modifier son action": instead of a changed action, a grace round,
    with -2 on the next initiative roll (never below 1)."""
    fight = _falls_first(declare("grace"), [2])
    fight.run()
    assert of_type(fight, OutOfFight)[0].actor == "b1"
    grace = of_type(fight, Declared, actor="a")[-1]
    assert (grace.kind, grace.changed) == ("grace", True)
    roll = of_type(fight, InitiativeRolled, actor="a")[-1]  # the roll after the round
    assert (roll.roll, roll.malus, roll.points) == (2, -2, 2 + 4 - 2)


def test_inaction_cannot_be_changed() -> None:
    """Loreval, "Inaction": category 1, and never a changed action."""
    fight = _falls_first(declare("inaction"), [])
    with pytest.raises(IllegalDeclaration, match="inaction cannot be a changed action"):
        fight.run()


def test_moving_without_moving_burns_initiative_at_its_malus() -> None:
    """Loreval, "Se déplacer sans se déplacer": a move of category 5 (four extra
    moves, Focus 2) made on the spot spends 5 points and weighs -10 on everything."""
    a = ByRound({1: declare("move", to=[0.0, 0.0], moves=4, attention={"focus": 2})})
    fight = arena(
        {"a": ("blue", "bandit", a), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (9.0, 0.0)},
        dice=[15, 5],
    )
    fight.run()
    declared = of_type(fight, Declared, actor="a")[0]
    assert (declared.category, declared.extra_moves, declared.malus_moves) == (5, 4, 4)
    assert dict(of_type(fight, RoundEnded)[0].spent)["a"] == 5
    assert fight.state.combatants["a"].position == (0.0, 0.0)


def test_there_is_no_attack_on_the_defensive() -> None:
    """Loreval, "Etre sur la défensive": fighting on the defensive no longer exists;
    Security takes its place. An attack declared defensive is refused."""
    a = ByRound({1: declare("attack", "b", defensive=True)})
    fight = arena(
        {"a": ("blue", "bandit", a), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
    )
    with pytest.raises(IllegalDeclaration, match="takes no parameter defensive"):
        fight.run()


def test_one_point_in_environment_shows_the_others_attention_from_the_next_step() -> None:
    """Loreval, "Environnement": with 1 point in Environment a fighter knows the
    attention scores of everyone around. The score is set with the declaration
    ("Note concernant la déclaration"), after the fighter's observation of that step:
    Aldren, 0 in Environment at the start, declares 1 and sees the bandit's scores at
    his next step, not at the step where he declares it."""
    a = ByRound({1: declare("inaction", attention={"environment": 1}), 2: declare("inaction")})
    b = ByRound({1: declare("inaction", attention={"security": 2}), 2: declare("inaction")})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b)},
        dice=[15, 5],
        rounds=2,
    )
    fight.run()
    first, second = (obs.other("b").attention for obs in a.seen[:2])
    assert first is None
    assert second == {"environment": 0, "security": 2, "focus": 0}
    assert [obs.other("a").attention for obs in b.seen[:2]] == [None, None]


def test_moving_in_melee_gives_four_to_the_defences_of_the_round() -> None:
    """Loreval, "Mouvements en mêlée": dexterity 13, one category more, acrobatics 25
    when declared (Focus 2 as a manoeuvre); the benefit of Souplesse du serpent, not in
    the excerpt, is read as +4 to Defence and Reflex for the round."""
    s = ByRound({1: declare("attack", "b", weave=True, attention={"focus": 2})})
    b = ByRound({1: declare("attack", "s")})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", b)},
        dice=[15, 5, 20, 2, 2],  # s's acrobatics 20 (+8 = 28); s's attack 2; b's 2
    )
    fight.run()
    assert of_type(fight, Declared, actor="s")[0].category == 2
    weave = of_type(fight, Manoeuvred, actor="s")[0]
    assert (weave.manoeuvre, weave.bonus) == ("moving in melee", 4)
    attack = of_type(fight, AttackRolled, actor="b")[0]
    plain = fight.state.combatants["s"].sheet
    assert attack.difficulty == max(plain.passive_defence, plain.passive_reflex) + 4


def test_the_course_talent_gives_four_to_a_jump_with_a_run_up() -> None:
    """Loreval, "La compétence Saut et le talent course": where the free move could be
    used, a jump gets +4 on its roll."""
    runner = sheet("bandit", "loreval", talents=("adventurer", "run"))
    jump = declare("jump", to=[2.0, 0.0], run_up=True, attention={"focus": 2})
    fight = arena(
        {"a": ("blue", runner, ByRound({1: jump})), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (0.0, 9.0)},
        dice=[15, 5, 10],
    )
    fight.run()
    check = of_type(fight, CheckRolled, actor="a")[0]
    assert check.modifiers["run"] == 4


def test_a_counter_turned_on_a_second_assailant_is_a_changed_action() -> None:
    """Loreval, "Types de contre": a defensive counter aimed at one assailant who does
    not attack may answer another one, but as a changed action (-2), labelled as every
    changed action is ("changed action")."""
    a = ByRound({1: declare("counter", "b1", against="defensive", attention={"environment": 1})})
    b2 = ByRound({1: declare("attack", "a")})
    fight = arena(
        {
            "a": ("blue", "aldren", a),
            "b1": ("red", "bandit", ByRound()),
            "b2": ("red", "bandit", b2),
        },
        positions={"a": (0.0, 0.0), "b1": (1.0, 0.0), "b2": (0.0, 1.0)},
        dice=[15, 5, 6, 10, 5],  # a 19, b1 7, b2 8; a's parry 10; b2's attack 5
    )
    fight.run()
    parry = of_type(fight, CounterRolled, actor="a")[0]
    assert parry.countered == "b2"
    assert parry.modifiers["changed action"] == -2
    assert "changed" not in parry.modifiers


def test_a_countered_disarm_records_the_opposed_attack_roll() -> None:
    """Loreval, "Désarmement": the target may counter; then not its defence but an
    opposed attack roll answers the disarm. That roll has its own event."""
    s = ByRound({1: declare("disarm", "b", attention={"focus": 2, "security": 1})})
    b = ByRound({1: declare("counter", "s", against="defensive", attention={"environment": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", b)},
        dice=[15, 5, 10, 8],  # s 22, b 7; b's opposed roll 10; s's disarm 8
    )
    fight.run()
    opposed = of_type(fight, CounterRolled, actor="b")[0]
    assert (opposed.countered, opposed.how, opposed.roll) == ("s", "opposed attack", 10)
    disarm = of_type(fight, CheckRolled, actor="s")[0]
    assert disarm.difficulty == opposed.total
    assert disarm.success == (disarm.total >= opposed.total)


def test_blind_fighting_keeps_every_criterion_at_zero_or_more() -> None:
    """Loreval, "Critères d'attention": an adept of blind fighting has no criterion
    below 0, whatever the maluses (the text doubts it keeps this rule; segsim does)."""
    from segsim.rules.loreval.combat import attention_scores

    blind = sheet("bandit", "loreval", talents=("adventurer", "blind_fight"))
    fight = arena(
        {"a": ("blue", blind, ByRound()), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
        setup={"a": {"senses_lost": 2}, "b": {"senses_lost": 2}},
    )
    fight.run()
    scores = {cid: attention_scores(fight.state.combatants[cid], 1).as_dict() for cid in ("a", "b")}
    assert scores["a"] == {"environment": 0, "security": 0, "focus": 0}
    assert scores["b"] == {"environment": -2, "security": -2, "focus": -2}


def test_security_is_of_no_use_against_a_grab() -> None:
    """Loreval, "La taille, un avantage pour la lutte": the Security criterion is of no
    use against grappling. Aldren's 3 in Security (+4 to his Reflex) does not count
    against the wrestler's grab: its difficulty is his passive Reflex, 18."""
    w = ByRound({1: declare("grapple", "a", move="grab", attention={"focus": 1})})
    fight = arena(
        {"w": ("red", "wrestler", w), "a": ("blue", "aldren", ByRound())},
        dice=[15, 5, 2],  # w 19, a 9; the grab 2 fails
        setup={"a": {"attention": {"security": 3}}},
    )
    fight.run()
    grab = of_type(fight, CheckRolled, actor="w")[0]
    assert grab.check == "grapple: grab"
    assert grab.difficulty == fight.state.combatants["a"].sheet.passive_reflex == 18


def test_a_holder_who_counters_an_escape_rolls_against_it() -> None:
    """Loreval, "Actions de lutte": the one held escapes against its holder's passive
    grapple score, "à moins que ce dernier ne cherche à contrer auquel cas, il lancera
    le dé": the wrestler's counter rolls 12 + 8 = 20 against the bandit's 15 + 4."""
    w = ByRound(
        {
            1: declare("grapple", "b", attention={"focus": 1}),
            2: declare("counter", "b", against="defensive", attention={"environment": 1}),
        }
    )
    b = ByRound({2: declare("grapple", "w", move="escape", attention={"focus": 1})})
    fight = arena(
        {"w": ("blue", "wrestler", w), "b": ("red", "bandit", b)},
        dice=[15, 5, 10, 12, 15],  # w 19, b 7; grab 10; round 2: w's counter 12, escape 15
        rounds=2,
        max_segments=119,
    )
    fight.run()
    counter = of_type(fight, CounterRolled, actor="w")[0]
    assert (counter.countered, counter.how, counter.roll, counter.total) == ("b", "grapple", 12, 20)
    escape = of_type(fight, CheckRolled, check="grapple: escape")[0]
    assert (escape.total, escape.difficulty, escape.success) == (15 + 4, 20, False)


def test_a_holder_keeps_its_hold_with_attaque_en_force_not_evasion() -> None:
    """Loreval, "La taille, un avantage pour la lutte": Évasion replaces attaque en
    force in the grapple actions meant to keep the opponent from taking or keeping its
    hold; a holder keeping its own against an escape uses attaque en force. Sylva
    (attaque en force 4, Évasion 6) holds the bandit: his escape is against 10 + 4."""
    s = ByRound({1: declare("grapple", "b", attention={"focus": 1})})
    b = ByRound({2: declare("grapple", "s", move="escape", attention={"focus": 1})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", b)},
        dice=[15, 5, 15, 10],  # s 22, b 7; grab 15; round 2: escape 10 (+4)
        rounds=2,
        max_segments=119,
    )
    fight.run()
    escape = of_type(fight, CheckRolled, check="grapple: escape")[0]
    assert (escape.total, escape.difficulty, escape.success) == (14, 14, True)


def test_a_changed_action_records_the_moves_declared_and_those_whose_malus_applies() -> None:
    """Loreval, "Action de déplacement...": a changed action may add one move, but its
    malus stays the declaration's. The record names both: one extra move declared, none
    whose malus applies; the attack takes no move malus."""
    fight = _falls_first(declare("attack", "b2", moves=1), [10, 4])
    fight.run()
    changed = of_type(fight, Declared, actor="a")[-1]
    assert (changed.changed, changed.extra_moves, changed.malus_moves) == (True, 1, 0)
    attack = of_type(fight, AttackRolled, actor="a")[0]
    assert "extra moves" not in attack.modifiers
    assert attack.modifiers["changed action"] == -2


def test_every_roll_of_a_heroic_action_succeeds() -> None:
    """Loreval, "Action d'éclat": every roll of a heroic action is a success. Sylva's
    heroic trip on a bandit without heroism points: the skilful attack and the strength
    contest need no die, and the bandit falls."""
    s = ByRound({1: declare("inaction")}, heroic={1: declare("trip", "b", attention={"focus": 2})})
    fight = arena(
        {"s": ("blue", "sylva", s), "b": ("red", "bandit", ByRound())},
        dice=[1, 20],  # s 8, b 22: nothing else is drawn
    )
    fight.run()
    trip, contest = of_type(fight, CheckRolled, actor="s")
    assert (trip.check, trip.roll, trip.success) == ("trip", 20, True)
    assert (contest.check, contest.success) == ("strength (trip)", True)
    assert fight.state.combatants["b"].status.prone


def test_concerted_actions_chain_and_resolve_at_the_slowest_partners_step() -> None:
    """Loreval, "Action concertée": declarations of concert add up, a further fighter
    with the initiative may join, and the whole resolves at the step of the one on whom
    the higher initiatives concerted. Sylva joins the second Aldren, who joined the
    first: three attacks at the first Aldren's step, Garrok's defence divided (-4)."""
    a1 = ByRound({1: declare("attack", "g", attention={"environment": 1})})
    a2 = ByRound({1: declare("attack", "g", concert="a1", attention={"environment": 2})})
    s = ByRound({1: declare("attack", "g", concert="a2", attention={"environment": 2})})
    fight = arena(
        {
            "a1": ("blue", "aldren", a1),
            "a2": ("blue", "aldren", a2),
            "s": ("blue", "sylva", s),
            "g": ("red", "garrok", ByRound()),
        },
        positions={"a1": (0.0, 0.0), "a2": (0.0, 1.0), "s": (1.0, 1.5), "g": (1.0, 0.5)},
        dice=[1, 5, 15, 1, 1, 1, 1],  # a1 5, a2 9, s 22, g 3; three natural 1s
        pcs={"a2", "s"},
    )
    fight.run()
    attacks = of_type(fight, AttackRolled)
    assert [e.actor for e in attacks] == ["s", "a2", "a1"]
    assert {e.t for e in attacks} == {of_type(fight, TurnResolved, actor="a1")[0].t}
    # passive Defence 17, exposed to three with Security 0 (-4), two concerted beyond
    # the first (-4)
    assert [e.difficulty for e in attacks] == [9, 9, 9]
