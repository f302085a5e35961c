"""Loreval rounds on the segment clock: initiative points, declarations in ascending
order and resolution in descending order, ties, grace rounds, surprise, attention
(Loreval, "Déroulement d'un round de combat", "Initiative...", "Attention")."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.rules.loreval.events import (
    AttackRolled,
    Declared,
    DetectionRolled,
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    Surprised,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

MISS = 2  # a d20 face that misses everyone here


def test_declare_in_ascending_order_and_resolve_in_descending_order() -> None:
    """Loreval, "Initiative...": the highest initiative declares last, having heard the
    others, and acts first; the round's cost is taken at its end."""
    a = ByRound({1: declare("attack", "g")})
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15, MISS, MISS],  # initiative a 10+4, g 15+2; g attacks, a attacks
    )
    fight.run()
    started = of_type(fight, RoundStarted)
    assert started[0].order == ("g", "a")
    assert dict(started[0].points) == {"g": 17, "a": 14}
    assert [e.actor for e in of_type(fight, Declared)] == ["a", "g"]
    assert [e.actor for e in of_type(fight, AttackRolled)] == ["g", "a"]
    # g decided knowing what a had declared; a knew nothing of g's declaration
    assert g.seen[0].other("a").declared == {"kind": "attack", "target": "g", "category": 1}
    assert a.seen[0].other("g").declared is None
    # a declares, then (14 points and a heroism point) is offered a heroic action
    assert [s[:2] for s in a.steps if s[0] == 1] == [(1, "declare"), (1, "heroic")]
    ended = of_type(fight, RoundEnded)[0]
    assert dict(ended.spent) == {"a": 1, "g": 2}  # a greatsword blow is category 2
    assert dict(started[1].points) == {"g": 15, "a": 13}
    # the round is 60 segments: round 2 begins at segment 60
    assert started[1].t == 60


def test_a_tie_goes_to_the_higher_dexterity() -> None:
    """Loreval, "Initiative...": equal points, the higher dexterity acts first."""
    g = ByRound()
    b = ByRound()
    fight = arena({"g": ("red", "garrok", g), "b": ("blue", "bandit", b)}, dice=[10, 10])
    fight.run()
    started = of_type(fight, RoundStarted)[0]
    assert started.order == ("b", "g")  # bandit dexterity 13, Garrok 12
    assert dict(started.ties) == {}


def test_a_tie_of_dexterity_rolls_tie_break_dice_until_one_is_higher() -> None:
    """Loreval, "Initiative...": 1d20 until a better score comes out; the die is not
    part of the points."""
    fight = arena(
        {"b1": ("red", "bandit", ByRound()), "b2": ("blue", "bandit", ByRound())},
        dice=[10, 10, 5, 5, 3, 9, 4, 8],  # still equal at round 2: a new tie-break
    )
    fight.run()
    started = of_type(fight, RoundStarted)[0]
    assert started.order == ("b2", "b1")
    assert dict(started.points) == {"b1": 12, "b2": 12}
    rolled = [e for e in fight.history if e.TYPE == "die.rolled"]
    assert [e.purpose for e in rolled[2:6]] == ["initiative tie-break"] * 4


def test_who_leaves_a_tie_early_ranks_by_its_dice_in_turn() -> None:
    """Loreval, "Initiative...": of three equal fighters, the one whose first tie-break
    die stands alone is out of the tie, the two others roll again; each fighter's value
    holds its dice in turn, in base 21 (a 0 for each roll it no longer took part in),
    so the first die decides before the second."""
    fight = arena(
        {
            "b1": ("red", "bandit", ByRound()),
            "b2": ("blue", "bandit", ByRound()),
            "b3": ("red", "bandit", ByRound()),
        },
        dice=[10, 10, 10, 5, 5, 9, 3, 7, 4, 8, 12],  # b3 out on its 9; then round 2
    )
    fight.run()
    started = of_type(fight, RoundStarted)[0]
    assert dict(started.ties) == {"b3": 9 * 21, "b2": 5 * 21 + 7, "b1": 5 * 21 + 3}
    assert started.order == ("b3", "b2", "b1")
    rolled = [e for e in fight.history if e.TYPE == "die.rolled"]
    assert [(e.actor, e.value) for e in rolled[3:8]] == [
        ("b1", 5),
        ("b2", 5),
        ("b3", 9),
        ("b1", 3),
        ("b2", 7),
    ]


