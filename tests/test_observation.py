"""Observations are live views of one declaration phase (DESIGN, principle 3): they cost
what a policy reads, everyone in a phase sees the same state, and a view kept past its
phase stays correct (frozen) or fails loudly."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from view_helpers import slots_of

from segsim import Declaration
from segsim.observation import StaleObservation
from segsim.rules.chroniques import Chroniques
from segsim.rules.rinkanou import RinKaNou
from segsim.testing import build_fight, declare


class Keeper:
    """Keeps every observation as it is, and some values read while deciding."""

    name = "keeper"

    def __init__(self, freeze: bool = False) -> None:
        self.kept: list[Any] = []
        self.read: list[tuple[int, int, bool]] = []
        self.freeze = freeze

    def decide(self, obs: Any) -> Any:
        self.read.append((obs.segment, obs.me.ps, obs.me.armed))
        self.kept.append(obs.freeze() if self.freeze else obs)
        if obs.me.actions:
            return None
        return declare("wait") if obs.me.armed else declare("arm")


def duel(a: Any, b: Any) -> Any:
    return build_fight(
        {"robert": ("blue", "robert", a), "margaret": ("red", "margaret", b)},
        dice=[],
        ruleset=RinKaNou(start_roll=False),
        max_segments=12,
    )


def test_a_kept_observation_fails_loudly_once_the_fight_has_moved_on() -> None:
    keeper = Keeper()
    fight = duel(keeper, Keeper())
    fight.run()
    first = keeper.kept[0]
    assert not first.fresh
    # What the policy read in its phase stays as it was then...
    assert (first.me.ps, first.me.armed, first.me.actions) == (0, False, ())
    assert fight.state.combatants["robert"].status.armed
    # ...and what it did not read cannot be read any more.
    for read in (
        lambda: first.me.usable_ps,
        lambda: first.me.wounds,
        lambda: first.others,
        lambda: first.other("margaret"),
        lambda: first.legal(),
        lambda: first.me.nearest_foe(),
        lambda: first.me.nearest(),
        lambda: first.me.threats(),
    ):
        with pytest.raises(StaleObservation, match="segment 0"):
            read()


def test_the_fields_a_view_copies_when_it_is_made_stay_those_of_its_phase() -> None:
    """What nearly every decision reads (position, arming, lock, weapon PR, actions) is
    copied when the view is made: after the phase it still answers what it showed then,
    never the new state, while the fields read on demand fail loudly."""
    kept: list[Any] = []

    class Look:
        name = "look"

        def decide(self, obs: Any) -> Any:
            kept.append(obs)
            if obs.segment == 0:
                obs.other("margaret")  # built in its phase, read after it
            if obs.me.actions:
                return None
            return declare("wait") if obs.me.armed else declare("arm")

    fight = duel(Look(), Keeper())
    fight.run()
    first = kept[0]
    me, her = first.me, first.other("margaret")
    state = fight.state
    robert, margaret = state.combatants["robert"], state.combatants["margaret"]
    state.move("robert", (5.0, 5.0))
    state.move("margaret", (7.0, 5.0))
    robert.status.must_lock = True
    robert.status.weapon_pr = 0
    state.version += 1
    assert not first.fresh
    assert (me.position, me.armed, me.must_lock, me.actions) == ((0.0, 0.0), False, False, ())
    assert me.weapon_pr > 0 and robert.status.armed and margaret.status.armed
    assert (her.position, her.armed) == ((1.5, 0.0), False)
    with pytest.raises(StaleObservation):
        _ = me.ps_against
    with pytest.raises(StaleObservation):
        _ = her.actions


def test_a_frozen_observation_keeps_what_it_showed_in_its_phase() -> None:
    keeper = Keeper(freeze=True)
    fight = duel(keeper, Keeper())
    fight.run()
    first = keeper.kept[0]
    assert first.segment == 0 and first.me.armed is False and first.me.actions == ()
    assert first.other("margaret").actions == ()
    assert first.me.nearest_foe() == "margaret"
    assert Declaration("arm") in first.legal()
    # A later one shows the later state, not the first one's.
    later = keeper.kept[-1]
    assert later.segment > 0 and later.me.armed is True
    assert [(s, armed) for s, _, armed in keeper.read] == [
        (o.segment, o.me.armed) for o in keeper.kept
    ]


def test_everyone_in_a_phase_sees_the_state_before_anyone_declares() -> None:
    """Robert decides first (fight order) and declares; Margaret, deciding in the same
    phase, must not see Robert's new action."""
    seen: dict[str, Any] = {}

    class Look:
        name = "look"

        def __init__(self, cid: str) -> None:
            self.cid = cid

        def decide(self, obs: Any) -> Any:
            if obs.segment == 0:
                other = "margaret" if self.cid == "robert" else "robert"
                seen[self.cid] = obs.other(other).actions
            if obs.me.actions:
                return None
            return declare("wait") if obs.me.armed else declare("arm")

    fight = duel(Look("robert"), Look("margaret"))
    fight.run()
    assert seen == {"robert": (), "margaret": ()}


