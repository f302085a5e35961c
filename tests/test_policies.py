"""The policy library: random, scripted, rule lists, and the RinKaNou tactics."""

from __future__ import annotations

import io
import math
import random
from pathlib import Path
from typing import Any

import pytest

from segsim import load_scenario
from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration, InputError
from segsim.events import Event
from segsim.fight import Fight
from segsim.policies import (
    RandomLegal,
    Rule,
    RuleContext,
    RuleError,
    RuleList,
    ScriptedPolicy,
    derive_seed,
    load_rule_list,
)
from segsim.policy import make_policy, policy_names
from segsim.record import write_record
from segsim.rules import get_ruleset
from segsim.rules.rinkanou import RinKaNou
from segsim.rules.rinkanou.decisions import buy_back, shared_declaration, strike_or_arm
from segsim.rules.rinkanou.policies import Aggressive, Defender
from segsim.rules.rinkanou.ruleset import DODGE_SEGMENTS
from segsim.rules.rinkanou.tactics import CounterPuncher, PressureFighter
from segsim.testing import build_fight

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
STRIKER = ROOT / "examples/policies/striker.toml"


def duel(seed: int, **policies: Any) -> Fight:
    return load_scenario(DUEL).fight(seed, policies=policies)


def even_duel(seed: int, robert: Any) -> Fight:
    """Robert and an aggressive Margaret, both starting at 0 PS (no start-of-fight roll),
    so a plain strike is legal until a result of Robert's own turns his score negative."""
    rules = get_ruleset("rinkanou", {"start_roll": False})
    return build_fight(
        {"robert": ("blue", "robert", robert), "margaret": ("red", "margaret", Aggressive())},
        ruleset=rules,
        seed=seed,
    )


def record(fight: Fight) -> str:
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


def declared(fight: Fight, actor: str, *, forced: bool = False) -> list[Event]:
    return [
        e
        for e in fight.history
        if e.TYPE == "action.declared" and e.actor == actor and (forced or not e.forced)  # type: ignore[attr-defined]
    ]


# ---------------------------------------------------------------- random


def test_random_policy_is_registered_for_every_ruleset() -> None:
    assert "random" in policy_names("rinkanou")
    assert "random" in policy_names("chroniques")
    assert isinstance(make_policy("chroniques", "random"), RandomLegal)


def test_random_policy_same_seed_same_record_byte_for_byte() -> None:
    state = random.getstate()
    a = duel(41, margaret=RandomLegal(), robert=RandomLegal())
    a.run()
    b = duel(41, margaret=RandomLegal(), robert=RandomLegal())
    b.run()
    assert record(a) == record(b)
    assert random.getstate() == state  # the global generator is never used


def test_random_choices_come_from_the_fight_seed_not_the_dice() -> None:
    """Two fights whose dice are the same but whose policy streams differ choose
    differently; the choices of one combatant do not depend on the other's id."""
    kinds = []
    for seed in range(6):
        fight = duel(
            seed, margaret=RandomLegal(idle=0.0), robert=make_policy("rinkanou", "defender")
        )
        fight.run()
        kinds.append(tuple((e.t, e.kind) for e in declared(fight, "margaret")))  # type: ignore[attr-defined]
    assert len(set(kinds)) > 1
    assert derive_seed(1, "random policy", "a") != derive_seed(1, "random policy", "b")
    fixed = [RandomLegal(seed=5), RandomLegal(seed=5)]
    fights = [duel(seed, margaret=p) for seed, p in zip((1, 2), fixed, strict=True)]
    for f in fights:
        f.run()
    first = [declared(f, "margaret")[0].kind for f in fights]  # type: ignore[attr-defined]
    assert first[0] == first[1]  # a policy seed fixes its stream whatever the fight


