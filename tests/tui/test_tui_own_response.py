"""The response pane shows the response of the request on show, and names it: its tab's last
response, else its newest in the history, else none yet."""

from __future__ import annotations

from textual.widgets import Input
from tui_support import main_screen, open_request, press_and_settle, running, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.collection.collection_tree import CollectionTree


async def test_the_response_pane_shows_the_shown_requests_own_response(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await wait_for(pilot, lambda: screen.response_pane is not None)
        pane = screen.response_pane
        await press_and_settle(pilot, "ctrl+r")
        await wait_for(pilot, lambda: pane.exchange is not None)
        sent = pane.exchange
        assert sent.status == 200 and "List users" in str(pane.border_title)
        await open_request(pilot, "auth-styles/no-auth")  # replaces the preview tab
        await pilot.pause()
        assert pane.exchange is None and pane.state == "empty"
        assert "No auth" in str(pane.border_title)
        await open_request(pilot, "users/list-users")  # no tab's response: the history's
        await wait_for(pilot, lambda: pane.exchange is not None)
        assert pane.exchange.started_at == sent.started_at and pane.exchange.status == 200
        assert "List users" in str(pane.border_title)


async def test_opening_from_the_tree_leaves_the_focus_there(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        url = screen.query_one("#url", Input)
        assert app.focused is tree and url.value == "{{base_url}}/{{resource}}"
        line = tree.cursor_line
        await pilot.press("j")  # the tree's next key moves its cursor; the URL is untouched
        await pilot.pause()
        assert app.focused is tree and tree.cursor_line == line + 1
        assert url.value == "{{base_url}}/{{resource}}" and not screen.editor.dirty


async def test_the_url_bar_undoes_and_redoes_what_was_typed(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        url = screen.query_one("#url", Input)
        await pilot.press("ctrl+l", "end", "x", "y")
        assert url.value == "{{base_url}}/{{resource}}xy" and app.focused is url
        await pilot.press("ctrl+z")
        assert url.value == "{{base_url}}/{{resource}}x"
        await pilot.press("ctrl+z", "ctrl+z")  # nothing before the first edit: it stays
        assert url.value == "{{base_url}}/{{resource}}"
        await pilot.press("ctrl+y")
        assert url.value == "{{base_url}}/{{resource}}x"
        await pilot.press("ctrl+shift+z")
        assert url.value == "{{base_url}}/{{resource}}xy"
        await open_request(pilot, "auth/me")  # another request: its own history, none yet
        await pilot.press("ctrl+l", "ctrl+z")
        assert url.value == screen.editor.request.url


async def test_a_dialogs_field_undoes_and_redoes_what_was_typed(app: PigeonApp) -> None:
    from pigeon.tui.dialogs.prompt import PromptScreen

    async with running(app) as pilot:
        app.push_screen(PromptScreen("Name", "abc"))
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        field = app.screen.query_one("#prompt-input", Input)
        await pilot.press("end", "d")
        assert field.value == "abcd"
        await pilot.press("ctrl+z")
        assert field.value == "abc"
        await pilot.press("ctrl+y")
        assert field.value == "abcd"
