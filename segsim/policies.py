"""Generic policies for every ruleset: random legal choices, a fixed list of
declarations, and rule lists ("condition -> action", first match wins).

* :class:`RandomLegal` (``"random"``) picks uniformly among ``observation.legal()``. Its
  generator is derived from the fight's seed and the combatant's id (the fight calls
  :meth:`RandomLegal.bind` before the first decision), and it draws only
  ``random.Random.random()``, so the same seed and policies give the same record on
  every machine. It never touches the global ``random`` state or the fight's dice.
* :class:`ScriptedPolicy` declares the next entry of a list each time it must act.
* :class:`RuleList` checks its rules in order and declares what the first one whose
  condition holds says. Rules are written in Python (:class:`Rule` with callables) or
  in TOML (:func:`load_rule_list`), where conditions and computed parameters are small
  expressions over the observation (``me.armed and in_reach(target)``), checked when
  the file is loaded.

``"random"`` is registered for every ruleset; a rule-list file is named in experiments
by its path (``--policy red=examples/policies/striker.toml``).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import CodeType
from typing import Any

import attrs

from segsim.actions import Cancel, Declaration, DeclarationLike, PolicyOutput
from segsim.errors import InputError, SegsimError
from segsim.input import Node, Source, did_you_mean
from segsim.policy import ANY_RULESET, Observation, register_policy
from segsim.rules import ruleset_names
from segsim.tuning import Tunable, read_tune

# ---------------------------------------------------------------- seeding


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (``derive_seed(fight_seed, "random", "margaret")``).

    BLAKE2b of their text, so the same parts give the same seed on every machine and
    Python version (unlike ``hash()``, which is salted per process).
    """
    text = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def pick_index(draw: Callable[[], float], n: int) -> int:
    """An index in ``range(n)`` from one ``random()`` draw (stable across versions)."""
    return min(int(draw() * n), n - 1)


# ---------------------------------------------------------------- random


class RandomLegal:
    """Uniform among the legal declarations (``observation.legal()``).

    When asked while something is still in progress (``must_act`` false) it declares
    nothing with probability ``idle`` (default 0.5), so it does not pile up actions.
    ``seed`` fixes its stream whatever the fight; by default it comes from the fight's
    seed and the combatant's id.
    """

    reactive = True

    def __init__(self, *, seed: int | None = None, idle: float = 0.5, name: str = "random"):
        if not 0.0 <= idle <= 1.0:
            raise ValueError(f"idle is a probability, not {idle!r}")
        self.seed = seed
        self.idle = idle
        self.name = name
        self._draw: Callable[[], float] | None = None

    def bind(self, actor: str, seed: int) -> None:
        """Called by the fight before the first decision: derive the generator."""
        base = self.seed if self.seed is not None else seed
        self._draw = random.Random(derive_seed(base, "random policy", actor)).random

    def decide(self, observation: Observation) -> PolicyOutput:
        draw = self._draw
        if draw is None:  # used outside a fight's start (bind not called)
            self.bind(observation.actor, 0)
            draw = self._draw
            assert draw is not None
        if not observation.must_act and draw() < self.idle:
            return None
        legal = observation.legal()
        if not legal:
            return None
        return legal[pick_index(draw, len(legal))]


# ---------------------------------------------------------------- scripted


def as_declaration(item: DeclarationLike | Mapping[str, Any]) -> DeclarationLike:
    """A declaration from a Declaration, a Cancel or a table ``{kind, target, params}``."""
    if isinstance(item, Declaration | Cancel):
        return item
    if isinstance(item, Mapping):
        extra = set(item) - {"kind", "target", "params"}
        if "kind" not in item or extra:
            raise ValueError(
                f"a declaration table has kind, and optionally target and params, not {item!r}"
            )
        return Declaration(str(item["kind"]), item.get("target"), dict(item.get("params", {})))
    raise TypeError(f"not a declaration: {item!r}")


class ScriptedPolicy:
    """Declares the next entry of ``steps`` each time it must act (an entry is one
    declaration or a list of them; None declares nothing: the fighter waits).

    When the list runs out it declares nothing, or starts over with ``loop=True``. It is
    not reactive: it is asked only when its previous actions are done. (To declare at
    given segments, see :class:`segsim.testing.Scripted`.)
    """

    reactive = False

    def __init__(
        self,
        steps: Iterable[Any],
        *,
        loop: bool = False,
        name: str = "scripted",
    ) -> None:
        self.steps: list[list[DeclarationLike]] = []
        for step in steps:
            if step is None:
                self.steps.append([])
            elif isinstance(step, list | tuple):
                self.steps.append([as_declaration(d) for d in step])
            else:
                self.steps.append([as_declaration(step)])
        self.loop = loop
        self.name = name
        self.position = 0

    def decide(self, observation: Observation) -> PolicyOutput:
        if not observation.must_act:
            return None
        if self.position >= len(self.steps):
            if not self.loop or not self.steps:
                return None
            self.position = 0
        step = self.steps[self.position]
        self.position += 1
        return list(step) or None


