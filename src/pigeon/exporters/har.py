"""Rendered requests as a HAR 1.2 log (`pigeon export har DIR`, DESIGN §6, §12): what each
request of a collection would send -- method, URL as sent, headers, query, body -- and no
response (each entry's response is HAR's empty one, status 0).

A body that is UTF-8 text is ``postData.text``; other bytes are base64 with
``"encoding": "base64"`` (as HAR's ``content`` writes them); a file body is named in a
comment, its bytes not read.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pigeon import __version__
from pigeon.exporters.common import as_sent, body_path, text_or_none


def _entry(rendered: Any, started: str) -> dict[str, Any]:
    url = as_sent(rendered.url)
    query = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    headers = [{"name": n, "value": v} for n, v in rendered.headers]
    ctype = next((v for n, v in rendered.headers if n.lower() == "content-type"), "")
    request: dict[str, Any] = {
        "method": rendered.method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": headers,
        "queryString": [{"name": k, "value": v} for k, v in query],
        "headersSize": -1,
        "bodySize": 0,
    }
    path = body_path(rendered)
    if path is not None:
        size = rendered.body_file.size
        request["postData"] = {"mimeType": ctype or rendered.body_file.content_type, "text": "",
                               "comment": f"the file {path}"}  # fmt: skip
        request["bodySize"] = -1 if size is None else size
    elif rendered.body is not None:
        data = bytes(rendered.body)
        text = text_or_none(data)
        post: dict[str, Any] = {"mimeType": ctype}
        if text is not None:
            post["text"] = text
        else:
            post.update(text=base64.b64encode(data).decode("ascii"), encoding="base64")
        if ctype.lower().startswith("application/x-www-form-urlencoded") and text is not None:
            post["params"] = [{"name": k, "value": v} for k, v in parse_qsl(text, True)]
        request["postData"] = post
        request["bodySize"] = len(data)
    return {
        "startedDateTime": started,
        "time": 0,
        "request": request,
        "response": {
            "status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
            "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
        "comment": rendered.request_id or rendered.name,
    }  # fmt: skip


def to_har(requests: Sequence[Any], now: datetime | None = None) -> dict[str, Any]:
    """The HAR document of ``requests`` (rendered, never sent)."""
    started = (now or datetime.now(UTC)).isoformat()
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "pigeon", "version": __version__},
            "entries": [_entry(r, started) for r in requests],
        }
    }
