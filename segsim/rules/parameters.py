"""What each parameter of a declaration means, per ruleset: its type and allowed values,
for ``segsim content RULESET`` and the docs. A test checks that every parameter an
action kind accepts (the rulesets' own tables) is described here, and nothing else.

Values that the rules list in code (difficulty names, paces, special effects...) are
read from there, so the description follows the rules.
"""

from __future__ import annotations

from collections.abc import Mapping

ID = "a combatant id"
POINT = "[x, y]: a point in metres"


def _one_of(values: object) -> str:
    return "one of " + ", ".join(str(v) for v in values)  # type: ignore[attr-defined]


def _rinkanou() -> dict[str, str]:
    from segsim.rules.rinkanou.roll import DIFFICULTY
    from segsim.rules.rinkanou.ruleset import PACES

    return {
        "until": "integer: the segment the wait lasts to",
        "clear": "number (metres): stop waiting when nobody is this close",
        "ps": "table: situation points spent, { bonus = N } on one's roll or { malus = N } "
        "on the opponent's",
        "engage": "list of ids: the opponents taken into account (default: those in reach)",
        "difficulty": f"a signed percentage or {_one_of(DIFFICULTY)}",
        "blow": "cut or thrust (default: the weapon's better blow)",
        "disarm": "weapon or shield: a disarming blow (-50 %) at that",
        "grab": "true or false: disarm with a free hand, then a strength duel",
        "with": "weapon or shield (default: weapon)",
        "pc": "integer: command points spent",
        "to": POINT,
        "toward": f"{ID}: move toward that fighter",
        "pace": _one_of(PACES),
        "segments": "integer: how many segments the move lasts",
        "stop_at": "number (metres): stop this far from the fighter moved toward",
        "action_id": "integer: the action to read (default: the target's latest)",
        "shot": "a flight of the ranged weapon (direct, or those its sheet lists)",
        "weapon": "melee or ranged: the weapon to draw",
        "item": "weapon or shield: what to take in hand again",
        "oppose_disengage": "true or false: oppose an opponent's disengage",
        "ps_bonus": "integer: situation points spent on each such opposition",
    }


def _chroniques() -> dict[str, str]:
    return {
        "hand": "main or off: the hand's weapon (default: main)",
        "free": "true or false: the free move or attack a capability grants",
        "partner": f"{ID}: the ally attacking together with this fighter",
        "to": POINT,
        "weapon": "a weapon id the fighter carries",
        "second_target": f"{ID}: the second weapon's target (default: the same)",
        "name": "a capability of the fighter's profile (its name)",
        "what": "text: what the free action is",
        "initiative": "integer: the lower initiative to act at",
        "until": "integer: the segment the wait lasts to",
    }


def _loss() -> dict[str, str]:
    from segsim.rules.loss.effects import EFFECTS

    return {
        "counter": "true or false: a counter-attack granted by a parry",
        "damage": "integer: extra damage dice asked for",
        "effects": f"list of special effects, each {_one_of(EFFECTS)}",
        "exploits": "integer 0 to 5: Exploits declared (difficulty +5 each)",
        "fursa": "integer: Fursa points spent",
        "inspiration": "integer: Inspiration points spent",
        "hand": "main or off (default: main)",
        "targets": "list of ids: the fighters a sweeping attack strikes",
        "to": POINT,
        "points": "integer: the aim points to build",
        "round": "true or false: aim for the whole round (every point left; +10 to the next shot)",
        "what": "text: the social action",
        "until": "integer: the segment to wait or prepare to",
        "direction": "closer or away",
        "against": 'integer: the id of the attack answered; in a fight script also { by = "ID", '
        'kind = "attack" } (default: the only attack pending)',
        "ally": f"{ID}: the ally defended",
        "with": "weapon or shield (default: the shield if any)",
        "action": "text: the action intended this round",
    }


