"""The send pipeline shared by `pigeon run` and the app, and the headless runner itself.

One request: scopes -> pre-request scripts -> render -> send -> post-response scripts.
A run: the selected requests in collection order, runtime variables carried from one
request to the next, a line per request, a summary, reports, and DESIGN §6's exit codes.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pigeon.model import BrokenFile, Collection, Folder, Request, normalize_ref
from pigeon.render import RenderedRequest, RenderError, render_request
from pigeon.scopes import RuntimeVars, Scopes, UnknownEnvironment, build_scopes

if TYPE_CHECKING:  # imported when first used: `pigeon run --help` stays quick
    from pigeon.config import AppConfig
    from pigeon.scripts import AssertionFailure, ScriptError, ScriptOutcome
    from pigeon.send import Exchange, HttpSession

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNRESOLVED = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT


class RunUsageError(Exception):
    """Bad usage or a broken collection: exit code 2."""


@dataclass
class RunContext:
    """What every request of one run (or one app session) shares."""

    collection: Collection
    environment: str | None = None
    runtime: RuntimeVars = field(default_factory=RuntimeVars)
    cli_vars: Mapping[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    http: HttpSession | None = None  # created on first send
    trusted: bool = False
    strict: bool = False
    # All scripts of one phase together; a script stuck in a loop fails its request instead
    # of hanging a CI job. ``None``: no limit.
    script_timeout: float | None = 30.0
    # Reuse Scopes (and so their render caches) while the files cannot change, as in
    # `pigeon run`: one per request, or one per folder chain for the requests that define no
    # variables of their own. The app edits variables in place, so it leaves this off.
    reuse_scopes: bool = False
    # Bytes of a response body kept in memory (the rest goes to a temporary file) by the
    # session created here; ``None``: HttpSession's default.
    max_body_in_memory: int | None = None
    # `pigeon run --history` records each send in the collection's history; the app records
    # its sends itself (outside the send), so it leaves this ``None``.
    history: RunHistory | None = None
    _scopes: dict[tuple[int, ...], tuple[tuple[Any, ...], Scopes]] = field(
        default_factory=dict, repr=False
    )

    def session(self) -> HttpSession:
        if self.http is None:
            from pigeon.send import HttpSession

            if self.max_body_in_memory is not None:
                self.http = HttpSession(max_body_in_memory=self.max_body_in_memory)
            else:
                self.http = HttpSession()
        return self.http

    async def aclose(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None


@dataclass
class RunHistory:
    """How a run records its sends: into the collection's history, masked and pruned as the
    app does. A history that cannot be written never fails a run: ``warn`` hears of it once."""

    secrets: list[str] = field(default_factory=list)
    keep: int | None = None
    max_age_days: float | None = None
    warn: Callable[[str], None] | None = None
    warned: bool = False

    def record(self, root: Path, exchange: Exchange) -> None:
        from pigeon.history import record_and_prune

        try:
            record_and_prune(
                root,
                exchange,
                secrets=self.secrets,
                keep=self.keep,
                max_age_days=self.max_age_days,
            )
        except Exception as exc:  # a read-only checkout, a full disk: the run goes on
            if not self.warned:
                self.warned = True
                if self.warn is not None:
                    self.warn(f"{type(exc).__name__}: {exc}")


@dataclass
class RequestResult:
    """Everything one request of a run produced."""

    request: Request
    chain: list[Folder]
    rendered: RenderedRequest | None = None
    exchange: Exchange | None = None
    error: str | None = None  # could not be built or sent
    script_errors: list[ScriptError] = field(default_factory=list)
    assertion_failures: list[AssertionFailure] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    strict_failure: bool = False
    duration_ms: float = 0.0

    @property
    def id(self) -> str:
        return self.request.id or self.request.name

    @property
    def failed(self) -> bool:
        """Could not be built or sent, a script failed, or an assertion failed."""
        return bool(self.error or self.script_errors or self.assertion_failures)

    @property
    def passed(self) -> bool:
        return not self.failed and not self.strict_failure

    def problems(self) -> list[str]:
        """One line per thing that went wrong, for the console and the reports."""
        out = []
        if self.error:
            out.append(self.error)
        out += [f"script error: {e.summary()}" for e in self.script_errors]
        out += [a.summary() for a in self.assertion_failures]  # says "assertion failed"
        if self.strict_failure:
            out.append("unresolved placeholders: " + ", ".join(self.unresolved))
        return out


@dataclass
class RunSummary:
    collection: Collection
    results: list[RequestResult] = field(default_factory=list)
    duration_ms: float = 0.0
    bailed: bool = False
    interrupted: bool = False

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if any(r.failed for r in self.results):
            return EXIT_FAILED
        if any(r.strict_failure for r in self.results):
            return EXIT_UNRESOLVED
        return EXIT_OK


# -- one request ----------------------------------------------------------------------------


async def _scripts(
    ctx: RunContext,
    phase: str,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    exchange: Exchange | None = None,
) -> ScriptOutcome:
    """Run one phase's scripts in a thread, so a slow script never blocks the event loop.

    Cancelling the awaiting task (the app's cancel key) also stops the script itself at its
    next line; without that the thread would run on, and still set variables, unseen.
    """
    from pigeon.scripts import run_scripts

    cancel = threading.Event()
    try:
        return await asyncio.to_thread(
            run_scripts,
            phase,
            ctx.collection,
            chain,
            request,
            scopes,
            ctx.runtime,
            trusted=ctx.trusted,
            exchange=exchange,
            timeout=ctx.script_timeout,
            cancel=cancel,
        )
    except asyncio.CancelledError:
        cancel.set()
        raise


def _scopes(ctx: RunContext, chain: list[Folder], request: Request, reuse: bool = True) -> Scopes:
    """The request's scopes, shared where ``ctx.reuse_scopes`` allows.

    Requests of one folder that define no variables see exactly the same variables, so they
    share one Scopes and its render cache: a run of many such requests renders each
    variable once, not once per request.
    """
    if not (reuse and ctx.reuse_scopes):
        return build_scopes(
            ctx.collection, chain, request, ctx.environment, ctx.runtime, ctx.cli_vars, ctx.environ
        )
    own = request if request.variables else None
    owners: tuple[Any, ...] = (*chain, own)
    key = tuple(map(id, owners))
    hit = ctx._scopes.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], owners, strict=True)):
        return hit[1]
    scopes = build_scopes(
        ctx.collection, chain, own, ctx.environment, ctx.runtime, ctx.cli_vars, ctx.environ
    )
    ctx._scopes[key] = (owners, scopes)
    return scopes


async def build(
    ctx: RunContext, chain: list[Folder], request: Request, result: RequestResult
) -> tuple[Request, Scopes]:
    """Pre-request scripts, then render into ``result.rendered`` (left ``None`` on failure).

    Returns the request as the scripts left it and its scopes, for the post-response phase.
    ``pigeon render`` stops here; a send goes on.
    """
    from pigeon.scripts import has_scripts

    scopes = _scopes(ctx, chain, request)
    if ctx.trusted and has_scripts(ctx.collection, chain, request, "pre_request"):
        outcome = await _scripts(ctx, "pre_request", chain, request, scopes)
        result.log += outcome.output
        result.script_errors += outcome.errors
        if outcome.errors:
            result.error = "not sent: a pre-request script failed"
            return request, scopes
        if outcome.request is not request:
            request = outcome.request  # the script edited it, its variables too
            scopes = _scopes(ctx, chain, request, reuse=False)
    try:
        rendered = render_request(ctx.collection, chain, request, scopes)
    except RenderError as exc:
        result.error = f"not sent: {exc}"
        return request, scopes
    except Exception as exc:  # a defect in rendering fails this request, not the whole run
        result.error = f"not sent: could not render the request ({type(exc).__name__}: {exc})"
        return request, scopes
    result.rendered = rendered
    result.unresolved, result.warnings = rendered.unresolved, rendered.warnings
    return request, scopes


async def execute(ctx: RunContext, chain: list[Folder], request: Request) -> RequestResult:
    """Scripts, render, send, scripts: never raises for what a request or script does."""
    from pigeon.scripts import has_scripts

    started = time.perf_counter()
    result = RequestResult(request, list(chain))
    try:
        request, scopes = await build(ctx, chain, request, result)
        rendered = result.rendered
        if rendered is None:
            return result
        if ctx.strict and rendered.unresolved:
            result.strict_failure = True
            return result
        exchange = await ctx.session().send(rendered)
        result.exchange = exchange
        if ctx.history is not None:  # before the scripts: a send is recorded whatever follows
            ctx.history.record(ctx.collection.root, exchange)
        if exchange.error:
            result.error = exchange.error
            return result
        if ctx.trusted and has_scripts(ctx.collection, chain, request, "post_response"):
            outcome = await _scripts(ctx, "post_response", chain, request, scopes, exchange)
            result.log += outcome.output
            result.script_errors += outcome.errors
            result.assertion_failures += outcome.assertion_failures
        return result
    finally:
        result.duration_ms = (time.perf_counter() - started) * 1000


# -- a run ----------------------------------------------------------------------------------


def select(
    collection: Collection, selection: list[str] | None
) -> list[tuple[list[Folder], Request]]:
    """The requests a run sends, in collection order; names are requests or folders.

    Only the folders on the way to a selected name are visited, so sending one folder of a
    big collection does not walk all of it.
    """
    if not selection:
        return collection.walk()
    wanted = {normalize_ref(name): name for name in selection}
    found: set[str] = set()
    out: list[tuple[list[Folder], Request]] = []

    def visit(items: list[Folder | Request], chain: list[Folder], whole: bool) -> None:
        for item in items:
            if isinstance(item, Folder):
                hit = item.id in wanted
                if hit:
                    found.add(item.id)
                if whole or hit or any(k.startswith(item.id + "/") for k in wanted):
                    visit(item.items, [*chain, item], whole or hit)
            elif item.id in wanted:
                found.add(item.id)
                out.append((chain, item))
            elif whole:
                out.append((chain, item))

    visit(collection.items, [], False)
    for key, name in wanted.items():
        if key not in found:
            everything = collection.walk()
            ids = {r.id for _, r in everything} | {f.id for chain, _ in everything for f in chain}
            close = difflib.get_close_matches(key, sorted(ids), n=3)
            hint = f" (did you mean: {', '.join(close)}?)" if close else ""
            raise RunUsageError(f"no request or folder {name!r} in {collection.root}{hint}")
    return out


def check_broken(
    collection: Collection, env: str | None, selection: list[str] | None = None
) -> None:
    """Refuse to run when a file the run depends on did not load (exit 2, naming file and line).

    With no selection every broken request and folder file counts; with one, only the
    selected requests and folders and the folder files above them do. An environment file
    counts when it is the environment in use. One bad file elsewhere does not block a run
    that never touches it.
    """
    relevant = [b for b in collection.broken if _broken_matters(collection, b, env, selection)]
    if relevant:
        first = relevant[0]
        more = f" (and {len(relevant) - 1} more)" if len(relevant) > 1 else ""
        raise RunUsageError(f"broken collection: {first}{more}")
    if env is not None and env not in collection.environments:
        raise RunUsageError(str(UnknownEnvironment(env, sorted(collection.environments))))


def _broken_matters(
    collection: Collection, broken: BrokenFile, env: str | None, selection: list[str] | None
) -> bool:
    try:
        rel = broken.path.resolve().relative_to(collection.root.resolve()).as_posix()
    except ValueError:
        return True  # outside the root: nothing to scope it by
    parts = rel.split("/")
    if parts[0] == "environments" and len(parts) == 2:
        wanted = collection.default_environment if env is None else env
        return normalize_ref(parts[1]) == wanted
    if not selection:
        return True
    if parts[-1] == "collection.toml" and len(parts) == 1:
        return True
    if parts[-1] == "folder.toml":
        folder = "/".join(parts[:-1])
        keys = [normalize_ref(name) for name in selection]
        return any(k == folder or k.startswith(folder + "/") for k in keys)
    key = normalize_ref(rel)
    return any(key == k or key.startswith(k + "/") for k in map(normalize_ref, selection))


async def run_collection(
    ctx: RunContext,
    selection: list[str] | None = None,
    *,
    strict: bool | None = None,
    bail: bool = False,
    on_result: Callable[[RequestResult], None] | None = None,
) -> RunSummary:
    """Send the selected requests one after another, sharing runtime variables.

    ``strict`` (when given) overrides ``ctx.strict``; an unknown name in ``selection``
    raises ``RunUsageError`` before anything is sent.
    """
    if strict is not None:
        ctx.strict = strict
    summary = RunSummary(ctx.collection)
    started = time.perf_counter()
    try:
        for chain, request in select(ctx.collection, selection):
            result = await execute(ctx, chain, request)
            summary.results.append(result)
            if on_result is not None:
                on_result(result)
            if bail and not result.passed:
                summary.bailed = True
                break
    finally:
        summary.duration_ms = (time.perf_counter() - started) * 1000
    return summary


# -- the console ----------------------------------------------------------------------------


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _printable(text: str) -> str:
    """Control characters a script printed or a server sent, shown as escapes: they must not
    move the cursor, recolour the terminal or break a CI log's lines."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class Console:
    """Live lines for a run: colour on a terminal, plain text in CI logs."""

    def __init__(self, out: TextIO, color: bool | None = None, width: int = 0) -> None:
        self.out = out
        self.width = min(width, 40)  # request ids are padded to this, so statuses line up
        if color is None:  # https://no-color.org: a set, non-empty NO_COLOR turns it off
            color = out.isatty() and not os.environ.get("NO_COLOR")
        self.color = color

    def _c(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def result(self, r: RequestResult) -> None:
        method = (r.rendered.method if r.rendered else r.request.method).ljust(6)
        ex = r.exchange
        if ex is not None and ex.status is not None:
            code = (
                "32"
                if ex.status < 300
                else "36"
                if ex.status < 400
                else "33"
                if ex.status < 500
                else "31"
            )
            status = self._c(f"{ex.status} {ex.status_class}", code)
            figures = f"{ex.elapsed_ms:.0f} ms  {_size(ex.size)}"
        else:
            status, figures = self._c("—", "2"), f"{r.duration_ms:.0f} ms"
        mark = self._c("✔", "32") if r.passed else self._c("✘", "31")
        print(
            f"{mark} {method} {_printable(r.id).ljust(self.width)}  {status}  {figures}",
            file=self.out,
        )
        for line in r.problems():
            print(f"    {self._c(_printable(line), '31')}", file=self.out)
        if r.unresolved and not r.strict_failure:
            names = ", ".join(r.unresolved)
            print(f"    {self._c(f'unresolved (sent as written): {names}', '33')}", file=self.out)
        for warning in r.warnings:
            print(f"    warning: {_printable(warning)}", file=self.out)
        for line in r.log:
            print(f"    {_printable(line)}", file=self.out)
        self.out.flush()  # live in a CI log too, where stdout is a pipe

    def summary(self, s: RunSummary) -> None:
        """One line: requests, passed, failed, assertion failures, total time."""
        failures = sum(len(r.assertion_failures) for r in s.results)
        parts = [
            _count(len(s.results), "request"),
            self._c(f"{s.passed} passed", "32"),
            self._c(f"{s.failed} failed", "31" if s.failed else "2"),
            _count(failures, "assertion failure"),
            f"{s.duration_ms / 1000:.2f} s",
        ]
        if s.bailed:
            parts.append("stopped after the first failure (--bail)")
        if s.interrupted:
            parts.append("interrupted")
        print(" · ".join(parts), file=self.out)


def cli_run(args: argparse.Namespace) -> int:
    """`pigeon run`: the arguments as cli.py parsed them; returns the exit code."""
    from pigeon.prepare import PrepareError, load
    from pigeon.reports import check_report_paths, parse_report_specs
    from pigeon.scripts import has_scripts

    try:
        specs = parse_report_specs(args.reports or [])
        collection = load(Path(args.collection))
        check_broken(collection, args.env, args.requests or None)
        chosen = select(collection, args.requests or None)
        check_report_paths(specs)
    except (RunUsageError, ValueError) as exc:
        print(f"pigeon: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PrepareError as exc:
        print(f"pigeon: {exc}", file=sys.stderr)
        return exc.exit_code

    from pigeon.config import TrustStore

    trusted = bool(args.trust) or TrustStore().is_trusted(collection.root)
    if not trusted and any(has_scripts(collection, chain, r) for chain, r in chosen):
        print(
            f"pigeon: warning: {collection.root} is not trusted; its scripts will not run "
            f"(trust it in the app, or pass --trust)",
            file=sys.stderr,
        )
    config = _user_config()
    history = None
    if getattr(args, "history", False):
        history = RunHistory(
            secrets=list(collection.dotenv.values()),
            keep=config.history_keep,
            max_age_days=config.history_max_age_days,
            warn=_history_warning,
        )
    ctx = RunContext(
        collection,
        environment=args.env,
        cli_vars=dict(getattr(args, "vars", {}) or {}),
        trusted=trusted,
        strict=bool(args.strict),
        reuse_scopes=True,
        max_body_in_memory=config.max_body_in_memory,
        history=history,
    )
    width = max((len(r.id or r.name) for _, r in chosen), default=0)
    console = Console(sys.stdout, getattr(args, "color", None), width)

    done: list[RequestResult] = []

    def on_result(result: RequestResult) -> None:
        done.append(result)
        console.result(result)

    async def go() -> RunSummary:
        try:
            return await run_collection(
                ctx, args.requests or None, bail=bool(args.bail), on_result=on_result
            )
        finally:
            await ctx.aclose()

    started = time.perf_counter()
    try:
        summary = asyncio.run(go())
    except KeyboardInterrupt:
        # Ctrl-C (or a CI job's SIGINT): what finished is still summed up and reported.
        elapsed = (time.perf_counter() - started) * 1000
        summary = RunSummary(collection, done, elapsed, interrupted=True)
        console.summary(summary)
        _write_reports(summary, specs)
        print("pigeon: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a defect, not the user's doing: one line, not a traceback
        print(
            f"pigeon: run stopped by an internal error: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    console.summary(summary)
    if not _write_reports(summary, specs):
        return EXIT_FAILED
    return summary.exit_code


def _user_config() -> AppConfig:
    """``config.toml`` for the settings a run uses (history limits, body memory); a problem
    with it is a warning on stderr and the defaults apply, as in the app."""
    from pigeon.config import AppConfig, ConfigError

    try:
        config = AppConfig.load()
    except ConfigError as exc:
        print(f"pigeon: warning: config not loaded: {exc}", file=sys.stderr)
        return AppConfig()
    for problem in config.problems:
        print(f"pigeon: warning: {problem}", file=sys.stderr)
    return config


def _history_warning(problem: str) -> None:
    print(f"pigeon: warning: history not recorded: {problem}", file=sys.stderr)


def _write_reports(summary: RunSummary, specs: list[tuple[str, Path]]) -> bool:
    from pigeon.reports import write_reports

    try:
        write_reports(summary, specs)
    except OSError as exc:
        print(f"pigeon: cannot write report: {exc}", file=sys.stderr)
        return False
    return True
