"""A tournament's two figures have two names: an arm (``blue=A, red=B``) has one win
rate per side, a pairing (``A against B, both sides``) has a score over both arms; and
the damage is given per policy as well as per fighter (issue 40)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from segsim.experiment import report_html, run, sweep, tournament
from segsim.experiment.runner import Results

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")
POLICIES = ["aggressive", "counter", "pressure"]


class _Rows(HTMLParser):
    """The rows of each chart (``<g class="row">`` in ``<svg class="chart KIND">``) and
    the rows of the per-policy damage table."""

    def __init__(self) -> None:
        super().__init__()
        self.kind = ""
        self.rows: dict[str, list[dict[str, str]]] = {}
        self.policies: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "svg" and "chart" in a.get("class", ""):
            self.kind = a["class"].split()[-1]
        if tag == "g" and a.get("class") == "row":
            self.rows.setdefault(self.kind, []).append(a)
        if tag == "tr" and "data-policy" in a:
            self.policies.append(a["data-policy"])


@pytest.fixture(scope="module")
def results() -> Results:
    return run(tournament(DUEL, POLICIES, 12, seed=5))


def test_an_arm_is_named_by_who_plays_each_side(results: Results) -> None:
    labels = [arm.label for arm in results.experiment.arms]
    assert labels[0] == "blue=aggressive, red=counter"
    assert all(" vs " not in label for label in labels)
    text = results.summary().text()
    assert "[blue=aggressive, red=counter] 12 fights" in text
    assert "side blue (aggressive)" in text
    assert "the row's score against the column over both sides" in text
    assert "not one side's win rate" in text


def test_the_report_names_scores_and_win_rates_differently(results: Results) -> None:
    summary = results.summary()
    parser = _Rows()
    parser.feed(report_html(results))
    scores, rates = parser.rows["scores"], parser.rows["rates"]
    pairs = {f"{p.a} against {p.b}, both sides": p for p in summary.pairs}
    assert {r["data-label"] for r in scores} == set(pairs)
    for row in scores:
        assert float(row["data-value"]) == pytest.approx(pairs[row["data-label"]].rate, abs=1e-4)
    sides = {
        f"[{arm.label}] side {s.side} ({s.player})": s for arm in summary.arms for s in arm.sides
    }
    assert {r["data-label"] for r in rates} == set(sides)
    for row in rates:
        assert float(row["data-value"]) == pytest.approx(sides[row["data-label"]].rate, abs=1e-4)
    # No label names both figures.
    assert not {r["data-label"] for r in scores} & {r["data-label"] for r in rates}


def test_damage_per_policy_sums_its_fighters_over_the_arms_it_plays(results: Results) -> None:
    summary = results.summary()
    by_policy = {d.policy: d for d in summary.damage}
    assert set(by_policy) == set(POLICIES)
    for policy in POLICIES:
        dealt = taken = fights = 0
        for arm in results.experiment.arms:
            players = dict(arm.players)  # side -> policy
            if policy not in players.values():
                continue
            side = next(s for s, p in players.items() if p == policy)
            fighter = {"blue": "robert", "red": "margaret"}[side]
            for r in results.arm_results(arm.label):
                fights += 1
                dealt += dict(r.dealt).get(fighter, 0)
                taken += dict(r.damage)[side]
        d = by_policy[policy]
        assert d.fights == fights == 4 * 12  # four arms, twelve fights each
        assert d.dealt == pytest.approx(dealt / fights)
        assert d.taken == pytest.approx(taken / fights)
        assert f"{policy:<10} dealt {dealt / fights:6.2f}  taken {taken / fights:6.2f}" in (
            summary.text()
        )
    parser = _Rows()
    page = report_html(results)
    parser.feed(page)
    assert parser.policies == [d.policy for d in summary.damage]
    assert "Damage per policy and per fighter" in page
    assert "<th>robert</th>" in page and "<th>margaret</th>" in page  # per fighter too


def test_a_sweep_gives_damage_per_policy_of_the_scenario_and_its_replacements() -> None:
    results = run(sweep(DUEL, 10, seed=2, compare={"red": "pressure"}))
    by_policy = {d.policy: d for d in results.summary().damage}
    # Robert keeps the scenario's defender in both arms; Margaret is aggressive, then pressure.
    assert set(by_policy) == {"defender", "aggressive", "pressure"}
    assert by_policy["defender"].fights == 20 and by_policy["pressure"].fights == 10
    pressure = results.arm_results("red=pressure")
    assert by_policy["pressure"].dealt == pytest.approx(
        sum(dict(r.dealt).get("margaret", 0) for r in pressure) / 10
    )
    assert by_policy["pressure"].taken == pytest.approx(
        sum(dict(r.damage)["red"] for r in pressure) / 10
    )
    # Each side's win rate names the policy playing it, the scenario's own included.
    text = results.summary().text()
    assert "[scenario] 10 fights\n  side blue (defender) " in text
    assert "[red=pressure] 10 fights\n  side blue (defender) " in text
    assert "  side red (pressure) " in text and "  side red (aggressive) " in text
