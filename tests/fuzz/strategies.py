"""Hypothesis strategies for hostile and careless input, for every ruleset.

Each input class starts from something valid (an example scenario of the ruleset, a
script over its fighters, a record of one of its fights, a legal-looking declaration)
and damages it the way a careless or hostile user would: wrong types, nulls, nan and
inf, huge numbers, control characters, deep nesting, bytes that are not UTF-8, import
paths where a policy name goes, truncation.

A ruleset is fuzzed once it is registered here: :func:`register_fuzz_ruleset` (an
example scenario and its action kinds with their parameter names). Rulesets that keep
a ``KINDS`` table next to their class and ship an example scenario are found by
:func:`fuzz_rulesets` without any registration.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
from hypothesis import strategies as st

from segsim.actions import Cancel, Declaration
from segsim.rules import ruleset_class, ruleset_names
from segsim.scriptline import toml_key, toml_value

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples/scenarios"


@attrs.frozen
class FuzzRuleset:
    """What the strategies need of a ruleset: a valid scenario to start from, and its
    action kinds with the parameters each takes."""

    name: str
    scenario: Path
    kinds: Mapping[str, frozenset[str]]


_REGISTERED: dict[str, FuzzRuleset] = {}


def register_fuzz_ruleset(
    name: str, scenario: Path, kinds: Mapping[str, frozenset[str]] | None = None
) -> None:
    """Fuzz a ruleset: ``scenario`` is one of its valid scenarios; ``kinds`` its action
    kinds and their parameter names (default: the ``KINDS`` table of its module)."""
    _REGISTERED[name] = FuzzRuleset(name, scenario, kinds or _kinds_of(name))


def _kinds_of(name: str) -> Mapping[str, frozenset[str]]:
    """The declaration kinds of a ruleset and their parameter names: its ``KINDS`` or
    ``KIND_PARAMS`` table next to its class, in its package, or in the package's
    ``declare`` module (a table of kind specs with ``params``, of parameter-name sets,
    or a plain list of kinds)."""
    cls = ruleset_class(name)
    package = cls.__module__.rsplit(".", 1)[0]
    for module_name in (cls.__module__, package, f"{package}.declare"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for attr in ("KINDS", "KIND_PARAMS"):
            table = getattr(module, attr, None)
            if not table:
                continue
            if isinstance(table, Mapping):
                return {
                    kind: frozenset(
                        spec if isinstance(spec, frozenset | set) else getattr(spec, "params", ())
                    )
                    for kind, spec in table.items()
                }
            return {str(kind): frozenset() for kind in table}
    return {}


@functools.cache
def fuzz_rulesets() -> tuple[FuzzRuleset, ...]:
    """Every registered ruleset, and every other one with an example scenario."""
    found = dict(_REGISTERED)
    for name in ruleset_names():
        if name in found:
            continue
        for path in sorted(EXAMPLES.glob("*.toml")):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            if data.get("fight", {}).get("ruleset") == name:
                found[name] = FuzzRuleset(name, path, _kinds_of(name))
                break
    return tuple(found[n] for n in sorted(found))


def base_scenario(rs: FuzzRuleset) -> dict[str, Any]:
    data = tomllib.loads(rs.scenario.read_text(encoding="utf-8"))
    data["fight"]["max_segments"] = 300  # keeps a fight short whatever happens
    return data


# ---------------------------------------------------------------- hostile values

NAMES = [
    "",
    " ",
    "robert",
    "margaret",
    "aldric",
    "bandit1",
    "\x1b[2J",
    "\x00",
    "²",
    "é",
    "a" * 200,
    "random",
    "aggressive",
    "script",
    "replay",
    "os:abort",
    "sys:exit",
    "code:interact",
    "builtins:print",
    "segsim.policies:RandomLegal",
    "../../../etc/shadow",
    "/etc/passwd",
    "nan",
    "{0.__class__}",
]

scalars = st.one_of(
    st.integers(min_value=-5, max_value=120),
    st.integers(),
    st.sampled_from([0, -1, 10**9, 2**63, -(2**63) - 1, 10**30, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5]),
    st.booleans(),
    st.sampled_from(NAMES),
    st.text(max_size=12),
)

values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


def _set(data: Any, path: tuple[Any, ...], value: Any, delete: bool = False) -> None:
    for key in path[:-1]:
        data = data[key]
    if delete:
        del data[path[-1]]
    else:
        data[path[-1]] = value


@st.composite
def mutated(draw: st.DrawFn, data: Any, extra_keys: list[str]) -> Any:
    """A copy of ``data`` with a few values replaced, removed or added."""
    data = json.loads(json.dumps(data))  # a deep copy of plain data
    for _ in range(draw(st.integers(0, 4))):
        paths = _paths(data)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["set", "set", "delete", "add"]))
        try:
            if how == "set":
                _set(data, path, draw(values))
            elif how == "delete":
                _set(data, path, None, delete=True)
            else:
                parent: Any = data
                for key in path[:-1]:
                    parent = parent[key]
                if isinstance(parent, dict):
                    parent[draw(st.sampled_from([*extra_keys, "x", ""]))] = draw(values)
        except (KeyError, IndexError, TypeError):
            pass
    return data


# ---------------------------------------------------------------- TOML text


def toml_text(data: Mapping[str, Any]) -> str:
    """TOML for plain data: scalars first, then tables, then arrays of tables."""
    lines = []
    nested = {k: v for k, v in data.items() if k == "segment" and isinstance(v, dict)}
    data = {k: v for k, v in data.items() if k not in nested}
    for k, v in data.items():
        if not isinstance(v, dict) and not (
            isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
        ):
            lines.append(f"{toml_key(k)} = {toml_value(v)}")
    for k, v in data.items():
        if isinstance(v, dict):
            lines.append(f"[{toml_key(k)}]")
            lines += [f"{toml_key(kk)} = {toml_value(vv)}" for kk, vv in v.items()]
    for k, v in data.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{toml_key(k)}]]")
                lines += [f"{toml_key(kk)} = {toml_value(vv)}" for kk, vv in item.items()]
    for k, v in nested.items():  # [segment.N] tables, one per segment
        for sub, table in v.items():
            lines.append(f"[{toml_key(k)}.{toml_key(sub)}]")
            if isinstance(table, dict):
                lines += [f"{toml_key(kk)} = {toml_value(vv)}" for kk, vv in table.items()]
            else:
                lines.append(f"x = {toml_value(table)}")
    return "\n".join(lines) + "\n"


@st.composite
def damaged_bytes(draw: st.DrawFn, text: str) -> bytes:
    """The text's bytes, sometimes damaged: cut, bad bytes, deep nesting, long numbers."""
    raw = text.encode("utf-8")
    how = draw(st.sampled_from(["none"] * 6 + ["cut", "bytes", "deep", "digits", "line"]))
    at = draw(st.integers(0, len(raw)))
    if how == "cut":
        return raw[:at]
    if how == "bytes":
        return raw[:at] + draw(st.binary(min_size=1, max_size=4)) + raw[at:]
    if how == "deep":
        n = draw(st.sampled_from([40, 2000, 100000]))
        return raw + b"\ndeep = " + b"[" * n + b"]" * n + b"\n"
    if how == "digits":
        return raw + b"\nbig = " + b"9" * draw(st.sampled_from([20, 5000])) + b"\n"
    if how == "line":
        return raw[:at] + b"\n" + draw(st.text(max_size=30)).encode("utf-8", "replace") + raw[at:]
    return raw


