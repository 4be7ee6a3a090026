"""A rendered request as a curl command that sends the same request (`pigeon export`, DESIGN §6).

The command carries the rendered values (no placeholders) and is quoted for a POSIX shell
with ``shlex.quote``. A text body goes in ``--data-raw`` (sent byte for byte, no ``@file``
reading); a file body is ``--data-binary @PATH``, the file named where it is on disk. A body
that cannot be a command-line argument -- not UTF-8, or holding a NUL byte or another control
character that a terminal would act on -- is fed on standard input with ``--data-binary @-``:
:func:`to_curl` writes it as a ``printf`` of octal escapes piped into curl, and
:func:`curl_stdin` gives those bytes to a caller that runs :func:`curl_argv` itself.

Every command ends in ``--compressed``: Pigeon always asks for a compressed response
(``Accept-Encoding``, unless the request sets that header itself) and decodes it, and curl
does the same only with that flag.
"""

from __future__ import annotations

import shlex
from typing import Any

import httpx

from pigeon.auth_kinds import KINDS
from pigeon.exporters.shell import printf as _printf
from pigeon.exporters.shell import safe_text_body as _text_body

# Pigeon's default timeout: curl has none, so only other values are written as --max-time.
from pigeon.model import DEFAULT_TIMEOUT


def curl_stdin(rendered: Any) -> bytes | None:
    """The bytes to feed on curl's standard input for :func:`curl_argv`, if any."""
    if rendered.body is not None and _text_body(rendered) is None:
        return bytes(rendered.body)
    return None


def as_sent(url: str) -> str:
    """The URL as Pigeon sends it: percent-encoded by httpx (a space in an inline query is
    ``%20``; curl refuses a raw one). One httpx cannot parse stays as written."""
    try:
        return str(httpx.URL(url))
    except (httpx.InvalidURL, ValueError, TypeError):
        return url


def curl_argv(rendered: Any) -> list[str]:
    """The argument vector (``argv[0] == "curl"``) that sends ``rendered``.

    ``-X`` appears only when curl would otherwise pick another method (GET without a body,
    POST with one); ``HEAD`` without a body is ``--head``. A body without a Content-Type
    header gets ``-H 'Content-Type:'`` so curl does not add its form type. ``--compressed``
    comes last (a header the request sets still wins over curl's own).
    """
    method = (rendered.method or "GET").strip()
    body_file = getattr(rendered, "body_file", None)  # a file body: curl reads the file itself
    has_body = rendered.body is not None or body_file is not None
    argv = ["curl"]
    if not has_body and method.upper() == "HEAD":
        argv.append("--head")
    elif method != ("POST" if has_body else "GET"):
        argv += ["-X", method]
    url = as_sent(rendered.url)
    if any(c in url for c in "[]{}"):
        argv.append("--globoff")  # curl would read brackets and braces as URL globs
    argv += ["--url", url]  # never read as an option, even when it starts with "-"
    has_ctype = False
    for name, value in rendered.headers:
        if name.lower() == "content-type":
            has_ctype = True
        # "Name:" would remove a header in curl; "Name;" sends it with an empty value.
        argv += ["-H", f"{name}: {value}" if value != "" else f"{name};"]
    if has_body:
        if not has_ctype:
            argv += ["-H", "Content-Type:"]
        text = _text_body(rendered)
        if body_file is not None:
            argv += ["--data-binary", f"@{body_file.path}"]
        else:
            argv += ["--data-raw", text] if text is not None else ["--data-binary", "@-"]
    settings = rendered.settings
    if settings is not None:
        if not settings.verify_tls:
            argv.append("-k")
        if settings.follow_redirects:
            argv.append("--location-trusted" if settings.keep_auth_on_redirect else "-L")
        if settings.timeout != DEFAULT_TIMEOUT:
            argv += ["--max-time", _number(settings.timeout)]
        connect = settings.extra.get("connect_timeout")
        if isinstance(connect, int | float) and not isinstance(connect, bool) and connect > 0:
            argv += ["--connect-timeout", _number(connect)]
    argv += _auth_and_transport(rendered)
    argv.append("--compressed")
    return argv


def _auth_and_transport(rendered: Any) -> list[str]:
    """Digest and SigV4 as curl applies them itself; the proxy, CA and client certificate."""
    argv: list[str] = []
    auth = getattr(rendered, "flow_auth", None)
    if auth is not None:
        argv += KINDS[auth.type].curl(auth)
    spec = getattr(rendered, "transport", None)
    if spec is None:
        return argv
    if spec.proxy:
        argv += ["--proxy", spec.proxy]
    if spec.no_proxy:
        argv += ["--noproxy", ",".join(spec.no_proxy)]
    if spec.ca_bundle:
        argv += ["--cacert", spec.ca_bundle]
    if spec.cert:
        password = spec.password.replace(":", "\\:")
        argv += ["--cert", spec.cert + (f":{password}" if password else "")]
        if spec.key:
            argv += ["--key", spec.key]
    return argv


# Options without a value.
_FLAGS = (
    "-k", "-L", "--location-trusted", "--head", "--globoff", "--compressed", "--digest", "--ntlm",
    "--negotiate",
)  # fmt: skip


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def to_curl(rendered: Any, multiline: bool = False) -> str:
    """A command line a POSIX shell runs to send ``rendered``.

    ``multiline`` puts each option on its own line with ``\\`` continuations. A binary body
    becomes ``printf '...' | curl ... --data-binary @-``.
    """
    argv = curl_argv(rendered)
    words: list[list[str]] = [[argv[0]]]
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("-") and arg not in _FLAGS and i + 1 < len(argv):
            words.append([arg, argv[i + 1]])
            i += 2
        else:
            words.append([arg])
            i += 1
    joiner = " \\\n  " if multiline else " "
    command = joiner.join(" ".join(shlex.quote(w) for w in group) for group in words)
    stdin = curl_stdin(rendered)
    if stdin is not None:
        command = f"{_printf(stdin)} | {command}"
    return command
