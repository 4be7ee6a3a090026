"""Rendering by place: every kind in every place, and the request render (DESIGN §5)."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from pigeon.model import Auth, Body, Collection, Folder, FormField, Header, QueryParam, Request
from pigeon.render import RenderedRequest, RenderError, render_json, render_request, render_text
from pigeon.scopes import RuntimeVars, Scopes, build_scopes

UTC = timezone.utc
D = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
D_ISO = "2024-01-02T03:04:05.678Z"


@dataclass
class Setup:
    """A collection with one folder, built around the request under test."""

    root: Path
    variables: dict[str, Any] = field(default_factory=dict)
    collection_headers: list[Header] = field(default_factory=list)
    folder_headers: list[Header] = field(default_factory=list)
    collection_auth: Auth | None = None
    folder_auth: Auth | None = None

    def render(self, request: Request) -> RenderedRequest:
        collection = Collection(
            name="c", root=self.root, headers=self.collection_headers, auth=self.collection_auth
        )
        folder = Folder("f", id="f", headers=self.folder_headers, auth=self.folder_auth)
        folder.items.append(request)
        collection.items.append(folder)
        return render_request(
            collection, [folder], request, self.scopes(collection, folder, request)
        )

    def scopes(self, collection: Collection, folder: Folder, request: Request) -> Scopes:
        runtime = RuntimeVars()
        for name, value in self.variables.items():
            runtime.set(name, value)
        return build_scopes(collection, [folder], request, runtime=runtime, environ={})


def simple_scopes(root: Path, variables: dict[str, Any]) -> Scopes:
    runtime = RuntimeVars()
    for name, value in variables.items():
        runtime.set(name, value)
    return build_scopes(Collection(name="c", root=root), [], None, runtime=runtime, environ={})


def header(rendered: RenderedRequest, name: str) -> list[str]:
    return [v for n, v in rendered.headers if n.lower() == name.lower()]


# -- the table: (value, text place, inside a JSON string literal, JSON value place) -------------

OBJ = {"a": [1, 2], "name": "Zoë", "at": D, "day": date(2024, 1, 2), "n": None}
OBJ_JSON = (
    '{"a":[1,2],"name":"Zoë","at":"2024-01-02T03:04:05.678Z",'
    '"day":"2024-01-02T00:00:00.000Z","n":null}'
)

ROWS: list[tuple[str, Any, str, str, str]] = [
    ("string", "Ada Lovelace", "Ada Lovelace", "Ada Lovelace", "Ada Lovelace"),
    ("string-quote", 'say "hi"', 'say "hi"', 'say \\"hi\\"', 'say "hi"'),
    ("string-backslash", "C:\\dir", "C:\\dir", "C:\\\\dir", "C:\\dir"),
    ("string-json", '{"x": 1}', '{"x": 1}', '{\\"x\\": 1}', '{"x": 1}'),
    ("string-unicode", "Zoë ✓", "Zoë ✓", "Zoë ✓", "Zoë ✓"),
    ("string-percent", "100%20&x", "100%20&x", "100%20&x", "100%20&x"),
    ("integer", 42, "42", "42", "42"),
    ("integer-big", 9007199254740993, "9007199254740993", "9007199254740993", "9007199254740993"),
    ("float-0.1", 0.1, "0.1", "0.1", "0.1"),
    ("float-2.5", 2.5, "2.5", "2.5", "2.5"),
    ("float-1e21", 1e21, "1e+21", "1e+21", "1e+21"),
    ("true", True, "true", "true", "true"),
    ("false", False, "false", "false", "false"),
    ("null", None, "null", "null", "null"),
    ("object", {"a": [1, 2]}, '{"a":[1,2]}', '{\\"a\\":[1,2]}', '{"a":[1,2]}'),
    ("object-rich", OBJ, OBJ_JSON, OBJ_JSON.replace('"', '\\"'), OBJ_JSON),
    (
        "array",
        [1, "é", {"k": D}],
        f'[1,"é",{{"k":"{D_ISO}"}}]',
        f'[1,\\"é\\",{{\\"k\\":\\"{D_ISO}\\"}}]',
        f'[1,"é",{{"k":"{D_ISO}"}}]',
    ),
    ("date", D, D_ISO, D_ISO, f'"{D_ISO}"'),
    (
        "date-offset",
        datetime(2024, 1, 2, 5, 4, 5, 678912, tzinfo=timezone(timedelta(hours=2))),
        D_ISO,
        D_ISO,
        f'"{D_ISO}"',
    ),
    (
        "date-only",
        date(2024, 1, 2),
        "2024-01-02T00:00:00.000Z",
        "2024-01-02T00:00:00.000Z",
        '"2024-01-02T00:00:00.000Z"',
    ),
]
IDS = [row[0] for row in ROWS]
# Rows whose text form is safe to place raw in a URL path (no "/", no newline).
URL_ROWS = [row for row in ROWS if "/" not in row[2] and "\n" not in row[2]]


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_text_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    result = render_text("<{{v}}>", simple_scopes(tmp_path, {"v": value}))
    assert result.text == f"<{text}>"
    assert result.unresolved == []


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_json_string_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    result = render_json('{"v": "<{{v}}>"}', simple_scopes(tmp_path, {"v": value}))
    assert result.text == f'{{"v": "<{in_string}>"}}'
    assert json.loads(result.text) == {"v": f"<{text}>"}
    assert result.warnings == []


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_json_value_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    result = render_json('{"v": {{v}}}', simple_scopes(tmp_path, {"v": value}))
    assert result.text == f'{{"v": {json_value}}}'


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), URL_ROWS)
def test_url_path_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    rendered = Setup(tmp_path, {"v": value}).render(Request("r", url="http://127.0.0.1/x/{{v}}"))
    assert rendered.url == f"http://127.0.0.1/x/{text}"


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_inline_query_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    rendered = Setup(tmp_path, {"v": value}).render(Request("r", url="http://127.0.0.1/x?q={{v}}"))
    assert rendered.url == f"http://127.0.0.1/x?q={text}"


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), URL_ROWS)
def test_header_value_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    request = Request("r", url="http://127.0.0.1/", headers=[Header("X-V", "<{{v}}>")])
    rendered = Setup(tmp_path, {"v": value}).render(request)
    assert header(rendered, "X-V") == [f"<{text}>"]


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_text_body_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    request = Request("r", method="POST", url="http://127.0.0.1/", body=Body("text", "<{{v}}>"))
    rendered = Setup(tmp_path, {"v": value}).render(request)
    assert rendered.body_text == f"<{text}>"
    assert rendered.body == f"<{text}>".encode()


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_json_body_places(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    content = '{"s": "{{v}}", "v": {{v}}}'
    request = Request("r", method="POST", url="http://127.0.0.1/", body=Body("json", content))
    rendered = Setup(tmp_path, {"v": value}).render(request)
    expected = f'{{"s": "{in_string}", "v": {json_value}}}'
    assert rendered.body_text == expected
    assert rendered.body == expected.encode()


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_form_field_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    body = Body("form", fields=[FormField("f", "<{{v}}>")])
    request = Request("r", method="POST", url="http://127.0.0.1/", body=body)
    rendered = Setup(tmp_path, {"v": value}).render(request)
    assert rendered.body is not None
    assert parse_qsl(rendered.body.decode("ascii"), keep_blank_values=True) == [("f", f"<{text}>")]


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), URL_ROWS)
def test_bearer_token_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    request = Request("r", url="http://127.0.0.1/", auth=Auth("bearer", token="{{v}}"))
    rendered = Setup(tmp_path, {"v": value}).render(request)
    assert header(rendered, "Authorization") == [f"Bearer {text}"]


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_basic_auth_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    request = Request(
        "r", url="http://127.0.0.1/", auth=Auth("basic", username="{{v}}", password="p{{v}}")
    )
    rendered = Setup(tmp_path, {"v": value}).render(request)
    [value_sent] = header(rendered, "Authorization")
    scheme, _, encoded = value_sent.partition(" ")
    assert scheme == "Basic"
    assert base64.b64decode(encoded).decode("utf-8") == f"{text}:p{text}"


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_api_key_query_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    auth = Auth("api_key", key="api_key", value="{{v}}", location="query")
    rendered = Setup(tmp_path, {"v": value}).render(
        Request("r", url="http://127.0.0.1/x", auth=auth)
    )
    assert parse_qsl(urlsplit(rendered.url).query, keep_blank_values=True) == [("api_key", text)]


@pytest.mark.parametrize(("kind", "value", "text", "in_string", "json_value"), ROWS, ids=IDS)
def test_query_table_place(
    tmp_path: Path, kind: str, value: Any, text: str, in_string: str, json_value: str
) -> None:
    request = Request("r", url="http://127.0.0.1/x", query=[QueryParam("q", "{{v}}")])
    rendered = Setup(tmp_path, {"v": value}).render(request)
    assert parse_qsl(urlsplit(rendered.url).query, keep_blank_values=True) == [("q", text)]
    assert rendered.warnings == []


def test_collection_variables_render_like_runtime_ones(tmp_path: Path) -> None:
    toml_like = {"n": 42, "f": 2.5, "b": True, "o": {"a": [1, 2]}, "d": D, "s": 'q"'}
    collection = Collection(name="c", root=tmp_path, variables=toml_like)
    scopes = build_scopes(collection, [], None, environ={})
    result = render_json(
        '{"n": {{n}}, "f": {{f}}, "b": {{b}}, "o": {{o}}, "d": {{d}}, "s": "{{s}}"}', scopes
    )
    assert (
        result.text
        == f'{{"n": 42, "f": 2.5, "b": true, "o": {{"a":[1,2]}}, "d": "{D_ISO}", "s": "q\\""}}'
    )


# -- deciding string place vs value place from the literal text --------------------------------

STR_VARS: dict[str, Any] = {"s": 'y"\\', "o": {"k": "v"}, "n": 7, "q": 'x"'}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ('"{{s}}"', '"y\\"\\\\"'),
        ('{"a": "pre {{s}} post"}', '{"a": "pre y\\"\\\\ post"}'),
        ('{"k{{n}}": {{n}}}', '{"k7": 7}'),
        ('{"{{s}}": 1}', '{"y\\"\\\\": 1}'),
        ('{"a": "say \\"{{s}}\\""}', '{"a": "say \\"y\\"\\\\\\""}'),
        ('{"a": "\\\\", "b": {{o}}}', '{"a": "\\\\", "b": {"k":"v"}}'),
        ('{"a": "}", "b": {{o}}}', '{"a": "}", "b": {"k":"v"}}'),
        ('{"a": "{", "b": "{{o}}"}', '{"a": "{", "b": "{\\"k\\":\\"v\\"}"}'),
        ('[{{n}}, "{{n}}", {{o}}, "{{o}}"]', '[7, "7", {"k":"v"}, "{\\"k\\":\\"v\\"}"]'),
        ('{"a": "{{s}}{{s}}"}', '{"a": "y\\"\\\\y\\"\\\\"}'),
        ('{"a": "x\\n{{n}}"}', '{"a": "x\\n7"}'),
        # the raw quote a value-place string brings in does not flip the next place
        ('{"a": {{q}}, "b": "{{q}}"}', '{"a": x", "b": "x\\""}'),
        ('{"a": "{{q}}", "b": {{n}}}', '{"a": "x\\"", "b": 7}'),
        ("{{o}}", '{"k":"v"}'),
        # quotes inside a placeholder's own text are not part of the literal text
        ('{"a": "{{ \'"\' }}", "b": {{o}}}', '{"a": "\\"", "b": {"k":"v"}}'),
        ('["{{ "}" }}", {{o}}]', '["}", {"k":"v"}]'),
        ('{"a": {{ \'"x\' }}, "b": "{{o}}"}', '{"a": "x, "b": "{\\"k\\":\\"v\\"}"}'),
        ('\n  {"multi":\n    "{{s}}"\n  }', '\n  {"multi":\n    "y\\"\\\\"\n  }'),
    ],
)
def test_string_place_is_decided_from_literal_text(
    tmp_path: Path, template: str, expected: str
) -> None:
    result = render_json(template, simple_scopes(tmp_path, STR_VARS))
    assert result.text == expected


def test_string_value_in_json_value_place_carries_json(tmp_path: Path) -> None:
    scopes = simple_scopes(tmp_path, {"raw": '{"x": [1, true]}'})
    result = render_json('{"v": {{raw}}}', scopes)
    assert result.text == '{"v": {"x": [1, true]}}'
    assert result.warnings == []


def test_json_string_place_escapes_control_characters(tmp_path: Path) -> None:
    value = "line1\nline2\ttab\r\x00\x1f"
    result = render_json('{"v": "{{v}}"}', simple_scopes(tmp_path, {"v": value}))
    assert json.loads(result.text) == {"v": value}
    assert "\n" not in result.text


@pytest.mark.parametrize(
    ("template", "line", "column"),
    [
        ('{"v": {{word}}}', 1, 7),
        ('{\n  "v": {{word}}\n}', 2, 8),
        ('{\n  "a": 1,\n  "b": 2,,\n}', 3, 10),
    ],
)
def test_invalid_json_warns_with_line_and_column(
    tmp_path: Path, template: str, line: int, column: int
) -> None:
    result = render_json(template, simple_scopes(tmp_path, {"word": "hello"}))
    assert result.text == template.replace("{{word}}", "hello")
    assert len(result.warnings) == 1
    warning = result.warnings[0]
    assert re.search(rf"line\D{{0,3}}{line}\b", warning, re.IGNORECASE), warning
    assert re.search(rf"col(umn)?\D{{0,3}}{column}\b", warning, re.IGNORECASE), warning


def test_valid_json_has_no_warning(tmp_path: Path) -> None:
    result = render_json('{"v": {{n}}}', simple_scopes(tmp_path, {"n": 1}))
    assert result.warnings == []


def test_unresolved_in_json_body_is_left_as_written(tmp_path: Path) -> None:
    result = render_json('{"a": {{ nope }}, "b": "{{nope.x}}"}', simple_scopes(tmp_path, {}))
    assert result.text == '{"a": {{ nope }}, "b": "{{nope.x}}"}'
    assert result.unresolved == ["nope", "nope.x"]


# -- URL ---------------------------------------------------------------------------------------


def test_query_table_percent_encodes_each_value(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/s", query=[QueryParam("q", "{{v}}")])
    rendered = Setup(tmp_path, {"v": "a&b=c d"}).render(request)
    assert rendered.url == "http://127.0.0.1/s?q=a%26b%3Dc%20d"
    assert rendered.warnings == []


def test_query_table_appends_with_ampersand(tmp_path: Path) -> None:
    request = Request(
        "r",
        url="http://127.0.0.1/s?x=1",
        query=[
            QueryParam("q", "{{v}}"),
            QueryParam("off", "no", enabled=False),
            QueryParam("p", "2"),
        ],
    )
    rendered = Setup(tmp_path, {"v": "a&b=c d"}).render(request)
    assert rendered.url == "http://127.0.0.1/s?x=1&q=a%26b%3Dc%20d&p=2"


@pytest.mark.parametrize(
    "value", ["1+1", "a#b", "x?y", "50%", "é", "a/b", "semi;colon", "  ", "", "[]", "{{ '{{' }}"]
)
def test_query_table_round_trips(tmp_path: Path, value: str) -> None:
    request = Request("r", url="http://127.0.0.1/s", query=[QueryParam("q", value)])
    rendered = Setup(tmp_path).render(request)
    query = urlsplit(rendered.url).query
    expected = "{{" if value == "{{ '{{' }}" else value
    assert parse_qsl(query, keep_blank_values=True) == [("q", expected)]
    assert "#" not in query and " " not in query


def test_disabled_query_params_only(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/s", query=[QueryParam("q", "1", enabled=False)])
    rendered = Setup(tmp_path).render(request)
    assert rendered.url == "http://127.0.0.1/s"


@pytest.mark.parametrize("value", ["a&b", "a=b", "a?b", "a#b", "x&y=z"])
def test_raw_insertion_into_query_warns(tmp_path: Path, value: str) -> None:
    rendered = Setup(tmp_path, {"v": value}).render(
        Request("r", url="http://127.0.0.1/s?q={{v}}&p=1")
    )
    assert rendered.url == f"http://127.0.0.1/s?q={value}&p=1"
    assert rendered.warnings


@pytest.mark.parametrize("value", ["a/b", "/lead", "trail/"])
def test_raw_insertion_of_slash_into_path_warns(tmp_path: Path, value: str) -> None:
    rendered = Setup(tmp_path, {"v": value}).render(
        Request("r", url="http://127.0.0.1/users/{{v}}/x")
    )
    assert rendered.url == f"http://127.0.0.1/users/{value}/x"
    assert rendered.warnings


@pytest.mark.parametrize(
    ("url", "variables"),
    [
        ("{{base_url}}/users", {"base_url": "http://h:1"}),
        ("{{base_url}}/users?q=1", {"base_url": "http://h:1/api/v2"}),
        ("{{ base_url }}", {"base_url": "http://h:1/a/b?x=1&y=2"}),
        ("http://127.0.0.1/users/{{id}}?q={{q}}", {"id": 7, "q": "plain text"}),
        ("http://127.0.0.1/{{a}}", {"a": "no-slash-here"}),
        ("http://127.0.0.1/a?x={{v}}", {"v": "a/b"}),
    ],
)
def test_safe_urls_do_not_warn(tmp_path: Path, url: str, variables: dict[str, Any]) -> None:
    rendered = Setup(tmp_path, variables).render(Request("r", url=url))
    assert rendered.warnings == []
    assert rendered.unresolved == []


def test_base_url_then_path(tmp_path: Path) -> None:
    rendered = Setup(tmp_path, {"base_url": "http://h:1", "id": 7}).render(
        Request("r", url="{{base_url}}/users/{{id}}")
    )
    assert rendered.url == "http://h:1/users/7"


# -- headers -------------------------------------------------------------------------------------


HEADER_SPOTS = {
    "value-middle": Header("X-Trace", "a{{v}}b"),
    "value-end": Header("X-Trace", "a{{v}}"),
    "value-start": Header("X-Trace", "{{v}}a"),
    "name-middle": Header("X-{{v}}Trace", "ok"),
    "name-end": Header("X-Trace{{v}}", "ok"),
    "name-start": Header("{{v}}X-Trace", "ok"),
}


@pytest.mark.parametrize("bad", ["\r", "\n", "\r\n", "\x00"])
@pytest.mark.parametrize("spot", list(HEADER_SPOTS))
def test_header_with_cr_lf_nul_stops_the_request(tmp_path: Path, bad: str, spot: str) -> None:
    request = Request(
        "r", url="http://127.0.0.1/", headers=[Header("X-Fine", "1"), HEADER_SPOTS[spot]]
    )
    with pytest.raises(RenderError) as exc:
        Setup(tmp_path, {"v": bad}).render(request)
    message = str(exc.value)
    assert "X-" in message and "Trace" in message, message


@pytest.mark.parametrize("bad", ["\r", "\n", "\x00"])
@pytest.mark.parametrize("spot", ["name", "value"])
def test_header_with_literal_cr_lf_nul_stops_the_request(
    tmp_path: Path, bad: str, spot: str
) -> None:
    hdr = Header(f"X-Trace{bad}", "ok") if spot == "name" else Header("X-Trace", f"ok{bad}")
    request = Request("r", url="http://127.0.0.1/", headers=[hdr])
    with pytest.raises(RenderError) as exc:
        Setup(tmp_path).render(request)
    assert "X-Trace" in str(exc.value)


def test_collection_header_with_newline_stops_the_request(tmp_path: Path) -> None:
    setup = Setup(
        tmp_path, {"v": "x\r\nInjected: 1"}, collection_headers=[Header("X-Col", "{{v}}")]
    )
    with pytest.raises(RenderError) as exc:
        setup.render(Request("r", url="http://127.0.0.1/"))
    assert "X-Col" in str(exc.value)


def test_bearer_token_with_newline_stops_the_request(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/", auth=Auth("bearer", token="{{v}}"))
    with pytest.raises(RenderError) as exc:
        Setup(tmp_path, {"v": "tok\nX: 1"}).render(request)
    assert "Authorization" in str(exc.value)


def test_disabled_header_with_newline_is_ignored(tmp_path: Path) -> None:
    request = Request(
        "r", url="http://127.0.0.1/", headers=[Header("X-Off", "{{v}}", enabled=False)]
    )
    rendered = Setup(tmp_path, {"v": "a\nb"}).render(request)
    assert header(rendered, "X-Off") == []


def test_header_order_collection_folder_request_auth_content_type(tmp_path: Path) -> None:
    setup = Setup(
        tmp_path,
        {"c": "C", "f": "F", "r": "R", "tok": "T"},
        collection_headers=[
            Header("X-Collection", "{{c}}"),
            Header("X-Col-Off", "0", enabled=False),
        ],
        folder_headers=[Header("X-Folder", "{{f}}")],
    )
    request = Request(
        "r",
        method="POST",
        url="http://127.0.0.1/",
        headers=[Header("X-Request", "{{r}}"), Header("X-Req-Off", "0", enabled=False)],
        body=Body("json", '{"a": 1}'),
        auth=Auth("bearer", token="{{tok}}"),
    )
    rendered = setup.render(request)
    assert rendered.headers == [
        ("X-Collection", "C"),
        ("X-Folder", "F"),
        ("X-Request", "R"),
        ("Authorization", "Bearer T"),
        ("Content-Type", "application/json"),
    ]
    assert rendered.method == "POST"


def test_header_names_are_rendered(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/", headers=[Header("X-{{n}}", "{{v}}")])
    rendered = Setup(tmp_path, {"n": "Tenant", "v": {"id": 1}}).render(request)
    assert rendered.headers == [("X-Tenant", '{"id":1}')]


# -- bodies --------------------------------------------------------------------------------------


def test_invalid_json_body_warns_and_is_sent_as_rendered(tmp_path: Path) -> None:
    content = '{\n  "name": {{name}},\n  "n": {{n}}\n}'
    request = Request("r", method="POST", url="http://127.0.0.1/", body=Body("json", content))
    rendered = Setup(tmp_path, {"name": "Zoë", "n": 1}).render(request)
    expected = '{\n  "name": Zoë,\n  "n": 1\n}'
    assert rendered.body_text == expected
    assert rendered.body == expected.encode("utf-8")
    assert len(rendered.warnings) == 1
    assert re.search(r"line\D{0,3}2\b", rendered.warnings[0], re.IGNORECASE)
    assert re.search(r"col(umn)?\D{0,3}11\b", rendered.warnings[0], re.IGNORECASE)


def test_json_body_is_never_reencoded(tmp_path: Path) -> None:
    content = '{ "b" : 1,\n\t"a":[ 1.0, 1e2 ], "u": "\\u00e9" }'
    request = Request("r", method="POST", url="http://127.0.0.1/", body=Body("json", content))
    rendered = Setup(tmp_path).render(request)
    assert rendered.body_text == content
    assert rendered.body == content.encode("utf-8")
    assert rendered.warnings == []


@pytest.mark.parametrize(
    "where", ["request", "request-lower", "request-upper", "folder", "collection"]
)
def test_json_content_type_not_added_when_a_header_sets_it(tmp_path: Path, where: str) -> None:
    names = {"request-lower": "content-type", "request-upper": "CONTENT-TYPE"}
    custom = Header(names.get(where, "Content-Type"), "application/vnd.api+json")
    setup = Setup(
        tmp_path,
        collection_headers=[custom] if where == "collection" else [],
        folder_headers=[custom] if where == "folder" else [],
    )
    request = Request(
        "r",
        method="POST",
        url="http://127.0.0.1/",
        headers=[custom] if where.startswith("request") else [],
        body=Body("json", "{}"),
    )
    rendered = setup.render(request)
    assert header(rendered, "Content-Type") == ["application/vnd.api+json"]


def test_disabled_content_type_header_does_not_count(tmp_path: Path) -> None:
    request = Request(
        "r",
        method="POST",
        url="http://127.0.0.1/",
        headers=[Header("Content-Type", "text/plain", enabled=False)],
        body=Body("json", "{}"),
    )
    rendered = Setup(tmp_path).render(request)
    assert header(rendered, "Content-Type") == ["application/json"]


def test_form_body(tmp_path: Path) -> None:
    body = Body(
        "form",
        fields=[
            FormField("name", "{{name}}"),
            FormField("q", "a&b=c d+e"),
            FormField("off", "x", enabled=False),
            FormField("obj", "{{o}}"),
        ],
    )
    request = Request("r", method="POST", url="http://127.0.0.1/", body=body)
    rendered = Setup(tmp_path, {"name": "Zoë", "o": {"a": 1}}).render(request)
    assert header(rendered, "Content-Type") == ["application/x-www-form-urlencoded"]
    assert rendered.body is not None
    assert parse_qsl(rendered.body.decode("ascii"), keep_blank_values=True) == [
        ("name", "Zoë"),
        ("q", "a&b=c d+e"),
        ("obj", '{"a":1}'),
    ]
    assert rendered.body_text == rendered.body.decode("ascii")


def test_form_content_type_not_added_when_a_header_sets_it(tmp_path: Path) -> None:
    body = Body("form", fields=[FormField("a", "1")])
    request = Request(
        "r",
        method="POST",
        url="http://127.0.0.1/",
        headers=[Header("content-type", "application/x-www-form-urlencoded; charset=utf-8")],
        body=body,
    )
    rendered = Setup(tmp_path).render(request)
    assert header(rendered, "Content-Type") == ["application/x-www-form-urlencoded; charset=utf-8"]


def test_text_body_is_not_parsed_as_json(tmp_path: Path) -> None:
    request = Request(
        "r", method="POST", url="http://127.0.0.1/", body=Body("text", "{not json {{v}}")
    )
    rendered = Setup(tmp_path, {"v": "ok"}).render(request)
    assert rendered.body_text == "{not json ok"
    assert rendered.warnings == []
    assert header(rendered, "Content-Type") != ["application/json"]


def test_no_body(tmp_path: Path) -> None:
    rendered = Setup(tmp_path).render(Request("r", url="http://127.0.0.1/"))
    assert rendered.body is None
    assert rendered.body_text is None
    assert header(rendered, "Content-Type") == []
    assert rendered.headers == []
    assert rendered.method == "GET"


# -- auth ----------------------------------------------------------------------------------------


def test_basic_auth(tmp_path: Path) -> None:
    request = Request(
        "r", url="http://127.0.0.1/", auth=Auth("basic", username="{{u}}", password="{{p}}")
    )
    rendered = Setup(tmp_path, {"u": "ada", "p": "s3:cret"}).render(request)
    token = base64.b64encode(b"ada:s3:cret").decode("ascii")
    assert rendered.headers == [("Authorization", f"Basic {token}")]


def test_bearer_auth(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/", auth=Auth("bearer", token="{{t}}"))
    assert Setup(tmp_path, {"t": "abc.def"}).render(request).headers == [
        ("Authorization", "Bearer abc.def")
    ]


def test_api_key_in_header(tmp_path: Path) -> None:
    auth = Auth("api_key", key="X-Api-Key", value="{{k}}", location="header")
    rendered = Setup(tmp_path, {"k": "k1"}).render(Request("r", url="http://127.0.0.1/", auth=auth))
    assert rendered.headers == [("X-Api-Key", "k1")]
    assert rendered.url == "http://127.0.0.1/"


def test_api_key_in_query(tmp_path: Path) -> None:
    auth = Auth("api_key", key="api_key", value="{{k}}", location="query")
    request = Request("r", url="http://127.0.0.1/s?x=1", auth=auth)
    rendered = Setup(tmp_path, {"k": "a&b c"}).render(request)
    assert rendered.url == "http://127.0.0.1/s?x=1&api_key=a%26b%20c"
    assert rendered.headers == []


def test_auth_is_inherited_from_folder_then_collection(tmp_path: Path) -> None:
    setup = Setup(
        tmp_path,
        {"t": "T"},
        collection_auth=Auth("bearer", token="collection"),
        folder_auth=Auth("bearer", token="folder-{{t}}"),
    )
    assert setup.render(Request("r", url="http://127.0.0.1/")).headers == [
        ("Authorization", "Bearer folder-T")
    ]
    setup.folder_auth = None
    assert setup.render(Request("r", url="http://127.0.0.1/")).headers == [
        ("Authorization", "Bearer collection")
    ]


def test_auth_none_disables_inherited_auth(tmp_path: Path) -> None:
    setup = Setup(tmp_path, collection_auth=Auth("bearer", token="collection"))
    rendered = setup.render(Request("r", url="http://127.0.0.1/", auth=Auth("none")))
    assert rendered.headers == []


# -- unresolved and warnings across the request ----------------------------------------------------


def test_unresolved_collected_from_every_place(tmp_path: Path) -> None:
    request = Request(
        "r",
        method="POST",
        url="{{base}}/u/{{ id }}",
        headers=[Header("X-A", "{{hdr}}")],
        query=[QueryParam("q", "{{qv}}")],
        body=Body("json", '{"a": "{{bodyv}}", "b": "{{ id }}"}'),
        auth=Auth("bearer", token="{{token}}"),
    )
    rendered = Setup(tmp_path).render(request)
    assert set(rendered.unresolved) == {"base", "id", "hdr", "qv", "bodyv", "token"}
    assert len(rendered.unresolved) == len(set(rendered.unresolved))
    assert rendered.url.startswith("{{base}}/u/{{ id }}")
    assert header(rendered, "X-A") == ["{{hdr}}"]
    assert header(rendered, "Authorization") == ["Bearer {{token}}"]
    assert rendered.body_text == '{"a": "{{bodyv}}", "b": "{{ id }}"}'


def test_multipart_sends_fields_and_files(tmp_path: Path) -> None:
    upload = tmp_path / "avatar.txt"
    upload.write_bytes(b"file-bytes-\x00\x01")
    body = Body(
        "multipart",
        fields=[
            FormField("name", "{{name}}"),
            FormField("off", "hidden", enabled=False),
            FormField("avatar", str(upload), kind="file", content_type="text/plain"),
        ],
    )
    request = Request("r", method="POST", url="http://127.0.0.1/", body=body)
    rendered = Setup(tmp_path, {"name": "Zoë"}).render(request)
    [content_type] = header(rendered, "Content-Type")
    assert content_type.startswith("multipart/form-data; boundary=")
    boundary = content_type.split("boundary=", 1)[1].strip('"')
    assert rendered.body is not None
    assert rendered.body.count(f"--{boundary}".encode()) == 3
    assert b'name="name"' in rendered.body
    assert "Zoë".encode() in rendered.body
    assert b'name="avatar"' in rendered.body
    assert b'filename="avatar.txt"' in rendered.body
    assert b"file-bytes-\x00\x01" in rendered.body
    assert b"hidden" not in rendered.body


@pytest.mark.timeout(10)
def test_cycle_in_a_request_is_reported(tmp_path: Path) -> None:
    request = Request(
        "r",
        url="http://127.0.0.1/{{a}}",
        headers=[Header("X-A", "{{b}}")],
        body=Body("text", "{{a}}"),
        method="POST",
    )
    rendered = Setup(tmp_path, {"a": "{{b}}", "b": "{{a}}"}).render(request)
    assert rendered.url == "http://127.0.0.1/{{a}}"
    assert header(rendered, "X-A") == ["{{b}}"]
    assert rendered.body_text == "{{a}}"
    assert any("cycle: a -> b -> a" in w for w in rendered.warnings), rendered.warnings
    assert any("cycle: b -> a -> b" in w for w in rendered.warnings), rendered.warnings


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1/s#frag", "http://127.0.0.1/s?q=1%202#frag"),
        ("http://127.0.0.1/s?", "http://127.0.0.1/s?q=1%202"),
        ("http://127.0.0.1/s?x=1&", "http://127.0.0.1/s?x=1&q=1%202"),
        ("http://127.0.0.1/s?x=1#f", "http://127.0.0.1/s?x=1&q=1%202#f"),
    ],
)
def test_query_table_joins_cleanly(tmp_path: Path, url: str, expected: str) -> None:
    # beyond the spec's letter: what a careful curl user expects of "?"/"&" and fragments
    rendered = Setup(tmp_path).render(Request("r", url=url, query=[QueryParam("q", "1 2")]))
    assert rendered.url == expected


def test_query_table_encodes_names_too(tmp_path: Path) -> None:
    request = Request("r", url="http://127.0.0.1/", query=[QueryParam("a b&{{n}}", "x")])
    rendered = Setup(tmp_path, {"n": "="}).render(request)
    assert parse_qsl(urlsplit(rendered.url).query) == [("a b&=", "x")]


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The process in a UTC-5 zone without daylight saving (POSIX spelling)."""
    import time

    if not hasattr(time, "tzset"):
        pytest.skip("the local zone can only be switched where time.tzset exists")
    monkeypatch.setenv("TZ", "EST+5")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("local_tz")
