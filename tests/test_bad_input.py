"""Bad and hostile input: a clear error (exit 2) naming the file, line and field or the
rule, never a traceback; no code runs from data; state is left as it was (DESIGN,
principles 7 and 9; issue "Bad input never escapes as a traceback")."""

from __future__ import annotations

import json
import math
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from segsim import InputError, load_scenario
from segsim.actions import Cancel, Declaration, declaration_problem
from segsim.cli import main
from segsim.errors import IllegalDeclaration, RecordError
from segsim.policies import compile_expression
from segsim.policy import UnknownPolicy, make_policy, policy_factory, register_policy
from segsim.record import fight_record, read_record
from segsim.replay import branch, replay
from segsim.script import load_script
from segsim.terminal import printable
from segsim.testing import Scripted, build_fight, declare

ROOT = Path(__file__).parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"

SCENARIO = """\
[fight]
ruleset = "rinkanou"

[[combatant]]
id = "robert"
side = "blue"
fighter = "robert"
policy = "defender"
position = [0.0, 0.0]

[[combatant]]
id = "margaret"
side = "red"
fighter = "margaret"
policy = "aggressive"
position = [1.5, 0.0]
"""


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def duel_lines(seed: int = 7) -> list[str]:
    fight = load_scenario(DUEL).fight(seed)
    fight.run()
    return list(fight_record(fight).lines)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------- 1. code from data


@pytest.mark.parametrize("spec", ["os:abort", "sys:exit", "code:interact", "builtins:print"])
def test_a_scenario_cannot_import_or_call_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    path = write(tmp_path / "s.toml", SCENARIO.replace('"aggressive"', f'"{spec}"'))
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.line == 15 and caught.value.field == "combatant[1].policy"
    assert "registered policies only" in caught.value.message
    code, _, err = run_cli(["run", str(path)], capsys)
    assert code == 2 and "registered policies only" in err


def test_a_module_beside_the_scenario_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    write(
        tmp_path / "evil.py",
        f"open({str(marker)!r}, 'w').close()\nclass P:\n    def decide(self, o): return None\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "s.toml", SCENARIO.replace('"aggressive"', '"evil:P"'))
    with pytest.raises(InputError):
        load_scenario(path)
    assert not marker.exists() and "evil" not in sys.modules


def test_a_record_header_policy_is_rebuilt_by_name_only(tmp_path: Path) -> None:
    lines = duel_lines()
    header = json.loads(lines[0])
    header["combatants"][1]["policy"] = "os:abort"
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    path = write_lines(tmp_path / "r.jsonl", lines)
    result = branch(path, 20)  # the recorded policy is not a registered name: replayed
    assert any("not a registered policy" in note for note in result.notes)
    assert result.policies["margaret"] == "replay"


def test_import_paths_from_python_take_only_policy_classes_and_marked_factories() -> None:
    with pytest.raises(UnknownPolicy, match="neither a policy class"):
        make_policy("rinkanou", "os:abort")
    with pytest.raises(UnknownPolicy, match="without a decide"):
        make_policy("rinkanou", "collections:OrderedDict")
    policy = make_policy("rinkanou", "segsim.rules.rinkanou.tactics:PressureFighter")
    assert type(policy).__name__ == "PressureFighter"

    module = types.ModuleType("segsim_test_factories")

    def plain() -> Any:  # pragma: no cover - must never be called
        raise AssertionError("an unmarked function was called")

    @policy_factory
    def marked() -> Any:
        return Scripted({}, name="marked")

    module.plain = plain  # type: ignore[attr-defined]
    module.marked = marked  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        with pytest.raises(UnknownPolicy):
            make_policy("rinkanou", "segsim_test_factories:plain")
        assert make_policy("rinkanou", "segsim_test_factories:marked").name == "marked"
    finally:
        del sys.modules[module.__name__]


def test_a_name_registered_in_python_is_usable_from_data(tmp_path: Path) -> None:
    register_policy("*", "test-idler", lambda: Scripted({}, name="test-idler"))
    path = write(tmp_path / "s.toml", SCENARIO.replace('"aggressive"', '"test-idler"'))
    fight = load_scenario(path).fight(1)
    assert fight.state.combatants["margaret"].policy.name == "test-idler"


@pytest.mark.parametrize(
    "text",
    [
        '"{0.__init__.__globals__}".format(me)',
        '"{0.x}".format_map(me)',
        "target.gi_frame",
        "in_reach.func",
    ],
)
def test_rule_expressions_cannot_reach_interpreter_internals(text: str) -> None:
    with pytest.raises(ValueError, match="not allowed"):
        compile_expression(text, ["in_reach"])


# ---------------------------------------------------------------- 2. parser limits


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (SCENARIO.encode() + b'\nname = "\xff"\n', 18, "not UTF-8"),
        ("[fight]\nx = " + "[" * 2000 + "]" * 2000 + "\n", 2, "nested more than"),
        ("[fight]\nseed = " + "9" * 5000 + "\n", 2, "thousands of digits"),
        ("[fight]\nseed = 99999999999999999999\n", 2, "64-bit"),
    ],
)
def test_parser_limits_are_input_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | bytes,
    line: int,
    message: str,
) -> None:
    path = write(tmp_path / "s.toml", content)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.line == line and message in caught.value.message
    code, _, err = run_cli(["run", str(path)], capsys)
    assert code == 2 and err.startswith(f"segsim: error: {path}:{line}")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: "9" * 5000, "not a record line"),
        (lambda text: "[" * 100000 + "]" * 100000, "nested more than"),
        (lambda text: text.replace('"seed":7', '"seed":NaN'), "not a record line"),
        (lambda text: text[:-1] + ',"x":' + "[" * 40 + "]" * 40 + "}", "nested more than"),
    ],
)
def test_record_parser_limits_are_record_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    lines = duel_lines()
    lines[0] = change(lines[0])
    path = write_lines(tmp_path / "r.jsonl", lines)
    with pytest.raises(RecordError) as caught:
        read_record(path)
    assert caught.value.line == 1 and message in caught.value.message
    code, _, err = run_cli(["replay", str(path)], capsys)
    assert code == 2 and f"{path}:1" in err


