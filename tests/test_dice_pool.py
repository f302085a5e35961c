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