# ---------------------------------------------------------------- input classes

SCENARIO_KEYS = ["policy", "position", "setup", "fighter", "sheet", "is_pc", "seed", "options"]


@st.composite
def scenarios(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """A scenario of the ruleset, damaged."""
    data = draw(mutated(base_scenario(rs), SCENARIO_KEYS))
    if not isinstance(data, dict):
        data = {"fight": data}
    return draw(damaged_bytes(toml_text(data)))


def _ids(rs: FuzzRuleset) -> list[str]:
    return [c["id"] for c in base_scenario(rs)["combatant"]]


@st.composite
def script_entry(draw: st.DrawFn, rs: FuzzRuleset) -> Any:
    kinds = sorted(rs.kinds)
    kind = draw(st.sampled_from(kinds) | st.sampled_from(NAMES))
    shape = draw(st.sampled_from(["name", "table", "cancel", "list", "value"]))
    if shape == "name":
        return kind
    if shape == "cancel":
        return {"cancel": draw(st.sampled_from(kinds) | values)}
    if shape == "value":
        return draw(values)
    entry: dict[str, Any] = {"action": kind}
    if draw(st.booleans()):
        entry["target"] = draw(st.sampled_from(_ids(rs)) | values)
    for key in draw(st.lists(st.sampled_from(sorted(rs.kinds.get(kind, ())) or ["x"]), max_size=2)):
        entry[key] = draw(values)
    return [entry, kind] if shape == "list" else entry


@functools.cache
def valid_script(ruleset: str, seed: int) -> dict[str, Any]:
    """A fight of the ruleset's example scenario written as a fight script (plain data,
    its fighters inline): it plays as the fight did."""
    from segsim.record import dumps, event_data
    from segsim.scenario import load_scenario

    rs = next(r for r in fuzz_rulesets() if r.name == ruleset)
    fight = load_scenario(rs.scenario).fight(seed, max_segments=300)
    fight.run()
    segments: dict[str, dict[str, list[Any]]] = {}
    rolls = []
    for e in (event_data(e) for e in fight.history):
        if e["type"] == "action.declared" and not e["forced"]:
            d = e["declared"]
            entry = {"action": d["kind"], **({"target": d["target"]} if d["target"] else {})}
            entry.update(json.loads(dumps(d["params"])))
            segments.setdefault(str(e["t"]), {}).setdefault(e["actor"], []).append(entry)
        elif e["type"] == "action.cancelled":
            segments.setdefault(str(e["t"]), {}).setdefault(e["actor"], []).append(
                {"cancel": e["kind"]}
            )
        elif e["type"] == "die.rolled":
            rolls.append(f"{e['die']}:{e['value']}")
    base = base_scenario(rs)
    combatants = [{k: v for k, v in c.items() if k != "policy"} for c in base["combatant"]]
    return {
        "fight": {"ruleset": rs.name, "max_segments": 300, "seed": seed},
        "options": base.get("options", {}),
        "combatant": combatants,
        "segment": segments,
        "dice": {"rolls": rolls},
    }


@st.composite
def valid_scripts(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """A valid fight script of the ruleset with a few small, plausible edits (most of
    them still play): a die's face, an entry dropped or moved a segment, a target or
    a parameter changed, the rolls cut short."""
    data = json.loads(json.dumps(valid_script(rs.name, draw(st.integers(0, 5)))))
    segments: dict[str, Any] = data["segment"]
    rolls: list[str] = data["dice"]["rolls"]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2]))):
        how = draw(st.sampled_from(["face", "drop", "move", "target", "param", "cut"]))
        entries = [(seg, cid) for seg, who in segments.items() for cid in who]
        if how == "face" and rolls:
            i = draw(st.integers(0, len(rolls) - 1))
            die = rolls[i].split(":")[0]
            sides = int(die[1:]) if die[1:].isdigit() else 6
            rolls[i] = f"{die}:{draw(st.integers(1, max(1, sides)))}"
        elif how == "cut" and rolls:
            del rolls[draw(st.integers(0, len(rolls) - 1)) :]
        elif entries and how in ("drop", "move", "target", "param"):
            seg, cid = draw(st.sampled_from(entries))
            items = segments[seg][cid]
            if how == "drop":
                del segments[seg][cid]
                if not segments[seg]:
                    del segments[seg]
            elif how == "move":
                del segments[seg][cid]
                if not segments[seg]:
                    del segments[seg]
                later = str(max(0, int(seg) + draw(st.integers(-2, 2))))
                segments.setdefault(later, {})[cid] = items
            elif how == "target":
                for item in items:
                    if "target" in item:
                        item["target"] = draw(st.sampled_from(_ids(rs)))
            else:
                item = draw(st.sampled_from(items))
                keys = sorted(rs.kinds.get(str(item.get("action")), ())) or ["x"]
                item[draw(st.sampled_from(keys))] = draw(
                    st.integers(0, 6) | st.booleans() | st.sampled_from(_ids(rs))
                )
    text = toml_text(data)
    if draw(st.integers(0, 9)) == 0:
        return draw(damaged_bytes(text))
    return text.encode("utf-8")