class _Looker(Keeper):
    """Keeper that also reads who else it sees."""

    name = "looker"

    def decide(self, obs: Any) -> Any:
        assert obs.others  # builds the views of the others
        return super().decide(obs)


@contextmanager
def _views_spied() -> Iterator[list[str]]:
    """The ids of the other fighters whose views are built meanwhile, as they are."""
    built: list[str] = []
    made: list[Any] = []  # the views built (kept, so that no id is reused meanwhile)
    from segsim.rules.rinkanou import views

    original = views.SelfView._view  # where every view of another fighter is made

    def spy(self: Any, o: Any) -> Any:
        view = original(self, o)
        if all(view is not v for v in made):
            made.append(view)
            built.append(o.id)
        return view

    views.SelfView._view = spy  # type: ignore[method-assign]
    try:
        yield built
    finally:
        views.SelfView._view = original  # type: ignore[method-assign]


def _views_built(policy: type[Keeper]) -> list[str]:
    """The ids of the other fighters whose views were built in a short duel of two."""
    with _views_spied() as built:
        fight = build_fight(
            {"robert": ("blue", "robert", policy()), "margaret": ("red", "margaret", policy())},
            dice=[],
            ruleset=RinKaNou(start_roll=False),
            max_segments=12,
        )
        fight.run()
    return built


def test_views_are_built_only_when_read() -> None:
    """A policy that reads nothing of the others never has their views built; one that
    reads them has (the spy sees it)."""
    assert _views_built(Keeper) == []
    seen = _views_built(_Looker)
    assert seen and set(seen) == {"robert", "margaret"}


def test_chroniques_observations_are_live_too() -> None:
    kept: list[Any] = []

    class Pass:
        name = "pass"

        def decide(self, obs: Any) -> Any:
            kept.append(obs)
            return declare("pass") if obs.me.my_turn else None

    fight = build_fight(
        {"a": ("x", "nissa", Pass()), "b": ("y", "bandit", Pass())},
        dice=[],
        ruleset=Chroniques(),
        max_segments=300,
    )
    fight.run()
    with pytest.raises(StaleObservation):
        _ = kept[0].me.hit_points


def test_views_take_a_fighter_s_reach_from_the_rules() -> None:
    """A ruleset that changes how far a weapon reaches (a subclass overriding
    ``RinKaNou.reach``) is what the views report, for the fighter and the others."""

    class LongArms(RinKaNou):
        def reach(self, sheet: Any) -> float:
            return 10.0

    seen: list[tuple[float, float]] = []

    class Looker:
        name = "looker"

        def decide(self, obs: Any) -> Any:
            seen.append((obs.me.reach, obs.other("margaret").reach))
            return declare("wait")

    fight = build_fight(
        {"robert": ("blue", "robert", Looker()), "margaret": ("red", "margaret", Keeper())},
        dice=[],
        ruleset=LongArms(start_roll=False),
        max_segments=3,
    )
    fight.run()
    assert seen and seen[0] == (10.0, 10.0)
    plain = RinKaNou(start_roll=False)
    assert plain.reach(fight.state.combatants["robert"].sheet) != 10.0


def test_a_rinkanou_observation_asks_its_own_view_for_the_others_and_the_legal() -> None:
    """The observation's ``others``, ``other()`` and ``legal()`` are what the deciding
    fighter's view finds (one view of each other fighter per phase), and fail loudly
    after the phase like the rest."""
    kept: list[Any] = []

    class Look:
        name = "look"

        def decide(self, obs: Any) -> Any:
            if not kept:
                her = obs.other("margaret")
                assert obs.others == (her,) and obs.me.foes() == (her,)
                with pytest.raises(KeyError):
                    obs.other("nobody")
                assert obs.legal() == obs.me._legal() and Declaration("arm") in obs.legal()
                kept.append(obs)
            if obs.me.actions:
                return None
            return declare("wait") if obs.me.armed else declare("arm")

    fight = duel(Look(), Keeper())
    fight.run()
    assert kept
    later = fight.ruleset.observe(fight.state, "robert", 12, False)
    assert later.other("margaret").id == "margaret"
    fight.state.version += 1  # the fight moves on
    with pytest.raises(StaleObservation):
        later.legal()
    with pytest.raises(StaleObservation):
        _ = later.others


