"""A defence that names no opponent (RinKaNou, "Esquive", "Points de situation", "En mêlée").

A dodge or a parry meets a blow; in a melee the points that count for it are those
against that blow's author. A defence declared without a target takes, when it is
settled, the points and the maluses against the author of the blow it meets, exactly as
if it had named him: points held against the opponents taken into account serve only
against them, and a negative score weighs only against the opponents it applies to.

The fighters are those of ``models/rinkanou/fighters.toml``: Mimi has Robert's sheet
(Esquive 45, Souplesse 30, sabre 55), the gnus are recruits (sword 25 through Combat,
Souplesse 20, a gambeson: deflection 5).
"""

from __future__ import annotations

from typing import Any

import pytest
from rinkanou_helpers import fight, of, one

from segsim import IllegalDeclaration
from segsim.testing import declare

# Mimi among four gnus: G2 and G4 are the nearest, G1 and G3 a little farther.
GNUS = {
    "mimi": (0.0, 0.0),
    "g1": (1.4, 0.0),
    "g2": (0.0, 1.0),
    "g3": (-1.4, 0.0),
    "g4": (0.0, -1.1),
}


def _gnu_attacks(
    gnu: str,
    mimi: dict[int, Any],
    dice: list[int],
    setup: dict[str, Any] | None = None,
    sheet: str = "recruit",
) -> Any:
    """``gnu`` arms at 2 and cuts Mimi at 5 (the cut ends in 7); Mimi's scripted
    defences are timed by the test. Without ``setup`` Mimi first takes G1, G2 and G3
    into account for a tactical move and ends it at -2 PS (dice: 75 for it)."""
    scripts: dict[str, dict[int, Any]] = {g: {} for g in ("g1", "g2", "g3", "g4")}
    scripts[gnu] = {2: declare("arm"), 5: declare("strike", "mimi", blow="cut")}
    if setup is None:
        mimi = {0: declare("reposition", engage=["g1", "g2", "g3"]), **mimi}
        dice = [75, *dice]
    return fight(
        {"mimi": mimi, **scripts},
        dice,
        sheets={"mimi": "robert", gnu: sheet},
        sides={"mimi": "blue"},
        positions=GNUS,
        setup={"mimi": setup} if setup is not None else None,
    )


def test_mimis_dodge_of_g1s_blow_is_not_refused_for_a_score_that_concerns_g2_and_g4() -> None:
    """RinKaNou, "En mêlée", the example: at -2 PS against G2 and G4, Mimi "pourra donc
    agir sans malus de situation contre G1 et G3". Her dodge names nobody; it meets G1's
    blow, so it is settled as a dodge of G1: no buy-back asked, no malus."""
    f = _gnu_attacks("g1", {5: declare("dodge")}, [20, 30])
    f.run()
    assert of(f, "ps.changed", actor="mimi")[0].ps == -2
    attack, dodge = of(f, "test.rolled", t=7)
    assert attack.actor == "g1" and attack.success
    assert dodge.test == "dodge" and "attacker Mr" in dodge.modifiers
    assert "ps" not in dodge.modifiers  # no situation malus against G1
    assert one(f, "attack.resolved").result == "dodged"


def test_mimis_dodge_of_g2s_blow_weighs_her_deficit_against_g2() -> None:
    """RinKaNou, "En mêlée": she "sera désavantagée si G4 ou G2 entreprennent une action
    contre elle et qu'elle doit, par exemple, esquiver l'un de leurs coups". The same
    untargeted dodge, meeting G2's blow, pays the two points owed against G2 as a dodge
    that named G2 would have bought them back: -10 % a point."""
    f = _gnu_attacks("g2", {5: declare("dodge")}, [20, 30])
    f.run()
    dodge = one(f, "test.rolled", test="dodge")
    assert dodge.modifiers["ps"] == -20
    # Points she bought back herself count: with two bought, nothing more is owed.
    f = _gnu_attacks("g2", {5: declare("dodge", ps={"malus": 2})}, [20, 30])
    f.run()
    assert one(f, "test.rolled", test="dodge").modifiers["ps"] == -20


