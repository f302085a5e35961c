"""Candidate declarations of a step, for ``observation.legal()`` and the built-in
policies: a small, useful set (each is then checked by the ruleset).

Attention is spread in a few typical ways for each action: the Focus its category needs,
the rest in Security, or one point in Environment and the rest in Security.
"""

from __future__ import annotations

from collections.abc import Iterator

from segsim.actions import Declaration
from segsim.rules.loreval.attention import Attention, focus_needed
from segsim.rules.loreval.categories import adjusted_category, attack_category, mode_of
from segsim.rules.loreval.combat import CONTACT, distance, within
from segsim.rules.loreval.content import Sheet
from segsim.rules.loreval.jump import JUMP_CATEGORY
from segsim.rules.loreval.rounds import TURN, status_of
from segsim.state import Combatant, FightState


def spreads(points: int, focus: int) -> list[Attention]:
    """Typical attention spreads with at least ``focus`` in Focus."""
    if focus > points:
        return []
    rest = points - focus
    out = [Attention(0, rest, focus)]
    if rest >= 1:
        out.append(Attention(1, rest - 1, focus))
    return out


def attention_params(sheet: Sheet, category: int, ranged: bool = False) -> list[dict[str, int]]:
    need = max(focus_needed(category), 1 if ranged else 0)
    return [a.as_dict() for a in spreads(sheet.attention_points, need)]


def candidates(state: FightState, cid: str) -> Iterator[Declaration]:
    c = state.combatants[cid]
    marker = next((a for a in c.actions if a.kind == TURN), None)
    if marker is not None and marker.params.get("step") == "lock":
        yield Declaration("drop")  # or nothing: stay locked
        return
    if marker is None or marker.params.get("step") not in ("declare", "change", "heroic"):
        return
    sheet: Sheet = c.sheet
    status = status_of(c)
    changing = marker.params.get("step") == "change"
    if changing:
        for d in _round_actions(state, c, sheet, None):
            yield Declaration(
                d.kind, d.target, {k: v for k, v in d.params.items() if k != "attention"}
            )
        yield Declaration("grace")
        return
    if marker.params.get("step") == "declare":
        for spread in attention_params(sheet, 1):
            yield Declaration("inaction", params={"attention": spread})
            if 1 <= status.start_points <= 5:
                yield Declaration("grace", params={"attention": spread})
    declaring = marker.params.get("step") == "declare"
    yield from _round_actions(state, c, sheet, status.start_points if declaring else None)
    yield from _hypothetical_counters(sheet)
    yield from _jumps(state, c, sheet)


def _round_actions(
    state: FightState, c: Combatant, sheet: Sheet, budget: int | None
) -> Iterator[Declaration]:
    """Round actions on each other fighter. Attacks the ruleset would refuse anyway are
    left out before it is asked (``budget``: the points an ordinary declaration may
    spend): beyond the moves' reach of a contact weapon, or above the points."""
    status = status_of(c)
    weapon = status.weapon
    here = c.position
    for o in state.in_fight():
        if o.id == c.id:
            continue
        for moves in (0, 1, 2):
            reach = weapon.ranged or within(here, o.position, CONTACT + moves * sheet.speed)
            if o.side != c.side and reach:
                for attacks in range(1, 6):
                    mode = mode_of(weapon, status.off_hand, attacks)
                    base = attack_category(mode, attacks)
                    if base is None:
                        continue
                    category = adjusted_category(
                        base, extra_moves=moves, ready=int(not status.weapon_ready)
                    )
                    if budget is not None and category > budget:
                        continue
                    for spread in attention_params(sheet, category, weapon.ranged):
                        params: dict[str, object] = {"attacks": attacks, "attention": spread}
                        if moves:
                            params["moves"] = moves
                        yield Declaration("attack", o.id, params)
            for spread in attention_params(sheet, 1 + moves):
                params = {"attention": spread}
                if moves:
                    params["moves"] = moves
                yield Declaration("move", o.id, params)
            if o.side != c.side:
                yield from _charges(o, sheet, moves)
                if moves == 0:
                    yield from _counters(o, sheet)


def _charges(o: Combatant, sheet: Sheet, moves: int) -> Iterator[Declaration]:
    for spread in spreads(sheet.attention_points, 2):
        yield Declaration("charge", o.id, {"moves": moves + 2, "attention": spread.as_dict()})


def counter_spreads(sheet: Sheet) -> list[dict[str, int]]:
    """The spread of a counter: 1 in Environment (a counter needs it), the rest in
    Security."""
    spread = [a.as_dict() for a in spreads(sheet.attention_points, 0) if a.environment >= 1]
    if not spread:
        spread = [a.as_dict() for a in spreads(sheet.attention_points, 0)]
        spread = [{**a, "environment": 1, "security": a["security"] - 1} for a in spread]
        spread = [a for a in spread if a["security"] >= 0]
    return spread[:1]


def _hypothetical_counters(sheet: Sheet) -> Iterator[Declaration]:
    """Defensive counters against the first attack on the fighter, whoever makes it (a
    hypothetical counter, at -2; Loreval, "Déclaration d'un contre")."""
    for att in counter_spreads(sheet):
        for how in ("parry", "dodge"):
            yield Declaration(
                "counter",
                None,
                {"against": "defensive", "how": how, "hypothetical": True, "attention": att},
            )


def _jumps(state: FightState, c: Combatant, sheet: Sheet) -> Iterator[Declaration]:
    """Standing jumps of half the fighter's speed (what a result of 10 clears; Loreval,
    "La compétence Saut"): back from the nearest opponent, and toward it when it is out
    of contact (no farther than contact)."""
    here = c.position
    foes = [o for o in state.in_fight() if o.side != c.side]
    if not foes:
        return
    near = min(foes, key=lambda o: (distance(here, o.position), o.order))
    gap = distance(here, near.position)
    reach = sheet.speed / 2
    ux, uy = (1.0, 0.0)
    if gap > 0:
        ux, uy = (near.position[0] - here[0]) / gap, (near.position[1] - here[1]) / gap
    points = [(here[0] - ux * reach, here[1] - uy * reach)]
    if gap > CONTACT:
        step = min(reach, gap - CONTACT)
        points.append((here[0] + ux * step, here[1] + uy * step))
    for x, y in points:
        for spread in attention_params(sheet, JUMP_CATEGORY):
            yield Declaration(
                "jump", params={"to": [round(x, 2), round(y, 2)], "attention": spread}
            )


def _counters(o: Combatant, sheet: Sheet) -> Iterator[Declaration]:
    for att in counter_spreads(sheet):
        yield Declaration(
            "counter", o.id, {"against": "defensive", "how": "parry", "attention": att}
        )
        yield Declaration(
            "counter", o.id, {"against": "defensive", "how": "dodge", "attention": att}
        )
        yield Declaration(
            "counter", o.id, {"against": "offensive", "how": "strike", "attention": att}
        )
