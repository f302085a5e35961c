"""The shape of the code: the fight never imports its views or its record at load time,
and every module of the experiment and views packages imports on its own."""

from __future__ import annotations

import subprocess
import sys

import pytest

EXPERIMENT = [
    "backends",
    "design",
    "plots",
    "progress",
    "runner",
    "stats",
    "stops",
    "summary",
    "sweeps",
    "tables",
    "tournaments",
    "reports",
    "worker",
]
VIEWS = ["account", "style", "timeline", "text", "svg"]


def _fresh(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_fight_module_loads_without_its_views_or_record() -> None:
    out = _fresh(
        "import sys, segsim.fight\n"
        "print(sorted(m for m in sys.modules if m.startswith(('segsim.views', "
        "'segsim.record', 'segsim.timeline', 'segsim.experiment'))))"
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "module",
    [f"segsim.experiment.{m}" for m in EXPERIMENT] + [f"segsim.views.{m}" for m in VIEWS],
)
def test_each_module_imports_first(module: str) -> None:
    _fresh(f"import {module}")


def test_public_names_stay_where_users_found_them() -> None:
    import segsim.experiment as ex
    import segsim.timeline as old
    import segsim.views as views

    for name in ex.__all__:
        assert getattr(ex, name) is not None
    for name in old.__all__:
        assert getattr(old, name) is getattr(views, name)
