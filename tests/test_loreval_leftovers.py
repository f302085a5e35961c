"""Loreval rules completed after the follow-ups: dropping the weapon to get free of a
block, surprise and Environment, the generic skill action, rounds that stretch for big
fights (Loreval, "Bloquer une attaque", "Déroulement d'un round de surprise",
"Catégorie des actions", "Déroulement d'un round de combat")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from segsim import IllegalDeclaration, load_scenario
from segsim.events import Moved, OutOfFight
from segsim.policy import Observation
from segsim.record import fight_record
from segsim.replay import replay
from segsim.rules.loreval.events import (
    AttackRolled,
    CheckRolled,
    Declared,
    DetectionRolled,
    InitiativeRolled,
    LockChoice,
    Locked,
    RoundEnded,
    RoundStarted,
    SurpriseAvoided,
    Surprised,
    TurnResolved,
)
from segsim.testing import declare
from tests.loreval_helpers import ByRound, arena, of_type

BLOCK = {"against": "defensive", "how": "block", "attention": {"environment": 1, "focus": 2}}


class Locks(ByRound):
    """A ByRound policy that answers the step given right after a block locks it."""

    def __init__(self, answer: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answer = answer
        self.offered: list[tuple[Any, ...]] = []

    def decide(self, obs: Observation) -> Any:
        if obs.me.step == "lock":
            self.offered.append(tuple(obs.legal()))
            return self.answer
        return super().decide(obs)


def _blocked(answer: Any, g_round2: Any, dice: list[int]) -> tuple[Any, Locks]:
    a = ByRound({1: declare("counter", "g", **BLOCK), 2: declare("inaction")})
    g = Locks(answer, plan={1: declare("attack", "a"), 2: g_round2})
    # a 14, g 17; a's block roll 10 (19) beats g's attack 5 (14)
    fight = arena({"a": ("blue", "aldren", a), "g": ("red", "garrok", g)}, dice=dice, rounds=2)
    fight.run()
    return fight, g


def test_the_blocked_assailant_may_drop_its_weapon_to_get_free_at_once() -> None:
    """Loreval, "Bloquer une attaque": held by the block, the assailant has two ways
    out: give up its weapon to get free at once, or stay held at -2 in Security. It
    drops it: the lock ends right away (no strength roll), and it may move again."""
    fight, g = _blocked(declare("drop"), declare("move", to=[8, 0]), [10, 15, 10, 5])
    assert [d.kind for d in g.offered[0]] == ["drop"]
    choice = of_type(fight, LockChoice)
    assert [(e.actor, e.other, e.dropped) for e in choice] == [("g", "a", True)]
    assert [(e.actor, e.locked) for e in of_type(fight, Locked)] == [("g", True), ("g", False)]
    # the choice comes at once, in the round of the block, before round 2
    assert choice[0].t < 60
    status = fight.state.combatants["g"].status
    assert status.weapon.id == "fist" and status.locked_with is None
    assert fight.state.combatants["a"].status.locked_with is None
    assert not [e for e in of_type(fight, CheckRolled) if "lock" in e.check]
    assert any(isinstance(e, Moved) and e.actor == "g" for e in fight.history if e.t >= 60)


def test_keeping_the_weapon_leaves_the_assailant_locked() -> None:
    """Choosing nothing at that step keeps the weapon: the lock holds until the
    strength roll of its next step."""
    fight, _ = _blocked(None, declare("attack", "a"), [10, 15, 10, 5, 3, 15, 2])
    assert [e.dropped for e in of_type(fight, LockChoice)] == [False]
    assert fight.state.combatants["g"].status.weapon.id != "fist"
    contest = of_type(fight, CheckRolled, actor="g")[0]
    assert contest.check == "strength (breaking the lock)"
    assert len(of_type(fight, AttackRolled, actor="g")) == 2


def test_dropping_the_weapon_is_only_for_the_blocked_assailant() -> None:
    a = ByRound({1: declare("drop")})
    g = ByRound({1: declare("inaction")})
    fight = arena({"a": ("blue", "aldren", a), "g": ("red", "garrok", g)}, dice=[10, 15])
    with pytest.raises(IllegalDeclaration, match="Bloquer une attaque"):
        fight.run()


def _surprise(by: str, attention: dict[str, int], dice: list[int]) -> Any:
    fight = arena(
        {"a": ("blue", "aldren", ByRound()), "g": ("red", "garrok", ByRound())},
        setup={"a": {"surprised": True, "surprised_by": by, "attention": attention}},
        dice=dice,
    )
    fight.run()
    return fight


def test_one_point_in_environment_and_allies_never_surprise() -> None:
    """Loreval, "Déroulement d'un round de surprise": with 1 point in Environment a
    fighter is never surprised by what its own allies do: no roll, it rolls initiative."""
    fight = _surprise("allies", {"environment": 1}, [10, 10])
    avoided = of_type(fight, SurpriseAvoided)
    assert [(e.actor, e.by, e.environment) for e in avoided] == [("a", "allies", 1)]
    assert not of_type(fight, Surprised) and not of_type(fight, DetectionRolled)
    assert [e.actor for e in of_type(fight, InitiativeRolled)] == ["a", "g"]
    # without it, its allies' doing surprises it like anything else
    fight = _surprise("allies", {"security": 1}, [10, 10])
    assert [e.actor for e in of_type(fight, Surprised)] == ["a"]


def test_two_points_in_environment_and_careless_opponents_never_surprise() -> None:
    """With 2 in Environment, opponents who arrive without taking precautions never
    surprise the fighter (no detection roll needed); 1 point is not enough."""
    fight = _surprise("careless", {"environment": 2}, [10, 10])
    assert [e.by for e in of_type(fight, SurpriseAvoided)] == ["careless"]
    assert not of_type(fight, Surprised) and not of_type(fight, DetectionRolled)
    fight = _surprise("careless", {"environment": 1}, [10, 10])
    assert [e.actor for e in of_type(fight, Surprised)] == ["a"]
    assert not of_type(fight, SurpriseAvoided)


def test_an_ambush_still_takes_a_detection_roll() -> None:
    """Opponents whose aim is to surprise: 2 in Environment only gives a detection
    roll (here 2 + perception 3 = 5 against 15: surprised)."""
    fight = _surprise("ambush", {"environment": 2}, [2, 10, 10])
    assert [e.success for e in of_type(fight, DetectionRolled)] == [False]
    assert [e.actor for e in of_type(fight, Surprised)] == ["a"]
    assert not of_type(fight, SurpriseAvoided)


def test_legal_declarations_include_the_jump_and_defensive_counters() -> None:
    """The random policy and the RL catalogue draw from ``observation.legal()``: it
    lists standing jumps (half the speed: a result of 10; Loreval, "La compétence
    Saut") back from the nearest opponent and toward it, and defensive counters aimed
    at an opponent or hypothetical (Loreval, "Déclaration d'un contre")."""
    seen: list[Any] = []

    def look(obs: Observation) -> Any:
        seen.extend(obs.legal())
        return None

    a = ByRound({1: look})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", ByRound())},
        positions={"a": (0.0, 0.0), "g": (6.0, 0.0)},
        dice=[10, 15],
    )
    fight.run()
    speed = fight.state.combatants["a"].sheet.speed
    jumps = sorted({tuple(d.params["to"]) for d in seen if d.kind == "jump"})
    assert jumps == [(round(-speed / 2, 2), 0.0), (round(speed / 2, 2), 0.0)]
    counters = {
        (d.target, d.params["how"], bool(d.params.get("hypothetical")))
        for d in seen
        if d.kind == "counter" and d.params["against"] == "defensive"
    }
    assert {("g", "parry", False), (None, "parry", True), (None, "dodge", True)} <= counters


def test_the_rl_catalogue_offers_the_jump_and_defensive_counters() -> None:
    from segsim.envs import FightDriver

    scenario = load_scenario(Path(__file__).parent.parent / "examples/scenarios/loreval_duel.toml")
    driver = FightDriver(scenario, ["aldren", "sylva"])
    driver.reset(5)
    (cid,) = [c for c, obs in driver.pending.items() if obs.me.step == "declare"]
    labels = driver.catalogue.labels()
    allowed = {labels[i] for i, ok in enumerate(driver.mask(cid)) if ok}
    assert {"jump", "counter(against=defensive)", "counter(against=defensive) @slot0"} <= allowed
    jump = driver.declarations(cid, labels.index("jump"))
    assert jump is not None and jump[0].kind == "jump"


def test_the_use_of_a_skill_is_a_category_5_check() -> None:
    """Loreval, "Catégorie des actions": the use of a skill is a category 5 action
    (Focus 2). Sylva's acrobatics: d20 12 + acrobatics 8, no armour malus, against the
    game master's difficulty 20: a success; it costs 5 initiative points."""
    s = ByRound({1: declare("skill", skill="acrobatics", difficulty=20, attention={"focus": 2})})
    fight = arena(
        {"s": ("blue", "sylva", s), "g": ("red", "garrok", ByRound())},
        dice=[10, 5, 12],  # s 17, g 7; s's check
    )
    fight.run()
    check = of_type(fight, CheckRolled, actor="s")[0]
    assert (check.check, check.roll, check.total, check.difficulty) == ("acrobatics", 12, 20, 20)
    assert check.success
    declared = of_type(fight, Declared, actor="s")[0]
    assert (declared.kind, declared.category) == ("skill", 5)
    assert of_type(fight, RoundEnded)[0].spent["s"] == 5


def test_a_skill_check_takes_the_armour_malus_and_perception_takes_environment() -> None:
    """Aldren in chainmail and shield: -7 on the Body skills (Loreval, "Malus lié au
    port et à l'utilisation des protections"): evasion 2 + 15 - 7 = 10. Perception is
    detection: Environment's modifier (+4 at 3; Loreval, "Avantages procurés par les
    points d'attention"), no armour malus: 3 + 15 + 4 = 22."""
    from segsim.rules.loreval import Loreval

    rules = Loreval()
    sheet = rules.load_sheet(rules.content.fighters["aldren"])
    sheet = attrs.evolve(sheet, characteristic_training=12)  # 5 attention points
    plans = {
        "evasion": declare("skill", skill="evasion", difficulty=10, attention={"focus": 2}),
        "perception": declare(
            "skill", skill="perception", attention={"environment": 3, "focus": 2}
        ),
    }
    totals = {}
    for name, plan in plans.items():
        fight = arena(
            {"a": ("blue", sheet, ByRound({1: plan})), "g": ("red", "garrok", ByRound())},
            dice=[10, 5, 15],
        )
        fight.run()
        check = of_type(fight, CheckRolled, actor="a")[0]
        totals[name] = (check.total, dict(check.modifiers))
    assert totals == {
        "evasion": (10, {"evasion": 2, "armour": -7}),
        "perception": (22, {"perception": 3, "environment": 4}),
    }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"skill": "swimming"}, "skill must be one of"),
        ({"skill": "jump"}, "declared as jump"),
        ({"skill": "acrobatics", "attention": {"environment": 1, "security": 1}}, "Focus of 2"),
        ({"skill": "acrobatics", "difficulty": "hard"}, "difficulty must be"),
    ],
)
def test_bad_skill_declarations_name_the_rule(params: dict[str, Any], message: str) -> None:
    fight = arena(
        {
            "a": ("blue", "aldren", ByRound({1: declare("skill", **params)})),
            "g": ("red", "garrok", ByRound()),
        },
        dice=[10, 5],
    )
    with pytest.raises(IllegalDeclaration, match=message):
        fight.run()


