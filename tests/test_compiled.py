"""The optional compiled build (``hatch_build.py``): the engine module compiled with
mypyc, built here from this checkout. It must import the compiled module, pass the
record, engine, embedding and outside-driven tests, and write the pure build's bytes.

Building needs mypy, setuptools (the ``compile`` extra; the dev install has them) and a
C compiler; the build is kept in ``build/compiled`` until a source changes.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "compiled"
SUITES = (
    "tests/test_golden_records.py",  # every example's records, byte for byte
    "tests/test_fight.py",
    "tests/test_embedding.py",
    "tests/test_envs.py",  # fights paused for external decisions (advance / submit)
)


def _hatch_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tree() -> Path:
    return Path(_hatch_build().compiled_tree(ROOT, TREE))


def _run(tree: Path, code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter that imports segsim from the compiled tree (``-P``:
    not from the checkout it runs in)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, "-P", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_the_compiled_tree_imports_its_compiled_engine(tree: Path) -> None:
    done = _run(tree, "import segsim.fight as f; print(f.__file__)")
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.suffix == ".so"
    assert path.is_relative_to(tree)


def test_the_compiled_build_passes_the_record_and_engine_tests(tree: Path) -> None:
    code = (
        "import sys, pytest, segsim.fight as f\n"
        "assert f.__file__.endswith('.so'), f.__file__\n"
        f"sys.exit(pytest.main(['-p', 'no:cacheprovider', *{list(SUITES)!r}]))\n"
    )
    done = _run(tree, code)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


BATTLE = """
import io, sys
from segsim.battle import line_battle
from segsim.record import write_record
fight = line_battle(10, seed=4, max_segments=300)
fight.run()
out = io.StringIO()
write_record(fight, out)
sys.stdout.write(out.getvalue())
"""


def test_a_battle_writes_the_same_bytes_in_both_builds(tree: Path) -> None:
    from segsim.battle import line_battle
    from segsim.record import write_record

    fight = line_battle(10, seed=4, max_segments=300)
    fight.run()
    pure = io.StringIO()
    write_record(fight, pure)
    done = _run(tree, BATTLE)
    assert done.returncode == 0, done.stderr
    assert len(pure.getvalue()) > 10_000  # a real battle, not an empty record
    assert done.stdout == pure.getvalue()
