"""Placeholder syntax, lookup, dynamic values and values that contain placeholders (DESIGN §4)."""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections.abc import Callable
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pigeon.expand import Renderer
from pigeon.model import Collection
from pigeon.render import MAX_DEPTH, RenderResult, render_json, render_text, render_value
from pigeon.scopes import Layer, RuntimeVars, Scopes, build_scopes
from pigeon.template import Placeholder, has_placeholder, parse, parse_expr, parse_json

Render = Callable[..., RenderResult]


@pytest.fixture
def render(tmp_path: Path) -> Render:
    """Render ``text`` with ``variables`` set as runtime variables (any Python kind, incl. null)."""

    def go(
        text: str,
        variables: dict[str, Any] | None = None,
        *,
        json_body: bool = False,
        environ: dict[str, str] | None = None,
    ) -> RenderResult:
        collection = Collection(name="t", root=tmp_path)
        runtime = RuntimeVars()
        for name, value in (variables or {}).items():
            runtime.set(name, value)
        scopes = build_scopes(collection, [], None, runtime=runtime, environ=environ or {})
        return (render_json if json_body else render_text)(text, scopes)

    return go


def placeholders(text: str) -> list[tuple[str, str]]:
    return [(s.raw, s.expr) for s in parse(text).segments if isinstance(s, Placeholder)]


def rebuild(text: str) -> str:
    return "".join(s.raw if isinstance(s, Placeholder) else s for s in parse(text).segments)


# -- parse -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{x}}", [("{{x}}", "x")]),
        ("a {{ x }} b", [("{{ x }}", "x")]),
        ("{{   user.name  }}", [("{{   user.name  }}", "user.name")]),
        ("{{a}}{{b}}", [("{{a}}", "a"), ("{{b}}", "b")]),
        ("{{{x}}}", [("{{x}}", "x")]),
        ('{"u":{{obj}}}', [("{{obj}}", "obj")]),
        ("{{ '{{' }}", [("{{ '{{' }}", "'{{'")]),
        ('{{ "x" }}', [('{{ "x" }}', '"x"')]),
        ("{{ '}}' }}", [("{{ '}}' }}", "'}}'")]),
        (
            '{{name["key with . or spaces"]}}',
            [('{{name["key with . or spaces"]}}', 'name["key with . or spaces"]')],
        ),
        ("{{$uuid}} {{ $env.HOME }}", [("{{$uuid}}", "$uuid"), ("{{ $env.HOME }}", "$env.HOME")]),
        ("{{process.env.HOME}}", [("{{process.env.HOME}}", "process.env.HOME")]),
        ("{{}}", []),
        ("{{ }}", []),
        ("{{ a b }}", []),
        ("{{#each}}", []),
        ("{{/each}}", []),
        ("{{x", []),
        ("x}}", []),
        ("{ {x} }", []),
        ("plain text", []),
        ("", []),
    ],
)
def test_parse_finds_placeholders(text: str, expected: list[tuple[str, str]]) -> None:
    assert placeholders(text) == expected
    assert rebuild(text) == text


def test_parse_is_cached() -> None:
    text = "cache {{me}} " + str(time.time())
    assert parse(text) is parse(text)


# -- paths (§4.1, §4.2) ----------------------------------------------------------------------

VARS: dict[str, Any] = {
    "name": "Ada",
    "user": {
        "id": 7,
        "name": "Ada",
        "tags": ["a", "b", "c"],
        "address": {"city": "Oslo"},
        "key with . or spaces": "odd",
    },
    "a": {"b": {"c": "deep"}},
    "items": [{"key": "first"}, {"key": "second"}],
    "cfg": {"list": [10, 20, 30]},
    "m": [[1, 2], [3, 4]],
    "h": {"content-type": "application/json"},
    "u": {"2fa": "on", "2": "two"},
    "s": "abc",
    "n": 5,
    "f": 2.5,
    "yes": True,
    "nul": None,
    "empty": "",
    "when": datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc),
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{name}}", "Ada"),
        ("{{user.name}}", "Ada"),
        ("{{user.id}}", "7"),
        ("{{a.b.c}}", "deep"),
        ("{{a.b}}", '{"c":"deep"}'),
        ("{{items[0]}}", '{"key":"first"}'),
        ("{{items[0].key}}", "first"),
        ("{{items[1].key}}", "second"),
        ("{{cfg.list[1]}}", "20"),
        ("{{user.tags[0]}}", "a"),
        ('{{user["key with . or spaces"]}}', "odd"),
        ('{{user["name"]}}', "Ada"),
        ("{{m[1][0]}}", "3"),
        ("{{m[0][1]}}", "2"),
        ("{{user.tags[-1]}}", "c"),
        ("{{user.tags[-3]}}", "a"),
        ("{{m[-1][-2]}}", "3"),
        ("{{h.content-type}}", "application/json"),
        ("{{u.2fa}}", "on"),
        ("{{u.2}}", "two"),
        ("{{user.tags}}", '["a","b","c"]'),
        ("{{user.address}}", '{"city":"Oslo"}'),
        ("{{f}}", "2.5"),
        ("{{yes}}", "true"),
        ("{{nul}}", "null"),
        ("{{empty}}", ""),
        ("{{when}}", "2024-01-02T03:04:05.678Z"),
        ("{{ name }}", "Ada"),
        ("{{   user.name}}", "Ada"),
        ("{{user.name    }}", "Ada"),
        ("{{ m[1][0] }}", "3"),
        ("Hi {{name}}, you are #{{user.id}}!", "Hi Ada, you are #7!"),
        ("{{name}}{{name}}", "AdaAda"),
        ("{{{name}}}", "{Ada}"),
        ("{{{{name}}}}", "{{Ada}}"),
        ("{{ '{{' }}", "{{"),
        ("{{ '}}' }}", "}}"),
        ('{{ "x" }}', "x"),
        ("{{'x'}}", "x"),
        ("{{ 'a b.c' }}", "a b.c"),
        ("{{ '' }}", ""),
        ('{{ "it\'s" }}', "it's"),
        ("{{ '{{name}}' }}", "{{name}}"),
        ("{{ '{{' }}name}}", "{{name}}"),
    ],
)
def test_path_forms_render(render: Render, text: str, expected: str) -> None:
    result = render(text, VARS)
    assert result.text == expected
    assert result.unresolved == []


