"""segsim.input.bad_value: the quick pass never clears what the full pass would name."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from segsim.input import INT_MAX, _bad_value_found, _clean, bad_value

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.floats(allow_nan=True, allow_infinity=True),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=30,
)


@given(VALUES, st.integers(min_value=0, max_value=4))
def test_the_quick_pass_clears_only_what_the_full_pass_clears(value: Any, limit: int) -> None:
    if _clean(value, 0, limit):
        assert _bad_value_found(value, limit) is None
    assert bad_value(value, limit) == _bad_value_found(value, limit)


def test_a_value_just_past_the_limit_is_named_whatever_its_type() -> None:
    deep: Any = "leaf"
    for _ in range(3):
        deep = {"k": deep}
    assert bad_value(deep, limit=3) is None
    assert bad_value({"k": deep}, limit=3) == (
        ("k", "k", "k", "k"),
        "nested more than 3 levels deep",
    )
    assert bad_value([1, {"n": INT_MAX + 1}]) == ((1, "n"), "an integer out of the 64-bit range")