@st.composite
def noisy_scripts(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """A fight script over the ruleset's example fighters, damaged."""
    base = base_scenario(rs)
    combatants = [{k: v for k, v in c.items() if k != "policy"} for c in base["combatant"]]
    data: dict[str, Any] = {
        "fight": {"ruleset": rs.name, "max_segments": 300},
        "options": base.get("options", {}),
        "combatant": combatants,
    }
    segments: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 4))):
        seg = draw(st.sampled_from(["0", "1", "3", "10", "²", "-1", "x", "99999999999"]))
        cid = draw(st.sampled_from(_ids(rs)) | st.sampled_from(NAMES))
        segments.setdefault(seg, {})[cid] = draw(script_entry(rs))
    data["segment"] = segments
    rolls = draw(
        st.lists(
            st.integers(-2, 120)
            | st.sampled_from(["d100:5", "d20:21", "d6:0", "d100:" + "9" * 30, "x", "d²:1"]),
            max_size=12,
        )
    )
    data["dice"] = {"rolls": rolls}
    data = draw(mutated(data, ["scenario", "seed", "rolls"]))
    if not isinstance(data, dict):
        data = {"fight": data}
    text = toml_text(data)
    if draw(st.integers(0, 9)) == 0:  # a scenario reference, perhaps outside the folder
        name = draw(st.sampled_from(["../../../etc/shadow", "/etc/passwd", "missing.toml"]))
        text = f"[fight]\nscenario = {json.dumps(name)}\n"
    return draw(damaged_bytes(text))