def test_a_twenty_on_a_later_tie_break_never_outranks_a_higher_first_die() -> None:
    """Loreval, "Initiative...": the tie-break die is rolled until a better score comes
    out, so whoever left the tie with the better first die stays ahead of those who
    rolled again, whatever they roll next, a 20 included. (Read as base-20 digits, a 16
    then a 20 came to the same value as a 17, and the fight's order put b1 first.)"""
    fight = arena(
        {
            "b1": ("red", "bandit", ByRound()),
            "b2": ("blue", "bandit", ByRound()),
            "b3": ("red", "bandit", ByRound()),
        },
        dice=[10, 10, 10, 16, 16, 17, 20, 1, 4, 8, 12],  # b3 out on its 17; then round 2
    )
    fight.run()
    started = of_type(fight, RoundStarted)[0]
    assert started.order == ("b3", "b1", "b2")
    assert dict(started.ties) == {"b3": 17 * 21, "b1": 16 * 21 + 20, "b2": 16 * 21 + 1}


def test_fighters_already_apart_roll_no_more_tie_breaks_for_sharing_a_face() -> None:
    """Loreval, "Initiative...": 1d20 until a better score comes out, so only those still
    equal roll again. Of four equal fighters who roll 5, 5, 7 and 7, then 3, 9, 3 and
    12, the first and the third are apart (5 against 7) though both rolled a 3: each
    pair is settled on its second die, and the four roll eight tie-break dice. (Counted
    by face across the whole group, both 3s made them roll a third die.)"""
    fight = arena(
        {
            "b1": ("red", "bandit", ByRound()),
            "b2": ("blue", "bandit", ByRound()),
            "b3": ("red", "bandit", ByRound()),
            "b4": ("blue", "bandit", ByRound()),
        },
        dice=[10, 10, 10, 10, 5, 5, 7, 7, 3, 9, 3, 12, 4, 8, 12, 16],  # then round 2
    )
    fight.run()
    started = of_type(fight, RoundStarted)[0]
    assert started.order == ("b4", "b3", "b2", "b1")
    assert dict(started.ties) == {
        "b4": 7 * 21 + 12,
        "b3": 7 * 21 + 3,
        "b2": 5 * 21 + 9,
        "b1": 5 * 21 + 3,
    }
    rolled = [e for e in fight.history if e.TYPE == "die.rolled"]
    breaks = [(e.actor, e.value) for e in rolled if e.purpose == "initiative tie-break" and not e.t]
    assert breaks == [
        ("b1", 5),
        ("b2", 5),
        ("b3", 7),
        ("b4", 7),
        ("b1", 3),
        ("b2", 9),
        ("b3", 3),
        ("b4", 12),
    ]
    assert rolled[12].t == 59  # the next die is the next round's


def test_a_grace_round_renews_the_points() -> None:
    """Loreval: with 1 to 5 points a fighter may sit out a grace round (keeping its
    defence, with attention criteria) and roll initiative again at its end."""
    g = ByRound({1: declare("grace", attention={"security": 2})})
    b = ByRound()
    fight = arena(
        {"g": ("red", "garrok", g), "b": ("blue", "bandit", b)},
        dice=[1, 10, 12],  # g 3 points, b 12; g rolls again at the round's end
    )
    fight.run()
    declared = of_type(fight, Declared, actor="g")[0]
    assert (declared.kind, declared.category, declared.attention["security"]) == ("grace", 0, 2)
    rolls = of_type(fight, InitiativeRolled, actor="g")
    assert [r.points for r in rolls] == [3, 14]
    assert rolls[1].t == 60
    assert dict(of_type(fight, RoundStarted)[1].points)["g"] == 14


def test_a_grace_round_needs_one_to_five_points() -> None:
    fight = arena(
        {
            "g": ("red", "garrok", ByRound({1: declare("grace")})),
            "b": ("blue", "bandit", ByRound()),
        },
        dice=[10, 10],
    )
    with pytest.raises(IllegalDeclaration, match="1 to 5 initiative points"):
        fight.run()