def test_naive_datetime_from_toml_is_local_time(tmp_path: Path) -> None:
    collection = Collection(
        name="c", root=tmp_path, variables={"at": datetime(2024, 1, 1, 22, 4, 5, 678999)}
    )
    request = Request(
        "r", method="POST", url="http://127.0.0.1/{{at}}", body=Body("json", '{"at": {{at}}}')
    )
    rendered = render_request(
        collection, [], request, build_scopes(collection, [], request, environ={})
    )
    assert rendered.url == f"http://127.0.0.1/{D_ISO}"
    assert rendered.body_text == f'{{"at": "{D_ISO}"}}'


TOML_VARIABLES = """
text = "Zoë \\"q\\""
int = 9007199254740993
float = 19.99
big_float = 1e21
bool = true
offset = 2024-01-02T05:04:05.678912+02:00
zulu = 2024-01-02T03:04:05.678Z
day = 2024-01-02
list = [1, "two", 2024-01-02]
table = { a = [1, 2], b = { c = "d" } }
"""


def test_values_as_toml_gives_them(tmp_path: Path) -> None:
    import tomllib

    collection = Collection(name="c", root=tmp_path, variables=tomllib.loads(TOML_VARIABLES))
    scopes = build_scopes(collection, [], None, environ={})
    names = ["text", "int", "float", "big_float", "bool", "offset", "zulu", "day", "list", "table"]
    value_place = render_json("[" + ", ".join(f"{{{{{n}}}}}" for n in names[1:]) + "]", scopes)
    assert value_place.text == (
        '[9007199254740993, 19.99, 1e+21, true, "2024-01-02T03:04:05.678Z", '
        '"2024-01-02T03:04:05.678Z", "2024-01-02T00:00:00.000Z", '
        '[1,"two","2024-01-02T00:00:00.000Z"], {"a":[1,2],"b":{"c":"d"}}]'
    )
    string_place = render_json('["{{text}}", "{{table}}", "{{day}}"]', scopes)
    assert json.loads(string_place.text) == [
        'Zoë "q"',
        '{"a":[1,2],"b":{"c":"d"}}',
        "2024-01-02T00:00:00.000Z",
    ]
    text_place = render_text("{{text}}|{{list}}|{{offset}}|{{table.b.c}}", scopes)
    assert (
        text_place.text == 'Zoë "q"|[1,"two","2024-01-02T00:00:00.000Z"]|2024-01-02T03:04:05.678Z|d'
    )


