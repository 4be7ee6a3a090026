"""Value kinds, validation and the rendering of each kind in each place (DESIGN §3.1, §3.2, §5).

These tests exercise ``pigeon.values`` directly; the same table is checked end to end through
templates in ``test_render_places.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from datetime import time as dt_time
from decimal import Decimal
from typing import Any

import pytest

from pigeon.values import (
    MAX_DEPTH,
    check_name,
    check_value,
    compact_json,
    format_date,
    is_token,
    kind_of,
    parse_assignment,
    parse_literal,
    preview,
    to_json_string_content,
    to_json_value,
    to_literal,
    to_text,
    too_deep,
)

NAME_RULE = "^[A-Za-z0-9_.-]+$"
UTC = timezone.utc
D = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
D_ISO = "2024-01-02T03:04:05.678Z"


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run with the process in a UTC+9 zone (POSIX spelling, no tz database needed)."""
    if not hasattr(time, "tzset"):
        pytest.skip("the local zone can only be switched where time.tzset exists")
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# -- §3.2 names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["a", "A", "z9", "base_url", "api.key", "h.content-type", "2fa", "-", "_", "a.b.c", "X-Api"],
)
def test_check_name_accepts_the_rule(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "",
        "bad name",
        "é",
        "naïve",
        "a/b",
        "$env",
        "a{b",
        "a}b",
        "a[0]",
        "a\nb",
        "tab\t",
        "ü.x",
        "a:b",
    ],
)
def test_check_name_refuses_and_quotes_name_and_rule(name: str) -> None:
    with pytest.raises(ValueError) as exc:
        check_name(name)
    message = str(exc.value)
    assert NAME_RULE in message
    quoted = (f"'{name}'", f'"{name}"', repr(name), json.dumps(name))
    assert any(q in message for q in quoted), message


# -- §3.1 kinds ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("text", "string"),
        ("", "string"),
        (42, "integer"),
        (0, "integer"),
        (-7, "integer"),
        (9007199254740993, "integer"),
        (10**40, "integer"),
        (19.99, "float"),
        (0.0, "float"),
        (True, "boolean"),
        (False, "boolean"),
        (None, "null"),
        ({"a": 1}, "object"),
        ({}, "object"),
        ([1, 2], "array"),
        ([], "array"),
        (D, "date"),
        (datetime(2024, 1, 2, 3, 4, 5), "date"),
        (date(2024, 1, 2), "date"),
    ],
)
def test_kind_of(value: Any, kind: str) -> None:
    assert kind_of(value) == kind


# -- §3.1 validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "text",
        42,
        9007199254740993,
        10**100,
        -(10**60),
        19.99,
        True,
        False,
        None,
        {"a": 1, "b": [1, {"c": None}]},
        [1, "x", None, [True]],
        D,
        datetime(2024, 1, 2, 3, 4, 5),
        date(2024, 1, 2),
        {"when": D, "days": [date(2024, 1, 2)]},
    ],
)
def test_check_value_accepts_every_kind_unchanged(value: Any) -> None:
    out = check_value(value, "v")
    assert out == value
    assert type(out) is type(value)


@pytest.mark.parametrize("value", [10**100, 9007199254740993, -(2**521)])
def test_check_value_keeps_big_ints_exact(value: int) -> None:
    out = check_value(value, "big")
    assert out == value
    assert type(out) is int
    assert to_text(out) == str(value)
    assert to_json_value(out) == str(value)


@pytest.mark.parametrize("value", [True, False])
def test_check_value_bool_stays_bool(value: bool) -> None:
    out = check_value(value, "flag")
    assert out is value
    assert kind_of(out) == "boolean"
    assert to_text(out) == ("true" if value else "false")


def test_check_value_bool_never_becomes_one_inside_containers() -> None:
    out = check_value({"a": [True, 1, False, 0]}, "v")
    assert [type(x) for x in out["a"]] == [bool, int, bool, int]
    assert to_json_value(out) == '{"a":[true,1,false,0]}'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ((1, 2), [1, 2]),
        ((), []),
        ({"a": (1, (2, 3))}, {"a": [1, [2, 3]]}),
        ([(1,), ("x",)], [[1], ["x"]]),
    ],
)
def test_check_value_turns_tuples_into_lists(value: Any, expected: Any) -> None:
    out = check_value(value, "t")
    assert out == expected

    def no_tuples(v: Any) -> bool:
        if isinstance(v, tuple):
            return False
        if isinstance(v, list):
            return all(no_tuples(x) for x in v)
        if isinstance(v, dict):
            return all(no_tuples(x) for x in v.values())
        return True

    assert no_tuples(out)
    assert kind_of(out) == kind_of(expected)


