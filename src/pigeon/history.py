"""A record of every send: one JSON file per exchange under ``<collection>/.pigeon/history/``.

History lives inside the collection so it travels with it, but ``.pigeon/`` carries its own
``.gitignore`` (``*``) so it is never committed. Secrets are masked before anything is
written: credential headers (the scheme word of ``Authorization`` is kept: ``Bearer •••``),
any header or query parameter whose name mentions a token, secret, password, key or auth,
the values of secret-looking fields (``password``, ``client_secret``, ``access_token``...)
in JSON, form and multipart bodies of both the request and the response, and every copy of
a value found in the collection's ``.env`` or masked by its name. Bodies are kept up to a cap
(256 KiB by default) so a large download does not fill the disk.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit, urlunsplit

from dotenv.parser import parse_stream

from pigeon.model import Body, Header, Request, Settings
from pigeon.store import atomic_write, slugify

HISTORY_DIR = Path(".pigeon") / "history"
DEFAULT_CAP = 256 * 1024
MASK = "•••"
FORMAT = 1
_STAMP = "%Y%m%dT%H%M%S%fZ"  # file names start with the send's time, so they sort by it
_STAMP_NAME = re.compile(r"\d{8}T\d{12}Z-")

_CREDENTIAL_HEADERS = {"cookie", "set-cookie", "x-api-key"}
_SCHEME_HEADERS = {"authorization", "proxy-authorization"}
_SENSITIVE_NAME = re.compile(r"token|secret|password|passwd|key|auth|session|cookie", re.I)
_MIN_SECRET_IN_TEXT = 6  # shorter .env values are masked only where they are a whole value
_MIN_LEARNED = 4  # shorter values masked by name are not looked for inside other text

# Body fields holding secrets, matched on the name without case, "-", "_", "." or spaces (so
# ``client_secret``, ``clientSecret`` and ``Client-Secret`` are one name). Narrower than the
# header rule: a JSON document has many harmless fields called ``key`` or ``token_type``.
_SECRET_FIELDS = frozenset({"pass", "pwd"})
_SECRET_FIELD_PART = re.compile(
    r"passw(?:or)?d|passphrase|passcode|secret|tokens?$|apikey|authorization$|cookie"
    r"|credential|sessionid|privatekey"
)
_FIELD_NOISE = re.compile(r"[-_.\s]")
# Finds every name secret_field() picks (and more), on the raw text: a quick first look.
_FIELD_HINT = re.compile(
    r"pass|pwd|secret|token|api[-_.\s]?key|authorization|cookie|credential"
    r"|session[-_.\s]?id|private[-_.\s]?key",
    re.I,
)
_PREFIX = _MIN_LEARNED  # secrets are indexed by this many first characters
_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]*\+)?json$")
_FORM_TEXT = re.compile(r"[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*")
_JSON_TOKEN = re.compile(
    r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)'
    r"|(?P<punct>[{}\[\]:,])|(?P<other>\s+|true|false|null)",
    re.S,
)
_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.I)
_PART_NAME = re.compile(rb'\bname="([^"]*)"', re.I)


def secret_field(name: str) -> bool:
    """Whether a JSON, form or multipart field of this name holds a secret."""
    key = _FIELD_NOISE.sub("", name.lower())
    return key in _SECRET_FIELDS or _SECRET_FIELD_PART.search(key) is not None


@dataclass(slots=True)
class _Frame:
    """An open JSON object or array while a body is scanned."""

    is_object: bool
    secret: bool  # inside the value of a secret field: everything in it is masked
    key_secret: bool = False  # the current member's name is a secret field
    expect_key: bool = True


@dataclass
class HistoryEntry:
    """One recorded exchange, as read back from its file."""

    path: Path
    started_at: datetime
    method: str
    url: str
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    request_body: bytes | None = None
    request_body_truncated: bool = False
    request_name: str = ""
    request_id: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    status: int | None = None
    reason: str = ""
    http_version: str = ""
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    body_size: int = 0
    body_truncated: bool = False
    size: int = 0
    timings: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None

    @property
    def total_ms(self) -> float:
        return float(self.timings.get("total") or 0.0)

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and self.status < 400

    @property
    def label(self) -> str:
        """One line for a list: ``200 GET https://...`` or the error."""
        what = (
            f"{self.status} {self.reason}".strip()
            if self.status is not None
            else (self.error or "no response")
        )
        return f"{what} · {self.method} {self.url}"


