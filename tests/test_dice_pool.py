"""Dice.roll_many: a pool of dice in one call is the same as rolling them one by one
(the same faces, the same draws recorded, in the same order), whatever the dice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segsim.dice import Dice, Draw, LoadedDice
from segsim.errors import DiceExhausted


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), count=st.integers(0, 12), sides=st.sampled_from([6, 7, 100]))
def test_a_pool_draws_what_single_rolls_draw(seed: int, count: int, sides: int) -> None:
    one, many = Dice(seed), Dice(seed)
    singles = [one.roll(sides, "test", "a") for _ in range(count)]
    assert many.roll_many(count, sides, "test", "a") == singles
    assert many.draws == one.draws
    assert one.roll(6, "next") == many.roll(6, "next")  # the stream goes on alike


def test_a_pool_goes_through_the_sink_die_by_die() -> None:
    seen: list[Draw] = []

    def sink(die: str, value: int, purpose: str, actor: str | None) -> Draw:
        seen.append(Draw(die, value, purpose, actor))
        return seen[-1]

    dice = Dice(3)
    dice.sink = sink
    faces = dice.roll_many(3, 6, "melee", "x")
    assert seen == [Draw("d6", f, "melee", "x") for f in faces]
    assert dice.draws == seen


def test_loaded_dice_hand_out_a_pool_in_order_and_keep_what_was_drawn() -> None:
    dice = LoadedDice([6, ("d6", 2), 5])
    assert dice.roll_many(2, 6, "test") == [6, 2]
    with pytest.raises(DiceExhausted, match=r"no recorded value left for d6 \(test\)"):
        dice.roll_many(2, 6, "test")
    assert [d.value for d in dice.draws] == [6, 2, 5]  # the draw before the error is kept


def test_a_pool_of_dice_without_faces_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one face"):
        Dice(0).roll_many(2, 0, "test")


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    actors=st.lists(st.sampled_from(["a", "b", "c", None]), max_size=12),
    sides=st.sampled_from([6, 7, 20]),
)
def test_a_die_for_each_actor_draws_what_single_rolls_draw(
    seed: int, actors: list[str | None], sides: int
) -> None:
    one, each = Dice(seed), Dice(seed)
    singles = [one.roll(sides, "tie-break", actor) for actor in actors]
    assert each.roll_each(sides, "tie-break", actors) == singles
    assert each.draws == one.draws
    assert one.roll(6, "next") == each.roll(6, "next")  # the stream goes on alike


def test_loaded_dice_hand_out_a_die_for_each_actor_in_order() -> None:
    dice = LoadedDice([4, ("d20", 17)])
    assert dice.roll_each(20, "initiative", ["x", "y"]) == [4, 17]
    assert [(d.value, d.actor) for d in dice.draws] == [(4, "x"), (17, "y")]
    with pytest.raises(DiceExhausted, match=r"no recorded value left for d20"):
        dice.roll_each(20, "initiative", ["z"])


def test_a_fight_records_a_die_for_each_actor_as_it_records_single_rolls() -> None:
    """A fight's dice record the draws of roll_each in one call of the fight
    (Fight._on_draws): the same events, in the same order, as rolling them one by one,
    the state's version moved once a draw, the subscribers told of each."""
    from segsim.battle import battle

    ones, each = battle("loreval", 2, seed=4), battle("loreval", 2, seed=4)
    told: list[object] = []
    each.subscribe(told.append, types=["die.rolled"])
    actors = ["w0", "e1", None, "w1"]
    singles = [ones.dice.roll(20, "initiative tie-break", a) for a in actors]
    versions = each.state.version
    assert each.dice.roll_each(20, "initiative tie-break", actors) == singles
    assert each.history == ones.history
    assert each.dice.draws == ones.dice.draws
    assert told == each.history[-len(actors) :]
    assert each.state.version == versions + len(actors)


def test_a_fight_with_no_subscriber_records_the_draws_of_roll_each_alike() -> None:
    """Without subscribers, a fight makes the events of one roll_each in one pass and
    records them at once (Fight._on_draws): the same events in the same order, the same
    draws kept by the dice and the state's version moved once a draw, as single rolls."""
    from segsim.battle import battle

    ones, each = battle("loreval", 2, seed=9), battle("loreval", 2, seed=9)
    actors = ["e0", None, "w1", "w0", "e1"]
    singles = [ones.dice.roll(20, "initiative tie-break", a) for a in actors]
    versions = each.state.version
    assert each.dice.roll_each(20, "initiative tie-break", actors) == singles
    assert each.history == ones.history
    assert each.history[-len(actors) :] == each.dice.draws[-len(actors) :]
    assert each.dice.draws == ones.dice.draws
    assert each.state.version == versions + len(actors) == ones.state.version
