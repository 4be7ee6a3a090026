"""Properties of the interpolation engine over generated templates and values (DESIGN §3–§5).

The oracles here are written from the spec's table, independently of ``pigeon.values``.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pigeon.model import Body, Collection, Header, QueryParam, Request
from pigeon.render import RenderError, render_json, render_request, render_text
from pigeon.scopes import RuntimeVars, Scopes, build_scopes
from pigeon.values import check_value, format_date

UTC = timezone.utc
ROOT = Path("/nonexistent/pigeon-property-collection")
SETTINGS = settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


def scopes_of(variables: dict[str, Any]) -> Scopes:
    runtime = RuntimeVars()
    for name, value in variables.items():
        runtime.set(name, value)
    return build_scopes(Collection(name="p", root=ROOT), [], None, runtime=runtime, environ={})


# -- oracles -----------------------------------------------------------------------------------


def iso(value: datetime | date) -> str:
    """ISO 8601 UTC with milliseconds (truncated) and ``Z``; a date is midnight UTC."""
    if isinstance(value, datetime):
        value = value.astimezone(UTC)
        clock = f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond // 1000:03d}"
    else:
        clock = "00:00:00.000"
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{clock}Z"


def as_json_data(value: Any) -> Any:
    """What ``json.loads`` gives back for ``value`` written in a JSON value place."""
    if isinstance(value, (datetime, date)):
        return iso(value)
    if isinstance(value, dict):
        return {k: as_json_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json_data(v) for v in value]
    return value


def as_text(value: Any) -> str:
    """The text place form of ``value`` from DESIGN §5."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (datetime, date)):
        return iso(value)
    return json.dumps(as_json_data(value), ensure_ascii=False, separators=(",", ":"))


# -- strategies ----------------------------------------------------------------------------------

NO_PLACEHOLDER = st.text(max_size=30).filter(lambda s: "{{" not in s)
OFFSETS = st.sampled_from(
    [
        UTC,
        timezone(timedelta(hours=2)),
        timezone(timedelta(hours=-8)),
        timezone(timedelta(hours=5, minutes=30)),
    ]
)
AWARE = st.datetimes(
    min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=OFFSETS
)
SCALARS = (
    NO_PLACEHOLDER
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.none()
    | AWARE
    | st.dates(min_value=date(1000, 1, 1))
)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(NO_PLACEHOLDER, children, max_size=4)
    ),
    max_leaves=12,
)


# -- a template without placeholders renders to itself ---------------------------------------------


@SETTINGS
@given(text=NO_PLACEHOLDER)
def test_text_without_placeholders_is_unchanged(text: str) -> None:
    scopes = scopes_of({"x": 1})
    for render in (render_text, render_json):
        result = render(text, scopes)
        assert result.text == text
        assert result.unresolved == []


@SETTINGS
@given(text=st.text(alphabet='{}"\\ \n[]:,0a', max_size=40).filter(lambda s: "{{" not in s))
def test_brace_heavy_text_without_placeholders_is_unchanged(text: str) -> None:
    result = render_json(text, scopes_of({}))
    assert result.text == text
    assert result.unresolved == []


# -- any value in each JSON place -----------------------------------------------------------------


@SETTINGS
@given(value=VALUES.filter(lambda v: not isinstance(v, str)))
def test_json_value_place_gives_valid_json(value: Any) -> None:
    result = render_json('{"v": {{v}}}', scopes_of({"v": value}))
    assert json.loads(result.text) == {"v": as_json_data(value)}
    assert result.warnings == []
    assert result.unresolved == []


@SETTINGS
@given(value=VALUES)
def test_json_string_place_gives_valid_json_string(value: Any) -> None:
    result = render_json('["{{v}}", "<{{ v }}>"]', scopes_of({"v": value}))
    assert json.loads(result.text) == [as_text(value), f"<{as_text(value)}>"]
    assert result.warnings == []


