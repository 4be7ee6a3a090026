"""Loading: every field, collections, folders, order, environments, .env, broken files, the demo."""

from __future__ import annotations

import os
import shutil
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from store_support import DEMO, FULL_REQUEST, temp_files  # noqa: F401

from collection_files import write
from pigeon.model import (
    Auth,
    Body,
    Collection,
    Folder,
    FormField,
    Header,
    QueryParam,
    Request,
    Scripts,
    Settings,
)
from pigeon.store import (
    LoadError,
    SaveError,
    load_collection,
    move_folder,
    request_from_toml,
    save_collection_file,
    save_environment,
    save_folder_file,
    save_request,
    title_from_stem,
)
from pigeon.values import kind_of

# -- reading every field -------------------------------------------------------------------


def test_every_request_field_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "r.toml", FULL_REQUEST)
    req = request_from_toml(path.read_text(), path)
    assert (req.name, req.method, req.path) == ("Create user", "POST", path)
    assert req.url == "{{base_url}}/users/{{user.id}}?expand={{opts.expand}}"
    assert req.description == "Creates a user.\nSecond line.\n"
    v = req.variables
    assert v["when"] == datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    assert v["local_when"] == datetime(2024, 1, 2, 3, 4, 5) and v["local_when"].tzinfo is None
    assert v["day"] == date(2024, 1, 2) and not isinstance(v["day"], datetime)
    assert v["big"] == 9007199254740993 and v["ratio"] == 0.5 and v["on"] is True
    assert v["user"] == {"id": 7, "address": {"city": "London"}, "key with spaces": 1}
    assert v["items"] == [{"id": 1}, {"id": 2}] and v["api.version"] == "v1"
    assert req.headers == [
        Header("X-Api-Key", "{{creds.key}}"),
        Header("X-Api-Secret", "{{creds.secret}}", False, {"note": "unknown inside a header"}),
    ]
    assert req.query == [QueryParam("q", "{{search}}"), QueryParam("off", "", False)]
    assert req.body == Body(
        "multipart",
        '{"name": "{{user.name}}", "age": {{user.age}}}\n',
        [
            FormField("title", "hello"),
            FormField("upload", "data/file.bin", False, "file", "application/octet-stream"),
        ],
        {"encoding": "unknown inside body"},
    )
    assert req.auth == Auth(
        "api_key", key="X-Key", value="{{creds.key}}", location="query",
        extra={"scope_hint": "unknown inside auth"},
    )  # fmt: skip
    assert req.scripts.pre_request == 'pigeon.setVar("created", datetime.now(timezone.utc))\n'
    assert req.scripts.extra == {"language": "python"}
    assert req.settings == Settings(12.5, False, False, {"http2": True})
    assert req.extra == {"future_key": "kept", "plugin": {"enabled": True}}


def test_missing_auth_inherits_and_missing_name_comes_from_the_stem(tmp_path: Path) -> None:
    path = write(tmp_path, "list-all_users.toml", 'url = "x"\n')
    req = request_from_toml(path.read_text(), path)
    assert req.auth is None and req.name == "List all users" and req.method == "GET"
    assert req.body == Body() and req.settings == Settings() and req.scripts == Scripts()
    assert title_from_stem("me") == "Me"


def test_standard_methods_are_upper_cased_custom_ones_kept() -> None:
    assert request_from_toml('name = "a"\nmethod = "post"\n').method == "POST"
    assert request_from_toml('name = "a"\nmethod = "PURGE"\n').method == "PURGE"
    assert request_from_toml('name = "a"\nmethod = "mkcol"\n').method == "mkcol"


# -- collection, folders, order, environments, .env ------------------------------------------


