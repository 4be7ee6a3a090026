"""Secret variables and global variables (DESIGN §11): a command's output, a keychain entry or
an answer typed once, read when a render needs it, kept in memory, masked wherever it went;
sources that need trust refused before any is read; ``globals.toml`` under the collection and
a global environment under the collection's of its name."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend

from collection_files import write
from pigeon.cli import main
from pigeon.model import SecretSource
from pigeon.render import render_request
from pigeon.scopes import build_scopes
from pigeon.secrets import MAX_OUTPUT, SecretError, Vault, run_command
from pigeon.store import load_collection
from pigeon.trust import needs
from servers import recording_server

PY = sys.executable
LONG = "s3cr3t-" + "x" * 33  # 40 characters
SHORT = "q"


class FakeKeyring(KeyringBackend):
    """A keychain in memory: what the tests store, and nothing of the user's."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture
def ring() -> Iterator[FakeKeyring]:
    before = keyring.get_keyring()
    fake = FakeKeyring()
    keyring.set_keyring(fake)
    yield fake
    keyring.set_keyring(before)


def command(*argv: str, timeout: float = 10.0) -> SecretSource:
    return SecretSource("tok", "command", argv=(PY, "-c", *argv), timeout=timeout)


def toml_list(argv: list[str]) -> str:
    return json.dumps(argv)


# -- the sources -------------------------------------------------------------------------------


def test_a_command_gives_its_output_with_the_final_newline_trimmed() -> None:
    assert run_command(command("print('abc')")) == "abc"
    assert run_command(command("import sys; sys.stdout.write('a\\n\\n')")) == "a\n"
    assert run_command(command("import sys; sys.stdout.write('b\\r\\n')")) == "b"


def test_a_failing_command_names_its_status_and_stderr() -> None:
    source = command("import sys; sys.stderr.write('not signed in\\n'); sys.exit(3)")
    with pytest.raises(SecretError, match=r"status 3: not signed in"):
        run_command(source)


def test_a_command_that_never_answers_is_stopped() -> None:
    with pytest.raises(SecretError, match="no answer in 0.5 s"):
        run_command(command("import time; time.sleep(60)", timeout=0.5))


def test_a_command_printing_megabytes_is_refused() -> None:
    source = command("import sys; sys.stdout.write('x' * (8 << 20))")
    with pytest.raises(SecretError, match=f"more than {MAX_OUTPUT // 1024} KiB"):
        run_command(source)


def test_a_missing_program_is_named() -> None:
    source = SecretSource("tok", "command", argv=("/no/such/program",))
    with pytest.raises(SecretError, match="secret tok: /no/such/program"):
        run_command(source)


def test_a_keyring_secret_is_read_from_the_keychain(ring: FakeKeyring) -> None:
    ring.entries[("svc", "me")] = LONG
    vault = Vault()
    source = SecretSource("ring", "keyring", service="svc", account="me")
    assert vault.resolve(source) == LONG
    source_missing = SecretSource("other", "keyring", service="svc", account="you")
    with pytest.raises(SecretError, match="no svc/you in the keychain"):
        vault.resolve(source_missing)


def test_a_prompt_is_asked_once_a_session() -> None:
    asked: list[str] = []

    def ask(source: SecretSource) -> str:
        asked.append(source.label)
        return "typed"

    vault = Vault(ask)
    source = SecretSource("otp", "prompt", label="One-time code")
    assert vault.resolve(source) == vault.resolve(source) == "typed"
    assert asked == ["One-time code"]


# -- in a collection ---------------------------------------------------------------------------


def collection(root: Path, secrets: str, url: str = "http://127.0.0.1:9/") -> Path:
    write(root, "collection.toml", f'name = "c"\n\n[secrets]\n{secrets}\n')
    write(root, "r.toml", f'method = "GET"\nurl = "{url}{{{{tok}}}}"\n')
    return root


