"""Import ``.http`` / ``.rest`` files (VS Code REST Client and JetBrains HTTP Client).

Requests are separated by ``###`` lines (the rest of the line names the request, as does a
``# @name x`` comment). ``@name = value`` lines are file variables and become collection
variables. A JetBrains ``http-client.env.json`` next to the file becomes environments (its
``http-client.private.env.json`` values become ``{{$env.NAME}}`` references). Response
handlers (``> {% ... %}``) are JavaScript and are reported, not carried over.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    LocalFiles,
    as_dict,
    env_name,
    file_body,
    split_query,
)
from pigeon.importers.documents import load_json
from pigeon.model import Auth, Body, Environment, FormField, Header, Request

_METHODS = (
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "PROPFIND",
    "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "SEARCH", "REPORT", "ACL", "GRAPHQL",
)  # fmt: skip
_NOT_HTTP = ("WEBSOCKET", "GRPC")  # JetBrains request kinds that are not one HTTP exchange
_REQUEST_LINE = re.compile(
    r"^(?:(?P<method>[A-Za-z]+)\s+)?(?P<url>\S.*?)(?:\s+HTTP/\d(?:\.\d)?)?\s*$"
)
_FILE_VAR = re.compile(r"^@([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$")
_DIRECTIVE = re.compile(r"^(?:#|//)\s*@([A-Za-z-]+)\s*(.*?)\s*$")
_HEADER = re.compile(r"^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s?(.*)$")
_SYSTEM_VAR = re.compile(
    r"\{\{\s*\$(processEnv|dotenv|datetime|localDatetime|randomInt|random\.\w+)([^}]*)\}\}"
)
# "< file" (the body is the file), "<@ file" and "<@latin1 file" (with placeholders).
_BODY_FILE = re.compile(r"^<(?:@\S*)?\s+(\S.*)$")
_REQUEST_REF = re.compile(r"\{\{\s*[A-Za-z0-9_-]+\.(?:response|request)\.[^}]*\}\}")


def parse_http_file(
    text: str, path: Path | None = None, allow_outside: bool = False
) -> ImportResult:
    """Parse the text of a ``.http`` file; ``path`` locates ``< file`` bodies and env files
    (the current directory without it). No file outside that directory (symlinks followed)
    is read unless ``allow_outside``: the body stays empty, with a note."""
    result = ImportResult(name=path.stem if path else "")
    files = LocalFiles(path.parent if path else Path.cwd(), allow_outside)
    blocks = _blocks(text)
    for title, lines, first_line in blocks:
        req = _request(title, lines, first_line, files, result)
        if req is not None:
            result.requests.append(("", req))
    if path is not None:
        _environments(path.parent, files, result)
    return result


def _blocks(text: str) -> list[tuple[str, list[str], int]]:
    """(title, lines, number of the first line) for each ``###``-separated block."""
    blocks: list[tuple[str, list[str], int]] = []
    title, start = "", 1
    lines: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("###"):
            blocks.append((title, lines, start))
            title, lines, start = line[3:].strip(), [], number + 1
        else:
            lines.append(line)
    blocks.append((title, lines, start))
    return blocks


def _is_comment(line: str) -> bool:
    s = line.lstrip()
    return s.startswith("#") or s.startswith("//")


