"""Simultaneous actions (RinKaNou, "Actions simultanées"): each rolled action of a fighter
gives its other rolled actions a malus of -10 % + its difficulty / 2, that difficulty
including what the rules impose on it. Both maluses are worked out from the two
declarations before either action rolls, so they never depend on the order in which the
fighters are listed (and so the order in which their rolls are made).

Robert (sabre 55, Souplesse 30, leather) and Margaret (yatagan through sabre 55,
Souplesse 25, a gambeson: deflection 5) are the example fighters of
``models/rinkanou/fighters.toml``.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rinkanou_helpers import fight, of

from segsim import IllegalDeclaration
from segsim.dice import LoadedDice
from segsim.testing import declare


def _cut_and_dodge(first: str, blow: str = "cut") -> list[Any]:
    """Robert cuts Margaret while dodging her blow: his cut, his dodge and her blow all
    end in segment 5."""
    scripts = {
        "robert": {
            0: declare("arm"),
            3: [declare("strike", "margaret", blow="cut"), declare("dodge", "margaret")],
        },
        "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow=blow)},
    }
    order = [first, "margaret" if first == "robert" else "robert"]
    f = fight({cid: scripts[cid] for cid in order}, [30, 20, 50, 50, 50])
    f.run()
    return of(f, "test.rolled", actor="robert")


def _maluses(rolled: list[Any]) -> dict[str, int]:
    return {e.test: e.modifiers.get("simultaneous", 0) for e in rolled}


def test_a_dodge_and_a_cut_get_the_same_maluses_whichever_fighter_is_listed_first() -> None:
    """RinKaNou, "Actions simultanées". The cut's difficulty is what the rules impose on
    it: Margaret's deflection, -5, so the dodge takes -10 - 2.5 = -12. The dodge's,
    against her cut, is average (0): the cut takes -10. Before, Robert listed first gave
    {cut -10, dodge -12} and Margaret first {cut -32, dodge -10}: her attack's margin
    counted only when it had rolled before his cut."""
    robert_first = _maluses(_cut_and_dodge("robert"))
    margaret_first = _maluses(_cut_and_dodge("margaret"))
    assert robert_first == margaret_first == {"attack": -10, "dodge": -12}


def test_the_rules_malus_of_the_blow_a_dodge_meets_counts_before_it_rolls() -> None:
    """A dodge against a thrust is at -20 % (RinKaNou, "Esquive"): that is its
    difficulty as the declarations fix it, so Robert's cut takes -10 - 10 = -20,
    whichever fighter is listed first."""
    for first in ("robert", "margaret"):
        assert _maluses(_cut_and_dodge(first, "thrust")) == {"attack": -20, "dodge": -12}


def test_an_action_that_rolled_in_an_earlier_segment_weighs_with_its_whole_difficulty() -> None:
    """Once the other action has been settled its difficulty is known, the attacker's
    margin included: Robert's dodge of Margaret's thrust (Mr 35, -20 for the thrust:
    -55) ended in segment 5, his cut ends in 6 and takes -10 - 27 = -37 (the test of
    tests/test_rinkanou_text.py, whose dodge takes -12 from the cut's deflection)."""
    f = fight(
        {
            "robert": {
                0: declare("arm"),
                3: declare("dodge", "margaret"),
                4: declare("strike", "margaret", blow="cut"),
            },
            "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow="thrust")},
        },
        [40, 5, 20, 15],
    )
    f.run()
    assert _maluses(of(f, "test.rolled", actor="robert")) == {"dodge": -12, "attack": -37}


# ---------------------------------------------------------------- the property

BLOWS = st.sampled_from(["cut", "thrust"])


@st.composite
def _duel(draw: st.DrawFn) -> dict[str, dict[int, Any]]:
    """Two fighters arming then striking each other, each perhaps dodging (naming the
    other or nobody), repositioning or parrying around it, at drawn segments."""
    scripts: dict[str, dict[int, Any]] = {}
    for me, other in (("robert", "margaret"), ("margaret", "robert")):
        arm = draw(st.integers(0, 3))
        script: dict[int, Any] = {arm: declare("arm")}
        strike = arm + 3 + draw(st.integers(0, 2))
        at_strike = [declare("strike", other, blow=draw(BLOWS))]
        extra = draw(st.sampled_from(["none", "dodge", "dodge_named", "reposition"]))
        when = draw(st.integers(max(0, strike - 3), strike + 2))
        if extra != "none":
            if extra == "reposition":
                legs = declare("reposition", difficulty=draw(st.sampled_from([0, -15, 15])))
            else:
                legs = declare("dodge", other if extra == "dodge_named" else None)
            if when == strike:
                at_strike.append(legs)
            elif when == arm:
                script[arm] = [script[arm], legs]
            else:
                script[when] = legs
        script[strike] = at_strike if len(at_strike) > 1 else at_strike[0]
        scripts[me] = script
    return scripts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts=_duel(), face=st.integers(1, 100))
def test_swapping_the_listing_order_never_changes_the_simultaneous_maluses(
    scripts: dict[str, dict[int, Any]], face: int
) -> None:
    """The same declarations and the same faces (every die shows ``face``, so no roll
    depends on the order the dice are drawn in) give every test the same simultaneous
    malus whichever fighter is listed first."""
    seen = []
    for order in (("robert", "margaret"), ("margaret", "robert")):
        f = fight(
            {cid: scripts[cid] for cid in order},
            LoadedDice([face] * 400, strict=False),  # type: ignore[arg-type]  # a pool: fights draw what they draw
            max_segments=40,
        )
        try:
            f.run()
        except IllegalDeclaration as refused:
            # when both fighters are refused in one segment, the first listed is named
            seen.append(("refused", re.search(r"segment \d+", str(refused)).group()))  # type: ignore[union-attr]
            continue
        seen.append(
            sorted(
                (e.t, e.actor, e.test, e.modifiers.get("simultaneous", 0))
                for e in of(f, "test.rolled")
            )
        )
    assert seen[0] == seen[1]
