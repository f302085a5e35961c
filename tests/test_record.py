"""The record format (docs/record-format.md): its schema, its reader and its visitors."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from segsim import RecordError, load_scenario
from segsim.record import (
    Line,
    RecordBuilder,
    RecordVisitor,
    fight_record,
    read_record,
    schema,
    schema_errors,
    visit_fight,
    write_record,
)
from segsim.schema import SCHEMA_FILE, known_types, schema_text, update_doc
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
SCENARIOS = sorted((ROOT / "examples/scenarios").glob("*.toml"))
DOC = ROOT / "docs/record-format.md"


def duel_text(seed: int = 7) -> str:
    fight = load_scenario(DUEL).fight(seed)
    fight.run()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


# ---------------------------------------------------------------- the schema


def test_the_schema_and_the_format_page_are_up_to_date() -> None:
    """Regenerate both with ``python -m segsim.schema`` after changing an event class."""
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "segsim/schema/record-v2.schema.json is out of date: run python -m segsim.schema"
    )
    doc = DOC.read_text(encoding="utf-8")
    assert update_doc(doc) == doc, "docs/record-format.md is out of date: python -m segsim.schema"


def test_the_schema_is_a_valid_json_schema_that_ships_in_the_package() -> None:
    import jsonschema  # type: ignore[import-untyped]

    root = schema()  # read through importlib.resources, as an installed segsim does
    jsonschema.validators.validator_for(root).check_schema(root)
    assert {"header", "event", "combatant"} <= set(root["$defs"])
    for name in known_types():
        assert f"event:{name}" in root["$defs"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_produced_record_validates(path: Path) -> None:
    scenario = load_scenario(path)
    for seed in range(4):
        fight = scenario.fight(seed)
        fight.run()
        assert schema_errors(fight_record(fight).lines) == [], f"{path.name} seed {seed}"


def test_script_and_branch_records_validate() -> None:
    from segsim.replay import branch

    record = fight_record(load_script(ROOT / "examples/scripts/table_duel.toml").play())
    assert schema_errors(record.lines) == []
    branched = branch(record, 12, {"robert": "defender", "margaret": "aggressive"})
    assert schema_errors(fight_record(branched.fight).lines) == []


def test_the_schema_refuses_what_the_format_forbids() -> None:
    lines = duel_text().splitlines()
    header = json.loads(lines[0])
    del header["combatants"][0]["sheet"]
    declared = next(json.loads(x) for x in lines if '"action.declared"' in x)
    del declared["declared"]["kind"]
    die = next(json.loads(x) for x in lines if '"die.rolled"' in x)
    die["value"] = 0
    end = json.loads(lines[-1])
    end["actor"] = "robert"
    test = next(json.loads(x) for x in lines if '"test.rolled"' in x)
    test["chance"] = "high"
    errors = schema_errors([header, declared, die, end, test])
    assert errors == [
        "line 1: combatants/0: 'sheet' is a required property",
        "line 2: declared: 'kind' is a required property",
        "line 3: value: 0 is less than the minimum of 1",
        "line 4: actor: 'robert' is not of type 'null'",
        "line 5: chance: 'high' is not of type 'integer'",
    ]


def test_unknown_event_types_validate_on_the_common_fields() -> None:
    """A later ruleset's events are valid records before the schema knows them."""
    header = json.loads(duel_text().splitlines()[0])
    later = {"t": 4, "type": "someday.counter", "actor": "robert", "anything": [1, 2]}
    assert schema_errors([header, later]) == []
    assert schema_errors([header, {**later, "t": "four"}]) == [
        "line 2: t: 'four' is not of type 'integer'"
    ]


# ---------------------------------------------------------------- reader and visitors


def test_reading_and_writing_a_record_gives_the_same_bytes(tmp_path: Path) -> None:
    text = duel_text(9)
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    record = read_record(path)
    out = io.StringIO()
    record.write(out)
    assert out.getvalue() == text


def test_a_live_fight_drives_a_visitor_as_its_file_does(tmp_path: Path) -> None:
    fight = load_scenario(DUEL).fight(4)
    fight.run()
    path = tmp_path / "r.jsonl"
    write_record(fight, path)
    from_file = read_record(path)
    from_fight = visit_fight(fight, RecordBuilder())
    assert from_file.lines == from_fight.lines
    assert from_file.header == from_fight.header and from_file.events == from_fight.events


