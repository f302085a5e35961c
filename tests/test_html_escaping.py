"""HTML output keeps data as data (issue 39, item 6): the viewer's page is filled in one
pass over its template, so a name that looks like a slot stays a name, and the fight's
data inside ``<script>`` is JSON no name can end or turn into markup."""

from __future__ import annotations

import html
import json
import re
from importlib.resources import files
from pathlib import Path

import pytest

from segsim import load_scenario
from segsim.views.html import fill_page, script_json, viewer_html

ROOT = Path(__file__).resolve().parent.parent
DATA = re.compile(r'<script type="application/json" id="fight-data">(.*?)</script>', re.S)
SCRIPT = files("segsim.views").joinpath("viewer.js").read_text(encoding="utf-8")

HOSTILE = [
    "{{SCRIPT}}",
    "{{DATA}} {{STYLE}} {{TITLE}}",
    "</script><script>alert(1)</script>",
    "<!-- <script>",
    'Tom & Jerry\'s "duel" > <b>',
    "line\u2028separator\u2029paragraph",
]


def page_of(name: str) -> str:
    fight = load_scenario(ROOT / "examples" / "scenarios" / "duel.toml").fight(3)
    fight.name = name
    fight.state.combatants["robert"].name = name  # a fighter's name is data as well
    fight.run()
    return viewer_html(fight)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_fight_name_stays_data(name: str) -> None:
    page = page_of(name)
    # The page's own parts are there once each, where the template put them.
    assert page.count(SCRIPT) == 1
    assert page.count('id="fight-data"') == 1
    # The data element holds exactly the fight's data: it parses back to the name.
    found = DATA.findall(page)
    assert len(found) == 1
    data = json.loads(found[0])
    assert data["title"] == name
    assert data["fighters"][0]["name"] == name
    # Nothing of the name is markup: no "<" at all inside the data, and the title is
    # escaped text.
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in found[0]
    assert f"<title>{html.escape(name, quote=True)}" in page
    assert "<script>alert(1)" not in page


def test_a_name_that_is_a_slot_does_not_pull_the_script_into_the_data() -> None:
    """The case found: a fight named {{SCRIPT}} had the viewer's JavaScript pasted into
    its JSON data (a chain of replacements read the name as a slot)."""
    page = page_of("{{SCRIPT}}")
    data = json.loads(DATA.findall(page)[0])
    assert SCRIPT not in json.dumps(data, ensure_ascii=False)
    assert data["title"] == "{{SCRIPT}}"


def test_fill_page_reads_only_the_template() -> None:
    template = "<title>{{TITLE}}</title>{{DATA}}"
    page = fill_page(template, {"TITLE": "{{DATA}}", "DATA": "{{TITLE}}"})
    assert page == "<title>{{DATA}}</title>{{TITLE}}"
    with pytest.raises(KeyError):
        fill_page("{{NOPE}}", {})


def test_script_json_escapes_what_could_end_a_script() -> None:
    text = script_json({"n": "</script>&<!--\u2028\u2029"})
    assert text == '{"n":"\\u003c/script\\u003e\\u0026\\u003c!--\\u2028\\u2029"}'
    assert json.loads(text) == {"n": "</script>&<!--\u2028\u2029"}
