"""`pigeon check`: every rule found where it is written, silenced by its comment, and the
exit codes (0 clean, 1 findings, 2 a broken file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collection_files import write
from junit_schema import junit_problems
from pigeon.check import RULES, Finding
from pigeon.cli import main
from pigeon.cli.check import _github
from pigeon.store import write_beside

DEMO = Path(__file__).resolve().parents[2] / "collections" / "demo"


def every_rule(root: Path) -> Path:
    """A collection holding one case of each rule, and a few that must not be reported."""
    write(
        root,
        "collection.toml",
        """name = "checked"

[variables]
base_url = "http://127.0.0.1:9"
token = "t-1"
never_read = "x"
a = "{{b}}"
b = "{{a}}"
""",
    )
    write(root, "environments/dev.toml", '[variables]\nhost = "dev.example"\n')
    write(root, "environments/prod.toml", '[variables]\nregion = "eu"\n')
    write(root, "users/folder.toml", '[variables]\nbase_url = "http://127.0.0.1:10"\n')
    write(
        root,
        "users/get.toml",
        """name = "Get"
url = "{{base_url}}/u?q=a b&t={{tokn}}"

[[headers]]
name = "X-Host"
value = "{{host}}"

[[headers]]
name = "X-Region"
value = "{{region}}"
enabled = false
""",
    )
    write(
        root,
        "users/loop.toml",
        """name = "Loop"
url = "{{base_url}}/loop"

[body]
type = "text"
content = "{{a}} and {{token}}"
""",
    )
    (root / "data.bin").write_bytes(b"ok")
    write(
        root,
        "users/upload.toml",
        """name = "Upload"
method = "POST"
url = "{{base_url}}/upload"

[body]
type = "multipart"

[[body.fields]]
name = "here"
kind = "file"
value = "data.bin"

[[body.fields]]
name = "gone"
kind = "file"
value = "missing.bin"

[[body.fields]]
name = "outside"
kind = "file"
value = "/etc/hostname"
""",
    )
    write(
        root,
        "users/scripted.toml",
        """name = "Scripted"
url = "{{base_url}}/s/{{session}}?x={{ignored_name}}"   # pigeon: ignore[unresolved]

