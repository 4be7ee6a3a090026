"""Command line entry points (DESIGN §6): the app, `render`, `run`, `import`, `export`, `echo`.

Every failure becomes one clear line on stderr and an exit code; never a bare traceback.
Heavy modules are imported inside the commands that need them, so `pigeon --help` is quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNRESOLVED = 0, 1, 2, 3

COMMANDS = ("render", "run", "import", "export", "echo")


class UsageError(Exception):
    """Bad usage or a broken collection: exit code 2."""


class Failure(Exception):
    """A request could not be built or sent: exit code 1."""


# -- shared option parsing ------------------------------------------------------------------


def parse_var(text: str) -> tuple[str, Any]:
    """``name=text`` sets a string; ``name:=json`` sets any JSON value (HTTPie's convention)."""
    from pigeon.values import check_name, check_value

    eq = text.find("=")
    if eq <= 0:
        raise UsageError(f"--var {text!r}: expected NAME=TEXT or NAME:=JSON")
    if text[eq - 1] == ":" and eq > 1:
        name, raw = text[: eq - 1], text[eq + 1 :]
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"--var {name}:= is not valid JSON: {exc.msg} (column {exc.colno})"
            ) from exc
    else:
        name, value = text[:eq], text[eq + 1 :]
    try:
        check_name(name)
        value = check_value(value, name)
    except ValueError as exc:
        raise UsageError(f"--var: {exc}") from exc
    return name, value


