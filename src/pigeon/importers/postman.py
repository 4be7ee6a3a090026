"""Import Postman collections (v2.0 / v2.1) and Postman environments.

Folders, requests, headers and query parameters (disabled ones kept, disabled), bodies,
auth at every level, and collection, folder and request variables carry over; ``{{var}}``
placeholders are the same syntax in Pigeon. ``protocolProfileBehavior`` (set on the
collection, a folder or a request, inner levels winning) becomes each request's
``follow_redirects`` and ``verify_tls``. Pre-request and test scripts are JavaScript, which
Pigeon does not run: their text goes into the description and a note. Descriptions of
variables, headers and parameters join the description of their level. Everything else the
source holds (saved example responses, other settings, unsupported auth...) gets one note
line, so nothing is dropped unsaid. Secret environment values are not written to TOML; they
become ``{{$env.NAME}}`` references for the collection's ``.env``.

Why one module: every level of a Postman collection (collection, folder, request) carries the
same parts (auth, variables, scripts, behaviour), read by one walk with one inheritance rule.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from pigeon.auth_kinds import JWT_ALGORITHMS
from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    LocalFiles,
    as_dict,
    as_list,
    as_text,
    env_name,
    file_body,
    hawk_algorithm,
    oauth1_signature,
)
from pigeon.importers.documents import load_json
from pigeon.model import (
    Auth,
    Body,
    Environment,
    Folder,
    FormField,
    Header,
    OAuth2,
    QueryParam,
    Request,
)

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

# protocolProfileBehavior: the keys Pigeon has as request settings, the ones whose Postman
# value is already what Pigeon does, and why each other one cannot be carried over.
_BEHAVIOR_SETTINGS = {"followRedirects", "strictSSL"}
_BEHAVIOR_SAME = {"removeRefererHeaderOnRedirect"}  # Pigeon never sends a Referer
_BEHAVIOR_WHY = {
    "maxRedirects": "Pigeon's redirect limit is not set per request",
    "disableCookies": "Pigeon keeps the cookies of a session",
    "followOriginalHttpMethod": "on a redirect Pigeon keeps the method only for 307 and 308",
    "followAuthorizationHeader": "Pigeon drops Authorization when a redirect leaves the host",
    "disableUrlEncoding": "Pigeon always encodes the URL",
    "insecureHTTPParser": "Pigeon's HTTP parser is always strict",
    "protocolVersion": "Pigeon chooses the HTTP version itself",
    "tlsPreferServerCiphers": "TLS options are not set per request",
    "tlsDisabledProtocols": "TLS options are not set per request",
    "tlsCipherSelection": "TLS options are not set per request",
    "followRedirects": "not true or false",
    "strictSSL": "not true or false",
}
# Methods whose body Postman leaves out unless disableBodyPruning is set.
# Postman's OAuth 2.0 grant types that Pigeon runs (its implicit grant is not one of them).
_POSTMAN_GRANTS = {
    "authorization_code": "authorization_code",
    "authorization_code_with_pkce": "authorization_code",
    "client_credentials": "client_credentials",
    "password_credentials": "password",
}
_PRUNED_METHODS = {"GET", "HEAD", "COPY", "PURGE", "UNLOCK"}


def parse_postman(text: str, path: Path | None = None, allow_outside: bool = False) -> ImportResult:
    """Parse a Postman collection or environment export (JSON text).

    A file field whose file is outside the export's directory (the current directory without
    ``path``; symlinks followed) is kept switched off, with a note, unless ``allow_outside``:
    sending it would read that file."""
    data = load_json(text, path)
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
    files = LocalFiles(path.parent if path else Path.cwd(), allow_outside)
    return _Collection(data, files).result


def _description(value: Any) -> str:
    if isinstance(value, dict):
        return as_text(value.get("content"))
    return as_text(value)


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


def _headers(raw: Any) -> list[Header]:
    """Request headers: a list of {key, value, disabled} or (v2.0) ``Name: value`` lines, where
    a line starting with ``//`` is a disabled header."""
    if isinstance(raw, str):
        out = []
        for line in raw.splitlines():
            enabled = not line.lstrip().startswith("//")
            name, sep, value = line.lstrip().removeprefix("//").partition(":")
            if sep and name.strip():
                out.append(Header(name.strip(), value.strip(), enabled=enabled))
        return out
    return [
        Header(str(h["key"]), as_text(h.get("value")), enabled=not h.get("disabled", False))
        for h in as_list(raw)
        if isinstance(h, dict) and h.get("key")
    ]


