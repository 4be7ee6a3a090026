"""`pigeon run` at the terminal (DESIGN §6): the options checked before anything is sent,
a live line per request, a summary, the reports, and the run's exit code.

The run itself is ``pigeon.run``; this module is its console and its settings from the
user's ``config.toml``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from pigeon import cookies
from pigeon.bodies import human_size
from pigeon.cli.collection import load, trusted
from pigeon.cli.secret import check_prompts, terminal_vault
from pigeon.cli.stderr import say, warn
from pigeon.config import AppConfig, ConfigError
from pigeon.errors import EXIT_FAILED, SendFailure, UsageError
from pigeon.pipeline import ResultRecord, RunContext, RunHistory
from pigeon.reports import (
    check_report_paths,
    parse_report_specs,
    shows_exchanges,
    to_stdout,
    write_reports,
)
from pigeon.rows import DataRows, parse_types
from pigeon.run import RunSummary, check_broken, folders, run_collection, select, shard
from pigeon.send_thread import ThreadedSession
from pigeon.shards import durations, parse_shard_by, shard_spec, weight_by
from pigeon.terminal import printable, use_color


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _replies(n: int) -> str:
    return "1 reply" if n == 1 else f"{n} replies"


class Console:
    """Live lines for a run: colour on a terminal, plain text in CI logs."""

    def __init__(self, out: TextIO, color: bool | None = None, width: int = 0) -> None:
        self.out = out
        self.width = min(width, 40)  # request ids are padded to this, so statuses line up
        self.color = use_color(None, out) if color is None else color

    def _c(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def result(self, r: ResultRecord) -> None:
        """The request's line and those under it, put out at once: one write, one flush."""
        method = r.method.ljust(6)
        if r.method == "GRPC" and r.status is not None and r.elapsed_ms is not None:
            # a gRPC call: its status by name (OK green, any other red), replies counted
            status = self._c(printable(r.reason or str(r.status)), "32" if r.status == 0 else "31")
            figures = f"{r.elapsed_ms:.0f} ms  {human_size(r.size or 0)}"
            if r.frames is not None:
                figures += f"  {r.frames[0]} sent, {_replies(r.frames[1])}"
        elif r.status is not None and r.elapsed_ms is not None and r.size is not None:
            code = (
                "32"
                if r.status < 300
                else "36"
                if r.status < 400
                else "33"
                if r.status < 500
                else "31"
            )
            status = self._c(f"{r.status} {r.status_class}", code)
            figures = f"{r.elapsed_ms:.0f} ms  {human_size(r.size)}"
            if r.frames is not None:
                figures += f"  {r.frames[0]} sent, {r.frames[1]} received"
        else:
            status, figures = self._c("—", "2"), f"{r.duration_ms:.0f} ms"
        if r.skipped:
            mark, figures = self._c("○", "33"), f"{figures}  {self._c('skipped', '33')}"
        else:
            mark = self._c("✔", "32") if r.passed else self._c("✘", "31")
        lines = [f"{mark} {method} {printable(r.id).ljust(self.width)}  {status}  {figures}"]
        if r.scripts_skipped:
            phases = " and ".join(p.replace("_", "-") for p in r.scripts_skipped)
            lines.append(f"    {self._c(f'{phases} scripts not run (--no-scripts)', '33')}")
        for line in r.problems():
            lines.append(f"    {self._c(printable(line), '31')}")
        if r.unresolved and not r.strict_failure:
            names = printable(", ".join(r.unresolved))
            lines.append(f"    {self._c(f'unresolved (sent as written): {names}', '33')}")
        for warning in r.warnings:
            lines.append(f"    warning: {printable(warning)}")
        for line in r.log:
            lines.append(f"    {printable(line)}")
        lines.append("")
        self.out.write("\n".join(lines))
        self.out.flush()  # live in a CI log too, where stdout is a pipe

    def summary(self, s: RunSummary) -> None:
        """One line: requests, passed, failed, skipped (if any), assertion failures, time."""
        failures = sum(len(r.assertion_failures) for r in s.results)
        parts = [
            _count(len(s.results), "request"),
            self._c(f"{s.passed} passed", "32"),
            self._c(f"{s.failed} failed", "31" if s.failed else "2"),
            *([self._c(f"{s.skipped} skipped", "33")] if s.skipped else []),
            _count(failures, "assertion failure"),
            f"{s.duration_ms / 1000:.2f} s",
        ]
        if s.bailed:
            parts.append("stopped after the first failure (--bail)")
        if s.interrupted:
            parts.append("interrupted")
        print(" · ".join(parts), file=self.out)