def test_at_zero_points_the_grace_round_is_forced_and_attention_frozen() -> None:
    """Loreval: 0 points at the start of a round: a forced grace round in which the
    attention criteria cannot be changed; no declaration step."""
    b = ByRound({1: declare("attack", "g", attacks=2, attention={"focus": 1, "security": 1})})
    g = ByRound()
    fight = arena(
        {"b": ("blue", "bandit", b), "g": ("red", "garrok", g)},
        dice=[1, 10, MISS, MISS, 7],  # b 3 points, g 12; b's two attacks; b rolls again
        rounds=2,
    )
    fight.run()
    second = of_type(fight, RoundStarted)[1]
    assert dict(second.grace) == {"b": "forced"}
    assert dict(second.points)["b"] == 0
    assert [s[:2] for s in b.steps if s[0] <= 2] == [(1, "declare")]  # none in round 2
    assert of_type(fight, InitiativeRolled, actor="b")[-1].points == 9
    assert fight.state.combatants["b"].status.attention.focus == 1  # kept from round 1


def test_an_action_costs_its_category_in_points() -> None:
    """Loreval: enough points to pay for it; 3 points do not pay for a category 5."""
    b = ByRound({1: declare("attack", "g", attacks=3, attention={"focus": 2})})
    fight = arena({"b": ("blue", "bandit", b), "g": ("red", "garrok", ByRound())}, dice=[1, 10])
    with pytest.raises(IllegalDeclaration, match="3 initiative points") as err:
        fight.run()
    assert "Initiative" in str(err.value)


