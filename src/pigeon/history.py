"""A record of every send: one JSON file per exchange under ``<collection>/.pigeon/history/``.

History lives inside the collection so it travels with it, but ``.pigeon/`` carries its own
``.gitignore`` (``*``) so it is never committed. Secrets are masked before anything is
written: credential headers (the scheme word of ``Authorization`` is kept: ``Bearer •••``),
any header or query parameter whose name mentions a token, secret, password, key or auth,
and any value found in the collection's ``.env``. Bodies are kept up to a cap (256 KiB by
default) so a large download does not fill the disk.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from dotenv.parser import parse_stream

from pigeon.model import Body, Header, Request, Settings
from pigeon.store import atomic_write, slugify

HISTORY_DIR = Path(".pigeon") / "history"
DEFAULT_CAP = 256 * 1024
MASK = "•••"
FORMAT = 1

_CREDENTIAL_HEADERS = {"cookie", "set-cookie", "x-api-key"}
_SCHEME_HEADERS = {"authorization", "proxy-authorization"}
_SENSITIVE_NAME = re.compile(r"token|secret|password|passwd|key|auth|session|cookie", re.I)
_MIN_SECRET_IN_TEXT = 6  # shorter .env values are masked only where they are a whole value
_MIN_LEARNED = 4  # shorter values masked by name are not looked for inside other text


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


class Masker:
    """Replaces secrets in headers, URLs and bodies before they are written."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {s for s in secrets if s}
        self.exact = values
        self.in_text = sorted(
            (s for s in values if len(s) >= _MIN_SECRET_IN_TEXT), key=len, reverse=True
        )

    def learn(self, value: str) -> None:
        """Remember a value masked by its name, so its copies elsewhere (an echo of the
        request in the response body) are masked too."""
        value = value.strip()
        if len(value) >= _MIN_LEARNED and value not in self.in_text:
            self.in_text.append(value)
            self.in_text.sort(key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self.in_text:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

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
            pieces = []
            for piece in query.split("&"):
                name, eq, value = piece.partition("=")
                pairs = parse_qsl(piece, keep_blank_values=True)
                plain_name, plain_value = pairs[0] if pairs else (name, value)
                if (
                    eq
                    and value
                    and (_SENSITIVE_NAME.search(plain_name) or plain_value in self.exact)
                ):
                    self.learn(plain_value)
                    self.learn(value)
                    pieces.append(f"{name}={quote(MASK)}")
                else:
                    pieces.append(piece)
            query = "&".join(pieces)
        masked = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
        return self.text(masked)

    def body(self, data: bytes) -> bytes:
        if not self.in_text:
            return data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            for secret in self.in_text:
                data = data.replace(secret.encode("utf-8"), MASK.encode("utf-8"))
            return data
        return self.text(text).encode("utf-8")


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


def _body_json(data: bytes | None, cap: int) -> dict[str, Any] | None:
    """A body as stored: UTF-8 text when it is, base64 otherwise; cut at ``cap`` bytes."""
    if data is None:
        return None
    kept = data[:cap]
    truncated = len(data) > cap
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
        return {"encoding": "utf-8", "data": text, "truncated": truncated, "size": len(data)}
    return {
        "encoding": "base64",
        "data": base64.b64encode(kept).decode("ascii"),
        "truncated": truncated,
        "size": len(data),
    }


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
    rendered = getattr(exchange, "request", None) or getattr(exchange, "rendered", None)
    started = getattr(exchange, "started_at", None) or datetime.now(timezone.utc)
    if started.tzinfo is None:
        started = started.astimezone()
    started = started.astimezone(timezone.utc)
    settings = getattr(rendered, "settings", None) or Settings()
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
            "headers": [list(h) for h in masker.headers(getattr(rendered, "headers", []) or [])],
            "body": _body_json(masker.body(bytes(req_body)) if req_body is not None else None, cap),
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
        response_headers = masker.headers(getattr(exchange, "headers", []) or [])
        resp_body = masker.body(_response_body(exchange))  # after the request taught the masker
        data["response"] = {
            "status": status,
            "reason": getattr(exchange, "reason", "") or "",
            "http_version": getattr(exchange, "http_version", "") or "",
            "headers": [list(h) for h in response_headers],
            "body": _body_json(resp_body, cap),
            "body_size": body_size if isinstance(body_size, int) else len(resp_body),
            "size": size if isinstance(size, int) else len(resp_body),
        }
        if getattr(exchange, "truncated", False):
            data["response"]["body"]["truncated"] = True
    stamp = started.strftime("%Y%m%dT%H%M%S%fZ")
    slug = slugify(data["request"]["name"] or data["request"]["method"])[:40] or "request"
    path = directory / f"{stamp}-{slug}-{uuid.uuid4().hex[:8]}.json"
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
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

    Returns how many files were removed. Files that are not history entries are left alone.
    """
    if keep is not None and keep < 0:
        raise ValueError("keep must be zero or more")
    entries = list_entries(collection_root)
    cutoff = datetime.now(timezone.utc) - older_than if older_than is not None else None
    doomed: list[Path] = []
    for index, entry in enumerate(entries):
        if (keep is not None and index >= keep) or (
            cutoff is not None and entry.started_at < cutoff
        ):
            doomed.append(entry.path)
    removed = 0
    for path in doomed:
        try:
            os.unlink(path)
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