# -- masking ----------------------------------------------------------------------------------


class _Secrets:
    """The values to find inside text, longest first. A few are searched for one by one (a
    fast substring search each); many (a response full of tokens) through an index of their
    first characters, so a text costs one lookup per character however many there are."""

    _FEW = 8

    def __init__(self) -> None:
        self._values: list[str] = []
        self._sorted = True
        self._by_prefix: dict[str, list[str]] = {}

    @property
    def values(self) -> list[str]:
        if not self._sorted:
            self._values.sort(key=len, reverse=True)
            self._sorted = True
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def add(self, value: str) -> None:
        if len(value) < _PREFIX:
            return
        bucket = self._by_prefix.setdefault(value[:_PREFIX], [])
        if value in bucket:
            return
        bucket.append(value)
        bucket.sort(key=len, reverse=True)
        self._values.append(value)
        self._sorted = False

    def mask(self, text: str) -> str:
        if len(self._values) <= self._FEW:
            for secret in self.values:
                if secret in text:
                    text = text.replace(secret, MASK)
            return text
        index, pieces = self._by_prefix, []
        start = i = 0
        stop = len(text) - _PREFIX + 1
        while i < stop:
            for secret in index.get(text[i : i + _PREFIX], ()):
                if text.startswith(secret, i):
                    pieces += (text[start:i], MASK)
                    i = start = i + len(secret)
                    break
            else:
                i += 1
        if not pieces:
            return text
        pieces.append(text[start:])
        return "".join(pieces)

    def mask_bytes(self, data: bytes) -> bytes:
        for secret in self.values:
            data = data.replace(secret.encode("utf-8"), MASK.encode("utf-8"))
        return data


