"""Rulesets behind one protocol, and their registry.

A ruleset is pure: it turns the fight state, a batch of completed actions and the dice
into events. It never touches SimPy; the engine applies the events it returns.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import attrs

from segsim.actions import Action, ActionSpec, Declaration
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration, SegsimError
from segsim.events import Event
from segsim.frozen import freeze

if TYPE_CHECKING:
    from segsim.input import Node
    from segsim.policy import Observation
    from segsim.state import FightState


T = TypeVar("T")

WAIT = Declaration("wait")
"""What a combatant with nothing to do declares (a value: one serves every time)."""


@attrs.frozen
class Outcome:
    """How a fight ended: ``result`` ("victory", "stalemate", "time limit"...) and winner."""

    result: str
    winner: str | None = None
    cause: str = ""  # why an interrupted fight was interrupted


class Ruleset(Protocol):
    """What the engine asks of a ruleset."""

    name: ClassVar[str]
    title: ClassVar[str]
    tick: int
    options: Mapping[str, Any]

    def load_sheet(self, node: Node) -> Any:
        """A validated character sheet from scenario or record data."""
        ...

    def sheet_data(self, sheet: Any) -> dict[str, Any]:
        """The full sheet as plain data (for the record header)."""
        ...

    def new_status(self, sheet: Any) -> Any:
        """Fresh mutable per-combatant state for a sheet."""
        ...

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        """Events of the start of the fight (segment 0)."""
        ...

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        """Actions the rules impose now, without asking the policy (a lock after a strike)."""
        ...

    def idle(self, state: FightState, cid: str, segment: int) -> Declaration:
        """What a combatant who must act does when its policy declares nothing."""
        ...

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        """Check a declaration and time it; raise IllegalDeclaration naming the rule."""
        ...

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        """Raise IllegalDeclaration if the ruleset forbids cancelling this action now."""
        ...

    def order_key(self, action: Action) -> tuple[Any, ...]:
        """Order of simultaneous completions (the engine adds fighter order, then id)."""
        ...

    def due(self, state: FightState, time: int) -> Sequence[str]:
        """Combatants the rules call to declare at the segment beginning at ``time``
        although none of their actions completed there (the next fighter in a turn order).

        Asked after every settlement; they are called whatever their policy's reactivity.
        """
        ...

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        """Settle every action completing in ``segment`` together."""
        ...

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        """The frozen view one combatant decides from."""
        ...

    def outcome(self, state: FightState) -> Outcome | None:
        """None while the fight goes on."""
        ...


class BaseRuleset:
    """Defaults shared by rulesets: the fight ends when one side is left."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    tick: int = 1
    options: Mapping[str, Any]
    started_kinds: ClassVar[frozenset[str]] = frozenset()
    """The kinds of action whose start the ruleset is told of (:meth:`started`)."""

    def started(self, state: FightState, action: Action) -> None:
        """An action of one of :attr:`started_kinds` has just started (it is in its
        fighter's actions): a ruleset may note what that changes for the fight. Only
        what a fight did reaches the state, never what a declaration only planned."""

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        return []

    def idle(self, state: FightState, cid: str, segment: int) -> Declaration:
        return WAIT

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        if action.continuous:
            raise IllegalDeclaration(
                f"{action.kind} #{action.id} is continuous: declare something else instead",
                rule="cancellation",
            )

    def order_key(self, action: Action) -> tuple[Any, ...]:
        return ()

    def due(self, state: FightState, time: int) -> Sequence[str]:
        return ()

    def outcome(self, state: FightState) -> Outcome | None:
        sides = state.sides_in_fight()
        if len(sides) > 1:
            return None
        if not sides:
            return Outcome("all out", None)
        return Outcome("victory", sides[0])


class UnknownRuleset(SegsimError):
    pass


_RULESETS: dict[str, str] = {
    "rinkanou": "segsim.rules.rinkanou:RinKaNou",
    "chroniques": "segsim.rules.chroniques:Chroniques",
    "rupture": "segsim.rules.rupture:Rupture",
    "loss": "segsim.rules.loss:Loss",
    "loreval": "segsim.rules.loreval:Loreval",
}


def ruleset_names() -> list[str]:
    return sorted(_RULESETS)


