"""What the command line writes to stderr: every error as one line with its exit code, and
warnings (DESIGN §6: "Errors go to stderr as one clear line, never a bare traceback").

``run_command`` is the one place an exception becomes an exit code; ``pigeon.cli.dispatch``
runs every command through it. The codes are the error tree's (``pigeon.errors``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from pigeon.errors import EXIT_OK, PigeonError, exit_code_of
from pigeon.terminal import printable


def say(message: str) -> None:
    """One line on stderr, prefixed as every message of the command line is."""
    print(f"pigeon: {printable(message)}", file=sys.stderr)


def warn(message: str) -> None:
    say(f"warning: {message}")


def run_command(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run one command and return its exit code.

    An error Pigeon expects is one line on stderr and the tree's exit code; an interrupt is
    130, a file the system would not read or write 1, and a reader that went away (``| head``)
    ends quietly. Anything else is a defect and keeps its traceback.
    """
    try:
        return command(args)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt as exc:
        say("interrupted")
        return exit_code_of(exc)
    except OSError as exc:
        say(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return exit_code_of(exc)
    except PigeonError as exc:
        say(str(exc))
        return exc.exit_code
