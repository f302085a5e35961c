"""Loreval content, sheets, options, setup and scenarios: every bad input named by
file, line and field; slow and haste; records that replay; speed by size."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from segsim import IllegalDeclaration, InputError, load_scenario
from segsim.input import Source
from segsim.models import models_dir
from segsim.record import fight_record
from segsim.replay import replay
from segsim.rules import get_ruleset
from segsim.rules.loreval import Loreval
from segsim.rules.loreval.content import load_content, sheet_data
from segsim.rules.loreval.events import AttackRolled, Declared
from segsim.testing import declare, sheet
from tests.loreval_helpers import ByRound, arena, of_type

ROOT = Path(__file__).resolve().parent.parent


def test_the_ruleset_is_registered_with_a_round_of_60_segments() -> None:
    rules = get_ruleset("loreval", {"round_segments": 100})
    assert isinstance(rules, Loreval) and rules.tick == 100
    assert Loreval().tick == 60


@pytest.fixture
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "loreval"
    shutil.copytree(models_dir() / "loreval", folder)
    return folder


BAD = [
    ("weapons.toml", 'mode = "unarmed"', 'mode = "psychic"', "weapon.fist.mode", "is not one of"),
    ("weapons.toml", 'damage = "1d3"', 'damage = "three"', "weapon.fist.damage", "dice"),
    (
        "armour.toml",
        'category = "light"',
        'category = "paper"',
        "armour.padded.category",
        "not one of",
    ),
    ("shields.toml", "protection = 4", "protection = 40", "shield.pavise.protection", "maximum"),
    (
        "fighters.toml",
        'weapon = "rapier"',
        'weapon = "katana"',
        "fighter.sylva.weapon",
        "unknown weapon",
    ),
    (
        "fighters.toml",
        'heroism = 1\nweapon = "rapier"',
        'heroism = 4\nweapon = "rapier"',
        "fighter.sylva.heroism",
        "maximum",
    ),
    (
        "fighters.toml",
        'name = "Garrok"',
        'name = "Garrok"\nluck = 3',
        "fighter.garrok.luck",
        "unknown field",
    ),
    (
        "fighters.toml",
        'weapon = "greatsword"',
        'weapon = "greatsword"\nshield = "buckler"',
        "fighter.garrok.shield",
        "both hands",
    ),
    (
        "fighters.toml",
        'name = "Garrok"',
        'name = "Garrok"\nlocomotion = { fly = "flapping" }',
        "fighter.garrok.locomotion.fly",
        "flapping",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "field", "message"), BAD, ids=lambda x: str(x)[:24])
def test_bad_content_names_file_line_and_field(
    models: Path, file: str, old: str, new: str, field: str, message: str
) -> None:
    path = models / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_content(models)
    assert err.value.field == field
    assert message in err.value.message
    assert err.value.line is not None and file in str(err.value)


def test_a_sheet_survives_the_record_header() -> None:
    rules = Loreval()
    for name in ("aldren", "sylva", "archer", "wrestler"):
        original = sheet(name, "loreval")
        again = rules.load_sheet(Source.from_data("header", sheet_data(original)).root())
        assert again == original
    flier = attrs.evolve(
        sheet("sylva", "loreval"),
        locomotion={"fly": "winged"},
        skills={**sheet("sylva", "loreval").skills, "concentration": 4, "jump": 2},
    )
    again = rules.load_sheet(Source.from_data("header", sheet_data(flier)).root())
    assert again == flier


SCENARIO = """\
[fight]
ruleset = "loreval"

[options]
resolve_segments = 6

[[combatant]]
id = "a"
side = "blue"
fighter = "aldren"
policy = "aggressive"
[combatant.setup]
attention = { environment = 1, security = 2 }