def test_nested_folders_ids_and_skipped_entries(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "C"\n')
    write(root, "a/folder.toml", 'name = "Alpha"\n[variables]\nlevel = 1\n')
    write(root, "a/b/c/deep.toml", 'name = "Deep"\n')
    write(root, "a/b/mid.toml", 'name = "Mid"\n')
    write(root, ".pigeon/state.toml", 'name = "hidden"\n')
    write(root, "environments/dev.toml", "[variables]\nx = 1\n")
    write(root, "a/.hidden.toml", 'name = "hidden"\n')
    write(root, "notes.txt", "not a request")
    col = load_collection(root)
    assert [r.id for r in col.requests()] == ["a/b/c/deep", "a/b/mid"]
    chain, deep = col.find("a/b/c/deep.toml")
    assert [f.id for f in chain] == ["a", "a/b", "a/b/c"]
    assert [f.name for f in chain] == ["Alpha", "B", "C"]
    assert chain[0].variables == {"level": 1} and chain[0].has_file and not chain[1].has_file
    assert col.find_folder("a/b").path == root / "a" / "b"
    assert deep.path == root / "a/b/c/deep.toml" and col.broken == []


def test_order_list_first_then_the_rest_by_name(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "C"\norder = ["zeta", "users/", "gone", "alpha.toml"]\n')
    for stem in ("alpha", "Beta", "zeta", "gamma", "delta"):
        write(root, f"{stem}.toml", f'name = "{stem}"\n')
    write(root, "users/folder.toml", 'order = ["b", "a"]\n')
    write(root, "users/a.toml", 'name = "a"\n')
    write(root, "users/b.toml", 'name = "b"\n')
    write(root, "users/c.toml", 'name = "c"\n')
    write(root, "Docs/x.toml", 'name = "x"\n')
    col = load_collection(root)
    stems = [item.path.name.removesuffix(".toml") for item in col.items]
    assert stems == ["zeta", "users", "alpha", "Beta", "delta", "Docs", "gamma"]
    assert [r.id for r in col.find_folder("users").items] == ["users/b", "users/a", "users/c"]
    assert col.order == ["zeta", "users/", "gone", "alpha.toml"]  # kept as written


def test_the_rest_follow_by_the_name_shown_not_the_file_name(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "C"\norder = ["z-last"]\n')
    write(root, "a-file.toml", 'name = "Zebra"\n')
    write(root, "b-file.toml", 'name = "apple"\n')
    write(root, "z-last.toml", 'name = "Aardvark"\n')  # listed: first, whatever its name
    write(root, "c-dir/folder.toml", 'name = "Mango"\n')
    col = load_collection(root)
    assert [item.name for item in col.items] == ["Aardvark", "apple", "Mango", "Zebra"]


def test_collection_file_fields_and_unknown_keys(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(
        root,
        "collection.toml",
        'name = "Named"\ndefault_environment = "dev"\nschema = 2\n'
        '[variables]\nbase_url = "http://127.0.0.1:1"\n'
        '[[headers]]\nname = "X-A"\nvalue = "1"\n'
        '[auth]\ntype = "bearer"\ntoken = "{{t}}"\n'
        '[scripts]\npre_request = "x = 1"\n'
        '[proxy]\nurl = ""\n',
    )
    write(root, "environments/dev.toml", 'label = "Dev"\n[variables]\nx = 1\n[ui]\ncolor = "red"\n')
    write(root, "environments/prod.toml", "[variables]\n")
    col = load_collection(root)
    assert (col.name, col.default_environment) == ("Named", "dev")
    assert col.headers == [Header("X-A", "1")] and col.auth == Auth("bearer", token="{{t}}")
    assert col.scripts.pre_request == "x = 1" and col.extra == {"schema": 2, "proxy": {"url": ""}}
    dev = col.environments["dev"]
    assert dev.variables == {"x": 1} and dev.extra == {"label": "Dev", "ui": {"color": "red"}}
    assert dev.path == root / "environments/dev.toml"
    assert list(col.environments) == ["dev", "prod"] and col.environments["prod"].variables == {}

    save_collection_file(col)
    save_environment(dev)
    assert load_collection(root) == col
    text = (root / "collection.toml").read_text()
    assert "schema = 2" in text and "[proxy]" in text
    assert 'label = "Dev"' in (root / "environments/dev.toml").read_text()


def test_collection_without_a_file_is_named_after_its_directory(tmp_path: Path) -> None:
    write(tmp_path / "my-api", "ping.toml", 'name = "p"\n')
    col = load_collection(tmp_path / "my-api")
    assert col.name == "my-api" and [r.id for r in col.requests()] == ["ping"]


def test_dotenv_is_read_literally_and_never_into_variables(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "C"\n[variables]\nTOKEN = "from-variables"\n')
    write(
        root,
        ".env",
        '# a comment\nTOKEN=abc123\nQUOTED="with spaces # not a comment"\n'
        "export EXPORTED=yes\nLITERAL=pa${HOME}ss\nEMPTY=\n",
    )
    col = load_collection(root)
    assert col.dotenv == {
        "TOKEN": "abc123",
        "QUOTED": "with spaces # not a comment",
        "EXPORTED": "yes",
        "LITERAL": "pa${HOME}ss",
        "EMPTY": "",
    }
    assert col.variables == {"TOKEN": "from-variables"} and col.broken == []


def test_dotenv_bad_line_is_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, ".env", "GOOD=1\nthis is not valid\nALSO=2\n")
    col = load_collection(root)
    assert col.dotenv == {"GOOD": "1", "ALSO": "2"}
    (broken,) = col.broken
    assert broken.path == root / ".env" and broken.line == 2 and "NAME=value" in broken.message


# -- broken files ----------------------------------------------------------------------------


def test_syntax_error_names_file_line_column_and_problem(col: Path) -> None:
    bad = write(col, "users/bad.toml", 'name = "b"\nurl = "x\nmethod = "GET"\n')
    stat_before = bad.stat()
    bytes_before = bad.read_bytes()
    loaded = load_collection(col)
    (broken,) = loaded.broken
    assert broken.path == bad and (broken.line, broken.column) == (2, 9)
    assert "TOML syntax error" in broken.message and "Illegal character" in broken.message
    assert str(broken).startswith(f"{bad}:2:9: ")
    assert {r.id for r in loaded.requests()} == {"users/create", "ping"}

    with pytest.raises(SaveError, match="does not load"):
        save_request(Request(name="overwrite"), bad)
    with pytest.raises(LoadError) as info:
        request_from_toml(bad.read_text(), bad)
    assert info.value.line == 2
    assert bad.read_bytes() == bytes_before and bad.stat().st_mtime_ns == stat_before.st_mtime_ns
    assert temp_files(bad.parent) == []


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ('name = "x"\nmethod = 3\n', 2, 1, ["method", "expected a string", "integer 3"]),
        ('name = "x"\nheaders = "X-A: 1"\n', 2, 1, ["headers", "array of tables"]),
        ('name = "x"\n[[headers]]\nname = "A"\n\n[[headers]]\nname = "B"\nvalue = 42\n', 7, 1,
         ["headers[1].value", "integer 42"]),
        ('name = "x"\n[[query]]\nvalue = "1"\n', 2, 1, ["query[0]", "missing name"]),
        ('name = "x"\n[body]\ntype = "soap"\n', 3, 1, ["body.type", "'soap'", "json"]),
        ('name = "x"\n[auth]\ntype = "kerberos"\n', 3, 1, ["auth.type", "bearer"]),
        ('name = "x"\n[settings]\ntimeout = -1\n', 3, 1, ["settings.timeout", "positive"]),
        ('name = "x"\n[settings]\nverify_tls = "no"\n', 3, 1, ["settings.verify_tls", "true or false"]),
        ('name = "x"\n[variables]\nat = 10:30:00\n', 3, 1, ["variables.at", "local time"]),
        ('name = "x"\n[variables]\nbad = nan\n', 3, 1, ["variables.bad", "finite"]),
        ('name = "x"\n[variables]\n"bad name" = 1\n', 3, 1, ["bad name", "must match"]),
        ('name = "x"\n[variables.user]\nid = 1\nlist = [1, 2, 12:00:00]\n', 4, 1,
         ["variables.user.list[2]", "local time"]),
        ('name = "x"\nmethod = "GE T"\n', 2, 1, ["method", "not an HTTP method"]),
        ('name = "x"\n[body]\ntype = "form"\n[[body.fields]]\nname = "f"\nkind = "blob"\n', 6, 1,
         ["body.fields[0].kind", "text, file"]),
    ],
)  # fmt: skip
def test_content_errors_are_located(
    tmp_path: Path, text: str, line: int, column: int, words: list[str]
) -> None:
    root = tmp_path / "c"
    bad = write(root, "bad.toml", text)
    write(root, "good.toml", 'name = "good"\n')
    col = load_collection(root)
    (broken,) = col.broken
    assert (broken.path, broken.line, broken.column) == (bad, line, column)
    for word in words:
        assert word in broken.message
    assert [r.id for r in col.requests()] == ["good"]


def test_not_utf8_is_broken(tmp_path: Path) -> None:
    root = tmp_path / "c"
    (root).mkdir()
    (root / "bin.toml").write_bytes(b'name = "x"\nurl = "\xff"\n')
    (broken,) = load_collection(root).broken
    assert broken.line == 2 and "UTF-8" in broken.message


def test_broken_collection_file_is_listed_and_the_rest_loads(col: Path) -> None:
    cfile = write(col, "collection.toml", 'name = "Test"\n[variables]\nx = \n')
    before = cfile.read_bytes()
    loaded = load_collection(col)
    (broken,) = loaded.broken
    assert broken.path == cfile and broken.line == 3
    assert loaded.name == "col" and loaded.variables == {}
    assert {r.id for r in loaded.requests()} == {"users/create", "ping"}
    with pytest.raises(SaveError):
        save_collection_file(loaded)
    assert cfile.read_bytes() == before


def test_broken_folder_file_keeps_its_requests_and_is_never_overwritten(col: Path) -> None:
    ffile = write(col, "users/folder.toml", 'name = "Users"\norder = "create"\n')
    loaded = load_collection(col)
    (broken,) = loaded.broken
    assert broken.path == ffile and broken.line == 2 and "order" in broken.message
    folder = loaded.find_folder("users")
    assert folder.name == "Users"  # the default title made from the directory name
    assert [r.id for r in folder.items] == ["users/create"]
    with pytest.raises(SaveError):
        save_folder_file(folder)
    assert ffile.read_text() == 'name = "Users"\norder = "create"\n'


def test_broken_environment_is_listed_and_not_offered(col: Path) -> None:
    write(col, "environments/dev.toml", "[variables\n")
    write(col, "environments/ok.toml", "[variables]\nx = 1\n")
    loaded = load_collection(col)
    assert list(loaded.environments) == ["ok"]
    assert loaded.broken[0].path.name == "dev.toml" and loaded.broken[0].line == 1


def test_missing_or_file_root_raises_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not found") as info:
        load_collection(tmp_path / "absent")
    assert str(tmp_path / "absent") in str(info.value)
    write(tmp_path, "file.toml", "")
    with pytest.raises(LoadError, match="not a directory"):
        load_collection(tmp_path / "file.toml")


# -- the demo collection ----------------------------------------------------------------------


def test_demo_loads_cleanly_with_every_variable_kind() -> None:
    demo = load_collection(DEMO)
    assert demo.broken == [] and demo.name == "Pigeon demo"
    assert demo.default_environment == "local" and set(demo.environments) >= {"local", "staging"}
    for env in demo.environments.values():
        assert env.variables["base_url"].startswith("http://127.0.0.1:")
    kinds = {kind_of(v) for v in demo.variables.values()}
    assert kinds >= {"string", "integer", "float", "boolean", "date", "object", "array"}
    v = demo.variables
    assert v["big_id"] == 9007199254740993 and isinstance(v["launched"], datetime)
    assert type(v["release_day"]) is date and v["owner"] == "{{user}}"
    assert v["user"]["address"]["city"] and "key with spaces" in v["user"]
    assert "api.version" in v and isinstance(v["items"][0], dict)
    assert {"auth/login", "auth/me", "users/list-users", "users/create-user"} <= {
        r.id for r in demo.requests()
    }
    for request in demo.requests():
        assert request.url.startswith("{{base_url}}/"), request.id
    types = {r.body.type for r in demo.requests()} | {
        r.auth.type for r in demo.requests() if r.auth
    }
    assert types >= {"json", "text", "form", "multipart", "basic", "bearer", "api_key", "none"}
    assert not (DEMO / ".env").exists() or ".env" in (DEMO / ".gitignore").read_text()


def test_demo_saves_and_reloads_identically(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".env", ".pigeon"))
    first = load_collection(root)
    save_collection_file(first)
    for env in first.environments.values():
        save_environment(env)

    def save_all(items: list[Folder | Request]) -> None:
        for item in items:
            if isinstance(item, Folder):
                if item.has_file:
                    save_folder_file(item)
                save_all(item.items)
            else:
                save_request(item)

    save_all(first.items)
    second = load_collection(root)
    assert second == first
    snapshot = {p: p.read_bytes() for p in root.rglob("*.toml")}
    save_all(second.items)
    save_collection_file(second)
    assert {p: p.read_bytes() for p in root.rglob("*.toml")} == snapshot


def test_collection_equality_includes_paths(tmp_path: Path) -> None:
    # Guards the round-trip tests above: two loads of different roots must differ.
    a = write(tmp_path / "a", "x.toml", 'name = "x"\n').parent
    b = write(tmp_path / "b", "x.toml", 'name = "x"\n').parent
    assert load_collection(a) != load_collection(b)
    assert isinstance(load_collection(a), Collection)


def test_symlink_loop_is_not_followed_and_same_stem_lists_the_folder_first(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "users.toml", 'name = "Users request"\n')
    write(root, "users/a.toml", 'name = "a"\n')
    try:
        (root / "users" / "loop").symlink_to(root, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    col = load_collection(root)
    assert [type(item).__name__ for item in col.items] == ["Folder", "Request"]
    assert [r.id for r in col.requests()] == ["users/a", "users"]
    [loop] = col.broken
    assert loop.path == root / "users" / "loop" and loop.skipped
    assert "a loop; skipped" in loop.message


def test_links_in_a_loop_of_links_are_skipped_and_the_rest_runs(
    tmp_path: Path, echo_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``a -> b -> a``: the entry is marked, as a broken file is; the collection loads."""
    from pigeon.cli import main

    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    write(root, "ok.toml", 'name = "ok"\nurl = "{{base}}/get"\n')
    try:
        (root / "a").symlink_to(root / "b")
    except OSError:
        pytest.skip("symlinks are not available here")
    (root / "b").symlink_to(root / "a")
    (root / "x.toml").symlink_to(root / "y.toml")
    (root / "y.toml").symlink_to(root / "x.toml")
    col = load_collection(root)
    assert [r.id for r in col.requests()] == ["ok"]
    skipped = {b.path.name: b.message for b in col.broken}
    assert set(skipped) == {"a", "b", "x.toml", "y.toml"} and all(b.skipped for b in col.broken)
    assert skipped["a"] == "cannot read: Too many levels of symbolic links; skipped"
    assert main(["run", str(root), "ok", "--no-color"]) == 0
    captured = capsys.readouterr()
    assert "✔" in captured.out and "warning:" in captured.err


def test_a_folder_that_cannot_be_read_is_skipped_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "c"
    write(root, "ok.toml", 'name = "ok"\n')
    locked = write(root, "locked/secret.toml", 'name = "s"\n').parent
    locked.chmod(0)
    try:
        if os.geteuid() == 0:  # root reads anything: what a user without access meets
            real_stat, real_scandir = os.stat, os.scandir

            def denied(path: object) -> None:
                if str(path).startswith(str(locked) + os.sep) or str(path) == str(locked):
                    raise PermissionError(13, "Permission denied", str(path))

            def stat(path: object, *args: object, **kwargs: object) -> object:
                if str(path) != str(locked):  # the folder itself is seen from its parent
                    denied(path)
                return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

            def scandir(path: object = ".") -> object:
                denied(path)
                return real_scandir(path)  # type: ignore[arg-type]

            monkeypatch.setattr(os, "stat", stat)
            monkeypatch.setattr(os, "scandir", scandir)
        col = load_collection(root)
    finally:
        monkeypatch.undo()
        locked.chmod(0o755)
    assert [r.id for r in col.requests()] == ["ok"]
    [broken] = col.broken
    assert broken.path == locked and broken.skipped
    assert broken.message == "cannot read folder: Permission denied; skipped"


def test_links_out_of_the_collection_are_named_and_skipped_and_links_inside_followed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "c"
    outside = write(tmp_path / "elsewhere", "secret.toml", 'url = "http://x/"\n').parent
    write(root, "users/a.toml", 'name = "a"\n')
    try:
        (root / "users" / "disk").symlink_to("/", target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    (root / "users" / "out").symlink_to(outside, target_is_directory=True)
    (root / "users" / "out.toml").symlink_to(outside / "secret.toml")
    (root / "users" / "gone.toml").symlink_to(tmp_path / "nothing.toml")
    (root / "mirror").symlink_to(root / "users", target_is_directory=True)
    col = load_collection(root)
    # The link that stays inside is followed; no request of the outside folder is loaded.
    assert sorted(r.id for r in col.requests()) == ["mirror/a", "users/a"]
    skipped = {b.path.name: b.message for b in col.broken}
    assert all(b.skipped for b in col.broken)
    assert set(skipped) == {"disk", "out", "out.toml", "gone.toml"}
    assert skipped["disk"] == "a link to a folder that holds it (to /): a loop; skipped"
    assert skipped["out"] == f"a link out of the collection (to {outside}); skipped"


def test_a_request_file_that_never_closes_its_string_names_where_it_opens(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "big.toml", 'method = "GET"\ndescription = "' + "a" * 5_000_000)
    write(root, "block.toml", "url = 'http://x/'\nbody.text = '''\n" + "line\n" * 1000)
    write(root, "closed.toml", "body.text = '''x'''\nurl = \"http://x/")
    col = load_collection(root)
    where = {b.path.name: (b.line, b.column, b.message) for b in col.broken}
    message = "TOML syntax error: this string is never closed (the file ends inside it)"
    assert where["big.toml"] == (2, 15, message)
    assert where["block.toml"] == (2, 13, message)
    assert where["closed.toml"] == (2, 7, message)


def test_nesting_past_the_limit_is_a_located_error_not_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "arrays.toml", "url = 'http://x/'\n[variables]\nv = " + "[" * 500 + "]" * 500)
    write(root, "tables.toml", "[variables]\nv = " + "{a = " * 100 + "1" + "}" * 100)
    write(root, "fine.toml", "[variables]\nv = " + "[" * 60 + "]" * 60)
    col = load_collection(root)
    where = {b.path.name: b for b in col.broken}
    assert set(where) == {"arrays.toml", "tables.toml"}
    assert where["arrays.toml"].line == 3
    assert "nested more than 64 levels deep" in where["arrays.toml"].message
    assert where["tables.toml"].line == 2
    assert where["tables.toml"].message.endswith("objects and arrays nest more than 64 levels deep")
    assert len(where["tables.toml"].message) < 120  # the key path is shortened to one line


def test_a_binary_env_file_is_named_and_not_read(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, "a.toml", 'url = "http://x/"\n')
    (root / ".env").write_bytes(b"A=1\nTOKEN=\x00\x01secret\n")
    col = load_collection(root)
    assert col.dotenv == {}
    [broken] = col.broken
    assert (broken.path.name, broken.line, broken.column) == (".env", 2, 7)
    assert broken.message == "not a text file (a control character); not read"
    assert not broken.skipped


def test_move_folder_drops_a_stale_entry_of_its_name_in_the_new_order(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "admin/folder.toml", 'name = "Admin"\norder = ["users", "reset"]  # kept\n')
    write(col, "admin/reset.toml", 'name = "Reset"\n')
    loaded = load_collection(col)
    move_folder(loaded, loaded.find_folder("users"), loaded.find_folder("admin"))
    assert load_collection(col).find_folder("admin").order == ["reset", "users"]
    assert "# kept" in (col / "admin/folder.toml").read_text(encoding="utf-8")
