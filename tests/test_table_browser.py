"""Table mode end to end, in a real browser: a game master and two players, each in a
browser context of their own, play fights to the end through the pages (clicking and
typing), with ``segsim table`` served by its own process.

Each player plays by a fixed rule (strike or attack whenever the page offers it, arm when
bound to act and unarmed, else declare nothing new), so two sessions played the same way
make the same fight: which is how resume and undo are checked against a fight played
straight through.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_helpers import ROOT, Seat, browser, table_server

from segsim import load_scenario
from segsim.replay import replay
from segsim.table.session import TableSession, TableSetup

DUEL = ROOT / "tests/data/table/short_duel.toml"  # nine phases to click through
LOSS = ROOT / "tests/data/table/short_loss.toml"  # a fight script's set-up: seven phases
ATTACKS = ("strike", "attack")


@pytest.fixture(scope="module")
def chrome() -> Any:
    with browser() as b:
        yield b


FORMS = """() => [...document.querySelectorAll('.form')]
  .filter((f) => !f.querySelector('.declared'))
  .map((f) => ({
    cid: f.dataset.cid,
    must: f.querySelector('h4').textContent.includes('must act'),
    options: [...f.querySelectorAll('select.kind option')].map((o) => o.value),
  }))"""


def declare_by_rule(seat: Seat, typed: dict[str, str] | None = None) -> None:
    """Declare for every fighter the page asks for: an attack on the first target offered,
    else arm when bound to act, else nothing new. ``typed``: parameters to type in the
    next attack's form (then forgotten)."""
    for form in seat.page.evaluate(FORMS):
        cid, options = form["cid"], form["options"]
        attack = next((o[3:] for o in options if o[3:] in ATTACKS), None)
        phase = seat.phase
        if attack:
            seat.choose(cid, attack)
            for key, text in (typed or {}).items():
                seat.page.fill(f".form[data-cid='{cid}'] input[data-typed='{key}']", text)
            if typed:
                typed.clear()
            seat.click(cid, "declare")
        elif form["must"] and "do:arm" in options:
            seat.choose(cid, "arm")
            seat.click(cid, "declare")
        else:
            seat.click(cid, "nothing")
        seat.page.wait_for_function(
            "([cid, p]) => Number(document.body.dataset.phase) > p"
            " || document.body.dataset.ended === '1'"
            " || !!document.querySelector(`.form[data-cid='${cid}'] .declared`)"
            " || document.getElementById('error').textContent !== ''",
            arg=[cid, phase],
            polling=20,
        )
        assert seat.error() == ""


def play(
    gm: Seat,
    players: list[Seat],
    phases: int | None = None,
    typed: dict[int, dict[str, str]] | None = None,
) -> int:
    """Play phases through the players' pages until the end (or ``phases`` of them);
    ``typed``: parameters a player (by index) types in their next attack."""
    played = 0
    while not gm.ended and (phases is None or played < phases):
        phase = gm.phase
        for i, seat in enumerate(players):
            seat.wait_phase(phase)
            if seat.phase == phase:
                declare_by_rule(seat, (typed or {}).get(i))
        gm.wait_phase(phase + 1)
        played += 1
    return played


def seats(chrome: Any, server: Any) -> tuple[Seat, list[Seat]]:
    """The game master's page, and each player's from the links it lists."""
    gm = Seat(chrome, server.gm)
    links = gm.page.eval_on_selector_all(
        "a.player-link", "as => as.map(a => [a.dataset.player, a.href])"
    )
    assert [name for name, _ in links] == ["alice", "bob"]
    return gm, [Seat(chrome, url) for _, url in links]


def duel_server(tmp_path: Path, record: str, *extra: str) -> Any:
    return table_server(
        *(extra or (str(DUEL),)),
        "--player",
        "alice=robert",
        "--player",
        "bob=margaret",
        "--record",
        record,
        cwd=tmp_path,
    )


def test_a_rinkanou_duel_is_played_at_the_table_and_replays(chrome: Any, tmp_path: Path) -> None:
    with duel_server(tmp_path, "duel.jsonl") as server:
        gm, (alice, bob) = seats(chrome, server)
        assert alice.forms() == ["robert"] and bob.forms() == ["margaret"]
        # Robert is unarmed: a strike is refused with the rule's own words, and nothing
        # moves on (the phase, and who is still to declare).
        form = ".form[data-cid='robert']"
        alice.page.fill(f"{form} input.other-kind", "strike")
        alice.page.click(f"{form} button.declare")
        alice.page.wait_for_function("document.getElementById('error').textContent !== ''")
        assert "robert" in alice.error() and "[" in alice.error()
        assert alice.phase == 0 and gm.phase == 0
        assert alice.forms() == ["robert"]
        alice.page.fill(f"{form} input.other-kind", "")
        # Bob declares: the game master sees that he has, not what.
        declare_by_rule(bob)
        gm.page.wait_for_selector("#called li.declared[data-cid='margaret']")
        assert "arm" not in gm.page.inner_text("#called")
        assert alice.page.query_selector(".form[data-cid='margaret']") is None
        # Bob spends a situation point on Margaret's first strike, typed in its form.
        play(gm, [alice, bob], typed={1: {"ps": '{"bonus": 1}'}})
        assert "The fight is over: victory" in gm.page.inner_text("#outcome")
        assert "The fight is over" in bob.page.inner_text("#outcome")
        assert bob.page.inner_text("#account").strip()
    assert replay(tmp_path / "duel.jsonl").identical
    strikes = [
        json.loads(x)
        for x in (tmp_path / "duel.jsonl").read_text().splitlines()
        if '"kind":"strike"' in x and '"actor":"margaret"' in x and "action.declared" in x
    ]
    assert strikes[0]["declared"]["params"]["ps"] == {"bonus": 1}
    assert all("ps" not in s["declared"]["params"] for s in strikes[1:])
    # Tokens are printed once, in the links, and never logged.
    assert server.tokens and not any(token in server.logs for token in server.tokens)


