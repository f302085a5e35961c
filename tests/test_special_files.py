"""Only regular files are read (issue 39, item 7): a named pipe, a folder or a device
given as a scenario, script, record, rule list or content file is refused before anything
is read from it, with an error naming the file, never a wait (a pipe with no writer
blocks ``open`` forever) and never a traceback."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from segsim import InputError, load_scenario
from segsim.cli import main
from segsim.errors import RecordError, SegsimError
from segsim.experiment.design import ScenarioText
from segsim.policies import load_rule_list
from segsim.record import read_record
from segsim.rules.rinkanou.content import load_content
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def within(seconds: float, call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a thread: the error it raised, or a failure if it is still waiting
    after ``seconds`` (a daemon thread, so a blocked one does not hold the tests)."""
    caught: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:
            caught.append(exc)
        else:
            caught.append(None)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "still waiting on the file"
    return caught[0]


def fifo(folder: Path, name: str) -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


LOADERS: dict[str, Callable[[Path], Any]] = {
    "scenario": load_scenario,
    "script": lambda p: load_script(p, allow_outside=True),
    "record": read_record,
    "rule list": load_rule_list,
    "sweep scenario": ScenarioText.read,
}


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_a_named_pipe_is_refused_without_waiting(kind: str, tmp_path: Path) -> None:
    path = fifo(tmp_path, "input.toml")
    error = within(10, lambda: LOADERS[kind](path))
    assert isinstance(error, SegsimError), error
    assert "a named pipe, not a regular file" in str(error)
    assert str(path) in str(error)


@pytest.mark.parametrize("kind", ["scenario", "record"])
def test_a_folder_is_refused(kind: str, tmp_path: Path) -> None:
    error = within(10, lambda: LOADERS[kind](tmp_path))
    assert isinstance(error, InputError | RecordError)
    assert "a folder, not a regular file" in str(error)


def test_a_device_is_refused(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    error = within(10, lambda: load_scenario("/dev/zero"))
    assert isinstance(error, InputError)
    assert "a character device, not a regular file" in str(error)


def test_a_content_file_that_is_a_pipe_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "rinkanou"
    shutil.copytree(ROOT / "models" / "rinkanou", folder)
    (folder / "weapons.toml").unlink()
    os.mkfifo(folder / "weapons.toml")
    error = within(10, lambda: load_content(folder))
    assert isinstance(error, InputError)
    assert error.path.endswith("weapons.toml") and "named pipe" in error.message


def test_a_symbolic_link_to_a_pipe_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "duel.toml"
    link.symlink_to(fifo(tmp_path, "pipe"))
    error = within(10, lambda: load_scenario(link))
    assert isinstance(error, InputError) and "named pipe" in str(error)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "{p}"],
        ["run", "--script", "{p}"],
        ["replay", "{p}"],
        ["view", "{p}", "--html", "{o}"],
        ["timeline", "{p}"],
        ["sweep", "{p}"],
    ],
)
def test_the_command_refuses_a_pipe(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fifo(tmp_path, "input")
    codes: list[int] = []
    error = within(
        10, lambda: codes.append(main([a.format(p=path, o=tmp_path / "o.html") for a in args]))
    )
    assert error is None or (isinstance(error, SystemExit) and error.code == 2), error
    assert codes in ([2], [])
    assert "named pipe, not a regular file" in capsys.readouterr().err
