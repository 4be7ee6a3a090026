"""`pigeon render`: output formats, options, exit codes and error lines (DESIGN §6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main, parse_var

COLLECTION = """\
name = "cli"
default_environment = "dev"

[variables]
base_url = "http://127.0.0.1:9"
user = { id = 7, name = "Ada", tags = ["a", "b"] }
greeting = "hello"

[[headers]]
name = "X-Collection"
value = "{{greeting}}"
"""

DEV = """\
[variables]
base_url = "http://127.0.0.1:8000"
"""

PROD = """\
[variables]
base_url = "http://127.0.0.1:8001"
"""

CREATE = """\
name = "Create user"
method = "POST"
url = "{{base_url}}/users/{{user.id}}"

[[headers]]
name = "X-Api-Key"
value = "k1"

[body]
type = "json"
content = '''
{"name": "{{user.name}}", "tags": {{user.tags}}}
'''
"""


@pytest.fixture
def col(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", COLLECTION)
    write(root, "environments/dev.toml", DEV)
    write(root, "environments/prod.toml", PROD)
    write(root, "users/create.toml", CREATE)
    write(
        root,
        "token.toml",
        'name = "t"\nurl = "{{base_url}}/t"\n[auth]\ntype = "bearer"\ntoken = "{{token}}"\n',
    )
    return root


def render(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["render", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_render_json_object_has_the_documented_fields(col: Path, capsys) -> None:
    code, out, err = render(capsys, str(col), "users/create")
    assert code == 0, err
    data = json.loads(out)
    assert data == {
        "method": "POST",
        "url": "http://127.0.0.1:8000/users/7",
        "headers": [
            ["X-Collection", "hello"],
            ["X-Api-Key", "k1"],
            ["Content-Type", "application/json"],
        ],
        "body": '{"name": "Ada", "tags": ["a","b"]}\n',
        "unresolved": [],
        "warnings": [],
    }


@pytest.mark.parametrize("ref", ["users/create", "users/create.toml", "./users/create.toml"])
def test_request_reference_forms(col: Path, capsys, ref: str) -> None:
    code, out, _ = render(capsys, str(col), ref)
    assert code == 0
    assert json.loads(out)["method"] == "POST"


def test_env_selects_environment_and_unknown_env_is_usage_error(col: Path, capsys) -> None:
    code, out, _ = render(capsys, str(col), "users/create", "--env", "prod")
    assert code == 0 and json.loads(out)["url"] == "http://127.0.0.1:8001/users/7"
    code, out, err = render(capsys, str(col), "users/create", "--env", "nope")
    assert code == 2 and out == ""
    assert "unknown environment 'nope'" in err and "dev, prod" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_var_text_and_json_win_over_every_scope(col: Path, capsys) -> None:
    code, out, _ = render(
        capsys,
        str(col),
        "users/create",
        "--var",
        "greeting=hi there",
        "--var",
        'user:={"id": 9, "name": "Bob", "tags": [1, 2.5, true, null]}',
    )
    assert code == 0
    data = json.loads(out)
    assert data["url"] == "http://127.0.0.1:8000/users/9"
    assert data["headers"][0] == ["X-Collection", "hi there"]
    assert data["body"] == '{"name": "Bob", "tags": [1,2.5,true,null]}\n'


def test_var_text_keeps_json_looking_text_as_string() -> None:
    assert parse_var("n=42") == ("n", "42")
    assert parse_var("n:=42") == ("n", 42)
    assert parse_var("s=a=b") == ("s", "a=b")


@pytest.mark.parametrize("bad", ["novalue", "=x", "bad name=1", "x:={nope", "x:=NaN"])
def test_bad_var_is_usage_error(col: Path, capsys, bad: str) -> None:
    code, out, err = render(capsys, str(col), "users/create", "--var", bad)
    assert code == 2 and out == ""
    assert err.startswith("pigeon: ") and "Traceback" not in err


def test_strict_names_the_variable_a_typo_was_meant_to_be(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n[variables]\ntoken = "t"\n')
    write(root, "r.toml", 'name = "r"\nurl = "http://127.0.0.1:9/{{tokn}}"\n')
    code, out, err = render(capsys, str(root), "r", "--strict")
    assert code == 3 and "unresolved placeholders: tokn (did you mean token?)" in err
    assert json.loads(out)["warnings"] == ["{{tokn}} is not defined: did you mean token?"]


def test_strict_unresolved_exits_3_after_printing(col: Path, capsys) -> None:
    code, out, err = render(capsys, str(col), "token")
    assert code == 0
    assert json.loads(out)["unresolved"] == ["token"]
    code, out, err = render(capsys, str(col), "token", "--strict")
    assert code == 3
    assert json.loads(out)["headers"] == [
        ["X-Collection", "hello"],
        ["Authorization", "Bearer {{token}}"],
    ]
    assert "unresolved placeholders: token" in err


def test_missing_request_suggests_close_names(col: Path, capsys) -> None:
    code, out, err = render(capsys, str(col), "users/creat")
    assert code == 2 and "no request 'users/creat'" in err and "users/create" in err


def test_missing_collection_is_usage_error(tmp_path: Path, capsys) -> None:
    code, _, err = render(capsys, str(tmp_path / "absent"), "x")
    assert code == 2 and str(tmp_path / "absent") in err


def test_broken_request_file_names_file_and_line(col: Path, capsys) -> None:
    broken = write(col, "users/broken.toml", 'name = "b"\nurl = "x\nmethod = "GET"\n')
    before = broken.read_bytes()
    code, out, err = render(capsys, str(col), "users/broken")
    assert code == 2 and out == ""
    assert "broken.toml:2" in err and "Traceback" not in err
    assert broken.read_bytes() == before
    # Other requests still render.
    assert render(capsys, str(col), "users/create")[0] == 0


def test_broken_collection_file_is_exit_2(col: Path, capsys) -> None:
    write(col, "collection.toml", "name = \n")
    code, _, err = render(capsys, str(col), "users/create")
    assert code == 2 and "collection.toml:1" in err


def test_header_with_newline_is_refused_exit_1(col: Path, capsys) -> None:
    code, out, err = render(capsys, str(col), "users/create", "--var", "greeting=a\r\nX-Evil: 1")
    assert code == 1 and out == ""
    assert "X-Collection" in err and "CR" in err


def test_format_http(col: Path, capsys) -> None:
    code, out, _ = render(capsys, str(col), "users/create", "--format", "http")
    assert code == 0
    head, _, body = out.partition("\r\n\r\n")
    lines = head.split("\r\n")
    assert lines[0] == "POST /users/7 HTTP/1.1"
    assert "Host: 127.0.0.1:8000" in lines and "X-Api-Key: k1" in lines
    assert body == '{"name": "Ada", "tags": ["a","b"]}\n'


SCRIPTED = """\
name = "s"
url = "{{base_url}}/{{when}}/{{meta.tags[1]}}"

