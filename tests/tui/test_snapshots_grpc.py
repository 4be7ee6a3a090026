"""SVG snapshots of a gRPC request (80x24 and 120x40): a real server-stream call to the
loopback server, its clock, duration and port then fixed so the picture is the same on every
run."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import open_request, wait_for

from grpc_servers import Server, serve
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.response.event_table import EventTable
from pigeon.tui.widgets.response.grpc_view import GrpcView

COUNT = """\
name = "Count"
type = "grpc"
url = "grpc://127.0.0.1:{{port}}"
rpc = "pigeon.test.Greeter/Count"

[[headers]]
name = "x-token"
value = "{{token}}"

[body]
type = "json"
content = '{"count": 5}'
"""


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


def count_app(tmp_path: Path, port: int) -> PigeonApp:
    root = tmp_path / "rpc"
    (root / "streams").mkdir(parents=True)
    (root / "collection.toml").write_text('name = "rpc"\n', encoding="utf-8")
    (root / "streams" / "count.toml").write_text(COUNT, encoding="utf-8")
    session = Session.open(root)
    session.overrides.update({"port": str(port), "token": "t0k3n"})
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def call(pilot) -> None:
    app = pilot.app
    await open_request(pilot, "streams/count")
    await wait_for(pilot, lambda: app.screen.query(GrpcView))
    view = app.screen.query_one(GrpcView)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: view.state_line.startswith("✔"))
    call = view.holder.call
    for i, reply in enumerate(call.replies):  # the clock, the duration and the port, fixed
        reply.at = 1_700_000_000 + i * 0.25
    call.elapsed_ms = 12.0
    app.screen.session.overrides["port"] = "50051"
    app.screen.refresh_after_variables()
    view._show()
    app.screen.query_one(CollectionTree).focus()  # no blinking cursor in the picture
    await pilot.pause()
    # The table reveals its last row after a refresh; the picture waits for the scroll bar
    # to be drawn where the rows are, not a frame behind them.
    table = view.replies.query_one(EventTable)
    await wait_for(
        pilot,
        lambda: table.scroll_offset.y == table.max_scroll_y
        and table.vertical_scrollbar.position == table.scroll_offset.y,
    )
    await pilot.pause()


def test_grpc_server_stream_80x24(snap_compare, tmp_path, greeter) -> None:
    assert snap_compare(count_app(tmp_path, greeter.port), terminal_size=(80, 24), run_before=call)


def test_grpc_server_stream_120x40(snap_compare, tmp_path, greeter) -> None:
    assert snap_compare(count_app(tmp_path, greeter.port), terminal_size=(120, 40), run_before=call)