class Masker:
    """Replaces secrets in headers, URLs and bodies before they are written."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.exact = {s for s in secrets if s}
        self._secrets = _Secrets()
        for value in self.exact:
            if len(value) >= _MIN_SECRET_IN_TEXT:
                self._secrets.add(value)

    @property
    def in_text(self) -> list[str]:
        """Every value masked wherever it appears, longest first."""
        return self._secrets.values

    def learn(self, value: str) -> None:
        """Remember a value masked by its name, so its copies elsewhere (an echo of the
        request in the response body) are masked too."""
        value = value.strip()
        if len(value) >= _MIN_LEARNED:
            self._secrets.add(value)

    def text(self, text: str) -> str:
        return self._secrets.mask(text)

    def value(self, value: str) -> str:
        return MASK if value in self.exact else self.text(value)

    def header(self, name: str, value: str) -> str:
        lname = name.lower()
        if lname in _SCHEME_HEADERS:
            scheme, space, rest = value.strip().partition(" ")
            self.learn(rest if space else value)
            return f"{scheme} {MASK}" if space and rest else MASK
        if lname in _CREDENTIAL_HEADERS or _SENSITIVE_NAME.search(name):
            self.learn(value)
            for part in re.split(r"[;,]\s*", value) if "cookie" in lname else ():
                self.learn(part.partition("=")[2])
            return MASK if value else value
        return self.value(value)

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(n, self.header(n, v)) for n, v in headers]

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:  # user:password@host
            userinfo, _, host = netloc.rpartition("@")
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}:{MASK}@{host}" if ":" in userinfo else netloc
        query = parts.query
        if query:
            query = self.pairs(
                query, lambda name: bool(_SENSITIVE_NAME.search(name)) or secret_field(name)
            )
        masked = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
        return self.text(masked)

    def pairs(self, text: str, secret: Callable[[str], bool] = secret_field) -> str:
        """``a=1&b=2`` (a query string or a urlencoded form) with the values of the names
        ``secret`` picks, or that are or hold a known secret, masked."""
        pieces = []
        for piece in text.split("&"):
            name, eq, value = piece.partition("=")
            plain_name, plain_value = unquote_plus(name), unquote_plus(value)
            if eq and value and (secret(plain_name) or plain_value in self.exact):
                self.learn(plain_value)
                self.learn(value)
                pieces.append(f"{name}={quote(MASK)}")
            elif eq and self.text(plain_value) != plain_value:
                pieces.append(f"{name}={quote_plus(self.text(plain_value))}")
            else:
                pieces.append(piece)
        return "&".join(pieces)

    def body(self, data: bytes, content_type: str = "") -> bytes:
        """A body with its secret fields (JSON, urlencoded and multipart) and every known
        secret masked. JSON stays JSON, laid out as it was: a masked value becomes the
        string ``"•••"``. A body cut short (by a cap) is masked as far as it goes."""
        ctype = content_type.split(";", 1)[0].strip().lower()
        if ctype.startswith("multipart/"):
            boundary = _BOUNDARY.search(content_type)
            if boundary:
                data = self._multipart(data, boundary.group(1).encode("latin-1", "replace"))
            return self._secrets.mask_bytes(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._secrets.mask_bytes(data)
        if _JSON_TYPE.match(ctype) or text.lstrip()[:1] in ("{", "["):
            if not self._may_hold_secrets(text):
                return data
            return self.json(text).encode("utf-8")
        if ctype == "application/x-www-form-urlencoded" or _FORM_TEXT.fullmatch(text.strip()):
            return self.text(self.pairs(text)).encode("utf-8")
        return self.text(text).encode("utf-8")

    def _may_hold_secrets(self, text: str) -> bool:
        """Whether a JSON text is worth scanning token by token: most big documents have no
        secret-looking field and no known secret, and are stored as they are."""
        return (
            _FIELD_HINT.search(text) is not None
            or any(value in text for value in self.exact)
            or self.text(text) != text
        )

    def _multipart(self, data: bytes, boundary: bytes) -> bytes:
        """Mask the content of the text parts whose field name is a secret."""
        delimiter = b"--" + boundary
        parts = data.split(delimiter)
        for index, part in enumerate(parts[1:], 1):
            head, sep, content = part.partition(b"\r\n\r\n")
            name = _PART_NAME.search(head)
            if not sep or name is None or b"filename=" in head.lower():
                continue
            if not secret_field(name.group(1).decode("utf-8", "replace")):
                continue
            value, end = (content[:-2], b"\r\n") if content.endswith(b"\r\n") else (content, b"")
            if value:
                self.learn(value.decode("utf-8", "replace"))
                parts[index] = head + sep + MASK.encode("utf-8") + end
        return delimiter.join(parts)

    def json(self, text: str) -> str:
        """Mask a JSON text token by token, so its layout is kept and a truncated document
        (or one that is not JSON after all) is masked as far as it can be read."""
        out: list[str] = []
        stack: list[_Frame] = []

        def secret_here() -> bool:
            if not stack:
                return False
            top = stack[-1]
            return top.key_secret if top.is_object else top.secret

        pos, end = 0, len(text)
        while pos < end:
            match = _JSON_TOKEN.match(text, pos)
            if match is None:
                rest = text[pos:]
                in_key = bool(stack) and stack[-1].is_object and stack[-1].expect_key
                if rest.startswith('"') and secret_here() and not in_key:
                    out.append(f'"{MASK}')  # a secret value cut off by the end of the text
                else:
                    out.append(self.text(rest))
                break
            pos = match.end()
            token, kind = match.group(), match.lastgroup
            top = stack[-1] if stack else None
            if kind == "string":
                if top is not None and top.is_object and top.expect_key:
                    name = _json_string(token)
                    top.key_secret = top.secret or secret_field(name if name is not None else token)
                    out.append(self._json_string(token, False))
                else:
                    out.append(self._json_string(token, secret_here()))
            elif kind == "number":
                out.append(self._json_number(token, secret_here()))
            elif token in "{[":
                stack.append(_Frame(is_object=token == "{", secret=secret_here()))
                out.append(token)
            elif token in "}]":
                if stack:
                    stack.pop()
                out.append(token)
            else:
                if top is not None and top.is_object and token in ":,":
                    top.expect_key = token == ","
                out.append(token)
        return "".join(out)

    def _json_string(self, token: str, secret: bool) -> str:
        value = _json_string(token)
        if secret and value != "":
            if value is not None:
                self.learn(value)
            return f'"{MASK}"'
        if value is None:  # a bad escape: mask as plain text (the mask has no quote)
            return self.text(token)
        if value in self.exact:
            return f'"{MASK}"'
        head = value.lstrip()[:1]
        if head in ("{", "["):  # a body within the body, as an echo server shows it back
            masked = self.json(value) if self._may_hold_secrets(value) else value
        elif "=" in value and _FORM_TEXT.fullmatch(value.strip()):
            masked = self.text(self.pairs(value))
        else:
            masked = self.text(value)
        return token if masked == value else json.dumps(masked, ensure_ascii=False)

    def _json_number(self, token: str, secret: bool) -> str:
        if secret:
            self.learn(token)
            return f'"{MASK}"'
        if token in self.exact or self.text(token) != token:
            return f'"{MASK}"'
        return token


def _json_string(token: str) -> str | None:
    """A JSON string token's value, ``None`` if it is not a valid one."""
    if "\\" not in token:  # nothing to decode (the common case, and a quick one)
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def dotenv_secrets(root: Path) -> list[str]:
    """The values of the collection's ``.env`` (read literally; bad lines are skipped)."""
    path = Path(root) / ".env"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [b.value for b in parse_stream(io.StringIO(text)) if not b.error and b.value]


