"""segsim's optional compiled build: the engine's and the rulesets' hot modules
compiled with mypyc.

The pure-Python package is the default and what ``pip install segsim`` gives. Setting
``HATCH_BUILD_HOOK_ENABLE_CUSTOM=1`` while building a wheel (``pip install .`` from a
checkout or the source distribution) runs this build hook, which compiles
:data:`COMPILED_MODULES` with mypyc and puts the extension modules beside their sources
in the wheel; Python then imports the compiled ones. Records are the same bytes either
way (``tests/test_compiled.py``); docs/performance.md has the figures.

The tests and ``make bench`` use :func:`compiled_tree`: a copy of the package with the
compiled modules in place, made again only when a source has changed.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED_MODULES = (
    # the engine: declaration phases and settlements, the state, the clock, the
    # combatants' processes, who waits for what, the dice, the grids
    "segsim/fight.py",
    "segsim/state.py",
    "segsim/clock.py",
    "segsim/process.py",
    "segsim/sleepers.py",
    "segsim/dice.py",
    "segsim/spatial.py",
    # the events' base, the actions (one object from the plan to the record) and the
    # engine's events (a die's draw...), native classes (frozen, their __init__ written out)
    "segsim/eventbase.py",
    "segsim/actions.py",
    "segsim/events.py",
    # RinKaNou: the planner and observer, settlement, the difficulties the rules impose
    # (and the simultaneous-actions malus), situation points, views, the built-in
    # policies and their tactics, manoeuvres and missiles
    "segsim/rules/rinkanou/ruleset.py",
    "segsim/rules/rinkanou/settle.py",
    "segsim/rules/rinkanou/difficulty.py",
    "segsim/rules/rinkanou/situation.py",
    "segsim/rules/rinkanou/views.py",
    "segsim/rules/rinkanou/decisions.py",
    "segsim/rules/rinkanou/policies.py",
    "segsim/rules/rinkanou/tactics.py",
    "segsim/rules/rinkanou/manoeuvres.py",
    "segsim/rules/rinkanou/ranged.py",
    # ... and its events, native classes (frozen, their __init__ written out)
    "segsim/rules/rinkanou/events.py",
    # Rupture: the planner and its checks, the passe's slots, the settlement and its
    # tests, the fighters' sheets and status, the views and the built-in policies
    "segsim/rules/rupture/ruleset.py",
    "segsim/rules/rupture/declare.py",
    "segsim/rules/rupture/passe.py",
    "segsim/rules/rupture/settle.py",
    "segsim/rules/rupture/pool.py",
    "segsim/rules/rupture/content.py",
    "segsim/rules/rupture/status.py",
    "segsim/rules/rupture/views.py",
    "segsim/rules/rupture/policies.py",
    # Loss: the planner and observer, the declarations' checks, settlement, views and
    # the built-in policies
    "segsim/rules/loss/ruleset.py",
    "segsim/rules/loss/declare.py",
    "segsim/rules/loss/settle.py",
    "segsim/rules/loss/views.py",
    "segsim/rules/loss/policies.py",
    # Chroniques: the planner and observer, the rounds' bookkeeping, the declarations'
    # checks, the settlement and attacks, the views and the built-in policies
    "segsim/rules/chroniques/ruleset.py",
    "segsim/rules/chroniques/turns.py",
    "segsim/rules/chroniques/declare.py",
    "segsim/rules/chroniques/settle.py",
    "segsim/rules/chroniques/attack.py",
    "segsim/rules/chroniques/views.py",
    "segsim/rules/chroniques/policies.py",
    # Loreval: the planner and observer, the round's steps (and their tracker in large
    # fights), the declarations' checks, settlement, combat and attention arithmetic,
    # views and the built-in policies
    "segsim/rules/loreval/ruleset.py",
    "segsim/rules/loreval/status.py",
    "segsim/rules/loreval/rounds.py",
    "segsim/rules/loreval/steps.py",
    "segsim/rules/loreval/declare.py",
    "segsim/rules/loreval/settle.py",
    "segsim/rules/loreval/combat.py",
    "segsim/rules/loreval/attention.py",
    "segsim/rules/loreval/categories.py",
    "segsim/rules/loreval/views.py",
    "segsim/rules/loreval/policies.py",
)
"""The modules compiled (``segsim/native.py`` says what lets a module compile). The
rest stays pure Python: the other rulesets' events and the observations
(``observation.py``) are attrs and slotted Python classes whose methods read Python
objects' attributes, which compiled code reads no faster than the interpreter does
(compiling ``observation.py`` too made the engine alone some 8 % slower), RinKaNou's
``viewstores.py`` fills its views and observations, Python objects, which interpreted
code does faster (``segsim/native.py``), and the rest is not on a fight's hot path."""


