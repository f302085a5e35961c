"""Loreval's rule-list helpers (category, moves_to, focus_for) reckon an attack as the
rules do (Loreval, "Catégorie des actions", "Mode d'action", "Attention"), and a rule
list's attribute names are checked against Loreval's views when it loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from segsim.errors import InputError
from segsim.policies import RuleContext, compile_expression, load_rule_list, rule_helpers
from segsim.policy import Observation
from tests.loreval_helpers import ByRound, arena

ROOT = Path(__file__).resolve().parent.parent

EXPRESSIONS = (
    "moves_to(target)",
    "category(target, 1)",
    "category(target, 2)",
    "category(target, 3)",
    "category(target, 4)",
    "category(target, 5)",
    "category(target, 1, 2)",
    "focus_for(2)",
    "focus_for(3)",
    "focus_for(5)",
)


def reckon(fighter: str, gap: float) -> dict[str, Any]:
    """What the helpers say for ``fighter`` facing Aldren ``gap`` metres away, at its
    first declaration step."""
    seen: dict[str, Any] = {}
    helpers = rule_helpers("loreval")

    def look(obs: Observation) -> None:
        ctx = RuleContext(obs, {}, helpers)
        for text in EXPRESSIONS:
            seen[text] = compile_expression(text, helpers)(ctx)

    fight = arena(
        {"me": ("a", fighter, ByRound({1: look})), "foe": ("b", "aldren", ByRound())},
        dice=[15, 5],  # initiative: me, then the foe
        positions={"me": (0.0, 0.0), "foe": (gap, 0.0)},
    )
    fight.run()
    return seen


def test_two_weapons_in_contact_reckon_categories_from_two_blows() -> None:
    """Sylva's rapier and dagger: one blow is category 1 (one weapon), then two weapons
    from 2 blows, categories 2 to 5; Focus 0, 1, 2 for categories 2, 3, 5."""
    seen = reckon("sylva", 1.5)
    assert seen["moves_to(target)"] == 0
    assert [seen[f"category(target, {n})"] for n in (1, 2, 3, 4, 5)] == [1, 2, 3, 4, 5]
    assert seen["category(target, 1, 2)"] == 3  # two extra moves: +1 each
    assert [seen["focus_for(2)"], seen["focus_for(3)"], seen["focus_for(5)"]] == [0, 1, 2]


def test_one_weapon_reckons_odd_categories_and_counts_the_moves_to_come_in() -> None:
    """Aldren's long sword: 1, 2, 3 blows are categories 1, 3, 5, no more; 12 m away
    with a speed of 6.2 m he needs 2 extra moves, which add 2 to the category, and an
    attack that would pass category 5 is impossible (None)."""
    near = reckon("aldren", 1.5)
    assert [near[f"category(target, {n})"] for n in (1, 2, 3, 4)] == [1, 3, 5, None]
    far = reckon("aldren", 12.0)
    assert far["moves_to(target)"] == 2
    assert [far["category(target, 1)"], far["category(target, 2)"]] == [3, 5]
    assert far["category(target, 3)"] is None


def test_a_loreval_rule_list_with_a_misspelt_attribute_is_refused_when_it_loads(
    tmp_path: Path,
) -> None:
    text = (ROOT / "examples/policies/loreval_duellist.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("me.attention_points", "me.atention_points", 1), "utf-8")
    with pytest.raises(InputError, match="me has no attribute 'atention_points'"):
        load_rule_list(bad)