def cli_run(args: argparse.Namespace) -> int:
    """`pigeon run`: the arguments as ``pigeon.cli`` parsed them (``args.vars``: the parsed
    ``--var``s); returns the exit code. Bad usage raises before anything is sent."""
    specs = parse_report_specs(args.reports or [])
    collection = load(Path(args.collection))
    check_broken(collection, args.env, args.requests or None)
    for broken in collection.broken:
        if broken.skipped:
            warn(str(broken))
    chosen = select(collection, args.requests or None)
    positions = None
    if getattr(args, "shard_by", None) and not getattr(args, "shard", None):
        raise UsageError("--shard-by needs --shard")
    if getattr(args, "shard", None):
        index, count = shard_spec(args.shard, os.environ)
        by = getattr(args, "shard_by", None)
        weight = weight_by(durations(parse_shard_by(by))) if by else None
        positions = {id(r): n for n, (_, r) in enumerate(chosen)}
        chosen = shard(chosen, index, count, weight)
    iterations = _iterations(args)
    check_report_paths(specs)

    cli_vars = dict(getattr(args, "vars", {}) or {})
    no_scripts = bool(getattr(args, "no_scripts", False))
    is_trusted = trusted(
        collection,
        chosen,
        trust=bool(args.trust),
        env=args.env,
        cli_vars=cli_vars,
        no_scripts=no_scripts,
        rows=(row for _, row in iterations or ()),
    )
    check_prompts(collection, chosen, args.env, cli_vars)
    vault = terminal_vault()  # one for every lane: a secret is read once a run
    config = _user_config()
    history = None
    if getattr(args, "history", False):
        history = RunHistory(
            secrets=list(collection.dotenv.values()),
            keep=config.history_keep,
            max_age_days=config.history_max_age_days,
            warn=_history_warning,
        )
    parallel = getattr(args, "parallel", None)
    parallel = 1 if parallel is None else parallel
    if parallel < 1:
        raise UsageError(f"--parallel {parallel}: expected 1 or more")

    def context(alone: bool = False) -> RunContext:
        return RunContext(
            collection,
            environment=args.env,
            cli_vars=cli_vars,
            trusted=is_trusted,
            allow_scripts=not no_scripts,
            strict=bool(args.strict),
            reuse_scopes=True,
            # One exchange at a time per lane: httpx's sync client costs less per request,
            # and with one lane the loop has nothing else to do while a request is out.
            http=ThreadedSession(max_body_in_memory=config.max_body_in_memory, alone=alone),
            history=history,
            script_memory_mb=config.script_memory_mb,
            vault=vault,
        )

    lanes = [context() for _ in range(min(parallel, len(folders(chosen))) - 1)]
    ctx = context(alone=not lanes)
    if isinstance(iterations, DataRows):  # the last row's label is the longest
        label = len(f"row {len(iterations)}") + 3
    else:
        label = max((len(lab) + 3 for lab, _ in iterations or []), default=0)
    width = max((len(r.id or r.name) + label for _, r in chosen), default=0)
    # A report on stdout is the output; the run's lines then go to stderr, never into it.
    out = sys.stderr if to_stdout(specs) else sys.stdout
    console = Console(out, use_color(getattr(args, "color", None), out), width)

    done: list[ResultRecord] = []
    # Headers and bodies for the reports, masked, on disk while the run goes (only when asked;
    # the temporary file goes with the last record that points into it).
    excerpts = None
    if shows_exchanges(specs):
        from pigeon.excerpts import Excerpts

        excerpts = Excerpts(collection.dotenv.values())

    def on_result(result: ResultRecord) -> None:
        done.append(result)
        console.result(result)

    keep_cookies = getattr(args, "cookies", "fresh") == "keep"
    jar_env = args.env if args.env is not None else collection.default_environment

    async def go() -> RunSummary:
        try:
            if keep_cookies:
                jar = ctx.session().cookie_jar
                _warn_if(cookies.load(jar, collection.root, jar_env))
                for lane in lanes:  # each lane has a session, so a jar, of its own
                    for cookie in jar:
                        lane.session().cookie_jar.set_cookie(cookie)
            return await run_collection(
                ctx,
                bail=bool(args.bail),
                on_result=on_result,
                requests=chosen,
                iterations=iterations,
                positions=positions,
                lanes=lanes,
                excerpts=excerpts,
            )
        finally:
            if keep_cookies:
                _save_cookies(ctx, lanes, collection.root, jar_env)
            for c in (ctx, *lanes):
                await c.aclose()

    # What is loaded by now (modules, the collection) lives as long as the run: frozen out of
    # the collector's passes, which then walk only what the requests make. Each request leaves
    # a few reference cycles (httpx's response and its stream): collected every 10,000
    # allocations rather than 700, they die young, where a pass is cheap.
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    started = time.perf_counter()
    try:
        summary = asyncio.run(go())
    except KeyboardInterrupt:
        # Ctrl-C (or a CI job's SIGINT): what finished is still summed up and reported, and
        # the interrupt goes on to its exit code.
        elapsed = (time.perf_counter() - started) * 1000
        summary = RunSummary(collection, done, elapsed, interrupted=True)
        console.summary(summary)
        _write_reports(summary, specs)
        raise
    except Exception as exc:  # a defect, not the user's doing: one line, not a traceback
        raise SendFailure(f"run stopped by an internal error: {type(exc).__name__}: {exc}") from exc
    console.summary(summary)
    if not _write_reports(summary, specs):
        return EXIT_FAILED
    return summary.exit_code