def _doc_list(title: str, entries: list[tuple[str, Any]]) -> str:
    """``entries`` (label, Postman description) as a list under ``title``; "" if none has one."""
    lines = [
        f"- {label}: {' '.join(text.split())}"
        for label, raw in entries
        if (text := _description(raw).strip())
    ]
    return f"{title}:\n" + "\n".join(lines) if lines else ""


def _variable_docs(raw: Any) -> str:
    """Descriptions of a ``variable`` list; Pigeon variables have none, so they join the
    description of the level that defines them."""
    return _doc_list(
        "Variables",
        [
            (as_text(v.get("key")), v.get("description"))
            for v in as_list(raw)
            if isinstance(v, dict)
        ],
    )


def _parameter_docs(raw: dict[str, Any], item: dict[str, Any]) -> str:
    """Descriptions Postman keeps on headers, query and path parameters, body fields and
    request variables, for the request's description (Pigeon's pairs have none)."""
    url = as_dict(raw.get("url"))
    body = as_dict(raw.get("body"))
    groups = [
        ("header", raw.get("header")),
        ("query", url.get("query")),
        ("path", url.get("variable")),
        ("field", body.get("urlencoded")),
        ("field", body.get("formdata")),
        ("variable", item.get("variable")),
    ]
    entries = [
        (f"{kind} {as_text(p.get('key'))}", p.get("description"))
        for kind, pairs in groups
        for p in as_list(pairs)
        if isinstance(p, dict)
    ]
    return _doc_list("Parameters", entries)


def _is_default(value: Any) -> bool:
    """Whether a protocolProfileBehavior value leaves Postman as it is without it (``0`` is
    not: ``maxRedirects: 0`` means something)."""
    return value is None or value is False or value in ("", "auto") or value == [] or value == {}


def _join(*parts: str) -> str:
    """Description parts, blank and repeated ones left out, a blank line between."""
    out: list[str] = []
    for part in parts:
        if part.strip() and part not in out:
            out.append(part)
    return "\n\n".join(out)


