"""Import a Bruno collection: a directory with ``bruno.json``, ``collection.bru``, folders
(with ``folder.bru``), request ``.bru`` files and ``environments/*.bru``.

``{{var}}`` is the same in Pigeon; ``{{process.env.X}}`` becomes ``{{$env.X}}`` (Bruno's
``.env`` is not copied: a note says to put its values in the collection's). Switched-off
headers, query parameters and form fields (``~name: value``) stay switched off; switched-off
variables are dropped, noted. Scripts, tests, assertions and post-response variables are
JavaScript or Bruno expressions Pigeon does not run: their text goes into the description, with
a note, never run. Secret-looking values go to the collection's ``.env``; an environment's
``vars:secret`` (whose values Bruno keeps outside its files) become ``{{$env.NAME}}``.

Reading stays inside the collection's directory: a link out of it is not followed, a file over
``BRU_LIMIT`` is not read, at most ``MAX_FILES`` files and ``MAX_DEPTH`` folders deep are
walked, and at most ``TOTAL_LIMIT`` bytes read in all, each noted when met.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from pigeon.files import read_capped
from pigeon.importers.bru import Block, BruError, Pair, parse_bru
from pigeon.importers.common import (
    ImportFailed,
    ImportResult,
    LocalFiles,
    as_dict,
    as_text,
    clean_header,
    env_name,
    file_body,
    folder_path,
    safe_name,
    set_aside,
    split_query,
)
from pigeon.importers.documents import load_json
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

BRU_LIMIT = 2_000_000  # bytes of one .bru file
TOTAL_LIMIT = 50_000_000  # bytes of all the files read, so many large files cannot add up
MAX_FILES = 5_000  # files and folders walked in one collection
MAX_DEPTH = 32  # folders deep
METHODS = ("get", "post", "put", "patch", "delete", "options", "head", "connect", "trace")
_SKIPPED_DIRS = {"node_modules", ".git"}
_ENV = re.compile(r"\{\{\s*process\.env\.([A-Za-z_][\w]*)\s*\}\}")
_FILE_VALUE = re.compile(r"^@file\((.*?)\)\s*(?:@contentType\((.*)\))?$")
_CONTENT_TYPE = re.compile(r"^(.*?)\s*@contentType\((.*)\)$", re.DOTALL)
_GRANTS = {
    "authorization_code": "authorization_code",
    "client_credentials": "client_credentials",
    "password": "password",
}
_RAW_TYPES = {"xml": "application/xml", "sparql": "application/sparql-query"}


def convert(text: str) -> str:
    """Bruno's ``{{process.env.X}}`` -> Pigeon's ``{{$env.X}}``; other placeholders as they are."""
    return _ENV.sub(lambda m: "{{$env." + m.group(1) + "}}", text)


def parse_bruno(path: Path, allow_outside: bool = False) -> ImportResult:
    """Import a Bruno collection directory (or its ``bruno.json``, or one request ``.bru``)."""
    path = Path(path)
    if path.is_file() and path.name != "bruno.json":
        if path.suffix != ".bru":
            raise ImportFailed("not a Bruno collection: give its directory (with bruno.json)", path)
        walker = _Bruno(path.parent, allow_outside)
        walker.request_file(path, "")
        return walker.result
    root = path.parent if path.is_file() else path
    if not root.is_dir():
        raise ImportFailed("no such directory", path)
    walker = _Bruno(root, allow_outside)
    walker.collection()
    return walker.result


def _where(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


class _Bruno:
    def __init__(self, root: Path, allow_outside: bool) -> None:
        self.root = root
        self.files = LocalFiles(root, allow_outside)
        self.result = ImportResult(name=root.name)
        self.walked = 0
        self.read_bytes = 0
        self._folder_paths: set[str] = set()

    # -- files --

    def _read(self, file: Path) -> list[Block] | None:
        """The blocks of a ``.bru`` file inside the collection, or ``None`` and a note."""
        rel = self._rel(file)
        if self.files.allowed(file, self.result) is None:
            return None
        try:
            data = read_capped(file, BRU_LIMIT)
            text = data.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            self.result.note(f"{rel}: cannot read ({exc}); skipped")
            return None
        self.read_bytes += len(data)
        if self.read_bytes > TOTAL_LIMIT:
            self.result.note(
                f"the files add up to over {TOTAL_LIMIT:,} bytes: the rest are not read"
            )
            return None
        try:
            return parse_bru(text)
        except BruError as exc:
            self.result.note(f"{rel}:{exc.line}: not a .bru file ({exc.reason}); skipped")
            return None

    def _rel(self, file: Path) -> str:
        try:
            return file.relative_to(self.root).as_posix()
        except ValueError:
            return str(file)

    # -- the collection --

    def collection(self) -> None:
        manifest = self.root / "bruno.json"
        if manifest.is_file() and self.files.allowed(manifest, self.result) is not None:
            try:
                text = read_capped(manifest, BRU_LIMIT).decode("utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                raise ImportFailed(f"cannot read: {exc}", manifest) from None
            data = as_dict(load_json(text, manifest))
            self.result.name = as_text(data.get("name")) or self.root.name
            if data.get("type") not in (None, "collection"):
                raise ImportFailed(f"not a Bruno collection (type {data.get('type')!r})", manifest)
        else:
            self.result.note(f"no bruno.json in {self.root}: read as a Bruno collection anyway")
        if (self.root / ".env").is_file():
            self.result.note(
                "Bruno's .env is not copied: {{process.env.X}} became {{$env.X}}, so put its "
                "values in the collection's .env"
            )
        top = self.root / "collection.bru"
        if top.is_file():
            blocks = self._read(top)
            if blocks is not None:
                self._collection_settings(blocks)
        self._environments()
        self._walk(self.root, "", 0)
        if not self.result.requests and not self.result.environments:
            raise ImportFailed("no Bruno requests (.bru files) here", self.root)

    def _collection_settings(self, blocks: list[Block]) -> None:
        where = "collection.bru"
        by = _by_name(blocks)
        self.result.headers = self._headers(by.get("headers"), where)
        mode = by["auth"].get("mode") if "auth" in by else ""
        self.result.auth = self._auth(mode, by, where)
        self.result.variables.update(self._vars(by.get("vars:pre-request"), where))
        self.result.description = self._texts(by, where)

    def _environments(self) -> None:
        env_dir = self.root / "environments"
        if not env_dir.is_dir() or self.files.allowed(env_dir, self.result) is None:
            return
        for file in sorted(env_dir.glob("*.bru")):
            blocks = self._read(file)
            if blocks is None:
                continue
            name = safe_name(file.stem, "environment")
            where = f"environment {name}"
            by = _by_name(blocks)
            env = Environment(name=name)
            for pair in by["vars"].pairs if "vars" in by else []:
                if not pair.enabled:
                    self.result.note(f"{where}: {pair.key} is switched off in Bruno; dropped")
                    continue
                value = convert(pair.value)
                if secret_name(pair.key):
                    value = set_aside(self.result, f"{name}_{pair.key}", value, where, where)
                env.variables[pair.key] = value
            for pair in by["vars:secret"].pairs if "vars:secret" in by else []:
                if not pair.enabled:
                    continue
                ref = env_name(f"{name}_{pair.key}")
                env.variables[pair.key] = "{{$env." + ref + "}}"
                self.result.note(
                    f"{where}: {pair.key} is a Bruno secret (its value is not in the files); "
                    f"written as {{{{$env.{ref}}}}}: put {ref}=... in the collection's .env"
                )
            self.result.environments.append(env)

    # -- walking --

    def _walk(self, directory: Path, folder: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.result.note(f"{self._rel(directory)}: folders nest past {MAX_DEPTH}; not read")
            return
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self.result.note(f"{self._rel(directory)}: cannot list ({exc.strerror}); skipped")
            return
        items: list[tuple[float, str, Path, bool]] = []
        requests: dict[Path, list[Block]] = {}
        for entry in entries:
            self.walked += 1
            if self.walked > MAX_FILES:
                self.result.note(f"more than {MAX_FILES} files: the rest are not read")
                break
            p = Path(entry.path)
            if entry.name.startswith(".") or entry.name in _SKIPPED_DIRS:
                continue
            if depth == 0 and entry.name in ("environments", "collection.bru", "bruno.json"):
                continue
            if entry.is_symlink() and self.files.allowed(p, self.result) is None:
                continue
            if entry.is_dir():
                meta = self._folder_meta(p)
                items.append((_seq(meta), meta.get("name") or entry.name, p, True))
            elif entry.name.endswith(".bru") and entry.name != "folder.bru":
                blocks = self._read(p)
                if blocks is not None:
                    meta = _by_name(blocks).get("meta", Block("meta", 0))
                    requests[p] = blocks
                    items.append((_seq(meta), entry.name, p, False))
        for _, name, p, is_dir in sorted(items, key=lambda t: (t[0], t[1])):
            if is_dir:
                self._folder(p, folder, name, depth)
            else:
                self.request_file(p, folder, requests[p])

    def _folder_meta(self, directory: Path) -> Block:
        file = directory / "folder.bru"
        if file.is_file():
            blocks = self._read(file)
            if blocks is not None:
                return _by_name(blocks).get("meta", Block("meta", 0))
        return Block("meta", 0)

    def _folder(self, directory: Path, parent: str, name: str, depth: int) -> None:
        name = safe_name(name, directory.name)
        path = folder_path(self._folder_paths, parent, name, self.result)
        where = f"folder {path}"
        settings = Folder(name=path.rsplit("/", 1)[-1], id=path)
        file = directory / "folder.bru"
        if file.is_file():
            blocks = self._read(file)
            if blocks is not None:
                by = _by_name(blocks)
                settings.headers = self._headers(by.get("headers"), where)
                settings.auth = self._auth(
                    by["auth"].get("mode") if "auth" in by else "", by, where
                )
                settings.variables = self._vars(by.get("vars:pre-request"), where)
                description = self._texts(by, where)
                if description:
                    settings.extra["description"] = description
        before = len(self.result.requests)
        self._walk(directory, path, depth + 1)
        if (
            settings.auth is not None
            or settings.headers
            or settings.variables
            or settings.extra
            or (len(self.result.requests) == before and file.is_file())
        ):
            self.result.folders.append(settings)

    # -- a request --

    def request_file(self, file: Path, folder: str, blocks: list[Block] | None = None) -> None:
        blocks = self._read(file) if blocks is None else blocks
        if blocks is None:
            return
        by = _by_name(blocks)
        meta = by.get("meta", Block("meta", 0))
        name = safe_name(meta.get("name"), file.stem, folder=False)
        where = _where(folder, name)
        kind = meta.get("type", "http")
        if kind not in ("http", "graphql"):
            self.result.note(f"{where}: a Bruno {kind} request; not imported")
            return
        method_block = next((b for b in blocks if b.name in METHODS), None)
        if method_block is None:
            self.result.note(f"{self._rel(file)}: no method block (get, post...); skipped")
            return
        req = Request(name=name, method=method_block.name.upper())
        self._url(method_block.get("url"), by, req, where)
        req.headers = self._headers(by.get("headers"), where)
        mode = method_block.get("body") or ("json" if "body" in by else "none")
        req.body = self._body(mode, by, req, where)
        req.auth = self._auth(method_block.get("auth"), by, where)
        req.variables.update(self._vars(by.get("vars:pre-request"), where))
        req.description = self._texts(by, where)
        self.result.requests.append((folder, req))

    def _url(self, url: str, by: dict[str, Block], req: Request, where: str) -> None:
        url = convert(url.strip())
        query = by.get("params:query") or by.get("query")  # "query": Bruno's older name
        if query is not None:  # Bruno writes the query both in the URL and in the block
            base, hash_, fragment = url.partition("#")
            url = base.partition("?")[0] + hash_ + fragment
            req.query = [QueryParam(p.key, convert(p.value), p.enabled) for p in query.pairs]
        else:
            url, req.query = split_query(url)
        for p in by["params:path"].pairs if "params:path" in by else []:
            new = re.sub(r"/:" + re.escape(p.key) + r"(?=[/?#]|$)", "/{{" + p.key + "}}", url)
            if new != url:
                url = new
                req.variables[p.key] = convert(p.value)
        req.url = url

    def _headers(self, block: Block | None, where: str) -> list[Header]:
        out = []
        for p in block.pairs if block else []:
            header = clean_header(p.key, convert(p.value), p.enabled, where, self.result)
            if header is not None:
                out.append(header)
        return out

    def _vars(self, block: Block | None, where: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for p in block.pairs if block else []:
            if not p.enabled:
                self.result.note(f"{where}: variable {p.key} is switched off in Bruno; dropped")
                continue
            out[p.key.removeprefix("@")] = convert(p.value)  # @name: Bruno's request-local
        return out

    def _texts(self, by: dict[str, Block], where: str) -> str:
        """docs as the description, and what Pigeon does not run (scripts, tests, assertions,
        post-response variables) after it as text, each noted."""
        parts = [by["docs"].text] if "docs" in by and by["docs"].text.strip() else []
        for name, label, lang in (
            ("script:pre-request", "pre-request script", "js"),
            ("script:post-response", "post-response script", "js"),
            ("tests", "tests", "js"),
        ):
            if name in by and by[name].text.strip():
                parts.append(f"Bruno {label} (JavaScript, not run by Pigeon):\n```{lang}\n"
                             f"{by[name].text}\n```")  # fmt: skip
                self.result.note(
                    f"{where}: Bruno's {label} (JavaScript): not run by Pigeon; its text is kept "
                    "in the description"
                )
        for name, label in (
            ("assert", "assertions"),
            ("vars:post-response", "post-response variables"),
        ):
            block = by.get(name)
            if block is None or not block.pairs:
                continue
            lines = "\n".join(
                f"{'~' if not p.enabled else ''}{p.key}: {p.value}" for p in block.pairs
            )
            parts.append(f"Bruno {label} (not run by Pigeon):\n```\n{lines}\n```")
            self.result.note(
                f"{where}: Bruno {label} are not run by Pigeon; kept in the description "
                "(write them as a post_response script)"
            )
        for block in by.values():
            if block.is_text and block.name not in ("docs", "script:pre-request",
                                                    "script:post-response", "tests") \
                    and not block.name.startswith("body"):  # fmt: skip
                self.result.note(f"{where}: Bruno block {block.name} is not carried over")
        return "\n\n".join(parts)

    def _body(self, mode: str, by: dict[str, Block], req: Request, where: str) -> Body:
        if mode in ("", "none"):
            return Body()
        if mode == "json":  # "body": the older name of body:json
            return Body(type="json", content=convert(_text(by, "body:json") or _text(by, "body")))
        if mode in ("text", "xml", "sparql"):
            if mode in _RAW_TYPES and not any(
                h.name.lower() == "content-type" for h in req.headers
            ):
                req.headers.append(Header("Content-Type", _RAW_TYPES[mode]))
            return Body(type="text", content=convert(_text(by, f"body:{mode}")))
        if mode == "formUrlEncoded":
            block = by.get("body:form-urlencoded")
            fields = [
                FormField(p.key, convert(p.value), p.enabled)
                for p in (block.pairs if block else [])
            ]
            return Body(type="form", fields=fields)
        if mode == "multipartForm":
            req.headers = [h for h in req.headers if h.name.lower() != "content-type"]
            return Body(
                type="multipart", fields=self._multipart(by.get("body:multipart-form"), where)
            )
        if mode == "graphql":
            variables = convert(_text(by, "body:graphql:vars"))
            return Body(
                type="graphql",
                query=convert(_text(by, "body:graphql")),
                variables="" if variables.strip() in ("", "{}") else variables,
            )
        if mode == "file":
            return self._file(by.get("body:file"), req, where)
        self.result.note(f"{where}: Bruno body mode {mode!r} is not carried over")
        return Body()

    def _multipart(self, block: Block | None, where: str) -> list[FormField]:
        out = []
        for p in block.pairs if block else []:
            m = _FILE_VALUE.match(p.value)
            if m is None:
                value, ctype = p.value, ""
                typed = _CONTENT_TYPE.match(p.value)
                if typed:
                    value, ctype = typed.group(1), typed.group(2)
                out.append(FormField(p.key, convert(value), p.enabled, "text", ctype))
                continue
            refs = [r for r in m.group(1).split("|") if r]
            if len(refs) > 1:
                self.result.note(
                    f"{where}: form field {p.key} sends {len(refs)} files; each is a field"
                )
            for ref in refs or [""]:
                enabled = p.enabled
                if ref and "{{" not in ref:
                    if self.files.allowed(ref, self.result) is None:
                        enabled = False  # sending it would read a file outside the collection
                    else:  # Bruno reads it from its collection; the import names it there
                        ref = os.path.abspath(self.files.root / ref)
                out.append(FormField(p.key, ref, enabled, "file", m.group(2) or ""))
        return out

    def _file(self, block: Block | None, req: Request, where: str) -> Body:
        chosen = next(
            (p for p in (block.pairs if block else []) if p.enabled and _FILE_VALUE.match(p.value)),
            None,
        )
        if chosen is None:
            self.result.note(f"{where}: its file body has no file chosen; set its path")
            return Body(type="file")
        m = _FILE_VALUE.match(chosen.value)
        assert m is not None
        found = file_body(m.group(1), self.files, self.result, f"{where}: file body")
        if found is None:
            return Body()
        found.content_type = m.group(2) or ""
        return found

    # -- auth --

    def _secret(self, block: Block, key: str, hint: str, where: str) -> str:
        return set_aside(self.result, hint, convert(block.get(key)), where, where)

    def _auth(self, mode: str, by: dict[str, Block], where: str) -> Auth | None:
        if not mode or mode == "inherit":
            return None
        if mode == "none":
            return Auth(type="none")
        block = by.get(f"auth:{mode}", Block(f"auth:{mode}", 0))

        def get(key: str) -> str:
            return convert(block.get(key))

        if mode in ("basic", "digest"):
            return Auth(type=mode, username=get("username"),
                        password=self._secret(block, "password", f"{mode}_password", where))  # fmt: skip
        if mode == "ntlm":
            return Auth(type="ntlm", username=get("username"), domain=get("domain"),
                        password=self._secret(block, "password", "ntlm_password", where))  # fmt: skip
        if mode == "bearer":
            return Auth(type="bearer", token=self._secret(block, "token", "bearer_token", where))
        if mode == "apikey":
            placement = get("placement")
            return Auth(
                type="api_key",
                key=get("key") or "X-Api-Key",
                value=self._secret(block, "value", "api_key", where),
                location="query" if placement == "queryparams" else "header",
            )
        if mode == "awsv4":
            if get("profileName"):
                self.result.note(f"{where}: AWS profile {get('profileName')} is not read by Pigeon")
            return Auth(
                type="aws_sigv4",
                access_key=get("accessKeyId"),
                secret_key=self._secret(block, "secretAccessKey", "aws_secret_access_key", where),
                session_token=self._secret(block, "sessionToken", "aws_session_token", where),
                region=get("region") or "us-east-1",
                service=get("service") or "execute-api",
            )
        if mode == "oauth2":
            return self._oauth2(block, where)
        self.result.note(
            f"{where}: Bruno's {mode} auth is not supported by Pigeon; not carried over"
        )
        return None

    def _oauth2(self, block: Block, where: str) -> Auth:

        def get(key: str) -> str:
            return convert(block.get(key))

        grant = _GRANTS.get(get("grant_type") or "authorization_code")
        if grant is None or not get("access_token_url"):
            self.result.note(
                f"{where}: Bruno's OAuth 2.0 {get('grant_type')} flow is not run by Pigeon; "
                "imported as the token alone, {{access_token}}: set it"
            )
            return Auth(type="bearer", token="{{access_token}}")
        prefix = get("token_header_prefix") or "Bearer"
        password = grant == "password"
        return Auth(
            type="oauth2",
            username=get("username") if password else "",
            password=self._secret(block, "password", "oauth2_password", where) if password else "",
            location="query" if get("token_placement") == "url" else "header",
            oauth2=OAuth2(
                grant=grant,
                token_url=get("access_token_url"),
                auth_url=get("authorization_url"),
                client_id=get("client_id"),
                client_secret=self._secret(block, "client_secret", "client_secret", where),
                scope=get("scope"),
                redirect_uri=get("callback_url"),
                # Bruno sends the client's credentials in the body unless told otherwise
                client_auth="basic"
                if get("credentials_placement") == "basic_auth_header"
                else "body",
                header_prefix=prefix,
            ),
        )


def _by_name(blocks: list[Block]) -> dict[str, Block]:
    """Blocks by name; a name given twice keeps the first, the others' pairs joined to it."""
    out: dict[str, Block] = {}
    for block in blocks:
        if block.name in out:
            out[block.name].pairs.extend(block.pairs)
        else:
            out[block.name] = Block(block.name, block.line, list(block.pairs), block.text,
                                    block.is_text)  # fmt: skip
    return out


def _text(by: dict[str, Block], name: str) -> str:
    return by[name].text if name in by else ""


def _seq(meta: Block) -> float:
    """Where Bruno shows an item among its siblings (``meta``'s seq); last when it has none."""
    try:
        seq = float(meta.get("seq"))
    except ValueError:
        return math.inf
    return seq if math.isfinite(seq) else math.inf


__all__ = ["Pair", "convert", "parse_bruno"]