@pytest.mark.parametrize(
    "text",
    [
        "{{}}",
        "{{ }}",
        "{{ a b }}",
        "{{#each}}",
        "{{#each items}}",
        "{{/if}}",
        "{{x",
        "{{ name",
        "{{name",
        "}}",
        "{ {name} }",
        "{{!comment}}",
    ],
)
def test_invalid_placeholder_text_is_plain(render: Render, text: str) -> None:
    result = render(text, VARS)
    assert result.text == text
    assert result.unresolved == []
    assert result.warnings == []


def test_plain_text_next_to_a_real_placeholder(render: Render) -> None:
    result = render("{{ a b }} {{name}} {{#each}} {{x", VARS)
    assert result.text == "{{ a b }} Ada {{#each}} {{x"
    assert result.unresolved == []


def test_json_body_object_closes_after_placeholder(render: Render) -> None:
    result = render('{"u":{{user.address}}}', VARS, json_body=True)
    assert result.text == '{"u":{"city":"Oslo"}}'
    assert result.warnings == []


@pytest.mark.parametrize(
    "text",
    [
        "{{missing}}",
        "{{ missing }}",
        "{{  missing.key  }}",
        "{{user.nope}}",
        "{{user.address.zip}}",
        "{{user.tags[3]}}",
        "{{user.tags[-4]}}",
        "{{m[2][0]}}",
        "{{m[0][5]}}",
        "{{items[0].nope}}",
        '{{user["nope"]}}',
        "{{n.x}}",
        "{{n[0]}}",
        "{{nul.x}}",
        "{{yes.x}}",
        "{{s.x}}",
        "{{user.name.first}}",
        "{{user.id.value}}",
        "{{when.year}}",
        "{{ user.tags[9] }}",
    ],
)
def test_undefined_is_left_exactly_as_written(render: Render, text: str) -> None:
    result = render(f"before {text} after", VARS)
    assert result.text == f"before {text} after"
    assert result.unresolved == [text[2:-2].strip()]


@pytest.mark.parametrize(
    "text",
    [
        "{{s.upper}}",
        "{{s.__class__}}",
        "{{s[0]}}",
        "{{s.length}}",
        "{{items.length}}",
        "{{items.__len__}}",
        "{{user.keys}}",
        "{{user.items}}",
        "{{user.get}}",
        "{{user.__class__}}",
        "{{n.real}}",
        "{{f.is_integer}}",
        "{{user.tags.count}}",
    ],
)
def test_no_attribute_or_method_access(render: Render, text: str) -> None:
    result = render(text, VARS)
    assert result.text == text
    assert result.unresolved == [text[2:-2].strip()]


def test_unresolved_is_deduplicated_in_order(render: Render) -> None:
    result = render("{{x}}{{ x }}{{y}} {{name}} {{x}}{{user.nope}}{{y}}", VARS)
    assert result.text == "{{x}}{{ x }}{{y}} Ada {{x}}{{user.nope}}{{y}}"
    assert result.unresolved == ["x", "y", "user.nope"]


def test_flat_dotted_name_wins_over_path(render: Render) -> None:
    result = render(
        "{{api.key}} {{api.other}}", {"api.key": "flat", "api": {"key": "nested", "other": "o"}}
    )
    assert result.text == "flat o"


def test_flat_dotted_name_alone(render: Render) -> None:
    assert render("{{ api.key }}", {"api.key": "flat"}).text == "flat"


def test_flat_dotted_name_then_nothing_more(render: Render) -> None:
    # the flat name is only used when it is the whole path text
    result = render("{{api.key.x}}", {"api.key": {"x": 1}})
    assert result.text == "{{api.key.x}}"
    assert result.unresolved == ["api.key.x"]


# -- dynamic values --------------------------------------------------------------------------

ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@pytest.mark.parametrize("name", ["$uuid", "$guid", "$randomUUID"])
def test_uuid_is_valid_and_fresh_per_occurrence(render: Render, name: str) -> None:
    result = render(f"{{{{{name}}}}} {{{{ {name} }}}}")
    first, second = result.text.split(" ")
    for text in (first, second):
        assert len(text) == 36
        assert str(uuid.UUID(text)) == text
    assert first != second
    assert result.unresolved == []


