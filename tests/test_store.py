"""The TOML store: loading, round trips, broken files, atomic and refusing saves, file helpers."""

from __future__ import annotations

import difflib
import math
import os
import shutil
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pigeon.model import (
    Auth,
    Body,
    Collection,
    Environment,
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
    atomic_write,
    create_environment,
    create_folder,
    create_request,
    delete_folder,
    delete_request,
    duplicate_folder,
    duplicate_request,
    folder_contents,
    load_collection,
    move_folder,
    move_request,
    rename_folder,
    rename_request,
    request_from_toml,
    request_to_toml,
    save_collection_file,
    save_environment,
    save_folder_file,
    save_request,
    slugify,
    title_from_stem,
)
from pigeon.values import kind_of

DEMO = Path(__file__).resolve().parents[1] / "collections" / "demo"

FULL_REQUEST = """\
name = "Create user"
method = "POST"
url = "{{base_url}}/users/{{user.id}}?expand={{opts.expand}}"
description = '''
Creates a user.
Second line.
'''
future_key = "kept"

[variables]
page = 2
ratio = 0.5
on = true
when = 2024-01-02T03:04:05.678Z
local_when = 2024-01-02T03:04:05
day = 2024-01-02
big = 9007199254740993
user = { id = 7, address = { city = "London" }, "key with spaces" = 1 }
items = [{ id = 1 }, { id = 2 }]
"api.version" = "v1"

[[headers]]
name = "X-Api-Key"
value = "{{creds.key}}"

[[headers]]
name = "X-Api-Secret"
value = "{{creds.secret}}"
enabled = false
note = "unknown inside a header"

[[query]]
name = "q"
value = "{{search}}"

[[query]]
name = "off"
enabled = false

[body]
type = "multipart"
content = '''
{"name": "{{user.name}}", "age": {{user.age}}}
'''
encoding = "unknown inside body"

[[body.fields]]
name = "title"
value = "hello"

[[body.fields]]
name = "upload"
value = "data/file.bin"
kind = "file"
content_type = "application/octet-stream"
enabled = false

[auth]
type = "api_key"
key = "X-Key"
value = "{{creds.key}}"
location = "query"
realm = "unknown inside auth"

[scripts]
pre_request = '''
pigeon.setVar("created", datetime.now(timezone.utc))
'''
post_response = '''
pigeon.setVar("user_id", pigeon.response.json()["id"])
'''
language = "python"

[settings]
timeout = 12.5
follow_redirects = false
verify_tls = false
http2 = true

[plugin]
enabled = true
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def col(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "Test"\n[variables]\nbase_url = "http://127.0.0.1:9"\n')
    write(root, "users/create.toml", FULL_REQUEST)
    write(root, "ping.toml", 'name = "Ping"\nurl = "{{base_url}}/ping"\n')
    return root


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
        extra={"realm": "unknown inside auth"},
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


# -- round trips ---------------------------------------------------------------------------


def test_load_save_load_is_identical_and_a_second_save_is_byte_identical(col: Path) -> None:
    first = load_collection(col)
    req = first.find("users/create")[1]
    original = (col / "users/create.toml").read_bytes()
    save_request(req)
    written = (col / "users/create.toml").read_bytes()
    assert written != original  # comments/layout normalised, content not
    second = load_collection(col)
    assert second == first
    save_request(second.find("users/create")[1])
    assert (col / "users/create.toml").read_bytes() == written


def full_model() -> Request:
    return Request(
        name="Everything",
        method="PATCH",
        url="{{base_url}}/x",
        description="one line",
        variables={
            "s": "text with \"quotes\" and 'single'",
            "n": -3,
            "f": 1e21,
            "b": False,
            "d": datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=timezone(timedelta(hours=2))),
            "ld": date(2020, 2, 29),
            "o": {"deep": {"er": [1, {"x": "y"}]}, "k y": "v"},
            "a": [],
            "multi": "line one\nline two",
        },
        headers=[Header("A", "1", extra={"meta": {"source": "x"}, "tags": [{"t": 1}]})],
        query=[QueryParam("q", "a b", False, {"style": "form"})],
        body=Body("form", "", [FormField("f", "v", True, "text", "", {"x": 1})], {"y": 2}),
        auth=Auth("basic", username="u", password="{{$env.PW}}", extra={"z": [1, 2]}),
        scripts=Scripts("print(1)\n", "x = '''\n", {"lang": "py"}),
        settings=Settings(5.0, True, False, {"retries": 3}),
        extra={"top": 1, "tbl": {"k": "v"}, "aot": [{"a": 1}, {"b": 2}]},
    )


def test_model_to_toml_and_back_keeps_every_field() -> None:
    req = full_model()
    text = request_to_toml(req)
    back = request_from_toml(text)
    assert back == req
    assert request_to_toml(back) == text


def test_key_order_is_stable_and_known_keys_come_first() -> None:
    text = request_to_toml(full_model())
    marks = [
        "name =", "method =", "url =", "description =", "top = 1", "[variables]",
        "[[headers]]", "[[query]]", "[body]", "[[body.fields]]", "[auth]", "[scripts]",
        "[settings]", "[tbl]",
    ]  # fmt: skip
    positions = [text.index(m) for m in marks]
    assert positions == sorted(positions)


def test_defaults_are_omitted() -> None:
    text = request_to_toml(
        Request(name="Ping", url="http://127.0.0.1/", headers=[Header("A", "1")],
                body=Body("json", "{}"))
    )  # fmt: skip
    assert text == (
        'name = "Ping"\nmethod = "GET"\nurl = "http://127.0.0.1/"\n\n'
        '[[headers]]\nname = "A"\nvalue = "1"\n\n[body]\ntype = "json"\ncontent = \'{}\'\n'
    )
    assert "enabled" not in text and "settings" not in text and "auth" not in text


def test_auth_none_is_written_so_it_still_disables_inherited_auth() -> None:
    text = request_to_toml(Request(name="x", auth=Auth("none")))
    assert '[auth]\ntype = "none"\n' in text
    assert request_from_toml(text).auth == Auth("none")


def test_body_and_scripts_are_multiline_literals_and_one_change_is_one_line(tmp_path: Path) -> None:
    body = (
        "{\n" + "".join(f'  "field{i}": "{{{{v{i}}}}}",\n' for i in range(20)) + '  "end": 1\n}\n'
    )
    req = Request(name="Big", method="POST", body=Body("json", body),
                  scripts=Scripts(pre_request='a = "x"\nb = 2\n'))  # fmt: skip
    path = tmp_path / "big.toml"
    save_request(req, path)
    before = path.read_text()
    assert "content = '''\n{\n" in before and '\\"' not in before
    assert "pre_request = '''\na = \"x\"\nb = 2\n'''" in before

    req = request_from_toml(before, path)
    req.body.content = req.body.content.replace('"field7": "{{v7}}"', '"field7": "{{other}}"')
    save_request(req)
    diff = [
        line
        for line in difflib.unified_diff(before.splitlines(), path.read_text().splitlines(), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == ['-  "field7": "{{v7}}",', '+  "field7": "{{other}}",']


@pytest.mark.parametrize(
    "content",
    [
        "ends with a quote'",
        "has ''' inside\nand more",
        "windows\r\nlines\r\n",
        "a lone \r carriage return",
        "control \x01 char\n",
        "tab\tand 'single' quotes",
        "\nstarts with a newline\n",
        "",
        "'''",
        'back\\slash "and" quotes\n',
    ],
)
def test_awkward_text_blocks_round_trip_exactly(content: str) -> None:
    req = Request(name="t", body=Body("text", content), scripts=Scripts(content, content))
    back = request_from_toml(request_to_toml(req))
    assert back.body.content == content and back.scripts.post_response == content


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_any_text_block_round_trips(content: str) -> None:
    req = Request(name="t", description=content, body=Body("json", content))
    back = request_from_toml(request_to_toml(req))
    assert back.body.content == content and back.description == content


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
        ('name = "x"\n[body]\ntype = "graphql"\n', 3, 1, ["body.type", "'graphql'", "json"]),
        ('name = "x"\n[auth]\ntype = "digest"\n', 3, 1, ["auth.type", "bearer"]),
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


# -- saving safely ----------------------------------------------------------------------------


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = write(tmp_path, "a.toml", "old\n")
    os.chmod(target, 0o640)
    atomic_write(target, "new\n")
    assert target.read_text() == "new\n" and temp_files(tmp_path) == []
    assert target.stat().st_mode & 0o777 == 0o640  # permissions kept


def test_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = write(tmp_path, "a.toml", "old\n")
    with pytest.raises(TypeError):
        atomic_write(target, object())  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.toml"]


def test_unwritable_value_refuses_the_save_and_touches_nothing(col: Path) -> None:
    loaded = load_collection(col)
    req = loaded.find("users/create")[1]
    path = req.path
    before = path.read_bytes()
    req.variables["obj"] = object()
    with pytest.raises(SaveError, match="not TOML serializable"):
        save_request(req)
    req.variables["obj"] = {"inner": [1, None]}
    with pytest.raises(SaveError, match=r"variables\.obj\.inner\[1\]: null"):
        save_request(req)
    req.variables["obj"] = math.inf
    with pytest.raises(SaveError, match="finite"):
        save_request(req)
    del req.variables["obj"]
    req.variables["bad name"] = 1
    with pytest.raises(SaveError, match="bad name"):
        save_request(req)
    assert path.read_bytes() == before and temp_files(path.parent) == []


def test_save_request_to_a_new_path_and_without_a_path(tmp_path: Path) -> None:
    req = Request(name="N")
    with pytest.raises(SaveError, match="no file"):
        save_request(req)
    for wrong in ("collection.toml", "folder.toml", "notes.txt"):
        with pytest.raises(SaveError, match="not a request file name"):
            save_request(req, tmp_path / wrong)
    written = save_request(req, tmp_path / "sub" / "n.toml")
    assert written == req.path and request_from_toml(written.read_text()).name == "N"


def test_environment_save_and_create(col: Path) -> None:
    loaded = load_collection(col)
    env = create_environment(loaded, "dev")
    assert env.path == col / "environments/dev.toml" and loaded.environments["dev"] is env
    env.variables["base_url"] = "http://127.0.0.1:8000"
    env.variables["when"] = datetime(2024, 1, 1, tzinfo=timezone.utc)
    save_environment(env)
    again = load_collection(col).environments["dev"]
    assert again == env
    with pytest.raises(SaveError, match="already exists"):
        create_environment(loaded, "dev")
    other = Environment("qa", {"x": 1})
    save_environment(other, root=col)
    assert load_collection(col).environments["qa"].variables == {"x": 1}


# -- file helpers ----------------------------------------------------------------------------


def test_slugify() -> None:
    assert slugify("Create User!") == "create-user"
    assert slugify("  Ünïcödé  name ") == "unicode-name"
    assert slugify("???") == ""


def test_create_request_never_overwrites(col: Path) -> None:
    loaded = load_collection(col)
    folder = loaded.find_folder("users")
    existing = write(col, "users/new-thing.toml", 'name = "Already here"\n')
    req = create_request(loaded, folder, "New thing", method="POST")
    assert req.path == col / "users/new-thing-2.toml" and req.id == "users/new-thing-2"
    assert existing.read_text() == 'name = "Already here"\n'
    assert req in folder.items
    assert load_collection(col).find("users/new-thing-2")[1].method == "POST"
    reserved = create_request(loaded, None, "Collection")
    assert reserved.path.name == "collection-2.toml"
    assert (col / "collection.toml").read_text().startswith('name = "Test"')
    top = create_request(loaded, None, "Users")  # a folder of that name exists
    assert top.path.name == "users-2.toml"


def test_create_folder_and_delete_request(col: Path) -> None:
    loaded = load_collection(col)
    folder = create_folder(loaded, None, "Admin Tools")
    assert folder.path == col / "admin-tools" and (folder.path / "folder.toml").is_file()
    inner = create_request(loaded, folder, "Reset")
    reloaded = load_collection(col)
    assert reloaded.find_folder("admin-tools").name == "Admin Tools"
    assert reloaded.find("admin-tools/reset") is not None
    again = create_folder(loaded, None, "Admin tools")
    assert again.path.name == "admin-tools-2"
    delete_request(loaded, inner)
    assert not inner.path.exists() and inner not in folder.items
    assert load_collection(col).find("admin-tools/reset") is None


def test_rename_request_keeps_unsaved_edits_unsaved_and_never_overwrites(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    loaded = load_collection(col)
    taken = write(col, "pong.toml", 'name = "Taken"\n')
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    ping.url = "unsaved edit"
    rename_request(loaded, ping, "Pong")
    assert ping.path == col / "pong-2.toml" and ping.id == "pong-2" and ping.name == "Pong"
    assert not (col / "ping.toml").exists() and taken.read_text() == 'name = "Taken"\n'
    on_disk = load_collection(col)
    assert on_disk.find("pong-2")[1].url == "{{base_url}}/ping"
    assert on_disk.order == ["users", "pong-2"]
    assert [getattr(i, "id", None) for i in on_disk.items][:2] == ["users", "pong-2"]
    # Renaming to a name with the same slug only rewrites the name.
    rename_request(loaded, ping, "PONG 2")
    assert ping.path == col / "pong-2.toml"
    assert load_collection(col).find("pong-2")[1].name == "PONG 2"


def test_rename_of_a_request_never_saved_writes_it_under_the_new_name(col: Path) -> None:
    loaded = load_collection(col)
    req = Request(name="Draft", url="u", path=col / "draft.toml", id="draft")
    loaded.items.append(req)
    rename_request(loaded, req, "Final")
    assert req.path == col / "final.toml" and req.id == "final"
    assert load_collection(col).find("final")[1].url == "u" and not (col / "draft.toml").exists()


def test_rename_refuses_when_the_file_on_disk_is_broken(col: Path) -> None:
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    ping.path.write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_request(loaded, ping, "Pong")
    assert ping.path.read_text() == "name = \n" and not (col / "pong.toml").exists()


def test_move_request_between_folders(col: Path) -> None:
    write(col, "users/ping.toml", 'name = "Other ping"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    ping = loaded.find("ping")[1]
    move_request(loaded, ping, users)
    assert ping.path == col / "users/ping-2.toml" and ping.id == "users/ping-2"
    assert (col / "users/ping.toml").read_text() == 'name = "Other ping"\n'
    assert not (col / "ping.toml").exists() and ping in users.items
    assert ping not in loaded.items
    reloaded = load_collection(col)
    assert reloaded.find("users/ping-2")[1].name == "Ping"
    move_request(loaded, ping, None)  # the stem it has now is free at the top level
    assert ping.path == col / "ping-2.toml" and load_collection(col).find("ping-2") is not None


# A collection and a folder file with comments and an order list: every request operation
# edits ``order`` where it stands and leaves every other line as it was.
COMMENTED_COLLECTION = """\
# The test API.
name = "Test"  # shown in the tree
order = ["users", "ping", "zeta"]  # by hand