def test_a_secret_is_read_only_when_a_render_needs_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    argv = [PY, "-c", f"open({str(marker)!r}, 'w'); print('v')"]
    root = collection(tmp_path / "c", f"tok = {{ command = {toml_list(argv)} }}")
    write(root, "other.toml", 'url = "http://x/"\n')
    col = load_collection(root)
    vault = Vault()
    chain, other = col.find("other") or ([], None)
    assert other is not None
    render_request(col, chain, other, build_scopes(col, chain, other, vault=vault))
    assert not marker.exists()
    chain, request = col.find("r") or ([], None)
    assert request is not None
    out = render_request(col, chain, request, build_scopes(col, chain, request, vault=vault))
    assert out.url == "http://127.0.0.1:9/v"
    assert out.shown(out.url) == "http://127.0.0.1:9/•••"
    assert marker.exists()
    marker.unlink()
    render_request(col, chain, request, build_scopes(col, chain, request, vault=vault))
    assert not marker.exists()  # kept for the session


def test_an_untrusted_collection_is_refused_before_any_command_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    argv = [PY, "-c", f"open({str(marker)!r}, 'w'); print('v')"]
    root = collection(tmp_path / "c", f"tok = {{ command = {toml_list(argv)} }}")
    for args in (
        ["run", str(root)],
        ["render", str(root), "r"],
        ["export", "curl", str(root), "r"],
    ):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "needs trust: r: runs secret tok (command: " in err
    assert not marker.exists()
    col = load_collection(root)
    found = needs(col, col.walk())
    assert [(n.kind, n.what) for n in found] == [("secret", f"command: {' '.join(argv)}")]
    assert not marker.exists()


def test_keychains_and_prompts_are_trust_needs_too(tmp_path: Path, ring: FakeKeyring) -> None:
    ring.entries[("svc", "me")] = "v"
    root = collection(tmp_path / "c", 'tok = { keyring = "svc/me" }\notp = { prompt = "Code" }')
    write(root, "r.toml", 'url = "http://x/{{tok}}/{{otp}}"\n')
    col = load_collection(root)
    things = [n.thing for n in needs(col, col.walk())]
    assert things == [
        "reads the keychain for secret tok (keyring: svc/me, collection)",
        "asks for secret otp (prompt, collection)",
    ]


def test_a_prompt_without_a_terminal_exits_2_before_sending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with recording_server() as server:
        root = collection(tmp_path / "c", 'tok = { prompt = "Code" }', server.url + "/")
        assert main(["run", str(root), "--trust"]) == 2
        assert not server.requests
    assert "a prompt needs a terminal" in capsys.readouterr().err


@pytest.mark.parametrize("secret", [SHORT, LONG])
def test_no_secret_is_written_to_history_reports_or_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], secret: str
) -> None:
    argv = [PY, "-c", f"print({secret!r})"]
    with recording_server() as server:
        root = collection(tmp_path / "c", f"tok = {{ command = {toml_list(argv)} }}")
        write(
            root,
            "r.toml",
            f'url = "{server.url}/a/{{{{tok}}}}"\n\n[[headers]]\nname = "X-K"\nvalue = "{{{{tok}}}}"\n'
            '\n[scripts]\npost_response = \'print("said", pigeon.getVar("tok"))\'\n',
        )
        reports = tmp_path / "out"
        code = main(
            ["run", str(root), "--trust", "--history", "--no-color",
             "--report", f"json:{reports}/r.json", "--report", f"junit:{reports}/r.xml"]
        )  # fmt: skip
        assert code == 0
        assert server.requests[0].startswith(f"GET /a/{secret} HTTP/1.1".encode())
        assert f"x-k: {secret}\r\n".encode() in server.requests[0].lower()
    out, err = capsys.readouterr()
    assert "said" in out  # the script ran and printed the secret, masked when long enough
    files = [p for p in [*(root / ".pigeon").rglob("*"), *reports.rglob("*")] if p.is_file()]
    assert files
    if secret == LONG:
        for path in files:
            assert LONG.encode() not in path.read_bytes(), path
        assert LONG not in out + err
    report = json.loads((reports / "r.json").read_text())
    text = json.dumps(report, ensure_ascii=False)
    assert "/a/•••" in text and f"/a/{secret}" not in text
    entries = [p for p in (root / ".pigeon").rglob("*.json") if "history" in str(p)]
    shown = "".join(p.read_text() for p in entries)
    assert "/a/•••" in shown and f'/a/{secret}"' not in shown
    assert f'"{secret}"' not in shown


