"""Users' TOML is kept as they wrote it (DESIGN §2): an unchanged save is byte for byte the file,
a change to one field is a diff of that field's lines, for every kind of file Pigeon writes."""

from __future__ import annotations

import difflib
import shutil
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pigeon import store
from pigeon.config import AppConfig, TrustStore
from pigeon.model import Header
from pigeon.store import (
    load_collection,
    save_collection_file,
    save_environment,
    save_folder_file,
    save_request,
)

DEMO = Path(__file__).resolve().parents[2] / "collections" / "demo"

REQUEST = """\
# A request written by hand, with comments everywhere.
name = "Create user"   # shown in the tree
method = "POST"
url = "{{base_url}}/users"  # trailing note
description = '''
Makes a user.
Two lines.
'''
x-owner = "team-a"          # an unknown key: kept

[variables]  # request scope
page = 2
opts = { expand = true, depth = 3 }   # inline table
tags = [
  "a",  # first
  "b",
]
when = 2024-01-02T03:04:05.678Z
big = 123456789012345678901234567890
literal = 'C:\\path\\no escapes'
ratio = 0.1

# the headers, in order
[[headers]]
name = "X-Api-Key"  # the key
value = "{{creds.key}}"

[[headers]]
name = "X-Trace"
value = "on"
enabled = true   # written although it is the default

[[query]]
name = "q"
value = "{{search}}"

[body]
type = "json"
content = '''
{"name": "{{user.name}}", "age": {{user.age}}}
'''

[auth]
type = "bearer"
token = "{{token}}"

[scripts]
pre_request = '''
pigeon.setVar("created", datetime.now(timezone.utc))
'''

[settings]
timeout = 12.5

[plugin.extra]   # an unknown table: kept
enabled = true
"""

FOLDER = """\
# the users folder
name = "Users"
order = [
  "create-user",  # first
  "list-users",
]

[variables]
limit = 10  # per page

[[headers]]
name = "Accept"
value = "application/json"
"""

COLLECTION = """\
# The collection
name = "Shop"
default_environment = "local"  # chosen at start

[variables]
base_url = "http://127.0.0.1:8000"
user = { id = 7, name = "Ada" }

[auth]
type = "api_key"
key = "X-Key"
value = "{{$env.KEY}}"
"""

ENVIRONMENT = """\
# staging
[variables]
base_url = "https://staging.example"  # the staging host
launched = 2024-05-01
"""


