"""What lets a module compile with mypyc (``segsim/native.py``) changes nothing in the
pure build, and ``segsim content`` finds a compiled class's docstring in its source."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import attrs
import pytest

from segsim.content import class_doc
from segsim.native import field, mypyc_attr, python_class


def test_field_is_attrs_field() -> None:
    @attrs.define
    class Kept:
        n: int
        items: list[int] = field(factory=list)
        hidden: int = field(default=3, init=False, repr=False)

    a, b = Kept(1), Kept(2)
    a.items.append(1)
    assert b.items == [] and a.items == [1]  # a list of its own each
    assert a.hidden == 3 and "hidden" not in repr(a)
    with pytest.raises(TypeError):
        Kept(1, [], 4)  # type: ignore[call-arg]  # init=False, as attrs.field says


def test_the_decorators_return_the_class_unchanged() -> None:
    class Plain:
        """A class."""

    assert python_class(Plain) is Plain
    assert mypyc_attr(allow_interpreted_subclasses=True)(Plain) is Plain
    assert Plain.__doc__ == "A class."


def test_a_pure_class_keeps_its_docstring() -> None:
    class Documented:
        """Documented here."""

    class Bare:
        pass

    assert class_doc(Documented) == "Documented here."
    assert class_doc(Bare) is None


def test_a_class_of_a_module_without_a_file_keeps_its_docstring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A policy defined in an interactive session or ``python -c``."""
    monkeypatch.setitem(sys.modules, "typed_in", types.ModuleType("typed_in"))
    Typed = type("Typed", (), {"__module__": "typed_in", "__doc__": "Typed in."})
    assert class_doc(Typed) == "Typed in."
    assert class_doc(type("Untyped", (), {"__module__": "nowhere"})) is None


def test_a_compiled_class_docstring_is_read_from_the_source_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "shipped.py").write_text(
        'class Keeper:\n    """Keeps its distance.\n\n    More."""\n\n\nclass Other:\n    pass\n'
    )
    module = types.ModuleType("shipped")
    module.__file__ = str(tmp_path / "shipped.cpython-311-x86_64-linux-gnu.so")
    monkeypatch.setitem(sys.modules, "shipped", module)
    Keeper = type("Keeper", (), {"__module__": "shipped", "__doc__": ""})  # as mypyc leaves it
    Other = type("Other", (), {"__module__": "shipped"})
    Missing = type("Missing", (), {"__module__": "shipped"})
    assert class_doc(Keeper) == "Keeps its distance.\n\nMore."
    assert class_doc(Other) is None and class_doc(Missing) is None
    module.__file__ = str(tmp_path / "gone.cpython-311-x86_64-linux-gnu.so")  # no source
    assert class_doc(type("Keeper", (), {"__module__": "shipped"})) is None
