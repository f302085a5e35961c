"""Every rule traced: each ruleset page ends with a table that walks its seed's combat text.

``docs/rules/<ruleset>.md`` ends with a section ``## Traceability (text NNN)`` holding one
Markdown table with the columns ``Section | Rule | Status | Why | Tests``:

* **Section**: the seed's section title, in French as the seed writes it. The titles a
  ruleset's table may use, in the seed's order, are listed one per line in
  ``tests/data/text_sections/<ruleset>.txt``; the rows walk them in that order (a row's
  section is the current one or a later one) and every listed section has a row.
* **Rule**: the rule in a few English words.
* **Status**: ``implemented``, ``reading`` (the text is ambiguous and segsim chooses),
  ``option`` (both readings are offered) or ``not modelled``.
* **Why**: required for ``reading``, ``option`` and ``not modelled``; free otherwise.
* **Tests**: the test functions that check the rule, in backticks, by name
  (``test_x``) or with their file (``test_file.py::test_x``, ``test_file.py::Class::
  test_x``). Required for ``implemented``, ``reading`` and ``option``.

This file is the one checker for all five rulesets.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
PAGES = ROOT / "docs" / "rules"
SECTIONS = TESTS / "data" / "text_sections"
RULESETS = ("rinkanou", "loss", "chroniques", "rupture", "loreval")
HEADING = re.compile(r"^## Traceability \(text (\d{3})\)\s*$")
COLUMNS = ("Section", "Rule", "Status", "Why", "Tests")
STATUSES = ("implemented", "reading", "option", "not modelled")
NEEDS_TESTS = ("implemented", "reading", "option")
NEEDS_WHY = ("reading", "option", "not modelled")
TEST_REF = re.compile(r"`([^`]+)`")


@attrs.frozen
class Row:
    """One row of a traceability table, with the page line it is on."""

    line: int
    section: str
    rule: str
    status: str
    why: str
    tests: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"line {self.line}"


def _cells(line: str) -> list[str]:
    body = line.strip()
    if not (body.startswith("|") and body.endswith("|")):
        raise ValueError("a table line starts and ends with |")
    return [cell.strip() for cell in body[1:-1].split("|")]


def parse_table(text: str) -> list[Row]:
    """The rows of the page's traceability table; ValueError naming the line if malformed."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if HEADING.match(line)]
    if len(starts) != 1:
        raise ValueError(f"expected one '## Traceability (text NNN)' heading, found {len(starts)}")
    start = starts[0]
    if any(line.startswith("## ") for line in lines[start + 1 :]):
        raise ValueError("the traceability table is the page's last section")
    body = [(i, line) for i, line in enumerate(lines[start + 1 :], start + 2) if line.strip()]
    table = [(i, line) for i, line in body if line.lstrip().startswith("|")]
    if len(table) < 3:
        raise ValueError("the traceability section holds no table")
    (hline, header), (_, rule), *rows = table
    if tuple(_cells(header)) != COLUMNS:
        raise ValueError(f"line {hline}: the columns are {' | '.join(COLUMNS)}")
    if not all(set(cell) <= set("-: ") for cell in _cells(rule)):
        raise ValueError(f"line {hline + 1}: expected the header's rule line")
    parsed = []
    for number, line in rows:
        cells = _cells(line)
        if len(cells) != len(COLUMNS):
            raise ValueError(f"line {number}: {len(cells)} cells, expected {len(COLUMNS)}")
        section, rule_text, status, why, tests = cells
        parsed.append(Row(number, section, rule_text, status, why, tuple(TEST_REF.findall(tests))))
    return parsed


@cache
def suite_functions() -> frozenset[str]:
    """Every test function of the suite, by bare name and by file-qualified name."""
    names: set[str] = set()
    for path in TESTS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(TESTS).as_posix()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("test"):
                    names.update((node.name, f"{rel}::{node.name}", f"{path.name}::{node.name}"))
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                        names.update(
                            (
                                item.name,
                                f"{rel}::{node.name}::{item.name}",
                                f"{path.name}::{node.name}::{item.name}",
                            )
                        )
    return frozenset(names)


