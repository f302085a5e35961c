"""Chroniques content, sheets, options and scenarios: conventional values where the
excerpt is silent (docs/rules/chroniques.md, "Interpretations"), and every bad input
named by file, line and field (DESIGN, principles 7 and 9); records, replay, timeline."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segsim import InputError, load_scenario
from segsim.input import Source
from segsim.models import models_dir
from segsim.record import write_record
from segsim.replay import replay
from segsim.rules import get_ruleset, ruleset_names
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.content import (
    default_hit_points,
    load_content,
    modifier,
    parse_damage,
    sheet_data,
)
from segsim.rules.chroniques.events import AbilityTested, RoundStarted
from segsim.timeline import timeline_svg, timeline_text

ROOT = Path(__file__).resolve().parent.parent
AMBUSH = ROOT / "examples/scenarios/chroniques_ambush.toml"


def test_the_ruleset_is_registered_with_a_round_of_100_segments() -> None:
    assert "chroniques" in ruleset_names()
    rules = get_ruleset("chroniques", {"dim_light": True})
    assert isinstance(rules, Chroniques) and rules.tick == 100
    assert rules.options["dim_light"] is True


@pytest.mark.parametrize(
    ("score", "mod"), [(3, -4), (7, -2), (8, -1), (9, -1), (10, 0), (11, 0), (12, 1), (18, 4)]
)
def test_ability_modifiers(score: int, mod: int) -> None:
    assert modifier(score) == mod


def test_damage_expressions() -> None:
    assert str(parse_damage("1d8")) == "1d8"
    assert parse_damage("2d6").maximum == 12
    assert parse_damage("1d4+1").maximum == 5 and parse_damage("1d4+1").bonus == 1
    assert parse_damage(" 1 d 6 - 1 ").bonus == -1
    for bad in ("d8", "1x8", "0d6", "1d1", "1d8+", "one die"):
        with pytest.raises(ValueError, match=r"dice expression|1 to 20 dice"):
            parse_damage(bad)


def test_hit_points_by_profile() -> None:
    """Interpretations: the whole hit die + CON at level 1, then die / 2 + 1 + CON."""
    assert default_hit_points(10, 1, 2) == 12
    assert default_hit_points(10, 2, 2) == 12 + 8
    assert default_hit_points(4, 3, -2) == 2 + 1 + 1  # at least 1 per level


@pytest.mark.parametrize(
    ("fighter", "defence", "initiative", "hit_points", "attack"),
    [
        ("aldric", 18, 12, 20, 5),  # 10 + chainmail 5 + large shield 2 + DEX 1
        ("nissa", 15, 17, 12, 3),
        ("melisande", 15, 14, 12, 2),
        ("anselm", 16, 10, 17, 4),
        ("bandit", 13, 13, 9, 2),
        ("bandit_archer", 14, 15, 8, 3),  # level 1 + DEX 2 with the bow
        ("bandit_chief", 16, 12, 24, 5),
        ("apprentice", 11, 13, 4, 4),  # magic: level 1 + INT 3
        ("ogre", 16, 8, 45, 10),
    ],
)
def test_example_fighters(
    fighter: str, defence: int, initiative: int, hit_points: int, attack: int
) -> None:
    rules = Chroniques()
    sheet = rules.load_sheet(rules.content.fighters[fighter])
    assert (sheet.defence, sheet.initiative, sheet.hit_points) == (defence, initiative, hit_points)
    assert sheet.attack_bonus(sheet.weapon) == attack


def test_a_sheet_survives_the_record_header() -> None:
    rules = Chroniques()
    for name, node in rules.content.fighters.items():
        sheet = rules.load_sheet(node)
        again = rules.load_sheet(Source.from_data(name, sheet_data(sheet)).root())
        assert again == sheet, name


# ---------------------------------------------------------------- bad model files


@pytest.fixture
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "chroniques"
    shutil.copytree(models_dir() / "chroniques", folder)
    return folder


def edit(folder: Path, file: str, old: str, new: str) -> None:
    path = folder / file
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(folder: Path, file: str, text: str) -> int:
    lines = (folder / file).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


BAD_MODELS = [
    (
        "weapons.toml",
        'damage = "1d8"',
        'damage = "1x8"',
        "weapon.long_sword.damage",
        "dice expression",
    ),
    ("weapons.toml", 'kind = "melee"', 'kind = "thrown"', "weapon.dagger.kind", "is not one of"),
    (
        "weapons.toml",
        "critical = 19",
        "critical = 25",
        "weapon.dagger.critical",
        "above the maximum",
    ),
    ("weapons.toml", "range = 30.0", "range = -1.0", "weapon.short_bow.range", "below the minimum"),
    (
        "weapons.toml",
        'damage = "1d4"\ncritical = 19',
        'damage = "1d4"\nrange = 5.0',
        "weapon.dagger.range",
        "no range",
    ),
    (
        "weapons.toml",
        'hands = 2\ntags = ["edged"]',
        'hands = 3\ntags = ["edged"]',
        "weapon.two_handed_sword.hands",
        "is not one of",
    ),
    (
        "weapons.toml",
        'tags = ["edged"]',
        "tags = [1]",
        "weapon.dagger.tags",
        "not a non-empty string",
    ),
    (
        "armour.toml",
        "defence = 2",
        'defence = "2"',
        "armour.leather.defence",
        "expected an integer",
    ),
    (
        "armour.toml",
        "defence = 1",
        "defence = 1\nweight = 5",
        "armour.padded.weight",
        "unknown field",
    ),
    ("shields.toml", "defence = 1", "defence = -1", "shield.small.defence", "below the minimum"),
    ("profiles.toml", "hit_die = 10", "hit_die = 7", "profile.fighter.hit_die", "is not one of"),
    (
        "profiles.toml",
        'magic_ability = "charisma"',
        'magic_ability = "luck"',
        "profile.bard.magic_ability",
        "is not one of",
    ),
    (
        "fighters.toml",
        'weapon = "long_sword"',
        'weapon = "long_swrod"',
        "fighter.aldric.weapon",
        "unknown weapon 'long_swrod'",
    ),
    (
        "fighters.toml",
        'profile = "fighter"',
        'profile = "paladin"',
        "fighter.aldric.profile",
        "unknown profile",
    ),
    ("fighters.toml", "level = 2", "level = 0", "fighter.aldric.level", "below the minimum"),
    ("fighters.toml", "strength = 16, ", "", "fighter.aldric.abilities.strength", "missing"),
    (
        "fighters.toml",
        'off_hand = "dagger"',
        'off_hand = "long_sword"',
        "fighter.nissa.off_hand",
        "not a light one-handed",
    ),
    (
        "fighters.toml",
        'armour = "chainmail"\n\n[fighter.nissa]',
        'armour = "chainmail"\noff_hand = "dagger"\n\n[fighter.nissa]',
        "fighter.aldric.off_hand",
        "holding a shield",
    ),
    (
        "fighters.toml",
        'weapon = "long_sword"\nshield = "large"',
        'weapon = "two_handed_sword"\nshield = "large"',
        "fighter.aldric.shield",
        "needs both hands",
    ),
    (
        "fighters.toml",
        'carried = ["short_bow"]',
        'carried = ["short_bow", "catapult"]',
        "fighter.nissa.carried",
        "entry 1: unknown weapon 'catapult'",
    ),
    (
        "fighters.toml",
        "stealth = 2\n\n[fighter.melisande]",
        'stealth = 2\nfree_actions = ["parry"]\n\n[fighter.melisande]',
        "fighter.nissa.free_actions",
        "must be one of move, attack",
    ),
    ("fighters.toml", "level = 2", "level = 2\nluck = 3", "fighter.aldric.luck", "unknown field"),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "field", "message"), BAD_MODELS, ids=lambda x: str(x)[:30]
)
def test_bad_content_names_file_line_and_field(
    models: Path, file: str, old: str, new: str, field: str, message: str
) -> None:
    edit(models, file, old, new)
    with pytest.raises(InputError) as err:
        load_content(models)
    assert err.value.path.endswith(file)
    assert err.value.field == field
    assert message in err.value.message
    assert err.value.line is not None
    assert f"{file}:{err.value.line}: {field}: " in str(err.value)


def test_an_error_points_at_the_offending_line(models: Path) -> None:
    edit(models, "weapons.toml", 'damage = "1d8"', 'damage = "eight"')
    with pytest.raises(InputError) as err:
        load_content(models)
    assert err.value.line == line_of(models, "weapons.toml", 'damage = "eight"')


def test_not_toml_at_all(models: Path) -> None:
    (models / "shields.toml").write_text("[shield.small\nname = 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"shields\.toml:1: not valid TOML"):
        load_content(models)


# ---------------------------------------------------------------- scenarios and options


SCENARIO = """\
[fight]
ruleset = "chroniques"