def ruleset_class(name: str) -> type[Any]:
    """The ruleset class registered under ``name`` (in any case: ``RinKaNou`` as the
    docs write it is ``rinkanou``)."""
    path = _RULESETS.get(name) or _RULESETS.get(name.lower())
    if path is None:
        raise UnknownRuleset(f"unknown ruleset {name!r} (known: {', '.join(ruleset_names())})")
    module_name, _, attr = path.partition(":")
    cls: type[Any] = getattr(importlib.import_module(module_name), attr)
    return cls


_BAD_KEYWORD = re.compile(
    r"unexpected keyword argument '(?P<a>[^']*)'|'(?P<b>[^']*)' is an invalid keyword argument"
)
"""An unknown keyword in CPython's words and in a compiled class's (mypyc's)."""


def get_ruleset(name: str, options: Mapping[str, Any] | None = None) -> Any:
    """A ruleset instance with its options (unknown options are an error, worded the
    same whether the ruleset's class is compiled or not)."""
    cls = ruleset_class(name)
    try:
        return cls(**dict(options or {}))
    except TypeError as exc:
        found = _BAD_KEYWORD.search(str(exc))
        if found is None:
            raise
        option = found.group("a") or found.group("b")
        raise TypeError(
            f"{cls.__name__} got an unexpected keyword argument {option!r} "
            f"(not an option of the {cls.name} ruleset)"
        ) from None


def unknown_params(kind: str, given: Iterable[str], accepted: Collection[str]) -> None:
    """Refuse a declaration's parameters that its kind does not take, naming them and
    listing those it takes (every ruleset checks every declaration this way)."""
    from segsim.actions import no_such_parameter

    unknown = [str(p) for p in given if p not in accepted]
    if unknown:
        raise IllegalDeclaration(no_such_parameter(kind, unknown, accepted), rule="declarations")


def untargeted(d: Declaration, accepted: Collection[str]) -> None:
    """Refuse a target on a declaration whose kind takes none (a wait, a delay...)."""
    if d.target is not None:
        takes = ", ".join(sorted(accepted)) or "no parameter"
        raise IllegalDeclaration(
            f"{d.kind} takes no target, not {d.target!r} (it takes: {takes})",
            rule="declarations",
        )


def known_target(state: FightState, d: Declaration) -> None:
    """Refuse a target that is no fighter of the fight (where a kind may take one)."""
    if d.target is not None and d.target not in state.combatants:
        raise IllegalDeclaration(
            f"{d.kind}: no fighter {d.target!r} in the fight", rule="declarations"
        )


PYTHON_ONLY_OPTIONS = ("content",)
"""Ruleset options only Python may give (objects, not data): a data file naming one
is refused at that field."""


def ruleset_from_data(root: Node, head: Node) -> Any:
    """The ruleset a data file's ``ruleset`` (in ``head``) and ``[options]`` (in
    ``root``) name: a scenario, a fight script, a record header. Errors name the file,
    line and field."""
    name = head.value("ruleset", str)
    options = root.table("options", {})
    for key in PYTHON_ONLY_OPTIONS:
        if options.has(key):
            raise options.error(
                key, f"{key} is given in Python ({name} ruleset's {key}=...), not by a data file"
            )
    try:
        return get_ruleset(name, dict(options.items()))
    except UnknownRuleset:
        known = ", ".join(ruleset_names())
        raise head.error("ruleset", f"unknown ruleset {name!r} (known: {known})") from None
    except (TypeError, ValueError) as exc:
        raise root.error("options", f"bad ruleset options: {exc}") from None


def is_distance(value: object) -> bool:
    """Whether ``value`` is a distance in metres a ruleset option may hold (``awareness``):
    a finite number above 0, not a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf


def given_content(content: Any, kind: type[T], default: Callable[[], T]) -> T:
    """A ruleset's ``content`` option: the shipped models when None, else content of
    the ruleset's own type (loaded in Python), never anything else."""
    if content is None:
        return freeze(default())
    if not isinstance(content, kind):
        raise TypeError(
            f"content is the ruleset's {kind.__name__} (loaded in Python), not {content!r}"
        )
    return freeze(content)  # shared by every fight: nothing may change it


def frozen_sheet(ruleset: Any, node: Any) -> Any:
    """A fighter's sheet read from data (``ruleset.load_sheet``), made immutable
    (:func:`segsim.frozen.freeze`): a sheet is shared by the fights of a scenario, a
    sweep's arms, and read by rule lists."""
    return freeze(ruleset.load_sheet(node))


def register_ruleset(name: str, path: str) -> None:
    """Register a ruleset class by ``module:Class`` path (for third-party rulesets)."""
    _RULESETS[name] = path
