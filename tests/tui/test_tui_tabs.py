"""Request tabs: several requests open at once, each with its own working copy, unsaved mark,
response and send in flight; the preview tab; closing asks about unsaved edits; the tabs are
remembered per collection; the tree's rename and delete reach them."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from textual.widgets import Button
from tui_support import (
    main_screen,
    make_app,
    open_request,
    paste_url,
    press_and_settle,
    running,
    settle,
    wait_for,
)

from pigeon.config import AppConfig
from pigeon.echo import EchoServer
from pigeon.session import Session
from pigeon.store.remembered import remembered_environment
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.confirm import UnsavedScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.open_requests import OpenRequests
from pigeon.tui.widgets.editor.tab_strip import TabStrip


def tabs_of(app: PigeonApp) -> OpenRequests:
    return main_screen(app).open_requests


def tab_ids(app: PigeonApp) -> list[str]:
    return [t.request.id for t in tabs_of(app).tabs]


async def test_switching_keeps_each_tabs_edits_and_closing_asks(
    app: PigeonApp, collection: Path
) -> None:
    file = collection / "users" / "list-users.toml"
    before = file.read_text(encoding="utf-8")
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/first")  # an edit keeps the tab open
        await open_request(pilot, "auth/me")
        await paste_url(pilot, "{{base_url}}/second")
        assert tab_ids(app) == ["users/list-users", "auth/me"]
        editor = main_screen(app).editor
        await pilot.press("ctrl+pageup")
        assert editor.request.id == "users/list-users" and editor.dirty
        assert editor.request.url == "{{base_url}}/first"
        await pilot.press("alt+right")
        assert editor.request.url == "{{base_url}}/second" and editor.dirty
        labels = tabs_of(app).strip.labels
        assert [(t.name, t.dirty) for t in labels] == [("List users", True), ("Who am I", True)]

        await pilot.press("ctrl+pageup", "ctrl+f4")  # close List users: it asks first
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        assert isinstance(app.focused, Button) and app.focused.id == "cancel"  # the safe choice
        await pilot.press("right")
        assert isinstance(app.focused, Button) and app.focused.id == "discard"
        await pilot.press("right", "left", "left")
        assert isinstance(app.focused, Button) and app.focused.id == "cancel"
        await pilot.press("escape")  # cancel: nothing closed, the edits stay
        await pilot.pause()
        assert tab_ids(app) == ["users/list-users", "auth/me"]
        assert editor.request.url == "{{base_url}}/first"
        await pilot.press("alt+w")
        await pilot.pause()
        await pilot.press("d")  # discard: the tab closes, its file untouched
        await pilot.pause()
        assert tab_ids(app) == ["auth/me"]
        assert editor.request.id == "auth/me" and editor.request.url == "{{base_url}}/second"
        tree = main_screen(app).query_one(CollectionTree)
        assert file not in tree._dirty
    assert file.read_text(encoding="utf-8") == before


async def test_quitting_asks_about_every_tab_with_unsaved_changes(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/one")
        await open_request(pilot, "auth/login")  # not edited: not asked about
        await pilot.press("alt+k")
        await open_request(pilot, "auth/me")
        await paste_url(pilot, "{{base_url}}/two")
        editor = main_screen(app).editor
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        assert editor.request.id == "users/list-users"  # each is shown as it is asked about
        await pilot.press("s")  # saved; then the next one
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        assert editor.request.id == "auth/me"
        await pilot.press("escape")  # cancel: nothing quits
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, MainScreen)
        assert not tabs_of(app).tabs[0].dirty and tabs_of(app).tabs[2].dirty
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        assert editor.request.id == "auth/me"  # only this one is left unsaved
        await pilot.press("d")
        await wait_for(pilot, lambda: not app.is_running)
    assert "{{base_url}}/one" in (collection / "users" / "list-users.toml").read_text()
    assert "{{base_url}}/two" not in (collection / "auth" / "me.toml").read_text()


async def test_the_preview_tab_is_replaced_by_the_next_request_opened(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        tabs = tabs_of(app)
        assert tabs.tabs[0].preview and tabs.strip.labels[0].preview  # drawn in italics
        await open_request(pilot, "auth/me")
        assert tab_ids(app) == ["auth/me"] and tabs.current.preview
        await pilot.press("alt+k")  # kept
        assert not tabs.current.preview
        await open_request(pilot, "auth/login")
        assert tab_ids(app) == ["auth/me", "auth/login"]
        await paste_url(pilot, "{{base_url}}/edited")  # an edit keeps it too
        assert not tabs.current.preview
        await open_request(pilot, "users/create-user")
        assert tab_ids(app) == ["auth/me", "auth/login", "users/create-user"]
        await open_request(pilot, "users/create-user")  # chosen again: kept
        assert not tabs.current.preview
        await open_request(pilot, "auth/me")  # open already: its tab comes on show
        assert tab_ids(app) == ["auth/me", "auth/login", "users/create-user"]
        assert tabs.current is tabs.tabs[0]
        await pilot.press("ctrl+n")  # a scratch request: a tab of its own, after this one
        await wait_for(pilot, lambda: tabs.current.origin == "scratch")
        assert [t.origin for t in tabs.tabs] == ["", "scratch", "", ""]
        assert tabs.strip.labels[1].name == "Scratch"


def held_back(release: threading.Event) -> Iterable[bytes]:
    """A response that is held back until ``release`` is set."""
    release.wait(20)
    yield b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nslow"


async def test_a_send_in_flight_lands_in_its_own_tab(app: PigeonApp, echo: EchoServer) -> None:
    from servers import slow_server

    release = threading.Event()
    with slow_server(lambda: held_back(release), interval=0) as server:
        try:
            async with running(app, "users/list-users") as pilot:
                tabs, screen = tabs_of(app), main_screen(app)
                await paste_url(pilot, server.url)
                first = tabs.current
                await pilot.press("ctrl+r")
                await wait_for(pilot, lambda: first.in_flight is not None)
                await wait_for(pilot, lambda: screen.response_pane.state == "pending")

                await open_request(pilot, "auth/me")  # a send there, while the first flies
                second = tabs.current
                assert second is not first and screen.response_pane.state == "empty"
                assert not screen._sending_workers()  # esc cancels nothing on this tab
                await pilot.press("ctrl+r")
                await wait_for(pilot, lambda: second.last_exchange is not None)
                assert first.sending()  # still in flight
                shown = screen.response_pane.exchange
                assert shown is second.last_exchange and shown.status == 401  # not signed in

                release.set()
                await wait_for(pilot, lambda: first.last_exchange is not None)
                await settle(pilot)
                assert first.last_exchange.body == b"slow"
                assert screen.response_pane.exchange is shown  # the tab on show is untouched
                assert screen.last_exchange is shown

                await pilot.press("ctrl+pageup")  # the first tab: its own response
                await pilot.pause()
                assert screen.response_pane.exchange is first.last_exchange
                assert screen.last_exchange is first.last_exchange
        finally:
            release.set()


async def test_the_tabs_are_remembered_for_the_next_start(
    collection: Path, echo: EchoServer
) -> None:
    first = make_app(collection, echo)
    async with running(first, "users/list-users") as pilot:
        await pilot.press("alt+k")
        await open_request(pilot, "auth/login")
        await pilot.press("alt+k")
        await open_request(pilot, "auth/me")  # the preview tab
        await pilot.press("ctrl+n")  # no file: not remembered
        await pilot.press("ctrl+pageup")  # on show: Who am I
        await pilot.pause()
        assert tabs_of(first).current.request.id == "auth/me"
    assert remembered_environment(collection) is None  # never chosen: nothing written for it

    second = make_app(collection, echo)
    async with running(second) as pilot:
        tabs = tabs_of(second)
        await wait_for(pilot, lambda: len(tabs.tabs) == 3)
        assert tab_ids(second) == ["users/list-users", "auth/login", "auth/me"]
        assert tabs.current.request.id == "auth/me" and tabs.current.preview
        assert main_screen(second).editor.request.id == "auth/me"
        assert [t.preview for t in tabs.tabs] == [False, False, True]
        (collection / "auth" / "login.toml").unlink()  # gone before the next start

    third = make_app(collection, echo)
    async with running(third) as pilot:
        await wait_for(pilot, lambda: len(tabs_of(third).tabs) == 2)
        assert tab_ids(third) == ["users/list-users", "auth/me"]


async def test_a_rename_in_the_tree_renames_the_tab_and_a_delete_closes_it(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("alt+k")
        await open_request(pilot, "auth/me")
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        await open_request(pilot, "users/list-users")
        tree.focus()
        await pilot.press("r", "ctrl+u", *"Everyone", "enter")
        await pilot.pause()
        tabs = tabs_of(app)
        assert tabs.tabs[0].request.name == "Everyone"
        assert tabs.tabs[0].request.path == collection / "users" / "everyone.toml"
        assert tabs.strip.labels[0].name == "Everyone"
        tree.focus()
        await pilot.press("d", "y")
        await pilot.pause()
        assert tab_ids(app) == ["auth/me"]
        await wait_for(pilot, lambda: main_screen(app).response_pane is not None)
        await pilot.press("ctrl+f4")  # the last tab: the editor and the response are empty
        await pilot.pause()
        screen = main_screen(app)
        assert tab_ids(app) == [] and screen.editor.request is None
        assert screen.response_pane.state == "empty" and not tabs.strip.display


async def test_the_tab_keys_are_remapped_from_the_config(
    collection: Path, echo: EchoServer
) -> None:
    config = AppConfig(keys={"tab.next": "f9", "tab.close": "f10"})
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app, "users/list-users") as pilot:
        await pilot.press("alt+k")
        await open_request(pilot, "auth/me")
        await pilot.press("f9")
        assert tabs_of(app).current.request.id == "users/list-users"
        await press_and_settle(pilot, "f10")
        assert tab_ids(app) == ["auth/me"]


async def test_a_click_on_a_tab_shows_it(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("alt+k")
        await open_request(pilot, "auth/me")
        await pilot.click(TabStrip, offset=(2, 0))
        await pilot.pause()
        assert tabs_of(app).current.request.id == "users/list-users"
        assert isinstance(app.screen, MainScreen)


def test_the_remembered_tabs_are_read_as_hostile_input(tmp_path: Path) -> None:
    from pigeon.store.remembered import (
        OpenTabs,
        remember_environment,
        remember_tabs,
        remembered_tabs,
    )

    root = tmp_path / "col"
    root.mkdir()
    assert remember_environment(root, "dev") is None
    assert remember_tabs(root, OpenTabs(["users/a.toml", "b.toml"], 1, 0)) is None
    assert remembered_environment(root) == "dev"  # one file, each key kept
    assert remembered_tabs(root) == OpenTabs(["users/a.toml", "b.toml"], 1, 0)
    state = root / ".pigeon" / "state.toml"
    for hostile in (
        '[tabs]\npaths = ["../outside.toml"]\n',
        '[tabs]\npaths = ["/etc/passwd"]\n',
        '[tabs]\npaths = ["a.toml", 3]\n',
        '[tabs]\npaths = "a.toml"\n',
        "tabs = 1\n",
    ):
        state.write_text(hostile, encoding="utf-8")
        assert remembered_tabs(root) == OpenTabs(), hostile
    state.write_text('[tabs]\npaths = ["a.toml"]\nactive = 7\npreview = true\n', encoding="utf-8")
    assert remembered_tabs(root) == OpenTabs(["a.toml"], 0, -1)  # out of range: the first