@pytest.mark.parametrize(
    ("url", "value"),
    [
        ("http://127.0.0.1/x/{{v}}", "a?b"),
        ("http://127.0.0.1/x/{{v}}", "a#b"),
        ("http://127.0.0.1/x?{{v}}=1", "a=b"),
        ("http://127.0.0.1/x?a=1&{{v}}", "b&c"),
    ],
)
def test_other_structure_changing_insertions_warn(tmp_path: Path, url: str, value: str) -> None:
    rendered = Setup(tmp_path, {"v": value}).render(Request("r", url=url))
    assert rendered.url == url.replace("{{v}}", value)
    assert rendered.warnings


def test_a_cached_url_still_reports_its_warning_on_every_render(tmp_path: Path) -> None:
    runtime = RuntimeVars()
    runtime.set("v", "a?b")
    request = Request("r", url="http://127.0.0.1/x/{{v}}")
    collection = Collection(name="c", root=tmp_path, items=[request])
    scopes = build_scopes(collection, [], request, runtime=runtime, environ={})
    first = render_request(collection, [], request, scopes)
    assert any(key[0] == "u" for key in scopes.shared_cache())  # the URL is pure: kept
    second = render_request(collection, [], request, scopes)
    assert second.url == first.url == "http://127.0.0.1/x/a?b"
    assert second.warnings == first.warnings and len(first.warnings) == 1


