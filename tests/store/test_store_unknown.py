"""Unknown keys are reported, never silently dropped (DESIGN §2): each one a warning on load
naming its file, line and column, with what it was likely meant to be; still kept on save."""

from __future__ import annotations

from pathlib import Path

from collection_files import write
from pigeon.store import load_collection, save_request

TYPOS = """\
name = "Typos"
urll = "http://127.0.0.1:9/a"
timeout = 3

[body]
type = "text"
text = "hello"

[settings]
timeot = 5
verify_tsl = false

[[headers]]
name = "X-A"
vlaue = "b"

[auth]
type = "bearer"
tokn = "t"
"""

CLEAN = """\
name = "Clean"
url = "http://127.0.0.1:9/{{x}}"

[body]
type = "json"
content = "{}"

[settings]
timeout = 5
connect_timeout = 2

[auth]
type = "oauth2"
grant = "client_credentials"
token_url = "http://127.0.0.1:9/token"

[auth.params]
resource = "anything"

[variables]
anything_goes = { nested = { deep = 1 } }
"""


def test_each_unknown_key_is_a_warning_naming_file_line_column_and_what_it_meant(
    tmp_path: Path,
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\ndescription = "kept from an import"\n')
    write(root, "typos.toml", TYPOS)
    write(root, "clean.toml", CLEAN)
    write(root, "users/folder.toml", 'name = "Users"\nordr = ["a"]\n')
    write(root, "environments/dev.toml", '[variables]\nx = 1\n\n[settings]\nprxy = "http://p"\n')
    col = load_collection(root)
    assert col.broken == []
    got = [(w.path.relative_to(root).as_posix(), w.line, w.column, w.message) for w in col.warnings]
    assert got == [
        ("environments/dev.toml", 5, 1, "unknown key `settings.prxy` is not read (did you mean `proxy`?)"),
        ("typos.toml", 2, 1, "unknown key `urll` is not read (did you mean `url`?)"),
        ("typos.toml", 3, 1, "unknown key `timeout` is not read (did you mean `settings.timeout`?)"),
        ("typos.toml", 7, 1, "unknown key `body.text` is not read (did you mean `content`?)"),
        ("typos.toml", 10, 1, "unknown key `settings.timeot` is not read (did you mean `timeout`?)"),
        ("typos.toml", 11, 1, "unknown key `settings.verify_tsl` is not read (did you mean `verify_tls`?)"),
        ("typos.toml", 15, 1, "unknown key `headers[0].vlaue` is not read (did you mean `value`?)"),
        ("typos.toml", 19, 1, "unknown key `auth.tokn` is not read (did you mean `token`?)"),
        ("users/folder.toml", 2, 1, "unknown key `ordr` is not read (did you mean `order`?)"),
    ]  # fmt: skip
    assert str(col.warnings[1]) == f"{root / 'typos.toml'}:2:1: " + got[1][3]


def test_an_unknown_key_is_still_kept_on_save(tmp_path: Path) -> None:
    root = tmp_path / "c"
    path = write(root, "typos.toml", TYPOS)
    request = load_collection(root).find("typos")[1]
    request.name = "Renamed"
    save_request(request)
    text = path.read_text(encoding="utf-8")
    assert text == TYPOS.replace('"Typos"', '"Renamed"')


def test_what_other_tools_call_an_auth_key_is_read_from_the_auth_table() -> None:
    from pigeon.auth_kinds import FIELDS
    from pigeon.store.unknown import REQUEST, unknown_keys

    found = unknown_keys({"auth": {"type": "bearer", "bearer": "t", "user": "ada"}}, REQUEST)
    assert [(u.at, u.suggestion) for u in found] == [
        (("auth", "bearer"), "token"),
        (("auth", "user"), "username"),
    ]
    named = {other: f.name for f in FIELDS for other in f.other_names}
    assert named == {
        "bearer": "token", "user": "username", "callback_url": "callback", "key_file":
        "private_key_file", "auth_id": "hawk_id", "auth_key": "hawk_key", "payload": "claims",
        "expires_in": "jwt_exp",
    }  # fmt: skip
