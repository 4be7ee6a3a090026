"""Import Insomnia exports: v4 JSON (``_type: export``, ``__export_format: 4``) and v5 YAML
(``type: collection.insomnia.rest/5.0``).

Both are read into one tree (folders holding requests and folders) and walked once. Folders
keep their variables, headers and auth; the base environment's values become the collection's
variables and each sub environment a Pigeon environment, so a sub environment still wins over
the base. ``{{ _.var }}`` and ``{{var}}`` become ``{{var}}``; ``{% uuid %}`` and ``{% now %}``
become Pigeon's ``{{$uuid}}`` and ``{{$timestamp}}``; any other Nunjucks tag or filter
(``{% response ... %}``, ``{{ _.x | upper }}``) is kept as text, noted, since Pigeon does not
run it. A file body or a file field is named, never read, and one outside the export's
directory is left off (noted). Secret-looking values (passwords, tokens, keys) go to the
collection's ``.env`` as ``{{$env.NAME}}``. Scripts are JavaScript: their text goes into the
description, with a note. The cookie jar, WebSocket and gRPC requests and the rest Pigeon has
no place for get one note each.

Why one module: v4 and v5 hold the same parts under different keys; one walker reads both.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    LocalFiles,
    as_dict,
    as_list,
    as_text,
    clean_header,
    file_body,
    folder_path,
    hawk_algorithm,
    oauth1_signature,
    safe_name,
    set_aside,
    split_query,
)
from pigeon.importers.documents import load_json, load_yaml
from pigeon.masking import secret_name
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

V5_COLLECTION = "collection.insomnia.rest/5"
# v4 resource types Pigeon has no place for, as the note names them.
_OTHER_RESOURCES = {
    "websocket_request": "WebSocket request",
    "websocket_payload": "WebSocket payload",
    "grpc_request": "gRPC request",
    "unit_test_suite": "unit test suite",
    "unit_test": "unit test",
    "api_spec": "API design document",
    "proto_file": "proto file",
    "proto_directory": "proto folder",
    "mock": "mock server",
    "mock_route": "mock route",
}
_GRANTS = {
    "authorization_code": "authorization_code",
    "client_credentials": "client_credentials",
    "password": "password",
    "refresh_token": "refresh_token",
}
# {{ _.name }}, {{ name }}, {{ _['name'] }} and dotted paths: what Pigeon reads the same way.
_VARIABLE = re.compile(
    r"\{\{\s*(?:_\s*\.\s*)?([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)\s*\}\}"
)
_BRACKETED = re.compile(r"""\{\{\s*_\s*\[\s*(['"])([^'"{}]+)\1\s*\]\s*\}\}""")
_TAG = re.compile(r"\{%\s*(\w+)([^%]*)%\}")
_OTHER_EXPR = re.compile(r"\{\{(?!\s*\$)[^{}]*\}\}")
_TAGS = {"uuid": "{{$uuid}}"}
_NOW = {"millis": "{{$timestamp}}", "unix": "{{$timestamp}}", "iso-8601": "{{$isoTimestamp}}"}


def parse_insomnia(
    text: str, path: Path | None = None, allow_outside: bool = False
) -> ImportResult:
    """Parse an Insomnia v4 (JSON) or v5 (YAML) export.

    A file the export names outside its directory (the current directory without ``path``)
    is not referred to, unless ``allow_outside``: a file field naming it is kept switched off
    and a file body is left off, each noted."""
    data = load_json(text, path) if text.lstrip().startswith("{") else load_yaml(text, path)
    if not isinstance(data, dict):
        raise ImportFailed("not an Insomnia export (expected an object at the top)", path)
    files = LocalFiles(path.parent if path else Path.cwd(), allow_outside)
    kind = as_text(data.get("type"))
    if data.get("_type") == "export":
        version = data.get("__export_format")
        if version != 4:
            raise ImportFailed(
                f"Insomnia export format {as_text(version) or '(none)'} is not supported "
                "(export again from Insomnia: format 4 or 5)",
                path,
            )
        return _Insomnia(files).v4(data)
    if kind.startswith(V5_COLLECTION):
        return _Insomnia(files).v5(data)
    if kind.startswith("spec.insomnia.rest/"):
        if not as_list(data.get("collection")):
            raise ImportFailed(
                "an Insomnia design document with no requests: import its OpenAPI spec with "
                "pigeon import openapi",
                path,
            )
        result = _Insomnia(files).v5(data)
        if data.get("spec"):
            result.note(
                "the design document's OpenAPI spec is not imported (pigeon import openapi "
                "reads it); its requests are"
            )
        return result
    if kind.startswith("environment.insomnia.rest/"):
        return _Insomnia(files).global_environments(data)
    raise ImportFailed(
        "not an Insomnia export (no _type: export, and no type: collection.insomnia.rest/5.0)"
        if not kind
        else f"an Insomnia {kind.split('.')[0]} file has no requests to import",
        path,
    )


def _sort_key(node: dict[str, Any]) -> tuple[float, str]:
    meta = as_dict(node.get("meta"))
    key = node.get("metaSortKey", meta.get("sortKey"))
    number = float(key) if isinstance(key, (int, float)) and key == key else 0.0
    return number, as_text(node.get("name"))


def _description(node: dict[str, Any]) -> str:
    """A node's description: v4 keeps it on the node, v5 in its ``meta``."""
    return as_text(node.get("description")) or as_text(as_dict(node.get("meta")).get("description"))


class _Insomnia:
    def __init__(self, files: LocalFiles) -> None:
        self.files = files
        self.result = ImportResult()
        self._folder_paths: set[str] = set()
        self._kept_tags: set[str] = set()

    # -- the two formats, as one tree --

    def v4(self, data: dict[str, Any]) -> ImportResult:
        resources = [r for r in as_list(data.get("resources")) if isinstance(r, dict)]
        children: dict[str, list[dict[str, Any]]] = {}
        for res in resources:
            children.setdefault(as_text(res.get("parentId")), []).append(res)
        workspaces = [r for r in resources if r.get("_type") == "workspace"]
        if len(workspaces) > 1:
            self.result.note(
                f"the export holds {len(workspaces)} workspaces; all are imported into one "
                "collection, each as a folder"
            )
        other: dict[str, int] = {}
        for res in resources:
            what = _OTHER_RESOURCES.get(as_text(res.get("_type")))
            if what:
                other[what] = other.get(what, 0) + 1
            elif res.get("_type") == "cookie_jar" and as_list(res.get("cookies")):
                self.result.note(
                    "the cookie jar is not imported (Pigeon keeps the cookies a server sets)"
                )
        for what, count in other.items():
            self.result.note(f"{count} {what}{'s' if count != 1 else ''} not imported")

        seen: set[str] = set()  # ids walked: a parentId loop must not loop the walk

        def tree(parent_id: str, depth: int) -> list[dict[str, Any]]:
            out = []
            for res in sorted(children.get(parent_id, []), key=_sort_key):
                rid = as_text(res.get("_id"))
                if rid in seen:
                    continue
                seen.add(rid)
                if res.get("_type") == "request_group":
                    if depth > 100:
                        self.result.note(f"folder {res.get('name')!r} nests too deep; skipped")
                        continue
                    out.append({**res, "children": tree(rid, depth + 1)})
                elif res.get("_type") == "request":
                    out.append(res)
            return out

        if len(workspaces) == 1:
            ws = workspaces[0]
            self.result.name = as_text(ws.get("name"))
            self.result.description = as_text(ws.get("description"))
            items = tree(as_text(ws.get("_id")), 0)
        else:
            items = [
                {"name": ws.get("name"), "children": tree(as_text(ws.get("_id")), 0)}
                for ws in workspaces
            ]
        if not workspaces:  # an export of requests alone: the roots are what has no parent
            known = {as_text(r.get("_id")) for r in resources}
            roots = {as_text(r.get("parentId")) for r in resources} - known
            items = [item for root in sorted(roots) for item in tree(root, 0)]
        self._items(items, "")
        ws_ids = {as_text(w.get("_id")) for w in workspaces}
        envs = [r for r in resources if r.get("_type") == "environment"]
        bases = [e for e in envs if as_text(e.get("parentId")) in ws_ids or not ws_ids]
        base_ids = {as_text(e.get("_id")) for e in bases}
        for base in bases:
            if as_text(base.get("parentId")) not in base_ids:
                self._base(base)
        for env in envs:
            if as_text(env.get("parentId")) in base_ids:
                self._environment(env)
        return self.result

    def v5(self, data: dict[str, Any]) -> ImportResult:
        self.result.name = as_text(data.get("name"))
        self.result.description = _description(data)
        if as_list(as_dict(data.get("cookieJar")).get("cookies")):
            self.result.note(
                "the cookie jar is not imported (Pigeon keeps the cookies a server sets)"
            )
        self._items(as_list(data.get("collection")), "")
        envs = data.get("environments")
        bases = [e for e in (envs if isinstance(envs, list) else [envs]) if isinstance(e, dict)]
        for n, base in enumerate(bases):
            if n == 0:
                self._base(base)
            else:  # a list of environments (an early v5): the first is the base
                self._environment(base)
            for sub in as_list(base.get("subEnvironments")):
                if isinstance(sub, dict):
                    self._environment(sub)
        return self.result

    def global_environments(self, data: dict[str, Any]) -> ImportResult:
        """Global environments (``environment.insomnia.rest/5.0``): each one, and each of its sub
        environments over it, a Pigeon environment (there is no collection to hold a base)."""
        envs = data.get("environments")
        for base in (
            e for e in (envs if isinstance(envs, list) else [envs]) if isinstance(e, dict)
        ):
            self._environment(base)
            for sub in as_list(base.get("subEnvironments")):
                if isinstance(sub, dict):
                    merged = {**as_dict(base.get("data")), **as_dict(sub.get("data"))}
                    self._environment({**sub, "data": merged})
        return self.result

    # -- walking --

    def _items(self, items: list[Any], folder: str) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            name = safe_name(as_text(item.get("name")), "untitled", folder="children" in item)
            where = f"{folder}/{name}" if folder else name
            if "children" in item:
                self._folder(item, folder, name)
                continue
            meta_id = as_text(as_dict(item.get("meta")).get("id"))
            if meta_id.startswith(("ws-req", "greq")) or "protoMethodName" in item:
                what = "WebSocket" if meta_id.startswith("ws-req") else "gRPC"
                self.result.note(f"{where}: a {what} request; not imported")
                continue
            self.result.requests.append((folder, self._request(item, name, where)))

    def _folder(self, item: dict[str, Any], parent: str, name: str) -> None:
        path = folder_path(self._folder_paths, parent, name, self.result)
        where = f"folder {path}"
        settings = Folder(name=path.rsplit("/", 1)[-1], id=path)
        settings.variables = self._values(as_dict(item.get("environment")), where, "")
        settings.headers = self._headers(item.get("headers"), where)
        settings.auth = self._auth(item.get("authentication"), where)
        description = "\n\n".join(
            p for p in (_description(item), self._scripts(item, where)) if p.strip()
        )
        if description:
            settings.extra["description"] = description
        children = as_list(item.get("children"))
        if (
            settings.auth is not None
            or settings.headers
            or settings.variables
            or settings.extra
            or not children
        ):
            self.result.folders.append(settings)
        self._items(children, path)

    def _request(self, item: dict[str, Any], name: str, where: str) -> Request:
        req = Request(name=name, method=(as_text(item.get("method")) or "GET").upper().strip())
        req.url = self._text(as_text(item.get("url")).strip(), where)
        params = as_list(item.get("parameters"))
        if params:
            for p in params:
                if isinstance(p, dict) and as_text(p.get("name")):
                    req.query.append(
                        QueryParam(
                            self._text(as_text(p["name"]), where),
                            self._text(as_text(p.get("value")), where),
                            enabled=not p.get("disabled", False),
                        )
                    )
        else:
            req.url, req.query = split_query(req.url)
        self._path_parameters(item, req, where)
        req.headers = self._headers(item.get("headers"), where)
        req.body = self._body(as_dict(item.get("body")), req, where)
        req.auth = self._auth(item.get("authentication"), where)
        settings = as_dict(item.get("settings"))
        follow = settings.get("followRedirects", item.get("settingFollowRedirects"))
        if follow in ("on", "off"):
            req.settings.follow_redirects = follow == "on"
        send = as_dict(settings.get("cookies")).get("send", item.get("settingSendCookies"))
        if send is False:
            req.settings.send_cookies = False
        req.description = "\n\n".join(
            p for p in (_description(item), self._scripts(item, where)) if p.strip()
        )
        return req

    def _path_parameters(self, item: dict[str, Any], req: Request, where: str) -> None:
        """``/users/:id`` with a path parameter ``id`` -> ``/users/{{id}}``, its value a request
        variable."""
        for p in as_list(item.get("pathParameters")):
            if not isinstance(p, dict) or not re.fullmatch(r"\w+", as_text(p.get("name"))):
                continue
            key = as_text(p["name"])
            new = re.sub(r"/:" + key + r"(?=[/?#]|$)", "/{{" + key + "}}", req.url)
            if new != req.url:
                req.url = new
                req.variables[key] = self._text(as_text(p.get("value")), where)

    # -- templates --

    def _text(self, text: str, where: str) -> str:
        """Insomnia's Nunjucks template as a Pigeon template: variables and the few tags Pigeon
        has; anything else kept as written, noted once per kind of tag."""
        if "{" not in text:
            return text
        text = _BRACKETED.sub(lambda m: "{{" + m.group(2) + "}}", text)
        text = _VARIABLE.sub(lambda m: "{{" + m.group(1) + "}}", text)

        def tag(m: re.Match[str]) -> str:
            name = m.group(1)
            first = re.match(r"""\s*['"]?([\w-]*)""", m.group(2))
            arg = (first.group(1) if first else "") or "iso-8601"
            if name in _TAGS:
                return _TAGS[name]
            if name == "now" and arg in _NOW:
                return _NOW[arg]
            if name not in self._kept_tags:
                self._kept_tags.add(name)
                self.result.note(
                    f"{where}: Insomnia's {{% {name} %}} tag is not run by Pigeon; kept as "
                    "text (replace it with a variable)"
                )
            return m.group(0)

        text = _TAG.sub(tag, text)
        for m in _OTHER_EXPR.finditer(text):
            if _VARIABLE.fullmatch(m.group(0)) is None and "|" not in self._kept_tags:
                self._kept_tags.add("|")
                self.result.note(
                    f"{where}: {m.group(0)} (a Nunjucks filter or expression) is not run by "
                    "Pigeon; kept as text"
                )
        return text

    def _values(self, data: dict[str, Any], where: str, source: str) -> dict[str, Any]:
        """Environment data as variables: templates converted, secret-looking literal values
        set aside for ``.env`` (``source`` names the environment, "" for a folder's)."""
        out: dict[str, Any] = {}
        for key, value in data.items():
            value = self._convert(value, where)
            if isinstance(value, str) and secret_name(str(key)) and value:
                value = set_aside(self.result, f"{source}_{key}" if source else str(key),
                                  value, f"{where}", where)  # fmt: skip
            out[str(key)] = value
        return out

    def _convert(self, value: Any, where: str) -> Any:
        if isinstance(value, str):
            return self._text(value, where)
        if isinstance(value, dict):
            return {k: self._convert(v, where) for k, v in value.items()}
        if isinstance(value, list):
            return [self._convert(v, where) for v in value]
        return value

    # -- environments --

    def _base(self, env: dict[str, Any]) -> None:
        self.result.variables.update(
            self._values(as_dict(env.get("data")), "the base environment", "")
        )

    def _environment(self, env: dict[str, Any]) -> None:
        name = safe_name(as_text(env.get("name")), "environment")
        where = f"environment {name}"
        self.result.environments.append(
            Environment(name=name, variables=self._values(as_dict(env.get("data")), where, name))
        )

    # -- parts --

    def _headers(self, raw: Any, where: str) -> list[Header]:
        out = []
        for h in as_list(raw):
            if not isinstance(h, dict) or not as_text(h.get("name")).strip():
                continue
            header = clean_header(
                self._text(as_text(h["name"]), where),
                self._text(as_text(h.get("value")), where),
                not h.get("disabled", False),
                where,
                self.result,
            )
            if header is not None:
                out.append(header)
        return out

    def _scripts(self, item: dict[str, Any], where: str) -> str:
        scripts = as_dict(item.get("scripts"))
        parts = []
        for label, code in (
            ("pre-request", scripts.get("preRequest", item.get("preRequestScript"))),
            ("after-response", scripts.get("afterResponse", item.get("afterResponseScript"))),
        ):
            code = as_text(code)
            if not code.strip():
                continue
            self.result.note(
                f"{where}: Insomnia {label} script (JavaScript) is not run by Pigeon; its text "
                "is kept in the description"
            )
            parts.append(f"Insomnia {label} script (JavaScript, not run by Pigeon):\n```js\n"
                         f"{code}\n```")  # fmt: skip
        return "\n\n".join(parts)

    def _content_type(self, req: Request, mime: str, pigeon_sets: bool) -> None:
        """Leave the request's Content-Type out when Pigeon sets the same one for this body."""
        if pigeon_sets:
            req.headers = [
                h
                for h in req.headers
                if h.name.lower() != "content-type" or h.value.split(";")[0].strip().lower() != mime
            ]
        elif mime and not any(h.name.lower() == "content-type" for h in req.headers):
            req.headers.append(Header("Content-Type", mime))

    def _body(self, body: dict[str, Any], req: Request, where: str) -> Body:
        mime = as_text(body.get("mimeType")).split(";")[0].strip().lower()
        text = self._text(as_text(body.get("text")), where)
        if mime == "multipart/form-data":
            self._content_type(req, mime, True)
            req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return Body(type="multipart", fields=self._fields(body, where, multipart=True))
        if mime == "application/x-www-form-urlencoded":
            self._content_type(req, mime, True)
            return Body(type="form", fields=self._fields(body, where, multipart=False))
        if "fileName" in body:
            ref = as_text(body.get("fileName"))
            if not ref:
                self.result.note(f"{where}: its file body has no file chosen; set its path")
                return Body(type="file")
            found = file_body(ref, self.files, self.result, f"{where}: file body")
            if found is None:
                return Body()
            self.result.note(f"{where}: file body {ref} is named, not copied: it is read when sent")
            if mime:
                found.content_type = mime
                req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return found
        if mime == "application/graphql":
            return self._graphql(text, req, where)
        if not text and not mime:
            return Body()
        if re.fullmatch(r"application/([\w.+-]*\+)?json", mime):
            self._content_type(req, "application/json", True)
            if mime != "application/json":
                self._content_type(req, mime, False)
            return Body(type="json", content=text)
        self._content_type(req, mime, False)
        return Body(type="text", content=text)

    def _graphql(self, text: str, req: Request, where: str) -> Body:
        try:
            doc = json.loads(text) if text.strip() else {}
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            self.result.note(f"{where}: its GraphQL body is not JSON; imported as the query")
            return Body(type="graphql", query=text)
        self._content_type(req, "application/json", True)
        variables = doc.get("variables")
        if isinstance(variables, (dict, list)):
            variables = json.dumps(variables, indent=2, ensure_ascii=False)
        variables = as_text(variables)
        return Body(
            type="graphql",
            query=as_text(doc.get("query")),
            variables="" if variables.strip() in ("", "{}") else variables,
            operation_name=as_text(doc.get("operationName")),
        )

    def _fields(self, body: dict[str, Any], where: str, multipart: bool) -> list[FormField]:
        out = []
        for p in as_list(body.get("params")):
            if not isinstance(p, dict) or p.get("name") is None:
                continue
            name = self._text(as_text(p["name"]), where)
            enabled = not p.get("disabled", False)
            if p.get("type") == "file":
                if not multipart:
                    self.result.note(f"{where}: file field {name} in a form body; dropped")
                    continue
                ref = as_text(p.get("fileName"))
                if not ref:
                    self.result.note(f"{where}: form field {name} has no file chosen; set its path")
                elif "{{" not in ref:
                    if self.files.allowed(ref, self.result) is None:
                        enabled = False  # sending it would read a file outside
                    else:  # named where it is, as the export's directory sees it
                        ref = os.path.abspath(self.files.root / os.path.expanduser(ref))
                out.append(FormField(name, ref, enabled, "file", as_text(p.get("contentType"))))
                continue
            value = self._text(as_text(p.get("value")), where)
            out.append(FormField(name, value, enabled, "text", as_text(p.get("contentType"))))
        return out

    # -- auth --

    def _secret(self, value: Any, hint: str, where: str) -> str:
        return set_aside(self.result, hint, self._text(as_text(value), where), where, where)

    def _auth(self, raw: Any, where: str) -> Auth | None:
        auth = as_dict(raw)
        kind = as_text(auth.get("type"))
        if not kind or kind == "inherit":
            return None
        if auth.get("disabled") is True:
            self.result.note(
                f"{where}: its {kind} auth is switched off in Insomnia; imported as none"
            )
            return Auth(type="none")
        t = {k: self._text(as_text(v), where) for k, v in auth.items() if not isinstance(v, bool)}
        if kind == "none":
            return Auth(type="none")
        if kind in ("basic", "digest", "ntlm"):
            user = t.get("username", "")
            domain = ""
            if kind == "ntlm" and "\\" in user:
                domain, _, user = user.partition("\\")
            if kind == "basic" and auth.get("useISO88591"):
                self.result.note(f"{where}: basic auth in ISO 8859-1 is sent as UTF-8 by Pigeon")
            return Auth(
                type=kind,
                username=user,
                password=self._secret(auth.get("password"), f"{kind}_password", where),
                domain=domain,
            )
        if kind == "bearer":
            token = self._secret(auth.get("token"), "bearer_token", where)
            prefix = t.get("prefix", "").strip()
            if prefix and prefix.lower() != "bearer":
                return Auth(type="api_key", key="Authorization", value=f"{prefix} {token}")
            return Auth(type="bearer", token=token)
        if kind == "apikey":
            add_to = t.get("addTo", "header")
            if add_to == "cookie":
                self.result.note(f"{where}: an API key sent as a cookie is not carried over")
                return None
            return Auth(
                type="api_key",
                key=t.get("key") or "X-Api-Key",
                value=self._secret(auth.get("value"), "api_key", where),
                location="query" if add_to == "queryParams" else "header",
            )
        if kind == "oauth2":
            return self._oauth2(auth, t, where)
        if kind == "oauth1":
            return self._oauth1(auth, t, where)
        if kind == "hawk":
            algorithm = hawk_algorithm(t.get("algorithm") or "sha256", where, self.result)
            return Auth(
                type="hawk",
                hawk_id=t.get("id", ""),
                hawk_key=self._secret(auth.get("key"), "hawk_key", where),
                hawk_algorithm=algorithm,
                hawk_ext=t.get("ext", ""),
                hawk_payload="skip" if auth.get("validatePayload") is False else "hash",
            )
        if kind == "iam":
            result = Auth(
                type="aws_sigv4",
                access_key=t.get("accessKeyId", ""),
                secret_key=self._secret(
                    auth.get("secretAccessKey"), "aws_secret_access_key", where
                ),
                session_token=self._secret(auth.get("sessionToken"), "aws_session_token", where),
                region=t.get("region") or "us-east-1",
                service=t.get("service") or "execute-api",
            )
            if not t.get("service"):
                self.result.note(f"{where}: AWS IAM auth names no service; execute-api is used")
            return result
        self.result.note(
            f"{where}: Insomnia's {kind} auth is not supported by Pigeon; not carried over"
        )
        return None

    def _oauth2(self, auth: dict[str, Any], t: dict[str, str], where: str) -> Auth:
        grant = _GRANTS.get(t.get("grantType", "authorization_code"))
        prefix = t.get("tokenPrefix", "").strip() or "Bearer"
        if grant is None or not t.get("accessTokenUrl"):
            self.result.note(
                f"{where}: Insomnia's OAuth 2.0 {t.get('grantType', '')} flow is not run by "
                "Pigeon; imported as the token alone, {{access_token}}: set it"
            )
            if prefix == "Bearer":
                return Auth(type="bearer", token="{{access_token}}")
            return Auth(type="api_key", key="Authorization", value=f"{prefix} {{{{access_token}}}}")
        oauth2 = OAuth2(
            grant=grant,
            token_url=t.get("accessTokenUrl", ""),
            auth_url=t.get("authorizationUrl", ""),
            client_id=t.get("clientId", ""),
            client_secret=self._secret(auth.get("clientSecret"), "client_secret", where),
            scope=t.get("scope", ""),
            audience=t.get("audience", ""),
            redirect_uri=t.get("redirectUrl", ""),
            refresh_token=self._secret(auth.get("refreshToken"), "refresh_token", where),
            client_auth="body" if auth.get("credentialsInBody") is True else "basic",
            header_prefix=prefix,
        )
        if t.get("accessToken"):
            self.result.note(
                f"{where}: OAuth 2.0: the saved access token is left behind; Pigeon fetches its own"
            )
        password = grant == "password"
        return Auth(
            type="oauth2",
            username=t.get("username", "") if password else "",
            password=self._secret(auth.get("password"), "oauth2_password", where)
            if password
            else "",
            oauth2=oauth2,
        )

    def _oauth1(self, auth: dict[str, Any], t: dict[str, str], where: str) -> Auth:
        method = oauth1_signature(t.get("signatureMethod") or "", where, self.result)
        result = Auth(
            type="oauth1",
            consumer_key=t.get("consumerKey", ""),
            consumer_secret=self._secret(auth.get("consumerSecret"), "consumer_secret", where),
            token=t.get("tokenKey", ""),
            token_secret=self._secret(auth.get("tokenSecret"), "token_secret", where),
            signature_method=method,
            realm=t.get("realm", ""),
            callback=t.get("callback", ""),
            verifier=t.get("verifier", ""),
            private_key=self._secret(auth.get("privateKey"), "private_key", where),
        )
        for fixed in ("timestamp", "nonce"):
            if t.get(fixed):
                self.result.note(f"{where}: OAuth 1.0a's fixed {fixed} is made anew for each send")
        return result