@pytest.mark.parametrize(
    ("name", "value", "path"),
    [
        ("x", float("nan"), "x"),
        ("x", float("inf"), "x"),
        ("x", float("-inf"), "x"),
        ("xs", [1, float("nan")], "xs[1]"),
        ("user", {"tags": ["a", "b", float("inf")]}, "user.tags[2]"),
        ("user", {"tags": ["a", "b", {1, 2}]}, "user.tags[2]"),
        ("s", {1, 2}, "s"),
        ("fs", frozenset({1}), "fs"),
        ("b", b"bytes", "b"),
        ("ba", bytearray(b"x"), "ba"),
        ("o", object(), "o"),
        ("dec", Decimal("1.5"), "dec"),
        ("c", 1 + 2j, "c"),
        ("f", len, "f"),
        ("cfg", {"a": {"b": b"x"}}, "cfg.a.b"),
        ("m", [[1, 2], [3, object()]], "m[1][1]"),
        ("t", (1, b"x"), "t[1]"),
    ],
)
def test_check_value_refuses_naming_variable_and_path(name: str, value: Any, path: str) -> None:
    with pytest.raises(ValueError) as exc:
        check_value(value, name)
    assert path in str(exc.value)


@pytest.mark.parametrize(
    ("name", "value", "path"),
    [
        ("d", {1: "one"}, "d"),
        ("cfg", {"a": {2: "x"}}, "cfg.a"),
        ("xs", [{"ok": 1}, {None: 1}], "xs[1]"),
        ("k", {("a", "b"): 1}, "k"),
    ],
)
def test_check_value_refuses_non_string_keys(name: str, value: Any, path: str) -> None:
    with pytest.raises(ValueError) as exc:
        check_value(value, name)
    assert path in str(exc.value)


# -- §5 dates --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (D, D_ISO),
        (datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "2024-01-02T03:04:05.000Z"),
        # offset date-times are converted to UTC
        (
            datetime(2024, 1, 2, 5, 4, 5, 678000, tzinfo=timezone(timedelta(hours=2))),
            D_ISO,
        ),
        (
            datetime(2024, 1, 1, 22, 4, 5, 678000, tzinfo=timezone(timedelta(hours=-5))),
            D_ISO,
        ),
        (
            datetime(2024, 1, 2, 8, 34, 5, 678000, tzinfo=timezone(timedelta(hours=5, minutes=30))),
            D_ISO,
        ),
        # sub-millisecond digits are truncated, never rounded
        (datetime(2024, 1, 2, 3, 4, 5, 678900, tzinfo=UTC), D_ISO),
        (datetime(2024, 1, 2, 3, 4, 5, 999999, tzinfo=UTC), "2024-01-02T03:04:05.999Z"),
        (datetime(2024, 1, 2, 3, 4, 5, 999, tzinfo=UTC), "2024-01-02T03:04:05.000Z"),
        (datetime(2024, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "2024-12-31T23:59:59.999Z"),
        # a date is midnight UTC
        (date(2024, 1, 2), "2024-01-02T00:00:00.000Z"),
        (date(1999, 12, 31), "1999-12-31T00:00:00.000Z"),
    ],
)
def test_format_date(value: datetime | date, expected: str) -> None:
    assert format_date(value) == expected


@pytest.mark.usefixtures("local_tz")
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime(2024, 1, 2, 12, 4, 5, 678000), D_ISO),
        (datetime(2024, 1, 2, 3, 0, 0), "2024-01-01T18:00:00.000Z"),
        (datetime(2024, 1, 2, 12, 4, 5, 678999), D_ISO),
    ],
)
def test_format_date_naive_is_local_time(value: datetime, expected: str) -> None:
    assert format_date(value) == expected


@pytest.mark.usefixtures("local_tz")
def test_date_only_is_midnight_utc_even_in_another_zone() -> None:
    assert format_date(date(2024, 1, 2)) == "2024-01-02T00:00:00.000Z"


