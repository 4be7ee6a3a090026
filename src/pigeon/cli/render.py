"""`pigeon render` and `pigeon export` (DESIGN §6, §10): one request rendered, never sent; a
gRPC request as the call it would make (target, method, metadata, messages) or a grpcurl
command.

From a collection directory and a request name to the rendered request: load, find the
request, check the environment, run the pre-request scripts of a trusted collection and
render (``pigeon.pipeline.build``). A failure before the output is an error of the tree:
``UsageError`` (exit 2) for what the user named, ``SendFailure`` (exit 1) for a request that
cannot be built; unresolved placeholders under ``--strict`` are ``UnresolvedError`` (exit 3).
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pigeon import cookies
from pigeon.auth_kinds import KINDS
from pigeon.cli.collection import load, trusted
from pigeon.cli.stderr import say, warn
from pigeon.errors import EXIT_OK, SendFailure, UnresolvedError, UsageError
from pigeon.exporters import COLLECTION_KINDS, SELECTION_KINDS, exporter
from pigeon.exporters.curl import as_sent, to_curl
from pigeon.model import BrokenFile, Collection, Folder, Request, normalize_ref
from pigeon.pipeline import RequestResult, RunContext, build
from pigeon.render import RenderedRequest
from pigeon.scopes import RuntimeVars, UnknownEnvironment
from pigeon.secrets import Vault
from pigeon.terminal import for_terminal


@dataclass
class Prepared:
    collection: Collection
    chain: list[Folder]
    request: Request  # as the pre-request scripts left it
    rendered: RenderedRequest
    script_output: list[str] = field(default_factory=list)
    # What renders more of it later (a gRPC stream's messages): the variables the scripts
    # set, the --var values, and whether the collection is trusted.
    runtime: RuntimeVars = field(default_factory=RuntimeVars)
    cli_vars: dict[str, Any] = field(default_factory=dict)
    trusted: bool = False
    vault: Vault | None = None  # the secrets read for the request, read again by none


def _broken_for(collection: Collection, paths: list[Path]) -> BrokenFile | None:
    wanted = {p.resolve() for p in paths}
    for broken in collection.broken:
        if broken.path.resolve() in wanted:
            return broken
    return None


def locate(collection: Collection, ref: str) -> tuple[list[Folder], Request]:
    """Find a request by its path relative to the collection; exit 2 with hints when absent."""
    found = collection.find(ref)
    key = normalize_ref(ref)
    request_file = collection.root / f"{key}.toml"
    if found is None:
        broken = _broken_for(collection, [request_file])
        if broken is not None:
            raise UsageError(f"broken request file: {broken}")
        ids = [r.id for r in collection.requests()]
        close = difflib.get_close_matches(key, ids, n=3)
        hint = f" (did you mean: {', '.join(close)}?)" if close else ""
        raise UsageError(f"no request {ref!r} in {collection.root}{hint}")
    chain, request = found
    folder_files = [f.path / "folder.toml" for f in chain if f.path is not None]
    broken = _broken_for(collection, folder_files)
    if broken is not None:
        raise UsageError(f"broken folder file: {broken}")
    return list(chain), request


def prepare_request(
    root: Path,
    ref: str,
    *,
    env: str | None = None,
    cli_vars: Mapping[str, Any] | None = None,
    trust: bool = False,
    no_scripts: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Prepared:
    """Load, locate, run pre-request scripts (if trusted) and render one request; an
    untrusted collection whose request needs trust is refused first (exit 2)."""
    collection = load(root)
    chain, request = locate(collection, ref)
    if env is not None:
        env_file = collection.root / "environments" / f"{env}.toml"
        broken = _broken_for(collection, [env_file])
        if broken is not None:
            raise UsageError(f"broken environment file: {broken}")
        if env not in collection.environments:
            raise UsageError(str(UnknownEnvironment(env, sorted(collection.environments))))
    is_trusted = trusted(
        collection,
        [(chain, request)],
        trust=trust,
        env=env,
        cli_vars=cli_vars,
        no_scripts=no_scripts,
        phases=("pre_request",),  # render runs no post-response script
    )
    from pigeon.cli.secret import check_prompts, terminal_vault

    check_prompts(collection, [(chain, request)], env, cli_vars)
    ctx = RunContext(
        collection,
        env,
        RuntimeVars(),
        dict(cli_vars or {}),
        environ,
        trusted=is_trusted,
        allow_scripts=not no_scripts,
        vault=terminal_vault(),
    )
    result = RequestResult(request, chain)

    async def go() -> Request:
        try:
            return (await build(ctx, chain, request, result))[0]
        finally:
            await ctx.aclose()

    request = asyncio.run(go())
    if result.script_errors:
        raise SendFailure(f"script error: {result.script_errors[0].summary()}")
    if result.rendered is None:
        reason = (result.error or "").removeprefix("not sent: ")
        raise SendFailure(f"{request.id or request.name}: {reason}")
    return Prepared(
        collection,
        chain,
        request,
        result.rendered,
        result.log,
        ctx.runtime,
        dict(cli_vars or {}),
        is_trusted,
        ctx.vault,
    )


def prepared_from_args(args: argparse.Namespace, no_scripts: bool | None = None) -> Prepared:
    """The request a command's arguments name, prepared (``args.vars``: the parsed
    ``--var``s); ``no_scripts`` overrides ``--no-scripts`` for a command that runs none."""
    return prepare_request(
        Path(args.collection),
        args.request,
        env=args.env,
        cli_vars=args.vars,
        trust=args.trust,
        no_scripts=args.no_scripts if no_scripts is None else no_scripts,
    )


def _rendered(args: argparse.Namespace) -> RenderedRequest:
    """The request the arguments name, rendered."""
    return prepared_from_args(args).rendered


def _unresolved(rendered: RenderedRequest) -> str:
    """What ``--strict`` refuses: unresolved placeholders and cycles, named in one list."""
    cycles = [w for w in rendered.warnings if w.startswith("cycle:")]
    hints = rendered.suggestions
    names = [f"{n} (did you mean {hints[n]}?)" if n in hints else n for n in rendered.unresolved]
    return ", ".join([*names, *cycles])


def cli_render(args: argparse.Namespace) -> int:
    """`pigeon render`: print the request, each value from a secret source (``.env``,
    ``$env``, a variable named as a secret) masked; unresolved placeholders are named on
    stderr after it (``--format json`` lists them in the document), and with ``--strict`` the
    exit code is 3. ``--reveal`` prints the values as they are sent, the user's choice."""
    prepared = prepared_from_args(args)
    rendered = prepared.rendered if args.reveal else prepared.rendered.shown_request()
    flow = rendered.flow_auth
    if prepared.request.kind == "grpc" or rendered.url.lower().startswith("grpc"):
        if args.format == "curl":
            raise UsageError(f"{prepared.request.id}: a gRPC call: pigeon export grpcurl")
        if args.format == "json":
            print(json.dumps(call_json(prepared), ensure_ascii=False))
        else:
            print(for_terminal(call_text(prepared), sys.stdout), end="")
    elif args.format == "json":
        doc = rendered.to_json()
        if flow is not None:  # what acts as it is sent, its secrets left out
            doc["auth"] = flow.shown()
        print(json.dumps(doc, ensure_ascii=False))
    elif args.format == "curl":
        print(for_terminal(to_curl(rendered), sys.stdout))
    else:
        print(for_terminal(http_message(rendered), sys.stdout), end="")
        if flow is not None:
            said = ", ".join(f"{k}={v}" for k, v in flow.shown().items() if k != "type")
            say(f"{flow.type} auth is applied as the request is sent ({said})")
    problems = _unresolved(rendered)
    if args.strict and problems:
        raise UnresolvedError(f"unresolved placeholders: {problems}")
    if problems and args.format != "json":
        warn(f"unresolved placeholders, sent as written: {problems}")
    return EXIT_OK


