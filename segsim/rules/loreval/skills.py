"""The use of a skill as a round's action (Loreval, "Catégorie des actions": "usage
d'une compétence" is a category 5 action).

``skill`` is the generic form for any skill with no rule of its own in the chapter: a
check of the named skill, d20 + the skill + the attention modifier that applies to it
(Environment's for perception, which is detection; Focus's for every other skill) + the
malus of the extra moves (on every skill) + the armour's malus for the Body skills and
concentration (Loreval, "Malus lié au port et à l'utilisation des protections"),
against the game master's ``difficulty``. What success brings is the game master's: the
check is recorded (``loreval.check``). The jump has its own form (``jump``), since the
text says what it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from segsim.actions import Declaration
from segsim.errors import IllegalDeclaration
from segsim.rules.loreval.attention import (
    focus_modifier,
    focus_needed,
    movement_modifier,
    perception_modifier,
)
from segsim.rules.loreval.categories import adjusted_category
from segsim.rules.loreval.combat import attention_scores
from segsim.rules.loreval.content import TEXT, Sheet
from segsim.rules.loreval.events import CheckRolled
from segsim.rules.loreval.status import Plan, Status

if TYPE_CHECKING:
    from segsim.rules.loreval.declare import Checked, Context
    from segsim.rules.loreval.settle import Settlement
    from segsim.state import Combatant

RULE_SKILL = f"{TEXT}, Catégorie des actions"
SKILL_CATEGORY = 5
"""The use of a skill is a category 5 action."""
SKILL_DIFFICULTY = 15
"""The difficulty when the declaration gives none (the DD of the text's easiest
acrobatics manoeuvre, and the ruleset's default detection difficulty)."""
USABLE = ("perception", "acrobatics", "evasion", "concentration")
"""Skills used through ``skill``: the combat skills act through attacks and counters,
initiative is rolled, the jump has its own action."""
PERCEPTION = ("perception",)
"""Skills of perception and detection: Environment's modifier, not Focus's."""
BODY = ("acrobatics", "evasion", "concentration")
"""Skills the armour's malus always weighs on (the Body group, and concentration)."""
CHANGED_MALUS = -2


def check_skill(ctx: Context, d: Declaration) -> Checked:
    from segsim.rules.loreval.declare import (
        _finish,
        _int,
        attention_of,
        check_category,
        check_focus,
        extra_moves,
    )

    if d.target is not None:
        raise IllegalDeclaration("a skill action names no target (the game master's effect)")
    name = d.params.get("skill")
    if name == "jump":
        raise IllegalDeclaration("a jump is declared as jump (to = [x, y])", rule=RULE_SKILL)
    if name not in USABLE:
        raise IllegalDeclaration(
            f"skill must be one of {', '.join(USABLE)}, not {name!r}", rule=RULE_SKILL
        )
    difficulty = _int(d.params, "difficulty", SKILL_DIFFICULTY, 0, 60)
    attention = attention_of(ctx, d.params)
    moves, malus = extra_moves(ctx, d.params, 0)
    category = adjusted_category(SKILL_CATEGORY, extra_moves=moves)
    check_category(ctx, category)
    check_focus(ctx, attention, focus_needed(category), "the use of a skill (category 5)")
    params: dict[str, Any] = {"skill": name, "difficulty": difficulty}
    return None, _finish(params, category, attention, moves, malus)


def skill_modifiers(c: Combatant, plan: Plan, rnd: int) -> dict[str, int]:
    sheet: Sheet = c.sheet
    status: Status = c.status
    name = str(plan.params["skill"])
    scores = attention_scores(c, rnd)
    mods = {name: sheet.skill(name)}
    if name in PERCEPTION:
        mods["perception lost"] = -status.perception_malus
        mods["environment"] = perception_modifier(scores.environment)
    else:
        mods["focus"] = focus_modifier(scores.focus)
    mods["extra moves"] = movement_modifier(plan.extra_moves)
    if name in BODY:
        mods["armour"] = sheet.body_malus
    if plan.changed:
        mods["changed action"] = CHANGED_MALUS
    return mods


def resolve_skill(s: Settlement, c: Combatant, plan: Plan) -> str | None:
    """The check; a heroic action gets the best result of the die (Loreval, "Points
    d'héroïsme")."""
    mods = skill_modifiers(c, plan, s.rnd)
    name = str(plan.params["skill"])
    # heroic: the best result of the die, so no die is drawn
    roll = 20 if plan.heroic else s.dice.roll(20, f"skill ({name})", c.id)
    total = roll + sum(mods.values())
    difficulty = int(plan.params.get("difficulty", SKILL_DIFFICULTY))
    success = plan.heroic or total >= difficulty
    shown = {k: v for k, v in mods.items() if v}
    s.emit(CheckRolled(s.segment, c.id, name, roll, total, difficulty, success, shown))
    return None
