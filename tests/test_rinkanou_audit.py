"""RinKaNou read again, sentence by sentence, for issue 36: the rules where segsim departed
from the words, the readings a table could play either way (ruleset options) and the
rules that had no test of their own. Each test cites its section; fighters are those of
``models/rinkanou/fighters.toml`` (Robert: Combat 50, Esquive 45, sabre 55, Souplesse
30, leather; Margaret: sabre 55, Souplesse 25, a yatagan, a gambeson).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim.rules.rinkanou import RinKaNou
from segsim.testing import declare, sheet

# ------------------------------------------------------------------ Se désengager


def _disengage_after_a_dodge(dodge_roll: int, **options: Any) -> Any:
    """Robert dodges (0..2, no blow to meet: a roll of its own, Esquive 45 + Souplesse
    30 = 75) then disengages from Margaret, who opposes."""
    f = fight(
        {"robert": {0: declare("dodge"), 3: declare("disengage")}, "margaret": {}},
        [dodge_roll, 30, 90],
        ruleset_options=options,
    )
    f.run()
    return of(f, "test.rolled", actor="robert")[1]


def test_a_disengage_is_immanquable_after_a_dodge_that_succeeded() -> None:
    """RinKaNou, "Se désengager": "vient de réussir (effectuer ?) une esquive". The text's
    word is succeed: right after a dodge rolled 50 against 75 the disengage takes +50 %;
    after one rolled 90 (a failure) it does not."""
    assert _disengage_after_a_dodge(50).modifiers["after a dodge"] == 50
    failed = _disengage_after_a_dodge(90)
    assert "after a dodge" not in failed.modifiers and failed.chance == 80


def test_the_option_after_dodge_performed_takes_the_texts_doubt() -> None:
    """The author's doubt, "(effectuer ?)", is the option ``after_dodge = "performed"``:
    any dodge made (not cancelled) will do, a failed one too."""
    assert _disengage_after_a_dodge(90, after_dodge="performed").modifiers["after a dodge"] == 50
    assert RinKaNou().after_dodge == "succeeded"
    assert "after_dodge" not in RinKaNou().options  # the default: records need not say it
    assert RinKaNou(after_dodge="performed").options["after_dodge"] == "performed"
    with pytest.raises(TypeError, match="after_dodge"):
        RinKaNou(after_dodge="tried")


def test_a_multiple_dodge_succeeded_only_if_it_escaped_every_blow() -> None:
    """A dodge of two blows (one PS for the second) that escapes one and not the other
    has not succeeded: the disengage right after it takes no +50 %."""
    f = fight(
        {
            "robert": {
                3: declare("dodge", ps={"multiple": 1}),
                6: declare("disengage", ps={"malus": 3}),  # the failed dodge's -3 bought
            },
            "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow="cut")},
            "veteran": {0: declare("arm"), 3: declare("strike", "robert", blow="cut")},
        },
        # her cut, his first dodge (escapes), the veteran's cut, his second (fails), where
        # the cut lands; then the disengage and two oppositions
        [40, 10, 40, 95, 50, 30, 90, 90],
        positions={"robert": (0.0, 0.0), "margaret": (1.0, 0.0), "veteran": (0.0, 1.0)},
        setup={"robert": {"ps": 1, "engage": ["margaret", "veteran"]}},
    )
    f.run()
    first, second = of(f, "test.rolled", actor="robert", test="dodge")
    assert first.success and not second.success
    disengage = one(f, "test.rolled", test="disengage")
    assert "after a dodge" not in disengage.modifiers


# ------------------------------------------------------------------ Coup d'estoc

THRUST = {0: declare("arm"), 3: declare("strike", "robert", blow="thrust")}


def test_a_thrust_parry_is_against_the_margin_with_the_fixed_20_by_default() -> None:
    """RinKaNou, "Coup d'estoc": a roll under the weapon skill + Souplesse with "un malus
    fixe de 20%", no size modifier. The parry is timed against the blow and made against
    its margin ("Parade"); the fixed 20 % stands where the cut's size table would (a
    thrust is harder to parry than a cut). Margaret's thrust rolls 40 against 75 (Mr
    35): 55 + 30 - 35 + 5 (her yatagan parries at -5) - 20 = 35."""
    f = fight({"robert": {0: declare("parry")}, "margaret": THRUST}, [40, 35])
    f.run()
    parry = one(f, "test.rolled", test="parry")
    assert parry.modifiers["attacker Mr"] == -35 and parry.chance == 35


def test_the_option_thrust_parry_fixed_leaves_the_margin_out() -> None:
    """The thrust paragraph alone names no margin: ``thrust_parry = "fixed"`` reads it
    so: 55 + 30 + 5 - 20 = 70."""
    f = fight(
        {"robert": {0: declare("parry")}, "margaret": THRUST},
        [40, 35],
        ruleset_options={"thrust_parry": "fixed"},
    )
    f.run()
    parry = one(f, "test.rolled", test="parry")
    assert "attacker Mr" not in parry.modifiers and parry.chance == 70
    assert RinKaNou(thrust_parry="fixed").options["thrust_parry"] == "fixed"
    assert "thrust_parry" not in RinKaNou().options
    with pytest.raises(TypeError, match="thrust_parry"):
        RinKaNou(thrust_parry="none")
    # A cut is still parried against the margin.
    cut = {0: declare("arm"), 3: declare("strike", "robert", blow="cut")}
    f = fight(
        {"robert": {0: declare("parry")}, "margaret": cut},
        [40, 35, 50],
        ruleset_options={"thrust_parry": "fixed"},
    )
    f.run()
    assert one(f, "test.rolled", test="parry").modifiers["attacker Mr"] == -35


# ------------------------------------------------------------------ Points de situation


def test_vic_tim_has_one_score_against_both_and_each_opponent_his_own() -> None:
    """RinKaNou, "En mêlée", the example: Vic Tim has 1 PS against both Ralph Abbee-Tick
    and Endésime Haldepih; he is well placed against Ralph, who has 0, and badly against
    Endésime, who has 2. One score each: Vic's counts against both, theirs against him."""
    f = fight(
        {"vic": {0: declare("arm")}, "ralph": {0: declare("arm")}, "endesime": {}},
        [],
        sheets={"vic": "robert", "ralph": "margaret", "endesime": "veteran"},
        sides={"vic": "blue"},
        positions={"vic": (0.0, 0.0), "ralph": (1.0, 0.0), "endesime": (0.0, 1.0)},
        setup={
            "vic": {"ps": 1, "engage": ["ralph", "endesime"]},
            "ralph": {"ps": 0, "engage": ["vic"]},
            "endesime": {"ps": 2, "engage": ["vic"]},
        },
        max_segments=2,
    )
    f.run()
    vic = f.state.combatants["vic"].policy.seen_at(0).me
    ralph = f.state.combatants["ralph"].policy.seen_at(0).me
    assert vic.ps == 1 and vic.ps_against == {"ralph": 1, "endesime": 1}
    assert ralph.ps == 0 and f.state.combatants["endesime"].status.ps == 2