@SETTINGS
@given(value=VALUES)
def test_text_place_matches_the_table(value: Any) -> None:
    result = render_text("{{v}}", scopes_of({"v": value}))
    assert result.text == as_text(value)


@SETTINGS
@given(value=NO_PLACEHOLDER)
def test_string_in_json_value_place_is_as_is(value: str) -> None:
    assert render_json("[{{v}}]", scopes_of({"v": value})).text == f"[{value}]"


@SETTINGS
@given(value=AWARE | st.dates(min_value=date(1000, 1, 1)))
def test_format_date_matches_oracle(value: datetime | date) -> None:
    assert format_date(value) == iso(value)


@SETTINGS
@given(value=VALUES)
def test_check_value_accepts_every_generated_value(value: Any) -> None:
    assert check_value(value, "v") == value


# -- random text never raises and never loops -------------------------------------------------------

TOKENS = st.sampled_from(
    [
        "{",
        "}",
        "{{",
        "}}",
        "{{{",
        "}}}",
        "'",
        '"',
        ".",
        "[",
        "]",
        "[0]",
        "[-1]",
        '["',
        '"]',
        "a",
        "b",
        "c",
        "x",
        " ",
        "$",
        "$env.",
        "process.env.",
        "$uuid",
        "0",
        "-",
        "\\",
        "\n",
        "#",
        "&",
        "?",
        "/",
        "=",
        "a.b",
        "#each",
        ":",
        ",",
    ]
)
RANDOM_TEMPLATE = st.lists(TOKENS, max_size=40).map("".join)
TRICKY_VARS: dict[str, Any] = {
    "a": {"b": [1, "{{a.b[0]}}", {"c": "{{x}}"}], "c": "{{ a.c }}"},
    "x": "{{a}}",
    "b": "{{x}}{{b}}",
    "c": "{{ '{{' }}c}}",
    "a.b": "flat",
    "n": None,
}


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(text=RANDOM_TEMPLATE)
def test_random_text_never_raises_or_loops(text: str) -> None:
    scopes = scopes_of(TRICKY_VARS)
    for render in (render_text, render_json):
        result = render(text, scopes)
        assert isinstance(result.text, str)
        assert all(isinstance(u, str) for u in result.unresolved)
        assert len(result.unresolved) == len(set(result.unresolved))
        assert all(isinstance(w, str) for w in result.warnings)


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(
    url=RANDOM_TEMPLATE,
    value=RANDOM_TEMPLATE,
    body=RANDOM_TEMPLATE,
    kind=st.sampled_from(["json", "text"]),
)
def test_random_request_renders_or_refuses_cleanly(
    url: str, value: str, body: str, kind: str
) -> None:
    collection = Collection(
        name="p", root=ROOT, variables={k: v for k, v in TRICKY_VARS.items() if v is not None}
    )
    request = Request(
        "r",
        method="POST",
        url=url,
        headers=[Header("X-R", value)],
        query=[QueryParam("q", value)],
        body=Body(kind, body),
    )
    scopes = build_scopes(collection, [], request, environ={})
    try:
        rendered = render_request(collection, [], request, scopes)
    except RenderError as exc:
        assert "X-R" in str(exc)
        assert re.search(r"[\r\n\x00]", value)
        return
    assert rendered.body == (rendered.body_text or "").encode("utf-8")


# -- fully defined templates leave nothing unresolved -----------------------------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
KEYS = st.text(alphabet="abz09_- .", min_size=1, max_size=6)
LEAVES = (
    st.integers()
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=8)
    | AWARE
)
TREES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, min_size=1, max_size=3)
        | st.dictionaries(KEYS, children, min_size=1, max_size=3)
    ),
    max_leaves=8,
)
DOT_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def all_paths(prefix: str, value: Any) -> list[tuple[str, Any]]:
    """Every path that reaches a part of ``value``, with the part it reaches."""
    out = [(prefix, value)]
    if isinstance(value, dict):
        for key, child in value.items():
            step = f".{key}" if DOT_KEY.fullmatch(key) else f'["{key}"]'
            out += all_paths(prefix + step, child)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += all_paths(f"{prefix}[{i}]", child)
            out += all_paths(f"{prefix}[{i - len(value)}]", child)
    return out


