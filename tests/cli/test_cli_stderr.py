"""Every command's errors go through one map: one line on stderr and DESIGN §6's exit code."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

import pigeon.cli
from error_tree import classes, drawn, example
from pigeon.cli.stderr import run_command
from pigeon.errors import SendFailure, UnresolvedError, UsageError
from pigeon.reports import ReportOptionError
from pigeon.store import LoadError
from pigeon.terminal import printable


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


@pytest.mark.parametrize("cls", classes(), ids=lambda cls: cls.__name__)
def test_every_error_of_the_tree_is_one_line_and_its_drawn_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cls: type
) -> None:
    """Raised by a command, each error reaches the terminal through ``main`` as one line (its
    newline escaped) and exits with the code the tree draws for it, never a traceback."""
    exc = example(cls)
    monkeypatch.setitem(pigeon.cli.HANDLERS, "new", raising(exc))
    code = {row.name: row.exit_code for row in drawn()}[cls.__name__]
    assert pigeon.cli.main(["new", "somewhere"]) == code
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"pigeon: {printable(str(exc))}\n")
    assert "Forged" in err and "Traceback" not in err


def test_a_collection_the_app_cannot_open_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pigeon", str(tmp_path / "mis\nsing")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("pigeon: ") and done.stderr.count("\n") == 1, done.stderr
    assert "not found" in done.stderr
