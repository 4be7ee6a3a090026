"""Import a Posting collection: a directory tree of ``*.posting.yaml`` files, one request each.

Posting's ``$var`` / ``${var}`` template variables become ``{{var}}`` (``$$`` is a literal
``$``). Its ``.env`` / ``*.env`` files at the collection root (beside the file, for a single
request file) become environments; values whose names look secret (TOKEN, SECRET, PASSWORD,
KEY) are written as ``{{$env.NAME}}`` references instead, and the values themselves are set
aside (:class:`Secret`) for :func:`write_dotenv` to put in the new collection's git-ignored
``.env``, never in TOML. A secret whose value differs between environments gets one name per
environment (``DEV_API_TOKEN``, ``PROD_API_TOKEN``). Posting's request timeout defaults to 5
seconds, Pigeon's to 30: the 5 is carried over. Posting's scripts are Python files with a
different API: their paths are reported, not carried over.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv.parser import parse_stream

from pigeon.importers.common import ImportFailed, ImportResult, LocalFiles, Secret, as_text
from pigeon.importers.documents import load_yaml
from pigeon.masking import secret_name
from pigeon.model import Auth, Body, Environment, FormField, Header, QueryParam, Request

SUFFIX = ".posting.yaml"
DEFAULT_TIMEOUT = 5.0  # Posting's own default for a request's timeout
_TEMPLATE = re.compile(r"\$(?:(\$)|([_A-Za-z][_A-Za-z0-9]*)|\{([_A-Za-z][_A-Za-z0-9]*)\})")
_METHOD_ORDER = {"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}


def convert(text: str) -> str:
    """Posting's ``$name`` / ``${name}`` -> ``{{name}}``; ``$$`` -> ``$``."""

    def repl(m: re.Match[str]) -> str:
        if m.group(1):
            return "$"
        return "{{" + (m.group(2) or m.group(3)) + "}}"

    return _TEMPLATE.sub(repl, text)


@dataclass
class PostingImport(ImportResult):
    """What a Posting import found, with the secret values for the new collection's ``.env``."""

    secrets: list[Secret] = field(default_factory=list)


def parse_posting(path: Path, allow_outside: bool = False) -> PostingImport:
    """Import a Posting collection directory, or a single ``.posting.yaml`` file.

    No file outside that directory is read (a request or ``.env`` file that is a symlink out
    of it), or kept as a file field to send (it is kept switched off), unless
    ``allow_outside``: each is noted instead."""
    path = Path(path)
    root = path.parent if path.is_file() else path
    local = LocalFiles(root, allow_outside)
    result = PostingImport(name=root.name)
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = [
            p
            for p in path.rglob(f"*{SUFFIX}")
            if not any(part.startswith(".") for part in p.relative_to(path).parts)
            and local.allowed(p, result)
        ]
    else:
        raise ImportFailed("no such file or directory", path)
    loaded: list[tuple[str, Request]] = []
    for file in files:
        rel_dir = file.parent.relative_to(root).as_posix()
        folder = "" if rel_dir == "." else rel_dir
        req = _request(file, root, local, result)
        if req is not None:
            loaded.append((folder, req))
    # Posting's own order: by folder, then method (GET, POST, PUT, PATCH, DELETE), then name.
    loaded.sort(key=lambda fr: (fr[0], _METHOD_ORDER.get(fr[1].method, 5), fr[1].name))
    result.requests.extend(loaded)
    if not files:
        raise ImportFailed(f"no {SUFFIX} files here", path)
    if not _environments(root, local, result):
        used = sorted(_used_variables(files))
        if used:
            where = f"beside {path.name}" if path.is_file() else f"in {root}"
            result.note(
                f"no Posting .env files {where}, so nothing gives {', '.join(used)} a value: "
                "import the collection directory with its .env files, or add an environment"
            )
    return result


def _used_variables(files: list[Path]) -> set[str]:
    names: set[str] = set()
    for file in files:
        try:
            text = LocalFiles.read(file).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        names.update(m.group(2) or m.group(3) for m in _TEMPLATE.finditer(text) if not m.group(1))
    return names


