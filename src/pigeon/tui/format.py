"""Text the response pane shows: durations, status summaries, masked headers, a curl command.

What is secret and how it is masked is ``pigeon.masking``'s rule; this module only lays it out.

Plain functions of plain values, kept apart from the widgets so they are easy to test.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pigeon.bodies import human_size
from pigeon.exchange import duration, status_kind  # noqa: F401  (the widgets import them from here)
from pigeon.exporters.curl import to_curl
from pigeon.masking import mask_url, mask_value, secret_name

if TYPE_CHECKING:
    from pigeon.exchange import Exchange

is_sensitive_header = secret_name  # the name the widgets know it by


def status_parts(exchange: Exchange) -> list[str]:
    """``["200 OK", "Successful", "123 ms", "4.2 KB", "HTTP/1.1"]`` for a response."""
    parts = [f"{exchange.status} {exchange.reason}".strip()]
    if exchange.status_class:
        parts.append(exchange.status_class)
    parts.append(duration(exchange.timings.total_ms))
    parts.append(human_size(exchange.size))
    if exchange.http_version:
        parts.append(exchange.http_version)
    return parts


def request_line(method: str, url: str, http_version: str = "") -> str:
    return " ".join(part for part in (method, url, http_version) if part)


def sent_text(exchange: Exchange, reveal: bool = False) -> str:
    """The request as it went out: request line, headers (secrets masked), blank line, body."""
    rendered = exchange.request
    method = exchange.method or rendered.method
    url = exchange.url or rendered.url
    headers = exchange.sent_headers or rendered.headers
    lines = [request_line(method, url if reveal else mask_url(url), exchange.http_version)]
    for name, value in headers:
        lines.append(f"{name}: {value if reveal else mask_value(name, value)}")
    body = rendered.body
    if body or rendered.body_file is not None:  # a file body: its description
        lines.append("")
        if rendered.body_text is not None or body is None:
            lines.append(rendered.body_text or "")
        else:
            try:
                lines.append(body.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(f"({human_size(len(body))} of binary data)")
    return "\n".join(lines)


def curl_command(rendered: Any) -> str:  # an Exchange's request: the app never names render
    """The curl command that sends a rendered request (``pigeon.exporters.curl``)."""
    return to_curl(rendered)


def export_text(kind: str, rendered: Any) -> str:
    """The request as ``kind`` (one of ``pigeon.exporters.REQUEST_KINDS``) writes it."""
    from pigeon.exporters import exporter

    return exporter(kind)(rendered)


def suggested_filename(url: str, content_type: str, disposition: str | None = None) -> str:
    """A file name to offer when saving a body: Content-Disposition, the URL's last part, or
    ``response`` with an extension from the content type."""
    if disposition:
        match = re.search(r"filename\*?=(?:UTF-8'')?\"?([^\";]+)", disposition, re.I)
        if match:
            name = match.group(1).strip().replace("/", "_").replace("\\", "_")
            if name not in ("", ".", ".."):
                return name
    path = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    last = path.rsplit("/", 1)[-1] if "/" in path.partition("://")[2] else ""
    if last and "." in last and len(last) <= 100:
        return last
    extensions = {
        "application/json": ".json",
        "application/xml": ".xml",
        "text/xml": ".xml",
        "text/html": ".html",
        "text/plain": ".txt",
        "text/csv": ".csv",
        "image/png": ".png",
        "image/jpeg": ".jpg",
        "image/gif": ".gif",
        "image/webp": ".webp",
        "application/pdf": ".pdf",
        "application/zip": ".zip",
    }
    ext = extensions.get(content_type, ".json" if content_type.endswith("+json") else ".bin")
    return f"response{ext}"
