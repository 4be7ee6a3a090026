"""Import curl command lines (as copied from a browser, API docs or shell history).

The text is split into words the way a POSIX shell does (quotes, backslashes, line
continuations, ``$'...'`` ANSI-C strings, redirections, heredocs as what ``@-`` reads), or,
for a command copied for Windows cmd.exe (``^`` escapes), the way cmd.exe and the C runtime
do; PowerShell syntax is refused by name. Then curl's options are read from a table. Shell
variables (``$TOKEN``, ``${TOKEN}``, cmd's ``%TOKEN%``) become ``{{$env.TOKEN}}`` so a
secret from the shell stays out of the collection. Anything that changes the request and
that Pigeon cannot express is named in the notes; options that only change curl's own output
are listed once.

No curl-parsing library on PyPI is maintained and covers this option set, so the table is
our own.

Why one module: curl's option table and the request it builds read each other at every
line (an option's meaning depends on the ones before it), so splitting them would only move
the same state between files. Shell word splitting, which is not curl's, is ``importers.shell``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote_plus, unquote_plus, urlsplit

from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    LocalFiles,
    file_body,
    split_query,
)
from pigeon.importers.shell import (  # noqa: F401  (reached as pigeon.importers.curl.*)
    MARKERS,
    POWERSHELL_HINT,
    REDIRECT,
    SEPARATOR,
    STDIN_FILE,
    STDIN_TEXT,
    Words,
    cmd_words,
    shell_words,
)
from pigeon.model import Auth, Body, FormField, Header, Request, Settings

# -- curl's options ---------------------------------------------------------------------------

# Short options that take an argument, and their long names.
_SHORT_ARG = {
    "X": "request", "H": "header", "d": "data", "u": "user", "A": "user-agent", "e": "referer",
    "b": "cookie", "c": "cookie-jar", "F": "form", "m": "max-time", "o": "output",
    "x": "proxy", "T": "upload-file", "w": "write-out", "K": "config", "E": "cert",
    "r": "range", "U": "proxy-user", "D": "dump-header", "C": "continue-at",
    "Y": "speed-limit", "y": "speed-time", "z": "time-cond", "t": "telnet-option",
    "Q": "quote", "P": "ftp-port",
}  # fmt: skip
_SHORT_FLAG = {
    "s": "silent", "S": "show-error", "L": "location", "k": "insecure", "i": "include",
    "I": "head", "v": "verbose", "G": "get", "f": "fail", "N": "no-buffer", "O": "remote-name",
    "g": "globoff", "j": "junk-session-cookies", "J": "remote-header-name", "n": "netrc",
    "Z": "parallel", "#": "progress-bar", "0": "http1.0", "4": "ipv4", "6": "ipv6",
    "l": "list-only", "q": "disable", "R": "remote-time", "V": "version", "h": "help",
    "M": "manual", "p": "proxytunnel", "a": "append", "B": "use-ascii", "1": "tlsv1",
    "2": "sslv2", "3": "sslv3",
}  # fmt: skip
# Long options Pigeon reads (with an argument).
_HANDLED_ARG = {
    "request", "header", "data", "data-raw", "data-binary", "data-ascii", "data-urlencode",
    "json", "form", "form-string", "user", "user-agent", "referer", "cookie", "max-time",
    "connect-timeout", "url", "oauth2-bearer", "max-redirs",
}  # fmt: skip
_HANDLED_FLAG = {
    "head", "get", "insecure", "location", "location-trusted", "compressed", "globoff",
    "basic", "path-as-is", "no-location", "ntlm", "negotiate",
}  # fmt: skip
# Options that change only what curl prints or where it writes: nothing about the request.
_OUTPUT_ARG = {
    "output", "write-out", "dump-header", "stderr", "trace", "trace-ascii", "cookie-jar",
    "output-dir", "create-file-mode", "etag-save", "progress-meter", "retry", "retry-delay",
    "retry-max-time", "speed-limit", "speed-time", "parallel-max", "rate", "limit-rate",
    "keepalive-time", "expect100-timeout", "trace-config",
}  # fmt: skip
_OUTPUT_FLAG = {
    "silent", "show-error", "include", "verbose", "fail", "fail-with-body", "no-buffer",
    "remote-name", "remote-name-all", "remote-header-name", "progress-bar", "no-progress-meter",
    "create-dirs", "trace-time", "styled-output", "no-styled-output", "raw", "tr-encoding",
    "parallel", "parallel-immediate", "no-keepalive", "tcp-nodelay", "tcp-fastopen", "http1.1",
    "http2", "http2-prior-knowledge", "http3", "http3-only", "ipv4", "ipv6", "fail-early",
    "retry-connrefused", "retry-all-errors", "disable", "xattr", "remote-time", "styled",
    "show-headers", "no-clobber", "remove-on-error", "suppress-connect-headers", "junk-session-cookies",
}  # fmt: skip
# Options that change the request in ways Pigeon cannot express (reported with their value).
_UNSUPPORTED_ARG = {
    "proxy", "proxy-user", "upload-file", "cert", "key", "cacert", "capath", "pinnedpubkey",
    "resolve", "connect-to", "interface", "range", "time-cond", "aws-sigv4", "netrc-file",
    "config", "unix-socket", "abstract-unix-socket", "continue-at", "local-port", "dns-servers",
    "doh-url", "ciphers", "tls-max", "request-target", "variable", "expand-url", "cert-type",
    "key-type", "pass", "noproxy", "proxy-header", "preproxy", "socks5", "socks5-hostname",
    "socks4", "socks4a", "url-query", "quote", "telnet-option", "ftp-port", "hostpubmd5",
    "delegation", "service-name", "sasl-authzid", "login-options", "mail-from", "mail-rcpt",
    "crlfile", "engine", "random-file", "egd-file", "proto", "proto-redir", "proto-default",
    "happy-eyeballs-timeout-ms", "ip-tos", "vlan-priority", "json-file",
}  # fmt: skip
_UNSUPPORTED_FLAG = {
    "digest", "ntlm-wb", "anyauth", "netrc", "netrc-optional",
    "proxytunnel", "http1.0", "http0.9", "tlsv1", "tlsv1.0", "tlsv1.1", "tlsv1.2", "tlsv1.3",
    "sslv2", "sslv3", "use-ascii", "list-only", "append", "crlf", "ignore-content-length",
    "post301", "post302", "post303", "ssl", "ssl-reqd", "false-start", "junk",
}  # fmt: skip

_SHORT_LONG = {**_SHORT_ARG, **_SHORT_FLAG}
_ALL_ARG = _HANDLED_ARG | _OUTPUT_ARG | _UNSUPPORTED_ARG
_ALL_FLAG = _HANDLED_FLAG | _OUTPUT_FLAG | _UNSUPPORTED_FLAG


@dataclass
class _Command:
    """Options of one curl invocation, in the order given."""

    options: list[tuple[str, str | None, str]] = field(
        default_factory=list
    )  # (long, arg, as typed)
    urls: list[str] = field(default_factory=list)
    stdin_text: str | None = None  # a heredoc's or here-string's text
    stdin_file: str | None = None  # < FILE
    redirects: list[str] = field(default_factory=list)  # > out.json, as typed


def _split_options(args: list[str], result: ImportResult) -> _Command:
    cmd = _Command()
    # Redirections are the shell's, not curl's arguments: take them out wherever they are.
    plain: list[str] = []
    k = 0
    while k < len(args):
        if args[k] in MARKERS and k + 1 < len(args):
            marker, value = args[k], args[k + 1]
            if marker == STDIN_TEXT:
                cmd.stdin_text, cmd.stdin_file = value, None
            elif marker == STDIN_FILE:
                cmd.stdin_file, cmd.stdin_text = value, None
            else:
                cmd.redirects.append(value)
            k += 2
            continue
        plain.append(args[k])
        k += 1
    args = plain
    i = 0
    only_positional = False
    while i < len(args):
        arg = args[i]
        i += 1
        if only_positional or not arg.startswith("-") or arg == "-":
            cmd.urls.append(arg)
            continue
        if arg == "--":
            only_positional = True
            continue
        if arg.startswith("--"):
            name, eq, inline = arg[2:].partition("=")
            if eq and name not in _ALL_ARG:
                name, inline, eq = arg[2:], "", ""
            if name in _ALL_ARG:
                if eq:
                    value = inline
                elif i < len(args):
                    value = args[i]
                    i += 1
                else:
                    raise ImportFailed(f"curl: option {arg} needs a value")
                cmd.options.append((name, value, arg))
            elif name in _ALL_FLAG or name.startswith("no-") and name[3:] in _ALL_FLAG:
                cmd.options.append((name, None, arg))
            else:
                result.note(f"curl option {arg} is not known to Pigeon; ignored")
            continue
        # A cluster of short options: -sSL, -XPOST, -HAccept:x
        j = 1
        while j < len(arg):
            letter = arg[j]
            j += 1
            if letter in _SHORT_ARG:
                long = _SHORT_ARG[letter]
                if j < len(arg):
                    value = arg[j:]
                elif i < len(args):
                    value = args[i]
                    i += 1
                else:
                    raise ImportFailed(f"curl: option -{letter} needs a value")
                cmd.options.append((long, value, f"-{letter}"))
                break
            if letter in _SHORT_FLAG:
                cmd.options.append((_SHORT_FLAG[letter], None, f"-{letter}"))
            else:
                result.note(f"curl option -{letter} is not known to Pigeon; ignored")
    return cmd


# -- building the request ---------------------------------------------------------------------


@dataclass
class _State:
    method: str | None = None
    head: bool = False
    get: bool = False
    data: list[str] = field(default_factory=list)
    json_data: list[str] = field(default_factory=list)
    form: list[FormField] = field(default_factory=list)
    headers: list[Header] = field(default_factory=list)
    removed_headers: list[str] = field(default_factory=list)
    user: str | None = None
    user_scheme: str = "basic"  # --ntlm, --negotiate: how -u's credentials are sent
    bearer: str | None = None
    user_agent: str | None = None
    referer: str | None = None
    cookies: list[str] = field(default_factory=list)
    settings: Settings = field(default_factory=lambda: Settings(follow_redirects=False))
    output_options: list[str] = field(default_factory=list)
    binary_body: bool = False
    data_given: bool = False  # some -d/--json was given, even if its file could not be read
    upload: bool = False  # -T: curl sends PUT
    # The body is a file sent as it is (--data-binary @FILE as the only data, -T FILE): a
    # file body naming it, never read here.
    body_file: Body | None = None
    globoff: bool = False
    path_as_is: bool = False


@dataclass
class _Inputs:
    """Where a command's ``@file`` and ``@-`` data come from."""

    base: Path  # absolute: the directory relative paths are resolved against
    files: LocalFiles  # which files may be read
    stdin: bytes | None = None  # what the shell feeds curl: a heredoc or here-string
    stdin_file: str | None = None  # ... or a file (< FILE), read when @- asks for it


