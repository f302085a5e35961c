"""The wheel ships models/ as package data, so pip users have the same content."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_models_and_py_typed(tmp_path: Path) -> None:
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run(
        [*pip, "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("segsim-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for model in (ROOT / "models").rglob("*.toml"):
        assert f"segsim/models/{model.relative_to(ROOT / 'models').as_posix()}" in names
    assert "segsim/py.typed" in names
    assert "segsim/schema/record-v2.schema.json" in names
    for page in ("gm.html", "player.html", "table.js", "table.css"):  # table mode's pages
        assert f"segsim/table/static/{page}" in names
    assert any(n.endswith("entry_points.txt") for n in names)


def test_models_dir_finds_the_checkout_models() -> None:
    from segsim.models import models_dir

    assert (models_dir() / "rinkanou" / "weapons.toml").is_file()
