"""A file body in the app (DESIGN §11): chosen as the body's type with a path, its size and
type shown in the Body tab, sent as it is (the server checks the bytes), its progress in the
status line while it goes out, and a missing file refused with "Not sent: file not found"."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select, Static
from tui_support import main_screen, press_and_settle, running, show_tab, wait_for

from collection_files import write
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.format import sent_text
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from servers import deaf_server
from upload_server import upload_server

DATA = bytes(range(256)) * 400  # 102,400 bytes

UPLOAD = """\
name = "Upload"
method = "PUT"
url = "{url}/up"

[body]
type = "file"
path = "fixtures/upload.bin"
"""

NOTE = """\
name = "Note"
method = "POST"
url = "{url}/note"

[body]
type = "text"
content = "hello"
"""


def _app(
    root: Path, url: str, size: int = len(DATA), path: str = "fixtures/upload.bin"
) -> PigeonApp:
    write(root, "collection.toml", 'name = "files"\n')
    write(root, "upload.toml", UPLOAD.format(url=url).replace("fixtures/upload.bin", path))
    write(root, "note.toml", NOTE.format(url=url))
    (root / "fixtures").mkdir()
    with (root / "fixtures" / "upload.bin").open("wb") as fh:
        if size == len(DATA):
            fh.write(DATA)
        else:
            fh.truncate(size)  # a hole: no disk used
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


def _info(app: PigeonApp) -> str:
    return str(app.screen.query_one("#body-file-info", Static).render())


async def test_the_body_tab_shows_the_file_and_a_send_streams_it(tmp_path: Path) -> None:
    with upload_server() as server:
        app = _app(tmp_path / "col", server.url)
        async with running(app, "upload") as pilot:
            await show_tab(pilot, "tab-body")
            assert app.screen.query_one("#body-type", Select).value == "file"
            path = app.screen.query_one("#body-file-path", Input)
            assert path.value == "fixtures/upload.bin"
            assert app.screen.query_one("#body-file").display
            described = "<file fixtures/upload.bin, 102400 bytes, application/octet-stream>"
            await wait_for(pilot, lambda: _info(app) == described)
            await press_and_settle(pilot, "ctrl+r")
            pane = main_screen(app).response_pane
            await wait_for(pilot, lambda: pane.exchange is not None)
            assert pane.status_line.plain.startswith("200 OK"), pane.status_line.plain
            assert pane.exchange is not None
            assert sent_text(pane.exchange).endswith("\n\n" + described)  # the request as sent
    [got] = server.seen
    assert (got.method, got.path, got.body) == ("PUT", "/up", DATA)
    assert got.headers["content-length"] == str(len(DATA))


async def test_a_missing_file_is_said_in_the_tab_and_not_sent(tmp_path: Path) -> None:
    with upload_server() as server:
        app = _app(tmp_path / "col", server.url)
        async with running(app, "upload") as pilot:
            await show_tab(pilot, "tab-body")
            path = app.screen.query_one("#body-file-path", Input)
            path.focus()
            await pilot.press("ctrl+u", "end", "ctrl+u", *"fixtures/gone.bin")
            editor = main_screen(app).query_one(RequestEditor)
            assert editor.request is not None and editor.request.body.path == "fixtures/gone.bin"
            await wait_for(pilot, lambda: _info(app) == "file not found: fixtures/gone.bin")
            await press_and_settle(pilot, "ctrl+r")
            line = main_screen(app).response_pane.status_line
            await wait_for(pilot, lambda: "Not sent" in line.plain)
            assert line.plain.startswith("✖ Not sent: file not found: fixtures/gone.bin")
    assert server.seen == []


async def test_file_is_offered_as_a_body_type_with_a_path(tmp_path: Path) -> None:
    with upload_server() as server:
        app = _app(tmp_path / "col", server.url)
        async with running(app, "note") as pilot:
            await show_tab(pilot, "tab-body")
            path = app.screen.query_one("#body-file-path", Input)
            part = app.screen.query_one("#body-file")
            assert not part.display
            app.screen.query_one("#body-type", Select).value = "file"
            await wait_for(pilot, lambda: part.display)
            path.focus()
            await pilot.press(*"fixtures/upload.bin")
            editor = main_screen(app).query_one(RequestEditor)
            assert editor.request is not None
            assert (editor.request.body.type, editor.request.body.path) == (
                "file",
                "fixtures/upload.bin",
            )
            assert editor.dirty
            await wait_for(
                pilot, lambda: _info(app).endswith("102400 bytes, application/octet-stream>")
            )
            await press_and_settle(pilot, "ctrl+r")
    assert [(u.method, u.path, u.body) for u in server.seen] == [("POST", "/note", DATA)]


async def test_the_status_line_counts_the_bytes_sent(tmp_path: Path) -> None:
    with deaf_server() as url:  # never reads: the upload stalls once the buffers are full
        app = _app(tmp_path / "col", url, size=64 * 1024 * 1024)
        async with running(app, "upload") as pilot:
            await pilot.press("ctrl+r")
            line = main_screen(app).response_pane.status_line
            await wait_for(pilot, lambda: " of 64.0 MB sent" in line.plain)
            assert line.plain.startswith("⠋ PUT") or "PUT" in line.plain
            await press_and_settle(pilot, "escape")
            assert line.plain.startswith("■ Cancelled")


async def test_a_file_outside_is_a_need_the_trust_prompt_lists(tmp_path: Path) -> None:
    from textual.widgets import Label

    from pigeon.tui.dialogs.trust import TrustScreen

    (tmp_path / "secret.bin").write_bytes(b"not yours")
    with upload_server() as server:
        app = _app(tmp_path / "col", server.url, path="../secret.bin")
        async with running(app, "upload") as pilot:
            await show_tab(pilot, "tab-body")
            outside = f"the file body reads {tmp_path / 'secret.bin'}, outside the collection"
            await wait_for(pilot, lambda: _info(app) == f"needs trust: {outside}")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
            wants = str(app.screen.query_one("#trust-wants", Label).render())
            assert f"files outside the collection: {tmp_path / 'secret.bin'}" in wants
            await press_and_settle(pilot, "n")
            line = main_screen(app).response_pane.status_line
            await wait_for(pilot, lambda: "needs trust" in line.plain)
            assert outside in line.plain
    assert server.seen == []
