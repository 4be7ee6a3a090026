"""A record of every send (DESIGN §7): one JSON file per exchange under ``.pigeon/history/``.

History lives inside the collection so it travels with it, but ``.pigeon/`` carries its own
``.gitignore`` (``*``) so it is never committed. Secrets are masked before anything is
written: credential headers (the scheme word of ``Authorization`` is kept: ``Bearer •••``),
any header or query parameter whose name mentions a token, secret, password, key or auth,
the values of secret-looking fields (``password``, ``client_secret``, ``access_token``...)
in JSON, form and multipart bodies of both the request and the response, and every copy of
a value found in the collection's ``.env`` or masked by its name. Bodies are kept up to a cap
(256 KiB by default) so a large download does not fill the disk; a response body cut there keeps
the SHA-256 of the whole, so two entries still compare as same or different (``response_diff``).

Why one module: an entry's format is written here (``record``, and ``masked_entry``, which run
reports show too) and read back here (``load_entry``, ``prune``, ``to_request``), so its two
sides change together.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pigeon.exchange import Exchange, GrpcFacts, Timings
from pigeon.file_body import FileBody
from pigeon.files import LinkedOut, atomic_write, file_sha256, private_dir
from pigeon.masking import MASK, Masker, dotenv_secrets, shown
from pigeon.model import DEFAULT_TIMEOUT, Body, Grpc, Header, Request, Settings
from pigeon.render import RenderedRequest
from pigeon.store import slugify

HISTORY_DIR = Path(".pigeon") / "history"
DEFAULT_CAP = 256 * 1024
FORMAT = 1
_STAMP = "%Y%m%dT%H%M%S%fZ"  # file names start with the send's time, so they sort by it
_STAMP_NAME = re.compile(r"\d{8}T\d{12}Z-")


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
    request_file: FileBody | None = None  # a file body: path, size, type, digest; no content
    request_name: str = ""
    request_id: str = ""
    environment: str = ""
    """The environment the request was rendered with ("": none)."""
    settings: dict[str, Any] = field(default_factory=dict)
    status: int | None = None
    reason: str = ""
    http_version: str = ""
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    body_size: int = 0
    body_truncated: bool = False
    body_sha256: str | None = None
    """The SHA-256 of the whole response body, kept when ``body`` is only its start."""
    size: int = 0
    timings: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None
    grpc: dict[str, Any] | None = None
    """A gRPC call's ``rpc``, ``kind``, ``details``, ``trailers`` and reply counts (its
    replies are the body, a JSON array); ``None`` for HTTP."""

    @property
    def total_ms(self) -> float:
        return float(self.timings.get("total") or 0.0)

    @property
    def ok(self) -> bool:
        if self.grpc is not None:
            return self.error is None and self.status == 0
        return self.error is None and self.status is not None and self.status < 400

    def request_settings(self) -> Settings:
        """The ``[settings]`` the request was sent with (defaults where the entry has none)."""
        s = self.settings
        return Settings(
            timeout=float(s.get("timeout", DEFAULT_TIMEOUT)),
            follow_redirects=bool(s.get("follow_redirects", True)),
            verify_tls=bool(s.get("verify_tls", True)),
            keep_auth_on_redirect=bool(s.get("keep_auth_on_redirect", False)),
        )

    def to_exchange(self) -> Exchange:
        """The exchange this entry recorded, as the response pane shows a fresh one."""
        body = self.request_body
        try:
            body_text = body.decode("utf-8") if body is not None else None
        except UnicodeDecodeError:
            body_text = None
        if self.request_file is not None:
            body_text = self.request_file.describe()
        rendered = RenderedRequest(
            method=self.method,
            url=self.url,
            headers=list(self.request_headers),
            body=body,
            body_text=body_text,
            settings=self.request_settings(),
            name=self.request_name,
            request_id=self.request_id,
            environment=self.environment,
            body_file=self.request_file,
        )
        t = self.timings
        exchange = Exchange(
            request=rendered,
            method=self.method,
            url=self.url,
            sent_headers=list(self.request_headers),
            status=self.status,
            reason=self.reason,
            http_version=self.http_version,
            headers=list(self.response_headers),
            body=self.body,
            body_size=self.body_size or len(self.body),
            truncated=self.body_truncated,
            body_sha256=self.body_sha256,
            wire_body_size=self.size,
            timings=Timings(
                total_ms=float(t.get("total") or 0.0),
                connect_ms=t.get("connect"),
                tls_ms=t.get("tls"),
                ttfb_ms=t.get("ttfb"),
                download_ms=t.get("download"),
            ),
            error=self.error,
            error_kind=self.error_kind,  # type: ignore[arg-type]
            started_at=self.started_at,
        )
        if self.grpc is not None:
            exchange.grpc = GrpcFacts.recorded(
                self.grpc, None if self.body_truncated else self.body
            )
        return exchange

    @property
    def label(self) -> str:
        """One line for a list: ``200 GET https://...`` or the error."""
        what = (
            f"{self.status} {self.reason}".strip()
            if self.status is not None
            else (self.error or "no response")
        )
        return f"{what} · {self.method} {self.url}"


