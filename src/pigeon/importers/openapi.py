"""Import an OpenAPI 3 description (JSON or YAML): one request per operation.

Operations are grouped into folders by their first tag. Path parameters become
placeholders (``/users/{id}`` -> ``/users/{{id}}``) whose example values, or values made
from their schema, are collection variables; required query, header and cookie parameters
are enabled, optional ones are kept disabled. A body is built from the request body's
examples or, failing that, from its schema (``$ref``, ``allOf``, ``oneOf``, enums and
formats; nesting is depth-limited and each example holds at most ``EXAMPLE_BUDGET`` values, the
whole import ``TOTAL_BUDGET``; ``readOnly`` properties are left out): JSON as JSON, forms
and multipart as fields, any other media type as text sent with its Content-Type. Each
server becomes an environment holding ``base_url``; security schemes become auth whose
secrets are ``{{token}}``-style variables. The responses' own examples (``example``,
``examples``) become the request's saved examples (``[[examples]]``, DESIGN §14), which
``pigeon mock`` serves. Whatever is not carried over is named in the notes.

Why one module: references, parameters, bodies, schema examples and security all walk the
same resolved document and the same budget of ``$ref`` expansions, held by one ``_OpenAPI``:
each ``$ref`` is followed once (memoised), and a document whose schemas refer to each other
dozens of times over (12 properties by 9 levels is 12^9 values) is cut short with a note
rather than expanded.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pigeon.importers.common import ImportFailed, ImportResult, as_dict, as_list, as_text
from pigeon.importers.documents import load_json, load_yaml
from pigeon.model import (
    MAX_EXAMPLE_BODY,
    Auth,
    Body,
    Environment,
    Example,
    FormField,
    Header,
    OAuth2,
    QueryParam,
    Request,
)
from pigeon.store import slugify
from pigeon.transport import host_of

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_DEPTH = 8
EXAMPLE_BUDGET = 1_000  # values in one example built from a schema
TOTAL_BUDGET = 50_000  # values built from schemas in one import
_FORMAT_EXAMPLES = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "uri": "https://example.com",
    "url": "https://example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "byte": "",
    "binary": "",
    "password": "",
}


def _load(text: str, path: Path | None) -> dict[str, Any]:
    data = load_json(text, path) if text.lstrip().startswith("{") else load_yaml(text, path)
    if not isinstance(data, dict):
        raise ImportFailed("not an OpenAPI description (expected an object)", path)
    if "swagger" in data:
        raise ImportFailed("Swagger 2.0 is not supported; convert it to OpenAPI 3 first", path)
    if not str(data.get("openapi", "")).startswith("3"):
        raise ImportFailed('not an OpenAPI 3 description (no "openapi: 3.x")', path)
    return data


def parse_openapi(text: str, path: Path | None = None) -> ImportResult:
    """Parse an OpenAPI 3.0 / 3.1 document."""
    return _OpenAPI(_load(text, path)).result


_JSON_TYPE = re.compile(r"^application/([\w.+-]*\+)?json\b", re.IGNORECASE)
_MULTIPART = "multipart/form-data"


def _plain(value: Any) -> Any:
    """YAML dates and other non-JSON values as JSON-ready values."""
    return json.loads(json.dumps(value, default=str))


def _joined(value: Any, sep: str, explode: bool) -> str:
    """An array or object parameter in the ``simple`` / ``form`` styles: ``a,b`` or ``k,v``
    (``k=v`` when exploded); anything else as its text."""
    if isinstance(value, list):
        return sep.join(as_text(v) for v in value)
    if isinstance(value, dict):
        if explode:
            return sep.join(f"{k}={as_text(v)}" for k, v in value.items())
        return sep.join(part for k, v in value.items() for part in (str(k), as_text(v)))
    return as_text(value)


def _status(code: str) -> int:
    """A response key's status to serve: ``404`` as itself, ``2XX`` as 200, ``default`` as
    500; 0 for a key that is none of these."""
    if code.lower() == "default":
        return 500
    if re.fullmatch(r"[1-5](\d\d|XX|xx)", code):
        return int(code[0]) * 100 + (int(code[1:]) if code[1:].isdigit() else 0)
    return 0


def _read_only(raw: Any, resolved: Any) -> bool:
    """Whether a property is ``readOnly`` (said beside its ``$ref`` or in the schema)."""
    return as_dict(raw).get("readOnly") is True or as_dict(resolved).get("readOnly") is True


def _is_file(schema: dict[str, Any]) -> bool:
    return as_text(schema.get("format")) in ("binary", "base64") or "contentMediaType" in schema


# OpenAPI's OAuth 2.0 flows that Pigeon runs, in the order one is picked (one that needs
# nobody first); the implicit flow is not among them.
_OAUTH2_FLOWS = {
    "clientCredentials": "client_credentials",
    "authorizationCode": "authorization_code",
    "deviceAuthorization": "device_code",
    "password": "password",
}


def _oauth2(scheme: dict[str, Any], scopes: Any) -> tuple[Auth, str] | None:
    """An ``oauth2`` security scheme as Pigeon's auth, by the first flow it runs, with the
    scopes the requirement names; ``None`` when it has no such flow."""
    flows = as_dict(scheme.get("flows"))
    for flow, grant in _OAUTH2_FLOWS.items():
        spec = as_dict(flows.get(flow))
        token_url = as_text(spec.get("tokenUrl"))
        if not spec or not token_url:
            continue

        def url(text: str) -> str:  # a relative URL is relative to the server
            return "{{base_url}}" + text if text.startswith("/") else text

        names = [as_text(s) for s in scopes] if isinstance(scopes, list) else []
        auth = Auth(
            type="oauth2",
            oauth2=OAuth2(
                grant=grant,
                token_url=url(token_url),
                auth_url=url(as_text(spec.get("authorizationUrl"))),
                device_url=url(as_text(spec.get("deviceAuthorizationUrl"))),
                client_id="{{client_id}}",
                client_secret="{{client_secret}}",
                scope=" ".join(n for n in names if n),
            ),
        )
        if grant == "password":
            auth.username, auth.password = "{{username}}", "{{password}}"
        return auth, flow
    return None


@dataclass
class _Security:
    """What one security requirement adds to a request: auth (type ``none`` when no scheme
    can be auth), further API keys as headers, query parameters or cookies, and variables."""

    auth: Auth
    headers: list[Header] = field(default_factory=list)
    query: list[QueryParam] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)  # notes on what was carried over another way


class _OpenAPI:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        info = as_dict(doc.get("info"))
        self.result = ImportResult(
            name=as_text(info.get("title")), description=as_text(info.get("description"))
        )
        self.schemes = as_dict(as_dict(doc.get("components")).get("securitySchemes"))
        self.auth_variables = self._auth_variable_names()
        self.made_up: set[str] = set()  # path variables whose value comes from a schema alone
        self._targets: dict[str, Any] = {}  # each $ref followed once
        self._props: dict[int, dict[str, Any]] = {}  # each schema's properties, allOf merged
        self._left = 0  # values the example being built may still hold
        self._total = TOTAL_BUDGET
        self._servers(as_list(doc.get("servers")))
        self.global_security = doc.get("security")
        self.global_parts = self._security(self.global_security, "the API")
        if self.global_parts is not None and self.global_parts.auth.type != "none":
            self.result.auth = self.global_parts.auth
        for route, item in as_dict(doc.get("paths")).items():
            item = self.resolve(item)
            if not isinstance(item, dict):
                continue
            if as_list(item.get("servers")):
                self.result.note(f"{route}: its own servers are not carried over; it uses base_url")
            shared = as_list(item.get("parameters"))
            for method in HTTP_METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    self._operation(str(route), method, op, shared)
        webhooks = as_dict(doc.get("webhooks"))
        if webhooks:
            self.result.note(
                f"webhooks ({', '.join(map(str, webhooks))}) are requests the API sends; "
                "not imported"
            )

    # -- references --

    def resolve(self, node: Any) -> Any:
        """Follow ``$ref`` within the document; an external, broken or looping one gives ``{}``.
        Each reference is followed once: its target is remembered."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref not in self._targets:
                self._targets[ref] = self._follow(node)
            return self._targets[ref]
        return self._follow(node)

    def _follow(self, node: Any) -> Any:
        seen: tuple[str, ...] = ()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                self.result.note(f"external reference {ref} is not followed")
                return {}
            if ref in seen:
                self.result.note(f"reference {ref} refers back to itself")
                return {}
            seen = (*seen, ref)
            target: Any = self.doc
            for part in ref[2:].split("/"):
                part = unquote(part).replace("~1", "/").replace("~0", "~")
                if isinstance(target, dict) and part in target:
                    target = target[part]
                else:
                    self.result.note(f"reference {ref} does not resolve")
                    return {}
            node = target
        return as_dict(node)

    # -- servers --

    def _servers(self, servers: list[Any]) -> None:
        used: set[str] = set()
        for i, server in enumerate(servers, 1):
            if not isinstance(server, dict) or not server.get("url"):
                continue
            raw = url = as_text(server["url"])
            name = slugify(as_text(server.get("description"))) or f"server-{i}"
            base, n = name, 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            used.add(name)
            for var_name, var in as_dict(server.get("variables")).items():
                var = as_dict(var)
                choices = [as_text(v) for v in as_list(var.get("enum"))]
                if "default" in var:
                    value = as_text(var["default"])
                else:
                    value = choices[0] if choices else ""
                    self.result.note(
                        f"server {raw!r}: variable {var_name} has no default; {value!r} is used"
                    )
                url = url.replace("{" + str(var_name) + "}", value)
                others = [c for c in choices if c != value]
                if others:
                    self.result.note(
                        f"server {raw!r}: {{{var_name}}} is {value} (also: {', '.join(others)});"
                        f" change base_url in environment {name} for another"
                    )
            for missing in re.findall(r"\{([^{}]*)\}", url):
                self.result.note(
                    f"server {raw!r}: {{{missing}}} has no value; change base_url in "
                    f"environment {name}"
                )
            url = url.rstrip("/")
            self.result.environments.append(Environment(name=name, variables={"base_url": url}))
            self.result.variables.setdefault("base_url", url)
            if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):
                self.result.note(f"server {url!r} is relative; set base_url to the full address")
        if not servers:
            self.result.variables["base_url"] = ""
            self.result.note("no servers: set base_url before sending")

    # -- operations --

    def _operation(self, route: str, method: str, op: dict[str, Any], shared: list[Any]) -> None:
        tags = as_list(op.get("tags"))
        folder = as_text(tags[0]).replace("/", "-").strip() if tags else ""
        name = (
            as_text(op.get("summary"))
            or as_text(op.get("operationId"))
            or f"{method.upper()} {route}"
        )
        where = f"{method.upper()} {route}"
        req = Request(name=name.strip(), method=method.upper())
        req.description = self._description(op)

        params: dict[tuple[str, str], dict[str, Any]] = {}
        for p in [*shared, *as_list(op.get("parameters"))]:
            p = self.resolve(p)
            if isinstance(p, dict) and p.get("name") and p.get("in"):
                params[(as_text(p["name"]), as_text(p["in"]))] = p

        url_path = self._path(route, where, params, req)
        cookies: list[str] = []
        optional_cookies: list[str] = []
        for (pname, where_in), p in params.items():
            if where_in == "path":
                continue
            value, _ = self._param_value(p, where)
            value = "" if value is None else value
            required = bool(p.get("required"))
            explode = p.get("explode")
            if where_in == "query":
                self._query(req, pname, p, value, required)
            elif where_in == "header":
                if pname.lower() in ("accept", "content-type", "authorization"):
                    continue  # OpenAPI says to ignore these: content and security describe them
                req.headers.append(Header(pname, _joined(value, ",", explode is True), required))
            elif where_in == "cookie":
                text = f"{pname}={_joined(value, ',', False)}"
                (cookies if required else optional_cookies).append(text)
            else:
                self.result.note(f"{where}: parameter {pname} in {where_in!r} is not carried over")
        req.url = "{{base_url}}" + url_path
        if as_list(op.get("servers")):
            self.result.note(f"{where}: its own servers are not carried over; it uses base_url")

        body = op.get("requestBody")
        if body is not None:
            req.body = self._body(self.resolve(body), req, where)

        sec = self.global_parts
        if "security" in op and op["security"] != self.global_security:
            own = self._security(op["security"], where)
            if own is not None:  # its own auth, even "none": nothing else may apply
                sec = own
                req.auth = None if own.auth == self.result.auth else own.auth
        if sec is not None:  # API keys beyond the auth: copies, each request edits its own
            names = {h.name.lower() for h in req.headers}
            req.headers += [
                Header(h.name, h.value) for h in sec.headers if h.name.lower() not in names
            ]
            req.query += [QueryParam(q.name, q.value) for q in sec.query]
            cookies += sec.cookies
        if cookies:
            req.headers.append(Header("Cookie", "; ".join(cookies)))
        if optional_cookies:
            req.headers.append(Header("Cookie", "; ".join(optional_cookies), enabled=False))

        callbacks = as_dict(op.get("callbacks"))
        if callbacks:
            self.result.note(
                f"{where}: callbacks ({', '.join(map(str, callbacks))}) are requests the API "
                "makes; not imported"
            )
        req.examples = self._response_examples(as_dict(op.get("responses")), where)
        links: list[str] = []
        for response in as_dict(op.get("responses")).values():
            links += [str(k) for k in as_dict(self.resolve(response).get("links"))]
        if links:
            self.result.note(f"{where}: response links ({', '.join(links)}) are not carried over")
        self.result.requests.append((folder, req))

    def _response_examples(self, responses: dict[Any, Any], where: str) -> list[Example]:
        """Each response's examples as given (none is made from a schema): one per entry of
        ``examples``, named by its key, or one named by the status for ``example``. ``2XX``
        is served as 200 and ``default`` as 500."""
        out: list[Example] = []
        for code, response in responses.items():
            status = _status(str(code))
            content = as_dict(self.resolve(response).get("content")) if status else {}
            types = [str(t) for t in content]
            chosen = next((t for t in types if _JSON_TYPE.match(t)), types[0] if types else "")
            if not chosen:
                continue
            media = as_dict(self.resolve(content[chosen]))
            given: list[tuple[str, Any]] = []
            if "example" in media:
                given.append((str(code), media["example"]))
            for key, ex in as_dict(media.get("examples")).items():
                ex = as_dict(self.resolve(ex))
                if "value" in ex:
                    given.append((str(key), ex["value"]))
            for name, value in given:
                if any(e.name == name for e in out):
                    name = f"{code} {name}"
                if not name.strip() or any(e.name == name for e in out):
                    continue
                value = _plain(value)
                if isinstance(value, str) and not _JSON_TYPE.match(chosen):
                    body = value
                else:
                    body = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
                if len(body.encode()) > MAX_EXAMPLE_BODY:
                    self.result.note(f"{where}: example {name!r} is too big to keep")
                    continue
                headers = [] if "*" in chosen else [Header("Content-Type", chosen)]
                out.append(Example(name.strip(), status or 200, headers, body))
        return out

    def _description(self, op: dict[str, Any]) -> str:
        text = as_text(op.get("description"))
        if op.get("deprecated"):
            text = ("Deprecated.\n\n" + text).strip()
        docs = as_dict(op.get("externalDocs"))
        if as_text(docs.get("url")):
            about = f" ({as_text(docs.get('description'))})" if docs.get("description") else ""
            text = f"{text}\n\nSee {as_text(docs['url'])}{about}".strip()
        return text

    # -- parameters --

    def _param_value(self, p: dict[str, Any], where: str) -> tuple[Any, bool]:
        """A parameter's value and whether the document gives it (rather than its type
        alone); ``None`` when there is nothing to go on."""
        if "example" in p:
            return _plain(p["example"]), True
        examples = p.get("examples")
        if isinstance(examples, dict):
            for ex in examples.values():
                ex = self.resolve(ex)
                if isinstance(ex, dict) and "value" in ex:
                    return _plain(ex["value"]), True
        content = as_dict(p.get("content"))
        if content:  # a parameter serialized as a media type (JSON, mostly)
            media = self.resolve(next(iter(content.values())))
            value = self._media_example(media, media.get("schema"), where)
            return (None if value is None else as_text(value)), True
        raw = p.get("schema")
        schema = self.resolve(raw)
        if not schema:
            return None, False
        for key in ("example", "default", "const"):
            if key in schema:
                return _plain(schema[key]), True
        value = self.example(raw, where)
        numeric = schema.get("type") in ("integer", "number")
        if numeric and value == 0 and "minimum" not in schema:
            value = 1  # an id, most likely: 0 rarely names anything
        return value, False

    def _path(
        self, route: str, where: str, params: dict[tuple[str, str], dict[str, Any]], req: Request
    ) -> str:
        """``route`` with its ``{name}`` parts as placeholders, each with a value to send."""
        declared = {name: p for (name, in_), p in params.items() if in_ == "path"}

        def placeholder(match: re.Match[str]) -> str:
            pname = match.group(1)
            var = pname
            if pname in self.auth_variables:
                var = f"path_{pname}"
                self.result.note(
                    f"{where}: path parameter {pname} is {{{{{var}}}}} ({pname} is for auth)"
                )
            p = declared.get(pname)
            style = as_text(p.get("style")) if p else ""
            explode = bool(p and p.get("explode") is True)
            value, given = self._param_value(p, where) if p else (None, False)
            if p is None:
                self.result.note(
                    f"{where}: path parameter {pname} is not declared; "
                    f"set {{{{{var}}}}} before sending"
                )
            elif value is None:
                self.result.note(
                    f"{where}: path parameter {pname} has no example or schema; "
                    f"set {{{{{var}}}}} before sending"
                )
            else:
                if isinstance(value, (list, dict)):
                    sep = {"label": ".", "matrix": f";{pname}=" if explode else ","}.get(style, ",")
                    value = _joined(value, sep, explode)
                self._path_variable(var, value, given, req)
            prefix = {"label": ".", "matrix": f";{pname}="}.get(style, "")
            return prefix + "{{" + var + "}}"

        return re.sub(r"\{([^{}/]+)\}", placeholder, route)

    def _path_variable(self, var: str, value: Any, given: bool, req: Request) -> None:
        """Path values are collection variables, shared by every operation that uses the name;
        an operation whose documented example differs keeps its own as a request variable."""
        variables = self.result.variables
        if var not in variables or (var in self.made_up and given):
            variables[var] = value
            if given:
                self.made_up.discard(var)
            else:
                self.made_up.add(var)
        elif given and variables[var] != value:
            req.variables[var] = value

    def _query(
        self, req: Request, pname: str, p: dict[str, Any], value: Any, required: bool
    ) -> None:
        style = as_text(p.get("style")) or "form"
        explode = p.get("explode", style == "form") is True

        def add(name: str, text: str) -> None:
            req.query.append(QueryParam(name, text, enabled=required))

        if isinstance(value, list) and style == "form" and explode:
            for item in value or [""]:  # one name=value pair per item
                add(pname, as_text(item))
        elif isinstance(value, list):
            sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
            add(pname, sep.join(as_text(v) for v in value))
        elif isinstance(value, dict) and style == "deepObject":
            for key, item in value.items():
                add(f"{pname}[{key}]", as_text(item))
        elif isinstance(value, dict) and style == "form" and explode:
            for key, item in value.items():
                add(str(key), as_text(item))
        elif isinstance(value, dict) and style == "form":
            add(pname, _joined(value, ",", False))
        else:
            add(pname, as_text(value))

    # -- bodies --

    def _body(self, body: dict[str, Any], req: Request, where: str) -> Body:
        content = as_dict(body.get("content"))
        if not content:
            return Body()
        types = [str(t) for t in content]
        chosen = next((t for t in types if _JSON_TYPE.match(t)), None)
        chosen = chosen or next(
            (t for t in types if t.lower().startswith("application/x-www-form-urlencoded")), None
        )
        chosen = chosen or next((t for t in types if t.lower().startswith(_MULTIPART)), None)
        chosen = chosen or types[0]
        if len(types) > 1:
            self.result.note(f"{where}: body offered as {', '.join(types)}; imported as {chosen}")
        media = self.resolve(content[chosen])
        raw_schema = media.get("schema")
        lowered = chosen.lower()
        if _JSON_TYPE.match(chosen):
            if lowered != "application/json":
                req.headers.append(Header("Content-Type", chosen))
            example = self._without_read_only(
                self._media_example(media, raw_schema, where), raw_schema
            )
            return Body(type="json", content=json.dumps(example, indent=2, ensure_ascii=False))
        if lowered.startswith(("application/x-www-form-urlencoded", _MULTIPART)):
            return self._form(media, raw_schema, lowered.startswith(_MULTIPART), where)
        if "*" not in chosen:  # a range (*/*, image/*) is no type to send
            req.headers.append(Header("Content-Type", chosen))
        text = self._text_example(media, self.resolve(raw_schema))
        if text is None:
            self.result.note(
                f"{where}: {chosen} body has no example to take; it is left empty to write by hand"
            )
        return Body(type="text", content=text or "")

    def _text_example(self, media: dict[str, Any], schema: dict[str, Any]) -> str | None:
        """The example text of a body that is neither JSON nor a form (XML, plain text...).

        Only an example given as text will do: a value made from the schema would be JSON.
        """
        candidates: list[Any] = [media.get("example")]
        for ex in as_dict(media.get("examples")).values():
            candidates.append(self.resolve(ex).get("value"))
        candidates += [schema.get("example"), *as_list(schema.get("examples"))]
        return next((c for c in candidates if isinstance(c, str) and c), None)

    def _form(self, media: dict[str, Any], raw_schema: Any, multipart: bool, where: str) -> Body:
        """Form or multipart fields: one per property (``readOnly`` ones left out), each with
        its example; a multipart part's ``encoding`` content type is kept."""
        example = self._without_read_only(self._media_example(media, raw_schema, where), raw_schema)
        values = example if isinstance(example, dict) else {}
        props = self._properties(raw_schema)
        encoding = as_dict(media.get("encoding"))
        fields: list[FormField] = []
        for key in [*props, *(k for k in values if k not in props)]:
            raw = props.get(key)
            prop = self.resolve(raw) if raw is not None else {}
            if _read_only(raw, prop):
                continue
            enc = self.resolve(encoding.get(key)) if key in encoding else {}
            ctype = as_text(enc.get("contentType")) if multipart else ""
            if "," in ctype:
                ctype = ""  # several allowed: leave it to the file's type
            if as_dict(enc.get("headers")):
                self.result.note(f"{where}: headers of part {key!r} are not carried over")
            items = self.resolve(prop.get("items")) if prop.get("type") == "array" else {}
            if _is_file(prop) or (items and _is_file(items)):
                if multipart:
                    fields.append(FormField(key, "", kind="file", content_type=ctype))
                    self.result.note(
                        f"{where}: file field {key!r}: set the path of the file to upload"
                        + (" (one field per file)" if items else "")
                    )
                else:
                    fields.append(FormField(key, ""))
                    self.result.note(f"{where}: field {key!r} is binary; set its value by hand")
                continue
            value = values.get(key, "")
            if isinstance(value, list) and "json" not in ctype:
                fields += [FormField(key, as_text(v), content_type=ctype) for v in value]
            else:
                fields.append(FormField(key, as_text(value), content_type=ctype))
        return Body(type="multipart" if multipart else "form", fields=fields)

    def _media_example(self, media: dict[str, Any], schema: Any, where: str) -> Any:
        if "example" in media:
            return _plain(media["example"])
        examples = media.get("examples")
        if isinstance(examples, dict):
            for ex in examples.values():
                ex = self.resolve(ex)
                if isinstance(ex, dict) and "value" in ex:
                    return _plain(ex["value"])
        return self.example(schema, where)

    def _without_read_only(self, value: Any, schema: Any, depth: int = 0) -> Any:
        """``value`` less the properties its schema marks ``readOnly``: an example written for
        responses as well (with an ``id``, say) is sent as a request would be."""
        resolved = self.resolve(schema)
        if depth > MAX_DEPTH or not resolved:
            return value
        if isinstance(value, dict):
            props = self._properties(schema)
            out = {}
            for key, item in value.items():
                raw = props.get(key)
                if raw is None:
                    out[key] = item
                elif not _read_only(raw, self.resolve(raw)):
                    out[key] = self._without_read_only(item, raw, depth + 1)
            return out
        if isinstance(value, list) and resolved.get("type") == "array":
            return [self._without_read_only(v, resolved.get("items"), depth + 1) for v in value]
        return value

    def _properties(self, schema: Any, depth: int = 0) -> dict[str, Any]:
        """A schema's properties, ``allOf`` parts included (as written: refs unresolved);
        worked out once per schema (a part that includes itself adds nothing)."""
        schema = self.resolve(schema)
        if not schema or depth > MAX_DEPTH:
            return {}
        key = id(schema)
        if key not in self._props:
            self._props[key] = {}  # while being worked out: a part including itself adds nothing
            props: dict[str, Any] = {}
            for part in as_list(schema.get("allOf")):
                props.update(self._properties(part, depth + 1))
            props.update(as_dict(schema.get("properties")))
            self._props[key] = {str(k): v for k, v in props.items()}
        return self._props[key]

    def example(self, schema: Any, where: str) -> Any:
        """An example value for ``schema`` (see :meth:`_example`) of at most ``EXAMPLE_BUDGET``
        values, and none once the import has built ``TOTAL_BUDGET``; a cut is noted."""
        budget = self._left = min(EXAMPLE_BUDGET, self._total)
        value = self._example(schema)
        if self._left >= 0:
            self._total -= budget - self._left
            return value
        self._total -= budget
        if budget == EXAMPLE_BUDGET:
            self.result.note(
                f"{where}: the example built from its schema is cut at {budget:,} values "
                "(its $refs expand further); finish it by hand"
            )
        else:
            self.result.note(
                f"{where}: example cut short: this document's schemas have expanded to "
                f"{TOTAL_BUDGET:,} values, the most one import builds"
            )
        return value

    def _example(self, schema: Any, depth: int = 0, seen: tuple[str, ...] = ()) -> Any:
        """An example value for ``schema``: its own examples first, else one built from it.

        Built objects leave ``readOnly`` properties out: the value is for a request.
        """
        self._left -= 1
        if self._left < 0:
            return None
        if isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if ref in seen:
                return None  # a recursive schema: stop here
            seen = (*seen, ref)
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return None
        for key in ("example", "const", "default"):
            if key in schema:
                return _plain(schema[key])
        if as_list(schema.get("examples")):
            return _plain(schema["examples"][0])
        if as_list(schema.get("enum")):
            return _plain(schema["enum"][0])
        if as_list(schema.get("allOf")):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                value = self._example(part, depth + 1, seen)
                if isinstance(value, dict):
                    merged.update(value)
                elif value is not None and not merged:
                    return value
            own = {k: v for k, v in schema.items() if k != "allOf"}
            if own.get("properties"):
                value = self._example(own, depth + 1, seen)
                if isinstance(value, dict):
                    merged.update(value)
            return merged
        for key in ("oneOf", "anyOf"):
            if as_list(schema.get(key)):
                return self._example(schema[key][0], depth + 1, seen)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or (kind is None and "properties" in schema):
            out: dict[str, Any] = {}
            for name, prop in as_dict(schema.get("properties")).items():
                if as_dict(prop).get("$ref") in seen:
                    continue  # a schema inside itself: left out rather than sent as null
                if not _read_only(prop, self.resolve(prop)):
                    out[str(name)] = self._example(prop, depth + 1, seen)
            return out
        if kind == "array":
            item = self._example(as_dict(schema.get("items")), depth + 1, seen)
            return [] if item is None else [item]
        if kind == "string":
            return _FORMAT_EXAMPLES.get(as_text(schema.get("format")), "string")
        low = schema.get("minimum")
        low = low if isinstance(low, (int, float)) and not isinstance(low, bool) else 0
        if kind == "integer":
            return math.ceil(low)
        if kind == "number":
            return low
        if kind == "boolean":
            return False
        return None

    # -- security --

    def _auth_variable_names(self) -> set[str]:
        """Variable names that auth may use: path parameters get other names."""
        names = {"base_url"}
        for name, scheme in self.schemes.items():
            scheme = self.resolve(scheme)
            kind, http = as_text(scheme.get("type")), as_text(scheme.get("scheme")).lower()
            if kind in ("oauth2", "openIdConnect") or (kind == "http" and http == "bearer"):
                names.update(("token", "client_id", "client_secret"))
            elif kind == "http" and http == "basic":
                names.update(("username", "password"))
            elif kind == "apiKey":
                names.add(_key_variable(str(name)))
        return names

    def _security(self, requirements: Any, where: str) -> _Security | None:
        """What a ``security`` list asks of a request (``None`` if it is not a list).

        Alternatives are tried in order and the first that can be carried over whole is
        used; an empty list (or ``{}``) means no auth.
        """
        if not isinstance(requirements, list):
            return None
        alternatives = [r for r in requirements if isinstance(r, dict)]
        if not alternatives:
            return _Security(Auth(type="none"))
        tried = [self._requirement(r, where) for r in alternatives]
        pick = next((i for i, (_, lost) in enumerate(tried) if not lost), 0)
        sec, lost = tried[pick]
        if len(alternatives) > 1:
            label = [" and ".join(map(str, r)) or "no auth" for r in alternatives]
            self.result.note(f"{where}: accepts {' or '.join(label)}; imported with {label[pick]}")
        for message in [*lost, *sec.info]:
            self.result.note(message)
        for var in sec.variables:
            self.result.variables.setdefault(var, "")
        return sec

    def _requirement(self, requirement: dict[str, Any], where: str) -> tuple[_Security, list[str]]:
        """One requirement (schemes needed together) and notes on what it loses.

        Bearer and basic come first as auth; API keys then fill the auth if it is still
        free, else are sent as headers, query parameters or cookies of their own.
        """
        sec = _Security(Auth(type="none"))
        lost: list[str] = []
        schemes = [
            (str(n), self.resolve(self.schemes.get(n)) if n in self.schemes else None)
            for n in requirement
        ]
        schemes.sort(key=lambda item: as_text(as_dict(item[1]).get("type")) == "apiKey")
        for name, scheme in schemes:
            if not scheme:
                lost.append(f"{where}: security scheme {name!r} is not defined")
                continue
            kind, http = as_text(scheme.get("type")), as_text(scheme.get("scheme")).lower()
            free = sec.auth.type == "none"
            if kind == "apiKey":
                self._api_key(name, scheme, sec, where, lost)
            elif kind in ("oauth2", "openIdConnect") or (
                kind == "http" and http in ("bearer", "basic")
            ):
                if not free:
                    lost.append(f"{where}: {name} is needed too; only one auth is carried over")
                    continue
                oauth2 = _oauth2(scheme, requirement.get(name)) if kind == "oauth2" else None
                if oauth2 is not None:
                    sec.auth, flow = oauth2
                    sec.variables += ["client_id", "client_secret"]
                    if sec.auth.oauth2.grant == "password":
                        sec.variables += ["username", "password"]
                    sec.info.append(
                        f"{where}: oauth2 ({name}): the {flow} flow; set {{{{client_id}}}} and "
                        "{{client_secret}} (in .env for a secret)"
                    )
                    continue
                if http == "basic":
                    sec.auth = Auth(type="basic", username="{{username}}", password="{{password}}")
                    sec.variables += ["username", "password"]
                else:
                    sec.auth = Auth(type="bearer", token="{{token}}")
                    sec.variables.append("token")
                if kind != "http":
                    sec.info.append(
                        f"{where}: {kind} ({name}): Pigeon does not run the flow; "
                        "get a token and set {{token}}"
                    )
            elif kind == "http":
                lost.append(f"{where}: HTTP {http or 'unknown'} auth ({name}) is not supported")
            elif kind == "mutualTLS":
                self._mutual_tls(name, where)
            else:
                lost.append(
                    f"{where}: security scheme {name!r} ({kind or 'unknown'}) is not carried over"
                )
        return sec, lost

    def _mutual_tls(self, name: str, where: str) -> None:
        """A client certificate for every server host, its files named by the user."""
        urls = [as_text(e.variables.get("base_url")) for e in self.result.environments]
        hosts = sorted({h for h in map(host_of, urls) if h})
        for host in hosts or ["*"]:
            if not any(c["host"] == host for c in self.result.certificates):
                self.result.certificates.append(
                    {"host": host, "cert": "client.pem", "key": "client.key"}
                )
        self.result.note(
            f"{where}: {name} needs a client certificate: put client.pem and client.key in "
            "the collection, or change [[certificates]] in collection.toml"
        )

    def _api_key(
        self, name: str, scheme: dict[str, Any], sec: _Security, where: str, lost: list[str]
    ) -> None:
        location, key = as_text(scheme.get("in")), as_text(scheme.get("name"))
        var = _key_variable(name)
        value = "{{" + var + "}}"
        if not key or location not in ("header", "query", "cookie"):
            lost.append(f"{where}: API key {name} has no name or place; not carried over")
            return
        sec.variables.append(var)
        if location == "cookie":
            sec.cookies.append(f"{key}={value}")
            sec.info.append(f"{where}: API key {name} is a cookie: sent in a Cookie header")
        elif sec.auth.type == "none":
            sec.auth = Auth(type="api_key", key=key, value=value, location=location)
        elif location == "header":
            sec.headers.append(Header(key, value))
        else:
            sec.query.append(QueryParam(key, value))


def _key_variable(scheme_name: str) -> str:
    """The variable holding an API key: the scheme's name, as a variable name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", scheme_name).strip("_") or "api_key"
