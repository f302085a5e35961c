"""The RinKaNou d100 test (RULES-NOTES, "Test", "Difficulty ladder", "Criticals")."""

from __future__ import annotations

import pytest

from segsim.dice import LoadedDice
from segsim.errors import IllegalDeclaration
from segsim.rules.rinkanou.roll import (
    DIFFICULTY,
    TestResult,
    difficulty_value,
    is_double,
    roll_test,
    simultaneous_malus,
    tens,
)


def test_success_margin_and_failure_margin() -> None:
    ok = TestResult(chance=60, roll=37)
    assert ok.success and ok.margin == 23 and ok.mr == 23 and ok.me == 0
    ko = TestResult(chance=60, roll=71)
    assert not ko.success and ko.margin == 11 and ko.me == 11 and ko.mr == 0


def test_doubles_are_critical_and_100_reads_as_00() -> None:
    assert [r for r in range(1, 101) if is_double(r)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]
    assert TestResult(60, 33).critical and TestResult(60, 33).success
    assert TestResult(60, 77).critical and not TestResult(60, 77).success
    assert tens(100) == 10 and tens(77) == 7


def test_100_fails_unless_the_chance_reaches_it() -> None:
    assert not TestResult(99, 100).success
    assert TestResult(100, 100).success and TestResult(100, 100).critical


def test_rolls_decide_even_when_the_chance_is_out_of_range() -> None:
    assert not TestResult(-5, 1).success
    assert TestResult(130, 99).success


def test_difficulty_ladder() -> None:
    # The text fixes moyenne (0), extrêmement difficile (-70) and immanquable (+50).
    assert DIFFICULTY["average"] == 0
    assert DIFFICULTY["extremely_hard"] == -70
    assert DIFFICULTY["cant_miss"] == 50
    assert difficulty_value("easy") == 15 and difficulty_value(-20) == -20
    with pytest.raises(IllegalDeclaration, match="unknown difficulty 'trivial'"):
        difficulty_value("trivial")


def test_roll_test_uses_one_d100() -> None:
    dice = LoadedDice([40])
    result = roll_test(dice, 55, "attack", "a")
    assert result.success and result.margin == 15
    assert dice.draws[0].die == "d100"


@pytest.mark.parametrize(
    ("difficulty", "malus"),
    [
        ("average", -10),  # -10 % + 0 / 2
        ("easy", -2),  # -10 % + 15 / 2 = -2.5, truncated toward zero
        ("very_easy", 0),  # -10 % + 30 / 2 = +5: never a bonus
        ("cant_miss", 0),
        ("hard", -17),  # -10 % - 7.5
        ("extremely_hard", -45),
    ],
)
def test_simultaneous_actions_malus(difficulty: str, malus: int) -> None:
    """RinKaNou, "Actions simultanées": -10 % + difficulty / 2, never a bonus."""
    assert simultaneous_malus(DIFFICULTY[difficulty]) == malus
