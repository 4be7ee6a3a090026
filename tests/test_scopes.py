"""Scopes, precedence, runtime variables and the ``$env`` namespace (DESIGN §3.2, §3.3)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from pigeon.errors import UsageError
from pigeon.model import Collection, Environment, Folder, Request
from pigeon.render import render_json, render_text
from pigeon.scopes import MISSING, RuntimeVars, Scopes, UnknownEnvironment, build_scopes

NAME_RULE = "^[A-Za-z0-9_.-]+$"
LAYERS = ["collection", "environment", "outer", "inner", "request", "runtime", "cli"]
SCOPE_OF = {"outer": "folder", "inner": "folder"}


def layered(
    root: Path, defined: dict[str, dict[str, Any]], environ: dict[str, str] | None = None
) -> Scopes:
    """Scopes where ``defined[layer]`` holds the variables of that layer (see ``LAYERS``)."""
    collection = Collection(
        name="c",
        root=root,
        variables=dict(defined.get("collection", {})),
        environments={
            "dev": Environment("dev", variables=dict(defined.get("environment", {}))),
            "prod": Environment("prod", variables={"v": "prod", "only_prod": 1}),
        },
    )
    outer = Folder("outer", id="outer", variables=dict(defined.get("outer", {})))
    inner = Folder("inner", id="outer/inner", variables=dict(defined.get("inner", {})))
    request = Request("r", id="outer/inner/r", variables=dict(defined.get("request", {})))
    outer.items.append(inner)
    inner.items.append(request)
    collection.items.append(outer)
    runtime = RuntimeVars()
    for name, value in defined.get("runtime", {}).items():
        runtime.set(name, value)
    return build_scopes(
        collection,
        [outer, inner],
        request,
        environment="dev",
        runtime=runtime,
        cli_vars=dict(defined.get("cli", {})),
        environ=environ or {},
    )


# -- precedence ------------------------------------------------------------------------------


@pytest.mark.parametrize(("low", "high"), list(itertools.combinations(LAYERS, 2)))
def test_higher_scope_wins(tmp_path: Path, low: str, high: str) -> None:
    scopes = layered(tmp_path, {low: {"v": low}, high: {"v": high}})
    assert render_text("{{v}}", scopes).text == high
    definitions = scopes.explain()["v"]
    assert [d.scope for d in definitions] == [SCOPE_OF.get(high, high), SCOPE_OF.get(low, low)]
    assert [d.value for d in definitions] == [high, low]


@pytest.mark.parametrize("layer", LAYERS)
def test_each_scope_alone(tmp_path: Path, layer: str) -> None:
    scopes = layered(tmp_path, {layer: {"v": layer}})
    assert render_text("{{v}}", scopes).text == layer
    [definition] = scopes.explain()["v"]
    assert definition.scope == SCOPE_OF.get(layer, layer)
    assert definition.value == layer


def test_explain_lists_winner_first_then_every_shadowed_definition(tmp_path: Path) -> None:
    scopes = layered(tmp_path, {layer: {"v": layer, layer: 1} for layer in LAYERS})
    definitions = scopes.explain()["v"]
    assert [d.scope for d in definitions] == [
        "cli",
        "runtime",
        "request",
        "folder",
        "folder",
        "environment",
        "collection",
    ]
    assert [d.value for d in definitions] == list(reversed(LAYERS))
    assert all(isinstance(d.label, str) for d in definitions)
    # the two folder definitions can be told apart, and the environment is named
    assert definitions[3].label != definitions[4].label
    assert "dev" in definitions[5].label
    for layer in LAYERS:
        assert [d.value for d in scopes.explain()[layer]] == [1]


def test_explain_keeps_value_kinds(tmp_path: Path) -> None:
    scopes = layered(tmp_path, {"collection": {"v": {"a": [1]}}, "runtime": {"v": None}})
    definitions = scopes.explain()["v"]
    assert [d.value for d in definitions] == [None, {"a": [1]}]
    assert render_text("{{v}}", scopes).text == "null"


def test_only_the_selected_environment_is_used(tmp_path: Path) -> None:
    scopes = layered(tmp_path, {"collection": {"v": "collection"}})
    assert render_text("{{v}}", scopes).text == "collection"
    result = render_text("{{only_prod}}", scopes)
    assert result.unresolved == ["only_prod"]
    assert "only_prod" not in scopes.explain()


def test_whole_value_is_shadowed_not_merged(tmp_path: Path) -> None:
    scopes = layered(
        tmp_path, {"collection": {"user": {"id": 1, "name": "c"}}, "request": {"user": {"id": 2}}}
    )
    result = render_text("{{user.id}} {{user.name}}", scopes)
    assert result.text == "2 {{user.name}}"
    assert result.unresolved == ["user.name"]


def test_nested_placeholders_resolve_against_all_scopes(tmp_path: Path) -> None:
    scopes = layered(
        tmp_path,
        {
            "collection": {"url": "{{base}}/v1", "base": "http://collection"},
            "environment": {"base": "http://dev"},
            "cli": {"base": "http://cli"},
        },
    )
    assert render_text("{{url}}", scopes).text == "http://cli/v1"


def test_cli_vars_carry_json_kinds(tmp_path: Path) -> None:
    scopes = layered(tmp_path, {"cli": {"n": 5, "o": {"a": [1, None]}, "s": "5", "b": False}})
    result = render_json('{"n": {{n}}, "o": {{o}}, "s": "{{s}}", "b": {{b}}}', scopes)
    assert json.loads(result.text) == {"n": 5, "o": {"a": [1, None]}, "s": "5", "b": False}


def test_runtime_is_shared_by_every_request(tmp_path: Path) -> None:
    collection = Collection(name="c", root=tmp_path, variables={"token": "none"})
    first, second = Request("a", id="a"), Request("b", id="b")
    collection.items += [first, second]
    runtime = RuntimeVars()
    runtime.set("token", "abc")
    for request in (first, second):
        scopes = build_scopes(collection, [], request, runtime=runtime, environ={})
        assert render_text("{{token}}", scopes).text == "abc"
    runtime.clear()
    scopes = build_scopes(collection, [], second, runtime=runtime, environ={})
    assert render_text("{{token}}", scopes).text == "none"


# -- runtime variables -----------------------------------------------------------------------


def test_runtime_vars_behave_like_a_dict() -> None:
    runtime = RuntimeVars()
    runtime.set("a", 1)
    runtime.set("api.key", "k")
    runtime.set("a", 2)
    assert runtime.get("a") == 2
    assert runtime.get("api.key") == "k"
    assert "a" in runtime
    assert "b" not in runtime
    assert dict(runtime.items()) == {"a": 2, "api.key": "k"}
    runtime.clear()
    assert "a" not in runtime
    assert list(runtime.items()) == []


@pytest.mark.parametrize("name", ["bad name", "", "é", "a/b", "$env", "x{y}"])
def test_runtime_set_refuses_bad_names(name: str) -> None:
    runtime = RuntimeVars()
    with pytest.raises(ValueError) as exc:
        runtime.set(name, 1)
    assert NAME_RULE in str(exc.value)
    assert any(q in str(exc.value) for q in (f"'{name}'", f'"{name}"', repr(name)))
    assert list(runtime.items()) == []


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (float("nan"), "bad"),
        (float("inf"), "bad"),
        ({"tags": [1, 2, {3}]}, "bad.tags[2]"),
        ({"k": {1: 2}}, "bad.k"),
        (b"raw", "bad"),
        (object(), "bad"),
    ],
)
def test_runtime_set_refuses_bad_values_and_keeps_old_value(value: Any, path: str) -> None:
    runtime = RuntimeVars()
    runtime.set("bad", "old")
    with pytest.raises(ValueError) as exc:
        runtime.set("bad", value)
    assert path in str(exc.value)
    assert runtime.get("bad") == "old"


def test_runtime_set_normalizes_tuples_and_keeps_big_ints() -> None:
    runtime = RuntimeVars()
    runtime.set("t", (1, (2, 3), {"k": (4,)}))
    runtime.set("big", 2**80 + 1)
    runtime.set("flag", True)
    assert runtime.get("t") == [1, [2, 3], {"k": [4]}]
    assert isinstance(runtime.get("t"), list)
    assert runtime.get("big") == 2**80 + 1
    assert runtime.get("flag") is True


# -- the $env namespace ----------------------------------------------------------------------


def env_scopes(
    root: Path,
    environ: dict[str, str] | None,
    dotenv: dict[str, str] | None = None,
    variables: dict[str, Any] | None = None,
) -> Scopes:
    collection = Collection(name="c", root=root, dotenv=dict(dotenv or {}))
    runtime = RuntimeVars()
    for name, value in (variables or {}).items():
        runtime.set(name, value)
    return build_scopes(collection, [], None, runtime=runtime, environ=environ)


@pytest.mark.parametrize("form", ["$env.{}", "process.env.{}", " $env.{} ", "  process.env.{}"])
def test_env_reads_environ(tmp_path: Path, form: str) -> None:
    scopes = env_scopes(tmp_path, {"API_TOKEN": "from-environ"})
    result = render_text("{{" + form.format("API_TOKEN") + "}}", scopes)
    assert result.text == "from-environ"
    assert result.unresolved == []


@pytest.mark.parametrize("form", ["$env.{}", "process.env.{}"])
def test_env_falls_back_to_dotenv(tmp_path: Path, form: str) -> None:
    scopes = env_scopes(tmp_path, {"OTHER": "x"}, dotenv={"SECRET": "from-dotenv"})
    assert render_text("{{" + form.format("SECRET") + "}}", scopes).text == "from-dotenv"


@pytest.mark.parametrize("form", ["$env.{}", "process.env.{}"])
def test_environ_wins_over_dotenv(tmp_path: Path, form: str) -> None:
    scopes = env_scopes(tmp_path, {"SECRET": "ci"}, dotenv={"SECRET": "local"})
    assert render_text("{{" + form.format("SECRET") + "}}", scopes).text == "ci"


def test_empty_environ_value_still_wins(tmp_path: Path) -> None:
    scopes = env_scopes(tmp_path, {"SECRET": ""}, dotenv={"SECRET": "local"})
    result = render_text("[{{$env.SECRET}}]", scopes)
    assert result.text == "[]"
    assert result.unresolved == []


@pytest.mark.parametrize("text", ["{{$env.NOPE}}", "{{ process.env.NOPE }}", "a {{ $env.NOPE }} b"])
def test_missing_env_is_unresolved(tmp_path: Path, text: str) -> None:
    scopes = env_scopes(tmp_path, {"OTHER": "x"}, dotenv={"ALSO": "y"})
    result = render_text(text, scopes)
    assert result.text == text
    assert result.unresolved == [text.split("{{")[1].split("}}")[0].strip()]


def test_variables_never_shadow_env(tmp_path: Path) -> None:
    variables = {
        "process": {"env": {"HOME": "shadow"}},
        "process.env.HOME": "flat-shadow",
        "HOME": "plain",
        "env": {"HOME": "env-var"},
    }
    scopes = env_scopes(tmp_path, {"HOME": "/home/ada"}, variables=variables)
    assert render_text("{{$env.HOME}}|{{process.env.HOME}}", scopes).text == "/home/ada|/home/ada"


def test_variables_never_fill_a_missing_env(tmp_path: Path) -> None:
    variables = {"process": {"env": {"NOPE": "shadow"}}, "process.env.NOPE": "flat"}
    scopes = env_scopes(tmp_path, {}, variables=variables)
    result = render_text("{{process.env.NOPE}}", scopes)
    assert result.text == "{{process.env.NOPE}}"
    assert result.unresolved == ["process.env.NOPE"]


def test_env_value_is_never_rendered(tmp_path: Path) -> None:
    scopes = env_scopes(tmp_path, {"RAW": "{{x}} and {{ '{{' }}"}, variables={"x": "X"})
    result = render_text("{{$env.RAW}}", scopes)
    assert result.text == "{{x}} and {{ '{{' }}"
    assert result.unresolved == []


def test_env_in_json_string_place_is_escaped(tmp_path: Path) -> None:
    scopes = env_scopes(tmp_path, {"Q": 'a"b\\c'})
    result = render_json('{"q": "{{$env.Q}}"}', scopes)
    assert json.loads(result.text) == {"q": 'a"b\\c'}


def test_env_defaults_to_the_process_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIGEON_SCOPES_TEST", "from-os")
    scopes = env_scopes(tmp_path, None)
    assert render_text("{{$env.PIGEON_SCOPES_TEST}}", scopes).text == "from-os"


def test_env_name_is_case_sensitive_as_given(tmp_path: Path) -> None:
    scopes = env_scopes(tmp_path, {"Mixed_Case": "m"})
    assert render_text("{{$env.Mixed_Case}}", scopes).text == "m"


@pytest.mark.timeout(10)
def test_self_reference_across_scopes_is_a_cycle(tmp_path: Path) -> None:
    # lookup always takes the winning definition, so this never reaches the shadowed one
    scopes = layered(
        tmp_path, {"collection": {"base": "http://h"}, "request": {"base": "{{base}}/v2"}}
    )
    result = render_text("{{base}}", scopes)
    assert result.text == "{{base}}/v2"
    assert any("cycle: base -> base" in w for w in result.warnings), result.warnings


def test_env_like_collection_variables_never_shadow(tmp_path: Path) -> None:
    # names a script could not set, but a hand-written TOML file might hold
    variables = {"$env": {"HOME": "shadow"}, "$env.HOME": "flat", "process": {"env": {}}}
    collection = Collection(name="c", root=tmp_path, variables=variables)
    scopes = build_scopes(collection, [], None, environ={"HOME": "/home/ada"})
    assert render_text("{{$env.HOME}} {{ process.env.HOME }}", scopes).text == "/home/ada /home/ada"


def test_null_from_cli(tmp_path: Path) -> None:
    scopes = layered(tmp_path, {"collection": {"v": "text"}, "cli": {"v": None}})
    assert render_json('{"v": {{v}}, "s": "{{v}}"}', scopes).text == '{"v": null, "s": "null"}'


def test_flat_dotted_name_wins_over_a_path_in_a_higher_scope(tmp_path: Path) -> None:
    # rule 4.2.1 comes first: "If the whole path text is the name of a variable"
    scopes = layered(
        tmp_path, {"collection": {"api.key": "flat"}, "cli": {"api": {"key": "nested"}}}
    )
    assert render_text("{{api.key}}", scopes).text == "flat"
    assert [d.scope for d in scopes.explain()["api.key"]] == ["collection"]
    assert [d.scope for d in scopes.explain()["api"]] == ["cli"]


def test_variable_aliasing_env_is_not_rescanned(tmp_path: Path) -> None:
    scopes = env_scopes(
        tmp_path,
        {"RAW": "{{x}}"},
        variables={"token": "{{ $env.RAW }}", "x": "X", "t2": "<{{token}}>"},
    )
    result = render_text("{{token}} {{t2}}", scopes)
    assert result.text == "{{x}} <{{x}}>"
    assert result.unresolved == []


def test_an_unknown_environment_is_bad_usage_that_names_the_known_ones(tmp_path: Path) -> None:
    collection = Collection(
        name="c", root=tmp_path, environments={"dev": Environment("dev"), "qa": Environment("qa")}
    )
    with pytest.raises(UnknownEnvironment) as exc:
        build_scopes(collection, environment="prod")
    assert str(exc.value) == "unknown environment 'prod' (known: dev, qa)"
    assert isinstance(exc.value, UsageError) and exc.value.exit_code == 2
    assert isinstance(exc.value, KeyError)  # what callers caught before the error tree


def test_deleting_a_runtime_variable_is_seen_by_the_next_render(tmp_path: Path) -> None:
    # The render cache lives as long as the runtime variables are unchanged: a deletion must
    # empty it, else the deleted value is still sent.
    collection = Collection(name="c", root=tmp_path, variables={"token": "collection"})
    runtime = RuntimeVars({"token": "runtime", "other": 1})
    scopes = build_scopes(collection, [], None, runtime=runtime, environ={})
    assert render_text("{{token}}", scopes).text == "runtime"
    runtime.delete("token")
    assert render_text("{{token}}", scopes).text == "collection"
    runtime.delete("absent")  # deleting nothing is no error
    assert len(runtime) == 1 and runtime.as_dict() == {"other": 1}
    runtime.set("token", "again")
    assert render_text("{{token}}", scopes).text == "again"
    runtime.clear()
    assert render_text("{{token}}", scopes).text == "collection"


def test_the_render_cache_is_kept_while_runtime_variables_stay(tmp_path: Path) -> None:
    runtime = RuntimeVars()
    scopes = build_scopes(Collection(name="c", root=tmp_path), [], None, runtime=runtime)
    cache = scopes.shared_cache()
    assert scopes.shared_cache() is cache
    runtime.set("a", 1)
    assert scopes.shared_cache() is not cache
    cache = scopes.shared_cache()
    for change in (lambda: runtime.delete("a"), runtime.clear):
        change()
        assert scopes.shared_cache() is not cache
        cache = scopes.shared_cache()
    unruled = Scopes([], environ={})
    assert unruled.shared_cache() is unruled.shared_cache()


def test_runtime_initial_values_are_checked_and_the_mapping_is_live() -> None:
    runtime = RuntimeVars({"t": (1, 2)})
    assert (
        runtime.get("t") == [1, 2] and runtime.get("nope", 5) == 5 and runtime.get("nope") is None
    )
    live = runtime.mapping
    runtime.set("u", "x")
    assert dict(live) == {"t": [1, 2], "u": "x"}
    copy = runtime.as_dict()
    copy["v"] = 1
    assert "v" not in runtime
    items = runtime.items()
    runtime.set("w", 0)  # items() is a snapshot: setting while iterating is safe
    assert [name for name, _ in items] == ["t", "u"]
    with pytest.raises(ValueError):
        RuntimeVars({"bad name": 1})


def test_names_closest_and_the_layers_of_build_scopes(tmp_path: Path) -> None:
    collection = Collection(
        name="c",
        root=tmp_path,
        variables={"token": "t", "user": {"id": 1}, "b": 1},
        environments={"dev": Environment("dev", variables={"host": "h", "b": 2})},
        default_environment="dev",
    )
    folder = Folder("f", id="", variables={"page": 1})
    request = Request("r", id="", variables={"limit": 5})
    runtime = RuntimeVars({"run": 1})
    scopes = build_scopes(
        collection, [folder], request, None, runtime, {"cli": 1}, environ={}, cli_label="demo"
    )
    assert [(layer.scope, layer.label) for layer in scopes.layers] == [
        ("collection", "collection"),
        ("environment", "environment dev"),
        ("folder", "folder f"),
        ("request", "request r"),
        ("runtime", "runtime (scripts)"),
        ("cli", "demo"),
    ]
    assert scopes.names() == ["token", "user", "b", "host", "page", "limit", "run", "cli"]
    assert scopes.environment is collection.environments["dev"]
    assert scopes.get("b") == 2
    assert scopes.closest("tokn") == "token"
    assert scopes.closest("usr.identifier.deep") == "user.identifier.deep"
    assert scopes.closest("usr[0].something") == "user[0].something"
    assert scopes.closest("user.nope") is None  # a key is missing, the name is right
    assert scopes.closest("token") is None
    assert scopes.closest("zzzzzz") is None
    assert scopes.closest("zzzzzz.a") is None
    assert scopes.closest("$env.X") is None
    assert scopes.closest(".x") is None
    none = build_scopes(collection, [], None, "", environ={})
    assert [layer.scope for layer in none.layers] == ["collection"] and none.environment is None
    assert build_scopes(collection, [], None, None, None, {}, environ={}).layers[-1].scope == (
        "environment"
    )
    collection.default_environment = "gone"  # a default that no longer exists: none is used
    assert [layer.scope for layer in build_scopes(collection, environ={}).layers] == ["collection"]


def test_an_unknown_environment_is_still_a_key_error(tmp_path: Path) -> None:
    collection = Collection(name="c", root=tmp_path)
    with pytest.raises(KeyError) as caught:
        build_scopes(collection, [], None, "prod", environ={})
    assert isinstance(caught.value, UnknownEnvironment)
    assert caught.value.name == "prod" and caught.value.known == []
    assert str(caught.value) == "unknown environment 'prod' (known: none)"


def test_env_behind_a_gate_asks_the_gate(tmp_path: Path) -> None:
    class Gate:
        def env(self, name: str, dotenv: Any) -> str | None:
            return f"gated {name} {dict(dotenv)}"

        def file(self, path: Path, what: str) -> Path | None:
            return None

    collection = Collection(name="c", root=tmp_path, dotenv={"A": "dot"})
    scopes = build_scopes(collection, environ={"A": "env"}, gate=Gate())
    assert scopes.env("A") == "gated A {'A': 'dot'}"
    assert build_scopes(collection, environ={"A": "env"}).env("A") == "env"
    assert build_scopes(collection, environ={}).env("A") == "dot"
    assert build_scopes(collection, environ={}).env("B") is None


def test_every_change_of_a_runtime_variable_is_seen_by_the_next_render(tmp_path: Path) -> None:
    collection = Collection(name="c", root=tmp_path, variables={"a": "collection"})
    runtime = RuntimeVars()
    scopes = build_scopes(collection, [], None, runtime=runtime, environ={})
    seen = []
    for change in (
        lambda: runtime.set("a", "1"),
        lambda: runtime.set("a", "2"),
        runtime.clear,
        lambda: runtime.set("a", "3"),
        lambda: runtime.delete("a"),
        lambda: runtime.set("a", "4"),
    ):
        change()
        seen.append(render_text("{{a}}", scopes).text)
    assert seen == ["1", "2", "collection", "3", "collection", "4"]
    runtime.clear()  # two changes between renders: the version never comes back
    runtime.set("a", "5")
    assert render_text("{{a}}", scopes).text == "5"
    cache = scopes.shared_cache()
    assert scopes.shared_cache() is cache  # kept while nothing changes
    runtime = RuntimeVars()
    scopes = build_scopes(collection, [], None, runtime=runtime, environ={})
    runtime.set("a", "first")
    assert render_text("{{a}}", scopes).text == "first"
    runtime.clear()  # the only change since the first: still a change
    assert render_text("{{a}}", scopes).text == "collection"


def test_closest_edges(tmp_path: Path) -> None:
    collection = Collection(
        name="c",
        root=tmp_path,
        variables={"Token": "t", "user": {"id": 1}, "api.key": "k", "a": 1},
    )
    scopes = build_scopes(collection, environ={})
    assert scopes.closest("api.key") is None  # a flat name that exists is no typo
    assert scopes.closest("Tokn") == "Token"
    assert scopes.closest("usr.id") == "user"  # the whole expression is closest to a name
    assert scopes.environment is None and Scopes([], environ={}).environment is None


def test_explain_sorts_names_without_case(tmp_path: Path) -> None:
    variables = {"b": 1, "_x": 2, "B2": 3, "a": 4}
    scopes = build_scopes(Collection(name="c", root=tmp_path, variables=variables), environ={})
    assert list(scopes.explain()) == ["_x", "a", "b", "B2"]


def test_the_command_line_layer_is_named_so_by_default(tmp_path: Path) -> None:
    scopes = build_scopes(Collection(name="c", root=tmp_path), cli_vars={"a": 1}, environ={})
    assert scopes.layers[-1].label == "command line --var"
    assert scopes.explain()["a"][0].label == "command line --var"


def test_unknown_environment_keeps_its_key_error_arguments(tmp_path: Path) -> None:
    with pytest.raises(UnknownEnvironment) as caught:
        build_scopes(Collection(name="c", root=tmp_path), [], None, "prod", environ={})
    assert caught.value.args == ("prod",)
    assert repr(MISSING) == "MISSING"


# -- secrets and globals (DESIGN §11) ----------------------------------------------------------


def _secret_world(tmp_path: Path) -> tuple[Collection, Any]:
    """A collection whose every layer can hold a secret, with globals and a global
    environment of the collection's environment's name."""
    from pigeon.model import Globals, SecretSource

    def source(name: str, origin: str) -> SecretSource:
        return SecretSource(name, "prompt", label=name, origin=origin)

    glob = Globals(
        path=tmp_path / "globals.toml",
        variables={"g": "global", "shared": "from globals", "top": "globals"},
        secrets={"gs": source("gs", "globals.toml")},
        environments={
            "dev": Environment("dev", {"e": "global env", "genv": "only global"}, is_global=True),
        },
    )
    collection = Collection(
        name="c",
        root=tmp_path,
        variables={"shared": "from collection", "cs": "plain"},
        secrets={"cs": source("cs", "collection.toml")},
        environments={
            "dev": Environment("dev", {"e": "own env"}, {"es": source("es", "dev.toml")})
        },
        globals=glob,
    )
    return collection, source


def test_globals_lie_under_the_collection_and_a_global_environment_under_its_namesake(
    tmp_path: Path,
) -> None:
    collection, _ = _secret_world(tmp_path)
    scopes = build_scopes(collection, environment="dev", cli_vars={"top": "cli"})
    assert scopes.get("g") == "global"
    assert scopes.get("shared") == "from collection"
    assert scopes.get("e") == "own env" and scopes.get("genv") == "only global"
    assert scopes.get("top") == "cli"
    labels = [(layer.scope, layer.label) for layer in scopes.layers]
    assert labels == [
        ("collection", "globals"),
        ("collection", "globals"),
        ("collection", "collection"),
        ("collection", "collection"),
        ("environment", "global environment dev"),
        ("environment", "environment dev"),
        ("environment", "environment dev"),
        ("cli", "command line --var"),
    ]
    explained = scopes.explain()
    assert [(d.scope, d.label, d.value) for d in explained["e"]] == [
        ("environment", "environment dev", "own env"),
        ("environment", "global environment dev", "global env"),
    ]
    assert [d.label for d in explained["shared"]] == ["collection", "globals"]
    # A secret is explained by its source, never by a value.
    (secret, plain) = explained["cs"]
    assert secret.label == "collection" and secret.value.origin == "collection.toml"
    assert plain.label == "collection" and plain.value == "plain"
    assert list(explained) == sorted(explained, key=str.lower)


def test_no_environment_and_an_unknown_default_leave_the_global_one_out(tmp_path: Path) -> None:
    collection, _ = _secret_world(tmp_path)
    assert build_scopes(collection, environment="").get("genv") is MISSING
    collection.default_environment = "gone"
    assert build_scopes(collection).get("genv") is MISSING  # a default that went: none
    with pytest.raises(UnknownEnvironment):
        build_scopes(collection, environment="gone")


def test_a_secret_is_read_through_the_vault_on_first_use_and_is_masked_where_it_wins(
    tmp_path: Path,
) -> None:
    from pigeon.secrets import Vault
    from pigeon.values import MASK

    collection, source = _secret_world(tmp_path)
    asked: list[str] = []

    def ask(src: Any) -> str:
        asked.append(src.name)
        return f"value of {src.name}"

    vault = Vault(ask)
    scopes = build_scopes(collection, environment="dev", vault=vault)
    assert asked == []  # nothing read before a render asks
    assert scopes.get("es") == "value of es" and asked == ["es"]
    assert scopes.get("cs") == "value of cs"  # the secret sits above the plain variable
    assert scopes.get("es") == "value of es" and asked == ["es", "cs"]  # read once
    assert scopes.secret("es") and scopes.secret("cs") and scopes.secret("gs")
    assert not scopes.secret("shared") and not scopes.secret("e")
    assert sorted(scopes.secret_values()) == ["value of cs", "value of es"]
    peeking = build_scopes(collection, environment="dev", vault=vault.peek())
    assert peeking.get("cs") == "value of cs" and peeking.get("gs") == MASK
    unread = build_scopes(collection, environment="dev")  # no vault: defined, never read
    assert unread.get("gs") == MASK and unread.secret_values() == []
    assert asked == ["es", "cs"]
    layer = next(x.variables for x in scopes.layers if "es" in x.variables)
    assert "es" in layer and "nope" not in layer and list(layer) == ["es"] and len(layer) == 1
    assert layer.known() == {"es": "value of es"}


def test_a_plain_variable_above_a_secret_of_its_name_is_no_secret(tmp_path: Path) -> None:
    collection, _ = _secret_world(tmp_path)
    request = Request(name="r", variables={"cs": "plain again"})
    scopes = build_scopes(collection, request=request, runtime=RuntimeVars())
    assert scopes.get("cs") == "plain again" and not scopes.secret("cs")


def test_behind_a_gate_globals_and_secrets_are_asked_of_it_first(tmp_path: Path) -> None:
    collection, _ = _secret_world(tmp_path)

    class Recording:
        def __init__(self) -> None:
            self.asked: list[str] = []

        def env(self, name: str, dotenv: Any) -> None:
            return None

        def file(self, path: Path, what: str) -> None:
            return None

        def secret(self, source: Any) -> bool:
            self.asked.append(f"secret {source.name}")
            return False

        def global_variable(self, name: str) -> bool:
            self.asked.append(f"global {name}")
            return name == "g"

    gate = Recording()
    scopes = build_scopes(collection, environment="dev", gate=gate)  # type: ignore[arg-type]
    assert scopes.get("g") == "global" and scopes.get("top") == ""  # refused: read as empty
    assert scopes.get("es") == "" and scopes.get("gs") == ""
    assert gate.asked == ["global g", "global top", "secret es", "secret gs"]
    layer = next(x.variables for x in scopes.layers if "top" in x.variables)
    assert "g" in layer and "nope" not in layer and len(layer) == 3 and "top" in list(layer)
    assert [d.value for d in scopes.explain()["g"]] == ["global"]  # explained, not read
    assert gate.asked == ["global g", "global top", "secret es", "secret gs"]