_SETUP = """
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup
from distutils import ccompiler  # setuptools' own, once setuptools is imported
from mypyc.build import mypycify


def compile_in_parallel(self, sources, output_dir=None, macros=None, include_dirs=None,
                        debug=0, extra_preargs=None, extra_postargs=None, depends=None):
    # setuptools compiles one extension's C files in turn: here, one per core at once
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs)
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj):
        src, ext = build[obj]
        self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        list(pool.map(one, objects))
    return objects


ccompiler.CCompiler.compile = compile_in_parallel
build_lib, build_temp, *modules = sys.argv[1:]
setup(
    name="segsim-compiled",
    packages=[],
    py_modules=[],
    # multi_file: a C file per module (compiled side by side above), one extension for
    # all, so that the modules still call each other natively
    ext_modules=mypycify(modules, opt_level="3", debug_level="0", multi_file=True),
    script_args=["build_ext", "--build-lib", build_lib, "--build-temp", build_temp],
)
"""


def compile_modules(root: Path, build_lib: Path) -> list[Path]:
    """Compile :data:`COMPILED_MODULES` of the checkout at ``root`` with mypyc into
    ``build_lib`` (the package's layout); the extension files made, relative to it.
    Needs mypy, setuptools and a C compiler; a failure raises with mypyc's output."""
    build_lib.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temp:
        done = subprocess.run(
            [sys.executable, "-c", _SETUP, str(build_lib), temp, *COMPILED_MODULES],
            cwd=root,
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        raise RuntimeError(f"mypyc could not compile segsim:\n{done.stdout}\n{done.stderr}")
    return sorted(p.relative_to(build_lib) for p in build_lib.rglob("*.so"))


def _fingerprint(root: Path) -> str:
    """What a compiled tree depends on: every file of the package and of its content
    (``models/``), the compiled modules' list, and the interpreter and mypy that built it."""
    import mypy.version

    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{mypy.version.__version__}|{COMPILED_MODULES}|{_SETUP}".encode())
    for path in sorted([*(root / "segsim").rglob("*"), *(root / "models").rglob("*")]):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def compiled_tree(root: Path, target: Path) -> Path:
    """A copy of the package at ``target/segsim`` with the compiled modules beside their
    sources, for a process run with ``PYTHONPATH=target``; made again only when
    :func:`_fingerprint` has changed. Returns ``target``."""
    import fcntl  # the tests' and the benchmarks' tree: Unix only, as they are

    target.parent.mkdir(parents=True, exist_ok=True)
    # One process builds at a time: another asking meanwhile (the test suite's compiled
    # run and a benchmark test, say) waits, then finds the tree made.
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = target / ".fingerprint"
        wanted = _fingerprint(root)
        if stamp.exists() and stamp.read_text() == wanted:
            return target
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(root / "segsim", target / "segsim", ignore=shutil.ignore_patterns("*.so"))
        shutil.copytree(root / "models", target / "segsim" / "models")
        compile_modules(root, target)
        stamp.write_text(wanted)
        return target


class CompiledBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled modules to a wheel (never to an editable install)."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._temp = tempfile.mkdtemp(prefix="segsim-mypyc-")
        out = Path(self._temp)
        for ext in compile_modules(Path(self.root), out):
            build_data["force_include"][str(out / ext)] = str(ext)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        temp = getattr(self, "_temp", None)
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
