"""Helpers for testing fights, for segsim's tests and users' tests alike.

* :class:`Scripted`: a policy that declares what a script says at given segments and
  remembers every observation it was shown;
* :func:`sheet`: an example fighter's sheet with fields replaced;
* :func:`build_fight`: a fight from a few lines, with loaded dice or a seed;
* :class:`RuleFree`: a ruleset with no rules, which only times what is declared: the
  engine's own behaviour (declaration phases, settlement order) and its cost alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from segsim.actions import Action, Cancel, Declaration, DeclarationLike, PolicyOutput
from segsim.dice import Dice, LoadedDice
from segsim.fight import CombatantSpec, Fight
from segsim.policy import Observation
from segsim.rules import BaseRuleset, frozen_sheet, get_ruleset

ScriptEntry = (
    DeclarationLike
    | Sequence[DeclarationLike]
    | Callable[[Observation], DeclarationLike | Sequence[DeclarationLike] | None]
)


class Scripted:
    """Declares ``script[segment]`` when asked at that segment, else nothing.

    It keeps a wait running until its next scripted segment, so it is called then.

    A script value is one declaration, a list of them, or a function of the observation
    returning either (to cancel an action whose id is only known then). Observations are
    kept in :attr:`seen` so tests can check what the combatant knew.
    """

    def __init__(
        self,
        script: Mapping[int, ScriptEntry] | None = None,
        *,
        name: str = "scripted",
        reactive: bool = True,
    ) -> None:
        self.script = dict(script or {})
        self.name = name
        self.reactive = reactive
        self.seen: list[Observation] = []

    def decide(self, observation: Observation) -> PolicyOutput:
        self.seen.append(observation.freeze())  # kept past its phase: frozen
        seg = observation.segment
        out = self.script.get(seg)
        if callable(out):
            out = out(observation)
        decls: list[DeclarationLike] = (
            [] if out is None else [out] if isinstance(out, Declaration | Cancel) else list(out)
        )
        later = [s for s in self.script if s > seg]
        if later and not any(isinstance(d, Declaration) and d.kind == "wait" for d in decls):
            alarm = min(later)
            actions = getattr(observation.me, "actions", ())
            if not any(a.kind == "wait" and a.params.get("until") == alarm for a in actions):
                decls.append(Declaration("wait", params={"until": alarm}))
        return decls or None

    def seen_at(self, segment: int) -> Observation:
        """The observation shown at a segment (the last one if asked twice)."""
        found = [o for o in self.seen if o.segment == segment]
        if not found:
            raise KeyError(f"{self.name} was not asked at segment {segment}")
        return found[-1]


def declare(kind: str, target: str | None = None, **params: Any) -> Declaration:
    """Shorthand: ``declare("strike", "b", blow="cut")``."""
    return Declaration(kind, target, params)


def sheet(fighter: str = "robert", ruleset: str = "rinkanou", **changes: Any) -> Any:
    """An example fighter's sheet from ``models/``, with attributes replaced."""
    rules = get_ruleset(ruleset)
    base = frozen_sheet(rules, rules.content.fighters[fighter])
    return attrs.evolve(base, **changes) if changes else base


def build_fight(
    fighters: Mapping[str, tuple[str, Any, Any]],
    *,
    ruleset: str | Any = "rinkanou",
    dice: Iterable[int | tuple[str, int]] | Dice | None = None,
    seed: int = 0,
    positions: Mapping[str, tuple[float, float]] | None = None,
    **kwargs: Any,
) -> Fight:
    """A fight from ``{id: (side, sheet-or-fighter-name, policy)}``.

    ``dice`` may be a list of faces (loaded dice: the fight fails loudly if it needs
    more) or a :class:`Dice`; otherwise the dice are seeded with ``seed``.
    """
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        the_sheet = (
            frozen_sheet(rules, rules.content.fighters[who]) if isinstance(who, str) else who
        )
        pos = (positions or {}).get(cid, (1.5 * i, 0.0))
        specs.append(CombatantSpec(cid, side, the_sheet, policy, position=pos))
    if dice is None:
        the_dice: Dice = Dice(seed)
    elif isinstance(dice, Dice):
        the_dice = dice
    else:
        the_dice = LoadedDice(dice)
    return Fight(rules, specs, dice=the_dice, **kwargs)


