"""What a run report shows of each request's exchange (DESIGN §12): the request as sent
(method, URL, headers, body) and the response (status line, headers, body), masked as the send
history masks them, each body cut at ``CAP`` bytes.

Why a spool: a record of ``pigeon run`` is a few hundred bytes whatever the count (DESIGN §6),
and the headers and bodies of 10,000 requests are not. So, only when a report that shows them
is asked for, each exchange is masked when its request is done, written as one JSON line to a
temporary file, and the record keeps where (``Excerpt``: an offset and a length); the report
writers read them back one at a time. The masking is history's (``history.masked_entry``): the
renderer's masked twins for what was sent, then the search for every ``.env`` value, secret
variable and value masked by its name, in the response too, so a server's echo of a secret is
masked as well.

An excerpt, as the JSON report's ``exchange`` holds it::

    {"request": {"method", "url", "headers": [[name, value]], "body": BODY or null},
     "response": {"http_version", "status", "reason", "headers", "body": BODY or null} or null}

    BODY: {"size": bytes, "text": the first CAP bytes as text (null: not text),
           "more": bytes not shown, "file": a file body's path (its content never read)}
"""

from __future__ import annotations

import json
import tempfile
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any

from pigeon.history import masked_entry

if TYPE_CHECKING:
    from pigeon.exchange import Exchange
    from pigeon.render import RenderedRequest

CAP = 4 * 1024  # bytes of each body a report shows

Data = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Where one request's excerpt lies in its spool."""

    spool: Excerpts
    offset: int
    length: int

    def read(self) -> Data:
        return self.spool.read(self)


class Excerpts:
    """The spool of a run's excerpts: a temporary file, gone when closed (or when the spool is
    dropped, or the process ends)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = [s for s in secrets if s]
        self._file: IO[bytes] | None = None  # made with the first excerpt
        self._end = 0

    def __enter__(self) -> Excerpts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keep(self, exchange: Exchange | None, rendered: RenderedRequest | None) -> Excerpt | None:
        """Mask and keep what a request sent and got (``None``: it was never built)."""
        if exchange is None and rendered is None:
            return None
        source = exchange if exchange is not None else SimpleNamespace(request=rendered)
        data = _excerpt(masked_entry(source, secrets=self.secrets, cap=CAP))
        sent = getattr(source.request, "body", None)
        body = data["request"]["body"]
        if isinstance(sent, bytes) and body is not None:  # its size as sent, not as masked
            if body["text"] is None:
                body["more"] = len(sent)
            elif body["more"]:
                body["more"] = max(0, len(sent) - CAP)
            body["size"] = len(sent)
        try:
            return self.add(data)
        except OSError:  # no room for the spool: the reports go without it, the run goes on
            return None

    def add(self, data: Data) -> Excerpt:
        """Keep an excerpt already made (a shard report's, read back by a merge)."""
        line = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        fh = self._open()
        if fh.tell() != self._end:  # a read moved it (a seek where it is would flush each write)
            fh.seek(self._end)
        fh.write(line)
        at, self._end = self._end, self._end + len(line)
        return Excerpt(self, at, len(line))

    def read(self, excerpt: Excerpt) -> Data:
        fh = self._open()
        fh.seek(excerpt.offset)
        data: Data = json.loads(fh.read(excerpt.length))
        return data

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def _open(self) -> IO[bytes]:
        if self._file is None:
            # Open for the spool's life, closed with it (or by the finalizer).
            self._file = tempfile.TemporaryFile()  # noqa: SIM115
            weakref.finalize(self, self._file.close)
        return self._file


def _excerpt(entry: Data) -> Data:
    """An excerpt from what a history entry would hold."""
    request, response = entry["request"], entry["response"]
    body = _body(request["body"])
    sent_file = request.get("file")
    if sent_file is not None:
        size = sent_file.get("size")
        size = size if isinstance(size, int) else 0  # a file that was not there
        body = {"size": size, "text": None, "more": 0, "file": sent_file["path"]}
    out: Data = {
        "request": {
            "method": request["method"],
            "url": request["url"],
            "headers": request["headers"],
            "body": body,
        },
        "response": None,
    }
    if response is not None:
        out["response"] = {
            "http_version": response["http_version"],
            "status": response["status"],
            "reason": response["reason"],
            "headers": response["headers"],
            "body": _body(response["body"], response.get("body_size")),
        }
    return out


def _body(stored: Data | None, size: int | None = None) -> Data | None:
    """A history body (``{"encoding", "data", "truncated", "size"}``) as an excerpt's."""
    if stored is None:
        return None
    # The body's whole size as received (``size``; a gRPC call's replies are kept as JSON,
    # which may be longer), or what is kept of it when that is more.
    whole = max(size, stored["size"]) if isinstance(size, int) else stored["size"]
    if stored["encoding"] != "utf-8":
        return {"size": whole, "text": None, "more": whole}
    shown = min(whole, CAP) if stored["truncated"] else whole
    return {"size": whole, "text": stored["data"], "more": whole - shown}


def checked(value: Any) -> Data | None:
    """An excerpt read from a report, rebuilt from the keys it must have; ``ValueError`` when
    it is not one (a report changed by hand)."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("request"), dict):
        raise ValueError("its exchange is not an object holding a request")
    request, response = value["request"], value.get("response")
    if response is not None and not isinstance(response, dict):
        raise ValueError("its exchange's response is not an object")
    out: Data = {
        "request": {
            "method": _text(request, "method"),
            "url": _text(request, "url"),
            "headers": _pairs(request.get("headers")),
            "body": _checked_body(request.get("body")),
        },
        "response": None,
    }
    if response is not None:
        status = response.get("status")
        if isinstance(status, bool) or not isinstance(status, int):
            raise ValueError("its exchange's response status is not a whole number")
        out["response"] = {
            "http_version": _text(response, "http_version"),
            "status": status,
            "reason": _text(response, "reason"),
            "headers": _pairs(response.get("headers")),
            "body": _checked_body(response.get("body")),
        }
    return out


def _text(item: Data, key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise ValueError(f"its exchange's {key!r} is not text")
    return value


def _pairs(value: Any) -> list[list[str]]:
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in value
    ):
        raise ValueError("its exchange's headers are not [name, value] pairs")
    return value


def _checked_body(value: Any) -> Data | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("its exchange's body is not an object")
    size, more, text, path = value.get("size"), value.get("more", 0), value.get("text"), None
    if isinstance(value.get("file"), str):
        path = value["file"]
    if size is None and path is not None:
        size = 0  # a file body whose file was not there
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in (size, more)):
        raise ValueError("its exchange's body sizes are not whole numbers")
    if text is not None and not isinstance(text, str):
        raise ValueError("its exchange's body text is not text")
    out: Data = {"size": size, "text": text, "more": more}
    if path is not None:
        out["file"] = path
    return out
