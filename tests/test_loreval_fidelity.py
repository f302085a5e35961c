"""Loreval read again against Loreval, sentence by sentence (issue 38): the departures
the audit found, each checked from the text's own words and numbers."""

from __future__ import annotations

import pytest

from segsim import IllegalDeclaration
from segsim.events import Moved
from segsim.rules.loreval.events import (
    AttackRolled,
    Countered,
    CounterRolled,
    CounterUsed,
    Declared,
    DetectionRolled,
    PerceptionLost,
    SpellCast,
    TurnResolved,
)
from segsim.testing import declare, sheet
from tests.loreval_helpers import ByRound, arena, of_type

STRIKE = {"against": "offensive", "how": "strike", "attention": {"environment": 1}}


def test_a_negative_focus_gives_the_tables_malus_rather_than_refusing() -> None:
    """Loreval, "Désavantages d'un score négatif" and the summary table: Focus -2 gives
    -3 to every action roll. "Un focus de 0 suffit" for categories 1 and 2, so a
    fighter whose Focus two lost senses brought to -2 still attacks, at -3."""
    a = ByRound({1: declare("attack", "b")})
    fight = arena(
        {"a": ("blue", "bandit", a), "b": ("red", "bandit", ByRound())},
        dice=[15, 5, 12],  # a 17, b 7; a's attack 12: 13 misses the bandit's 15
        setup={"a": {"senses_lost": 2}},
    )
    fight.run()
    attack = of_type(fight, AttackRolled, actor="a")[0]
    assert attack.modifiers["focus"] == -3
    assert attack.total == 12 + 4 - 3


def test_a_negative_focus_still_refuses_what_needs_focus() -> None:
    """Loreval, "Catégorie des actions": Focus 1 for categories 3 and 4; at -2 the
    two attacks of category 3 are refused, naming the rule."""
    a = ByRound({1: declare("attack", "b", attacks=2, attention={"focus": 1})})
    fight = arena(
        {"a": ("blue", "bandit", a), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
        setup={"a": {"senses_lost": 2}},
    )
    with pytest.raises(IllegalDeclaration, match="needs a Focus of 1"):
        fight.run()


def test_a_successful_counter_blocks_the_action_but_not_the_moves() -> None:
    """Loreval, "Actions de contre": a successful counter blocks the fighter in its
    action until the round ends, "sauf ses déplacements". The bandit, struck first by
    Aldren's offensive counter, does not attack the archer but still makes its move
    toward it."""
    b = ByRound({1: declare("attack", "c", moves=1)})
    a = ByRound({1: declare("counter", "b", **STRIKE)})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b), "c": ("blue", "archer", ByRound())},
        positions={"a": (0.0, 0.0), "b": (1.5, 0.0), "c": (7.5, 0.0)},
        dice=[15, 5, 1, 18, 3],  # a 19, b 7, c 7; a's strike 18, damage 3
    )
    fight.run()
    assert of_type(fight, Countered)[0].actor == "b"
    assert [e.actor for e in of_type(fight, AttackRolled)] == ["a"]
    moved = of_type(fight, Moved, actor="b")
    assert moved and (moved[-1].x, moved[-1].y) == (6.0, 0.0)  # in contact with c
    assert of_type(fight, TurnResolved, actor="b")[0].note == "blocked by a counter"


def test_an_obstruction_still_stops_the_moves() -> None:
    """Loreval, "Actions de contre": "à moins que le contre visait précisément à
    empêcher le déplacement": an obstruction stops them."""
    b = ByRound({1: declare("attack", "c", moves=1)})
    obstruct = {**STRIKE, "how": "obstruct"}
    a = ByRound({1: declare("counter", "b", **obstruct)})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b), "c": ("blue", "archer", ByRound())},
        positions={"a": (0.0, 0.0), "b": (1.5, 0.0), "c": (7.5, 0.0)},
        dice=[15, 5, 1, 18],  # a's obstruction 18
    )
    fight.run()
    assert of_type(fight, Moved, actor="b") == []