@functools.cache
def record_lines(ruleset: str, seed: int) -> tuple[str, ...]:
    """The record of a fight of the ruleset's example scenario."""
    from segsim.record import fight_lines
    from segsim.scenario import load_scenario

    rs = next(r for r in fuzz_rulesets() if r.name == ruleset)
    fight = load_scenario(rs.scenario).fight(seed, max_segments=600)
    fight.run()
    return tuple(fight_lines(fight))


@st.composite
def scripts(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """Fight scripts: mostly valid ones with small edits, some noise."""
    if draw(st.integers(0, 9)) == 0:
        return draw(noisy_scripts(rs))
    return draw(valid_scripts(rs))


RECORD_KEYS = ["value", "die", "t", "type", "actor", "declared", "action", "seed", "dice", "policy"]


@st.composite
def records(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """A record of one of the ruleset's fights, damaged line by line."""
    lines = list(record_lines(rs.name, draw(st.integers(0, 3))))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["mutate", "mutate", "mutate", "die", "drop", "swap", "null"]))
        obj = json.loads(lines[i])
        if how == "mutate":
            lines[i] = json.dumps(draw(mutated(obj, RECORD_KEYS)), ensure_ascii=False)
        elif how == "die":
            dice = [j for j, line in enumerate(lines) if '"die.rolled"' in line]
            if dice:
                j = draw(st.sampled_from(dice))
                event = json.loads(lines[j])
                event["value"] = draw(st.integers(-1, 101) | values)
                lines[j] = json.dumps(event, ensure_ascii=False)
        elif how == "drop" and len(lines) > 1:
            del lines[i]
        elif how == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "null" and isinstance(obj, dict) and obj:
            obj[draw(st.sampled_from(sorted(obj)))] = None
            lines[i] = json.dumps(obj, ensure_ascii=False)
    text = "".join(f"{line}\n" for line in lines)
    return draw(damaged_bytes(text))


