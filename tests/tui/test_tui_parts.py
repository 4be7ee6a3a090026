"""Pieces of the app that need no running app: completion, themes, keys, literals, preview."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from test_theme_contrast import contrast
from textual.color import Color

from pigeon.model import Collection
from pigeon.scopes import Layer, Scopes, build_scopes
from pigeon.tui.keys import help_sections, keymap_from_config, pretty_keys
from pigeon.tui.placeholder_suggester import (
    PlaceholderSuggester,
    complete,
    complete_script_name,
)
from pigeon.tui.themes import bundled_theme_dirs, load_themes, method_colour, theme_from_toml
from pigeon.tui.widgets.editor.body_editor import format_json, not_json_message
from pigeon.tui.widgets.editor.url_preview import preview_text
from pigeon.tui.widgets.variables.variables_pane import looks_secret
from pigeon.values import parse_literal, to_literal


@pytest.fixture
def scopes():
    col = Collection(
        name="c",
        root=Path("."),
        variables={
            "user": {"id": 7, "address": {"city": "London"}, "tags": ["a"]},
            "users": [1, 2],
            "count": 42,
            "api.version": "v2",
        },
    )
    return build_scopes(col, environ={"HOME_DIR": "/h", "TOKEN": "t"})


def test_complete_names_and_paths(scopes) -> None:
    assert complete("us", scopes) == "user."
    assert complete("user.ad", scopes) == "user.address."
    assert complete("user.address.c", scopes) == "user.address.city}}"
    assert complete("co", scopes) == "count}}"
    assert complete("api.v", scopes) == "api.version}}"
    assert complete("user.nothing", scopes) is None
    assert complete("zz", scopes) is None
    assert complete("$u", scopes) == "$uuid}}"
    assert complete("$env.TO", scopes) == "$env.TOKEN}}"


async def test_suggester_completes_only_an_open_placeholder(scopes) -> None:
    suggester = PlaceholderSuggester(lambda: scopes)
    assert await suggester.get_suggestion("{{base}}/x/{{us") == "{{base}}/x/{{user."
    assert await suggester.get_suggestion("{{ co") == "{{ count}}"
    assert await suggester.get_suggestion("{{count}}/a") is None
    assert await suggester.get_suggestion("plain text") is None
    assert await PlaceholderSuggester(lambda: None).get_suggestion("{{us") is None


def test_bundled_themes_load() -> None:
    loaded = load_themes(bundled_theme_dirs())
    names = {t.name for t in loaded.themes}
    assert {"pigeon-dark", "pigeon-light", "pigeon-nord", "pigeon-solarized"} <= names
    assert loaded.problems == []
    light = next(t for t in loaded.themes if t.name == "pigeon-light")
    assert light.dark is False
    assert method_colour(light, "get") == "#1f6b3a"
    assert method_colour(light, "PURGE") == "#4f5963"  # a custom method: the "other" colour


def test_a_theme_without_muted_text_gets_a_readable_one() -> None:
    """Muted text is a colour of the theme's own, not Textual's ``auto``, which a widget's
    parts work out against nothing (white on white in a light theme)."""
    light = theme_from_toml(
        'name = "l"\ndark = false\nprimary = "#1a64a3"\n'
        'foreground = "#1c232b"\nbackground = "#f6f7f9"\n'
    )
    muted = light.variables["text-muted"]
    assert muted.startswith("#") and muted.lower() not in ("#ffffff", "#f6f7f9")
    assert contrast(Color.parse(muted).rgb, Color.parse("#f6f7f9").rgb) >= 4.5
    own = theme_from_toml('name = "o"\nprimary = "#123456"\n[variables]\ntext-muted = "#abcdef"\n')
    assert own.variables["text-muted"] == "#abcdef"


def test_bad_theme_is_reported_with_its_file(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('name = "a"\nprimary = "not-a-colour"\n')
    (tmp_path / "b.toml").write_text('primary = "#fff"\n')
    (tmp_path / "c.toml").write_text('name = "c"\nprimary = "#123456"\nbogus = 1\n')
    (tmp_path / "d.toml").write_text('name = "ok"\nprimary = "#123456"\n')
    loaded = load_themes([tmp_path, tmp_path / "missing"])
    assert [t.name for t in loaded.themes] == ["ok"]
    assert len(loaded.problems) == 3
    assert all(str(tmp_path) in p for p in loaded.problems)
    with pytest.raises(ValueError, match="unknown keys bogus"):
        theme_from_toml('name = "c"\nprimary = "#123456"\nbogus = 1\n')


def test_a_theme_folder_named_twice_is_read_once(tmp_path: Path) -> None:
    """The package's ``themes`` is a link to the checkout's: each file is read (and a bad one
    reported) once."""
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "bad.toml").write_text('primary = "#fff"\n')
    (themes / "ok.toml").write_text('name = "ok"\nprimary = "#123456"\n')
    (tmp_path / "link").symlink_to(themes)
    loaded = load_themes([tmp_path / "link", themes])
    assert [t.name for t in loaded.themes] == ["ok"]
    assert len(loaded.problems) == 1


def test_keymap_validation() -> None:
    keymap, problems = keymap_from_config({"send": "f9", "save": 3, "nope": "x"}, {"send", "save"})
    assert keymap == {"send": "f9"}
    assert len(problems) == 2 and any("nope" in p for p in problems)
    assert keymap_from_config(None, {"send"}) == ({}, [])
    assert pretty_keys("f1,question_mark") == "f1, ?"


def test_a_key_no_terminal_sends_and_a_key_given_twice_are_named() -> None:
    ids = {"send", "save", "help", "quit"}
    table = {"send": "ctrl+banana", "save": "f9,ctrl+y", "help": "f1 , ctrl+y", "quit": "f9"}
    keymap, problems = keymap_from_config(table, ids)
    assert keymap == {"save": "f9,ctrl+y", "help": "f1,ctrl+y", "quit": "f9"}
    assert problems[0].startswith("[keys] send: 'ctrl+banana' is not a key")
    assert problems[1:] == [
        "[keys] f9 is given to save and quit: where both apply, only one of them runs",
        "[keys] ctrl+y is given to save and help: where both apply, only one of them runs",
    ]
    assert keymap_from_config({"send": "ctrl+r,f9", "save": "ctrl+s"}, ids)[1] == []


def test_every_key_the_app_binds_reads_as_a_key() -> None:
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.keys import bindings_of, expand_groups, is_key

    groups = expand_groups(PigeonApp.help_groups())
    keys = {k for _, cls in groups for b in bindings_of(cls) for k in b.key.split(",")}
    assert len(keys) > 50
    assert [k for k in sorted(keys) if not is_key(k.strip())] == []


def test_help_sections_show_remapped_keys() -> None:
    from textual.binding import Binding

    class Thing:
        BINDINGS = [
            Binding("ctrl+r", "send", "Send", id="send"),
            Binding("x", "y", "", id="hidden"),
        ]

    sections = help_sections([("Thing", Thing)], {"send": "f9"})
    assert sections == [("Thing", [("f9", "Send", "send")])]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("true", True),
        ("[1, 2]", [1, 2]),
        ("{a = 1}", {"a": 1}),
        ('{"a": [1, null]}', {"a": [1, None]}),
        ('"42"', "42"),
        ("hello world", "hello world"),
        ("2024-01-02T03:04:05Z", datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    ],
)
def test_parse_literal(text: str, value: object) -> None:
    assert parse_literal(text) == value


@pytest.mark.parametrize("value", ["42", "plain", "true", 3.5, [1, "a"], {"k": {"n": None}}, False])
def test_to_literal_round_trips(value: object) -> None:
    assert parse_literal(to_literal(value)) == value


def test_format_json_only_when_it_parses() -> None:
    assert format_json('{"a":[1]}') == '{\n  "a": [\n    1\n  ]\n}\n'
    assert format_json('{"a": {{x}}}') is None


def test_not_json_names_placeholders_only_when_there_are_some() -> None:
    plain = not_json_message('{"a": 1,}')
    assert "placeholders" not in plain and "line 1, column 9" in plain
    assert "placeholders outside strings" in not_json_message('{"a": {{x}}}')


def test_preview_highlights_unresolved() -> None:
    text = preview_text("http://h/{{a}}/{{b}}", ["b"], ["w1"], None)
    plain = text.plain
    assert "http://h/{{a}}/{{b}}" in plain and "unresolved: b" in plain and "⚠ w1" in plain
    styled = {plain[s.start : s.end]: str(s.style) for s in text.spans}
    assert "red" in styled["{{b}}"] and "{{a}}" not in styled
    assert preview_text("", [], [], "header 'X': CR").plain.startswith("✗")


@pytest.mark.parametrize(
    ("name", "secret"),
    [("token", True), ("api_key", True), ("creds.secret", True), ("password", True),
     ("user", False), ("monkey", False), ("count", False), ("key", True)],
)  # fmt: skip
def test_looks_secret(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret


def test_env_references_and_texts() -> None:
    from pigeon.model import Auth, Header, Request
    from pigeon.tui.widgets.variables.variables_pane import env_references, request_texts

    req = Request(name="r", url="{{base}}/{{$env.A}}", headers=[Header("X", "{{process.env.B}}")])
    texts = request_texts(
        req, [Header("Y", "{{ $env.C }}")], Auth(type="bearer", token="{{$env.A}}")
    )
    assert env_references(texts) == ["A", "C", "B"]


def test_the_env_names_of_every_kinds_fields_are_listed() -> None:
    from pigeon.model import Auth, OAuth2, Request
    from pigeon.tui.widgets.variables.variables_pane import env_references, request_texts

    req = Request(name="r", url="http://h/")
    aws = Auth(type="aws_sigv4", access_key="{{$env.AK}}", secret_key="{{$env.SK}}")
    assert env_references(request_texts(req, [], aws)) == ["AK", "SK"]
    oauth = Auth(
        type="oauth2", oauth2=OAuth2(client_secret="{{$env.CS}}", params={"a": "{{$env.P}}"})
    )
    assert env_references(request_texts(req, [], oauth)) == ["CS", "P"]
    off = Auth(type="none", token="{{$env.OLD}}")  # not sent, so not used
    assert env_references(request_texts(req, [], off)) == []


def test_a_script_name_completes_inside_get_var_and_set_var_only() -> None:
    variables = {"token": "t", "token_type": "Bearer", "user.id": 3}
    scopes = Scopes([Layer("request", "request", variables)], environ={})
    assert complete_script_name('x = pigeon.getVar("to', scopes) == 'ken")'
    assert complete_script_name("pigeon.setVar('user", scopes) == ".id', "
    assert complete_script_name('pigeon.getVar( "token_', scopes) == 'type")'
    assert complete_script_name('pigeon.getVar("token', scopes) == '_type")'  # the longer name
    assert complete_script_name('pigeon.getVar("nope', scopes) == ""
    assert complete_script_name('print("to', scopes) == ""  # not a variable's name
    assert complete_script_name('pigeon.getVar("to")', scopes) == ""  # closed already
    assert complete_script_name('pigeon.getVar("to', None) == ""
    hostile = Scopes([Layer("request", "request", {'x")\nimport os': 1, "x_ok": 2})], environ={})
    assert complete_script_name('pigeon.getVar("x', hostile) == '_ok")'  # never the quote


def test_a_placeholder_never_completes_to_a_name_no_placeholder_can_hold() -> None:
    hostile = Scopes([Layer("request", "request", {"a!}}\u001b[2J": 1, "a_ok": 2})], environ={})
    assert complete("a", hostile) == "a_ok}}"


def test_an_environment_name_no_placeholder_can_hold_is_never_offered() -> None:
    scopes = Scopes([], environ={"A!}}{{x": "1", "A_OK": "2"}, dotenv={})
    assert complete("$env.A", scopes) == "$env.A_OK}}"
