"""RinKaNou situation points (PS): start, results, resets, spends, buys, melee
(RinKaNou, "Points de situation", "Utilisation des points de situation", "Achat de
points de situation", "Faire jouer une spécialisation d'arme"; RULES-NOTES).

Walter (Margaret's sheet) attacks at 55 sabre + 25 Souplesse - 5 leather = 75 %.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from rinkanou_helpers import fight, of, one

from segsim import Cancel, IllegalDeclaration
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou import ruleset as ruleset_module
from segsim.rules.rinkanou.content import default_content
from segsim.rules.rinkanou.roll import TestResult
from segsim.rules.rinkanou.ruleset import _BARE, KINDS
from segsim.rules.rinkanou.settle import ps_from_result
from segsim.rules.rinkanou.situation import SHAPES, parse_ps
from segsim.testing import declare, sheet

WALTER_ATTACKS = {0: declare("arm"), 3: declare("strike", "amadeus", blow="cut")}
DUEL = {"sheets": {"amadeus": "robert", "walter": "margaret"}, "sides": {"amadeus": "blue"}}


def amadeus_and_walter(amadeus: dict[int, Any], dice: list[int], **kw: Any) -> Any:
    return fight(
        {"amadeus": amadeus, "walter": WALTER_ATTACKS},
        dice,
        setup={"amadeus": {"ps": 2}, "walter": {"ps": 1}},
        **DUEL,
        **kw,
    )


def ps_events(f: Any, actor: str) -> list[tuple[int, int, str]]:
    return [(e.t, e.ps, e.reason) for e in of(f, "ps.changed", actor=actor)]


# ------------------------------------------------------------------ the duel example


def test_amadeus_does_nothing_and_loses_his_points_when_walters_attack_resolves() -> None:
    """RinKaNou example (Amadeus Dekuet, 2 PS, against Walter Hoffili, 1 PS)."""
    f = amadeus_and_walter({}, [40, 15])  # Mr 35: 35 // 20 = 1 PS
    f.run()
    assert ps_events(f, "amadeus") == [(0, 2, "start"), (5, 0, "reset")]
    assert ps_events(f, "walter") == [(0, 1, "start"), (5, 1, "result")]


def test_amadeus_parries_with_his_two_points_and_gets_a_score_from_his_parry() -> None:
    parry = declare("parry", ps={"bonus": 2})
    f = amadeus_and_walter({0: declare("arm"), 3: parry}, [40, 20, 15])
    f.run()
    test = of(f, "test.rolled", test="parry")[0]
    assert test.modifiers["ps"] == 20 and test.chance == 55 + 30 - 35 + 5 + 20
    assert ps_events(f, "amadeus")[-1] == (5, 55 // 20, "result")
    assert ps_events(f, "walter")[-1] == (5, 1, "result")


def test_a_fighter_in_the_middle_of_an_action_keeps_its_points() -> None:
    f = amadeus_and_walter({2: declare("reposition")}, [40, 15, 50])
    f.run()
    # At segment 5 Amadeus is repositioning (2..6): no reset; his own result comes at 6.
    assert ps_events(f, "amadeus") == [(0, 2, "start"), (6, (80 - 50) // 20, "result")]


def test_a_cancelled_action_counts_as_resolved() -> None:
    """RinKaNou: a cancelled action is resolved, "par rapport aux PS notamment"."""
    cancel = {3: declare("dodge"), 4: lambda obs: Cancel(obs.me.doing("legs").id)}
    f = amadeus_and_walter(cancel, [40, 15])
    f.run()
    assert (4, 0, "result") in ps_events(f, "amadeus")
    # Walter was striking (3..5) when Amadeus resolved: he keeps his point.
    assert ps_events(f, "walter")[:2] == [(0, 1, "start"), (5, 1, "result")]


# ------------------------------------------------------------------ scores


@pytest.mark.parametrize(
    ("chance", "roll", "divisor", "ps"),
    [
        (75, 40, 20, 1),  # Mr 35 / 20
        (75, 40, 10, 3),  # the text's alternative: Mr / 10
        (75, 33, 20, 4),  # critical success: tens + 1
        (75, 33, 10, 4 + 4),  # alternative: Mr / 10 + tens + 1
        (75, 95, 20, -1),  # Me 20 / 20
        (75, 88, 20, -8),  # critical failure: minus the tens
        (75, 100, 20, -10),  # 100 is "00": tens 10
        (75, 90, 20, 0),  # Me 15 / 20 rounds to 0
    ],
)
def test_situation_points_after_an_action(chance: int, roll: int, divisor: int, ps: int) -> None:
    assert ps_from_result(TestResult(chance, roll), divisor) == ps


def test_the_divisor_option_reaches_the_fight() -> None:
    f = amadeus_and_walter({}, [40, 15], ruleset_options={"ps_divisor": 10})
    f.run()
    assert ps_events(f, "walter")[-1] == (5, 3, "result")


def test_start_of_fight_roll_gives_mr_or_me_over_10_with_the_game_masters_modifier() -> None:
    """RinKaNou, "En duel": Combat + Raison at the start; PS = Mr / 10 or -Me / 10."""
    f = fight(
        {"robert": {}, "margaret": {}},
        [30, 90],
        setup={"robert": {"start_modifier": -20}},
        start_roll=True,
    )
    f.run()
    robert, margaret = of(f, "test.rolled")
    assert robert.chance == 50 + 25 - 20 and robert.modifiers["situation"] == -20
    assert margaret.chance == 50 + 20
    assert ps_events(f, "robert") == [(0, (55 - 30) // 10, "start")]
    assert ps_events(f, "margaret") == [(0, -((90 - 70) // 10), "start")]


# ------------------------------------------------------------------ spends and buys

CONTENT = default_content()
ROBERT = sheet("robert")
MARGARET = sheet("margaret")  # specialization yatagan 10 %


def use(
    ps: dict[str, Any],
    available: int = 10,
    kind: str = "strike",
    duration: int | None = 3,
    who: Any = ROBERT,
) -> Any:
    return parse_ps(
        ps,
        kind=kind,
        duration=duration,
        rolled=kind != "arm",
        sheet=who,
        weapon_used=kind in ("strike", "parry"),
        available=available,
        tables=CONTENT.tables,
    )


@pytest.mark.parametrize(
    ("ps", "kind", "duration", "field", "value"),
    [
        ({"faster": 3}, "reposition", 5, "duration", -3),  # 5 segments -> 2 (the text's example)
        ({"bonus": 2}, "strike", 3, "chance", 20),
        ({"damage": 2}, "strike", 3, "damage", 10),
        ({"aim": "head"}, "strike", 3, "cost", 3),
        ({"orient": 2, "toward": "head"}, "strike", 3, "orient", 2),
        ({"multiple": 2}, "dodge", 3, "multiple", 2),
        ({"parry_force": 1}, "parry", 3, "parry_force", 5),
        ({"slower": 3}, "reposition", 5, "duration", 3),
        ({"malus": 2}, "strike", 3, "chance", -20),
        ({"limit_damage": 2}, "strike", 3, "damage", -10),
        ({"approximate": 3}, "strike", 3, "gain", 3),
    ],
)
def test_each_spend_and_buy(
    ps: dict[str, Any], kind: str, duration: int, field: str, value: int
) -> None:
    assert getattr(use(ps, kind=kind, duration=duration), field) == value


@pytest.mark.parametrize(
    ("ps", "kind", "duration", "message"),
    [
        ({"faster": 4}, "reposition", 5, "at most 3 PS can shorten it"),
        ({"faster": 1}, "lock", 1, "at most 0 PS can shorten it"),
        ({"slower": 4}, "reposition", 5, "lengthened by at most 3"),
        ({"approximate": 4}, "strike", 3, "at most 3 PS"),
        ({"aim": "tail"}, "strike", 3, "cannot aim at 'tail'"),
        ({"orient": 1}, "strike", 3, "orient needs toward"),
        ({"multiple": 1}, "strike", 3, "multiple dodge is for a dodge"),
        ({"damage": 1}, "dodge", 3, "only a strike"),
        ({"parry_force": 1}, "strike", 3, "parry force is for a parry"),
        ({"faster": 1, "slower": 1}, "strike", 3, "either faster or slower"),
        ({"aim": "head", "orient": 1, "toward": "head"}, "strike", 3, "exclude each other"),
        ({"haste": 1}, "strike", 3, "unknown PS use 'haste'"),
        ({"bonus": -1}, "strike", 3, "whole number"),
        ({"specialization": 1}, "strike", 3, "no specialization"),
    ],
)
def test_caps_and_misuse_are_illegal(
    ps: dict[str, Any], kind: str, duration: int, message: str
) -> None:
    with pytest.raises(IllegalDeclaration, match=message):
        use(ps, kind=kind, duration=duration)


def test_specialization_bonus_is_capped_by_its_level() -> None:
    """Margaret's yatagan specialization is 10 %: one PS gives +10 %, not +20 %; a second
    point is worth nothing and is refused. Its malus buys at most half the level."""
    assert use({"specialization": 1}, who=MARGARET).chance == 10
    with pytest.raises(IllegalDeclaration, match="worth at most 1 PS"):
        use({"specialization": 2}, who=MARGARET)
    assert use({"spec_malus": 1}, who=MARGARET).chance == -5
    with pytest.raises(IllegalDeclaration, match="half the level"):
        use({"spec_malus": 2}, who=MARGARET)


def test_one_point_too_many_and_buying_to_spend() -> None:
    assert use({"bonus": 2}, available=2).net == 2
    with pytest.raises(IllegalDeclaration, match="spends 3 PS and buys 0, but only 2"):
        use({"bonus": 3}, available=2)
    # Points bought serve the action itself: buy two segments, spend two on the roll.
    bought = use({"slower": 2, "bonus": 2}, available=0)
    assert (bought.net, bought.duration, bought.chance) == (0, 2, 20)


def test_a_negative_score_must_be_bought_back() -> None:
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        use({}, available=-2)
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        use({"malus": 1}, available=-2)
    assert use({"malus": 1, "slower": 1}, available=-2).gain == 2


def test_in_a_fight_spends_change_the_roll_the_damage_and_the_duration() -> None:
    strike = declare("strike", "amadeus", blow="cut", ps={"faster": 1, "bonus": 1, "damage": 1})
    f = fight(
        {"amadeus": {}, "walter": {0: declare("arm"), 3: strike}},
        [40, 15],
        setup={"walter": {"ps": 3}},
        **DUEL,
    )
    f.run()
    declared = one(f, "action.declared", kind="strike")
    assert (declared.duration, declared.ends_in) == (2, 4)
    attack = one(f, "test.rolled")
    assert attack.modifiers["ps"] == 10 and attack.chance == 85
    wound = one(f, "wound.taken")
    assert wound.detail["ps"] == 5 and wound.damage == 9 + 4 + 1 + 5 - 3


def test_spent_points_are_not_spent_twice_by_concurrent_actions() -> None:
    both = [declare("parry", ps={"bonus": 2}), declare("dodge", ps={"bonus": 1})]
    f = fight(
        {"amadeus": {0: declare("arm"), 3: both}, "walter": {}},
        [],
        setup={"amadeus": {"ps": 2}},
        **DUEL,
    )
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()


def test_aim_at_a_location_costs_3_ps_and_skips_the_location_roll() -> None:
    strike = declare("strike", "amadeus", blow="cut", ps={"aim": "head"})
    f = fight(
        {"amadeus": {}, "walter": {0: declare("arm"), 3: strike}},
        [40],
        setup={"walter": {"ps": 3}},
        **DUEL,
    )
    f.run()
    wound = one(f, "wound.taken")
    assert wound.location == "head" and wound.detail["aimed"] == "head"
    assert len(of(f, "die.rolled")) == 1


def test_jasmine_orients_her_blow_two_steps_from_the_abdomen_to_the_throat() -> None:
    """RinKaNou, "Orienter son coup": Jasmine Scébouh, 2 PS, hits the abdomen; the head is
    3 steps away, so she settles for the throat."""
    assert CONTENT.tables.steps("abdomen", "head") == ["abdomen", "chest", "throat", "head"]
    strike = declare("strike", "amadeus", blow="cut", ps={"orient": 2, "toward": "head"})
    f = fight(
        {"amadeus": {}, "walter": {0: declare("arm"), 3: strike}},
        [40, 30],  # the location roll 30 is the abdomen
        setup={"walter": {"ps": 2}},
        **DUEL,
    )
    f.run()
    wound = one(f, "wound.taken")
    assert wound.location == "throat" and wound.detail["rolled"] == "abdomen"


def test_an_approximate_strike_drifts_one_location_per_point_by_the_dice() -> None:
    strike = declare("strike", "amadeus", blow="cut", ps={"approximate": 2})
    f = fight(
        {"amadeus": {}, "walter": {0: declare("arm"), 3: strike}},
        [40, 30, 1, 1],  # abdomen -> first neighbour (chest) -> first neighbour (throat)
        **DUEL,
    )
    f.run()
    assert one(f, "wound.taken").location == "throat"
    drifts = [d for d in of(f, "die.rolled") if d.purpose == "approximate strike"]
    assert [d.die for d in drifts] == ["d2", "d4"]  # abdomen: chest or hips; chest: 4 ways


# ------------------------------------------------------------------ melee

GNUS = {
    "mimi": (0.0, 0.0),
    "g1": (1.4, 0.0),
    "g2": (0.0, 1.0),
    "g3": (-1.4, 0.0),
    "g4": (0.0, -1.1),
}


def gnus(mimi: dict[int, Any], dice: list[int], **kw: Any) -> Any:
    scripts = {"mimi": mimi, "g1": {}, "g2": {}, "g3": {}, "g4": {}}
    return fight(
        scripts,
        dice,
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNUS,
        **kw,
    )


def test_mimi_kraus_auft_negative_score_applies_to_the_two_nearest_gnus() -> None:
    """RinKaNou, "En mêlée": Mimi takes G1, G2 and G3 into account for a tactical move,
    ends at -2 PS; G2 and G4 are nearest, so the -2 applies against them only."""
    move = declare("reposition", engage=["g1", "g2", "g3"])
    f = gnus({0: move, 5: declare("arm")}, [75])  # Mr 5 -> 0 PS, minus 2 for two extra gnus
    f.run()
    assert ps_events(f, "mimi")[-1] == (4, -2, "result")
    mimi = f.state.combatants["mimi"].policy
    seen = mimi.seen_at(5).me
    assert seen.ps == -2 and seen.engaged == ("g1", "g2", "g3")
    assert seen.ps_against == {"g1": 0, "g2": -2, "g3": 0, "g4": -2}


def test_against_an_affected_gnu_mimi_must_buy_back_against_the_others_not() -> None:
    def strike(target: str, ps: dict[str, int] | None = None) -> Any:
        params: dict[str, Any] = {"blow": "cut"}
        if ps is not None:
            params["ps"] = ps
        return declare("strike", target, **params)

    base = {0: declare("reposition", engage=["g1", "g2", "g3"]), 5: declare("arm")}
    f = gnus({**base, 8: strike("g1")}, [75, 90])
    f.run()  # G1 is not affected: no buy-back needed
    assert one(f, "action.declared", kind="strike").target == "g1"
    f = gnus({**base, 8: strike("g2")}, [75])
    with pytest.raises(IllegalDeclaration, match="buy the deficit back"):
        f.run()
    f = gnus({**base, 8: strike("g2", {"malus": 2})}, [75, 90])
    f.run()
    assert one(f, "test.rolled", test="attack").modifiers["ps"] == -20


def test_each_extra_opponent_taken_into_account_costs_a_point() -> None:
    f = gnus({0: declare("reposition", engage=["g1", "g2", "g3", "g4"])}, [20])
    f.run()
    assert ps_events(f, "mimi")[-1] == (4, (80 - 20) // 20 - 3, "result")


def test_points_serve_only_against_opponents_taken_into_account() -> None:
    f = gnus(
        {0: declare("arm"), 3: declare("strike", "g3", ps={"bonus": 1})},
        [],
        setup={"mimi": {"ps": 2, "engage": ["g1"]}},
    )
    with pytest.raises(IllegalDeclaration, match="only 0 can be used"):
        f.run()


def test_an_opponent_taken_into_account_who_resolves_drops_out_of_the_set() -> None:
    scripts = {"mimi": {}, "g1": {0: declare("reposition")}, "g2": {}, "g3": {}, "g4": {}}
    f = fight(
        scripts,
        [50],
        sheets={"mimi": "robert"},
        sides={"mimi": "blue"},
        positions=GNUS,
        setup={"mimi": {"ps": 3, "engage": ["g1", "g2"]}},
    )
    f.run()
    changed = of(f, "ps.changed", actor="mimi")[-1]
    assert (changed.t, changed.ps, changed.engaged, changed.reason) == (4, 3, ("g2",), "engaged")


def test_engage_must_name_opponents_and_include_the_target() -> None:
    f = gnus({0: declare("reposition", engage=["mimi"])}, [])
    with pytest.raises(IllegalDeclaration, match="same side"):
        f.run()
    f = gnus({0: declare("arm"), 3: declare("strike", "g1", engage=["g2"])}, [])
    with pytest.raises(IllegalDeclaration, match="must be among the opponents"):
        f.run()


def test_ruleset_options_are_checked() -> None:
    with pytest.raises(TypeError, match="ps_divisor"):
        RinKaNou(ps_divisor=15)


def test_policies_see_their_ps_limits() -> None:
    f = fight({"robert": {0: declare("arm")}, "margaret": {}}, [], setup={"robert": {"ps": 2}})
    f.run()
    me = f.state.combatants["robert"].policy.seen_at(0).me
    assert me.ps == 2 and me.usable_ps == 2 and me.engaged == ("margaret",)
    dodge = me.ps_limits("dodge")
    assert dodge["faster"] == 2 and dodge["multiple"] == 2 and dodge["damage"] == 0
    strike = me.ps_limits("strike")
    assert strike["faster"] == 2 and strike["aim"] == 0 and strike["approximate"] == 3
    assert me.ps_limits("reposition")["faster"] == 2  # capped by the score, not by 3


def _strike_ps(ps: dict[str, Any], tables: Any, cache: dict[tuple[Any, ...], Any]) -> Any:
    """Robert's 3-segment strike with ``ps``, checked through ``cache``."""
    return parse_ps(
        ps,
        kind="strike",
        duration=3,
        rolled=True,
        sheet=ROBERT,
        weapon_used=True,
        available=5,
        tables=tables,
        cache=cache,
    )


