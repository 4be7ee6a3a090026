"""gRPC requests in the app, against the loopback gRPC servers: each kind of method called with
the send key, a server stream shown live and stopped with escape, an error status's details
shown escaped, the calls recorded in the history; the editor's method picker (reflection's
services, ``/`` to filter), the message's template key and its field completion."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import burst, open_request, wait_for

from grpc_servers import Server, serve
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.response.grpc_view import GrpcView
from pigeon.tui.widgets.response.response_pane import ResponsePane


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


def grpc_request(rpc: str, body: str = "", messages: list[str] | None = None) -> str:
    text = (
        f'type = "grpc"\nurl = "grpc://127.0.0.1:{{{{port}}}}"\nrpc = "pigeon.test.Greeter/{rpc}"\n'
    )
    if body:
        text += f"[body]\ntype = \"json\"\ncontent = '{body}'\n"
    for i, message in enumerate(messages or []):
        text += f"[[messages]]\nname = \"m{i + 1}\"\nbody = '{message}'\n"
    return text


REQUESTS = {
    "hello": grpc_request("SayHello", '{"name": "{{who}}", "count": 2}'),
    "count": grpc_request("Count", '{"count": 3}'),
    "flood": grpc_request("Flood", '{"count": 100000000}'),
    "sum": grpc_request("Sum", messages=['{"n": 1}', '{"n": 2}', '{"n": 39}']),
    "echo": grpc_request("Echo", messages=['{"n": 4}', '{"n": 5}']),
    "fail": grpc_request("Fail", '{"name": "ESCAPES"}'),
    "blank": 'type = "grpc"\nurl = "grpc://127.0.0.1:{{port}}"\n',
}


def make(root: Path, port: int) -> PigeonApp:
    root.mkdir(exist_ok=True)
    (root / "collection.toml").write_text('name = "rpc"\n', encoding="utf-8")
    (root / "rpc").mkdir()
    for name, text in REQUESTS.items():
        (root / "rpc" / f"{name}.toml").write_text(f'name = "{name}"\n{text}', encoding="utf-8")
    session = Session.open(root)
    session.overrides.update({"port": str(port), "who": "app"})
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def opened(pilot, name: str) -> GrpcView:
    app = pilot.app
    await open_request(pilot, f"rpc/{name}")
    await wait_for(pilot, lambda: app.screen.query(GrpcView))
    assert app.screen.query_one(ResponsePane).has_class("-grpc")
    view = app.screen.query_one(GrpcView)
    await wait_for(pilot, lambda: "ctrl+r calls" in view.state_line)
    return view


async def called(pilot, name: str) -> GrpcView:
    view = await opened(pilot, name)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: view.state_line.startswith(("✔", "✘")))
    return view


def json_text(view: GrpcView) -> str:
    return view.json_panel.view.text


async def test_a_unary_call_shows_its_reply_metadata_and_trailers(
    tmp_path: Path, greeter: Server
) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "hello")
        assert view.state_line.startswith("✔ OK (0) · unary · 1 sent, 1 received")
        await wait_for(pilot, lambda: '"Hello, app"' in json_text(view))
        assert '"n": 2' in json_text(view)
        table = view.query_one("#grpc-metadata")
        rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        assert ("header", "x-greeted", "app") in rows
        assert ("trailer", "x-trailer", "done") in rows


async def test_a_server_stream_shows_each_reply_live_and_escape_stops_it(
    tmp_path: Path, greeter: Server
) -> None:
    from pigeon.history import list_entries

    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await opened(pilot, "flood")
        # Pressed without pilot's wait for an idle app, which a flood keeps busy for seconds.
        burst(app, "ctrl+r")
        # Replies are on show while the call goes on: the rows grow, the state says live.
        await wait_for(pilot, lambda: view.replies.total >= 50 and view.live)
        assert view.state_line.startswith("● server stream · 1 sent, ")
        assert view.replies.table.rows[0].data == '{"n": 1}' or view.replies.total > 1000
        seen = view.replies.total
        await wait_for(pilot, lambda: view.replies.total > seen)  # still arriving
        view.show_tab("grpc-tab-json")  # the replies so far, as JSON, while the call goes on
        await wait_for(pilot, lambda: json_text(view).startswith('[\n  {\n    "n": '))
        assert view.live
        app.screen.query_one("#url").focus()  # escape from the editor, as a send's
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.state_line.startswith("✘ CANCELLED (1)"))
        assert not view.live
        stopped = view.replies.total
        await pilot.pause(0.2)
        assert view.replies.total == stopped  # nothing more came
        await wait_for(pilot, lambda: list_entries(tmp_path / "c"))
    (entry,) = list_entries(tmp_path / "c")
    exchange = entry.to_exchange()
    assert exchange.status == 1 and exchange.grpc is not None
    assert exchange.grpc.kind == "server stream" and exchange.grpc.received >= stopped


async def test_a_server_stream_ends_with_its_replies_as_json(
    tmp_path: Path, greeter: Server
) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "count")
        assert view.state_line.startswith("✔ OK (0) · server stream · 1 sent, 3 received")
        await wait_for(pilot, lambda: view.replies.total == 3)
        assert [e.data for e in view.replies.table.rows] == ['{"n": 1}', '{"n": 2}', '{"n": 3}']
        view.show_tab("grpc-tab-json")  # the replies as an array, pretty
        await wait_for(pilot, lambda: '"n": 3' in json_text(view))
        assert json_text(view).startswith("[\n  {\n")


async def test_a_client_stream_sends_its_messages_and_shows_the_reply(
    tmp_path: Path, greeter: Server
) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "sum")
        assert view.state_line.startswith("✔ OK (0) · client stream · 3 sent, 1 received")
        await wait_for(pilot, lambda: '"sum": 42' in json_text(view))
        assert '"count": 3' in json_text(view)


async def test_a_bidirectional_call_shows_each_reply(tmp_path: Path, greeter: Server) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "echo")
        assert view.state_line.startswith("✔ OK (0) · bidirectional · 2 sent, 2 received")
        await wait_for(pilot, lambda: view.replies.total == 2)
        assert [e.data for e in view.replies.table.rows] == ['{"n": 8}', '{"n": 10}']


async def test_an_error_status_shows_its_details_escaped(tmp_path: Path, greeter: Server) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "fail")
        line = view.state_line
        assert line.startswith("✘ INVALID_ARGUMENT (3): bad ")
        assert "\x1b" not in line and "\x07" not in line and "\r" not in line
        assert "red" in line and "bell" in line
        assert view.query_one("#grpc-state").has_class("-failed")
        # The notification says it too, escaped as well.
        said = [n.message for n in app._notifications]
        assert any("INVALID_ARGUMENT" in m and "\x1b" not in m for m in said)


async def test_a_call_that_cannot_be_made_says_why(tmp_path: Path, greeter: Server) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await opened(pilot, "blank")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: view.state_line.startswith("✘ Not called"))
        assert "names no method" in view.state_line


async def test_calls_are_in_the_history_and_shown_from_there(
    tmp_path: Path, greeter: Server
) -> None:
    from pigeon.history import list_entries

    root = tmp_path / "c"
    app = make(root, greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "count")
        await wait_for(pilot, lambda: list_entries(root))
    # A new session shows the request's newest call from the history, replies and all.
    history = list_entries(root)
    assert history[0].request_id == "rpc/count"
    assert history[0].to_exchange().grpc.messages == [{"n": 1}, {"n": 2}, {"n": 3}]
    session = Session.open(root)
    session.overrides.update({"port": str(greeter.port)})
    again = PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "rpc/count")
        await wait_for(pilot, lambda: again.screen.query(GrpcView))
        view = again.screen.query_one(GrpcView)
        await wait_for(pilot, lambda: view.state_line.startswith("✔ OK (0) · server stream"))
        await wait_for(pilot, lambda: view.replies.total == 3)


# -- the editor -----------------------------------------------------------------------------------


async def test_the_editor_shows_a_grpc_requests_own_tabs(tmp_path: Path, greeter: Server) -> None:
    from textual.widgets import Label, TabbedContent

    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, "hello")
        tabs = app.screen.query_one("#editor-tabs", TabbedContent)
        names = [str(t.label) for t in tabs.query("ContentTab") if not t.has_class("-hidden")]
        assert names[:4] == ["RPC", "Message", "Messages", "Metadata"]
        assert "Body" not in " ".join(names) and "Query" not in names
        assert str(app.screen.query_one("#method-ws", Label).content) == "gRPC"
        tree = app.screen.query_one(CollectionTree)
        label = next(str(n.label) for n in tree._all_nodes() if n.data is tree.cursor_node.data)
        assert label.startswith("gRPC ") and "GET" not in label  # the tree's badge
        await open_request(pilot, "rpc/sum")
        await pilot.pause()
        assert str(tabs.get_tab("tab-messages").label) == "Messages 3"


async def show_part(pilot, pane_id: str):
    from tui_support import show_tab

    screen = await show_tab(pilot, pane_id)
    return screen.query_one(f"#{pane_id}").children[0]


async def test_the_picker_lists_reflections_methods_and_slash_filters_them(
    tmp_path: Path, greeter: Server
) -> None:
    from textual.widgets import Input, OptionList

    from pigeon.tui.widgets.editor.grpc_rpc_picker import GrpcRpcPicker

    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, "blank")
        picker = await show_part(pilot, "tab-rpc")
        assert isinstance(picker, GrpcRpcPicker)
        await wait_for(pilot, lambda: picker.methods)
        listed = picker.listed
        assert "pigeon.test.Greeter/SayHello" in listed and "pigeon.test.Greeter/Echo" in listed
        assert not any(m.startswith("grpc.reflection") for m in listed)
        assert dict(picker.methods)["pigeon.test.Greeter/Count"] == "server stream"
        picker.query_one(OptionList).focus()
        await pilot.press("slash", *"su")
        await pilot.pause()
        assert picker.listed == ["pigeon.test.Greeter/Sum"]
        await pilot.press("enter", "enter")  # to the list, then take it
        await pilot.pause()
        assert picker.query_one("#grpc-rpc", Input).value == "pigeon.test.Greeter/Sum"
        assert app.screen.editor.request.grpc.rpc == "pigeon.test.Greeter/Sum"
        # r asks the server again.
        picker.query_one(OptionList).focus()
        picker.methods = []
        await pilot.press("r")
        await wait_for(pilot, lambda: picker.methods)
        # The method picked is the one called.
        view = app.screen.query_one(GrpcView)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: view.state_line.startswith(("✔", "✘")))
        assert "client stream" in view.state_line


async def test_the_template_key_fills_the_message_with_every_field(
    tmp_path: Path, greeter: Server
) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, "hello")
        editor = await show_part(pilot, "tab-message")
        area = editor.area
        assert '"count": 2' in area.text
        area.focus()
        await pilot.press("f9")
        await wait_for(pilot, lambda: '"tags"' in area.text)
        assert json.loads(area.text) == {
            "name": "",
            "count": 0,
            "big": "0",
            "inner": {},
            "tags": [],
        }
        assert app.screen.editor.request.body.content == area.text  # the request's message
        assert "pigeon.test.HelloRequest (unary)" in str(area.border_title)


async def test_the_message_completes_the_fields_of_the_input_type(
    tmp_path: Path, greeter: Server
) -> None:
    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, "hello")
        editor = await show_part(pilot, "tab-message")
        area = editor.area
        await wait_for(pilot, lambda: area.fields)
        area.focus()
        area.load_text("")
        await pilot.press("{", '"')
        await pilot.pause()
        assert [name for name, _ in area.candidates] == ["name", "count", "big", "inner", "tags"]
        await pilot.press("c")
        await pilot.pause()
        assert area.completion == 'ount": '
        assert "tab → count int32" in str(area.border_subtitle)
        await pilot.press("tab")
        assert area.text.startswith('{"count": ')
        await pilot.press(*'1, "')
        await pilot.pause()
        assert area.candidates[0][0] == "name"  # the fields not in the message first
        await pilot.press(*'inner": {"')
        await pilot.pause()
        assert area.completion == ""  # a nested message's keys are not the input type's


async def test_the_history_lists_calls_opens_one_with_its_replies_and_diffs_two(
    tmp_path: Path, greeter: Server
) -> None:
    from pigeon.tui.dialogs.choose import ChooseScreen
    from pigeon.tui.dialogs.diff import DiffScreen
    from pigeon.tui.widgets.collection.history_list import HistoryList

    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await called(pilot, "hello")
        request = app.screen.editor.request
        request.body.content = '{"name": "again", "count": 3}'
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: '"Hello, again"' in json_text(view) and not view.live)
        await pilot.press("f6")
        history = app.screen.query_one(HistoryList)
        await wait_for(pilot, lambda: len(history.entries) == 2)
        assert [(e.method, e.status) for e in history.entries] == [("GRPC", 0), ("GRPC", 0)]
        # The older call opens as a gRPC request, its replies and metadata with it.
        history.focus()
        history.highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.editor.request.path is None)
        await wait_for(pilot, lambda: '"Hello, app"' in json_text(view))
        assert view.state_line.startswith("✔ OK (0) · unary · 1 sent, 1 received")
        assert app.screen.editor.request.grpc.rpc == "pigeon.test.Greeter/SayHello"
        # d compares it with the other call: reply by reply.
        view.json_panel.view.focus()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))


async def test_the_stream_messages_are_edited_added_and_deleted(
    tmp_path: Path, greeter: Server
) -> None:
    from textual.widgets import OptionList

    app = make(tmp_path / "c", greeter.port)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, "sum")
        editor = await show_part(pilot, "tab-messages")
        request = app.screen.editor.request
        listed = editor.query_one(OptionList)
        assert listed.option_count == 3 and editor.area.text == '{"n": 1}'
        listed.focus()
        await pilot.press("down")
        await pilot.pause()
        assert editor.area.text == '{"n": 2}'
        editor.area.focus()
        editor.area.load_text('{"n": 20}')
        await pilot.pause()
        editor.area.insert(" ")  # an edit, as typed (at the start)
        await pilot.pause()
        assert request.messages[1].body == ' {"n": 20}'
        listed.focus()
        await pilot.press("a")  # a new message, at the end, chosen
        await pilot.pause()
        assert len(request.messages) == 4 and editor.area.text == "{}"
        listed.focus()
        await pilot.press("d")
        await pilot.pause()
        assert [m.body for m in request.messages] == ['{"n": 1}', ' {"n": 20}', '{"n": 39}']
        # The call sends them in order: 1 + 20 + 39.
        view = app.screen.query_one(GrpcView)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: '"sum": 60' in json_text(view))


async def test_a_unary_call_that_hangs_is_stopped_with_escape(
    tmp_path: Path, greeter: Server
) -> None:
    from pigeon.history import list_entries

    REQUESTS["hang"] = grpc_request("Hang")
    try:
        app = make(tmp_path / "c", greeter.port)
    finally:
        del REQUESTS["hang"]
    async with app.run_test(size=(120, 40)) as pilot:
        view = await opened(pilot, "hang")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: view.holder is not None and view.live)
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.state_line.startswith("✘ CANCELLED (1)"))
        assert not view.live
        await wait_for(pilot, lambda: list_entries(tmp_path / "c"))
    (entry,) = list_entries(tmp_path / "c")
    assert entry.to_exchange().status == 1


async def test_without_reflection_the_picker_lists_the_proto_files_methods(
    tmp_path: Path,
) -> None:
    from grpc_servers import compile_greeter
    from pigeon.tui.widgets.editor.grpc_rpc_picker import GrpcRpcPicker

    with serve(tmp_path / "server", reflection=False) as bare:
        root = tmp_path / "c"
        head = 'protos = ["protos/greeter.proto"]\n'  # a top-level key: before [body]
        REQUESTS["protos"] = head + grpc_request("Count", '{"count": 2}')
        try:
            app = make(root, bare.port)
        finally:
            del REQUESTS["protos"]
        compile_greeter(root)  # protos/greeter.proto in the collection
        async with app.run_test(size=(120, 40)) as pilot:
            view = await opened(pilot, "protos")
            picker = await show_part(pilot, "tab-rpc")
            assert isinstance(picker, GrpcRpcPicker)
            await wait_for(pilot, lambda: picker.methods)
            assert "pigeon.test.Greeter/Count" in picker.listed
            note = str(picker.query_one("#grpc-methods-note").render())
            assert "from its .proto files" in note
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: view.state_line.startswith(("✔", "✘")))
            assert view.state_line.startswith("✔ OK (0) · server stream · 1 sent, 2 received")
