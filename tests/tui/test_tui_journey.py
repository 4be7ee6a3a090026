"""One session with the app, start to end, as a user drives it with the keyboard: open the
demo, edit a URL with placeholders and read the preview, send to the echo server, read status
and body, filter the body, switch environment, trust and run a script that sets a variable and
find it in the variables pane, save, reload from disk and find the edit still there."""

from __future__ import annotations

from pathlib import Path

from test_tui_app import run_from_palette
from tui_support import (
    main_screen,
    open_request,
    press_and_settle,
    replace_url,
    running,
    wait_for,
)

from pigeon.echo import EchoServer
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.trust import TrustScreen
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def test_a_whole_session(app: PigeonApp, collection: Path, echo: EchoServer) -> None:
    async with running(app) as pilot:
        screen = main_screen(app)
        # Open the demo's "List users" and point it elsewhere with placeholders.
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/people/{{user.id}}/{{items[0].id}}")
        preview = screen.query_one(UrlPreview)
        assert preview.url.split("?")[0] == f"{echo.url}/people/7/101"
        assert preview.unresolved == []
        editor = screen.query_one(RequestEditor)
        assert editor.dirty

        # Send; status and body arrive.
        await press_and_settle(pilot, "ctrl+r")
        exchange = screen.last_exchange
        assert exchange.status == 200 and exchange.json()["path"] == "/people/7/101"
        pane = screen.query_one("#response")
        assert "200" in str(pane.status_line.render())

        # Filter the body with JMESPath.
        view = pane.body_view
        await wait_for(pilot, lambda: view.is_json)
        view.focus()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"path", "enter")
        await wait_for(pilot, lambda: view.phase == "filtered")
        assert view.text.strip() == '"/people/7/101"'

        # Switch environment: the preview follows.
        await replace_url(pilot, "{{base_url}}/{{stage}}")
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("end", "enter")
        await pilot.pause()
        assert app.session.environment == "staging"
        assert screen.query_one(UrlPreview).url.split("?")[0] == f"{echo.url}/staging"

        # Save, before leaving the request.
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not editor.dirty

        # A script sets a variable once the collection is trusted.
        await open_request(pilot, "auth/login")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await press_and_settle(pilot, "t")
        token = app.session.runtime.get("token")
        assert isinstance(token, str) and token
        variables = screen.query_one(VariablesPane)
        assert variables.rows["token"][0].scope == "runtime"

        # Reload from disk: the saved edit is there.
        await run_from_palette(pilot, "Reload collection", "Reload collection")
        await open_request(pilot, "users/list-users")
        assert editor.request.url == "{{base_url}}/{{stage}}"
    on_disk = load_collection(collection).find("users/list-users")
    assert on_disk is not None and on_disk[1].url == "{{base_url}}/{{stage}}"