[[combatant]]
id = "b"
side = "red"
fighter = "garrok"
policy = "cautious"
position = [1.5, 0.0]
"""


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ("resolve_segments = 6", "resolve_segments = 0", "options", "resolve_segments must be"),
        ("resolve_segments = 6", "round_segments = 5", "options", "round_segments must be"),
        ("resolve_segments = 6", "heroism_saves = 1", "options", "heroism_saves must be"),
        ("resolve_segments = 6", "initiative = 3", "options", "unexpected keyword"),
        ("security = 2 }", "security = -1 }", "combatant[0].setup.attention.security", "minimum"),
        ("security = 2 }", "luck = 2 }", "combatant[0].setup.attention.luck", "unknown field"),
        (
            "security = 2 }",
            'security = 2 }\nsurprised = true\nsurprised_by = "friends"',
            "combatant[0].setup.surprised_by",
            "is not one of",
        ),
        (
            "security = 2 }",
            'security = 2 }\nsurprised_by = "allies"',
            "combatant[0].setup.surprised_by",
            "set surprised",
        ),
        ('policy = "cautious"', 'policy = "berserk"', "combatant[1].policy", "unknown policy"),
    ],
)
def test_bad_scenarios_name_the_field(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    assert old in SCENARIO
    path = tmp_path / "scenario.toml"
    path.write_text(SCENARIO.replace(old, new), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_scenario(path)
    assert err.value.field == field
    assert message in err.value.message


def test_a_scenario_runs_and_its_record_replays(tmp_path: Path) -> None:
    path = tmp_path / "scenario.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    fight = load_scenario(path).fight(4)
    assert fight.run().result == "victory"
    assert replay(fight_record(fight)).identical


@pytest.mark.parametrize("name", ["loreval_duel.toml", "loreval_skirmish.toml"])
def test_the_examples_play_the_rules_they_show(name: str) -> None:
    fight = load_scenario(ROOT / "examples/scenarios" / name).fight()
    fight.run()
    kinds = {e.kind for e in of_type(fight, Declared)}
    assert "counter" in kinds or "charge" in kinds
    if name == "loreval_skirmish.toml":
        assert {"charge", "grapple"} <= kinds
        assert any(e.TYPE == "loreval.grapple" for e in fight.history)


def test_slow_and_haste_shift_the_category() -> None:
    """Loreval, "Effet de lenteur", "Effet de rapidité": slowed, an action counts as the
    next category (no category 5); hasted, as the one below (never under 1)."""
    a = ByRound({1: declare("attack", "g", attacks=2, attention={"focus": 1, "security": 2})})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", ByRound())},
        setup={"a": {"hasted": True}},
        dice=[10, 5, 2, 2],
    )
    fight.run()
    assert of_type(fight, Declared, actor="a")[0].category == 2
    slow = ByRound({1: declare("attack", "g", attacks=3, attention={"focus": 2, "security": 1})})
    fight = arena(
        {"a": ("blue", "aldren", slow), "g": ("red", "garrok", ByRound())},
        setup={"a": {"slowed": True}},
        dice=[10, 5],
    )
    with pytest.raises(IllegalDeclaration, match="Effet de lenteur"):
        fight.run()


def test_shooting_at_range_and_into_a_melee() -> None:
    """D&D 3 increments: -2 per increment beyond the first; -4 at a target in melee
    (Loreval, "La mêlée")."""
    p = ByRound({1: declare("attack", "b", attention={"focus": 1, "security": 2})})
    fight = arena(
        {
            "p": ("blue", "archer", p),
            "b": ("red", "bandit", ByRound()),
            "g": ("blue", "garrok", ByRound()),
        },
        positions={"p": (0.0, 0.0), "b": (30.0, 0.0), "g": (31.0, 0.0)},
        dice=[15, 5, 5, 2],
    )
    fight.run()
    shot = of_type(fight, AttackRolled)[0]
    assert shot.modifiers["range"] == -2  # 30 m with an 18 m increment
    assert shot.modifiers["into melee"] == -4


def test_a_table_fight_is_entered_as_a_fight_script(tmp_path: Path) -> None:
    """A fight script plays Loreval: each fighter declares at its declaration step (the
    lowest initiative at segment 0), with the dice as they fell."""
    from segsim.script import load_script

    scenario = ROOT / "examples/scenarios/loreval_duel.toml"
    script = tmp_path / "table.toml"
    script.write_text(
        f"""[fight]
scenario = "{scenario.as_posix()}"
max_segments = 60

[segment.0]
aldren = {{ action = "attack", target = "sylva", attention = {{ environment = 1, security = 2 }} }}

[segment.1]
sylva = {{ action = "attack", target = "aldren", attacks = 2, attention = {{ security = 3 }} }}

[dice]
rolls = [10, 10, 2, 2, 2]
""",
        encoding="utf-8",
    )
    fight = load_script(script, allow_outside=True).play()  # written in a scratch folder
    attacks = of_type(fight, AttackRolled)
    assert [(a.actor, a.roll) for a in attacks] == [("sylva", 2), ("sylva", 2), ("aldren", 2)]
    assert replay(fight_record(fight)).identical


def test_a_reinforcement_rolls_initiative_and_sits_out_its_first_round() -> None:
    from segsim.fight import CombatantSpec
    from segsim.rules.loreval.events import InitiativeRolled, RoundStarted, SitsOut

    a = ByRound()
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", ByRound())},
        dice=[10, 10, 12],
        rounds=2,
        max_segments=119,
    )
    fight.start()
    fight.env.run(until=30)
    late = fight.ruleset.load_sheet(fight.ruleset.content.fighters["bandit"])
    fight.join(CombatantSpec("late", "red", late, ByRound(), position=(3.0, 0.0)))
    fight.env.run(until=fight.done)
    assert [e.points for e in of_type(fight, InitiativeRolled, actor="late")] == [14]
    assert of_type(fight, SitsOut)[0].round == 1
    assert dict(of_type(fight, RoundStarted)[1].points)["late"] == 14
