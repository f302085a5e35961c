"""Helpers for the Loss tests: fighters from the examples with changes, and a policy
that plays a list of turns and a list of answers to attacks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from segsim import Fight, LoadedDice
from segsim.actions import Declaration
from segsim.events import Event
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.loss import Loss
from segsim.rules.loss.content import Sheet

RULES = Loss()


def sheet(who: str, **changes: Any) -> Sheet:
    base: Sheet = RULES.load_sheet(RULES.content.fighters[who])
    return attrs.evolve(base, **changes) if changes else base


def dodge(exploits: int = 0, **params: Any) -> dict[str, Any]:
    return {"kind": "dodge", **({"exploits": exploits} if exploits else {}), **params}


def parry(**params: Any) -> dict[str, Any]:
    return {"kind": "parry", **params}


class Plays:
    """Plays ``turns`` in order at each of its phases (None lets the phase go by) and
    ``answers`` in order to each attack it may parry or dodge (None: no defence; a dict
    ``{"kind": "dodge", ...params}``); takes a counter-attack when ``counters`` says so.
    Observations are kept (frozen) in :attr:`seen`."""

    reactive = True
    name = "plays"

    def __init__(
        self,
        turns: Sequence[Declaration | None] = (),
        answers: Sequence[Mapping[str, Any] | None] = (),
        counters: Sequence[Declaration] = (),
    ) -> None:
        self.turns = list(turns)
        self.answers = list(answers)
        self.counters = list(counters)
        self.seen: list[Observation] = []
        self.turn_segments: list[int] = []

    def decide(self, obs: Observation) -> Any:
        me = obs.me
        out: list[Declaration] = []
        if me.counters and self.counters:
            self.seen.append(obs.freeze())
            n = min(len(me.counters), len(self.counters))
            taken, self.counters = self.counters[:n], self.counters[n:]
            return taken[0] if n == 1 else taken
        for inc in me.incoming:
            if not self.answers:
                break
            spec = self.answers.pop(0)
            if spec is not None:
                params = {k: v for k, v in spec.items() if k != "kind"}
                out.append(Declaration(spec["kind"], params={"against": inc.attack, **params}))
        if me.my_turn:
            self.turn_segments.append(obs.segment)
            self.seen.append(obs.freeze())
            if self.turns:
                turn = self.turns.pop(0)
                if turn is not None:
                    out.append(turn)
        return out or None


def arena(
    fighters: Mapping[str, tuple[str, str | Sheet, Any]],
    *,
    dice: Iterable[int | tuple[str, int]] = (),
    options: Mapping[str, Any] | None = None,
    positions: Mapping[str, tuple[float, float]] | None = None,
    pcs: Iterable[str] = (),
    setup: Mapping[str, Mapping[str, Any]] | None = None,
    **kwargs: Any,
) -> Fight:
    """Fighters 1.5 m apart in a row (in contact with their neighbours) unless placed."""
    rules = Loss(**dict(options or {}))
    pcs = set(pcs)
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        the_sheet = sheet(who) if isinstance(who, str) else who
        pos = (positions or {}).get(cid, (1.5 * i, 0.0))
        specs.append(
            CombatantSpec(
                cid,
                side,
                the_sheet,
                policy,
                position=pos,
                is_pc=cid in pcs,
                setup=dict((setup or {}).get(cid, {})),
            )
        )
    kwargs.setdefault("max_segments", 400)
    return Fight(rules, specs, dice=LoadedDice(dice), **kwargs)


def of_type(fight: Fight, cls: type[Event]) -> list[Any]:
    return [e for e in fight.history if isinstance(e, cls)]