def test_a_checked_shape_lets_no_other_type_of_value_through() -> None:
    """1, 1.0 and True are equal keys, but only 1 is a number of points: a shape
    checked once with 1 still refuses 1.0 and True (RinKaNou, Utilisation des PS)."""
    cache: dict[tuple[Any, ...], Any] = {}
    assert _strike_ps({"bonus": 1}, CONTENT.tables, cache).chance == 10
    for bad in (True, 1.0):
        with pytest.raises(IllegalDeclaration, match="must be a whole number of points"):
            _strike_ps({"bonus": bad}, CONTENT.tables, cache)
    # the shape is checked once
    assert _strike_ps({"bonus": 1}, CONTENT.tables, cache) is _strike_ps(
        {"bonus": 1}, CONTENT.tables, cache
    )


def test_a_checked_aim_is_checked_again_against_other_locations() -> None:
    """The shared cache keys a shape by the tables' hit locations: an aim checked against
    the default table is refused by tables without that location."""
    cache: dict[tuple[Any, ...], Any] = {}
    tables = CONTENT.tables
    renamed = attrs.evolve(
        tables,
        locations=tuple(
            attrs.evolve(loc, name="crown") if loc.name == "head" else loc
            for loc in tables.locations
        ),
    )
    assert _strike_ps({"aim": "head"}, tables, cache).aim == "head"
    with pytest.raises(IllegalDeclaration, match="cannot aim at 'head'"):
        _strike_ps({"aim": "head"}, renamed, cache)


