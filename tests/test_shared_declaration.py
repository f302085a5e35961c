"""``segsim.actions.shared_declaration``: the built-in policies' declarations of one
shape made once and handed out again (Loss's and Loreval's policies use it)."""

from __future__ import annotations

import pytest

from segsim import actions
from segsim.actions import Declaration, shared_declaration


def test_one_shape_is_one_declaration_equal_to_the_one_made_directly() -> None:
    params = {"effects": ["extra_damage", "extra_damage"], "fursa": 1}
    first = shared_declaration("attack", "rival", params)
    again = shared_declaration("attack", "rival", {"effects": ["extra_damage"] * 2, "fursa": 1})
    assert again is first
    assert first == Declaration("attack", "rival", params)
    table = {"environment": 1, "security": 0, "focus": 2}
    assert shared_declaration("strike", "b", {"attention": table}) is shared_declaration(
        "strike", "b", {"attention": dict(table)}
    )
    assert shared_declaration("pass") is shared_declaration("pass", None, {})


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (("attack", "rival", {"fursa": 1}), ("attack", "other", {"fursa": 1})),
        (("attack", "rival", {"fursa": 1}), ("attack", "rival", {"inspiration": 1})),
        (("attack", "rival", {"fursa": 1}), ("attack", "rival", {"fursa": 2})),
        (("move", None, {"direction": "away"}), ("dodge", None, {"direction": "away"})),
        (
            ("strike", "b", {"attention": {"focus": 2, "security": 1}}),
            ("strike", "b", {"attention": {"focus": 1, "security": 2}}),
        ),
    ],
)
def test_different_shapes_are_different_declarations(one: tuple, other: tuple) -> None:
    a, b = shared_declaration(*one), shared_declaration(*other)
    assert a is not b and a != b
    assert (a.kind, a.target, dict(a.params)) == (one[0], one[1], one[2])


def test_the_kept_declarations_are_bounded() -> None:
    """Past its bound it starts anew (no monkeypatching: the compiled build's module
    would not see it), and what it hands out is still the declaration of its shape."""
    bound = actions.SHARED_DECLARATIONS
    for n in range(bound + 1):
        made = shared_declaration("wait", "bound test", {"until": n})
        assert len(actions._DECLARATIONS) <= bound
    assert made == Declaration("wait", "bound test", {"until": bound})
    assert shared_declaration("wait", "bound test", {"until": bound}) is made