@SETTINGS
@given(
    variables=st.dictionaries(
        NAMES.filter(lambda n: n != "process"), TREES, min_size=1, max_size=4
    ),
    data=st.data(),
)
def test_defined_placeholders_all_resolve(variables: dict[str, Any], data: st.DataObject) -> None:
    paths = [p for name, value in variables.items() for p in all_paths(name, value)]
    literal = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=6)
    parts: list[str] = []
    expected: list[str] = []
    for _ in range(data.draw(st.integers(min_value=1, max_value=6))):
        text = data.draw(literal)
        path, value = data.draw(st.sampled_from(paths))
        pad = data.draw(st.sampled_from(["", " ", "  "]))
        parts.append(f"{text}{{{{{pad}{path}{pad}}}}}")
        expected.append(text + as_text(value))
    result = render_text("".join(parts), scopes_of(variables))
    assert result.unresolved == []
    assert result.warnings == []
    assert result.text == "".join(expected)


@SETTINGS
@given(
    before=st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=10),
    after=st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=10),
    path=st.sampled_from(
        ["missing", "known.nope", "known.list[7]", "known.list[-9]", "known.s.x", "$env.NOPE"]
    ),
    pad=st.sampled_from(["", " ", "   "]),
)
def test_unresolved_placeholder_kept_exactly(before: str, after: str, path: str, pad: str) -> None:
    scopes = scopes_of({"known": {"list": [1, 2], "s": "text"}})
    text = f"{before}{{{{{pad}{path}{pad}}}}}{after}"
    result = render_text(text, scopes)
    assert result.text == text
    assert result.unresolved == [path]


# -- a render depends only on the template and the variables -----------------------------------

CYCLIC_VARS: dict[str, Any] = {
    "a": "A{{b}}",
    "b": "B{{a}}",
    "c": "{{a}}{{ b }}",
    "o": {"k": "{{c}}", "l": ["{{o.k}}"]},
}
STABLE_TOKENS = st.sampled_from(
    ["{{a}}", "{{b}}", "{{ c }}", "{{o}}", "{{o.k}}", "{{o.l[0]}}", "-", " "]
)
STABLE_TEMPLATE = st.lists(STABLE_TOKENS, max_size=6).map("".join)


@SETTINGS
@example(first="{{a}}", second="{{b}}")
@given(first=STABLE_TEMPLATE, second=STABLE_TEMPLATE)
def test_render_does_not_depend_on_earlier_renders(first: str, second: str) -> None:
    shared = scopes_of(CYCLIC_VARS)
    render_text(first, shared)
    again = render_text(second, shared)
    fresh = render_text(second, scopes_of(CYCLIC_VARS))
    assert again.text == fresh.text
    assert again.warnings == fresh.warnings
    assert again.unresolved == fresh.unresolved


# -- string place vs value place over generated JSON templates ----------------------------------

JSON_VARS: dict[str, Any] = {
    "i": 9007199254740993,
    "f": 2.5,
    "b": False,
    "z": None,
    "o": {"k": ['q"\\', date(2024, 1, 2)]},
    "d": datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
    "s": 'say "hi"\\\n\t}{',
}
VALUE_NAMES = [n for n, v in JSON_VARS.items() if not isinstance(v, str)]
PLAIN = st.text(alphabet=st.characters(blacklist_characters="{}", codec="utf-8"), max_size=5)


