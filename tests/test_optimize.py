"""``segsim optimize``: a rule list's ``[tune]`` parameters searched with Optuna on
common seeds, the best compared with the start on fresh seeds, written as a rule list
that ``segsim sweep`` takes as is (issue 43, part 1). Small budgets: the mechanism, not
the answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from segsim.cli import main
from segsim.errors import InputError
from segsim.experiment import ExperimentError, fight_seed, run, sweep
from segsim.experiment.optimize import Tuned, held_out_seed, optimize
from segsim.policies import load_rule_list

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "examples/scenarios/duel.toml")
TEMPO = str(ROOT / "examples/policies/tempo.toml")
STRIKER = str(ROOT / "examples/policies/striker.toml")


def small(**kwargs: object) -> object:
    args: dict[str, object] = dict(
        against={"blue": "pressure"}, fights=8, eval_fights=10, seed=3, top=2
    )
    args.update(kwargs)
    return optimize(DUEL, {"red": TEMPO}, 5, **args)  # type: ignore[arg-type]


def test_the_search_starts_from_the_file_and_is_the_same_for_any_workers() -> None:
    first = small()
    assert first.trials[0].params == first.start  # the file's [params] are candidate 0
    assert dict(first.start) == load_rule_list(TEMPO).params | dict(first.start)
    assert len(first.trials) == 5 and len({t.params for t in first.trials}) > 1
    again = small(workers=2)
    assert again.trials == first.trials
    assert again.comparisons == first.comparisons
    assert again.text() == first.text()
    other = small(seed=4)
    assert other.trials != first.trials  # the seed drives the search and the fights


def test_every_candidate_is_scored_on_the_same_fight_seeds() -> None:
    result = small()
    assert result.train_seeds == tuple(fight_seed(3, i) for i in range(8))
    for trial in result.trials[1:3]:
        # The same candidate run as a plain sweep on master seed 3: the same score.
        again = run(
            sweep(DUEL, 8, seed=3, policies={"blue": "pressure", "red": Tuned(TEMPO, trial.params)})
        )
        assert trial.value == sum(r.winner == "red" for r in again.results) / 8
        assert tuple(r.seed for r in again.results) == result.train_seeds


def test_the_best_are_compared_with_the_start_on_fresh_seeds_fight_by_fight() -> None:
    result = small()
    assert result.held_out == held_out_seed(3) != 3
    assert result.eval_seeds == tuple(fight_seed(result.held_out, i) for i in range(10))
    assert not set(result.eval_seeds) & set(result.train_seeds)  # never tuned on
    best = result.best
    assert best.params != result.start
    # The paired difference, recomputed from two sweeps on the held-out master seed.
    arms = {}
    for name, params in (("start", result.start), ("best", best.params)):
        spec = Tuned(TEMPO, params)
        rows = run(
            sweep(DUEL, 10, seed=result.held_out, policies={"blue": "pressure", "red": spec})
        )
        arms[name] = [float(r.winner == "red") for r in rows.results]
    diffs = [b - a for a, b in zip(arms["start"], arms["best"], strict=True)]
    assert best.difference == pytest.approx(sum(diffs) / 10)
    assert result.start_value == pytest.approx(sum(arms["start"]) / 10)
    lo, hi = best.diff_interval
    assert lo <= best.difference <= hi


def test_the_best_policy_is_a_rule_list_that_sweep_takes_as_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tuned"
    args = ["optimize", DUEL, "--policy", f"red={TEMPO}", "--against", "blue=pressure"]
    args += ["--budget", "4", "--fights", "6", "--eval-fights", "6", "--seed", "2"]
    code = main([*args, "--metric", "damage", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "damage dealt by the tuned side" in printed and "paired 95% CI" in printed
    best = out / "tempo_tuned.toml"
    tuned = load_rule_list(best)
    assert tuned.tunable.keys() == load_rule_list(TEMPO).tunable.keys()
    assert (out / "report.html").read_text(encoding="utf-8").count('class="trial"') == 4
    assert main(["sweep", DUEL, "--fights", "4", "--policy", f"red={best}"]) == 0
    assert "side red (tempo_tuned)" in capsys.readouterr().out


def test_what_cannot_be_tuned_is_refused_before_any_fight(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="no \\[tune\\] table"):
        optimize(DUEL, {"red": STRIKER}, 3)
    with pytest.raises(ExperimentError, match="a built-in policy is Python"):
        optimize(DUEL, {"red": "pressure"}, 3)
    with pytest.raises(ExperimentError, match="--metric is one of win, damage, length"):
        optimize(DUEL, {"red": TEMPO}, 3, metric="style")
    with pytest.raises(ExperimentError, match="whom --policy tunes"):
        optimize(DUEL, {"red": TEMPO}, 3, against={"margaret": "pressure"})


@pytest.mark.parametrize(
    ("tune", "message"),
    [
        ("bonus = { low = 0, high = 3 }", "tune.bonus: not a parameter of this rule list"),
        ("max_bonus = { low = 3, high = 0 }", "tune.max_bonus.high: the range is empty"),
        ("max_bonus = { low = 0, high = 1 }", "the starting value 2 (in [params]) is not in 0..1"),
        ("dodge = { choices = [true] }", "tune.dodge.choices: a list of at least two"),
        ("max_bonus = { low = 0, high = 3, step = 0.5 }", "a range of whole numbers takes a whole"),
        ("max_bonus = 3", "a tunable parameter is { low = ..., high = ... }"),
        (
            "max_bonus = { low = 0, hihg = 3 }",
            "tune.max_bonus.hihg: unknown field; did you mean 'high'?",
        ),
    ],
)
def test_a_bad_tune_table_names_the_file_the_line_and_the_field(
    tmp_path: Path, tune: str, message: str
) -> None:
    text = Path(TEMPO).read_text(encoding="utf-8")
    head, rest = text.split("[tune]\n", 1)
    bad = tmp_path / "bad.toml"
    bad.write_text(head + "[tune]\n" + tune + "\n" + rest.split("\n\n", 1)[1], encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as caught:
        load_rule_list(bad)
    assert caught.value.path == str(bad) and caught.value.line is not None


@pytest.mark.parametrize(
    ("scenario", "who", "rules", "builtin", "against"),
    [
        ("duel.toml", "red", "tempo.toml", "pressure", {"blue": "pressure"}),
        ("loss_duel.toml", "diego", "loss_duellist.toml", "aggressive", {"rival": "aggressive"}),
        ("loreval_duel.toml", "red", "loreval_duellist.toml", "cautious", {"blue": "cautious"}),
    ],
)
def test_a_shipped_tunable_rule_list_starts_as_the_built_in_policy_plays(
    scenario: str, who: str, rules: str, builtin: str, against: dict[str, str]
) -> None:
    """The documented comparison: at its starting parameters the rule list declares
    what the built-in policy declares, fight for fight (the Loss one through the
    helpers hit_chance, defence_chance and best_defence, the Loreval one through
    category, moves_to and focus_for)."""
    path = str(ROOT / "examples/scenarios" / scenario)
    experiment = sweep(
        path,
        12,
        seed=5,
        policies={**against, who: builtin},
        compare={who: str(ROOT / "examples/policies" / rules)},
    )
    results = run(experiment)
    first, second = (results.arm_results(arm.label) for arm in experiment.arms)
    assert [(r.winner, r.segments, r.damage, r.actions) for r in first] == [
        (r.winner, r.segments, r.damage, r.actions) for r in second
    ]
    assert {r.winner for r in first} != {None}


TUNABLE = [
    "tempo.toml",
    "loss_duellist.toml",
    "rupture_duellist.toml",
    "loreval_duellist.toml",
    "loreval_duellist_tuned.toml",
]


@pytest.mark.parametrize("rules", TUNABLE)
def test_a_shipped_tunable_rule_list_loads_with_its_starting_point_in_its_ranges(
    rules: str,
) -> None:
    policy = load_rule_list(ROOT / "examples/policies" / rules)
    assert policy.tunable and set(policy.tunable) <= set(policy.params)
    for key, tunable in policy.tunable.items():
        assert tunable.contains(policy.params[key]), key


def test_the_shipped_tuned_loreval_duellist_is_the_duellist_with_other_parameters() -> None:
    """examples/policies/loreval_duellist_tuned.toml is what segsim optimize wrote
    (docs/experiments.md, "Optimize"): the same rules and ranges, parameters changed
    only where the search went (all attention to Focus, the heroic action when hurt),
    and it plays the duel to its end."""
    start = load_rule_list(ROOT / "examples/policies/loreval_duellist.toml")
    tuned = load_rule_list(ROOT / "examples/policies/loreval_duellist_tuned.toml")
    assert [r.name for r in tuned.rules] == [r.name for r in start.rules]
    assert tuned.tunable == start.tunable
    changed = {k: v for k, v in tuned.params.items() if start.params[k] != v}
    assert changed["spare"] == "focus" and changed["environment"] == 0
    assert changed["heroic_below"] > start.params["heroic_below"]
    path = str(ROOT / "examples/scenarios/loreval_duel.toml")
    red = str(ROOT / "examples/policies/loreval_duellist_tuned.toml")
    experiment = sweep(path, 4, seed=5, policies={"blue": "cautious", "red": red})
    results = run(experiment).arm_results(experiment.arms[0].label)
    assert len(results) == 4 and all(r.winner is not None for r in results)


def test_without_optuna_optimize_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "optuna" else real(name, *a)
    )
    out = tmp_path / "out"
    args = ["optimize", DUEL, "--policy", f"red={TEMPO}", "--budget", "2", "--out", str(out)]
    assert main(args) == 2
    assert "pip install 'segsim[optimize]'" in capsys.readouterr().err
    assert not out.exists()  # nothing written
