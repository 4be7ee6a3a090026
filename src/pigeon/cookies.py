"""The cookie jar kept per collection and environment (DESIGN §7), in ``.pigeon/cookies/``.

A jar is a JSON file written atomically with mode 0600, never through a link
(``files.private_dir``). Session cookies are kept too, as Postman and Bruno keep them: the
jar is the user's working state, not a browser's. A jar file that is not 0600 was not
written by Pigeon (git checks files out 0644): a repository could ship one to plant cookies
for any site, so it is ignored with a warning. Each cookie is checked as it is read: a name,
value, domain or path holding a control character or ``;`` is dropped.

One rule (``cookie_problem``) holds for a cookie a server sets, one typed in the Cookies view
and one read from a jar: printable ASCII, no ``;`` (RFC 6265's cookie-octets, give or take
the space). A server's cookie that breaks it is not kept, and the send says so by name: one
such cookie would otherwise make every later request to its host unsendable (a header goes
as ASCII). An IP address only ever gets host-only cookies (RFC 6265 §5.3: a domain is
matched by suffix only for a host name), so ``Domain=.0.0.1`` from 127.0.0.1 never reaches
10.0.0.1.
"""

from __future__ import annotations

import http.cookiejar
import ipaddress
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from http.cookiejar import eff_request_host, request_host  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

JAR_LIMIT = 5_000_000  # bytes: a jar file larger than this is not read
_BAD = re.compile(r"[^\x20-\x3a\x3c-\x7e]")  # a control character, ``;`` or not ASCII
# Where a send finds the names of the cookies its responses set that were not kept.
REFUSED = "pigeon.refused_cookies"


def cookie_problem(name: str, value: str) -> str | None:
    """Why a cookie of this name and value cannot be kept (one line), or ``None``: the rule
    for a server's cookie, the Cookies view's and a jar file's alike."""
    if not name:
        return "a cookie needs a name"
    if _BAD.search(name) or "=" in name:
        return "a cookie's name is printable ASCII, without = or ;"
    if _BAD.search(value):
        return "a cookie's value is printable ASCII, without ;"
    return None