# ---------------------------------------------------------------- rule lists

RuleHelpers = Mapping[str, Callable[..., Any]]
_HELPERS: dict[str, dict[str, Callable[..., Any]]] = {}


def register_rule_helpers(ruleset: str, helpers: RuleHelpers) -> None:
    """Functions a ruleset offers to rule-list expressions (``in_reach(target)``...).

    Each is called with the :class:`RuleContext` first, then the expression's arguments.
    """
    _HELPERS.setdefault(ruleset, {}).update(helpers)


_VIEWS: dict[str, tuple[type, type]] = {}


def register_rule_views(ruleset: str, me: type, other: type) -> None:
    """The classes of a ruleset's views of the deciding fighter (``me``) and of the
    others (``target``, ``opponents[i]``...), so that a rule list's attribute names are
    checked when it loads (``me.must_lok`` is a typo, not a failure in every fight)."""
    _VIEWS[ruleset] = (me, other)


def public_names(cls: type) -> frozenset[str]:
    """The attributes an expression may read on instances of ``cls``."""
    names = {n for n in dir(cls) if not n.startswith("_")}
    if attrs.has(cls):
        names |= {f.name for f in attrs.fields(cls) if not f.name.startswith("_")}
    return frozenset(names)


def rule_helpers(ruleset: str | None) -> dict[str, Callable[..., Any]]:
    """The ruleset's helpers (every ruleset's with ``"*"``), taking the context first."""
    out: dict[str, Callable[..., Any]] = {}
    if ruleset == "*":
        for helpers in _HELPERS.values():
            out.update(helpers)
    elif ruleset is not None:
        out.update(_HELPERS.get(ruleset, {}))
    return out


def _position(x: Any) -> tuple[float, float]:
    pos = getattr(x, "position", x)
    return (float(pos[0]), float(pos[1]))


def _dist(a: Any, b: Any) -> float:
    """Distance in metres between two views (or positions)."""
    return math.dist(_position(a), _position(b))


_GENERIC: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "len": len,
    "any": any,
    "all": all,
    "int": int,
    "float": float,
    "round": round,
    "sum": sum,
    "dist": _dist,
}


class RuleContext:
    """The names a rule's condition and action see.

    ``obs``, ``me``, ``others``, ``opponents`` (other sides, in the fight's order),
    ``allies``, ``target`` (the nearest opponent, None when there is none), ``segment``,
    ``must_act``, ``params`` (the policy's tunable parameters, as attributes), and
    ``legal(kind)`` (whether some legal declaration of that kind exists now).
    """

    def __init__(
        self,
        obs: Observation,
        params: Mapping[str, Any],
        helpers: Mapping[str, Callable[..., Any]] | None = None,
    ) -> None:
        self.obs = obs
        self.me = obs.me
        self._helpers = helpers or {}
        self._scope: dict[str, Any] | None = None
        me = obs.me
        side = getattr(me, "side", None)
        self.opponents = [o for o in obs.others if getattr(o, "side", None) != side]
        self.allies = [o for o in obs.others if getattr(o, "side", None) == side]
        self.params = _Params(params)
        self.target = _nearest(me, self.opponents)

    @property
    def scope(self) -> dict[str, Any]:
        """Everything an expression sees: the names above, the generic functions and the
        ruleset's helpers bound to this context."""
        if self._scope is None:
            scope: dict[str, Any] = {"__builtins__": {}}
            scope.update(_GENERIC)
            for key, helper in self._helpers.items():
                scope[key] = functools.partial(helper, self)
            scope.update(self.names())
            self._scope = scope
        return self._scope

    def names(self) -> dict[str, Any]:
        obs = self.obs
        return {
            "obs": obs,
            "me": obs.me,
            "others": obs.others,
            "opponents": self.opponents,
            "allies": self.allies,
            "target": self.target,
            "segment": obs.segment,
            "must_act": obs.must_act,
            "params": self.params,
            "legal": self.legal,
        }

    def legal(self, kind: str) -> bool:
        return any(isinstance(d, Declaration) and d.kind == kind for d in self.obs.legal())


