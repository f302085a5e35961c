"""Chroniques attacks, defences and equipment (Chroniques, "Résolution des attaques",
"Attaque concertée", "Combat à deux armes (L)", "Actions défensives", "PJ incompétent",
"Équipement interdit"), with loaded dice."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import pytest

from segsim import Declaration, Fight, IllegalDeclaration, LoadedDice
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.content import Sheet
from segsim.rules.chroniques.events import (
    ActionWasted,
    Assisted,
    AttackRolled,
    CapabilityUsed,
    Damaged,
    DefenceEnded,
    DefenceTaken,
    ForbiddenEquipment,
    RoundStarted,
    WeaponDrawn,
)
from segsim.testing import declare

Turn = Declaration | Sequence[Declaration] | Callable[[Observation], Any]
RULES = Chroniques()


class ByRound:
    """Declares ``script[round]`` on its turn of that round (``default`` otherwise)."""

    reactive = False
    name = "by-round"

    def __init__(self, script: Mapping[int, Turn] | None = None, default: Turn = ()) -> None:
        self.script = dict(script or {})
        self.default = default
        self.seen: list[Observation] = []

    def decide(self, obs: Observation) -> Any:
        if not obs.me.my_turn:
            return None
        self.seen.append(obs.freeze())
        out = self.script.get(obs.me.round, self.default)
        return out(obs) if callable(out) else out


def sheet(who: str, **changes: Any) -> Sheet:
    base: Sheet = RULES.load_sheet(RULES.content.fighters[who])
    return attrs.evolve(base, **changes) if changes else base


def arena(
    fighters: Mapping[str, tuple[str, str | Sheet, Any]],
    *,
    dice: Iterable[int | tuple[str, int]] = (),
    options: Mapping[str, Any] | None = None,
    positions: Mapping[str, tuple[float, float]] | None = None,
    pcs: Iterable[str] = (),
    **kwargs: Any,
) -> Fight:
    """Fighters side by side 1.5 m apart (in contact with their neighbours) unless placed."""
    rules = Chroniques(**dict(options or {}))
    pcs = set(pcs)
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        the_sheet = sheet(who) if isinstance(who, str) else who
        pos = (positions or {}).get(cid, (1.5 * i, 0.0))
        specs.append(CombatantSpec(cid, side, the_sheet, policy, position=pos, is_pc=cid in pcs))
    kwargs.setdefault("max_segments", 199)
    return Fight(rules, specs, dice=LoadedDice(dice), **kwargs)


def attacks(fight: Fight) -> list[AttackRolled]:
    return [e for e in fight.history if isinstance(e, AttackRolled)]


def damage(fight: Fight) -> list[Damaged]:
    return [e for e in fight.history if isinstance(e, Damaged)]


def duel(
    attacker: str | Sheet,
    target: str | Sheet,
    turn: Turn,
    dice: Iterable[int | tuple[str, int]],
    **kwargs: Any,
) -> Fight:
    """``a`` (acting first: a PC) attacks ``b``, which does nothing."""
    fight = arena(
        {"a": ("x", attacker, ByRound({1: turn})), "b": ("y", target, ByRound())},
        dice=dice,
        pcs={"a"},
        **kwargs,
    )
    fight.run()
    return fight


# ---------------------------------------------------------------- attack against DEF


def test_an_attack_succeeds_when_the_total_reaches_the_defence() -> None:
    """Chroniques, "Résolution des attaques": success on a total >= DEF. Aldric: level 2 +
    FOR +3 = +5; the bandit chief's DEF is 10 + 4 (chemise de mailles) + 1 (small
    shield) + 1 (DEX) = 16. Damage: 1d8 + FOR."""
    fight = duel("aldric", "bandit_chief", declare("attack", "b"), [11, 4])
    [test] = attacks(fight)
    assert (test.roll, test.total, test.difficulty, test.success) == (11, 16, 16, True)
    assert test.modifiers == {"level": 2, "strength": 3}
    [hit] = damage(fight)
    assert (hit.actor, hit.rolls, hit.damage, hit.hit_points) == ("b", (4,), 7, 24 - 7)
    assert fight.state.combatants["b"].status.hit_points == 17


def test_an_attack_below_the_defence_fails_and_deals_nothing() -> None:
    fight = duel("aldric", "bandit_chief", declare("attack", "b"), [10])
    [test] = attacks(fight)
    assert (test.total, test.success) == (15, False)
    assert damage(fight) == []


def test_a_natural_1_always_fails() -> None:
    """Interpretations: 1 on the die is a fumble (the ogre's +10 would reach DEF 11)."""
    fight = duel("ogre", "apprentice", declare("attack", "b"), [1])
    [test] = attacks(fight)
    assert (test.total, test.difficulty, test.fumble, test.success) == (11, 11, True, False)


def test_a_critical_always_hits_and_doubles_the_damage() -> None:
    """Interpretations: a natural 20 (19-20 for some weapons) is a critical success."""
    fortress = sheet("aldric", defence_bonus=20)  # DEF 38
    fight = duel("bandit", fortress, declare("attack", "b"), [20, 3])
    [test] = attacks(fight)
    assert (test.total, test.difficulty, test.critical, test.success) == (22, 38, True, True)
    [hit] = damage(fight)
    assert (hit.damage, hit.critical) == ((3 + 1) * 2, True)
    # The rapier's critical range starts at 19.
    fight = duel("melisande", "bandit_chief", declare("attack", "b"), [19, 2])
    assert attacks(fight)[0].critical
    assert damage(fight)[0].damage == 4


def test_falling_to_0_hit_points_takes_a_fighter_out() -> None:
    fight = duel("nissa", "apprentice", declare("attack", "b"), [15, 4])
    [hit] = damage(fight)
    assert (hit.damage, hit.hit_points) == (5, 0)
    out = [e for e in fight.history if e.TYPE == "combatant.out"]
    assert [(e.actor, e.reason) for e in out] == [("b", "0 hit points")]
    assert fight.outcome is not None and fight.outcome.winner == "x"


# ---------------------------------------------------------------- maluses at range


def shoot(options: Mapping[str, Any], positions: Mapping[str, tuple[float, float]]) -> AttackRolled:
    """The bandit archer (+3) shoots Nissa; a bandit may be in contact with her."""
    fight = arena(
        {
            "nissa": ("party", "nissa", ByRound()),
            "archer": ("bandits", "bandit_archer", ByRound({1: declare("attack", "nissa")})),
            "bandit": ("bandits", "bandit", ByRound()),
        },
        dice=[2],
        options=options,
        positions=positions,
    )
    fight.run()
    [test] = attacks(fight)
    return test


FAR = {"nissa": (0.0, 0.0), "archer": (10.0, 0.0), "bandit": (0.0, 30.0)}


def test_dim_light_gives_minus_5_to_attacks_at_range_only() -> None:
    """Chroniques, "Résolution des attaques": fighting in dim light, -5 at range."""
    assert "dim light" not in shoot({}, FAR).modifiers
    assert shoot({"dim_light": True}, FAR).modifiers["dim light"] == -5
    melee = arena(
        {
            "a": ("x", "bandit", ByRound({1: declare("attack", "b")})),
            "b": ("y", "nissa", ByRound()),
        },
        dice=[2],
        options={"dim_light": True},
    )
    melee.run()
    assert "dim light" not in attacks(melee)[0].modifiers


@pytest.mark.parametrize(("magic", "malus"), [(False, None), (True, -5)])
def test_dim_light_weighs_on_magic_attacks_only_with_the_option(
    magic: bool, malus: int | None
) -> None:
    """Chroniques, "Résolution des attaques": dim light gives -5 "en attaque à distance",
    one of the three tests the text names (contact, distance, magique). The closest
    reading (default) leaves magic attacks alone; ``dim_light_magic = true`` extends the
    malus to them. The apprentice's arcane bolt (magic, 30 m) at Nissa, 10 m away."""
    fight = arena(
        {
            "nissa": ("party", "nissa", ByRound()),
            "mage": ("bandits", "apprentice", ByRound({1: declare("attack", "nissa")})),
        },
        dice=[2],
        options={"dim_light": True, "dim_light_magic": magic},
        positions={"nissa": (0.0, 0.0), "mage": (10.0, 0.0)},
    )
    fight.run()
    [test] = attacks(fight)
    assert test.modifiers.get("dim light") == malus
    # The option never touches a ranged attack: -5 with or without it.
    ranged = shoot({"dim_light": True, "dim_light_magic": magic}, FAR)
    assert ranged.modifiers["dim light"] == -5


def test_shooting_into_melee_is_minus_5_or_minus_2_when_the_target_is_on_the_near_side() -> None:
    """Chroniques: shooting at a target engaged in melee, -5; only -2 when the target is on
    the shooter's side (segsim: nobody engaging it stands nearer the shooter)."""
    between = {"nissa": (0.0, 0.0), "archer": (10.0, 0.0), "bandit": (1.5, 0.0)}
    behind = {"nissa": (0.0, 0.0), "archer": (10.0, 0.0), "bandit": (-1.5, 0.0)}
    assert "into melee" not in shoot({}, FAR).modifiers
    assert shoot({}, between).modifiers["into melee"] == -5
    assert shoot({}, behind).modifiers["into melee"] == -2
    both = shoot({"dim_light": True}, between).modifiers
    assert (both["dim light"], both["into melee"]) == (-5, -5)


# ---------------------------------------------------------------- concerted attack


def concerted(helper: str | Sheet, dice: list[int]) -> Fight:
    """``helper`` (acting first) distracts Aldric for the bandit ``partner``."""
    fight = arena(
        {
            "helper": (
                "bandits",
                helper,
                ByRound({1: declare("concerted_attack", "aldric", partner="partner")}),
            ),
            "partner": (
                "bandits",
                "bandit",
                ByRound({1: declare("attack", "aldric"), 2: declare("attack", "aldric")}),
            ),
            "aldric": ("party", "aldric", ByRound()),
        },
        dice=dice,
        positions={"helper": (0.0, 1.5), "partner": (1.5, 0.0), "aldric": (0.0, 0.0)},
        options={"turn_segments": 10},
    )
    fight.run()
    return fight


def test_a_concerted_attack_against_15_gives_the_partner_plus_2() -> None:
    """Chroniques, "Attaque concertée": a melee attack test against 15; on a success, +2 to
    the partner's next attack test against the target."""
    # Helper bandit: 13 + 2 = 15 succeeds. Partner: 14 + 2 + 2 = 18 >= DEF 18, hits (4);
    # round 2: 14 + 2 = 16 misses: the bonus served once.
    fight = concerted("bandit", [13, 14, 3, 14])
    test, first, second = attacks(fight)
    assert (test.attack, test.difficulty, test.total, test.success) == ("concerted", 15, 15, True)
    [assist] = [e for e in fight.history if isinstance(e, Assisted)]
    assert (assist.actor, assist.partner, assist.target, assist.bonus) == (
        "helper",
        "partner",
        "aldric",
        2,
    )
    assert first.modifiers["concerted"] == 2 and (first.total, first.success) == (18, True)
    assert "concerted" not in second.modifiers and not second.success
    assert fight.state.combatants["partner"].status.assists == {}


def test_a_concerted_attack_reaching_25_or_critical_gives_plus_4() -> None:
    quick_ogre = sheet("ogre", initiative_bonus=10)  # acts before the bandits
    fight = concerted(quick_ogre, [15, 2, 2])  # ogre +10: 25
    assert [e.bonus for e in fight.history if isinstance(e, Assisted)] == [4]
    fight = concerted("bandit", [20, 2, 2])  # 22, but a critical success
    assert [e.bonus for e in fight.history if isinstance(e, Assisted)] == [4]
    fight = concerted("bandit", [12, 2, 2])  # 14: failure, no bonus
    assert not [e for e in fight.history if isinstance(e, Assisted)]
    assert "concerted" not in attacks(fight)[1].modifiers


@pytest.mark.parametrize(
    ("partner", "where", "message"),
    [
        ("aldric", (0.0, 1.5), "another fighter of helper's side"),
        ("helper", (0.0, 1.5), "another fighter of helper's side"),
        (None, (0.0, 1.5), "another fighter of helper's side"),
        ("partner", (0.0, 5.0), "needs contact"),
    ],
)
def test_concerted_attack_needs_an_ally_and_contact(
    partner: str | None, where: tuple[float, float], message: str
) -> None:
    fight = arena(
        {
            "helper": (
                "bandits",
                "bandit",
                ByRound({1: declare("concerted_attack", "aldric", partner=partner)}),
            ),
            "partner": ("bandits", "bandit", ByRound()),
            "aldric": ("party", "aldric", ByRound()),
        },
        positions={"helper": where, "partner": (1.5, 0.0), "aldric": (0.0, 0.0)},
    )
    with pytest.raises(IllegalDeclaration, match=message) as err:
        fight.run()
    assert err.value.rule in (
        "Chroniques, Attaque concertée",
        "Chroniques, Résolution des attaques",
    )


def test_a_concerted_attack_is_a_melee_attack() -> None:
    fight = arena(
        {
            "helper": (
                "bandits",
                "bandit_archer",
                ByRound({1: declare("concerted_attack", "aldric", partner="partner")}),
            ),
            "partner": ("bandits", "bandit", ByRound()),
            "aldric": ("party", "aldric", ByRound()),
        },
        positions={"helper": (0.0, 1.5), "partner": (1.5, 0.0), "aldric": (0.0, 0.0)},
    )
    with pytest.raises(IllegalDeclaration, match="melee attack test") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Attaque concertée"


# ---------------------------------------------------------------- two weapons


def test_two_weapons_is_two_d12_attacks_with_normal_damage() -> None:
    """Chroniques, "Combat à deux armes (L)": each attack rolls 1d12 instead of the d20 and
    deals its weapon's normal damage. Nissa: short sword and dagger, +3 each; DEF 13."""
    fight = duel(
        "nissa", "bandit", declare("two_weapons", "b"), [("d12", 10), ("d6", 4), ("d12", 5)]
    )
    main, off = attacks(fight)
    assert (main.die, main.weapon, main.total, main.success) == (12, "épée courte", 13, True)
    assert (off.die, off.weapon, off.total, off.success) == (12, "dague", 8, False)
    [hit] = damage(fight)
    assert (hit.weapon, hit.damage, hit.hit_points) == ("épée courte", 5, 9 - 5)


def test_on_the_d12_the_top_faces_stand_for_the_critical_range() -> None:
    """Interpretations: the dagger criticals on 19-20 of a d20, so on 11-12 of the d12;
    the option two_weapon_criticals = false has none."""
    dice: list[int | tuple[str, int]] = [("d12", 2), ("d12", 11), ("d4", 3)]
    fight = duel("nissa", "bandit_chief", declare("two_weapons", "b"), dice)
    _, off = attacks(fight)
    assert (off.total, off.difficulty, off.critical, off.success) == (14, 16, True, True)
    assert damage(fight)[0].damage == (3 + 1) * 2
    fight = duel(
        "nissa",
        "bandit_chief",
        declare("two_weapons", "b"),
        [("d12", 2), ("d12", 11)],
        options={"two_weapon_criticals": False},
    )
    assert not attacks(fight)[1].success


def test_two_weapons_may_split_between_two_targets_and_a_fallen_target_wastes_the_second() -> None:
    fight = arena(
        {
            "nissa": ("x", "nissa", ByRound({1: declare("two_weapons", "b", second_target="c")})),
            "b": ("y", "bandit", ByRound()),
            "c": ("y", "bandit", ByRound()),
        },
        dice=[("d12", 2), ("d12", 2)],
        positions={"nissa": (0.0, 0.0), "b": (1.5, 0.0), "c": (0.0, 1.5)},
    )
    fight.run()
    assert [a.target for a in attacks(fight)] == ["b", "c"]
    # A critical on the main hand fells the apprentice; the off hand has nothing to hit.
    fight = duel("nissa", "apprentice", declare("two_weapons", "b"), [("d12", 12), ("d6", 1)])
    assert damage(fight)[0].hit_points == 0
    [wasted] = [e for e in fight.history if isinstance(e, ActionWasted)]
    assert "already out of the fight" in wasted.reason


def test_two_weapons_needs_a_weapon_in_each_hand() -> None:
    fight = arena(
        {
            "a": ("x", "aldric", ByRound({1: declare("two_weapons", "b")})),
            "b": ("y", "bandit", ByRound()),
        },
        pcs={"a"},
    )
    with pytest.raises(IllegalDeclaration, match="melee weapon in each hand") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Combat à deux armes (L)"


# ---------------------------------------------------------------- defensive actions


@pytest.mark.parametrize(
    ("kind", "bonus", "roll"), [("simple_defence", 2, 14), ("total_defence", 4, 16)]
)
def test_defence_actions_raise_def_until_the_next_turn(kind: str, bonus: int, roll: int) -> None:
    """Chroniques, "Actions défensives": simple defence (A) +2, total defence (L) +4, until
    the fighter's next turn. Nissa: DEF 15; the bandit attacks at +2."""
    fight = arena(
        {
            "nissa": ("x", "nissa", ByRound({1: declare(kind)}, default=declare("pass"))),
            "bandit": ("y", "bandit", ByRound(default=declare("attack", "nissa"))),
        },
        dice=[roll, roll, 2],
    )
    fight.run()
    first, second = attacks(fight)[:2]
    assert (first.difficulty, first.success) == (15 + bonus, False)
    assert (second.difficulty, second.success) == (15, True)  # round 2: bonus over
    [taken] = [e for e in fight.history if isinstance(e, DefenceTaken)]
    [ended] = [e for e in fight.history if isinstance(e, DefenceEnded)]
    assert (taken.bonus, taken.t) == (bonus, 9)
    assert ended.t == 109  # at Nissa's next turn, before the bandit's second attack


# ---------------------------------------------------------------- equipment


def test_untrained_weapon_shield_and_armour_maluses() -> None:
    """Chroniques, "PJ incompétent": untrained weapon -3 to attack; untrained shield and
    armour -3 each to initiative, attack and FOR/DEX tests. Nissa is a rogue."""
    long_sword = RULES.content.weapons["long_sword"]
    nissa = sheet("nissa", weapon=long_sword, off_hand=None)
    fight = duel(nissa, "bandit", declare("attack", "b"), [2])
    assert attacks(fight)[0].modifiers["untrained weapon"] == -3
    heavy = sheet(
        "nissa",
        off_hand=None,
        shield=RULES.content.shields["small"],
        armour=RULES.content.armours["chainmail"],
    )
    assert heavy.initiative == 17 - 3 - 3
    assert heavy.test_malus("dexterity") == heavy.test_malus("strength") == -6
    assert heavy.test_malus("wisdom") == 0
    fight = duel(heavy, "bandit", declare("attack", "b"), [2])
    mods = attacks(fight)[0].modifiers
    assert mods["untrained shield"] == -3 and mods["untrained armour"] == -3
    assert "untrained weapon" not in mods
    start = next(e for e in fight.history if isinstance(e, RoundStarted))
    assert start.initiative["a"] == 11


def test_forbidden_equipment_is_untrained_and_blocks_every_capability() -> None:
    """Chroniques, "Équipement interdit": the bard may not use a shield; if it does, the
    untrained rule applies and it can use none of its capabilities."""
    shielded = sheet("melisande", shield=RULES.content.shields["small"], free_actions=("move",))
    fight = arena(
        {
            "a": ("x", shielded, ByRound({1: declare("capability", name="chant du courage")})),
            "b": ("y", "bandit", ByRound()),
        },
        pcs={"a"},
    )
    with pytest.raises(IllegalDeclaration, match="can use none of its capabilities") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Équipement interdit"
    [forbidden] = [e for e in fight.history if isinstance(e, ForbiddenEquipment)]
    assert forbidden.items == ("petit bouclier",) and forbidden.taboo == ()
    # A capability's free move is gone too.
    fight = arena(
        {
            "a": ("x", shielded, ByRound({1: declare("move", to=[0.0, 3.0], free=True)})),
            "b": ("y", "bandit", ByRound()),
        },
        pcs={"a"},
    )
    with pytest.raises(IllegalDeclaration, match="can use none of its capabilities"):
        fight.run()
    # Without the shield, the same capability is used.
    fight = duel("melisande", "bandit", declare("capability", name="chant du courage"), [])
    assert [e.capability for e in fight.history if isinstance(e, CapabilityUsed)] == [
        "chant du courage"
    ]


def test_the_game_masters_exceptional_permission_is_a_change_of_the_profile() -> None:
    """Chroniques, "Équipement interdit": the game master may allow an exceptional use (the
    bard crossing a yard under a shield). segsim takes the permission as content: the
    bard's profile without the forbidden shield; then no forbidden equipment is recorded
    and its capabilities stay usable."""
    bard = sheet("melisande")
    allowed = attrs.evolve(bard.profile, forbidden=(), shield=True)
    shielded = attrs.evolve(bard, shield=RULES.content.shields["small"], profile=allowed)
    fight = duel(shielded, "bandit", declare("capability", name="chant du courage"), [])
    assert [e for e in fight.history if isinstance(e, ForbiddenEquipment)] == []
    assert [e.capability for e in fight.history if isinstance(e, CapabilityUsed)] == [
        "chant du courage"
    ]


def test_a_moral_interdiction_is_recorded_as_a_taboo() -> None:
    """Chroniques: a priest who may not shed blood uses an edged weapon: untrained, and the
    player must play the shock."""
    anselm = sheet("anselm", weapon=RULES.content.weapons["long_sword"])
    fight = duel(anselm, "bandit", declare("attack", "b"), [2])
    [forbidden] = [e for e in fight.history if isinstance(e, ForbiddenEquipment)]
    assert forbidden.taboo == ("épée longue",)
    assert "psychological shock" in forbidden.describe()
    assert attacks(fight)[0].modifiers["untrained weapon"] == -3


# ---------------------------------------------------------------- moving and drawing


def test_a_move_covers_20_m_and_stops_in_contact() -> None:
    """Chroniques, "Les actions": a move action is about 20 m."""
    fight = arena(
        {
            "a": ("x", "nissa", ByRound({1: [declare("move", "b"), declare("move", "b")]})),
            "b": ("y", "bandit", ByRound()),
        },
        positions={"a": (0.0, 0.0), "b": (30.0, 0.0)},
    )
    fight.run()
    moves = [(e.x, e.y) for e in fight.history if e.TYPE == "combatant.moved"]
    assert moves == [(20.0, 0.0), (28.5, 0.0)]
    fight = arena(
        {
            "a": ("x", "nissa", ByRound({1: declare("move", to=[20.5, 0.0])})),
            "b": ("y", "bandit", ByRound()),
        },
        positions={"a": (0.0, 0.0), "b": (30.0, 0.0)},
    )
    with pytest.raises(IllegalDeclaration, match="20 m at most") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Les actions"


@pytest.mark.parametrize(
    ("who", "where", "message"),
    [
        ("nissa", (5.0, 0.0), "needs contact"),
        ("bandit_archer", (31.0, 0.0), "beyond the arc court's range"),
    ],
)
def test_attacks_need_contact_or_range(who: str, where: tuple[float, float], message: str) -> None:
    fight = arena(
        {"a": ("x", who, ByRound({1: declare("attack", "b")})), "b": ("y", "bandit", ByRound())},
        positions={"a": (0.0, 0.0), "b": where},
        pcs={"a"},
    )
    with pytest.raises(IllegalDeclaration, match=message) as err:
        fight.run()
    assert err.value.rule == "Chroniques, Résolution des attaques"


def test_drawing_a_weapon_is_a_move_and_the_attack_after_it_uses_it() -> None:
    """Chroniques, "Les actions": drawing a weapon is a move action."""
    turn = [declare("draw", weapon="dagger"), declare("attack", "b")]
    fight = duel("bandit_archer", "bandit", turn, [2])
    [drawn] = [e for e in fight.history if isinstance(e, WeaponDrawn)]
    assert (drawn.weapon, drawn.put_away) == ("dagger", ("short_bow",))
    assert attacks(fight)[0].weapon == "dague"
    status = fight.state.combatants["a"].status
    assert status.weapon.id == "dagger" and [w.id for w in status.carried] == ["short_bow"]
    # A two-handed bow frees both hands.
    fight = duel("nissa", "bandit", declare("draw", weapon="short_bow"), [])
    [drawn] = [e for e in fight.history if isinstance(e, WeaponDrawn)]
    assert drawn.put_away == ("short_sword", "dagger")
    assert fight.state.combatants["a"].status.off_hand is None


def test_drawing_a_forbidden_weapon_is_recorded_when_it_happens() -> None:
    anselm = sheet("anselm", carried=(RULES.content.weapons["long_sword"],))
    fight = duel(anselm, "bandit", declare("draw", weapon="long_sword"), [])
    forbidden = [e for e in fight.history if isinstance(e, ForbiddenEquipment)]
    assert [(e.t, e.actor, e.items, e.taboo) for e in forbidden] == [
        (19, "a", ("épée longue",), ("épée longue",))  # Anselm acts after the bandit
    ]
