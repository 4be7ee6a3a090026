"""``pigeon``'s argument parsers, one per command, made on demand (DESIGN §6).

The app's own parser (``_app_parser``) is made alone when no command is named, so the app
starts without building the others; ``build_parser`` makes every command's, which `pigeon
COMMAND`, the completion scripts and the man page read.
"""

from __future__ import annotations

import argparse
from typing import Any

from pigeon import importers
from pigeon.errors import UsageError
from pigeon.exporters import COLLECTION_KINDS as EXPORT_COLLECTION_KINDS
from pigeon.exporters import KINDS as EXPORT_KINDS

# -- shared option parsing ------------------------------------------------------------------


def parse_var(text: str) -> tuple[str, Any]:
    """``name=text`` sets a string; ``name:=json`` sets any JSON value (HTTPie's convention)."""
    from pigeon.values import parse_assignment  # not at the top: `pigeon --help` stays quick

    try:
        return parse_assignment(text)
    except ValueError as exc:
        raise UsageError(f"--var: {exc}") from exc


def parse_vars(items: list[str] | None) -> dict[str, Any]:
    return dict(parse_var(item) for item in items or [])


def _add_common(p: argparse.ArgumentParser, *, scripts: bool = True) -> None:
    """``--env``, ``--var`` and ``--trust``; ``--no-scripts`` for the commands that run a
    collection's scripts (``scripts``)."""
    p.add_argument("--env", metavar="NAME", help="environment to use (default: the collection's)")
    p.add_argument(
        "--var",
        dest="var_items",
        action="append",
        metavar="NAME=TEXT|NAME:=JSON",
        help="set a variable at the highest scope (repeatable)",
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="trust the collection this time: its scripts run, and it may read the process "
        "environment and files outside its directory",
    )
    if not scripts:
        return
    p.add_argument(
        "--no-scripts",
        action="store_true",
        help="do not run the collection's scripts (a request whose assertions are skipped is "
        "reported as skipped)",
    )


def _app_parser() -> argparse.ArgumentParser:
    """``pigeon [DIR]``'s parser alone: the app starts without building the commands' ones."""
    app = argparse.ArgumentParser(
        prog="pigeon",
        description="A keyboard-driven HTTP API client for the terminal.",
        epilog="commands: new, render, run, check, report, import, export, echo, mock, mcp, "
        "auth, graphql-schema, grpc-describe, secret, completion, man (pigeon COMMAND --help)",
    )
    app.add_argument("collection", nargs="?", help="collection directory (default: the demo)")
    app.add_argument("--env", metavar="NAME", help="environment to select on start")
    app.add_argument("--version", action="store_true", help="print the version and exit")
    _add_color(app)
    return app