def test_a_wound_by_itself_costs_no_situation_points() -> None:
    """RinKaNou, "En duel": points "peuvent être perdus en cas de surprise ou de
    blessure", at the game master's word and with no amount: segsim takes none for a
    wound (its malus weighs on every roll instead). Robert, arming with 2 PS, is cut by
    Margaret: wounded, he keeps his 2 PS, as any fighter busy when his opponent acts."""
    f = fight(
        {
            "robert": {0: declare("wait", until=4), 4: declare("arm")},
            "margaret": {0: declare("arm"), 3: declare("strike", "robert", blow="cut")},
        },
        [20, 15],  # her cut (Mr 55), then where it lands: the head
        setup={"robert": {"ps": 2, "engage": ["margaret"]}},
        max_segments=7,
    )
    f.run()
    wound = one(f, "wound.taken")
    assert wound.actor == "robert" and wound.wound > 0
    assert f.state.combatants["robert"].status.ps == 2
    assert not [e for e in of(f, "ps.changed", actor="robert") if e.ps != 2]


# ------------------------------------------------------------------ Tenir à distance


@pytest.mark.parametrize(
    ("changes", "malus"),
    [({}, None), ({"damage": {"cut": 8}}, ("cutting", -20)), ({"blunt": True}, ("blunt", -30))],
)
def test_keeping_at_distance_with_a_t_or_c_weapon_costs_20_or_30(
    changes: dict[str, Any], malus: tuple[str, int] | None
) -> None:
    """RinKaNou, "Tenir à distance": "Les armes de type T et C donnent un malus de -20% et
    -30%", read as tranchant (a weapon that only cuts) and contondant (blunt). Ottokar's
    spear thrusts: no malus; as a cutting-only or a blunt pole, -20 % or -30 % on
    spear 55 + Souplesse 25 - twice Robert's Souplesse 60 = 20."""
    ottokar = sheet("spearman")
    ottokar = attrs.evolve(ottokar, weapon=attrs.evolve(ottokar.weapon, **changes))
    f = fight(
        {
            "ottokar": {0: declare("keep", "robert")},
            "robert": {0: declare("move", toward="ottokar", segments=10)},
        },
        [50, 99],
        sheets={"ottokar": ottokar},
        sides={"ottokar": "red", "robert": "blue"},
        positions={"ottokar": (0.0, 0.0), "robert": (3.0, 0.0)},
        max_segments=12,
    )
    f.run()
    keep = one(f, "test.rolled", test="keep at distance")
    if malus is None:
        assert keep.chance == 20 and "cutting" not in keep.modifiers
    else:
        assert keep.modifiers[malus[0]] == malus[1] and keep.chance == 20 + malus[1]
