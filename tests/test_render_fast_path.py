"""The placeholder render's quick way and its twins (DESIGN §4.2-4.3, §7).

``Renderer.piece`` answers most placeholders without the general lookup: a value that needs
no rendering, on a path of objects and arrays. Whatever way a placeholder takes, its text, its
twin (the same with each secret masked where it went), what it reports and what the scopes
are asked must be those of the general walk. The twins of objects, arrays and aliases are
pinned here too: a secret is masked where it sits, whole, and nothing else is.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pigeon.expand import Renderer
from pigeon.model import SecretSource
from pigeon.scopes import MISSING, Layer, Scopes, SecretVars
from pigeon.template import Placeholder, parse, parse_json
from pigeon.values import MASK

HIDDEN_JSON = f'"{MASK}"'  # a whole secret in a JSON value place


class Counting(dict[str, Any]):
    """Variables that note every name the scopes look up in them."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: list[str] = []

    def __contains__(self, name: object) -> bool:
        self.asked.append(str(name))
        return super().__contains__(name)


class Vault:
    """A vault that has every secret at hand: what a render reads is what it gets."""

    peeking = False

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def resolve(self, source: SecretSource) -> str:
        return self.values[source.name]

    def cached(self, source: SecretSource) -> str | None:
        return self.values.get(source.name)


def scopes_of(
    variables: dict[str, Any],
    environ: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
) -> tuple[Scopes, Counting]:
    """Scopes over ``variables`` (counted), with secret sources above them when given."""
    layer = Counting(variables)
    layers = [Layer("collection", "collection", layer)]
    if secrets:
        sources = {name: SecretSource(name, "prompt") for name in secrets}
        layers.append(Layer("collection", "collection", SecretVars(sources, Vault(secrets), None)))
    return Scopes(layers, environ=environ or {}), layer


def ph(expr: str) -> Placeholder:
    single = parse("{{" + expr + "}}").single
    assert single is not None, expr
    return single


def text_pair(variables: dict[str, Any], text: str, **kw: Any) -> tuple[str, str | None]:
    return Renderer(scopes_of(variables, **kw)[0]).render_text_pair(text)


def json_pair(variables: dict[str, Any], text: str, **kw: Any) -> tuple[str, str | None]:
    return Renderer(scopes_of(variables, **kw)[0]).render_json_pair(text)


# -- the quick way and the general walk agree --------------------------------------------------

NAMES = ["a", "b", "obj", "items", "a.b", "api_key", "creds"]
KEYS = ["b", "c", "0", "password", "x y"]
TEMPLATES = [
    "{{a}}",
    "x {{b}}",
    "{{obj.b}}",
    "{{items[0]}}",
    "{{items}}",
    "{{$env.E}}",
    "{{nope}}",
    "{{api_key}}",
    "{{creds.password}}",
    "{{ 'lit' }}",
]
SCALARS = st.one_of(
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.sampled_from([1.5, -0.25]),
    st.text(alphabet='ab "\\/{}é', max_size=6),
    st.sampled_from(TEMPLATES),
    st.just(datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=8,
)
EXPRS = [
    "a",
    "b",
    "obj",
    "obj.b",
    "obj.c.b",
    "obj.password",
    "obj[0]",
    'obj["x y"]',
    "obj.0",
    "items",
    "items[0]",
    "items[-1]",
    "items[-3]",
    "items[2]",
    "items.0",
    "items.-1",
    "items[0].b",
    "items[1][0]",
    "a.b",
    "a.c",
    "api_key",
    "api_key.b",
    "creds",
    "creds.password",
    "creds.b",
    "nope",
    "nope.b",
]


def general(r: Renderer, p: Placeholder, place: int) -> tuple[str, str | None]:
    """The placeholder rendered by the general lookup alone."""
    return r._piece(p, place, (p.raw, place))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=6),
    st.sampled_from(EXPRS),
    st.sampled_from([0, 1, 2]),
)
def test_the_quick_way_gives_what_the_general_walk_gives(
    variables: dict[str, Any], expr: str, place: int
) -> None:
    environ = {"E": "e-v"}
    p = ph(expr)
    quick_scopes, _ = scopes_of(variables, environ)
    slow_scopes, _ = scopes_of(variables, environ)
    quick, slow = Renderer(quick_scopes), Renderer(slow_scopes)
    assert quick.piece(p, place) == general(slow, p, place)
    assert (quick.unresolved, quick.warnings, quick.secrets) == (
        slow.unresolved,
        slow.warnings,
        slow.secrets,
    )
    again = Renderer(quick_scopes)  # what was kept answers as the first render did
    assert again.piece(p, place) == general(slow, p, place)
    assert again.unresolved == quick.unresolved


