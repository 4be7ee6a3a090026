"""Secret variables (DESIGN §11): a command's output, an OS keychain entry or an answer typed
once, read when a render first needs one and kept in memory only, for one app session or one
``pigeon run`` (a ``Vault``).

A command runs without a shell, its output capped and timed; ``keyring`` is imported only
when a keychain is read. A prompt is asked through the ``Vault``'s ``ask``: the app's masked
dialog, or the terminal on the command line (no terminal: ``NoTerminal``, exit 2). Nothing
here writes a value anywhere.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from typing import Any

from pigeon.errors import RenderError
from pigeon.model import SecretSource

MAX_OUTPUT = 64 * 1024  # a command's stdout: a secret, not a file


class SecretError(RenderError):
    """A secret's source failed (a command's status, a keychain without the entry): the
    request is not sent, and the message says which secret and why."""


class NoTerminal(SecretError):
    """A prompt secret with nobody to ask (the command line checks first: exit 2)."""


Ask = Callable[[SecretSource], "str | None"]  # None: the user declined


class Vault:
    """The secrets of one session or run (of one collection), read once each and kept in
    memory. A value is keyed by its whole source (name, how it is read, where declared), so
    an edited source is read afresh."""

    def __init__(self, ask: Ask | None = None) -> None:
        self.ask = ask
        self._values: dict[SecretSource, str] = {}
        self._failed: dict[SecretSource, SecretError] = {}
        self._lock = threading.Lock()  # a send thread and the app may both ask
        self.peeking = False  # sees only what was read: a render that is only shown

    def peek(self) -> Vault:
        """This vault for a render only shown: the values already read, none read for it."""
        view = Vault(self.ask)
        view._values, view._lock, view.peeking = self._values, self._lock, True
        return view

    def put(self, source: SecretSource, value: str) -> None:
        """A value read elsewhere (the app's dialog, a worker thread)."""
        with self._lock:
            self._values[source] = value

    def failed(self, source: SecretSource, error: SecretError) -> None:
        """A read that failed ahead of a render: that render reports it without reading again."""
        with self._lock:
            self._failed[source] = error

    def cached(self, source: SecretSource) -> str | None:
        return self._values.get(source)

    def values(self) -> list[str]:
        """Every value read so far: writers mask their copies."""
        return list(self._values.values())

    def resolve(self, source: SecretSource) -> str:
        """The secret's value, read now if it was not yet (``SecretError`` when it cannot)."""
        with self._lock:
            value = self._values.get(source)
            if value is None:
                error = self._failed.pop(source, None)
                if error is not None:
                    raise error
                value = self._values[source] = read(source, self.ask)
            return value

    def forget(self) -> None:
        with self._lock:
            self._values.clear()
            self._failed.clear()


def read(source: SecretSource, ask: Ask | None = None) -> str:
    """Read one secret from its source."""
    if source.kind == "command":
        return run_command(source)
    if source.kind == "keyring":
        return read_keyring(source)
    if ask is None:
        raise NoTerminal(f"secret {source.name}: a prompt needs a terminal ({source.origin})")
    answer = ask(source)
    if answer is None:
        raise SecretError(f"secret {source.name}: not given")
    return answer


def run_command(source: SecretSource) -> str:
    """The command's stdout, its final newline trimmed; a failure names its exit status and
    the first line of its stderr."""
    what = f"secret {source.name}: {source.argv[0]}"
    try:
        proc = subprocess.Popen(
            list(source.argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        raise SecretError(f"{what}: {exc.strerror or exc}") from None
    out = bytearray()
    err = bytearray()
    too_big = threading.Event()

    def drain_err() -> None:
        assert proc.stderr is not None
        while chunk := proc.stderr.read(4096):
            if len(err) < MAX_OUTPUT:
                err.extend(chunk)

    def drain_out() -> None:
        assert proc.stdout is not None
        while chunk := proc.stdout.read(65536):
            out.extend(chunk)
            if len(out) > MAX_OUTPUT:
                too_big.set()
                proc.kill()
                return

    readers = [threading.Thread(target=f, daemon=True) for f in (drain_out, drain_err)]
    for reader in readers:
        reader.start()
    try:
        status = proc.wait(timeout=source.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise SecretError(f"{what}: no answer in {source.timeout:g} s") from None
    finally:
        for reader in readers:
            reader.join(timeout=1)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    if too_big.is_set():
        raise SecretError(f"{what}: printed more than {MAX_OUTPUT // 1024} KiB")
    if status != 0:
        lines = bytes(err).decode("utf-8", "replace").strip().splitlines()
        said = f": {lines[-1].strip()}" if lines else ""
        raise SecretError(f"{what} exited with status {status}{said}")
    try:
        text = bytes(out).decode("utf-8")
    except UnicodeDecodeError:
        raise SecretError(f"{what}: its output is not UTF-8") from None
    return text.removesuffix("\n").removesuffix("\r") if text.endswith("\n") else text


def _keyring() -> Any:
    try:
        import keyring
    except ImportError:
        raise SecretError(
            "reading the keychain needs the keyring package: pip install 'pigeon[keyring]'"
        ) from None
    return keyring


def read_keyring(source: SecretSource) -> str:
    keyring = _keyring()
    try:
        value = keyring.get_password(source.service, source.account)
    except Exception as exc:  # a locked keychain, no backend
        raise SecretError(f"secret {source.name}: keyring: {exc}") from None
    if value is None:
        raise SecretError(
            f"secret {source.name}: no {source.service}/{source.account} in the keychain "
            f"(pigeon secret set DIR {source.name})"
        )
    return str(value)


def write_keyring(source: SecretSource, value: str | None) -> None:
    """Store (``value``) or delete (``None``) a keyring secret: ``pigeon secret set|delete``."""
    keyring = _keyring()
    try:
        if value is None:
            keyring.delete_password(source.service, source.account)
        else:
            keyring.set_password(source.service, source.account, value)
    except Exception as exc:
        raise SecretError(f"secret {source.name}: keyring: {exc}") from None