@st.composite
def json_template(draw: st.DrawFn, depth: int = 0) -> tuple[str, Any]:
    """A JSON document with placeholders in value places and inside strings, and its meaning."""
    choice = draw(st.integers(0, 5 if depth < 3 else 2))
    if choice == 0:
        name = draw(st.sampled_from(VALUE_NAMES))
        return f"{{{{{name}}}}}", as_json_data(JSON_VARS[name])
    if choice == 1:
        name = draw(st.sampled_from(sorted(JSON_VARS)))
        pre, post = draw(PLAIN), draw(PLAIN)
        inner = json.dumps(pre, ensure_ascii=False)[1:-1] + f"{{{{ {name} }}}}"
        inner += json.dumps(post, ensure_ascii=False)[1:-1]
        return f'"{inner}"', pre + as_text(JSON_VARS[name]) + post
    if choice == 2:
        literal = draw(st.integers() | PLAIN | st.booleans() | st.none())
        return json.dumps(literal, ensure_ascii=False), literal
    if choice == 3:
        items = draw(st.lists(json_template(depth + 1), max_size=3))
        sep = draw(st.sampled_from([",", ", ", ",\n  "]))
        return "[" + sep.join(t for t, _ in items) + "]", [v for _, v in items]
    keys = draw(st.lists(PLAIN, max_size=3, unique=True))
    members = [(k, draw(json_template(depth + 1))) for k in keys]
    text = (
        "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {t}" for k, (t, _) in members) + "}"
    )
    return text, {k: v for k, (_, v) in members}


@SETTINGS
@given(template=json_template())
def test_generated_json_templates_render_to_their_meaning(template: tuple[str, Any]) -> None:
    text, meaning = template
    result = render_json(text, scopes_of(JSON_VARS))
    assert json.loads(result.text) == meaning
    assert result.warnings == []
    assert result.unresolved == []


# -- differential check against a small model of §4 ----------------------------------------------
#
# Variables v0..v3 may refer only to variables with a higher number, so nothing is cyclic and
# the model can be a direct reading of §4.2 and §4.3.

PLACEHOLDER = re.compile(r"""\{\{(\s*('[^']*'|"[^"]*"|[^{}]*?)\s*)\}\}""")
PATH_STEP = re.compile(r"""\.([A-Za-z0-9_-]+)|\[(-?\d+)\]|\["([^"]*)"\]""")
MISSING = object()


def model_steps(path: str) -> list[str | int] | None:
    head = re.match(r"[A-Za-z0-9_-]+", path)
    if not head:
        return None
    steps: list[str | int] = [head.group(0)]
    pos = head.end()
    while pos < len(path):
        m = PATH_STEP.match(path, pos)
        if not m:
            return None
        steps.append(int(m.group(2)) if m.group(2) is not None else (m.group(1) or m.group(3)))
        pos = m.end()
    return steps