_WINDOWS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:)?[\\/]")


def _resolve(ref: str, base: Path) -> Path:
    """``ref`` as an absolute path (``~`` and a leading placeholder are left as written)."""
    if ref.startswith(("~", "{{")) or _WINDOWS_ABSOLUTE.match(ref):
        return Path(ref)
    return base / ref


def _read_file(ref: str, src: _Inputs, result: ImportResult, what: str) -> bytes | None:
    """Contents of ``@file`` data, or ``None`` (noted) when it cannot be read."""
    if ref == "-" and src.stdin is None and src.stdin_file is not None:
        what, ref = f"{what} @- < {src.stdin_file}:", src.stdin_file
    elif ref == "-":
        if src.stdin is None:
            result.note(
                f"{what} @- reads standard input, which the command does not hold; not carried over"
            )
        return src.stdin
    else:
        what = f"{what} @{ref}:"
    path = _resolve(ref, src.base).expanduser()
    real = src.files.allowed(path, result)
    if real is None:
        return None
    try:
        return src.files.read(real)
    except OSError as exc:
        result.note(f"{what} cannot read {path} ({exc.strerror}); not carried over")
        return None


def _text(data: bytes, ref: str, result: ImportResult, state: _State) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        state.binary_body = True
        result.note(f"@{ref} is binary (not UTF-8); Pigeon bodies are text, not carried over")
        return ""


