"""The app's editing paths with Pilot: save, unsaved-changes prompts, body, tree and variables edits, themes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Checkbox, Input, TabbedContent, TextArea
from tui_support import main_screen, open_request, paste_url, running, show_tab, wait_for

from pigeon.model import Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.confirm import UnsavedScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.auth_editor import AuthEditor
from pigeon.tui.widgets.editor.request_editor import RequestEditor


async def test_save_writes_the_file(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/saved")
        await pilot.press("ctrl+s")
        await pilot.pause()
        editor = main_screen(app).query_one(RequestEditor)
        assert not editor.dirty
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert 'url = "{{base_url}}/saved"' in text
    assert not list((collection / "users").glob("*.tmp*"))  # the atomic write left nothing
    reloaded = load_collection(collection).find("users/list-users")
    assert reloaded is not None and reloaded[1].url == "{{base_url}}/saved"


async def test_quit_with_unsaved_changes_asks_first(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/unsaved")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        await pilot.press("escape")  # cancel: still editing
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")  # discard
        await pilot.pause()
        assert not app.is_running
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert "/unsaved" not in text


async def test_opening_another_request_keeps_the_edits_in_their_tab(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/kept")
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        tree.focus()
        node = next(
            n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == "auth/me"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("enter")  # a tab of its own: nothing asked
        await pilot.pause()
        editor = screen.query_one(RequestEditor)
        assert isinstance(app.screen, MainScreen) and editor.request.id == "auth/me"
        await pilot.press("alt+left")
        await pilot.pause()
        assert editor.request.id == "users/list-users" and editor.dirty
        assert editor.request.url == "{{base_url}}/kept"
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        await pilot.press("s")  # save, then quit
        await pilot.pause()
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert "{{base_url}}/kept" in text


async def test_json_body_editor_builds_and_types(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/create-user")
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        assert area.language == "json"
        area.focus()
        await pilot.press("ctrl+a")  # line start
        await pilot.press(*"[1, 2]")
        await pilot.pause()
        assert request.body.content.startswith("[1, 2]")
        area.load_text('{"a":1,"b":[true,null]}')
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        assert request.body.content == '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}\n'
        area.load_text('{"age": {{user.age}}}')
        await pilot.pause()
        await pilot.press("f8")  # not valid JSON as written: left alone
        await pilot.pause()
        assert request.body.content == '{"age": {{user.age}}}'


async def test_save_refused_when_the_file_broke_on_disk(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        target = collection / "users" / "list-users.toml"
        target.write_text("name = 'half typed\n", encoding="utf-8")  # a hand edit in progress
        await paste_url(pilot, "{{base_url}}/x")
        await pilot.press("ctrl+s")
        await pilot.pause()
        editor = main_screen(app).query_one(RequestEditor)
        assert editor.dirty  # nothing lost: still unsaved
        assert any("Not saved" in n.message for n in app._notifications)
        assert target.read_text(encoding="utf-8") == "name = 'half typed\n"


async def test_the_description_is_written_in_the_docs_tab_and_saved(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "responses/status-418")
        screen = await show_tab(pilot, "tab-docs")
        tabs = screen.query_one("#editor-tabs", TabbedContent)
        assert str(tabs.get_tab("tab-docs").label) == "Docs"  # nothing written yet
        await wait_for(pilot, lambda: bool(screen.query("#description")))
        area = screen.query_one("#description", TextArea)
        area.focus()
        await pilot.press(*"A teapot.", "enter", *"Never brews: 418")
        await wait_for(pilot, lambda: request.description == "A teapot.\nNever brews: 418")
        assert screen.editor.dirty
        await pilot.press("ctrl+s")
        target = collection / "responses" / "status-418.toml"
        await wait_for(pilot, lambda: "Never brews: 418" in target.read_text(encoding="utf-8"))
        # Another request shows its own description; coming back shows this one, counted.
        await open_request(pilot, "users/list-users")
        await show_tab(pilot, "tab-docs")
        await wait_for(pilot, lambda: area.text.startswith("Each [[query]] value"))
        await open_request(pilot, "responses/status-418")
        await wait_for(pilot, lambda: str(tabs.get_tab("tab-docs").label) == "Docs 1")
        await show_tab(pilot, "tab-docs")
        assert area.text == "A teapot.\nNever brews: 418"


async def test_auth_and_settings_edits(app: PigeonApp, collection: Path) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/list-users")
        screen = await show_tab(pilot, "tab-settings")
        timeout = screen.query_one("#setting-timeout", Input)
        timeout.focus()
        await pilot.press("ctrl+u", *"2.5")
        await pilot.pause()
        assert request.settings.timeout == 2.5
        await pilot.press("ctrl+u", "0")
        await pilot.pause()
        assert request.settings.timeout == 2.5  # refused: must be more than 0
        assert "more than 0" in str(screen.query_one("#setting-error").render())
        await show_tab(pilot, "tab-auth")
        # The tab is built when first opened: set the type once it shows the request.
        await wait_for(pilot, lambda: any(e.request is request for e in screen.query(AuthEditor)))
        screen.query_one("#auth-type").value = "bearer"
        # The Select's change is a message: on a busy machine it lands after a pause or two.
        await wait_for(pilot, lambda: request.auth is not None and request.auth.type == "bearer")
        token = screen.query_one("#auth-token", Input)
        token.focus()
        await pilot.press(*"{{tok")
        await wait_for(pilot, lambda: request.auth is not None and request.auth.token == "{{tok")
        assert request.auth.type == "bearer"
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_collection(collection).find("users/list-users")[1]
    assert saved.settings.timeout == 2.5 and saved.auth.token == "{{tok"


async def test_multipart_field_becomes_a_file(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "bodies/multipart-body")
        screen = await show_tab(pilot, "tab-body")
        table = screen.query_one("#body-fields")
        assert table.display and table.files_allowed
        table.focus()
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"doc", "tab", *"notes.txt", "enter")
        await pilot.pause()
        field = request.body.fields[-1]
        assert (field.name, field.value, field.kind) == ("doc", "notes.txt", "text")
        table.move_cursor(row=len(request.body.fields) - 1)
        await pilot.press("t")
        await pilot.pause()
        assert field.kind == "file"


async def test_keep_credentials_on_redirects_is_a_setting(app: PigeonApp, collection: Path) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/list-users")
        screen = await show_tab(pilot, "tab-settings")
        box = screen.query_one("#setting-keep-auth", Checkbox)
        assert box.value is False
        box.focus()
        await pilot.press("space")
        await pilot.pause()
        assert request.settings.keep_auth_on_redirect is True
        await pilot.press("ctrl+s")
        await pilot.pause()
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert "keep_auth_on_redirect = true" in text