@attrs.frozen
class Legal:
    """Stands for one of the declarations the ruleset calls legal when the policy
    decides (``index`` modulo their number), perhaps with one parameter changed."""

    index: int
    tweak: tuple[str, Any] | None = None

    def pick(self, legal: tuple[Any, ...]) -> Any:
        if not legal:
            return Declaration("wait")
        found = legal[self.index % len(legal)]
        if self.tweak is None or not isinstance(found, Declaration):
            return found
        key, value = self.tweak
        return Declaration(found.kind, found.target, {**found.params, key: value})


@st.composite
def declarations(draw: st.DrawFn, rs: FuzzRuleset) -> list[Any]:
    """What a buggy or hostile policy returns: declarations of the ruleset's kinds with
    ill-typed or absurd values, cancellations, other objects."""
    out: list[Any] = []
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(["decl", "decl", "legal", "legal", "cancel", "other"]))
        if shape == "legal":
            tweak = draw(st.none() | st.tuples(st.sampled_from(["x", "difficulty", "ps"]), values))
            out.append(Legal(draw(st.integers(0, 50)), tweak))
            continue
        if shape == "cancel":
            out.append(Cancel(draw(st.integers(0, 6) | values)))
            continue
        if shape == "other":
            out.append(draw(values))
            continue
        kind = draw(st.sampled_from(sorted(rs.kinds)) | values)
        target = draw(st.none() | st.sampled_from(_ids(rs)) | values)
        names = sorted(rs.kinds.get(kind, ())) if isinstance(kind, str) else []
        params: dict[Any, Any] = {}
        for key in draw(st.lists(st.sampled_from([*names, "x"]), max_size=3)):
            params[key] = draw(values)
        if draw(st.integers(0, 9)) == 0:
            params[draw(values.filter(lambda v: not isinstance(v, dict | list)))] = 1
        out.append(Declaration(kind, target, params))
    return out


def cli_files(rs: FuzzRuleset) -> dict[str, str]:
    """Real files the command line may be given (a scenario and a record)."""
    return {"scenario": str(rs.scenario)}


@st.composite
def cli_cases(
    draw: st.DrawFn, rs: FuzzRuleset, files: Mapping[str, str]
) -> tuple[list[str], bytes]:
    """An argument list and the bytes of ``files["damaged"]`` (a damaged scenario, script
    or record the arguments may name)."""
    blob = draw(st.one_of(scenarios(rs), scripts(rs), records(rs)))
    return draw(cli_args(rs, files)), blob


