"""Built-in policies declare only legal actions, for every fighter of every ruleset's
content (issue 39, item 9: the melee policies given a crossbowman or an archer with its
ranged weapon in hand declared a strike with the dagger still sheathed, and the fight
stopped).

Hypothesis picks a ruleset, one of its registered policies, a fighter of its content
and how that fighter starts (for RinKaNou: its ranged weapon in hand, loaded or not,
its melee weapon armed), an opponent with any policy, a distance and a seed; the fight
must run to its end with no IllegalDeclaration."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from segsim import load_scenario
from segsim.fight import CombatantSpec, Fight
from segsim.policy import make_policy
from segsim.rules import get_ruleset

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ["rinkanou", "loss", "chroniques", "rupture", "loreval"]


@cache
def registered() -> None:
    """Load every example scenario once: it imports each ruleset and its policies."""
    for path in (ROOT / "examples" / "scenarios").glob("*.toml"):
        load_scenario(path)


@cache
def builtin(ruleset: str) -> list[str]:
    """The policies segsim itself registers for the ruleset, asked of a fresh process
    (not those a test or an application registered meanwhile, such as a rule list under
    a name of its own)."""
    registered()
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from segsim import load_scenario\n"
        "from segsim.policy import policy_names\n"
        "for p in sorted(Path(sys.argv[1]).glob('*.toml')): load_scenario(p)\n"
        "print(json.dumps(sorted(policy_names(sys.argv[2]))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples" / "scenarios"), ruleset],
        capture_output=True,
        text=True,
        check=True,
    )
    names: list[str] = json.loads(done.stdout)
    return names


def setups(rules: Any, who: str) -> list[dict[str, Any]]:
    """How a fighter may start, as a scenario may set it."""
    found: list[dict[str, Any]] = [{}]
    if rules.name == "rinkanou":
        found.append({"armed": True})
        if rules.load_sheet(rules.content.fighters[who]).ranged is not None:
            found += [{"wielding": "ranged", "loaded": True}, {"wielding": "ranged"}]
    return found


@st.composite
def matches(draw: st.DrawFn, ruleset: str) -> tuple[Any, ...]:
    registered()
    rules = get_ruleset(ruleset)
    fighters = sorted(rules.content.fighters)
    names = builtin(ruleset)
    policy = draw(st.sampled_from(names))
    who = draw(st.sampled_from(fighters))
    setup = draw(st.sampled_from(setups(rules, who)))
    other = draw(st.sampled_from(fighters))
    other_policy = draw(st.sampled_from(names))
    other_setup = draw(st.sampled_from(setups(rules, other)))
    distance = draw(st.sampled_from([1.0, 2.0, 6.0, 25.0]))
    seed = draw(st.integers(0, 2**31))
    return rules, policy, who, setup, other, other_policy, other_setup, distance, seed


def test_every_ruleset_has_builtin_policies() -> None:
    for ruleset in RULESETS:
        assert "random" in builtin(ruleset) and len(builtin(ruleset)) >= 3


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_builtin_policies_declare_only_legal_actions(ruleset: str, data: st.DataObject) -> None:
    rules, policy, who, setup, other, other_policy, other_setup, distance, seed = data.draw(
        matches(ruleset)
    )
    specs = [
        CombatantSpec(
            "a",
            "red",
            rules.load_sheet(rules.content.fighters[who]),
            make_policy(ruleset, policy),
            position=(0.0, 0.0),
            setup=setup,
        ),
        CombatantSpec(
            "b",
            "blue",
            rules.load_sheet(rules.content.fighters[other]),
            make_policy(ruleset, other_policy),
            position=(distance, 0.0),
            setup=other_setup,
        ),
    ]
    fight = Fight(rules, specs, seed=seed, max_segments=1200)
    fight.run()  # an illegal declaration by a built-in policy raises here
    assert fight.ended


@pytest.mark.parametrize(
    "policy", ["pressure", "aggressive", "parrier", "counter", "defender", "keeper"]
)
def test_melee_policies_draw_the_melee_weapon_of_a_crossbowman(policy: str) -> None:
    """The case found: a crossbowman starting with its crossbow in hand, given a melee
    policy, first draws its dagger (it used to declare arm, refused: not in hand)."""
    registered()
    rules = get_ruleset("rinkanou")
    specs = [
        CombatantSpec(
            cid,
            side,
            rules.load_sheet(rules.content.fighters[who]),
            make_policy("rinkanou", policy),
            position=(x, 0.0),
            setup=setup,
        )
        for cid, side, who, x, setup in (
            ("a", "red", "crossbowman", 0.0, {"wielding": "ranged", "loaded": True}),
            ("b", "blue", "robert", 1.0, {}),
        )
    ]
    fight = Fight(rules, specs, seed=3, max_segments=600)
    fight.run()
    first = next(e for e in fight.history if e.TYPE == "action.declared" and e.actor == "a")
    assert (first.kind, first.params.get("weapon")) == ("draw", "melee")


@pytest.mark.parametrize(
    ("scenario", "seed", "policies"),
    [
        ("shield_vs_greatsword", 177, {"hugues": "random", "wendel": "counter"}),
        (
            "three_against_three",
            135,
            {
                "robert": "random",
                "hugues": "aggressive",
                "isabeau": "archer",
                "margaret": "counter",
                "wendel": "defender",
                "veteran": "keeper",
            },
        ),
    ],
)
def test_the_counter_puncher_s_riposte_spends_only_what_its_defence_left(
    scenario: str, seed: int, policies: dict[str, str]
) -> None:
    """Issue 39, item 9's second case, "counter: spends # PS and buys #": with 3 PS
    usable, the counter-puncher declared a dodge spending 2 (faster) and beside it a
    riposte whose bonus spent 2 more, and the fight stopped on the refusal. The riposte
    now spends what the defences declared beside it leave."""
    registered()
    sc = load_scenario(ROOT / "examples" / "scenarios" / f"{scenario}.toml")
    fight = sc.fight(
        seed,
        policies={cid: make_policy("rinkanou", name) for cid, name in policies.items()},
        max_segments=3000,
    )
    fight.run()  # refused before: "spends 2 PS and buys 0, but only 1 can be used"
    assert fight.ended
    counters = [cid for cid, name in policies.items() if name == "counter"]
    both = [
        e.start
        for e in fight.history
        if e.TYPE == "action.declared"
        and e.actor in counters
        and e.kind == "strike"
        and any(
            o.TYPE == "action.declared"
            and o.actor == e.actor
            and o.start == e.start
            and o.kind == "dodge"
            for o in fight.history
        )
    ]
    assert both, "the case: a riposte declared beside a dodge"