def test_a_dodge_of_an_opponent_not_taken_into_account_gets_no_bonus_from_points_held_against_another() -> (  # noqa: E501
    None
):
    """RinKaNou, "En mêlée": "On ne peut pas utiliser ces points pour un adversaire non
    pris en compte". Mimi holds 2 PS with G1 alone taken into account and spends both
    on a dodge that names nobody: against G3's blow they give nothing; against G1's,
    +20 %."""
    setup = {"ps": 2, "engage": ["g1"]}
    dodge = {5: declare("dodge", ps={"bonus": 2})}
    f = _gnu_attacks("g3", dodge, [20, 30], setup)
    f.run()
    assert "ps" not in one(f, "test.rolled", test="dodge").modifiers
    f = _gnu_attacks("g1", dodge, [20, 30], setup)
    f.run()
    assert one(f, "test.rolled", test="dodge").modifiers["ps"] == 20


@pytest.mark.parametrize(
    ("gnu", "ps"),
    [
        ("g1", {}),
        ("g1", {"malus": 1}),
        ("g3", {"malus": 1, "bonus": 1}),
        ("g2", {"malus": 2}),
        ("g4", {"malus": 3, "bonus": 1}),
    ],
)
def test_an_untargeted_dodge_is_settled_as_if_it_had_named_the_author(
    gnu: str, ps: dict[str, int]
) -> None:
    """Mimi at -2 PS (against G2 and G4): any dodge she could declare against the gnu
    that strikes her gives the same roll whether it names him or nobody."""
    rolls = []
    for target in (gnu, None):
        f = _gnu_attacks(gnu, {5: declare("dodge", target, ps=ps)}, [20, 30])
        f.run()
        rolls.append(one(f, "test.rolled", test="dodge").modifiers)
    assert rolls[0] == rolls[1]


def test_an_untargeted_parry_takes_the_points_against_the_author_of_the_blow() -> None:
    """A parry meets a blow like a dodge. Mimi, armed, with G1 alone taken into account,
    spends 1 PS on a bonus and 1 on parry force (+5 in the strength contest) against a
    cut of a gnu as strong as a veteran (Force +1 against her 0). Against G3 neither
    point counts: 1 against 0 and the cut goes through; against G1 both do: 1 against 5,
    blocked."""
    setup = {"ps": 2, "engage": ["g1"], "armed": True}
    parry = {5: declare("parry", ps={"bonus": 1, "parry_force": 1})}
    # The cut: sword 60 + 25 - 5 = 80, rolled 50 (Mr 30); the parry, rolled 30, then
    # where the blow lands (against G3: against G1 the parry blocks it).
    f = _gnu_attacks("g3", parry, [50, 30, 50], setup, sheet="veteran")
    f.run()
    assert "ps" not in one(f, "test.rolled", test="parry").modifiers
    assert one(f, "attack.resolved").result == "hit"
    f = _gnu_attacks("g1", parry, [50, 30], setup, sheet="veteran")
    f.run()
    assert one(f, "test.rolled", test="parry").modifiers["ps"] == 10
    assert one(f, "attack.resolved").result == "blocked"


def test_a_named_defence_is_still_checked_when_it_is_declared() -> None:
    """Naming the opponent keeps the declaration's check (RinKaNou, "Achat de points de
    situation": a negative score must be bought back before acting against him)."""
    f = _gnu_attacks("g2", {5: declare("dodge", "g2")}, [20, 30])
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        f.run()


def test_an_untargeted_defence_that_meets_no_blow_buys_back_against_the_nearest() -> None:
    """A dodge with no blow to meet is a move of its own (RinKaNou, "Achat de points de
    situation": a tactical move is resolved with the current score, "ce qui implique de
    racheter d'éventuels PS négatifs"). Mimi at -2, dodging nobody's blow, owes her two
    points against the nearest gnu, G2: -20 %, unless she bought them back."""
    f = _gnu_attacks("g1", {12: declare("dodge")}, [20, 50, 30])
    f.run()
    lone = [e for e in of(f, "test.rolled", test="dodge") if "attacker Mr" not in e.modifiers]
    assert [e.modifiers.get("ps") for e in lone] == [-20]
    f = _gnu_attacks("g1", {12: declare("dodge", ps={"malus": 2})}, [20, 50, 30])
    f.run()
    lone = [e for e in of(f, "test.rolled", test="dodge") if "attacker Mr" not in e.modifiers]
    assert [e.modifiers.get("ps") for e in lone] == [-20]
