"""Every TOML file and shell command of the user guide (docs/guide) and of README.md is run, so
neither can drift from the product.

The conventions the pages follow (docs/guide/contributing.md says the same for their writers):

- A fenced block with ``title="PATH"`` is a file, written at PATH when the page gets there
  (a later block with the same PATH replaces it). PATH is relative to the directory the page's
  commands run in, which is also ``~``: ``my-api/users/get.toml`` is a request of the
  collection ``my-api``, ``~/.config/pigeon/config.toml`` the user's config. Every TOML block
  has a title; each is parsed with tomllib, then its collection is loaded by Pigeon's own
  loader with neither a broken file nor an unknown key, and its requests are rendered. Other
  titled blocks (``.http``, ``.json``, ``.yaml``) are the sources the commands read.
- In ``sh`` blocks every line is a command, in ``console`` blocks the lines starting ``$ ``.
  A ``pigeon`` command runs in-process (``pigeon.cli.main``) and must exit 0, or N when its
  comment says ``exits N``. One whose comment says ``not run: why``, one sent to the
  background (``pigeon echo &``: this test's echo server stands in), and one that opens the
  app are only parsed, by the parser ``pigeon`` itself uses. Any other program is not run and
  must be on the allow-list below, with the reason.
- ``https://api.example.com`` and ``http://127.0.0.1:8787`` (where ``pigeon echo`` listens, as
  the demo's ``local`` environment says) are the loopback echo server of the tests, in every
  file written and every command run; ``collections/demo`` is the bundled demo collection.
- The ``run:`` steps of ``yaml`` blocks (CI recipes) are parsed as commands, never run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from pigeon.cli import COMMANDS, _app_parser, build_parser, main
from pigeon.echo import EchoServer

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = [*sorted(GUIDE.glob("*.md")), ROOT / "README.md"]
DEMO = ROOT / "collections" / "demo"
EXAMPLE_HOSTS = ("https://api.example.com", "http://127.0.0.1:8787")

# Programs the guide names that a test cannot run, and why.
ALLOWED = {
    "python3": "makes the virtual environment of README's set-up; this test runs inside one",
    "python": "runs the test suite or a benchmark, which this test is part of",
    "pip": "installs packages: the test runs where they are installed",
    "pipx": "installs the published package, from the network",
    "uv": "installs the published package, from the network",
    "mkdocs": "builds this guide; .ci/run does",
    "man": "reads the page `pigeon man` writes",
    "locust": "a load test against a real server, for minutes",
    "docker": "runs containers",
    "git": "changes a repository",
    "true": "a CI shard's step that passes whatever the run's exit (the merge decides)",
}

FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```$", re.M | re.S)
TITLE = re.compile(r'title="([^"]+)"')
EXITS = re.compile(r"#[^#]*\bexits (\d+)\b[^#]*$")
NOT_RUN = re.compile(r"#[^#]*\bnot run: [^#]+$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    title: str | None
    text: str

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        title = TITLE.search(m.group(2))
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(page, line, m.group(1), title and title.group(1), m.group(3)))
    return out


@dataclass(frozen=True)
class Command:
    argv: list[str]
    expect: int | None  # None: parsed, not run
    background: bool
    stdout: str | None = None  # the file ``> FILE`` names


def command_lines(block: Block) -> list[str]:
    """The block's commands, one a line, continuation lines joined."""
    text = block.text.replace("\\\n", " ")
    lines = text.splitlines()
    if block.lang == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def commands(line: str) -> list[Command]:
    """The simple commands of one shell line (``&&``, ``;`` and ``|`` separate them), with where
    their output goes (``> FILE``) and what the line's comment expects of them."""
    exits = EXITS.search(line)
    expect: int | None = int(exits.group(1)) if exits else 0
    if NOT_RUN.search(line):
        expect = None
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out: list[Command] = []
    argv: list[str] = []
    stdout: str | None = None
    tokens = list(lexer)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("&&", "||", ";", "|", "&"):
            if argv:
                out.append(Command(argv, expect, token == "&", stdout))
            argv, stdout = [], None
        elif token in (">", ">>", "<"):
            i += 1
            if token != "<" and i < len(tokens):
                stdout = tokens[i]
        else:
            argv.append(token)
        i += 1
    if argv:
        out.append(Command(argv, expect, False, stdout))
    return out