def parse_vars(items: list[str] | None) -> dict[str, Any]:
    return dict(parse_var(item) for item in items or [])


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", metavar="NAME", help="environment to use (default: the collection's)")
    p.add_argument(
        "--var",
        dest="var_items",
        action="append",
        metavar="NAME=TEXT|NAME:=JSON",
        help="set a variable at the highest scope (repeatable)",
    )
    p.add_argument("--trust", action="store_true", help="run the collection's scripts this time")


def build_parser() -> dict[str, argparse.ArgumentParser]:
    app = argparse.ArgumentParser(
        prog="pigeon",
        description="A keyboard-driven HTTP API client for the terminal.",
        epilog="commands: render, run, import, export, echo (pigeon COMMAND --help)",
    )
    app.add_argument("collection", nargs="?", help="collection directory (default: the demo)")
    app.add_argument("--env", metavar="NAME", help="environment to select on start")
    app.add_argument("--version", action="store_true", help="print the version and exit")

    render = argparse.ArgumentParser(
        prog="pigeon render",
        description="Render a request (pre-request scripts run) without sending it.",
    )
    render.add_argument("collection", help="collection directory")
    render.add_argument("request", help="request file relative to the collection (.toml optional)")
    _add_common(render)
    render.add_argument("--format", choices=("json", "curl", "http"), default="json")
    render.add_argument("--strict", action="store_true", help="exit 3 on unresolved placeholders")

    run = argparse.ArgumentParser(
        prog="pigeon run", description="Send a collection's requests in order."
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
        metavar="json:PATH|junit:PATH",
        help="write a report (repeatable)",
    )
    run.add_argument(
        "--history",
        action="store_true",
        help="record the sends in the collection's .pigeon/history/, as the app does",
    )
    color = run.add_mutually_exclusive_group()
    color.add_argument("--color", dest="color", action="store_true", default=None)
    color.add_argument("--no-color", dest="color", action="store_false")

    imp = argparse.ArgumentParser(
        prog="pigeon import", description="Import requests from another tool."
    )
    imp.add_argument("kind", choices=("curl", "postman", "openapi", "http", "posting"))
    imp.add_argument("source", help="a file, '-' for stdin, or (curl) the command itself")
    imp.add_argument(
        "--into", metavar="COLLECTION_DIR", help="collection to write into (default: .)"
    )

    exp = argparse.ArgumentParser(prog="pigeon export", description="Export a rendered request.")
    exp.add_argument("kind", choices=("curl",))
    exp.add_argument("collection")
    exp.add_argument("request")
    _add_common(exp)
    exp.add_argument(
        "--strict", action="store_true", help="exit 3 on unresolved placeholders, printing nothing"
    )

    echo = argparse.ArgumentParser(prog="pigeon echo", description="Run the built-in echo server.")
    echo.add_argument("--host", default="127.0.0.1")
    echo.add_argument("--port", type=int, default=8787)
    return {"app": app, "render": render, "run": run, "import": imp, "export": exp, "echo": echo}


# -- commands -------------------------------------------------------------------------------


def _rendered(args: argparse.Namespace) -> Any:
    """Load, run pre-request scripts and render the request the arguments name."""
    from pigeon.prepare import prepare_request

    return prepare_request(
        Path(args.collection),
        args.request,
        env=args.env,
        cli_vars=parse_vars(args.var_items),
        trust=args.trust,
    ).rendered


def cmd_render(args: argparse.Namespace) -> int:
    rendered = _rendered(args)
    if args.format == "json":
        print(json.dumps(rendered.to_json(), ensure_ascii=False))
    elif args.format == "curl":
        from pigeon.exporters.curl import to_curl

        print(to_curl(rendered))
    else:
        print(http_message(rendered), end="")
    if args.strict:
        cycles = [w for w in rendered.warnings if w.startswith("cycle:")]
        if rendered.unresolved or cycles:
            what = ", ".join([*rendered.unresolved, *cycles])
            print(f"pigeon: unresolved placeholders: {what}", file=sys.stderr)
            return EXIT_UNRESOLVED
    return EXIT_OK


def http_message(rendered: Any) -> str:
    """The request as an HTTP/1.1 message (``--format http``)."""
    from urllib.parse import urlsplit

    parts = urlsplit(rendered.url)
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


def cmd_export(args: argparse.Namespace) -> int:
    """Print the command; unresolved placeholders are named on stderr (the command would send
    them as written), and with ``--strict`` nothing is printed and the exit code is 3."""
    from pigeon.exporters.curl import to_curl

    rendered = _rendered(args)
    cycles = [w for w in rendered.warnings if w.startswith("cycle:")]
    problems = ", ".join([*rendered.unresolved, *cycles])
    if problems and args.strict:
        print(f"pigeon: unresolved placeholders: {problems}", file=sys.stderr)
        return EXIT_UNRESOLVED
    print(to_curl(rendered))
    if problems:
        print(
            f"pigeon: warning: unresolved placeholders, sent as written: {problems}",
            file=sys.stderr,
        )
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from pigeon.run import cli_run

    args.vars = parse_vars(args.var_items)
    return cli_run(args)


def cmd_import(args: argparse.Namespace) -> int:
    from pigeon.importers import run_import

    into = Path(args.into) if args.into else Path.cwd()
    source = sys.stdin.read() if args.source == "-" else args.source
    written, notes = run_import(args.kind, source, into)
    for path in written:
        print(f"wrote {path}")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return EXIT_OK


def cmd_echo(args: argparse.Namespace) -> int:
    from pigeon.echo import main as echo_main

    return echo_main(["--host", args.host, "--port", str(args.port)])


def cmd_app(args: argparse.Namespace) -> int:
    if args.version:
        from pigeon import __version__

        print(f"pigeon {__version__}")
        return EXIT_OK
    from pigeon.tui.app import run_app

    return run_app(Path(args.collection) if args.collection else None, args.env)


HANDLERS = {
    "render": cmd_render,
    "run": cmd_run,
    "import": cmd_import,
    "export": cmd_export,
    "echo": cmd_echo,
    "app": cmd_app,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in COMMANDS else "app"
    rest = argv[1:] if command != "app" else argv
    parser = build_parser()[command]
    try:
        args = parser.parse_intermixed_args(rest)
    except SystemExit as exc:  # argparse prints its own one-line usage error
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    return dispatch(command, args)


def dispatch(command: str, args: argparse.Namespace) -> int:
    from pigeon.prepare import PrepareError
    from pigeon.render import RenderError
    from pigeon.store import LoadError

    try:
        return HANDLERS[command](args)
    except (UsageError, LoadError) as exc:
        print(f"pigeon: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PrepareError as exc:
        print(f"pigeon: {exc}", file=sys.stderr)
        return exc.exit_code
    except (Failure, RenderError) as exc:
        print(f"pigeon: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("pigeon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        print(f"pigeon: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_FAILED
