"""Command line entry points (DESIGN §6): the app, `new`, `render`, `run`, `check`, `import`,
`export`, `echo`, `mock` and `mcp` (§14), and the rest of DESIGN §6's list.

This package's face holds the dispatch; ``parser`` holds every command's options. The
commands with more to them have their own modules: ``run`` (`pigeon run`'s console), ``render`` (`pigeon render` and
`pigeon export`), ``collection`` (loading and trusting the collection a command names) and
``stderr`` (errors as one line and an exit code, warnings). No core module imports this
package. Heavy modules are imported inside the commands that need them, so `pigeon --help`
is quick.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pigeon.cli.parser import _app_parser, build_parser, parse_var, parse_vars
from pigeon.cli.stderr import run_command
from pigeon.errors import EXIT_FAILED, EXIT_OK, EXIT_UNRESOLVED, EXIT_USAGE, UsageError
from pigeon.errors import SendFailure as Failure
from pigeon.terminal import printable

__all__ = [
    "COMMANDS",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNRESOLVED",
    "EXIT_USAGE",
    "Failure",
    "UsageError",
    "build_parser",
    "dispatch",
    "main",
    "parse_var",
    "parse_vars",
]

COMMANDS = (
    "new", "render", "run", "check", "report", "import", "export", "echo", "mock", "mcp",
    "auth", "graphql-schema", "grpc-describe", "secret", "completion", "man",
)  # fmt: skip
COMPLETE = "__complete"  # hidden: what the completion scripts ask for a collection's names


# -- commands -------------------------------------------------------------------------------


def cmd_new(args: argparse.Namespace) -> int:
    from pigeon.store.scaffold import new_collection

    for path in new_collection(Path(args.directory)):
        print(f"wrote {printable(str(path))}")
    print(f"open it with: pigeon {printable(args.directory)}")
    return EXIT_OK


def cmd_render(args: argparse.Namespace) -> int:
    from pigeon.cli.render import cli_render  # the pipeline loads for the commands using it

    args.vars = parse_vars(args.var_items)
    return cli_render(args)


def cmd_export(args: argparse.Namespace) -> int:
    from pigeon.cli.render import cli_export

    args.vars = parse_vars(args.var_items)
    return cli_export(args)


def cmd_run(args: argparse.Namespace) -> int:
    from pigeon.cli.run import cli_run

    args.vars = parse_vars(args.var_items)
    return cli_run(args)


def cmd_check(args: argparse.Namespace) -> int:
    from pigeon.cli.check import cli_check

    return cli_check(args)


def cmd_report(args: argparse.Namespace) -> int:
    from pigeon.report_merge import merge
    from pigeon.reports import check_report_paths, parse_report_specs, to_stdout, write_reports

    specs = parse_report_specs(args.reports)
    if not specs:
        raise UsageError("report merge: say where with --report KIND:PATH (json, junit, ...)")
    check_report_paths(specs)
    summary = merge([Path(p) for p in args.inputs])
    write_reports(summary, specs)
    print(
        f"merged {len(args.inputs)} reports: {len(summary.results)} requests, "
        f"{summary.passed} passed, {summary.failed} failed",
        file=sys.stderr if to_stdout(specs) else sys.stdout,
    )
    return summary.exit_code


def cmd_auth(args: argparse.Namespace) -> int:
    from pigeon.cli.auth import cli_auth

    args.vars = parse_vars(args.var_items)
    return cli_auth(args)


def cmd_graphql_schema(args: argparse.Namespace) -> int:
    from pigeon.cli.graphql import cli_graphql_schema

    args.vars = parse_vars(args.var_items)
    return cli_graphql_schema(args)


def cmd_grpc_describe(args: argparse.Namespace) -> int:
    from pigeon.cli.grpc import cli_grpc_describe

    args.vars = parse_vars(args.var_items)
    return cli_grpc_describe(args)


def cmd_secret(args: argparse.Namespace) -> int:
    from pigeon.cli.secret import cli_secret

    return cli_secret(args)


def cmd_import(args: argparse.Namespace) -> int:
    from pigeon.importers import run_import
    from pigeon.importers.documents import read_stream

    into = Path(args.into) if args.into else Path.cwd()
    source = read_stream(sys.stdin) if args.source == "-" else args.source
    written, notes = run_import(args.kind, source, into, args.allow_outside)
    for path in written:
        print(f"wrote {printable(str(path))}")
    for note in notes:
        print(f"note: {printable(note)}", file=sys.stderr)
    return EXIT_OK


def cmd_echo(args: argparse.Namespace) -> int:
    from pigeon.echo import main as echo_main

    return echo_main(["--host", args.host, "--port", str(args.port)])


def cmd_mock(args: argparse.Namespace) -> int:
    from pigeon.mock import main as mock_main

    return mock_main(args)


def cmd_completion(args: argparse.Namespace) -> int:
    from pigeon.cli.shell import completion_script

    sys.stdout.write(completion_script(build_parser(), args.shell))
    return EXIT_OK


def cmd_man(args: argparse.Namespace) -> int:
    from pigeon.cli.shell import man_page

    sys.stdout.write(man_page(build_parser()))
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from pigeon.mcp_server import serve  # the SDK loads for this command only

    return serve(Path(args.collection), args.env, trust=args.trust)


def _complete(argv: list[str]) -> int:
    """``pigeon __complete requests|envs DIR``: one name a line, for the completion scripts."""
    from pigeon.cli.shell import candidates

    if len(argv) != 2 or argv[0] not in ("requests", "envs"):
        return EXIT_USAGE
    for name in candidates(argv[0], Path(argv[1])):
        print(name)
    return EXIT_OK


def cmd_app(args: argparse.Namespace) -> int:
    if args.version:
        from pigeon import __version__

        print(f"pigeon {__version__}")
        return EXIT_OK
    if args.color == "never":  # Textual draws without colour where NO_COLOR is set
        os.environ["NO_COLOR"] = "1"
    from pigeon.tui import start_gc

    start_gc.pause()  # until the first frame is out (see pigeon/tui/start_gc.py)
    from pigeon.tui.app import run_app

    return run_app(Path(args.collection) if args.collection else None, args.env)


HANDLERS = {
    "new": cmd_new,
    "render": cmd_render,
    "run": cmd_run,
    "check": cmd_check,
    "report": cmd_report,
    "import": cmd_import,
    "export": cmd_export,
    "echo": cmd_echo,
    "mock": cmd_mock,
    "app": cmd_app,
    "auth": cmd_auth,
    "graphql-schema": cmd_graphql_schema,
    "grpc-describe": cmd_grpc_describe,
    "secret": cmd_secret,
    "completion": cmd_completion,
    "man": cmd_man,
    "mcp": cmd_mcp,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == COMPLETE:
        return _complete(argv[1:])
    command = argv[0] if argv and argv[0] in COMMANDS else "app"
    rest = argv[1:] if command != "app" else argv
    parser = _app_parser() if command == "app" else build_parser()[command]
    try:
        args = parser.parse_intermixed_args(rest)
    except SystemExit as exc:  # argparse prints its own one-line usage error
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    return dispatch(command, args)


def dispatch(command: str, args: argparse.Namespace) -> int:
    return run_command(HANDLERS[command], args)
