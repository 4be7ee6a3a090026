"""``pigeon.send`` from a script, in real `pigeon run`s against the echo server: another
request sent through the pipeline with its own scripts, runtime variables shared, ``vars``
for that send only, and the guards against a request sending itself or sending too deep."""

from __future__ import annotations

import json
from pathlib import Path

from collection_files import write
from pigeon.cli import main

LOGIN = """\
name = "Log in"
method = "POST"
url = "{{base}}/login"

[body]
type = "json"
content = '{"username": "ada", "password": "pw"}'

[scripts]
post_response = '''
pigeon.setVar("token", pigeon.response.json()["token"])
'''
"""

ME = """\
name = "Me"
url = "{{base}}/me"

[auth]
type = "bearer"
token = "{{token}}"

[scripts]
pre_request = '''
if pigeon.getVar("token") is None:
    login = pigeon.send("auth/login")
    pigeon.log("logged in:", login.status, "token" in login.json())
'''
post_response = '''
assert pigeon.response.status == 200
'''
"""


def collection(root: Path, base: str) -> Path:
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{base}"\n')
    write(root, "auth/login.toml", LOGIN)
    write(root, "api/me.toml", ME)
    return root


def run(root: Path, tmp: Path, *selection: str) -> tuple[int, list[dict]]:
    report = tmp / "r.json"
    code = main(["run", str(root), *selection, "--trust", "--report", f"json:{report}"])
    return code, json.loads(report.read_text())["requests"]


def test_a_script_logs_in_through_another_request(tmp_path: Path, echo_url: str, capsys) -> None:
    root = collection(tmp_path / "c", echo_url)
    code, results = run(root, tmp_path, "api/me")
    assert code == 0, capsys.readouterr().out
    assert [r["id"] for r in results] == ["api/me"]  # the login is the script's, not a result
    assert results[0]["log"] == ["[api/me pre_request] logged in: 200 True"]


def test_vars_are_for_that_send_only(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{echo_url}"\nwho = "file"\n')
    write(root, "echo/who.toml", 'name = "Who"\nurl = "{{base}}/who?who={{who}}"\n')
    write(
        root,
        "caller.toml",
        'name = "Caller"\nurl = "{{base}}/caller?who={{who}}"\n[scripts]\npre_request = \'\'\'\n'
        "r = pigeon.send('echo/who', vars={'who': 'ada'})\n"
        "pigeon.log(r.json()['query']['who'][0])\n'''\n",
    )
    code, results = run(root, tmp_path, "caller")
    assert code == 0, capsys.readouterr().out
    assert results[0]["log"] == ["[caller pre_request] ada"]
    assert results[0]["url"].endswith("who=file")  # the caller's own send is unchanged


def test_a_request_cannot_send_itself(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "a.toml",
        "name = \"A\"\nurl = \"{{base}}/a\"\n[scripts]\npre_request = '''\npigeon.send('b')\n'''\n",
    )
    write(
        root,
        "b.toml",
        "name = \"B\"\nurl = \"{{base}}/b\"\n[scripts]\npre_request = '''\npigeon.send('a')\n'''\n",
    )
    code, results = run(root, tmp_path, "a")
    assert code == 1
    assert "a -> b -> a: a request cannot send itself" in results[0]["script_errors"][0]


def test_sends_are_bounded_in_depth(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{echo_url}"\n')
    for n in range(6):
        write(
            root,
            f"r{n}.toml",
            f'name = "R{n}"\nurl = "{{{{base}}}}/{n}"\n[scripts]\npre_request = \'\'\'\n'
            f"pigeon.send('r{n + 1}')\n'''\n",
        )
    write(root, "r6.toml", 'name = "R6"\nurl = "{{base}}/6"\n')
    code, results = run(root, tmp_path, "r0")
    assert code == 1
    assert "more than 3 sends deep" in results[0]["script_errors"][0]


def test_an_unknown_request_is_a_script_error(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "a.toml",
        "name = \"A\"\nurl = \"{{base}}/a\"\n[scripts]\npre_request = '''\npigeon.send('nope')\n'''\n",
    )
    code, results = run(root, tmp_path)
    assert code == 1
    assert "no request 'nope'" in results[0]["script_errors"][0]
