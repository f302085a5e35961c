"""The jump (Loreval, "La compétence Saut et le talent course").

A jump in a fight is the use of a skill: a category 5 action, a roll (one cannot "take
10" in a fight). A result of 10 (die + jump skill + Focus's modifier + the armour's
malus on the Body skills) clears half the fighter's movement speed (VD) standing, 0.75
VD with a run-up; each point above or below adds or takes VD/20 (0.75 VD/20 with a
run-up); a jump never exceeds VD standing, 1.5 VD with a run-up. A high jump takes
1/3 of those distances; a jump both long and high 1/2 in length and 1/4 in height. A
jump in a straight line does not suffer the malus of extra moves; a fighter with the
talent Course who could use its free move (its jump comes with moves or a run-up)
jumps at +4.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.events import Moved
from segsim.rules.loreval.attention import focus_modifier, focus_needed
from segsim.rules.loreval.categories import adjusted_category
from segsim.rules.loreval.combat import attention_scores, distance
from segsim.rules.loreval.content import TEXT, Sheet
from segsim.rules.loreval.events import CheckRolled
from segsim.rules.loreval.status import Plan, Status

if TYPE_CHECKING:
    from segsim.rules.loreval.declare import Checked, Context
    from segsim.rules.loreval.settle import Settlement
    from segsim.state import Combatant

RULE_JUMP = f"{TEXT}, La compétence Saut et le talent course"
JUMP_CATEGORY = 5
RUN_BONUS = 4
_EPS = 1e-9


def jump_reach(speed: float, total: int, run_up: bool) -> float:
    """The length a jump roll of ``total`` clears (before the height ratios)."""
    base = speed * (0.75 if run_up else 0.5)
    reach = base + (total - 10) * base / 10
    return max(0.0, min(reach, speed * (1.5 if run_up else 1.0)))


def cleared(
    speed: float, total: int, run_up: bool, height: float, length: float
) -> tuple[float, float]:
    """The length and the height cleared: all in length, 1/3 in height alone (a jump
    straight up, ``length`` 0), 1/2 and 1/4 for a jump both long and high."""
    reach = jump_reach(speed, total, run_up)
    if height <= 0:
        return reach, 0.0
    if length <= _EPS:
        return 0.0, reach / 3
    return reach / 2, reach / 4


def running_start(c: Combatant, rnd: int) -> bool:
    """A run-up: the fighter ended the last round running."""
    status: Status = c.status
    return rnd > 1 and status.momentum_round == rnd - 1


def check_jump(ctx: Context, d: Declaration) -> Checked:
    from segsim.rules.loreval.declare import (
        _bool,
        _finish,
        attention_of,
        cannot_move,
        check_category,
        check_focus,
        extra_moves,
    )

    if d.target is not None:
        raise IllegalDeclaration("a jump goes to a point (to = [x, y]), not at a fighter")
    to = d.params.get("to")
    if not (
        isinstance(to, list | tuple)
        and len(to) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in to)
    ):
        raise IllegalDeclaration(f"a jump lands at a point [x, y] in metres, not {to!r}")
    height = d.params.get("height", 0)
    if not isinstance(height, int | float) or isinstance(height, bool) or height < 0:
        raise IllegalDeclaration(f"height must be a number of metres >= 0, not {height!r}")
    cannot_move(ctx)
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    category = adjusted_category(JUMP_CATEGORY, extra_moves=moves)
    check_category(ctx, category)
    check_focus(ctx, attention, focus_needed(category), "a jump (category 5)")
    run_up = _bool(d.params, "run_up")
    if run_up and not (running_start(ctx.c, ctx.rnd) or ctx.sheet.has("run")):
        raise IllegalDeclaration(
            "a jump with a run-up needs the last round ended running (or the talent Course)",
            rule=RULE_JUMP,
        )
    params: dict[str, Any] = {"to": [round(float(to[0]), 2), round(float(to[1]), 2)]}
    if height:
        params["height"] = float(height)
    if run_up:
        params["run_up"] = True
    return None, _finish(params, category, attention, moves, malus)


def resolve_jump(s: Settlement, c: Combatant, plan: Plan) -> str | None:
    """The jump roll; the fighter lands at the point if it clears the distance (and the
    height), else short of it on the line."""
    sheet: Sheet = c.sheet
    run_up = bool(plan.params.get("run_up"))
    mods = {
        "jump": sheet.skill("jump"),
        "armour": sheet.body_malus,
        "focus": focus_modifier(attention_scores(c, s.rnd).focus),
        "changed action": -2 if plan.changed else 0,
        "run": RUN_BONUS if sheet.has("run") and (plan.params.get("moves") or run_up) else 0,
    }
    here = s.positions[c.id]
    to = plan.params["to"]
    there = (float(to[0]), float(to[1]))
    length = distance(here, there)
    height = float(plan.params.get("height", 0.0))
    roll, die, _ = s.action_die(c, plan, "jump")  # heroic: the best result, no die
    total = die + sum(mods.values())
    reach, rise = cleared(sheet.speed, total, run_up, height, length)
    success = reach + _EPS >= length and rise + _EPS >= height
    shown = {k: v for k, v in mods.items() if v}
    label = f"jump ({length:.2f} m" + (f", {height:.2f} m high)" if height else ")")
    # the difficulty shown is the result needed: each point is 1/20 of the base
    s.emit(
        CheckRolled(
            s.segment,
            c.id,
            label,
            roll,
            total,
            needed(sheet.speed, length, height, run_up),
            success,
            shown,
        )
    )
    if c.id in s.no_move or c.id in s.locked:
        return None
    if not success and length > 0:
        part = min(1.0, reach / length)
        there = (here[0] + (there[0] - here[0]) * part, here[1] + (there[1] - here[1]) * part)
    dest = (round(there[0], 2), round(there[1], 2))
    if dest != here:
        s.positions[c.id] = dest
        s.emit(Moved(s.segment, c.id, dest[0], dest[1]))
    return None


def needed(speed: float, length: float, height: float, run_up: bool) -> int:
    """The lowest result that clears the jump (what the check is against)."""
    for total in range(-20, 61):
        reach, rise = cleared(speed, total, run_up, height, length)
        if reach + _EPS >= length and rise + _EPS >= height:
            return total
    return 61