def test_uuid_fresh_across_renders(render: Render) -> None:
    assert render("{{$uuid}}").text != render("{{$uuid}}").text


def test_timestamp_is_unix_seconds_now(render: Render) -> None:
    before = int(time.time())
    text = render("{{$timestamp}}").text
    after = int(time.time())
    assert re.fullmatch(r"\d+", text)
    assert before - 1 <= int(text) <= after + 1


def test_iso_timestamp_is_now_in_utc(render: Render) -> None:
    text = render("{{$isoTimestamp}}").text
    assert ISO_MS.match(text), text
    parsed = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    assert abs(parsed.timestamp() - time.time()) < 5


def test_random_int_in_range(render: Render) -> None:
    text = render(" ".join(["{{$randomInt}}"] * 300)).text
    numbers = [int(x) for x in text.split(" ")]
    assert all(0 <= x <= 1000 for x in numbers)
    assert all(re.fullmatch(r"\d+", x) for x in text.split(" "))
    assert len(set(numbers)) > 1


def test_random_boolean(render: Render) -> None:
    words = render(" ".join(["{{$randomBoolean}}"] * 200)).text.split(" ")
    assert set(words) == {"true", "false"}


def test_dynamic_values_in_json_value_place(render: Render) -> None:
    result = render(
        '{"n": {{$randomInt}}, "b": {{$randomBoolean}}, "t": {{$timestamp}}, "u": "{{$uuid}}",'
        ' "i": "{{$isoTimestamp}}"}',
        json_body=True,
    )
    data = json.loads(result.text)
    assert type(data["n"]) is int
    assert type(data["b"]) is bool
    assert type(data["t"]) is int
    uuid.UUID(data["u"])
    assert ISO_MS.match(data["i"])
    assert result.warnings == []


# -- values that contain placeholders (§4.3) ---------------------------------------------------


def test_string_value_is_rendered(render: Render) -> None:
    result = render("{{greeting}}", {"greeting": "Hello {{name}}!", "name": "Ada"})
    assert result.text == "Hello Ada!"
    assert result.unresolved == []


def test_rendering_is_transitive(render: Render) -> None:
    variables = {"url": "{{base}}/v1", "base": "http://{{host}}:{{port}}", "host": "h", "port": 80}
    assert render("{{url}}/users", variables).text == "http://h:80/v1/users"


def test_nested_strings_in_objects_and_arrays_are_rendered(render: Render) -> None:
    variables = {
        "name": "Ada",
        "user": {"greet": "hi {{name}}", "tags": ["{{name}}", "x{{name}}"], "deep": {"n": "{{n}}"}},
        "n": 3,
    }
    result = render("{{user}}|{{user.greet}}|{{user.tags[1]}}", variables)
    assert result.text == '{"greet":"hi Ada","tags":["Ada","xAda"],"deep":{"n":3}}|hi Ada|xAda'


def test_alias_takes_value_and_kind_of_object(render: Render) -> None:
    variables = {"alias": "{{obj}}", "obj": {"x": 1, "s": "t"}}
    assert render("{{alias}}", variables).text == '{"x":1,"s":"t"}'
    body = render('{"v": {{alias}}, "w": "{{alias}}"}', variables, json_body=True).text
    assert body == '{"v": {"x":1,"s":"t"}, "w": "{\\"x\\":1,\\"s\\":\\"t\\"}"}'


def test_alias_allows_a_path_through_it(render: Render) -> None:
    variables = {"alias": "{{ obj }}", "obj": {"x": {"y": [5, 6]}}}
    assert render("{{alias.x.y[1]}}", variables).text == "6"


def test_alias_of_integer_is_bare(render: Render) -> None:
    variables = {"alias": "{{num}}", "num": 9007199254740993}
    assert render('{"v": {{alias}}}', variables, json_body=True).text == '{"v": 9007199254740993}'


def test_alias_of_date_is_quoted_in_json_value_place(render: Render) -> None:
    variables = {"alias": "{{when}}", "when": date(2024, 1, 2)}
    result = render('{"v": {{alias}}}', variables, json_body=True)
    assert result.text == '{"v": "2024-01-02T00:00:00.000Z"}'


def test_alias_of_null(render: Render) -> None:
    variables = {"alias": "{{nothing}}", "nothing": None}
    assert render('{"v": {{alias}}}', variables, json_body=True).text == '{"v": null}'


def test_string_with_more_than_a_placeholder_is_a_string(render: Render) -> None:
    variables = {"s": " {{when}}", "when": date(2024, 1, 2)}
    assert (
        render('{"v": "{{s}}"}', variables, json_body=True).text
        == '{"v": " 2024-01-02T00:00:00.000Z"}'
    )


def test_alias_to_missing_variable_is_left_as_written(render: Render) -> None:
    result = render("{{alias}}", {"alias": "{{ nope }}"})
    assert result.text == "{{ nope }}"
    assert "nope" in result.unresolved


