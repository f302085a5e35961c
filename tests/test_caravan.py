"""The caravan example (examples/caravan.py): a host simulation counting seconds that
embeds RinKaNou and Chroniques fights. Its statistics are deterministic for a seed and
consistent with the host's clock; each fight's segments map to host seconds."""

from __future__ import annotations

import importlib.util
import itertools
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from segsim.events import Event
from segsim.fight import Fight
from segsim.record import read_record

ROOT = Path(__file__).resolve().parent.parent
SEGMENT = 0.1  # host seconds per segment


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("caravan_example", ROOT / "examples/caravan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


caravan = load_example()


@pytest.fixture(scope="module")
def default_run() -> tuple[Any, list[Fight]]:
    """The example's default run (what `python examples/caravan.py` prints), and its
    fights."""
    fights: list[Fight] = []
    return caravan.run_crossings(on_fight=fights.append), fights


@pytest.fixture(scope="module")
def summary(default_run: tuple[Any, list[Fight]]) -> Any:
    return default_run[0]


def test_the_same_seed_prints_and_returns_the_same_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = caravan.main(["--crossings", "12", "--seed", "3"])
    out1 = capsys.readouterr().out
    second = caravan.main(["--crossings", "12", "--seed", "3"])
    out2 = capsys.readouterr().out
    assert out1 == out2 and out1.startswith("caravan: 12 crossings")
    assert first == second
    assert first.fights  # the comparison covered fights


def test_another_seed_gives_another_crossing() -> None:
    a, b = caravan.run_crossings(12, 3), caravan.run_crossings(12, 4)
    assert a != b
    assert a.text() != b.text()
    assert {f.seed for f in a.fights}.isdisjoint({f.seed for f in b.fights})


def test_every_fight_has_its_own_seed(summary: Any) -> None:
    seeds = [f.seed for f in summary.fights]
    assert len(set(seeds)) == len(seeds)


def test_the_statistics_add_up(summary: Any) -> None:
    legs = caravan.LEGS
    crossings, fights = summary.crossings, summary.fights
    assert len(crossings) == 40 and [c.number for c in crossings] == list(range(40))
    assert 0 < summary.completed < len(crossings)  # some caravans arrive, some do not
    assert len(fights) <= summary.legs_travelled
    by_crossing: dict[int, list[Any]] = defaultdict(list)
    for f in fights:
        by_crossing[f.crossing].append(f)
    for c in crossings:
        mine = by_crossing[c.number]
        assert 1 <= c.legs <= len(legs) and len(mine) <= c.legs
        assert [f.leg for f in mine] == sorted({f.leg for f in mine})  # one ambush a leg
        assert all(f.leg < c.legs for f in mine)
        if c.completed:
            assert c.legs == len(legs)
            assert all(f.winner != "bandits" for f in mine)
        else:  # the caravan was lost in its last fight
            assert mine and mine[-1].winner == "bandits" and mine[-1].leg == c.legs - 1
            assert all(f.winner != "bandits" for f in mine[:-1])
        fallen = [cid for f in mine for cid in f.fallen]
        assert len(fallen) == len(set(fallen))  # who fell left the caravan
    # Each leg is played with its region's ruleset, and both rulesets were played.
    assert all(f.ruleset == legs[f.leg].ruleset for f in fights)
    assert all(n > 0 for n in summary.ambushes_by_ruleset.values())
    assert sum(summary.ambushes_by_ruleset.values()) == len(fights)
    assert sum(summary.outcomes.values()) == len(fights)
    assert all(f.patrol == (f.result == "interrupted") for f in fights)
    assert summary.guards_lost == sum(
        1 for f in fights for cid in f.fallen if cid != caravan.MERCHANT
    )
    assert summary.mean_seconds() == pytest.approx(statistics.fmean(f.seconds for f in fights))
    for name in ("rinkanou", "chroniques"):
        assert summary.mean_seconds(name) == pytest.approx(
            statistics.fmean(f.seconds for f in fights if f.ruleset == name)
        )
    # Host interventions happened: a reinforcement, a fleeing merchant, a patrol.
    assert any(f.outrider_joined for f in fights)
    assert any(f.merchant_fled for f in fights)
    assert any(f.patrol for f in fights)
    assert not any(f.merchant_fled and caravan.MERCHANT in f.fallen for f in fights)


def test_fights_last_whole_segments_of_host_seconds(summary: Any) -> None:
    for f in summary.fights:
        assert f.seconds > 0 and f.segments >= 1
        assert f.seconds == pytest.approx(f.segments * SEGMENT, abs=1e-6)
        # Settled at the end of its last segment, or stopped at a segment boundary.
        assert f.segments in (f.last_segment, f.last_segment + 1)
        first = f.first_fall
        assert first is None or 0 < first <= f.seconds + 1e-9


def test_host_time_is_travel_plus_fights_plus_rest(summary: Any) -> None:
    assert summary.host_seconds == pytest.approx(
        summary.travel_seconds + summary.fight_seconds + summary.rest_seconds
    )
    assert summary.rest_seconds == pytest.approx(caravan.REST * (len(summary.crossings) - 1))
    assert summary.fight_seconds > 0 and summary.travel_seconds > 0
    previous_end = 0.0
    for c in summary.crossings:
        assert c.end - c.start == pytest.approx(c.travel + c.fighting)
        if c.number:
            assert c.start == pytest.approx(previous_end + caravan.REST)
        previous_end = c.end
        mine = [f for f in summary.fights if f.crossing == c.number]
        assert c.fighting == pytest.approx(sum(f.seconds for f in mine))
        for f in mine:
            assert c.start < f.start and f.start + f.seconds <= c.end + 1e-6
    assert summary.host_seconds == pytest.approx(summary.crossings[-1].end)


def test_each_event_happens_at_its_segment_in_host_seconds() -> None:
    """An event of segment t is emitted at the start of t (a declaration, a join, a
    departure) or at its end (a settlement): host time start + t * 0.1 or (t + 1) * 0.1.
    The end event comes when the host sees the fight end."""
    seen: dict[str, list[tuple[float, Event]]] = {}

    def watch(fight: Fight) -> None:
        log = seen[fight.fight_id] = []
        fight.subscribe(lambda e: log.append((fight.env.now, e)))

    summary = caravan.run_crossings(15, 7, on_fight=watch)
    assert len(seen) == len(summary.fights) > 0
    assert {f.ruleset for f in summary.fights} == {"rinkanou", "chroniques"}
    for f in summary.fights:
        log = seen[f"crossing{f.crossing:03d}-leg{f.leg}"]
        for now, event in log:
            offset = (now - f.start) / SEGMENT
            assert round(offset) == pytest.approx(offset, abs=1e-6), event
            assert round(offset) in (event.t, event.t + 1), (f, event)
            if event.TYPE in ("combatant.joined", "action.declared"):
                assert round(offset) == event.t
        end_time, end = log[-1]
        assert end.TYPE == "end" and end.t == f.last_segment
        assert end_time == pytest.approx(f.start + f.seconds)
        assert f.segments == round((end_time - f.start) / SEGMENT)


def test_survivors_carry_their_wounds_into_the_next_fight() -> None:
    """What a fighter lost is kept as a fraction of its health: its sheet in the next
    fight of its caravan, of either ruleset, starts that much lower; who fell is gone."""
    fights: list[Fight] = []
    summary = caravan.run_crossings(40, 1, on_fight=fights.append)
    road = caravan.Road(0)
    hires = {h.id: h for h in (*caravan.GUARDS, caravan.MERCHANT_HIRE, caravan.OUTRIDER)}
    field = caravan.HEALTH_FIELD
    fallen = {r.seed: set(r.fallen) for r in summary.fights}
    hurt_again = 0
    for before, after in itertools.pairwise(fights):
        if before.fight_id.split("-")[0] != after.fight_id.split("-")[0]:
            continue  # the next caravan
        assert fallen[before.seed].isdisjoint(after.state.combatants)
        rb, ra = before.ruleset.name, after.ruleset.name
        for cid, c in before.state.combatants.items():
            if c.side != caravan.CARAVAN or cid not in after.state.combatants:
                continue  # a bandit, someone who fell, or the outrider came too late
            full_before = getattr(road.sheet(rb, hires[cid].fighter(rb)[0]), field[rb])
            full_after = getattr(road.sheet(ra, hires[cid].fighter(ra)[0]), field[ra])
            left = caravan.health_left(rb, c.sheet, c.status)
            worn = 1.0 - left / full_before  # the fraction lost, as the host keeps it
            expected = max(1, round(full_after * (1.0 - worn)))
            assert getattr(after.state.combatants[cid].sheet, field[ra]) == expected
            hurt_again += left < full_before
    assert hurt_again > 0  # some wounded survivors did fight again


def test_each_fight_writes_its_own_record(tmp_path: Path) -> None:
    summary = caravan.run_crossings(8, 2, records=tmp_path)
    assert summary.records
    by_name = {f"crossing{f.crossing:03d}-leg{f.leg}.jsonl": f for f in summary.fights}
    for name in summary.records:
        record = read_record(tmp_path / name)
        fight = by_name[name]
        assert record.seed == fight.seed and record.ruleset == fight.ruleset
        assert record.end is not None and record.end["outcome"] == fight.result
    # Every fight without a reinforcement has its record (the engine cannot yet write
    # the header of a fight that someone joined).
    assert {n for n, f in by_name.items() if not f.outrider_joined} <= set(summary.records)


def test_every_caravan_record_replays_and_branches_to_itself(
    default_run: tuple[Any, list[Fight]],
) -> None:
    """Every fight of the default run replays from its record, those the host
    interrupted on a segment boundary included (crossing 27, leg 3 once did not); and a
    branch that changes nothing, half way, is the record again: the host's
    reinforcements, departures and interruption happen in it as they did."""
    from segsim.record import fight_lines, fight_record
    from segsim.replay import branch, replay

    fights = default_run[1]
    assert any(f.outcome is not None and f.outcome.result == "interrupted" for f in fights)
    assert any(e.TYPE == "combatant.joined" for f in fights for e in f.history)
    for fight in fights:
        record = fight_record(fight)
        result = replay(record)
        assert result.identical, f"{fight.fight_id}: {result.divergence}"
        half = branch(record, record.events[-1]["t"] // 2)
        assert list(fight_lines(half.fight)) == list(record.lines), fight.fight_id
