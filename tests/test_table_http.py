"""Table mode over HTTP (Starlette's test client): every endpoint, every refusal of the
issue's "Security and bad input" (403 without the right token, malformed JSON, a huge
body, a closed phase, racing submissions: a 4xx with a message, never a 500, and the
fight unchanged), undo, branch, dice typed in, and every ruleset played to its end.
"""

from __future__ import annotations

import json
import weakref
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from segsim import load_scenario
from segsim.policy import make_policy
from segsim.replay import replay
from segsim.script import load_script
from segsim.table.app import MAX_BODY, build_app
from segsim.table.session import TableSession, TableSetup, declaration_data
from segsim.testing import snapshot

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "examples/scenarios/duel.toml"


def duel(tmp_path: Path, **kwargs: Any) -> tuple[TableSession, TestClient]:
    setup = TableSetup.from_scenario(load_scenario(DUEL))
    kwargs.setdefault("players", {"alice": ["robert"], "bob": ["margaret"]})
    session = TableSession(setup, tmp_path / "duel.jsonl", **kwargs)
    return session, TestClient(build_app(session), raise_server_exceptions=True)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def frozen(session: TableSession) -> Any:
    """What must not change when a request is refused."""
    return (
        snapshot(session.fight.state),
        len(session.fight.history),
        session.phase,
        dict(session.declared),
        session.record_path.read_bytes(),
    )


def arm(session: TableSession, client: TestClient, who: str, cid: str) -> Any:
    token = session.tokens[who] if who != "gm" else session.gm_token
    return client.post(
        "/api/declare",
        headers=auth(token),
        json={"fighter": cid, "phase": session.phase, "declarations": [{"kind": "arm"}]},
    )


def test_pages_and_assets_are_served_without_a_token(tmp_path: Path) -> None:
    _, client = duel(tmp_path)
    for path in ("/", "/gm", "/play"):
        page = client.get(path)
        assert page.status_code == 200 and "<" in page.text
    assert 'src="/static/table.js"' in client.get("/gm").text
    assert client.get("/static/table.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/table.css").status_code == 200
    assert client.get("/static/../session.py").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


@pytest.mark.parametrize(
    "path", ["/api/state", "/api/observation/robert", "/api/view", "/api/events"]
)
def test_reading_needs_a_valid_token(tmp_path: Path, path: str) -> None:
    session, client = duel(tmp_path)
    assert client.get(path).status_code == 403
    assert client.get(path, headers=auth("not-a-token")).status_code == 403
    assert client.get(path, headers={"Authorization": session.gm_token}).status_code == 403
    refused = client.get(path, headers=auth("x" + session.gm_token))
    assert refused.status_code == 403 and "token" in refused.json()["error"]


@pytest.mark.parametrize(
    "path", ["/api/declare", "/api/close", "/api/undo", "/api/branch", "/api/die"]
)
def test_acting_needs_a_valid_token(tmp_path: Path, path: str) -> None:
    session, client = duel(tmp_path)
    before = frozen(session)
    body = {"fighter": "robert", "phase": 0, "declarations": [{"kind": "arm"}]}
    assert client.post(path, json=body).status_code == 403
    assert client.post(path, json=body, headers=auth("nobody")).status_code == 403
    assert frozen(session) == before


@pytest.mark.parametrize(
    "path", ["/api/close", "/api/undo", "/api/branch", "/api/die", "/api/view"]
)
def test_the_game_masters_endpoints_refuse_a_players_token(tmp_path: Path, path: str) -> None:
    session, client = duel(tmp_path)
    before = frozen(session)
    headers = auth(session.tokens["alice"])
    got = client.get(path, headers=headers) if path == "/api/view" else None
    got = got or client.post(path, json={"phase": 0}, headers=headers)
    assert got.status_code == 403 and "game master" in got.json()["error"]
    assert frozen(session) == before