@pytest.mark.parametrize(
    ("variables", "expr"),
    [
        ({"l": ["x", "y"]}, "l[0]"),
        ({"l": ["x", "y"]}, "l[-2]"),
        ({"l": ["x", "y"]}, "l[-1]"),
        ({"d": {"e": {"f": "g"}}}, "d.e.f"),
        ({"d": {"e": {"f": "g"}}}, 'd["e"]'),
        ({"d": {"e": [1, {"f": 2}]}}, "d.e[1].f"),
        ({"d": {"e": 1}}, "d.e"),
        ({"v": "plain"}, "v"),
    ],
)
def test_a_name_is_asked_of_the_scopes_once_a_render_and_not_again_once_kept(
    variables: dict[str, Any], expr: str
) -> None:
    """Two spellings of one placeholder share their lookups; a kept piece asks nothing."""
    scopes, seen = scopes_of(variables)
    r = Renderer(scopes)
    spaced = parse("{{ " + expr + " }}").single
    assert spaced is not None
    first = r.piece(ph(expr))
    assert r.piece(spaced) == first
    assert len(seen.asked) == len(set(seen.asked))  # each name once
    seen.asked.clear()
    assert Renderer(scopes).piece(ph(expr)) == first
    assert seen.asked == []


def test_the_quick_way_looks_up_exactly_the_names_it_needs() -> None:
    scopes, seen = scopes_of({"a": {"b": 1, "c": [5, 6]}, "x": "ex"})
    r = Renderer(scopes)
    text = "{{a.b}} {{ a.b }} {{a.c[1]}} {{a.c[-2]}} {{x}} {{ x }}"
    assert r.render_text(text) == "1 1 6 5 ex ex"
    assert seen.asked == ["a.b", "a", "x"]
    seen.asked.clear()
    assert Renderer(scopes).render_text(text + " ") == "1 1 6 5 ex ex "  # each piece kept
    assert seen.asked == []


@pytest.mark.parametrize(
    ("variables", "text", "expected"),
    [
        ({"y": "{{z}}", "z": "zed"}, "{{y}}", "zed"),  # an alias
        ({"a.b": "{{z}}", "z": "zed"}, "{{a.b}}", "zed"),  # a flat name
        ({"a": {"b": "{{z}}"}, "z": "zed"}, "{{a.b}}", "zed"),  # a template at the end
        ({"a": {"b": ["{{z}}"]}, "z": "zed"}, "{{a.b}}", '["zed"]'),  # a template inside
        ({"a": {"b": ["{{z}}"]}, "z": "zed"}, "{{a}}", '{"b":["zed"]}'),
        ({"a": ["x", "y"], "z": "zed"}, "{{a.1}}", "y"),  # a step by name into an array
        ({"a": "{{l}}", "l": ["x", "y"]}, "{{a[1]}}", "y"),  # a step through an alias
    ],
)
def test_what_the_quick_way_hands_on_is_kept_too(
    variables: dict[str, Any], text: str, expected: str
) -> None:
    scopes, seen = scopes_of(variables)
    assert Renderer(scopes).render_text(text) == expected
    seen.asked.clear()
    r = Renderer(scopes)  # another text with the same placeholder: its piece is kept
    assert r.render_text(text + "!") == expected + "!"
    assert seen.asked == [] and r.warnings == [] and r.unresolved == []


def test_a_part_of_a_variable_is_never_kept_as_the_whole_variable() -> None:
    scopes, _ = scopes_of({"obj": {"a": {"x": "{{z}}"}, "b": 1}, "z": "zed"})
    r = Renderer(scopes)
    assert r.render_text("{{obj.a}} {{obj}}") == '{"x":"zed"} {"a":{"x":"zed"},"b":1}'
    assert r.render_json('{"p": {{obj.a}}, "w": {{obj}}}') == (
        '{"p": {"x":"zed"}, "w": {"a":{"x":"zed"},"b":1}}'
    )


