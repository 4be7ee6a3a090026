"""Saving: round trips, refusing and atomic saves."""

from __future__ import annotations

import difflib
import math
import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_support import DEMO, FULL_REQUEST, temp_files  # noqa: F401

from collection_files import write
from pigeon.model import (
    Auth,
    Body,
    Environment,
    FormField,
    Header,
    QueryParam,
    Request,
    Scripts,
    Settings,
)
from pigeon.store import (
    SaveError,
    atomic_write,
    create_environment,
    load_collection,
    request_from_toml,
    request_to_toml,
    save_environment,
    save_request,
)

# -- round trips ---------------------------------------------------------------------------


def test_load_save_load_is_identical_and_a_second_save_is_byte_identical(col: Path) -> None:
    first = load_collection(col)
    req = first.find("users/create")[1]
    original = (col / "users/create.toml").read_bytes()
    save_request(req)
    written = (col / "users/create.toml").read_bytes()
    assert written == original  # nothing changed, so not a byte changed
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


def test_text_without_a_final_newline_keeps_its_closing_quotes_on_their_own_line(
    tmp_path: Path,
) -> None:
    script = 'pigeon.setVar("id", 1)\npigeon.setVar("n", 2)'
    req = Request(
        name="r",
        url="http://h/",
        body=Body(type="json", content='{"note": "it\'s fine"}'),
        scripts=Scripts(pre_request=script),
    )
    text = request_to_toml(req)
    assert "content = '''{\"note\": \"it's fine\"}'''\n" in text  # readable, not escaped
    assert 'pre_request = """\npigeon.setVar("id", 1)\npigeon.setVar("n", 2)\\\n"""\n' in text
    assert request_from_toml(text) == req
    # An edit of a block already in the file keeps the closing quotes apart too.
    path = tmp_path / "r.toml"
    path.write_text(text.replace('"""', "'''").replace("\\\n", "\n"), encoding="utf-8")
    saved = request_from_toml(path.read_text(encoding="utf-8"), path)
    assert saved.scripts.pre_request == script + "\n"
    saved.scripts.pre_request = script
    saved.body.content = '{"a": 1}'
    save_request(saved, path)
    after = path.read_text(encoding="utf-8")
    assert after.endswith('pigeon.setVar("n", 2)\\\n"""\n')
    assert "content = " + "'" * 3 + '{"a": 1}' + "'" * 3 + "\n" in after
    assert request_from_toml(after, path).scripts.pre_request == script


@pytest.mark.parametrize(
    "text",
    [
        "x = '''a'''\nend",  # three single quotes: no literal block holds it
        "bell \x07\nend'",  # a control character, a final single quote
        'a """ b\nc\\d\r\nend"',  # escapes needed: the lines still read as lines
    ],
)
def test_text_no_literal_block_holds_is_written_line_by_line_closing_apart(text: str) -> None:
    written = request_to_toml(Request(name="r", scripts=Scripts(post_response=text)))
    block = written.split("post_response = ", 1)[1]
    assert block.startswith('"""\n') and block.endswith('\\\n"""\n')
    assert block.count("\n") == text.count("\n") + 3  # opening, a line a line of text, closing
    assert request_from_toml(written).scripts.post_response == text


def test_literal_text_with_a_backslash_keeps_it_single() -> None:
    """A regex in a script reads as written: the closing quotes end its last line instead."""
    script = "pigeon.expect(/\\d+/.test(x))\nok()"
    written = request_to_toml(Request(name="r", scripts=Scripts(post_response=script)))
    assert "post_response = '''\n" + script + "'''" in written
