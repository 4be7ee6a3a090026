"""``[secrets]`` tables (DESIGN §11): each name with the one source its value is read from,
checked on load so a typo is a broken file, not a failure at the first send. The table is
kept in the file's ``extra`` too, so a save writes it back as written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pigeon.model import SecretSource
from pigeon.tomltext import Invalid, describe
from pigeon.values import check_name

KINDS = ("command", "keyring", "prompt")
MAX_TIMEOUT = 600.0  # seconds a command may take, at most


def secrets_of(table: Mapping[str, Any], origin: str) -> dict[str, SecretSource]:
    """The ``[secrets]`` of a file's data; ``origin`` names the file (``collection``)."""
    data = table.get("secrets") or {}
    if not isinstance(data, dict):
        raise Invalid(("secrets",), f"expected a table, got {describe(data)}")
    return {name: _source(name, spec, origin) for name, spec in data.items()}


def _source(name: str, spec: Any, origin: str) -> SecretSource:
    at: tuple[str | int, ...] = ("secrets", name)
    try:
        check_name(name)
    except ValueError as exc:
        raise Invalid(at, str(exc)) from None
    if not isinstance(spec, dict):
        example = '{ keyring = "service/account" }'
        raise Invalid(at, f"expected a table such as {example}, got {describe(spec)}")
    kinds = [k for k in KINDS if k in spec]
    if len(kinds) != 1 or any(k not in (*KINDS, "timeout") for k in spec):
        raise Invalid(at, "expected one source: command, keyring or prompt (a command: timeout)")
    kind = kinds[0]
    value = spec[kind]
    timeout = spec.get("timeout", 10)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise Invalid((*at, "timeout"), f"expected seconds, got {describe(timeout)}")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise Invalid((*at, "timeout"), f"expected seconds between 0 and {MAX_TIMEOUT:g}")
    if kind == "command":
        if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
            raise Invalid((*at, kind), "expected the command as a list of strings (no shell)")
        return SecretSource(name, kind, argv=tuple(value), timeout=float(timeout), origin=origin)
    if kind == "keyring":
        service, _, account = value.rpartition("/") if isinstance(value, str) else ("", "", "")
        if not service or not account:
            raise Invalid((*at, kind), 'expected "service/account"')
        return SecretSource(name, kind, service=service, account=account, origin=origin)
    if not isinstance(value, str):
        raise Invalid((*at, kind), "expected the question to ask, as a string")
    return SecretSource(name, kind, label=value or name, origin=origin)
