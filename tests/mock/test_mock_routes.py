"""Which example answers a call (DESIGN §14): routes from request URLs, the matching rules,
405's allowed methods and the closest requests of a 404."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write
from pigeon.mock.routes import build_routes, closest, distance, match, route_path
from pigeon.model import Request
from pigeon.store import load_collection

EXAMPLE = '\n[[examples]]\nname = "{name}"\nbody = "{name}"\n'
REQUESTS = {
    "user-by-id.toml": ("GET", "{{base_url}}/users/{{id}}"),
    "user-me.toml": ("GET", "{{base_url}}/users/me"),
    "user-create.toml": ("POST", "{{base_url}}/users"),
    "user-list.toml": ("GET", "{{base_url}}/users?page={{page}}"),
    "user-delete.toml": ("DELETE", "{{base_url}}/users/{{id}}"),
    "post-of-user.toml": ("GET", "{{base_url}}/users/{{id}}/posts/{{post}}"),
    "file-json.toml": ("GET", "https://api.example.com/v1/files/{{name}}.json"),
    "report.toml": ("PURGE", "/cache/{{key}}"),
    "no-examples.toml": ("GET", "/hidden"),
}


@pytest.fixture
def routes(tmp_path: Path) -> list:
    write(tmp_path, "collection.toml", 'name = "C"\n[variables]\nbase_url = "http://localhost:1"\n')
    for file, (method, url) in REQUESTS.items():
        text = f'method = "{method}"\nurl = "{url}"\n'
        if file != "no-examples.toml":
            text += EXAMPLE.format(name=file.removesuffix(".toml"))
        write(tmp_path, file, text)
    found, notes = build_routes(load_collection(tmp_path))
    assert notes == []
    return found


@pytest.mark.parametrize(
    ("method", "path", "request_id", "values"),
    [
        ("GET", "/users/7", "user-by-id", {"id": "7"}),
        ("GET", "/users/me", "user-me", {}),  # a literal segment beats a placeholder
        ("GET", "/users/me/", "user-me", {}),  # a trailing slash is the same path
        ("GET", "/users", "user-list", {}),  # the query is not part of the route
        ("POST", "/users", "user-create", {}),
        ("DELETE", "/users/me", "user-delete", {"id": "me"}),  # the method first
        ("GET", "/users/a b/posts/9", "post-of-user", {"id": "a b", "post": "9"}),
        ("GET", "/v1/files/report.json", "file-json", {"name": "report"}),  # a mixed segment
        ("HEAD", "/users/7", "user-by-id", {"id": "7"}),  # HEAD is served from GET
        ("PURGE", "/cache/k1", "report", {"key": "k1"}),  # any method token
    ],
)
def test_a_call_matches_its_request(
    routes: list, method: str, path: str, request_id: str, values: dict[str, str]
) -> None:
    found = match(routes, method, path)
    assert found is not None and found.route is not None
    assert found.route.request.id == request_id
    assert found.values == values


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/users/7/posts"),  # a placeholder is one segment, never none
        ("GET", "/users/7/posts/1/x"),  # nor more than one
        ("GET", "/v1/files/report.txt"),
        ("GET", "/hidden"),  # a request without examples is not served
        ("GET", "/"),
    ],
)
def test_no_route_matches(routes: list, method: str, path: str) -> None:
    assert match(routes, method, path) is None


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/users", ("GET", "HEAD", "POST")),
        ("PATCH", "/users/7", ("DELETE", "GET", "HEAD")),
        ("GET", "/cache/x", ("PURGE",)),
    ],
)
def test_only_the_method_differs(
    routes: list, method: str, path: str, allowed: tuple[str, ...]
) -> None:
    found = match(routes, method, path)
    assert found is not None and found.route is None and found.allowed == allowed


def test_the_first_request_wins_among_equals(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "C"\norder = ["b", "a"]\n')
    for stem, url in (("a", "/x/{{one}}"), ("b", "/x/{{two}}")):
        write(tmp_path, f"{stem}.toml", f'url = "{url}"\n' + EXAMPLE.format(name=stem))
    routes, _ = build_routes(load_collection(tmp_path))
    found = match(routes, "GET", "/x/1")
    assert found is not None and found.route is not None and found.route.request.id == "b"
    assert found.values == {"two": "1"}


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("{{base_url}}/users/{{id}}?x={{y}}#top", "/users/{{id}}"),
        ("https://api.example.com:8443/v2/items", "/v2/items"),
        ("api.example.com/v2/items", "/v2/items"),
        ("/plain/{{ id }}", "/plain/{{ id }}"),
        ("{{base_url}}", "/"),
        ("", "/"),
    ],
)
def test_the_path_of_a_url(url: str, path: str) -> None:
    assert route_path(Request("r", url=url)) == path


def test_a_base_url_with_a_path_keeps_it(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "C"\n[variables]\nbase_url = "https://h/api/v1"\n')
    write(tmp_path, "environments/local.toml", '[variables]\nbase_url = "http://127.0.0.1:8788"\n')
    write(tmp_path, "r.toml", 'url = "{{base_url}}/users"\n' + EXAMPLE.format(name="r"))
    col = load_collection(tmp_path)
    assert [r.path for r in build_routes(col, "")[0]] == ["/api/v1/users"]
    assert [r.path for r in build_routes(col, "local")[0]] == ["/users"]


def test_the_closest_requests_by_edit_distance(routes: list) -> None:
    # a placeholder takes the call's segment: /users/{{id}} is as near as /users/me, and after it
    assert closest(routes, "GET", "/user/me") == [
        "GET /users/me",
        "GET /users/{{id}}",
        "DELETE /users/{{id}}",
    ]
    assert closest(routes, "GET", "/usrs")[:1] == ["GET /users"]
    assert len(closest(routes, "GET", "/x" * 10_000)) == 3  # a long path costs a bounded time
    assert closest([], "GET", "/x") == []


def test_distance() -> None:
    assert distance("kitten", "sitting") == 3
    assert distance("", "abc") == distance("abc", "") == 3
    assert distance("same", "same") == 0


def test_the_default_example_is_the_first_2xx(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "C"\n')
    write(
        tmp_path,
        "r.toml",
        'url = "/r"\n[[examples]]\nname = "gone"\nstatus = 410\n'
        '[[examples]]\nname = "ok"\nstatus = 200\n[[examples]]\nname = "also"\n',
    )
    write(tmp_path, "s.toml", 'url = "/s"\n[[examples]]\nname = "err"\nstatus = 500\n')
    (r, s), _ = build_routes(load_collection(tmp_path))
    assert r.example(None).name == "ok" and s.example(None).name == "err"
    assert r.example("gone").status == 410 and r.example("nope") is None


def test_an_example_file_outside_or_missing_is_noted(tmp_path: Path) -> None:
    root = tmp_path / "col"
    write(tmp_path, "secret.txt", "server secret")
    write(root, "collection.toml", 'name = "C"\n')
    write(root, "data/ok.bin", "\x00\x01")
    (root / "data/link").symlink_to(tmp_path / "secret.txt")
    body = '[[examples]]\nname = "{0}"\nbody_file = "{1}"\n'
    write(
        root,
        "r.toml",
        'url = "/r"\n'
        + body.format("ok", "data/ok.bin")
        + body.format("link", "data/link")
        + body.format("missing", "data/none"),
    )
    (route,), notes = build_routes(load_collection(root))
    assert route.files == {"ok": b"\x00\x01"}
    assert len(notes) == 2
    assert "'data/link' leads outside the collection" in notes[0]
    assert "'data/none' cannot be read" in notes[1]