def build_parser() -> dict[str, argparse.ArgumentParser]:
    app = _app_parser()
    new = argparse.ArgumentParser(
        prog="pigeon new",
        description="Make a new collection to start from: collection.toml, a .gitignore for "
        ".env and .pigeon/, the local environment and an example request.",
        epilog="a directory that already holds something is refused (exit 2)",
    )
    new.add_argument("directory", help="the collection directory to make")

    render = argparse.ArgumentParser(
        prog="pigeon render",
        description="Render a request (pre-request scripts run in a trusted collection) "
        "without sending it.",
    )
    render.add_argument("collection", help="collection directory")
    render.add_argument("request", help="request file relative to the collection (.toml optional)")
    _add_common(render)
    render.add_argument("--format", choices=("json", "curl", "http"), default="json")
    render.add_argument("--strict", action="store_true", help="exit 3 on unresolved placeholders")
    render.add_argument(
        "--reveal",
        action="store_true",
        help="print secret values as they are sent, not masked (for piping to another tool)",
    )

    run = argparse.ArgumentParser(
        prog="pigeon run",
        description="Send a collection's requests in order.",
        epilog="exit codes: 0 every request passed or was skipped (--no-scripts), 1 a request "
        "failed, 2 bad usage, a broken collection, or an untrusted collection whose requests "
        "need trust (each need named), 3 unresolved placeholders with --strict",
    )
    run.add_argument("collection", help="collection directory")
    run.add_argument("requests", nargs="*", metavar="REQUEST_OR_FOLDER")
    _add_common(run)
    run.add_argument(
        "--strict", action="store_true", help="fail requests with unresolved placeholders"
    )
    run.add_argument("--bail", action="store_true", help="stop after the first failure")
    run.add_argument(
        "--report",
        dest="reports",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="write a report: KIND is json, junit, html, markdown or tap; '-' as PATH is "
        "stdout, and the run's own lines then go to stderr (repeatable)",
    )
    run.add_argument(
        "--cookies",
        choices=("keep", "fresh"),
        default="fresh",
        help="keep: start from the cookie jar the app and earlier runs saved in .pigeon/ and "
        "save it back; fresh (default): start empty and save nothing",
    )
    run.add_argument(
        "--history",
        action="store_true",
        help="record the sends in the collection's .pigeon/history/, as the app does",
    )
    data = run.add_mutually_exclusive_group()
    data.add_argument(
        "--data",
        metavar="ROWS.csv|ROWS.json|ROWS.jsonl",
        help="run the selection once per row, the row's columns as variables (as --var; an "
        "explicit --var wins). CSV cells are strings unless typed (--data-types, or a header "
        "like 'age:number')",
    )
    data.add_argument(
        "--iterations", type=int, metavar="N", help="run the selection N times (no data)"
    )
    run.add_argument(
        "--data-types",
        metavar="NAME=KIND,...",
        help="kinds of CSV columns: string, number, int, float, bool, json",
    )
    run.add_argument(
        "--parallel",
        type=int,
        default=1,
        metavar="N",
        help="run up to N top-level folders at the same time (each folder's requests in "
        "order, with runtime variables of its own); results are reported in collection order",
    )
    run.add_argument(
        "--shard",
        metavar="K/N|auto",
        help="run the K-th of N slices, by whole top-level folders (for a CI matrix; merge "
        "the JSON reports with 'pigeon report merge'); auto reads PIGEON_SHARD=K/N, or "
        "GitLab's, CircleCI's or Buildkite's parallel job variables",
    )
    run.add_argument(
        "--shard-by",
        metavar="durations:REPORT.json",
        help="balance the shards by the times of an earlier run's JSON report (a request "
        "it lacks weighs its median)",
    )
    run.add_argument("--no-color", dest="color", action="store_const", const="never")

    chk = argparse.ArgumentParser(
        prog="pigeon check",
        description="Check a collection against its environments without sending anything: "
        "broken files, unresolved placeholders, cycles, unused and shadowed variables, and more. "
        "A '# pigeon: ignore[RULE]' comment on a finding's line or the line above silences it.",
        epilog="exit codes: 0 nothing found (info findings do not count), 1 errors or "
        "warnings, 2 a file does not load or bad usage",
    )
    chk.add_argument("collection", help="collection directory")
    envs = chk.add_mutually_exclusive_group()
    envs.add_argument(
        "--env", metavar="NAME", help="environment to check (default: the collection's)"
    )
    envs.add_argument("--all-envs", action="store_true", help="check against every environment")
    chk.add_argument(
        "--format",
        choices=("text", "json", "github", "junit"),
        default="text",
        help="text (default); json for tools; github: GitHub Actions annotations on the files; "
        "junit: one test case per rule",
    )
    chk.add_argument(
        "--data",
        metavar="ROWS.csv|ROWS.json|ROWS.jsonl",
        help="the data file pigeon run is given: its columns count as defined variables",
    )

    report = argparse.ArgumentParser(
        prog="pigeon report",
        description="Work with the reports of pigeon run: 'merge' makes the JSON reports of "
        "a sharded run (--shard K/N) one report, as one unsharded run would have written it.",
    )
    report.add_argument("action", choices=("merge",))
    report.add_argument("inputs", nargs="+", metavar="SHARD.json", help="the shards' JSON reports")
    report.add_argument(
        "--report",
        dest="reports",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="write the merged report: KIND is json, junit, html, markdown or tap; '-' as "
        "PATH is stdout (repeatable)",
    )

    imp = argparse.ArgumentParser(
        prog="pigeon import", description="Import requests from another tool."
    )
    imp.add_argument(
        "kind", metavar="KIND", choices=importers.KINDS, help="one of " + ", ".join(importers.KINDS)
    )
    imp.add_argument(
        "source",
        help="a file, a directory (posting, bruno), '-' for stdin, or (curl) the command itself",
    )
    imp.add_argument(
        "--into", metavar="COLLECTION_DIR", help="collection to write into (default: .)"
    )
    imp.add_argument(
        "--allow-outside",
        action="store_true",
        help="read files the source names outside its own directory (default: refuse, noted)",
    )

    exp = argparse.ArgumentParser(
        prog="pigeon export",
        description="Export a rendered request as a command or program that sends it, a "
        "whole collection (postman, har), or a locustfile sending a selection (locust).",
    )
    exp.add_argument(
        "kind",
        metavar="KIND",
        choices=(*EXPORT_KINDS, *EXPORT_COLLECTION_KINDS),
        help="one of " + ", ".join((*EXPORT_KINDS, *EXPORT_COLLECTION_KINDS)),
    )
    exp.add_argument("collection")
    exp.add_argument("request", nargs="?", help="the request (not for postman and har)")
    exp.add_argument(
        "more",
        nargs="*",
        metavar="REQUEST_OR_FOLDER",
        help="locust: more requests and folders (none: the whole collection)",
    )
    _add_common(exp)
    exp.add_argument(
        "--data",
        metavar="FILE",
        help="locust: the data file each user takes a row of (CSV, JSON), as pigeon run's",
    )
    exp.add_argument(
        "--strict", action="store_true", help="exit 3 on unresolved placeholders, printing nothing"
    )

    echo = argparse.ArgumentParser(prog="pigeon echo", description="Run the built-in echo server.")
    echo.add_argument("--host", default="127.0.0.1")
    echo.add_argument("--port", type=int, default=8787)
    mock = argparse.ArgumentParser(
        prog="pigeon mock",
        description="Serve a collection's saved examples ([[examples]]): a call matches a "
        "request by method and path; ?example=NAME or Prefer: example=NAME picks one.",
    )
    mock.add_argument("collection", help="collection directory")
    mock.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    mock.add_argument("--port", type=int, default=8788, help="port (default: 8788; 0 picks one)")
    mock.add_argument("--env", metavar="NAME", help="environment whose base URL paths apply")
    mock.add_argument("--delay", metavar="TIME", help="wait before each reply: 200ms, 1.5s")
    mock.add_argument("--quiet", action="store_true", help="no log line per call")
    auth = argparse.ArgumentParser(
        prog="pigeon auth",
        description="Sign in for a request's OAuth 2.0 auth (device code, authorization "
        "code: works over SSH) and keep the token for the app and pigeon run. No script runs.",
    )
    auth.add_argument("collection", help="collection directory")
    auth.add_argument("request", help="request file relative to the collection (.toml optional)")
    _add_common(auth, scripts=False)
    schema = argparse.ArgumentParser(
        prog="pigeon graphql-schema",
        description="Fetch the schema of a GraphQL request's endpoint by introspection (its "
        "URL, headers and auth; no script runs) and cache it in the collection's .pigeon/, "
        "where the app checks and completes queries.",
    )
    schema.add_argument("collection", help="collection directory")
    schema.add_argument("request", help="request file relative to the collection (.toml optional)")
    _add_common(schema, scripts=False)
    schema.add_argument("--sdl", action="store_true", help="print the schema (GraphQL SDL)")
    describe = argparse.ArgumentParser(
        prog="pigeon grpc-describe",
        description="List the services, methods and message types a gRPC request reaches (its "
        ".proto files, or the server's reflection, cached in the collection's .pigeon/grpc/ "
        "for pigeon check); no script runs.",
    )
    describe.add_argument("collection", help="collection directory")
    describe.add_argument(
        "request", help="request file relative to the collection (.toml optional)"
    )
    _add_common(describe, scripts=False)
    describe.add_argument("--format", choices=("text", "json"), default="text")
    secret = argparse.ArgumentParser(
        prog="pigeon secret",
        description="Store or delete the keychain entry of a keyring secret declared in the "
        "collection (or in globals.toml): the value is typed without echo.",
    )
    secret.add_argument("action", choices=("set", "delete"))
    secret.add_argument("collection", help="collection directory")
    secret.add_argument("name", help="the secret's name in [secrets]")
    completion = argparse.ArgumentParser(
        prog="pigeon completion",
        description="Print a shell completion script: commands, options, collection "
        "directories, a collection's requests and folders, its environments.",
        epilog="bash: pigeon completion bash > ~/.local/share/bash-completion/completions/pigeon; "
        'zsh: pigeon completion zsh > "${fpath[1]}/_pigeon"; '
        "fish: pigeon completion fish > ~/.config/fish/completions/pigeon.fish",
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))
    man = argparse.ArgumentParser(
        prog="pigeon man",
        description="Print the manual page, pigeon(1), in roff: "
        "pigeon man | man -l -, or save it as man1/pigeon.1.",
    )
    mcp = argparse.ArgumentParser(
        prog="pigeon mcp",
        description="Serve the collection to coding agents as a Model Context Protocol server "
        "on stdio: tools list_requests, render_request, send_request, run and check, the "
        "request files as resources; secrets masked in everything it returns. Needs the "
        "mcp extra: pip install 'pigeon-http[mcp]'.",
        epilog="a send goes only where the collection's files send it: the variables an agent "
        "passes cannot change a request's host",
    )
    mcp.add_argument("collection", help="collection directory")
    mcp.add_argument("--env", metavar="NAME", help="environment to use (default: the collection's)")
    mcp.add_argument(
        "--trust",
        action="store_true",
        help="trust the collection while serving: its scripts run, and it may read the process "
        "environment and files outside its directory",
    )
    parsers = {
        "app": app,
        "new": new,
        "render": render,
        "run": run,
        "check": chk,
        "report": report,
        "import": imp,
        "export": exp,
        "echo": echo,
        "mock": mock,
        "auth": auth,
        "graphql-schema": schema,
        "grpc-describe": describe,
        "secret": secret,
        "completion": completion,
        "man": man,
        "mcp": mcp,
    }
    for name, parser in parsers.items():
        if name != "app":  # the app's parser has its own
            _add_color(parser)
    return parsers


def _add_color(p: argparse.ArgumentParser) -> None:
    """``--color``, on every command: what ``pigeon.terminal.use_color`` decides by."""
    p.add_argument(
        "--color",
        nargs="?",
        const="always",
        default=None,
        choices=("auto", "always", "never"),
        help="colour the output: auto (default: on a terminal, unless NO_COLOR is set), "
        "always or never",
    )
