"""What a rule list sees is read-only, and content shared between fights is immutable
(DESIGN principle 12; issue 39, item 5: a condition calling
``target.weapon.damage.update(cut=0)`` or ``me.sheet.skills.update(sabre=300)`` changed
the content of every later fight in the process)."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import pytest

from segsim import InputError, load_scenario
from segsim.policies import load_rule_list
from segsim.rules import frozen_sheet, get_ruleset
from segsim.testing import snapshot

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ["rinkanou", "loss", "chroniques", "rupture", "loreval"]
ONE_PER_RULESET = {
    "rinkanou": "duel.toml",
    "loss": "loss_street_brawl.toml",
    "chroniques": "chroniques_ambush.toml",
    "rupture": "rupture_brawl.toml",
    "loreval": "loreval_duel.toml",
}

RULE_LIST = """\
name = "meddler"
ruleset = "rinkanou"

[[rule]]
name = "meddle"
when = "{when}"
do = "nothing"
"""


@pytest.mark.parametrize(
    "when",
    [
        "target.weapon.damage.update(cut=0) or True",
        "me.sheet.skills.update(sabre=300) or True",
        "me.sheet.skills.pop('sabre') and False",
        "me.actions.clear() or True",
        "params.setdefault('x', 1)",
        "opponents.sort() or True",
    ],
)
def test_a_rule_expression_that_would_change_what_it_reads_is_refused(
    when: str, tmp_path: Path
) -> None:
    path = tmp_path / "meddler.toml"
    path.write_text(RULE_LIST.format(when=when.replace('"', '\\"')), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_rule_list(path)
    assert caught.value.field == "rule[0].when" and caught.value.line == 6
    assert "would change what the rule list reads" in caught.value.message


def mutable_inside(value: Any, path: str = "", seen: set[int] | None = None) -> list[str]:
    """Where a dict, list or set can be reached inside ``value`` (through attrs fields,
    read-only mappings and tuples)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, dict | list | set | bytearray):
        return [path or "(top)"]
    found: list[str] = []
    if isinstance(value, MappingProxyType):
        for k, v in value.items():
            found += mutable_inside(v, f"{path}[{k!r}]", seen)
    elif isinstance(value, tuple | frozenset):
        for i, v in enumerate(value):
            found += mutable_inside(v, f"{path}[{i}]", seen)
    elif attrs.has(type(value)):
        for field in attrs.fields(type(value)):
            found += mutable_inside(getattr(value, field.name), f"{path}.{field.name}", seen)
    return found


@pytest.mark.parametrize("ruleset", RULESETS)
def test_content_and_sheets_hold_nothing_mutable(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    assert mutable_inside(rules.content) == []
    for name, node in rules.content.fighters.items():
        assert mutable_inside(frozen_sheet(rules, node), name) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_content_cannot_be_changed_for_the_next_fight(ruleset: str) -> None:
    scenario = load_scenario(ROOT / "examples" / "scenarios" / ONE_PER_RULESET[ruleset])
    rules = scenario.ruleset
    before = snapshot((rules.content, [c.sheet for c in scenario.combatants]))
    first = scenario.fight(5)
    first.run()
    sheet = scenario.combatants[0].sheet
    tables = [
        v for v in attrs.asdict(sheet, recurse=False).values() if isinstance(v, MappingProxyType)
    ]
    assert tables, "a sheet has tables (skills, characteristics...)"
    for table in tables:
        with pytest.raises(TypeError):
            table["x"] = 300  # type: ignore[index]
        with pytest.raises(AttributeError):
            table.update(x=300)  # type: ignore[attr-defined]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        sheet.name = "changed"  # type: ignore[misc]
    second = scenario.fight(5)
    second.run()
    assert snapshot((rules.content, [c.sheet for c in scenario.combatants])) == before
    assert [e.TYPE for e in first.history] == [e.TYPE for e in second.history]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_frozen_content_is_not_walked_again(ruleset: str) -> None:
    """The shipped content, frozen once, is left as it is when another ruleset is made
    with it: its tables are the same objects (a frozen attrs instance holding tables has
    no hash, and was walked and its tables made anew at each scenario's loading)."""
    first = get_ruleset(ruleset).content
    tables = {f.name: getattr(first, f.name) for f in attrs.fields(type(first))}
    again = get_ruleset(ruleset).content
    assert again is first
    assert all(getattr(again, name) is table for name, table in tables.items())
    with pytest.raises(TypeError):
        hash(first)  # (why it is known by identity)
