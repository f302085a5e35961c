"""The action catalogue: a stable numbering of what an agent may declare.

Index ``i`` always means the same thing for a scenario: an action kind, a target slot
(the ``k``-th other combatant in the fight's order, as the agent sees it) and a spend
option. Index 0 is ``continue``: declare nothing new (a fighter who must act then
waits). At a declaration boundary each entry is *resolved* against the observation into
concrete declarations, or None when it makes no sense now; the action mask marks the
entries that resolve to declarations the ruleset accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from segsim.actions import Declaration, DeclarationLike
from segsim.policy import Observation

Resolver = Callable[[Observation, "Entry", Sequence[str]], list[DeclarationLike] | None]


@attrs.frozen
class Entry:
    """One catalogue entry: ``kind`` on the combatant in ``slot`` with ``spend``."""

    kind: str
    slot: int | None = None
    spend: str = ""
    params: Mapping[str, Any] = attrs.field(factory=dict)

    @property
    def label(self) -> str:
        out = self.kind
        if self.params:
            out += "(" + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"
        if self.slot is not None:
            out += f" @slot{self.slot}"
        if self.spend:
            out += f" +{self.spend}"
        return out


CONTINUE = Entry("continue")


@attrs.frozen
class Catalogue:
    """Entries and how to turn one into declarations for an observation."""

    ruleset: str
    slots: int
    entries: tuple[Entry, ...]
    resolver: Resolver = attrs.field(eq=False, repr=False)

    def __len__(self) -> int:
        return len(self.entries)

    def resolve(
        self, index: int, obs: Observation, slot_ids: Sequence[str]
    ) -> list[DeclarationLike] | None:
        """Declarations for entry ``index`` now ([] for continue; None: not applicable)."""
        entry = self.entries[index]
        if entry.kind == "continue":
            return []
        if entry.slot is not None and (
            entry.slot >= len(slot_ids) or not _present(obs, slot_ids[entry.slot])
        ):
            return None
        return self.resolver(obs, entry, slot_ids)

    def labels(self) -> list[str]:
        return [e.label for e in self.entries]


def _present(obs: Observation, cid: str) -> bool:
    return any(o.id == cid for o in obs.others)


# ---------------------------------------------------------------- generic catalogue


def generic_resolver(
    obs: Observation, entry: Entry, slot_ids: Sequence[str]
) -> list[DeclarationLike] | None:
    """The first legal declaration of that kind (and target) the observation lists."""
    target = slot_ids[entry.slot] if entry.slot is not None else None
    for d in obs.legal():
        if (
            isinstance(d, Declaration)
            and d.kind == entry.kind
            and d.target == target
            and all(d.params.get(k) == v for k, v in entry.params.items())
        ):
            return [d]
    return None


def generic_catalogue(
    ruleset: str, slots: int, untargeted: Sequence[str], targeted: Sequence[str]
) -> Catalogue:
    """Continue, each untargeted kind, each targeted kind on each slot, resolved from
    ``observation.legal()``."""
    entries = [CONTINUE, *(Entry(k) for k in untargeted)]
    for slot in range(slots):
        entries += [Entry(k, slot) for k in targeted]
    return Catalogue(ruleset, slots, tuple(entries), generic_resolver)


# ---------------------------------------------------------------- RinKaNou


def _rinkanou_resolver(
    obs: Observation, entry: Entry, slot_ids: Sequence[str]
) -> list[DeclarationLike] | None:
    from segsim.rules.rinkanou.decisions import buy_back

    me = obs.me
    target = slot_ids[entry.slot] if entry.slot is not None else None
    kind = entry.kind
    params: dict[str, Any] = dict(entry.params)
    duration: int | None = None
    if kind == "strike":
        blows = me.weapon.blows
        blow = params.get("blow")
        if blow is None:
            blow = max(blows, key=lambda b: me.weapon.damage[b])
        elif blow not in blows:
            return None
        params["blow"] = blow
        duration = me.weapon.speed
    elif kind == "read":
        other = obs.other(target) if target is not None else None
        seen = [a for a in other.actions] if other is not None else []
        if not seen:
            return None
        params["action_id"] = max(seen, key=lambda a: (a.start, a.id)).id
    elif kind == "move":
        params.update({"toward": target, "segments": 5})
        target = None
    elif kind == "dodge":
        duration = 3
    elif kind == "parry":
        duration = me.weapon.speed
    spend = entry.spend
    against = target if kind == "strike" else None
    if spend:
        what, _, amount = spend.partition(":")
        usable = me.ps_against.get(target, 0) if target is not None else me.usable_ps
        usable = min(usable, me.usable_ps)
        n = int(amount or 1)
        if usable < n:
            return None
        params["ps"] = {what: n}
    decl = Declaration(kind, target, params)
    if kind in ("strike", "parry", "dodge", "reposition", "disengage", "move"):
        # A move rolls within an opponent's reach; on one that does not, the offer is moot.
        against = params.get("toward") if kind == "move" else against
        decl = buy_back(me, decl, against=against, duration=duration, keep_timing=True)
    return [decl]


def rinkanou_catalogue(slots: int) -> Catalogue:
    """RinKaNou: continue, wait, arm, dodge (plain, one PS faster), reposition,
    disengage, parry (weapon, with one PS of parry force, shield); per slot: strike
    (best blow, cut, thrust, best blow with one PS bonus, with one PS faster), walk
    toward it for 5 segments, read its latest visible action. A negative score is
    bought back automatically with a malus to the roll (the timing holds)."""
    entries = [
        CONTINUE,
        Entry("wait"),
        Entry("arm"),
        Entry("dodge"),
        Entry("dodge", spend="faster"),
        Entry("reposition"),
        Entry("disengage"),
        Entry("parry"),
        Entry("parry", spend="parry_force"),
        Entry("parry", params={"with": "shield"}),
    ]
    for slot in range(slots):
        entries += [
            Entry("strike", slot),
            Entry("strike", slot, params={"blow": "cut"}),
            Entry("strike", slot, params={"blow": "thrust"}),
            Entry("strike", slot, spend="bonus"),
            Entry("strike", slot, spend="faster"),
            Entry("move", slot),
            Entry("read", slot),
        ]
    return Catalogue("rinkanou", slots, tuple(entries), _rinkanou_resolver)


_CATALOGUES: dict[str, Callable[[int], Catalogue]] = {
    "rinkanou": rinkanou_catalogue,
    "chroniques": lambda slots: generic_catalogue(
        "chroniques",
        slots,
        ["pass", "simple_defence", "total_defence"],
        ["attack", "two_weapons", "move"],
    ),
    "rupture": lambda slots: generic_catalogue(
        "rupture",
        slots,
        ["pass", "prepare", "acrobatics"],
        [
            "attack",
            "threaten",
            "intimidate",
            "persuade",
            "hinder",
            "defend",
            "move",
            "help",
            "heal",
        ],
    ),
    "loss": lambda slots: generic_catalogue(
        "loss", slots, ["pass", "get_up", "pick_up", "parry", "dodge"], ["attack", "grab", "move"]
    ),
    "loreval": lambda slots: _loreval_catalogue(slots),
}


def _loreval_catalogue(slots: int) -> Catalogue:
    """Loreval: the generic kinds, the jump, and defensive counters (against one
    opponent, or hypothetical: the first attack on the fighter)."""
    base = generic_catalogue("loreval", slots, ["inaction", "grace", "jump"], ["attack", "move"])
    defensive = {"against": "defensive"}
    extra = [Entry("counter", None, params=defensive)]
    extra += [Entry("counter", slot, params=defensive) for slot in range(slots)]
    return attrs.evolve(base, entries=(*base.entries, *extra))


def register_catalogue(ruleset: str, factory: Callable[[int], Catalogue]) -> None:
    """The catalogue of a ruleset, as a function of the number of target slots."""
    _CATALOGUES[ruleset] = factory


def catalogue_for(ruleset: str, slots: int) -> Catalogue:
    factory = _CATALOGUES.get(ruleset)
    if factory is None:
        from segsim.errors import SegsimError

        raise SegsimError(
            f"no action catalogue for ruleset {ruleset!r} (known: {', '.join(sorted(_CATALOGUES))};"
            " add one with segsim.envs.register_catalogue)"
        )
    return factory(slots)