def check_parses(argv: list[str], where: str) -> None:
    """``pigeon ARGS`` is a command line the parser of ``pigeon`` takes."""
    command = argv[0] if argv and argv[0] in COMMANDS else "app"
    rest = argv[1:] if command != "app" else argv
    parser = _app_parser() if command == "app" else build_parser()[command]
    try:
        parser.parse_intermixed_args(rest)
    except SystemExit as exc:
        pytest.fail(f"{where}: pigeon {shlex.join(argv)}: not a command line pigeon takes ({exc})")


def substitute(text: str, echo_url: str) -> str:
    for host in EXAMPLE_HOSTS:
        text = text.replace(host, echo_url)
    return text


def collection_root(work: Path, path: Path) -> Path:
    """The collection a file belongs to: the nearest folder above it holding collection.toml,
    else the first folder of its path."""
    for parent in path.parents:
        if parent == work:
            break
        if (parent / "collection.toml").is_file():
            return parent
    return work / path.relative_to(work).parts[0]


def check_toml_file(work: Path, path: Path, where: str) -> None:
    from pigeon.store import load_collection

    rel = path.relative_to(work)
    if rel.parts[:2] == (".config", "pigeon"):
        check_user_file(work, path, where)
        return
    root = collection_root(work, path)
    col = load_collection(root)
    assert col.broken == [], f"{where}: {col.broken}"
    assert col.warnings == [], f"{where}: {col.warnings}"
    for request in col.requests():  # what the file changes, rendered
        code = main(["render", str(root), request.id, "--trust", "--no-scripts"])
        assert code == 0, f"{where}: pigeon render {root.name} {request.id} exits {code}"


def check_user_file(work: Path, path: Path, where: str) -> None:
    """A file of the user's config folder: config.toml with its keys, or the global files."""
    if path.name == "config.toml":
        from pigeon.config import AppConfig
        from pigeon.tui.app import PigeonApp
        from pigeon.tui.keys import keymap_from_config, known_ids

        config = AppConfig.load(path)
        assert config.extra == {}, f"{where}: unknown settings {config.extra}"
        ids = known_ids(cls for _, cls in PigeonApp.help_groups())
        _, problems = keymap_from_config(config.keys, ids)
        assert problems == [], f"{where}: {problems}"
        return
    from pigeon.store import load_collection

    empty = work / ".an-empty-collection"
    empty.mkdir(exist_ok=True)
    col = load_collection(empty)
    assert col.broken == [] and col.warnings == [], f"{where}: {col.broken} {col.warnings}"


