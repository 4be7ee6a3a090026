"""A gRPC request in the app, before its own view exists: the tree says ``GRPC``, and the send
key makes the call through the session (the pipeline ``pigeon run`` takes), its status and
replies shown as a response."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import main_screen, open_request, press_and_settle, wait_for

from grpc_servers import Server, serve
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs

HELLO = """\
name = "Hello"
type = "grpc"
url = "grpc://127.0.0.1:{{port}}"
rpc = "pigeon.test.Greeter/SayHello"

[body]
type = "json"
content = '{"name": "Ada"}'
"""


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


async def test_a_grpc_request_shows_grpc_in_the_tree_and_sends(
    collection: Path, greeter: Server
) -> None:
    from pigeon.tui.widgets.collection.collection_tree import CollectionTree

    (collection / "calls").mkdir()
    (collection / "calls" / "hello.toml").write_text(HELLO, encoding="utf-8")
    session = Session.open(collection)
    session.overrides.update({"port": greeter.port})
    app = PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "calls/hello")
        tree = app.screen.query_one(CollectionTree)
        label = next(
            str(n.label) for n in tree._all_nodes() if getattr(n.data, "id", "") == "calls/hello"
        )
        assert label.startswith("GRPC ") and "GET" not in label
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        await wait_for(pilot, lambda: screen.last_exchange is not None)
        exchange = screen.last_exchange
        assert exchange is not None and exchange.error is None
        assert exchange.status == 0 and exchange.reason == "OK"
        assert exchange.grpc is not None
        assert exchange.grpc.messages == [{"message": "Hello, Ada"}]