[scripts]
pre_request = '''
pigeon.setVar("session", 1)
value = pigeon.getVar("nobody_sets")
'''
""",
    )
    return root


def findings(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["check", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_every_rule_is_found_where_it_is_written(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    code, out = findings(capsys, str(root), "--all-envs")
    assert code == 1
    got = {
        (f["rule"], Path(f["path"]).relative_to(root).as_posix(), f["line"])
        for f in out["findings"]
    }
    assert got == {
        ("unresolved", "users/get.toml", 2),  # {{tokn}}
        ("unresolved", "users/get.toml", 6),  # {{host}}: prod only
        ("inline-query", "users/get.toml", 2),  # the space in ?q=a b
        ("cycle", "users/loop.toml", 6),
        ("missing-file", "users/upload.toml", 16),
        ("file-outside", "users/upload.toml", 21),
        ("script-reads-unset", "users/scripted.toml", 7),
        ("unused-variable", "collection.toml", 6),  # never_read
        ("shadowed", "users/folder.toml", 2),  # base_url over the collection's
    }
    by_rule = {f["rule"]: f for f in out["findings"]}
    tokn = next(f for f in out["findings"] if "tokn" in f["message"])
    assert "did you mean `token`?" in tokn["message"]
    assert tokn["environments"] == []  # unresolved whatever the environment
    host = next(f for f in out["findings"] if "host" in f["message"])
    assert host["environments"] == ["prod"]
    assert host["column"] == 10  # where {{host}} starts on its line
    query = next(f for f in out["findings"] if f["rule"] == "inline-query")
    assert query["column"] == 26  # the space of ?q=a b
    assert by_rule["cycle"]["severity"] == "error"
    assert by_rule["shadowed"]["severity"] == "info"
    assert out["counts"] == {"error": 4, "warning": 4, "info": 1}
    # every rule but those shown by files of their own is shown by this collection
    alone = {
        "broken-file", "env-unset", "conflict", "unknown-key", "grpc-method", "grpc-field",
        "auth-incomplete",
    }  # fmt: skip
    assert {f["rule"] for f in out["findings"]} == set(RULES) - alone


def test_text_format_names_file_line_column_rule(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    assert main(["check", str(root), "--env", "dev"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert (
        f"{root}/users/get.toml:2:31: error [unresolved] {{{{tokn}}}} resolves in no scope (did you mean `token`?)"
        in lines
    )
    assert not any("{{host}}" in line for line in lines)  # dev defines host
    assert lines[-1].startswith("8 finding(s): 3 error, 4 warning, 1 info (environments: dev)")


def test_an_ignore_comment_silences_only_its_rule(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    path = root / "users" / "get.toml"
    path.write_text(
        path.read_text().replace('{{tokn}}"', '{{tokn}}"  # pigeon: ignore[unresolved]')
    )
    _, out = findings(capsys, str(root), "--env", "dev")
    rules = {(f["rule"], Path(f["path"]).name) for f in out["findings"]}
    assert ("unresolved", "get.toml") not in rules
    assert ("inline-query", "get.toml") in rules  # same line, another rule


def test_a_broken_file_is_exit_2_with_its_line(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    write(root, "users/broken.toml", 'name = "B"\nurl = \n')
    code, out = findings(capsys, str(root))
    assert code == 2
    broken = [f for f in out["findings"] if f["rule"] == "broken-file"]
    assert [(Path(f["path"]).name, f["line"]) for f in broken] == [("broken.toml", 2)]


def test_a_copy_saved_beside_is_named_as_a_conflict(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    write_beside(root / "users" / "get.toml", 'name = "Mine"\n')
    code, out = findings(capsys, str(root), "--env", "dev")
    assert code == 1
    conflicts = [f for f in out["findings"] if f["rule"] == "conflict"]
    assert [Path(f["path"]).name for f in conflicts] == ["get.toml.mine"]
    assert conflicts[0]["severity"] == "warning" and "get.toml" in conflicts[0]["message"]
    assert main(["check", str(root), "--env", "dev"]) == 1
    text = capsys.readouterr().out
    assert f"{root}/users/get.toml.mine:1:1: warning [conflict] a conflict: your version" in text


def test_oauth2_fields_are_checked(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n[variables]\nidp = "http://127.0.0.1:9"\n')
    write(
        root,
        "r.toml",
        'name = "R"\nurl = "{{idp}}/x"\n[auth]\ntype = "oauth2"\n'
        'token_url = "{{idpp}}/token"\nclient_id = "app"\n',
    )
    _, out = findings(capsys, str(root))
    assert [(f["rule"], f["line"]) for f in out["findings"]] == [("unresolved", 5)]
    assert "did you mean `idp`?" in out["findings"][0]["message"]


def test_graphql_query_and_variables_are_checked(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n[variables]\napi = "http://127.0.0.1:9"\nuid = 1\n')
    write(
        root,
        "r.toml",
        'name = "R"\nmethod = "POST"\nurl = "{{api}}"\n[body]\ntype = "graphql"\n'
        "query = '{ user(id: {{uid}}) { name } }'\nvariables = '{\"id\": {{uidd}}}'\n",
    )
    _, out = findings(capsys, str(root))
    # uid is used by the query (not reported unused); uidd is unresolved in the variables
    assert [(f["rule"], f["line"]) for f in out["findings"]] == [("unresolved", 7)]
    assert "did you mean `uid`?" in out["findings"][0]["message"]


def test_a_clean_collection_exits_0(tmp_path: Path, capsys) -> None:
    root = tmp_path / "clean"
    write(root, "collection.toml", 'name = "clean"\n[variables]\nbase = "http://127.0.0.1:9"\n')
    write(root, "ping.toml", 'name = "Ping"\nurl = "{{base}}/ping"\n')
    assert main(["check", str(root)]) == 0
    assert capsys.readouterr().out.startswith("0 finding(s)")


def test_the_demo_has_no_findings_in_any_environment(capsys) -> None:
    code, out = findings(capsys, str(DEMO), "--all-envs")
    assert out["findings"] == [] and code == 0


def test_an_unknown_environment_is_bad_usage(tmp_path: Path, capsys) -> None:
    root = every_rule(tmp_path / "c")
    assert main(["check", str(root), "--env", "nope"]) == 2
    assert "unknown environment 'nope'" in capsys.readouterr().err


def test_check_runs_no_script(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    marker = tmp_path / "ran"
    write(root, "collection.toml", 'name = "c"\n')
    write(
        root,
        "r.toml",
        f"name = \"R\"\nurl = \"http://127.0.0.1:9/\"\n[scripts]\npre_request = '''\nopen({str(marker)!r}, 'w').write('x')\n'''\n",
    )
    main(["check", str(root)])
    assert not marker.exists()


def test_a_variable_used_only_in_a_websocket_message_is_used(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(
        root,
        "collection.toml",
        'name = "c"\n[variables]\nhost = "127.0.0.1:9"\nroom = "lobby"\n',
    )
    write(
        root,
        "live.toml",
        'name = "Live"\ntype = "websocket"\nurl = "ws://{{host}}/live"\n\n'
        '[[messages]]\nname = "join"\nbody = \'{"op": "join", "room": "{{room}}"}\'\n\n'
        '[[messages]]\nname = "hi"\nbody = "hello {{usr}}"\n',
    )
    code, out = findings(capsys, str(root))
    assert [(f["rule"], f["line"]) for f in out["findings"]] == [("unresolved", 11)]
    assert "{{usr}}" in out["findings"][0]["message"]
    assert code == 1
    write(root, "live.toml", (root / "live.toml").read_text().replace("{{usr}}", "you"))
    assert main(["check", str(root)]) == 0, capsys.readouterr().out


def test_an_unknown_key_is_a_finding_with_did_you_mean(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n')
    write(
        root,
        "r.toml",
        'name = "R"\nurl = "http://127.0.0.1:9/"\n\n[body]\ntype = "text"\ntext = "hi"\n'
        "\n[settings]\nverify_tsl = false\n",
    )
    code, out = findings(capsys, str(root))
    assert code == 1
    assert [(f["rule"], f["line"], f["column"], f["severity"]) for f in out["findings"]] == [
        ("unknown-key", 6, 1, "warning"),
        ("unknown-key", 9, 1, "warning"),
    ]
    assert "`body.text`" in out["findings"][0]["message"]
    assert "did you mean `content`?" in out["findings"][0]["message"]
    assert "did you mean `verify_tls`?" in out["findings"][1]["message"]
    assert main(["check", str(root)]) == 1
    captured = capsys.readouterr()
    assert captured.err == ""  # named once, as a finding
    assert f"{root}/r.toml:9:1: warning [unknown-key] unknown key `settings.verify_tsl`" in (
        captured.out
    )


def test_the_columns_of_a_data_file_count_as_defined(tmp_path: Path, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n[variables]\nbase = "http://127.0.0.1:9"\n')
    write(
        root,
        "r.toml",
        'name = "R"\nurl = "{{base}}/users/{{user_id}}?q={{query}}"\n'
        "[scripts]\npre_request = '''\nx = pigeon.getVar(\"user_id\")\n'''\n",
    )
    rows = tmp_path / "rows.csv"
    rows.write_text("user_id,query\n1,a\n2,b\n", encoding="utf-8")
    code, out = findings(capsys, str(root))
    assert code == 1
    assert {(f["rule"], f["message"].split()[0]) for f in out["findings"]} == {
        ("unresolved", "{{user_id}}"),
        ("unresolved", "{{query}}"),
        ("script-reads-unset", "a"),
    }
    code, out = findings(capsys, str(root), "--data", str(rows))
    assert (code, out["findings"]) == (0, [])
    rows.write_text("user_id\n1\n", encoding="utf-8")
    code, out = findings(capsys, str(root), "--data", str(rows))
    assert code == 1 and [f["message"].split()[0] for f in out["findings"]] == ["{{query}}"]
    assert main(["check", str(root), "--data", str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv" in capsys.readouterr().err


def _unescape(text: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def annotations(text: str) -> list[tuple[str, dict[str, str], str]]:
    """The workflow commands of GitHub's output, as the runner reads them: one a line."""
    out = []
    for line in text.splitlines():
        if not line.startswith("::"):
            continue
        command, _, rest = line[2:].partition(" ")
        props, sep, message = rest.partition("::")
        assert sep, line
        fields = dict(p.split("=", 1) for p in props.split(","))
        out.append((command, {k: _unescape(v) for k, v in fields.items()}, _unescape(message)))
    return out


