"""One list of secret names, one rule for body fields, one mask string (DESIGN §7)."""

from __future__ import annotations

import pytest

from pigeon import history, masking
from pigeon.importers import posting
from pigeon.masking import MASK, Masker, mask_url, mask_value, secret_field, secret_name
from pigeon.tui import format as tui_format
from pigeon.tui.widgets.variables import variables_pane


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "Proxy-Authorization",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "api_key",
        "apikey",
        "key",
        "Idempotency-Key",
        "X-Auth-Token",
        "client_secret",
        "password",
        "DB_PASSWD",
        "pwd",
        "session",
        "PRIVATE_KEY",
        "aws_credentials",
        "signature",
        "sig",
        "PROD_API_TOKEN",
    ],
)
def test_names_that_hold_secrets(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name", ["Accept", "Content-Type", "base_url", "monkey", "keyboard", "user", "page", "sigma"]
)
def test_names_that_do_not(name: str) -> None:
    assert not secret_name(name)


def test_every_part_of_pigeon_uses_the_one_rule_and_the_one_mask() -> None:
    assert history.MASK is MASK and variables_pane.MASK is MASK
    assert tui_format.is_sensitive_header is secret_name
    assert variables_pane.looks_secret is secret_name
    assert posting.secret_name is secret_name
    assert Masker().header("X-Api-Key", "abc123") == MASK
    assert mask_value("X-Api-Key", "abc123") == MASK


def test_a_scheme_word_stays_readable() -> None:
    assert mask_value("Authorization", "Bearer abc.def") == f"Bearer {MASK}"
    assert Masker().header("Authorization", "Bearer abc.def") == f"Bearer {MASK}"


def test_urls_and_body_fields() -> None:
    assert mask_url("https://h/x?api_key=1&page=2") == f"https://h/x?api_key={MASK}&page=2"
    assert secret_field("client_secret") and secret_field("clientSecret")
    assert not secret_field("key") and not secret_field("token_type")
    assert masking.MASK == "•••"
