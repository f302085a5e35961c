"""The engine's sort of actions completing together reads a ruleset's order of
completion as a table by kind when the ruleset gives one (``order_table()``): the same
key as its ``order_key``, then the fighters' order, then the actions' ids."""

from __future__ import annotations

from typing import Any

from segsim.actions import Action
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.ruleset import KINDS
from segsim.testing import build_fight


def _fight(rules: Any) -> Any:
    return build_fight(
        {"robert": ("blue", "robert", None), "margaret": ("red", "margaret", None)},
        dice=[],
        ruleset=rules,
    )


def test_the_table_gives_the_order_key_of_every_kind() -> None:
    rules = RinKaNou()
    fight = _fight(rules)
    assert fight._completion_order is None  # made when first needed, once
    key = fight._completion_key()
    assert fight._completion_order is key
    order = {c.id: c.order for c in fight.state.combatants.values()}
    for i, kind in enumerate([*KINDS, "projectile", "no such kind"]):
        for actor in order:
            a = Action(kind, 3, id=i + 1, actor=actor)
            assert key(a) == (*rules.order_key(a), order[actor], i + 1)


def test_a_ruleset_that_orders_otherwise_gets_its_own_order_key() -> None:
    class Reversed(RinKaNou):
        def order_key(self, action: Action) -> tuple[Any, ...]:
            return (-super().order_key(action)[0],)

    rules = Reversed()
    assert rules.order_table() is None
    fight = _fight(rules)
    a, b = Action("strike", 3, id=1, actor="robert"), Action("dodge", 3, id=2, actor="robert")
    key = fight._completion_key()
    assert sorted([a, b], key=key) == sorted([a, b], key=lambda x: (rules.order_key(x), x.id))
    assert key(a)[0] == -RinKaNou().order_key(a)[0]


def test_a_large_batch_leaves_out_what_was_dropped_from_it() -> None:
    """The actions dropped from a large batch (``_unschedule``'s marks) are left out,
    the others kept in their order (``_kept``)."""
    from segsim.fight import _kept

    batch = [Action("strike", 3, id=i, actor="robert") for i in range(100)]
    marks = {id(a): a for a in batch[::7]}
    assert _kept(batch, marks) == [a for a in batch if a not in marks.values()]
    assert [a.id for a in _kept(batch, marks)] == [i for i in range(100) if i % 7]
