"""OAuth 2.0 tokens kept between sends (DESIGN §7): ``.pigeon/oauth2-tokens.json``.

One file per collection, private to its user: made with mode 0600, replaced whole (a
temporary file renamed over it), never written or read through a link, and in the
git-ignored ``.pigeon/`` (``files.private_dir``). A token is filed under a key made of the
environment and the auth settings that decide which token the server gives (token URL,
client, scope, grant, audience, user), so a changed setting never reuses a wrong token.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pigeon.files import LinkedOut, fsync_dir, private_dir
from pigeon.model import Auth

CACHE_FILE = "oauth2-tokens.json"
_MAX_FILE = 1_000_000  # a bigger file was not written by Pigeon: it is not read


@dataclass
class Token:
    """One access token as the server gave it, and what it is for."""

    access_token: str
    token_type: str = "Bearer"
    expires_at: float | None = None  # seconds since the epoch; None: the server said nothing
    refresh_token: str = ""
    scope: str = ""
    grant: str = ""
    fetched_at: float = 0.0

    @classmethod
    def from_response(cls, data: dict[str, Any], grant: str, scope: str) -> Token:
        """A token endpoint's answer (RFC 6749 §5.1), checked: hostile fields are refused."""
        access = data.get("access_token")
        if not isinstance(access, str) or not access:
            raise ValueError("the answer has no access_token")
        now = time.time()
        lifetime = data.get("expires_in")
        expires = None
        if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool):
            expires = now + max(0.0, min(float(lifetime), 10 * 365 * 86400.0))
        text = {k: data.get(k) for k in ("token_type", "refresh_token", "scope")}
        return cls(
            access_token=access,
            token_type=text["token_type"] if isinstance(text["token_type"], str) else "Bearer",
            expires_at=expires,
            refresh_token=text["refresh_token"] if isinstance(text["refresh_token"], str) else "",
            scope=text["scope"] if isinstance(text["scope"], str) else scope,
            grant=grant,
            fetched_at=now,
        )

    def expires_within(self, seconds: float) -> bool:
        return self.expires_at is not None and self.expires_at - time.time() <= seconds


def cache_key(environment: str | None, auth: Auth) -> str:
    """The key a token is filed under: everything that decides which token a server gives."""
    o = auth.oauth2
    parts = [
        environment or "",
        o.grant,
        o.token_url,
        o.auth_url,
        o.device_url,
        o.client_id,
        o.scope,
        o.audience,
        auth.username,
        sorted(o.params.items()),
    ]
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()


class TokenCache:
    """The collection's token file, read once; ``warning`` says why it is memory only."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.warning: str | None = None
        self._tokens: dict[str, Token] | None = None

    def _path(self, create: bool) -> Path | None:
        try:
            return private_dir(self.root, create=create) / CACHE_FILE
        except LinkedOut as exc:
            self.warning = f"tokens are kept in memory only: {exc}"
        except OSError as exc:
            self.warning = f"tokens are kept in memory only: {exc.strerror or exc}"
        return None

    def _load(self) -> dict[str, Token]:
        if self._tokens is None:
            self._tokens = {}
            path = self._path(create=False)
            if path is not None:
                self._tokens = _read(path)
        return self._tokens

    def get(self, key: str) -> Token | None:
        return self._load().get(key)

    def put(self, key: str, token: Token) -> None:
        self._load()[key] = token
        self._save()

    def forget(self, key: str) -> None:
        if self._load().pop(key, None) is not None:
            self._save()

    def _save(self) -> None:
        path = self._path(create=True)
        if path is None or self._tokens is None:
            return
        data = {key: asdict(token) for key, token in self._tokens.items()}
        fd, tmp = tempfile.mkstemp(prefix=f".{CACHE_FILE}.", dir=path.parent)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)  # a link at ``path`` is replaced, never written through
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        fsync_dir(path.parent)


def _read(path: Path) -> dict[str, Token]:
    """The tokens of a cache file; a link, a stranger file or a broken one holds none."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE:
            return {}
        try:
            data = json.loads(fh.read(_MAX_FILE))
        except ValueError:
            return {}
    names = {f.name for f in fields(Token)}
    out = {}
    for key, value in data.items() if isinstance(data, dict) else ():
        if isinstance(value, dict) and isinstance(value.get("access_token"), str):
            with contextlib.suppress(TypeError):
                out[key] = Token(**{k: v for k, v in value.items() if k in names})
    return out
