"""Import a HAR 1.2 file (a browser's or a proxy's recording): each entry's request becomes a
Pigeon request, named by its method and path, in a folder per host. Responses are ignored.

A browser adds headers of its own (``Cookie``, ``Host``, ``User-Agent``, ``sec-*``, HTTP/2's
``:authority``...) that Pigeon sets itself or that only mean something to a browser: they are
dropped, with one note naming them all. Two entries that are the same request stay two
requests (``name-2.toml``): a recording's repeats are kept. An ``Authorization: Bearer`` or
``Basic`` header becomes the request's auth; its secret, and any other credential header (an
API key), goes to the collection's ``.env``, never into TOML.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    as_dict,
    as_list,
    as_text,
    clean_header,
    safe_name,
    set_aside,
    split_query,
)
from pigeon.importers.documents import load_json
from pigeon.masking import secret_name
from pigeon.model import Auth, Body, FormField, Header, Request

# What a browser or HTTP/2 adds that a request Pigeon sends must not carry over.
_BROWSER_HEADERS = {
    "cookie", "host", "content-length", "connection", "keep-alive", "accept-encoding",
    "user-agent", "upgrade-insecure-requests", "priority", "te", "transfer-encoding",
    "proxy-connection", "dnt", "pragma", "cache-control", "upgrade",
}  # fmt: skip
_SEC_HEADER = re.compile(r"^sec-", re.IGNORECASE)
_NAME_LIMIT = 60  # characters of the path in a request's name


def parse_har(text: str, path: Path | None = None) -> ImportResult:
    """Parse a HAR document (JSON). Files are never read: a multipart file part is kept as a
    file field with its file name, switched off, noted."""
    data = load_json(text, path)
    log = as_dict(as_dict(data).get("log"))
    if not isinstance(log.get("entries"), list):
        raise ImportFailed('not a HAR file (no "log" with "entries")', path)
    result = ImportResult(name=path.stem if path else "")
    version = as_text(log.get("version"))
    if version and not version.startswith("1."):
        result.note(f"HAR version {version}: read as 1.2")
    dropped: dict[str, int] = {}
    for index, entry in enumerate(log["entries"], 1):
        raw = as_dict(as_dict(entry).get("request"))
        if not raw.get("url"):
            result.note(f"entry {index}: no request URL; skipped")
            continue
        host, req = _request(raw, index, result, dropped)
        result.requests.append((host, req))
    if dropped:
        names = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in dropped.items())
        result.note(
            f"browser-only headers and cookies dropped (Pigeon sets its own or keeps a cookie "
            f"jar): {names}"
        )
    return result


def _name(method: str, url: str) -> tuple[str, str]:
    """The folder (the host) and the request's name (method and path) for ``url``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        path = unquote(parts.path) or "/"
    except ValueError:
        host, path = "", url
    if len(path) > _NAME_LIMIT:
        path = path[: _NAME_LIMIT - 1] + "…"
    return safe_name(host, "other"), safe_name(f"{method} {path}", method, folder=False)


def _request(
    raw: dict[str, Any], index: int, result: ImportResult, dropped: dict[str, int]
) -> tuple[str, Request]:
    method = (as_text(raw.get("method")) or "GET").upper().strip()
    url = as_text(raw.get("url")).strip()
    host, name = _name(method, url)
    where = f"entry {index} ({name})"
    req = Request(name=name, method=method)
    req.url, req.query = split_query(url)
    cookies = as_list(raw.get("cookies"))
    if cookies:
        dropped["recorded cookies"] = dropped.get("recorded cookies", 0) + 1
    for h in as_list(raw.get("headers")):
        if not isinstance(h, dict):
            continue
        hname, value = as_text(h.get("name")).strip(), as_text(h.get("value"))
        low = hname.lower()
        if not hname:
            continue
        if hname.startswith(":") or low in _BROWSER_HEADERS or _SEC_HEADER.match(hname):
            dropped[low] = dropped.get(low, 0) + 1
            continue
        if low == "authorization" and req.auth is None:
            req.auth = _auth(value, where, result)
            if req.auth is not None:
                continue
        if secret_name(hname) and value:
            scheme, space, rest = value.partition(" ")
            if low in ("authorization", "proxy-authorization") and space and rest:
                value = f"{scheme} {set_aside(result, hname, rest, where, where)}"
            else:
                value = set_aside(result, hname, value, where, where)
        header = clean_header(hname, value, True, where, result)
        if header is not None:
            req.headers.append(header)
    req.body = _body(as_dict(raw.get("postData")), req, where, result)
    return host, req


def _auth(value: str, where: str, result: ImportResult) -> Auth | None:
    """A recorded ``Authorization: Bearer`` or ``Basic`` header as the request's auth (its
    secret set aside for ``.env``); ``None`` for another scheme, kept as a header."""
    scheme, _, cred = value.strip().partition(" ")
    cred = cred.strip()
    if scheme.lower() == "bearer" and cred and " " not in cred:
        return Auth(type="bearer", token=set_aside(result, "bearer_token", cred, where, where))
    if scheme.lower() == "basic" and cred:
        try:
            user, colon, password = base64.b64decode(cred, validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        if colon:
            password = set_aside(result, "basic_password", password, where, where)
            return Auth(type="basic", username=user, password=password)
    return None


def _drop_content_type(req: Request, mime: str) -> None:
    req.headers = [
        h
        for h in req.headers
        if h.name.lower() != "content-type"
        or (mime and h.value.split(";")[0].strip().lower() != mime)
    ]


def _body(post: dict[str, Any], req: Request, where: str, result: ImportResult) -> Body:
    if not post:
        return Body()
    mime = as_text(post.get("mimeType")).split(";")[0].strip().lower()
    text = as_text(post.get("text"))
    params = [p for p in as_list(post.get("params")) if isinstance(p, dict) and "name" in p]
    if mime == "multipart/form-data":
        _drop_content_type(req, "")  # its boundary is the recording's, not Pigeon's
        if not params:
            result.note(f"{where}: a multipart body recorded without its parts; left empty")
            return Body(type="multipart")
        fields = []
        for p in params:
            pname = as_text(p["name"])
            if p.get("fileName"):
                result.note(
                    f"{where}: file part {pname} ({as_text(p['fileName'])}) is not in the "
                    "recording; kept switched off: choose the file"
                )
                fields.append(FormField(pname, as_text(p["fileName"]), False, "file",
                                        as_text(p.get("contentType"))))  # fmt: skip
            else:
                fields.append(FormField(pname, as_text(p.get("value"))))
        return Body(type="multipart", fields=fields)
    if mime == "application/x-www-form-urlencoded":
        _drop_content_type(req, mime)
        if params:
            return Body(
                type="form",
                fields=[
                    FormField(unquote(as_text(p["name"])), unquote(as_text(p.get("value"))))
                    for p in params
                ],
            )
        _, pairs = split_query("?" + text)
        if pairs or not text:
            return Body(type="form", fields=[FormField(q.name, q.value) for q in pairs])
        req.headers.append(Header("Content-Type", mime))
        return Body(type="text", content=text)
    if post.get("encoding") == "base64" or "comment" in post and not text:
        result.note(f"{where}: its body is not text in the recording; left empty")
        return Body()
    if mime == "application/json":
        try:
            json.loads(text)
        except ValueError:
            return Body(type="text", content=text)
        _drop_content_type(req, mime)
        return Body(type="json", content=text)
    if text and mime and not any(h.name.lower() == "content-type" for h in req.headers):
        req.headers.append(Header("Content-Type", as_text(post.get("mimeType"))))
    return Body(type="text", content=text) if text else Body()
