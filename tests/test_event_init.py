"""Event classes are built by the cheaper ``__init__`` of ``slot_init``: the same
frozen objects as attrs' own ``__init__`` makes, defaults and factories included."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from event_helpers import is_native, placeholders

from segsim.eventbase import Event, maker
from segsim.schema import known_types


def _both(cls: type, **values: Any) -> tuple[Any, Any]:
    """One object made by the class's ``__init__``, one by attrs' own."""
    made = cls(**values)
    reference = cls.__new__(cls)  # not object.__new__: the base may be a native class
    cls.__init__.__wrapped__(reference, **values)
    return made, reference


def test_every_registered_event_class_gets_the_slot_init() -> None:
    """Or, in the compiled build, is a native class built by its own ``__init__`` (written
    out: RinKaNou's events), which gives each field what it was given, the factories'
    defaults fresh, and which compares, copies and refuses assignment as attrs' would."""
    for cls in known_types().values():
        if is_native(cls):
            values = placeholders(cls)
            made = cls(**values)
            assert attrs.asdict(made, recurse=False) == values, cls.__qualname__
            assert made == cls(**values) and made != attrs.evolve(made, t=99)
            assert repr(made).startswith(f"{cls.__qualname__}(t=0, ")
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                made.t = 1
            required = {
                f.name: values[f.name] for f in attrs.fields(cls) if f.default is attrs.NOTHING
            }
            defaults = attrs.asdict(cls(**required), recurse=False)
            for f in attrs.fields(cls):
                if isinstance(f.default, attrs.Factory):  # type: ignore[arg-type]
                    assert defaults[f.name] == f.default.factory()
                    fresh = getattr(cls(**required), f.name)
                    assert fresh is not getattr(cls(**required), f.name)
                elif f.default is not attrs.NOTHING:
                    assert defaults[f.name] == f.default
            continue
        assert "__wrapped__" in vars(cls.__init__), cls.__qualname__
        fields = [f for f in attrs.fields(cls) if f.init]
        # Distinct placeholders, but an int segment: the compiled build's native
        # event base checks its own fields' types.
        values = {f.name: i if f.name == "t" else (f.name, i) for i, f in enumerate(fields)}
        made, reference = _both(cls, **values)
        assert made == reference
        assert attrs.asdict(made) == attrs.asdict(reference)
        assert attrs.evolve(made, t=99).t == 99
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            made.t = 1
        required = {f.name: values[f.name] for f in fields if f.default is attrs.NOTHING}
        made, reference = _both(cls, **required)  # defaults and factories
        assert made == reference


def test_the_slot_init_honours_defaults_and_fresh_factories() -> None:
    @attrs.frozen
    class Noted(Event):
        note: str
        level: int = 3
        tags: dict[str, int] = attrs.field(factory=dict)

    first, second = Noted(1, "a", "x"), Noted(2, None, "y", 5)
    assert "__wrapped__" in vars(Noted.__init__)
    assert (first.level, second.level, first.tags) == (3, 5, {})
    assert first.tags is not second.tags
    assert Noted(1, "a", "x", tags={"k": 1}).tags == {"k": 1}
    with pytest.raises(TypeError):
        Noted(1, "a")  # type: ignore[call-arg]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        first.note = "z"  # type: ignore[misc]


def test_a_class_the_slot_init_does_not_handle_keeps_attrs_own() -> None:
    """A validator, a converter or an init hook is attrs' to run: the class keeps its
    ``__init__``, so they still run."""

    @attrs.frozen
    class Checked(Event):
        level: int = attrs.field(validator=attrs.validators.ge(0))

    @attrs.frozen
    class Converted(Event):
        level: int = attrs.field(converter=int)

    @attrs.frozen
    class Hooked(Event):
        level: int

        def __attrs_post_init__(self) -> None:
            object.__setattr__(self, "level", self.level * 2)

    for cls in (Checked, Converted, Hooked):
        assert "__wrapped__" not in vars(cls.__init__)
    with pytest.raises(ValueError):
        Checked(1, "a", -1)
    assert Converted(1, "a", "4").level == 4  # type: ignore[arg-type]
    assert Hooked(1, "a", 2).level == 4


def test_a_cached_hash_keeps_attrs_own_init() -> None:
    @attrs.frozen(cache_hash=True)
    class Hashed(Event):
        level: int

    assert "__wrapped__" not in vars(Hashed.__init__)
    assert hash(Hashed(1, "a", 2)) == hash(Hashed(1, "a", 2))


def test_an_event_built_through_its_twin_is_of_its_own_class_and_frozen() -> None:
    """From three fields on, the slot init sets the fields on a mutable twin of the class
    and makes the object the class again: the object is of the class, frozen, equal to
    attrs' own; a plain subclass without an __init__ of its own keeps its class."""

    @attrs.frozen
    class Noted(Event):
        note: str
        level: int = 3

    class Louder(Noted):
        pass

    made, reference = _both(Noted, t=1, actor="a", note="x")
    assert type(made) is Noted and made == reference
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.note = "y"  # type: ignore[misc]
    louder = Louder(2, "b", "z", 4)
    assert type(louder) is Louder and (louder.t, louder.note, louder.level) == (2, "z", 4)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        louder.level = 5  # type: ignore[misc]


def test_an_event_s_maker_makes_what_its_class_makes() -> None:
    """maker(cls) makes, without calling the class, the object cls(...) makes: of the
    class, equal, frozen, defaults and factories included; the class itself for a class
    the slot init does not build through a twin, and for a native class of the compiled
    build (built by its own constructor, which compiled code calls directly)."""
    for cls in known_types().values():
        make = maker(cls)
        fields = [f for f in attrs.fields(cls) if f.init]
        values = {f.name: i if f.name == "t" else (f.name, i) for i, f in enumerate(fields)}
        if is_native(cls):
            assert make is cls, cls.__qualname__
            values = placeholders(cls)  # (a native class checks its fields' types)
        made = make(**values)
        assert type(made) is cls and made == cls(**values), cls.__qualname__
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            made.t = 1
        required = {f.name: values[f.name] for f in fields if f.default is attrs.NOTHING}
        assert make(**required) == cls(**required)
        args = [values[f.name] for f in fields]
        assert make(*args) == cls(*args)
    from segsim.eventbase import _twin

    @attrs.frozen
    class Drawn(Event):
        die: str
        value: int
        purpose: str

    # In both builds: the compiled one's native Event says its events take no weak
    # reference, so that the twin of an event class that stays a Python class (another
    # ruleset's, a user's) has the class's layout there too.
    assert _twin(Drawn) is not None
    assert maker(Drawn) is not Drawn

    @attrs.frozen(cache_hash=True)
    class Hashed(Event):
        level: int

    assert maker(Hashed) is Hashed


def test_the_hottest_events_functions_make_what_their_classes_make() -> None:
    """The engine's draw (``die_rolled``) and the RinKaNou settlement's most frequent
    events are made by functions of their modules: the class's maker in the pure build
    (no call of the class), a compiled function calling the native constructor directly
    in the compiled build. Either way, the object the class makes."""
    from segsim.events import DieRolled, die_rolled
    from segsim.rules.rinkanou import events as rk

    made = [
        (die_rolled(3, "a", "d100", 42, "test"), DieRolled(3, "a", "d100", 42, "test")),
        (rk.weapon_state(4, "b", True, False), rk.WeaponState(4, "b", True, False)),
        (
            rk.situation_changed(5, "c", 2, 6, ("d",), "result"),
            rk.SituationChanged(5, "c", 2, 6, ("d",), "result"),
        ),
        (
            rk.attack_resolved(6, "d", 7, "e", "cut", "parried"),
            rk.AttackResolved(6, "d", 7, "e", "cut", "parried"),
        ),
        (
            rk.wound_taken(7, "e", "d", "head", 9, 4, 6, "serious", -20, {"weapon": 3}),
            rk.WoundTaken(7, "e", "d", "head", 9, 4, 6, "serious", -20, {"weapon": 3}),
        ),
    ]
    for got, wanted in made:
        assert type(got) is type(wanted) and got == wanted, wanted
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            got.t = 1
    if not is_native(DieRolled):  # the pure build: each is its class's maker
        assert die_rolled is maker(DieRolled) is not DieRolled
        assert rk.weapon_state is maker(rk.WeaponState) is not rk.WeaponState
        assert rk.wound_taken is maker(rk.WoundTaken) is not rk.WoundTaken