# -- writing ----------------------------------------------------------------------------------


def history_dir(collection_root: Path) -> Path:
    return Path(collection_root) / HISTORY_DIR


def _ensure_dir(collection_root: Path) -> Path:
    """The history folder, made if need be; ``LinkedOut`` when ``.pigeon`` or it is a link."""
    return private_dir(collection_root, HISTORY_DIR.name)


def _readable_dir(collection_root: Path) -> Path | None:
    """The history folder to list or prune, ``None`` when it is missing or a link."""
    try:
        directory = private_dir(collection_root, HISTORY_DIR.name, create=False)
    except LinkedOut:
        return None
    return directory if directory.is_dir() else None


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


def _timings(exchange: Exchange) -> dict[str, float | None]:
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


def _response_body(exchange: Exchange) -> bytes:
    body = getattr(exchange, "body", b"") or b""
    return bytes(body) if not isinstance(body, str) else body.encode("utf-8")


def record(
    collection_root: Path,
    exchange: Exchange,
    *,
    cap: int = DEFAULT_CAP,
    secrets: Iterable[str] | None = None,
) -> Path:
    """Write one exchange to the collection's history; returns the file written.

    Only attributes of ``exchange`` are read (``request`` or ``rendered``, ``status``,
    ``reason``, ``http_version``, ``headers``, ``body``, ``body_size``, ``timings``, ``error``,
    ``started_at``): a stand-in that has them will do. ``secrets`` defaults to the values of
    the collection's ``.env``.
    """
    root = Path(collection_root)
    directory = _ensure_dir(root)
    secrets = dotenv_secrets(root) if secrets is None else secrets
    data = masked_entry(exchange, secrets=secrets, cap=cap, digest=_body_digest(exchange, cap))
    stamp = datetime.fromisoformat(data["started_at"].replace("Z", "+00:00")).strftime(_STAMP)
    slug = slugify(data["request"]["name"] or data["request"]["method"])[:40] or "request"
    path = directory / f"{stamp}-{slug}-{uuid.uuid4().hex[:8]}.json"
    # Not durable: history records past sends, not the user's files, and an fsync per send
    # would slow every send of a run by milliseconds.
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n", durable=False)
    return path


