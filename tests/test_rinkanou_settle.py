"""Quick paths of the RinKaNou ruleset give what the general ones give: the settlement
of quiet batches (arming, locking, waiting, readying a ranged weapon) makes the very events a full
:class:`~segsim.rules.rinkanou.settle.Settlement` makes of them, and the only opponent
is the nearest one without measuring."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

from segsim import load_scenario
from segsim.actions import Action
from segsim.events import Event, Moved
from segsim.policy import make_policy
from segsim.record import write_record
from segsim.rules.rinkanou import settle
from segsim.rules.rinkanou.events import CommandPointsChanged, HandsChanged, WeaponState
from segsim.rules.rinkanou.manoeuvres import KEEPING
from segsim.rules.rinkanou.ruleset import nearest_opponents
from segsim.rules.rinkanou.settle import Settlement, quiet
from segsim.state import FightState

ROOT = Path(__file__).resolve().parent.parent
RINKANOU = [
    path
    for path in sorted((ROOT / "examples" / "scenarios").glob("*.toml"))
    if 'ruleset = "rinkanou"' in path.read_text(encoding="utf-8")
]


def _record(path: Path, seed: int, random_policies: bool, quick: bool) -> tuple[str, int]:
    """The fight's record, and how many batches the quick path settled."""
    scenario = load_scenario(path)
    rules = scenario.ruleset
    settled = [0]

    def counted(state: FightState, segment: int, batch: Sequence[Action]) -> list[Event] | None:
        events = quiet(state, segment, batch)
        settled[0] += events is not None
        return events

    rules._quiet = counted if quick else (lambda *args: None)
    policies = None
    if random_policies:
        policies = {c.id: make_policy("rinkanou", "random") for c in scenario.combatants}
    fight = scenario.fight(seed, policies=policies)
    fight.run()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue(), settled[0]


def test_every_rinkanou_example_is_found() -> None:
    assert len(RINKANOU) >= 5
    assert ROOT / "examples" / "scenarios" / "duel.toml" in RINKANOU


@pytest.mark.parametrize("path", RINKANOU, ids=lambda p: p.stem)
@pytest.mark.parametrize("random_policies", [False, True], ids=["own", "random"])
def test_quiet_batches_settle_as_a_settlement_does(path: Path, random_policies: bool) -> None:
    for seed in (3, 4):
        full, none = _record(path, seed, random_policies, quick=False)
        quick, settled = _record(path, seed, random_policies, quick=True)
        assert none == 0
        assert quick == full
        if not random_policies and path.stem in ("duel", "archery_duel", "crossbow_ambush"):
            assert settled > 0  # the quick path did settle batches of this fight


def test_what_the_quick_path_settles_and_what_it_leaves() -> None:
    fight = load_scenario(ROOT / "examples" / "scenarios" / "duel.toml").fight(1)
    state = fight.state
    arm = Action("arm", 3, "hands").stamp(90, "robert", 2)
    lock = Action("lock", 3, "hands").stamp(91, "margaret", 2)
    wait = Action("wait", 3, "wait", continuous=True).stamp(92, "margaret", 2)
    events = quiet(state, 4, [arm, lock, wait])
    assert events == [
        WeaponState(4, "robert", True, False),
        WeaponState(4, "margaret", False, False),
    ]
    # An arming whose blow a keeper spoiled arms nothing.
    state.combatants["robert"].status.lost_arm = 90
    assert quiet(state, 4, [arm]) == []
    # A roll, or a cancellation, needs a settlement.
    strike = Action("strike", 3, "hands", target="robert", rolled=True).stamp(93, "margaret", 2)
    assert quiet(state, 4, [arm, strike]) is None
    assert quiet(state, 4, [arm.cancelled_at(3)]) is None