def _loreval() -> dict[str, str]:
    from segsim.rules.loreval.content import MODES
    from segsim.rules.loreval.declare import COUNTER_HOW, COVER
    from segsim.rules.loreval.grapple import MOVES
    from segsim.rules.loreval.skills import USABLE

    hows = "; ".join(f"{k}: {', '.join(v)}" for k, v in COUNTER_HOW.items())
    return {
        "attention": "table: attention points { environment = N, security = N, focus = N }",
        "moves": "integer: extra moves taken this round",
        "attacks": "integer: how many attacks (up to the fighter's)",
        "concealment": "true or false: a sneak attack from hiding",
        "concert": f"{ID}: the ally acting in concert",
        "cover": f"integer, the target's cover (%): {_one_of(COVER)}",
        "juggle": "true or false: juggle two weapons",
        "pile": "true or false: pile onto a fighter already engaged",
        "power": "true or false: a power attack",
        "skill": f"strength or skilful for an attack; for a skill action {_one_of(USABLE)}",
        "weapon": f"a weapon id the fighter carries ({_one_of(MODES)} use)",
        "weave": "true or false: weave between opponents",
        "knee": "true or false: a knee strike while grappling",
        "move": f"the grapple move, {_one_of(MOVES)}",
        "charge": "true or false: overrun at a charge",
        "against": f"defensive or offensive; how: {hows}",
        "how": "how the counter answers (see against)",
        "hypothetical": "true or false: a counter against an action that may not come",
        "to": POINT,
        "mode": "walk or run (default: walk)",
        "aimed": "true or false: an aimed spell",
        "level": "integer: the spell's level",
        "material": "true or false: with its material components",
        "ritual": "true or false: cast as a ritual",
        "spell": "the spell's name",
        "irresistible": "true or false: a spell no one may resist",
        "resistance": "will, vigour or reflex: the roll that resists the spell",
        "height": "number (metres): the jump's height",
        "run_up": "true or false: a jump with a run-up",
        "difficulty": "integer: the skill test's difficulty",
        "until": "integer: the segment the wait lasts to",
    }


def _rupture() -> dict[str, str]:
    return {
        "weapon": "a weapon id the fighter carries (default: its first)",
        "skill": "the skill rolled (default: the action's own)",
        "with": "a weapon or shield id to defend with",
        "to": POINT,
        "what": "text: what the action is about",
        "difficulty": "integer: the test's difficulty",
        "until": "integer: the segment the wait lasts to",
    }


_BUILDERS = {
    "rinkanou": _rinkanou,
    "chroniques": _chroniques,
    "loss": _loss,
    "loreval": _loreval,
    "rupture": _rupture,
}


def parameters(ruleset: str) -> Mapping[str, str]:
    """Each parameter name of a ruleset's declarations and what it takes."""
    build = _BUILDERS.get(ruleset.lower())
    return build() if build is not None else {}


def kinds(ruleset: str) -> dict[str, tuple[str, ...]]:
    """The action kinds a fighter (or a fight script) may declare in a ruleset, each
    with the parameters it accepts (not the rules' own turns and waits)."""
    name = ruleset.lower()
    if name == "rinkanou":
        from segsim.rules.rinkanou import KINDS as R

        return {k: tuple(sorted(v.params)) for k, v in R.items() if k != "lock"}
    if name == "chroniques":
        from segsim.rules.chroniques import KINDS as C

        return {k: tuple(sorted(v.params)) for k, v in C.items() if k not in ("turn", "await")}
    if name == "rupture":
        from segsim.rules.rupture import KINDS as U

        return {k: tuple(sorted(v.params)) for k, v in U.items()}
    if name == "loss":
        from segsim.rules.loss.declare import PARAMS
        from segsim.rules.loss.ruleset import KINDS as L

        return {k: tuple(sorted(PARAMS.get(k, ()))) for k in L if k not in ("turn", "await")}
    if name == "loreval":
        from segsim.rules.loreval.declare import KIND_PARAMS

        out = {k: tuple(sorted(v)) for k, v in KIND_PARAMS.items()}
        out.setdefault("wait", ("until",))
        out.setdefault("drop", ())
        return out
    return {}


__all__ = ["kinds", "parameters"]
