"""hatch_build.compiled_tree: one process or thread builds the compiled tree at a time;
another asking meanwhile waits and finds it made (the suite's compiled run and a
benchmark test used to build it at once, each removing the other's files)."""

from __future__ import annotations

import importlib.util
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _hatch_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("segsim_hatch_tree", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_builders_at_once_build_the_tree_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hatch = _hatch_build()
    root = tmp_path / "checkout"
    (root / "segsim").mkdir(parents=True)
    (root / "segsim" / "fight.py").write_text("X = 1\n")
    (root / "models").mkdir()
    builds: list[str] = []

    def compile_modules(root_: Path, target: Path) -> None:
        builds.append(threading.current_thread().name)
        time.sleep(0.3)  # long enough for the other builder to ask meanwhile
        assert (target / "segsim" / "fight.py").exists()  # nobody removed the copy

    monkeypatch.setattr(hatch, "compile_modules", compile_modules)
    target = tmp_path / "build" / "compiled"
    threads = [
        threading.Thread(target=hatch.compiled_tree, args=(root, target), name=f"b{i}")
        for i in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1
    assert (target / ".fingerprint").read_text() == hatch._fingerprint(root)
    (root / "segsim" / "fight.py").write_text("X = 2\n")  # a source changed: built again
    hatch.compiled_tree(root, target)
    assert len(builds) == 2