def test_github_format_annotates_each_finding_escaped(tmp_path: Path, capsys) -> None:
    """Each finding is one annotation on its file, line and column; a ``:`` or ``,`` in the
    path and a line break or ``%`` in the message cannot end a property or start a command."""
    root = every_rule(tmp_path / "a:b,c")
    code, expected = findings(capsys, str(root), "--all-envs")
    assert main(["check", str(root), "--all-envs", "--format", "github"]) == code == 1
    out = capsys.readouterr().out
    got = annotations(out)
    assert len(got) == len(expected["findings"])
    severity = {"error": "error", "warning": "warning", "info": "notice"}
    for (command, props, message), f in zip(got, expected["findings"], strict=True):
        assert command == severity[f["severity"]]
        assert props == {
            "file": f["path"],
            "line": str(f["line"]),
            "col": str(f["column"]),
            "title": f"pigeon check: {f['rule']}",
        }
        envs = f" [env: {', '.join(f['environments'])}]" if f["environments"] else ""
        assert message == f["message"] + envs
    assert f"file={tmp_path}/a%3Ab%2Cc/users/get.toml,line=2,col=31," in out
    # Text from the collection that would start a command of its own stays in its message.
    odd = Finding("unresolved", root / "x.toml", 3, 4, "a\r\n::warning::y% 100\x1b[2J")
    line = _github(odd, root, str(root))
    assert line.endswith("::a%0D%0A::warning::y%25 100\\x1b[2J") and "\n" not in line
    assert annotations(line)[0][2] == "a\r\n::warning::y% 100\\x1b[2J"