class _Params:
    """Parameters as attributes (``params.max_bonus``); an unknown one is an error."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(
                f"no parameter {name!r} (known: {', '.join(sorted(self._values)) or 'none'})"
            ) from None


def _nearest(me: Any, opponents: Sequence[Any]) -> Any:
    if not opponents:
        return None
    if getattr(me, "position", None) is None:
        return opponents[0]
    best, best_d = None, math.inf
    for o in opponents:
        d = _dist(me, o)
        if d < best_d:
            best, best_d = o, d
    return best


Condition = Callable[[RuleContext], Any]
Action = Callable[[RuleContext], PolicyOutput]


@attrs.frozen
class Rule:
    """``when`` the condition holds, declare what ``do`` returns (None: nothing new)."""

    name: str
    when: Condition
    do: Action


class RuleError(SegsimError):
    """A rule failed while deciding: names the policy, the rule and the segment."""


class RuleList:
    """Priority list: the first rule whose condition holds decides.

    ``params`` are the tunable numbers the rules read (``params.max_bonus``); a copy with
    other values is :meth:`with_params`. When no rule holds, it declares nothing (a
    fighter who must act then waits).
    """

    def __init__(
        self,
        rules: Sequence[Rule],
        *,
        params: Mapping[str, Any] | None = None,
        name: str = "rules",
        reactive: bool = True,
        helpers: Mapping[str, Callable[..., Any]] | None = None,
        tunable: Mapping[str, Tunable] | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.params = dict(params or {})
        self.tunable = dict(tunable or {})  # the [tune] table: what optimize may change
        self.name = name
        self.reactive = reactive
        self.helpers = dict(helpers or {})
        self.fired: dict[str, int] = {}

    def with_params(self, **changes: Any) -> RuleList:
        """The same rules with some parameters changed (unknown names are an error)."""
        unknown = sorted(set(changes) - set(self.params))
        if unknown:
            raise ValueError(
                f"{self.name}: no parameter {', '.join(unknown)} "
                f"(known: {', '.join(sorted(self.params)) or 'none'})"
            )
        return RuleList(
            self.rules,
            params={**self.params, **changes},
            name=self.name,
            reactive=self.reactive,
            helpers=self.helpers,
            tunable=self.tunable,
        )

    def decide(self, observation: Observation) -> PolicyOutput:
        ctx = RuleContext(observation, self.params, self.helpers)
        for rule in self.rules:
            try:
                if not rule.when(ctx):
                    continue
                out = rule.do(ctx)
            except SegsimError:
                raise
            except Exception as exc:
                raise RuleError(
                    f"segment {observation.segment}, {observation.actor}, policy {self.name}, "
                    f"rule {rule.name!r}: {type(exc).__name__}: {exc}"
                ) from exc
            self.fired[rule.name] = self.fired.get(rule.name, 0) + 1
            return out
        return None


# ---------------------------------------------------------------- rule expressions

_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.UAdd,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Is,
    ast.IsNot,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Name,
    ast.Load,
    ast.Attribute,
    ast.Call,
    ast.keyword,
    ast.Constant,
    ast.IfExp,
    ast.Subscript,
    ast.Tuple,
    ast.List,
)
_MUTATORS = frozenset(
    {
        # what changes a table, a list or a set in place: a rule list only reads
        *("update", "pop", "popitem", "clear", "setdefault", "append", "extend"),
        *("insert", "remove", "add", "discard", "sort", "reverse", "difference_update"),
        *("intersection_update", "symmetric_difference_update", "put", "send", "throw"),
        *("close", "write", "move_to_end", "appendleft", "extendleft", "popleft"),
    }
)
_CONTEXT_NAMES = frozenset(
    {
        "obs",
        "me",
        "others",
        "opponents",
        "allies",
        "target",
        "segment",
        "must_act",
        "params",
        "legal",
    }
)


_FORBIDDEN_ATTRIBUTES = frozenset(
    {
        # str.format reads attributes and items by name ("{0.__init__.__globals__}")
        "format",
        "format_map",
        # introspection that leads to frames, code and globals
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "tb_frame",
        "tb_next",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "func",
        "mro",
    }
)
"""Attributes a rule expression may not read, although their names are public."""


@attrs.frozen
class Expression:
    """A checked rule expression: comparisons, and/or/not, arithmetic, attributes of the
    views, calls of the known helpers. No private attributes, no imports, no lambdas."""

    text: str
    code: CodeType = attrs.field(eq=False, repr=False)

    def __call__(self, ctx: RuleContext) -> Any:
        # Every node was checked in compile_expression; builtins are empty.
        return eval(self.code, ctx.scope)


_ONE_OF = frozenset({"others", "opponents", "allies"})


def _base(node: ast.expr) -> str | None:
    """The context name an attribute is read on: ``me`` for ``me.x``, ``opponents`` for
    ``opponents[0].x``; None for anything else (a call's result, a nested attribute)."""
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in _ONE_OF
    ):
        return node.value.id
    return None