[variables]
base_url = "http://127.0.0.1:9"  # the echo server
"""
COMMENTED_FOLDER = """\
# Everything about users.
name = "Users"
order = ["create", "list"]  # the usual flow
"""


@pytest.fixture(name="commented")
def commented_fixture(col: Path) -> Path:
    write(col, "collection.toml", COMMENTED_COLLECTION)
    write(col, "users/folder.toml", COMMENTED_FOLDER)
    write(col, "users/list.toml", 'name = "List"\n')
    write(col, "zeta.toml", 'name = "Zeta"\n')
    return col


def with_order(text: str, old: str, new: str) -> str:
    """``text`` with only its order line's list changed."""
    assert text.count(old) == 1
    return text.replace(old, new)


def test_rename_request_edits_the_order_and_its_file_in_place(commented: Path) -> None:
    col = commented
    write(col, "ping.toml", '# Health check.\nname = "Ping"  # short\nurl = "{{base_url}}/p"\n')
    loaded = load_collection(col)
    rename_request(loaded, loaded.find("ping")[1], "Pong")
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "pong", "zeta"'
    )
    assert (col / "pong.toml").read_text() == (
        '# Health check.\nname = "Pong"  # short\nurl = "{{base_url}}/p"\n'
    )
    assert loaded.order == ["users", "pong", "zeta"] == load_collection(col).order
    users = loaded.find_folder("users")
    rename_request(loaded, users.items[0], "Make")
    assert users.items[0].path == col / "users/make.toml"
    assert (col / "users/folder.toml").read_text() == with_order(
        COMMENTED_FOLDER, '"create", "list"', '"make", "list"'
    )
    assert [r.id for r in load_collection(col).find_folder("users").items] == [
        "users/make",
        "users/list",
    ]