def _iterations(
    args: argparse.Namespace,
) -> DataRows | list[tuple[str, dict[str, Any]]] | None:
    """One ``(label, variables)`` per iteration: a data file's rows, or ``--iterations N``."""
    data = getattr(args, "data", None)
    count = getattr(args, "iterations", None)
    if getattr(args, "data_types", None) and not data:
        raise UsageError("--data-types needs --data")
    if data:  # read as the run goes, never held: checked whole first
        return DataRows(Path(data), parse_types(args.data_types)).check()
    if count is not None:
        if count < 1:
            raise UsageError(f"--iterations {count}: expected 1 or more")
        return [(f"iteration {n}", {}) for n in range(1, count + 1)]
    return None


def _user_config() -> AppConfig:
    """``config.toml`` for the settings a run uses (history limits, body memory); a problem
    with it is a warning on stderr and the defaults apply, as in the app."""
    try:
        config = AppConfig.load()
    except ConfigError as exc:
        warn(f"config not loaded: {exc}")
        return AppConfig()
    for problem in config.problems:
        warn(problem)
    return config


def _save_cookies(ctx: RunContext, lanes: list[RunContext], root: Path, env: str | None) -> None:
    """``--cookies keep``: what every lane's jar ends with, saved as one jar."""
    jar = ctx.session().cookie_jar
    for lane in lanes:
        for cookie in lane.session().cookie_jar:
            jar.set_cookie(cookie)
    try:
        cookies.save(cookies.snapshot(jar), root, env)
    except OSError as exc:
        warn(f"cookie jar not saved: {exc}")


def _warn_if(problem: str | None) -> None:
    if problem:
        warn(problem)


def _history_warning(problem: str) -> None:
    warn(f"history not recorded: {problem}")


def _write_reports(summary: RunSummary, specs: list[tuple[str, Path]]) -> bool:
    try:
        write_reports(summary, specs)
    except OSError as exc:
        say(f"cannot write report: {exc}")
        return False
    return True
