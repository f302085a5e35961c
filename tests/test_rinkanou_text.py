"""RinKaNou rules read again against seed 004: each test is built from the text's own
wording or example (the section is cited), for the rules where segsim used to depart
from it. Fighters are those of ``models/rinkanou/fighters.toml`` (see the headers of
test_rinkanou_melee.py and test_rinkanou_ranged.py for their numbers).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim import IllegalDeclaration
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.content import default_content
from segsim.testing import declare, sheet

CONTENT = default_content()


# ------------------------------------------------------------------ 8. range malus


def test_the_range_malus_is_distance_over_increment_times_5_unfloored() -> None:
    """Seed 004, "Les portées": malus to hit = distance / increment x 5. At 330 m with a
    50 m increment that is 6.6 x 5 = -33 %, not -30 % for six whole increments; the
    damage malus is distance / increment, 6 points once rounded down."""
    f = fight(
        {"jared": {0: declare("shoot", "jacou")}, "jacou": {}},
        [27, 15],
        sheets={"jared": "jared", "jacou": "jacou"},
        sides={"jared": "red", "jacou": "blue"},
        positions={"jared": (0.0, 0.0), "jacou": (330.0, 0.0)},
        setup={"jared": {"wielding": "ranged", "loaded": True}, "jacou": {}},
    )
    f.run()
    shot = one(f, "test.rolled", test="shoot")
    assert shot.modifiers["range"] == -33
    assert one(f, "wound.taken").detail["range"] == -6


# ------------------------------------------------------------------ 9. size table


def _greatsword_cut(**options: Any) -> Any:
    giant = attrs.evolve(
        sheet("veteran"),
        weapon=CONTENT.weapons["two_handed_sword"],
        skills={"combat": 55, "two_handed_sword": 60},
        characteristics={"strength": 35, "agility": 25, "reason": 25, "reflexes": 25},
    )
    robert = sheet("robert")
    robert = attrs.evolve(robert, characteristics={**robert.characteristics, "strength": 40})
    f = fight(
        {
            "robert": {0: declare("arm"), 7: declare("parry")},
            "margaret": {0: declare("arm"), 5: declare("strike", "robert", blow="cut")},
        },
        [40, 10, 15],
        sheets={"margaret": giant, "robert": robert},
        ruleset_options=options,
    )
    f.run()
    return f


def test_the_size_table_read_in_points_enters_the_strength_contest() -> None:
    """Seed 004, "Coup de taille": the attacker's weapon size modifier adds to the
    strength contest. Default reading: one point per 10 % of the table (very large +4):
    Force +1 + 4 against Force +2 is 3 > 0, the blow goes through."""
    f = _greatsword_cut()
    assert "size" not in of(f, "test.rolled")[1].modifiers
    assert one(f, "attack.resolved").result == "hit"
    assert RinKaNou().size_table == "contest"


def test_the_size_table_read_as_a_percentage_malus_on_the_parry_roll() -> None:
    """Seed 004: the table's own title, "Malus pour parer une arme en fonction de sa
    longueur", reads as a % malus to parry: with ``size_table = "parry"`` a very large
    weapon costs the interception roll 40 % and leaves the strength contest (Force +1
    against +2: blocked)."""
    f = _greatsword_cut(size_table="parry")
    parry = of(f, "test.rolled")[1]
    assert parry.modifiers["size"] == -40
    # 55 + 30 - Mr 50 + parry scores 0 - 40 = -5: the roll of 10 fails, the blow lands.
    assert parry.chance == -5 and not parry.success
    assert one(f, "attack.resolved").result == "hit"
    f = fight(
        {
            "robert": {0: declare("arm"), 7: declare("parry")},
            "margaret": {0: declare("arm"), 5: declare("strike", "robert", blow="cut")},
        },
        [70, 10],
        sheets={
            "margaret": attrs.evolve(
                sheet("veteran"),
                weapon=CONTENT.weapons["two_handed_sword"],
                skills={"combat": 55, "two_handed_sword": 60},
                characteristics={"strength": 35, "agility": 25, "reason": 25, "reflexes": 25},
            ),
            "robert": attrs.evolve(
                sheet("robert"),
                characteristics={**sheet("robert").characteristics, "strength": 40},
            ),
        },
        ruleset_options={"size_table": "parry"},
    )
    f.run()
    # Attack 70 vs 90: Mr 20; parry 55 + 30 - 20 - 40 = 25, roll 10: intercepted; the
    # contest is Force +1 against +2 with no size: blocked.
    assert of(f, "test.rolled")[1].success
    assert one(f, "attack.resolved").result == "blocked"


def test_the_size_table_option_is_checked() -> None:
    with pytest.raises(TypeError, match="size_table"):
        RinKaNou(size_table="metres")


# ------------------------------------------------------------------ 7. "non pris en compte"

GNUS = {"mimi": (0.0, 0.0), "g1": (1.4, 0.0), "g2": (0.0, 1.0), "g3": (-1.4, 0.0)}


def _busy_mimi(mimi: dict[int, Any], dice: list[int]) -> Any:
    return fight(
        {"mimi": mimi, "g1": {0: declare("reposition")}, "g2": {}, "g3": {}},
        dice,
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNUS,
        setup={"mimi": {"ps": 3, "engage": ["g1", "g2"]}},
    )


def test_an_opponent_who_acts_while_the_fighter_is_busy_is_no_longer_taken_into_account() -> None:
    """Seed 004, "En mêlée": when an opponent taken into account resolves an action he is
    at once no longer taken into account; the fighter can still use its points against
    the others. Mimi is arming (3..5) when G1 resolves its reposition (in 4): she keeps
    her 3 PS (she is in the middle of an action) but against G2 only."""
    f = _busy_mimi({3: declare("arm")}, [50])
    f.run()
    changed = of(f, "ps.changed", actor="mimi")[-1]
    assert (changed.t, changed.ps, changed.engaged, changed.reason) == (4, 3, ("g2",), "engaged")
    f = _busy_mimi({3: declare("arm"), 6: declare("strike", "g1", ps={"bonus": 1})}, [50])
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()
    f = _busy_mimi({3: declare("arm"), 6: declare("strike", "g2", ps={"bonus": 1})}, [50, 98])
    f.run()
    assert one(f, "test.rolled", test="attack").modifiers["ps"] == 10