@pytest.fixture
def col(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "users").mkdir(parents=True)
    (root / "environments").mkdir()
    (root / "collection.toml").write_text(COLLECTION, encoding="utf-8")
    (root / "users" / "folder.toml").write_text(FOLDER, encoding="utf-8")
    (root / "users" / "create-user.toml").write_text(REQUEST, encoding="utf-8")
    (root / "users" / "list-users.toml").write_text('name = "List"\nurl = "/u"\n', "utf-8")
    (root / "environments" / "staging.toml").write_text(ENVIRONMENT, encoding="utf-8")
    return root


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines taken out of ``before`` and put into ``after``."""
    gone, added = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            gone.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return gone, added


def folders_of(col) -> list:
    """Every folder of a loaded collection, outer first."""
    seen: dict[int, object] = {}
    for chain, _ in col.walk():
        for folder in chain:
            seen.setdefault(id(folder), folder)
    return list(seen.values())


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.toml"))}


# -- no change, no byte changed ------------------------------------------------------------------


def test_saving_every_file_unchanged_changes_no_byte(col: Path) -> None:
    before = snapshot(col)
    loaded = load_collection(col)
    assert loaded.broken == []
    save_collection_file(loaded)
    for folder in folders_of(loaded):
        save_folder_file(folder)
    for _, request in loaded.walk():
        save_request(request)
    for env in loaded.environments.values():
        save_environment(env)
    assert snapshot(col) == before


def test_the_demo_collection_saves_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    before = snapshot(root)
    loaded = load_collection(root)
    assert loaded.broken == []
    save_collection_file(loaded)
    for folder in folders_of(loaded):
        if folder.has_file:
            save_folder_file(folder)
    for _, request in loaded.walk():
        save_request(request)
    for env in loaded.environments.values():
        save_environment(env)
    assert snapshot(root) == before


def test_an_unchanged_save_does_not_even_touch_the_file(col: Path) -> None:
    path = col / "users" / "create-user.toml"
    stamp = path.stat().st_mtime_ns
    request = load_collection(col).find("users/create-user")[1]
    save_request(request)
    assert path.stat().st_mtime_ns == stamp


# -- one field changed, one field's lines changed ----------------------------------------------


def request_of(col: Path):
    return load_collection(col).find("users/create-user")[1]


@pytest.mark.parametrize(
    ("change", "gone", "added"),
    [
        (
            lambda r: setattr(r, "url", "{{base_url}}/people"),
            ['url = "{{base_url}}/users"  # trailing note'],
            ['url = "{{base_url}}/people"  # trailing note'],
        ),
        (
            lambda r: r.variables.__setitem__("page", 3),
            ["page = 2"],
            ["page = 3"],
        ),
        (
            lambda r: r.variables["opts"].__setitem__("depth", 4),
            ["opts = { expand = true, depth = 3 }   # inline table"],
            ["opts = { expand = true, depth = 4 }   # inline table"],
        ),
        (
            lambda r: r.headers[0].__setattr__("value", "{{creds.other}}"),
            ['value = "{{creds.key}}"'],
            ['value = "{{creds.other}}"'],
        ),
        (
            lambda r: setattr(
                r.body, "content", '{"name": "{{user.name}}", "age": {{user.age}}, "x": 1}\n'
            ),
            ['{"name": "{{user.name}}", "age": {{user.age}}}'],
            ['{"name": "{{user.name}}", "age": {{user.age}}, "x": 1}'],
        ),
        (
            lambda r: setattr(r.settings, "timeout", 30.0),  # back to the default: line goes
            ["[settings]", "timeout = 12.5", ""],
            [],
        ),
        (
            lambda r: setattr(r, "method", "PUT"),
            ['method = "POST"'],
            ['method = "PUT"'],
        ),
    ],
    ids=["url", "variable", "inline-table-key", "header", "body-line", "default", "method"],
)
def test_changing_one_field_changes_only_its_lines(col: Path, change, gone, added) -> None:
    path = col / "users" / "create-user.toml"
    before = path.read_text(encoding="utf-8")
    request = request_of(col)
    change(request)
    save_request(request)
    after = path.read_text(encoding="utf-8")
    assert changed_lines(before, after) == (gone, added)
    assert request_of(col) == request


def test_a_new_header_adds_its_own_lines_and_every_comment_stays(col: Path) -> None:
    path = col / "users" / "create-user.toml"
    before = path.read_text(encoding="utf-8")
    request = request_of(col)
    request.headers.append(Header("X-New", "1"))
    save_request(request)
    after = path.read_text(encoding="utf-8")
    gone, added = changed_lines(before, after)
    assert gone == []
    assert [line for line in added if line] == ["[[headers]]", 'name = "X-New"', 'value = "1"']
    assert request_of(col) == request


def test_removing_a_header_removes_only_its_lines(col: Path) -> None:
    path = col / "users" / "create-user.toml"
    before = path.read_text(encoding="utf-8")
    request = request_of(col)
    del request.headers[1]
    save_request(request)
    gone, added = changed_lines(before, path.read_text(encoding="utf-8"))
    assert added == []
    assert [line for line in gone if line] == [
        "[[headers]]",
        'name = "X-Trace"',
        'value = "on"',
        "enabled = true   # written although it is the default",
    ]


def test_a_folder_variable_change_keeps_the_folder_file_as_written(col: Path) -> None:
    path = col / "users" / "folder.toml"
    before = path.read_text(encoding="utf-8")
    loaded = load_collection(col)
    folder = loaded.find_folder("users")
    folder.variables["limit"] = 20
    save_folder_file(folder)
    assert changed_lines(before, path.read_text(encoding="utf-8")) == (
        ["limit = 10  # per page"],
        ["limit = 20  # per page"],
    )


def test_a_collection_change_keeps_the_inline_table(col: Path) -> None:
    path = col / "collection.toml"
    before = path.read_text(encoding="utf-8")
    loaded = load_collection(col)
    loaded.variables["user"]["name"] = "Grace"
    save_collection_file(loaded)
    assert changed_lines(before, path.read_text(encoding="utf-8")) == (
        ['user = { id = 7, name = "Ada" }'],
        ['user = { id = 7, name = "Grace" }'],
    )


def test_an_environment_change_keeps_its_comments(col: Path) -> None:
    path = col / "environments" / "staging.toml"
    before = path.read_text(encoding="utf-8")
    env = load_collection(col).environments["staging"]
    env.variables["base_url"] = "https://staging2.example"
    save_environment(env)
    assert changed_lines(before, path.read_text(encoding="utf-8")) == (
        ['base_url = "https://staging.example"  # the staging host'],
        ['base_url = "https://staging2.example"  # the staging host'],
    )


def test_a_renamed_request_keeps_every_other_byte(col: Path) -> None:
    loaded = load_collection(col)
    request = loaded.find("users/create-user")[1]
    store.rename_request(loaded, request, "Make user")
    after = (col / "users" / "make-user.toml").read_text(encoding="utf-8")
    assert changed_lines(REQUEST, after) == (
        ['name = "Create user"   # shown in the tree'],
        ['name = "Make user"   # shown in the tree'],
    )


# -- the user's own settings files ---------------------------------------------------------------


def test_config_saves_unchanged_byte_for_byte_and_one_setting_on_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = (
        "# mine\n"
        'theme = "pigeon-nord"   # calm\n'
        "history_keep = 50\n"
        "\n"
        "[keys]  # remaps\n"
        'send = "ctrl+r,f9"\n'
        "extra_thing = { a = 1 }  # unknown: kept\n"
    )
    path.write_text(text, encoding="utf-8")
    cfg = AppConfig.load(path)
    cfg.save()
    assert path.read_text(encoding="utf-8") == text
    cfg.history_keep = 70
    cfg.save()
    assert changed_lines(text, path.read_text(encoding="utf-8")) == (
        ["history_keep = 50"],
        ["history_keep = 70"],
    )


def test_the_trust_list_keeps_the_users_notes(tmp_path: Path) -> None:
    path = tmp_path / "trusted.toml"
    text = (
        "# my trusted work\n"
        "[[collections]]\n"
        'path = "/work/a"  # the shop API\n'
        "trusted_at = 2024-01-02T03:04:05Z\n"
    )
    path.write_text(text, encoding="utf-8")
    trust = TrustStore(path)
    trust.trust(tmp_path)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(text)
    gone, added = changed_lines(text, after)
    assert gone == [] and f'path = "{tmp_path.resolve()}"' in added
    assert trust.revoke(tmp_path)
    assert path.read_text(encoding="utf-8").rstrip("\n") == text.rstrip("\n")


# -- new files ---------------------------------------------------------------------------------


def test_a_new_request_is_written_in_the_readable_layout(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    loaded = load_collection(root)
    request = store.create_request(loaded, None, "Create user", "POST")
    request.body.type = "json"
    request.body.content = '{\n  "name": "Ada"\n}\n'
    request.scripts.post_response = "assert pigeon.response.status == 201\n"
    request.variables["user"] = {"id": 1}
    save_request(request)
    assert request.path is not None
    assert request.path.read_text(encoding="utf-8") == (
        'name = "Create user"\n'
        'method = "POST"\n'
        'url = ""\n'
        "\n"
        "[variables.user]\n"
        "id = 1\n"
        "\n"
        "[body]\n"
        'type = "json"\n'
        "content = '''\n"
        "{\n"
        '  "name": "Ada"\n'
        "}\n"
        "'''\n"
        "\n"
        "[scripts]\n"
        "post_response = '''\n"
        "assert pigeon.response.status == 201\n"
        "'''\n"
    )


# -- generated values ----------------------------------------------------------------------------

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_leaf = st.one_of(
    _text,
    st.integers(min_value=-(2**100), max_value=2**100),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.dates(min_value=date(1, 1, 1)),
    st.datetimes(timezones=st.just(timezone.utc)).map(lambda d: d.replace(microsecond=0)),
    st.datetimes().map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)),
)
_name = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,12}", fullmatch=True)
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_text.filter(bool), inner, max_size=4)
    ),
    max_leaves=12,
)


def _same(a, b) -> bool:
    from pigeon.tomltext import same

    return same(a, b)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=_name, value=_value)
def test_any_value_saves_and_loads_back_as_it_was(tmp_path: Path, name: str, value) -> None:
    root = tmp_path / "gen"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "r.toml").write_text(REQUEST, encoding="utf-8")
    request = load_collection(root).find("r")[1]
    request.variables[name] = value
    save_request(request)
    again = load_collection(root).find("r")[1]
    assert _same(again.variables[name], value)
    assert again.headers == request.headers and again.body == request.body


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=_value)
def test_changing_one_variable_changes_only_its_lines(tmp_path: Path, value) -> None:
    root = tmp_path / "one"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    text = '# head\nname = "R"\n\n[variables]\nkeep = 1  # stays\nv = "old"  # changes\nlast = 2\n'
    (root / "r.toml").write_text(text, encoding="utf-8")
    request = load_collection(root).find("r")[1]
    request.variables["v"] = value
    save_request(request)
    after = (root / "r.toml").read_text(encoding="utf-8")
    gone, _ = changed_lines(text, after)
    assert gone == ['v = "old"  # changes']
    for line in ("# head", 'name = "R"', "keep = 1  # stays", "last = 2"):
        assert line in after.splitlines()
    assert _same(load_collection(root).find("r")[1].variables["v"], value)


def test_dates_keep_their_kind() -> None:
    assert _same(
        datetime(2024, 1, 2, tzinfo=timezone.utc), datetime(2024, 1, 2, tzinfo=timezone.utc)
    )
    assert not _same(datetime(2024, 1, 2), datetime(2024, 1, 2, tzinfo=timezone.utc))
    assert not _same(1, 1.0) and not _same(True, 1)


@pytest.mark.parametrize(
    "text", ["\nstarts with a newline\n", "ends with a quote'", "a '''x''' b\n", "tab\tand\x01"]
)
def test_a_literal_block_keeps_any_text_exactly(tmp_path: Path, text: str) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "r.toml").write_text(
        "name = 'R'\n[body]\ntype = 'text'\ncontent = '''x'''\n", encoding="utf-8"
    )
    request = load_collection(root).find("r")[1]
    request.body.content = text
    save_request(request)
    assert load_collection(root).find("r")[1].body.content == text