def test_rename_request_keeps_the_form_of_its_entry_and_a_folder_of_the_same_stem(
    col: Path,
) -> None:
    write(col, "collection.toml", '# c\norder = ["users", "ping.toml"]  # o\n')
    write(col, "users.toml", 'name = "Users request"\n')
    loaded = load_collection(col)
    rename_request(loaded, loaded.find("ping")[1], "Pong")
    rename_request(loaded, loaded.find("users")[1], "Accounts")
    # "users" also places the folder users/: it stays, the request's new entry follows it.
    assert (col / "collection.toml").read_text() == (
        '# c\norder = ["users", "accounts", "pong.toml"]  # o\n'
    )
    assert [getattr(i, "id", None) for i in load_collection(col).items] == [
        "users",
        "accounts",
        "pong",
    ]


def test_move_request_updates_both_orders_in_place(commented: Path) -> None:
    col = commented
    write(col, "admin/folder.toml", "# no order here\n")
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    create = users.items[0]
    move_request(loaded, create, None)
    assert (col / "users/folder.toml").read_text() == with_order(
        COMMENTED_FOLDER, '"create", "list"', '"list"'
    )
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "ping", "zeta", "create"'
    )
    assert users.order == ["list"] and loaded.order == ["users", "ping", "zeta", "create"]
    reloaded = load_collection(col)
    assert [getattr(i, "id", None) for i in reloaded.items] == [
        "users",
        "ping",
        "zeta",
        "create",
        "admin",
    ]
    # Into a folder without an order list: none is started, and its file is left alone.
    move_request(loaded, create, loaded.find_folder("admin"))
    assert (col / "admin/folder.toml").read_text() == "# no order here\n"
    assert load_collection(col).order == ["users", "ping", "zeta"]
    # A name left over in the new list, for a file no longer there, does not place it first.
    write(col, "users/folder.toml", '# Users\norder = ["create", "list"]\n')
    loaded = load_collection(col)
    move_request(loaded, loaded.find("admin/create")[1], loaded.find_folder("users"))
    move_request(loaded, loaded.find("ping")[1], loaded.find_folder("users"))
    assert (
        col / "users/folder.toml"
    ).read_text() == '# Users\norder = ["list", "create", "ping"]\n'
    assert load_collection(col).order == ["users", "zeta"]