def _ip(host: str) -> str | None:
    """``host`` when it is an IP address (brackets and all for IPv6), else ``None``."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
    return host


class CookiePolicy(http.cookiejar.DefaultCookiePolicy):
    """The standard library's rules, and ``cookie_problem``'s and RFC 6265 §5.3's for IP
    hosts (see the module's docstring)."""

    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        problem = cookie_problem(cookie.name, cookie.value or "")
        if problem is not None:
            refused = getattr(getattr(request, "request", None), "extensions", None)
            if isinstance(refused, dict):  # httpx's request behind the jar's urllib face
                refused.setdefault(REFUSED, []).append(cookie.name)
            return False
        return super().set_ok(cookie, request)

    def set_ok_domain(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        host = _ip(request_host(request))
        if host is None or not cookie.domain_specified:
            return super().set_ok_domain(cookie, request)
        if cookie.domain.removeprefix(".").strip("[]") != host.strip("[]"):
            return False
        # ``Domain=`` the address itself: kept, for that address alone (named as the jar
        # names a host-only cookie's host: ``[::1]`` is ``[::1].local``).
        cookie.domain = eff_request_host(request)[1]
        cookie.domain_specified = cookie.domain_initial_dot = False
        return True

    def return_ok_domain(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        host = _ip(request_host(request))
        if host is not None and cookie.domain != eff_request_host(request)[1]:
            return False
        return super().return_ok_domain(cookie, request)


def new_jar() -> http.cookiejar.CookieJar:
    """An empty jar under ``CookiePolicy``."""
    return http.cookiejar.CookieJar(CookiePolicy())


def refused(extensions: dict[str, Any]) -> list[str]:
    """The names of the cookies a response set that were not kept, taken once (a redirect's
    request shares its extensions with the request before it)."""
    names = extensions.pop(REFUSED, None)
    return list(names) if isinstance(names, list) else []


def jar_path(root: Path | str, environment: str | None, create: bool = False) -> Path:
    """``.pigeon/cookies/none.json`` without an environment, ``env-NAME.json`` with one."""
    name = f"env-{environment}.json" if environment else "none.json"
    return private_dir(root, "cookies", create=create) / name


@dataclass(frozen=True, slots=True)
class CookieRow:
    """One cookie as the Cookies view lists it."""

    domain: str
    path: str
    name: str
    value: str
    expires: int | None
    secure: bool
    host_only: bool


def rows(jar: http.cookiejar.CookieJar) -> list[CookieRow]:
    return sorted(
        (
            CookieRow(
                c.domain, c.path, c.name, c.value or "", c.expires, c.secure, not c.domain_specified
            )
            for c in jar
        ),
        key=lambda row: (row.domain, row.path, row.name),
    )


def make_cookie(
    name: str,
    value: str,
    domain: str,
    path: str = "/",
    *,
    expires: int | None = None,
    secure: bool = False,
    http_only: bool = False,
    host_only: bool = False,
) -> http.cookiejar.Cookie:
    """A cookie for ``domain`` (a leading dot: every host under it too; ``host_only``: set
    without a Domain attribute, so for that host alone)."""
    problem = cookie_problem(name, value)
    if problem is not None:
        raise ValueError(problem)
    if any(_BAD.search(text) for text in (domain, path)) or not domain.strip("."):
        raise ValueError("a cookie's domain and path are printable ASCII, without ;")
    if domain.startswith(".") and _dotted_address(domain):
        raise ValueError("an IP address has cookies for itself alone")
    # typeshed has ``rest`` hold strings; the standard library itself keeps None for an
    # attribute without a value, as HttpOnly is.
    return http.cookiejar.Cookie(
        0, name, value, None, False, domain, not host_only, domain.startswith("."), path or "/", True,
        secure, expires, expires is None, None, None, {"HttpOnly": None} if http_only else {},  # type: ignore[dict-item]
    )  # fmt: skip


def _dotted_address(domain: str) -> bool:
    """``.0.0.1``, ``.[::1]``: a domain that could only be part of an IP address."""
    rest = domain.removeprefix(".")
    return _ip(rest) is not None or all(c.isdigit() or c == "." for c in rest)


def _entry(cookie: http.cookiejar.Cookie) -> dict[str, Any]:
    return {
        "name": cookie.name,
        "value": cookie.value or "",
        "domain": cookie.domain,
        "path": cookie.path,
        "secure": cookie.secure,
        "expires": cookie.expires,
        "http_only": cookie.has_nonstandard_attr("HttpOnly"),
        "host_only": not cookie.domain_specified,
    }


def _cookie(entry: Any) -> http.cookiejar.Cookie | None:
    if not isinstance(entry, dict):
        return None
    texts = [
        entry.get(key, "/" if key == "path" else None)
        for key in ("name", "value", "domain", "path")
    ]
    strings = [t for t in texts if isinstance(t, str)]
    expires = entry.get("expires")
    if len(strings) != len(texts) or not strings[2]:
        return None
    if expires is not None and (isinstance(expires, bool) or not isinstance(expires, int)):
        return None
    return make_cookie(  # ValueError: the rule's, said by name in load's warning
        *strings,
        expires=expires,
        secure=entry.get("secure") is True,
        http_only=entry.get("http_only") is True,
        host_only=entry.get("host_only") is True,
    )


def load(jar: http.cookiejar.CookieJar, root: Path | str, environment: str | None) -> str | None:
    """Replace the jar's cookies with the saved ones; a warning when the file is refused, or
    names the cookies in it that break the rule (which are not kept)."""
    jar.clear()
    try:
        path = jar_path(root, environment)
        if not path.exists() and not path.is_symlink():
            return None
        if path.is_symlink():
            return f"cookie jar {path} is a link; not read"
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            return f"cookie jar {path} is not private (mode {mode:o}, not 600): not read"
        data = json.loads(read_capped(path, JAR_LIMIT))
    except (OSError, ValueError) as exc:
        return f"cookie jar not read: {exc}"
    entries = data.get("cookies") if isinstance(data, dict) else None
    dropped: list[str] = []
    for entry in entries if isinstance(entries, list) else ():
        try:
            cookie = _cookie(entry)
        except ValueError as exc:
            dropped.append(f"{entry['name']!r} ({exc})")
            continue
        if cookie is not None:
            jar.set_cookie(cookie)
    jar.clear_expired_cookies()
    if dropped:
        return f"cookie jar {path}: not kept: {', '.join(dropped)}"
    return None


def snapshot(jar: http.cookiejar.CookieJar) -> list[dict[str, Any]]:
    """The jar's unexpired cookies as plain data, taken where the jar is used (the send's
    loop), so the file can be written in a thread."""
    now = time.time()
    return [_entry(c) for c in list(jar) if c.expires is None or c.expires > now]


def save(entries: list[dict[str, Any]], root: Path | str, environment: str | None) -> None:
    """Write the jar file (0600, atomically); ``OSError`` (``LinkedOut`` for a link)."""
    path = jar_path(root, environment, create=True)
    if path.is_symlink():
        raise LinkedOut(f"{path} is a link; Pigeon writes nothing there")
    if not path.exists():
        # The atomic write keeps the mode of the file it replaces: start it private.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    os.chmod(path, 0o600)
    atomic_write(path, json.dumps({"cookies": entries}, indent=1) + "\n", durable=False)


def jar_cookie_header(jar: http.cookiejar.CookieJar, url: str) -> str | None:
    """The ``Cookie`` header a send to ``url`` takes from ``jar`` (``None``: no cookie
    matches), chosen as the send chooses it: by httpx, from the client's jar."""
    import httpx

    try:
        request = httpx.Request("GET", url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return None
    httpx.Cookies(jar).set_cookie_header(request)
    header: str | None = request.headers.get("Cookie")
    return header


def with_jar_cookies(rendered: Any, jar: http.cookiejar.CookieJar) -> Any:
    """``rendered`` (a ``RenderedRequest``) with the jar's cookies its send would carry, for a
    command that sends it elsewhere (a curl export): none when its settings keep the jar's
    cookies home, and none when it sets ``Cookie`` itself, which then goes alone (as httpx
    sends it)."""
    if not rendered.settings.send_cookies or rendered.header("Cookie") is not None:
        return rendered
    from dataclasses import replace

    header = jar_cookie_header(jar, rendered.url)
    if header is None:
        return rendered
    return replace(rendered, headers=[*rendered.headers, ("Cookie", header)])