def _data_piece(
    kind: str, value: str, src: _Inputs, result: ImportResult, state: _State
) -> str | None:
    if kind in ("data", "data-ascii", "data-binary") and value.startswith("@"):
        raw = _read_file(value[1:], src, result, f"--{kind}")
        if raw is None:
            return None
        text = _text(raw, value[1:], result, state)
        if kind != "data-binary":
            text = text.replace("\r", "").replace("\n", "")
        return text
    if kind == "data-urlencode":
        name, sep, content = value.partition("=")
        at_name, at, at_file = value.partition("@")
        if sep and "@" not in name:
            return (name + "=" if name else "") + quote_plus(content)
        if at and "=" not in at_name:
            raw = _read_file(at_file, src, result, "--data-urlencode")
            if raw is None:
                return None
            encoded = quote_plus(_text(raw, at_file, result, state))
            return f"{at_name}={encoded}" if at_name else encoded
        return quote_plus(value)
    return value


def _form_field(value: str, literal: bool, src: _Inputs, result: ImportResult) -> FormField | None:
    name, sep, rest = value.partition("=")
    if not sep:
        result.note(f"-F {value!r}: not NAME=VALUE; ignored")
        return None
    if literal:
        return FormField(name=name, value=rest)
    params: list[str] = []
    if rest.startswith('"'):
        end = rest.find('"', 1)
        end = len(rest) if end < 0 else end
        content, tail = rest[1:end], rest[end + 1 :]
        params = [p for p in tail.split(";") if p]
    else:
        content, *params = rest.split(";")
    ctype = ""
    for p in params:
        key, _, val = p.strip().partition("=")
        if key == "type":
            ctype = val
        elif key in ("filename", "headers", "encoder"):
            result.note(f"-F {name}: ;{key}= is not carried over")
    if content in ("@-", "<-"):
        raw = _read_file("-", src, result, f"-F {name}={content[0]}")
        if raw is not None and content == "@-":
            result.note(f"-F {name}=@-: standard input is sent as a text field (no file name)")
        text = (raw or b"").decode("utf-8", errors="replace")
        return FormField(name=name, value=text, content_type=ctype)
    if content.startswith("@"):
        # Pigeon reads a relative path from the collection's directory, curl from where it
        # runs: store where the file is, so the request still sends the same file.
        path = _resolve(content[1:], src.base)
        if "{{" not in str(path):
            if src.files.allowed(path, result) is None:
                # Kept as written but off: sending it would read a file the import may not.
                return FormField(name, content[1:], False, "file", ctype)
            if not path.expanduser().is_file():
                result.note(
                    f"-F {name}=@{content[1:]}: no file at {path}; sending fails until there is"
                )
        return FormField(name=name, value=str(path), kind="file", content_type=ctype)
    if content.startswith("<"):
        raw = _read_file(content[1:], src, result, f"-F {name}=<")
        if raw is None:
            return FormField(name=name, value="", content_type=ctype)
        return FormField(name=name, value=raw.decode("utf-8", errors="replace"), content_type=ctype)
    return FormField(name=name, value=content, content_type=ctype)