def _policy(policy: str, i: int) -> str:
    if policy != "mixed":
        return policy
    return "random" if i % 8 == 0 else "aggressive"


def _skirmish(n: int, policy: str) -> str:
    """A scenario of ``n`` fighters in two facing lines, in contact pairwise; with
    ``mixed`` every eighth one plays the random policy, the others ``aggressive``."""
    lines = [
        "[fight]",
        'ruleset = "loreval"',
        "seed = 3",
        "max_segments = 600",
    ]
    for i in range(n):
        side = "blue" if i % 2 == 0 else "red"
        lines += [
            "[[combatant]]",
            f'id = "{side}{i}"',
            f'side = "{side}"',
            f'fighter = "{"aldren" if side == "blue" else "garrok"}"',
            f'policy = "{_policy(policy, i)}"',
            f"position = [{1.5 * (i // 2)}, {0.0 if side == 'blue' else 1.5}]",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("policy", ["aggressive", "mixed"])
def test_a_large_skirmish_stretches_its_rounds_and_cuts_no_step(
    tmp_path: Path, policy: str
) -> None:
    """Loreval, "Déroulement d'un round de combat": every fighter declares, in
    ascending order, then every action resolves, in descending order. With 64 fighters
    the declarations alone take more than a round's 60 segments: the round lasts as long
    as its steps need, and ends once the last has resolved."""
    path = tmp_path / "skirmish.toml"
    path.write_text(_skirmish(64, policy), encoding="utf-8")
    fight = load_scenario(path).fight(3)
    fight.run()
    started = of_type(fight, RoundStarted)
    ended = {e.round: e for e in of_type(fight, RoundEnded)}
    assert len(ended) >= 2
    assert started[1].t > 60  # the first round stretched
    out = {e.actor: e.t for e in of_type(fight, OutOfFight)}
    for start in started:
        end = ended.get(start.round)
        if end is None:
            continue  # the fight stopped during this round
        assert end.t >= start.t + 59
        acts = [e for e in fight.history if start.t <= e.t <= end.t]
        declared = {e.actor: e.kind for e in acts if isinstance(e, Declared)}
        resolved = {e.actor for e in acts if isinstance(e, TurnResolved)}
        for cid in start.order:
            if cid in start.grace or out.get(cid, end.t + 1) <= end.t:
                continue
            assert cid in declared, (start.round, cid)
            assert cid in resolved or declared[cid] == "grace", (start.round, cid)
        # nothing of the round happens after its end
        later = [e for e in fight.history if e.t > end.t and getattr(e, "round", 0) == start.round]
        assert not later
    assert replay(fight_record(fight)).identical


def test_a_round_past_its_length_with_nothing_left_ends_at_an_end_step() -> None:
    """The safety net of a stretched round: past its 60 segments with no step left,
    the rules call the first fighter to an ``end`` step, whose settlement ends the
    round and starts the next one in the following segment."""
    a = ByRound({1: declare("inaction")})
    g = ByRound({1: declare("inaction")})
    fight = arena(
        {"a": ("blue", "aldren", a), "g": ("red", "garrok", g)},
        dice=[10, 15],
        max_segments=30,
    )
    fight.run()  # stopped at 30: round 1's steps are over, its end not yet come
    rules, state = fight.ruleset, fight.state
    assert rules.due(state, 30) == ()  # within its length, the waits end the round
    (cid,) = rules.due(state, 70)
    (step,) = rules.forced(state, cid, 70)
    assert (step.kind, dict(step.params)) == ("turn", {"step": "end"})
    marker = rules.plan(state, cid, step, 70, []).stamp(999, cid, 70)
    events = rules.resolve(state, 70, [marker], fight.dice)
    assert [e.round for e in events if isinstance(e, RoundEnded)] == [1]
    started = [e for e in events if isinstance(e, RoundStarted)]
    assert [(e.round, e.t) for e in started] == [(2, 71)]