def parse_environment(data: dict[str, Any], result: ImportResult) -> Environment:
    env = Environment(name=as_text(data.get("name")) or "postman")
    for item in as_list(data.get("values")):
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
    def __init__(self, data: dict[str, Any], files: LocalFiles) -> None:
        self.files = files
        info = as_dict(data.get("info"))
        self.result = ImportResult(
            name=as_text(info.get("name")), description=_description(info.get("description"))
        )
        self._folder_paths: set[str] = set()
        r = self.result
        r.auth = self._auth(data.get("auth"), "the collection")
        r.variables = self._variables(data.get("variable"), "the collection")
        behavior = self._behavior(data.get("protocolProfileBehavior"), "the collection")
        r.description = _join(
            r.description,
            _variable_docs(data.get("variable")),
            self._events(data.get("event"), "the collection"),
        )
        self._items(as_list(data.get("item")), "", behavior)
        self._dynamic_notes()

    # -- walking --

    def _items(self, items: list[Any], folder: str, behavior: dict[str, Any]) -> None:
        """Add ``items`` under ``folder``; ``behavior`` is the protocolProfileBehavior the
        enclosing folders and collection pass down (Postman merges it outer -> inner)."""
        for item in items:
            if not isinstance(item, dict):
                continue
            name = (as_text(item.get("name")) or "untitled").replace("/", "-").strip()
            if isinstance(item.get("item"), list):
                path = self._folder_path(folder, name)
                where = f"folder {path}"
                settings = Folder(name=path.rsplit("/", 1)[-1], id=path)
                settings.auth = self._auth(item.get("auth"), where)
                settings.variables = self._variables(item.get("variable"), where)
                own = self._behavior(item.get("protocolProfileBehavior"), where)
                description = _join(
                    _description(item.get("description")),
                    _variable_docs(item.get("variable")),
                    self._events(item.get("event"), where),
                )
                if description:
                    settings.extra["description"] = description
                # An empty folder still gets its directory: write_import makes one per entry.
                if (
                    settings.auth is not None
                    or settings.extra
                    or settings.variables
                    or not item["item"]
                ):
                    self.result.folders.append(settings)
                self._items(item["item"], path, {**behavior, **own})
            elif "request" in item:
                where = self._where(folder, name)
                own = self._behavior(item.get("protocolProfileBehavior"), where)
                req = self._request(item, name, folder, {**behavior, **own})
                self.result.requests.append((folder, req))
            else:
                self.result.note(
                    f"{self._where(folder, name)}: neither a request nor a folder; skipped"
                )

    def _folder_path(self, parent: str, name: str) -> str:
        """A path no other folder has: Postman allows two sibling folders of the same name,
        and merging them would give one folder's settings to the other's requests."""
        path = self._where(parent, name)
        n = 2
        while path in self._folder_paths:
            path = self._where(parent, f"{name} ({n})")
            n += 1
        if n > 2:
            self.result.note(
                f"folder {self._where(parent, name)}: another folder has the same name; "
                f"imported as {path.rsplit('/', 1)[-1]!r}"
            )
        self._folder_paths.add(path)
        return path

    def _where(self, folder: str, name: str) -> str:
        return f"{folder}/{name}" if folder else name

    def _request(
        self, item: dict[str, Any], name: str, folder: str, behavior: dict[str, Any]
    ) -> Request:
        where = self._where(folder, name)
        raw = item["request"]
        if isinstance(raw, str):  # v2: a request may be just its URL
            raw = {"url": raw, "method": "GET"}
        raw = as_dict(raw)
        req = Request(name=name, method=(as_text(raw.get("method")) or "GET").upper())
        self._url(raw.get("url"), req, where)
        for key, value in self._variables(item.get("variable"), where).items():
            req.variables.setdefault(key, value)
        req.headers = _headers(raw.get("header"))
        req.body = self._body(raw.get("body"), req, where)
        req.auth = self._auth(raw.get("auth"), where)
        self._apply_behavior(behavior, req, where)
        if raw.get("proxy"):
            self.result.note(f"{where}: its proxy setting is not carried over")
        if raw.get("certificate"):
            self._certificate(as_dict(raw.get("certificate")), where)
        examples = len(as_list(item.get("response")))
        if examples:
            self.result.note(
                f"{where}: {examples} saved example response{'s' if examples != 1 else ''} "
                "not imported"
            )
        req.description = _join(
            _description(item.get("description")),
            _description(raw.get("description")),
            _parameter_docs(raw, item),
            self._events(item.get("event"), where),
        )
        return req

    # -- settings --

    def _variables(self, raw: Any, where: str) -> dict[str, Any]:
        """A ``variable`` list (collection, folder or request) as name -> value."""
        out: dict[str, Any] = {}
        for var in as_list(raw):
            if isinstance(var, dict) and var.get("key"):
                if var.get("disabled"):
                    self.result.note(
                        f"{where}: variable {var['key']} is disabled; not carried over"
                    )
                    continue
                out[str(var["key"])] = _variable_value(var.get("value"))
        return out

    def _behavior(self, raw: Any, where: str) -> dict[str, Any]:
        """``protocolProfileBehavior`` of one level: the settings Pigeon has per request are
        returned (to be merged down to the requests); each other one set to something other
        than Postman's default gets one note here, where it is defined."""
        kept: dict[str, Any] = {}
        for key, value in as_dict(raw).items():
            if key in _BEHAVIOR_SETTINGS and isinstance(value, bool):
                kept[key] = value
            elif key == "disableBodyPruning" and isinstance(value, bool):
                kept[key] = value  # judged per request: it matters only with a body
            elif key in _BEHAVIOR_SAME or _is_default(value):
                continue
            else:
                why = _BEHAVIOR_WHY.get(key, "Pigeon has no such setting")
                self.result.note(
                    f"{where}: Postman setting {key} = {json.dumps(value)} is not carried "
                    f"over ({why})"
                )
        return kept

    def _apply_behavior(self, behavior: dict[str, Any], req: Request, where: str) -> None:
        if "followRedirects" in behavior:
            req.settings.follow_redirects = behavior["followRedirects"]
        if "strictSSL" in behavior:
            req.settings.verify_tls = behavior["strictSSL"]
        has_body = req.body.type != "none"
        if has_body and req.method in _PRUNED_METHODS and not behavior.get("disableBodyPruning"):
            self.result.note(
                f"{where}: Postman leaves out the body of a {req.method} request unless "
                "disableBodyPruning is set; Pigeon sends it"
            )

    def _url(self, url: Any, req: Request, where: str) -> None:
        if isinstance(url, str):
            url = {"raw": url}
        if not isinstance(url, dict):
            return
        raw = as_text(url.get("raw"))
        if not raw:
            host = url.get("host")
            host = ".".join(as_text(h) for h in host) if isinstance(host, list) else as_text(host)
            path = url.get("path")
            path = "/".join(as_text(p) for p in path) if isinstance(path, list) else as_text(path)
            proto = as_text(url.get("protocol"))
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
                            _decode(as_text(q["key"])),
                            _decode(as_text(q.get("value"))),
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
            as_text(v.get("key")): v.get("value")
            for v in as_list(url.get("variable"))
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
        if not isinstance(body, dict):
            return Body()
        if body.get("disabled"):
            if body.get("mode"):
                self.result.note(f"{where}: its body is disabled in Postman; not carried over")
            return Body()
        mode = body.get("mode")
        has_ctype = any(h.name.lower() == "content-type" and h.enabled for h in req.headers)
        if mode == "raw":
            content = as_text(body.get("raw"))
            language = as_text(
                as_dict(as_dict(body.get("options")).get("raw")).get("language", "text")
            )
            if language == "json":
                return Body(type="json", content=content)
            if not has_ctype and language in _RAW_TYPES and language != "text":
                req.headers.append(Header("Content-Type", _RAW_TYPES[language]))
            return Body(type="text", content=content)
        if mode == "urlencoded":
            fields = [
                FormField(
                    as_text(f.get("key")),
                    as_text(f.get("value")),
                    enabled=not f.get("disabled", False),
                )
                for f in as_list(body.get("urlencoded"))
                if isinstance(f, dict) and f.get("key") is not None
            ]
            return Body(type="form", fields=fields)
        if mode == "formdata":
            fields = []
            for f in as_list(body.get("formdata")):
                if not isinstance(f, dict) or f.get("key") is None:
                    continue
                enabled = not f.get("disabled", False)
                ctype = as_text(f.get("contentType"))
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
                    elif "{{" not in as_text(src) and not self.files.allowed(
                        as_text(src), self.result
                    ):
                        enabled = False
                    fields.append(
                        FormField(as_text(f["key"]), as_text(src), enabled, "file", ctype)
                    )
                else:
                    fields.append(
                        FormField(
                            as_text(f["key"]), as_text(f.get("value")), enabled, "text", ctype
                        )
                    )
            if has_ctype:
                req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return Body(type="multipart", fields=fields)
        if mode == "graphql":
            gql = as_dict(body.get("graphql"))
            variables = gql.get("variables")
            if isinstance(variables, (dict, list)):
                variables = json.dumps(variables, indent=2, ensure_ascii=False)
            variables = as_text(variables)  # a template: {{placeholders}} stay as written
            return Body(
                type="graphql",
                query=as_text(gql.get("query")),
                variables="" if variables.strip() in ("", "{}") else variables,
            )
        if mode == "file":
            src = as_text(as_dict(body.get("file")).get("src"))
            if not src:
                self.result.note(f"{where}: its file body has no file chosen; set its path")
                return Body(type="file")
            found = file_body(src, self.files, self.result, f"{where}: file body")
            if found is not None and has_ctype:  # the request's header says its type
                found.content_type = next(
                    h.value for h in req.headers if h.name.lower() == "content-type" and h.enabled
                )
                req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return found or Body()
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
                username=as_text(params.get("username")),
                password=as_text(params.get("password")),
            )
        if kind == "bearer":
            return Auth(type="bearer", token=as_text(params.get("token")))
        if kind == "apikey":
            location = "query" if params.get("in") == "query" else "header"
            return Auth(
                type="api_key",
                key=as_text(params.get("key")) or "X-Api-Key",
                value=as_text(params.get("value")),
                location=location,
            )
        if kind == "digest":
            for extra in ("realm", "nonce", "opaque", "qop", "clientNonce", "nonceCount"):
                if params.get(extra):
                    self.result.note(
                        f"{where}: digest {extra} is taken from the server's challenge"
                    )
            return Auth(
                type="digest",
                username=as_text(params.get("username")),
                password=as_text(params.get("password")),
            )
        if kind == "awsv4":
            return self._awsv4(params, where)
        if kind == "oauth2":
            return self._oauth2(params, where)
        if kind == "ntlm":
            if params.get("workstation"):
                self.result.note(f"{where}: NTLM's workstation is not carried over")
            return Auth(
                type="ntlm",
                username=as_text(params.get("username")),
                password=as_text(params.get("password")),
                domain=as_text(params.get("domain")),
            )
        if kind == "oauth1":
            return self._oauth1(params, where)
        if kind == "hawk":
            return self._hawk(params, where)
        if kind == "jwt":
            return self._jwt(params, where)
        what = f"{kind} auth" if isinstance(kind, str) and kind else "auth without a type"
        self.result.note(f"{where}: {what} is not supported by Pigeon; not carried over")
        return None

    def _private_key(self, params: dict[str, Any], auth: Auth, kind: str, where: str) -> None:
        """A private key is never written into the collection: it is read from ``.env``."""
        if params.get("privateKey"):
            auth.private_key = "{{$env.PRIVATE_KEY}}"
            self.result.note(
                f"{where}: {kind}'s private key is read from $env.PRIVATE_KEY (or name a file "
                "in private_key_file): put it in .env (the exported one is not written)"
            )

    def _oauth1(self, params: dict[str, Any], where: str) -> Auth:
        """OAuth 1.0a: Postman's parameters in the header, or else in the query (Postman puts
        them in the body or the URL by the method); a signature Pigeon does not make is noted."""
        text = {k: as_text(v) for k, v in params.items()}
        method = oauth1_signature(text.get("signatureMethod") or "", where, self.result)
        auth = Auth(
            type="oauth1",
            consumer_key=text.get("consumerKey", ""),
            consumer_secret=text.get("consumerSecret", ""),
            token=text.get("token", ""),
            token_secret=text.get("tokenSecret", ""),
            signature_method=method,
            realm=text.get("realm", ""),
            callback=text.get("callback", ""),
            verifier=text.get("verifier", ""),
            placement="header" if params.get("addParamsToHeader", True) is not False else "query",
        )
        self._private_key(params, auth, "OAuth 1.0a", where)
        for fixed in ("timestamp", "nonce"):
            if text.get(fixed):
                self.result.note(f"{where}: OAuth 1.0a's fixed {fixed} is made anew for each send")
        return auth

    def _hawk(self, params: dict[str, Any], where: str) -> Auth:
        text = {k: as_text(v) for k, v in params.items()}
        algorithm = hawk_algorithm(text.get("algorithm") or "sha256", where, self.result)
        skip = params.get("includePayloadHash") in (False, "false")
        for fixed in ("user", "nonce", "timestamp"):
            if text.get(fixed):
                self.result.note(f"{where}: Hawk's {fixed} is not carried over")
        return Auth(
            type="hawk",
            hawk_id=text.get("authId", ""),
            hawk_key=text.get("authKey", ""),
            hawk_algorithm=algorithm,
            hawk_ext=text.get("extraData", ""),
            hawk_app=text.get("app", ""),
            hawk_dlg=text.get("delegation", ""),
            hawk_payload="skip" if skip else "hash",
        )

    def _jwt(self, params: dict[str, Any], where: str) -> Auth | None:
        """A JWT bearer: Postman's payload (JSON text) as the claims table, its header extras,
        the header prefix; a token Postman sends in the query is not carried over."""
        text = {k: as_text(v) for k, v in params.items()}
        if text.get("addTokenTo") == "queryParam":
            self.result.note(f"{where}: a JWT sent in the query is not carried over")
            return None
        algorithm = text.get("algorithm") or "HS256"
        if algorithm not in JWT_ALGORITHMS:
            self.result.note(f"{where}: JWT's {algorithm} is not supported; not carried over")
            return None
        auth = Auth(type="jwt", jwt_algorithm=algorithm, jwt_iat="omit")
        auth.oauth2.header_prefix = text.get("headerPrefix", "Bearer")
        if algorithm.startswith("HS"):
            auth.private_key = text.get("secret", "")
            if params.get("isSecretBase64Encoded") in (True, "true"):
                self.result.note(f"{where}: the JWT secret is base64 in Postman; decode it")
        else:
            self._private_key(params, auth, "JWT", where)
        for key, target in (("payload", "claims"), ("header", "jwt_header")):
            raw = text.get(key, "").strip()
            if not raw:
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
            if isinstance(value, dict):
                setattr(auth, target, value)
            else:
                self.result.note(
                    f"{where}: the JWT {key} is not a JSON object (a placeholder outside a "
                    f"string?); write it as [auth.{target}]"
                )
        return auth

    def _awsv4(self, params: dict[str, Any], where: str) -> Auth:
        """AWS SigV4; the secret key and session token are read from ``.env``, never written
        into the collection's files."""
        secret, session = as_text(params.get("secretKey")), as_text(params.get("sessionToken"))
        auth = Auth(
            type="aws_sigv4",
            access_key=as_text(params.get("accessKey")) or "{{aws_access_key}}",
            secret_key=secret if "{{" in secret else "{{$env.AWS_SECRET_ACCESS_KEY}}",
            region=as_text(params.get("region")) or "us-east-1",
            service=as_text(params.get("service")) or "{{aws_service}}",
        )
        if "{{" not in secret:  # a placeholder is no secret on disk: it is kept as written
            self.result.note(
                f"{where}: AWS SigV4's secret key is read from $env.AWS_SECRET_ACCESS_KEY: put "
                "it in .env" + (" (the exported one is not written)" if secret else "")
            )
        if "{{" in session:
            auth.session_token = session
        elif session:
            auth.session_token = "{{$env.AWS_SESSION_TOKEN}}"
            self.result.note(f"{where}: its session token is read from $env.AWS_SESSION_TOKEN")
        for name, variable in (("accessKey", "aws_access_key"), ("service", "aws_service")):
            if not params.get(name):
                self.result.note(f"{where}: AWS SigV4 has no {name}: set {{{{{variable}}}}}")
        return auth

    def _certificate(self, cert: dict[str, Any], where: str) -> None:
        """A request's client certificate as the collection's ``[[certificates]]``, one per
        host it matches; a passphrase is never written: it is read from ``.env``."""
        cert_file = as_text(as_dict(cert.get("cert")).get("src"))
        hosts = []
        for pattern in as_list(cert.get("matches")):
            host = re.sub(r"^[a-z*]+://", "", as_text(pattern)).split("/")[0].split(":")[0]
            if host and host not in hosts:
                hosts.append(host)
        if not cert_file or not hosts:
            self.result.note(f"{where}: its certificate setting is not carried over")
            return
        entry = {"cert": cert_file}
        if key := as_text(as_dict(cert.get("key")).get("src")):
            entry["key"] = key
        if cert.get("passphrase"):
            entry["password"] = "{{$env.CERT_PASSPHRASE}}"
            self.result.note(
                f"{where}: the certificate's passphrase is read from $env.CERT_PASSPHRASE: put it in .env"
            )
        for host in hosts:
            if not any(c.get("host") == host for c in self.result.certificates):
                self.result.certificates.append({"host": host, **entry})

    def _oauth2(self, params: dict[str, Any], where: str) -> Auth:
        """OAuth 2.0 as Pigeon's ``oauth2`` auth when Postman names the token URL and a grant
        Pigeon runs; otherwise as the token it sends: a saved token (or ``{{access_token}}``)
        where Postman puts it, with Postman's header prefix."""
        grant = _POSTMAN_GRANTS.get(as_text(params.get("grant_type")) or "authorization_code")
        token_url = as_text(params.get("accessTokenUrl"))
        if grant and token_url:
            return self._oauth2_grant(params, grant, token_url, where)
        token = as_text(params.get("accessToken"))
        self.result.note(
            f"{where}: OAuth 2.0 flows are not run by Pigeon; imported as the token alone, "
            + ("the saved access token" if token else "{{access_token}}: set it")
        )
        token = token or "{{access_token}}"
        prefix = params.get("headerPrefix")
        prefix = "Bearer" if prefix is None else as_text(prefix).strip()
        if params.get("addTokenTo") == "queryParams":
            return Auth(type="api_key", key="access_token", value=token, location="query")
        if prefix == "Bearer":
            return Auth(type="bearer", token=token)
        value = f"{prefix} {token}" if prefix else token
        return Auth(type="api_key", key="Authorization", value=value, location="header")

    def _oauth2_grant(self, params: dict[str, Any], grant: str, token_url: str, where: str) -> Auth:
        text = {k: as_text(params.get(k)) for k in params}
        prefix = params.get("headerPrefix")
        oauth2 = OAuth2(
            grant=grant,
            token_url=token_url,
            auth_url=text.get("authUrl", ""),
            client_id=text.get("clientId", ""),
            client_secret=text.get("clientSecret", ""),
            scope=text.get("scope", ""),
            audience=text.get("audience", ""),
            redirect_uri=text.get("redirect_uri", ""),
            client_auth="body" if text.get("client_authentication") == "body" else "basic",
            header_prefix="Bearer" if prefix is None else as_text(prefix).strip(),
        )
        if text.get("accessToken"):
            self.result.note(f"{where}: OAuth 2.0: the saved access token is left behind; "
                             "Pigeon fetches its own")  # fmt: skip
        location = "query" if params.get("addTokenTo") == "queryParams" else "header"
        return Auth(
            type="oauth2",
            username=text.get("username", "") if grant == "password" else "",
            password=text.get("password", "") if grant == "password" else "",
            location=location,
            oauth2=oauth2,
        )

    def _events(self, events: Any, where: str) -> str:
        """Scripts as description text (JavaScript is not run by Pigeon), with a note."""
        parts = []
        for event in as_list(events):
            if not isinstance(event, dict):
                continue
            script = as_dict(event.get("script"))
            exec_ = script.get("exec")
            code = (
                "\n".join(as_text(line) for line in exec_)
                if isinstance(exec_, list)
                else as_text(exec_)
            )
            label = {"prerequest": "pre-request", "test": "test"}.get(
                as_text(event.get("listen")), as_text(event.get("listen")) or "unnamed"
            )
            if event.get("disabled"):
                label += " (disabled)"
            if not code.strip():
                if script.get("src"):
                    self.result.note(
                        f"{where}: Postman {label} script loaded from a URL is not carried over"
                    )
                continue
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
