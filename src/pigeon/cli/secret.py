"""Secrets on the command line (DESIGN §11): a prompt asked on the terminal, refused (exit 2)
without one before anything is sent, and `pigeon secret set|delete DIR NAME` for a keyring
secret, typed without echo."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pigeon.cli.collection import load
from pigeon.cli.stderr import say
from pigeon.errors import EXIT_OK, UsageError
from pigeon.model import Collection, Folder, Request, SecretSource
from pigeon.secrets import NoTerminal, Vault, write_keyring


def _tty() -> bool:
    return sys.stdin.isatty()


def ask_on_terminal(source: SecretSource) -> str:
    """A prompt secret typed on the terminal, not echoed."""
    if not _tty():
        raise NoTerminal(f"secret {source.name}: a prompt needs a terminal ({source.origin})")
    import getpass

    return getpass.getpass(f"{source.label}: ")


def terminal_vault() -> Vault:
    return Vault(ask_on_terminal)


def _prompts(collection: Collection) -> bool:
    glob = collection.globals
    tables = [collection.secrets, glob.secrets]
    tables += [env.secrets for env in collection.environments.values()]
    tables += [env.secrets for env in glob.environments.values()]
    return any(s.kind == "prompt" for table in tables for s in table.values())


def check_prompts(
    collection: Collection,
    requests: Iterable[tuple[list[Folder], Request]],
    env: str | None,
    cli_vars: Mapping[str, Any] | None,
) -> None:
    """Exit 2 before anything is sent when a request would ask for a secret and there is no
    terminal to ask on."""
    if _tty() or not _prompts(collection):
        return
    from pigeon.trust import needs

    for need in needs(collection, list(requests), env, phases=(), cli_vars=cli_vars):
        if need.kind == "secret" and need.what == "prompt":
            raise UsageError(f"{need.request}: {need.thing}: a prompt needs a terminal")


def _declared(collection: Collection, name: str) -> SecretSource:
    found = [collection.secrets.get(name), collection.globals.secrets.get(name)]
    found += [env.secrets.get(name) for env in collection.environments.values()]
    keyrings = [s for s in found if s is not None and s.kind == "keyring"]
    if not keyrings:
        raise UsageError(f"no keyring secret {name!r} declared in {collection.root}")
    return keyrings[0]


def cli_secret(args: argparse.Namespace) -> int:
    """`pigeon secret set|delete DIR NAME`: write or delete the keychain entry a keyring
    secret declared in DIR (or in the global files) reads; the value is typed without echo,
    or read from stdin when it is not a terminal."""
    collection = load(Path(args.collection))
    source = _declared(collection, args.name)
    where = f"{source.service}/{source.account}"
    if args.action == "delete":
        write_keyring(source, None)
        say(f"deleted {where}")
        return EXIT_OK
    if _tty():
        import getpass

        value = getpass.getpass(f"{args.name} ({where}): ")
    else:
        value = sys.stdin.readline().removesuffix("\n")
    if not value:
        raise UsageError("no value given: nothing stored")
    write_keyring(source, value)
    say(f"stored {where}")
    return EXIT_OK