[options]
ambush = "red"

[[combatant]]
id = "a"
side = "blue"
fighter = "aldric"
policy = "aggressive"

[[combatant]]
id = "b"
side = "red"
policy = "cautious"
position = [3.0, 0.0]

[combatant.sheet]
name = "inline bandit"
profile = "creature"
level = 1
abilities.strength = 12
abilities.dexterity = 14
abilities.constitution = 10
abilities.intelligence = 10
abilities.wisdom = 10
abilities.charisma = 10
weapon = "spear"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_scenario_with_an_inline_sheet_runs(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, SCENARIO))
    _, b = scenario.combatants
    assert b.sheet.weapon.name == "lance" and b.sheet.hit_points == 8
    fight = scenario.fight(5)
    assert fight.run().result == "victory"
    assert [e.actor for e in fight.history if isinstance(e, AbilityTested)] == ["a"]


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ('ambush = "red"', "ambush = 3", "options", "ambush must be a side name"),
        ('ambush = "red"', 'dim_light = "yes"', "options", "dim_light must be true or false"),
        (
            'ambush = "red"',
            'ambush_difficulty = "median"',
            "options",
            "ambush_difficulty must be one of",
        ),
        (
            'ambush = "red"',
            "turn_segments = 0",
            "options",
            "turn_segments must be an integer from 1",
        ),
        (
            'ambush = "red"',
            "surprise_modifier = 1.5",
            "options",
            "surprise_modifier must be an integer",
        ),
        ('ambush = "red"', "surprised_defence_malus = -5", "options", "surprised_defence_malus"),
        ('ambush = "red"', "darkness = true", "options", "unexpected keyword argument 'darkness'"),
        (
            'policy = "cautious"',
            'policy = "berserk"',
            "combatant[1].policy",
            "unknown policy 'berserk'",
        ),
        (
            'weapon = "spear"',
            'weapon = "pike"',
            "combatant[1].sheet.weapon",
            "unknown weapon 'pike'",
        ),
        ("level = 1", "level = 21", "combatant[1].sheet.level", "above the maximum"),
    ],
)
def test_bad_scenarios_name_the_field(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    assert old in SCENARIO
    path = write(tmp_path, SCENARIO.replace(old, new))
    with pytest.raises(InputError) as err:
        load_scenario(path)
    assert err.value.field == field
    assert message in err.value.message
    assert err.value.line is not None and str(path) in str(err.value)


def test_the_policies_are_registered_by_name() -> None:
    from segsim.policy import policy_names

    assert {"aggressive", "cautious", "support"} <= set(policy_names("chroniques"))


# ---------------------------------------------------------------- the ambush example


def record_text(seed: int) -> str:
    fight = load_scenario(AMBUSH).fight(seed)
    fight.run()
    out = io.StringIO()
    write_record(fight, out)
    return out.getvalue()


def test_the_ambush_is_4_v_4_with_surprise_and_plays_to_an_end() -> None:
    scenario = load_scenario(AMBUSH)
    sides = [c.side for c in scenario.combatants]
    assert sides.count("party") == 4 and sides.count("bandits") == 4
    fight = scenario.fight()
    outcome = fight.run()
    assert outcome.result == "victory"
    tests = [e for e in fight.history if isinstance(e, AbilityTested)]
    assert sorted(e.actor for e in tests) == ["aldric", "anselm", "melisande", "nissa"]
    assert {e.difficulty for e in tests} == {11}  # 10 + the chief's DEX +1, no stealth
    rounds = [e for e in fight.history if isinstance(e, RoundStarted)]
    assert [r.t for r in rounds] == [100 * i for i in range(len(rounds))]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_any_seed_gives_a_consistent_ambush(seed: int) -> None:
    """Invariants: the fight ends; every turn lies inside its round; every attack
    resolves in the segment its turn ends; every die drawn is in the record, in order;
    time never goes back."""
    fight = load_scenario(AMBUSH).fight(seed)
    assert fight.run().result in ("victory", "time limit")
    declared = {e.action: e for e in fight.history if e.TYPE == "action.declared"}
    for e in fight.history:
        if e.TYPE == "action.declared" and e.kind == "turn":
            assert e.t // 100 == e.ends_in // 100 == e.params["round"] - 1
        if e.TYPE == "chroniques.attack":
            assert e.t == declared[e.action].ends_in
    draws = [(e.die, e.value) for e in fight.history if e.TYPE == "die.rolled"]
    assert draws == [(d.die, d.value) for d in fight.dice.draws]
    assert all(a.t <= b.t for a, b in zip(fight.history, fight.history[1:], strict=False))


def test_same_seed_same_record_and_it_replays() -> None:
    assert record_text(3) == record_text(3)
    assert record_text(4) != record_text(3)


def test_a_chroniques_record_replays_identically_and_draws_a_timeline(tmp_path: Path) -> None:
    fight = load_scenario(AMBUSH).fight(2)
    fight.run()
    path = tmp_path / "ambush.jsonl"
    write_record(fight, path)
    result = replay(path)
    assert result.identical, str(result)
    text = timeline_text(path, scale=1)
    assert "chroniques" in text and "aldric" in text
    svg = timeline_svg(path)
    assert "<svg" in svg and svg.rstrip().endswith("</svg>")


def test_an_option_goes_into_the_record_header_and_comes_back() -> None:
    import json

    header: dict[str, Any] = json.loads(record_text(1).splitlines()[0])
    assert header["ruleset"] == "chroniques"
    assert header["options"]["ambush"] == "bandits"
    rules = get_ruleset("chroniques", header["options"])
    assert rules.options == header["options"]
