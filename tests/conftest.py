from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED_TESTS = "tests/test_compiled.py::"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The compiled build's tests go last, and its run of the suite starts now, beside
    the rest (see tests/test_compiled.py)."""
    compiled = [item for item in items if item.nodeid.startswith(COMPILED_TESTS)]
    if compiled:
        items[:] = [item for item in items if not item.nodeid.startswith(COMPILED_TESTS)]
        items.extend(compiled)
        compiled[0].module.start_suite()  # type: ignore[attr-defined]


@pytest.fixture
def root() -> Path:
    return ROOT
