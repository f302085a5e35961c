"""Timeline conventions (issue 16): legend, fixed colours, arrows to targets, labels that
never overlap, the account's words, damage and PS tracks, coarse rulesets at their own
scale; and bounds (issue 15: huge scales, far ends, big records, control characters)."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.cli import main
from segsim.record import fight_record, read_record, write_record
from segsim.views import timeline, timeline_svg, timeline_text
from segsim.views.account import describe
from segsim.views.style import KIND_COLOURS, kind_colour, text_width

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
SIZES = {"outcome": 9.0, "hit": 9.0, "axis": 10.0}


def fought(name: str, seed: int | None = None) -> object:
    scenario = load_scenario(ROOT / "examples/scenarios" / name)
    fight = scenario.fight(seed)
    fight.run()
    return fight


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def span_fills(svg: str) -> dict[str, set[str]]:
    fills: dict[str, set[str]] = {}
    for g in parse(svg).iter(f"{SVG}g"):
        classes = (g.get("class") or "").split()
        if "span" in classes and "wait" not in classes:  # faint bars: the wait colour
            kind = next(c[5:] for c in classes if c.startswith("kind-"))
            rect = g.find(f"{SVG}rect")
            assert rect is not None
            fills.setdefault(kind, set()).add(rect.get("fill", ""))
    return fills


def text_boxes(svg: str) -> list[tuple[float, float, float, float, str]]:
    """(left, right, top, bottom, text) of every label outside the legend, in absolute
    coordinates, measured as the drawing measures them."""
    root = parse(svg)
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    in_legend = {id(t) for t in legend.iter(f"{SVG}text")}
    boxes = []
    for t in root.iter(f"{SVG}text"):
        if id(t) in in_legend:
            continue
        text = "".join(t.itertext()).strip()
        title = t.find(f"{SVG}title")
        if title is not None and title.text:
            text = (t.text or "").strip() or text.replace(title.text, "").strip()
        size = float(t.get("font-size") or SIZES.get(t.get("class") or "", 11.0))
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        boxes.append((x, x + text_width(text, size), y - size, y, text))
    return boxes


def overlaps(boxes: list[tuple[float, float, float, float, str]]) -> list[tuple[str, str]]:
    found = []
    ordered = sorted(boxes)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b[0] >= a[1]:
                break
            if a[2] < b[3] and b[2] < a[3]:
                found.append((a[4], b[4]))
    return found


# ---------------------------------------------------------------- legend and colours


def test_the_svg_has_a_legend_of_every_kind_and_mark() -> None:
    svg = timeline_svg(fought("three_against_three.toml"))
    root = parse(svg)
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    words = {t.text for t in legend.iter(f"{SVG}text")}
    kinds = set(span_fills(svg)) - {"wait"}
    assert kinds and kinds <= words
    for meaning in ("forced", "cancelled", "out", "damage", "situation points"):
        assert meaning in words
    assert "waiting, or a turn or wait the rules impose (thin)" in words
    assert "aimed at (to the target's row)" in words and "hit by an opponent's action" in words


def test_the_text_view_has_a_legend() -> None:
    text = timeline_text(fought("three_against_three.toml"))
    assert "(kind) one the rules impose; x] cancelled; > open-ended; ... waiting" in text
    assert ">target: at whom" in text and "X out of the fight" in text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("duel.toml", 1), ("three_against_three.toml", 5)),
        (("one_against_three.toml", 2), ("archery_duel.toml", None)),
        (("chroniques_ambush.toml", 3), ("chroniques_ambush.toml", 8)),
    ],
)
def test_an_action_kind_has_the_same_colour_in_every_fight(
    first: tuple[str, int | None], second: tuple[str, int | None]
) -> None:
    a = span_fills(timeline_svg(fought(*first)))
    b = span_fills(timeline_svg(fought(*second)))
    ruleset = timeline(fought(*first)).ruleset
    for fills in (a, b):
        for kind, colours in fills.items():
            assert colours == {kind_colour(ruleset, kind)}, kind
    for kind in set(a) & set(b):
        assert a[kind] == b[kind]


def test_colours_do_not_depend_on_the_order_kinds_appear() -> None:
    listed = KIND_COLOURS["rinkanou"]
    assert kind_colour("rinkanou", "strike") == listed["strike"]
    assert len({v for k, v in listed.items() if k != "wait"}) == len(listed) - 1  # distinct
    assert kind_colour("elsewhere", "bash") == kind_colour("elsewhere", "bash")


# ---------------------------------------------------------------- labels, arrows, words


@pytest.mark.parametrize(
    ("name", "seed"),
    [
        ("three_against_three.toml", None),
        ("three_against_three.toml", 4),
        ("one_against_three.toml", None),
        ("chroniques_ambush.toml", None),
        ("crossbow_ambush.toml", None),
    ],
)
def test_labels_never_overlap(name: str, seed: int | None) -> None:
    svg = timeline_svg(fought(name, seed))
    boxes = text_boxes(svg)
    assert len(boxes) > 20
    assert overlaps(boxes) == []


def test_every_resolved_attack_has_an_arrow_to_its_targets_row() -> None:
    fight = fought("three_against_three.toml")
    record = fight_record(fight)
    root = parse(timeline_svg(record))
    arrows = {
        (line.get("data-from"), line.get("data-to"))
        for line in root.iter(f"{SVG}line")
        if line.get("class") == "aim"
    }
    attacks = {(e["actor"], e["target"]) for e in record.events if e["type"] == "attack.resolved"}
    assert attacks and attacks <= arrows


def test_tooltips_use_the_accounts_words() -> None:
    fight = fought("three_against_three.toml")
    record = fight_record(fight)
    first = next(e for e in record.events if e["type"] == "attack.resolved")
    line = next(ev.describe() for ev in fight.history if ev.TYPE == "attack.resolved")
    assert describe(first) == line  # e.g. "isabeau's thrust at veteran: hit"
    svg = timeline_svg(record)
    assert line.replace("'", "&#x27;") in svg or line in svg
    assert "attack.resolved:" not in svg  # no raw key=value dumps


def test_damage_and_situation_point_tracks_per_fighter() -> None:
    fight = fought("three_against_three.toml")
    record = fight_record(fight)
    root = parse(timeline_svg(record))
    hurt = {e["actor"] for e in record.events if e["type"] == "wound.taken"}
    tracks: dict[str, set[str]] = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "row":
            tracks[g.get("data-fighter") or ""] = {
                p.get("class") or "" for p in g.iter(f"{SVG}polyline")
            }
    assert hurt and {f for f, kinds in tracks.items() if "damage" in kinds} == hurt
    assert all("ps" in kinds for kinds in tracks.values())  # RinKaNou: PS from the start
    view = timeline(record)
    veteran = view.row(next(iter(sorted(hurt))))
    totals = [d for _, d in veteran.damage]
    assert totals == sorted(totals) and totals[-1] == sum(
        e["damage"]
        for e in record.events
        if e["type"] == "wound.taken" and e["actor"] == veteran.id
    )


# ---------------------------------------------------------------- coarse rulesets


def test_chroniques_is_drawn_at_its_own_scale() -> None:
    fight = fought("chroniques_ambush.toml")
    record = fight_record(fight)
    view = timeline(record)
    assert view.tick == 100
    rounds = [e["round"] for e in record.events if e["type"] == "chroniques.round.started"]
    assert [label for _, label in view.rounds] == [f"round {n}" for n in rounds]
    svg = timeline_svg(view)
    root = parse(svg)
    axis = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "x-axis")
    texts = [t.text or "" for t in axis.iter(f"{SVG}text")]
    assert [t for t in texts if t.startswith("round ")] == [f"round {n}" for n in rounds]
    shaded = [r for r in axis.iter(f"{SVG}rect") if r.get("class") == "round"]
    assert len(shaded) == (len(rounds) + 1) // 2
    # Segment labels thinned to what fits: never closer than their own width.
    xs = [float(t.get("x", "0")) for t in axis.iter(f"{SVG}text") if t.get("y") == "50"]
    xs = xs[1:]  # the first is the word "segment"
    assert len(xs) < 40
    gaps = [b - a for a, b in itertools.pairwise(xs)]
    assert min(gaps) >= text_width(str(view.end), 10)
    # An attack over its turn (10 segments) is at least 40 px wide, not a sliver; the
    # turn the rules impose is a thin faint bar.
    attack = next(
        g for g in root.iter(f"{SVG}g") if "kind-attack" in (g.get("class") or "").split()
    )
    rect = attack.find(f"{SVG}rect")
    assert rect is not None and float(rect.get("width", "0")) >= 40
    turn = next(g for g in root.iter(f"{SVG}g") if "kind-turn" in (g.get("class") or "").split())
    assert "wait" in (turn.get("class") or "").split()
    thin = turn.find(f"{SVG}rect")
    assert thin is not None and float(thin.get("height", "0")) <= 4
    text = timeline_text(view)
    assert "one cell of 10 columns per turn (10 segments, 1.0 s)" in text
    assert "round      |1" in text and "|2" in text


# ---------------------------------------------------------------- bounds (issue 15, item 8)


def _far_end(tmp_path: Path, end: int) -> Path:
    src = ROOT / "examples/scenarios/duel.toml"
    fight = load_scenario(src).fight(1)
    fight.run()
    out = tmp_path / "far.jsonl"
    write_record(fight, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    last["t"] = end
    lines[-1] = json.dumps(last, separators=(",", ":"))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_a_far_end_does_not_make_the_timeline_unbounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _far_end(tmp_path, 10**9)
    assert main(["timeline", str(path), "--svg", str(tmp_path / "far.svg")]) == 0
    svg = (tmp_path / "far.svg").read_text(encoding="utf-8")
    root = parse(svg)
    assert float(root.get("width", "0")) <= 150 + 4800 + 24
    assert len(svg) < 400_000
    assert main(["timeline", str(path)]) == 0
    text = capsys.readouterr().out
    assert len(text.splitlines()) < 400
    assert "nothing starts or ends" in text


@pytest.mark.parametrize("scale", ["10000000000000000000", "1000000"])
def test_a_huge_scale_is_drawn_at_the_largest_scale(
    scale: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from segsim.script import load_script

    fight = load_script(ROOT / "examples/scripts/table_duel.toml").play()
    text = timeline(fight).text(scale=int(scale), width=100)
    assert max(len(line) for line in text.splitlines()) < 200
    path = tmp_path / "table.jsonl"
    write_record(fight, path)
    assert main(["timeline", str(path), "--scale", scale]) == 0
    assert len(capsys.readouterr().out) < 200_000


def test_a_big_record_is_drawn_in_one_pass(tmp_path: Path) -> None:
    """A long fight of many short actions: every span drawn once, the work linear in the
    record (the lanes are found by bisection, the text view walks each lane once)."""
    fight = fought("duel.toml", 1)
    record = fight_record(fight)
    head = dict(record.header)
    a, b = record.combatants[:2]
    lines = [json.dumps(head, separators=(",", ":"))]
    action = 0
    n = 20_000
    for i in range(n):
        t = 2 * i
        for who, other in ((a, b), (b, a)):
            action += 1
            lines.append(
                json.dumps(
                    {
                        "t": t,
                        "type": "action.declared",
                        "actor": who,
                        "action": action,
                        "kind": "strike",
                        "target": other,
                        "duration": 2,
                        "ends_in": t + 1,
                        "forced": False,
                        "params": {},
                        "declared": {"kind": "strike", "target": other, "params": {}},
                    },
                    separators=(",", ":"),
                )
            )
    lines.append(
        json.dumps(
            {
                "t": 2 * n,
                "type": "end",
                "actor": None,
                "outcome": "interrupted",
                "winner": None,
                "survivors": [a, b],
            },
            separators=(",", ":"),
        )
    )
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    view = timeline(read_record(path))
    assert sum(len(r.spans) for r in view.rows) == 2 * n
    assert all(r.lanes == 1 for r in view.rows)
    svg = view.svg()
    # 40,000 segments in at most 4,800 pixels: a lane draws at most a bar per pixel.
    bars = svg.count('class="span kind-strike"')
    assert 2 * 4000 <= bars <= 2 * 4800
    assert len(svg) < 10_000_000
    text = view.text()
    # Each 2-segment strike is drawn once, as "[st]" at 2 columns per segment.
    assert text.count("[st]") > 1.9 * n  # spans cut by a block edge are drawn in two parts


# ---------------------------------------------------------------- control characters


def test_control_characters_in_names_give_well_formed_svg_and_clean_text(tmp_path: Path) -> None:
    fight = fought("duel.toml", 1)
    out = tmp_path / "duel.jsonl"
    write_record(fight, out)
    nasty = "rob\u0001ert\u001b[31m\u0007"
    text = out.read_text(encoding="utf-8")
    first = fight_record(fight).combatants[0]
    text = text.replace(f'"{first}"', json.dumps(nasty))
    out.write_text(text, encoding="utf-8")
    svg = timeline_svg(out)
    root = parse(svg)  # well-formed XML
    fighters = [g.get("data-fighter") for g in root.iter(f"{SVG}g") if g.get("class") == "row"]
    assert "rob\ufffdert\ufffd[31m\ufffd" in fighters
    printed = timeline_text(out)
    assert "\x1b" not in printed and "\x01" not in printed and "\x07" not in printed


# ---------------------------------------------------------------- coarse rulesets (issue 40)


@pytest.mark.parametrize(
    ("scenario", "cell", "name"),
    [
        ("loreval_duel.toml", 60, "round"),
        ("loss_street_brawl.toml", 5, "phase"),
        ("chroniques_ambush.toml", 10, "turn"),
    ],
)
def test_a_coarse_ruleset_is_drawn_a_cell_per_turn_phase_or_round(
    scenario: str, cell: int, name: str
) -> None:
    """The rules' own turns and waits are faint; what a fighter chose is drawn over the
    whole cell it starts in, labelled with its word."""
    view = timeline(fought(scenario))
    assert view.cell == cell
    text = timeline_text(view)
    assert f"one cell of 10 columns per {name} ({cell} segments" in text
    assert "(turn" not in text and "(await" not in text  # faint dots, not labels
    chosen = [s for r in view.rows for s in r.spans if not s.faint]
    assert chosen and all(
        s.first % cell == 0 and s.final - s.first + 1 >= min(cell, 1 + view.end - s.first)
        for s in chosen
    )
    assert all(s.routine for r in view.rows for s in r.spans if s.kind in ("turn", "await"))
    data = viewer_data_of(scenario)
    assert data["cell"] == cell
    faint = {data["kinds"][s[4]] for s in data["spans"] if s[7] & 4}
    assert {"turn", "await"} & faint


def test_loreval_timeline_counts_its_rounds() -> None:
    view = timeline(fought("loreval_duel.toml"))
    assert view.tick == 60
    text = timeline_text(view)
    assert "[counter-]" in text and "[attack--]" in text


def test_short_labels_are_explained() -> None:
    """An action too short for its word gets a short label, and the legend says which."""
    text = timeline_text(fought("duel.toml", 7), scale=1)
    legend = next(line for line in text.splitlines() if line.startswith("short labels"))
    codes = dict(item.split(" ") for item in legend.split(": ", 1)[1].split(", "))
    assert codes and all(len(code) == 2 for code in codes)
    assert len(set(codes.values())) == len(codes)  # one word per code
    for line in text.splitlines():
        if line.startswith(("robert", "margaret")):
            for token in re.findall(r"\b([a-z][a-z0-9])[\]\)x>]", line):
                assert token in codes, (token, line)


def viewer_data_of(scenario: str) -> dict:
    from segsim.views.html import ViewerBuilder, _Keep, viewer_data

    return viewer_data(fight_record(fought(scenario)).accept(_Keep(ViewerBuilder())))


def test_the_viewer_account_shows_what_happened_as_segsim_run_does() -> None:
    data = viewer_data_of("loreval_duel.toml")
    lines = [text for _, _, text in data["account"]]
    assert [line for line in lines if 'aldren = { action = "counter"' in line]
    assert not [line for line in lines if "forced by the rules" in line and ": await" in line]
    assert not [line for line in lines if " declares counter -> " in line]