def _header(value: str, state: _State, result: ImportResult, src: _Inputs) -> None:
    if value.startswith("@"):
        raw = _read_file(value[1:], src, result, "-H")
        for line in (raw or b"").decode("utf-8", errors="replace").splitlines():
            if line.strip():
                _header(line.strip(), state, result, src)
        return
    name, colon, rest = value.partition(":")
    if colon:
        name = name.strip()
        if rest.strip() == "":
            # curl: "Name:" removes a header curl would add; nothing is sent.
            state.removed_headers.append(name)
            result.note(f"-H {value!r} removes curl's own {name} header; Pigeon sends its own")
            return
        state.headers.append(Header(name=name, value=rest.lstrip(" \t").rstrip("\r\n")))
        return
    if value.endswith(";"):
        state.headers.append(Header(name=value[:-1].strip(), value=""))
        return
    result.note(f"-H {value!r} is not NAME: VALUE; ignored")


_DATA = ("data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "json")


def _sole_file(cmd: _Command) -> str | None:
    """The file of ``--data-binary @FILE`` when it is the command's only data: the body is
    that file as it is, a file body (curl strips nothing from it)."""
    data = [(long, arg or "") for long, arg, _ in cmd.options if long in _DATA]
    if len(data) == 1 and data[0][0] == "data-binary" and data[0][1].startswith("@"):
        ref = data[0][1][1:]
        return ref if ref != "-" else None
    return None


def _apply(cmd: _Command, src: _Inputs, result: ImportResult) -> _State:
    s = _State()
    sole = _sole_file(cmd)
    for long, arg, typed in cmd.options:
        value = arg or ""
        if long == "data-binary" and sole is not None:
            s.data_given = True
            ref = str(_resolve(sole, src.base))
            s.body_file = file_body(ref, src.files, result, f"--data-binary @{sole}")
            continue
        if long == "request":
            s.method = value
        elif long == "head":
            s.head = True
        elif long == "get":
            s.get = True
        elif long in ("data", "data-raw", "data-binary", "data-ascii", "data-urlencode"):
            s.data_given = True
            piece = _data_piece(long, value, src, result, s)
            if piece is not None:
                s.data.append(piece)
        elif long == "json":
            s.data_given = True
            if value.startswith("@"):
                raw = _read_file(value[1:], src, result, "--json")
                if raw is not None:
                    s.json_data.append(_text(raw, value[1:], result, s))
            else:
                s.json_data.append(value)
        elif long in ("form", "form-string"):
            f = _form_field(value, long == "form-string", src, result)
            if f is not None:
                s.form.append(f)
        elif long == "header":
            _header(value, s, result, src)
        elif long == "user":
            s.user = value
        elif long == "oauth2-bearer":
            s.bearer = value
        elif long == "user-agent":
            s.user_agent = value
        elif long == "referer":
            s.referer = value.removesuffix(";auto")
            if value.endswith(";auto"):
                result.note("-e ...;auto: automatic Referer on redirects is not carried over")
        elif long == "cookie":
            if "=" in value:
                s.cookies.append(value)
            else:
                result.note(f"-b {value}: reading cookies from a file is not carried over")
        elif long == "max-time":
            s.settings.timeout = _seconds(value, typed)
        elif long == "connect-timeout":
            s.settings.extra["connect_timeout"] = _seconds(value, typed)
            result.note(
                f"{typed} {value}: Pigeon has one timeout per request (settings.timeout); "
                "kept as settings.connect_timeout, not applied"
            )
        elif long == "url":
            cmd.urls.append(value)
        elif long == "insecure":
            s.settings.verify_tls = False
        elif long in ("location", "location-trusted"):
            s.settings.follow_redirects = True
            s.settings.keep_auth_on_redirect = long == "location-trusted"
        elif long == "no-location":
            s.settings.follow_redirects = False
        elif long == "upload-file":
            s.upload = True
            if "{{" not in value and (value == "-" or value == "." or "[" in value):
                result.note(
                    f"{typed} {value}: uploading standard input or many files is not carried over"
                )
            elif s.body_file is None and sole is None:
                ref = str(_resolve(value, src.base))
                s.body_file = file_body(ref, src.files, result, f"{typed} {value}")
        elif long == "max-redirs":
            if value.strip() != "20":
                result.note(f"--max-redirs {value}: not carried over; Pigeon follows up to 20")
        elif long == "path-as-is":
            s.path_as_is = True
        elif long == "globoff":
            s.globoff = True
        elif long in ("ntlm", "negotiate"):  # the kinds of the same names
            s.user_scheme = long
        elif long in ("compressed", "basic"):
            # What Pigeon always does: ask for compressed responses and decode them (so
            # exported commands carry --compressed), and send -u credentials as Basic.
            pass
        elif long in _OUTPUT_ARG or long in _OUTPUT_FLAG or long.startswith("no-"):
            s.output_options.append(typed + (f" {value}" if arg is not None else ""))
        else:
            shown = f"{typed} {value}" if arg is not None else typed
            result.note(
                f"curl option {shown} changes the request in a way Pigeon cannot express; not carried over"
            )
    return s


def _seconds(value: str, typed: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ImportFailed(f"curl: {typed} {value!r} is not a number of seconds") from None
    if not seconds > 0 or seconds == float("inf"):
        raise ImportFailed(f"curl: {typed} {value!r} must be a positive number of seconds")
    return seconds


_JSON_TYPE = re.compile(r"^application/([\w.+-]*\+)?json\s*(;.*)?$", re.I)
_FORM_TYPE = "application/x-www-form-urlencoded"


def _pop_header(headers: list[Header], name: str) -> Header | None:
    for i in range(len(headers) - 1, -1, -1):
        if headers[i].name.lower() == name:
            return headers.pop(i)
    return None


def _find_header(headers: list[Header], name: str) -> Header | None:
    for h in reversed(headers):
        if h.name.lower() == name:
            return h
    return None


def _form_pairs(data: str) -> list[tuple[str, str]] | None:
    """``a=1&b=x+y`` as decoded pairs, or ``None`` when it is not plain urlencoded data."""
    if not data or data.lstrip().startswith(("{", "[")):
        return None
    pairs = []
    for piece in data.split("&"):
        name, eq, value = piece.partition("=")
        if not eq or not name:
            return None
        pairs.append((unquote_plus(name), unquote_plus(value)))
    return pairs


def _name_for(method: str, url: str) -> str:
    parts = urlsplit(url)
    path = parts.path.rstrip("/") or "/"
    if "{{" in url and not parts.netloc:
        path = url.split("?", 1)[0]
    return f"{method} {path}"


def _build(state: _State, url: str, result: ImportResult) -> Request:
    if "://" not in url and not url.startswith("{{"):
        url = "http://" + url  # curl's default scheme
    _url_notes(state, url, result)
    headers = list(state.headers)
    body = Body()
    data = "&".join(state.data)
    if state.json_data:
        if state.data:
            result.note("--json mixed with -d: the -d data is joined to the JSON body")
        data = "".join(state.json_data) + ("&" + data if state.data else "")
    has_data = bool(state.data or state.json_data)

    method = state.method
    if state.get and has_data:
        sep = "&" if "?" in url.split("#", 1)[0] else "?"
        url = url + sep + data
        has_data = False
        data = ""
    if method is None:
        if state.head:
            method = "HEAD"
        elif has_data or state.form or (state.data_given and not state.get):
            method = "POST"
        elif state.upload:
            method = "PUT"
        else:
            method = "GET"
    method = (
        method.upper()
        if method.upper() in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
        else method
    )

    url, query = split_query(url)

    # User agent, referer and cookies: -H wins over -A/-e/-b, as in curl.
    if state.user_agent is not None and not _find_header(headers, "user-agent"):
        headers.append(Header("User-Agent", state.user_agent))
    if state.referer is not None and not _find_header(headers, "referer"):
        headers.append(Header("Referer", state.referer))
    if state.cookies:
        existing = _find_header(headers, "cookie")
        joined = "; ".join(state.cookies)
        if existing:
            existing.value = f"{existing.value}; {joined}"
        else:
            headers.append(Header("Cookie", joined))

    ctype_header = _find_header(headers, "content-type")
    ctype = ctype_header.value.strip() if ctype_header else ""
    if state.body_file is not None and not state.form:
        body = state.body_file
        if ctype_header is not None:
            body.content_type = ctype
            headers.remove(ctype_header)
        elif not state.upload:
            result.note(
                f"curl sends --data-binary @FILE as {_FORM_TYPE} without -H 'Content-Type: "
                "...'; Pigeon sends the type the file's name suggests"
            )
    elif state.form:
        if has_data:
            result.note("-d and -F together: curl refuses this; the -d data is not carried over")
        if ctype_header and ctype.lower().startswith("multipart/form-data"):
            headers.remove(ctype_header)  # Pigeon writes its own boundary
        elif ctype_header:
            result.note(f"-F with Content-Type {ctype!r}: kept; the multipart boundary is Pigeon's")
        body = Body(type="multipart", fields=list(state.form))
    elif state.json_data:
        body = Body(type="json", content=data)
        if ctype_header is None:
            pass  # Pigeon adds application/json for a json body
        elif ctype.lower() == "application/json":
            headers.remove(ctype_header)
        if not _find_header(headers, "accept"):
            headers.append(Header("Accept", "application/json"))
    elif has_data:
        if (not ctype or ctype.lower() == _FORM_TYPE) and _is_json_document(data):
            # A JSON object or array: edited as JSON, sent with the type curl gives it.
            body = Body(type="json", content=data)
            if ctype_header is None:
                headers.append(Header("Content-Type", _FORM_TYPE))
            result.note(
                f"the data is JSON but curl sends it as {_FORM_TYPE} (no -H 'Content-Type: "
                "application/json'); that header is kept: delete it to send application/json"
            )
        elif ctype and _JSON_TYPE.match(ctype) and _is_json(data):
            body = Body(type="json", content=data)
            if ctype.lower() == "application/json" and ctype_header is not None:
                headers.remove(ctype_header)
        elif (not ctype or ctype.lower() == _FORM_TYPE) and (
            pairs := _form_pairs(data)
        ) is not None:
            body = Body(type="form", fields=[FormField(n, v) for n, v in pairs])
            if ctype_header is not None:
                headers.remove(ctype_header)
        else:
            body = Body(type="text", content=data)
            if not ctype:
                # What curl sends with -d; without it Pigeon would say text/plain.
                headers.append(Header("Content-Type", _FORM_TYPE))

    auth: Auth | None = None
    if state.user is not None:
        user, colon, password = state.user.partition(":")
        if not colon:
            result.note(f"-u {user}: curl would prompt for the password; it is left empty")
        auth = Auth(type=state.user_scheme, username=user, password=password)
    if state.bearer is not None:
        auth = Auth(type="bearer", token=state.bearer)
    authz = _find_header(headers, "authorization")
    if authz is not None:
        scheme, _, cred = authz.value.strip().partition(" ")
        cred = cred.strip()
        if scheme.lower() == "bearer" and cred and " " not in cred:
            headers.remove(authz)
            auth = Auth(type="bearer", token=cred)
        elif scheme.lower() == "basic" and cred:
            pair = _basic_pair(cred)
            if pair is not None:
                headers.remove(authz)
                auth = Auth(type="basic", username=pair[0], password=pair[1])

    return Request(
        name=_name_for(method, url),
        method=method,
        url=url,
        headers=headers,
        query=query,
        body=body,
        auth=auth,
        settings=Settings(
            timeout=state.settings.timeout,
            follow_redirects=state.settings.follow_redirects,
            verify_tls=state.settings.verify_tls,
            keep_auth_on_redirect=state.settings.keep_auth_on_redirect,
            extra=dict(state.settings.extra),
        ),
    )


_AUTHORITY = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def _url_notes(state: _State, url: str, result: ImportResult) -> None:
    """What curl does with this URL that Pigeon does not: globs, and dot segments kept."""
    tail = _AUTHORITY.sub("", re.sub(r"\{\{.*?\}\}", "", url))  # not the [::1] of a host
    if not state.globoff and re.search(r"[\[\]{}]", tail):
        result.note(
            f"{url}: curl reads [] and {{}} in a URL as a glob (several requests) unless -g "
            "is given; imported as one request with the URL as written"
        )
    if state.path_as_is:
        path = tail.split("?", 1)[0].split("#", 1)[0]
        dots = any(seg in (".", "..") for seg in path.split("/"))
        result.note(
            "--path-as-is: not carried over; Pigeon resolves . and .. segments in the path"
            + (f", so {path} is not sent as written" if dots else " (this URL has none)")
        )


def _basic_pair(cred: str) -> tuple[str, str] | None:
    try:
        text = base64.b64decode(cred, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, colon, password = text.partition(":")
    if not colon:
        return None
    # Only when Pigeon would send exactly the same header back.
    if base64.b64encode(text.encode("utf-8")).decode("ascii") != cred:
        return None
    return user, password


def _is_json_document(text: str) -> bool:
    """Whether ``text`` is a JSON object or array (not a bare number or string)."""
    return text.lstrip().startswith(("{", "[")) and _is_json(text)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _commands(words: list[str]) -> list[list[str]]:
    """The argument lists of every ``curl`` command among the words (with the markers of
    its redirections, wherever they were written)."""
    out: list[list[str]] = []
    current: list[str] | None = None
    before: list[str] = []  # redirections written before the command's name
    at_start = True
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == SEPARATOR:
            if current is not None:
                out.append(current)
            current, at_start, before = None, True, []
            continue
        if w in MARKERS and i < len(words):
            pair = [w, words[i]]
            i += 1
            if at_start:
                before += pair
            elif current is not None:
                current += pair
            continue
        if at_start:
            at_start = False
            if re.split(r"[\\/]", w)[-1].lower() in ("curl", "curl.exe"):
                current = before
                continue
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w):  # VAR=value curl ...
                at_start = True
            continue
        if current is not None:
            current.append(w)
    if current is not None:
        out.append(current)
    return out


_LOOKS_LIKE_CURL = re.compile(r"\A\s*(?:\$\s*)?curl(?:\.exe)?\s")


def looks_like_curl(text: str) -> bool:
    """Whether pasted text is a curl command (``curl ...``, or ``$ curl ...`` from docs)."""
    return bool(_LOOKS_LIKE_CURL.match(text))


def adopt(target: Request, imported: Request) -> None:
    """Give ``target`` everything a curl command describes, in place: method, URL, query,
    headers, body, auth and settings. Its name, description, scripts and variables stay:
    pasting a command into a request replaces what is sent, not what the request is."""
    target.method = imported.method
    target.url = imported.url
    target.query = imported.query
    target.headers = imported.headers
    target.body = imported.body
    target.auth = imported.auth
    target.settings = imported.settings


_CURL_START = re.compile(r"\A\s*(?:\S*[\\/])?curl(?:\.exe)?[ \t]", re.I)
_CMD_ESCAPES = re.compile(r'(?:^|\s)\^"|\^[&|<>]')


def _is_cmd(text: str) -> bool:
    """Whether ``text`` is a Windows cmd.exe curl command: it starts with curl and its first
    line ends in a ``^`` continuation or has cmd's ``^`` escapes (``^"``, ``^&``) outside
    single quotes (inside them, a POSIX shell keeps a ``^"`` as it is)."""
    if not _CURL_START.match(text):
        return False
    first = text.lstrip().split("\n", 1)[0].rstrip("\r \t")
    return first.endswith(" ^") or bool(_CMD_ESCAPES.search(re.sub(r"'[^']*'", "", first)))


def parse_curl(command: str, base: Path | None = None, allow_outside: bool = False) -> ImportResult:
    """Turn one or more curl command lines into requests.

    ``base`` is the directory the command runs in: relative ``@file`` references are read
    from it, and a ``-F name=@file`` is stored as the absolute path (default: the current
    directory). No file outside ``base`` (symlinks followed) is read, or kept as a ``-F`` file
    to send (it is kept switched off), unless ``allow_outside``: each is noted instead. Text
    with several commands -- a script, or a shell history file (bash, or
    zsh's ``: 1700000000:0;curl ...`` lines) -- gives one request per curl command; other
    commands are ignored, repeated commands are imported once, and a curl command that
    cannot be read is noted and skipped. Heredocs (``<<EOF``), here-strings (``<<<``) and
    ``< FILE`` are what ``@-`` reads. A command copied for Windows cmd.exe (``^`` escapes)
    is read with cmd's rules. Raises ``ImportFailed`` when the text holds no curl command,
    when its only command cannot be read, or for PowerShell syntax.
    """
    if POWERSHELL_HINT.search(command):
        raise ImportFailed(
            "curl: this is PowerShell syntax (a ` at the end of a line, or $env:NAME), which "
            "Pigeon does not read; copy the command as cURL (bash) or as cURL (cmd) instead"
        )
    result = ImportResult()
    if _is_cmd(command):
        words = cmd_words(command)
        commands = _commands(words.words)
        if not commands:
            raise ImportFailed("curl: no curl command found")
        _add(
            commands, base, result, lenient=len(commands) > 1, where="", allow_outside=allow_outside
        )
        _finish(result, words)
        return result
    if len(_CURL_LINE.findall(command)) > 1:
        # Several commands: read each on its own, so a stray quote elsewhere (common in
        # history files) cannot swallow or garble the commands that follow it.
        return _parse_lines(command, base, allow_outside)
    try:
        words = shell_words(command)
    except ImportFailed:
        if "\n" not in command.strip():
            raise
        return _parse_lines(command, base, allow_outside)
    commands = _commands(words.words)
    if not commands:
        stripped = [w for w in words.words if w != SEPARATOR]
        if stripped and stripped[0].startswith(("-", "http://", "https://")):
            commands = [stripped]  # the arguments without the leading "curl"
        else:
            raise ImportFailed("curl: no curl command found")
    _add(commands, base, result, lenient=len(commands) > 1, where="", allow_outside=allow_outside)
    _finish(result, words)
    return result


def _invocations(args: list[str]) -> list[list[str]]:
    """One curl command's arguments split at ``--next`` (``-:``): each part is a request of
    its own, with its own options."""
    parts: list[list[str]] = [[]]
    for arg in args:
        if arg in ("--next", "-:"):
            parts.append([])
        else:
            parts[-1].append(arg)
    return [p for p in parts if p]


def _add(
    commands: list[list[str]],
    base: Path | None,
    result: ImportResult,
    *,
    lenient: bool,
    where: str,
    allow_outside: bool = False,
) -> None:
    """Build the requests of ``commands``; with ``lenient``, a bad one is noted and skipped."""
    from pigeon.store import request_to_toml

    seen = {request_to_toml(r) for _, r in result.requests}
    duplicates = 0
    directory = (base or Path.cwd()).absolute()
    files = LocalFiles(directory, allow_outside)
    for args in (part for command in commands for part in _invocations(command)):
        try:
            cmd = _split_options(args, result)
            src = _Inputs(directory, files)
            if cmd.stdin_text is not None:
                src.stdin = cmd.stdin_text.encode("utf-8")
            elif cmd.stdin_file is not None:
                src.stdin_file = cmd.stdin_file
            state = _apply(cmd, src, result)
            if not cmd.urls:
                raise ImportFailed("curl: no URL given")
            built = [_build(state, url, result) for url in cmd.urls]
        except ImportFailed as exc:
            if not lenient:
                raise
            result.note(f"{where}{exc.message}; that command was skipped")
            continue
        for req in built:
            key = request_to_toml(req)
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            result.requests.append(("", req))
        ignored = state.output_options + cmd.redirects
        if ignored:
            result.note(
                "curl output options ignored (they do not change the request): "
                + ", ".join(dict.fromkeys(ignored))
            )
    if duplicates:
        result.note(
            f"{where}{duplicates} repeated command{'s' if duplicates > 1 else ''} imported once"
        )


def _finish(result: ImportResult, *word_lists: Words) -> None:
    env = [(name, w.windows) for w in word_lists for name in w.env]
    for name, windows in dict.fromkeys(env):
        shown = f"%{name}%" if windows else f"${name}"
        result.note(
            f"{shown} became {{{{$env.{name}}}}}: put {name} in the collection's .env or the environment"
        )
    if any(w.substitutions for w in word_lists):
        result.note(
            "command substitutions ($(...) or `...`) were kept as written; replace them with values"
        )
    if any(w.open_heredoc for w in word_lists):
        result.note("a heredoc has no end line; its text runs to the end of the input")


_CURL_LINE = re.compile(r"(?m)^(?:.*[;&|(]\s*|\s*)(?:\S*/)?curl(?:\.exe)?\s")
MAX_COMMAND_LINES = 200  # a quoted argument of a history entry may span lines; no further


def _parse_lines(text: str, base: Path | None, allow_outside: bool) -> ImportResult:
    """Text that does not split as a whole (a history file with a stray quote): read each
    command that mentions curl on its own, joining continuation and quoted lines, and the
    lines of its heredoc."""
    result = ImportResult()
    lines = text.splitlines()
    all_words: list[Words] = []
    i = 0
    while i < len(lines):
        if "curl" not in lines[i] and "<<" not in lines[i]:
            i += 1
            continue  # a line with a heredoc is read too, to step over its body
        j = i
        chunk = lines[i]
        while chunk.endswith("\\") and j + 1 < len(lines):
            j += 1
            chunk += "\n" + lines[j]
        words: Words | None = None
        while words is None or (
            words.open_heredoc and j + 1 < len(lines) and j - i < MAX_COMMAND_LINES
        ):
            if words is not None:  # a heredoc still open: its body goes on below
                j += 1
                chunk += "\n" + lines[j]
            try:
                words = shell_words(chunk)
            except ImportFailed:
                words = None
                if j + 1 >= len(lines) or j - i >= MAX_COMMAND_LINES:
                    break
                j += 1
                chunk += "\n" + lines[j]
        if words is None:
            if "curl" in lines[i]:
                result.note(f"line {i + 1}: a curl command with an unclosed quote; skipped")
            i += 1
            continue
        all_words.append(words)
        _add(
            _commands(words.words),
            base,
            result,
            lenient=True,
            where=f"line {i + 1}: ",
            allow_outside=allow_outside,
        )
        i = j + 1
    if not result.requests:
        raise ImportFailed("curl: no curl command that could be read")
    _finish(result, *all_words)
    return result