def masked_entry(
    exchange: Any, *, secrets: Iterable[str], cap: int = DEFAULT_CAP, digest: str | None = None
) -> dict[str, Any]:
    """What ``record`` writes of an exchange (masked, bodies cut at ``cap``), not written: also
    what a run report shows of a request (``pigeon.excerpts``). ``digest``: the whole
    response body's SHA-256, for a body cut here."""
    rendered = getattr(exchange, "request", None) or getattr(exchange, "rendered", None)
    masker = Masker([*secrets, *getattr(rendered, "secrets", ())])
    started = getattr(exchange, "started_at", None) or datetime.now(timezone.utc)
    started = (started if started.tzinfo else started.astimezone()).astimezone(timezone.utc)
    masker.url(getattr(rendered, "url", "") or "")  # what these teach applies to the bodies
    masker.headers(getattr(rendered, "headers", []) or [])
    masker.headers(getattr(exchange, "headers", []) or [])
    known = len(masker.in_text)
    data = _entry_data(exchange, masker, started, cap, digest)
    if len(masker.in_text) != known:
        # Values masked by their name were learned on the way (a login response's token, say):
        # again, so that their copies are masked wherever they appear, earlier parts too.
        data = _entry_data(exchange, masker, started, cap, digest)
    return data


def _body_digest(exchange: Exchange, cap: int) -> str | None:
    """The SHA-256 of a response body the entry keeps only in part: of the body in memory, or
    of the whole one on disk when it was too big for memory (``None``: kept whole, or the
    whole is nowhere to read)."""
    if getattr(exchange, "status", None) is None:
        return None
    if not getattr(exchange, "truncated", False):
        raw = _response_body(exchange)
        return hashlib.sha256(raw).hexdigest() if len(raw) > cap else None
    path = getattr(exchange, "body_path", None)
    return file_sha256(path) if path is not None else None


def _entry_data(
    exchange: Exchange, masker: Masker, started: datetime, cap: int, digest: str | None = None
) -> dict[str, Any]:
    """What one history file holds, masked; ``digest``: the whole response body's SHA-256,
    for a body cut here."""
    rendered = shown(getattr(exchange, "request", None) or getattr(exchange, "rendered", None))
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
            "environment": getattr(rendered, "environment", "") or "",
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
                "keep_auth_on_redirect": settings.keep_auth_on_redirect,
            },
        },
        "response": None,
        "timings": _timings(exchange),
        "error": getattr(exchange, "error", None),
        "error_kind": getattr(exchange, "error_kind", None),
    }
    sent_file = getattr(rendered, "body_file", None)
    if sent_file is not None:  # where, how big, what type, the digest sent: not the content
        data["request"]["file"] = {**sent_file.record(), "path": masker.text(sent_file.shown)}
    status = getattr(exchange, "status", None)
    if status is not None:
        headers = getattr(exchange, "headers", []) or []
        response_headers = masker.headers(headers)
        raw = _response_body(exchange)
        grpc = getattr(exchange, "grpc", None)
        if grpc is not None:  # the replies are a JSON array, whatever the metadata says
            headers = [("content-type", "application/json")]
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
        if digest is not None:  # cut: what is left says whether another body is the same
            data["response"]["body_sha256"] = digest
    grpc = getattr(exchange, "grpc", None)
    if grpc is not None:
        data["grpc"] = {
            "rpc": grpc.rpc,
            "kind": grpc.kind,
            "details": masker.text(grpc.details),
            "trailers": [list(h) for h in masker.headers(grpc.trailers)],
            "received": grpc.received,
            "dropped": grpc.dropped,
            "sent": grpc.sent,
        }
    return data


