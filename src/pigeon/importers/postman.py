"""Import Postman collections (v2.0 / v2.1) and Postman environments.

Folders, requests, headers and query parameters (disabled ones kept, disabled), bodies,
auth at every level and collection variables carry over; ``{{var}}`` placeholders are the
same syntax in Pigeon. Pre-request and test scripts are JavaScript, which Pigeon does not
run: their text goes into the request's description and a note. Secret environment values
are not written to TOML; they become ``{{$env.NAME}}`` references for the collection's
``.env``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from pigeon.importers import ImportFailed, ImportResult
from pigeon.model import Auth, Body, Environment, Folder, FormField, Header, QueryParam, Request

# Postman's dynamic variables that Pigeon has under the same name.
PIGEON_DYNAMIC = {
    "guid",
    "uuid",
    "randomUUID",
    "timestamp",
    "isoTimestamp",
    "randomInt",
    "randomBoolean",
}
_DYNAMIC_RE = re.compile(r"\{\{\s*\$([A-Za-z][A-Za-z0-9]*)\s*\}\}")
_RAW_TYPES = {
    "json": "application/json",
    "xml": "application/xml",
    "html": "text/html",
    "javascript": "application/javascript",
    "text": "text/plain",
}


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one: malformed input is skipped, not fatal."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def parse_postman(text: str, path: Path | None = None) -> ImportResult:
    """Parse a Postman collection or environment export (JSON text)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(f"not JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    if not isinstance(data, dict):
        raise ImportFailed("not a Postman collection (expected a JSON object)", path)
    if "item" not in data and isinstance(data.get("values"), list):
        result = ImportResult()
        result.environments.append(parse_environment(data, result))
        return result
    if "collection" in data and isinstance(data["collection"], dict):
        data = data["collection"]  # the Postman API wraps exports in {"collection": ...}
    if not isinstance(data.get("item"), list):
        raise ImportFailed('not a Postman collection (no "item" list)', path)
    return _Collection(data).result


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _description(value: Any) -> str:
    if isinstance(value, dict):
        return _text(value.get("content"))
    return _text(value)


def _pairs(value: Any) -> dict[str, Any]:
    """Postman auth parameters: a list of {key, value} (v2.1) or a plain object (v2.0)."""
    if isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and "key" in item:
                out[str(item["key"])] = item.get("value")
    return out


def env_name(key: str) -> str:
    """A variable name as an environment variable name: ``api.key`` -> ``API_KEY``."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper()
    return name if name and not name[0].isdigit() else f"V_{name}"


def parse_environment(data: dict[str, Any], result: ImportResult) -> Environment:
    env = Environment(name=_text(data.get("name")) or "postman")
    for item in _list(data.get("values")):
        if not isinstance(item, dict) or not item.get("key"):
            continue
        key = str(item["key"])
        if item.get("enabled") is False:
            result.note(f"environment {env.name}: {key} is disabled in Postman; not carried over")
            continue
        if item.get("type") == "secret":
            name = env_name(key)
            env.variables[key] = "{{$env." + name + "}}"
            result.note(
                f"environment {env.name}: {key} is a secret; written as {{{{$env.{name}}}}}: "
                f"put {name}=... in the collection's .env"
            )
            continue
        env.variables[key] = _variable_value(item.get("value"))
    return env


def _variable_value(value: Any) -> Any:
    if isinstance(value, (str, bool, int)) or (isinstance(value, float) and value == value):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


class _Collection:
    def __init__(self, data: dict[str, Any]) -> None:
        info = _dict(data.get("info"))
        self.result = ImportResult(
            name=_text(info.get("name")), description=_description(info.get("description"))
        )
        r = self.result
        r.auth = self._auth(data.get("auth"), "the collection")
        for var in _list(data.get("variable")):
            if isinstance(var, dict) and var.get("key"):
                if var.get("disabled"):
                    r.note(f"collection variable {var['key']} is disabled; not carried over")
                    continue
                r.variables[str(var["key"])] = _variable_value(var.get("value"))
        scripts = self._events(data.get("event"), "the collection")
        if scripts:
            r.description = (r.description + "\n\n" if r.description else "") + scripts
        self._items(_list(data.get("item")), "")
        self._dynamic_notes()

    # -- walking --

    def _items(self, items: list[Any], folder: str) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            name = (_text(item.get("name")) or "untitled").replace("/", "-").strip()
            if isinstance(item.get("item"), list):
                path = f"{folder}/{name}" if folder else name
                settings = Folder(name=name, id=path)
                settings.auth = self._auth(item.get("auth"), f"folder {path}")
                scripts = self._events(item.get("event"), f"folder {path}")
                description = "\n\n".join(
                    t for t in (_description(item.get("description")), scripts) if t
                )
                if description:
                    settings.extra["description"] = description
                if settings.auth is not None or settings.extra:
                    self.result.folders.append(settings)
                self._items(item["item"], path)
            elif "request" in item:
                req = self._request(item, name, folder)
                self.result.requests.append((folder, req))

    def _where(self, folder: str, name: str) -> str:
        return f"{folder}/{name}" if folder else name

    def _request(self, item: dict[str, Any], name: str, folder: str) -> Request:
        where = self._where(folder, name)
        raw = item["request"]
        if isinstance(raw, str):  # v2: a request may be just its URL
            raw = {"url": raw, "method": "GET"}
        raw = _dict(raw)
        req = Request(name=name, method=(_text(raw.get("method")) or "GET").upper())
        req.description = _description(raw.get("description"))
        self._url(raw.get("url"), req, where)
        for h in _list(raw.get("header")):
            if isinstance(h, dict) and h.get("key"):
                req.headers.append(
                    Header(
                        str(h["key"]), _text(h.get("value")), enabled=not h.get("disabled", False)
                    )
                )
        req.body = self._body(raw.get("body"), req, where)
        req.auth = self._auth(raw.get("auth"), where)
        scripts = self._events(item.get("event"), where)
        if scripts:
            req.description = (req.description + "\n\n" if req.description else "") + scripts
        return req

    def _url(self, url: Any, req: Request, where: str) -> None:
        if isinstance(url, str):
            url = {"raw": url}
        if not isinstance(url, dict):
            return
        raw = _text(url.get("raw"))
        if not raw:
            host = url.get("host")
            host = ".".join(_text(h) for h in host) if isinstance(host, list) else _text(host)
            path = url.get("path")
            path = "/".join(_text(p) for p in path) if isinstance(path, list) else _text(path)
            proto = _text(url.get("protocol"))
            raw = (
                (f"{proto}://" if proto else "")
                + host
                + (f":{url['port']}" if url.get("port") else "")
            )
            raw += ("/" + path) if path else ""
        base, hash_, fragment = raw.partition("#")
        base, _, inline_query = base.partition("?")
        query = url.get("query")
        if isinstance(query, list):
            for q in query:
                if isinstance(q, dict) and q.get("key") is not None:
                    req.query.append(
                        QueryParam(
                            _decode(_text(q["key"])),
                            _decode(_text(q.get("value"))),
                            enabled=not q.get("disabled", False),
                        )
                    )
        elif inline_query:
            for piece in inline_query.split("&"):
                if piece:
                    k, _, v = piece.partition("=")
                    req.query.append(QueryParam(_decode(k), _decode(v)))
        # Path variables: /users/:id -> /users/{{id}}, the value as a request variable.
        values = {
            _text(v.get("key")): v.get("value")
            for v in _list(url.get("variable"))
            if isinstance(v, dict) and v.get("key")
        }

        def path_var(m: re.Match[str]) -> str:
            key = m.group(1)
            value = values.get(key)
            if value not in (None, ""):
                req.variables[key] = _variable_value(value)
            else:
                self.result.note(f"{where}: path variable :{key} has no value; set {{{{{key}}}}}")
            return "/{{" + key + "}}"

        scheme_host = re.match(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://)?[^/]*", base)
        head = scheme_host.group(0) if scheme_host else ""
        tail = re.sub(r"/:([A-Za-z_][A-Za-z0-9_.-]*)", path_var, base[len(head) :])
        req.url = head + tail + hash_ + fragment

    def _body(self, body: Any, req: Request, where: str) -> Body:
        if not isinstance(body, dict) or body.get("disabled"):
            return Body()
        mode = body.get("mode")
        has_ctype = any(h.name.lower() == "content-type" and h.enabled for h in req.headers)
        if mode == "raw":
            content = _text(body.get("raw"))
            language = _text(_dict(_dict(body.get("options")).get("raw")).get("language", "text"))
            if language == "json":
                return Body(type="json", content=content)
            if not has_ctype and language in _RAW_TYPES and language != "text":
                req.headers.append(Header("Content-Type", _RAW_TYPES[language]))
            return Body(type="text", content=content)
        if mode == "urlencoded":
            fields = [
                FormField(
                    _text(f.get("key")), _text(f.get("value")), enabled=not f.get("disabled", False)
                )
                for f in _list(body.get("urlencoded"))
                if isinstance(f, dict) and f.get("key") is not None
            ]
            return Body(type="form", fields=fields)
        if mode == "formdata":
            fields = []
            for f in _list(body.get("formdata")):
                if not isinstance(f, dict) or f.get("key") is None:
                    continue
                enabled = not f.get("disabled", False)
                ctype = _text(f.get("contentType"))
                if f.get("type") == "file":
                    src = f.get("src")
                    if isinstance(src, list):
                        if len(src) > 1:
                            self.result.note(
                                f"{where}: form field {f['key']} sends {len(src)} files; only the first is carried over"
                            )
                        src = src[0] if src else ""
                    if not src:
                        self.result.note(
                            f"{where}: form field {f['key']} has no file chosen; set its path"
                        )
                    fields.append(FormField(_text(f["key"]), _text(src), enabled, "file", ctype))
                else:
                    fields.append(
                        FormField(_text(f["key"]), _text(f.get("value")), enabled, "text", ctype)
                    )
            if has_ctype:
                req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return Body(type="multipart", fields=fields)
        if mode == "graphql":
            gql = _dict(body.get("graphql"))
            variables = gql.get("variables") or "{}"
            try:
                parsed = json.loads(variables) if isinstance(variables, str) else variables
            except json.JSONDecodeError:
                parsed = None
            if parsed is None:
                self.result.note(f"{where}: GraphQL variables are not JSON; not carried over")
                parsed = {}
            return Body(
                type="json",
                content=json.dumps(
                    {"query": _text(gql.get("query")), "variables": parsed},
                    indent=2,
                    ensure_ascii=False,
                ),
            )
        if mode == "file":
            src = _dict(body.get("file")).get("src")
            self.result.note(
                f"{where}: a binary file body ({src or 'no file'}) is not carried over"
            )
            return Body()
        if mode:
            self.result.note(f"{where}: body mode {mode!r} is not carried over")
        return Body()

    def _auth(self, auth: Any, where: str) -> Auth | None:
        if not isinstance(auth, dict):
            return None
        kind = auth.get("type")
        params = _pairs(auth.get(kind)) if isinstance(kind, str) else {}
        if kind == "noauth":
            return Auth(type="none")
        if kind == "inherit":
            return None
        if kind == "basic":
            return Auth(
                type="basic",
                username=_text(params.get("username")),
                password=_text(params.get("password")),
            )
        if kind == "bearer":
            return Auth(type="bearer", token=_text(params.get("token")))
        if kind == "apikey":
            location = "query" if params.get("in") == "query" else "header"
            return Auth(
                type="api_key",
                key=_text(params.get("key")) or "X-Api-Key",
                value=_text(params.get("value")),
                location=location,
            )
        if kind == "oauth2":
            token = _text(params.get("accessToken"))
            self.result.note(
                f"{where}: OAuth 2.0 flows are not run by Pigeon; imported as bearer auth "
                + ("with the saved access token" if token else "with {{access_token}}: set it")
            )
            return Auth(type="bearer", token=token or "{{access_token}}")
        self.result.note(f"{where}: {kind} auth is not supported by Pigeon; not carried over")
        return None

    def _events(self, events: Any, where: str) -> str:
        """Scripts as description text (JavaScript is not run by Pigeon), with a note."""
        parts = []
        for event in _list(events):
            if not isinstance(event, dict):
                continue
            script = _dict(event.get("script"))
            exec_ = script.get("exec")
            code = (
                "\n".join(_text(line) for line in exec_)
                if isinstance(exec_, list)
                else _text(exec_)
            )
            if not code.strip():
                continue
            label = {"prerequest": "pre-request", "test": "test"}.get(
                _text(event.get("listen")), _text(event.get("listen"))
            )
            lines = code.count("\n") + 1
            self.result.note(
                f"{where}: Postman {label} script ({lines} line{'s' if lines != 1 else ''} of "
                "JavaScript) is not run by Pigeon; its text is kept in the description"
            )
            parts.append(
                f"Postman {label} script (JavaScript, not run by Pigeon):\n```js\n{code}\n```"
            )
        return "\n\n".join(parts)

    def _dynamic_notes(self) -> None:
        seen: set[str] = set()
        for _, req in self.result.requests:
            texts = [
                req.url,
                req.body.content,
                *(h.value for h in req.headers),
                *(q.value for q in req.query),
            ]
            texts += [f.value for f in req.body.fields]
            for text in texts:
                for m in _DYNAMIC_RE.finditer(text):
                    name = m.group(1)
                    if name not in PIGEON_DYNAMIC and name not in seen:
                        seen.add(name)
                        self.result.note(
                            f"Postman dynamic variable {{{{${name}}}}} has no Pigeon equivalent; left as written"
                        )


def _decode(text: str) -> str:
    """Postman sends query text as typed and Pigeon encodes each value, so decode it once the
    way the server would (``%XX`` and ``+`` for a space), unless it holds a placeholder."""
    if "{{" in text:
        return text
    return unquote_plus(text)