def http_message(rendered: RenderedRequest) -> str:
    """The request as an HTTP/1.1 message (``--format http``), its target as it is sent."""
    parts = urlsplit(as_sent(rendered.url))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"{rendered.method} {target} HTTP/1.1"]
    if not rendered.header("host") and parts.netloc:
        lines.append(f"Host: {parts.netloc}")
    lines += [f"{k}: {v}" for k, v in rendered.headers]
    text = "\r\n".join(lines) + "\r\n\r\n"
    if rendered.body_text is not None:
        text += rendered.body_text
        if not text.endswith("\n"):
            text += "\n"
    return text


# -- a gRPC request (DESIGN §10): the call as it would go --------------------------------------


def messages_of(prepared: Prepared) -> list[str]:
    """The request's ``[[messages]]`` rendered as JSON bodies are, with the variables the
    pre-request scripts set; the trust gate refuses what an untrusted collection may not
    read (``SendFailure``)."""
    from pigeon.errors import RenderError
    from pigeon.render import render_json
    from pigeon.scopes import build_scopes

    request = prepared.request
    if not request.messages:
        return []
    gate = None
    if not prepared.trusted:
        from pigeon.trust import Gate

        gate = Gate(prepared.collection)
    scopes = build_scopes(
        prepared.collection,
        prepared.chain,
        request,
        prepared.rendered.environment or None,
        prepared.runtime,
        prepared.cli_vars,
        gate=gate,
        vault=prepared.vault,
    )
    try:
        return [render_json(m.body, scopes).text for m in request.messages]
    except RenderError as exc:
        raise SendFailure(f"{request.id or request.name}: {exc}") from None