@pytest.mark.parametrize("bad", ["\r", "\n", "\x00"])
def test_api_key_header_with_cr_lf_nul_stops_the_request(tmp_path: Path, bad: str) -> None:
    auth = Auth("api_key", key="X-Key", value="k{{v}}k", location="header")
    with pytest.raises(RenderError) as exc:
        Setup(tmp_path, {"v": bad}).render(Request("r", url="http://127.0.0.1/", auth=auth))
    assert "X-Key" in str(exc.value)


@pytest.mark.parametrize("bad", ["\r", "\n", "\x00"])
def test_basic_auth_user_with_newline_is_safe(tmp_path: Path, bad: str) -> None:
    # base64 carries any byte safely, so this is not a header injection
    auth = Auth("basic", username="u{{v}}", password="p")
    rendered = Setup(tmp_path, {"v": bad}).render(Request("r", url="http://127.0.0.1/", auth=auth))
    [value] = header(rendered, "Authorization")
    assert base64.b64decode(value.split(" ", 1)[1]) == f"u{bad}:p".encode()


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("localhost:8080/x", "http://localhost:8080/x"),
        ("127.0.0.1:9/x?q=1", "http://127.0.0.1:9/x?q=1"),
        ("[::1]:9/x", "http://[::1]:9/x"),
        ("api.localhost/x", "http://api.localhost/x"),
        ("api.example.com/x", "https://api.example.com/x"),
        ("user@example.org", "https://user@example.org"),
    ],
)
def test_a_url_without_scheme_gets_http_for_loopback_and_https_elsewhere(
    tmp_path: Path, typed: str, sent: str
) -> None:
    from render_support import render_alone

    rendered = render_alone(Request(name="r", url=typed), tmp_path)
    assert rendered.url == sent
    assert f"the URL has no scheme: sent as {sent}" in rendered.warnings


