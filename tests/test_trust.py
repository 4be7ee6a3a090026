"""The trust rule (DESIGN §8) against hostile collections: every way a collection tries to read
the process environment, a file outside it, or run code, run untrusted, is refused before
anything is sent (exit 2, the need named); with ``--trust`` or the user's recorded trust it
works. A real loopback server counts what reaches it."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.config import TrustStore
from pigeon.model import Request
from pigeon.pipeline import RunContext, execute
from pigeon.scopes import RuntimeVars
from pigeon.store import load_collection
from pigeon.trust import HOW, Gate, Need, Refused, needs, summary
from servers import RecordingServer, recording_server

SECRET = "s3cret-from-the-environment"
FILE_SECRET = "s3cret-from-a-file-outside"


@dataclass
class World:
    root: Path  # the hostile collection
    outside: Path  # a directory beside it, with the user's private file
    url: str  # the collection's "own server"


@dataclass
class Case:
    """A hostile collection (``make`` writes it), what the refusal names, and what a trusted
    run puts on the wire (or, for scripts, leaves in ``World.outside``)."""

    make: Callable[[World], None]
    named: str
    sent: str = SECRET
    request: str = "r"


def req(world: World, rel: str, body: str) -> None:
    write(world.root, rel, f'name = "x"\nmethod = "POST"\n{body}')


def url_req(world: World, rel: str, url_tail: str, extra: str = "") -> None:
    req(world, rel, f'url = "{world.url}/{url_tail}"\n{extra}')


FILE_FIELD = (
    '[body]\ntype = "multipart"\n[[body.fields]]\nname = "key"\nkind = "file"\nvalue = "{}"\n'
)

CASES: dict[str, Case] = {
    "url": Case(lambda w: url_req(w, "r.toml", "{{$env.PIGEON_SECRET}}"), "$env.PIGEON_SECRET"),
    "process.env alias": Case(
        lambda w: url_req(w, "r.toml", "{{ process.env.PIGEON_SECRET }}"), "$env.PIGEON_SECRET"
    ),
    "header value": Case(
        lambda w: url_req(
            w, "r.toml", "", '[[headers]]\nname = "X-K"\nvalue = "{{$env.PIGEON_SECRET}}"\n'
        ),
        "$env.PIGEON_SECRET",
    ),
    "header name": Case(
        lambda w: url_req(w, "r.toml", "", '[[headers]]\nname = "{{$env.PIGEON_SECRET}}"\n'),
        "$env.PIGEON_SECRET",
    ),
    "query": Case(
        lambda w: url_req(
            w, "r.toml", "", '[[query]]\nname = "q"\nvalue = "{{$env.PIGEON_SECRET}}"\n'
        ),
        "$env.PIGEON_SECRET",
    ),
    "json body": Case(
        lambda w: url_req(
            w,
            "r.toml",
            "",
            '[body]\ntype = "json"\ncontent = \'{"k": "{{$env.PIGEON_SECRET}}"}\'\n',
        ),
        "$env.PIGEON_SECRET",
    ),
    "form body": Case(
        lambda w: url_req(
            w,
            "r.toml",
            "",
            '[body]\ntype = "form"\n[[body.fields]]\nname = "k"\nvalue = "{{$env.PIGEON_SECRET}}"\n',
        ),
        "$env.PIGEON_SECRET",
    ),
    "multipart text field": Case(
        lambda w: url_req(
            w,
            "r.toml",
            "",
            '[body]\ntype = "multipart"\n[[body.fields]]\nname = "k"\n'
            'value = "{{$env.PIGEON_SECRET}}"\n',
        ),
        "$env.PIGEON_SECRET",
    ),
    "bearer token": Case(
        lambda w: url_req(
            w, "r.toml", "", '[auth]\ntype = "bearer"\ntoken = "{{$env.PIGEON_SECRET}}"\n'
        ),
        "$env.PIGEON_SECRET",
        sent=f"Bearer {SECRET}",
    ),
    "api key in the query": Case(
        lambda w: url_req(
            w,
            "r.toml",
            "",
            '[auth]\ntype = "api_key"\nkey = "k"\nvalue = "{{$env.PIGEON_SECRET}}"\n'
            'location = "query"\n',
        ),
        "$env.PIGEON_SECRET",
    ),
    "collection auth, basic password": Case(
        lambda w: (
            write(
                w.root,
                "collection.toml",
                '[auth]\ntype = "basic"\nusername = "u"\npassword = "{{$env.PIGEON_SECRET}}"\n',
            ),
            url_req(w, "r.toml", ""),
        ),
        "$env.PIGEON_SECRET",
        sent="Authorization: Basic " + base64.b64encode(f"u:{SECRET}".encode()).decode(),
    ),
    "a collection variable": Case(
        lambda w: (
            write(w.root, "collection.toml", '[variables]\nk = "{{$env.PIGEON_SECRET}}"\n'),
            url_req(w, "r.toml", "{{k}}"),
        ),
        "$env.PIGEON_SECRET",
    ),
    "nested in an environment's object": Case(
        lambda w: (
            write(w.root, "collection.toml", 'default_environment = "dev"\n'),
            write(
                w.root,
                "environments/dev.toml",
                '[variables]\ncfg = { keys = ["x", "{{$env.PIGEON_SECRET}}"] }\n',
            ),
            url_req(w, "r.toml", "{{cfg.keys[1]}}"),
        ),
        "$env.PIGEON_SECRET",
    ),
    "indirect through folder and request variables": Case(
        lambda w: (
            write(
                w.root, "f/folder.toml", '[variables]\nb = "x{{c}}"\nc = "{{$env.PIGEON_SECRET}}"\n'
            ),
            url_req(w, "f/r.toml", "{{a}}", '[variables]\na = "{{b}}"\n'),
        ),
        "$env.PIGEON_SECRET",
        request="f/r",
    ),
    ".env that links outside": Case(
        lambda w: (
            write(w.outside, "real.env", f"PIGEON_OTHER={SECRET}\n"),
            (w.root / ".env").symlink_to(w.outside / "real.env"),
            url_req(w, "r.toml", "{{$env.PIGEON_OTHER}}"),
        ),
        ".env links out of it",
    ),
    "absolute file path": Case(
        lambda w: url_req(w, "r.toml", "", FILE_FIELD.format(w.outside / "id_rsa")),
        "reads {outside}/id_rsa, outside the collection",
        sent=FILE_SECRET,
    ),
    "../ file path": Case(
        lambda w: url_req(w, "r.toml", "", FILE_FIELD.format("../outside/id_rsa")),
        "reads {outside}/id_rsa, outside the collection",
        sent=FILE_SECRET,
    ),
    "symlink inside pointing out": Case(
        lambda w: (
            (w.root / "key").symlink_to(w.outside / "id_rsa"),
            url_req(w, "r.toml", "", FILE_FIELD.format("key")),
        ),
        "reads {outside}/id_rsa, outside the collection",
        sent=FILE_SECRET,
    ),
    "placeholder that renders to an outside path": Case(
        lambda w: (
            write(w.root, "collection.toml", '[variables]\nd = ".."\n'),
            url_req(w, "r.toml", "", FILE_FIELD.format("{{d}}/outside/id_rsa")),
        ),
        "reads {outside}/id_rsa, outside the collection",
        sent=FILE_SECRET,
    ),
    "environment file that links outside": Case(
        lambda w: (
            write(w.root, "collection.toml", 'default_environment = "dev"\n'),
            write(w.outside, "dev.toml", f'[variables]\nk = "{FILE_SECRET}"\n'),
            (w.root / "environments").mkdir(),
            (w.root / "environments" / "dev.toml").symlink_to(w.outside / "dev.toml"),
            url_req(w, "r.toml", "{{k}}"),
        ),
        "environments/dev.toml is loaded from {outside}/dev.toml, outside the collection",
        sent=FILE_SECRET,
    ),
}

SCRIPT = "open({marker!r}, 'a').write('ran')\n"
LEVELS = {"collection": "collection.toml", "folder": "f/folder.toml", "request": "f/r.toml"}


def script_case(level: str, phase: str) -> Case:
    def make(w: World) -> None:
        code = SCRIPT.format(marker=str(w.outside / "marker"))
        text = f"[scripts]\n{phase} = '''\n{code}'''\n"
        if level == "request":
            url_req(w, "f/r.toml", "", text)
        else:
            write(w.root, LEVELS[level], text)
            url_req(w, "f/r.toml", "")

    return Case(make, f"runs {LEVELS[level]} [scripts.{phase}]", sent="", request="f/r")


for _level in LEVELS:
    for _phase in ("pre_request", "post_response"):
        CASES[f"{_phase} script of the {_level}"] = script_case(_level, _phase)


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with recording_server() as s:
        yield s


@pytest.fixture
def world(tmp_path: Path, server: RecordingServer, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("PIGEON_SECRET", SECRET)
    monkeypatch.delenv("PIGEON_OTHER", raising=False)  # only in the .env that links out
    w = World(tmp_path / "col", tmp_path / "outside", server.url)
    w.root.mkdir()
    write(w.outside, "id_rsa", FILE_SECRET)
    return w


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--no-color"])
    out, err = capsys.readouterr()
    return code, out, err


def sent(server: RecordingServer) -> bytes:
    return b"\n".join(server.requests)


@pytest.mark.parametrize("name", list(CASES))
def test_untrusted_is_refused_and_trusted_works(
    name: str, world: World, server: RecordingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES[name]
    case.make(world)
    named = case.named.format(outside=os.path.realpath(world.outside))

    code, out, err = run(capsys, str(world.root))
    assert code == 2, (out, err)
    assert server.connections == 0 and not (world.outside / "marker").exists()
    need = next(line for line in err.splitlines() if named in line)
    assert need.startswith(f"pigeon: needs trust: {case.request}: "), err
    assert "is not trusted" in err.splitlines()[-1]

    def works(*argv: str, runs: str) -> None:
        before = len(server.requests)
        code, out, err = run(capsys, str(world.root), *argv)
        assert code == 0 and "trust" not in err, (out, err)
        if case.sent:
            assert len(server.requests) == before + 1
            assert case.sent.encode() in server.requests[-1]
        else:
            assert (world.outside / "marker").read_text() == runs

    works("--trust", runs="ran")  # trusted this time
    TrustStore().trust(world.root)  # trusted for good, as the app records it
    works(runs="ranran")


def test_a_dotenv_name_reads_the_dotenv_value_never_the_environment(
    world: World, server: RecordingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # A collection lists the name of a variable it wants in its own .env, hoping the process
    # environment wins: untrusted, only the .env's own value is read.
    write(world.root, ".env", "PIGEON_SECRET=decoy\n")
    url_req(world, "r.toml", "{{$env.PIGEON_SECRET}}")
    code, out, err = run(capsys, str(world.root))
    assert code == 0, (out, err)
    assert b"/decoy " in sent(server) and SECRET.encode() not in sent(server)
    code, _, _ = run(capsys, str(world.root), "--trust")
    assert code == 0 and f"/{SECRET} ".encode() in server.requests[-1]  # the environment wins


def test_files_inside_the_collection_need_no_trust(
    world: World, server: RecordingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    write(world.root, "data/upload.bin", "mine")
    (world.root / "link").symlink_to(world.root / "data")
    url_req(world, "r.toml", "", FILE_FIELD.format("link/upload.bin"))
    code, out, err = run(capsys, str(world.root))
    assert code == 0, (out, err)
    assert b"mine" in sent(server)


def test_render_and_export_are_refused_too(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    url_req(world, "r.toml", "{{$env.PIGEON_SECRET}}")
    for argv in (["render", str(world.root), "r"], ["export", "curl", str(world.root), "r"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and SECRET not in err
        assert "needs trust: r: reads $env.PIGEON_SECRET from the process environment" in err
        assert main([*argv, "--trust"]) == 0
        # `render` shows the value masked (it came from $env); `export` writes it to be run.
        out = capsys.readouterr().out
        assert (SECRET in out) == (argv[0] == "export") and ("•••" in out) == (argv[0] == "render")


def test_needs_are_named_without_control_characters(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    write(world.root, "collection.toml", '[variables]\nd = "../\\u001b]0;owned\\u0007"\n')
    url_req(world, "r.toml", "", FILE_FIELD.format("{{d}}/id_rsa"))
    assert main(["run", str(world.root)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b]0;owned\\x07" in err


def test_the_gate_refuses_what_the_static_check_cannot_see(
    world: World, server: RecordingServer
) -> None:
    # A path made of a runtime variable: no static check knows it, rendering refuses it.
    url_req(world, "r.toml", "", FILE_FIELD.format("{{where}}"))
    collection = load_collection(world.root)
    assert needs(collection, collection.walk()) == []
    runtime = RuntimeVars({"where": str(world.outside / "id_rsa")})
    ctx = RunContext(collection, runtime=runtime)
    chain, request = collection.walk()[0]

    async def go() -> str | None:
        try:
            return (await execute(ctx, chain, request)).error
        finally:
            await ctx.aclose()

    error = asyncio.run(go())
    assert error is not None and error.startswith("not sent: needs trust: multipart field 'key'")
    assert os.path.realpath(world.outside / "id_rsa") in error
    assert server.connections == 0


def test_the_gate_raises_a_render_error_naming_the_thing(world: World) -> None:
    gate = Gate(load_collection(world.root))
    with pytest.raises(Refused, match=r"needs trust: reads \$env.HOME from the process"):
        gate.env("HOME", {})
    with pytest.raises(Refused, match="outside the collection"):
        gate.file(world.outside / "id_rsa", "multipart field 'k'")
    assert gate.file(world.root / "x", "multipart field 'k'") == world.root.resolve() / "x"


def test_summary_lists_each_kind_once(world: World) -> None:
    CASES["pre_request script of the folder"].make(world)
    url_req(world, "a.toml", "{{$env.PIGEON_SECRET}}", FILE_FIELD.format(world.outside / "id_rsa"))
    url_req(world, "b.toml", "", '[[headers]]\nname = "K"\nvalue = "{{$env.PIGEON_SECRET}}"\n')
    collection = load_collection(world.root)
    found = needs(collection, collection.walk())
    assert summary(found) == [
        "Python scripts: f/folder.toml [scripts.pre_request]",
        "environment variables: PIGEON_SECRET",
        f"files outside the collection: {os.path.realpath(world.outside / 'id_rsa')}",
    ]


def test_a_request_file_that_links_out_is_skipped_trusted_or_not(
    world: World, server: RecordingServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # The loader follows no request or folder link out of the collection (a named, skipped
    # entry), so trust has nothing to allow here: the file is never read.
    write(world.outside, "r.toml", f'name = "x"\nurl = "{world.url}/{FILE_SECRET}"\n')
    (world.root / "r.toml").symlink_to(world.outside / "r.toml")
    url_req(world, "ok.toml", "fine")
    for argv in ((), ("--trust",)):
        code, out, err = run(capsys, str(world.root), *argv)
        assert code == 0, (out, err)
        assert "1 request · 1 passed" in out
        real = os.path.realpath(world.outside / "r.toml")
        assert f"r.toml: a link out of the collection (to {real}); skipped" in err
        assert FILE_SECRET.encode() not in b"".join(server.requests)


# -- the rule's parts, without a server -----------------------------------------------------


@pytest.fixture
def lone(tmp_path: Path) -> World:
    """A collection and a directory beside it, with no server: nothing here is sent."""
    w = World(tmp_path / "col", tmp_path / "outside", "http://127.0.0.1:9")
    w.root.mkdir()
    write(w.outside, "id_rsa", FILE_SECRET)
    return w


def linked(world: World, rel: str, text: str) -> None:
    """``rel`` in the collection, a link to a file of that text outside it."""
    write(world.outside, rel, text)
    (world.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (world.root / rel).symlink_to(world.outside / rel)


def test_an_environment_file_that_links_out_is_a_file_need(lone: World) -> None:
    # Its kind is one the prompt knows: summarising it must not fail.
    write(lone.root, "collection.toml", 'default_environment = "dev"\n')
    linked(lone, "environments/dev.toml", '[variables]\nk = "v"\n')
    url_req(lone, "r.toml", "{{k}}")
    collection = load_collection(lone.root)
    real = os.path.realpath(lone.outside / "environments/dev.toml")
    thing = f"environments/dev.toml is loaded from {real}, outside the collection"
    assert needs(collection, collection.walk()) == [Need("r", "file", real, thing)]
    assert summary(needs(collection, collection.walk())) == [
        f"files outside the collection: {real}"
    ]
    assert str(Need("r", "file", real, thing)) == f"r: {thing}"
    # Another environment, or none, reads no such file.
    assert needs(collection, collection.walk(), environment="") == []


def test_collection_and_folder_files_that_link_out_are_file_needs(lone: World) -> None:
    linked(lone, "collection.toml", 'name = "c"\n')
    linked(lone, "f/folder.toml", '[variables]\na = "1"\n')
    url_req(lone, "f/r.toml", "")
    collection = load_collection(lone.root)
    found = needs(collection, collection.walk())
    assert [(n.request, n.kind, n.thing.split(" is loaded")[0]) for n in found] == [
        ("f/r", "file", "collection.toml"),
        ("f/r", "file", os.path.join("f", "folder.toml")),
    ]
    assert found[0].what == os.path.realpath(lone.outside / "collection.toml")


def test_a_dotenv_that_links_out_gives_no_value(lone: World) -> None:
    linked(lone, ".env", "A=outside\n")
    collection = load_collection(lone.root)
    gate = Gate(collection)
    assert not gate.own_dotenv
    with pytest.raises(Refused, match=r"\$env.A from the process environment \(.env links out"):
        gate.env("A", {"A": "outside"})
    recording = Gate(collection, record=True)
    assert recording.env("A", {"A": "outside"}) is None
    assert recording.env("A", {"A": "outside"}) is None  # each need is noted once
    assert recording.found == [
        ("env", "A", "reads $env.A from the process environment (.env links out of it)")
    ]


def test_a_dotenv_inside_gives_its_own_values_only(lone: World) -> None:
    write(lone.root, ".env", "A=mine\n")
    gate = Gate(load_collection(lone.root), record=True)
    assert gate.own_dotenv
    assert gate.env("A", {"A": "mine"}) == "mine"
    assert gate.env("B", {"A": "mine"}) is None
    assert gate.found == [
        ("env", "B", "reads $env.B from the process environment (not in the collection's .env)")
    ]


def test_files_are_judged_by_where_they_really_are(lone: World) -> None:
    (lone.root / "data").mkdir()
    (lone.root / "in").symlink_to(lone.outside)
    (lone.root.parent / "col-sibling").mkdir()  # shares the collection's name as a prefix
    gate = Gate(load_collection(lone.root))
    real_root = Path(os.path.realpath(lone.root))
    assert gate.file(lone.root / "data" / "x", "f") == real_root / "data" / "x"
    assert gate.file(lone.root, "f") == real_root
    for outside in (lone.root / "in" / "id_rsa", lone.root / ".." / "col-sibling" / "x"):
        with pytest.raises(Refused, match="outside the collection"):
            gate.file(outside, "multipart field 'k'")
    recording = Gate(load_collection(lone.root), record=True)
    assert recording.file(lone.root / "data" / "x", "f") is None  # recording reads nothing
    assert recording.file(lone.outside / "id_rsa", "f") is None
    real = os.path.realpath(lone.outside / "id_rsa")
    assert recording.found == [("file", real, f"f reads {real}, outside the collection")]


def test_a_request_file_met_twice_is_judged_once(lone: World) -> None:
    url_req(lone, "a.toml", "")
    url_req(lone, "b.toml", "")
    collection = load_collection(lone.root)
    assert needs(collection, collection.walk() * 2) == []
    gate = Gate(collection)
    path = os.path.join(lone.root, "a.toml")
    assert gate._loaded_from(path) is None and path in gate._outside


def test_summary_keeps_the_order_of_kinds_and_names_each_once() -> None:
    found = [
        Need("a", "file", "/x", "t"),
        Need("a", "env", "B", "t"),
        Need("b", "env", "A", "t"),
        Need("b", "env", "B", "t"),
        Need("a", "script", "s.py", "t"),
    ]
    assert summary(found) == [
        "Python scripts: s.py",
        "environment variables: B, A",
        "files outside the collection: /x",
    ]
    assert summary([]) == []


def test_needs_lists_scripts_only_for_the_phases_that_run(lone: World) -> None:
    url_req(lone, "r.toml", "", "[scripts]\npre_request = 'x = 1'\npost_response = 'y = 2'\n")
    collection = load_collection(lone.root)
    assert [n.what for n in needs(collection, collection.walk())] == [
        "r.toml [scripts.pre_request]",
        "r.toml [scripts.post_response]",
    ]
    assert [n.kind for n in needs(collection, collection.walk(), phases=())] == []
    assert needs(collection, collection.walk(), phases=["post_response"])[0].thing == (
        "runs r.toml [scripts.post_response]"
    )


def test_needs_renders_with_the_environment_and_variables_asked_for(lone: World) -> None:
    write(lone.root, "collection.toml", 'default_environment = "dev"\n')
    write(lone.root, "environments/dev.toml", '[variables]\nk = "{{$env.FROM_DEV}}"\n')
    url_req(lone, "r.toml", "{{k}}/{{x}}")
    collection = load_collection(lone.root)
    names = [n.what for n in needs(collection, collection.walk())]
    assert names == ["FROM_DEV"]
    assert needs(collection, collection.walk(), environment="") == []
    found = needs(collection, collection.walk(), "", cli_vars={"x": "{{$env.FROM_CLI}}"})
    assert [n.what for n in found] == ["FROM_CLI"]


def test_a_file_in_a_folder_that_links_out_is_named_by_its_own_path(lone: World) -> None:
    write(lone.root, "collection.toml", 'default_environment = "dev"\n')
    write(lone.outside, "envs/dev.toml", '[variables]\nk = "v"\n')
    (lone.root / "environments").symlink_to(lone.outside / "envs")
    url_req(lone, "r.toml", "")
    collection = load_collection(lone.root)
    gate = Gate(collection, record=True)
    chain, request = collection.walk()[0]
    gate.sources(chain, request, None)
    real = os.path.realpath(lone.outside / "envs" / "dev.toml")
    assert [what for _, what, _ in gate.found] == [real]
    path = os.path.join(lone.root, "environments", "dev.toml")
    assert gate._loaded_from(path) == real


def test_a_request_whose_file_links_out_is_a_file_need(lone: World) -> None:
    # The loader skips such a file; a request built in memory with that path is refused too.
    url_req(lone, "r.toml", "")
    collection = load_collection(lone.root)
    chain, request = collection.walk()[0]
    write(lone.outside, "r.toml", 'url = "x"\n')
    (lone.root / "linked.toml").symlink_to(lone.outside / "r.toml")
    request.path = lone.root / "linked.toml"
    found = needs(collection, [(chain, request)])
    assert [(n.kind, n.what) for n in found] == [
        ("file", os.path.realpath(lone.outside / "r.toml"))
    ]


def test_the_filesystem_root_holds_everything() -> None:
    from pigeon.trust import _within

    assert _within("/etc/passwd", "/") and _within("/", "/")
    assert _within("/a/b", "/a") and not _within("/ab", "/a")


def test_a_secret_source_is_refused_saying_what_it_would_do_and_recorded_once(
    lone: World,
) -> None:
    from pigeon.model import SecretSource

    collection = load_collection(lone.root)
    command = SecretSource("tok", "command", argv=("op", "read", "x"), origin="collection.toml")
    ring = SecretSource("ring", "keyring", service="svc", account="me", origin="dev.toml")
    asked = SecretSource("otp", "prompt", label="Code", origin="globals.toml")
    gate = Gate(collection)
    said = {
        command: "needs trust: runs secret tok (command: op read x, collection.toml) (" + HOW + ")",
        ring: "needs trust: reads the keychain for secret ring (keyring: svc/me, dev.toml) ("
        + HOW
        + ")",
        asked: "needs trust: asks for secret otp (prompt, globals.toml) (" + HOW + ")",
    }
    for source, message in said.items():
        with pytest.raises(Refused) as refused:
            gate.secret(source)
        assert str(refused.value) == message
    assert gate.secrets == [] and gate.found == []  # enforcing: nothing recorded
    recording = Gate(collection, record=True)
    for _ in range(2):
        assert recording.secret(command) is False and recording.secret(ring) is False
    assert recording.secrets == [command, ring]
    assert recording.found == [
        ("secret", "command: op read x", said[command][len("needs trust: ") : -len(HOW) - 3]),
        ("secret", "keyring: svc/me", said[ring][len("needs trust: ") : -len(HOW) - 3]),
    ]


def test_a_global_variable_is_refused_naming_globals_toml(
    lone: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = lone.outside / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    write(config, "pigeon/globals.toml", '[variables]\nhost = "example.org"\n')
    url_req(lone, "r.toml", "{{host}}")
    collection = load_collection(lone.root)
    path = collection.globals.path
    assert path is not None
    with pytest.raises(Refused, match=f"^needs trust: reads host from {path}, outside the"):
        Gate(collection).global_variable("host")
    gate = Gate(collection, record=True)
    assert gate.global_variable("host") is False
    assert gate.found == [("global", "host", f"reads host from {path}, outside the collection")]
    found = needs(collection, collection.walk())
    assert [(n.kind, n.what) for n in found] == [("global", "host")]
    assert summary(found) == ["global variables: host"]


def test_a_global_environment_under_the_collections_own_is_a_file_need(
    lone: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = lone.outside / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    write(config, "pigeon/environments/dev.toml", '[variables]\nk = "global"\n')
    write(lone.root, "environments/dev.toml", '[variables]\nk = "own"\n')
    url_req(lone, "r.toml", "")
    collection = load_collection(lone.root)
    chain, request = collection.walk()[0]
    shared = os.path.realpath(config / "pigeon/environments/dev.toml")
    gate = Gate(collection, record=True)
    gate.sources(chain, request, "dev")
    assert [what for _, what, _ in gate.found] == [shared]
    gate = Gate(collection, record=True)
    gate.sources(chain, request, None)  # no environment chosen: neither file is read
    assert gate.found == []
    gate = Gate(collection, record=True)
    gate.sources(chain, request, "other")
    assert gate.found == []


def test_summary_names_secrets_and_global_variables() -> None:
    found = [
        Need("a", "global", "host", "t"),
        Need("a", "secret", "command: op read x", "t"),
        Need("b", "secret", "command: op read x", "t"),
    ]
    lines = summary(found)
    assert "secrets: command: op read x" in lines and "global variables: host" in lines
    assert len(lines) == 2


def test_needs_lists_a_grpc_requests_protos_outside_the_collection(lone: World) -> None:
    write(lone.outside, "protos/api.proto", 'syntax = "proto3";\n')
    write(lone.root, "collection.toml", 'name = "c"\n')
    write(
        lone.root,
        "call.toml",
        'name = "Call"\ntype = "grpc"\nurl = "grpc://127.0.0.1:9"\nrpc = "a.S/M"\n'
        'protos = ["../outside/protos/api.proto"]\nimport_paths = ["../outside/protos"]\n',
    )
    collection = load_collection(lone.root)
    found = needs(collection, collection.walk())
    proto = os.path.realpath(lone.outside / "protos/api.proto")
    folder = os.path.realpath(lone.outside / "protos")
    assert [(n.kind, n.what) for n in found] == [("file", proto), ("file", folder)]
    assert found[0].thing == f"protos reads {proto}, outside the collection"
    assert found[1].thing == f"import_paths reads {folder}, outside the collection"


# Beside CASES, what else a render asks the gate for: each must keep ``needs`` rendering.
ASKING: dict[str, Callable[[World], object]] = {
    "a secret of the collection": lambda w: (
        write(w.root, "collection.toml", '[secrets]\ntok = { command = ["op", "read"] }\n'),
        url_req(w, "r.toml", "{{tok}}"),
    ),
    "a secret of the environment": lambda w: (
        write(w.root, "collection.toml", 'default_environment = "dev"\n'),
        write(w.root, "environments/dev.toml", '[secrets]\ntok = { prompt = "?" }\n'),
        url_req(w, "r.toml", "{{tok}}"),
    ),
    "a CA bundle outside": lambda w: (
        write(w.root, "collection.toml", '[settings]\nca_bundle = "../outside/id_rsa"\n'),
        url_req(w, "r.toml", ""),
    ),
    "an environment's CA bundle outside": lambda w: (
        write(w.root, "collection.toml", 'default_environment = "dev"\n'),
        write(w.root, "environments/dev.toml", '[settings]\nca_bundle = "../outside/id_rsa"\n'),
        url_req(w, "r.toml", ""),
    ),
    "a key file outside": lambda w: url_req(
        w,
        "r.toml",
        "",
        '[auth]\ntype = "jwt"\njwt_algorithm = "HS256"\nprivate_key_file = "../outside/id_rsa"\n',
    ),
    "a folder's key file outside": lambda w: (
        write(
            w.root,
            "f/folder.toml",
            '[auth]\ntype = "jwt"\njwt_algorithm = "HS256"\nprivate_key_file = "../../outside/k"\n',
        ),
        url_req(w, "f/r.toml", ""),
    ),
    "a file body outside": lambda w: url_req(
        w, "r.toml", "", '[body]\ntype = "file"\npath = "../outside/id_rsa"\n'
    ),
    "$env in a folder's header": lambda w: (
        write(
            w.root, "f/folder.toml", '[[headers]]\nname = "K"\nvalue = "{{$env.PIGEON_SECRET}}"\n'
        ),
        url_req(w, "f/r.toml", ""),
    ),
    "$env in a collection header": lambda w: (
        write(w.root, "collection.toml", '[[headers]]\nname = "K"\nvalue = "{{$env.X}}"\n'),
        url_req(w, "r.toml", ""),
    ),
    "$env in an escaped TOML string": lambda w: url_req(w, "r.toml", "{{$\\u0065nv.X}}"),
}


@pytest.mark.parametrize(
    "name", [n for n in CASES if "script" not in n and "links" not in n] + list(ASKING)
)
def test_needs_skips_no_render_that_asks_for_something(
    name: str, lone: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Requests that cannot ask the gate anything are not rendered by ``needs``; told apart
    # without rendering, each of these must still be rendered, and so find what it finds
    # when every request is.
    import pigeon.trust as trust

    make = CASES[name].make if name in CASES else ASKING[name]
    make(lone)
    collection = load_collection(lone.root)
    assert not collection.broken, collection.broken
    found = needs(collection, collection.walk())
    monkeypatch.setattr(trust._Quiet, "__call__", lambda self, chain, request: False)
    assert found and found == needs(collection, collection.walk())


def test_needs_renders_only_the_requests_that_could_ask_for_something(
    lone: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pigeon.trust as trust

    rendered: list[str] = []

    def render(collection: object, chain: object, request: Request, scopes: object) -> None:
        rendered.append(request.id)

    monkeypatch.setattr(trust, "render_request", render)
    write(
        lone.root,
        "collection.toml",
        'default_environment = "dev"\n[variables]\nu = { id = 7, name = "Ada" }\n'
        '[[headers]]\nname = "X-Key"\nvalue = "{{key}}"\n[auth]\ntype = "bearer"\ntoken = "t"\n',
    )
    write(lone.root, "environments/dev.toml", '[variables]\nkey = "k-1"\nenvironment = "dev"\n')
    write(lone.root, "f/folder.toml", '[variables]\nfolder = "f"\n')
    body = '[body]\ntype = "json"\ncontent = \'{"id": {{u.id}}}\'\n'
    url_req(lone, "f/plain.toml", "users/{{u.id}}?n={{u.name}}", body)
    url_req(lone, "f/asks.toml", "{{x}}", '[variables]\nx = "{{$env.HOME}}"\n')
    url_req(lone, "form.toml", "", '[body]\ntype = "multipart"\n')
    collection = load_collection(lone.root)
    assert needs(collection, collection.walk()) == []
    assert rendered == ["f/asks", "form"]
    rendered.clear()
    needs(collection, collection.walk(), cli_vars={"y": ["{{process.env.HOME}}"]})
    assert rendered == ["f/asks", "f/plain", "form"]


# -- the refusal's words and the no-render check's walk, pinned ---------------------------


def test_a_refusal_names_each_need_then_how_to_trust_and_no_scripts_only_for_scripts() -> None:
    from pigeon.trust import refusal

    script = Need("users/get", "script", "pre_request", "runs a pre-request script")
    env = Need("users/list", "env", "TOKEN", "reads the environment variable TOKEN")
    root = Path("/c")
    trust = "/c is not trusted and the requests above need it (pass --trust, or trust it in the app"
    assert refusal(root, [script, env]) == [
        "needs trust: users/get: runs a pre-request script",
        "needs trust: users/list: reads the environment variable TOKEN",
        trust + "; --no-scripts runs without the scripts)",
    ]
    assert refusal(root, iter([env])) == [
        "needs trust: users/list: reads the environment variable TOKEN",
        trust + ")",
    ]
    assert refusal(root, [script], no_scripts=False)[-1] == trust + ")"


def test_the_no_render_check_finds_env_in_any_text_and_counts_the_unknown_as_a_yes() -> None:
    from dataclasses import dataclass as plain_dataclass

    from pigeon.trust import _may_name_env

    class Text(str):
        pass

    @plain_dataclass
    class One:
        text: str

    assert _may_name_env("{{$env.TOKEN}}") and not _may_name_env("{{token}}")
    assert _may_name_env(Text("{{$env.TOKEN}}")) and not _may_name_env(Text("{{token}}"))
    assert _may_name_env(One("{{$env.TOKEN}}")) and not _may_name_env(One("{{token}}"))
    assert not _may_name_env([{}, [], (), 0, None, 1.5, True, Path("env.txt").parent])
    assert _may_name_env([{}, {"a": ["x", "{{process.env.HOME}}"]}])
    assert _may_name_env([object()]) and _may_name_env(object())
    assert not _may_name_env(3) and not _may_name_env(None)