@pytest.mark.parametrize(
    "scenario", ["duel.toml", "one_against_three.toml", "chroniques_ambush.toml"]
)
def test_random_policy_only_declares_what_the_rules_accept(scenario: str) -> None:
    sc = load_scenario(ROOT / "examples/scenarios" / scenario)
    for seed in range(4):
        fight = sc.fight(seed, policies={c.id: RandomLegal() for c in sc.combatants})
        outcome = fight.run()  # an illegal declaration would raise
        assert outcome.result in ("victory", "stalemate", "time limit", "all out")
        assert any(e.TYPE == "action.declared" and not e.forced for e in fight.history)  # type: ignore[attr-defined]


def test_random_policy_rejects_a_bad_idle_probability() -> None:
    with pytest.raises(ValueError, match="probability"):
        RandomLegal(idle=2.0)


# ---------------------------------------------------------------- scripted


def test_scripted_policy_declares_its_list_in_order_then_waits() -> None:
    script = ScriptedPolicy(
        [
            Declaration("arm"),
            {"kind": "strike", "target": "margaret", "params": {"blow": "cut"}},
            None,
        ]
    )
    fight = even_duel(1, script)
    fight.run()
    kinds = [e.kind for e in declared(fight, "robert")]  # type: ignore[attr-defined]
    assert kinds[:2] == ["arm", "strike"]
    assert set(kinds[2:]) <= {"wait"}
    strike = declared(fight, "robert")[1]
    assert strike.target == "margaret" and strike.params["blow"] == "cut"  # type: ignore[attr-defined]


def test_scripted_policy_loops_when_asked() -> None:
    loop = ScriptedPolicy([[Declaration("arm")], Declaration("strike", "margaret")], loop=True)
    fight = even_duel(1, loop)
    fight.run()
    kinds = [e.kind for e in declared(fight, "robert")]  # type: ignore[attr-defined]
    assert kinds[:4] == ["arm", "strike", "arm", "strike"]


def test_scripted_policy_refuses_what_is_not_a_declaration() -> None:
    with pytest.raises(ValueError, match="kind"):
        ScriptedPolicy([{"target": "x"}])
    with pytest.raises(TypeError, match="not a declaration"):
        ScriptedPolicy([42])


def test_a_scripted_illegal_declaration_names_the_policy_and_segment() -> None:
    fight = duel(1, robert=ScriptedPolicy([Declaration("strike", "margaret")], name="hasty"))
    with pytest.raises(IllegalDeclaration) as exc:
        fight.run()
    assert exc.value.policy == "hasty" and exc.value.segment == 0
    assert "arm first" in str(exc.value) and "policy hasty" in str(exc.value)


# ---------------------------------------------------------------- rule lists


def test_toml_rule_list_fights_and_counts_its_rules() -> None:
    striker = load_rule_list(STRIKER)
    assert striker.name == "striker" and striker.params["max_bonus"] == 1
    fight = duel(7, margaret=striker)
    fight.run()
    assert striker.fired["arm"] >= 1 and striker.fired["strike"] >= 1
    strikes = [e for e in declared(fight, "margaret") if e.kind == "strike"]  # type: ignore[attr-defined]
    assert strikes and all(e.params["blow"] == "cut" for e in strikes)  # type: ignore[attr-defined]


def test_rule_list_parameters_change_the_declarations() -> None:
    greedy = load_rule_list(STRIKER, max_bonus=2)
    plain = load_rule_list(STRIKER).with_params(max_bonus=0)
    spends = []
    for policy in (greedy, plain):
        fight = duel(7, margaret=policy)
        fight.run()
        spends.append(
            [
                e.params.get("ps", {}).get("bonus", 0)  # type: ignore[attr-defined]
                for e in declared(fight, "margaret")
                if e.kind == "strike"  # type: ignore[attr-defined]
            ]
        )
    assert max(spends[0]) == 2
    assert max(spends[1]) == 0
    with pytest.raises(ValueError, match="no parameter nerve"):
        plain.with_params(nerve=3)
    with pytest.raises(InputError, match="no parameter nerve"):
        load_rule_list(STRIKER, nerve=3)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("me.armed and grab(target)", "unknown name 'grab'"),
        ("me.__class__", "private attribute '__class__'"),
        ("(lambda: 1)()", "Lambda is not allowed"),
        ("[x for x in others]", "ListComp is not allowed"),
        ("me.armed and", "not a valid expression"),
    ],
)
def test_a_bad_rule_expression_is_refused_naming_file_line_and_field(
    tmp_path: Path, when: str, message: str
) -> None:
    path = write(
        tmp_path,
        f'ruleset = "rinkanou"\n\n[[rule]]\nwhen = "{when}"\ndo = {{ kind = "arm" }}\n',
    )
    with pytest.raises(InputError) as exc:
        load_rule_list(path)
    text = str(exc.value)
    assert text.startswith(f"{path}:4: rule[0].when:")
    assert message in text