def problems(rows: list[Row], sections: list[str]) -> Iterator[str]:
    """What is wrong with a table, given its seed's section titles in order."""
    known = suite_functions()
    position = 0
    covered: set[int] = set()
    for row in rows:
        if row.status not in STATUSES:
            yield f"{row.where}: status {row.status!r} is not one of {', '.join(STATUSES)}"
        if not row.rule:
            yield f"{row.where}: the rule is empty"
        if row.status in NEEDS_TESTS and not row.tests:
            yield f"{row.where}: a rule of status {row.status!r} names the tests that check it"
        if row.status in NEEDS_WHY and not row.why:
            yield f"{row.where}: a rule of status {row.status!r} says why"
        for name in row.tests:
            if name not in known:
                yield f"{row.where}: no test function {name!r} in tests/"
        found = next(
            (i for i in range(position, len(sections)) if sections[i] == row.section), None
        )
        if found is None:
            where = "an earlier one" if row.section in sections else "not one of"
            yield (
                f"{row.where}: section {row.section!r} is {where} the seed's sections "
                f"(tests/data/text_sections), walked in order"
            )
        else:
            position = found
            covered.add(found)
    for i, section in enumerate(sections):
        if i not in covered:
            yield f"section {section!r} (entry {i + 1}) has no row"


def text_sections(ruleset: str) -> list[str]:
    path = SECTIONS / f"{ruleset}.txt"
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_ruleset_page_ends_with_a_checked_traceability_table(ruleset: str) -> None:
    """DESIGN "Every rule traced": the table exists, is well formed and names real tests."""
    rows = parse_table((PAGES / f"{ruleset}.md").read_text(encoding="utf-8"))
    found = list(problems(rows, text_sections(ruleset)))
    assert not found, f"docs/rules/{ruleset}.md:\n" + "\n".join(found)


# The checker's own tests: each kind of fault in a small table is reported.

GOOD = """\
# Page

## Traceability (text 001)

| Section | Rule | Status | Why | Tests |
|---|---|---|---|---|
| Surprise | ambush test | implemented | | `test_parse_a_good_table` |
| Initiative | ties | reading | the text says PJ first | `test_parse_a_good_table` |
| Initiative | order | not modelled | no bearing | |
"""


def test_parse_a_good_table() -> None:
    rows = parse_table(GOOD)
    assert [r.section for r in rows] == ["Surprise", "Initiative", "Initiative"]
    assert rows[0].tests == ("test_parse_a_good_table",)
    assert list(problems(rows, ["Surprise", "Initiative"])) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("`test_parse_a_good_table` |\n| Initiative | ties", "no test function"),
        ("| implemented | | `test_parse_a_good_table` |", "names the tests"),
        ("| reading | the text says PJ first |", "says why"),
        ("| not modelled |", "is not one of"),
    ],
)
def test_each_fault_of_a_table_is_reported(change: str, message: str) -> None:
    broken = {
        "`test_parse_a_good_table` |\n| Initiative | ties": (
            "`test_no_such_function` |\n| Initiative | ties"
        ),
        "| implemented | | `test_parse_a_good_table` |": "| implemented | | |",
        "| reading | the text says PJ first |": "| reading | |",
        "| not modelled |": "| unknown |",
    }[change]
    text = GOOD.replace(change, broken, 1)
    assert text != GOOD
    found = list(problems(parse_table(text), ["Surprise", "Initiative"]))
    assert any(message in p for p in found), found


def test_sections_are_walked_in_order_and_each_has_a_row() -> None:
    rows = parse_table(GOOD)
    assert any("an earlier one" in p for p in problems(rows, ["Initiative", "Surprise"]))
    assert any("not one of" in p for p in problems(rows, ["Surprise"]))
    assert any(
        "'Attaque' (entry 3) has no row" in p
        for p in problems(rows, ["Surprise", "Initiative", "Attaque"])
    )


def test_a_malformed_table_names_its_line() -> None:
    with pytest.raises(ValueError, match="line 5"):
        parse_table(GOOD.replace("| Section | Rule |", "| Section | Text |"))
    with pytest.raises(ValueError, match="last section"):
        parse_table(GOOD + "\n## After\n")
    with pytest.raises(ValueError, match="one '## Traceability"):
        parse_table("# Page\n")
