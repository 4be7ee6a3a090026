"""The command line in the shell: completion scripts that the shells accept and that complete
commands, a collection's requests and its environments; the man page; ``--color`` and
``NO_COLOR`` on every command."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import COMMANDS, build_parser, main
from pigeon.terminal import use_color

BIN = Path(sys.executable).parent  # where `pigeon` is installed beside this Python


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    text = capsys.readouterr().out
    assert text.strip()
    return text


def collection(root: Path) -> Path:
    write(root, "collection.toml", 'name = "c"\n')
    write(root, "environments/local.toml", "[variables]\n")
    write(root, "environments/staging.toml", "[variables]\n")
    write(root, "users/get-user.toml", 'url = "http://127.0.0.1:9/u"\n')
    write(root, "users/update-user.toml", 'url = "http://127.0.0.1:9/u"\n')
    write(root, "health.toml", 'url = "http://127.0.0.1:9/h"\n')
    return root


def complete_in_bash(path: Path, words: list[str], cwd: Path) -> list[str]:
    """What bash offers at the last of ``words``: the script sourced, its function called as
    ``complete -F`` calls it."""
    if not (BIN / "pigeon").exists():
        pytest.skip("pigeon is not installed beside this Python")
    quoted = " ".join(f"'{w}'" for w in words)
    program = f"""
source {path}
COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}
COMP_LINE="${{COMP_WORDS[*]}}"; COMP_POINT=${{#COMP_LINE}}
_shtab_pigeon pigeon '{words[-1]}' '{words[-2]}'
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-c", program], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completion_parses_and_completes(tmp_path: Path, capsys) -> None:
    path = tmp_path / "pigeon.bash"
    path.write_text(script("bash", capsys), encoding="utf-8")
    subprocess.run(["bash", "-n", str(path)], check=True)
    collection(tmp_path / "api")
    assert complete_in_bash(path, ["pigeon", "ru"], tmp_path) == ["run"]
    assert complete_in_bash(path, ["pigeon", "run", "api", "users/"], tmp_path) == [
        "users/get-user",
        "users/update-user",
    ]
    assert complete_in_bash(path, ["pigeon", "render", "api", "h"], tmp_path) == ["health"]
    assert complete_in_bash(path, ["pigeon", "run", "api", "--env", ""], tmp_path) == [
        "local",
        "staging",
    ]
    assert complete_in_bash(path, ["pigeon", "check", "--for"], tmp_path) == ["--format"]
    (tmp_path / "apart.txt").write_text("", encoding="utf-8")
    assert complete_in_bash(path, ["pigeon", "run", "a"], tmp_path) == ["api"]  # folders only


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse_where_the_shell_exists(
    shell: str, tmp_path: Path, capsys
) -> None:
    text = script(shell, capsys)
    assert "__complete requests" in text and "__complete envs" in text
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    path = tmp_path / f"pigeon.{shell}"
    path.write_text(text, encoding="utf-8")
    subprocess.run([shell, "-n", str(path)], check=True)


def test_complete_lists_requests_folders_and_environments(tmp_path: Path, capsys) -> None:
    root = collection(tmp_path / "api")
    assert main(["__complete", "requests", str(root)]) == 0
    assert capsys.readouterr().out.split() == [
        "health",
        "users",
        "users/get-user",
        "users/update-user",
    ]
    assert main(["__complete", "envs", str(root)]) == 0
    assert capsys.readouterr().out.split() == ["local", "staging"]
    assert main(["__complete", "requests", str(tmp_path / "nowhere")]) == 0
    assert capsys.readouterr() == ("", "")  # nothing, not an error in the shell's line


def test_the_man_page_is_roff_naming_every_command(capsys) -> None:
    assert main(["man"]) == 0
    page = capsys.readouterr().out
    assert page.startswith(".TH PIGEON")
    for command in COMMANDS:
        roff = command.replace("-", "\\-")
        assert f"\\fI\\,{roff}\\/\\fR" in page, command
    assert "\\-\\-bail" in page and "\\-\\-all\\-envs" in page  # the commands' own options
    if shutil.which("groff"):
        done = subprocess.run(
            ["groff", "-man", "-Tutf8", "-ww"], input=page, capture_output=True, text=True
        )
        assert done.returncode == 0 and not done.stderr, done.stderr


def test_every_command_takes_color() -> None:
    for name, parser in build_parser().items():
        (color,) = [a for a in parser._actions if "--color" in a.option_strings]
        assert color.choices == ("auto", "always", "never") and color.const == "always", name


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_color_follows_no_color_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(None, _Terminal()) and use_color("auto", _Terminal())
    assert not use_color("auto", io.StringIO())  # a pipe or a file: plain
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", _Terminal())
    assert use_color("always", io.StringIO())
    assert not use_color("never", _Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no effect
    assert use_color("auto", _Terminal())


def test_run_colours_as_told(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n')
    write(root, "ok.toml", f'url = "{echo_url}/get"\n')
    assert main(["run", str(root), "--color", "always"]) == 0
    assert "\x1b[32m✔\x1b[0m" in capsys.readouterr().out
    for plain in (["--color", "never"], ["--no-color"], []):
        assert main(["run", str(root), *plain]) == 0
        assert "\x1b[" not in capsys.readouterr().out


def test_fish_completes_requests_and_environments(tmp_path: Path, capsys) -> None:
    """fish completes a command line as asked (``complete -C``), where fish exists."""
    path = tmp_path / "pigeon.fish"
    path.write_text(script("fish", capsys), encoding="utf-8")
    if shutil.which("fish") is None or not (BIN / "pigeon").exists():
        pytest.skip("fish, or pigeon beside this Python, is not installed")
    collection(tmp_path / "api")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}

    def offered(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert offered("pigeon ru") == ["run"]
    assert offered("pigeon run api users/") == ["users/get-user", "users/update-user"]
    assert offered("pigeon run api --env ") == ["local", "staging"]