[scripts]
pre_request = '''
pigeon.setVar("when", datetime(2024, 1, 2, 3, 4, 5, 678999, tzinfo=timezone.utc))
pigeon.setVar("meta", {"tags": ["x", "y"]})
'''
"""


def test_scripts_run_only_when_trusted(col: Path, capsys) -> None:
    write(col, "scripted.toml", SCRIPTED)
    code, out, err = render(capsys, str(col), "scripted")
    assert code == 2 and out == ""
    assert "needs trust: scripted: runs scripted.toml [scripts.pre_request]" in err
    code, out, err = render(capsys, str(col), "scripted", "--no-scripts")
    assert code == 0, err
    assert json.loads(out)["unresolved"] == ["when", "meta.tags[1]"]
    code, out, err = render(capsys, str(col), "scripted", "--trust")
    assert code == 0, err
    assert json.loads(out)["url"] == "http://127.0.0.1:8000/2024-01-02T03:04:05.678Z/y"


def test_script_error_is_exit_1_with_one_line(col: Path, capsys) -> None:
    write(
        col,
        "bad.toml",
        "name = \"bad\"\nurl = \"http://127.0.0.1:9/\"\n[scripts]\npre_request = '''\npigeon.setVar(\"bad name\", 1)\n'''\n",
    )
    code, out, err = render(capsys, str(col), "bad", "--trust")
    assert code == 1 and out == ""
    assert "bad name" in err and "Traceback" not in err.splitlines()[0]


def test_python_dash_m_entry_point(col: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pigeon", "render", str(col), "users/create", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["url"] == "http://127.0.0.1:8000/users/7"


@pytest.mark.parametrize("form", ["http", "curl"])
def test_http_and_curl_name_unresolved_placeholders_on_stderr(col: Path, capsys, form: str) -> None:
    code, out, err = render(capsys, str(col), "token", "--format", form)
    assert code == 0 and "{{token}}" in out
    assert err.count("\n") == 1 and "warning" in err
    assert "unresolved placeholders, sent as written: token" in err
    code, out, err = render(capsys, str(col), "users/create", "--format", form)
    assert code == 0 and err == ""
    code, out, err = render(capsys, str(col), "token", "--format", form, "--strict")
    assert code == 3 and err == "pigeon: unresolved placeholders: token\n"


def test_format_http_shows_the_target_as_it_is_sent(col: Path, capsys) -> None:
    write(col, "spaced.toml", 'name = "s"\nurl = "{{base_url}}/find?q=a b&n=é"\n')
    code, out, _ = render(capsys, str(col), "spaced", "--format", "http")
    assert code == 0
    assert out.split("\r\n", 1)[0] == "GET /find?q=a%20b&n=%C3%A9 HTTP/1.1"


def test_an_unknown_key_is_a_warning_on_stderr_naming_its_place(col: Path, capsys) -> None:
    write(col, "typo.toml", 'name = "t"\nurll = "{{base_url}}/t"\n')
    code, out, err = render(capsys, str(col), "users/create")
    assert code == 0 and json.loads(out)["url"] == "http://127.0.0.1:8000/users/7"
    assert err == (
        f"pigeon: warning: {col / 'typo.toml'}:2:1: "
        "unknown key `urll` is not read (did you mean `url`?)\n"
    )
