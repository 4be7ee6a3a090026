"""Text from outside never drives the terminal: file names, import notes and what a request or
script prints reach stdout and stderr with control characters shown as escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.terminal import printable, printable_lines

TITLE = "\x1b]0;owned\x07"  # would set the window title
CLEAR = "\x1b[2J"  # would clear the screen


def test_printable_shows_every_control_character() -> None:
    assert printable(f"a{TITLE}b{CLEAR}\r\n\x9b\x7f\tz") == (
        "a\\x1b]0;owned\\x07b\\x1b[2J\\x0d\\x0a\\x9b\\x7f\tz"
    )
    assert printable("plain text, ünïcode") == "plain text, ünïcode"


@pytest.mark.parametrize("before", ["", "中"])  # Latin-1 text is checked as bytes, other not
@pytest.mark.parametrize("code", [*range(0x20), *range(0x7F, 0xA1), 0x2028])
def test_printable_lines_keeps_the_breaks_and_shows_every_other_control(
    before: str, code: int
) -> None:
    text = before + "é" * 5000 + chr(code) + "x\n" + "b" * 10
    shown = printable_lines(text)
    if code in (0x09, 0x0A) or code >= 0xA0:
        assert shown == text
    else:
        assert shown == text.replace(chr(code), f"\\x{code:02x}")


def test_a_broken_file_with_a_hostile_name_is_named_not_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "c"\n')
    write(root, f"bad{TITLE}.toml", "name = \n")
    code = main(["run", str(root)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "bad\\x1b]0;owned\\x07.toml" in err


def test_import_notes_are_shown_not_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = f"curl --{CLEAR}bogus https://example.test/"
    code = main(["import", "curl", command, "--into", str(tmp_path / "into")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\x1b" not in out + err
    assert "\\x1b[2Jbogus" in err


def test_a_scripts_output_and_a_requests_name_are_shown_not_obeyed(
    tmp_path: Path, echo_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "col"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase_url = "{echo_url}"\n')
    script = f"print({TITLE!r} + 'hi' + {CLEAR!r})"
    write(
        root,
        "r.toml",
        f"name = 'r'\nurl = '{{{{base_url}}}}/x'\n[scripts]\npre_request = {script!r}\n".replace(
            "'print", '"print'
        ).replace(")'\n", ')"\n'),
    )
    code = main(["run", str(root), "--trust"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\x1b]0;owned\\x07hi\\x1b[2J" in out


class _Terminal:
    def isatty(self) -> bool:
        return True


class _Pipe:
    def isatty(self) -> bool:
        return False


def test_a_rendered_message_is_exact_in_a_pipe_and_harmless_on_a_terminal() -> None:
    from pigeon.terminal import for_terminal

    message = f"POST / HTTP/1.1\r\nHost: h\r\n\r\nbody {TITLE} {CLEAR}\nnext\tline\n"
    assert for_terminal(message, _Pipe()) == message  # type: ignore[arg-type]
    shown = for_terminal(message, _Terminal())  # type: ignore[arg-type]
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.startswith("POST / HTTP/1.1\r\nHost: h\r\n\r\nbody \\x1b]0;owned\\x07")
    assert shown.endswith("\nnext\tline\n")