# -- writing ----------------------------------------------------------------------------------


def history_dir(collection_root: Path) -> Path:
    return Path(collection_root) / HISTORY_DIR


def _ensure_dir(collection_root: Path) -> Path:
    base = Path(collection_root) / ".pigeon"
    directory = history_dir(collection_root)
    directory.mkdir(parents=True, exist_ok=True)
    ignore = base / ".gitignore"
    if not ignore.exists():
        atomic_write(ignore, "*\n")
    return directory


def _body_json(
    data: bytes | None, cap: int, size: int | None = None, truncated: bool = False
) -> dict[str, Any] | None:
    """A body as stored: UTF-8 text when it is, base64 otherwise; cut at ``cap`` bytes.

    ``size`` and ``truncated`` describe the body as sent when ``data`` is already a part of it.
    """
    if data is None:
        return None
    kept = data[:cap]
    truncated = truncated or len(data) > cap
    size = len(data) if size is None else size
    text: str | None = None
    try:
        text = kept.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(kept) - 3:  # a character cut by the cap
            try:
                kept = kept[: exc.start]
                text = kept.decode("utf-8")
            except UnicodeDecodeError:
                text = None
    if text is not None:
        return {"encoding": "utf-8", "data": text, "truncated": truncated, "size": size}
    return {
        "encoding": "base64",
        "data": base64.b64encode(kept).decode("ascii"),
        "truncated": truncated,
        "size": size,
    }


def _masked_body(
    masker: Masker, data: bytes | None, content_type: str, cap: int
) -> dict[str, Any] | None:
    """A body masked, then cut at ``cap``. Only a little more than ``cap`` is masked, so a big
    download costs no more than a small one; the margin (the longest known secret) lets a
    secret that straddles the cut be recognised whole. Masking may lengthen a body a little:
    one within the cap is stored whole."""
    if data is None:
        return None
    if len(data) <= cap:
        masked = masker.body(data, content_type)
        return _body_json(masked, max(cap, len(masked)), size=len(data))
    margin = max((len(s.encode("utf-8")) for s in masker.in_text), default=0)
    masked = masker.body(data[: cap + margin], content_type)
    return _body_json(masked, cap, size=len(data), truncated=True)


def _content_type(headers: Iterable[tuple[str, str]] | None) -> str:
    found = [v for n, v in headers or [] if str(n).lower() == "content-type"]
    return str(found[-1]) if found else ""


def _body_bytes(stored: Any) -> tuple[bytes | None, bool]:
    if not isinstance(stored, dict):
        return None, False
    data = stored.get("data") or ""
    if stored.get("encoding") == "base64":
        raw = base64.b64decode(data)
    else:
        raw = str(data).encode("utf-8")
    return raw, bool(stored.get("truncated"))


def _timings(exchange: Any) -> dict[str, float | None]:
    t = getattr(exchange, "timings", None)
    if isinstance(t, dict):
        out = {
            str(k).removesuffix("_ms"): (float(v) if v is not None else None) for k, v in t.items()
        }
    elif t is not None:
        out = {
            name.removesuffix("_ms"): getattr(t, name)
            for name in ("total_ms", "connect_ms", "tls_ms", "ttfb_ms", "download_ms")
            if hasattr(t, name)
        }
    else:
        out = {}
    out.setdefault("total", 0.0)
    return out


def _response_body(exchange: Any) -> bytes:
    body = getattr(exchange, "body", b"") or b""
    return bytes(body) if not isinstance(body, str) else body.encode("utf-8")