def call_json(prepared: Prepared) -> dict[str, Any]:
    """`pigeon render --format json` of a gRPC request."""
    from pigeon.rpc import GrpcError, target_of
    from pigeon.rpc.call import metadata_of

    rendered, request = prepared.rendered, prepared.request
    try:
        target = target_of(rendered.url).url
    except GrpcError as exc:
        raise SendFailure(f"{request.id or request.name}: {exc}") from None
    try:
        metadata, left = metadata_of(rendered.headers)
    except GrpcError as exc:
        raise SendFailure(f"{request.id or request.name}: {exc}") from None
    return {
        "type": "grpc",
        "target": target,
        "rpc": request.grpc.rpc,
        "metadata": [[k, v if isinstance(v, str) else v.hex()] for k, v in metadata],
        "message": rendered.body_text,
        "messages": messages_of(prepared),
        "unresolved": list(rendered.unresolved),
        "warnings": [*rendered.warnings, *left],
    }


def call_text(prepared: Prepared) -> str:
    """`pigeon render` of a gRPC request: the call line, the metadata, the message(s)."""
    data = call_json(prepared)
    lines = [f"GRPC {data['target']} {data['rpc']}"]
    lines += [f"{k}: {v}" for k, v in data["metadata"]]
    text = "\n".join(lines) + "\n"
    if data["message"] is not None:
        text += "\n" + data["message"].rstrip("\n") + "\n"
    for message in data["messages"]:
        text += "\n" + message.rstrip("\n") + "\n"
    return text


def export_grpcurl(prepared: Prepared) -> str:
    """`pigeon export grpcurl`: the command; a stream's messages go in ``-d``, else the body."""
    from pigeon.exporters.grpcurl import to_grpcurl
    from pigeon.rpc import GrpcError

    request = prepared.request
    if request.kind != "grpc" and not prepared.rendered.url.lower().startswith(("grpc", "grpcs")):
        raise UsageError(f"{request.id}: not a gRPC request (export curl sends HTTP)")
    messages = messages_of(prepared)
    if not messages and prepared.rendered.body_text is not None:
        messages = [prepared.rendered.body_text]
    try:
        return to_grpcurl(prepared.rendered, request, messages, prepared.collection.root)
    except GrpcError as exc:
        raise SendFailure(f"{request.id or request.name}: {exc}") from None


def cli_export(args: argparse.Namespace) -> int:
    """`pigeon export KIND`: print the command or program (``KIND`` one of
    ``pigeon.exporters.KINDS``); unresolved placeholders are named on stderr
    (the command would send them as written), and with ``--strict`` nothing is printed and
    the exit code is 3. It carries the cookies of the environment's saved jar (the app's,
    ``pigeon run --cookies keep``'s) that a send would. ``postman`` and ``har`` export the
    whole collection (:func:`export_collection`)."""
    if args.kind in SELECTION_KINDS:
        return export_locust(args)
    if getattr(args, "more", None):
        raise UsageError(f"pigeon export {args.kind} takes one request")
    if getattr(args, "data", None):
        raise UsageError("--data is for pigeon export locust")
    if args.kind in COLLECTION_KINDS:
        return export_collection(args)
    if args.request is None:
        raise UsageError(f"pigeon export {args.kind} needs a request")
    prepared = prepared_from_args(args)
    if args.kind == "grpcurl":
        problems = _unresolved(prepared.rendered)
        if problems and args.strict:
            raise UnresolvedError(f"unresolved placeholders: {problems}")
        print(for_terminal(export_grpcurl(prepared), sys.stdout))
        if problems:
            warn(f"unresolved placeholders, sent as written: {problems}")
        return EXIT_OK
    if prepared.request.kind == "grpc":
        raise UsageError(f"{prepared.request.id}: a gRPC call: pigeon export grpcurl")
    jar = cookies.new_jar()
    env = args.env if args.env is not None else prepared.collection.default_environment
    problem = cookies.load(jar, prepared.collection.root, env)
    if problem:
        warn(problem)
    rendered = cookies.with_jar_cookies(prepared.rendered, jar)
    problems = _unresolved(rendered)
    if problems and args.strict:
        raise UnresolvedError(f"unresolved placeholders: {problems}")
    print(for_terminal(exporter(args.kind)(rendered), sys.stdout))
    if problems:
        warn(f"unresolved placeholders, sent as written: {problems}")
    flow = rendered.flow_auth
    if flow is not None and args.kind != "curl":
        warn(f"{flow.type} auth is applied as the request is sent: the program says how to add "
             "it, unless it does itself")  # fmt: skip
    elif flow is not None and not KINDS[flow.type].curl(flow):
        warn(f"{flow.type} auth signs each request as it is sent: curl has no way to, and the "
             "command carries no signature")  # fmt: skip
    return EXIT_OK