def test_a_hasted_caster_may_move_during_a_ritual() -> None:
    """Loreval, "Lancement d'un sort": no move during a ritual "à moins d'être sous
    l'effet d'un sort de rapidité". A hasted caster's ritual with one move (5 + 1)
    counts as category 5 ("Effet de rapidité")."""
    ritual = declare("spell", spell="ward", ritual=True, moves=1, attention={"focus": 2})
    fight = arena(
        {"a": ("blue", "aldren", ByRound({1: ritual})), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
        setup={"a": {"hasted": True}},
    )
    fight.run()
    declared = of_type(fight, Declared, actor="a")[0]
    assert (declared.kind, declared.category, declared.extra_moves) == ("spell", 5, 1)


def test_an_unhasted_caster_may_not_move_during_a_ritual() -> None:
    ritual = declare("spell", spell="ward", ritual=True, moves=1, attention={"focus": 2})
    fight = arena(
        {"a": ("blue", "aldren", ByRound({1: ritual})), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
    )
    with pytest.raises(IllegalDeclaration, match="no move is possible during a ritual"):
        fight.run()


def test_a_charge_made_as_a_counter_counts_security_as_zero() -> None:
    """Loreval, "Charge": a charger's Security "est considérée comme égale à 0 quel
    que soit son score"; "Charge dans un contre" declares a charge as a counter.
    Aldren (6 attention points) charges the slower bandit as a counter with 3 in
    Security; his charge misses, and the bandit's attack meets his defences without
    Security's +4."""
    aldren = sheet("aldren", "loreval", characteristic_training=16)
    charge = {
        "against": "offensive",
        "how": "charge",
        "moves": 2,
        "attention": {"environment": 1, "focus": 2, "security": 3},
    }
    a = ByRound({1: declare("counter", "b", **charge)})
    b = ByRound({1: declare("attack", "a")})
    fight = arena(
        {"a": ("blue", aldren, a), "b": ("red", "bandit", b)},
        dice=[15, 5, 2, 10],  # a 19, b 7; a's charge 2 misses; b's attack 10 misses
    )
    fight.run()
    attack = of_type(fight, AttackRolled, actor="b")[0]
    # passive Defence 10 + 6 + 5 (chainmail) + 2 (shield) = 23, two moves -6,
    # Security counted as 0: no +4
    assert attack.difficulty == 23 - 6


def test_only_a_player_character_declares_a_concerted_action() -> None:
    """Loreval, "Action concertée": "Lorsqu'un personnage-joueur ayant 2 points en
    Environnement..." A non-player fighter's concert is refused, naming the rule."""
    a = ByRound({1: declare("attack", "g", attention={"environment": 1, "security": 2})})
    joint = {"concert": "a", "attention": {"environment": 2, "security": 1}}
    s = ByRound({1: declare("attack", "g", **joint)})
    fight = arena(
        {"a": ("blue", "aldren", a), "s": ("blue", "sylva", s), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "s": (0.0, 1.0), "g": (1.0, 0.5)},
        dice=[10, 15, 5],
    )
    with pytest.raises(IllegalDeclaration, match="player character") as info:
        fight.run()
    assert "Action concertée" in str(info.value)


def test_a_strike_counter_records_no_roll_of_its_own() -> None:
    """The strike counter rolls nothing but its attack: `loreval.counter.used` marks it,
    the attack is the roll; no `loreval.counter` with a roll of 0."""
    b = ByRound({1: declare("attack", "a")})
    a = ByRound({1: declare("counter", "b", **STRIKE)})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b)},
        dice=[15, 5, 18, 3],
    )
    fight.run()
    assert of_type(fight, CounterRolled) == []
    used = of_type(fight, CounterUsed)
    assert [(e.actor, e.countered, e.how) for e in used] == [("a", "b", "strike")]
    assert of_type(fight, AttackRolled, actor="a")[0].action == "counter"


def test_every_loreval_event_field_says_what_it_means() -> None:
    """The record format's docs and schema say what each field of a Loreval event
    means (generated from FIELD_MEANINGS)."""
    import attrs

    from segsim.schema import event_definition, known_types

    missing = []
    for name, cls in known_types().items():
        if not name.startswith("loreval."):
            continue
        props = event_definition(cls)["properties"]
        for field in attrs.fields(cls):
            if field.name not in ("t", "actor") and "description" not in props[field.name]:
                missing.append(f"{name}.{field.name}")
    assert missing == []


def test_perception_lost_costs_one_attention_point_per_four() -> None:
    """Loreval, "Nombre de points d'attention": points of Perception lost to a malus
    cost attention points, 1 per 4 lost. Aldren (3 points) with 5 of perception lost
    has 2: three put are refused, naming the rule."""
    a = ByRound({1: declare("inaction", attention={"environment": 1, "security": 2})})
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", ByRound())},
        dice=[15, 5],
        setup={"a": {"perception_malus": 5}},
    )
    with pytest.raises(IllegalDeclaration, match="has 2 attention points") as info:
        fight.run()
    assert "Nombre de points d'attention" in str(info.value)


def test_perception_lost_weighs_on_perception_rolls() -> None:
    """The same malus weighs on the perception roll itself: Aldren, ambushed with 2 in
    Environment, rolls 12 + perception 3 - 5 lost = 10 to detect it; the record says
    how many attention points are left."""
    a = ByRound()
    fight = arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", ByRound())},
        dice=[12, 5, 10],  # a's detection 12; b 7; a's initiative after its grace round
        setup={"a": {"perception_malus": 5, "surprised": True, "attention": {"environment": 2}}},
    )
    fight.run()
    detection = of_type(fight, DetectionRolled, actor="a")[0]
    assert (detection.total, detection.success) == (12 + 3 - 5, False)
    lost = of_type(fight, PerceptionLost, actor="a")[0]
    assert (lost.malus, lost.attention_points) == (5, 2)