def test_rule_list_file_errors(tmp_path: Path) -> None:
    cases = [
        ('ruleset = "rinkanou"\n', "a rule list needs at least one [[rule]]"),
        ('ruleset = "chess"\n[[rule]]\ndo = "nothing"\n', "unknown ruleset 'chess'"),
        ("[[rule]]\ndo = 3\n", "rule[0].do"),
        ('[[rule]]\ndo = { kind = "arm", speed = 2 }\n', "rule[0].do.speed: unknown field"),
        ('[[rule]]\nwhen = "True"\ndo = "nothing"\nthen = 1\n', "rule[0].then: unknown field"),
        (
            '[[rule]]\ndo = { kind = "strike", params = { blow = "=nope" } }\n',
            "unknown name 'nope'",
        ),
    ]
    for text, message in cases:
        path = write(tmp_path, text)
        with pytest.raises(InputError) as exc:
            load_rule_list(path)
        assert message in str(exc.value), (text, str(exc.value))
        assert str(path) in str(exc.value)


def test_a_rule_failing_while_deciding_names_policy_rule_and_segment(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'name = "shaky"\nruleset = "rinkanou"\n[[rule]]\nname = "divide"\n'
        'when = "1 / (segment - segment) > 0"\ndo = "nothing"\n',
    )
    fight = duel(1, robert=load_rule_list(path))
    with pytest.raises(RuleError, match=r"segment 0, robert, policy shaky, rule 'divide'"):
        fight.run()


def test_built_in_declarations_are_shared_values_equal_to_what_buy_back_builds() -> None:
    """A strike or a dodge of one shape is one frozen value handed out again, the same
    as the declaration buy_back builds (a negative score: slower, then a malus)."""
    f = build_fight(
        {"robert": ("blue", "robert", Aggressive()), "margaret": ("red", "margaret", Defender())},
        dice=[],
        ruleset=RinKaNou(start_roll=False),
    )
    margaret = f.state.combatants["margaret"]
    margaret.status.armed = True
    margaret.status.ps = -3
    obs = f.ruleset.observe(f.state, "margaret", 0, True)
    me, robert = obs.me, obs.other("robert")
    strike = strike_or_arm(obs, robert)
    assert strike == buy_back(
        me,
        Declaration("strike", "robert", {"blow": "cut"}),
        against="robert",
        duration=me.weapon.speed,
        keep_timing=False,
    )
    assert strike is not None and strike.params["ps"] == {"slower": 2, "malus": 1}
    again = f.ruleset.observe(f.state, "margaret", 0, True)
    assert strike_or_arm(again, again.other("robert")) is strike
    start, dodge = Defender().plan(obs, DODGE_SEGMENTS - 1)
    assert (start, dodge) == (
        0,
        buy_back(me, Declaration("dodge"), against=None, duration=DODGE_SEGMENTS, keep_timing=True),
    )
    assert dodge is not None and dodge.params["ps"] == {"malus": 3}
    assert Defender().plan(again, DODGE_SEGMENTS - 1)[1] is dodge
    margaret.status.ps = 0
    fresh = f.ruleset.observe(f.state, "margaret", 0, True)
    assert strike_or_arm(fresh, fresh.other("robert")) == Declaration(
        "strike", "robert", {"blow": "cut"}
    )