def compile_expression(
    text: str,
    helpers: Iterable[str] = (),
    attributes: Mapping[str, frozenset[str]] | None = None,
) -> Expression:
    """Parse and check an expression; ValueError says what is not allowed.

    ``attributes`` gives, by context name (``me``, ``target``, ``opponents``,
    ``params``...), the attributes that exist: reading another is an error, with the
    closest known name suggested.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not a valid expression: {exc.msg}") from None
    known = _CONTEXT_NAMES | set(_GENERIC) | set(helpers) | {"True", "False", "None"}
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ValueError(f"{type(node).__name__} is not allowed in a rule expression")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ValueError(f"private attribute {node.attr!r} is not allowed")
        if isinstance(node, ast.Attribute) and node.attr in _FORBIDDEN_ATTRIBUTES:
            raise ValueError(f"attribute {node.attr!r} is not allowed in a rule expression")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MUTATORS
        ):
            raise ValueError(
                f"{node.func.attr}() would change what the rule list reads: a rule "
                "expression only reads (the views and content are read-only)"
            )
        if isinstance(node, ast.Name) and node.id not in known:
            names = sorted(known - {"True", "False", "None"})
            raise ValueError(
                f"unknown name {node.id!r}{did_you_mean(node.id, names)} "
                f"(known: {', '.join(names)})"
            )
        if isinstance(node, ast.Attribute) and attributes:
            base = _base(node.value)
            exists = attributes.get(base) if base is not None else None
            if exists is not None and node.attr not in exists:
                what = f"{base}[...]" if isinstance(node.value, ast.Subscript) else base
                raise ValueError(
                    f"{what} has no attribute {node.attr!r}{did_you_mean(node.attr, exists)}"
                )
    return Expression(text, compile(tree, "<rule>", "eval"))


def rule_attributes(ruleset: str | None, params: Iterable[str]) -> dict[str, frozenset[str]]:
    """What attributes each context name has, as far as is known for the ruleset."""
    out: dict[str, frozenset[str]] = {
        "obs": public_names(Observation),
        "params": frozenset(params),
    }
    views = _VIEWS.get(ruleset) if ruleset is not None else None
    if views is not None:
        me, other = (public_names(cls) for cls in views)
        out.update(me=me, target=other, others=other, opponents=other, allies=other)
    return out


def _compile_value(
    value: Any,
    node: Node,
    key: str,
    helpers: Iterable[str],
    attributes: Mapping[str, frozenset[str]] | None = None,
) -> Any:
    """A declaration parameter: literal TOML, or ``"=expression"`` computed when deciding."""
    if isinstance(value, str) and value.startswith("="):
        try:
            return compile_expression(value[1:], helpers, attributes)
        except ValueError as exc:
            raise node.error(key, str(exc)) from None
    if isinstance(value, Mapping):
        sub = node.child(key)
        return {k: _compile_value(v, sub, k, helpers, attributes) for k, v in list(sub.items())}
    if isinstance(value, list):
        return [_compile_value(v, node, key, helpers, attributes) for v in value]
    return value


def _evaluate(value: Any, ctx: RuleContext) -> Any:
    if isinstance(value, Expression):
        return value(ctx)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            got = _evaluate(v, ctx)
            if got is not None and got != {}:  # None (or nothing left) leaves it out
                out[k] = got
        return out
    if isinstance(value, list):
        return [_evaluate(v, ctx) for v in value]
    return value


def _target_id(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    cid = getattr(value, "id", None)
    if not isinstance(cid, str):
        raise ValueError(f"a target is a combatant (or its id), not {value!r}")
    return cid


@attrs.frozen
class _TomlAction:
    items: tuple[tuple[str, Expression | None, Any], ...]  # (kind, target, params)

    def __call__(self, ctx: RuleContext) -> PolicyOutput:
        out: list[DeclarationLike] = []
        for kind, target, params in self.items:
            tid = _target_id(target(ctx)) if target is not None else None
            out.append(Declaration(kind, tid, _evaluate(params, ctx)))
        return out or None


def load_rule_list(path: str | Path, **params: Any) -> RuleList:
    """A rule-list policy from a TOML file; ``params`` override its ``[params]``.

    The file::

        name = "striker"
        ruleset = "rinkanou"      # whose helpers the expressions may call
        reactive = true

        [params]
        max_bonus = 2

        [[rule]]
        name = "recover"
        when = "me.must_lock"
        do = "nothing"

        [[rule]]
        name = "strike"
        when = "me.armed and in_reach(target)"
        do = { kind = "strike", target = "target", params = { blow = "cut" } }

    A ``[tune]`` table gives the parameters ``segsim optimize`` may change and their
    ranges (:mod:`segsim.tuning`).

    A parameter written ``"=expression"`` is computed when deciding (``bonus =
    "=min(me.usable_ps, params.max_bonus) or None"``); None leaves it out.

    Errors name the file, the line and the field.
    """
    source = Source.read(path)
    root = source.root()
    name = root.value("name", str, Path(path).stem)
    ruleset = root.value("ruleset", str, None)
    if ruleset is not None and ruleset not in ruleset_names():
        raise root.error(
            "ruleset", f"unknown ruleset {ruleset!r} (known: {', '.join(ruleset_names())})"
        )
    if ruleset is not None:
        _import_ruleset(ruleset)
    helpers = rule_helpers(ruleset if ruleset is not None else "*")
    names = set(helpers)
    reactive = root.value("reactive", bool, True)
    defaults = dict(root.table("params", {}).items())
    for key, value in defaults.items():
        if not isinstance(value, int | float | str | bool):
            raise root.error("params", f"{key}: a parameter is a number, a string or a boolean")
    tunable = read_tune(root, defaults)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise InputError(
            str(path), None, "params", f"no parameter {', '.join(unknown)} in this rule list"
        )
    rules: list[Rule] = []
    nodes = root.tables("rule", [])
    if not nodes:
        raise root.error("rule", "a rule list needs at least one [[rule]]")
    attributes = rule_attributes(ruleset, defaults)
    for i, node in enumerate(nodes):
        rule_name = node.value("name", str, f"rule {i + 1}")
        try:
            when = compile_expression(node.value("when", str, "True"), names, attributes)
        except ValueError as exc:
            raise node.error("when", str(exc)) from None
        rules.append(Rule(rule_name, when, _toml_action(node, names, attributes)))
        node.finish()
    root.finish()
    return RuleList(
        rules,
        params={**defaults, **params},
        name=name,
        reactive=reactive,
        helpers=helpers,
        tunable=tunable,
    )


def register_rule_list(path: str | Path, *, name: str | None = None) -> str:
    """Load a rule-list file and register it (under its ``name``, or the one given) for
    its ruleset, or every ruleset if it names none, so that scenarios can name it
    (``policy = "striker"``) without naming a file. Returns the name."""
    rules = load_rule_list(path)
    source = Source.read(path)
    ruleset = source.data.get("ruleset")
    key = name or rules.name

    def factory(**params: Any) -> RuleList:
        return rules.with_params(**params) if params else rules.with_params()

    register_policy(ruleset if isinstance(ruleset, str) else ANY_RULESET, key, factory)
    return key


def _toml_action(
    node: Node, helpers: Iterable[str], attributes: Mapping[str, frozenset[str]] | None = None
) -> _TomlAction:
    raw = node.data.get("do")
    if raw == "nothing":
        node.value("do", str)
        return _TomlAction(())
    if isinstance(raw, Mapping):
        tables = [node.table("do")]
    elif isinstance(raw, list):
        tables = node.tables("do")
    else:
        raise node.error(
            "do", 'say "nothing", or give a declaration {kind, target, params} or a list of them'
        )
    items = []
    for t in tables:
        kind = t.value("kind", str)
        target = None
        if t.has("target"):
            try:
                target = compile_expression(t.value("target", str), helpers, attributes)
            except ValueError as exc:
                raise t.error("target", str(exc)) from None
        params: Any = {}
        if t.has("params"):
            t.table("params")  # checks that it is a table
            params = _compile_value(t.data["params"], t, "params", helpers, attributes)
        t.finish()
        items.append((kind, target, params))
    return _TomlAction(tuple(items))


def _import_ruleset(name: str) -> None:
    """Import a ruleset's package, which registers its rule helpers."""
    from segsim.rules import ruleset_class

    ruleset_class(name)


# ---------------------------------------------------------------- registration

for _ruleset in ruleset_names():
    register_policy(_ruleset, "random", RandomLegal)