def test_a_record_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(("\n".join(duel_lines()[:3]) + "\n").encode() + b'{"t":\xff}\n')
    with pytest.raises(RecordError) as caught:
        read_record(path)
    assert caught.value.line == 4 and "not UTF-8" in caught.value.message


# ---------------------------------------------------------------- 3. null in a header


@pytest.mark.parametrize("field", ["seed", "max_segments", "ruleset"])
def test_null_in_a_required_header_field_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    lines = duel_lines()
    header = json.loads(lines[0])
    header[field] = None
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    path = write_lines(tmp_path / "r.jsonl", lines)
    code, _, err = run_cli(["replay", str(path)], capsys)
    assert code == 2
    assert f"{path}:1: header: {field}: null where a value is required" in err
    assert "Ellipsis" not in err


def test_null_side_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = duel_lines()
    header = json.loads(lines[0])
    header["combatants"][0]["side"] = None
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    code, _, err = run_cli(["replay", str(write_lines(tmp_path / "r.jsonl", lines))], capsys)
    assert code == 2 and "combatants[0].side: null where a value is required" in err


# ---------------------------------------------------------------- 4. non-finite numbers


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("position = [0.0, 0.0]", "position = [nan, 0.0]", "combatant[0].position"),
        ("position = [1.5, 0.0]", "position = [inf, 0.0]", "combatant[1].position"),
        ('ruleset = "rinkanou"', 'ruleset = "rinkanou"\n[options]\nawareness = nan', "options"),
    ],
)
def test_non_finite_numbers_are_refused_at_load(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    path = write(tmp_path / "s.toml", SCENARIO.replace(old, new))
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.field.startswith(field) and "finite" in caught.value.message


def test_non_finite_numbers_are_refused_in_declarations() -> None:
    for bad in (declare("move", to=[math.inf, 0.0]), declare("move", toward="b", stop_at=math.nan)):
        fight = build_fight(
            {"a": ("blue", "robert", Scripted({0: bad})), "b": ("red", "margaret", Scripted())},
            seed=1,
        )
        with pytest.raises(IllegalDeclaration, match="not a finite number"):
            fight.run()


def test_a_declaration_is_checked_again_while_a_list_inside_it_can_change() -> None:
    # The engine trusts a declaration it has found well formed only if nothing in it can
    # change: a list inside its parameters can, so it is checked on every use.
    fight = build_fight(
        {"a": ("blue", "robert", Scripted()), "b": ("red", "margaret", Scripted())}, seed=1
    )
    flat, nested = declare("dodge"), declare("move", to=[1.0, 0.0])
    assert not flat.checked
    fight.check("a", [flat])
    fight.check("a", [nested])
    assert flat.checked and not nested.checked
    nested.params["to"][0] = math.inf
    with pytest.raises(IllegalDeclaration, match="not a finite number"):
        fight.check("a", [nested])
    assert flat == declare("dodge")  # the mark is no part of its value


def test_a_declaration_with_a_table_of_plain_values_is_checked_once() -> None:
    # A table inside a declaration's parameters (PS choices) is frozen as a copy, so a
    # declaration whose tables hold plain values cannot change and is checked once; a
    # table holding a list still can, and is checked on every use.
    choices = {"faster": 1}
    table = Declaration("dodge", params={"ps": choices})
    choices["faster"] = 2  # the declaration keeps its own copy
    assert table.params["ps"] == {"faster": 1}
    with pytest.raises(TypeError):
        table.params["ps"]["faster"] = 2  # type: ignore[index]
    assert repr(table) == "Declaration('dodge', params={'ps': {'faster': 1}})"
    assert declaration_problem(table) is None and table.checked
    deep = Declaration("dodge", params={"ps": {"faster": [1]}})
    assert declaration_problem(deep) is None and not deep.checked
    deep.params["ps"]["faster"][0] = math.inf
    assert declaration_problem(deep) == "parameter ps: faster: inf is not a finite number"
    assert table == Declaration("dodge", params={"ps": {"faster": 1}})


# ---------------------------------------------------------------- 5. options and setup


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ("[options]\nps_divisor = 10.0\n", "options", "ps_divisor is 20 or 10"),
        ('[combatant.setup]\nengage = ["nobody"]\n', "combatant[1].setup.engage", "nobody"),
        ('[combatant.setup]\nwielding = "ranged"\n', "combatant[1].setup.wielding", "no ranged"),
    ],
)
def test_options_and_setups_are_checked_at_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, field: str, message: str
) -> None:
    path = write(tmp_path / "s.toml", SCENARIO + extra)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.field == field and message in caught.value.message
    assert caught.value.line is not None
    code, _, err = run_cli(["run", str(path)], capsys)
    assert code == 2 and message in err


