"""Set-up and repository (issue 40): the README says what ``make test`` costs (its time,
and the Chromium it installs with apt-get unless told where one is), as the Makefile
does it; and the files the commands of README.md, docs/ and the examples write, run from
the repository's root as the pages say (out.jsonl, what-if.jsonl, out.svg,
duel.jsonl...), are ignored by git, so trying the docs leaves a clean ``git status``."""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_docs import EXAMPLES, PAGES

ROOT = Path(__file__).resolve().parent.parent
OPTION = re.compile(r"--(?:record|records|svg|html|report|table|plot)[ =]([^\s`)\]'\"]+)")
LITERAL = re.compile(r'"([^"\s{}]+\.(?:jsonl|svg|html|png|csv|parquet))"')


def written() -> dict[str, str]:
    """Each output path a page or an example names, with where it is named: the value
    of an output option (``--record out.jsonl``) or a file name in quotes
    (``write_record(fight, "duel.jsonl")``). Placeholders (``OUT``, ``DIR``) and
    absolute paths are left out."""
    found: dict[str, str] = {}
    for path in [*PAGES, *EXAMPLES]:
        text = path.read_text(encoding="utf-8")
        for match in [*OPTION.finditer(text), *LITERAL.finditer(text)]:
            name = match.group(1)
            if name.startswith("/") or Path(name).stem.isupper():
                continue
            found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def ignored(name: str) -> bool:
    """Whether git ignores ``name`` (a file, or a folder's files) at the root."""
    probe = f"{name}/x.jsonl" if "." not in Path(name).name else name
    if shutil.which("git") and (ROOT / ".git").exists():
        done = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", probe], cwd=ROOT, check=False
        )
        return done.returncode == 0
    patterns = [
        line.strip()
        for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for pattern in patterns:
        anchored = pattern.startswith("/")
        body = pattern.strip("/")
        parts = probe.split("/")
        if pattern.endswith("/") and len(parts) > 1 and fnmatch.fnmatch(parts[0], body):
            return True
        if anchored and probe.count("/") == body.count("/") and fnmatch.fnmatch(probe, body):
            return True
        if not anchored and "/" not in body and fnmatch.fnmatch(parts[-1], body):
            return True
    return False


def test_the_docs_name_the_files_the_issue_lists() -> None:
    names = written()
    for name in ("out.jsonl", "what-if.jsonl", "table.jsonl", "out.svg", "duel.jsonl"):
        assert name in names


@pytest.mark.parametrize("name", sorted(written()))
def test_every_file_the_docs_write_is_ignored_by_git(name: str) -> None:
    assert ignored(name), f"{name} (written by {written()[name]}) is not in .gitignore"


def test_the_sources_are_not_ignored() -> None:
    for tracked in ("README.md", "examples/scenarios/duel.toml", "docs/images", "tests/golden"):
        assert not ignored(tracked if "." in Path(tracked).name else f"{tracked}/a.svg")


def test_the_readme_says_what_make_test_takes_and_how_to_avoid_installing_chromium() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start") : readme.index("## In Python")]
    assert "`make test` takes about ten minutes" in quick
    assert "`apt-get install chromium`" in quick and "`browser` target" in quick
    assert "`SEGSIM_CHROMIUM=/path/to/chrome make test`" in quick
    # What the README says is what the Makefile does: the browser target runs before
    # the tests, installs with apt-get, and does nothing when SEGSIM_CHROMIUM is set.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^browser:\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe is not None
    assert "apt-get install -y -q chromium" in recipe.group(1)
    assert '[ -n "$$SEGSIM_CHROMIUM" ]; then :;' in recipe.group(1)
    assert re.search(r"^test: .*\bbrowser\b", makefile, re.M)


def test_each_make_target_installs_segsim_with_its_whole_list_of_extras() -> None:
    """`make demo`, `make test` and `make bench` install segsim with their extras; a
    comma written inside make's $(call ...) splits the argument, and `make bench` once
    ran `pip install -e '.[compile'` and failed. Printed with -n (nothing runs), -B
    (every stamp taken as out of date)."""
    stamps = [".venv/.installed-core", ".venv/.installed", ".venv/.installed-bench"]
    printed = subprocess.run(
        ["make", "-n", "-B", "-C", str(ROOT), *stamps],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installs = re.findall(r"pip install --quiet -e '([^']*)'", printed)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    extras = dict(re.findall(r"^(TEST|BENCH)_EXTRAS := (\S+)$", makefile, re.MULTILINE))
    assert installs == [".", f".{extras['TEST']}", f".{extras['BENCH']}"]
    assert extras["BENCH"] == "[compile,table]" and "optimize" in extras["TEST"]
