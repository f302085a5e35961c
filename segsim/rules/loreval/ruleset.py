"""The Loreval ruleset (text 003): initiative points spent on action categories,
declarations in ascending order and resolution in descending order, attention
criteria, on rounds of 60 segments.

How a round maps onto segments: see :mod:`segsim.rules.loreval.rounds`. The rules
declare a ``turn`` action for each step of a round (a declaration, a resolution, a
changed action) and an ``await`` until the round's end for everyone else; the engine
calls the fighter of the next step through :meth:`Loreval.due` as soon as a step ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from segsim.actions import (
    EMPTY,
    Action,
    ActionSpec,
    Declaration,
    DeclarationLike,
    declaration_problem,
)
from segsim.dice import Dice
from segsim.errors import IllegalDeclaration
from segsim.events import Event
from segsim.input import Node
from segsim.native import mypyc_attr
from segsim.observation import ViewObservation
from segsim.policy import Observation
from segsim.rules import BaseRuleset, given_content, is_distance, unknown_params
from segsim.rules.loreval import steps
from segsim.rules.loreval.attention import RULE_ATTENTION, Attention, perception_modifier
from segsim.rules.loreval.categories import adjusted_category
from segsim.rules.loreval.content import (
    TEXT,
    Content,
    Sheet,
    default_content,
    read_sheet,
    sheet_data,
)
from segsim.rules.loreval.declare import (
    CHECKERS,
    KIND_PARAMS,
    RULE_INITIATIVE,
    Context,
    check_category,
)
from segsim.rules.loreval.events import (
    DetectionRolled,
    Invisible,
    PerceptionLost,
    SetUp,
    SitsOut,
    SurpriseAvoided,
    Surprised,
)
from segsim.rules.loreval.rounds import (
    ACT_CHANNEL,
    AWAIT,
    CHANGE,
    DECLARE,
    END,
    HEROIC,
    LOCK,
    RESOLVE,
    ROUND_SEGMENTS,
    TURN,
    TURN_CHANNEL,
    current_round,
    next_step,
    rank_key,
    resolve_order,
    steps_left,
    turn_in_progress,
    voided_on,
)
from segsim.rules.loreval.settle import (
    AIMS,
    Aims,
    Settlement,
    initiative_roll,
    initiative_rolls,
    round_started,
)
from segsim.rules.loreval.status import Status
from segsim.rules.loreval.steps import tracker
from segsim.rules.loreval.views import SelfView
from segsim.state import Combatant, FightState

RULE_ROUND = f"{TEXT}, Déroulement d'un round de combat"
RULE_SURPRISE = f"{TEXT}, Déroulement d'un round de surprise"
RULE_BLOCK = f"{TEXT}, Bloquer une attaque"
SURPRISES = ("ambush", "careless", "allies")
"""What surprises a fighter (``setup.surprised_by``): opponents whose aim is to surprise,
opponents who took no precautions, or its own allies (Loreval, "Déroulement d'un round
de surprise")."""
NEVER_SURPRISED = {"allies": 1, "careless": 2}
"""Environment from which a fighter is never surprised by each of them."""
DROP = "drop"
_STEPS = {
    step: Declaration(TURN, params={"step": step})
    for step in (DECLARE, HEROIC, RESOLVE, CHANGE, LOCK, END)
}
_AWAIT = Declaration(AWAIT)
"""The rules' own declarations, made once (a declaration never changes): the engine
checks their shape once."""
_DECIDING = frozenset((DECLARE, CHANGE, HEROIC))
"""The steps at which a fighter may declare (the built-in policies decide only then)."""

# An await made without calling its class (forced_all), where its __new__ is object's
# (the pure build; the compiled build's class has a __new__ of its own, which calls
# __init__: there the class is called).
_new_action = Action.__new__
_PLAIN_ACTION = _new_action is object.__new__


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@mypyc_attr(allow_interpreted_subclasses=True)
class Loreval(BaseRuleset):
    """Loreval (text 003), a D&D 3 adaptation: initiative points, attention, categories.

    Options: ``round_segments`` (60: a round of 6 s), ``resolve_segments`` (the longest
    step of a resolution, 6), ``heroism_saves`` (a fighter with heroism points spends one
    to cancel the blow that would take it out, true), ``detection_difficulty`` (the
    detection roll of a fighter with 2 in Environment against a surprise, 15),
    ``awareness`` (metres: a fighter sees only the fighters within it, and the nearest
    opponent beyond it when none is within it; None, the default: everyone, as at a
    table; for battles, see docs/rules/loreval.md).
    """

    name: ClassVar[str] = "loreval"
    title: ClassVar[str] = (
        "Loreval: initiative points, attention criteria, action categories (text 003)"
    )

    def __init__(
        self,
        *,
        # The options come from a scenario's data and are checked below, so that a
        # wrong one is named: typed Any, not as the int, bool, float they must be,
        # which a compiled build would check first, unnamed.
        round_segments: Any = ROUND_SEGMENTS,
        resolve_segments: Any = 6,
        heroism_saves: Any = True,
        detection_difficulty: Any = 15,
        awareness: Any = None,
        content: Content | None = None,
    ) -> None:
        _check(
            _is_int(round_segments) and 10 <= round_segments <= 6000,
            f"round_segments must be an integer from 10 to 6000, not {round_segments!r}",
        )
        _check(
            _is_int(resolve_segments) and 1 <= resolve_segments <= round_segments,
            f"resolve_segments must be an integer from 1 to round_segments, not "
            f"{resolve_segments!r}",
        )
        _check(
            isinstance(heroism_saves, bool),
            f"heroism_saves must be true or false, not {heroism_saves!r}",
        )
        _check(
            _is_int(detection_difficulty),
            f"detection_difficulty must be an integer, not {detection_difficulty!r}",
        )
        _check(
            awareness is None or is_distance(awareness),
            f"awareness is a distance in metres, not {awareness!r}",
        )
        self.awareness: float | None = None if awareness is None else float(awareness)
        self.content = given_content(content, Content, default_content)
        self._steps: tuple[object, tuple[int, int, int], tuple[Combatant, str] | None] = (
            None,
            (0, 0, 0),
            None,
        )
        self._ranks: tuple[object, int, int, dict[str, int], list[Combatant]] = (
            None,
            0,
            0,
            {},
            [],
        )
        self._now: tuple[object, int, int, bool, tuple[Combatant, str] | None] = _NO_ANSWER
        self.round_segments: int = round_segments
        self.tick = round_segments
        self.resolve_segments: int = resolve_segments
        self.heroism_saves: bool = heroism_saves
        self.detection_difficulty: int = detection_difficulty
        self.options: Mapping[str, Any] = {
            "round_segments": round_segments,
            "resolve_segments": resolve_segments,
            "heroism_saves": heroism_saves,
            "detection_difficulty": detection_difficulty,
        }
        if awareness is not None:
            self.options = {**self.options, "awareness": self.awareness}

    # ------------------------------------------------------------ sheets

    def load_sheet(self, node: Node) -> Sheet:
        return read_sheet(node, self.content)

    def sheet_data(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_data(sheet)

    def new_status(self, sheet: Sheet) -> Status:
        return Status.of(sheet)

    def load_setup(self, node: Node) -> dict[str, Any]:
        """The game master's calls for one fighter at the start (``[combatant.setup]``):
        ``surprised`` (and ``surprised_by``: ``ambush``, the default, ``careless`` or
        ``allies``), ``attention`` (its criteria before the first declaration),
        ``hidden``, ``invisible``, ``weapon_ready``, ``senses_lost``,
        ``perception_malus`` (points of perception lost), ``slowed``, ``hasted``."""
        setup: dict[str, Any] = {}
        for key in ("surprised", "hidden", "invisible", "weapon_ready", "slowed", "hasted"):
            if node.has(key):
                setup[key] = node.value(key, bool)
        if node.has("surprised_by"):
            if not setup.get("surprised"):
                raise node.error("surprised_by", "says what surprises a fighter: set surprised")
            setup["surprised_by"] = node.value("surprised_by", str, choices=SURPRISES)
        if node.has("senses_lost"):
            setup["senses_lost"] = node.value("senses_lost", int, min=0, max=5)
        if node.has("perception_malus"):
            setup["perception_malus"] = node.value("perception_malus", int, min=0, max=40)
        if node.has("attention"):
            att = node.table("attention")
            setup["attention"] = {
                k: att.value(k, int, 0, min=0, max=20) for k in ("environment", "security", "focus")
            }
            att.finish()
        node.finish()
        return setup

    # ------------------------------------------------------------ start of the fight

    def _setup(self, state: FightState, c: Combatant, dice: Dice, t: int) -> list[Event]:
        setup = c.setup
        if not setup:  # nothing called: no event, and no attention put to check
            return []
        sheet: Sheet = c.sheet
        raw = setup.get("attention", {})
        attention = Attention(**raw) if raw else Attention()
        lost = int(setup.get("perception_malus", 0))
        points = max(1, sheet.attention_points - lost // 4)
        if attention.total > points:
            raise IllegalDeclaration(
                f"{c.id} starts with {attention.total} attention points put, it has {points}",
                rule=RULE_ATTENTION,
            )
        events: list[Event] = []
        if lost:
            events.append(PerceptionLost(t, c.id, lost, points))
        hidden = bool(setup.get("hidden", False))
        ready = bool(setup.get("weapon_ready", True))
        senses = int(setup.get("senses_lost", 0))
        slowed = bool(setup.get("slowed", False))
        hasted = bool(setup.get("hasted", False))
        if raw or hidden or not ready or senses or slowed or hasted:
            events.append(
                SetUp(t, c.id, attention.as_dict(), hidden, ready, senses, slowed, hasted)
            )
        if setup.get("invisible"):
            events.append(Invisible(t, c.id))
        return events

    def begin(self, state: FightState, dice: Dice) -> list[Event]:
        events: list[Event] = []
        points: dict[str, int] = {}
        grace: dict[str, str] = {}
        fighters = state.against(None)
        plain = True  # nobody set up: no surprise, every fighter rolls its initiative
        for c in fighters:
            if c.setup:  # (nothing called: no event, no call)
                plain = False
                events += self._setup(state, c, dice, 0)
        if plain:  # the same rolls in the same order, one call of the dice for them all
            initiative_rolls(dice, fighters, 0, events, points)
        for c in fighters if not plain else ():
            if c.setup.get("surprised") and not self._escapes(c, dice, events):
                events.append(Surprised(0, c.id))
                points[c.id] = 0
                grace[c.id] = "surprise"
                continue
            event, points[c.id] = initiative_roll(dice, c, 0)
            events.append(event)
        started = round_started(state, dice, 1, 0, points, grace)
        events.append(started)
        kept = tracker(state)
        if kept is not None:
            state.extra[AIMS] = Aims(0, True)  # what is declared at whom (settle.Aims)
            kept.everyone = True  # the round starts: everyone's status changes
            kept.began(started)  # (its order: the tracker's, without a sort)
            kept.changing(state, len(events))
        else:
            self._applying(state, len(events))
        return events

    def _escapes(self, c: Combatant, dice: Dice, events: list[Event]) -> bool:
        """Whether a fighter the game master calls surprised escapes it by its
        Environment (Loreval, "Déroulement d'un round de surprise"): with 1 it is never
        surprised by its allies, with 2 never by opponents who took no precautions;
        against an ambush, 2 gives it a detection roll."""
        raw = c.setup.get("attention", {})
        environment = int(raw.get("environment", 0)) - int(c.setup.get("senses_lost", 0))
        by = str(c.setup.get("surprised_by", "ambush"))
        if by in NEVER_SURPRISED:
            if environment < NEVER_SURPRISED[by]:
                return False
            events.append(SurpriseAvoided(0, c.id, by, environment))
            return True
        return self._detects(c, environment, dice, events)

    def _detects(self, c: Combatant, environment: int, dice: Dice, events: list[Event]) -> bool:
        """With 2 in Environment a fighter always gets a detection roll against an
        ambush (Loreval, "Déroulement d'un round de surprise")."""
        if environment < 2:
            return False
        sheet: Sheet = c.sheet
        roll = dice.roll(20, "detection", c.id)
        lost = int(c.setup.get("perception_malus", 0))
        total = roll + sheet.skill("perception") - lost + perception_modifier(environment)
        success = total >= self.detection_difficulty
        events.append(DetectionRolled(0, c.id, roll, total, self.detection_difficulty, success))
        return success

    def enter(self, state: FightState, cid: str, dice: Dice, segment: int) -> list[Event]:
        """A reinforcement rolls initiative and sits out the round it arrives in."""
        c = state.combatants[cid]
        events = self._setup(state, c, dice, segment)
        event, _ = initiative_roll(dice, c, segment)
        events.append(event)
        rnd, _ = current_round(state, segment, self.round_segments)
        events.append(SitsOut(segment, cid, rnd, "joined"))
        kept = tracker(state)
        if kept is not None:
            kept.touch(state, events)
            if AIMS not in state.extra:  # kept whole from the next round on
                state.extra[AIMS] = Aims(rnd, False)
        else:
            self._applying(state, len(events))
        return events

    # ------------------------------------------------------------ steps

    def forced(self, state: FightState, cid: str, segment: int) -> list[Declaration]:
        """The fighter's step when it comes, otherwise an ``await`` until the round ends."""
        waiting = False
        for a in state.combatants[cid].actions:  # one pass: a step in progress, a wait
            kind = a.kind
            if kind == TURN:
                return []
            if kind == AWAIT:
                waiting = True
        now = self._now  # _busy_step()'s answer kept for this state, without its call
        if (
            now[0] is state
            and now[1] == state.version - state.next_action_id
            and now[2] == segment
            and not steps.CHECK
        ):
            busy, step = now[3], now[4]
        else:
            busy, step = self._busy_step(state, segment)
        if not busy and step is not None and step[0].id == cid:
            return [_STEPS[step[1]]]
        return [] if waiting else [_AWAIT]

    def forced_all(
        self, state: FightState, members: Sequence[Combatant], segment: int
    ) -> list[ActionSpec | Sequence[Declaration]] | None:
        """:meth:`forced` of each of ``members`` in turn, each await it imposes planned
        as :meth:`plan` plans it (the engine's ``_force_many``: a phase with many
        fighters called, a battle's round start, where a thousand are made to wait),
        in one call rather than two a fighter. What the step due answers (the
        declaration of its step, planned by the engine at its fighter's turn) holds for
        everyone: the awaits started before it change neither the answer kept for the
        state (:meth:`_busy_step`) nor the round, and once that step has begun, a
        fighter that :meth:`forced` would have found not due finds a step in progress,
        which imposes the same await. None (asked one at a time) while the steps check
        themselves (``steps.CHECK``)."""
        if steps.CHECK:
            return None
        if not _AWAIT.checked:  # its shape checked once, as the engine checks it
            declaration_problem(_AWAIT)
            if not _AWAIT.checked:
                return None
        busy, step = self._busy_step(state, segment)
        due = None if busy or step is None else step[0].id
        # plan()'s await, its duration worked out once for all
        _, start = current_round(state, segment, self.round_segments)
        end = start + self.round_segments
        duration = end - segment if end > segment else None
        answers: list[ActionSpec | Sequence[Declaration]] = []
        for c in members:
            waiting = False
            for a in c.actions:  # one pass: a step in progress, a wait (as forced())
                kind = a.kind
                if kind == TURN:
                    answers.append(())
                    break
                if kind == AWAIT:
                    waiting = True
            else:
                if c.id == due:
                    assert step is not None
                    answers.append((_STEPS[step[1]],))
                elif waiting:
                    answers.append(())
                elif _PLAIN_ACTION:
                    # plan(state, c.id, _AWAIT, segment, ()), forced, without its calls,
                    # and the Action below without its class's call (a call of a Python
                    # class costs about as much again as its __init__'s stores): every
                    # field stored as Action.__init__ stores it.
                    wait = _new_action(Action)
                    wait.kind = AWAIT
                    wait.duration = duration
                    wait.channel = TURN_CHANNEL
                    wait.target = None
                    wait.rolled = False
                    wait.difficulty = 0
                    wait.continuous = wait.public = wait.forced = wait.visible = True
                    wait.params = EMPTY
                    wait.id = wait.start = wait.t = 0
                    wait.actor = ""
                    wait.cancelled = False
                    wait.declaration = _AWAIT
                    wait.memo = None
                    answers.append(wait)
                else:
                    # plan(state, c.id, _AWAIT, segment, ()), forced, without its calls
                    # (positional: no dictionary of keywords made for the call)
                    answers.append(
                        Action(
                            AWAIT,
                            duration,
                            TURN_CHANNEL,
                            None,
                            False,
                            0,
                            True,
                            True,
                            True,
                            True,
                            EMPTY,
                            0,
                            "",
                            0,
                            False,
                            _AWAIT,
                        )
                    )
        return answers

    def decides_nothing(self, state: FightState, c: Combatant, segment: int) -> bool:
        """Whether this phase is not one of the fighter's declaring steps (declare,
        change, heroic), as :meth:`observe` finds it: a built-in policy decides only at
        those and answers nothing at any other, and says so to the engine through this
        (``policies.Aggressive.unconcerned``), which then neither observes nor asks it
        (most of the fighters called: those waiting for the round's steps, a thousand
        at a battle's round start)."""
        for a in c.actions:  # the step's marker, as observe() finds it
            if a.kind == TURN and a.start == segment:
                return a.params.get("step") not in _DECIDING
        return True

    def due(self, state: FightState, time: int) -> Sequence[str]:
        busy, step = self._busy_step(state, time)
        return () if busy or step is None else (step[0].id,)

    def _busy_step(
        self, state: FightState, segment: int
    ) -> tuple[bool, tuple[Combatant, str] | None]:
        """Whether a step is in progress and, when none is, the next step
        (worked out below). The engine asks ``due`` at a boundary, then ``forced`` for each
        fighter called and ``plan`` for the step it forced, most often with nothing
        changed in between: the answer holds in a segment while the state's version
        moves only with the actions started (each moves it and the next action's id
        alike; a step that begins is told to the rules, :meth:`started`, which forgets
        the answer): an action ended, an event of the rules or a die rolled moves the
        version alone. (A battle's round start applies a thousand forced waits one
        fighter at a time and asks again for each.)"""
        now = self._now
        if now[0] is state and now[1] == state.version - state.next_action_id and now[2] == segment:
            if steps.CHECK:
                assert now[3] == turn_in_progress(state)
                assert now[3] or now[4] == self._next(state, segment)
            return now[3], now[4]
        # Whether a step is in progress: the step begun last, if it is not over. A step
        # begins only when none is in progress (forced(), _plan_turn()), so the last one
        # begun is the only one that can be (its fighter's actions hold it while it
        # lasts), whatever the fight's size.
        last: Action | None = state.extra.get(TURNS)
        busy = False
        if last is not None:
            actor = state.combatants[last.actor]
            if actor.in_fight:
                for a in actor.actions:
                    if a is last:
                        busy = True
                        break
        if steps.CHECK:
            assert busy == turn_in_progress(state)
        if busy:
            step = None
        else:
            # The next step of the round in progress; past the round's length with
            # nothing left, the step that ends it (a round stretched by its steps). Worked
            # out once per state of the fight (the engine asks from due, then forced, then
            # plan with nothing changed in between); in a large fight, once per change of
            # what sets it (the rules' events, who is in the fight): the engine's own
            # records of the many waits begun at a round's start change nothing of it.
            kept = state.extra.get(steps.KEY)
            if kept is not None:
                key = (
                    (kept.generation, state.roster, segment)
                    if state.version >= kept.settled_at  # kept.settled(state), without its call
                    else (state.version, -1, segment)
                )
            else:  # a small fight: the same, by the rules' events counted here (_applying)
                marks: tuple[int, int] | None = state.extra.get(MARKS)
                key = (
                    (marks[0], state.roster, segment)
                    if marks is not None and state.version >= marks[1]
                    else (state.version, -1, segment)
                )
            if self._steps[0] is state and self._steps[1] == key:
                step = self._steps[2]
                if steps.CHECK:
                    assert step == self._next(state, segment)
            else:
                # self._next(state, segment), without its call (once a step boundary)
                for o in state.combatants.values():  # current_round(), without its call
                    if o.in_fight:
                        found: Status = o.status
                        if found.round:
                            rnd, start = found.round, found.round_start
                            break
                else:
                    rnd, start = current_round(state, segment, self.round_segments)
                step = next_step(state, rnd) if kept is None else kept.next_step(state, rnd)
                if step is None and segment >= start + self.round_segments:
                    fighters = state.against(None)
                    if fighters:
                        step = min(fighters, key=rank_key), END
                if steps.CHECK:
                    assert step == self._next(state, segment)
                self._steps = (state, key, step)
        self._now = (state, state.version - state.next_action_id, segment, busy, step)
        return busy, step

    def _applying(self, state: FightState, events: int) -> None:
        """``events`` of the rules' events are about to be applied to a small fight's
        state (each adds one to its version): who is due next, worked out from the
        fighters' statuses, holds from then on until the rules' next events or until
        someone comes or goes, whatever the engine's own records (a large fight's
        tracker counts them itself)."""
        marks: tuple[int, int] | None = state.extra.get(MARKS)
        state.extra[MARKS] = (0 if marks is None else marks[0] + 1, state.version + events)

    started_kinds: ClassVar[frozenset[str]] = frozenset({TURN})

    def started(self, state: FightState, action: Action) -> None:
        """A step has begun: kept, so that whether a step is in progress is asked of it
        rather than of every fighter (:meth:`_busy_step`)."""
        state.extra[TURNS] = action
        self._now = _NO_ANSWER  # a step in progress now: _busy_step()'s answer is out of date

    def _next(self, state: FightState, segment: int) -> tuple[Combatant, str] | None:
        for o in state.combatants.values():  # current_round(), without its call
            if o.in_fight:
                found: Status = o.status
                if found.round:
                    rnd, start = found.round, found.round_start
                    break
        else:
            rnd, start = current_round(state, segment, self.round_segments)
        kept = state.extra.get(steps.KEY)
        if kept is None:
            step = next_step(state, rnd)
        else:
            step = kept.next_step(state, rnd)
            if steps.CHECK:
                assert step == next_step(state, rnd), (segment, step, next_step(state, rnd))
        if step is None and segment >= start + self.round_segments:
            fighters = state.against(None)
            if fighters:
                return min(fighters, key=rank_key), END
        return step

    def plan(
        self,
        state: FightState,
        cid: str,
        declaration: Declaration,
        segment: int,
        planned: Sequence[ActionSpec],
    ) -> ActionSpec:
        kind = declaration.kind
        # current_round(), without its call (once a plan): the first status in the
        # fight that holds a round
        for o in state.combatants.values():
            if o.in_fight:
                found: Status = o.status
                if found.round:
                    rnd, start = found.round, found.round_start
                    break
        else:
            rnd, start = current_round(state, segment, self.round_segments)
        if kind == AWAIT:  # (the rules' own, at each fighter's every step and round)
            end = start + self.round_segments
            if end <= segment:  # a stretched round: wait until the rules call
                return Action(AWAIT, None, TURN_CHANNEL, None, False, 0, True)
            # (positional: no dictionary of keywords made for the call)
            return Action(AWAIT, end - segment, TURN_CHANNEL, None, False, 0, True)
        c = state.combatants[cid]  # (not read for an await)
        if kind == TURN:
            return self._plan_turn(state, c, declaration, segment, rnd, start)
        if kind == "wait":
            return _plan_wait(declaration, segment)
        if kind == DROP:
            return _plan_drop(c, declaration, segment)
        checker = CHECKERS.get(kind)
        if checker is None:
            known = ", ".join(sorted(CHECKERS))
            raise IllegalDeclaration(f"unknown action {kind!r} (known: {known})", rule=RULE_ROUND)
        notes = declaration.notes
        if notes is None or notes[0] is not KIND_PARAMS:
            unknown_params(kind, declaration.params, KIND_PARAMS[kind])
            if declaration.checked:  # it never changes: its parameters are checked once
                object.__setattr__(declaration, "notes", (KIND_PARAMS,))  # frozen: one write
        marker = None
        mine = False  # an action of the round begun in this segment already
        for a in c.actions:  # one pass: the step's marker, the round's action
            if a.start == segment:
                if a.kind == TURN:
                    if marker is None:
                        marker = a
                elif a.channel == ACT_CHANNEL:
                    mine = True
        step = None if marker is None else marker.params.get("step")
        if marker is None or step not in (DECLARE, CHANGE, HEROIC):
            raise IllegalDeclaration(
                f"it is not {cid}'s declaration step: fighters declare one at a time, in "
                "ascending order of initiative",
                rule=RULE_INITIATIVE,
            )
        if mine or (planned and any(p.channel == ACT_CHANNEL for p in planned)):
            raise IllegalDeclaration("one action per round", rule=RULE_INITIATIVE)
        status: Status = c.status
        changed = status.plan if step == CHANGE else None
        if changed is not None and changed.kind == "counter" and kind != "counter":
            if not _voided(state, c, rnd):
                raise IllegalDeclaration(
                    "a counter can only be changed into another counter",
                    rule=f"{TEXT}, Actions de contre",
                )
            changed = attrs.evolve(changed, category=changed.category + 1)
        ctx = Context(state, c, rnd, changed, heroic=step == HEROIC)
        target, params = checker(ctx, declaration)
        if (status.slowed or status.hasted) and params["category"] > 0:
            params["category"] = _speed_effect(ctx, int(params["category"]))
        assert marker.end is not None
        # (positional: no dictionary of keywords made for the call)
        return Action(
            kind,
            marker.end - segment,
            ACT_CHANNEL,
            target,
            kind == "attack",
            0,
            False,
            False,
            False,
            True,
            params,
        )

    def _plan_turn(
        self, state: FightState, c: Combatant, d: Declaration, segment: int, rnd: int, start: int
    ) -> ActionSpec:
        now = self._now  # _busy_step()'s answer kept for this state, without its call
        if (
            now[0] is state
            and now[1] == state.version - state.next_action_id
            and now[2] == segment
            and not steps.CHECK
        ):
            busy, found = now[3], now[4]
        else:
            busy, found = self._busy_step(state, segment)
        if busy:
            raise IllegalDeclaration("a step is already in progress", rule=RULE_ROUND)
        step = d.params.get("step")
        if found is None or found[0] is not c or found[1] != step:
            raise IllegalDeclaration(
                f"it is not {c.id}'s step: the rules call each fighter in turn", rule=RULE_ROUND
            )
        length = 1
        params: dict[str, Any] = {"step": step, "round": rnd}
        if step == RESOLVE:
            left = start + self.round_segments - segment
            kept = state.extra.get(steps.KEY)
            waiting = steps_left(state, rnd) if kept is None else kept.steps_left(state, rnd)
            if steps.CHECK and kept is not None:
                assert waiting == steps_left(state, rnd)
            length = max(1, min(self.resolve_segments, left // max(1, waiting)))
            if waiting > left > 0:
                # more resolutions than segments left: they share steps (RULE_ROUND)
                share = -(-waiting // left)
                group = resolve_order(state, rnd)[:share]
                if len(group) > 1:
                    params["group"] = [g.id for g in group]
        kept = state.extra.get(steps.KEY)
        if kept is None:
            ranks = self._ranks  # self._rank(state, c, rnd), without its call when kept
            if ranks[0] is state and ranks[1] == state.roster and ranks[2] == rnd:
                rank = ranks[3][c.id]
            else:
                rank = self._rank(state, c, rnd)
        else:
            rank = kept.rank(state, c, rnd)
        params["rank"] = rank
        if steps.CHECK:
            mine = rank_key(c)
            assert rank == sum(1 for o in state.against(None) if rank_key(o) < mine)
        # (positional: no dictionary of keywords made for the call)
        return Action(TURN, length, TURN_CHANNEL, None, False, 0, False, True, False, True, params)

    def _rank(self, state: FightState, c: Combatant, rnd: int) -> int:
        """How many fighters in the fight come before ``c`` in the round's order: the
        order sorted once per round and who is in the fight (the points and tie-break
        dice that set it change only when a round starts)."""
        ranks = self._ranks
        if ranks[0] is not state or ranks[1] != state.roster or ranks[2] != rnd:
            ranks = self._order_of(state, rnd)
        return ranks[3][c.id]

    def round_order(self, state: FightState, rnd: int) -> list[Combatant]:
        """The fighters in the fight in the order of round ``rnd`` (highest initiative
        first): sorted once per round and who is in the fight, as :meth:`_rank`'s (only
        a new round's start sets the points and tie-break dice that order them). Shared:
        do not modify the list."""
        ranks = self._ranks
        if ranks[0] is not state or ranks[1] != state.roster or ranks[2] != rnd:
            ranks = self._order_of(state, rnd)
        if steps.CHECK:
            assert ranks[4] == sorted(state.against(None), key=rank_key)
        return ranks[4]

    def _order_of(
        self, state: FightState, rnd: int
    ) -> tuple[object, int, int, dict[str, int], list[Combatant]]:
        order = sorted(state.against(None), key=rank_key)
        ranks = self._ranks = (
            state,
            state.roster,
            rnd,
            {o.id: i for i, o in enumerate(order)},
            order,
        )
        return ranks

    def check_cancel(self, state: FightState, action: Action, segment: int) -> None:
        raise IllegalDeclaration(
            f"{action.kind} #{action.id} cannot be cancelled: a declared action is due",
            rule=f"{TEXT}, Modifier son action",
        )

    # ------------------------------------------------------------ resolution

    def order_key(self, action: Action) -> tuple[Any, ...]:
        """Steps in the order of the round (descending initiative), each after the
        actions it carries."""
        params = action.params
        if not params:  # (most of a battle's: its waits, a thousand at a round's end)
            return _UNRANKED if action.kind != TURN else _UNRANKED_STEP
        return (int(params.get("rank", 0)), int(action.kind == TURN))

    def resolve(
        self, state: FightState, segment: int, batch: Sequence[Action], dice: Dice
    ) -> list[Event]:
        for o in state.combatants.values():  # current_round(), without its call
            if o.in_fight:
                found: Status = o.status
                if found.round:
                    rnd, start = found.round, found.round_start
                    break
        else:
            rnd, start = current_round(state, segment, self.round_segments)
        settlement = Settlement(self, state, segment, rnd, dice)
        ended = False
        combatants = state.combatants
        for marker in batch:
            if marker.kind != TURN or marker.cancelled:
                continue
            cid = marker.actor
            # settlement.standing(cid), without its call (once a step)
            actor = combatants.get(cid)
            if actor is None or not actor.in_fight or cid in settlement.out:
                continue
            step = marker.params.get("step")
            if step == RESOLVE:
                group = marker.params.get("group") or [cid]
                for gid in group:
                    if gid != cid and (gid in settlement.resolved or not settlement.standing(gid)):
                        continue
                    settlement.resolve(gid, settlement.plans[gid])
                    if settlement.change_pending():
                        break  # the change step comes next; the rest wait for their steps
                continue
            if step == END:
                ended = True
                continue
            acts: list[Action] = []  # the fighter's actions of the round (no listcomp frame)
            for a in batch:
                if a.actor == cid and a.channel == ACT_CHANNEL:
                    acts.append(a)
            if step == DECLARE:
                settlement.declare(marker, acts, None)
            elif step == HEROIC:
                settlement.declare(marker, acts, None, heroic=True)
            elif step == CHANGE:
                status: Status = state.combatants[cid].status
                assert status.plan is not None
                plan = settlement.declare(marker, acts, status.plan)
                # a counterer whose counter this change voided declares next and, unless
                # it counters again, acts first: this action then waits for its own step
                if plan is not None and not voided_on(state, cid, rnd):
                    settlement.carry_out(cid, plan)
            elif step == LOCK:
                settlement.lock_choice(cid, any(a.kind == DROP for a in acts))
        if ended or (segment + 1 >= start + self.round_segments and settlement.round_over()):
            settlement.end_round()
        kept = state.extra.get(steps.KEY)
        if kept is not None:
            kept.touch(state, settlement.events)
        else:  # self._applying(state, len(settlement.events)), without its call
            marks: tuple[int, int] | None = state.extra.get(MARKS)
            state.extra[MARKS] = (
                0 if marks is None else marks[0] + 1,
                state.version + len(settlement.events),
            )
        return settlement.events

    # ------------------------------------------------------------ observation

    def observe(self, state: FightState, cid: str, segment: int, must_act: bool) -> Observation:
        """The fighter's own view finds the others and the legal declarations when asked
        (a :class:`ViewObservation`: no function made for each observation)."""
        c = state.combatants[cid]
        # current_round(), without its call (once an observation)
        for o in state.combatants.values():
            if o.in_fight:
                found: Status = o.status
                if found.round:
                    rnd = found.round
                    break
        else:
            rnd, _ = current_round(state, segment, self.round_segments)
        marker = None
        for a in c.actions:
            if a.kind == TURN and a.start == segment:
                marker = a
                break
        me = SelfView(state, segment, c, rnd, marker, self)
        step = None if marker is None else marker.params.get("step")
        return ViewObservation(segment, cid, step in (DECLARE, CHANGE), me, state)

    def _legal(self, state: FightState, cid: str, segment: int) -> tuple[DeclarationLike, ...]:
        from segsim.rules.loreval.legal import candidates

        out: list[DeclarationLike] = []
        for d in candidates(state, cid):
            try:
                self.plan(state, cid, d, segment, [])
            except IllegalDeclaration:
                continue
            out.append(d)
        return tuple(out)


def _plan_wait(d: Declaration, segment: int) -> ActionSpec:
    """``wait``: being called at a segment (scripts use it); it changes nothing."""
    until = d.params.get("until")
    if set(d.params) - {"until"} or d.target is not None:
        raise IllegalDeclaration("wait takes only until")
    if until is None:
        return Action("wait", None, "wait", continuous=True)
    if not _is_int(until) or until <= segment:
        raise IllegalDeclaration(
            f"wait until must be a later segment than {segment}, not {until!r}"
        )
    return Action("wait", until - segment, "wait", continuous=True, params={"until": until})


def _plan_drop(c: Combatant, d: Declaration, segment: int) -> ActionSpec:
    """``drop``: the assailant locked by a block drops its weapon to get free at once,
    at the step given to it right after the lock (Loreval, "Bloquer une attaque")."""
    if d.params or d.target is not None:
        raise IllegalDeclaration("drop takes no target and no parameter")
    marker = next((a for a in c.actions if a.kind == TURN and a.start == segment), None)
    if marker is None or marker.params.get("step") != LOCK:
        raise IllegalDeclaration(
            f"{c.id} may drop its weapon to get free only right after a block locks it",
            rule=RULE_BLOCK,
        )
    assert marker.end is not None
    return Action(DROP, marker.end - segment, ACT_CHANNEL)


TURNS = "loreval.turns"
_UNRANKED = (0, 0)  # Loreval.order_key() of an action without a rank, and of such a step
_UNRANKED_STEP = (0, 1)
_NO_ANSWER: tuple[object, int, int, bool, tuple[Combatant, str] | None] = (None, 0, -1, False, None)
"""What :meth:`Loreval._busy_step` keeps before its first answer (no state's)."""
"""Where the step begun last in a fight is kept (``state.extra``)."""
MARKS = "loreval.marks"
"""How many times the rules' events were applied to a small fight, and from which
version of its state the last ones are (``state.extra``; see ``Loreval._applying``)."""


def _voided(state: FightState, c: Combatant, rnd: int) -> bool:
    """Whether the fighter's counter was voided because its target changed its action
    (the counterer may then change to any action of the counter's category or lower)."""
    status: Status = c.status
    return status.counter_round == rnd and status.change_round == rnd


def _speed_effect(ctx: Context, category: int) -> int:
    """Slow: the action counts as the next category, so no category 5; haste: as the
    category below, never under 1 (Loreval, "Effet de lenteur", "Effet de
    rapidité")."""
    status: Status = ctx.status
    new = adjusted_category(category, slow=status.slowed, haste=status.hasted)
    if status.slowed and new > ctx.sheet.max_category:
        raise IllegalDeclaration(
            f"slowed, a category {category} action counts as {new}: beyond "
            f"{ctx.sheet.max_category}",
            rule=f"{TEXT}, Effet de lenteur",
        )
    check_category(ctx, new, hasted=False)
    return new
