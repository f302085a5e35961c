"""The stores that make a RinKaNou fighter's observation: the fields of its view of
itself (:class:`~segsim.rules.rinkanou.views.SelfView`) and of the
:class:`~segsim.observation.ViewObservation`, each made without a call of its class.

This module stays interpreted in the compiled build (``hatch_build.py`` leaves it out of
its modules on purpose; ``segsim/native.py``): the views and the observation are Python
classes, and compiled code stores into a Python object's field through the generic
attribute lookup, where the interpreter specialises each store to the field's slot. So
the compiled ruleset hands this function the new objects and what to store in them,
read from the fight's state, the fighter and the ruleset (native classes in the
compiled build, which compiled code reads directly and interpreted code through the
generic lookup), and the function stores it. The pure build calls it the same way, at
no cost to speak of; the views of other fighters (``SelfView._view``, a dozen fields)
are still made by the compiled views: there, the function's call cost the pure build
more (some 760 instructions per action of a duel) than it saved the compiled one (680).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from segsim.actions import Action
    from segsim.observation import ViewObservation
    from segsim.rules.rinkanou.ruleset import RinKaNou
    from segsim.rules.rinkanou.views import SelfView
    from segsim.state import Combatant, FightState


def observation(
    me: SelfView,
    obs: ViewObservation,
    rules: RinKaNou,
    state: FightState,
    version: int,
    segment: int,
    cid: str,
    must_act: bool,
    c: Combatant,
    side: str,
    position: tuple[float, float],
    actions: tuple[Action, ...],
    reach: float,
    opponents: list[Combatant] | None,
    incoming: tuple[()] | None,
) -> ViewObservation:
    """The observation ``obs`` of the fighter ``cid`` (``c``) and its view ``me``, both
    new objects of their classes: the stores of ``SelfView(state, segment, rules, c)``
    and ``ViewObservation(segment, cid, must_act, me, state)`` (which
    tests/test_observation.py checks they match), given the state's ``version``, the
    fighter's ``side``, ``position``, ``actions`` (a copy) and ``reach``, the
    ``opponents`` in view if known, and ``incoming`` (None while missiles are in
    flight, else no missile). The view finds, on first use, who else it sees."""
    me._state = state
    me._version = version
    me._segment = segment
    me.side = side
    me.position = position
    status = c.status
    me.armed = status.armed
    me.must_lock = status.must_lock
    me.weapon_pr = status.weapon_pr
    me.actions = actions
    me.sheet = sheet = c.sheet
    me.weapon = sheet.weapon
    me.reach = reach
    me._rules = rules
    me._c = c
    me._opponents = opponents
    me._threats = me._nearest_o = me._first = None
    me._incoming = incoming
    me._near = False
    obs.segment = segment
    obs.actor = cid
    obs.must_act = must_act
    obs.me = me
    obs._others = obs._by_id = obs._legal = None
    obs._state = state
    obs._version = version
    return obs
