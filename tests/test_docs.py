"""Documentation is code: every shell command and Python block of README.md and docs/,
and the commands in each example's header, run in a scratch folder, and their output is
checked where the page shows it.

How a page is read (the conventions are also in docs/cli.md, "Documentation that runs"):

* Fenced blocks carry a language. ``sh`` blocks are commands, one per line (a trailing
  ``\\`` continues it); comment lines right after a command are its expected output.
  ``python`` blocks of a page run in order as one script (later blocks use what earlier
  ones defined); comment lines that end a block are its expected output. ``toml``
  blocks are loaded as what they are (a scenario, a fight script, a rule list) and
  ``json`` blocks must be record lines. ``text`` blocks are not run.
* In expected output, a line ``...`` stands for any number of lines, and ``...``
  within a line for any text.
* An HTML comment on the line before a block changes how it runs, visibly in the page
  source: ``<!-- docs-test: skip (why) -->`` (a fragment, not run),
  ``<!-- docs-test: replace "A" "B" -->`` (run it with A replaced by B: a smaller
  number of fights, say).
* ``make demo`` runs the demo's own command from the Makefile; ``make test`` is this
  suite and is not run again.

Each page gets its own scratch folder holding a copy of ``examples/``; its blocks run
in it in order, so a record written by one command is there for the next.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
import structlog

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLES = [
    *sorted((ROOT / "examples").glob("*.py")),
    *sorted((ROOT / "examples").rglob("*.toml")),
]
RUN = ("sh", "python", "toml", "json")
NOT_RUN = ("text",)
MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->$")
TIMEOUT = 300


@attrs.frozen
class Block:
    """A fenced block of a page: its language, text, first line and marker."""

    page: Path
    line: int  # the line of its first content line
    lang: str
    text: str
    marker: str = ""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def replaced(self) -> str:
        """The text as run: with the marker's replacements made."""
        text = self.text
        for old, new in re.findall(r'replace\s+"([^"]*)"\s+"([^"]*)"', self.marker):
            assert old in text, f"{self.where}: the marker replaces {old!r}, not in the block"
            text = text.replace(old, new)
        return text

    @property
    def skipped(self) -> bool:
        return self.marker.startswith("skip")