def _request(file: Path, root: Path, local: LocalFiles, result: ImportResult) -> Request | None:
    rel = file.relative_to(root).as_posix()
    try:
        data = load_yaml(local.read(file).decode("utf-8"))
    except ImportFailed as exc:
        line = f" line {exc.line}" if exc.line is not None else ""
        why = "not valid YAML" if exc.message.startswith("not YAML") else exc.message
        result.note(f"{rel}:{line} {why}; skipped")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        result.note(f"{rel}: cannot read ({exc}); skipped")
        return None
    if not isinstance(data, dict):
        result.note(f"{rel}: not a Posting request; skipped")
        return None
    name = as_text(data.get("name")) or file.name[: -len(SUFFIX)]
    req = Request(name=name, method=(as_text(data.get("method")) or "GET").upper())
    req.description = as_text(data.get("description"))
    req.url = convert(as_text(data.get("url")))
    for h in data.get("headers") or []:
        if isinstance(h, dict) and h.get("name"):
            req.headers.append(
                Header(
                    convert(as_text(h["name"])),
                    convert(as_text(h.get("value"))),
                    bool(h.get("enabled", True)),
                )
            )
    for p in data.get("params") or []:
        if isinstance(p, dict) and p.get("name"):
            req.query.append(
                QueryParam(
                    convert(as_text(p["name"])),
                    convert(as_text(p.get("value"))),
                    bool(p.get("enabled", True)),
                )
            )
    req.body = _body(data.get("body"), req, rel, local, result)
    req.auth = _auth(data.get("auth"), rel, result)
    req.settings.timeout = DEFAULT_TIMEOUT
    options = data.get("options") or {}
    if isinstance(options, dict):
        if "follow_redirects" in options:
            req.settings.follow_redirects = bool(options["follow_redirects"])
        if "verify_ssl" in options:
            req.settings.verify_tls = bool(options["verify_ssl"])
        if isinstance(options.get("timeout"), (int, float)) and options["timeout"] > 0:
            req.settings.timeout = float(options["timeout"])
        if options.get("proxy_url"):
            result.note(f"{rel}: proxy {options['proxy_url']} is not carried over")
        if options.get("attach_cookies") is False:
            result.note(
                f"{rel}: attach_cookies: false is not carried over (Pigeon keeps a cookie jar)"
            )
    scripts = data.get("scripts") or {}
    if isinstance(scripts, dict):
        for key in ("setup", "on_request", "on_response"):
            if scripts.get(key):
                result.note(
                    f"{rel}: {key} script {scripts[key]} uses Posting's script API; "
                    "not carried over (rewrite it as a Pigeon pre_request / post_response script)"
                )
    return req


def _body(body: Any, req: Request, rel: str, local: LocalFiles, result: ImportResult) -> Body:
    if not isinstance(body, dict):
        return Body()
    ctype_header = next(
        (h for h in reversed(req.headers) if h.name.lower() == "content-type" and h.enabled), None
    )
    ctype = ctype_header.value.strip().lower() if ctype_header else ""
    files = [f for f in body.get("files") or [] if isinstance(f, dict)]
    if files:
        fields = [
            FormField(
                convert(as_text(f.get("name"))),
                convert(as_text(f.get("value"))),
                bool(f.get("enabled", True)),
            )
            for f in body.get("form_data") or []
            if isinstance(f, dict) and f.get("name")
        ]
        for f in files:
            file = as_text(f.get("path") or f.get("file_path") or f.get("value"))
            # A file outside the collection is kept switched off: sending would read it.
            outside = bool(file) and "{{" not in file and local.allowed(file, result) is None
            fields.append(
                FormField(
                    convert(as_text(f.get("name"))),
                    file,
                    bool(f.get("enabled", True)) and not outside,
                    kind="file",
                    content_type=as_text(f.get("content_type")),
                )
            )
        if ctype_header is not None and ctype.startswith("multipart/"):
            req.headers.remove(ctype_header)
        return Body(type="multipart", fields=fields)
    form = body.get("form_data")
    if form:
        if ctype_header is not None and ctype == "application/x-www-form-urlencoded":
            req.headers.remove(ctype_header)
        return Body(
            type="form",
            fields=[
                FormField(
                    convert(as_text(f.get("name"))),
                    convert(as_text(f.get("value"))),
                    bool(f.get("enabled", True)),
                )
                for f in form
                if isinstance(f, dict) and f.get("name")
            ],
        )
    content = body.get("content")
    if content is None or content == "":
        return Body()
    content = convert(as_text(content))
    if re.match(r"^application/([\w.+-]*\+)?json\b", ctype):
        if ctype == "application/json" and ctype_header is not None:
            req.headers.remove(ctype_header)
        return Body(type="json", content=content)
    if not ctype:
        try:
            json.loads(re.sub(r"\{\{[^{}]*\}\}", "0", content))
        except (ValueError, RecursionError):
            result.note(f"{rel}: body has no Content-Type header; Pigeon sends it as text/plain")
            return Body(type="text", content=content)
        result.note(
            f"{rel}: JSON body without a Content-Type header; Pigeon sends application/json"
        )
        return Body(type="json", content=content)
    return Body(type="text", content=content)