def run_command(command: Command, block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    where = block.where()
    name = os.path.basename(command.argv[0])
    if name != "pigeon":
        assert name in ALLOWED, f"{where}: {shlex.join(command.argv)}: not on the allow-list"
        # a pigeon command another program runs (uv tool run pigeon check ...): parsed
        nested = [i for i, a in enumerate(command.argv) if os.path.basename(a) == "pigeon"]
        if nested:
            check_parses(command.argv[nested[0] + 1 :], where)
        return
    argv = [os.path.expanduser(a) if a.startswith("~") else a for a in command.argv[1:]]
    check_parses(argv, where)
    opens_app = not argv or argv[0] not in COMMANDS
    if command.expect is None or command.background or opens_app or command.argv[0] != "pigeon":
        return
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == command.expect, f"{where}: pigeon {shlex.join(argv)} exits {code}\n{out}\n{err}"
    if command.stdout and "$" not in command.stdout:  # not "${fpath[1]}/_pigeon"
        target = Path(os.path.expanduser(command.stdout))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(out, encoding="utf-8")


def yaml_runs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            else:
                yield from yaml_runs(value)
    elif isinstance(node, list):
        for item in node:
            yield from yaml_runs(item)


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoServer]:
    with EchoServer("127.0.0.1", 0) as server:
        yield server


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_example_of_the_page_runs(
    page: Path,
    tmp_path: Path,
    echo: EchoServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(work))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(work / ".config"))
    if "collections/demo" in page.read_text(encoding="utf-8"):
        demo = work / "collections" / "demo"
        shutil.copytree(DEMO, demo)
        for file in demo.rglob("*.toml"):
            file.write_text(substitute(file.read_text(encoding="utf-8"), echo.url), "utf-8")
    for block in blocks(page):
        where = block.where()
        if block.lang == "toml":
            assert block.title, f"{where}: a TOML block names its file (title=...)"
            tomllib.loads(block.text)
        if block.title:
            path = work / os.path.expanduser(block.title).removeprefix(str(work) + "/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(substitute(block.text, echo.url), encoding="utf-8")
            if block.lang == "toml":
                check_toml_file(work, path, where)
        elif block.lang in ("sh", "console"):
            for line in command_lines(block):
                for command in commands(substitute(line, echo.url)):
                    run_command(command, block, capsys)
        elif block.lang == "yaml":
            for run in yaml_runs(yaml.safe_load(block.text)):
                text = re.sub(r"\$\{\{[^}]*\}\}", "1", run)
                for line in text.splitlines():
                    for command in commands(line + "  # not run: a CI step"):
                        run_command(command, block, capsys)


def test_the_pages_are_the_nav() -> None:
    """Every page is in mkdocs.yml's nav (mkdocs --strict only warns of one left out)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = {next(iter(entry.values())) for entry in config["nav"]}
    assert listed == {p.name for p in GUIDE.glob("*.md")}


def test_the_readme_keeps_the_set_up_commands() -> None:
    """README's two set-up commands are the ones a newcomer runs, and CI runs the second."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    app = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/pigeon"
    tests = (
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
        ".venv/bin/python -m pytest -n auto"
    )
    assert f"```sh\n{app}\n```" in readme and f"```sh\n{tests}\n```" in readme
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_command_line_synopsis_is_the_parser() -> None:
    """The Command line page's synopsis names every command, and each option it gives a
    command is one that command takes."""
    synopsis = next(b.text for b in blocks(GUIDE / "cli.md") if b.lang == "text")
    parsers = build_parser()
    named: set[str] = set()
    command = "app"
    for line in synopsis.splitlines():
        head = re.match(r"pigeon (\S+)", line)
        if head:
            command = head.group(1) if head.group(1) in COMMANDS else "app"
            named.add(command)
        options = {o for a in parsers[command]._actions for o in a.option_strings}
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line.split("# ")[0]):
            assert option in options, (command, option)
    assert named == {"app", *COMMANDS}


def test_the_shell_lines_are_read_as_a_shell_reads_them() -> None:
    """What the page test runs: commands split at ``&&`` and ``;``, ``&`` marking one sent to
    the background, ``> FILE`` its output, the comment's ``exits N`` or ``not run:``, and in a
    console block only the ``$`` lines."""
    line = "pigeon echo & pigeon new 'a b' && pigeon export postman x > out.json  # exits 2"
    assert commands(line) == [
        Command(["pigeon", "echo"], 2, True),
        Command(["pigeon", "new", "a b"], 2, False),
        Command(["pigeon", "export", "postman", "x"], 2, False, "out.json"),
    ]
    assert commands("pigeon check '#1'") == [Command(["pigeon", "check", "#1"], 0, False)]
    assert commands("pigeon auth d r  # not run: a person signs in")[0].expect is None
    block = Block(ROOT, 1, "console", None, "$ pigeon run d \\\n  --trust\nok: 1 passed\n")
    assert [line.split() for line in command_lines(block)] == [["pigeon", "run", "d", "--trust"]]