@st.composite
def cli_args(draw: st.DrawFn, rs: FuzzRuleset, files: Mapping[str, str]) -> list[str]:
    """An argument list for ``segsim``: real and damaged files, good and bad flags."""
    command = draw(
        st.sampled_from(
            [
                *["run", "run", "replay", "replay", "view", "timeline", "timeline"],
                *["sweep", "tournament", "content", "rules", "x"],
            ]
        )
    )
    paths = [*files.values(), files.get("damaged", ""), "/nonexistent", "/", "/dev/null", ""]
    args: list[str] = [command]
    if command in ("run", "replay", "sweep", "tournament", "view", "timeline"):
        args.append(draw(st.sampled_from(paths)))
    if command == "content":
        args += draw(st.lists(st.sampled_from([rs.name, "x", "", "../loss"]), max_size=1))
    if command == "view":
        args += ["--html", files["html"]]
    if command == "tournament":
        args += draw(
            st.lists(st.sampled_from(["random", "aggressive", "os:abort", "x"]), max_size=3)
        )
    text = st.sampled_from(
        ["0", "7", "-1", "1e19", "10" * 30, "nan", "", "x", "²", str(2**63), str(2**64 - 1)]
    )
    options: dict[str, Callable[[], list[str]]] = {
        "--seed": lambda: ["--seed", draw(text)],
        "--quiet": lambda: ["--quiet"],
        "--dice": lambda: ["--dice"],
        "--record": lambda: ["--record", files["out"]],
        "--until": lambda: ["--until", draw(text)],
        "--then": lambda: [
            "--then",
            draw(st.sampled_from(["random", "replay", "os:abort", "x=random", "=", "a=b=c"])),
        ],
        "--script": lambda: ["--script", draw(st.sampled_from(paths))],
        "--fights": lambda: ["--fights", draw(st.sampled_from(["1", "2", "0", "-3", "x"]))],
        "--policy": lambda: [
            "--policy",
            draw(st.sampled_from(["red=random", "blue=os:abort", "x", "=y", "red=missing.toml"])),
        ],
        "--allow-outside": lambda: ["--allow-outside"],
        "--report": lambda: ["--report", files["html"]],
        "--html": lambda: ["--html", draw(st.sampled_from([files["html"], "/", ""]))],
        "--svg": lambda: ["--svg", draw(st.sampled_from([files["svg"], "/", ""]))],
        "--text": lambda: ["--text"],
        "--scale": lambda: ["--scale", draw(text)],
        "--width": lambda: ["--width", draw(text)],
    }
    for flag in draw(st.lists(st.sampled_from(sorted(options)), max_size=4)):
        args += options[flag]()
    if command in ("sweep", "tournament") and "--fights" not in args:
        args += ["--fights", "2"]
    return args


# ---------------------------------------------------------------- forged records


@st.composite
def forgeries(draw: st.DrawFn, rs: FuzzRuleset) -> tuple[bytes, str, bool]:
    """A genuine record with one line forged: a die's face changed to another face of
    the same die, a field of an event changed to another plausible value, or a field of
    the header changed. Returns (bytes, what was forged, whether a replay must see it)."""
    lines = list(record_lines(rs.name, draw(st.integers(0, 3))))
    how = draw(st.sampled_from(["die", "die", "event", "event", "header"]))
    if how == "die":
        dice = [i for i, line in enumerate(lines) if '"die.rolled"' in line]
        i = draw(st.sampled_from(dice))
        event = json.loads(lines[i])
        sides = int(event["die"][1:])
        if sides < 2:
            how = "event"
        else:
            event["value"] = (event["value"] - 1 + draw(st.integers(1, sides - 1))) % sides + 1
            lines[i] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    if how == "event":
        i = draw(st.integers(1, len(lines) - 1))
        event = json.loads(lines[i])
        fields = [k for k in event if k not in ("type",)]
        key = draw(st.sampled_from(fields))
        old = event[key]
        new = draw(_plausible(old, _ids(rs)))
        if new == old or (isinstance(new, bool) != isinstance(old, bool)):
            new = {"forged": True}
        event[key] = new
        lines[i] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    elif how == "header":
        header = json.loads(lines[0])
        key = draw(st.sampled_from(sorted(header)))
        header[key] = draw(_plausible(header[key], _ids(rs)))
        lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    text = "".join(f"{line}\n" for line in lines)
    return text.encode("utf-8"), how, how != "header"


def _plausible(old: Any, ids: list[str]) -> st.SearchStrategy[Any]:
    """A value of the same kind as ``old``, usually another one."""
    if isinstance(old, bool):
        return st.just(not old)
    if isinstance(old, int):
        return st.integers(max(0, old - 3), old + 3).filter(lambda v: v != old) | st.just(old + 1)
    if isinstance(old, float):
        return st.floats(0, 50, allow_nan=False).filter(lambda v: v != old)
    if isinstance(old, str):
        return st.sampled_from([*ids, "x", old + "x"]).filter(lambda v: v != old)
    if old is None:
        return st.sampled_from([*ids, 1])
    if isinstance(old, list):
        return st.just(old[:-1] if old else [1])
    if isinstance(old, dict):
        if not old:
            return st.just({"x": 1})
        key = sorted(old)[0]
        return st.just({**old, key: {"forged": True}})
    return st.just(None)