def test_focus_needed_by_category_and_the_attention_points() -> None:
    """Loreval, "Focus": category 3 needs a Focus of 1; attention points are limited."""
    plan = declare("attack", "g", attacks=2, attention={"security": 2})
    fight = arena(
        {"b": ("blue", "bandit", ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
        dice=[10, 10],
    )
    with pytest.raises(IllegalDeclaration, match="Focus of 1"):
        fight.run()
    plan = declare("attack", "g", attention={"security": 3})
    fight = arena(
        {"b": ("blue", "bandit", ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
        dice=[10, 10],
    )
    with pytest.raises(IllegalDeclaration, match="2 attention points"):
        fight.run()


def test_declaring_out_of_ones_step_is_refused() -> None:
    from segsim.testing import Scripted

    fight = arena(
        {
            "b": ("blue", "bandit", ByRound()),
            "g": ("red", "garrok", Scripted({5: declare("attack", "b")})),
        },
        dice=[10, 12],
    )
    with pytest.raises(IllegalDeclaration, match="declaration step"):
        fight.run()


def test_a_surprised_fighter_has_no_initiative_and_is_exposed() -> None:
    """Loreval, "Déroulement d'un round de surprise": no initiative score, a grace round,
    Security counts as 0; an attacker it did not see coming exposes it (-4)."""
    g = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", "aldren", ByRound()), "g": ("red", "garrok", g)},
        setup={"a": {"surprised": True, "attention": {"security": 3}}},
        dice=[15, MISS, 10],  # g's initiative, g's attack; a rolls at the round's end
    )
    fight.run()
    assert of_type(fight, Surprised)[0].actor == "a"
    started = of_type(fight, RoundStarted)
    assert dict(started[0].grace) == {"a": "surprise"}
    attack = of_type(fight, AttackRolled)[0]
    # Defence 23 (10 + 6 + chainmail 5 + shield 2), Security counts 0 (no +4), exposed -4
    assert attack.difficulty == 23 - 4
    assert of_type(fight, InitiativeRolled, actor="a")[0].points == 14
    assert not fight.state.combatants["a"].status.surprised


def test_two_points_in_environment_give_a_detection_roll_against_surprise() -> None:
    fight = arena(
        {"a": ("blue", "aldren", ByRound()), "g": ("red", "garrok", ByRound())},
        setup={"a": {"surprised": True, "attention": {"environment": 2}}},
        dice=[12, 10, 10],  # detection 12 + perception 3 = 15: detected; then initiative
    )
    fight.run()
    detection = of_type(fight, DetectionRolled)[0]
    assert (detection.total, detection.success) == (15, True)
    assert not of_type(fight, Surprised)


def test_the_built_in_policies_are_asked_only_at_their_steps(monkeypatch) -> None:
    """A built-in policy declares only at a step where its fighter may (declare, change,
    heroic): between them the engine neither observes nor asks it (the ruleset's
    ``decides_nothing``), and the fight is the same; a policy of another class (here a
    subclass of a built-in one, which may decide otherwise) is still asked."""
    import attrs

    from segsim import CombatantSpec, Dice, Fight
    from segsim.record import fight_lines
    from segsim.rules.loreval.policies import Aggressive, Counter
    from segsim.rules.loreval.ruleset import Loreval

    class Mine(Counter):
        pass

    seen: list[tuple[str, str | None]] = []
    observe = Loreval.observe

    def watched(self, state, cid, segment, must):  # type: ignore[no-untyped-def]
        obs = observe(self, state, cid, segment, must)
        seen.append((cid, obs.me.step))
        return obs

    monkeypatch.setattr(Loreval, "observe", watched)
    lines = []
    for policies in ((Aggressive(), Counter()), (Aggressive(), Mine())):
        seen.clear()
        rules = Loreval()
        specs = [
            CombatantSpec(cid, side, rules.load_sheet(rules.content.fighters[who]), policy)
            for cid, side, who, policy in (
                ("a", "blue", "aldren", policies[0]),
                ("g", "red", "garrok", policies[1]),
            )
        ]
        specs[1] = attrs.evolve(specs[1], position=(1.5, 0.0))
        fight = Fight(rules, specs, dice=Dice(3), max_segments=180)  # three rounds
        fight.run()
        lines.append(list(fight_lines(fight))[1:])
        assert {step for cid, step in seen if cid == "a"} <= {"declare", "change", "heroic"}
        steps_of_g = {step for cid, step in seen if cid == "g"}
        if isinstance(policies[1], Mine):
            assert None in steps_of_g  # asked while it waits for its steps
        else:
            assert steps_of_g <= {"declare", "change", "heroic"}
    assert lines[0] == lines[1]


def test_a_battle_rolls_initiative_and_tie_breaks_as_each_fighter_in_turn() -> None:
    """Loreval, "Initiative...": in a battle where nobody is set up, every fighter's
    initiative is rolled in one call of the dice and each roll of a tie-break group in
    one (settle.initiative_rolls, Dice.roll_each): the same dice as each fighter rolling
    in turn, the groups of equal points and dexterity rolling d20s until each fighter's
    faces so far are its own, and the order read from the points, the dexterity, then
    the tie-break dice read in turn (settle.break_ties: as a number in base 21), then
    the fight's order. At 100 a side some fighters already apart share a face: their
    dice stop there."""
    from segsim.battle import battle
    from segsim.dice import Dice

    fight = battle("loreval", 100, seed=0)
    fight.start()
    fighters = fight.state.against(None)
    dice = Dice(0)  # the same stream, die by die
    points = {}
    for c in fighters:
        points[c.id] = max(1, dice.roll(20, "initiative", c.id) + c.sheet.skill("initiative"))
    groups: dict[tuple[int, int], list[str]] = {}
    dexterity = {c.id: c.sheet.characteristics["dexterity"] for c in fighters}
    for c in fighters:
        groups.setdefault((points[c.id], dexterity[c.id]), []).append(c.id)
    faces: dict[str, list[int]] = {}
    ties: dict[str, int] = {}
    for group in groups.values():
        pending = group if len(group) > 1 else []
        rolls = 0
        while pending:
            rolls += 1
            rolled = {cid: dice.roll(20, "initiative tie-break", cid) for cid in pending}
            for cid, face in rolled.items():
                faces.setdefault(cid, []).append(face)
            # Still equal: the same faces as another on every roll so far.
            so_far = [tuple(faces[cid]) for cid in pending]
            pending = [cid for cid in pending if so_far.count(tuple(faces[cid])) > 1]
        for cid in group if len(group) > 1 else []:  # the dice in base 21, 0 when out
            ties[cid] = sum(f * 21 ** (rolls - k) for k, f in enumerate(faces[cid], 1))
    assert fight.dice.draws == [d for d in fight.history if d.TYPE == "die.rolled"]
    assert [(d.actor, d.value, d.purpose) for d in fight.dice.draws] == [
        (d.actor, d.value, d.purpose) for d in dice.draws
    ]
    assert any(len(f) > 1 for f in faces.values())  # some ties last more than a roll
    started = of_type(fight, RoundStarted)[0]
    assert dict(started.points) == points
    assert dict(started.ties) == ties
    order = sorted(  # the dice compared in turn, as the rule reads, not their number
        fighters,
        key=lambda c: (-points[c.id], -dexterity[c.id], [-f for f in faces.get(c.id, [])], c.order),
    )
    assert started.order == tuple(c.id for c in order)
    assert [e.points for e in of_type(fight, InitiativeRolled)] == [points[c.id] for c in fighters]
