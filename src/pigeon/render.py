"""A Request + scopes -> RenderedRequest (the exact request to send), plus what went wrong.

This is DESIGN §5, rendering by place: which template goes in which place (URL, query,
headers, auth, body), the rules of each place (URL warnings, header refusals, the JSON body
check, form and multipart encoding) and the order headers are merged in. Expanding one
template against the scopes (lookup, recursion, cycles: §4.2-4.3) is ``expand.Renderer``'s
job; what a value looks like in each place lives in ``values.py``.

Each place also builds its string's twin, the same with every value from a secret source
masked (``RenderedRequest.masked``): what history, reports and `pigeon render` show.

Why one module: each place's rule and the twin it shows are made in one pass over the
request (the twin of a query, a form or a multipart body is encoded as the value is), so
the places and their twins cannot be split without walking the request twice.
"""

from __future__ import annotations

import dataclasses
import json
import mimetypes
import re
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from pigeon.auth_kinds import OAUTH2_TOKEN, AuthError, FlowAuth, Renders, kind_of
from pigeon.errors import RenderError
from pigeon.expand import MAX_DEPTH, Renderer
from pigeon.file_body import FileBody, guess_type, inspect, resolve
from pigeon.files import read_capped
from pigeon.model import Auth, Body, Collection, Folder, Header, Request, Settings
from pigeon.scopes import Scopes
from pigeon.template import Placeholder, parse
from pigeon.transport import TransportSpec, transport_spec
from pigeon.values import MASK, is_token

__all__ = [
    "MAX_DEPTH",
    "OAUTH2_TOKEN",
    "RenderError",
    "RenderResult",
    "RenderedRequest",
    "Renderer",
    "effective_auth",
    "render_json",
    "render_request",
    "render_text",
    "render_value",
]