def test_a_shared_declaration_is_named_by_its_parameters_and_found_by_their_values() -> None:
    """The policies' shared declarations: the names of a shape's parameters and PS
    choices, then their values (an amount of None is not taken); the same values hand
    out the same value, and a value too many or too few is refused."""
    strike = shared_declaration("strike", "robert", ("blow",), ("bonus", "malus"), "cut", 2, None)
    assert strike == Declaration("strike", "robert", {"blow": "cut", "ps": {"bonus": 2}})
    assert shared_declaration(
        "strike", "robert", ("blow",), ("bonus", "malus"), "cut", 2, None
    ) is (strike)
    wait = shared_declaration("wait", None, ("until", "clear"), (), 5, 1.5)
    assert wait == Declaration("wait", params={"until": 5, "clear": 1.5})
    assert shared_declaration("dodge", None, (), ("faster",), None) == Declaration("dodge")
    for values in ((), ("cut",), ("cut", 2, None, 1)):
        with pytest.raises(ValueError):
            shared_declaration("strike", "robert", ("blow",), ("bonus", "malus"), *values)


def test_an_archer_s_strike_leaves_the_points_its_dodge_spends() -> None:
    """RinKaNou, "Utilisation des points de situation": an archer in melee with one
    usable point that shortens a dodge with it strikes in the same segment without a
    bonus (a line battle once stopped on an IllegalDeclaration there). Jared arms his
    dagger (0..1) while Margaret, armed, thrusts from segment 1 (1..3): at 2 he has two
    segments left to dodge, so his one point buys the dodge a segment, and his strike
    spends nothing."""
    from segsim.rules.rinkanou.policies import Archer
    from segsim.testing import Scripted, build_fight, declare

    fight = build_fight(
        {
            "jared": ("blue", "jared", Archer()),
            "margaret": (
                "red",
                "margaret",
                Scripted({1: declare("strike", "jared", blow="thrust")}),
            ),
        },
        seed=3,
        ruleset=RinKaNou(start_roll=False),
        positions={"jared": (0.0, 0.0), "margaret": (0.9, 0.0)},
        max_segments=8,
    )
    fight.state.combatants["jared"].setup = {"ps": 1, "engage": ["margaret"]}
    fight.state.combatants["margaret"].setup = {"armed": True}
    fight.run()
    at_2 = [
        (e.kind, e.params.get("ps"))  # type: ignore[attr-defined]
        for e in fight.history
        if e.TYPE == "action.declared" and e.actor == "jared" and e.t == 2  # type: ignore[attr-defined]
    ]
    assert at_2 == [("dodge", {"faster": 1}), ("strike", None)]


def test_the_nearest_foe_in_view_is_found_without_building_every_view() -> None:
    """nearest() answers what the nearest of foes() would, building one view in a crowd."""
    from segsim.battle import line_battle

    fight = line_battle(6, seed=0, max_segments=1)
    rules, state = fight.ruleset, fight.state
    for cid in state.combatants:
        lone = rules.observe(state, cid, 0, True).me
        near = lone.nearest()
        assert lone._foes is None  # only the nearest one's view was built
        crowd = rules.observe(state, cid, 0, True).me
        foes = crowd.foes()
        best = min(foes, key=lambda o: (math.dist(crowd.position, o.position), foes.index(o)))
        assert near is not None and near.id == best.id
        assert lone.foes()[foes.index(best)] is near  # foes() reuses the view built