def record_and_prune(
    collection_root: Path,
    exchange: Exchange,
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
            request_file=FileBody.recorded(req.get("file")),
            request_name=req.get("name", ""),
            request_id=req.get("id", ""),
            environment=str(req.get("environment") or ""),
            settings=dict(req.get("settings") or {}),
            status=resp.get("status"),
            reason=resp.get("reason", ""),
            http_version=resp.get("http_version", ""),
            response_headers=[(str(k), str(v)) for k, v in resp.get("headers") or []],
            body=body or b"",
            body_size=int(resp.get("body_size") or 0),
            body_truncated=body_truncated,
            body_sha256=_digest(resp.get("body_sha256")),
            size=int(resp.get("size") or 0),
            timings=dict(data.get("timings") or {}),
            error=data.get("error"),
            error_kind=data.get("error_kind"),
            grpc=data["grpc"] if isinstance(data.get("grpc"), dict) else None,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: not a Pigeon history entry ({exc})") from exc


def _digest(value: Any) -> str | None:
    """A stored SHA-256 as 64 hex digits; anything else (a hand-edited file) is none."""
    text = str(value or "").lower()
    return text if re.fullmatch(r"[0-9a-f]{64}", text) else None


def _files(collection_root: Path) -> list[Path]:
    directory = _readable_dir(collection_root)
    if directory is None:
        return []
    return sorted((p for p in directory.glob("*.json") if p.is_file()), reverse=True)


def list_entries(collection_root: Path) -> list[HistoryEntry]:
    """Every readable entry, newest first (unreadable files are skipped), each naming the
    request it came from by the id that request has now (``follow_renames``)."""
    entries = []
    for path in _files(collection_root):
        try:
            entries.append(load_entry(path))
        except ValueError:
            continue
    entries.sort(key=lambda e: (e.started_at, e.path.name), reverse=True)
    follow_renames(collection_root, entries)
    return entries


def follow_renames(collection_root: Path, entries: Iterable[HistoryEntry]) -> None:
    """Point each entry sent from a request renamed or moved since (through the app:
    ``store.renames``) at the request's id now. An id whose file is still there is its own:
    a new request may take an old name."""
    from pigeon.store.renames import renamed_ids

    ids = renamed_ids(collection_root)
    if not ids:
        return
    root = Path(collection_root)
    live: dict[str, bool] = {}
    for entry in entries:
        now = ids.get(entry.request_id)
        if now is None:
            continue
        if entry.request_id not in live:
            live[entry.request_id] = (root / f"{entry.request_id}.toml").is_file()
        if not live[entry.request_id]:
            entry.request_id = now


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
    directory = _readable_dir(collection_root)
    if directory is None:
        return 0
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


def delete_entry(entry: HistoryEntry) -> None:
    """Remove one entry's file (already gone is fine); ``OSError`` when it cannot be removed."""
    entry.path.unlink(missing_ok=True)


def to_request(entry: HistoryEntry) -> Request:
    """A request that sends what the entry sent, ready to re-send or save.

    Masked header values cannot be sent: such headers are kept disabled, so the auth of the
    collection or folder the request is placed in applies instead.
    """
    headers = [
        Header(name, value, enabled=MASK not in value) for name, value in entry.request_headers
    ]
    body = Body()
    if (sent := entry.request_file) is not None:  # the same file, read again when sent
        body = Body(type="file", path=sent.shown, content_type=sent.content_type)
    elif entry.request_body is not None:
        try:
            text = entry.request_body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and not entry.request_body_truncated:
            ctype = next((v for n, v in entry.request_headers if n.lower() == "content-type"), "")
            is_json = re.match(r"^application/([\w.+-]*\+)?json\b", ctype.strip().lower())
            body = Body(type="json" if is_json else "text", content=text)
    settings = entry.request_settings()
    stamp = entry.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    if entry.grpc is not None:  # a gRPC call: its method, metadata (no Content-Type), message
        rpc, headers = (
            str(entry.grpc.get("rpc") or ""),
            [h for h in headers if h.name != "Content-Type"],
        )
        return Request(entry.request_name or rpc, type="grpc", url=entry.url, headers=headers,
                       body=body, settings=settings, grpc=Grpc(rpc=rpc), description=f"Sent {stamp}")  # fmt: skip
    return Request(
        name=entry.request_name or f"{entry.method} {urlsplit(entry.url).path or '/'}",
        method=entry.method,
        url=entry.url,
        headers=headers,
        body=body,
        settings=settings,
        description=f"Sent {stamp}" + (f" ({entry.status} {entry.reason})" if entry.status else ""),
    )