def _request(
    title: str, lines: list[str], first: int, files: LocalFiles, result: ImportResult
) -> Request | None:
    name = title
    i = 0
    follow = True
    # Preamble: blank lines, comments, directives and file variables.
    while i < len(lines):
        line = lines[i].strip()
        directive = _DIRECTIVE.match(line)
        if directive:
            key, value = directive.group(1), directive.group(2)
            if key == "name" and value:
                name = name or value
            elif key == "no-redirect":
                follow = False
            elif key not in ("no-log", "no-cookie-jar"):
                result.note(f"line {first + i}: # @{key} is not carried over")
        elif (var := _FILE_VAR.match(line)) is not None:
            result.variables[var.group(1)] = _convert(var.group(2), result)
        elif line and not _is_comment(line):
            break
        i += 1
    if i >= len(lines):
        return None
    m = _REQUEST_LINE.match(lines[i].strip())
    if m is None:
        raise ImportFailed(f"line {first + i}: not a request line: {lines[i].strip()!r}")
    typed = m.group("method")
    method = (typed or "GET").upper()
    url = m.group("url").strip()
    if method in _NOT_HTTP:
        result.note(
            f"line {first + i}: {method} requests are not HTTP requests Pigeon sends; not carried over"
        )
        return None
    if (
        method not in _METHODS
        and typed is not None
        and (not typed.isupper() or not url.startswith(("http", "{{", "/")))
    ):
        raise ImportFailed(f"line {first + i}: not a request line: {lines[i].strip()!r}")
    i += 1
    while i < len(lines) and lines[i].strip().startswith(("?", "&")) and lines[i][:1].isspace():
        url += lines[i].strip()  # multi-line query (REST Client)
        i += 1
    headers: list[Header] = []
    while i < len(lines) and lines[i].strip():
        line = lines[i].strip()
        i += 1
        if _is_comment(line):
            continue
        h = _HEADER.match(line)
        if h is None:
            raise ImportFailed(f"line {first + i - 1}: not a header (NAME: value): {line!r}")
        headers.append(Header(h.group(1), _convert(h.group(2).strip(), result)))
    body_lines = lines[i + 1 :] if i < len(lines) else []
    where = f"{name or method + ' ' + url} (line {first})"
    body_text = _body_text(body_lines, files, result, where)
    url, query = split_query(_convert(url, result))
    req = Request(
        name=name or _default_name(method, url),
        method=method,
        url=url,
        headers=headers,
        query=query,
    )
    req.settings.follow_redirects = follow
    _auth(req, result, where)
    graphql = [h for h in req.headers if h.name.lower() == "x-request-type"]
    if method == "GRAPHQL" or any(h.value.strip().lower() == "graphql" for h in graphql):
        # JetBrains' GRAPHQL method, REST Client's X-REQUEST-TYPE header: the query, then
        # (after a blank line) a JSON object of variables.
        req.method = "POST" if method == "GRAPHQL" else req.method
        req.name = name or _default_name(req.method, url)
        req.headers = [h for h in req.headers if h not in graphql]
        document, variables = split_graphql(_convert(body_text or "", result))
        req.body = Body(type="graphql", query=document, variables=variables)
    elif body_text is not None and _BODY_FILE.match(body_text) and body_text.startswith("< "):
        req.body = _file_body(body_text, req, files, result, where)
    elif body_text is not None:
        req.body = _body(_convert(body_text, result), req, result)
    return req


def _file_body(
    line: str, req: Request, files: LocalFiles, result: ImportResult, where: str
) -> Body:
    """``< FILE``: the file sent as it is (a file body naming it, never read here), typed by
    the request's Content-Type header when it has one."""
    ref = line[1:].strip()
    body = file_body(_convert(ref, result), files, result, f"{where}: body file {ref}") or Body()
    header = next((h for h in req.headers if h.name.lower() == "content-type"), None)
    if body.type == "file" and header is not None:
        body.content_type = header.value
        req.headers.remove(header)
    return body


def split_graphql(text: str) -> tuple[str, str]:
    """A GraphQL body as the .http clients write it: the query, and the JSON object of
    variables after the last blank line (when the query before it closes every brace)."""
    from pigeon.gql.document import open_brackets

    text = text.strip("\n")
    for m in reversed(list(re.finditer(r"\n[ \t]*\n", text))):
        query, variables = text[: m.start()], text[m.end() :]
        if variables.lstrip().startswith("{") and open_brackets(query) == []:
            return query.strip("\n") + "\n", variables.strip() + "\n"
    return (text + "\n" if text else ""), ""


def _default_name(method: str, url: str) -> str:
    path = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "", url).split("?", 1)[0] or "/"
    path = re.sub(r"^\{\{[^}]*\}\}", "", path) or "/"
    return f"{method} {path}"


def _body_text(lines: list[str], files: LocalFiles, result: ImportResult, where: str) -> str | None:
    # Response handlers and response references close the body.
    out: list[str] = []
    in_handler = False
    for line in lines:
        s = line.strip()
        if in_handler:
            in_handler = "%}" not in s
            continue
        if s.startswith("> "):
            result.note(f"{where}: a response handler script (JavaScript) is not carried over")
            in_handler = s.startswith("> {%") and "%}" not in s[4:]
            continue
        if s.startswith("<> "):
            continue  # a saved-response reference
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    if not out:
        return None
    body_file = _BODY_FILE.match(out[0]) if len(out) == 1 else None
    if body_file and not out[0].startswith("<@"):
        return out[0]  # "< FILE": the file as it is, a file body (``_file_body``)
    if body_file:
        ref = body_file.group(1).strip()
        target = files.allowed(ref, result)
        if target is None:
            return None
        try:
            text = files.read(target).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            result.note(f"{where}: body from file {ref} is not carried over ({why})")
            return None
        result.note(f"{where}: body file {ref} was copied into the request")
        return text
    return "\n".join(out)


