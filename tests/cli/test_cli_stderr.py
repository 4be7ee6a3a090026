"""Every command's errors go through one map: one line on stderr and DESIGN §6's exit code."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pigeon.cli.stderr import run_command
from pigeon.errors import SendFailure, UnresolvedError, UsageError
from pigeon.reports import ReportOptionError
from pigeon.store import LoadError


def raising(exc: BaseException):
    def command(args: argparse.Namespace) -> int:
        raise exc

    return command


@pytest.mark.parametrize(
    ("exc", "code", "line"),
    [
        (UsageError("no request 'x'"), 2, "pigeon: no request 'x'\n"),
        (ReportOptionError("--report 'x': expected"), 2, "pigeon: --report 'x': expected\n"),
        (SendFailure("script error: boom"), 1, "pigeon: script error: boom\n"),
        (UnresolvedError("unresolved placeholders: t"), 3, "pigeon: unresolved placeholders: t\n"),
        (LoadError(Path("c/r.toml"), 2, 5, "bad"), 2, "pigeon: c/r.toml:2:5: bad\n"),
        (KeyboardInterrupt(), 130, "pigeon: interrupted\n"),
        (
            FileNotFoundError(2, "No such file or directory", "x.json"),
            1,
            "pigeon: No such file or directory: x.json\n",
        ),
        (BrokenPipeError(32, "Broken pipe"), 0, ""),
    ],
)
def test_an_expected_error_is_one_line_and_its_exit_code(
    capsys: pytest.CaptureFixture[str], exc: BaseException, code: int, line: str
) -> None:
    assert run_command(raising(exc), argparse.Namespace()) == code
    assert capsys.readouterr() == ("", line)


def test_a_defect_keeps_its_traceback() -> None:
    with pytest.raises(ZeroDivisionError):
        run_command(raising(ZeroDivisionError("x")), argparse.Namespace())


def test_a_command_that_succeeds_returns_its_own_code() -> None:
    assert run_command(lambda args: 0, argparse.Namespace()) == 0
