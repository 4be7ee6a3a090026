"""Saved responses in a request file (``[[examples]]``, DESIGN §14): read, kept as written,
written for a new file, and refused when wrong with the line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write
from pigeon.errors import LoadError
from pigeon.model import Example, Header, Request
from pigeon.store import load_collection, save_request
from pigeon.store.read import request_from_toml
from pigeon.store.write import request_to_toml

USER = """\
name = "Get user"
url = "{{base_url}}/users/{{id}}"

# what the server answered
[[examples]]
name = "found"   # the usual one
status = 200
body = '''
{"id": "{{request.path.id}}"}
'''
x-note = "kept"

[[examples.headers]]
name = "Content-Type"
value = "application/json"

[[examples]]
name = "avatar"
status = 200
body_file = "fixtures/avatar.png"
"""


def test_the_examples_are_read(tmp_path: Path) -> None:
    request = request_from_toml(USER, tmp_path / "user.toml")
    found, avatar = request.examples
    assert (found.name, found.status, found.body) == (
        "found",
        200,
        '{"id": "{{request.path.id}}"}\n',
    )
    assert found.headers == [Header("Content-Type", "application/json")]
    assert found.extra == {"x-note": "kept"}
    assert (avatar.body, avatar.body_file) == ("", "fixtures/avatar.png")
    assert request.extra == {}


def test_the_examples_are_known_keys(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "C"\n')
    write(tmp_path, "user.toml", USER.replace('x-note = "kept"\n', ""))
    col = load_collection(tmp_path)
    assert col.broken == [] and col.warnings == []


def test_an_unchanged_save_is_the_file_and_an_edit_is_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "user.toml"
    path.write_text(USER, encoding="utf-8")
    request = request_from_toml(USER, path)
    save_request(request)
    assert path.read_text(encoding="utf-8") == USER
    request.examples[0].status = 201
    save_request(request)
    assert path.read_text(encoding="utf-8") == USER.replace(
        "status = 200\nbody = '''", "status = 201\nbody = '''"
    )
    del request.examples[1]
    save_request(request)
    assert request_from_toml(path.read_text(encoding="utf-8")).examples == request.examples


def test_a_new_file_writes_the_examples_last_and_reads_back() -> None:
    request = Request(
        name="Ping",
        url="/ping",
        examples=[
            Example("up", 200, [Header("X-Up", "1")], '{"ok": true}\n'),
            Example("down", 503),
        ],
    )
    text = request_to_toml(request)
    assert text.index("[[examples]]") > text.index('url = "/ping"')
    # each header a block of its own, as USER above is written by hand
    assert '[[examples.headers]]\nname = "X-Up"\nvalue = "1"\n' in text
    assert "body = '''\n{\"ok\": true}\n'''" in text
    assert request_from_toml(text) == request


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("[[examples]]\nstatus = 200\n", 1, "needs a name"),
        ('[[examples]]\nname = "a"\nstatus = 99\n', 3, "status from 100 to 599"),
        ('[[examples]]\nname = "a"\nstatus = "200"\n', 3, "status from 100 to 599"),
        ('[[examples]]\nname = "a"\nstatus = true\n', 3, "status from 100 to 599"),
        ('[[examples]]\nname = "a"\n[[examples]]\nname = "a"\n', 4, "second example named"),
        ('[[examples]]\nname = "a"\nbody = "x"\nbody_file = "b"\n', 4, "not both"),
        ('[[examples]]\nname = "a"\nbody_file = "../secret"\n', 3, "outside the collection"),
        ('[[examples]]\nname = "a"\nbody_file = "/etc/passwd"\n', 3, "outside the collection"),
        ('[[examples]]\nname = "a"\nbody_file = "C:/x"\n', 3, "outside the collection"),
        ('[[examples]]\nname = "a"\nbody_file = ""\n', 3, "relative to the collection"),
        ('[[examples]]\nname = "a"\n[[examples.headers]]\nname = "a b"\n', 4, "not a header name"),
        (
            '[[examples]]\nname = "a"\n[[examples.headers]]\nname = "X"\nvalue = "a\\nb"\n',
            5,
            "no CR, LF or NUL",
        ),
        ('examples = "x"\n', 1, "array of tables"),
    ],
)
def test_wrong_examples_name_their_line(text: str, line: int, words: str) -> None:
    with pytest.raises(LoadError) as info:
        request_from_toml(text, Path("bad.toml"))
    assert words in info.value.message
    assert info.value.line == line


def test_a_body_over_the_cap_is_refused() -> None:
    big = "x" * (10 * 1024 * 1024 + 1)
    with pytest.raises(LoadError, match="at most 10 MB"):
        request_from_toml(f'[[examples]]\nname = "a"\nbody = "{big}"\n', Path("big.toml"))


def test_a_misspelt_key_is_named(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "C"\n')
    write(tmp_path, "r.toml", '[[examples]]\nname = "a"\nstatuss = 200\n')
    (warning,) = load_collection(tmp_path).warnings
    assert "statuss" in warning.message and warning.line == 3