# ---------------------------------------------------------------- 6. ill-typed values


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (Declaration(["arm"]), "an action kind is a non-empty string"),  # type: ignore[arg-type]
        (Declaration("dodge", ["b"]), "a target is a combatant id"),  # type: ignore[arg-type]
        (declare("move", toward=["b"]), "no combatant ['b'] in the fight"),
        (declare("move", to=[[1], 2]), "move to [x, y]"),
        (declare("dodge", pc=None), "pc choices are a table"),
        (declare("dodge", engage=[["b"]]), "engage lists opponent ids"),
        (declare("dodge", x={1: 2}), "a parameter name is a string"),
    ],
)
def test_ill_typed_declarations_are_illegal_and_change_nothing(bad: Any, message: str) -> None:
    fight = build_fight(
        {"a": ("blue", "robert", Scripted({0: bad})), "b": ("red", "margaret", Scripted())},
        seed=1,
    )
    with pytest.raises(IllegalDeclaration) as caught:
        fight.run()
    assert message in str(caught.value) and caught.value.actor == "a"
    assert not any(e.TYPE == "action.declared" and e.actor == "a" for e in fight.history)


def test_an_ill_typed_blow_is_illegal() -> None:
    arm_then = {0: declare("arm"), 3: declare("strike", "b", blow=["cut"])}
    fight = build_fight(
        {"a": ("blue", "robert", Scripted(arm_then)), "b": ("red", "margaret", Scripted())},
        seed=1,
    )
    with pytest.raises(IllegalDeclaration, match="has no"):
        fight.run()


def test_an_ill_typed_recorded_declaration_is_bad_input_not_a_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = duel_lines()
    index = next(i for i, line in enumerate(lines) if '"action.declared"' in line)
    event = json.loads(lines[index])
    event["declared"] = {"kind": "strike", "target": None, "params": {"blow": float("inf")}}
    lines[index] = json.dumps(event, separators=(",", ":")).replace("Infinity", "1e999")
    path = write_lines(tmp_path / "r.jsonl", lines)
    code, _, err = run_cli(["replay", str(path)], capsys)
    assert code == 2 and f"{path}:{index + 1}" in err and "finite" in err


def test_an_ill_typed_script_entry_names_its_line(tmp_path: Path) -> None:
    write(tmp_path / "duel.toml", SCENARIO)
    path = write(
        tmp_path / "script.toml",
        '[fight]\nscenario = "duel.toml"\n[segment.0]\nrobert = { action = "dodge", x = nan }\n',
    )
    with pytest.raises(InputError) as caught:
        load_script(path)
    assert caught.value.line == 4 and "finite" in caught.value.message