def test_an_opponent_s_actions_read_through_motion_stay_readable_after_the_phase() -> None:
    """motion() finds an opponent's actions as ``actions`` would (once, in the view's
    phase) and keeps them: read later, ``actions`` answers what the phase showed."""
    kept: list[Any] = []

    class Look:
        name = "look"

        def decide(self, obs: Any) -> Any:
            her = obs.other("margaret")
            kept.append((obs.segment, her, her.motion("weapon")))
            if obs.me.actions:
                return None
            return declare("wait") if obs.me.armed else declare("arm")

    fight = duel(Look(), Keeper())
    fight.run()
    seen = [(segment, her.actions, motion) for segment, her, motion in kept]
    assert seen[0][1] == () and seen[0][2] is None  # before anyone declared
    arming = next(actions for _, actions, motion in seen if motion is not None)
    assert [a.motion for a in arming] == ["weapon"] and arming[0].kind is None
    assert all(not her.fresh for _, her, _ in kept)


def test_a_fighter_s_view_of_each_other_is_one_per_phase_however_found() -> None:
    """The first other view built (a duel's only one) and the later ones are each built
    once in a phase: others, other(), foes() and nearest() give the same objects."""
    found: list[Any] = []

    class Look:
        name = "look"

        def decide(self, obs: Any) -> Any:
            if not found:
                me = obs.me
                near = me.nearest()
                assert obs.other(near.id) is near
                others = obs.others
                assert len(others) == 2 and all(obs.other(o.id) is o for o in others)
                assert me.foes() == tuple(o for o in others if o.side != me.side)
                assert all(any(f is o for o in others) for f in me.foes())
                assert any(o is near for o in others)
                found.append(others)
            return None if obs.me.actions else declare("wait")

    fight = build_fight(
        {
            "robert": ("blue", "robert", Look()),
            "margaret": ("red", "margaret", Keeper()),
            "ally": ("blue", "robert", Keeper()),
        },
        dice=[],
        ruleset=RinKaNou(start_roll=False),
        max_segments=3,
    )
    fight.run()
    assert found


def test_nearest_at_is_where_the_nearest_stands_without_its_view() -> None:
    """nearest_at() gives nearest()'s id and position without building its view (an
    attacker in reach builds none), keeps what it answered in its phase, and fails
    loudly after the phase when it was not read in it."""
    kept: list[Any] = []

    class Look:
        name = "look"

        def decide(self, obs: Any) -> Any:
            me = obs.me
            kept.append((me, me.nearest_at()))
            if obs.segment == 0:
                near = me.nearest()
                assert me.nearest_at() == (near.id, near.position) == ("margaret", (1.5, 0.0))
            return None if me.actions else declare("wait")

    fight = duel(Look(), Keeper())
    fight.run()
    me, at = kept[1]
    assert at == ("margaret", (1.5, 0.0))
    fight.state.move("margaret", (3.0, 0.0))
    fight.state.version += 1
    assert me.nearest_at() == at  # what it answered in its phase
    with pytest.raises(StaleObservation):
        me.nearest()  # its view was not built in the phase
    later = fight.ruleset.observe(fight.state, "robert", 12, False)
    fight.state.version += 1
    with pytest.raises(StaleObservation):
        later.me.nearest_at()


def test_an_attacker_strikes_and_walks_by_id_without_a_view() -> None:
    """The aggressive policy reads where its nearest opponent stands (nearest_at()): in
    reach, it arms and strikes without the opponent's view; out of reach, it walks
    toward it by its id, without its view either."""
    from segsim.rules.rinkanou.policies import Aggressive

    fight = duel(Aggressive(), Keeper())
    state = fight.state
    state.combatants["robert"].status.armed = True
    with _views_spied() as built:
        strike = Aggressive().decide(fight.ruleset.observe(state, "robert", 0, True))
        assert isinstance(strike, Declaration) and strike.kind == "strike"
        assert (strike.target, built) == ("margaret", [])
        state.move("margaret", (5.0, 0.0))
        state.version += 1
        walk = Aggressive().decide(fight.ruleset.observe(state, "robert", 0, True))
        assert isinstance(walk, Declaration) and walk.kind == "move"
        assert (walk.params["toward"], built) == ("margaret", [])


def test_a_duel_s_threat_is_its_one_opponent_when_in_its_reach() -> None:
    """threats() of a fighter with one opponent in view: that opponent's view when it
    is within its reach (the one nearest() gives, built once), else none, and nearest()
    still finds it."""
    fight = duel(Keeper(), Keeper())
    state, rules = fight.state, fight.ruleset
    me = rules.observe(state, "robert", 0, True).me
    threats = me.threats()
    assert len(threats) == 1 and threats[0].id == "margaret" and me.nearest() is threats[0]
    state.move("margaret", (5.0, 0.0))
    state.version += 1
    far = rules.observe(state, "robert", 0, True).me
    assert far.threats() == ()
    near = far.nearest()
    assert near is not None and near.position == (5.0, 0.0)
    assert far.nearest_at() == ("margaret", (5.0, 0.0))


