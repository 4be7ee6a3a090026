"""What an agent passes to `pigeon mcp` and what it gets back (DESIGN §14): its variables
checked and taken literally, where a request goes (to refuse one its variables send
elsewhere), and results masked, escaped and capped.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from pigeon.errors import PigeonError
from pigeon.render import RenderedRequest
from pigeon.terminal import printable, printable_lines
from pigeon.values import check_name, check_value

BODY_CAP = 64 * 1024  # bytes of a response body a result shows
_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


class ToolError(PigeonError):
    """A call refused or failed: its message is the tool's result, marked as an error."""


# -- what an agent passes ---------------------------------------------------------------------


def agent_variables(variables: object) -> dict[str, Any]:
    """The agent's ``variables``, checked as a script's ``setVar`` values are. They are taken
    literally: a string holding ``{{`` would be rendered as a template (and could read what
    the request itself does not), so it is refused."""
    if variables is None:
        return {}
    if not isinstance(variables, dict):
        raise ToolError("variables: expected an object of names and values")
    out: dict[str, Any] = {}
    for name, value in variables.items():
        try:
            check_name(name)
            out[name] = check_value(value, name)
        except ValueError as exc:
            raise ToolError(f"variables: {exc}") from None
        if _has_template(value):
            raise ToolError(
                f"variables: {name}: a value holding '{{{{' is not taken (values are literal)"
            )
    return out


def _has_template(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(_has_template(k) or _has_template(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_template(v) for v in value)
    return False


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL (the port a scheme implies when none is written)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    port = port if port is not None else _PORTS.get(scheme)
    host = (parts.hostname or "").lower()
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def destinations(rendered: RenderedRequest) -> dict[str, str]:
    """Where a rendered request goes: its URL's origin, its proxy, and the origins of its
    OAuth 2.0 endpoints (a token fetch carries the client secret)."""
    out = {"URL": origin(rendered.url), "proxy": rendered.transport.proxy}
    if rendered.oauth2 is not None:
        grant = rendered.oauth2.oauth2
        for name, value in (
            ("token_url", grant.token_url),
            ("auth_url", grant.auth_url),
            ("device_url", grant.device_url),
        ):
            if value:
                out[name] = origin(value)
    return out


# -- what an agent gets ----------------------------------------------------------------------


def secret_net(secrets: Iterable[str]) -> Callable[[Any], Any]:
    """A function that masks every known secret in every string of a result (the last net:
    an assertion message or a log line quoting one)."""
    from pigeon.masking import Masker

    masker = Masker(secrets)

    def net(value: Any) -> Any:
        if isinstance(value, str):
            return masker.text(value)
        if isinstance(value, dict):
            return {k: net(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [net(v) for v in value]
        return value

    return net


def netted(doc: dict[str, Any], secrets: Iterable[str]) -> dict[str, Any]:
    """``doc`` with every known secret masked in each of its strings."""
    out: dict[str, Any] = secret_net(secrets)(doc)
    return out


def shown_body(stored: Mapping[str, Any] | None, content_type: str) -> str | None:
    """A body as a result shows it: text with its control characters escaped, JSON
    pretty-printed, cut at ``BODY_CAP`` with what was left out counted; binary described."""
    if stored is None:
        return None
    size = int(stored.get("size") or 0)
    kind = content_type.split(";", 1)[0].strip()
    if stored.get("encoding") != "utf-8":
        return f"<binary body, {size} bytes{', ' + printable(kind) if kind else ''}: not shown>"
    text = str(stored.get("data") or "")
    if stored.get("truncated"):
        more = max(0, size - len(text.encode("utf-8")))
        return printable_lines(text) + f"\n… {more} more bytes"
    if "json" in kind.lower() or text.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    return printable_lines(text)


def content_type(headers: Iterable[Sequence[str]]) -> str:
    found = [str(v) for n, v in headers if str(n).lower() == "content-type"]
    return found[-1] if found else ""


def pairs(headers: Iterable[Sequence[str]]) -> list[list[str]]:
    return [[printable(str(n)), printable(str(v))] for n, v in headers]