def test_a_piece_is_text_unless_its_place_is_named() -> None:
    r = Renderer(scopes_of({"q": 'say "hi"', "o": {"k": 'a"b'}})[0])
    assert r.piece(ph("q")) == ('say "hi"', None)
    assert r.piece(ph("o")) == ('{"k":"a\\"b"}', None)
    assert r.piece(ph("q"), 1) == ('say \\"hi\\"', None)
    assert r.piece(ph("q"), 2) == ('say "hi"', None)  # a string goes in as it is


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"v": 'say "hi"'}, 'say "hi"'),
        ({"v": {"k": 'a"b', "n": [1, None]}}, '{"k":"a\\"b","n":[1,null]}'),
        ({"v": ["{{w}}", 2], "w": 'q"q'}, '["q\\"q",2]'),
        ({"v": {"a": "{{w}}"}, "w": "x"}, '{"a":"x"}'),
        ({"v": "{{w}}", "w": {"k": "é"}}, '{"k":"é"}'),
        ({"v": 7, "w": 1}, "7"),
        ({"v": None}, "null"),
    ],
)
def test_any_value_inside_a_json_string_is_its_text_escaped(
    variables: dict[str, Any], expected: str
) -> None:
    out = Renderer(scopes_of(variables)[0]).render_json('{"s": "{{v}}"}')
    assert json.loads(out) == {"s": expected}


# -- twins: each secret masked where it sits ---------------------------------------------------