# ---------------------------------------------------------------- content and rule lists


@st.composite
def content_files(draw: st.DrawFn, rs: FuzzRuleset) -> dict[str, bytes]:
    """One or two files of the ruleset's ``models/`` folder, damaged."""
    from segsim.models import models_dir

    folder = models_dir() / rs.name
    names = sorted(p.name for p in folder.glob("*.toml"))
    out = {}
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True)):
        data = tomllib.loads((folder / name).read_text(encoding="utf-8"))
        data = draw(mutated(data, ["name", "damage", "skills", "weapon", "x"]))
        if not isinstance(data, dict):
            data = {"x": data}
        out[name] = draw(damaged_bytes(toml_text(data)))
    return out


RULE_LISTS = ROOT / "examples/policies"


def rule_list_scenario(rs: FuzzRuleset) -> Path:
    """The scenario the ruleset's example rule lists are played in (RinKaNou's first
    example is an archery duel, where the melee rule list has no dagger in hand)."""
    return EXAMPLES / "duel.toml" if rs.name == "rinkanou" else rs.scenario


def rule_list_files(rs: FuzzRuleset) -> list[Path]:
    """The example rule lists of the ruleset."""
    out = []
    for path in sorted(RULE_LISTS.glob("*.toml")):
        if tomllib.loads(path.read_text(encoding="utf-8")).get("ruleset") == rs.name:
            out.append(path)
    return out


HOSTILE_EXPRESSIONS = [
    "target.weapon.damage.update(cut=0) or True",
    "me.sheet.skills.update(sabre=300) or True",
    "__import__('os').abort()",
    "().__class__.__base__.__subclasses__()",
    "me.__dict__",
    "params.__class__",
    "'{0.__class__}'.format(me)",
    "[x for x in range(10**9)]",
    "10**10**10",
    "'a' * 10**10",
    "me" + ".x" * 500,
    "(" * 200 + ")" * 200,
    "True",
    "False",
]


@st.composite
def rule_lists(draw: st.DrawFn, rs: FuzzRuleset) -> bytes:
    """An example rule list of the ruleset with some conditions replaced by hostile or
    careless expressions, or its data damaged."""
    path = draw(st.sampled_from(rule_list_files(rs)))
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    rules = data.get("rule", [])
    for _ in range(draw(st.integers(0, 2))):
        if rules:
            rule = draw(st.sampled_from(rules))
            rule["when"] = draw(st.sampled_from(HOSTILE_EXPRESSIONS))
    if draw(st.booleans()):
        data = draw(mutated(data, ["when", "do", "params", "kind", "target"]))
    if not isinstance(data, dict):
        data = {"x": data}
    return draw(damaged_bytes(toml_text(data)))


HOSTILE_NAMES = [
    "</script><script>document.title='x'</script>",
    "{{SCRIPT}}",
    "{{DATA}}",
    "{{TITLE}}",
    "{{STYLE}}",
    "<!--",
    "<![CDATA[",
    "]]>",
    '"><img src=x onerror=alert(1)>',
    "\u2028\u2029",
    "&amp;&lt;",
    "</style><style>*{display:none}</style>",
    "<svg onload=alert(1)>",
    "plain",
]


def html_names() -> st.SearchStrategy[tuple[str, str]]:
    """A fight's name and a fighter's name, hostile to HTML."""
    # Printable text: the viewer shows control characters as visible escapes, on purpose.
    printable = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
    name = st.sampled_from(HOSTILE_NAMES) | st.text(printable, max_size=20)
    return st.tuples(name, name)