def blocks_of(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^(\s*)```(.*)$", lines[i])
        if fence is None:
            i += 1
            continue
        lang = fence.group(2).strip()
        start = i + 1
        end = next(j for j in range(start, len(lines)) if lines[j].strip() == "```")
        before = lines[i - 1].strip() if i > 0 else ""
        marked = MARKER.match(before)
        indent = len(fence.group(1))
        text = "\n".join(line[indent:] for line in lines[start:end]) + "\n"
        out.append(Block(page, start + 1, lang, text, marked.group(1) if marked else ""))
        i = end + 1
    return out


# ---------------------------------------------------------------- expected output


def expected_matches(expected: list[str], actual: str) -> bool:
    """Whether the output matches the lines shown: ``...`` lines and ``...`` in a line
    are wildcards; trailing spaces do not count."""
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            pieces = [re.escape(p) for p in line.rstrip().split("...")]
            parts.append("[^\n]*".join(pieces) + r"\n")
    text = "".join(line.rstrip() + "\n" for line in actual.splitlines())
    return re.fullmatch("".join(parts), text) is not None


def comment_output(lines: list[str]) -> list[str]:
    """``# text`` lines as the text they show (``#`` alone is an empty line)."""
    return [line[2:] if line.startswith("# ") else line[1:] for line in lines]


# ---------------------------------------------------------------- running


def scratch(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    folder = tmp_path_factory.mktemp(re.sub(r"\W", "_", name))
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env.pop("PYTHONSTARTUP", None)
    return env


def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def demo_command() -> str:
    """What ``make demo`` runs once segsim is installed (the recipe's last line)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe is not None, "the Makefile has no demo recipe"
    return recipe.group(1).strip().splitlines()[-1].strip().replace("$(BIN)/", "")


def shell_commands(text: str) -> Iterator[tuple[str, list[str]]]:
    """(command, expected output lines) for each command of an ``sh`` block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        command = line
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        shown = []
        while i < len(lines) and lines[i].startswith("#"):
            shown.append(lines[i])
            i += 1
        yield command.strip(), comment_output(shown)


def run_segsim(words: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A plain ``segsim ...`` command, through the command's own entry point in this
    process (what the ``segsim`` script calls), without an interpreter's start-up."""
    from segsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(words[1:])
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        os.chdir(here)
        structlog.reset_defaults()
    return subprocess.CompletedProcess(words, code, out.getvalue(), err.getvalue())


def check_command(command: str, shown: list[str], cwd: Path, where: str) -> None:
    words = shlex.split(command, comments=True)
    if words == ["make", "test"]:
        return  # this very suite
    if words == ["make", "demo"]:
        command = demo_command()
        words = shlex.split(command)
    if words[0] == "segsim" and not re.search(r"[|<>;&$`]", command.split("#")[0]):
        done = run_segsim(words, cwd)
    else:
        done = run_shell(command, cwd)
    report = f"{where}: `{command}` exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, report
    assert "Traceback" not in done.stderr, report
    if shown:
        assert expected_matches(shown, done.stdout), (
            f"{where}: `{command}` printed\n{done.stdout}\nwhere the page shows\n"
            + "\n".join(shown)
        )


def python_output(text: str) -> list[str]:
    """The comment lines that end a Python block: what it prints."""
    lines = text.rstrip("\n").splitlines()
    shown: list[str] = []
    while lines and lines[-1].startswith("#"):
        shown.insert(0, lines.pop())
    return comment_output(shown)


SENTINEL = "<<docs-test: block {} done>>"


def run_python(blocks: list[Block], cwd: Path) -> None:
    """A page's Python blocks, in order, as one script; each block's output checked."""
    parts = []
    for n, block in enumerate(blocks):
        parts.append(f"# ---- {block.where}\n{block.replaced()}")
        parts.append(f'if __name__ == "__main__":\n    print({SENTINEL.format(n)!r}, flush=True)\n')
    script = cwd / "docs_blocks.py"
    script.write_text("\n".join(parts), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, script.name],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    outputs = re.split(r"<<docs-test: block \d+ done>>\n", done.stdout)
    finished = len(outputs) - 1
    failing = blocks[min(finished, len(blocks) - 1)]
    assert done.returncode == 0, f"{failing.where}: the block fails:\n{done.stderr[-3000:]}"
    for block, out in zip(blocks, outputs, strict=False):
        shown = python_output(block.text)
        if shown:
            assert expected_matches(shown, out), (
                f"{block.where}: the block printed\n{out}\nwhere the page shows\n"
                + "\n".join(shown)
            )


def check_toml(block: Block, cwd: Path) -> None:
    """A TOML block is a scenario, a fight script or a rule list: load (and play) it."""
    import tomllib

    from segsim.policies import load_rule_list
    from segsim.scenario import load_scenario
    from segsim.script import load_script

    text = block.replaced()
    data = tomllib.loads(text)
    # Paths in a block are relative to the examples' folders, as in the files it shows.
    folder = cwd / "examples" / ("scripts" if "segment" in data else "scenarios")
    path = folder / f"doc-block-{block.line}.toml"
    path.write_text(text, encoding="utf-8")
    if "segment" in data or "dice" in data:
        fight = load_script(path).play()
        assert fight.history[-1].TYPE == "end"
    elif "rule" in data:
        load_rule_list(path)
    elif "combatant" in data:
        load_scenario(path).fight().run()
    else:  # pragma: no cover - the pages have no other kind
        pytest.fail(f"{block.where}: a TOML block of an unknown kind")


def check_json(block: Block) -> None:
    """A JSON block is a record line: an event with its common fields."""
    from segsim.record import Line, check_event

    event = json.loads(block.text)
    check_event(event, Line(str(block.page), block.line, block.text.strip()))


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs(page: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    blocks = blocks_of(page)
    for block in blocks:
        assert block.lang in RUN + NOT_RUN, (
            f"{block.where}: give the block a language ({', '.join(RUN + NOT_RUN)})"
        )
    cwd = scratch(tmp_path_factory, page.stem)
    python: list[Block] = []
    for block in blocks:
        if block.skipped or block.lang in NOT_RUN:
            continue
        if block.lang == "sh":
            for command, shown in shell_commands(block.replaced()):
                check_command(command, shown, cwd, block.where)
        elif block.lang == "python":
            python.append(block)
        elif block.lang == "toml":
            check_toml(block, cwd)
        else:
            check_json(block)
    if python:
        run_python(python, cwd)


def test_fragments_are_few_and_say_why() -> None:
    """Skipping is for deliberate fragments only, each with its reason."""
    skipped = [b for page in PAGES for b in blocks_of(page) if b.skipped]
    for block in skipped:
        assert re.match(r"skip\s*\(.+\)$", block.marker), (
            f"{block.where}: say why the block is skipped: <!-- docs-test: skip (why) -->"
        )
    assert len(skipped) <= 3, [b.where for b in skipped]


def test_the_readme_quick_start_is_two_commands() -> None:
    quick = blocks_of(ROOT / "README.md")[0]
    commands = [shlex.split(c, comments=True) for c, _ in shell_commands(quick.text)]
    assert commands == [["make", "demo"], ["make", "test"]]


def test_the_readme_says_where_the_command_is() -> None:
    """After `make demo`, `segsim` is in the virtual environment, not on the PATH."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start") : readme.index("## In Python")]
    assert ".venv/bin/segsim" in quick and ". .venv/bin/activate" in quick
    assert "VENV := .venv" in (ROOT / "Makefile").read_text(encoding="utf-8")


def header_commands(path: Path) -> list[str]:
    """The commands an example's header gives: the module docstring of a Python example,
    the leading comment of a TOML file; a header line ``docs-test: replace "A" "B"``
    runs them with A replaced by B."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        match = re.match(r'\s*"""(.*?)"""', text, re.S)
        header = match.group(1).splitlines() if match else []
    else:
        header = []
        for line in text.splitlines():
            if not line.startswith("#"):
                break
            header.append(line.lstrip("#"))
    commands: list[str] = []
    pending = ""
    replacements = []
    for raw in header:
        line = raw.strip()
        if line.startswith("docs-test:"):
            replacements += re.findall(r'replace\s+"([^"]*)"\s+"([^"]*)"', line)
            continue
        if pending:
            pending += " " + line.rstrip("\\").strip()
            if not line.endswith("\\"):
                commands.append(pending)
                pending = ""
            continue
        if re.match(r"^(segsim|python) \S", line):
            if line.endswith("\\"):
                pending = line.rstrip("\\").strip()
            else:
                commands.append(line)
    for old, new in replacements:
        assert any(old in c for c in commands), f"{path.name}: nothing to replace {old!r} in"
        commands = [c.replace(old, new) for c in commands]
    return commands


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_header_command_runs(
    path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commands = header_commands(path)
    if not commands:
        return
    cwd = scratch(tmp_path_factory, path.stem)
    for command in commands:
        assert "[" not in command, f"{path.name}: `{command}` is not a command to run as is"
        check_command(command, [], cwd, str(path.relative_to(ROOT)))


def test_the_conventions_hold_on_a_small_page(tmp_path: Path) -> None:
    """The reader of pages itself: markers, expected output and wildcards."""
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```sh\nsegsim --version\n# segsim ...\n```\n\n"
        '<!-- docs-test: replace "41" "1" -->\n```python\nprint(41)\n# 1\n```\n\n'
        "<!-- docs-test: skip (a fragment) -->\n```python\nfight.run(\n```\n",
        encoding="utf-8",
    )
    blocks = blocks_of(page)
    assert [(b.lang, b.line, b.skipped) for b in blocks] == [
        ("sh", 4, False),
        ("python", 10, False),
        ("python", 16, True),
    ]
    assert list(shell_commands(blocks[0].text)) == [("segsim --version", ["segsim ..."])]
    assert blocks[1].replaced() == "print(1)\n# 1\n"
    assert python_output(blocks[1].replaced()) == ["1"]
    assert expected_matches(["a", "...", "z ... end"], "a\nb\nc\nz and the end\n")
    assert not expected_matches(["a", "z"], "a\nb\nz\n")
    assert expected_matches(["a", "..."], "a\n")
