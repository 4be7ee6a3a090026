"""OAuth 2.0 in the app, against a real authorization server on loopback: a send fetches and
keeps the token, the token view fetches anew and forgets, the device grant shows its code
until approved (escape gives up), and the sign-in dialog takes a pasted redirect URL."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from textual.widgets import Input
from tui_support import main_screen, open_request, show_tab, wait_for

from oauth2.oauth_collection import oauth_collection
from oauth_server import oauth_server
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.device_code import DeviceCodeScreen
from pigeon.tui.dialogs.sign_in import SignInScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.oauth2_token_view import OAuth2TokenView

SIZE = (120, 40)


@pytest.fixture
def server():
    with oauth_server() as (base, state):
        yield base, state


def app_on(root: Path) -> PigeonApp:
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


def status_of(app: PigeonApp) -> int | None:
    """The status of the last response, whichever dialog is up."""
    screen = next(s for s in app.screen_stack if isinstance(s, MainScreen))
    exchange = screen.last_exchange
    return exchange.status if exchange is not None else None


async def test_a_send_fetches_a_token_and_the_token_view_renews_and_forgets_it(
    tmp_path, server
) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    app = app_on(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_request(pilot, "client_credentials")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: status_of(app) == 200)
        assert state.grants == {"client_credentials": 1}
        await show_tab(pilot, "tab-auth")
        view = main_screen(app).query_one(OAuth2TokenView)
        await wait_for(pilot, lambda: "scope read · expires in" in str(view.render()))
        assert view.display and "client_credentials" in str(view.render())
        assert state.me[0] not in str(view.render())
        view.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: "No token kept" in str(view.render()))
        await pilot.press("f")
        await wait_for(pilot, lambda: "Token at-" in str(view.render()))
        assert state.grants == {"client_credentials": 2}
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(state.me) == 2)
        assert state.grants == {"client_credentials": 2}  # the renewed token is used


async def test_the_device_grant_shows_its_code_until_approved(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    app = app_on(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_request(pilot, "device_code")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, DeviceCodeScreen))
        dialog = app.screen
        assert "WDJB-MJHT" in str(dialog.query_one("#device-code").render())
        assert app.clipboard == f"{base}/activate?user_code=WDJB-MJHT"
        await wait_for(pilot, lambda: "authorization_pending" in state.errors)
        state.approve("WDJB-MJHT")
        await wait_for(pilot, lambda: status_of(app) == 200)
        assert not isinstance(app.screen, DeviceCodeScreen)
        assert state.grants == {"device_code": 1}


async def test_escape_gives_the_device_sign_in_up(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    app = app_on(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_request(pilot, "device_code")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, DeviceCodeScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeviceCodeScreen))
        await wait_for(pilot, lambda: "sign-in given up" in str(main_screen(app).status.content))
        polls = len(state.errors)
        await pilot.pause(0.6)  # the polling stopped with the dialog
        assert len(state.errors) == polls
        assert state.grants == {} and state.me == []


async def test_the_authorization_code_grant_takes_a_pasted_redirect_url(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    path = root / "authorization_code.toml"
    # A redirect the browser reaches on another machine (over SSH): nothing listens here.
    path.write_text(path.read_text() + 'redirect_uri = "https://app.example/callback"\n')
    app = app_on(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_request(pilot, "authorization_code")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, SignInScreen))
        dialog = app.screen
        assert isinstance(dialog, SignInScreen)
        assert app.clipboard == dialog.url and dialog.url.startswith(f"{base}/authorize?")
        async with httpx.AsyncClient() as browser:  # the person signs in and copies the URL
            answer = await browser.get(dialog.url)
        redirected = answer.headers["location"]
        assert redirected.startswith("https://app.example/callback?code=")
        dialog.query_one("#sign-in-answer", Input).value = redirected
        await pilot.press("enter")
        await wait_for(pilot, lambda: status_of(app) == 200)
        assert state.grants == {"authorization_code": 1}
