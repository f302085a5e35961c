"""A Chroniques attacker a hair more than one move away moves once and attacks (its
first move must not land in contact and leave an illegal second move)."""

from __future__ import annotations

from segsim.fight import CombatantSpec, Fight
from segsim.policy import make_policy
from segsim.rules import get_ruleset


def test_a_gap_a_hair_over_one_move_is_one_move_and_an_attack() -> None:
    rules = get_ruleset("chroniques")

    def spec(cid: str, side: str, pos: tuple[float, float]) -> CombatantSpec:
        sheet = rules.load_sheet(rules.content.fighters[cid])
        return CombatantSpec(
            cid, side, sheet, make_policy("chroniques", "aggressive"), position=pos
        )

    fight = Fight(
        rules,
        [spec("aldric", "party", (-12.0, 0.0)), spec("bandit", "bandits", (9.43, 1.77))],
        seed=1,
    )
    outcome = fight.run()  # it used to raise IllegalDeclaration: already in contact
    assert outcome.result == "victory"
