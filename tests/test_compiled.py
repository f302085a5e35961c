"""The optional compiled build (``hatch_build.py``): the engine's and RinKaNou's hot
modules compiled with mypyc, built here from this checkout. It must import every
compiled module, pass the whole test suite but for the few tests that cannot apply to
it (below), and write the pure build's bytes.

Building needs mypy, setuptools (the ``compile`` extra; the dev install has them) and a
C compiler; the build is kept in ``build/compiled`` until a source changes.

The compiled tree's run of the suite takes as long as the pure one, so it runs beside
it on the machine's other core: when this file's tests are collected, ``conftest.py``
starts :func:`start_suite` (this file run as a script: build the tree, then run the
suite in it) and puts this file's tests last, where they wait for it.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "compiled"
NOT_RUN = (
    "tests/test_compiled.py",  # this file
    "tests/test_bench.py",  # the benchmarks' runs, which build and time both builds
    "tests/test_docs.py",  # the docs' commands, which run make and the checkout
    "tests/test_packaging.py",  # builds the pure wheel from the checkout
)
"""Test files the compiled tree does not run (each runs the pure build on purpose)."""
SPIES = (
    "tests/test_policies.py::test_threats_and_incoming_are_what_the_foes_views_show",
    "tests/test_rinkanou_ps.py::test_the_settlement_reads_the_choices_the_planner_checked",
    "tests/test_rinkanou_ps.py::test_the_planner_looks_over_a_declaration_that_cannot_change_once",
)
"""Tests that spy on a method by replacing it (``monkeypatch``), which a compiled class
does not see: its compiled callers call the method itself."""


def _hatch_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SUITE: tuple[subprocess.Popen[bytes], IO[bytes]] | None = None
"""The compiled suite's run started by :func:`start_suite`, and the file it writes to."""


def start_suite() -> None:
    """Start building the tree and running the suite in it, in a process of its own
    (this file as a script), unless started already."""
    global _SUITE
    if _SUITE is None:
        out = tempfile.TemporaryFile()  # noqa: SIM115 (read by the tests, whenever they run)
        command = [sys.executable, "-P", str(Path(__file__).resolve())]
        _SUITE = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT), out


def _suite() -> tuple[int, str]:
    """The compiled suite's exit code and output, once it has finished."""
    start_suite()
    assert _SUITE is not None
    process, out = _SUITE
    process.wait()
    out.seek(0)
    output = out.read().decode(errors="replace")
    return process.returncode, output


@pytest.fixture(scope="module")
def tree() -> Path:
    _suite()  # it builds the tree first: one build, not two at once
    return Path(_hatch_build().compiled_tree(ROOT, TREE))


def _run(tree: Path, code: str, capture: bool = True) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter that imports segsim from the compiled tree (``-P``:
    not from the checkout it runs in); its output captured, or left to this process's."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, "-P", "-c", code], cwd=ROOT, env=env, capture_output=capture, text=True
    )


def test_the_compiled_tree_imports_every_compiled_module(tree: Path) -> None:
    modules = [m[: -len(".py")].replace("/", ".") for m in _hatch_build().COMPILED_MODULES]
    code = f"import importlib\nfor m in {modules!r}: print(importlib.import_module(m).__file__)"
    done = _run(tree, code)
    assert done.returncode == 0, done.stderr
    paths = [Path(line) for line in done.stdout.split()]
    assert len(paths) == len(modules) >= 15
    for path in paths:
        assert path.suffix == ".so" and path.is_relative_to(tree), path


def test_the_compiled_build_passes_the_test_suite(tree: Path) -> None:
    """The whole suite, in a process that imports segsim from the compiled tree."""
    code, output = _suite()
    assert code == 0, output[-8000:]
    assert " passed" in output and f"{len(SPIES)} deselected" in output
    assert "imported segsim from" in output and ".so" in output


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


def _main() -> int:
    """Build the compiled tree, then run the suite in a process that imports segsim from
    it (what :func:`start_suite` runs)."""
    tree = Path(_hatch_build().compiled_tree(ROOT, TREE))
    ignored = [f"--ignore={name}" for name in NOT_RUN]
    deselected = [f"--deselect={name}" for name in SPIES]
    code = (
        "import sys, pytest, segsim.fight as f\n"
        "assert f.__file__.endswith('.so'), f.__file__\n"
        "print('imported segsim from', f.__file__, flush=True)\n"
        "sys.exit(pytest.main(['-p', 'no:cacheprovider', 'tests', "
        f"*{ignored + deselected!r}]))\n"
    )
    return _run(tree, code, capture=False).returncode


if __name__ == "__main__":
    sys.exit(_main())