class RuleFree(BaseRuleset):
    """A ruleset with no rules: a declaration lasts ``params["d"]`` segments in the
    channel ``params["channel"]`` (the hands by default), or, without ``d`` (a wait),
    until its fighter declares again; nothing is resolved, and a fight ends when one
    side is left or its time is up. With ``keep=True``, :attr:`settled` holds each batch
    the engine settled, in the order the ruleset was given it. Observations are the
    generic :class:`~segsim.policy.Observation`, with no view of anyone."""

    name = "rule-free"
    title = "no rules (the engine alone)"

    def __init__(self, keep: bool = False) -> None:
        self.options: dict[str, Any] = {}
        self.settled: list[list[Action]] | None = [] if keep else None

    def load_sheet(self, node: Any) -> Any:
        return None

    def sheet_data(self, sheet: Any) -> dict[str, Any]:
        return {}

    def new_status(self, sheet: Any) -> Any:
        return None

    def begin(self, state: Any, dice: Any) -> list[Any]:
        return []

    def plan(self, state: Any, cid: str, d: Declaration, segment: int, planned: Any) -> Action:
        params = d.params
        duration = params.get("d")
        if duration is None:
            return Action(d.kind, None, "wait", continuous=True)
        return Action(d.kind, duration, params.get("channel", "hands"))

    def resolve(self, state: Any, segment: int, batch: Sequence[Action], dice: Any) -> list[Any]:
        if self.settled is not None:
            self.settled.append(list(batch))
        return []

    def observe(self, state: Any, cid: str, segment: int, must_act: bool) -> Observation:
        return Observation(segment, cid, must_act, None, (), legal=tuple)


class External:
    """``policy`` decided outside the fight: the fight pauses at its phases
    (:meth:`~segsim.fight.Fight.advance`) and :func:`drive` asks ``policy`` and submits
    its decisions. Same name, reactivity and binding as ``policy``, so a fight driven this
    way writes the record :meth:`~segsim.fight.Fight.run` writes (DESIGN principle 11)."""

    external = True

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.reactive = bool(getattr(policy, "reactive", True))
        self.name = getattr(policy, "name", type(policy).__name__)

    def bind(self, actor: str, seed: int) -> None:
        bind = getattr(self.policy, "bind", None)
        if callable(bind):
            bind(actor, seed)

    def decide(self, observation: Observation) -> PolicyOutput:
        raise RuntimeError("an external policy is asked through Fight.advance()")


def externalize(fight: Fight) -> dict[str, Any]:
    """Make every combatant's policy :class:`External` before the fight starts; return
    the policies it wraps, by combatant."""
    inner = {cid: c.policy for cid, c in fight.state.combatants.items()}
    for cid, policy in inner.items():
        fight.replace_policy(cid, External(policy))
    return inner


def drive(fight: Fight, phases: int | None = None) -> int:
    """Drive an :func:`externalize`-d fight through advance/submit, each combatant's own
    policy deciding: at most ``phases`` phases (all of them by default). Returns how many
    were completed; the fight is left paused at the next one, if any."""
    done = 0
    while phases is None or done < phases:
        pending = fight.advance()
        if not pending:
            break
        combatants = fight.state.combatants
        decisions = {}
        for cid, observation in pending.items():
            outer: Any = combatants[cid].policy
            decisions[cid] = outer.policy.decide(observation)
        fight.submit(decisions)
        done += 1
    if phases is not None:
        fight.advance()
    return done


def snapshot(value: Any) -> Any:
    """Everything reachable from ``value`` (a fight's state) as plain nested tuples, to
    compare two moments of a fight: attributes of plain, slotted, attrs and compiled
    objects, mappings, sequences and sets; a policy is only its type (its scratch is its
    own, not the fight's); an object met twice is a reference to its first visit."""
    seen: dict[int, int] = {}
    keep: list[Any] = []  # so that no id is reused while we walk

    def walk(v: Any) -> Any:
        if v is None or isinstance(v, bool | int | float | str | bytes):
            return v
        if callable(getattr(v, "decide", None)):
            return ("policy", type(v).__name__)
        if callable(v) and not hasattr(v, "__dict__"):
            return ("callable", getattr(v, "__qualname__", type(v).__name__))
        key = id(v)
        if key in seen:
            return ("ref", seen[key])
        seen[key] = len(seen)
        keep.append(v)
        name = type(v).__name__
        if isinstance(v, Mapping):
            return (name, tuple((walk(k), walk(x)) for k, x in v.items()))
        if isinstance(v, list | tuple):
            return (name, tuple(walk(x) for x in v))
        if isinstance(v, set | frozenset):
            return (name, tuple(sorted((walk(x) for x in v), key=repr)))
        return (name, tuple((field, walk(getattr(v, field))) for field in _fields(v)))

    return walk(value)


def _fields(v: Any) -> list[str]:
    names: dict[str, None] = {}
    for klass in reversed(type(v).__mro__):
        for field in getattr(klass, "__annotations__", {}):
            names[field] = None
        slots = klass.__dict__.get("__slots__", ())
        for field in (slots,) if isinstance(slots, str) else slots:
            names[field] = None
    names.update(dict.fromkeys(getattr(v, "__dict__", {})))
    names.pop("__weakref__", None)
    names.pop("__dict__", None)
    missing = object()
    return [n for n in names if getattr(v, n, missing) is not missing and not n.startswith("__")]