def test_every_ruleset_shares_the_checked_shapes() -> None:
    assert RinKaNou()._ps_shapes is RinKaNou(ps_divisor=10)._ps_shapes is SHAPES


def test_the_settlement_reads_the_choices_the_planner_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The planner keeps the effects of the PS choices it checked for the action it
    planned, and the settlement reads them there; an action it did not plan (a copy, one
    read back from a record) has its choices worked out again, to the same effects."""
    strike = declare("strike", "amadeus", blow="cut", ps={"slower": 1, "bonus": 2})
    f = fight(
        {"amadeus": {}, "walter": {0: declare("arm"), 3: strike}},
        [40, 15],
        setup={"walter": {"ps": 3}},
        **DUEL,
    )
    rules = f.ruleset
    assert isinstance(rules, RinKaNou)
    checked: list[Any] = []
    spec_use = rules._spec_use
    monkeypatch.setattr(rules, "_spec_use", lambda *a, **k: checked.append(a) or spec_use(*a))
    f.run()
    assert checked == []  # the settlement checked nothing again
    action = one(f, "action.declared", kind="strike")
    use = rules.ps_use(f.state, action)
    assert (use.chance, use.duration, use.net) == (20, 1, 1)
    assert one(f, "test.rolled").modifiers["ps"] == 20
    copy = attrs.evolve(action)
    assert rules.ps_use(f.state, copy) == use and len(checked) == 1
    assert rules.ps_use(f.state, copy) is rules.ps_use(f.state, copy)  # kept in turn
    assert len(checked) == 1


def test_the_kinds_the_planner_adds_nothing_to_are_those_that_take_no_points() -> None:
    # The planner returns an action of these kinds as its planner made it (unless it
    # rolls): none of them takes PS, PC or an engagement, which it would have to add.
    for name, kind in KINDS.items():
        takes = {"ps", "pc", "engage"} & kind.params
        assert (name in _BARE) == (not takes), name
    assert {"wait", "lock", "draw"} <= _BARE
    assert not {"strike", "arm", "dodge", "move", "read", "shoot"} & _BARE


def test_the_planner_looks_over_a_declaration_that_cannot_change_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the planner reads from a declaration alone (its kind's rules, its channel)
    is kept in a checked declaration's notes: planned again, it is not looked over
    again. One holding a list (which could change) is looked over on every use, and a
    bad one is refused on every use."""
    looked: list[Any] = []  # the declarations looked over
    noted = ruleset_module._noted
    monkeypatch.setattr(ruleset_module, "_noted", lambda d: looked.append(d) or noted(d))

    def times(declaration: Any) -> int:  # looked over (the same one, not an equal one)
        return sum(d is declaration for d in looked)

    arm = declare("arm")
    listed = declare("arm", engage=["amadeus"])
    strike = declare("strike", "amadeus", blow="cut")
    f = fight(
        {"amadeus": {0: arm}, "walter": {0: listed, 3: strike, 9: listed, 12: strike}},
        [90, 90],
        **DUEL,
    )
    f.run()
    walter = [a.kind for a in of(f, "action.declared", actor="walter") if a.kind != "wait"]
    assert walter == [
        "arm",
        "strike",
        "lock",
        "arm",
        "strike",
        "lock",
    ]
    assert times(strike) == 1 and times(arm) == 1
    assert strike.notes is not None and strike.notes[0] is KINDS and arm.notes is not None
    assert times(listed) == 2 and listed.notes is None and not listed.checked
    # notes another ruleset left are its own: looked over again, then replaced
    object.__setattr__(arm, "notes", ("another ruleset",))
    rules = f.ruleset
    assert isinstance(rules, RinKaNou)
    assert rules.plan(f.state, "walter", arm, 30, []).kind == "arm"
    assert times(arm) == 2 and arm.notes is not None and arm.notes[0] is KINDS
    bad = declare("arm", blow="cut")
    for _ in range(2):
        with pytest.raises(IllegalDeclaration, match="arm takes no parameter blow"):
            rules.plan(f.state, "walter", bad, 20, [])
    assert times(bad) == 2 and bad.notes is None