def test_duplicate_request_copies_its_file_and_lists_the_copy_after_it(commented: Path) -> None:
    col = commented
    original = '# Health check.\nname = "Ping"  # short\nurl = "{{base_url}}/p"\n'
    write(col, "ping.toml", original)
    write(col, "ping-copy.toml", 'name = "Ping copy"\n')  # its name and its file are taken
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    copied = duplicate_request(loaded, ping)
    assert copied.name == "Ping copy 2" and copied.path == col / "ping-copy-2.toml"
    assert copied.id == "ping-copy-2" and copied in loaded.items
    assert copied.path.read_text() == original.replace('"Ping"', '"Ping copy 2"')
    assert (col / "ping.toml").read_text() == original
    assert (col / "ping-copy.toml").read_text() == 'name = "Ping copy"\n'
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "ping", "ping-copy-2", "zeta"'
    )
    assert [getattr(i, "id", None) for i in loaded.items][:4] == [
        "users",
        "ping",
        "ping-copy-2",
        "zeta",
    ]
    # A request the order does not list: the copy is not listed either.
    users = loaded.find_folder("users")
    write(col, "users/other.toml", 'name = "Other"\n')
    other = load_collection(col).find("users/other")[1]
    users.items.append(other)
    duplicate_request(loaded, other)
    assert (col / "users/folder.toml").read_text() == COMMENTED_FOLDER
    assert load_collection(col).find("users/other-copy")[1].name == "Other copy"


