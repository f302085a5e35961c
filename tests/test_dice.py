"""Dice: the only randomness, seeded, recorded; loaded dice for replay (DESIGN, principle 5)."""

from __future__ import annotations

import random

import pytest

from segsim.dice import Dice, Draw, LoadedDice
from segsim.errors import DiceExhausted


def test_faces_come_from_the_stable_random_stream() -> None:
    # Python promises random.Random(seed).random() is the same on every version; faces
    # are derived from it with plain arithmetic.
    stream = random.Random(1234)
    expected = [int(stream.random() * 100) + 1 for _ in range(50)]
    dice = Dice(1234)
    assert [dice.d100("test") for _ in range(50)] == expected


def test_every_draw_is_recorded_with_its_purpose() -> None:
    dice = Dice(5)
    seen: list[Draw] = []

    def sink(die: str, value: int, purpose: str, actor: str | None) -> Draw:
        seen.append(Draw(die, value, purpose, actor))
        return seen[-1]

    dice.sink = sink
    value = dice.roll(8, "direction", actor="a")
    assert 1 <= value <= 8
    assert dice.draws[0].die == "d8"
    assert dice.draws[0].purpose == "direction"
    assert dice.draws[0].actor == "a"
    assert seen == dice.draws


def test_seed_must_be_an_integer() -> None:
    with pytest.raises(TypeError):
        Dice("7")  # type: ignore[arg-type]


def test_loaded_dice_hand_out_values_in_order_and_say_when_they_run_out() -> None:
    dice = LoadedDice([42, ("d8", 3)])
    assert dice.d100("attack", "a") == 42
    assert dice.roll(8, "direction") == 3
    with pytest.raises(DiceExhausted, match=r"d100 \(attack for b\)"):
        dice.d100("attack", "b")


def test_loaded_dice_refuse_a_value_for_another_die() -> None:
    with pytest.raises(DiceExhausted, match="is a d8, but a d100"):
        LoadedDice([("d8", 3)]).d100("attack")
    with pytest.raises(DiceExhausted, match="not a face of d8"):
        LoadedDice([9]).roll(8, "direction")


def test_a_fight_ending_with_loaded_values_left_over_errors_as_a_script_does() -> None:
    """Loaded dice given through the API behave as a fight script's rolls: a value the
    fight never used is an error at its end, naming how many and from which one."""
    from segsim.errors import DiceLeftOver
    from segsim.testing import RuleFree, Scripted, build_fight

    def fighters() -> dict[str, tuple[str, None, Scripted]]:
        return {"a": ("x", None, Scripted()), "b": ("y", None, Scripted())}

    fight = build_fight(fighters(), ruleset=RuleFree(), dice=[4, 2], max_segments=3)
    with pytest.raises(DiceLeftOver, match=r"2 loaded value\(s\) left over from value 1"):
        fight.run()
    fight = build_fight(fighters(), ruleset=RuleFree(), dice=[], max_segments=3)
    assert fight.run().result == "stalemate"  # nobody acts: every value was used
    lenient = LoadedDice([4], strict=False)  # what a replay uses: it compares draws itself
    lenient.check_used("the fight ended")