@pytest.mark.timeout(10)
def test_two_step_cycle(render: Render) -> None:
    result = render("{{a}}", {"a": "{{b}}", "b": "{{a}}"})
    assert result.text == "{{a}}"
    assert any("cycle: a -> b -> a" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_cycle_with_text_leaves_closing_placeholder(render: Render) -> None:
    variables = {"a": "A{{b}}", "b": "B{{ a }}"}
    result = render("{{a}}", variables)
    assert result.text == "AB{{ a }}"
    assert any("cycle: a -> b -> a" in w for w in result.warnings), result.warnings
    result = render("{{b}}", variables)
    assert result.text == "BA{{b}}"
    assert any("cycle: b -> a -> b" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_self_reference(render: Render) -> None:
    result = render("{{a}}", {"a": "x{{a}}"})
    assert result.text == "x{{a}}"
    assert any("cycle: a -> a" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_three_step_cycle(render: Render) -> None:
    result = render("<{{a}}>", {"a": "1{{b}}", "b": "2{{c}}", "c": "3{{a}}"})
    assert result.text == "<123{{a}}>"
    assert any("cycle: a -> b -> c -> a" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_cycle_through_object(render: Render) -> None:
    result = render("{{o}}", {"o": {"k": "{{o.k}}"}})
    assert result.text == '{"k":"{{o.k}}"}'
    assert any("cycle: " in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_reusing_a_variable_twice_is_not_a_cycle(render: Render) -> None:
    result = render("{{a}}", {"a": "{{b}}-{{b}}", "b": "{{c}}", "c": "z"})
    assert result.text == "z-z"
    assert result.warnings == []


def test_output_is_never_rescanned(render: Render) -> None:
    variables = {"x": "X", "lit": "{{ '{{' }}x}}", "brace": "{{ '{' }}{x}}"}
    result = render("{{lit}} {{ '{{x}}' }} {{brace}}", variables)
    assert result.text == "{{x}} {{x}} {{x}}"
    assert result.unresolved == []


@pytest.mark.parametrize("text", ["{{$foo}}", "{{ $env }}", "{{$uuidd}}", "{{ $ }}", "{{$env.}}"])
def test_unknown_dollar_expression_is_plain_text(render: Render, text: str) -> None:
    # "expr is one of" a path, a listed dynamic value, $env.NAME or a literal; anything
    # else "is plain text: left as written and not reported".
    result = render(text, VARS)
    assert result.text == text
    assert result.unresolved == []


def test_unresolved_inside_a_variable_is_reported(render: Render) -> None:
    result = render("{{greeting}}", {"greeting": "Hi {{ who }}!"})
    assert result.text == "Hi {{ who }}!"
    assert result.unresolved == ["who"]


def test_literal_in_json_value_place_is_as_is(render: Render) -> None:
    result = render('{"a": {{ "1" }}, "b": "{{ \'x\' }}"}', json_body=True)
    assert result.text == '{"a": 1, "b": "x"}'


def cycle_scopes(tmp_path: Path) -> Scopes:
    runtime = RuntimeVars()
    runtime.set("a", "A{{b}}")
    runtime.set("b", "B{{a}}")
    return build_scopes(Collection(name="t", root=tmp_path), [], None, runtime=runtime, environ={})


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("text", "expected"),
    [("{{a}}|{{b}}", "AB{{a}}|BA{{b}}"), ("{{b}}|{{a}}", "BA{{b}}|AB{{a}}")],
)
def test_cycle_closes_at_the_name_it_started_from(tmp_path: Path, text: str, expected: str) -> None:
    # each placeholder starts its own walk: "the placeholder that closes the cycle stays verbatim"
    result = render_text(text, cycle_scopes(tmp_path))
    assert result.text == expected
    assert any("cycle: a -> b -> a" in w for w in result.warnings), result.warnings
    assert any("cycle: b -> a -> b" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_same_scopes_render_the_same_way_twice(tmp_path: Path) -> None:
    scopes = cycle_scopes(tmp_path)
    first = render_text("{{a}}", scopes)
    second = render_text("{{b}}|{{a}}", scopes)
    third = render_text("{{a}}", scopes)
    assert first.text == third.text == "AB{{a}}"
    assert second.text == "BA{{b}}|AB{{a}}"
    for result in (first, second, third):
        assert any("cycle: a -> b -> a" in w for w in result.warnings), result.warnings


def test_dynamic_value_inside_a_variable_is_fresh_on_each_render(tmp_path: Path) -> None:
    runtime = RuntimeVars()
    runtime.set("request_id", "{{$uuid}}")
    scopes = build_scopes(
        Collection(name="t", root=tmp_path), [], None, runtime=runtime, environ={}
    )
    seen = [render_text("{{request_id}}", scopes).text for _ in range(2)]
    seen += render_text("{{request_id}} {{request_id}}", scopes).text.split()[:1]
    seen += [render_text("{{request_id}}", scopes).text for _ in range(2)]
    for text in seen:
        uuid.UUID(text)
    assert len(set(seen)) == len(seen), seen


def test_dynamic_value_inside_a_variable_is_fresh_per_use(render: Render) -> None:
    # the string value is rendered before each use, and $uuid is fresh per occurrence
    first, second = render(
        "{{request_id}} {{request_id}}", {"request_id": "{{$uuid}}"}
    ).text.split()
    assert first != second


def test_changed_runtime_value_is_seen_by_the_next_render(tmp_path: Path) -> None:
    collection = Collection(name="t", root=tmp_path, variables={"greeting": "Hi {{name}}"})
    runtime = RuntimeVars()
    runtime.set("name", "Ada")
    scopes = build_scopes(collection, [], None, runtime=runtime, environ={})
    assert render_text("{{greeting}}", scopes).text == "Hi Ada"
    runtime.set("name", "Bob")
    assert render_text("{{greeting}}", scopes).text == "Hi Bob"


def test_alias_of_a_path_takes_its_kind(render: Render) -> None:
    variables = {"alias": "{{obj.when}}", "obj": {"when": date(2024, 1, 2)}}
    result = render('{"v": {{alias}}}', variables, json_body=True)
    assert result.text == '{"v": "2024-01-02T00:00:00.000Z"}'


@pytest.mark.timeout(20)
@pytest.mark.parametrize("depth", [50, 64, 65, 400, 2000])
def test_long_alias_chain_never_raises(tmp_path: Path, depth: int) -> None:
    # robustness: a render must never fail with RecursionError, however deep the chain; a
    # chain of up to 64 aliases resolves, a longer one stops where it passes the limit
    variables = {f"v{i}": f"{{{{v{i + 1}}}}}" for i in range(depth)}
    variables[f"v{depth}"] = "end"
    scopes = build_scopes(
        Collection(name="t", root=tmp_path, variables=variables), [], None, environ={}
    )
    result = render_text("<{{v0}}>", scopes)
    if depth <= MAX_DEPTH:
        assert (result.text, result.warnings, result.unresolved) == ("<end>", [], [])
    else:
        assert result.text == "<{{v64}}>" and result.unresolved == []
        assert result.warnings == ["nesting deeper than 64 levels at v64; left as written"]


@pytest.mark.timeout(20)
def test_doubling_chain_renders_quickly(tmp_path: Path) -> None:
    variables = {f"e{i}": f"{{{{e{i + 1}}}}}{{{{e{i + 1}}}}}" for i in range(16)}
    variables["e16"] = "x"
    scopes = build_scopes(
        Collection(name="t", root=tmp_path, variables=variables), [], None, environ={}
    )
    started = time.monotonic()
    result = render_text("{{e0}}", scopes)
    assert result.text == "x" * 2**16
    assert time.monotonic() - started < 5


NESTED_ALIASES: dict[str, Any] = {
    "o": {"inner": "{{p}}", "n": "{{num}}", "d": ["{{day}}"], "m": "{{missing}}"},
    "p": {"x": 1},
    "num": 5,
    "day": date(2024, 1, 2),
}


def test_nested_alias_takes_value_and_kind(render: Render) -> None:
    result = render("{{o}}", NESTED_ALIASES)
    assert result.text == (
        '{"inner":{"x":1},"n":5,"d":["2024-01-02T00:00:00.000Z"],"m":"{{missing}}"}'
    )
    assert result.unresolved == ["missing"]
    body = render('{"v": {{o.d}}}', NESTED_ALIASES, json_body=True)
    assert body.text == '{"v": ["2024-01-02T00:00:00.000Z"]}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [("{{o.inner.x}}", "1"), ("{{o.d[0]}}", "2024-01-02T00:00:00.000Z"), ("{{o.n}}", "5")],
)
def test_unresolved_lists_only_what_the_output_keeps(
    render: Render, text: str, expected: str
) -> None:
    # o.m is never used here, so its {{missing}} is not left anywhere in the output
    result = render(text, NESTED_ALIASES)
    assert result.text == expected
    assert result.unresolved == []


@pytest.mark.timeout(10)
def test_nested_string_may_use_a_sibling_key(render: Render) -> None:
    # cfg.url needs cfg.host, which needs nothing: there is no cycle to report
    variables = {"cfg": {"host": "h", "url": "http://{{cfg.host}}/v1"}}
    result = render("{{cfg.url}}|{{cfg}}", variables)
    assert result.text == 'http://h/v1|{"host":"h","url":"http://h/v1"}'
    assert result.warnings == []


@pytest.mark.timeout(10)
def test_nested_string_using_itself_is_a_cycle(render: Render) -> None:
    result = render("{{o.a}}", {"o": {"a": "x{{o.a}}"}})
    assert result.text == "x{{o.a}}"
    assert any("cycle" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{ 'abc\" }}", "{{ 'abc\" }}"),
        ("{{ 'a'b' }}", "{{ 'a'b' }}"),
        ("{{ 'a' 'b' }}", "{{ 'a' 'b' }}"),
        ("{{ 'a'x }}", "{{ 'a'x }}"),
        ("{{name}}}", "Ada}"),
        ("{{{{name}}", "{{Ada"),
        ("{{ name}} }}", "Ada }}"),
        ("{{ '}}' }}{{name}}", "}}Ada"),
        ("{{name}}{{", "Ada{{"),
        ("{{ name }", "{{ name }"),
        ("{ {{name}} }", "{ Ada }"),
        ("{{name}}{{{name}}}{{name}}", "Ada{Ada}Ada"),
    ],
)
def test_placeholder_boundaries(render: Render, text: str, expected: str) -> None:
    result = render(text, VARS)
    assert result.text == expected
    assert result.unresolved == []


SELF_REFERENCING: dict[str, Any] = {
    "o": {"a": "{{o.b}}", "b": "{{o.a}}"},
    "a": "{{b}}",
    "b": "{{c[1]}}",
    "c": [0, {"k": "{{d}}"}],
    "d": 5,
    "list": ["{{list[1]}}", "x"],
    "neg": ["{{neg[-1]}}", "y"],
    "self": ["{{self[0]}}"],
    "p": {"q": "{{p}}"},
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{a.k}}", "5"),
        ("{{list}}", '["x","x"]'),
        ("{{neg[0]}}", "y"),
    ],
)
def test_references_into_parts_of_values(render: Render, text: str, expected: str) -> None:
    result = render(text, SELF_REFERENCING)
    assert result.text == expected
    assert result.warnings == []
    assert result.unresolved == []


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "text", ["{{o}}", "{{o.a}}", "{{self}}", "{{self[0]}}", "{{p}}", "{{p.q}}", "{{p.q.q.q}}"]
)
def test_cycles_through_parts_of_values_terminate_and_warn(render: Render, text: str) -> None:
    result = render(text, SELF_REFERENCING)
    assert "{{" in result.text
    assert any(w.startswith("cycle: ") or "cycle: " in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_cycle_between_keys_names_both(render: Render) -> None:
    result = render("{{o.a}}", SELF_REFERENCING)
    assert result.text == "{{o.a}}"
    assert any("o.a -> o.b -> o.a" in w for w in result.warnings), result.warnings


@pytest.mark.timeout(10)
def test_warnings_list_only_what_the_lookup_passes_through(render: Render) -> None:
    variables = {"o": {"used": "x", "bad": "{{o.bad}}", "gone": "{{nope}}"}}
    result = render("{{o.used}}", variables)
    assert result.text == "x"
    assert result.warnings == []
    assert result.unresolved == []


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("text", "expected"), [("{{alias[0]}}", "x"), ("{{oa.a}}", "x")])
def test_lookup_through_an_alias_reports_only_what_it_uses(
    render: Render, text: str, expected: str
) -> None:
    variables = {
        "alias": "{{list}}",
        "list": ["x", "{{nope}}", "{{loop}}"],
        "loop": "{{loop}}",
        "oa": "{{obj}}",
        "obj": {"a": "x", "b": "{{nope}}", "c": "{{loop}}"},
    }
    result = render(text, variables)
    assert result.text == expected
    assert result.unresolved == []
    assert result.warnings == []


