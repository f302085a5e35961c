"""Built-in Loss tactics: they play whole fights legally and use Exploits and the phase
countdown as their docstrings say."""

from __future__ import annotations

from pathlib import Path

from segsim import load_scenario
from segsim.events import OutOfFight
from segsim.policy import make_policy
from segsim.rules.loss.events import Tested, Waited

ROOT = Path(__file__).resolve().parent.parent
BRAWL = ROOT / "examples" / "scenarios" / "loss_street_brawl.toml"


def test_tactics_play_the_street_brawl_to_the_end() -> None:
    scenario = load_scenario(BRAWL)
    for seed in range(1, 9):
        fight = scenario.fight(seed)
        outcome = fight.run()
        assert outcome.result == "victory"


def test_aggressive_attacks_minions_with_one_exploit_and_adversaries_with_extra_dice() -> None:
    scenario = load_scenario(BRAWL)
    minions = {c.id for c in scenario.combatants if c.sheet.minion}
    on_minions, on_others = set(), set()
    for seed in range(1, 6):
        fight = scenario.fight(seed)
        fight.run()
        for t in fight.history:
            if isinstance(t, Tested) and t.actor == "diego" and t.test == "attack":
                (on_minions if t.target in minions else on_others).add(t.exploits)
    assert on_minions == {1}
    assert on_others and max(on_others) >= 1


def test_defensive_keeps_points_for_defences_until_late_in_the_round() -> None:
    scenario = load_scenario(BRAWL)
    policies = {c.id: make_policy("loss", "aggressive") for c in scenario.combatants}
    policies["canahan"] = make_policy("loss", "defensive")
    fight = scenario.fight(3, policies=policies)
    fight.run()
    held = [e for e in fight.history if isinstance(e, Waited) and e.actor == "canahan"]
    assert held, "the defensive fighter lets phases go by to keep its reserve"
    assert any(isinstance(e, OutOfFight) for e in fight.history)


def test_the_rule_list_tactic_plays_the_brawl() -> None:
    from segsim.policies import load_rule_list

    scenario = load_scenario(BRAWL)
    fired: dict[str, int] = {}
    for seed in range(1, 5):
        policies = {
            c.id: load_rule_list(ROOT / "examples" / "policies" / "loss_brawler.toml")
            for c in scenario.combatants
        }
        fight = scenario.fight(seed, policies=policies)
        assert fight.run().result == "victory"
        for p in policies.values():
            for name, n in p.fired.items():
                fired[name] = fired.get(name, 0) + n
    assert {"fell a minion", "strike", "dodge", "close in"} <= set(fired)


def test_the_defensive_rule_list_keeps_points_for_defences() -> None:
    from segsim.policies import load_rule_list

    scenario = load_scenario(BRAWL)
    fired: dict[str, int] = {}
    for seed in range(1, 5):
        guard = load_rule_list(ROOT / "examples" / "policies" / "loss_guard.toml")
        fight = scenario.fight(seed, policies={"canahan": guard})
        assert fight.run().result == "victory"
        for name, n in guard.fired.items():
            fired[name] = fired.get(name, 0) + n
    assert fired.get("let the phase go by", 0) > 0
    assert fired.get("parry and counter", 0) + fired.get("dodge and counter", 0) > 0


def test_aggressive_takes_the_most_extra_dice_that_keep_one_chance_in_two() -> None:
    """The policies' attack: as many extra damage dice (up to three) as keep the chance of
    the test at one in two, spending no pool, then Fursa, then Inspiration too when that
    is what it takes; none when even both pools fall short (d10 + score against 15 + 5
    per Exploit), for every score and pool the sheets may hold."""
    from types import SimpleNamespace

    from segsim.rules.loss.policies import attack, chance
    from segsim.rules.loss.views import OtherView, SelfView

    def view(cls: type, **values: object) -> object:
        """A view of the class the policies take (the compiled build checks it), made
        without a fight: its fields hold the given values."""
        made = cls.__new__(cls)
        for name, value in values.items():
            setattr(made, name, value)
        return made

    def expected(score: int, fursa: int, inspiration: int) -> dict[str, object]:
        for e in (3, 2, 1):
            for spend in ({}, {"fursa": 1}, {"fursa": 1, "inspiration": 1}, {"inspiration": 1}):
                if ("fursa" in spend and not fursa) or ("inspiration" in spend and not inspiration):
                    continue
                if "fursa" not in spend and "inspiration" in spend and fursa:
                    continue  # Fursa is spent first
                if chance(score + 5 * len(spend), 15 + 5 * e) >= 0.5:
                    return {"effects": ["extra_damage"] * e, **spend}
        return {}

    target = view(OtherView, id="rival", minion=False)
    seen = set()
    for score in range(0, 30):
        for fursa in (0, 1, 3):
            for inspiration in (0, 2):
                sheet = SimpleNamespace(
                    tests={"blade": ("t", "s")}, traits={"t": score}, talents={}
                )
                me = view(
                    SelfView,
                    sheet=sheet,
                    weapon=SimpleNamespace(test="blade"),
                    fursa=fursa,
                    inspiration=inspiration,
                    accepts=lambda d: True,
                    attack_beyond_points=lambda: False,
                )
                d = attack(me, target, 3)  # type: ignore[arg-type]
                assert d is not None and d.target == "rival"
                want = expected(score, fursa, inspiration)
                got = {k: list(v) if isinstance(v, tuple) else v for k, v in d.params.items()}
                assert got == want, (score, fursa, inspiration)
                seen.add(len(want.get("effects", ())))  # type: ignore[arg-type]
    assert seen == {0, 1, 2, 3}
