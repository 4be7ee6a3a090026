"""The app with digest auth and the cookie jar: a digest send chosen in the auth tab, and the
Cookies view (f7) listing what a server set, deleting, clearing and surviving a restart."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Input
from tui_support import main_screen, open_request, press_and_settle, running, show_tab, wait_for

from collection_files import write
from pigeon.cookies import jar_path
from pigeon.echo import EchoServer
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.cookies import CookiesScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.auth_editor import AuthEditor
from servers import digest_server


def _app(root: Path) -> PigeonApp:
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def test_a_digest_send_chosen_in_the_auth_tab(tmp_path: Path) -> None:
    with digest_server("ada", "pa55") as server:
        write(tmp_path, "collection.toml", 'name = "c"\n')
        write(tmp_path, "req.toml", f'name = "r"\nurl = "{server.url}/private"\n')
        app = _app(tmp_path)
        async with running(app) as pilot:
            request = await open_request(pilot, "req")
            screen = await show_tab(pilot, "tab-auth")
            # The tab is built when first opened: set the type once it shows the request.
            await wait_for(
                pilot, lambda: any(e.request is request for e in screen.query(AuthEditor))
            )
            screen.query_one("#auth-type").value = "digest"
            await wait_for(
                pilot, lambda: request.auth is not None and request.auth.type == "digest"
            )
            for name, text in (("username", "ada"), ("password", "pa55")):
                screen.query_one(f"#auth-{name}", Input).focus()
                await pilot.press(*text)
            await wait_for(pilot, lambda: request.auth.password == "pa55")
            assert screen.query_one("#auth-row-token").display is False
            await press_and_settle(pilot, "ctrl+r")
            await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
            exchange = main_screen(app).last_exchange
    assert exchange.status == 200, exchange.error
    assert server.verdicts == [False, True]


def _rows(app: PigeonApp) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_cookies_view_lists_deletes_and_clears(tmp_path: Path, echo: EchoServer) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, "set.toml", f'name = "s"\nurl = "{echo.url}/cookies/set?a=1&b=2&c=3"\n')
    app = _app(tmp_path)
    async with running(app, "set") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
    path = jar_path(tmp_path, "")
    assert len(json.loads(path.read_text())["cookies"]) == 3

    app = _app(tmp_path)  # a restart: the jar is read back
    async with running(app) as pilot:
        titles = [c.title for c in app.get_system_commands(main_screen(app))]
        assert "Cookies: list, edit, delete or clear the jar" in titles  # in the palette too
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, CookiesScreen) and app.screen.rows)
        assert [row[2:4] for row in _rows(app)] == [["a", "1"], ["b", "2"], ["c", "3"]]
        await pilot.press("d")  # the first row
        await wait_for(pilot, lambda: len(app.screen.rows) == 2)
        assert [c["name"] for c in json.loads(path.read_text())["cookies"]] == ["b", "c"]
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+u", *"22", "enter")
        await wait_for(pilot, lambda: app.screen.rows and app.screen.rows[0].value == "22")
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, CookiesScreen) and not app.screen.rows)
        assert _rows(app)[0][0] == "(no cookies)"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CookiesScreen)
    assert json.loads(path.read_text())["cookies"] == []


async def test_the_settings_tab_turns_jar_cookies_off(tmp_path: Path, echo: EchoServer) -> None:
    from pigeon.store import load_collection

    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, "req.toml", f'name = "r"\nurl = "{echo.url}/cookies"\n')
    app = _app(tmp_path)
    async with running(app, "req") as pilot:
        request = main_screen(app).editor.request
        screen = await show_tab(pilot, "tab-settings")
        screen.query_one("#setting-cookies").value = False
        await wait_for(pilot, lambda: request.settings.send_cookies is False)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_collection(tmp_path).find("req")[1]  # type: ignore[index]
    assert saved.settings.send_cookies is False
    assert "send_cookies = false" in (tmp_path / "req.toml").read_text(encoding="utf-8")


async def test_the_cookies_table_moves_as_every_list_and_keeps_the_edited_row(
    tmp_path: Path, echo: EchoServer
) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, "set.toml", f'name = "s"\nurl = "{echo.url}/cookies/set?a=1&b=2&c=3&d=4"\n')
    app = _app(tmp_path)
    async with running(app, "set") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, CookiesScreen) and app.screen.rows)
        table = app.screen.query_one(DataTable)
        await pilot.press("G")
        assert table.cursor_row == 3
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == 3
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("j", "j")  # on c
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+u", *"33", "enter")
        await wait_for(pilot, lambda: app.screen.rows[2].value == "33")
        assert table.cursor_row == 2
        await pilot.press("d")  # c goes: the cursor stays on the row after it
        await wait_for(pilot, lambda: len(app.screen.rows) == 3)
        assert table.cursor_row == 2
        assert app.screen.rows[2].name == "d"


async def test_copy_as_curl_carries_the_jars_cookies(tmp_path: Path, echo: EchoServer) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, "set.toml", f'name = "s"\nurl = "{echo.url}/cookies/set?a=1"\n')
    write(tmp_path, "get.toml", f'name = "g"\nurl = "{echo.url}/cookies"\n')
    app = _app(tmp_path)
    async with running(app, "set") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
        await open_request(pilot, "get")
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("enter")  # curl, highlighted first
        await pilot.pause()
        assert "-H 'Cookie: a=1'" in app.clipboard