@pytest.mark.usefixtures("local_tz")
def test_aware_datetime_ignores_local_zone() -> None:
    assert format_date(D) == D_ISO


# -- §5 the table, one row per kind, three places ---------------------------------------------

OBJ = {"a": [1, 2]}
NESTED = {"name": "Zoë", "at": D, "day": date(2024, 1, 2), "n": None, "ok": True, "x": 2.5}
NESTED_JSON = (
    '{"name":"Zoë","at":"2024-01-02T03:04:05.678Z","day":"2024-01-02T00:00:00.000Z",'
    '"n":null,"ok":true,"x":2.5}'
)

# (value, text place, inside a JSON string literal, JSON value place)
TABLE: list[tuple[Any, str, str, str]] = [
    ("plain", "plain", "plain", "plain"),
    ("", "", "", ""),
    ('say "hi"', 'say "hi"', 'say \\"hi\\"', 'say "hi"'),
    ("back\\slash", "back\\slash", "back\\\\slash", "back\\slash"),
    ("two\nlines", "two\nlines", "two\\nlines", "two\nlines"),
    ("a b&c=d/e?f#g%20", "a b&c=d/e?f#g%20", "a b&c=d/e?f#g%20", "a b&c=d/e?f#g%20"),
    ('[1, "x"]', '[1, "x"]', '[1, \\"x\\"]', '[1, "x"]'),
    ("Zoë ✓", "Zoë ✓", "Zoë ✓", "Zoë ✓"),
    (42, "42", "42", "42"),
    (0, "0", "0", "0"),
    (-7, "-7", "-7", "-7"),
    (9007199254740993, "9007199254740993", "9007199254740993", "9007199254740993"),
    (10**30, str(10**30), str(10**30), str(10**30)),
    (0.1, "0.1", "0.1", "0.1"),
    (2.5, "2.5", "2.5", "2.5"),
    (19.99, "19.99", "19.99", "19.99"),
    (1e21, "1e+21", "1e+21", "1e+21"),
    (1e-7, "1e-07", "1e-07", "1e-07"),
    (100.0, "100.0", "100.0", "100.0"),
    (-0.5, "-0.5", "-0.5", "-0.5"),
    (True, "true", "true", "true"),
    (False, "false", "false", "false"),
    (None, "null", "null", "null"),
    (OBJ, '{"a":[1,2]}', '{\\"a\\":[1,2]}', '{"a":[1,2]}'),
    ([1, "two", None], '[1,"two",null]', '[1,\\"two\\",null]', '[1,"two",null]'),
    ({}, "{}", "{}", "{}"),
    ([], "[]", "[]", "[]"),
    ({"q": 'a"b'}, '{"q":"a\\"b"}', '{\\"q\\":\\"a\\\\\\"b\\"}', '{"q":"a\\"b"}'),
    (
        {"big": 9007199254740993},
        '{"big":9007199254740993}',
        '{\\"big\\":9007199254740993}',
        '{"big":9007199254740993}',
    ),
    (NESTED, NESTED_JSON, NESTED_JSON.replace('"', '\\"'), NESTED_JSON),
    (D, D_ISO, D_ISO, f'"{D_ISO}"'),
    (
        date(2024, 1, 2),
        "2024-01-02T00:00:00.000Z",
        "2024-01-02T00:00:00.000Z",
        '"2024-01-02T00:00:00.000Z"',
    ),
]


@pytest.mark.parametrize(("value", "text", "in_string", "json_value"), TABLE)
def test_to_text(value: Any, text: str, in_string: str, json_value: str) -> None:
    assert to_text(value) == text


@pytest.mark.parametrize(("value", "text", "in_string", "json_value"), TABLE)
def test_to_json_string_content(value: Any, text: str, in_string: str, json_value: str) -> None:
    assert to_json_string_content(value) == in_string
    # whatever it is, it is valid content for a JSON string carrying the text form
    assert json.loads(f'"{to_json_string_content(value)}"') == text


@pytest.mark.parametrize(("value", "text", "in_string", "json_value"), TABLE)
def test_to_json_value(value: Any, text: str, in_string: str, json_value: str) -> None:
    assert to_json_value(value) == json_value