def test_delete_request_forgets_it_in_the_order_in_place(commented: Path) -> None:
    col = commented
    loaded = load_collection(col)
    delete_request(loaded, loaded.find("ping")[1])
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "zeta"'
    )
    assert loaded.order == ["users", "zeta"]
    # A folder file that no longer loads is never rewritten: the request stays.
    (col / "users/folder.toml").write_text("order = \n")
    create = loaded.find("users/create")[1]
    with pytest.raises(SaveError, match="not deleted"):
        delete_request(loaded, create)
    assert create.path.is_file() and (col / "users/folder.toml").read_text() == "order = \n"


def test_request_operations_refuse_a_broken_order_file_before_changing_anything(
    commented: Path,
) -> None:
    col = commented
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    (col / "collection.toml").write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_request(loaded, ping, "Pong")
    with pytest.raises(SaveError, match="not moved"):
        move_request(loaded, ping, loaded.find_folder("users"))
    with pytest.raises(SaveError, match="not duplicated"):
        duplicate_request(loaded, ping)
    assert sorted(p.name for p in col.glob("*.toml")) == [
        "collection.toml",
        "ping.toml",
        "zeta.toml",
    ]
    assert ping.path == col / "ping.toml" and not (col / "users/ping.toml").exists()
    assert (col / "collection.toml").read_text() == "name = \n"