class Model:
    def __init__(self, variables: dict[str, Any]) -> None:
        self.variables = variables
        self.unresolved: list[str] = []

    def render(self, text: str) -> str:
        out, pos = [], 0
        for m in PLACEHOLDER.finditer(text):
            out.append(text[pos : m.start()])
            expr = m.group(2)
            value = self.lookup(expr)
            if value is MISSING:
                out.append(m.group(0))
                if model_steps(expr) is not None and expr not in self.unresolved:
                    self.unresolved.append(expr)
            else:
                out.append(as_text(value))
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    def lookup(self, expr: str, render: bool = True) -> Any:
        """The value ``expr`` names, its nested strings rendered (``render``); stepping through
        an alias looks up without rendering, so only what the path reaches is rendered and
        reported, as the engine does."""
        if expr[:1] in "'\"" and len(expr) >= 2 and expr[-1] == expr[0]:
            return expr[1:-1]
        steps = model_steps(expr)
        if steps is None or steps[0] not in self.variables:
            return MISSING
        value = self.variables[steps[0]]
        for step in steps[1:]:
            value = self.alias(value)
            in_list = isinstance(step, int) and isinstance(value, list)
            if in_list and not -len(value) <= step < len(value):
                return MISSING
            if not in_list and not (isinstance(value, dict) and step in value):
                return MISSING
            value = value[step]
        return self.deep(value) if render else value

    def alias(self, value: Any) -> Any:
        if isinstance(value, str):
            m = PLACEHOLDER.fullmatch(value)
            if m:
                target = self.lookup(m.group(2), render=False)
                return value if target is MISSING else self.alias(target)
        return value

    def deep(self, value: Any) -> Any:
        if isinstance(value, str):
            m = PLACEHOLDER.fullmatch(value)
            if m and self.lookup(m.group(2)) is not MISSING:
                return self.lookup(m.group(2))
            return self.render(value)
        if isinstance(value, dict):
            return {k: self.deep(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        return value


SIMPLE_KEYS = st.sampled_from(["a", "b", "k-1", "2fa", "x y", "d.t"])
LEAF_TEXT = st.text(alphabet="ab \"'.-", max_size=4)


@st.composite
def model_case(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    variables: dict[str, Any] = {}
    for index in (3, 2, 1, 0):
        known = [p for name, value in variables.items() for p, _ in all_paths(name, value)]
        refs = st.sampled_from(known + ["nope", "v9.x"]) if known else st.just("nope")
        pad = st.sampled_from(["", " "])
        reference = st.builds(lambda p, s: f"{{{{{s}{p}{s}}}}}", refs, pad)
        leaf = (
            st.integers(-5, 5)
            | st.none()
            | st.booleans()
            | LEAF_TEXT
            | reference
            | st.builds(lambda a, r, b: a + r + b, LEAF_TEXT, reference, LEAF_TEXT)
        )
        tree = st.recursive(
            leaf,
            lambda c: (
                st.lists(c, min_size=1, max_size=3)
                | st.dictionaries(SIMPLE_KEYS, c, min_size=1, max_size=3)
            ),
            max_leaves=6,
        )
        variables[f"v{index}"] = draw(tree)
    known = [p for name, value in variables.items() for p, _ in all_paths(name, value)]
    parts = draw(
        st.lists(
            st.sampled_from(known + ["nope", "v0.zz", "v1[7]"]).map(lambda p: f"{{{{ {p} }}}}")
            | LEAF_TEXT,
            max_size=6,
        )
    )
    return variables, "|".join(parts)


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(case=model_case())
def test_engine_agrees_with_the_model(case: tuple[dict[str, Any], str]) -> None:
    variables, template = case
    model = Model(variables)
    expected = model.render(template)
    result = render_text(template, scopes_of(variables))
    assert result.text == expected
    assert result.warnings == []
    # the engine may also name a missing alias target that explains a failed lookup
    assert set(model.unresolved) <= set(result.unresolved)


@st.composite
def cyclic_case(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    names = ["c0", "c1", "c2", "c3"]
    ref = st.sampled_from(names + ["c0.k", "c1[0]", "c2.k[0]"]).map(lambda p: f"{{{{{p}}}}}")
    text = st.lists(ref | st.sampled_from(["x", "-", " "]), min_size=1, max_size=3).map("".join)
    value = (
        text
        | st.lists(text, min_size=1, max_size=2)
        | st.fixed_dictionaries({"k": text | st.lists(text, min_size=1, max_size=2)})
    )
    variables = {name: draw(value) for name in names}
    return variables, draw(st.lists(ref, min_size=1, max_size=4).map("|".join))


@SETTINGS
@given(case=cyclic_case())
def test_cycles_are_reported_as_closed_loops(case: tuple[dict[str, Any], str]) -> None:
    variables, template = case
    result = render_text(template, scopes_of(variables))
    again = render_text(template, scopes_of(variables))
    assert (again.text, again.warnings, again.unresolved) == (
        result.text,
        result.warnings,
        result.unresolved,
    )
    cycles = [w for w in result.warnings if "cycle: " in w]
    for warning in cycles:
        chain = warning.split("cycle: ", 1)[1].split(" -> ")
        assert len(chain) >= 2
        assert chain[0] == chain[-1].split()[0].rstrip(";,.")