# -- the parsed form ---------------------------------------------------------------------


def test_segments_keep_text_that_is_no_placeholder_as_one_literal() -> None:
    tpl = parse("a {{ a b }} c {{x}}{{ $nope }} d {{y}}")
    assert [s if isinstance(s, str) else s.expr for s in tpl.segments] == [
        "a {{ a b }} c ",
        "x",
        "{{ $nope }} d ",
        "y",
    ]
    assert tpl.single is None
    assert parse("{{x}}").single == parse("{{x}}").segments[0]
    assert parse("{{x}}").segments == (Placeholder("{{x}}", "x", "path", "x"),)
    assert parse(" {{x}}").single is None and parse("{{x}} ").single is None
    assert parse("{{x}}{{y}}").single is None
    assert parse("{{ a b }}").segments == ("{{ a b }}",) and parse("{{ a b }}").single is None
    assert parse("").segments == () and parse("plain").segments == ("plain",)


def test_json_templates_mark_placeholders_inside_strings_and_keep_the_rest() -> None:
    tpl = parse_json('{"a": "x{{ user.name }}", "b": {{n}}, "c": "q\\"{{m}}", "d": "{{s}}"}')
    marked = [
        (s.raw, s.expr, s.kind, s.name, s.steps, s.flat, s.in_string) for s in tpl.placeholders
    ]
    assert marked == [
        ("{{ user.name }}", "user.name", "path", "user", ("name",), "user.name", True),
        ("{{n}}", "n", "path", "n", (), None, False),
        ("{{m}}", "m", "path", "m", (), None, True),
        ("{{s}}", "s", "path", "s", (), None, True),
    ]
    assert parse_json("{{x}}").single == Placeholder("{{x}}", "x", "path", "x")
    assert parse_json('"{{x}}"').single is None
    assert parse_json("[1]").segments == ("[1]",) and parse_json("").segments == ()