# -- folder helpers --------------------------------------------------------------------------


def files_under(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def hidden_leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


def test_rename_folder_renames_its_directory_and_edits_files_in_place(col: Path) -> None:
    write(
        col, "collection.toml", '# the API\nname = "Test"\norder = [\n  "users/",\n  "ping",\n]\n'
    )
    write(col, "users/folder.toml", '# kept\nname = "Users"  # kept too\n[variables]\nx = 1\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    rename_folder(loaded, users, "People")
    assert users.path == col / "people" and users.id == "people" and users.name == "People"
    assert [r.id for r in users.items] == ["people/create"]
    assert users.items[0].path == col / "people/create.toml"
    assert not (col / "users").exists()
    assert (col / "people/folder.toml").read_text() == (
        '# kept\nname = "People"  # kept too\n[variables]\nx = 1\n'
    )
    assert (col / "collection.toml").read_text() == (
        '# the API\nname = "Test"\norder = ["people", "ping"]\n'
    )
    reloaded = load_collection(col)
    assert reloaded.order == loaded.order == ["people", "ping"]
    assert reloaded.find_folder("people").variables == {"x": 1}
    assert [getattr(i, "id", None) for i in reloaded.items] == ["people", "ping"]
    # A name with the same slug keeps the directory; a taken one gets a free name.
    rename_folder(loaded, users, "PEOPLE")
    assert users.path == col / "people" and load_collection(col).find_folder("people").name == (
        "PEOPLE"
    )
    taken = write(col, "team/keep.toml", 'name = "Keep"\n')
    rename_folder(loaded, users, "Team")
    assert users.path == col / "team-2" and taken.read_text() == 'name = "Keep"\n'
    assert load_collection(col).order == ["team-2", "ping"]
    rename_folder(loaded, users, "TEAM")  # "team" still taken: "team-2" is right as it is
    assert users.path == col / "team-2"
    shutil.rmtree(col / "team")
    rename_folder(loaded, users, "Team")  # now free: the suffix goes
    assert users.path == col / "team" and load_collection(col).order == ["team", "ping"]


def test_rename_folder_keeps_a_directory_not_named_after_it(col: Path) -> None:
    write(col, "legacy_v1/folder.toml", 'name = "API v1"\n')
    write(col, "legacy_v1/get.toml", 'name = "Get"\n')
    loaded = load_collection(col)
    folder = loaded.find_folder("legacy_v1")
    rename_folder(loaded, folder, "API v2")
    assert folder.path == col / "legacy_v1"
    assert load_collection(col).find_folder("legacy_v1").name == "API v2"


def test_rename_folder_without_a_folder_file(col: Path) -> None:
    write(col, "misc/a.toml", 'name = "A"\n')
    loaded = load_collection(col)
    misc = loaded.find_folder("misc")
    rename_folder(loaded, misc, "Odds and ends")  # the directory alone gives this name
    assert misc.path == col / "odds-and-ends" and not (misc.path / "folder.toml").exists()
    rename_folder(loaded, misc, "ACME")  # it does not give this one: folder.toml keeps it
    assert misc.path == col / "acme" and load_collection(col).find_folder("acme").name == "ACME"


def test_rename_folder_with_a_broken_same_stem_request_and_an_order(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["ping", "users"]\n')
    write(col, "users.toml", 'name = "Users request"\n')
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("users"), "People")
    # "users" also placed the request users.toml: it stays, the folder comes just before it.
    assert load_collection(col).order == ["ping", "people", "users"]


def test_rename_folder_refuses_a_broken_folder_file(col: Path) -> None:
    ffile = write(col, "users/folder.toml", 'name = "Users"\n')
    loaded = load_collection(col)
    ffile.write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_folder(loaded, loaded.find_folder("users"), "People")
    assert ffile.read_text() == "name = \n" and not (col / "people").exists()


def test_rename_folder_never_replaces_a_directory_that_appears(
    col: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pigeon import store

    write(col, "users/folder.toml", 'name = "Users"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    (col / "people").mkdir()  # empty: a plain rename(2) would replace it
    monkeypatch.setattr(store, "_free_stem", lambda *args, **kwargs: "people")
    before = files_under(col / "users")
    with pytest.raises(SaveError, match="not renamed"):
        rename_folder(loaded, users, "People")
    assert files_under(col / "users") == before and list((col / "people").iterdir()) == []
    assert users.path == col / "users" and users.name == "Users"


def test_duplicate_folder_copies_everything_and_never_overwrites(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\n# order\norder = ["users", "ping"]\n')
    write(col, "users/folder.toml", 'name = "Users"\n[variables]\nx = 1\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    write(col, "users/data/upload.bin", "bytes")
    write(col, "users/bad.toml", "name = \n")
    taken = write(col, "users-copy/keep.toml", 'name = "Keep"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    original = files_under(col / "users")
    copied = duplicate_folder(loaded, users)
    # "users-copy" is taken, and shows as "Users copy": the copy's name is unique too.
    assert copied.name == "Users copy 2" and copied.path == col / "users-copy-2"
    assert copied.id == "users-copy-2" and copied in loaded.items
    assert taken.read_text() == 'name = "Keep"\n' and files_under(col / "users") == original
    duplicate = files_under(copied.path)
    assert duplicate.pop("folder.toml") == b'name = "Users copy 2"\n[variables]\nx = 1\n'
    assert duplicate == {k: v for k, v in original.items() if k != "folder.toml"}
    assert {r.id for _, r in loaded.walk()} >= {
        "users-copy-2/create",
        "users-copy-2/inner/deep",
    }
    assert col / "users-copy-2/bad.toml" in [b.path for b in loaded.broken]
    assert (col / "collection.toml").read_text() == (
        'name = "Test"\n# order\norder = ["users", "users-copy-2", "ping"]\n'
    )
    again = duplicate_folder(loaded, users)
    assert again.name == "Users copy 3" and again.path == col / "users-copy-3"
    assert hidden_leftovers(col) == []
    reloaded = load_collection(col)
    assert reloaded.find_folder("users-copy-2").variables == {"x": 1}
    assert reloaded.order == ["users", "users-copy-3", "users-copy-2", "ping"]


def test_move_folder_updates_both_orders_and_refuses_its_own_subfolders(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "admin/folder.toml", 'name = "Admin"\norder = ["reset"]\n')
    write(col, "admin/reset.toml", 'name = "Reset"\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    loaded = load_collection(col)
    users, admin = loaded.find_folder("users"), loaded.find_folder("admin")
    inner = loaded.find_folder("users/inner")
    for wrong in (users, inner):
        with pytest.raises(SaveError, match="into itself"):
            move_folder(loaded, users, wrong)
    assert (col / "users/inner/deep.toml").is_file()
    move_folder(loaded, users, admin)
    assert users.path == col / "admin/users" and users in admin.items and users not in loaded.items
    assert inner.id == "admin/users/inner" and inner.items[0].id == "admin/users/inner/deep"
    reloaded = load_collection(col)
    assert reloaded.order == ["ping"]
    assert reloaded.find_folder("admin").order == ["reset", "users"]
    assert [r.id for r in reloaded.requests()] == [
        "ping",
        "admin/reset",
        "admin/users/create",
        "admin/users/inner/deep",
    ]
    # Back to the top level, where a folder "users" has appeared meanwhile: a free name,
    # and the name it showed (from its directory) is kept in a folder.toml.
    write(col, "users/other.toml", 'name = "Other"\n')
    move_folder(loaded, users, None)
    assert users.path == col / "users-2" and users.name == "Users"
    assert load_collection(col).find_folder("users-2").name == "Users"
    assert load_collection(col).find_folder("admin").order == ["reset"]
    assert move_folder(loaded, users, None) is users and users.path == col / "users-2"


def test_folder_contents_and_delete_folder(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "users/folder.toml", 'name = "Users"\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    write(col, "users/inner/folder.toml", "order = 1\n")
    write(col, "users/bad.toml", "name = \n")
    write(col, "users/notes.md", "notes")
    write(col, "users/.hidden/x.toml", 'name = "x"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    contents = folder_contents(users)
    assert (contents.requests, contents.folders) == (2, 1)
    assert contents.broken == (col / "users/bad.toml", col / "users/inner/folder.toml")
    assert contents.other == (col / "users/.hidden/x.toml", col / "users/notes.md")
    write(col, "users/new.toml", 'name = "New"\n')  # appeared after the question
    with pytest.raises(SaveError, match="changed"):
        delete_folder(loaded, users, contents)
    assert (col / "users/new.toml").is_file()
    delete_folder(loaded, users, folder_contents(users))
    assert not (col / "users").exists() and hidden_leftovers(col) == []
    assert users not in loaded.items and loaded.broken == []
    assert load_collection(col).order == ["ping"] == loaded.order
    assert [r.id for r in load_collection(col).requests()] == ["ping"]


def test_rename_folder_adds_a_missing_name_where_it_belongs(col: Path) -> None:
    write(col, "a/folder.toml", '# about a\norder = ["x"]\n')
    write(col, "b/folder.toml", "# about b\n\n[variables]\nx = 1\n")
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("a"), "A")  # the directory stays "a"
    rename_folder(loaded, loaded.find_folder("b"), "B")
    assert (col / "a/folder.toml").read_text() == '# about a\nname = "A"\norder = ["x"]\n'
    assert (col / "b/folder.toml").read_text() == ('# about b\n\nname = "B"\n[variables]\nx = 1\n')


def test_edit_in_place_falls_back_to_a_rewrite_when_it_cannot_be_checked(col: Path) -> None:
    # A dotted key in the head: an edit in place is not attempted blind, the file is written
    # anew from what is on disk (its comments go, nothing else does).
    write(col, "collection.toml", '# gone\nname = "Test"\nmeta.owner = "me"\norder = ["users"]\n')
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("users"), "People")
    reloaded = load_collection(col)
    assert reloaded.order == ["people"] and reloaded.extra == {"meta": {"owner": "me"}}


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
    assert col.broken == []


def test_move_folder_drops_a_stale_entry_of_its_name_in_the_new_order(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "admin/folder.toml", 'name = "Admin"\norder = ["users", "reset"]  # kept\n')
    write(col, "admin/reset.toml", 'name = "Reset"\n')
    loaded = load_collection(col)
    move_folder(loaded, loaded.find_folder("users"), loaded.find_folder("admin"))
    assert load_collection(col).find_folder("admin").order == ["reset", "users"]
    assert "# kept" in (col / "admin/folder.toml").read_text(encoding="utf-8")