@pytest.mark.parametrize(
    "value",
    ["tab\there", "cr\rhere", "nul\x00here", "bell\x07", "uni\u2028line", "emoji 🐦"],
)
def test_json_string_content_escapes_control_characters(value: str) -> None:
    content = to_json_string_content(value)
    assert json.loads(f'"{content}"') == value
    assert not any(ord(c) < 0x20 for c in content)


@pytest.mark.parametrize(
    "value", [0.1, 2.5, 1e21, 1e-7, 123456789.123, 5e-324, 1.7976931348623157e308, 1 / 3]
)
def test_float_is_shortest_round_trip(value: float) -> None:
    assert to_text(value) == json.dumps(value)
    assert float(to_text(value)) == value


def test_object_keeps_key_order_and_non_ascii() -> None:
    value = {"z": 1, "a": {"ü": "ß"}, "m": [date(2024, 1, 2)]}
    assert to_text(value) == '{"z":1,"a":{"ü":"ß"},"m":["2024-01-02T00:00:00.000Z"]}'


@pytest.mark.usefixtures("local_tz")
def test_naive_datetime_inside_object_is_converted_to_utc() -> None:
    assert to_json_value({"at": datetime(2024, 1, 2, 12, 4, 5, 678000)}) == f'{{"at":"{D_ISO}"}}'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (date(999, 1, 1), "0999-01-01T00:00:00.000Z"),
        (date(1, 1, 1), "0001-01-01T00:00:00.000Z"),
        (datetime(5, 6, 7, 8, 9, 10, 11000, tzinfo=UTC), "0005-06-07T08:09:10.011Z"),
        (date(9999, 12, 31), "9999-12-31T00:00:00.000Z"),
    ],
)
def test_format_date_always_writes_four_digit_years(value: datetime | date, expected: str) -> None:
    # ISO 8601 years have four digits; "999-01-01" is not an ISO date.
    assert format_date(value) == expected


@pytest.mark.parametrize("value", [dt_time(3, 4, 5), timedelta(seconds=1), range(3), iter([1])])
def test_check_value_refuses_other_standard_types(value: Any) -> None:
    with pytest.raises(ValueError) as exc:
        check_value(value, "other")
    assert "other" in str(exc.value)


# -- nesting: the one limit every walker of a value relies on -------------------------------


def nested(levels: int, inner: Any = 1, kind: str = "list") -> Any:
    """``levels`` arrays (or objects) one inside the other around ``inner``."""
    value = inner
    for _ in range(levels):
        value = [value] if kind == "list" else {"k": value}
    return value


@pytest.mark.parametrize("kind", ["list", "dict"])
@pytest.mark.parametrize("inner", [1, "s", None, [], {}])
def test_too_deep_is_exactly_what_check_value_refuses(kind: str, inner: Any) -> None:
    # The importers drop what too_deep names: a value the app would accept must survive.
    for levels in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1):
        value = nested(levels, inner, kind)
        try:
            check_value(value, "v")
        except ValueError as exc:
            assert "nest more than 64 deep" in str(exc)
            assert too_deep(value), levels
        else:
            assert not too_deep(value), levels
    assert not too_deep(nested(MAX_DEPTH, 1, kind))
    assert too_deep(nested(MAX_DEPTH + 2, 1, kind))
    assert too_deep({"ok": 1, "deep": nested(MAX_DEPTH, [])})
    assert too_deep((1, nested(MAX_DEPTH, [])))


def test_the_importers_nesting_guard_keeps_what_the_app_accepts() -> None:
    from pigeon.importers.common import ImportResult
    from pigeon.importers.write import sanitize

    result = ImportResult(name="t")
    result.variables = {"fine": nested(MAX_DEPTH + 1), "deep": nested(MAX_DEPTH + 1, [])}
    sanitize(result)
    assert result.variables == {"fine": nested(MAX_DEPTH + 1), "deep": ""}
    assert len(result.notes) == 1 and "variable deep:" in result.notes[0]


# -- tokens, previews, literals and assignments ---------------------------------------------


@pytest.mark.parametrize("text", ["GET", "X-Custom_1", "!#$%&'*+.^_`|~"])
def test_is_token(text: str) -> None:
    assert is_token(text)


@pytest.mark.parametrize("text", ["", "a b", "a:b", "é", "a\n", "(x)"])
def test_is_not_token(text: str) -> None:
    assert not is_token(text)