def _convert(text: str, result: ImportResult) -> str:
    """REST Client / JetBrains system variables -> Pigeon's, where there is one."""

    def system(m: re.Match[str]) -> str:
        kind, args = m.group(1), m.group(2).strip()
        if kind in ("processEnv", "dotenv") and args:
            return "{{$env." + args.lstrip("%") + "}}"
        if kind == "datetime" and args.split()[:1] == ["iso8601"] and len(args.split()) == 1:
            return "{{$isoTimestamp}}"
        if kind == "randomInt" and not args:
            return "{{$randomInt}}"
        if kind == "random.uuid":
            return "{{$uuid}}"
        result.note(f"{m.group(0)} has no Pigeon equivalent; left as written")
        return m.group(0)

    text = _SYSTEM_VAR.sub(system, text)
    for ref in _REQUEST_REF.findall(text):
        result.note(
            f"{ref} refers to another request's response; use a post_response script with pigeon.setVar"
        )
    return text


def _auth(req: Request, result: ImportResult, where: str) -> None:
    for h in list(req.headers):
        if h.name.lower() != "authorization":
            continue
        scheme, _, rest = h.value.strip().partition(" ")
        rest = rest.strip()
        if scheme.lower() == "bearer" and rest and " " not in rest:
            req.auth = Auth(type="bearer", token=rest)
            req.headers.remove(h)
        elif scheme.lower() == "basic" and rest:
            # REST Client: "Basic user:password" or "Basic user password" (not encoded yet).
            if ":" in rest or " " in rest:
                user, _, password = rest.partition(":") if ":" in rest else rest.partition(" ")
                req.auth = Auth(type="basic", username=user, password=password)
                req.headers.remove(h)
        elif scheme.lower() == "digest":
            result.note(
                f"{where}: Digest auth is not supported by Pigeon; the header is sent as written"
            )


def _body(text: str, req: Request, result: ImportResult) -> Body:
    ctype_header = next(
        (h for h in reversed(req.headers) if h.name.lower() == "content-type"), None
    )
    ctype = ctype_header.value.strip().lower() if ctype_header else ""
    if re.match(r"^application/([\w.+-]*\+)?json\b", ctype):
        if ctype == "application/json" and ctype_header is not None:
            req.headers.remove(ctype_header)
        return Body(type="json", content=text)
    if ctype == "application/x-www-form-urlencoded":
        joined = "".join(line.strip() for line in text.splitlines())
        pairs = []
        for piece in joined.split("&"):
            if not piece:
                continue
            k, eq, v = piece.partition("=")
            if not eq:
                return Body(type="text", content=text)
            pairs.append(FormField(k, v))
        if ctype_header is not None:
            req.headers.remove(ctype_header)
        for f in pairs:  # sent as written: decode so Pigeon's encoding gives it back
            f.name, f.value = unquote_plus(f.name), unquote_plus(f.value)
        return Body(type="form", fields=pairs)
    if ctype.startswith("multipart/"):
        result.note(
            f"{req.name}: multipart body kept as text with its own boundary; lines are sent with LF"
        )
    return Body(type="text", content=text)


def _environments(base: Path, files: LocalFiles, result: ImportResult) -> None:
    public = _env_json(base / "http-client.env.json", files, result)
    private = _env_json(base / "http-client.private.env.json", files, result)
    for name in dict.fromkeys([*public, *private]):
        values: dict[str, Any] = {}
        for key, value in (public.get(name) or {}).items():
            if isinstance(value, (str, int, float, bool)):
                values[key] = value
            else:
                values[key] = json.dumps(value)
        for key in private.get(name) or {}:
            ref = env_name(key)
            values[key] = "{{$env." + ref + "}}"
            result.note(
                f"environment {name}: private {key} written as {{{{$env.{ref}}}}}: put {ref}=... in .env"
            )
        result.environments.append(Environment(name=name, variables=values))


def _env_json(path: Path, files: LocalFiles, result: ImportResult) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    real = files.allowed(path, result)  # a symlink out of the directory is not followed
    if real is None:
        return {}
    try:
        data = load_json(files.read(real).decode("utf-8"), real)
    except (OSError, ValueError) as exc:
        result.note(f"{path.name}: not read ({exc})")
        return {}
    return {k: v for k, v in as_dict(data).items() if isinstance(v, dict) and not k.startswith("$")}