def test_parse_expr_and_has_placeholder() -> None:
    assert parse_expr("{{ a.b }}", " a.b ") == Placeholder(
        "{{ a.b }}", "a.b", "path", "a", ("b",), "a.b"
    )
    assert parse_expr("{{ a b }}", " a b ") is None
    assert has_placeholder("x {{a}}") and not has_placeholder("x {{ a b }}")
    assert not has_placeholder("plain") and not has_placeholder("")


# -- the renderer's lookups, cache and reports ---------------------------------------------


class Counting(dict[str, Any]):
    """Variables that note every name looked up in them."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: list[str] = []

    def __contains__(self, name: object) -> bool:
        self.asked.append(str(name))
        return super().__contains__(name)


def counted(variables: dict[str, Any]) -> tuple[Scopes, Counting]:
    layer = Counting(variables)
    scopes = Scopes([Layer("collection", "collection", layer)], environ={"HOME": "/home/ada"})
    return scopes, layer


def test_a_pure_render_is_kept_and_reused(tmp_path: Path) -> None:
    scopes, seen = counted({"x": "{{y}}", "y": "why", "obj": {"k": [1, "{{y}}"]}, "box": {"n": 1}})
    assert render_text("a {{x}}", scopes).text == "a why"
    seen.asked.clear()
    assert render_text("a {{x}}", scopes).text == "a why"  # the whole text, kept
    assert seen.asked == []
    assert render_text("b {{x}}", scopes).text == "b why"  # the placeholder, kept
    assert seen.asked == []
    assert render_json('{"v": "{{x}}"}', scopes).text == '{"v": "why"}'  # the variable, kept
    assert seen.asked == ["x"]
    for _ in range(2):
        assert render_json('{"o": {{obj}}, "b": {{box}}}', scopes).text == (
            '{"o": {"k":[1,"why"]}, "b": {"n":1}}'
        )
        assert render_text("{{obj}} {{box}}", scopes).text == '{"k":[1,"why"]} {"n":1}'
    seen.asked.clear()
    assert render_text("{{ obj }}", scopes).text == '{"k":[1,"why"]}'
    assert render_text("{{ box }}", scopes).text == '{"n":1}'
    assert seen.asked == ["obj", "box"]


def test_what_is_not_pure_is_recomputed_and_reported_every_time(tmp_path: Path) -> None:
    scopes, seen = counted({"e": "{{$env.HOME}}", "a": "{{a}}"})
    for _ in range(2):
        result = render_text("{{nope}} {{e}} {{a}}", scopes)
        assert result.text == "{{nope}} /home/ada {{a}}"
        assert result.unresolved == ["nope"] and result.warnings == ["cycle: a -> a"]
        result = render_json('{"x": {{nope}}}', scopes)
        assert result.unresolved == ["nope"]
    scopes.environ = {"HOME": "/home/bob"}
    assert render_text("{{e}}", scopes).text == "/home/bob"


def test_env_values_are_read_as_they_are(render: Render) -> None:
    result = render("{{$env.HOME}}|{{$env.NONE}}", environ={"HOME": "{{x}}"})
    assert (result.text, result.unresolved) == ("{{x}}|{{$env.NONE}}", ["$env.NONE"])
    assert render("{{$env.E}}", environ={"E": ""}).text == ""


def test_paths_through_aliases_and_templates(render: Render) -> None:
    variables = {
        "items": ["a", "b"],
        "alias": "{{items}}",
        "n": 5,
        "num": "{{n}}",
        "text": "pre {{gone}}",
        "home": "{{$env.H}}",
        "lost": "{{nowhere}}",
        "a": "{{a}}",
        "b": "{{c}}",
        "c": "{{b}}",
    }
    assert render("{{items.-1}} {{items.0}} {{alias.1}}", variables).text == "b a b"
    result = render("{{items.X1}}", variables)
    assert result.unresolved == ["items.X1"]
    result = render("{{num.x}}", variables)
    assert (result.unresolved, result.warnings) == (["num.x"], [])
    result = render("{{text.x}}", variables)
    assert result.unresolved == ["gone", "text.x"]
    result = render("{{home.x}}", variables, environ={"H": "/h"})
    assert result.unresolved == ["home.x"]
    result = render("{{lost.x}}", variables)
    assert result.unresolved == ["lost.x"]
    result = render("{{a.x}}", variables)
    assert (result.text, result.unresolved, result.warnings) == ("{{a.x}}", [], ["cycle: a -> a"])
    result = render("{{b.x}}", variables)
    assert (result.unresolved, result.warnings) == ([], ["cycle: b -> c -> b"])


def test_a_path_through_too_many_aliases_is_left_as_written(tmp_path: Path) -> None:
    variables: dict[str, Any] = {f"v{i}": f"{{{{v{i + 1}}}}}" for i in range(3000)}
    variables["v3000"] = {"x": "end"}
    scopes = build_scopes(Collection(name="t", root=tmp_path, variables=variables), environ={})
    for _ in range(2):
        result = render_text("<{{v0.x}}>", scopes)
        assert result.text == "<{{v0.x}}>"
        assert result.warnings == ["{{v0.x}}: value nested too deeply to render; left as written"]


@pytest.mark.parametrize(
    ("variables", "text", "warning"),
    [
        ({"cfg": {"Name": "{{cfg.Name}}"}}, "{{cfg.Name}}", "cfg.Name -> cfg.Name"),
        ({"items": ["x", "{{items[1]}}"]}, "{{items[1]}}", "items[1] -> items[1]"),
        ({"cfg": {"a b": '{{cfg["a b"]}}'}}, '{{cfg["a b"]}}', 'cfg["a b"] -> cfg["a b"]'),
        ({"cfg": {"é": '{{cfg["é"]}}'}}, '{{cfg["é"]}}', 'cfg["é"] -> cfg["é"]'),
    ],
)
def test_cycles_name_their_paths_as_placeholders_would(
    render: Render, variables: dict[str, Any], text: str, warning: str
) -> None:
    assert render(text, variables).warnings == [f"cycle: {warning}"]


def test_dynamic_values_take_their_whole_range(
    render: Render, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(random, "randint", lambda low, high: low)
    assert render("{{$randomInt}}").text == "0"
    monkeypatch.setattr(random, "randint", lambda low, high: high)
    assert render("{{$randomInt}}").text == "1000"
    monkeypatch.setattr(random, "random", lambda: 0.5)
    assert render("{{$randomBoolean}}").text == "false"
    monkeypatch.setattr(random, "random", lambda: 0.4999)
    assert render("{{$randomBoolean}}").text == "true"


def test_numbers_booleans_and_null_are_values_in_json(render: Render) -> None:
    variables = {"i": 1, "f": 1.5, "t": True, "z": None, "alias": "{{t}}"}
    result = render(
        '{"i": {{i}}, "f": {{f}}, "t": {{t}}, "z": {{z}}, "a": {{alias}}}',
        variables,
        json_body=True,
    )
    assert result.text == '{"i": 1, "f": 1.5, "t": true, "z": null, "a": true}'


def test_the_renderer_keeps_a_place_s_own_result_with_its_warnings(tmp_path: Path) -> None:
    scopes, seen = counted({"a": "{{a}}", "x": "ex"})
    calls: list[str] = []

    def compute(r: Renderer, text: str) -> str:
        calls.append(text)
        return r.render_text(text) + "!"

    for _ in range(2):
        r = Renderer(scopes)
        assert r.cached(("u", "pure"), lambda r=r: compute(r, "{{x}}")) == "ex!"
        assert r.warnings == []
    assert calls == ["{{x}}"]
    for _ in range(2):
        r = Renderer(scopes)
        r.cached(("u", "dyn"), lambda r=r: compute(r, "{{$uuid}}"))
        first = r.render_text("{{$uuid}}")
        assert r.render_text("{{$uuid}}") != first  # a fresh value each time
        assert r.cached(("u", "warn"), lambda r=r: compute(r, "{{a}} {{x}}")) == "{{a}} ex!"
        assert r.warnings == ["cycle: a -> a"]
    assert calls.count("{{$uuid}}") == 2
    assert calls.count("{{a}} {{x}}") == 2  # a cycle is impure: reported by every render


def test_values_that_belong_to_no_variable_render_each_their_own(tmp_path: Path) -> None:
    scopes = build_scopes(
        Collection(name="t", root=tmp_path, variables={"a": 1, "b": "bee"}), environ={}
    )
    assert render_value("{{a}}", scopes) == 1
    assert render_value("{{b}}", scopes) == "bee"  # not the value rendered before
    assert render_value("x {{b}}", scopes) == "x bee"
    r = Renderer(scopes)
    assert r.expand({"k": ["{{a}}", 2, "{{b}}"]}) == {"k": [1, 2, "bee"]}
    assert r.expand(["{{b}}"]) == ["bee"] and r.expand(None) is None


def test_the_nesting_limit_counts_from_zero_for_each_placeholder(tmp_path: Path) -> None:
    # Placeholders rendered before a deep chain, in the same text, leave the count as it was.
    variables: dict[str, Any] = {f"a{i}": "{{x}}" for i in range(40)}
    variables |= {f"b{i}": "{{x}}" for i in range(40)}
    variables |= {"x": "{{y}}", "y": "why"}
    for name, depth in (("v", MAX_DEPTH), ("w", MAX_DEPTH + 1)):
        variables |= {f"{name}{i}": f"{{{{{name}{i + 1}}}}}" for i in range(depth)}
        variables[f"{name}{depth}"] = "end"
    scopes = build_scopes(Collection(name="t", root=tmp_path, variables=variables), environ={})
    before = " ".join(f"{{{{a{i}}}}}" for i in range(40))
    result = render_text(before + " {{v0}}", scopes)
    assert result.text == " ".join(["why"] * 40) + " end" and result.warnings == []
    before = " ".join(f"{{{{b{i}}}}}" for i in range(40))
    for _ in range(2):  # reported by every render
        result = render_text(before + " {{w0}}", scopes)
        assert result.warnings == ["nesting deeper than 64 levels at w64; left as written"]


def test_a_cycle_inside_an_array_keeps_the_item_as_written(render: Render) -> None:
    result = render("{{items}}", {"items": ["x", "{{items[1]}}"]})
    assert result.text == '["x","{{items[1]}}"]'
    assert result.warnings == ["cycle: items[1] -> items[1]"]


def test_an_item_met_again_while_its_array_is_expanded_is_kept_as_written(render: Render) -> None:
    result = render("{{items[1]}}", {"items": ["x", "{{items}}"]})
    assert result.text == '["x","{{items}}"]'
    assert result.warnings == ["cycle: items[1] -> items -> items[1]"]


def test_a_cached_place_reports_its_warnings_again_and_stays_impure_inside(
    tmp_path: Path,
) -> None:
    scopes, _ = counted({"x": "ex"})

    def warned(r: Renderer) -> str:
        r.warn("place warning")
        return "done"

    r = Renderer(scopes)
    r.warn("earlier")
    assert r.cached(("u", "w"), lambda r=r: warned(r)) == "done"
    assert r.warnings == ["earlier", "place warning"]
    r = Renderer(scopes)  # only the place's own warnings come back with it
    assert r.cached(("u", "w"), lambda r=r: warned(r)) == "done"
    assert r.warnings == ["place warning"]
    seen = set()
    for _ in range(2):
        r = Renderer(scopes)
        outer = r.cached(
            ("u", "outer"),
            lambda r=r: r.render_text("{{$uuid}}") + r.cached(("u", "inner"), lambda: "!"),
        )
        seen.add(outer)
    assert len(seen) == 2  # the dynamic value inside is fresh each time
