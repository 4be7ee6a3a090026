"""Text the response pane shows: durations, status summaries, masked headers, a curl command.

Plain functions of plain values, kept apart from the widgets so they are easy to test.
"""

from __future__ import annotations

import re
import shlex
from typing import Any
from urllib.parse import unquote_plus

from pigeon.bodyformat import human_size

MASK = "••••"

_SENSITIVE_NAMES = {
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
    "apikey",
    "x-auth-token",
    "x-csrf-token",
    "x-xsrf-token",
}
_SENSITIVE_PARTS = re.compile(r"token|secret|passw|api[-_]?key|session|credential", re.I)
_SCHEMES = {"basic", "bearer", "digest", "token", "negotiate", "ntlm", "aws4-hmac-sha256"}


def is_sensitive_header(name: str) -> bool:
    lname = name.lower()
    return lname in _SENSITIVE_NAMES or bool(_SENSITIVE_PARTS.search(lname))


def mask_value(name: str, value: str) -> str:
    """The value with its secret part hidden; an auth scheme ("Bearer") stays readable."""
    if not is_sensitive_header(name) or not value:
        return value
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in _SCHEMES:
        return f"{scheme} {MASK}"
    return MASK


_QUERY_PARAM = re.compile(r"([?&])([^=&#]+)=([^&#]*)")
_SECRET_PARAM = re.compile(
    r"token|secret|passw|api[-_]?key|apikey|signature|sig$|auth|session", re.I
)


def mask_url(url: str) -> str:
    """The URL with the values of secret-looking query parameters (``api_key``, ``token``,
    ``signature``...) hidden."""
    if "?" not in url:
        return url

    def hide(match: re.Match[str]) -> str:
        sep, name, value = match.groups()
        if value and _SECRET_PARAM.search(unquote_plus(name)):
            return f"{sep}{name}={MASK}"
        return match.group(0)

    base, _, rest = url.partition("?")
    return base + _QUERY_PARAM.sub(hide, "?" + rest)


def duration(ms: float | None) -> str:
    """``4.2 ms``, ``123 ms``, ``1.23 s``, ``1 m 05 s``."""
    if ms is None:
        return "—"
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def status_parts(exchange: Any) -> list[str]:
    """``["200 OK", "Successful", "123 ms", "4.2 KB", "HTTP/1.1"]`` for a response."""
    parts = [f"{exchange.status} {exchange.reason}".strip()]
    if exchange.status_class:
        parts.append(exchange.status_class)
    parts.append(duration(exchange.timings.total_ms))
    parts.append(human_size(exchange.size))
    if exchange.http_version:
        parts.append(exchange.http_version)
    return parts


def status_kind(status: int | None) -> str:
    """A CSS-friendly name for a status code's class."""
    if status is None:
        return "error"
    return {1: "info", 2: "success", 3: "redirect", 4: "client-error", 5: "server-error"}.get(
        status // 100, "error"
    )


def request_line(method: str, url: str, http_version: str = "") -> str:
    return " ".join(part for part in (method, url, http_version) if part)


def sent_text(exchange: Any, reveal: bool = False) -> str:
    """The request as it went out: request line, headers (secrets masked), blank line, body."""
    rendered = exchange.request
    method = exchange.method or rendered.method
    url = exchange.url or rendered.url
    headers = exchange.sent_headers or rendered.headers
    lines = [request_line(method, url if reveal else mask_url(url), exchange.http_version)]
    for name, value in headers:
        lines.append(f"{name}: {value if reveal else mask_value(name, value)}")
    body = rendered.body
    if body:
        lines.append("")
        if rendered.body_text is not None:
            lines.append(rendered.body_text)
        else:
            try:
                lines.append(body.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(f"({human_size(len(body))} of binary data)")
    return "\n".join(lines)


def curl_command(rendered: Any) -> str:
    """A curl command for a rendered request, from the exporter when it is there."""
    try:
        from pigeon.exporters.curl import to_curl  # type: ignore[import-not-found]
    except ImportError:
        return minimal_curl(rendered)
    try:
        return str(to_curl(rendered))
    except Exception:  # an exporter bug must not cost the user the command
        return minimal_curl(rendered)


def minimal_curl(rendered: Any) -> str:
    """``curl -X METHOD URL -H ... --data-binary ...`` with shell quoting."""
    parts = ["curl"]
    if rendered.method.upper() != "GET" or rendered.body:
        parts += ["-X", rendered.method.upper()]
    parts.append(shlex.quote(rendered.url))
    for name, value in rendered.headers:
        parts += ["-H", shlex.quote(f"{name}: {value}")]
    if rendered.body:
        text = rendered.body_text
        if text is None:
            try:
                text = rendered.body.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        if text is None:
            parts += ["--data-binary", "@-"]
        else:
            parts += ["--data-binary", shlex.quote(text)]
    return " ".join(parts)


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