def test_preview_is_one_line_within_its_limit() -> None:
    assert preview("a\nb") == '"a\\nb"'
    assert preview(1.5) == "1.5"
    assert preview({"a": [1, None]}) == '{"a":[1,null]}'
    assert preview("x" * 78) == '"' + "x" * 78 + '"'  # 80 characters: kept whole
    assert preview("x" * 79) == '"' + "x" * 78 + "…"
    assert preview("abcdef", limit=5) == '"abc…'


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        (" 42 ", 42),
        ("true", True),
        ("1.5", 1.5),
        ("[1, 2]", [1, 2]),
        ("{a = 1}", {"a": 1}),
        ('{"a": null}', {"a": None}),
        ('"quoted"', "quoted"),
        ("1979-05-27", date(1979, 5, 27)),
        ("hello", "hello"),
        ("  ", "  "),
        ("", ""),
        ("[" * 5000, "[" * 5000),
        ("{" * 5000, "{" * 5000),
    ],
)
def test_parse_literal(text: str, value: Any) -> None:
    assert parse_literal(text) == value
    assert type(parse_literal(text)) is type(value)


@pytest.mark.parametrize(
    "value", ["42", "x", "true", " 1", "", 7, 1.5, False, None, [1, "a"], {"a": {"b": 1}}, D]
)
def test_to_literal_round_trips(value: Any) -> None:
    assert parse_literal(to_literal(value)) == value


def test_to_literal_writes() -> None:
    assert to_literal("42") == '"42"'
    assert to_literal("plain") == "plain"
    assert to_literal(date(2024, 1, 2)) == "2024-01-02"
    assert to_literal({"a": [1, True]}) == '{"a":[1,true]}'
    assert to_literal("é") == "é"


def test_parse_assignment() -> None:
    assert parse_assignment("s=a=b") == ("s", "a=b")
    assert parse_assignment("s=") == ("s", "")
    assert parse_assignment("n:=[1, 2]") == ("n", [1, 2])
    assert parse_assignment("n:= 5") == ("n", 5)
    assert parse_assignment('e:="é"') == ("e", "é")
    assert parse_assignment("a:=1") == ("a", 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("novalue", "'novalue': expected NAME=TEXT or NAME:=JSON"),
        ("=x", "'=x': expected NAME=TEXT or NAME:=JSON"),
        (":=1", "invalid variable name ':'"),
        ("a b=1", "invalid variable name 'a b'"),
        ("a:=[1", "a:= is not valid JSON: Expecting ',' delimiter (column 3)"),
        ("a:=" + "[" * 100_000, "a:= nests more than 64 levels deep"),
        ("a:=" + "[" * 70 + "]" * 70, "variable a"),
        ("a:=NaN", "variable a: nan is not a finite number"),
    ],
)
def test_parse_assignment_refuses(text: str, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_assignment(text)
    assert message in str(exc.value)


def test_messages_name_the_kind_that_was_refused() -> None:
    with pytest.raises(ValueError, match=r"^variable v: object keys must be strings, got int 1$"):
        check_value({1: "x"}, "v")
    with pytest.raises(ValueError, match=r"^variable v\[0\]: a value of type bytes cannot be"):
        check_value([b"x"], "v")
    with pytest.raises(TypeError, match=r"^not a variable value: object$"):
        kind_of(object())
    with pytest.raises(TypeError, match=r"^not a variable value: bytes$"):
        compact_json({"a": b"x"})
    with pytest.raises(ValueError, match="invalid variable name 5"):
        check_name(5)


@pytest.mark.parametrize(
    ("key", "path"),
    [("plain", "v.plain"), ("a.b", 'v["a.b"]'), ("a b", 'v["a b"]'), ("é", 'v["\\u00e9"]')],
)
def test_a_refused_value_is_named_by_its_path(key: str, path: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_value({key: float("nan")}, "v")
    assert str(caught.value) == f"variable {path}: nan is not a finite number"


def test_non_ascii_is_kept_in_previews_and_literals() -> None:
    assert preview("é") == '"é"'
    assert to_literal('"é"') == '"\\"é\\""'


def test_an_int_subclass_is_written_as_its_number() -> None:
    class Port(int):
        pass

    assert to_text(Port(8080)) == "8080"
