"""The account's legend: the terms a newcomer meets in a ruleset's account, explained once.

``segsim run --legend`` (and ``segsim replay --legend``) prints it before the account;
without it, the account's first line says where the terms are explained. The ruleset
pages (docs/rules/<ruleset>.md) hold the full rules.
"""

from __future__ import annotations

COMMON: tuple[tuple[str, str], ...] = (
    ("segment", "the clock's unit, 0.1 s; a line starts with its segment and the second it begins"),
    (
        "name = { action = ... }",
        "a declaration a fighter chose, written as a fight script's [segment.N] entry "
        "(copy it into a script); after # the segments it takes and what the rules added",
    ),
    ("forced by the rules", "an action the rules impose (not written in a script)"),
    ("#N", "an action's id in the engine (a script may name it)"),
)

TERMS: dict[str, tuple[tuple[str, str], ...]] = {
    "rinkanou": (
        ("arm, strike, lock", "ready a blow, deliver it, recover after it (lock is forced)"),
        (
            "PS",
            "situation points (points de situation): a bonus or malus on rolls against "
            "an opponent, won and lost as the fight goes",
        ),
        ("Mr / Me", "margin of success / failure: chance - roll / roll - chance (d100)"),
        ("deflection", "the defender's armour: a malus on the attacker's chance"),
        ("engage", "the opponents a fighter takes into account (prendre en compte)"),
        ("PC", "command points (points de commandement)"),
        (
            "wound, total",
            "a hit's wound points and the fighter's running total; its level "
            "(light, serious, grave, incapacitated) sets a malus",
        ),
    ),
    "chroniques": (
        (
            "round, turn",
            "a round is 100 segments (10 s); each fighter's turn takes 10 of them, "
            "in initiative order",
        ),
        ("DEF", "defence: an attack roll hits when it reaches it"),
        ("HP", "hit points; a fighter at 0 is out"),
        ("L / M / A", "limited, move and attack actions: a turn is 1 L, or 1 M + 1 A, or 2 M"),
    ),
    "loss": (
        ("round, phase", "a round counts phases down from the highest action points"),
        ("PA", "action points (points d'action): an action spends them and sets the next phase"),
        ("Exploit", "a raise of the difficulty by 5 for a stronger effect"),
        ("health levels", "the damage a fighter can take; a minion has 10"),
        ("Fursa, Inspiration", "pools spent for bonuses"),
    ),
    "loreval": (
        ("round", "60 segments (6 s); fighters declare in initiative order, then resolve"),
        ("E/S/F", "attention points on Environment, Security and Focus"),
        ("category", "an action's category: the points of initiative it costs"),
        ("counter", "a defensive or offensive answer declared ahead against an opponent"),
        ("heroism", "heroism points, spent on a heroic action"),
        ("HP", "hit points; a fighter at 0 is out"),
    ),
    "rupture": (
        ("passe", "the round: 30 segments (3 s), shared out among a fighter's actions"),
        ("qualities", "dice of 5 or 6 in a pool"),
        ("threat / cover", "what an attack adds / what a defence adds to its qualities"),
        ("effort, stress", "effort points absorb blows; what is left is physical stress"),
        ("overflow", "stress above the rupture threshold: a wound"),
    ),
}


def legend(ruleset: str) -> str:
    """The legend of a ruleset's account (the common terms, then the ruleset's)."""
    name = ruleset.lower()
    rows = (*COMMON, *TERMS.get(name, ()))
    width = max(len(term) for term, _ in rows)
    lines = [f"legend ({name}; the rules in full: docs/rules/{name}.md):"]
    lines.extend(f"  {term.ljust(width)}  {what}" for term, what in rows)
    return "\n".join(lines) + "\n"


COARSE = frozenset({"chroniques", "loss", "loreval"})
"""Rulesets whose account leaves the turns and waits the rules force to ``--verbose``."""


def where(ruleset: str) -> str:
    """The account's pointer to the legend (and, for a coarse ruleset, to --verbose)."""
    name = ruleset.lower()
    verbose = "; the turns and waits the rules force: --verbose" if name in COARSE else ""
    return f"(terms explained: --legend, or docs/rules/{name}.md{verbose})"


__all__ = ["TERMS", "legend", "where"]
