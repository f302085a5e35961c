"""Fight scripts: a fight played at a real table, entered by hand and played through the rules.

A script (TOML) names the fighters (a scenario file, or ``[[combatant]]`` tables as in a
scenario but without policies), what each fighter declared at each segment, and the dice
as they fell, in order. Playing it gives the full record; every rule is applied, so a
misplayed segment or a die that does not fit shows up at once, with the segment, the
fighter and the roll or rule named, and the file, line and field of the script.
See ``examples/scripts/table_duel.toml`` for a complete example and ``docs/replay.md``
for the format::

    [fight]
    scenario = "../scenarios/duel.toml"

    [segment.0]
    margaret = "arm"

    [segment.3]
    margaret = { action = "strike", target = "robert", blow = "cut" }
    robert = "dodge"

    [segment.4]
    robert = { cancel = "dodge" }

    [segment.5]
    robert = { action = "read", target = "margaret" }  # her latest action (or action_id)

    [dice]
    rolls = [33, 16, "d100:8"]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.actions import (
    Cancel,
    Declaration,
    DeclarationLike,
    PolicyOutput,
    declaration_problem,
)
from segsim.dice import LoadedDice
from segsim.errors import DiceExhausted, IllegalDeclaration, InputError
from segsim.eventbase import ROUTINE_KINDS
from segsim.fight import CombatantSpec, Fight
from segsim.input import Node, Source, seed_field
from segsim.policy import Observation
from segsim.rules import ruleset_from_data
from segsim.scenario import check_setups, load_scenario, read_combatant

SCRIPT_POLICY = "script"
"""The policy name of scripted combatants in the record header."""

_DIE = re.compile(r"d([1-9][0-9]{0,8}):([0-9]{1,9})", re.ASCII)
_SEGMENT = re.compile(r"[0-9]{1,9}", re.ASCII)  # ASCII digits only ("²" is a digit to isdigit())
_RESERVED = ("action", "cancel", "target")
RAN_OUT = "the script has no declaration after segment {last}"
"""The cause of the interruption that ends a fight whose script has run out."""


@attrs.frozen
class CancelKind:
    """Cancel the fighter's action in progress of this kind.

    Action ids are the engine's numbering, which a branch changes; the kind survives it.
    ``action``, when known (a record's id), picks among several actions of the kind.
    """

    kind: str
    action: int | None = None

    def resolve(self, actions: Sequence[Any], actor: str, segment: int) -> Cancel:
        """The :class:`Cancel` of the one action of this kind in ``actions``."""
        found = [a for a in actions if a.kind == self.kind and not a.continuous]
        if len(found) > 1:
            found = [a for a in found if a.id == self.action] or found
        if not found:
            doing = ", ".join(f"{a.kind} #{a.id}" for a in actions) or "nothing"
            raise IllegalDeclaration(
                f"no {self.kind} in progress to cancel (in progress: {doing})",
                rule="cancellation",
                actor=actor,
                segment=segment,
            )
        if len(found) > 1:
            ids = ", ".join(str(a.id) for a in found)
            raise IllegalDeclaration(
                f"several {self.kind} actions in progress ({ids}): cancel one by its id",
                rule="cancellation",
                actor=actor,
                segment=segment,
            )
        return Cancel(found[0].id)


ScriptItem = Declaration | Cancel | CancelKind


@attrs.frozen
class ScriptCombatant:
    id: str
    side: str
    sheet: Any
    name: str
    position: tuple[float, float]
    is_pc: bool
    setup: Mapping[str, Any] = attrs.field(factory=dict)


class ScriptPolicy:
    """Declares what the script says at each of the fighter's segments, nothing else.

    Not reactive: the fight calls a scripted fighter at its scripted segments
    (:meth:`Fight.call_at`) and whenever the rules need it to act.
    """

    name = SCRIPT_POLICY
    reactive = False

    def __init__(self, cid: str, entries: Mapping[int, tuple[ScriptItem, ...]]) -> None:
        self.cid = cid
        self.entries = dict(entries)
        self.used: set[int] = set()
        self.actions: Callable[[], list[Any]] = list
        self.history: Callable[[], Sequence[Any]] = tuple

    def decide(self, observation: Observation) -> PolicyOutput:
        seg = observation.segment
        items = self.entries.get(seg)
        if not items:
            return None
        self.used.add(seg)
        out: list[DeclarationLike] = []
        for item in items:
            if isinstance(item, CancelKind):
                out.append(item.resolve(self.actions(), self.cid, seg))
            elif isinstance(item, Declaration) and isinstance(item.params.get("against"), Mapping):
                out.append(self._answer(item, seg))
            else:
                out.append(item)
        return out

    def _answer(self, item: Declaration, segment: int) -> Declaration:
        """``against = { by = "canahan", kind = "attack" }``: the id of the latest action
        of that kind ``by`` declared at this fighter (or, if none was, at anyone)."""
        named = item.params["against"]
        by, kind = named.get("by"), named.get("kind")
        found = [
            e
            for e in self.history()
            if e.TYPE == "action.declared" and e.actor == by and (kind is None or e.kind == kind)
        ]
        aimed = [e for e in found if e.target == self.cid] or found
        if not aimed:
            what = f"{kind} " if kind else "action "
            raise IllegalDeclaration(
                f"{by} has declared no {what}to answer (against = {{ by = ..., kind = ... }} "
                "names the attacker and the kind of its action)",
                rule="fight script",
                actor=self.cid,
                segment=segment,
            )
        params = dict(item.params)
        params["against"] = aimed[-1].action
        return Declaration(item.kind, item.target, params)


class _ScriptDice(LoadedDice):
    """Loaded dice whose errors say which roll of the script and which segment."""

    def __init__(self, values: list[tuple[str | None, int]], seed: int) -> None:
        super().__init__([], seed, strict=False)  # the script names its leftovers itself
        self.rolls = values
        self.segment: Callable[[], int] = lambda: 0

    @property
    def remaining(self) -> int:
        return len(self.rolls) - self._next

    def _face(self, sides: int, purpose: str, actor: str | None) -> int:
        whose = f"{actor}'s " if actor else "the table's "
        where = f"segment {self.segment()}, {actor or 'table'}"
        if self._next >= len(self.rolls):
            raise DiceExhausted(
                f"{where}: the script has no roll left for {whose}d{sides} ({purpose}); "
                f"it gives {len(self.rolls)} roll(s)"
            )
        die, value = self.rolls[self._next]
        if die is not None and die != f"d{sides}":
            raise DiceExhausted(
                f"{where}: roll {self._next + 1} of the script is a {die}, but {whose}"
                f"d{sides} is rolled ({purpose})"
            )
        if not 1 <= value <= sides:
            raise DiceExhausted(
                f"{where}: roll {self._next + 1} of the script is {value}, not a face of "
                f"{whose}d{sides} ({purpose})"
            )
        self._next += 1
        return value


@attrs.frozen
class FightScript:
    """A loaded, checked fight script; :meth:`play` plays it through the rules."""

    source: Source
    name: str
    ruleset: Any
    combatants: tuple[ScriptCombatant, ...]
    entries: Mapping[str, Mapping[int, tuple[ScriptItem, ...]]]
    rolls: tuple[tuple[str | None, int], ...]
    seed: int = 0
    max_segments: int = 36_000

    @property
    def path(self) -> str:
        return self.source.path

    def fight(self, **kwargs: Any) -> Fight:
        """A fresh fight of this script, ready to run (it fails loudly if misplayed)."""
        policies = {c.id: ScriptPolicy(c.id, self.entries.get(c.id, {})) for c in self.combatants}
        dice = _ScriptDice(list(self.rolls), self.seed)
        specs = [
            CombatantSpec(
                c.id, c.side, c.sheet, policies[c.id], c.name, c.position, c.is_pc, c.setup
            )
            for c in self.combatants
        ]
        kwargs.setdefault("max_segments", self.max_segments)
        fight = Fight(
            self.ruleset, specs, dice=dice, name=self.name, fight_id=Path(self.path).name, **kwargs
        )
        dice.segment = lambda: max(fight.segment - 1, 0)  # draws are made while settling
        for cid, policy in policies.items():
            policy.actions = _actions_of(fight, cid)
            policy.history = _history_of(fight)
            for seg in sorted(policy.entries):
                fight.call_at(cid, seg)
        return fight

    def play(self, **kwargs: Any) -> Fight:
        """Play the script to the end of the fight and return the fight (its record is
        complete). Errors name the script's file, line and field, the segment, the
        fighter and the roll or rule; every roll and every entry must be used."""
        fight = self.fight(**kwargs)
        fight.env.process(self._run_out(fight))
        try:
            fight.run()
        except IllegalDeclaration as exc:
            raise self._entry_error(exc) from None
        except DiceExhausted as exc:
            raise self.error(("dice", "rolls"), str(exc)) from None
        self._check_all_used(fight)
        return fight

    @property
    def last_segment(self) -> int:
        """The last segment at which the script declares something (0 if it never does)."""
        return max((seg for entries in self.entries.values() for seg in entries), default=0)

    def _run_out(self, fight: Fight) -> Any:
        """A host process that ends the fight once the script has run out: after its
        last declarations (and, in a coarse ruleset, the end of their round), when every
        action in progress has ended (but the turns and
        waits a coarse ruleset's rules go on starting by themselves) and nothing is in
        flight, and the rules have not ended it, the fight is interrupted with a cause that
        says so (:data:`RAN_OUT`), rather than played on to its time limit with
        nobody declaring. Checked in the middle of a segment, after its settlement
        and declarations (an interruption belongs to the segment in progress)."""
        env, clock, last = fight.env, fight.clock, self.last_segment
        # A coarse ruleset settles a round's declarations later in the round (Loreval's
        # resolution step): its round (tick) is played to its end first.
        tick = clock.tick
        seg = last if tick <= 1 else (last // tick + 1) * tick
        while True:
            yield env.timeout(clock.until(seg, env.now) + 0.5 * clock.scale)
            if fight.ended:
                return
            state = fight.state
            ends = [
                a.end
                for c in state.combatants.values()
                if c.in_fight
                for a in c.actions
                if a.end is not None
                and a.end > seg
                and (a.start <= last or a.kind not in ROUTINE_KINDS)
            ]
            ends.extend(a.end for a in state.autonomous.values() if a.end is not None)
            if not ends:
                fight.interrupt(RAN_OUT.format(last=last))
                return
            seg = max(min(ends), seg + 1)

    def error(self, path: tuple[str | int, ...], message: str) -> InputError:
        field = ".".join(str(p) for p in path)
        return InputError(self.path, self.source.line_of(path), field, message)

    def _entry_error(self, exc: IllegalDeclaration) -> InputError:
        if exc.segment is not None and exc.actor is not None:
            path: tuple[str | int, ...] = ("segment", str(exc.segment), exc.actor)
            if exc.segment not in self.entries.get(exc.actor, {}):
                path = ("segment",)  # a rule's own declaration (forced, idle)
        else:  # pragma: no cover - the engine always locates
            path = ("segment",)
        rule = f" [{exc.rule}]" if exc.rule else ""
        where = f"segment {exc.segment}, {exc.actor}: " if exc.actor else ""
        return self.error(path, f"{where}{exc.message}{rule}")

    def _check_all_used(self, fight: Fight) -> None:
        end = fight.history[-1]
        ended = f"the fight ended at segment {end.t} ({end.describe()})"
        for c in fight.state.combatants.values():
            policy = c.policy
            assert isinstance(policy, ScriptPolicy)
            for seg in sorted(set(policy.entries) - policy.used):
                out = next(
                    (e.t for e in fight.history if e.TYPE == "combatant.out" and e.actor == c.id),
                    None,
                )
                if out is not None and out <= seg:
                    why = f"{c.id} is out of the fight since segment {out}"
                elif seg > end.t:
                    why = ended
                else:  # pragma: no cover - a called fighter in the fight is always asked
                    why = f"{c.id} was not called at segment {seg}"
                raise self.error(("segment", str(seg), c.id), f"this entry is never played: {why}")
        dice = fight.dice
        assert isinstance(dice, _ScriptDice)
        if dice.remaining:
            used = len(self.rolls) - dice.remaining
            raise self.error(
                ("dice", "rolls", used),
                f"{dice.remaining} roll(s) left over from roll {used + 1} on: {ended}",
            )


def _history_of(fight: Fight) -> Callable[[], Sequence[Any]]:
    def history() -> Sequence[Any]:
        return fight.history

    return history


def _actions_of(fight: Fight, cid: str) -> Callable[[], list[Any]]:
    def actions() -> list[Any]:
        return list(fight.state.combatants[cid].actions)

    return actions


class _ScriptSource(Source):
    """A script's TOML, with lines for the elements of the dice array too."""

    def line_of(self, path: tuple[str | int, ...]) -> int | None:
        if len(path) == 3 and path[:2] == ("dice", "rolls") and isinstance(path[2], int):
            found = _element_line(self, path[:2], path[2])
            if found is not None:
                return found
        return super().line_of(path)


_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'|[-+]?[0-9][0-9_]*")


def _element_line(source: Source, array: tuple[str | int, ...], index: int) -> int | None:
    """The line of the ``index``-th value of a (possibly multi-line) array of numbers and
    short strings."""
    start = Source.line_of(source, array)
    if start is None:
        return None
    lines = source.text.splitlines()
    count = 0
    for number in range(start, len(lines) + 1):
        text = lines[number - 1]
        if number == start:
            text = text.split("=", 1)[1] if "=" in text else text
        text = re.sub(r"#.*", "", text)
        for _ in _VALUE.finditer(text):
            if count == index:
                return number
            count += 1
        if "]" in text:
            break
    return None


# ---------------------------------------------------------------- loading


def scenario_path(script: str | Path, name: str, *, allow_outside: bool = False) -> Path:
    """Where a script's ``scenario = "..."`` points, relative to the script.

    A script is data: unless ``allow_outside`` (``segsim run --allow-outside``), the
    scenario must be inside the script's folder (or below it) or in the shipped models;
    anything else is refused before the file is even looked at, so a script cannot read
    (or probe for) other files. Symbolic links are followed before the check.
    """
    from segsim.models import models_dir

    target = Path(script).parent / name
    if allow_outside:
        return target
    resolved = target.resolve()
    roots = (Path(script).parent.resolve(), models_dir().resolve())
    if not any(resolved.is_relative_to(root) for root in roots):
        raise ValueError(
            f"{name!r} is outside the script's folder and the shipped models (a script "
            "reads only there; segsim run --allow-outside lifts this)"
        )
    return target


def load_script(path: str | Path, *, allow_outside: bool = False) -> FightScript:
    """Read and check a fight script; errors name the file, line and field.

    ``allow_outside`` lets its ``scenario`` be anywhere (see :func:`scenario_path`)."""
    plain = Source.read(path)
    source = _ScriptSource(plain.path, plain.text, plain.data)
    root = source.root()
    head = root.table("fight")
    name = head.value("name", str, "")
    seed = seed_field(head, None)
    max_segments = head.value("max_segments", int, None, min=1)
    combatants: list[ScriptCombatant] = []
    if head.has("scenario"):
        if head.has("ruleset") or root.has("combatant") or root.has("options"):
            raise head.error(
                "scenario",
                'give either scenario = "..." or ruleset = "..." with [[combatant]] '
                "tables, not both",
            )
        try:
            where = scenario_path(
                source.path, head.value("scenario", str), allow_outside=allow_outside
            )
        except ValueError as exc:
            raise head.error("scenario", str(exc)) from None
        if not where.is_file():
            raise head.error("scenario", f"no scenario file {str(where)!r}")
        scenario = load_scenario(where)
        ruleset = scenario.ruleset
        for c in scenario.combatants:
            combatants.append(
                ScriptCombatant(c.id, c.side, c.sheet, c.name, c.position, c.is_pc, c.setup)
            )
        name = name or scenario.name
        seed = scenario.seed if seed is None else seed
        max_segments = scenario.max_segments if max_segments is None else max_segments
    else:
        ruleset = ruleset_from_data(root, head)
        seen: set[str] = set()
        nodes = root.tables("combatant")
        for node in nodes:
            combatants.append(_combatant(node, ruleset, seen))
        check_setups(ruleset, nodes, combatants)
        if len(combatants) < 2:
            raise root.error("combatant", "a fight needs at least two [[combatant]] entries")
        if len({c.side for c in combatants}) < 2:
            raise root.error("combatant", "all combatants are on one side: nobody to fight")
    head.finish()
    ids = [c.id for c in combatants]
    entries = _entries(root.table("segment", {}), ids)
    rolls = _rolls(root.table("dice", {}))
    root.finish()
    return FightScript(
        source=source,
        name=name,
        ruleset=ruleset,
        combatants=tuple(combatants),
        entries=entries,
        rolls=rolls,
        seed=0 if seed is None else seed,
        max_segments=36_000 if max_segments is None else max_segments,
    )


def _combatant(node: Node, ruleset: Any, seen: set[str]) -> ScriptCombatant:
    """A ``[[combatant]]`` as in a scenario, without a policy (the script decides)."""
    entry = read_combatant(node, ruleset, seen, with_policy=False)
    return ScriptCombatant(
        id=entry.id,
        side=entry.side,
        sheet=entry.sheet,
        name=entry.name,
        position=entry.position,
        is_pc=entry.is_pc,
        setup=entry.setup,
    )


def _entries(table: Node, ids: list[str]) -> dict[str, dict[int, tuple[ScriptItem, ...]]]:
    """``[segment.N]`` tables: ``fighter = declaration(s)`` at segment N."""
    out: dict[str, dict[int, tuple[ScriptItem, ...]]] = {cid: {} for cid in ids}
    for key, _ in list(table.items()):
        if not _SEGMENT.fullmatch(key):
            raise table.error(key, f"a segment number (0, 1, 2...), not {key!r}")
        segment = table.child(key)
        seg = int(key)
        for cid, raw in list(segment.items()):
            if cid not in out:
                raise segment.error(
                    cid, f"no combatant {cid!r} in this fight (it has {', '.join(ids)})"
                )
            values = raw if isinstance(raw, list) else [raw]
            if not values:
                raise segment.error(cid, "an empty list: leave the fighter out instead")
            items = tuple(_item(segment, cid, v, i, len(values)) for i, v in enumerate(values))
            out[cid][seg] = items
    return out


def _item(segment: Node, cid: str, raw: Any, index: int, count: int) -> ScriptItem:
    which = f"entry {index + 1}: " if count > 1 else ""
    if isinstance(raw, str):
        if not raw:
            raise segment.error(cid, f"{which}an action kind, not an empty string")
        return Declaration(raw)
    if not isinstance(raw, Mapping):
        raise segment.error(
            cid,
            f'{which}expected an action ("arm"), a table {{ action = ... }} or a list '
            f"of them, got {raw!r}",
        )
    if "cancel" in raw:
        extra = sorted(set(raw) - {"cancel"})
        if extra:
            raise segment.error(cid, f"{which}a cancellation takes nothing else ({extra[0]})")
        what = raw["cancel"]
        if isinstance(what, bool) or not isinstance(what, str | int):
            raise segment.error(
                cid, f"{which}cancel names an action kind or an action id, not {what!r}"
            )
        if isinstance(what, int) and what < 1:
            raise segment.error(cid, f"{which}an action id is 1 or more, not {what!r}")
        return Cancel(what) if isinstance(what, int) else CancelKind(what)
    kind = raw.get("action")
    if not isinstance(kind, str) or not kind:
        raise segment.error(cid, f'{which}missing action = "..." (the action kind)')
    target = raw.get("target")
    if target is not None and not isinstance(target, str):
        raise segment.error(cid, f"{which}target is a combatant id, not {target!r}")
    params = {k: v for k, v in raw.items() if k not in _RESERVED}
    against = params.get("against")
    if isinstance(against, Mapping):
        extra = sorted(set(against) - {"by", "kind"})
        by, what = against.get("by"), against.get("kind")
        if extra or not isinstance(by, str) or not (what is None or isinstance(what, str)):
            raise segment.error(
                cid,
                f"{which}against names an action: its id (against = 9) or its author and "
                f'kind (against = {{ by = "canahan", kind = "attack" }}), not {against!r}',
            )
    declaration = Declaration(kind, target, params)
    problem = declaration_problem(declaration)
    if problem is not None:
        raise segment.error(cid, f"{which}{problem}")
    return declaration


def _rolls(table: Node) -> tuple[tuple[str | None, int], ...]:
    raw = table.value("rolls", list, [])
    out: list[tuple[str | None, int]] = []
    for i, value in enumerate(raw):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            out.append((None, value))
            continue
        m = _DIE.fullmatch(value) if isinstance(value, str) else None
        if m is None or int(m.group(2)) < 1:
            raise InputError(
                table.source.path,
                table.source.line_of((*table.path, "rolls", i)),
                f"dice.rolls[{i}]",
                f'a roll is a face (42) or a die and its face ("d100:42"), not {value!r}',
            )
        out.append((f"d{m.group(1)}", int(m.group(2))))
    table.finish()
    return tuple(out)


__all__ = ["SCRIPT_POLICY", "FightScript", "ScriptPolicy", "load_script"]