# -- globals -----------------------------------------------------------------------------------


def config(isolated_config: Path) -> Path:
    return isolated_config / "config" / "pigeon"


def scoped(root: Path, env: str | None = None, vault: Vault | None = None) -> Any:
    col = load_collection(root)
    chain, request = col.find("r") or ([], None)
    assert request is not None
    scopes = build_scopes(col, chain, request, env, vault=vault)
    return col, scopes, render_request(col, chain, request, scopes)


def test_global_variables_lie_under_the_collections(tmp_path: Path, isolated_config: Path) -> None:
    write(config(isolated_config), "globals.toml", '[variables]\nhost = "global"\nonly = "g"\n')
    root = tmp_path / "c"
    write(root, "collection.toml", '[variables]\nhost = "mine"\n')
    write(root, "r.toml", 'url = "http://{{host}}/{{only}}"\n')
    col, scopes, out = scoped(root)
    assert out.url == "http://mine/g"
    assert [d.label for d in scopes.explain()["host"]] == ["collection", "globals"]


def test_a_global_environment_lies_under_the_collections_of_its_name(
    tmp_path: Path, isolated_config: Path
) -> None:
    home = config(isolated_config)
    write(home, "environments/dev.toml", '[variables]\nhost = "global"\nport = "1"\n')
    write(home, "environments/shared.toml", '[variables]\nhost = "shared"\n')
    root = tmp_path / "c"
    write(root, "collection.toml", '[variables]\nhost = "col"\nport = "0"\n')
    write(root, "environments/dev.toml", '[variables]\nhost = "dev"\n')
    write(root, "r.toml", 'url = "http://{{host}}:{{port}}/"\n')
    col, scopes, out = scoped(root, "dev")
    assert out.url == "http://dev:1/"
    labels = [d.label for d in scopes.explain()["host"]]
    assert labels == ["environment dev", "global environment dev", "collection"]
    assert col.environments["shared"].is_global and not col.environments["dev"].is_global
    assert scoped(root, "shared")[2].url == "http://shared:0/"


