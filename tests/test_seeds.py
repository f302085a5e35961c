"""A fight seed is a whole number from 0 to 2**63 - 1 (issue 39, item 3): what a TOML
integer and a record's 64-bit integers hold, and the seeds the generator turns into
distinct streams. Every way in (the command line, a scenario, a fight script, the Python
API, an experiment, a record) refuses another seed up front with the same message, so
that segsim never writes a record it cannot read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from segsim import Fight, InputError, RecordError, load_scenario
from segsim.cli import main
from segsim.dice import SEED_MAX, Dice, check_seed
from segsim.experiment import sweep
from segsim.replay import replay
from segsim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"
OUT_OF_RANGE = [-1, -(2**63), 2**63, 2**64]


def test_the_domain_is_zero_to_two_to_the_sixty_three_minus_one() -> None:
    assert SEED_MAX == 2**63 - 1
    assert check_seed(0) == 0 and check_seed(SEED_MAX) == SEED_MAX
    for bad in OUT_OF_RANGE:
        with pytest.raises(ValueError, match=r"a fight seed is from 0 to 9223372036854775807"):
            check_seed(bad)
    for bad in (True, 1.0, "1", None):
        with pytest.raises(TypeError, match="a fight seed is a whole number"):
            check_seed(bad)


def test_distinct_seeds_of_the_domain_give_distinct_dice() -> None:
    """1 and -1 once gave the same dice (the generator seeds from the absolute value):
    -1 is refused now, and the seeds at both ends of the domain roll their own faces."""
    rolls = {
        seed: tuple(Dice(seed).roll(100, "test") for _ in range(8))
        for seed in (0, 1, 2, SEED_MAX - 1, SEED_MAX)
    }
    assert len(set(rolls.values())) == len(rolls)
    with pytest.raises(ValueError):
        Dice(-1)


@pytest.mark.parametrize("seed", OUT_OF_RANGE)
def test_the_api_refuses_a_seed_out_of_the_domain(seed: int) -> None:
    scenario = load_scenario(DUEL)
    with pytest.raises(ValueError, match="a fight seed is from 0 to"):
        scenario.fight(seed)
    specs = scenario.fight().specs
    with pytest.raises(ValueError, match="a fight seed is from 0 to"):
        Fight(scenario.ruleset, specs, seed=seed)


@pytest.mark.parametrize("seed", ["9223372036854775808", "-1", "1e3"])
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_the_command_line_refuses_the_seed_before_anything_runs(
    seed: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    argv = [command, str(DUEL), "--seed", seed]
    if command == "run":
        argv += ["--record", str(out)]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "argument --seed: a" in capsys.readouterr().err
    assert not out.exists()


def test_the_greatest_seed_writes_a_record_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    assert main(["run", str(DUEL), "--seed", str(SEED_MAX), "--quiet", "--record", str(out)]) == 0
    assert json.loads(out.read_text().splitlines()[0])["seed"] == SEED_MAX
    assert replay(out).identical
    assert main(["replay", str(out)]) == 0
    assert "identical" in capsys.readouterr().out


@pytest.mark.parametrize("seed", ["-1", "-9223372036854775808"])
def test_a_scenario_or_script_seed_out_of_the_domain_is_refused_with_its_line(
    seed: str, tmp_path: Path
) -> None:
    text = DUEL.read_text()
    assert "\nseed = 7\n" in text
    bad = tmp_path / "duel.toml"
    bad.write_text(text.replace("\nseed = 7\n", f"\nseed = {seed}\n"))
    line = bad.read_text().splitlines().index(f"seed = {seed}") + 1
    with pytest.raises(InputError) as err:
        load_scenario(bad)
    assert err.value.line == line and err.value.field == "fight.seed"
    assert "a fight seed is from 0 to" in str(err.value)

    script = tmp_path / "script.toml"
    script.write_text(f'[fight]\nscenario = "duel.toml"\nseed = {seed}\n')
    with pytest.raises(InputError) as err:
        load_script(script)
    assert err.value.line == 3 and "a fight seed is from 0 to" in str(err.value)


@pytest.mark.parametrize(("seed", "message"), [(-1, "a fight seed is from 0 to"), (2**63, "64")])
def test_a_record_with_a_seed_out_of_the_domain_is_refused(
    seed: int, message: str, tmp_path: Path
) -> None:
    good = tmp_path / "good.jsonl"
    assert main(["run", str(DUEL), "--quiet", "--record", str(good)]) == 0
    lines = good.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed"] = seed
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(RecordError) as err:
        replay(bad)
    assert err.value.line == 1 and message in str(err.value)


def test_an_experiment_refuses_a_master_seed_out_of_the_domain() -> None:
    from segsim.experiment import ExperimentError

    with pytest.raises(ExperimentError, match="master seed: a fight seed is from 0 to"):
        sweep(str(DUEL), fights=2, seed=-1)
