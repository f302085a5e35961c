"""Chroniques rounds, initiative and turns on the segment clock (Chroniques, "Le tour de
combat", "Initiative", "Les actions")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from segsim import Declaration, Fight, IllegalDeclaration, LoadedDice
from segsim.fight import CombatantSpec
from segsim.policy import Observation
from segsim.rules.chroniques import Chroniques
from segsim.rules.chroniques.events import InitiativeLowered, RoundStarted, TurnLost
from segsim.testing import Scripted, declare

Turn = Declaration | Sequence[Declaration] | Callable[[Observation], Any]


class ByRound:
    """Declares ``script[round]`` on its turn of that round (``default`` otherwise)."""

    reactive = False

    def __init__(self, script: Mapping[int, Turn] | None = None, default: Turn = ()) -> None:
        self.script = dict(script or {})
        self.default = default
        self.name = "by-round"
        self.turns: list[tuple[int, int]] = []  # (round, segment) of every turn it was given
        self.asked: list[int] = []

    def decide(self, obs: Observation) -> Any:
        self.asked.append(obs.segment)
        if not obs.me.my_turn:
            return None
        self.turns.append((obs.me.round, obs.segment))
        out = self.script.get(obs.me.round, self.default)
        return out(obs) if callable(out) else out


def arena(
    fighters: Mapping[str, tuple[str, str | Any, Any]],
    *,
    dice: Iterable[int | tuple[str, int]] = (),
    options: Mapping[str, Any] | None = None,
    positions: Mapping[str, tuple[float, float]] | None = None,
    pcs: Iterable[str] = (),
    **kwargs: Any,
) -> Fight:
    rules = Chroniques(**dict(options or {}))
    pcs = set(pcs)
    specs = []
    for i, (cid, (side, who, policy)) in enumerate(fighters.items()):
        sheet = rules.load_sheet(rules.content.fighters[who]) if isinstance(who, str) else who
        pos = (positions or {}).get(cid, (40.0 * i, 0.0))  # far apart: nobody in reach
        specs.append(CombatantSpec(cid, side, sheet, policy, position=pos, is_pc=cid in pcs))
    loaded = dice if isinstance(dice, LoadedDice) else LoadedDice(dice)
    return Fight(rules, specs, dice=loaded, **kwargs)


def turns(fight: Fight) -> list[tuple[int, str, int]]:
    """(start segment, fighter, duration) of every turn, in order."""
    return [
        (e.t, e.actor, e.duration)
        for e in fight.history
        if e.TYPE == "action.declared" and e.kind == "turn"
    ]


def rounds(fight: Fight) -> list[RoundStarted]:
    return [e for e in fight.history if isinstance(e, RoundStarted)]


def test_a_round_is_100_segments_and_turns_follow_each_other_in_it() -> None:
    """Chroniques, "Le tour de combat": 10 s = 100 segments (RULES-NOTES "Time")."""
    a, b = ByRound(default=declare("pass")), ByRound(default=declare("pass"))
    fight = arena({"nissa": ("blue", "nissa", a), "bandit": ("red", "bandit", b)}, max_segments=250)
    fight.run()
    assert [(r.t, r.round) for r in rounds(fight)] == [(0, 1), (100, 2), (200, 3)]
    # Nissa (initiative 17) then the bandit (13); each turn lasts turn_segments = 10.
    assert turns(fight) == [
        (0, "nissa", 10),
        (10, "bandit", 10),
        (100, "nissa", 10),
        (110, "bandit", 10),
        (200, "nissa", 10),
        (210, "bandit", 10),
    ]
    assert a.turns == [(1, 0), (2, 100), (3, 200)]
    ends = [e for e in fight.history if e.TYPE == "chroniques.turn.ended"]
    assert [(e.t, e.actor, e.round) for e in ends][:2] == [(9, "nissa", 1), (19, "bandit", 1)]


def test_turn_length_is_an_option_and_shrinks_so_every_fighter_fits_its_round() -> None:
    a, b = ByRound(default=declare("pass")), ByRound(default=declare("pass"))
    fight = arena(
        {"nissa": ("blue", "nissa", a), "bandit": ("red", "bandit", b)},
        options={"turn_segments": 1},
        max_segments=150,
    )
    fight.run()
    assert turns(fight)[:2] == [(0, "nissa", 1), (1, "bandit", 1)]
    a, b = ByRound(default=declare("pass")), ByRound(default=declare("pass"))
    fight = arena(
        {"nissa": ("blue", "nissa", a), "bandit": ("red", "bandit", b)},
        options={"turn_segments": 80},
        max_segments=150,
    )
    fight.run()
    # 80 segments each would not fit two turns in 100: each gets half the round.
    assert turns(fight)[:3] == [(0, "nissa", 50), (50, "bandit", 50), (100, "nissa", 50)]


def test_initiative_order_and_its_tie_breaks() -> None:
    """Chroniques, "Initiative": highest first; ties: PCs before NPCs, then SAG between
    PCs; between NPCs segsim also uses SAG, then the scenario order."""
    policies = {cid: ByRound(default=declare("pass")) for cid in "abcdef"}
    fight = arena(
        {
            "a": ("x", "bandit_chief", policies["a"]),  # init 12, NPC, SAG 11
            "b": ("y", "aldric", policies["b"]),  # init 12, PC, SAG 11
            "c": ("x", "nissa", policies["c"]),  # init 17
            "d": ("y", "anselm", policies["d"]),  # init 10, NPC, SAG 15
            "e": ("x", "ogre", policies["e"]),  # init 8
            "f": ("y", "bandit", policies["f"]),  # init 13
        },
        pcs={"b"},
        max_segments=60,
    )
    fight.run()
    assert rounds(fight)[0].order == ("c", "f", "b", "a", "d", "e")
    assert [who for _, who, _ in turns(fight)] == ["c", "f", "b", "a", "d", "e"]


@pytest.mark.parametrize(
    ("first", "second", "order"),
    [
        ({"wisdom": 14}, {"wisdom": 12}, ["p1", "p2"]),
        ({"wisdom": 12}, {"wisdom": 14}, ["p2", "p1"]),
    ],
)
def test_between_two_pcs_the_higher_sag_acts_first(
    first: dict[str, int], second: dict[str, int], order: list[str]
) -> None:
    rules = Chroniques()
    base = rules.load_sheet(rules.content.fighters["aldric"])
    p1 = _with(base, first)
    p2 = _with(base, second)
    fight = arena(
        {
            "p1": ("x", p1, ByRound(default=declare("pass"))),
            "p2": ("x", p2, ByRound(default=declare("pass"))),
            "o": ("y", "ogre", ByRound(default=declare("pass"))),
        },
        pcs={"p1", "p2"},
        max_segments=50,
    )
    fight.run()
    assert [who for _, who, _ in turns(fight)][:2] == order


def _with(sheet: Any, abilities: dict[str, int]) -> Any:
    import attrs

    return attrs.evolve(sheet, abilities={**sheet.abilities, **abilities})


def test_lowering_initiative_acts_later_and_the_next_round_is_back_to_normal() -> None:
    """Chroniques, "Initiative": lowering one's Init to act later than one's turn is allowed;
    the next round starts with the ordinary Init."""

    def delay_once(obs: Observation) -> Declaration:
        return declare("delay", initiative=12) if obs.me.initiative == 17 else declare("pass")

    nissa = ByRound({1: delay_once}, default=declare("pass"))
    bandit = ByRound(default=declare("pass"))  # init 13
    chief = ByRound(default=declare("pass"))  # init 12
    fight = arena(
        {
            "nissa": ("x", "nissa", nissa),
            "bandit": ("y", "bandit", bandit),
            "chief": ("y", "bandit_chief", chief),
        },
        max_segments=199,
    )
    fight.run()
    [lowered] = [e for e in fight.history if isinstance(e, InitiativeLowered)]
    assert (lowered.t, lowered.actor, lowered.initiative) == (9, "nissa", 12)
    # At an equal initiative, the one who lowered its own acts after.
    assert [who for _, who, _ in turns(fight)] == [
        "nissa",  # declares the delay
        "bandit",
        "chief",
        "nissa",  # acts at 12, after the chief
        "nissa",  # round 2: first again
        "bandit",
        "chief",
    ]
    assert nissa.turns == [(1, 0), (1, 30), (2, 100)]


def test_initiative_lowered_to_zero_loses_the_action() -> None:
    """Chroniques, "Initiative": when the Init reaches 0 the turn is over, the action lost."""
    nissa = ByRound({1: declare("delay", initiative=0)}, default=declare("pass"))
    fight = arena(
        {
            "nissa": ("x", "nissa", nissa),
            "bandit": ("y", "bandit", ByRound(default=declare("pass"))),
        },
        max_segments=199,
    )
    fight.run()
    [lost] = [e for e in fight.history if isinstance(e, TurnLost)]
    assert (lost.actor, lost.round, lost.reason) == ("nissa", 1, "initiative lowered to 0")
    assert nissa.turns == [(1, 0), (2, 100)]


@pytest.mark.parametrize("value", [17, 20, "10", None])
def test_initiative_can_only_be_lowered(value: Any) -> None:
    nissa = ByRound({1: declare("delay", initiative=value)})
    fight = arena({"nissa": ("x", "nissa", nissa), "bandit": ("y", "bandit", ByRound())})
    with pytest.raises(IllegalDeclaration, match="below 17") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Initiative"


def in_contact() -> dict[str, tuple[float, float]]:
    return {"nissa": (0.0, 0.0), "bandit": (1.5, 0.0), "chief": (0.0, 1.5)}


LEGAL_TURNS: list[list[Declaration]] = [
    [declare("attack", "bandit")],
    [declare("move", to=[1.0, 2.5]), declare("attack", "chief")],
    [declare("attack", "bandit"), declare("move", to=[-5.0, 0.0])],
    [declare("move", to=[-5.0, 0.0]), declare("move", to=[-20.0, 0.0])],
    [declare("two_weapons", "bandit")],
    [declare("total_defence")],
    [declare("move", to=[-5.0, 0.0]), declare("simple_defence")],
    [declare("draw", weapon="short_bow"), declare("attack", "bandit")],
    [declare("attack", "bandit"), declare("free", what="shouts a warning")],
    [declare("pass"), declare("free", what="drops the dagger")],
]


@pytest.mark.parametrize("turn", LEGAL_TURNS, ids=lambda t: "+".join(d.kind for d in t))
def test_a_turn_is_one_limited_or_move_and_attack_or_two_moves(turn: list[Declaration]) -> None:
    """Chroniques, "Les actions": 1 L, or 1 M + 1 A, or 2 M; free actions on top."""
    fight = arena(
        {
            "nissa": ("x", "nissa", ByRound({1: turn})),
            "bandit": ("y", "bandit", ByRound()),
            "chief": ("y", "bandit_chief", ByRound()),
        },
        # every attack misses; each turn rolls as many as it attacks: a pool, not a list
        dice=LoadedDice([2] * 10, strict=False),
        positions=in_contact(),
        max_segments=20,
    )
    fight.run()
    declared = [e.kind for e in fight.history if e.TYPE == "action.declared" and e.t == 0]
    assert [d.kind for d in turn] == [k for k in declared if k not in ("turn", "await")]


ILLEGAL_TURNS: list[tuple[list[Declaration], str]] = [
    ([declare("attack", "bandit"), declare("attack", "chief")], "1 limited action"),
    ([declare("move", to=[-5.0, 0.0])] * 2 + [declare("attack", "bandit")], "1 limited"),
    ([declare("two_weapons", "bandit"), declare("move", to=[-5.0, 0.0])], "1 limited"),
    ([declare("total_defence"), declare("simple_defence")], "1 limited"),
    ([declare("simple_defence"), declare("attack", "bandit")], "1 limited"),
    ([declare("pass"), declare("attack", "bandit")], "the turn is taken by pass"),
    ([declare("attack", "bandit"), declare("delay", initiative=5)], "declare it alone"),
    ([declare("delay", initiative=5), declare("free", what="x")], "postponed"),
    ([declare("attack", "bandit", free=True)], "no capability that makes attack a free action"),
]


def test_total_defence_allows_no_attack_not_even_a_free_one() -> None:
    """Chroniques, "Actions défensives": with total defence the fighter only defends."""
    rules = Chroniques()
    nissa = _free(rules, "nissa", ("attack",))
    turn = [declare("total_defence"), declare("attack", "bandit", free=True)]
    fight = arena(
        {"nissa": ("x", nissa, ByRound({1: turn})), "bandit": ("y", "bandit", ByRound())},
        positions=in_contact(),
    )
    with pytest.raises(IllegalDeclaration, match="only defends") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Actions défensives"


@pytest.mark.parametrize("allowed", [False, True])
def test_total_defence_allows_a_free_move_only_with_the_option(allowed: bool) -> None:
    """Chroniques, "Actions défensives": total defence, "ne faire que de se défendre à ce
    tour". The closest reading (default): nothing else that turn, not even a free move;
    ``total_defence_move = true`` lets a free move come with it."""
    rules = Chroniques(total_defence_move=allowed)
    nissa = _free(rules, "nissa", ("move",))
    turn = [declare("total_defence"), declare("move", to=[-5.0, 0.0], free=True)]
    fight = arena(
        {"nissa": ("x", nissa, ByRound({1: turn})), "bandit": ("y", "bandit", ByRound())},
        positions=in_contact(),
        options={"total_defence_move": allowed},
        max_segments=30,
    )
    if not allowed:
        with pytest.raises(IllegalDeclaration, match="no move even a free one") as err:
            fight.run()
        assert err.value.rule == "Chroniques, Actions défensives"
        assert not [e for e in fight.history if e.TYPE == "combatant.moved"]
        return
    fight.run()
    moved = [(e.actor, e.x, e.y) for e in fight.history if e.TYPE == "combatant.moved"]
    assert moved == [("nissa", -5.0, 0.0)]
    kinds = [e.kind for e in fight.history if e.TYPE == "action.declared" and e.actor == "nissa"]
    assert "total_defence" in kinds


@pytest.mark.parametrize(("turn", "message"), ILLEGAL_TURNS)
def test_illegal_turns_name_the_rule_and_change_nothing(
    turn: list[Declaration], message: str
) -> None:
    fight = arena(
        {
            "nissa": ("x", "nissa", ByRound({1: turn})),
            "bandit": ("y", "bandit", ByRound()),
            "chief": ("y", "bandit_chief", ByRound()),
        },
        positions=in_contact(),
    )
    with pytest.raises(IllegalDeclaration, match=message) as err:
        fight.run()
    assert err.value.segment == 0 and err.value.actor == "nissa"
    assert not [
        e
        for e in fight.history
        if e.TYPE == "action.declared" and e.actor == "nissa" and e.kind != "turn"
    ]


def test_a_capability_may_make_a_move_or_an_attack_free_once_a_turn() -> None:
    """Chroniques, "Les actions": some capabilities allow an attack or a move as a free
    action, on top of the normal actions."""
    rules = Chroniques()
    nissa = _free(rules, "nissa", ("attack",))
    turn = [
        declare("attack", "bandit"),
        declare("move", to=[-3.0, 0.0]),
        declare("attack", "chief", free=True),
    ]
    fight = arena(
        {
            "nissa": ("x", nissa, ByRound({1: turn})),
            "bandit": ("y", "bandit", ByRound()),
            "chief": ("y", "bandit_chief", ByRound()),
        },
        positions={"nissa": (0.0, 0.0), "bandit": (1.5, 0.0), "chief": (-3.0, 1.5)},
        dice=[2, 2],
        max_segments=20,
    )
    fight.run()
    attacks = [(e.target, e.t) for e in fight.history if e.TYPE == "chroniques.attack"]
    assert attacks == [("bandit", 9), ("chief", 9)]
    twice = [declare("attack", "bandit", free=True), declare("attack", "bandit", free=True)]
    fight = arena(
        {"nissa": ("x", nissa, ByRound({1: twice})), "bandit": ("y", "bandit", ByRound())},
        positions=in_contact(),
    )
    with pytest.raises(IllegalDeclaration, match="one free attack per turn"):
        fight.run()


def _free(rules: Chroniques, who: str, free: tuple[str, ...]) -> Any:
    import attrs

    return attrs.evolve(rules.load_sheet(rules.content.fighters[who]), free_actions=free)


def test_declaring_out_of_turn_is_illegal() -> None:
    """Chroniques, "Initiative": fighters act one at a time, in initiative order."""
    eager = Scripted({0: declare("attack", "nissa")}, name="eager")
    fight = arena(
        {"nissa": ("x", "nissa", ByRound()), "bandit": ("y", "bandit", eager)},
        positions=in_contact(),
    )
    with pytest.raises(IllegalDeclaration, match="not bandit's turn") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Initiative"


def test_a_scripted_policy_declares_at_its_turn_segments() -> None:
    """segsim.testing.Scripted works with Chroniques: its waits do not disturb turns."""
    nissa = Scripted({0: declare("attack", "bandit"), 100: declare("attack", "bandit")})
    bandit = Scripted({10: declare("simple_defence")})
    fight = arena(
        {"nissa": ("x", "nissa", nissa), "bandit": ("y", "bandit", bandit)},
        positions=in_contact(),
        dice=[2, 2],
        max_segments=150,
    )
    fight.run()
    attacks = [e.t for e in fight.history if e.TYPE == "chroniques.attack"]
    assert attacks == [9, 109]
    assert [e.t for e in fight.history if e.TYPE == "chroniques.defence"] == [19]


def test_turns_cannot_be_cancelled() -> None:
    from segsim import Cancel

    def cancel(obs: Observation) -> Any:
        return Cancel(next(a for a in obs.me.actions if a.kind == "attack").id)

    nissa = Scripted({0: declare("attack", "bandit"), 3: cancel})
    fight = arena(
        {"nissa": ("x", "nissa", nissa), "bandit": ("y", "bandit", ByRound())},
        positions=in_contact(),
    )
    with pytest.raises(IllegalDeclaration, match="cannot be cancelled") as err:
        fight.run()
    assert err.value.rule == "Chroniques, Les actions"


def test_a_fighter_still_waiting_when_the_round_ends_loses_its_turn() -> None:
    """Nissa keeps lowering her initiative; turns of 50 segments shrink to leave the
    bandit his share; her last delay reaches the end of the round: her turn is lost."""
    lower = {17: 14, 14: 13, 13: 12}

    def keep_waiting(obs: Observation) -> Declaration:
        return declare("delay", initiative=lower[obs.me.initiative])

    nissa = ByRound({1: keep_waiting}, default=declare("pass"))
    fight = arena(
        {
            "nissa": ("x", "nissa", nissa),
            "bandit": ("y", "bandit", ByRound(default=declare("pass"))),
        },
        options={"turn_segments": 50},
        max_segments=150,
    )
    fight.run()
    assert turns(fight)[:5] == [
        (0, "nissa", 50),
        (50, "nissa", 25),  # 14 is still above the bandit's 13
        (75, "bandit", 12),  # at 13 she waits for him: 25 segments left for two turns
        (87, "nissa", 13),
        (100, "nissa", 50),  # round 2: back to 17
    ]
    lowered = [(e.t, e.initiative) for e in fight.history if isinstance(e, InitiativeLowered)]
    assert lowered == [(49, 14), (74, 13), (99, 12)]
    [lost] = [e for e in fight.history if isinstance(e, TurnLost)]
    assert (lost.t, lost.actor, lost.round, lost.reason) == (
        99,
        "nissa",
        1,
        "the round ran out of segments",
    )