SPELL = {"spell": "bolt", "attention": {"focus": 1}}


def _spell_duel(counter: dict, spell: dict, dice: list[int], caster_first: bool):  # type: ignore[no-untyped-def]
    a = ByRound({1: declare("counter", "b", **counter)})
    b = ByRound({1: declare("spell", "a", **spell)})
    return arena(
        {"a": ("blue", "aldren", a), "b": ("red", "bandit", b)},
        dice=[5, 15, *dice] if caster_first else [15, 5, *dice],
    )


def test_an_offensive_counter_spell_stops_the_spell_at_its_source() -> None:
    """Loreval, "Les différents contres", "Contrer un sort": a counter-spell; the
    offensive one acts at the source. The slower caster's spell is never cast."""
    counter = {
        "against": "offensive",
        "how": "counterspell",
        "attention": {"environment": 1, "focus": 1},
    }
    fight = _spell_duel(counter, SPELL, [], caster_first=False)
    fight.run()
    assert [(e.actor, e.by, e.how) for e in of_type(fight, Countered)] == [
        ("b", "a", "counterspell")
    ]
    assert of_type(fight, SpellCast) == []


def test_dodging_an_aimed_spell_sets_its_targeting_difficulty() -> None:
    """Loreval, "Esquiver un sort": a reflex roll whose result is the difficulty of
    the targeting roll. Aldren dodges the faster bandit's ray with a roll of 15; the
    bandit's targeting roll of 3 misses it, and the caster is blocked."""
    counter = {"against": "defensive", "how": "dodge", "attention": {"environment": 1}}
    fight = _spell_duel(counter, {**SPELL, "aimed": True}, [15, 3], caster_first=True)
    fight.run()
    dodge = of_type(fight, CounterRolled, actor="a")[0]
    assert dodge.how == "dodge"
    ray = of_type(fight, AttackRolled, actor="b")[0]
    assert (ray.action, ray.label, ray.difficulty, ray.success) == (
        "spell",
        "targeting",
        dodge.total,
        False,
    )
    assert of_type(fight, Countered)[0].how == "dodge"
    assert of_type(fight, SpellCast) == []


def test_resisting_a_spell_is_rolled_and_an_irresistible_one_is_not() -> None:
    """Loreval, "Résister à un sort": a roll on the resistance the spell calls for,
    unless it is irresistible; it opposes the penetration roll (the magic chapter's):
    segsim records it before the spell."""
    counter = {"against": "defensive", "how": "resist", "attention": {"environment": 1}}
    fight = _spell_duel(counter, {**SPELL, "resistance": "will"}, [12], caster_first=True)
    fight.run()
    resist = of_type(fight, CounterRolled, actor="a")[0]
    assert (resist.how, resist.roll, resist.total) == ("resist", 12, 12)
    assert [e.spell for e in of_type(fight, SpellCast)] == ["bolt"]
    fight = _spell_duel(counter, {**SPELL, "irresistible": True}, [], caster_first=True)
    fight.run()
    assert of_type(fight, CounterRolled) == []
    assert [e.spell for e in of_type(fight, SpellCast)] == ["bolt"]


def test_the_course_talent_adds_a_free_move_to_moves_and_attacks() -> None:
    """Loreval, "La compétence Saut et le talent course": a free unit of movement on
    any action with a move, never alone. The bandit (5.6 m a move) with Course moves
    11.2 m for a category 1 move, and attacks 1.5 + 11.2 m away with one extra move
    (category 2); without a move of its own the attack gets no free one."""
    runner = sheet("bandit", "loreval", talents=("adventurer", "run"))
    far = declare("move", to=[11.2, 0.0])
    fight = arena(
        {"a": ("blue", runner, ByRound({1: far})), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (0.0, 9.0)},
        dice=[15, 5],
    )
    fight.run()
    declared = of_type(fight, Declared, actor="a")[0]
    assert (declared.category, declared.params["free_move"]) == (1, 1)
    assert (of_type(fight, Moved, actor="a")[0].x, fight.state.combatants["a"].position) == (
        11.2,
        (11.2, 0.0),
    )
    lunge = declare("attack", "b", moves=1)
    fight = arena(
        {"a": ("blue", runner, ByRound({1: lunge})), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (12.7, 0.0)},
        dice=[15, 5, 2],  # the attack (2) misses
    )
    fight.run()
    assert of_type(fight, Declared, actor="a")[0].category == 2
    assert of_type(fight, AttackRolled, actor="a")[0].roll == 2
    alone = declare("attack", "b")
    fight = arena(
        {"a": ("blue", runner, ByRound({1: alone})), "b": ("red", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": (7.0, 0.0)},
        dice=[15, 5],
    )
    with pytest.raises(IllegalDeclaration, match=r"0 extra move\(s\) of 5.6 m a reaches 1.5 m"):
        fight.run()