def test_a_player_sees_and_declares_for_their_own_fighters_only(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    alice = auth(session.tokens["alice"])
    state = client.get("/api/state", headers=alice).json()
    assert state["role"] == "player" and [f["cid"] for f in state["fighters"]] == ["robert"]
    assert [f["cid"] for f in state["forms"]] == ["robert"]
    assert "margaret" not in json.dumps(state["fighters"])
    mine = client.get("/api/observation/robert", headers=alice)
    assert mine.status_code == 200 and mine.json()["cid"] == "robert"
    assert {"kind": "arm", "target": None, "params": {}} in mine.json()["legal"]
    assert client.get("/api/observation/margaret", headers=alice).status_code == 403
    assert client.get("/api/observation/nobody", headers=alice).status_code == 403
    before = frozen(session)
    refused = arm(session, client, "alice", "margaret")
    assert refused.status_code == 403 and "margaret" in refused.json()["error"]
    assert frozen(session) == before
    # The game master reads everyone's.
    gm = auth(session.gm_token)
    assert client.get("/api/observation/margaret", headers=gm).status_code == 200


def test_a_pending_declaration_stays_secret(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    assert arm(session, client, "bob", "margaret").json() == {
        "ok": True,
        "closed": False,
        "phase": 0,
    }
    for token in (session.tokens["alice"], session.gm_token):
        state = client.get("/api/state", headers=auth(token)).json()
        del state["kinds"]  # every kind the ruleset has, arm among them
        for form in state["forms"]:
            del form["legal"]  # what robert may declare: arm among it
        assert '"arm"' not in json.dumps(state)
    gm = client.get("/api/state", headers=auth(session.gm_token)).json()
    assert {c["cid"]: c["declared"] for c in gm["called"]} == {"robert": False, "margaret": True}
    alice = client.get("/api/state", headers=auth(session.tokens["alice"])).json()
    assert all(f["cid"] == "robert" for f in alice["forms"])


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "malformed JSON"),
        (b"\xff\xfe", 400, "malformed JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b"[" * 100_000 + b"]" * 100_000, 413, "at most"),
        (json.dumps({"fighter": 3, "phase": 0, "declarations": []}).encode(), 400, "fighter"),
        (
            json.dumps({"fighter": "robert", "phase": "0", "declarations": []}).encode(),
            400,
            "phase",
        ),
        (json.dumps({"fighter": "robert", "phase": 0, "declarations": {}}).encode(), 400, "list"),
        (
            json.dumps({"fighter": "robert", "phase": 0, "declarations": [3]}).encode(),
            400,
            "object",
        ),
        (
            json.dumps({"fighter": "robert", "phase": 0, "declarations": [{"kind": ""}]}).encode(),
            400,
            "kind",
        ),
        (
            json.dumps(
                {"fighter": "robert", "phase": 0, "declarations": [{"kind": "arm", "x": 1}]}
            ).encode(),
            400,
            "unknown field",
        ),
        (
            json.dumps({"fighter": "robert", "phase": 0, "declarations": [{"cancel": 0}]}).encode(),
            400,
            "action id",
        ),
        (
            json.dumps(
                {"fighter": "robert", "phase": 0, "declarations": [{"kind": "arm"}] * 17}
            ).encode(),
            400,
            "at most",
        ),
        (json.dumps({"fighter": "robert", "phase": 7, "declarations": []}).encode(), 409, "closed"),
        (
            json.dumps(
                {"fighter": "robert", "phase": 0, "declarations": [{"kind": "strike"}]}
            ).encode(),
            422,
            "robert",
        ),
        (
            json.dumps(
                {
                    "fighter": "robert",
                    "phase": 0,
                    "declarations": [{"kind": "arm", "params": {"ps": {"bonus": "lots"}}}],
                }
            ).encode(),
            422,
            "",
        ),
    ],
)
def test_bad_declarations_are_refused_with_a_message_and_change_nothing(
    tmp_path: Path, body: bytes, status: int, words: str
) -> None:
    session, client = duel(tmp_path)
    before = frozen(session)
    got = client.post("/api/declare", content=body, headers=auth(session.tokens["alice"]))
    assert got.status_code == status, got.text
    assert words in got.json()["error"]
    assert frozen(session) == before