# ---------------------------------------------------------------- 7. accepted but wrong


def _refused(script: dict[int, Any], message: str) -> None:
    fight = build_fight(
        {"a": ("blue", "robert", Scripted(script)), "b": ("red", "margaret", Scripted())},
        seed=1,
    )
    with pytest.raises(IllegalDeclaration) as caught:
        fight.run()
    assert message in str(caught.value)


def test_the_same_action_cancelled_twice_is_refused() -> None:
    _refused(
        {0: declare("dodge"), 1: lambda obs: [Cancel(obs.me.actions[0].id)] * 2}, "cancelled twice"
    )


def test_two_waits_in_one_output_are_refused() -> None:
    _refused({0: [declare("wait"), declare("wait")]}, "both need the wait")


def test_a_target_on_an_action_that_takes_none_is_refused() -> None:
    _refused({0: declare("arm", "b")}, "arm takes no target")


def test_moving_toward_oneself_is_refused() -> None:
    _refused({0: declare("move", toward="a")}, "cannot move toward itself")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (declare("dodge", difficulty=10**30), "beyond 64 bits"),
        (declare("dodge", difficulty=1000), "beyond +/-100 %"),
        (declare("wait", until=10**15), "would last"),
        (declare("move", to=[1.0, 0.0], segments=10**12), "would last"),
        (Cancel(True), "an integer >= 1"),  # type: ignore[arg-type]
    ],
)
def test_unbounded_values_are_refused(bad: Any, message: str) -> None:
    _refused({0: bad}, message)


# ---------------------------------------------------------------- 9. script parsing


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[segment."²"]\nrobert = "dodge"\n', 3, "a segment number"),
        ("[dice]\nrolls = [" + "9" * 5000 + "]\n", 4, "thousands of digits"),
        ('[dice]\nrolls = ["d100:' + "9" * 5000 + '"]\n', 4, "a roll is a face"),
    ],
)
def test_script_parsing_errors_name_the_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    write(tmp_path / "duel.toml", SCENARIO)
    path = write(tmp_path / "script.toml", '[fight]\nscenario = "duel.toml"\n' + text)
    with pytest.raises(InputError) as caught:
        load_script(path)
    assert caught.value.line == line and message in caught.value.message


# ---------------------------------------------------------------- 10. tampered dice


def test_every_single_die_change_of_a_seeded_duel_is_caught(tmp_path: Path) -> None:
    """A changed die is found even when its new face decides nothing new (a hit
    location in the same band): the replay checks the seed's stream."""
    lines = duel_lines(7)
    dice = [i for i, line in enumerate(lines) if '"die.rolled"' in line]
    assert len(dice) > 5
    for index in dice:
        changed = list(lines)
        event = json.loads(changed[index])
        sides = int(event["die"][1:])
        event["value"] = event["value"] % sides + 1
        changed[index] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        result = replay(write_lines(tmp_path / "r.jsonl", changed))
        assert result.divergence is not None and result.divergence.line <= index + 1


# ---------------------------------------------------------------- 11. terminal output


def test_control_characters_in_names_are_escaped_by_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SCENARIO.replace('id = "margaret"', 'id = "margaret"\nname = "M\\u001b[2J\\u009b"')
    code, out, _ = run_cli(["run", str(write(tmp_path / "s.toml", text)), "--seed", "1"], capsys)
    assert code == 0 and "\x1b" not in out and "\x9b" not in out
    assert "M\\x1b[2J\\x9b" in out
    assert printable("a\u202eb\tc\n") == "a\\u202eb\tc\n"


# ---------------------------------------------------------------- 12. where scripts read


def test_a_script_reads_no_scenario_outside_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = write(tmp_path / "secret.toml", SCENARIO)
    folder = tmp_path / "scripts"
    folder.mkdir()
    messages = []
    for name in ("../secret.toml", "../nothing.toml", "/etc/shadow"):
        path = write(folder / "s.toml", f'[fight]\nscenario = "{name}"\n')
        with pytest.raises(InputError) as caught:
            load_script(path)
        assert caught.value.line == 2 and caught.value.field == "fight.scenario"
        messages.append(caught.value.message.replace(name, "NAME"))
    assert len(set(messages)) == 1  # the same answer whether the file exists or not
    path = write(folder / "s.toml", '[fight]\nscenario = "../secret.toml"\n')
    assert load_script(path, allow_outside=True).combatants[0].id == "robert"
    code, _, err = run_cli(["run", "--script", str(path)], capsys)
    assert code == 2 and "outside the script's folder" in err
    code, _, _ = run_cli(["run", "--script", str(path), "--allow-outside", "--quiet"], capsys)
    assert code == 2  # read now; the script has no dice for the fight it starts
    assert outside.exists()


