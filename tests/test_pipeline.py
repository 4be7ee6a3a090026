"""The one-request pipeline against the real echo server: runtime variables shared between
sends, runaway scripts stopped, and scopes reused only where nothing can differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write

COUNT = """\
name = "Count"
url = "{{base_url}}/count/{{n}}"

[scripts]
pre_request = '''
pigeon.setVar("n", (pigeon.getVar("n") or 0) + 1)
'''
"""


@pytest.fixture
def col(tmp_path: Path, echo_url: str) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", f'name = "runs"\n\n[variables]\nbase_url = "{echo_url}"\n')
    write(root, "misc/a-count.toml", COUNT)
    return root


def test_execute_shares_runtime_variables_and_stops_runaway_scripts(
    tmp_path: Path, echo_url: str
) -> None:
    import asyncio

    from pigeon.pipeline import RunContext, execute
    from pigeon.store import load_collection

    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "x"\n[variables]\nbase_url = "{echo_url}"\n')
    write(root, "count.toml", COUNT)
    write(
        root,
        "spin.toml",
        "name = \"spin\"\nurl = \"{{base_url}}/get\"\n[scripts]\npre_request = '''\nwhile True:\n    pass\n'''\n",
    )
    collection = load_collection(root)
    count, spin = collection.find("count"), collection.find("spin")
    assert count is not None and spin is not None
    ctx = RunContext(collection, trusted=True, script_timeout=0.3)

    async def go() -> list:
        try:
            first = await execute(ctx, *count)
            second = await execute(ctx, *count)
            stuck = await execute(ctx, *spin)
            return [first, second, stuck]
        finally:
            await ctx.aclose()

    first, second, stuck = asyncio.run(go())
    assert first.rendered.url.endswith("/count/1") and second.rendered.url.endswith("/count/2")
    assert ctx.runtime.get("n") == 2 and first.passed and second.passed
    assert not stuck.passed and stuck.exchange is None
    assert "pre_request script timed out after 0.3 s; stopped" in stuck.problems()[1]


async def test_reused_scopes_see_runtime_variables_set_between_sends(col: Path) -> None:
    from pigeon.pipeline import RunContext, execute
    from pigeon.store import load_collection

    collection = load_collection(col)
    ctx = RunContext(collection, trusted=True, reuse_scopes=True)
    chain, request = collection.find("misc/a-count")
    try:
        first = await execute(ctx, chain, request)
        second = await execute(ctx, chain, request)
    finally:
        await ctx.aclose()
    assert first.rendered is not None and second.rendered is not None
    assert first.rendered.url.endswith("/count/1")
    assert second.rendered.url.endswith("/count/2")


async def test_requests_without_variables_share_their_folders_scopes(tmp_path: Path) -> None:
    """A run shares one Scopes among the requests of a folder that define no variables, and
    a request's own variables reach neither its siblings nor the shared Scopes."""
    from pigeon.pipeline import RequestResult, RunContext, build
    from pigeon.store import load_collection

    (tmp_path / "collection.toml").write_text(
        'name = "c"\n[variables]\nhost = "http://127.0.0.1:9"\nwho = "collection"\n'
    )
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "folder.toml").write_text('name = "f"\n[variables]\nwho = "folder"\n')
    (folder / "a.toml").write_text('name = "a"\nurl = "{{host}}/a/{{who}}"\n')
    (folder / "b.toml").write_text(
        'name = "b"\nurl = "{{host}}/b/{{who}}"\n[variables]\nwho = "request-b"\n'
    )
    (folder / "c.toml").write_text('name = "c"\nurl = "{{host}}/c/{{who}}"\n')
    (tmp_path / "top.toml").write_text('name = "top"\nurl = "{{host}}/top/{{who}}"\n')
    collection = load_collection(tmp_path)
    ctx = RunContext(collection, reuse_scopes=True)
    urls, scopes = {}, {}
    for chain, request in collection.walk():
        result = RequestResult(request, chain)
        _, scopes[request.id] = await build(ctx, chain, request, result)
        assert result.rendered is not None
        urls[request.id] = result.rendered.url
    assert urls == {
        "f/a": "http://127.0.0.1:9/a/folder",
        "f/b": "http://127.0.0.1:9/b/request-b",
        "f/c": "http://127.0.0.1:9/c/folder",
        "top": "http://127.0.0.1:9/top/collection",
    }
    assert scopes["f/a"] is scopes["f/c"]
    assert scopes["f/b"] is not scopes["f/a"] and scopes["top"] is not scopes["f/a"]


async def test_progress_hears_the_url_as_rendered_after_the_pre_request_scripts(
    col: Path,
) -> None:
    from pigeon.exchange import Progress
    from pigeon.pipeline import RunContext, execute
    from pigeon.store import load_collection

    collection = load_collection(col)
    ctx = RunContext(collection, trusted=True)
    chain, request = collection.find("misc/a-count")
    progress = Progress()
    try:
        result = await execute(ctx, chain, request, progress)
    finally:
        await ctx.aclose()
    assert progress.url.endswith("/count/1") and result.exchange is not None


def test_a_request_goes_out_by_its_kind() -> None:
    from pigeon.model import Request
    from pigeon.pipeline import EXCHANGES, kind_of
    from pigeon.render import RenderedRequest

    http = Request(name="h", url="{{base}}/x")
    assert http.kind == "http" and Request(name="w", url=" WSS://h/").kind == "websocket"
    assert Request(name="t", url="http://h/", type="websocket").kind == "websocket"
    assert kind_of(http, RenderedRequest("GET", "ws://h/x")) == "websocket"  # as rendered
    assert kind_of(http, RenderedRequest("GET", "http://h/x")) == "http"
    assert kind_of(http, RenderedRequest("GET", "grpcs://h:1")) == "grpc"  # as rendered
    assert Request(name="g", url="http://h/", type="grpc").kind == "grpc"
    assert set(EXCHANGES) == {"http", "websocket", "grpc"}
