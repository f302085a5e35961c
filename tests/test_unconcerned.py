"""A policy may say it has nothing to react to (``unconcerned``, issue 41).

A reactive policy is called whenever someone it sees starts or ends an action. One that
answers ``unconcerned(ruleset, state, cid, segment)`` True for such a phase is neither
observed nor asked to decide in it (segsim.fight.unconcerned_hook): the promise is that
its decision would have declared nothing, so the records are the same bytes.
"""

from __future__ import annotations

from typing import Any

from segsim.fight import Fight, unconcerned_hook
from segsim.policy import Observation
from segsim.record import fight_lines
from segsim.rules.rinkanou.policies import Aggressive
from segsim.testing import build_fight


class Watchful(Aggressive):
    """Attacks when it must act; called by what it sees, it declares nothing new."""

    reactive = True

    def __init__(self) -> None:
        super().__init__()
        self.decisions: list[tuple[int, bool]] = []
        self.asked: list[int] = []

    def decide(self, obs: Observation) -> Any:
        self.decisions.append((obs.segment, obs.must_act))
        return super().decide(obs) if obs.must_act else None


class Unconcerned(Watchful):
    """The same, saying so without an observation."""

    def unconcerned(self, ruleset: Any, state: Any, cid: str, segment: int) -> bool:
        self.asked.append(segment)
        return True


def _duel(policy: Watchful) -> Fight:
    return build_fight(
        {"a": ("blue", "robert", policy), "b": ("red", "margaret", Aggressive())},
        positions={"a": (0.0, 0.0), "b": (6.0, 0.0)},
        seed=3,
    )


def test_an_unconcerned_policy_is_not_called_by_what_it_sees() -> None:
    plain, hooked = Watchful(), Unconcerned()
    one, other = _duel(plain), _duel(hooked)
    one.run()
    other.run()
    assert list(fight_lines(one)) == list(fight_lines(other))  # the same fight
    assert hooked.asked  # asked for the phases it was called to by sight alone...
    assert not set(hooked.asked) & {s for s, _ in hooked.decisions}  # ...not called then
    assert len(hooked.decisions) + len(hooked.asked) == len(plain.decisions)
    # Whenever it had to act, it decided as before.
    assert [d for d in hooked.decisions if d[1]] == [d for d in plain.decisions if d[1]]


def test_a_policy_that_must_act_is_never_asked() -> None:
    hooked = Unconcerned()
    fight = _duel(hooked)
    fight.run()
    must = {s for s, m in hooked.decisions if m}
    assert must and not must & set(hooked.asked)


def test_an_external_policy_is_never_asked() -> None:
    class ExternalUnconcerned(Unconcerned):
        external = True

    assert unconcerned_hook(ExternalUnconcerned()) is None
    assert unconcerned_hook(Unconcerned()) is not None
    assert unconcerned_hook(Watchful()) is None


def test_a_replaced_policy_takes_its_hook_with_it() -> None:
    hooked = Unconcerned()
    fight = _duel(Watchful())
    fight.replace_policy("a", hooked)  # before the start: as if it had been given
    fight.run()
    assert hooked.asked