@pytest.mark.parametrize("url", ["http://h/x", "{{base}}/x", "/x", ""])
def test_a_url_with_a_scheme_or_a_missing_base_is_left_alone(tmp_path: Path, url: str) -> None:
    from render_support import render_alone

    rendered = render_alone(Request(name="r", url=url), tmp_path)
    assert rendered.url == url and not any("scheme" in w for w in rendered.warnings)


def test_an_unresolved_typo_suggests_the_name_in_scope(tmp_path: Path) -> None:
    col = Collection(
        name="t", root=tmp_path, variables={"token": "t", "user": {"name": "Ada"}, "api.key": "k"}
    )
    req = Request(name="r", url="http://h/{{tokn}}/{{usr.name}}/{{user.nme}}/{{api.kye}}/{{zzz}}")
    rendered = render_request(col, [], req, build_scopes(col, [], req, environment=""))
    assert rendered.suggestions == {"tokn": "token", "usr.name": "user.name", "api.kye": "api.key"}
    assert "{{tokn}} is not defined: did you mean token?" in rendered.warnings
    assert rendered.unresolved == ["tokn", "usr.name", "user.nme", "api.kye", "zzz"]


def test_a_name_a_script_sets_is_not_taken_for_a_typo(tmp_path: Path) -> None:
    col = Collection(name="t", root=tmp_path, variables={"creds": "c"})
    req = Request(name="r", url="http://h/{{created}}/{{cred}}")
    req.scripts.pre_request = 'pigeon.setVar("created", datetime.now(timezone.utc))'
    rendered = render_request(col, [], req, build_scopes(col, [], req, environment=""))
    assert rendered.suggestions == {"cred": "creds"}


def test_a_parameter_appended_without_a_question_mark_is_pointed_out(tmp_path: Path) -> None:
    from render_support import render_alone

    rendered = render_alone(Request(name="r", url="http://h/headers&y=2"), tmp_path)
    assert rendered.url == "http://h/headers&y=2"
    assert rendered.warnings == [
        "the URL has no '?': &y=… is sent in the path (a query starts with '?')"
    ]
    assert render_alone(Request(name="r", url="http://h/a?x=1&y=2"), tmp_path).warnings == []
