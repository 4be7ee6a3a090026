"""Import an OpenAPI 3 description (JSON or YAML): one request per operation.

Operations are grouped into folders by their first tag. Path parameters become
placeholders (``/users/{id}`` -> ``/users/{{id}}``) whose example values are collection
variables; required query and header parameters are enabled, optional ones are kept
disabled. A JSON body is built from the request body's examples or, failing that, from its
schema (``$ref``, ``allOf``, ``oneOf``, enums and formats; nesting is depth-limited).
Each server becomes an environment holding ``base_url``; security schemes become auth
whose secrets are ``{{token}}``-style variables.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from pigeon.importers import ImportFailed, ImportResult
from pigeon.model import Auth, Body, Environment, FormField, Header, QueryParam, Request
from pigeon.store import slugify

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_DEPTH = 8
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


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one: malformed input is skipped, not fatal."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _load(text: str, path: Path | None) -> dict[str, Any]:
    stripped = text.lstrip()
    try:
        data = json.loads(text) if stripped.startswith("{") else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(f"not JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise ImportFailed(
            f"not YAML: {getattr(exc, 'problem', None) or exc}", path, line, column
        ) from None
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


def _s(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _plain(value: Any) -> Any:
    """YAML dates and other non-JSON values as JSON-ready values."""
    return json.loads(json.dumps(value, default=str))


class _OpenAPI:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        info = _dict(doc.get("info"))
        self.result = ImportResult(
            name=_s(info.get("title")), description=_s(info.get("description"))
        )
        self.schemes = _dict(_dict(doc.get("components")).get("securitySchemes"))
        self._servers(_list(doc.get("servers")))
        global_security = doc.get("security")
        self.result.auth = self._security(global_security, "the API") if global_security else None
        self.global_security = global_security
        for route, item in _dict(doc.get("paths")).items():
            item = self.resolve(item)
            if not isinstance(item, dict):
                continue
            shared = _list(item.get("parameters"))
            for method in HTTP_METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    self._operation(str(route), method, op, shared)

    # -- references --

    def resolve(self, node: Any, seen: tuple[str, ...] = ()) -> Any:
        """Follow ``$ref`` within the document; an external or broken one gives ``{}``."""
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                self.result.note(f"external reference {ref} is not followed")
                return {}
            if ref in seen:
                return {}
            seen = (*seen, ref)
            target: Any = self.doc
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if isinstance(target, dict) and part in target:
                    target = target[part]
                else:
                    self.result.note(f"reference {ref} does not resolve")
                    return {}
            node = target
        return _dict(node)

    # -- servers --

    def _servers(self, servers: list[Any]) -> None:
        used: set[str] = set()
        for i, server in enumerate(servers, 1):
            if not isinstance(server, dict) or not server.get("url"):
                continue
            url = _s(server["url"])
            for name, var in _dict(server.get("variables")).items():
                url = url.replace("{" + name + "}", _s(_dict(var).get("default")))
            url = url.rstrip("/")
            name = slugify(_s(server.get("description"))) or f"server-{i}"
            base, n = name, 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            used.add(name)
            self.result.environments.append(Environment(name=name, variables={"base_url": url}))
            self.result.variables.setdefault("base_url", url)
            if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):
                self.result.note(f"server {url!r} is relative; set base_url to the full address")
        if not servers:
            self.result.variables["base_url"] = ""
            self.result.note("no servers: set base_url before sending")

    # -- operations --

    def _operation(self, route: str, method: str, op: dict[str, Any], shared: list[Any]) -> None:
        tags = _list(op.get("tags"))
        folder = _s(tags[0]).replace("/", "-").strip() if tags else ""
        name = _s(op.get("summary")) or _s(op.get("operationId")) or f"{method.upper()} {route}"
        where = f"{method.upper()} {route}"
        req = Request(name=name.strip(), method=method.upper())
        req.description = _s(op.get("description"))
        if op.get("deprecated"):
            req.description = ("Deprecated.\n\n" + req.description).strip()

        params: dict[tuple[str, str], dict[str, Any]] = {}
        for p in [*shared, *_list(op.get("parameters"))]:
            p = self.resolve(p)
            if isinstance(p, dict) and p.get("name") and p.get("in"):
                params[(_s(p["name"]), _s(p["in"]))] = p

        url_path = route
        for (pname, where_in), p in params.items():
            value = self._param_example(p)
            required = bool(p.get("required")) or where_in == "path"
            if where_in == "path":
                url_path = url_path.replace("{" + pname + "}", "{{" + pname + "}}")
                self.result.variables.setdefault(pname, value if value != "" else "")
            elif where_in == "query":
                if (
                    isinstance(value, list)
                    and p.get("explode", True)
                    and p.get("style", "form") == "form"
                ):
                    # form style, exploded (the default): one name=value pair per item
                    for item in value or [""]:
                        req.query.append(QueryParam(pname, _s(item), enabled=required))
                elif isinstance(value, list):
                    sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(_s(p.get("style")), ",")
                    req.query.append(
                        QueryParam(pname, sep.join(_s(v) for v in value), enabled=required)
                    )
                else:
                    req.query.append(QueryParam(pname, _s(value), enabled=required))
            elif where_in == "header":
                if pname.lower() in ("accept", "content-type", "authorization"):
                    continue  # described by content and security, not as parameters
                req.headers.append(Header(pname, _s(value), enabled=required))
            elif where_in == "cookie":
                req.headers.append(Header("Cookie", f"{pname}={_s(value)}", enabled=required))
        req.url = "{{base_url}}" + url_path
        if _list(op.get("servers")):
            self.result.note(f"{where}: its own servers are not carried over; it uses base_url")

        body = op.get("requestBody")
        if body is not None:
            req.body = self._body(self.resolve(body), req, where)

        security = op.get("security")
        if security is not None and security != self.global_security:
            req.auth = self._security(security, where) if security else Auth(type="none")
        self.result.requests.append((folder, req))

    def _param_example(self, p: dict[str, Any]) -> Any:
        if "example" in p:
            return _plain(p["example"])
        examples = p.get("examples")
        if isinstance(examples, dict):
            for ex in examples.values():
                ex = self.resolve(ex)
                if isinstance(ex, dict) and "value" in ex:
                    return _plain(ex["value"])
        schema = self.resolve(_dict(p.get("schema")))
        for key in ("example", "default"):
            if isinstance(schema, dict) and key in schema:
                return _plain(schema[key])
        if _list(schema.get("enum")):
            return _plain(schema["enum"][0])
        return ""

    def _body(self, body: dict[str, Any], req: Request, where: str) -> Body:
        content = _dict(body.get("content"))
        if not isinstance(content, dict) or not content:
            return Body()
        types = list(content)
        chosen = next((t for t in types if re.match(r"^application/([\w.+-]*\+)?json\b", t)), None)
        chosen = chosen or next(
            (t for t in types if t == "application/x-www-form-urlencoded"), None
        )
        chosen = chosen or next((t for t in types if t.startswith("multipart/form-data")), None)
        chosen = chosen or types[0]
        if len(types) > 1:
            self.result.note(f"{where}: body offered as {', '.join(types)}; imported as {chosen}")
        media = self.resolve(content[chosen]) or {}
        raw_schema = _dict(media.get("schema"))
        schema = self.resolve(raw_schema)
        example = self._media_example(media, raw_schema)
        if chosen.startswith("application/") and "json" in chosen:
            if chosen != "application/json":
                req.headers.append(Header("Content-Type", chosen))
            return Body(type="json", content=json.dumps(example, indent=2, ensure_ascii=False))
        if chosen in ("application/x-www-form-urlencoded",) or chosen.startswith(
            "multipart/form-data"
        ):
            multipart = chosen.startswith("multipart/")
            fields: list[FormField] = []
            values = example if isinstance(example, dict) else {}
            props = self._properties(schema)
            for key in props or values:
                prop = self.resolve(props.get(key, {})) if props else {}
                is_file = isinstance(prop, dict) and prop.get("format") in ("binary", "base64")
                value = values.get(key, "")
                fields.append(
                    FormField(
                        key,
                        "" if is_file else (value if isinstance(value, str) else _s(value)),
                        kind="file" if multipart and is_file else "text",
                    )
                )
                if multipart and is_file:
                    self.result.note(
                        f"{where}: file field {key!r}: set the path of the file to upload"
                    )
            return Body(type="multipart" if multipart else "form", fields=fields)
        req.headers.append(Header("Content-Type", chosen))
        text = example if isinstance(example, str) else ("" if example is None else _s(example))
        return Body(type="text", content=text)

    def _media_example(self, media: dict[str, Any], schema: Any) -> Any:
        if "example" in media:
            return _plain(media["example"])
        examples = media.get("examples")
        if isinstance(examples, dict):
            for ex in examples.values():
                ex = self.resolve(ex)
                if isinstance(ex, dict) and "value" in ex:
                    return _plain(ex["value"])
        return self.example(schema)

    def _properties(self, schema: Any, depth: int = 0) -> dict[str, Any]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return {}
        props = dict(_dict(schema.get("properties")))
        for part in _list(schema.get("allOf")):
            props.update(self._properties(part, depth + 1))
        return props

    def example(self, schema: Any, depth: int = 0, seen: tuple[str, ...] = ()) -> Any:
        """An example value for ``schema``: its own examples first, else one built from it."""
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
        if _list(schema.get("examples")):
            return _plain(schema["examples"][0])
        if _list(schema.get("enum")):
            return _plain(schema["enum"][0])
        if _list(schema.get("allOf")):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                value = self.example(part, depth + 1, seen)
                if isinstance(value, dict):
                    merged.update(value)
                elif value is not None and not merged:
                    return value
            own = {k: v for k, v in schema.items() if k != "allOf"}
            if own.get("properties"):
                value = self.example(own, depth + 1, seen)
                if isinstance(value, dict):
                    merged.update(value)
            return merged
        for key in ("oneOf", "anyOf"):
            if _list(schema.get(key)):
                return self.example(schema[key][0], depth + 1, seen)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or (kind is None and "properties" in schema):
            return {
                str(name): self.example(prop, depth + 1, seen)
                for name, prop in _dict(schema.get("properties")).items()
            }
        if kind == "array":
            item = self.example(_dict(schema.get("items")), depth + 1, seen)
            return [] if item is None else [item]
        if kind == "string":
            return _FORMAT_EXAMPLES.get(_s(schema.get("format")), "string")
        if kind == "integer":
            return int(schema.get("minimum", 0) or 0)
        if kind == "number":
            return schema.get("minimum", 0) or 0
        if kind == "boolean":
            return False
        return None

    # -- security --

    def _security(self, requirements: Any, where: str) -> Auth | None:
        if not isinstance(requirements, list):
            return None
        for requirement in requirements:
            if not isinstance(requirement, dict):
                continue
            if not requirement:
                return Auth(type="none")  # {} : anonymous access allowed
            names = list(requirement)
            if len(names) > 1:
                self.result.note(
                    f"{where}: needs {' and '.join(names)} together; only {names[0]} is carried over"
                )
            return self._scheme(names[0], where)
        return None

    def _scheme(self, name: str, where: str) -> Auth | None:
        scheme = self.resolve(self.schemes.get(name) or {})
        kind = _s(scheme.get("type"))
        variables = self.result.variables
        if kind == "http" and _s(scheme.get("scheme")).lower() == "bearer":
            variables.setdefault("token", "")
            return Auth(type="bearer", token="{{token}}")
        if kind == "http" and _s(scheme.get("scheme")).lower() == "basic":
            variables.setdefault("username", "")
            variables.setdefault("password", "")
            return Auth(type="basic", username="{{username}}", password="{{password}}")
        if kind == "apiKey":
            location = _s(scheme.get("in"))
            var = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "api_key"
            if location in ("header", "query"):
                variables.setdefault(var, "")
                return Auth(
                    type="api_key",
                    key=_s(scheme.get("name")),
                    value="{{" + var + "}}",
                    location=location,
                )
            self.result.note(
                f"{where}: API key in a cookie ({name}) is not carried over; add a Cookie header"
            )
            return None
        if kind in ("oauth2", "openIdConnect"):
            variables.setdefault("token", "")
            self.result.note(
                f"{where}: {kind} ({name}): Pigeon does not run the flow; get a token and set {{{{token}}}}"
            )
            return Auth(type="bearer", token="{{token}}")
        self.result.note(
            f"{where}: security scheme {name!r} ({kind or 'unknown'}) is not carried over"
        )
        return None