def export_collection(args: argparse.Namespace) -> int:
    """`pigeon export postman|har DIR`: the collection as a Postman v2.1 collection (its
    templates as written) or a HAR 1.2 log of every HTTP request rendered (with ``--env``,
    the pre-request scripts of a trusted collection run); what is left out is named on
    stderr, and with ``--strict`` an unresolved placeholder prints nothing and exits 3."""
    if args.request is not None:
        raise UsageError(f"pigeon export {args.kind} exports the whole collection: no request")
    collection = load(Path(args.collection))
    if args.kind == "postman":
        from pigeon.exporters.postman import to_postman

        doc, notes = to_postman(collection)
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        for note in notes:
            warn(note)
        return EXIT_OK
    from pigeon.exporters.har import to_har

    rendered: list[RenderedRequest] = []
    problems: list[str] = []
    for _, request in collection.walk():
        if request.type != "http" or request.url.lower().startswith(("ws", "grpc")):
            warn(f"{request.id}: a {request.type} request is not in a HAR log")
            continue
        try:
            prepared = prepared_from_args(_with_request(args, request.id))
        except SendFailure as exc:
            warn(f"{request.id}: left out: {exc}")
            continue
        unresolved = _unresolved(prepared.rendered)
        if unresolved:
            problems.append(f"{request.id}: {unresolved}")
        rendered.append(prepared.rendered)
    if problems and args.strict:
        raise UnresolvedError(f"unresolved placeholders: {'; '.join(problems)}")
    print(json.dumps(to_har(rendered), ensure_ascii=False, indent=2))
    for problem in problems:
        warn(f"unresolved placeholders, sent as written: {problem}")
    return EXIT_OK


def export_locust(args: argparse.Namespace) -> int:
    """`pigeon export locust DIR [REQUEST_OR_FOLDER ...]`: a locustfile sending the selection
    through ``pigeon.locust.PigeonUser`` (DESIGN §13). The names are checked as ``pigeon run``
    checks them; what the selection needs trust for is named on stderr unless ``--trust``
    (the users would refuse to start); without Locust installed, one line says how to add it."""
    from pigeon.exporters.locust import INSTALL, locust_installed, to_locustfile
    from pigeon.run import check_broken, select
    from pigeon.scripts.sources import PHASES
    from pigeon.trust import TrustStore, needs

    selection = [args.request, *args.more] if args.request is not None else []
    collection = load(Path(args.collection))
    check_broken(collection, args.env, selection or None)
    chosen = select(collection, selection or None)
    if args.data:
        from pigeon.rows import DataRows

        DataRows(Path(args.data)).check()
    print(
        to_locustfile(
            args.collection,
            collection.name,
            selection,
            chosen,
            environment=args.env,
            data=args.data,
            trust=bool(args.trust),
            scripts=not args.no_scripts,
            variables=args.vars,
        ),
        end="",
    )
    if not args.trust and not TrustStore().is_trusted(collection.root):
        phases = () if args.no_scripts else PHASES
        found = needs(collection, chosen, args.env, phases=phases, cli_vars=args.vars)
        for need in found:
            say(f"needs trust: {need}")
        if found:
            warn("the users refuse to start until the collection is trusted: set trust = True "
                 "in the locustfile, or export with --trust")  # fmt: skip
    if not locust_installed():
        warn(f"Locust is not installed: {INSTALL}")
    return EXIT_OK


def _with_request(args: argparse.Namespace, ref: str) -> argparse.Namespace:
    copy = argparse.Namespace(**vars(args))
    copy.request = ref
    return copy
