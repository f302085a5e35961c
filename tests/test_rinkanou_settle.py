"""Quick paths of the RinKaNou ruleset give what the general ones give: the settlement
of quiet batches (arming, locking, waiting) makes the very events a full
:class:`~segsim.rules.rinkanou.settle.Settlement` makes of them, and the only opponent
is the nearest one without measuring."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.actions import Action
from segsim.events import Event
from segsim.policy import make_policy
from segsim.record import write_record
from segsim.rules.rinkanou.events import WeaponState
from segsim.rules.rinkanou.ruleset import nearest_opponents
from segsim.rules.rinkanou.settle import quiet
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
        if not random_policies and path.stem == "duel":
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
