"""A whole collection as a Postman v2.1 collection (`pigeon export postman DIR`, DESIGN §6,
§12): folders as item groups, variables, auth, headers, query and bodies, placeholders kept as
written (``{{name}}`` means the same in Postman), a file a body names made absolute.

Postman has no folder or collection headers: each request carries the ones it inherits, in
the order a render puts them. Scripts, environments and what Postman has no place for are not
written; :func:`to_postman` returns a note for each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

from pigeon.auth_kinds import POSTMAN, POSTMAN_FLAGS
from pigeon.model import Auth, Body, Collection, Folder, Header, Request

SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

_RAW_LANGUAGES = {"application/json": "json", "application/xml": "xml", "text/html": "html",
                  "application/javascript": "javascript"}  # fmt: skip


def _encoded(text: str) -> str:
    """Postman keeps query text as typed; Pigeon's import decodes it once (not a placeholder)."""
    return text if "{{" in text else quote_plus(text, safe="")


def _pairs(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": v, "type": "string"} for k, v in values.items()]


def _auth(auth: Auth | None, where: str, notes: list[str]) -> dict[str, Any] | None:
    if auth is None:
        return None  # inherit: Postman's default too
    if auth.type not in POSTMAN:
        notes.append(f"{where}: {auth.type} auth is not written (set it in Postman)")
        return None
    kind, fields = POSTMAN[auth.type]
    params = {key: getattr(auth, name) for key, name in fields.items()}
    if params.get("addParamsToHeader") == "body":
        notes.append(f"{where}: OAuth 1.0a's parameters in the body are written as in the query")
    if "consumerKey" in params and (auth.private_key or auth.private_key_file):
        notes.append(f"{where}: OAuth 1.0a's private key is not written (set it in Postman)")
    for key, yes in POSTMAN_FLAGS.items():
        if key in params:
            params[key] = params[key] == yes
    if "sessionToken" in params and not params["sessionToken"]:
        del params["sessionToken"]
    return {"type": kind, kind: _pairs(params)} if params else {"type": kind}


def _variables(values: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for key, value in values.items():
        text = value if isinstance(value, str) else json.dumps(value)
        out.append({"key": key, "value": text})
    return out


def _on_disk(path: str, root: Path) -> str:
    """A file a body names, absolute (Postman reads a file body's ``src`` from where it runs);
    one with a placeholder stays as written."""
    if "{{" in path or not path:
        return path
    return str((root / path).expanduser()) if not Path(path).is_absolute() else path


def _body(request: Request, root: Path, where: str, notes: list[str]) -> dict[str, Any] | None:
    body: Body = request.body
    if body.type == "json":
        return {"mode": "raw", "raw": body.content, "options": {"raw": {"language": "json"}}}
    if body.type == "text":
        ctype = next((h.value for h in request.headers if h.name.lower() == "content-type"), "")
        language = _RAW_LANGUAGES.get(ctype.split(";")[0].strip().lower(), "text")
        return {"mode": "raw", "raw": body.content, "options": {"raw": {"language": language}}}
    if body.type == "form":
        fields = [{"key": f.name, "value": f.value, "disabled": not f.enabled, "type": "text"}
                  for f in body.fields]  # fmt: skip
        return {"mode": "urlencoded", "urlencoded": fields}
    if body.type == "multipart":
        out = []
        for f in body.fields:
            item: dict[str, Any] = {"key": f.name, "disabled": not f.enabled}
            if f.kind == "file":
                item.update(type="file", src=_on_disk(f.value, root))
            else:
                item.update(type="text", value=f.value)
            if f.content_type:
                item["contentType"] = f.content_type
            out.append(item)
        return {"mode": "formdata", "formdata": out}
    if body.type == "graphql":
        return {"mode": "graphql",
                "graphql": {"query": body.query, "variables": body.variables or "{}"}}  # fmt: skip
    if body.type == "file":
        return {"mode": "file", "file": {"src": _on_disk(body.path, root)}}
    if body.type != "none":
        notes.append(f"{where}: a {body.type} body is not written")
    return None


def _merged(outer: list[Header], inner: list[Header]) -> list[Header]:
    """The enabled headers a level passes down, as a render merges them: a name an inner
    level sets replaces the outer ones."""
    names = {h.name.strip().lower() for h in inner if h.enabled}
    return [*(h for h in outer if h.name.strip().lower() not in names), *inner]


def _request(
    request: Request, inherited: list[Header], root: Path, notes: list[str]
) -> dict[str, Any]:
    where = request.id or request.name
    if request.type != "http":
        notes.append(f"{where}: a {request.type} request is written as its URL only")
    headers = _merged(inherited, request.headers)
    if request.body.type == "file" and request.body.content_type:
        headers.append(Header("Content-Type", request.body.content_type))
    query = [{"key": _encoded(q.name), "value": _encoded(q.value), "disabled": not q.enabled}
             for q in request.query]  # fmt: skip
    on = [f"{q['key']}={q['value']}" for q in query if not q["disabled"]]
    url: dict[str, Any] = {"raw": request.url + (("&" if "?" in request.url else "?") + "&".join(on)
                                                 if on else "")}  # fmt: skip
    if query:
        url["query"] = query
    raw: dict[str, Any] = {
        "method": request.method,
        "header": [{"key": h.name, "value": h.value, "disabled": not h.enabled} for h in headers],
        "url": url,
    }
    body = _body(request, root, where, notes)
    if body is not None:
        raw["body"] = body
    auth = _auth(request.auth, where, notes)
    if auth is not None:
        raw["auth"] = auth
    item: dict[str, Any] = {"name": request.name, "request": raw}
    if request.description:
        raw["description"] = request.description
    if request.variables:
        item["variable"] = _variables(request.variables)
    behavior = {}
    if not request.settings.follow_redirects:
        behavior["followRedirects"] = False
    if not request.settings.verify_tls:
        behavior["strictSSL"] = False
    if behavior:
        item["protocolProfileBehavior"] = behavior
    if request.scripts.pre_request or request.scripts.post_response:
        notes.append(f"{where}: its scripts are not written (Postman's are JavaScript)")
    return item


def _enabled(headers: list[Header]) -> list[Header]:
    return [h for h in headers if h.enabled]


def _items(
    items: list[Folder | Request], inherited: list[Header], root: Path, notes: list[str]
) -> list[dict[str, Any]]:
    out = []
    for item in items:
        if isinstance(item, Request):
            out.append(_request(item, inherited, root, notes))
            continue
        group: dict[str, Any] = {
            "name": item.name,
            "item": _items(item.items, _enabled(_merged(inherited, item.headers)), root, notes),
        }
        auth = _auth(item.auth, f"folder {item.id or item.name}", notes)
        if auth is not None:
            group["auth"] = auth
        if item.variables:
            group["variable"] = _variables(item.variables)
        if item.scripts.pre_request or item.scripts.post_response:
            notes.append(f"folder {item.id or item.name}: its scripts are not written")
        out.append(group)
    return out


def to_postman(collection: Collection) -> tuple[dict[str, Any], list[str]]:
    """The Postman collection document, and a note for each thing it leaves out."""
    notes: list[str] = []
    doc: dict[str, Any] = {
        "info": {"name": collection.name, "schema": SCHEMA},
        "item": _items(collection.items, _enabled(collection.headers), collection.root, notes),
    }
    auth = _auth(collection.auth, "the collection", notes)
    if auth is not None:
        doc["auth"] = auth
    if collection.variables:
        doc["variable"] = _variables(collection.variables)
    if collection.scripts.pre_request or collection.scripts.post_response:
        notes.append("the collection: its scripts are not written")
    if collection.environments:
        notes.append("environments are not written (Postman keeps them in their own files)")
    return doc, notes