def test_threats_and_incoming_are_what_the_foes_views_show(monkeypatch: Any) -> None:
    """threats() are the foes within their own reach, incoming() their missiles in
    flight toward the fighter: the same views and values as foes() shows, in the fight's
    order; a fighter's views are one per opponent, however found; both fail after their
    phase unless frozen."""
    from segsim.battle import line_battle
    from segsim.observation import StaleObservation
    from segsim.rules.rinkanou.ruleset import within

    seen: dict[str, Any] = {"threats": 0, "incoming": 0, "kept": [], "unread": {}}
    decide = Defender.decide
    fights: list[Any] = []  # the fight being run

    def checking(self: Defender, obs: Any) -> Any:
        me = obs.me
        threats, incoming = me.threats(), me.incoming()
        near = me.nearest()
        foes = me.foes()
        assert threats == tuple(o for o in foes if within(o.position, me.position, o.reach))
        assert all(any(t is o for o in foes) for t in threats)  # the same view objects
        assert incoming == tuple(a for o in foes for a in o.incoming(me.id))
        if foes:  # nearest() after threats(): the same answer as a search of foes()
            dist = [math.dist(me.position, o.position) for o in foes]
            assert near is foes[dist.index(min(dist))]
        else:
            assert near is None
        assert near is None or obs.other(near.id) is near
        seen["threats"] += bool(threats)
        seen["incoming"] += bool(incoming)
        if not seen["kept"]:
            seen["kept"].append(obs.freeze().me)
        fight = fights[-1]
        flying = bool(fight.state.autonomous)
        if flying not in seen["unread"]:  # another view of the phase, left unread
            again = fight.ruleset.observe(fight.state, obs.actor, obs.segment, False)
            seen["unread"][flying] = again.me
        return decide(self, obs)

    monkeypatch.setattr(Defender, "decide", checking)
    kinds = ("archer", "defender", "aggressive")
    battle = line_battle(6, seed=1, max_segments=300, policies=kinds)
    fights.append(battle)
    battle.run()
    archers = ROOT / "examples/scenarios/archery_duel.toml"  # arrows in flight
    fights.append(load_scenario(archers).fight(max_segments=300))
    fights[-1].run()
    assert seen["threats"] and seen["incoming"]
    (frozen,) = seen["kept"]
    assert frozen.threats() is frozen.threats() and frozen.incoming() == frozen.incoming()
    for live in seen["unread"].values():
        with pytest.raises(StaleObservation):
            live.threats()
    # Made while missiles flew, incoming() is looked for on demand (and fails after its
    # phase); made while none flew, there were none in its phase, which stays true.
    with pytest.raises(StaleObservation):
        seen["unread"][True].incoming()
    assert seen["unread"][False].incoming() == ()


def test_rule_list_in_python() -> None:
    def armed(ctx: RuleContext) -> bool:
        return bool(ctx.me.armed)

    rules = RuleList(
        [
            Rule("recover", lambda c: c.me.must_lock, lambda c: None),
            Rule(
                "arm",
                lambda c: not armed(c) and c.me.doing("hands") is None,
                lambda c: Declaration("arm"),
            ),
            Rule(
                "strike",
                lambda c: armed(c) and c.me.doing("hands") is None and c.target is not None,
                lambda c: buy_back(
                    c.me,
                    Declaration("strike", c.target.id, {"blow": "thrust"}),
                    against=c.target.id,
                    duration=c.me.weapon.speed,
                    keep_timing=True,
                ),
            ),
        ],
        name="thruster",
        reactive=False,
    )
    fight = duel(3, robert=rules)
    fight.run()
    strikes = [e for e in declared(fight, "robert") if e.kind == "strike"]  # type: ignore[attr-defined]
    assert strikes and all(e.params["blow"] == "thrust" for e in strikes)  # type: ignore[attr-defined]
    assert rules.fired["arm"] >= 1
    header = record(fight).splitlines()[0]
    assert '"policy":"thruster"' in header


# ---------------------------------------------------------------- tactics


def test_tactics_are_named_in_scenarios(tmp_path: Path) -> None:
    text = DUEL.read_text()
    text = text.replace('policy = "defender"', 'policy = "counter"').replace(
        'policy = "aggressive"', 'policy = "pressure"'
    )
    path = tmp_path / "duel.toml"
    path.write_text(text)
    sc = load_scenario(path)
    fight = sc.fight(3)
    fight.run()
    policies = {c.id: type(c.policy) for c in fight.state.combatants.values()}
    assert policies == {"robert": CounterPuncher, "margaret": PressureFighter}