def test_junit_format_is_one_test_case_per_rule(tmp_path: Path, capsys) -> None:
    import xml.etree.ElementTree as ET

    root = every_rule(tmp_path / "c")
    write(root, "users/broken.toml", 'name = "B"\nurl = \n')
    assert main(["check", str(root), "--all-envs", "--format", "junit"]) == 2
    out = capsys.readouterr().out
    assert junit_problems(out) == []  # as Jenkins' JUnit XSD describes it
    tree = ET.fromstring(out)
    (suite,) = tree.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name", "").split(":")[0] for c in cases] == list(RULES)
    outcome = {c.get("name", "").split(":")[0]: next((el.tag for el in c), "pass") for c in cases}
    assert outcome["broken-file"] == "error"
    assert outcome["unresolved"] == outcome["cycle"] == outcome["unused-variable"] == "failure"
    assert outcome["shadowed"] == "system-out"  # info: shown, never failing
    assert outcome["grpc-field"] == "pass"
    for el in (tree, suite):
        assert el.get("tests") == str(len(RULES))
        assert el.get("failures") == str(sum(v == "failure" for v in outcome.values()))
        assert el.get("errors") == "1"
    unresolved = next(c for c in cases if c.get("name", "").startswith("unresolved"))
    failure = unresolved.find("failure")
    assert failure is not None and "{{tokn}}" in (failure.text or "")
    assert failure.get("message") == "2 finding(s)"