def test_a_reload_settles_quietly_as_the_hands_rule_does() -> None:
    """A ready ends with the ranged weapon ready to loose, the rest of what the hands
    hold as it was (RinKaNou, "Les portées"): the quick path makes the event
    manoeuvres.hands() makes; a shot in the batch needs a settlement."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "archery_duel.toml").fight(1)
    state = fight.state
    jared = state.combatants["jared"].status
    jared.wielding, jared.loaded, jared.grip = "ranged", False, "loose"
    ready = Action("ready", 10, "hands").stamp(90, "jared", 2)
    events = quiet(state, 12, [ready])
    assert events == [HandsChanged(12, "jared", "ranged", True, "loose", False)]
    batch = [ready]
    full = Settlement(fight.ruleset, state, 12, batch, fight.dice).run()
    assert full == events
    shot = Action("shoot", 2, "hands", target="jared", rolled=True).stamp(91, "jacou", 10)
    assert quiet(state, 12, [ready, shot]) is None


def test_walks_settle_quietly_where_a_settlement_ends_them() -> None:
    """A walk out of every opponent's reach (no roll) ends where Settlement.move ends
    it: its destination, or half way if another's personal space is there, the spots of
    the batch's earlier walks weighed (sixth pass); command points are lost on moving
    (text 004). A rolled move, or a keep planned in the fight, needs a settlement."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "crossbow_ambush.toml").fight(1)
    rules, state = fight.ruleset, fight.state
    state.combatants["robert"].status.command_points = 2

    def walk(aid: int, who: str, to: tuple[float, float]) -> Action:
        params = {"to": [to[0], to[1]], "pace": "walk", "segments": 5}
        return Action("move", 5, "legs", params=params).stamp(aid, who, 2)

    # Margaret stands (in this test) where Robert would end: he stops half way, as she
    # walks away after him; walking away first, she leaves him his spot.
    state.combatants["margaret"].position = (40.0, 1.0)
    batch = [walk(90, "robert", (40.0, 0.6)), walk(91, "margaret", (40.0, 1.7))]
    events = quiet(state, 7, batch)
    assert events is not None
    assert events == Settlement(rules, state, 7, batch, fight.dice).run()
    moved = [(e.actor, e.x, e.y) for e in events if isinstance(e, Moved)]
    assert moved == [("robert", 40.0, 0.3), ("margaret", 40.0, 1.7)]
    assert [e for e in events if isinstance(e, CommandPointsChanged)] == [
        CommandPointsChanged(7, "robert", 0, "moved")
    ]
    batch.reverse()
    events = quiet(state, 7, batch)
    assert events == Settlement(rules, state, 7, batch, fight.dice).run()
    moved = [(e.actor, e.x, e.y) for e in events if isinstance(e, Moved)]
    assert moved == [("margaret", 40.0, 1.7), ("robert", 40.0, 0.6)]
    onto = [walk(92, "robert", (0.2, 0.0))]
    assert quiet(state, 7, onto) == Settlement(rules, state, 7, onto, fight.dice).run()
    rolled = Action("move", 5, "legs", rolled=True, params=batch[0].params).stamp(93, "robert", 2)
    assert quiet(state, 7, [rolled]) is None
    state.extra[KEEPING] = True
    assert quiet(state, 7, batch) is None


@pytest.mark.parametrize("name", ["duel", "one_against_three", "three_against_three"])
def test_the_nearest_opponent_is_the_state_s_nearest(name: str) -> None:
    state = load_scenario(ROOT / "examples" / "scenarios" / f"{name}.toml").fight(2).state
    compared = 0
    for cid in state.combatants:
        for count in (1, 2, 3):
            assert nearest_opponents(state, cid, count) == state.nearest_opponents(cid, count)
            compared += 1
    assert compared >= 6
    if name == "duel":  # each one's only opponent, found without measuring
        assert nearest_opponents(state, "robert", 1) == ["margaret"]
        assert nearest_opponents(state, "margaret", 1) == ["robert"]