def test_an_illegal_declaration_names_the_rule(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    got = client.post(
        "/api/declare",
        headers=auth(session.tokens["alice"]),
        json={"fighter": "robert", "phase": 0, "declarations": [{"kind": "strike"}]},
    )
    assert got.status_code == 422
    message = got.json()["error"]
    assert message.startswith("segment 0, robert") and "[" in message  # the rule, named


def test_a_huge_body_is_refused_by_its_length_and_when_streamed(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    before = frozen(session)
    headers = auth(session.tokens["alice"])
    big = b"x" * (MAX_BODY + 1)
    assert client.post("/api/declare", content=big, headers=headers).status_code == 413

    def chunks() -> Any:
        for _ in range(3):
            yield b" " * (MAX_BODY // 2)

    streamed = client.post("/api/declare", content=chunks(), headers=headers)
    assert streamed.status_code == 413
    odd = client.post("/api/declare", content=b"{}", headers={**headers, "Content-Length": "x"})
    assert 400 <= odd.status_code < 500
    assert frozen(session) == before


def test_racing_submissions_settle_the_phase_once(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    assert arm(session, client, "alice", "robert").status_code == 200
    # Bob's two pages send the same phase's declaration: the first closes it.
    body = {"fighter": "margaret", "phase": 0, "declarations": [{"kind": "arm"}]}
    bob = auth(session.tokens["bob"])
    first = client.post("/api/declare", json=body, headers=bob)
    assert first.json()["closed"] is True and session.phase >= 1
    before = frozen(session)
    second = client.post("/api/declare", json=body, headers=bob)
    assert second.status_code == 409 and "phase 0 has closed" in second.json()["error"]
    closing = client.post("/api/close", json={"phase": 0}, headers=auth(session.gm_token))
    assert closing.status_code == 409
    assert frozen(session) == before
    declared = [
        json.loads(line)
        for line in session.record_path.read_text().splitlines()[1:]
        if '"action.declared"' in line and '"t":0,' in line
    ]
    assert sorted(e["actor"] for e in declared if not e.get("forced")) == ["margaret", "robert"]


def test_the_game_master_closes_a_phase_and_who_has_not_declared_declares_nothing(
    tmp_path: Path,
) -> None:
    session, client = duel(tmp_path)
    assert arm(session, client, "bob", "margaret").status_code == 200
    gm = auth(session.gm_token)
    assert client.post("/api/close", json={"phase": 1}, headers=gm).status_code == 409
    assert client.post("/api/close", json={}, headers=gm).status_code == 400
    done = client.post("/api/close", json={"phase": 0}, headers=gm)
    assert done.status_code == 200 and session.phase >= 1
    lines = session.record_path.read_text().splitlines()
    robert = [json.loads(x) for x in lines if '"actor":"robert"' in x and "action.declared" in x]
    assert [e["kind"] for e in robert] == ["wait"]  # bound to act, he idles (the engine's)


def test_the_game_master_declares_by_form_for_the_fighters_no_player_holds(tmp_path: Path) -> None:
    session, client = duel(tmp_path, players={"alice": ["robert"]})
    gm = auth(session.gm_token)
    state = client.get("/api/state", headers=gm).json()
    assert [f["cid"] for f in state["forms"]] == ["margaret"]
    assert {f["cid"]: f["holder"] for f in state["fighters"]} == {
        "robert": "alice",
        "margaret": "gm",
    }
    assert arm(session, client, "gm", "margaret").status_code == 200


def test_a_policy_may_decide_for_a_fighter(tmp_path: Path) -> None:
    setup = TableSetup.from_scenario(load_scenario(DUEL), auto=["red"])
    session = TableSession(setup, tmp_path / "r.jsonl", players={"alice": ["robert"]})
    assert list(session.views) == ["robert"]
    header = json.loads(session.record_path.read_text().splitlines()[0])
    assert [c["policy"] for c in header["combatants"]] == ["table", "aggressive"]


def test_state_events_and_view(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    gm = auth(session.gm_token)
    state = client.get("/api/state", headers=gm).json()
    assert state["role"] == "gm" and state["phase"] == 0 and state["segment"] == 0
    assert [p["name"] for p in state["players"]] == ["alice", "bob"]
    assert state["record"].endswith("duel.jsonl") and state["dice"] == "seed"
    with client.stream("GET", "/api/events?limit=1", headers=gm) as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        text = "".join(events.iter_text())
    assert text == f'data: {{"version": {session.version}}}\n\n'
    view = client.get("/api/view", headers=gm)
    assert view.status_code == 200 and "fight-data" in view.text
    assert "no-store" in view.headers["cache-control"]


def test_tokens_never_reach_the_record(tmp_path: Path) -> None:
    session, _ = duel(tmp_path)
    play_by_policies(session)
    text = session.record_path.read_text()
    for token in (session.gm_token, *session.tokens.values()):
        assert token not in text


def test_undo_replays_to_the_phase_before(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    gm = auth(session.gm_token)
    assert client.post("/api/undo", json={"phase": 0}, headers=gm).status_code == 409
    arm(session, client, "alice", "robert")
    arm(session, client, "bob", "margaret")
    assert session.phase == 1
    record = session.record_path.read_text()
    state = snapshot(session.fight.state)
    # The next phase: margaret waits, robert... whatever the rules call; play it.
    play_by_policies(session, phases=1)
    assert session.phase == 2
    assert client.post("/api/undo", json={"phase": 1}, headers=gm).status_code == 409
    undone = client.post("/api/undo", json={"phase": 2}, headers=gm)
    assert undone.status_code == 200 and undone.json()["phase"] == 1
    assert session.record_path.read_text() == record
    assert snapshot(session.fight.state) == state
    assert "undone" in client.get("/api/state", headers=gm).json()["message"]


def test_branch_replays_up_to_a_segment_into_a_new_record(tmp_path: Path) -> None:
    session, client = duel(tmp_path)
    play_by_policies(session, phases=6)
    original = session.record_path.read_text()
    gm = auth(session.gm_token)
    for bad in ("../x.jsonl", "a/b.jsonl", "", ".hidden"):
        got = client.post("/api/branch", json={"segment": 3, "record": bad}, headers=gm)
        assert got.status_code == 400, bad
    assert (
        client.post(
            "/api/branch", json={"segment": -1, "record": "b.jsonl"}, headers=gm
        ).status_code
        == 400
    )
    taken = client.post("/api/branch", json={"segment": 3, "record": "duel.jsonl"}, headers=gm)
    assert taken.status_code == 409
    done = client.post("/api/branch", json={"segment": 3, "record": "b.jsonl"}, headers=gm)
    assert done.status_code == 200
    assert (tmp_path / "duel.jsonl").read_text() == original
    assert session.fight.state.segment == 3 and session.record_path == tmp_path / "b.jsonl"
    branch_lines = (tmp_path / "b.jsonl").read_text().splitlines()
    assert branch_lines == original.splitlines()[: len(branch_lines)]
    play_by_policies(session)
    assert replay(tmp_path / "b.jsonl").identical


def test_dice_typed_in_are_asked_for_one_by_one_with_their_purpose(tmp_path: Path) -> None:
    session, client = duel(tmp_path, table_dice=True)
    gm = auth(session.gm_token)
    faces = iter([57, 12, 88, 33, 71, 5, 64, 40, 93, 21] * 40)
    asked = 0
    while not session.ended:
        state = client.get("/api/state", headers=gm).json()
        wanted = state["wanted"]
        if wanted is None:
            play_by_policies(session, phases=1)
            continue
        asked += 1
        assert wanted["purpose"] and wanted["die"] == f"d{wanted['sides']}"
        before = frozen(session)
        draw = wanted["draw"]
        for body, status in (
            ({"draw": draw + 1, "value": 1}, 409),
            ({"draw": draw, "value": "3"}, 400),
            ({"draw": draw, "value": 0}, 422),
            ({"draw": draw, "value": wanted["sides"] + 1}, 422),
        ):
            got = client.post("/api/die", json=body, headers=gm)
            assert got.status_code == status
        declared = client.post(
            "/api/declare",
            headers=auth(session.tokens["alice"]),
            json={"fighter": "robert", "phase": session.phase, "declarations": []},
        )
        assert declared.status_code == 409 and "die" in declared.json()["error"]
        assert frozen(session) == before
        value = next(faces) if wanted["sides"] == 100 else 1 + next(faces) % wanted["sides"]
        assert (
            client.post("/api/die", json={"draw": draw, "value": value}, headers=gm).status_code
            == 200
        )
    assert asked > 3
    assert client.post("/api/die", json={"draw": 0, "value": 1}, headers=gm).status_code == 409
    header = json.loads(session.record_path.read_text().splitlines()[0])
    assert header["dice"] == "entered"
    assert replay(session.record_path).identical


ROBOTS: weakref.WeakKeyDictionary[TableSession, dict[str, Any]] = weakref.WeakKeyDictionary()
"""Each session's robot players (policies keep their memory across calls)."""


def play_by_policies(session: TableSession, phases: int | None = None) -> None:
    """Declare at the table what each fighter's scenario policy would (a robot table)."""
    policies = ROBOTS.setdefault(session, {})
    ruleset = session.setup.ruleset.name
    done = 0
    while not session.ended and session.wanted is None and (phases is None or done < phases):
        phase = session.phase
        for cid, obs in list(session.fight.pending.items()):
            if session.phase != phase or cid in session.declared:
                continue
            robot = policies.get(cid)
            if robot is None:
                robot = policies[cid] = make_policy(ruleset, "aggressive")
                bind = getattr(robot, "bind", None)
                if callable(bind):
                    bind(cid, session.setup.seed)
            out = robot.decide(obs)
            items = [] if out is None else out if isinstance(out, list | tuple) else [out]
            who = session.holder[cid]
            session.declare(who, cid, phase, [declaration_data(d) for d in items])
        done += 1


@pytest.mark.parametrize(
    "scenario",
    [
        "duel.toml",
        "loss_street_brawl.toml",
        "chroniques_ambush.toml",
        "rupture_brawl.toml",
        "loreval_duel.toml",
    ],
)
def test_every_ruleset_is_played_at_the_table_and_replays(tmp_path: Path, scenario: str) -> None:
    setup = TableSetup.from_scenario(load_scenario(ROOT / "examples/scenarios" / scenario))
    session = TableSession(setup, tmp_path / "r.jsonl")
    play_by_policies(session)
    assert session.ended and session.fight.outcome is not None
    result = replay(session.record_path)
    assert result.identical, str(result)


def test_a_scripts_set_up_starts_a_table(tmp_path: Path) -> None:
    script = load_script(ROOT / "examples/scripts/table_duel.toml")
    session = TableSession(TableSetup.from_script(script), tmp_path / "s.jsonl")
    assert set(session.views) == {c.id for c in script.combatants}
    assert all(session.holder[c.id] == "gm" for c in script.combatants)


def test_submissions_racing_from_threads_settle_the_phase_once(tmp_path: Path) -> None:
    import threading

    from segsim.table.session import TableError

    session, _ = duel(tmp_path)
    session.declare("alice", "robert", 0, [{"kind": "arm"}])
    barrier = threading.Barrier(4)
    results: list[Any] = []

    def send() -> None:
        barrier.wait()
        try:
            results.append(session.declare("bob", "margaret", 0, [{"kind": "arm"}]))
        except TableError as exc:
            results.append(exc.status)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["phase"] if isinstance(r, dict) else r for r in results) == [1, 409, 409, 409]
    assert session.phases[0].decisions == {
        "robert": ({"kind": "arm", "target": None, "params": {}},),
        "margaret": ({"kind": "arm", "target": None, "params": {}},),
    }
    arms = [x for x in session.record_path.read_text().splitlines() if '"kind":"arm"' in x]
    assert len(arms) == 2


JUNK: list[Any] = [
    None,
    True,
    -1,
    10**30,
    1.5,
    float("inf"),
    "0",
    "../../etc/passwd",
    "x" * 5000,
    [],
    [[]],
    {},
    {"kind": None},
    [{"kind": "arm", "params": {"a": [1, {"b": None}]}}],
    [{"kind": "strike", "target": "robert", "params": {"blow": ["cut"], "ps": {"bonus": -9}}}],
]


@pytest.mark.parametrize(
    "path", ["/api/declare", "/api/close", "/api/undo", "/api/branch", "/api/die"]
)
def test_junk_in_any_field_is_a_4xx_and_changes_nothing(tmp_path: Path, path: str) -> None:
    session, client = duel(tmp_path, players={"alice": ["robert"]})
    gm = auth(session.gm_token)
    before = frozen(session)
    # Each body is wrong in at least one field besides the junk one (a closed phase, a
    # record name with a folder, a die not asked for), so nothing may succeed.
    base = {
        "fighter": "robert",
        "phase": 99,
        "declarations": [{"kind": "strike"}],
        "segment": -1,
        "record": "a/b.jsonl",
        "draw": 99,
        "value": 0,
    }
    for junk in JUNK:
        for field in base:
            body = {**base, field: junk}
            got = client.post(path, content=json.dumps(body, allow_nan=True), headers=gm)
            assert 400 <= got.status_code < 500, (path, field, junk, got.text)
            assert got.json()["error"]
    digits = b'{"phase": ' + b"9" * 5000 + b"}"
    assert client.post(path, content=digits, headers=gm).status_code == 400
    huge = client.post(path, content=b"{}", headers={**gm, "Content-Length": "9" * 40})
    assert 400 <= huge.status_code < 500
    assert frozen(session) == before


@pytest.mark.parametrize("junk", [j for j in JUNK if j != []])  # [] declares nothing new
def test_junk_declarations_in_the_open_phase_are_refused(tmp_path: Path, junk: Any) -> None:
    session, client = duel(tmp_path)
    before = frozen(session)
    body = {"fighter": "robert", "phase": 0, "declarations": junk}
    if isinstance(junk, list) and junk and isinstance(junk[0], dict) and junk[0].get("kind"):
        body["declarations"] = [*junk, {"kind": "strike"}]  # never legal unarmed
    got = client.post(
        "/api/declare", content=json.dumps(body), headers=auth(session.tokens["alice"])
    )
    assert 400 <= got.status_code < 500 and got.json()["error"]
    assert frozen(session) == before