def record(
    collection_root: Path,
    exchange: Any,
    *,
    cap: int = DEFAULT_CAP,
    secrets: Iterable[str] | None = None,
) -> Path:
    """Write one exchange to the collection's history; returns the file written.

    ``exchange`` is a ``pigeon.send.Exchange`` or anything with the same attributes
    (``request`` or ``rendered``, ``status``, ``reason``, ``http_version``, ``headers``,
    ``body``, ``body_size``, ``timings``, ``error``, ``started_at``). ``secrets`` defaults to
    the values of the collection's ``.env``.
    """
    root = Path(collection_root)
    directory = _ensure_dir(root)
    masker = Masker(dotenv_secrets(root) if secrets is None else secrets)
    started = getattr(exchange, "started_at", None) or datetime.now(timezone.utc)
    if started.tzinfo is None:
        started = started.astimezone()
    started = started.astimezone(timezone.utc)
    rendered = getattr(exchange, "request", None) or getattr(exchange, "rendered", None)
    masker.url(getattr(rendered, "url", "") or "")  # what these teach applies to the bodies
    masker.headers(getattr(rendered, "headers", []) or [])
    masker.headers(getattr(exchange, "headers", []) or [])
    known = len(masker.in_text)
    data = _entry_data(exchange, masker, started, cap)
    if len(masker.in_text) != known:
        # Values masked by their name were learned on the way (a login response's token, say):
        # again, so that their copies are masked wherever they appear, earlier parts too.
        data = _entry_data(exchange, masker, started, cap)
    stamp = started.strftime(_STAMP)
    slug = slugify(data["request"]["name"] or data["request"]["method"])[:40] or "request"
    path = directory / f"{stamp}-{slug}-{uuid.uuid4().hex[:8]}.json"
    # Not durable: history records past sends, not the user's files, and an fsync per send
    # would slow every send of a run by milliseconds.
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n", durable=False)
    return path


def _entry_data(exchange: Any, masker: Masker, started: datetime, cap: int) -> dict[str, Any]:
    """What one history file holds, masked."""
    rendered = getattr(exchange, "request", None) or getattr(exchange, "rendered", None)
    settings = getattr(rendered, "settings", None) or Settings()
    request_headers = getattr(rendered, "headers", []) or []
    req_body = getattr(rendered, "body", None)
    body_size = getattr(exchange, "body_size", None)
    size = getattr(exchange, "size", None)
    data: dict[str, Any] = {
        "format": FORMAT,
        "started_at": started.isoformat(timespec="microseconds").replace("+00:00", "Z"),
        "request": {
            "name": getattr(rendered, "name", "") or "",
            "id": getattr(rendered, "request_id", "") or "",
            "method": getattr(rendered, "method", "") or getattr(exchange, "method", ""),
            "url": masker.url(getattr(rendered, "url", "") or getattr(exchange, "url", "")),
            "headers": [list(h) for h in masker.headers(request_headers)],
            "body": _masked_body(
                masker,
                bytes(req_body) if req_body is not None else None,
                _content_type(request_headers),
                cap,
            ),
            "settings": {
                "timeout": settings.timeout,
                "follow_redirects": settings.follow_redirects,
                "verify_tls": settings.verify_tls,
            },
        },
        "response": None,
        "timings": _timings(exchange),
        "error": getattr(exchange, "error", None),
        "error_kind": getattr(exchange, "error_kind", None),
    }
    status = getattr(exchange, "status", None)
    if status is not None:
        headers = getattr(exchange, "headers", []) or []
        response_headers = masker.headers(headers)
        raw = _response_body(exchange)
        data["response"] = {
            "status": status,
            "reason": getattr(exchange, "reason", "") or "",
            "http_version": getattr(exchange, "http_version", "") or "",
            "headers": [list(h) for h in response_headers],
            "body": _masked_body(masker, raw, _content_type(headers), cap),
            "body_size": body_size if isinstance(body_size, int) else len(raw),
            "size": size if isinstance(size, int) else len(raw),
        }
        if getattr(exchange, "truncated", False):
            data["response"]["body"]["truncated"] = True
    return data


def record_and_prune(
    collection_root: Path,
    exchange: Any,
    *,
    secrets: Iterable[str] | None = None,
    keep: int | None = None,
    max_age_days: float | None = None,
    cap: int = DEFAULT_CAP,
) -> Path:
    """Record one exchange, then drop the entries beyond the newest ``keep`` and those older
    than ``max_age_days`` (``None`` or 0: no age limit), as the app and ``pigeon run`` do on
    every send. Pruning goes by the file names alone, so a send reads no other entry."""
    path = record(collection_root, exchange, cap=cap, secrets=secrets)
    older_than = timedelta(days=max_age_days) if max_age_days else None
    if keep is not None or older_than is not None:
        prune(collection_root, keep=keep, older_than=older_than)
    return path