@dataclass
class RenderResult:
    """One template rendered in one place, with what could not be resolved and warnings."""

    text: str
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class RenderedRequest:
    """The exact request to send: what ``send`` puts on the wire and ``pigeon render`` prints."""

    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None  # exactly what goes on the wire
    body_text: str | None = None  # the same, as text, for display and `pigeon render`
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    name: str = ""
    request_id: str = ""
    environment: str = ""  # the environment whose variables it was rendered with ("": none)
    # The names of the headers and query parameters auth added: what a redirect to another
    # origin takes off (DESIGN §7).
    auth_headers: list[str] = field(default_factory=list)
    auth_query: list[str] = field(default_factory=list)
    # An ``oauth2`` auth, its fields rendered: the send fetches a token with it and puts the
    # token where ``OAUTH2_TOKEN`` stands (``pigeon.oauth2``); a render shows the stand-in.
    oauth2: Auth | None = None
    # Values every writer (history) masks wherever they appear: the OAuth 2.0 token sent.
    secrets: list[str] = field(default_factory=list)
    # Auth that acts at send time (digest answers a challenge, AWS SigV4 signs the request
    # as sent), and how the request reaches its server.
    flow_auth: FlowAuth | None = None
    transport: TransportSpec = field(default_factory=TransportSpec)
    # For an unresolved placeholder that looks like a typo: the name in scope it resembles.
    suggestions: dict[str, str] = field(default_factory=dict)
    # Each rendered string (URL, header name or value, body text) that holds a value from a
    # secret source -- ``$env`` and so the collection's ``.env``, a variable or key whose name
    # says secret -- with those values' spans as ``•••``: what history, reports and `pigeon
    # render` show in its place. Known by where each value came from, not searched for, so a
    # short secret is masked where it went and nowhere else.
    masked: dict[str, str] = field(default_factory=dict)
    masked_body: bytes | None = None  # the body so, when it holds such a value
    # A file body (DESIGN §11): the send streams it from disk; ``body`` stays ``None`` and
    # ``body_text`` is its description, ``<file PATH, N bytes, TYPE>``.
    body_file: FileBody | None = None

    def header(self, name: str) -> str | None:
        """The last value of a header, case-insensitively."""
        lname = name.lower()
        for key, value in reversed(self.headers):
            if key.lower() == lname:
                return value
        return None

    def shown(self, text: str) -> str:
        """A rendered string as it may be shown or written: its secret spans masked."""
        return self.masked.get(text, text)

    def shown_request(self) -> RenderedRequest:
        """This request as it may be shown or written (`pigeon render`): URL, headers and body
        with their secret spans masked."""
        if not self.masked and self.masked_body is None:
            return self
        shown = self.shown
        return dataclasses.replace(
            self,
            url=shown(self.url),
            headers=[(shown(name), shown(value)) for name, value in self.headers],
            body=self.masked_body if self.masked_body is not None else self.body,
            body_text=shown(self.body_text) if self.body_text is not None else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The object `pigeon render --format json` prints (DESIGN §6)."""
        return {
            "method": self.method,
            "url": self.url,
            "headers": [[k, v] for k, v in self.headers],
            "body": self.body_text,
            "unresolved": list(self.unresolved),
            "warnings": list(self.warnings),
        }


# -- public helpers -------------------------------------------------------------------------


def render_text(text: str, scopes: Scopes) -> RenderResult:
    """Render ``text`` in a text place."""
    r = Renderer(scopes)
    out = r.render_text(text)
    return RenderResult(out, r.unresolved, r.warnings)


def render_json(text: str, scopes: Scopes) -> RenderResult:
    """Render a JSON body and warn (with line and column) if the result is not valid JSON."""
    r = Renderer(scopes)
    out = r.render_json(text)
    _check_json(out, r)
    return RenderResult(out, r.unresolved, r.warnings)


def render_value(text: str, scopes: Scopes) -> Any:
    """The value of a template: a single placeholder keeps its kind; anything else is text."""
    r = Renderer(scopes)
    return r.expand(text)


def _check_json(text: str, r: Renderer) -> None:
    problem = _json_problem(text)
    if problem:
        r.warn(problem)


@lru_cache(maxsize=256)
def _json_problem(text: str) -> str | None:
    """Why a rendered JSON body is not valid JSON (memoized: bodies repeat across renders)."""
    if not text.strip():
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return (
            f"JSON body is not valid JSON after rendering: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno}); it is sent as rendered"
        )
    return None


def _graphql(
    body: Body, r: Renderer, masked: dict[str, str] | None = None
) -> tuple[str, str | None, str]:
    """A ``graphql`` body's query (text place), variables (§5's JSON body rules: rendered,
    checked, embedded as rendered; "" when blank) and operation name (text place). What each
    shows in place of its secrets goes into ``masked``."""
    masked = {} if masked is None else masked
    query = _keep(masked, *r.render_text_pair(body.query))
    variables = ""
    if body.variables.strip():
        variables, shown = r.render_json_pair(body.variables)
        variables = _keep(masked, variables.strip(), shown.strip() if shown else None)
    if variables:
        problem = _json_problem(variables)
        if problem:
            r.warn(problem.replace("JSON body is", "GraphQL variables are", 1))
        elif not variables.startswith("{"):
            r.warn("GraphQL variables must be a JSON object; they are sent as rendered")
    name, shown = r.render_text_pair(body.operation_name)
    name = _keep(masked, name.strip(), shown.strip() if shown is not None else None)
    return query, variables or None, name


def graphql_payload(query: str, variables: str | None, operation_name: str) -> str:
    """The standard JSON POST body: ``{"query", "variables", "operationName"}``, the variables
    as rendered (never re-encoded), absent parts left out."""
    parts = [f'"query": {json.dumps(query, ensure_ascii=False)}']
    if variables is not None:
        parts.append(f'"variables": {variables}')
    if operation_name:
        parts.append(f'"operationName": {json.dumps(operation_name, ensure_ascii=False)}')
    return "{" + ", ".join(parts) + "}"


# -- requests -------------------------------------------------------------------------------

_SCHEME_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
# RFC 9110 §5.5: a field value is visible characters, spaces and tabs; every other control
# character (CR and LF, which split headers, NUL, ESC, DEL...) is refused.
_NAMED_CONTROLS = {"\r": "CR", "\n": "LF", "\0": "NUL", "\x1b": "ESC", "\x7f": "DEL"}


_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
_CONTROLS_OR_TAB = re.compile("[\x00-\x1f\x7f]")


def control_character(text: str, allow_tab: bool = True) -> str | None:
    """The first control character in ``text`` that a header may not hold, named
    (``"CR"``, ``"DEL"``, ``"0x01"``), or ``None``."""
    m = (_CONTROLS if allow_tab else _CONTROLS_OR_TAB).search(text)
    if m is None:
        return None
    ch = m.group()
    return _NAMED_CONTROLS.get(ch, f"0x{ord(ch):02x}")


def effective_auth(
    collection: Collection, chain: list[Folder] | tuple[Folder, ...], request: Request
) -> Auth | None:
    """The innermost auth that is set: request, then folders inner -> outer, then collection."""
    if request.auth is not None:
        return request.auth
    for folder in reversed(chain):
        if folder.auth is not None:
            return folder.auth
    return collection.auth


def _merge_headers(
    levels: list[list[Header]], r: Renderer, masked: dict[str, str]
) -> list[tuple[str, str]]:
    """Headers of every level in order; a name set at an inner level replaces outer ones."""
    out: list[tuple[str, str]] = []
    for headers in levels:
        if not headers:
            continue
        rendered = []
        for h in headers:
            name = h.name
            if not h.enabled or not name.strip():
                continue
            name_shown = None
            if "{{" in name:  # most names are written out
                name, name_shown = r.render_text_pair(name)
            name = name.strip(" \t")
            value, shown = r.render_text_pair(h.value)
            if shown is not None:
                _keep(masked, value, shown)
            if name_shown is not None:
                _keep(masked, name, name_shown.strip(" \t"))
            rendered.append(_header(name, value))
        if out:
            names = {name.lower() for name, _ in rendered}
            out = [(n, v) for n, v in out if n.lower() not in names]
        out.extend(rendered)
    return out


def _header(name: str, value: str) -> tuple[str, str]:
    """Refuse header names and values that would split or smuggle headers (DESIGN §5)."""
    if _good_name(name) and _CONTROLS.search(value) is None:
        return name, value
    for part, text in (("name", name), ("value", value)):
        what = control_character(text)
        if what is not None:
            raise RenderError(
                f"header {name!r}: the rendered {part} contains {what}; refusing to send"
            )
    if not is_token(name):
        raise RenderError(f"header {name!r}: not a valid header name")
    return name, value


@lru_cache(maxsize=1024)
def _good_name(name: str) -> bool:
    """Whether a header name may be sent (memoized: the same few names come every render)."""
    return is_token(name)  # a token holds no control character


def _set_header(headers: list[tuple[str, str]], name: str, value: str) -> None:
    lname = name.lower()
    headers[:] = [(n, v) for n, v in headers if n.lower() != lname]
    headers.append(_header(name, value))


def _keep(masked: dict[str, str], clear: str, shown: str | None) -> str:
    """``clear``, noting what is shown in its place when that differs."""
    if shown is not None and shown != clear:
        masked[clear] = shown
    return clear


def _render_url(text: str, r: Renderer) -> tuple[str, str | None]:
    """Insert values raw; warn when one changes the URL's structure (DESIGN §5, URL). With
    the URL, its twin (``None``: nothing secret in it)."""
    if "{{" not in text:
        return text, None
    return r.cached(("u", text), lambda: _render_url_pieces(text, r))


def _render_url_pieces(text: str, r: Renderer) -> tuple[str, str | None]:
    out: list[str] = []
    shown: list[str] | None = None
    for seg in parse(text).segments:
        if isinstance(seg, str):
            out.append(seg)
            if shown is not None:
                shown.append(seg)
            continue
        piece, twin = r.piece(seg)
        # Only a value with one of these can change the URL's structure: the URL so far, and
        # so the place the value goes, is looked at for those alone.
        if _URL_SPECIAL.search(piece) is not None and piece != seg.raw:
            _url_warning("".join(out), seg, piece, r, twin)
        if twin is not None and shown is None:
            shown = out[:]
        if shown is not None:
            shown.append(piece if twin is None else twin)
        out.append(piece)
    return "".join(out), None if shown is None else "".join(shown)


def _url_warning(
    so_far: str, ph: Placeholder, piece: str, r: Renderer, shown: str | None = None
) -> None:
    if "#" in so_far:
        return
    if "?" in so_far:
        where, bad = "query", [c for c in "#&?=" if c in piece]
    else:
        m = _SCHEME_AUTHORITY.match(so_far)
        if not so_far or (m and m.end() == len(so_far)):
            return  # the start of the URL (a base URL) or the host part
        where, bad = "path", [c for c in "/?#" if c in piece]
    if bad:
        chars = " ".join(repr(c) for c in bad)
        r.warn(
            f"URL: {ph.raw} inserts {shown or piece!r} into the {where}; its {chars} changes "
            f"the URL's "
            f"structure (use [[query]] or percent-encode the value)"
        )


_URL_SPECIAL = re.compile("[/?#&=]")  # what _url_warning looks for, in any place
_LOOPBACK_HOST = re.compile(
    r"(?:localhost|[^.]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?::\d*)?$", re.I
)


def _default_scheme(url: str, r: Renderer, shown: str | None = None) -> str:
    """A URL typed without a scheme (``localhost:8080/x``, ``api.example.com/x``) goes out
    as ``http://`` to this machine and ``https://`` elsewhere, as a browser's address bar
    does; the render says so. A URL that starts with an unresolved placeholder is left alone
    (its base is what is missing)."""
    if not url or "://" in url or url.startswith(("/", "{{", "?", "#")):
        return url
    host = re.split(r"[/?#]", url, maxsplit=1)[0].rpartition("@")[2]
    if not host or "{{" in host:
        return url
    scheme = "http" if _LOOPBACK_HOST.match(host) else "https"
    r.warn(f"the URL has no scheme: sent as {scheme}://{shown or url}")
    return f"{scheme}://{url}"


_PAIR_IN_PATH = re.compile(r"&[^/&=?#]+=")


def _check_query_start(url: str, r: Renderer, shown: str | None = None) -> None:
    """``/users&page=2``: a parameter appended without the ``?`` that starts a query is
    sent as part of the path; say so (as the URL is shown, its secrets masked)."""
    if "?" in url:
        return
    found = _PAIR_IN_PATH.search(url.partition("#")[0])
    if found:
        if shown is not None:
            seen = _PAIR_IN_PATH.search(shown.partition("#")[0])
            pair = seen.group() if seen is not None else MASK
        else:
            pair = found.group()
        r.warn(f"the URL has no '?': {pair}… is sent in the path (a query starts with '?')")


def _suggestions(
    unresolved: list[str], scopes: Scopes, levels: list[Collection | Folder | Request]
) -> dict[str, str]:
    """``{unresolved expr: the name it was likely meant to be}`` for typos. A name a script
    of the request quotes is left out: the script most likely sets it when it runs."""
    if not unresolved:
        return {}
    scripts = "".join(level.scripts.pre_request + level.scripts.post_response for level in levels)
    found = {}
    for expr in unresolved:
        head = re.match(r"[A-Za-z0-9_.-]+", expr)
        if head and (f'"{head.group()}"' in scripts or f"'{head.group()}'" in scripts):
            continue
        name = scopes.closest(expr)
        if name is not None:
            found[expr] = name
    return found


_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")  # what quote(..., safe="") leaves as it is


def _quoted(text: str) -> str:
    """``quote(text, safe="")``, without its cost for text it leaves as it is."""
    return text if _UNRESERVED.fullmatch(text) else quote(text, safe="")


def _add_query(url: str, pairs: list[tuple[str, str]]) -> str:
    if not pairs:
        return url
    base, hash_, fragment = url.partition("#")
    encoded = "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in pairs)
    if "?" not in base:
        sep = "?"
    elif base.endswith(("?", "&")):
        sep = ""
    else:
        sep = "&"
    return base + sep + encoded + hash_ + fragment


def _apply_auth(
    auth: Auth | None, r: Renderer, root: Path | None, scopes: Scopes, masked: dict[str, str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], FlowAuth | None]:
    """The headers and query parameters an auth adds, and its credentials for a send-time
    flow (``auth_kinds``: each kind's ``parts`` and ``flow``). What a part shows in place of
    a secret field's value goes into ``masked``."""
    if auth is None:
        return [], [], None
    fields: dict[str, str] = {}  # a field's rendered value -> its twin

    def render(text: str) -> str:
        return _keep(fields, *r.render_text_pair(text))

    def read(name: str, what: str) -> bytes:
        return _auth_file(name, what, root, scopes)

    renders = Renders(render, r.expand, read)
    try:
        kind = kind_of(auth)
        headers, query = kind.parts(auth, renders)
        flow = kind.flow(auth, Renders(r.render_text, r.expand, read))
    except AuthError as exc:
        raise RenderError(str(exc)) from None
    if fields:
        for name, value in (*headers, *query):
            _keep(masked, name, _with_fields_masked(name, fields))
            _keep(masked, value, _with_fields_masked(value, fields))
    return headers, query, flow


def _with_fields_masked(text: str, fields: dict[str, str]) -> str:
    """A part an auth made of its fields (``Bearer <token>``), each secret field's value
    replaced by its twin."""
    if text in fields:
        return fields[text]
    for clear in sorted(fields, key=len, reverse=True):
        text = text.replace(clear, fields[clear])
    return text


AUTH_FILE_LIMIT = 1_000_000  # a key file: far larger is not a key


def _auth_file(name: str, what: str, root: Path | None, scopes: Scopes) -> bytes:
    """A file an auth reads (a signing key), relative to the collection; one outside it is a
    trust need, as a file body's is. A recording gate reads nothing."""
    path = Path(name).expanduser()
    if not path.is_absolute() and root is not None:
        path = root / path
    source: Path | None = path
    if scopes.gate is not None:
        source = scopes.gate.file(path, what)
    if source is None:
        return b""
    try:
        return read_capped(source, AUTH_FILE_LIMIT)
    except OSError as exc:
        raise AuthError(f"{what}: cannot read {path}: {exc.strerror or exc}") from exc


def _form_data_quote(text: str) -> str:
    """A field or file name inside ``name="..."``: ``"``, CR and LF percent-encoded, as browsers
    do (RFC 7578 §4.2 and the HTML form-data rules), so no name can end its part's headers."""
    return text.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


SEND_FILE_LIMIT = 100_000_000  # the largest file a multipart field sends: it is read into memory


def _multipart(
    fields: list[tuple[str, str, str, str]],
    root: Path | None,
    scopes: Scopes,
    masked: dict[str, str] | None = None,
) -> tuple[bytes, str, bytes | None]:
    """Encode multipart/form-data ourselves so the body is known before sending; with the
    body, its twin as ``masked`` shows its text fields and names (``None``: the same)."""
    boundary = "pigeon-" + uuid.uuid4().hex
    parts: list[bytes] = []
    shown_parts: list[bytes] = []
    masked = masked or {}
    for name, value, kind, content_type in fields:
        qname = _form_data_quote(name)
        shown_qname = _form_data_quote(masked.get(name, name))
        bad = control_character(content_type, allow_tab=False)
        if bad is not None:
            raise RenderError(
                f"multipart field {name!r}: its content type contains {bad}; refusing to send"
            )
        if kind == "file":
            path = Path(value).expanduser()
            if not path.is_absolute() and root is not None:
                path = root / path
            source: Path | None = path
            if scopes.gate is not None:
                source = scopes.gate.file(path, f"multipart field {name!r}")
            try:
                data = b"" if source is None else read_capped(source, SEND_FILE_LIMIT)
            except OSError as exc:
                raise RenderError(
                    f"multipart field {name!r}: cannot read {path}: {exc.strerror}"
                ) from exc
            ctype = content_type or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            fname = _form_data_quote(path.name)
            rest = f'"; filename="{fname}"\r\nContent-Type: {ctype}\r\n\r\n'
            shown_data = data
        else:
            data = value.encode("utf-8")
            shown_data = masked.get(value, value).encode("utf-8")
            ctype_line = f"Content-Type: {content_type}\r\n" if content_type else ""
            rest = f'"\r\n{ctype_line}\r\n'
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="'
        parts.append(f"{head}{qname}{rest}".encode() + data + b"\r\n")
        if masked:
            shown_parts.append(f"{head}{shown_qname}{rest}".encode() + shown_data + b"\r\n")
    end = f"--{boundary}--\r\n".encode()
    body = b"".join([*parts, end])
    shown = b"".join([*shown_parts, end]) if masked else None
    return body, f"multipart/form-data; boundary={boundary}", None if shown == body else shown


def _file_body(body: Body, root: Path | None, r: Renderer, scopes: Scopes) -> FileBody:
    """A ``file`` body, looked at (a regular file, its size) but not read; a path out of the
    collection is a trust need, like a multipart file's."""
    shown = r.render_text(body.path).strip()
    if not shown:
        raise RenderError("the file body names no file (its path is empty)")
    path = resolve(shown, root)
    content_type = r.render_text(body.content_type).strip() or guess_type(shown)
    if scopes.gate is not None:
        source = scopes.gate.file(path, "the file body")
        if source is None:  # a gate that only notes what a send would read
            return FileBody(path, shown, None, content_type)
        path = source
    return inspect(path, shown, content_type)


def render_request(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    scopes: Scopes,
) -> RenderedRequest:
    """Build the exact request to send. Raises ``RenderError`` when it cannot be sent safely."""
    r = Renderer(scopes)
    method = request.method.strip() or "GET"
    if not is_token(method):
        raise RenderError(f"method {method!r} is not a valid HTTP method token")
    masked: dict[str, str] = {}  # what is shown in place of each string with a secret in it
    shown = masked.get

    url, url_shown = _render_url(request.url.strip(), r)
    sent = _default_scheme(url, r, url_shown)
    if url_shown is not None and sent != url:
        url_shown = sent[: len(sent) - len(url)] + url_shown
    url = sent
    _check_query_start(url, r, url_shown)

    headers = _merge_headers(
        [collection.headers, *(f.headers for f in chain), request.headers], r, masked
    )
    auth = effective_auth(collection, chain, request)
    auth_headers, auth_query, flow_auth = _apply_auth(auth, r, collection.root, scopes, masked)
    for name, value in auth_headers:
        _set_header(headers, name, value)

    query = [
        (_keep(masked, *r.render_text_pair(q.name)), _keep(masked, *r.render_text_pair(q.value)))
        for q in request.query
        if q.enabled and q.name
    ]
    body: bytes | None = None
    body_text: str | None = None
    masked_body: bytes | None = None
    body_file: FileBody | None = None
    content_type: str | None = None
    btype = request.body.type
    if btype == "graphql":
        gql_query, gql_vars, gql_name = _graphql(request.body, r, masked)
        if method == "GET":  # GraphQL over HTTP's GET: the same three as query parameters
            query.append(("query", gql_query))
            if gql_vars is not None:
                query.append(("variables", gql_vars))
            if gql_name:
                query.append(("operationName", gql_name))
        else:
            body_text = graphql_payload(gql_query, gql_vars, gql_name)
            if masked:
                twin = graphql_payload(
                    shown(gql_query, gql_query),
                    None if gql_vars is None else shown(gql_vars, gql_vars),
                    shown(gql_name, gql_name),
                )
                _keep(masked, body_text, twin)
            content_type = "application/json"
    pairs = query + auth_query
    sent = _add_query(url, pairs)
    if url_shown is not None or any(n in masked or v in masked for n, v in pairs):
        url_shown = _add_query(url_shown or url, [(shown(n, n), shown(v, v)) for n, v in pairs])
    url = _keep(masked, sent, url_shown)

    if btype == "json":
        body_text = _keep(masked, *r.render_json_pair(request.body.content))
        _check_json(body_text, r)
        content_type = "application/json"
    elif btype == "text":
        body_text = _keep(masked, *r.render_text_pair(request.body.content))
        content_type = "text/plain; charset=utf-8"
    elif btype == "form":
        form = [
            (
                _keep(masked, *r.render_text_pair(f.name)),
                _keep(masked, *r.render_text_pair(f.value)),
            )
            for f in request.body.fields
            if f.enabled and f.name
        ]
        body_text = urlencode(form)
        if any(n in masked or v in masked for n, v in form):
            _keep(masked, body_text, urlencode([(shown(n, n), shown(v, v)) for n, v in form]))
        content_type = "application/x-www-form-urlencoded"
    elif btype == "multipart":
        fields = [
            (
                _keep(masked, *r.render_text_pair(f.name)),
                _keep(masked, *r.render_text_pair(f.value)),
                f.kind,
                f.content_type,
            )
            for f in request.body.fields
            if f.enabled and f.name
        ]
        body, content_type, masked_body = _multipart(fields, collection.root, scopes, masked)
        body_text = body.decode("utf-8", errors="replace")
        if masked_body is not None:
            _keep(masked, body_text, masked_body.decode("utf-8", errors="replace"))
    elif btype == "file":
        body_file = _file_body(request.body, collection.root, r, scopes)
        body_text, content_type = body_file.describe(), body_file.content_type
    elif btype not in ("none", "graphql"):
        raise RenderError(f"unknown body type {btype!r}")
    if body_text is not None and body is None and body_file is None:
        body = body_text.encode("utf-8")
        if body_text in masked:
            masked_body = masked[body_text].encode("utf-8")
    if content_type and not any(n.lower() == "content-type" for n, _ in headers):
        headers.append(("Content-Type", content_type))

    suggestions = _suggestions(r.unresolved, scopes, [collection, *chain, request])
    for expr, name in suggestions.items():
        r.warn(f"{{{{{expr}}}}} is not defined: did you mean {name}?")
    return RenderedRequest(
        method=method,
        url=url,
        headers=headers,
        body=body,
        body_text=body_text,
        unresolved=r.unresolved,
        warnings=r.warnings,
        settings=request.settings,
        name=request.name,
        request_id=request.id,
        environment=scopes.environment.name if scopes.environment is not None else "",
        auth_headers=[name for name, _ in auth_headers],
        auth_query=[name for name, _ in auth_query],
        oauth2=kind_of(auth).token_auth(auth, r.render_text) if auth is not None else None,
        secrets=list(dict.fromkeys([*r.secrets, *scopes.secret_values()])),
        flow_auth=flow_auth,
        transport=transport_spec(collection, scopes.environment, url, r),
        suggestions=suggestions,
        masked=masked,
        masked_body=masked_body,
        body_file=body_file,
    )