def test_an_untrusted_collection_may_not_read_globals(
    tmp_path: Path, isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(config(isolated_config), "globals.toml", '[variables]\nhost = "global"\n')
    root = tmp_path / "c"
    write(root, "r.toml", 'url = "http://{{host}}/"\n')
    assert main(["render", str(root), "r"]) == 2
    assert "r: reads host from" in capsys.readouterr().err
    assert main(["render", str(root), "r", "--trust"]) == 0
    assert "http://global/" in capsys.readouterr().out


def test_a_global_secret_is_masked_and_resolved_once(
    tmp_path: Path, isolated_config: Path, ring: FakeKeyring
) -> None:
    ring.entries[("svc", "me")] = SHORT
    write(config(isolated_config), "globals.toml", '[secrets]\ntok = { keyring = "svc/me" }\n')
    root = tmp_path / "c"
    write(root, "r.toml", 'url = "http://h/{{tok}}"\n')
    _, scopes, out = scoped(root, vault=Vault())
    assert out.url == f"http://h/{SHORT}"
    assert out.shown(out.url) == "http://h/•••"
    definitions = scopes.explain()["tok"]
    assert definitions[0].value.describe() == "keyring: svc/me"


# -- pigeon secret -----------------------------------------------------------------------------


def test_pigeon_secret_sets_and_deletes_a_keyring_entry(
    tmp_path: Path,
    ring: FakeKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    root = collection(tmp_path / "c", 'tok = { keyring = "svc/me" }')
    monkeypatch.setattr(sys, "stdin", io.StringIO(LONG + "\n"))
    assert main(["secret", "set", str(root), "tok"]) == 0
    assert ring.entries == {("svc", "me"): LONG}
    assert LONG not in "".join(capsys.readouterr())
    assert main(["secret", "delete", str(root), "tok"]) == 0
    assert ring.entries == {}
    assert main(["secret", "set", str(root), "nope"]) == 2


def test_a_bad_secret_declaration_is_a_broken_file(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", '[secrets]\ntok = { command = "op read x" }\n')
    col = load_collection(root)
    assert "expected the command as a list of strings" in str(col.broken[0])


def test_check_knows_secrets_and_global_environments_without_reading_them(
    tmp_path: Path, isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    argv = [PY, "-c", f"open({str(marker)!r}, 'w'); print('v')"]
    write(config(isolated_config), "environments/prod.toml", '[variables]\nhost = "p"\n')
    root = collection(tmp_path / "c", f"tok = {{ command = {toml_list(argv)} }}")
    write(root, "r.toml", 'url = "http://{{host}}/{{tok}}"\n')
    code = main(["check", str(root), "--env", "prod", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["environments"] == ["prod"]
    assert not marker.exists()


def test_the_guides_secrets_load(tmp_path: Path) -> None:
    page = (Path(__file__).parents[1] / "docs" / "guide" / "secrets.md").read_text(encoding="utf-8")
    block = page.split("```toml", 1)[1].split("\n", 1)[1].split("```", 1)[0]
    write(tmp_path, "collection.toml", block)
    col = load_collection(tmp_path)
    assert not col.broken and not col.warnings
    kinds = {s.name: s.describe() for s in col.secrets.values()}
    assert kinds["api_token"] == "command: op read op://dev/api/token"
    assert kinds["ring"] == "keyring: my-api/token" and kinds["otp"] == "prompt"


def test_the_trust_prompt_lists_secrets_and_globals(tmp_path: Path, isolated_config: Path) -> None:
    from pigeon.trust import summary

    write(config(isolated_config), "globals.toml", '[variables]\nhost = "h"\n')
    root = collection(tmp_path / "c", 'tok = { keyring = "svc/me" }')
    write(root, "r.toml", 'url = "http://{{host}}/{{tok}}"\n')
    col = load_collection(root)
    assert summary(needs(col, col.walk())) == [
        "secrets: keyring: svc/me",
        "global variables: host",
    ]


def test_a_prompt_on_a_terminal_is_asked_once_a_run_without_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    import pigeon.cli.secret

    asked: list[str] = []

    def fake_getpass(prompt: str = "") -> str:
        asked.append(prompt)
        return "typed-code"

    monkeypatch.setattr(pigeon.cli.secret, "_tty", lambda: True)
    monkeypatch.setattr(getpass, "getpass", fake_getpass)
    with recording_server() as server:
        root = collection(tmp_path / "c", 'tok = { prompt = "One-time code" }', server.url + "/")
        write(root, "s.toml", f'url = "{server.url}/again/{{{{tok}}}}"\n')
        assert main(["run", str(root), "--trust"]) == 0
        paths = sorted(r.split(b" ")[1] for r in server.requests)
    assert paths == [b"/again/typed-code", b"/typed-code"]
    assert asked == ["One-time code: "]


def test_a_global_environment_needs_trust_and_completion_knows_globals(
    tmp_path: Path, isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pigeon.tui.placeholder_suggester import complete

    home = config(isolated_config)
    write(home, "environments/shared.toml", '[variables]\nstage = "s"\n')
    write(
        home,
        "globals.toml",
        '[variables]\nglobal_host = "h"\n\n[secrets]\notp = { prompt = "?" }\n',
    )
    root = tmp_path / "c"
    write(root, "r.toml", 'url = "http://x/"\n')
    assert main(["render", str(root), "r", "--env", "shared"]) == 2
    assert "environments/shared.toml" in capsys.readouterr().err
    col = load_collection(root)
    scopes = build_scopes(col, [], None, "shared", vault=Vault().peek())
    assert complete("glo", scopes) == "global_host}}"
    assert complete("ot", scopes) == "otp}}"
    assert complete("sta", scopes) == "stage}}"
