"""A refused declaration leaves no trace, and the paused API plays the fight run() plays
(DESIGN principle 11; issue 39, items 1 and 2).

Every example scenario of every ruleset is played with its own policies deciding from
outside the fight (:func:`segsim.testing.drive`, through ``Fight.advance``/``submit``);
at some phase, hostile submissions are made: each must be refused, and the whole fight
state (``extra`` included), the dice and the history must be as they were. The phase is
then completed with the policies' own decisions, and the fight must end with the record
``run()`` writes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from segsim import load_scenario
from segsim.actions import Cancel, Declaration
from segsim.errors import IllegalDeclaration, SegsimError
from segsim.fight import CombatantSpec, Fight
from segsim.record import fight_lines
from segsim.rules import get_ruleset
from segsim.rules.rinkanou.manoeuvres import KEEPING
from segsim.scenario import Scenario
from segsim.testing import Scripted, declare, drive, externalize, snapshot

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(p.name for p in (ROOT / "examples" / "scenarios").glob("*.toml"))


@cache
def scenario(name: str) -> Scenario:
    return load_scenario(ROOT / "examples" / "scenarios" / name)


def run_record(name: str, seed: int) -> list[str]:
    fight = scenario(name).fight(seed)
    fight.run()
    return list(fight_lines(fight))


def moment(fight: Any) -> Any:
    """What a refusal must leave as it was."""
    return snapshot(fight.state), len(fight.dice.draws), len(fight.history), fight.segment


def test_the_scenarios_cover_every_ruleset() -> None:
    rulesets = {scenario(name).ruleset.name for name in SCENARIOS}
    assert rulesets == {"rinkanou", "loss", "chroniques", "rupture", "loreval"}


@pytest.mark.parametrize("name", SCENARIOS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_paused_api_writes_the_record_run_writes(name: str, seed: int) -> None:
    fight = scenario(name).fight(seed)
    externalize(fight)
    drive(fight)
    assert list(fight_lines(fight)) == run_record(name, seed)


def test_street_brawl_1614_paused_and_run_agree() -> None:
    """The case found (issue 39, item 2): a Loss fighter with a forced wait whose ruleset
    says it must act was idled a second time by submit(), not by run()."""
    fight = scenario("loss_street_brawl.toml").fight(1614)
    externalize(fight)
    drive(fight)
    assert list(fight_lines(fight)) == run_record("loss_street_brawl.toml", 1614)


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.sampled_from(["faster", "x", "cut", "ps"]), st.integers(-5, 20), max_size=2),
)


@st.composite
def hostile(draw: st.DrawFn, legal: tuple[Any, ...], ids: list[str]) -> list[Any]:
    """A submission for one combatant likely to be refused: a legal declaration with a
    wrong target, parameter or value, two at once, an unknown kind, a bogus cancel."""
    decls = [d for d in legal if isinstance(d, Declaration)]
    base = draw(st.sampled_from(decls)) if decls else Declaration("wait")
    how = draw(st.sampled_from(["target", "param", "value", "pair", "ps", "kind", "cancel", "all"]))
    params = dict(base.params)
    if how == "target":
        target = draw(st.one_of(st.sampled_from([*ids, "nobody", ""]), JUNK))
        return [Declaration(base.kind, target, params)]
    if how == "param":
        params[draw(st.sampled_from(["target", "ps", "bogus", "until", "with", "to"]))] = draw(JUNK)
        return [Declaration(base.kind, base.target, params)]
    if how == "value" and params:
        params[draw(st.sampled_from(sorted(params)))] = draw(JUNK)
        return [Declaration(base.kind, base.target, params)]
    if how == "pair" and decls:
        return [base, draw(st.sampled_from(decls)), draw(st.sampled_from(decls))]
    if how == "ps":  # PS choices, then the same again: the second needs what the first has
        spend = {draw(st.sampled_from(["faster", "slower", "damage", "precision"])): 1}
        return [Declaration(base.kind, base.target, {**params, "ps": spend}), base]
    if how == "cancel":
        return [Cancel(draw(st.integers(-1, 500))), base]
    if how == "all":
        return [*decls, Declaration("wait", params={"until": draw(JUNK)})]
    return [Declaration(draw(st.text(max_size=8)), base.target, params)]


@pytest.mark.parametrize("name", SCENARIOS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), phases=st.integers(0, 40), data=st.data())
def test_a_refused_submission_changes_nothing(
    name: str, seed: int, phases: int, data: st.DataObject
) -> None:
    fight = scenario(name).fight(seed)
    externalize(fight)
    drive(fight, phases)
    pending = fight.pending
    if not pending:
        return  # the fight ended first
    ids = list(fight.state.combatants)
    for _ in range(3):
        who = data.draw(st.sampled_from(sorted(pending)))
        submission = data.draw(hostile(pending[who].legal(), ids))
        before = moment(fight)
        try:
            fight.submit({who: submission})
        except (IllegalDeclaration, ValueError) as exc:
            assert not isinstance(exc, SegsimError) or isinstance(exc, IllegalDeclaration)
            assert moment(fight) == before, f"{submission!r} was refused but left a trace"
        else:
            break  # accepted: the fight went on; nothing more to check here
    else:
        # Complete the phase with the policies' own decisions: the fight must play on
        # as if nothing had been submitted before.
        drive(fight)
        assert list(fight_lines(fight)) == run_record(name, seed)


def rinkanou_pair(a: str, b: str, distance: float) -> Fight:
    """Two RinKaNou fighters, armed, 3 PS each, both decided from outside the fight."""
    rules = get_ruleset("rinkanou")
    specs = [
        CombatantSpec(
            cid,
            side,
            rules.load_sheet(rules.content.fighters[who]),
            Scripted(),
            position=(x, 0.0),
            setup={"armed": True, "ps": 3},
        )
        for cid, side, who, x in (("a", "red", a, 0.0), ("b", "blue", b, distance))
    ]
    fight = Fight(rules, specs, seed=1)
    externalize(fight)
    return fight


def test_a_refused_ps_spend_is_not_kept_in_the_state() -> None:
    """A strike spending PS, refused because a second strike needs the same hands: the
    effects of its PS choices stay nowhere (they used to be kept in state.extra)."""
    fight = rinkanou_pair("robert", "robert", 1.0)
    assert "a" in fight.advance()
    before = moment(fight)
    strike = declare("strike", "b", blow="cut", ps={"faster": 1})
    with pytest.raises(IllegalDeclaration, match="both need the hands"):
        fight.submit({"a": [strike, declare("strike", "b", blow="cut")]})
    assert "ps_use" not in fight.state.extra
    assert moment(fight) == before
    fight.submit({"a": strike})  # alone, it is legal, and the fight goes on
    assert fight.state.combatants["a"].actions[0].params["ps"] == {"faster": 1}


def test_a_refused_keep_is_not_kept_in_the_state() -> None:
    """A keep at distance refused along with a second use of the hands: the hint that
    someone keeps (it used to turn state.extra['keeping'] on) waits for a keep that
    has started (RinKaNou, Tenir à distance)."""
    fight = rinkanou_pair("spearman", "robert", 2.0)
    assert "a" in fight.advance()
    before = moment(fight)
    with pytest.raises(IllegalDeclaration, match="both need the hands"):
        fight.submit({"a": [declare("keep", "b"), declare("arm")]})
    assert KEEPING not in fight.state.extra
    assert moment(fight) == before
    fight.submit({"a": declare("keep", "b")})
    assert fight.state.extra[KEEPING] is True
