"""A fight at the table: the engine's paused API, players' secret declarations, the record.

A :class:`TableSession` owns one fight whose fighters held at the table have the
:class:`TablePolicy` (an external policy: the fight pauses at their declaration phases,
:meth:`segsim.fight.Fight.advance`). Players and the game master declare for their
fighters one by one; each declaration is checked by the rules at once
(:meth:`~segsim.fight.Fight.check`) and kept secret until everyone called has declared
(or the game master closes the phase), when they are all handed to
:meth:`~segsim.fight.Fight.submit` together. The session holds no rules of its own.

Everything that happens follows from the set-up, the seed (or the dice the table typed
in) and the decisions of each phase, which the session keeps (:class:`Phase`): so undo
replays the fight to the phase before, a branch replays it up to a segment into a new
record, ``--resume`` replays a record's declarations, and a die the table rolls by hand
is asked for when the rules draw it (:class:`DieWanted`) and the fight replayed with it.
The record is written as the fight goes: each phase's events are appended and flushed.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from segsim.actions import DeclarationLike
from segsim.dice import Dice
from segsim.errors import SegsimError
from segsim.fight import Fight
from segsim.policy import Observation
from segsim.record import dumps, event_data
from segsim.table.data import (
    Item,
    TableError,
    declaration_data,
    load_body,
    parse_items,
    plain,
)
from segsim.table.setup import TABLE_POLICY, DieWanted, TableDice, TablePolicy, TableSetup

ACCOUNT_LINES = 60
"""How many of the latest account lines a page is sent."""

_RECORD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


@attrs.frozen
class Phase:
    """A declaration phase as the table closed it: its segment and what each fighter
    called declared (JSON items: ``{"kind", "target", "params"}`` or ``{"cancel": id}``;
    none: nothing new)."""

    segment: int
    decisions: Mapping[str, tuple[Mapping[str, Any], ...]]
    auto: bool = False
    """Closed by itself: nobody called had anything to declare (see TableSession._show)."""


Feed = Callable[[Fight, int, Mapping[str, Observation]], Phase | None]
"""What the replay of a session's fight declares at its ``i``-th paused phase (None:
stop there)."""


def cancellable(fight: Fight, cid: str) -> list[Any]:
    """``cid``'s actions in progress it could name in a cancellation (the rules say
    whether it may)."""
    return [a for a in fight.state.combatants[cid].actions if not a.continuous and not a.forced]


def idle(fight: Fight, cid: str, obs: Observation) -> bool:
    """Whether ``cid`` need not act and may declare nothing: no declaration listed by the
    rules, no action to cancel."""
    return not obs.must_act and not obs.legal() and not cancellable(fight, cid)


class TableSession:
    """One fight at the table: who holds which fighter, the phase in progress, the
    declarations made in it (secret), the dice, the record."""

    def __init__(
        self,
        setup: TableSetup,
        record: str | Path,
        *,
        table_dice: bool = False,
        players: Mapping[str, Sequence[str]] | None = None,
        entered: Sequence[tuple[str, int]] = (),
        phases: Sequence[Phase] = (),
        resume: Any = None,
    ) -> None:
        self.setup = setup
        self.record_path = Path(record)
        self.table_dice = table_dice
        self.entered: list[tuple[str, int]] = list(entered)
        self.lock = threading.RLock()
        self.version = 0
        held = {f.id for f in setup.fighters if f.policy is None}
        ids = [f.id for f in setup.fighters]
        self.holder: dict[str, str] = {cid: "gm" for cid in held}
        self.players: dict[str, tuple[str, ...]] = {}
        for name, cids in (players or {}).items():
            if not name or name == "gm" or not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", name):
                raise SegsimError(f"--player {name!r}: a player's name is letters and digits")
            for cid in cids:
                if cid not in ids:
                    raise SegsimError(
                        f"--player {name}={cid}: no fighter {cid!r} (there are {', '.join(ids)})"
                    )
                if cid not in held:
                    raise SegsimError(f"--player {name}={cid}: {cid} is played by its policy")
                if self.holder[cid] != "gm":
                    raise SegsimError(f"{cid} is given to two players")
                self.holder[cid] = name
            self.players[name] = tuple(cids)
        self.gm_token = secrets.token_urlsafe(18)
        self.tokens: dict[str, str] = {name: secrets.token_urlsafe(18) for name in self.players}
        self.fight: Fight
        self.dice: Dice
        self.phases: list[Phase] = []
        self.wanted: DieWanted | None = None
        self.declared: dict[str, tuple[tuple[Item, ...], list[DeclarationLike]]] = {}
        self.views: dict[str, dict[str, Any]] = {}
        self.written = 0
        self.message = ""
        if resume is not None:
            self._resume(resume)
        else:
            old = list(phases)
            self._rebuild(self._feed_phases(old))
        self._rewrite()

    # ------------------------------------------------------------ who is asking

    def role(self, token: str | None) -> str | None:
        """``"gm"``, a player's name, or None for a token that is no one's."""
        if not token:
            return None
        found = None
        if secrets.compare_digest(token, self.gm_token):
            found = "gm"
        for name, mine in self.tokens.items():
            if secrets.compare_digest(token, mine):
                found = name
        return found

    def may_see(self, who: str, cid: str) -> bool:
        return who == "gm" or self.holder.get(cid) == who

    # ------------------------------------------------------------ replaying the fight

    def _new_fight(self) -> Fight:
        seed = self.setup.seed
        self.dice = TableDice(self.entered, seed) if self.table_dice else Dice(seed)
        self.fight = self.setup.fight(self.dice)
        self.wanted = None
        self.declared = {}
        self.views = {}
        return self.fight

    def _advance(self) -> bool:
        """Run the fight to its next phase at the table; False when it has ended or waits
        for a die."""
        try:
            return bool(self.fight.advance())
        except DieWanted as wanted:
            self.wanted = wanted
            return False

    def _rebuild(self, feed: Feed) -> None:
        """A fresh fight, driven through its phases at the table with what ``feed``
        declares, up to the phase it stops at."""
        fight = self._new_fight()
        phases: list[Phase] = []
        while self._advance():
            pending = fight.pending
            phase = feed(fight, len(phases), pending)
            if phase is None:
                break
            items = phase.decisions
            decisions = {cid: parse_items(list(items.get(cid, ())))[1] for cid in pending}
            fight.submit(decisions)
            phases.append(phase)
        self.phases = phases
        self._show()
        if isinstance(self.dice, TableDice) and self.wanted is None:
            del self.entered[self.dice.used :]

    @staticmethod
    def _feed_phases(old: Sequence[Phase]) -> Feed:
        def feed(fight: Fight, i: int, pending: Mapping[str, Observation]) -> Phase | None:
            if i >= len(old):
                return None
            phase = old[i]
            if phase.segment != fight.state.segment or set(phase.decisions) - set(pending):
                raise SegsimError(  # pragma: no cover - the fight is deterministic
                    f"phase {i} no longer fits the fight (segment {fight.state.segment})"
                )
            return phase

        return feed

    def _resume(self, plan: Any) -> None:
        """Replay a record's declarations at the table's phases, up to its last line."""
        from segsim.replay import _canonical
        from segsim.script import CancelKind

        events = plan.record.events
        target = len(events)
        if events and events[-1].get("type") == "end":
            target -= 1  # an ended fight: played through its last phase

        def feed(fight: Fight, i: int, pending: Mapping[str, Observation]) -> Phase | None:
            if len(fight.history) >= target:
                return None
            seg = fight.state.segment
            out: dict[str, tuple[Item, ...]] = {}
            for cid in pending:
                recorded = plan.declarations.get(cid, {}).get(seg, ())
                items: list[Item] = []
                for d in recorded:
                    if isinstance(d, CancelKind):
                        d = d.resolve(fight.state.combatants[cid].actions, cid, seg)
                    items.append(declaration_data(d))
                if items:
                    out[cid] = tuple(items)
            auto = not out and all(idle(fight, cid, obs) for cid, obs in pending.items())
            return Phase(seg, out, auto)

        self._rebuild(feed)
        produced = [self.fight.header(), *(event_data(e) for e in self.fight.history)]
        expected = [plan.record.header, *events]
        for i, (exp, got) in enumerate(zip(expected, produced, strict=False)):
            if _canonical(exp) != _canonical(got):
                raise SegsimError(f"{plan.record.source}: line {i + 1} does not replay")
        if len(produced) < len(expected):
            raise SegsimError(
                f"{plan.record.source}: line {len(produced) + 1} does not replay "
                f"({self.wanted or 'the fight stops before it'})"
            )

    # ------------------------------------------------------------ the record

    def _lines(self, start: int) -> list[str]:
        return [dumps(event_data(e)) + "\n" for e in self.fight.history[start:]]

    def _rewrite(self) -> None:
        """Write the whole record anew (after undo, a branch, a resume), atomically: up
        to the last phase shown (not the half-settled segment of a die asked for)."""
        count = self.written if self.wanted is not None else len(self.fight.history)
        tmp = self.record_path.with_name(self.record_path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(dumps(self.fight.header()) + "\n")
            f.writelines(self._lines(0)[:count])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.record_path)
        self.written = count

    def _append(self) -> None:
        """Append the events since the last write and flush them to the disk."""
        if self.wanted is not None:
            return
        lines = self._lines(self.written)
        if not lines:
            return
        with open(self.record_path, "a", encoding="utf-8", newline="\n") as f:
            f.writelines(lines)
            f.flush()
            os.fsync(f.fileno())
        self.written = len(self.fight.history)

    # ------------------------------------------------------------ what pages show

    @property
    def phase(self) -> int:
        """The number of the phase in progress (how many phases have closed)."""
        return len(self.phases)

    @property
    def ended(self) -> bool:
        return self.fight.ended and self.wanted is None

    def _show(self) -> None:
        """The views of the fighters called to the phase in progress, made while it is
        fresh (and kept: nothing changes until the phase closes).

        A fighter called who need not act and may declare nothing (the rules list no
        declaration and it has no action to cancel: a Loss fighter between its turns)
        is not asked: it declares nothing new at once, and a phase where nobody has
        anything to declare closes by itself."""
        while True:
            self.views = {}
            if self.wanted is not None:
                return
            for cid, obs in self.fight.pending.items():
                self.views[cid] = self._view(cid, obs)
            idle = [
                cid
                for cid, view in self.views.items()
                if not view["must_act"] and not view["legal"] and not view["cancels"]
            ]
            for cid in idle:
                self.declared[cid] = ((), [])
            if not self.views or len(idle) < len(self.views):
                return
            self.fight.submit({})
            self.phases.append(Phase(self.fight.state.segment, {}, auto=True))
            self.declared = {}
            if not self._advance():
                self.views = {}
                return

    def _view(self, cid: str, obs: Observation) -> dict[str, Any]:
        c = self.fight.state.combatants[cid]
        legal = [declaration_data(d) for d in obs.legal()]
        cancels = [
            {"cancel": a.id, "kind": a.kind, "ends": a.end} for a in cancellable(self.fight, cid)
        ]
        return {
            "cid": cid,
            "name": c.name,
            "side": c.side,
            "segment": obs.segment,
            "must_act": obs.must_act,
            "me": plain(obs.me),
            "others": plain(obs.others),
            "legal": legal,
            "cancels": cancels,
        }

    def _account(self) -> list[list[Any]]:
        from segsim.views.account import describe, routine_line

        out: list[list[Any]] = []
        for e in reversed(self.fight.history):
            data = event_data(e)
            if data["type"] == "die.rolled" or routine_line(data):
                continue
            out.append([e.t, describe(data)])
            if len(out) >= ACCOUNT_LINES:
                break
        out.reverse()
        return out

    def _outcome(self) -> dict[str, Any] | None:
        outcome = self.fight.outcome
        if outcome is None or self.wanted is not None:
            return None
        return {"result": outcome.result, "winner": outcome.winner, "cause": outcome.cause}

    def _catalogue(self) -> dict[str, list[list[str]]]:
        """Every action kind of the ruleset with the parameters it accepts and what each
        takes (``segsim content``'s words), for the forms: what ``legal()`` lists is one
        declaration of each kind, and the rest (points to spend...) is typed in."""
        from segsim.rules.parameters import kinds, parameters

        name = self.setup.ruleset.name
        words = parameters(name)
        return {k: [[p, words.get(p, "")] for p in ps] for k, ps in kinds(name).items()}

    def _common(self) -> dict[str, Any]:
        return {
            "kinds": self._catalogue(),
            "version": self.version,
            "name": self.setup.name,
            "ruleset": self.setup.ruleset.name,
            "segment": self.fight.state.segment,
            "phase": self.phase,
            "outcome": self._outcome(),
            "waiting_for_die": self.wanted is not None,
            "message": self.message,
            "account": self._account(),
        }

    def gm_state(self) -> dict[str, Any]:
        with self.lock:
            called = [
                {
                    "cid": cid,
                    "name": view["name"],
                    "holder": self.holder.get(cid, "gm"),
                    "declared": cid in self.declared,
                    "must_act": view["must_act"],
                }
                for cid, view in self.views.items()
            ]
            return {
                **self._common(),
                "role": "gm",
                "record": str(self.record_path),
                "dice": "table" if self.table_dice else "seed",
                "wanted": self.wanted.data() if self.wanted is not None else None,
                "called": called,
                "forms": [
                    {**view, "declared": cid in self.declared}
                    for cid, view in self.views.items()
                    if self.holder.get(cid) == "gm"
                ],
                "players": [
                    {"name": name, "fighters": list(cids), "token": self.tokens[name]}
                    for name, cids in self.players.items()
                ],
                "fighters": [
                    {
                        "cid": f.id,
                        "name": f.name,
                        "side": f.side,
                        "holder": self.holder.get(f.id) or f"policy {f.policy}",
                    }
                    for f in self.setup.fighters
                ],
                "segments": sorted({p.segment for p in self.phases}),
                "can_undo": any(not p.auto for p in self.phases),
            }

    def player_state(self, who: str) -> dict[str, Any]:
        with self.lock:
            mine = self.players[who]
            return {
                **self._common(),
                "role": "player",
                "player": who,
                "fighters": [
                    {
                        "cid": cid,
                        "name": self.fight.state.combatants[cid].name,
                        "called": cid in self.views,
                        "declared": cid in self.declared,
                        "in_fight": self.fight.state.combatants[cid].in_fight,
                    }
                    for cid in mine
                ],
                "forms": [
                    {**self.views[cid], "declared": cid in self.declared}
                    for cid in mine
                    if cid in self.views
                ],
            }

    def observation(self, who: str, cid: str) -> dict[str, Any]:
        """What ``cid`` perceives in the phase in progress (403: not ``who``'s)."""
        with self.lock:
            if not self.may_see(who, cid):
                raise TableError(403, f"{cid} is not yours")
            view = self.views.get(cid)
            if view is None:
                raise TableError(409, f"{cid} is not called to this phase")
            return view

    # ------------------------------------------------------------ acting

    def _check_phase(self, phase: Any) -> None:
        if not isinstance(phase, int) or isinstance(phase, bool):
            raise TableError(400, "phase: the number of the phase the page shows")
        if self.wanted is not None:
            raise TableError(409, "the table is waiting for a die")
        if phase != self.phase:
            raise TableError(409, f"phase {phase} has closed: now phase {self.phase}")
        if self.ended:
            raise TableError(409, "the fight is over")

    def _changed(self, message: str = "") -> None:
        self.message = message
        self.version += 1

    def declare(self, who: str, cid: Any, phase: Any, raw: Any) -> dict[str, Any]:
        """``who`` declares ``raw`` for ``cid`` in ``phase``: checked by the rules now,
        kept secret until the phase closes (when everyone called has declared)."""
        with self.lock:
            if not isinstance(cid, str):
                raise TableError(400, "fighter: a fighter id")
            if not self.may_see(who, cid):
                raise TableError(403, f"{cid} is not yours to declare for")
            self._check_phase(phase)
            if cid not in self.views:
                raise TableError(409, f"{cid} is not called to this phase")
            items, decls = parse_items(raw)
            try:
                self.fight.check(cid, decls)
            except SegsimError as exc:
                raise TableError(422, str(exc)) from None
            except Exception as exc:  # a parameter the rules cannot even read: refused too
                raise TableError(422, f"refused: {type(exc).__name__}: {exc}") from None
            self.declared[cid] = (items, decls)
            closed = False
            if set(self.declared) >= set(self.views):
                self._close()
                closed = True
            else:
                self._changed()
            return {"ok": True, "closed": closed, "phase": self.phase}

    def close(self, phase: Any) -> dict[str, Any]:
        """The game master closes the phase: who has not declared declares nothing new."""
        with self.lock:
            self._check_phase(phase)
            self._close()
            return {"ok": True, "phase": self.phase}

    def _close(self) -> None:
        fight = self.fight
        seg = fight.state.segment
        decisions = {cid: decls for cid, (_, decls) in self.declared.items()}
        try:
            fight.submit(decisions)
        except SegsimError as exc:
            actor = getattr(exc, "actor", None)
            if isinstance(actor, str):
                self.declared.pop(actor, None)
            self._changed(str(exc))
            raise TableError(422, str(exc)) from None
        self.phases.append(
            Phase(seg, {cid: items for cid, (items, _) in self.declared.items() if items})
        )
        self.declared = {}
        self._advance()
        self._show()
        self._append()
        self._changed()

    def undo(self, phase: Any) -> dict[str, Any]:
        """Replay the fight to the phase before the last one closed (its declarations are
        asked again); the record loses that phase's lines."""
        with self.lock:
            if not isinstance(phase, int) or isinstance(phase, bool):
                raise TableError(400, "phase: the number of the phase the page shows")
            if phase != self.phase:
                raise TableError(409, f"phase {phase} has closed: now phase {self.phase}")
            keep = list(self.phases)
            while keep and keep[-1].auto:
                keep.pop()
            if not keep:
                raise TableError(409, "nothing to undo: no phase has closed")
            self._rebuild(self._feed_phases(keep[:-1]))
            self._rewrite()
            self._changed("the last phase was undone")
            return {"ok": True, "phase": self.phase}

    def branch(self, segment: Any, name: Any) -> dict[str, Any]:
        """Replay the fight up to ``segment`` into a new record ``name`` (beside the
        current one), and go on from there; the current record stays as it is."""
        with self.lock:
            if not isinstance(segment, int) or isinstance(segment, bool) or segment < 0:
                raise TableError(400, "segment: a segment number (0 or more)")
            if not isinstance(name, str) or not _RECORD_NAME.fullmatch(name):
                raise TableError(
                    400, "record: a file name (letters, digits, '.', '_', '-'), no folder"
                )
            target = self.record_path.parent / name
            if target.exists():
                raise TableError(409, f"{name} exists: choose another name")
            self._rebuild(self._feed_phases([p for p in self.phases if p.segment < segment]))
            self.record_path = target
            self._rewrite()
            self._changed(f"branched at segment {segment} into {name}")
            return {"ok": True, "phase": self.phase, "record": name}

    def enter_die(self, draw: Any, value: Any) -> dict[str, Any]:
        """The face the table rolled for the die asked for (``draw``: its number)."""
        with self.lock:
            wanted = self.wanted
            if wanted is None:
                raise TableError(409, "no die is asked for now")
            if not isinstance(draw, int) or isinstance(draw, bool) or draw != wanted.index:
                raise TableError(409, f"die {draw} is not the one asked for ({wanted.index})")
            if not isinstance(value, int) or isinstance(value, bool):
                raise TableError(400, "value: a whole number")
            if not 1 <= value <= wanted.sides:
                raise TableError(422, f"{value} is not a face of a d{wanted.sides}")
            self.entered.append((f"d{wanted.sides}", value))
            self._rebuild(self._feed_phases(self.phases))
            self._append()
            self._changed()
            return {"ok": True, "phase": self.phase}


__all__ = [
    "TABLE_POLICY",
    "DieWanted",
    "Phase",
    "TableDice",
    "TableError",
    "TablePolicy",
    "TableSession",
    "TableSetup",
    "load_body",
    "parse_items",
]
