"""SVG snapshots of the auth editor for each kind (and each OAuth 2.0 grant and token place),
at 60x34: the rows a kind shows, their labels and which are hidden like a password.

Update with ``pytest --snapshot-update`` after a deliberate change, and look at the new SVGs
first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from pigeon.model import Auth, OAuth2, Request
from pigeon.session import Session
from pigeon.tui.widgets.editor.auth_editor import AuthEditor


class AuthHost(App[None]):
    """The auth editor alone, on a session (the OAuth 2.0 token view reads its tokens)."""

    def __init__(self, root: Path, auth: Auth | None) -> None:
        super().__init__()
        self.session = Session.open(root)
        self.request = Request(name="r", method="GET", url="http://127.0.0.1/")
        self.request.auth = auth

    def compose(self) -> ComposeResult:
        yield AuthEditor(id="auth")

    def on_mount(self) -> None:
        self.query_one(AuthEditor).show(self.request)
        for field in self.query(Input):
            field.cursor_blink = False


def _oauth2(grant: str, location: str = "header") -> Auth:
    return Auth(
        type="oauth2",
        username="ann",
        password="pw",
        location=location,
        oauth2=OAuth2(grant=grant, token_url="https://idp/token", client_id="cli", scope="read"),
    )


CASES = {
    "inherit": None,
    "none": Auth(),
    "basic": Auth(type="basic", username="ann", password="{{pw}}"),
    "bearer": Auth(type="bearer", token="{{token}}"),
    "api_key_query": Auth(type="api_key", key="X-Key", value="k1", location="query"),
    "digest": Auth(type="digest", username="ann", password="pw"),
    "aws_sigv4": Auth(
        type="aws_sigv4", access_key="AKID", secret_key="sk", region="eu-west-1", service="s3"
    ),
    "oauth2_client_credentials": _oauth2("client_credentials"),
    "oauth2_password_query": _oauth2("password", "query"),
    "oauth2_refresh_token": _oauth2("refresh_token"),
    "oauth2_authorization_code": _oauth2("authorization_code"),
    "oauth2_device_code": _oauth2("device_code"),
    "ntlm": Auth(type="ntlm", username="ann", password="pw", domain="CORP"),
    "oauth1": Auth(type="oauth1", consumer_key="ck", consumer_secret="cs", token="t"),
    "oauth1_rsa": Auth(
        type="oauth1", consumer_key="ck", signature_method="RSA-SHA1", private_key_file="k.pem"
    ),
    "hawk": Auth(type="hawk", hawk_id="id-1", hawk_key="{{hawk_key}}", hawk_ext="x"),
    "jwt": Auth(type="jwt", jwt_algorithm="ES256", private_key_file="keys/es.pem", jwt_exp="300"),
}


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("case", list(CASES))
def test_auth_editor(snap_compare, tmp_path, case) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "collection.toml").write_text('name = "c"\n', encoding="utf-8")
    assert snap_compare(AuthHost(root, CASES[case]), terminal_size=(60, 34))