class DiceCounter(RecordVisitor[dict[str, int]]):
    """A visitor of one's own: how many times each die was rolled, by purpose."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}

    def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
        if event["type"] == "die.rolled":
            self.count[event["purpose"]] = self.count.get(event["purpose"], 0) + 1

    def result(self) -> dict[str, int]:
        return self.count


def test_a_visitor_of_ones_own(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(duel_text(7), encoding="utf-8")
    counts = read_record(path, DiceCounter())
    assert counts["attack"] >= 1 and sum(counts.values()) == duel_text(7).count('"die.rolled"')
    assert read_record(path).accept(DiceCounter()) == counts


def test_a_visitor_can_refuse_a_line_and_name_it(tmp_path: Path) -> None:
    class NoDodges(RecordVisitor[None]):
        def visit_event(self, event: Mapping[str, Any], line: Line) -> None:
            if event["type"] == "action.declared" and event["kind"] == "dodge":
                raise line.error("no dodging here")

        def result(self) -> None:
            return None

    path = tmp_path / "r.jsonl"
    text = duel_text(7)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as err:
        read_record(path, NoDodges())
    first = next(
        i for i, x in enumerate(text.splitlines(), 1) if '"kind":"dodge"' in x and "declared" in x
    )
    assert (err.value.path, err.value.line) == (str(path), first)
    assert str(err.value) == f"{path}:{first}: no dodging here"


def test_a_last_line_without_its_newline_is_accepted_when_complete(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(duel_text(7).rstrip("\n"), encoding="utf-8")
    assert read_record(path).end is not None


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", None, "empty record"),
        ("\n", 1, "not JSON (empty line"),
        ('{"format":"segsim-record","version":"2.0"}\n', 1, "stops before its end event"),
        ('{"format":"segsim-record","version":"2.7"}\n{"t":0,"type":"end","actor":null}', None, ""),
        ('{"format":"segsim-record","version":"0.9"}\n', 1, "not supported"),
        ('{"format":"segsim-record","version":"1.0"}\n', 1, "version 1.0 is not supported"),
        ('{"format":"segsim-record","version":"2.0"}\n{"t":-1,"type":"x","actor":null}\n', 2, "t:"),
        (
            '{"format":"segsim-record","version":"2.0"}\n{"t":1,"type":"","actor":null}\n',
            2,
            "type:",
        ),
        ('{"format":"segsim-record","version":"2.0"}\n{"t":1,"type":"x","actor":3}\n', 2, "actor:"),
    ],
)
def test_reader_errors_name_the_line(
    tmp_path: Path, text: str, line: int | None, message: str
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    if not message:  # a newer minor version reads fine
        assert read_record(path).header["version"] == "2.7"
        return
    with pytest.raises(RecordError) as err:
        read_record(path)
    assert err.value.line == line and message in err.value.message


def test_every_event_class_is_frozen() -> None:
    """The event base is not frozen (so that a live Action can be an event), so each
    event class must freeze itself: a record line never changes once written."""
    import attrs
    from event_helpers import placeholders

    for name, cls in known_types().items():
        # Placeholders of each field's type: the compiled build's native classes (the
        # event base, RinKaNou's events) check their fields' types. A native class
        # refuses the assignment as attrs' frozen class does (segsim.eventbase.event_type).
        event = cls(**placeholders(cls))
        for f in attrs.fields(cls):
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                setattr(event, f.name, 1)
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                delattr(event, f.name)
        assert attrs.fields(cls) and name == cls.TYPE


def test_a_declared_action_is_its_own_action_declared_event() -> None:
    """One object from the plan to the record: the history's action.declared line is
    the action in progress itself, and it reads back as the ActionDeclared it would
    have been (same fields, same account line)."""
    from segsim.actions import Action
    from segsim.events import ActionDeclared
    from segsim.record import event_data

    fight = load_scenario(DUEL).fight(3)
    fight.run()
    declared = [e for e in fight.history if e.TYPE == "action.declared"]
    assert declared and all(type(e) is Action for e in declared)
    finished = {id(a) for c in fight.state.combatants.values() for a in (*c.actions, *c.recent)}
    assert finished & {id(e) for e in declared}
    for action in declared:
        assert isinstance(action, Action)
        line = event_data(action)
        back = ActionDeclared(**{k: v for k, v in line.items() if k != "type"})
        assert back.fields() == action.fields()
        assert list(back.fields()) == list(action.fields())  # the record's field order
        assert back.describe() == action.describe()
        assert (back.action, back.t, back.ends_in) == (action.id, action.start, action.last)


def test_an_event_class_says_whether_it_changes_the_state() -> None:
    """The engine calls ``apply`` only for classes that define one (CHANGES_STATE):
    a subclass of such a class inherits it, one that only reports does not."""
    import attrs

    from segsim.events import Event
    from segsim.state import FightState

    @attrs.frozen
    class Reported(Event):
        note: str

    @attrs.frozen
    class Moved(Event):
        def apply(self, state: FightState) -> None:
            state.segment = self.t

    @attrs.frozen
    class MovedAgain(Moved):
        how: str = "again"

    assert not Reported.CHANGES_STATE
    assert Moved.CHANGES_STATE and MovedAgain.CHANGES_STATE
    for cls in known_types().values():
        assert (cls.apply is not Event.apply) == cls.CHANGES_STATE


def test_an_action_s_event_segment_is_always_its_start() -> None:
    """``t`` is derived from ``start`` wherever an action is made (a ruleset may build
    one already started, as a spawned missile is), and follows a cancellation's copy."""
    import attrs

    from segsim.actions import Action

    made = Action("missile", 4, start=7)
    assert made.t == made.start == 7
    assert attrs.evolve(made, start=9).t == 9
    stamped = Action("strike", 3).stamp(1, "robert", 12)
    assert stamped.t == stamped.start == 12
    assert stamped.cancelled_at(13).t == 12