def _auth(auth: Any, rel: str, result: ImportResult) -> Auth | None:
    if not isinstance(auth, dict) or not auth.get("type"):
        return None
    kind = auth["type"]
    if kind == "basic":
        basic = auth.get("basic") or {}
        return Auth(
            type="basic",
            username=convert(as_text(basic.get("username"))),
            password=convert(as_text(basic.get("password"))),
        )
    if kind == "bearer_token":
        return Auth(
            type="bearer", token=convert(as_text((auth.get("bearer_token") or {}).get("token")))
        )
    result.note(f"{rel}: {kind} auth is not supported by Pigeon; not carried over")
    return None


def _environments(root: Path, local: LocalFiles, result: PostingImport) -> bool:
    """Read the ``.env`` / ``*.env`` files in ``root`` as environments; whether there were any."""
    found: list[tuple[str, str, dict[str, str]]] = []  # (environment, file name, values)
    for file in sorted(root.iterdir()):
        if not file.is_file() or not (file.name == ".env" or file.name.endswith(".env")):
            continue
        if local.allowed(file, result) is None:
            continue
        name = (
            "default" if file.name == ".env" else file.name[: -len(".env")].lstrip(".") or "default"
        )
        try:
            text = local.read(file).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            result.note(f"{file.name}: cannot read ({exc}); not carried over")
            continue
        values: dict[str, str] = {}
        for binding in parse_stream(io.StringIO(text)):
            if binding.error:
                result.note(f"{file.name} line {binding.original.line}: not NAME=value; skipped")
            elif binding.key is not None:
                values[binding.key] = binding.value or ""
        found.append((name, file.name, values))

    # A secret with one value everywhere keeps its name; with several, each environment's
    # value gets a name of its own, so no environment sends another one's secret.
    seen: dict[str, set[str]] = {}
    for _, _, values in found:
        for key, value in values.items():
            if secret_name(key):
                seen.setdefault(key, set()).add(value)
    taken = {key for _, _, values in found for key in values}
    named: dict[tuple[str, str], str] = {}  # (key, value) -> its name in .env
    for env_name, file_name, values in found:
        variables: dict[str, Any] = {}
        for key, value in values.items():
            if key not in seen:
                variables[key] = value
                continue
            ref = named.get((key, value))
            if ref is None:
                ref = key
                if len(seen[key]) > 1:
                    ref = _free_name(re.sub(r"\W", "_", f"{env_name}_{key}").upper(), taken)
                    taken.add(ref)
                named[(key, value)] = ref
                note = (
                    f"environment {env_name}: {key} looks secret; written as {{{{$env.{ref}}}}}: "
                    f"put {ref}=... (the value in {file_name}) in the collection's .env"
                )
                result.secrets.append(Secret(ref, value, file_name, note))
                result.note(note)
            variables[key] = "{{$env." + ref + "}}"
        result.environments.append(Environment(name=env_name, variables=variables))
    return bool(found)


def _free_name(name: str, taken: set[str]) -> str:
    n = 1
    while (candidate := name if n == 1 else f"{name}_{n}") in taken:
        n += 1
    return candidate