def test_an_object_s_twin_masks_each_secret_key_whole_and_nothing_else() -> None:
    plain = {
        "a": {"password": 1, "b": {"token": {"deep": 2}}, "c": "see"},
        "list": [{"x": 1}, {"secret": "s"}, [{"pwd": 3}], "free"],
        "n": [1, 2],
        "keyboard": "not a key",
    }
    shown = {
        "a": {"password": MASK, "b": {"token": MASK}, "c": "see"},
        "list": [{"x": 1}, {"secret": MASK}, [{"pwd": MASK}], "free"],
        "n": [1, 2],
        "keyboard": "not a key",
    }
    variables = {"plain": plain, "alias": "{{plain}}", "again": "{{plain}}"}
    for text in ("{{plain}}", "{{alias}}", "{{alias}}{{again}}"):  # the quick way, the general
        clear, twin = text_pair(variables, text)
        n = text.count("{{")
        assert clear == json.dumps(plain, separators=(",", ":")) * n
        assert twin == json.dumps(shown, separators=(",", ":"), ensure_ascii=False) * n
    clear, twin = json_pair(variables, '{"v": {{alias}}, "s": "{{plain}}", "a": "{{again}}"}')
    as_text = json.dumps(plain, separators=(",", ":"))
    assert json.loads(clear) == {"v": plain, "s": as_text, "a": as_text}
    shown_text = json.dumps(shown, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(twin or "") == {"v": shown, "s": shown_text, "a": shown_text}


def test_a_list_of_objects_masks_the_secret_of_each() -> None:
    variables = {"l": [{"token": "t1"}, {"n": 1}, {"token": "t2"}], "al": "{{l}}"}
    expected = json.dumps([{"token": MASK}, {"n": 1}, {"token": MASK}], ensure_ascii=False)
    for text in ("{{l}}", "{{al}}"):
        clear, twin = text_pair(variables, text)
        assert json.loads(clear) == variables["l"]
        assert json.loads(twin or "") == json.loads(expected)


@pytest.mark.parametrize("text", ["{{big}}", "{{alias}}"])
def test_a_large_value_s_secret_keys_are_masked_too(text: str) -> None:
    big = {f"field_{i}": "x" * 40 for i in range(120)} | {"api_key": "k-1"}
    clear, twin = text_pair({"big": big, "alias": "{{big}}"}, text)
    assert len(clear) > 4096 and json.loads(clear) == big
    assert json.loads(twin or "") == big | {"api_key": MASK}


def test_values_without_a_secret_have_no_twin() -> None:
    variables = {
        "kb": {"keyboard": "k", "monkey": ["key-ish"]},
        "s": "plain",
        "t": "a {{s}}",
        "o": {"x": "{{s}}", "l": ["{{s}}", 1, {"y": "{{t}}"}], "d": {"z": 2}},
        "l": ["{{s}}", "{{t}}"],
        "al": "{{o}}",
        "n": 3,
        "when": datetime(2024, 1, 2, tzinfo=timezone.utc),
        "yes": True,
        "nil": None,
        "an": "{{n}}",
        "aw": "{{when}}",
        "ay": "{{yes}}",
        "az": "{{nil}}",
        "as": "{{s}}",
    }
    for text in ("{{kb}}", "{{t}}", "{{o}}", "{{l}}", "{{al}}", "{{al}} {{o}} {{an}}"):
        assert text_pair(variables, text)[1] is None, text
    assert text_pair(variables, "{{aw}} {{ay}} {{az}} {{as}}") == (
        "2024-01-02T00:00:00.000Z true null plain",
        None,
    )
    assert json_pair(variables, '{"a": {{al}}, "b": "{{t}}", "c": {{an}}}')[1] is None


def test_a_templated_object_s_twin_masks_secrets_where_they_went() -> None:
    variables = {
        "name": "ada",
        "obj": {
            "user": "{{name}}",
            "password": "{{name}}-pw",
            "inner": {"api_key": "k", "n": "{{name}}", "m": 1},
            "list": ["{{name}}", {"secret": 2}, "{{$env.E}}", "plain", ["{{$env.E}}"]],
            "plain": [1, {"id": 2}],
            "when": datetime(2024, 1, 2, tzinfo=timezone.utc),
        },
        "al": "{{obj}}",
    }
    clear_obj = {
        "user": "ada",
        "password": "ada-pw",
        "inner": {"api_key": "k", "n": "ada", "m": 1},
        "list": ["ada", {"secret": 2}, "e-v", "plain", ["e-v"]],
        "plain": [1, {"id": 2}],
        "when": "2024-01-02T00:00:00.000Z",
    }
    shown_obj = {
        "user": "ada",
        "password": MASK,
        "inner": {"api_key": MASK, "n": "ada", "m": 1},
        "list": ["ada", {"secret": MASK}, MASK, "plain", [MASK]],
        "plain": [1, {"id": 2}],
        "when": "2024-01-02T00:00:00.000Z",
    }
    for text in ("{{obj}}", "{{al}}"):
        clear, twin = text_pair(variables, text, environ={"E": "e-v"})
        assert json.loads(clear) == clear_obj
        assert json.loads(twin or "") == shown_obj
    r = Renderer(scopes_of(variables, environ={"E": "e-v"})[0])
    assert r.render_text("{{obj}}") and r.secrets == ["e-v", "e-v"]


def test_a_templated_array_s_twin_masks_only_its_secret_items() -> None:
    variables = {"l": ["{{$env.E}}", "x", "{{s}}", 4], "s": "plain", "al": "{{l}}"}
    for text in ("{{l}}", "{{al}}"):
        clear, twin = text_pair(variables, text, environ={"E": "e-v"})
        assert json.loads(clear) == ["e-v", "x", "plain", 4]
        assert json.loads(twin or "") == [MASK, "x", "plain", 4]


@pytest.mark.parametrize(
    ("value", "clear"),
    [
        ("ab1", "ab1"),
        (7, "7"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        (datetime(2024, 1, 2, tzinfo=timezone.utc), "2024-01-02T00:00:00.000Z"),
        ({"a": 1}, '{"a":1}'),
        ({"a": "{{n}}"}, '{"a":"en"}'),
        (["{{n}}"], '["en"]'),
        ("k-{{n}}", "k-en"),
    ],
)
def test_a_secret_variable_is_masked_whole_however_it_is_reached(value: Any, clear: str) -> None:
    """By its name (``api_key``), as a key's value, through aliases, met again (kept)."""
    variables = {
        "api_key": value,
        "n": "en",
        "x": "{{api_key}}",
        "z": "{{api_key}}",
        "box": {"token": value, "free": "{{api_key}}"},
        "via": "{{box.token}}",
    }
    assert text_pair(variables, "{{api_key}}") == (clear, MASK)
    assert text_pair(variables, "<{{x}}|{{z}}>") == (f"<{clear}|{clear}>", f"<{MASK}|{MASK}>")
    assert text_pair(variables, "{{via}}") == (clear, MASK)
    assert text_pair(variables, "{{box.token}}") == (clear, MASK)
    out, twin = json_pair(variables, '{"k": {{x}}, "s": "{{z}}", "b": {{box}}}')
    assert json.loads(twin or "") == {"k": MASK, "s": MASK, "b": {"token": MASK, "free": MASK}}


def test_a_path_through_an_alias_into_a_secret_key_is_masked() -> None:
    variables = {
        "s": {"password": {"a": "v"}, "b": {"c": "w"}},
        "al": "{{s.password}}",
        "al2": "{{s.b}}",
    }
    assert text_pair(variables, "{{al.a}}") == ("v", MASK)
    assert text_pair(variables, "{{al2.c}}") == ("w", None)


def test_secret_sources_are_masked_whatever_their_name() -> None:
    """A variable of a ``[secrets]`` table: masked by where it came from, not by its name."""
    secrets = {"sv": "plain value", "tv": "a-{{name}}", "vault.x": "dotted"}
    variables = {"name": "ada", "alias": "{{sv}}", "other": "{{name}}"}
    assert text_pair(variables, "{{sv}}", secrets=secrets) == ("plain value", MASK)
    assert text_pair(variables, "{{tv}}", secrets=secrets) == ("a-ada", MASK)
    assert text_pair(variables, "{{vault.x}}", secrets=secrets) == ("dotted", MASK)
    assert text_pair(variables, "[{{alias}}]", secrets=secrets) == ("[plain value]", f"[{MASK}]")
    assert text_pair(variables, "[{{other}}]", secrets=secrets) == ("[ada]", None)
    assert json_pair(variables, '{"a": {{sv}}}', secrets=secrets) == (
        '{"a": plain value}',
        f'{{"a": {HIDDEN_JSON}}}',
    )


def test_an_empty_secret_has_nothing_to_hide() -> None:
    variables = {"api_key": "", "al": "{{api_key}}", "t": "{{$env.E}}"}
    assert text_pair(variables, "a{{api_key}}b") == ("ab", None)
    assert text_pair(variables, "a{{al}}b") == ("ab", None)
    assert text_pair(variables, "a{{t}}b", environ={"E": ""}) == ("ab", None)


def test_a_secret_inside_a_string_is_masked_in_each_place() -> None:
    variables = {"h": "at {{$env.E}}", "api_key": 'k"1'}
    assert text_pair(variables, "{{h}}", environ={"E": "e-v"}) == ("at e-v", f"at {MASK}")
    assert json_pair(variables, '{"s": "{{h}}", "v": {{api_key}}}', environ={"E": 'e"v'}) == (
        '{"s": "at e\\"v", "v": k"1}',
        f'{{"s": "at {MASK}", "v": {HIDDEN_JSON}}}',
    )


def test_env_values_read_are_collected_for_the_writers() -> None:
    r = Renderer(scopes_of({"x": "{{$env.E}}"}, environ={"E": "e-v", "F": "f-v"})[0])
    assert r.render_text("{{x}} {{$env.F}} {{$env.NONE}}") == "e-v f-v {{$env.NONE}}"
    assert r.secrets == ["e-v", "f-v"] and r.unresolved == ["$env.NONE"]


# -- the general walk's own cases ---------------------------------------------------------------


def test_a_step_by_name_may_count_from_the_end() -> None:
    variables = {"items": ["a", "b"], "al": "{{items}}"}
    r = Renderer(scopes_of(variables)[0])
    assert r.render_text("{{items.-2}} {{items.-1}} {{al.-2}} {{al[-2]}}") == "a b a a"
    assert r.render_text("{{items.-3}}") == "{{items.-3}}" and r.unresolved == ["items.-3"]


def test_a_deep_object_without_placeholders_is_taken_as_it_is() -> None:
    """Only what holds a placeholder is walked: a deep part without one counts no nesting."""
    deep: Any = "bottom"
    for _ in range(8):
        deep = [deep]
    variables: dict[str, Any] = {f"a{i}": f"{{{{a{i + 1}}}}}" for i in range(55)}
    variables["a55"] = "{{obj}}"
    variables["obj"] = {"t": "{{y}}", "deep": deep, "d": {"e": deep}}
    variables["y"] = "why"
    r = Renderer(scopes_of(variables)[0])
    out = r.render_text("{{a0}}")
    assert json.loads(out) == {"t": "why", "deep": deep, "d": {"e": deep}}
    assert r.warnings == []


def test_the_renderer_s_public_steps() -> None:
    variables = {"x": "{{y}}", "y": {"k": "{{z}}"}, "z": 1, "q": 'a"b'}
    r = Renderer(scopes_of(variables)[0])
    assert r.variable("x") == {"k": 1} and r.variable("nope") is MISSING
    assert r.lookup(ph("x.k")) == 1 and r.lookup(ph("y")) == {"k": 1}
    assert r.value_of(ph("nope")) == "{{nope}}" and r.value_of(ph("x.k")) == 1
    assert r.unresolved == ["nope"]
    assert r.text(parse("<{{q}}>")) == '<a"b>'
    assert r.json(parse_json('{"s": "{{q}}", "v": {{x}}}')) == '{"s": "a\\"b", "v": {"k":1}}'
    assert r.expand_at("{{z}}", ("elsewhere",)) == 1
    assert Renderer(scopes_of({"api_key": "s"})[0]).expand_at("{{api_key}}", ("w",)) == "s"


def test_one_text_in_a_text_place_and_in_a_json_body_renders_each_its_way() -> None:
    r = Renderer(scopes_of({"q": 'a"b'})[0])
    assert r.render_text_pair('"{{q}}"') == ('"a"b"', None)
    assert r.render_json_pair('"{{q}}"') == ('"a\\"b"', None)
    assert r.render_text('"{{q}}"') == '"a"b"' and r.render_json('"{{q}}"') == '"a\\"b"'