def test_a_view_s_seldom_filled_caches_are_its_own() -> None:
    """foes(), nearest_foe() and the views of the others after the first are kept on
    the view that found them (class-wide defaults until then): a later view finds its
    own, and an opponent's shield is read from its sheet, after the phase too."""
    fight = build_fight(
        {
            "robert": ("blue", "robert", Keeper()),
            "margaret": ("red", "margaret", Keeper()),
            "ally": ("blue", "robert", Keeper()),
        },
        dice=[],
        ruleset=RinKaNou(start_roll=False),
        max_segments=3,
    )
    state, rules = fight.state, fight.ruleset
    first = rules.observe(state, "robert", 0, True)
    foes, others = first.me.foes(), first.others
    assert first.me.nearest_foe() == "margaret" and [o.id for o in foes] == ["margaret"]
    assert len(others) == 2 and all(first.other(o.id) is o for o in others)
    her = first.other("margaret")
    shield = state.combatants["margaret"].sheet.shield is not None
    assert her.as_dict()["has_shield"] is shield
    state.version += 1
    later = rules.observe(state, "robert", 1, True)
    assert later.me.foes() is not foes and later.me.foes()[0] is not foes[0]
    assert all(later.other(o.id) is not o for o in others)
    assert first.me.foes() is foes and first.me.nearest_foe() == "margaret"
    assert her.has_shield is shield


def test_what_a_fight_does_not_change_is_asked_when_read_after_the_phase_too() -> None:
    """A fighter's id, an opponent's side and reach (not copied when a view is made: the
    built-in policies seldom read them) are those of the fight, in ``as_dict`` and read
    after the phase (no StaleObservation)."""
    fight = duel(Keeper(), Keeper())
    state, rules = fight.state, fight.ruleset
    obs = rules.observe(state, "robert", 0, True)
    me, her = obs.me, obs.other("margaret")
    margaret = state.combatants["margaret"]
    assert me.as_dict()["id"] == "robert" and her.as_dict()["side"] == "red"
    assert her.as_dict()["reach"] == rules.reach(margaret.sheet)
    state.version += 1
    assert not obs.fresh
    assert (me.id, her.side, her.reach) == ("robert", "red", rules.reach(margaret.sheet))


def test_a_seen_action_is_built_by_the_slot_init_as_attrs_would() -> None:
    """SeenAction (one per action seen) gets the cheaper slot-storing ``__init__``: the
    same frozen value as attrs' own builds, defaults included."""
    import attrs

    from segsim.rules.rinkanou.views import SeenAction

    assert "__wrapped__" in vars(SeenAction.__init__)
    for args in ((3, 4, "weapon"), (3, 4, "weapon", "strike", "robert", 9)):
        reference = object.__new__(SeenAction)
        SeenAction.__init__.__wrapped__(reference, *args)
        assert SeenAction(*args) == reference
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        SeenAction(3, 4, "weapon").kind = "strike"  # type: ignore[misc]


def test_a_rinkanou_observation_is_made_as_its_classes_would_make_it() -> None:
    """RinKaNou.observe makes the fighter's view and its observation, and the view the
    others' views, without calling their classes: every slot holds what SelfView's,
    ViewObservation's and OtherView's __init__ would put there, with or without a
    missile in flight."""
    from segsim.observation import ViewObservation
    from segsim.rules.rinkanou.views import OtherView, SelfView

    fight = duel(Keeper(), Keeper())
    fight.run()
    rules, state = fight.ruleset, fight.state
    for autonomous in (False, True):
        if autonomous:
            state.autonomous[999] = state.combatants["margaret"].recent[-1]
        for cid, must in (("robert", True), ("margaret", False)):
            obs = rules.observe(state, cid, state.segment, must)
            me = SelfView(state, state.segment, rules, state.combatants[cid])
            made = ViewObservation(state.segment, cid, must, me, state)
            assert type(obs) is ViewObservation and type(obs.me) is SelfView
            assert slots_of(obs.me) == slots_of(me) and vars(obs.me) == vars(me) == {}
            assert {k: v for k, v in slots_of(obs).items() if k != "me"} == {
                k: v for k, v in slots_of(made).items() if k != "me"
            }
            # So is the view of another fighter (SelfView._view).
            other = "margaret" if cid == "robert" else "robert"
            view = obs.me._view(state.combatants[other])
            built = OtherView(
                state, state.segment, state.combatants[other], me._c.status.revealed, rules
            )
            assert type(view) is OtherView and slots_of(view) == slots_of(built)
            assert vars(view) == vars(built) == {}
