"""Request history in the app: every send recorded (secrets masked), listed newest first,
opened and re-sent, deleted and pruned; a history that cannot be written never breaks a send."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import (  # noqa: F401 - fixtures
    main_screen,
    make_app,
    open_request,
)

from pigeon.echo import EchoServer
from pigeon.history import MASK, history_dir, list_entries
from pigeon.tui.widgets.collection.history_list import HistoryList, short_url
from pigeon.tui.widgets.editor.request_editor import RequestEditor

TOKEN = "s3cret-demo-token-4242"


async def settle(pilot) -> None:
    """Wait until sends, records and list reloads (workers started by workers) are done."""
    app = pilot.app
    for _ in range(50):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            return
    raise AssertionError("workers still running")


async def send(pilot) -> None:
    await pilot.press("ctrl+r")
    await settle(pilot)


async def show_history(pilot) -> HistoryList:
    await pilot.press("f6")
    await settle(pilot)
    history = main_screen(pilot.app).query_one(HistoryList)
    assert history.display and pilot.app.focused is history
    return history


def option_texts(history: HistoryList) -> list[str]:
    return [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]


async def test_send_is_recorded_and_listed(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_request(pilot, "users/list-users")
        await send(pilot)
        assert len(list_entries(collection)) == 1
        history = await show_history(pilot)
        screen = main_screen(app)
        assert screen.query_one("#tree-pane").border_title == "History"
        [entry] = history.entries
        assert (entry.method, entry.status) == ("GET", 200)
        [text] = option_texts(history)
        assert text.startswith("GET 200 local ")  # the environment it was sent in
        # At 80 columns the tree is 20 wide: the name and the URL are cut, each marked.
        assert "\n  List us… · " + short_url(entry.url, 200)[:5] in text and text.endswith("…")
        # f6 again: back to the tree.
        await pilot.press("f6")
        await pilot.pause()
        assert not history.display
        assert screen.query_one("#tree-pane").border_title == "Collection"
        # A send while the list shows refreshes it, newest first.
        await open_request(pilot, "responses/status-418")
        await show_history(pilot)
        await send(pilot)
        assert [e.request_id for e in history.entries] == [
            "responses/status-418",
            "users/list-users",
        ]
        assert "418" in option_texts(history)[0]


async def test_secrets_are_masked_on_disk(
    collection: Path, echo: EchoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIGEON_DEMO_TOKEN", raising=False)
    (collection / ".env").write_text(f"PIGEON_DEMO_TOKEN={TOKEN}\n", encoding="utf-8")
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "auth-styles/env-token")
        await send(pilot)
        exchange = main_screen(app).last_exchange
        assert exchange.status == 200 and TOKEN in exchange.text  # the echo shows it back
    [path] = history_dir(collection).glob("*.json")
    stored = path.read_text(encoding="utf-8")
    assert TOKEN not in stored
    data = json.loads(stored)
    assert ["Authorization", f"Bearer {MASK}"] in data["request"]["headers"]


async def test_open_entry_and_resend_records_a_second(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "responses/status-418")
        await send(pilot)
        history = await show_history(pilot)
        first = history.entries[0]
        await pilot.press("enter")
        await settle(pilot)
        screen = main_screen(app)
        editor = screen.query_one(RequestEditor)
        assert editor.request is not None and editor.request.path is None  # an unsaved copy
        assert (editor.request.method, editor.request.url) == (first.method, first.url)
        pane = screen.query_one("#response")
        assert pane.state == "done" and pane.exchange.status == first.status
        assert pane.exchange.body == first.body and first.body
        assert "418" in str(pane.status_line.render())
        await send(pilot)
        assert len(history.entries) == 2
        newest = history.entries[0]
        assert newest.url == first.url and newest.started_at > first.started_at
        # The highlight stays on the entry it was on; r re-sends the highlighted entry.
        assert history.highlighted == 1 and app.focused is history
        await pilot.press("home")
        await pilot.press("r")
        await settle(pilot)
        assert len(history.entries) == 3


async def test_delete_and_prune_keep_the_newest(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        for request_id in ("users/list-users", "responses/status-418", "users/list-users"):
            await open_request(pilot, request_id)
            await send(pilot)
        history = await show_history(pilot)
        assert len(history.entries) == 3
        newest = history.entries[0].path
        await pilot.press("down", "d")
        await settle(pilot)
        assert len(history.entries) == 2 and history.entries[0].path == newest
        await open_request(pilot, "responses/status-418")
        await send(pilot)
        history.focus()
        await pilot.press("p")
        await pilot.pause()
        field = app.screen.query_one("#prompt-input", Input)
        assert field.value == "100"  # AppConfig.history_keep's default
        await pilot.press("ctrl+u", "x", "enter")
        await pilot.pause()
        assert "whole number" in str(app.screen.query_one("#prompt-error").render())
        await pilot.press("ctrl+u", "1", "enter")
        await settle(pilot)
        assert len(list_entries(collection)) == 1
        [kept] = history.entries
        assert kept.request_id == "responses/status-418"


async def test_unwritable_history_warns_once_and_sends(collection: Path, echo: EchoServer) -> None:
    (collection / ".pigeon").mkdir()
    (collection / ".pigeon" / "history").write_text("not a folder", encoding="utf-8")
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        for _ in range(2):
            await send(pilot)
            assert main_screen(app).last_exchange.status == 200
        warnings = [n for n in app._notifications if "History not recorded" in n.message]
        assert len(warnings) == 1


async def test_history_keep_bounds_history_and_f6_shows_a_hidden_pane(
    collection: Path, echo: EchoServer
) -> None:
    from pigeon.config import AppConfig
    from pigeon.session import Session
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.themes import bundled_theme_dirs

    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    config = AppConfig(history_keep=2, theme="pigeon-dark")
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with app.run_test(size=(60, 24)) as pilot:
        await open_request(pilot, "responses/status-418")
        screen = main_screen(app)
        for _ in range(3):
            await send(pilot)
        assert len(list_entries(collection)) == 2  # the oldest went once a third was written
        pane = screen.query_one("#tree-pane")
        pane.display = False  # as ctrl+t leaves it
        history = await show_history(pilot)
        assert pane.display and len(history.entries) == 2
        history.focus()
        await pilot.press("p")
        await pilot.pause()
        assert app.screen.query_one("#prompt-input", Input).value == "2"
        await pilot.press("escape")
        await pilot.pause()
        assert len(list_entries(collection)) == 2


def configured_app(collection: Path, echo: EchoServer, **settings: object):
    from pigeon.config import AppConfig
    from pigeon.session import Session
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.themes import bundled_theme_dirs

    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    config = AppConfig(theme="pigeon-dark", **settings)  # type: ignore[arg-type]
    return PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)


def plant_entry(root: Path, name: str, days_ago: float) -> None:
    """An entry recorded ``days_ago`` days ago."""
    from datetime import datetime, timedelta, timezone
    from types import SimpleNamespace

    from pigeon.history import record

    rendered = SimpleNamespace(method="GET", url="http://127.0.0.1/old", name=name)
    started = datetime.now(timezone.utc) - timedelta(days=days_ago)
    record(root, SimpleNamespace(rendered=rendered, status=200, started_at=started))


async def test_history_max_age_days_applies_when_recording_and_pruning(
    collection: Path, echo: EchoServer
) -> None:
    from textual.widgets import Label

    plant_entry(collection, "old", days_ago=3)
    plant_entry(collection, "recent", days_ago=0.5)
    app = configured_app(collection, echo, history_max_age_days=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "responses/status-418")
        await send(pilot)
        assert [e.request_name for e in list_entries(collection)] == ["Status 418", "recent"]
        history = await show_history(pilot)
        plant_entry(collection, "older", days_ago=2)
        history.reload()
        await settle(pilot)
        assert len(history.entries) == 3
        await pilot.press("p")
        await settle(pilot)
        assert [e.request_name for e in history.entries] == ["Status 418", "recent"]
        assert any(
            "Removed 1 history entry older than 1 day." in n.message for n in app._notifications
        )
        title = app.screen.query_one(".title", Label)
        assert "of 2 history entries" in str(title.render())
        await pilot.press("escape")
        await pilot.pause()
        assert len(list_entries(collection)) == 2


async def test_max_body_in_memory_mb_caps_the_apps_session(
    collection: Path, echo: EchoServer
) -> None:
    app = configured_app(collection, echo, max_body_in_memory_mb=1 / 1024)  # 1024 bytes
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "responses/bytes")  # 2048 bytes
        await send(pilot)
        exchange = main_screen(app).last_exchange
        assert exchange.status == 200 and exchange.body_size == 2048
        assert exchange.truncated and len(exchange.body) == 1024
        assert exchange.body_path is not None and exchange.body_path.stat().st_size == 2048
        with exchange.open_body() as fh:
            assert fh.read(1024) == exchange.body


async def test_an_entry_with_masked_body_secrets_is_opened_not_resent(
    collection: Path, echo: EchoServer
) -> None:
    (collection / "users" / "sign-in.toml").write_text(
        'name = "Sign in"\nmethod = "POST"\nurl = "{{base_url}}/sign-in"\n\n[body]\n'
        'type = "json"\ncontent = \'{"user": "ada", "password": "pw-123456"}\'\n',
        encoding="utf-8",
    )
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/sign-in")
        await send(pilot)
        history = await show_history(pilot)
        assert len(history.entries) == 1
        await pilot.press("r")
        await settle(pilot)
        assert len(history.entries) == 1  # not sent again
        editor = main_screen(app).query_one(RequestEditor)
        assert editor.request is not None and MASK in editor.request.body.content
        assert "pw-123456" not in editor.request.body.content
        assert any(
            "the body of this entry holds masked secrets" in n.message for n in app._notifications
        )


async def test_rows_name_their_request_and_slash_searches_name_url_and_status(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await send(pilot)
        await open_request(pilot, "responses/status-418")
        await send(pilot)
        history = await show_history(pilot)
        texts = option_texts(history)
        assert "\n  List users · 127.0.0." in texts[1]  # the tree is 26 wide at 120
        assert f"\n  {history.entries[0].request_name[:12]}" in texts[0]
        await pilot.press("slash")
        await pilot.pause()
        search = main_screen(app).query_one("#history-search", Input)
        assert search.display and app.focused is search
        await pilot.press(*"list")
        await pilot.pause()
        assert [e.request_id for e in history.entries] == ["users/list-users"]
        await pilot.press("ctrl+u", *"418")
        await pilot.pause()
        # Both URLs hold the echo server's port: one with 418 in it keeps the other row too.
        also = ["users/list-users"] if "418" in str(echo.port) else []
        assert [e.request_id for e in history.entries] == ["responses/status-418", *also]
        await pilot.press("ctrl+u", *"nothing-like-this")
        await pilot.pause()
        assert history.entries == [] and "Nothing matches" in option_texts(history)[0]
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is history
        await pilot.press("escape")
        await pilot.pause()
        assert not search.display and len(history.entries) == 2 and app.focused is history


async def test_rows_show_the_environment_and_search_matches_it(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo, env="staging")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await send(pilot)
        app.session.choose_environment("local")
        await send(pilot)
        history = await show_history(pilot)
        assert [e.environment for e in history.entries] == ["local", "staging"]
        texts = option_texts(history)
        assert " GET 200 local " in texts[0] and " GET 200 staging " in texts[1]
        await pilot.press("slash", *"staging")
        await pilot.pause()
        assert [e.environment for e in history.entries] == ["staging"]


async def test_an_entry_follows_its_request_renamed_in_the_app(
    collection: Path, echo: EchoServer
) -> None:
    from pigeon import store

    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await send(pilot)
        session = app.session
        request = next(r for r in session.collection.requests() if r.id == "users/list-users")
        store.rename_request(session.collection, request, "All users")
        history = await show_history(pilot)
        [entry] = history.entries
        assert entry.request_id == "users/all-users"  # the request it came from, found
        await pilot.press("enter")
        await settle(pilot)
        pane = main_screen(app).response_pane
        assert pane.exchange is not None and pane.exchange.request.request_id == "users/all-users"