# -- reading ----------------------------------------------------------------------------------


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def load_entry(path: Path) -> HistoryEntry:
    """Read one history file. Raises ``ValueError`` naming the file if it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        req = data["request"]
        resp = data.get("response") or {}
        body, body_truncated = _body_bytes(resp.get("body"))
        req_body, req_truncated = _body_bytes(req.get("body"))
        return HistoryEntry(
            path=path,
            started_at=_parse_time(data["started_at"]),
            method=req["method"],
            url=req["url"],
            request_headers=[(str(k), str(v)) for k, v in req.get("headers") or []],
            request_body=req_body,
            request_body_truncated=req_truncated,
            request_name=req.get("name", ""),
            request_id=req.get("id", ""),
            settings=dict(req.get("settings") or {}),
            status=resp.get("status"),
            reason=resp.get("reason", ""),
            http_version=resp.get("http_version", ""),
            response_headers=[(str(k), str(v)) for k, v in resp.get("headers") or []],
            body=body or b"",
            body_size=int(resp.get("body_size") or 0),
            body_truncated=body_truncated,
            size=int(resp.get("size") or 0),
            timings=dict(data.get("timings") or {}),
            error=data.get("error"),
            error_kind=data.get("error_kind"),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: not a Pigeon history entry ({exc})") from exc


def _files(collection_root: Path) -> list[Path]:
    directory = history_dir(collection_root)
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.glob("*.json") if p.is_file()), reverse=True)


def list_entries(collection_root: Path) -> list[HistoryEntry]:
    """Every readable entry, newest first (unreadable files are skipped)."""
    entries = []
    for path in _files(collection_root):
        try:
            entries.append(load_entry(path))
        except ValueError:
            continue
    entries.sort(key=lambda e: (e.started_at, e.path.name), reverse=True)
    return entries


def prune(
    collection_root: Path, keep: int | None = None, older_than: timedelta | None = None
) -> int:
    """Delete entries beyond the newest ``keep`` and/or older than ``older_than``.

    Returns how many files were removed. Only files named as ``record`` names them count:
    their names start with the send's time, so this reads no file (it runs after every
    send). Other files are left alone.
    """
    if keep is not None and keep < 0:
        raise ValueError("keep must be zero or more")
    directory = history_dir(collection_root)
    try:
        listing = os.listdir(directory)  # names only: no stat, no Path objects
    except FileNotFoundError:
        return 0
    names = sorted(
        (n for n in listing if n.endswith(".json") and _STAMP_NAME.match(n)), reverse=True
    )
    cutoff = (
        (datetime.now(timezone.utc) - older_than).strftime(_STAMP)
        if older_than is not None
        else None
    )
    removed = 0
    for index, name in enumerate(names):
        if (keep is not None and index >= keep) or (
            cutoff is not None and name[: len(cutoff)] < cutoff
        ):
            try:
                os.unlink(directory / name)
            except FileNotFoundError:
                continue
            removed += 1
    return removed


def to_request(entry: HistoryEntry) -> Request:
    """A request that sends what the entry sent, ready to re-send or save.

    Masked header values cannot be sent: such headers are kept disabled, so the auth of the
    collection or folder the request is placed in applies instead.
    """
    headers = [
        Header(name, value, enabled=MASK not in value) for name, value in entry.request_headers
    ]
    body = Body()
    if entry.request_body is not None:
        try:
            text = entry.request_body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and not entry.request_body_truncated:
            ctype = next((v for n, v in entry.request_headers if n.lower() == "content-type"), "")
            is_json = re.match(r"^application/([\w.+-]*\+)?json\b", ctype.strip().lower())
            body = Body(type="json" if is_json else "text", content=text)
    s = entry.settings
    settings = Settings(
        timeout=float(s.get("timeout", 30.0)),
        follow_redirects=bool(s.get("follow_redirects", True)),
        verify_tls=bool(s.get("verify_tls", True)),
    )
    stamp = entry.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    return Request(
        name=entry.request_name or f"{entry.method} {urlsplit(entry.url).path or '/'}",
        method=entry.method,
        url=entry.url,
        headers=headers,
        body=body,
        settings=settings,
        description=f"Sent {stamp}" + (f" ({entry.status} {entry.reason})" if entry.status else ""),
    )