def by_rule(view: dict[str, Any]) -> list[dict[str, Any]]:
    """What :func:`declare_by_rule` sends, worked out from a fighter's view: the first
    attack the rules list, on its first target with the first value of each parameter
    (what the page's selects show first), else arm when bound to act, else nothing."""
    kinds = list(dict.fromkeys(d["kind"] for d in view["legal"]))
    attack = next((k for k in kinds if k in ATTACKS), None)
    if attack is not None:
        entries = [d for d in view["legal"] if d["kind"] == attack]
        target = entries[0]["target"]
        params: dict[str, Any] = {}
        for d in entries:
            if d["target"] == target:
                for key, value in d["params"].items():
                    params.setdefault(key, value)
        return [{"kind": attack, "target": target, "params": params}]
    if view["must_act"] and "arm" in kinds:
        return [{"kind": "arm", "target": None, "params": {}}]
    return []


def straight_through(record: Path) -> bytes:
    """The duel as the players' rule plays it without a break (no browser needed)."""
    setup = TableSetup.from_scenario(load_scenario(DUEL))
    players = {"alice": ["robert"], "bob": ["margaret"]}
    session = TableSession(setup, record, players=players)
    while not session.ended:
        phase = session.phase
        for cid, view in list(session.views.items()):
            if session.phase == phase and cid not in session.declared:
                session.declare(session.holder[cid], cid, phase, by_rule(view))
    return record.read_bytes()


def test_undo_and_a_restart_with_resume_give_the_fight_played_straight_through(
    chrome: Any, tmp_path: Path
) -> None:
    straight = straight_through(tmp_path / "straight.jsonl")
    with duel_server(tmp_path, "resumed.jsonl") as server:
        gm, players = seats(chrome, server)
        play(gm, players, phases=4)
        lines = (tmp_path / "resumed.jsonl").read_text().count("\n")
        phase = gm.phase
        gm.page.click("#undo")
        gm.page.wait_for_function("(p) => Number(document.body.dataset.phase) < p", arg=phase)
        for seat in players:  # each player's page too, before anyone plays on (a page
            # still showing the later phase would be taken as not called in it)
            seat.page.wait_for_function("(p) => Number(document.body.dataset.phase) < p", arg=phase)
        assert (tmp_path / "resumed.jsonl").read_text().count("\n") < lines
        assert "undone" in gm.page.inner_text("#notice")
        play(gm, players, phases=2)
        server.kill()  # the laptop crashes mid-fight: the record holds every closed phase
    assert (tmp_path / "resumed.jsonl").read_bytes() != straight
    with duel_server(tmp_path, "resumed.jsonl", "--resume", "resumed.jsonl") as server:
        gm, players = seats(chrome, server)
        assert gm.phase > 0
        play(gm, players)
    assert (tmp_path / "resumed.jsonl").read_bytes() == straight
    assert replay(tmp_path / "resumed.jsonl").identical


def test_a_loss_fight_from_a_script_is_played_at_the_table(chrome: Any, tmp_path: Path) -> None:
    with table_server(
        "--script",
        str(LOSS),
        "--player",
        "alice=diego",
        "--player",
        "bob=cutthroat",
        "--record",
        "alley.jsonl",
        cwd=tmp_path,
    ) as server:
        gm, players = seats(chrome, server)
        play(gm, players)
        assert "The fight is over: victory" in gm.page.inner_text("#outcome")
    assert replay(tmp_path / "alley.jsonl").identical


def test_the_game_master_types_in_the_dice_the_table_rolls(chrome: Any, tmp_path: Path) -> None:
    with duel_server(tmp_path, "dice.jsonl", str(DUEL), "--table-dice") as server:
        gm = Seat(chrome, server.gm)
        wanted = gm.page.wait_for_selector("#die .wanted")
        assert wanted is not None and wanted.inner_text().startswith("Roll a d100 for robert: ")
        gm.page.fill("#die-value", "0")
        gm.page.click("#die-enter")
        gm.page.wait_for_function("document.getElementById('error').textContent !== ''")
        assert "0 is not a face of a d100" in gm.error()
        faces = []
        while gm.page.query_selector("#die .wanted"):
            version = gm.attr("version")
            face = 40 + len(faces)
            gm.page.fill("#die-value", str(face))
            gm.page.click("#die-enter")
            gm.page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)
            faces.append(face)
        assert len(faces) >= 2 and gm.error() == ""
        assert "dice: typed in" in gm.page.inner_text("#control")
        alice = Seat(chrome, server.players["alice"])
        assert alice.forms() == ["robert"]
    lines = [json.loads(x) for x in (tmp_path / "dice.jsonl").read_text().splitlines()]
    assert lines[0]["dice"] == "entered"
    assert [e["value"] for e in lines[1:] if e["type"] == "die.rolled"] == faces