def test_counter_puncher_reads_parries_then_ripostes() -> None:
    fight = duel(3, robert=CounterPuncher(), margaret=make_policy("rinkanou", "aggressive"))
    fight.run()
    mine = declared(fight, "robert")
    theirs = declared(fight, "margaret")
    assert any(e.kind == "read" and e.target == "margaret" for e in mine)  # type: ignore[attr-defined]
    blows = {e.ends_in for e in theirs if e.kind == "strike"}  # type: ignore[attr-defined]
    parries = [e for e in mine if e.kind == "parry" and e.ends_in in blows]  # type: ignore[attr-defined]
    assert parries, "a parry timed to end as a blow lands"
    first = parries[0]
    parried = [
        e
        for e in fight.history
        if e.TYPE == "attack.resolved" and e.target == "robert" and e.t == first.ends_in  # type: ignore[attr-defined]
    ]
    assert parried and parried[0].result in ("blocked", "parried", "deflected", "reduced")  # type: ignore[attr-defined]
    ripostes = [e for e in mine if e.kind == "strike" and e.t > first.ends_in]  # type: ignore[attr-defined]
    assert ripostes
    riposte = ripostes[0]
    # The riposte starts while Margaret is not on guard: locking or arming.
    busy = [
        e
        for e in fight.history
        if e.TYPE == "action.declared"
        and e.actor == "margaret"
        and e.kind in ("lock", "arm")  # type: ignore[attr-defined]
        and e.t <= riposte.t <= e.ends_in  # type: ignore[attr-defined]
    ]
    assert busy


def test_counter_punchers_do_not_shadow_box_forever() -> None:
    fight = duel(1000, robert=CounterPuncher(), margaret=CounterPuncher())
    outcome = fight.run()
    assert outcome.result == "victory"
    assert fight.history[-1].t < 1000


def test_pressure_fighter_chains_attacks_and_buys_back_with_a_malus() -> None:
    bought = 0
    for seed in range(30):
        fight = duel(seed, margaret=PressureFighter(), robert=make_policy("rinkanou", "aggressive"))
        fight.run()
        mine = declared(fight, "margaret", forced=True)
        for e in mine:
            ps = e.params.get("ps", {})  # type: ignore[attr-defined]
            assert "slower" not in ps  # the tempo holds: never buys time
            if e.kind == "strike" and ps.get("malus"):  # type: ignore[attr-defined]
                bought += 1
        # Right after each lock, it arms again (while in reach and in the fight).
        for lock in (e for e in mine if e.kind == "lock"):  # type: ignore[attr-defined]
            after = [e for e in mine if e.t == lock.ends_in + 1]  # type: ignore[attr-defined]
            if fight.history[-1].t > lock.ends_in + 1:  # type: ignore[attr-defined]
                assert [e.kind for e in after] == ["arm"]  # type: ignore[attr-defined]
    assert bought > 0  # a negative score happened and was bought back on a strike


def test_tactic_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="read_from"):
        CounterPuncher(read_from=-1)
    with pytest.raises(ValueError, match="patience"):
        CounterPuncher(patience=0)


def test_a_line_battle_s_offsets_set_where_each_side_starts_its_cycles() -> None:
    """By default both sides start their cycles of sheets and policies at the first: a
    1 v 1 is two veteran attackers. Offsets (west, east) shift each side's start."""
    from segsim.battle import line_battle

    def kinds(fight: Any) -> dict[str, tuple[str, str]]:
        return {cid: (c.sheet.name, c.policy.name) for cid, c in fight.state.combatants.items()}

    assert kinds(line_battle(1)) == {
        "w0": ("veteran", "aggressive"),
        "e0": ("veteran", "aggressive"),
    }
    assert kinds(line_battle(1, offsets=(0, 1))) == {
        "w0": ("veteran", "aggressive"),
        "e0": ("recruit", "defender"),
    }
    shifted = kinds(line_battle(2, offsets=(1, 0)))
    assert shifted["w0"] == shifted["e1"] == ("recruit", "defender")
    assert shifted["w1"] == shifted["e0"] == ("veteran", "aggressive")
    for bad in ((0,), (0, -1), (0, 1.0), (0, 1, 2)):
        with pytest.raises(ValueError, match="offsets"):
            line_battle(1, offsets=bad)  # type: ignore[arg-type]