def test_an_action_s_end_copies_every_field_as_attrs_evolve_would() -> None:
    """``ended_at`` (a wait whose way cleared) and ``cancelled_at`` build their copy with
    the constructor: every field, the segment and the declaration included, is what
    ``attrs.evolve`` makes, and the action itself is unchanged (every field here is set
    away from its default: a field left out of the copy fails)."""
    import attrs

    from segsim.actions import Action, Declaration

    made = Action(
        "wait",
        None,
        "legs",
        "e1",
        True,
        -10,
        True,
        True,
        True,
        True,
        {"clear": 2.5},
        declaration=Declaration("wait", params={"clear": 2.5}),
    ).stamp(7, "w3", 12)
    made.cancelled = True
    names = [f.name for f in attrs.fields(Action)]
    before = [getattr(made, n) for n in names]
    for cancelled in (False, True):
        made.cancelled = cancelled
        for copy, expected in (
            (made.ended_at(15), attrs.evolve(made, duration=4)),
            (made.cancelled_at(15), attrs.evolve(made, duration=4, cancelled=True)),
        ):
            assert type(copy) is Action and copy is not made
            assert [getattr(copy, n) for n in names] == [getattr(expected, n) for n in names]
    made.cancelled = True
    assert [getattr(made, n) for n in names] == before


def test_an_action_s_params_are_frozen_however_it_is_made() -> None:
    """A ruleset may plan an action with a plain dict of params: the action keeps a
    frozen copy (a later change to that dict, or through the action, changes nothing),
    also for a copy made by ``attrs.evolve`` or ``revised`` once in progress."""
    import attrs
    import pytest

    from segsim.actions import EMPTY, Action

    source = {"blow": "cut"}
    made = Action("strike", 3, params=source)
    source["blow"] = "thrust"
    assert dict(made.params) == {"blow": "cut"}
    with pytest.raises(TypeError):
        made.params["blow"] = "thrust"  # type: ignore[index]
    assert Action("arm", 3).params is EMPTY and Action("arm", 3, params={}).params is EMPTY
    changed = {"blow": "sweep"}
    copy = attrs.evolve(made.stamp(1, "robert", 0), params=changed)
    revised = made.revised(params=changed)
    changed["blow"] = "cut"
    assert dict(copy.params) == dict(revised.params) == {"blow": "sweep"}
    with pytest.raises(TypeError, match="params is a table"):
        Action("strike", 3, params=["cut"])  # type: ignore[arg-type]


def test_an_action_compares_and_shows_its_fields_as_attrs_would() -> None:
    """Action writes its equality and repr (the compiled build keeps no attrs-made
    ones): every field but its segment and declaration, in attrs' order, unhashable."""
    import attrs

    from segsim.actions import Action, Declaration

    a = Action("strike", 3, target="b", params={"ps": 1})
    same = Action("strike", 3, target="b", params={"ps": 1}, declaration=Declaration("strike"))
    assert a == same
    assert (a != same) is False  # its __ne__ is the inverse of its __eq__
    assert a != Action("strike", 4, target="b", params={"ps": 1})
    assert a != attrs.evolve(a, actor="x")
    assert a.__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        hash(a)
    names = [f.name for f in attrs.fields(Action) if f.repr]
    assert repr(a) == "Action(" + ", ".join(f"{n}={getattr(a, n)!r}" for n in names) + ")"
    assert repr(a).startswith("Action(kind='strike', duration=3, channel='main', target='b'")
