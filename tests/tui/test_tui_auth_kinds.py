"""NTLM, Negotiate, OAuth 1.0a, Hawk and JWT in the app's auth tab, which the table of kinds
drives: each is picked, its fields typed (secret ones hidden like a password), the request
sent to a server that verifies it, and the auth saved."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import main_screen, open_request, press_and_settle, running, show_tab, wait_for

from auth_servers import handshake_server, hawk_server, jwt_server, oauth1_server
from collection_files import write
from pigeon.session import Session
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.auth_editor import AuthEditor

JWT_SECRET = "jwt-s3cret-0123456789abcdef0123456789"


@contextlib.contextmanager
def _ntlm(tmp_path: Path, protocol: str, scheme: str) -> Iterator:
    users = write(tmp_path, "users", "CORP:ada:pa55\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NTLM_USER_FILE", str(users))
        with handshake_server(protocol, scheme, users) as server:
            yield server


# kind: (server, typed fields by widget id, choices by widget id, rows hidden, secret inputs)
CASES: dict[str, tuple[Callable[[Path], contextlib.AbstractContextManager], dict, dict, list, list]] = {
    "ntlm": (
        lambda tmp: _ntlm(tmp, "ntlm", "NTLM"),
        {"auth-username": "ada", "auth-password": "pa55", "auth-domain": "CORP"},
        {},
        ["token", "hawk_id"],
        ["auth-password"],
    ),
    "negotiate": (
        lambda tmp: _ntlm(tmp, "negotiate", "Negotiate"),
        {"auth-username": "CORP\\ada", "auth-password": "pa55"},
        {},
        ["consumer_key"],
        ["auth-password"],
    ),
    "oauth1": (
        lambda tmp: oauth1_server("cs-1", "ts-1"),
        {"auth-consumer_key": "ck", "auth-consumer_secret": "cs-1", "auth-token": "t",
         "auth-token_secret": "ts-1", "auth-realm": "r"},
        {"auth-placement": "query"},
        ["private_key", "private_key_file", "username"],
        ["auth-consumer_secret", "auth-token_secret", "auth-verifier"],
    ),
    "hawk": (
        lambda tmp: hawk_server("id-1", "hk-1", "sha1"),
        {"auth-hawk_id": "id-1", "auth-hawk_key": "hk-1", "auth-hawk_ext": "e"},
        {"auth-hawk_algorithm": "sha1"},
        ["password", "private_key"],
        ["auth-hawk_key"],
    ),
    "jwt": (
        lambda tmp: jwt_server(JWT_SECRET.encode(), header="X-Jwt", prefix="JWT"),
        {"auth-private_key": JWT_SECRET, "auth-jwt_exp": "60", "auth-o-header_name": "X-Jwt",
         "auth-o-header_prefix": "JWT"},
        {"auth-jwt_algorithm": "HS384"},
        ["hawk_key", "consumer_key", "token_url"],
        ["auth-private_key"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(CASES))
async def test_a_kind_is_picked_filled_sent_and_saved(tmp_path: Path, kind: str) -> None:
    serve, typed, chosen, hidden, secret = CASES[kind]
    root = tmp_path / "c"
    with serve(tmp_path) as server:
        write(root, "collection.toml", 'name = "c"\n')
        write(root, "req.toml", f'name = "r"\nurl = "{server.url}/private"\n')
        app = PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)
        async with running(app) as pilot:
            request = await open_request(pilot, "req")
            screen = await show_tab(pilot, "tab-auth")
            await wait_for(
                pilot, lambda: any(e.request is request for e in screen.query(AuthEditor))
            )
            screen.query_one("#auth-type").value = kind
            await wait_for(pilot, lambda: request.auth is not None and request.auth.type == kind)
            for widget, value in chosen.items():
                screen.query_one(f"#{widget}").value = value
            for widget, text in typed.items():
                screen.query_one(f"#{widget}", Input).focus()
                await pilot.press("ctrl+u", *text)
            auth = request.auth
            assert auth is not None
            await wait_for(pilot, lambda: auth.type == kind and _typed(auth, typed, chosen))
            for row in hidden:
                assert screen.query_one(f"#auth-row-{row}").display is False, row
            for widget in [*typed, *secret]:
                name = widget.removeprefix("auth-").removeprefix("o-")
                assert screen.query_one(f"#auth-row-{name}").display is True, name
                assert screen.query_one(f"#{widget}", Input).password == (widget in secret)
            await press_and_settle(pilot, "ctrl+r")
            await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
            exchange = main_screen(app).last_exchange
            await press_and_settle(pilot, "ctrl+s")
    assert exchange.status == 200, exchange.error
    assert server.verdicts[-1] is True
    saved = load_collection(root).find("req")[1].auth  # type: ignore[index]
    assert saved is not None and saved.type == kind and _typed(saved, typed, chosen)


def _typed(auth, typed: dict[str, str], chosen: dict[str, str]) -> bool:  # type: ignore[no-untyped-def]
    """Whether every typed and chosen value is in the auth (``auth-o-``: OAuth 2.0's)."""
    for widget, value in {**typed, **chosen}.items():
        name = widget.removeprefix("auth-")
        holder = auth.oauth2 if name.startswith("o-") else auth
        if getattr(holder, name.removeprefix("o-")) != value:
            return False
    return True
