"""What lets a module of segsim compile with mypyc (the optional compiled build,
``hatch_build.py``) and still behave as the pure module does.

* :func:`field`: mypyc checks the value a class body assigns against the annotation
  when it knows the value's type, and attrs' ``field()`` is typed as the value it
  describes, not as the marker it returns, so ``x: dict[str, int] =
  attrs.field(factory=dict)`` fails when a compiled module makes its class. This is
  ``attrs.field`` typed ``Any``, which mypyc leaves alone (mypy's attrs plugin then
  reads it as a plain default, so it is for fields that only need a factory).
* :func:`mypyc_attr` (mypy_extensions' own, for mypy and mypyc; a stand-in that
  changes nothing at run time): a native class cannot be subclassed by a Python class
  unless it says ``@mypyc_attr(allow_interpreted_subclasses=True)``, which every public
  class of a compiled module says (users and other rulesets derive from them).
* :func:`python_class`: mypyc makes a class of a compiled module a native class, which
  cannot have ``__slots__`` naming ``__dict__`` nor derive from a Python class with
  slots, unless a decorator it does not know is applied. This one changes nothing and
  keeps the class a Python class (its methods are still compiled).
* A class whose fields compiled code reads on every action compiles to a native
  class: a plain class (``Combatant``, ``FightState``), or an attrs class made with
  ``attr.s(auto_attribs=True, slots=True)``, the one form of attrs mypyc makes native
  (``Event``, ``Action``). Of what attrs makes, the native class keeps only the fields'
  description and ``__init__`` (the rest stays on attrs' slotted copy, which the build
  drops), so such a class writes its own ``__eq__`` and ``__repr__`` where it needs
  them, and its own ``__init__`` to be built natively (``Action``); its class
  constants are on a plain base class or set after the class statement
  (``EventClass``, ``Action.TYPE``), and so is a hook attrs calls on a class of its
  own making (``__attrs_init_subclass__``). A native subclass cannot change an
  inherited field's type, hence ``Event.actor: Any``. A mutable one (RinKaNou's
  ``Status``) gets attrs' equality and repr back from :func:`attrs_dunders`; compiled
  code reads and writes its fields directly only where it is typed with the class
  (``status: Status = c.status``), not through a name typed ``Any``.
* An event class of a compiled module (RinKaNou's ``events.py``) must be native too:
  mypyc refuses a Python class, which ``attrs.frozen`` makes, deriving from the native
  ``Event``. It is ``attr.s(auto_attribs=True, slots=True, frozen=True, init=False)``
  with its ``__init__`` written out in attrs' order, each field stored by
  ``object.__setattr__`` (which compiled code turns into a direct store, and which a
  pure frozen class allows), and named after the class by
  :func:`segsim.eventbase.event_type` (its ``TYPE`` cannot be in the body): in the pure
  build that gives it :func:`~segsim.eventbase.slot_init`'s ``__init__``, as any frozen
  event; in the compiled build, what the build drops of attrs' class: frozenness (a
  ``__setattr__`` and ``__delattr__`` raising ``FrozenInstanceError``, which compiled
  code's own stores bypass), equality, hash and repr. Its fields keep their types but
  for those a record gives back in another type (a tuple read back as a list), typed
  ``Any``; a field annotated ``float`` becomes one, so it must be given floats only.
* Compiled code reads and writes a Python object's field through the generic attribute
  lookup, where the interpreter specialises each access to the field's slot, and
  interpreted code reads a native object's field through that lookup too. So a function
  that does little but fill Python objects (RinKaNou's view of the deciding fighter and
  its observation, at every observation) is better left interpreted, its compiled
  caller reading what it stores from native objects and passing it
  (``segsim/rules/rinkanou/viewstores.py``, which ``hatch_build.py`` leaves out of its
  modules on purpose); and a native class held in a
  variable (a maker) is called as a Python object, its arguments parsed, where a
  compiled function calling its constructor is called directly
  (``segsim.events.die_rolled``).
* Compiled code checks the type of every value it reads into a typed name, so input
  not yet checked (a policy's declarations) is read as ``Any`` or ``object`` until
  segsim's own check has named what is wrong with it.
* A compiled module reads the annotations of a Python class when it makes the class,
  so the names they use are imported at run time, not under ``TYPE_CHECKING``; and it
  annotates every name the class body assigns, a ``ClassVar`` as its bare type, so an
  attrs class in a compiled module gets its class constants after the class statement
  (attrs would take them for fields).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

C = TypeVar("C", bound=type)

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*names: str, **values: object) -> Callable[[C], C]:
        """What ``mypyc_attr`` is at run time: mypyc reads the decorator when it
        compiles a module, and a pure module's class is left as it is."""
        return lambda cls: cls


def field(**kwargs: Any) -> Any:
    """``attrs.field(**kwargs)``, typed ``Any`` (see the module's docstring)."""
    return attrs.field(**kwargs)


def python_class(cls: C) -> C:
    """Keeps ``cls`` a Python class when its module is compiled (see the module's
    docstring); returns it unchanged."""
    return cls


_DUNDERS = """
def __eq__(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return values(self) == values(other)

def __repr__(self):
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{self.__class__.__qualname__}({shown})"
"""


def attrs_dunders(cls: C) -> None:
    """Give ``cls``, a mutable ``attr.s(auto_attribs=True, slots=True, init=False)``
    class with its ``__init__`` written out, what the compiled build drops of attrs'
    class when it makes it native: equality by its fields, no hash (as attrs' equality
    leaves it) and attrs' repr (``Status(armed=False, ...)``). The pure build's class
    (its ``__init__`` a Python function) has attrs' own, and is left as it is."""
    if isinstance(vars(cls).get("__init__"), types.FunctionType):
        return
    names = tuple(f.name for f in attrs.fields(cls))

    def values(obj: Any) -> tuple[Any, ...]:
        return tuple([getattr(obj, name) for name in names])

    scope: dict[str, Any] = {"values": values, "names": names}
    exec(compile(_DUNDERS, f"<native attrs {cls.__qualname__}>", "exec"), scope)
    setattr(cls, "__eq__", scope["__eq__"])  # noqa: B010
    setattr(cls, "__repr__", scope["__repr__"])  # noqa: B010
    setattr(cls, "__hash__", None)  # noqa: B010
