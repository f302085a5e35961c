"""The stores that make a RinKaNou fighter's observation and its views of others: the
fields of :class:`~segsim.rules.rinkanou.views.SelfView`,
:class:`~segsim.observation.ViewObservation` and
:class:`~segsim.rules.rinkanou.views.OtherView`, each made without a call of its class.

This module stays interpreted in the compiled build (``hatch_build.py`` leaves it out of
its modules on purpose; ``segsim/native.py``): the views and the observation are Python
classes, and compiled code stores into a Python object's field through the generic
attribute lookup, where the interpreter specialises each store to the field's slot. So
the compiled ruleset and views hand these functions the new objects and what to store
in them, read from the fight's state, the fighters and the ruleset (native classes in
the compiled build, which compiled code reads directly and interpreted code through the
generic lookup), and the functions store it. The pure build calls them the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from segsim.actions import Action
    from segsim.observation import ViewObservation
    from segsim.rules.rinkanou.ruleset import RinKaNou
    from segsim.rules.rinkanou.views import OtherView, SelfView
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


def other_view(
    view: OtherView, me: SelfView, o: Combatant, oid: str, position: Any, status: Any, sheet: Any
) -> OtherView:
    """``view``, a new object of its class, made the view the fighter of ``me`` has of
    ``o``: the stores of ``OtherView(me._state, me._segment, o, me._c.status.revealed,
    me._rules)`` (which tests/test_observation.py checks they match), given ``o``'s id,
    position, status and sheet."""
    view._state = state = me._state
    view._version = state.version
    view._segment = me._segment
    view.id = oid
    view.position = position
    view.armed = status.armed
    view.weapon = sheet.weapon
    view._o = o
    view._rules = me._rules
    view._revealed = me._c.status.revealed
    view._actions = None
    return view