def test_a_sheet_s_facts_are_worked_out_once_per_sheet(monkeypatch: pytest.MonkeyPatch) -> None:
    """A settlement reads a sheet's skills, strength bonus and reach from facts the
    ruleset keeps per sheet: the same facts for the same sheet, its own for another one
    (even an equal one), and a bounded number of them."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "duel.toml").fight(1)
    rules, state = fight.ruleset, fight.state
    settlement = Settlement(rules, state, 1, [], fight.dice)
    sheet = state.combatants["margaret"].sheet
    facts = settlement.known(sheet)
    weapon = sheet.weapon
    assert facts.sheet is sheet
    assert facts.weapon_skill == sheet.skill(weapon.skill)
    assert facts.wielding == sheet.characteristic(weapon.characteristic)
    assert facts.dodge == sheet.skill("dodge")
    assert facts.agility == sheet.characteristic("agility")
    tables = rules.content.tables
    assert facts.strength == tables.strength_bonus(sheet.characteristic("strength"))
    assert facts.reach == rules.reach(sheet)
    assert Settlement(rules, state, 2, [], fight.dice).known(sheet) is facts  # kept
    # Another sheet has its own, however like this one it is.
    strong = attrs.evolve(
        sheet, characteristics={**sheet.characteristics, "strength": 60, "agility": 1}
    )
    other = settlement.known(strong)
    assert other is not facts and other.agility == 1
    assert other.strength == tables.strength_bonus(60) != facts.strength
    assert settlement.strength(strong) == other.strength
    # Past the bound the ruleset starts afresh.
    monkeypatch.setattr(settle, "KNOWN_SHEETS", 2)
    settlement.known(attrs.evolve(sheet, name="third"))
    assert len(rules._sheet_facts) == 1
    assert settlement.known(sheet) is not facts and settlement.known(sheet).sheet is sheet


@pytest.mark.parametrize("path", RINKANOU, ids=lambda p: p.stem)
def test_a_settled_batch_is_already_in_its_actors_recent_actions(path: Path) -> None:
    """What ``Settlement.overlap_malus`` relies on to read only a fighter's actions in
    progress and recent ones: the engine finishes every action of a batch before the
    ruleset resolves it, but for autonomous ones (projectiles), which never roll and
    belong to no fighter; and no action is in both lists, or twice in one."""
    scenario = load_scenario(path)
    rules = scenario.ruleset
    seen = {"rolled": 0, "autonomous": 0}
    resolve = rules.resolve

    def checked(state: FightState, segment: int, batch: list[Action], dice: object) -> object:
        for a in batch:
            c = state.combatants[a.actor]
            if a.kind == "projectile":  # no longer in state.autonomous: it has landed
                assert not a.rolled
                assert all(a is not b for b in (*c.actions, *c.recent))
                seen["autonomous"] += 1
                continue
            assert any(a is b for b in c.recent)
            assert all(a is not b for b in c.actions)
            seen["rolled"] += a.rolled
        for c in state.combatants.values():
            ids = [b.id for b in (*c.actions, *c.recent)]
            assert len(ids) == len(set(ids))
        return resolve(state, segment, batch, dice)  # type: ignore[arg-type]

    rules.resolve = checked  # type: ignore[method-assign]
    for seed in (1, 2):
        scenario.fight(seed).run()
    assert seen["rolled"] > 0
    if path.stem in ("archery_duel", "crossbow_ambush"):
        assert seen["autonomous"] > 0


def test_a_settlement_s_tables_are_its_own() -> None:
    """The tables a settlement keeps (gear worn down, surprise spent) start empty in
    every settlement: none is shared with the next one."""
    fight = load_scenario(ROOT / "examples" / "scenarios" / "duel.toml").fight(1)
    rules, state = fight.ruleset, fight.state
    robert = state.combatants["robert"]
    robert.status.surprise_malus = -30
    strike = Action("strike", 3, "hands", target="margaret", rolled=True).stamp(93, "robert", 2)
    pr = robert.status.weapon_pr
    first = Settlement(rules, state, 4, [strike], fight.dice)
    first.lose_gear(robert, "weapon", 1)
    first.lose_gear(robert, "weapon", 1)
    assert first.gear == {("robert", "weapon"): pr - 2}
    assert first.test(strike, "attack", {"skill": 50}).modifiers["surprise"] == -30
    assert "surprise" not in first.test(strike, "attack", {"skill": 50}).modifiers  # spent
    second = Settlement(rules, state, 4, [strike], fight.dice)
    second.lose_gear(robert, "weapon", 1)
    assert second.gear == {("robert", "weapon"): pr - 1}
    assert second.test(strike, "attack", {"skill": 50}).modifiers["surprise"] == -30
    assert first.gear == {("robert", "weapon"): pr - 2}