# ---------------------------------------------------------------- registered names


def test_installed_packages_offer_policies_through_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    import segsim.policy as policy_module

    found = [
        importlib.metadata.EntryPoint(
            "rinkanou.ep-pressure",
            "segsim.rules.rinkanou.tactics:PressureFighter",
            "segsim.policies",
        ),
        importlib.metadata.EntryPoint("ep-abort", "os:abort", "segsim.policies"),
    ]

    def entry_points(*, group: str) -> list[importlib.metadata.EntryPoint]:
        return found if group == "segsim.policies" else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(policy_module, "_entry_points_loaded", False)
    load_scenario(DUEL)  # the built-in policies are registered before the entry points
    before = set(policy_module._REGISTRY)
    try:
        assert "ep-pressure" in policy_module.policy_names("rinkanou")
        assert "ep-pressure" not in policy_module.policy_names("chroniques")
        path = write(tmp_path / "s.toml", SCENARIO.replace('"aggressive"', '"ep-pressure"'))
        fight = load_scenario(path).fight(1)
        assert type(fight.state.combatants["margaret"].policy).__name__ == "PressureFighter"
        with pytest.raises(UnknownPolicy, match="neither a policy class"):
            make_policy("chroniques", "ep-abort", from_data=True)
    finally:
        for key in set(policy_module._REGISTRY) - before:
            del policy_module._REGISTRY[key]


def test_a_rule_list_file_registered_by_name_is_usable_from_data(tmp_path: Path) -> None:
    from segsim.policies import register_rule_list

    name = register_rule_list(ROOT / "examples/policies/striker.toml", name="test-striker")
    path = write(tmp_path / "s.toml", SCENARIO.replace('"aggressive"', f'"{name}"'))
    fight = load_scenario(path).fight(1)
    assert fight.state.combatants["margaret"].policy.name == "striker"
    fight.run()


def test_two_waits_in_one_output_are_refused_in_every_ruleset() -> None:
    fight = build_fight(
        {
            "aldric": ("blue", "aldric", Scripted({0: [declare("wait"), declare("wait")]})),
            "bandit": ("red", "bandit", Scripted()),
        },
        ruleset="chroniques",
        seed=1,
    )
    with pytest.raises(IllegalDeclaration, match="two continuous actions"):
        fight.run()


def test_a_non_finite_awareness_is_refused_from_python() -> None:
    from segsim.rules import get_ruleset

    for bad in (math.nan, math.inf):
        with pytest.raises(TypeError, match="awareness"):
            get_ruleset("rinkanou", {"awareness": bad})


@pytest.mark.parametrize("command", [["sweep"], ["tournament", "--policies", "random", "random"]])
def test_experiments_refuse_a_scenario_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """Found by make fuzz: the experiment reader decoded the file itself."""
    path = write(tmp_path / "s.toml", SCENARIO.encode().replace(b"blue", b"bl\x8cue"))
    code, _, err = run_cli([command[0], str(path), "--fights", "2", *command[1:]], capsys)
    assert code == 2 and f"{path}:6: not UTF-8 text" in err


@pytest.mark.parametrize("bad", ['["chest", {  }]', "[35, []]"])
def test_a_rinkanou_adjacency_entry_that_is_not_two_location_names_is_refused(
    tmp_path: Path, bad: str
) -> None:
    """A table or a number where the hit-location adjacency wants a location's name is an
    error naming the file and the field, not a TypeError (found by make fuzz)."""
    import shutil

    from segsim.models import models_dir
    from segsim.rules.rinkanou.content import load_content

    shutil.copytree(models_dir() / "rinkanou", tmp_path, dirs_exist_ok=True)
    tables = tmp_path / "tables.toml"
    text = tables.read_text(encoding="utf-8")
    assert '["chest", "left_arm"]' in text
    tables.write_text(text.replace('["chest", "left_arm"]', bad, 1), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_content(tmp_path)
    assert err.value.path.endswith("tables.toml") and err.value.field == "adjacency"
    assert "is not a pair of known locations" in err.value.message
