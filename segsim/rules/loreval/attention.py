"""Attention (Loreval, "Attention"): points spread over Environment, Security and Focus,
their modifiers, limits, exposure, and what Focus allows.

Each fighter has attention points (``Sheet.attention_points``) and spreads them over the
three criteria when it declares (points d'attention: Environnement, Sécurité, Focus). A
criterion's *score* is the points put in it, minus maluses (1 per lost sense), capped by
limits (a closed helm caps Environment at 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from segsim.rules.loreval.content import TEXT

RULE_ATTENTION = f"{TEXT}, Attention"
CRITERIA = ("environment", "security", "focus")


@attrs.frozen
class Attention:
    """Points put in each criterion (critères d'attention: E, S, F)."""

    environment: int = 0
    security: int = 0
    focus: int = 0

    @property
    def total(self) -> int:
        return self.environment + self.security + self.focus

    def as_dict(self) -> dict[str, int]:
        return {"environment": self.environment, "security": self.security, "focus": self.focus}

    @classmethod
    def parse(cls, raw: Any) -> Attention:
        """From ``{"environment": 1, "security": 1, "focus": 0}`` (missing keys are 0);
        raises ValueError naming what is wrong. A table of the criteria's whole numbers
        (what the built-in policies declare) is read without the general checks, and
        gives the one shared value of its scores (a frozen value: sharing it changes
        nothing)."""
        kind = type(raw)
        if (kind is MappingProxyType or kind is dict) and cls is Attention:
            e = raw.get("environment", 0)
            s = raw.get("security", 0)
            f = raw.get("focus", 0)
            if (
                type(e) is int
                and type(s) is int
                and type(f) is int
                and e >= 0
                and s >= 0
                and f >= 0
                and len(raw) == ("environment" in raw) + ("security" in raw) + ("focus" in raw)
            ):
                shape = (e, s, f)
                found = _SHARED.get(shape)
                if found is None:
                    if len(_SHARED) >= 4096:
                        _SHARED.clear()
                    found = _SHARED[shape] = Attention(e, s, f)
                return found
        if not isinstance(raw, Mapping):
            raise ValueError(f"attention is a table of environment, security, focus: {raw!r}")
        unknown = sorted(set(raw) - set(CRITERIA))
        if unknown:
            raise ValueError(f"unknown attention criterion {unknown[0]!r}")
        values = {}
        for key in CRITERIA:
            v = raw.get(key, 0)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"attention {key} must be a whole number >= 0, not {v!r}")
            values[key] = v
        return cls(**values)


_SHARED: dict[tuple[int, int, int], Attention] = {}
"""The attention values :meth:`Attention.parse` made, by their scores (bounded)."""


def perception_modifier(score: int) -> int:
    """Environment and Security column of the table: +4 at 3 and +2 per point above,
    -4 at -1 and -2 per point below, 0 from 0 to 2 (Loreval, "Tableau récapitulatif des
    modificateurs d'attention")."""
    if score >= 3:
        return 4 + 2 * (score - 3)
    if score <= -1:
        return -4 - 2 * (-1 - score)
    return 0


def focus_modifier(score: int) -> int:
    """Focus column: +2 at 3 and +1 per point above, -2 at -1 and -1 per point below."""
    if score >= 3:
        return 2 + (score - 3)
    if score <= -1:
        return -2 - (-1 - score)
    return 0


def movement_modifier(extra_moves: int) -> int:
    """Extra movement: -4 for the first, -2 for each further one, on everything
    (Loreval, "Déplacement supplémentaire")."""
    if extra_moves <= 0:
        return 0
    return -4 - 2 * (extra_moves - 1)


def scores(
    attention: Attention,
    *,
    malus: int = 0,
    environment_limit: int | None = None,
    security_limit: int | None = None,
    floor: int | None = None,
) -> Attention:
    """Scores of the criteria: points minus ``malus`` (1 per sense lost), capped by the
    limits (a closed helm caps Environment at 1, grappling caps Security), never below
    ``floor`` when one applies (blind fighting)."""

    # each criterion in turn, without a function made and called for each
    environment = attention.environment - malus
    if environment_limit is not None and environment_limit < environment:
        environment = environment_limit
    security = attention.security - malus
    if security_limit is not None and security_limit < security:
        security = security_limit
    focus = attention.focus - malus
    if floor is not None:
        if environment < floor:
            environment = floor
        if security < floor:
            security = floor
        if focus < floor:
            focus = floor
    return Attention(environment, security, focus)


def exposure(security: int, aware: int, unaware: int) -> int:
    """The malus to Defence and Reflex from sources of danger (Loreval, "Sécurité").

    A fighter faces ``security + 1`` sources of danger. More sources it is aware of:
    exposed (-4). A source it is not aware of: exposed (-4) if it is still within what
    its Security covers, doubly exposed (-6) otherwise.
    """
    covered = max(0, security + 1)
    if unaware > 0:
        return -6 if aware + unaware > covered else -4
    return -4 if aware > covered else 0


def focus_needed(category: int) -> int:
    """Focus needed for a category: 0 for 1-2, 1 for 3-4, 2 for 5 and more."""
    if category <= 2:
        return 0
    if category <= 4:
        return 1
    return 2


def sneak_possible(focus: int, security: int, virtual: int = 0) -> bool:
    """A sneak or perfidious attack needs the attacker's Focus (plus the virtual points of
    sneak attack, for a sneak attack) at least 2 above the target's Security
    (Loreval, "Attaque sournoise et attaque perfide")."""
    return focus + virtual >= security + 2
