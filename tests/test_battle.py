"""segsim.battle.battle: a line battle of any ruleset by its name."""

from __future__ import annotations

import pytest

from segsim.battle import battle, line_battle


def _events(fight: object) -> list[str]:
    fight.run()  # type: ignore[attr-defined]
    return [type(e).__name__ for e in fight.history]  # type: ignore[attr-defined]


def test_rinkanou_s_battle_is_its_line_battle_whatever_the_name_s_case() -> None:
    assert _events(battle("RinKaNou", 3, seed=5, max_segments=40)) == _events(
        line_battle(3, seed=5, max_segments=40)
    )


def test_an_unknown_ruleset_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"no ruleset named 'nope'.*rinkanou"):
        battle("nope", 2)


@pytest.mark.parametrize("ruleset", ["rinkanou", "loss", "chroniques", "loreval", "rupture"])
def test_every_ruleset_s_battle_names_a_fighter_it_does_not_have(ruleset: str) -> None:
    with pytest.raises(ValueError, match=r"no \w+ fighter 'nobody' \(known: "):
        battle(ruleset, 2, fighters=("nobody",))
    with pytest.raises(ValueError, match="per_side is a whole number from 1"):
        battle(ruleset, 0)
