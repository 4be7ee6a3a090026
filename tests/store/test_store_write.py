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
from pigeon.errors import LoadError
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


def _add_line_by_hand(text: str, last: str, line: str) -> str:
    """``text`` with ``line`` typed by hand on a new line after the text ``last`` ends."""
    at = text.index(last) + len(last)
    return text[:at] + "\n" + line + text[at:]


def test_a_line_added_by_hand_after_saved_text_is_a_line_of_its_own(tmp_path: Path) -> None:
    """No saved line ends in a backslash that trims its break: a line typed after the last
    line of a script, a body or a description stays a line of its own."""
    script = "assert pigeon.response.status == 200\nprint(1)"
    req = Request(
        name="r",
        url="http://h/",
        description="# Title\nSome words",
        body=Body(type="text", content='a\nsays "b"'),
        scripts=Scripts(post_response=script),
    )
    text = request_to_toml(req)
    assert "\\\n" not in text
    assert request_from_toml(text) == req
    edited = _add_line_by_hand(text, "print(1)", "print(2)")
    edited = _add_line_by_hand(edited, "Some words", "More words")
    edited = _add_line_by_hand(edited, 'says "b"', "c")
    back = request_from_toml(edited)
    assert back.scripts.post_response == script + "\nprint(2)"
    assert back.description == "# Title\nSome words\nMore words"
    assert back.body.content == 'a\nsays "b"\nc'


def test_a_block_saved_before_reads_the_same_and_loses_its_trimming_backslash_when_edited(
    tmp_path: Path,
) -> None:
    before = 'name = "r"\n\n[scripts]\npost_response = """\nok()\nprint(1)\\\n"""\n'
    path = write(tmp_path, "r.toml", before)
    saved = request_from_toml(before, path)
    assert saved.scripts.post_response == "ok()\nprint(1)"
    save_request(saved, path)
    assert path.read_text(encoding="utf-8") == before  # an unchanged save is byte for byte
    saved.scripts.post_response = "ok(2)\nprint(1)"
    save_request(saved, path)
    after = path.read_text(encoding="utf-8")
    assert "\\\n" not in after
    assert request_from_toml(after, path).scripts.post_response == "ok(2)\nprint(1)"
    added = _add_line_by_hand(after, "print(1)", "print(2)")
    assert request_from_toml(added).scripts.post_response == "ok(2)\nprint(1)\nprint(2)"


def test_a_line_added_after_the_closing_quotes_is_a_located_error_never_a_join() -> None:
    text = request_to_toml(Request(name="r", scripts=Scripts(post_response="a = 1\nb = 2")))
    assert text.endswith("b = 2'''\n")
    with pytest.raises(LoadError) as caught:
        request_from_toml(text + "print(3)\n", Path("r.toml"))
    assert caught.value.line == text.count("\n") + 1


@pytest.mark.parametrize(
    "text",
    [
        "x = '''a'''\nend",  # three single quotes: no literal block holds it
        "bell \x07\nend'",  # a control character, a final single quote
        'a """ b\nc\\d\r\nend"',  # escapes needed: the lines still read as lines
        'bell \x07 and two quotes at the end\n""',
    ],
)
def test_text_no_literal_block_holds_is_written_line_by_line(text: str) -> None:
    written = request_to_toml(Request(name="r", scripts=Scripts(post_response=text)))
    block = written.split("post_response = ", 1)[1]
    assert block.startswith('"""\n') and block.endswith('"""\n') and "\\\n" not in block
    assert block.count("\n") == text.count("\n") + 2  # the opening line, a line a line of text
    assert request_from_toml(written).scripts.post_response == text


def test_literal_text_with_a_backslash_keeps_it_single() -> None:
    """A regex in a script reads as written: the closing quotes end its last line instead."""
    script = "pigeon.expect(/\\d+/.test(x))\nok()"
    written = request_to_toml(Request(name="r", scripts=Scripts(post_response=script)))
    assert "post_response = '''\n" + script + "'''" in written
