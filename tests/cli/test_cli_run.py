"""`pigeon run` against the real echo server: chaining, selection, exit codes, reports."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.config import TrustStore
from pigeon.store import write_beside
from servers import free_port

LOGIN = """\
name = "Log in"
method = "POST"
url = "{{base_url}}/login"

[body]
type = "json"
content = '{"username": "ada", "password": "pw"}'

[scripts]
post_response = '''
assert pigeon.response.status == 200, pigeon.response.status
pigeon.setVar("token", pigeon.response.json()["token"])
print("logged in")
'''
"""

ME = """\
name = "Who am I"
url = "{{base_url}}/me"

[auth]
type = "bearer"
token = "{{token}}"

[scripts]
post_response = '''
assert pigeon.response.status == 200, f"expected 200, got {pigeon.response.status}"
'''
"""

COUNT = """\
name = "Count"
url = "{{base_url}}/count/{{n}}"

[scripts]
pre_request = '''
pigeon.setVar("n", (pigeon.getVar("n") or 0) + 1)
'''
"""


@pytest.fixture
def col(tmp_path: Path, echo_url: str) -> Path:
    root = tmp_path / "col"
    write(
        root,
        "collection.toml",
        f'name = "runs"\norder = ["auth", "misc"]\n\n[variables]\nbase_url = "{echo_url}"\n',
    )
    write(root, "auth/folder.toml", 'order = ["login", "me"]\n')
    write(root, "auth/login.toml", LOGIN)
    write(root, "auth/me.toml", ME)
    write(root, "misc/a-count.toml", COUNT)
    write(root, "misc/b-count.toml", COUNT)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--no-color"])
    out, err = capsys.readouterr()
    return code, out, err


def test_token_chains_through_two_requests(col: Path, capsys, echo_server) -> None:
    code, out, err = run(capsys, str(col), "auth", "--trust")
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0].startswith("✔ POST") and "auth/login  200 Successful" in lines[0]
    me = next(line for line in lines if "auth/me" in line)
    assert me.startswith("✔ GET") and "200 Successful" in me
    # ids are padded to the longest selected one, so statuses line up
    assert lines[0].index("200") == me.index("200")
    assert "logged in" in out
    assert "2 requests · 2 passed · 0 failed" in out


def test_runtime_variables_carry_and_order_is_collection_order(col: Path, capsys) -> None:
    code, out, _ = run(capsys, str(col), "misc", "--trust", "--report", f"json:{col}/out/r.json")
    assert code == 0
    report = json.loads((col / "out/r.json").read_text())
    assert [r["id"] for r in report["requests"]] == ["misc/a-count", "misc/b-count"]
    assert [r["url"].rsplit("/", 1)[1] for r in report["requests"]] == ["1", "2"]
    assert report["totals"] == {
        "requests": 2,
        "passed": 2,
        "failed": 0,
        "skipped": 0,
        "assertion_failures": 0,
        "time_ms": report["totals"]["time_ms"],
        "bailed": False,
        "interrupted": False,
        "exit_code": 0,
    }


def test_selection_by_request_and_folder_runs_in_the_order_given(col: Path, capsys) -> None:
    code, out, _ = run(capsys, str(col), "misc/b-count.toml", "auth/login", "--trust")
    assert code == 0
    ids = [line.split()[2] for line in out.splitlines() if line.startswith(("✔", "✘"))]
    assert ids == ["misc/b-count", "auth/login"]  # the order typed
    code, out, _ = run(capsys, str(col), "misc", "auth", "misc/a-count", "--trust")
    assert code == 0
    ids = [line.split()[2] for line in out.splitlines() if line.startswith(("✔", "✘"))]
    # a folder's requests in collection order; one named again is sent once, at its first place
    assert ids == ["misc/a-count", "misc/b-count", "auth/login", "auth/me"]


def test_a_copy_saved_beside_is_never_sent(col: Path, capsys) -> None:
    write_beside(col / "misc" / "a-count.toml", COUNT.replace("/count/", "/mine/"))
    code, out, _ = run(capsys, str(col), "misc", "--trust", "--report", f"json:{col}/r.json")
    assert code == 0
    report = json.loads((col / "r.json").read_text())
    assert [r["id"] for r in report["requests"]] == ["misc/a-count", "misc/b-count"]
    assert "/mine/" not in out


def test_unknown_selection_is_usage_error(col: Path, capsys) -> None:
    code, out, err = run(capsys, str(col), "auth/logn")
    assert code == 2 and out == ""
    assert "no request or folder 'auth/logn'" in err and "auth/login" in err


def test_failed_assertion_exits_1_and_is_a_junit_failure(col: Path, capsys) -> None:
    # Without login, /me answers 401 and its assertion fails.
    junit = col / "junit.xml"
    code, out, _ = run(capsys, str(col), "auth/me", "--trust", "--report", f"junit:{junit}")
    assert code == 1
    assert "✘ GET" in out and "401 Client error" in out and "expected 200, got 401" in out
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "1" and suite.get("failures") == "1"
    case = suite.find("testcase")
    assert case is not None and case.get("classname") == "auth" and case.get("name") == "Who am I"
    failure = case.find("failure")
    assert failure is not None and "expected 200, got 401" in failure.get("message", "")
    assert case.find("error") is None


def test_connection_refused_exits_1_with_clear_line(tmp_path: Path, capsys) -> None:
    with free_port() as port:
        pass
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    write(root, "down.toml", f'name = "down"\nurl = "http://127.0.0.1:{port}/"\n')
    junit = tmp_path / "j.xml"
    code, out, _ = run(capsys, str(root), "--report", f"junit:{junit}")
    assert code == 1
    assert f"Connection refused: 127.0.0.1:{port}" in out
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    assert case is not None and case.find("error") is not None


def test_strict_unresolved_exits_3_and_sends_nothing(tmp_path: Path, capsys, echo_server) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "x"\n[variables]\nbase_url = "{echo_server.url}"\n')
    write(root, "r.toml", 'name = "r"\nurl = "{{base_url}}/{{missing}}"\n')
    before = echo_server.request_count
    code, out, _ = run(capsys, str(root), "--strict")
    assert code == 3 and "unresolved placeholders: missing" in out
    assert echo_server.request_count == before
    code, out, _ = run(capsys, str(root))
    assert code == 0 and echo_server.request_count == before + 1
    assert "unresolved (sent as written): missing" in out


def test_a_typo_is_suggested_and_a_url_without_scheme_goes_out_as_http(
    tmp_path: Path, capsys, echo_server
) -> None:
    root = tmp_path / "c"
    hostport = echo_server.url.removeprefix("http://")
    write(root, "collection.toml", f'name = "x"\n[variables]\nhost = "{hostport}"\ntoken = "t"\n')
    write(root, "r.toml", 'name = "r"\nurl = "{{host}}/a?t={{tokn}}"\n')
    before = echo_server.request_count
    code, out, _ = run(capsys, str(root), "--strict")
    assert code == 3 and "unresolved placeholders: tokn" in out
    assert "warning: {{tokn}} is not defined: did you mean token?" in out
    code, out, _ = run(capsys, str(root))
    assert code == 0 and echo_server.request_count == before + 1
    assert f"warning: the URL has no scheme: sent as http://{hostport}/a" in out
    assert "warning: {{tokn}} is not defined: did you mean token?" in out


def test_broken_file_exits_2_naming_file_and_line(col: Path, capsys, echo_server) -> None:
    write(col, "misc/c-broken.toml", 'name = "b"\nmethod = [\n')
    before = echo_server.request_count
    code, out, err = run(capsys, str(col), "--trust")
    assert code == 2 and out == ""
    assert "c-broken.toml:" in err and "Traceback" not in err
    assert echo_server.request_count == before


def test_bail_stops_after_first_failure(col: Path, capsys) -> None:
    code, out, _ = run(capsys, str(col), "auth/me", "misc", "--trust", "--bail")
    assert code == 1
    assert "misc/a-count" not in out and "stopped after the first failure" in out


def test_untrusted_scripts_refuse_the_run_naming_each(col: Path, capsys) -> None:
    code, out, err = run(capsys, str(col), "misc")
    assert code == 2 and out == ""
    assert err.splitlines()[:2] == [
        "pigeon: needs trust: misc/a-count: runs misc/a-count.toml [scripts.pre_request]",
        "pigeon: needs trust: misc/b-count: runs misc/b-count.toml [scripts.pre_request]",
    ]
    assert "not trusted" in err and "--no-scripts" in err
    TrustStore().trust(col)
    code, out, err = run(capsys, str(col), "misc", "--report", f"json:{col}/r.json")
    assert code == 0 and "not trusted" not in err
    urls = [r["url"] for r in json.loads((col / "r.json").read_text())["requests"]]
    assert urls[-1].endswith("/count/2")


def test_no_scripts_run_leaves_script_variables_unresolved(col: Path, capsys) -> None:
    code, _, _ = run(capsys, str(col), "misc", "--no-scripts", "--report", f"json:{col}/r.json")
    assert code == 0
    report = json.loads((col / "r.json").read_text())
    assert [r["unresolved"] for r in report["requests"]] == [["n"], ["n"]]


def test_bad_report_spec_is_usage_error(col: Path, capsys) -> None:
    code, _, err = run(capsys, str(col), "--report", "xml:out.xml")
    assert code == 2 and "expected KIND:PATH" in err


def test_var_and_env_reach_the_run(tmp_path: Path, capsys, echo_server) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    write(root, "environments/dev.toml", f'[variables]\nbase_url = "{echo_server.url}"\n')
    write(root, "r.toml", 'name = "r"\nurl = "{{base_url}}/{{who.name}}"\n')
    code, out, _ = run(
        capsys,
        str(root),
        "--env",
        "dev",
        "--var",
        'who:={"name": "ada"}',
        "--report",
        f"json:{root}/r.json",
    )
    assert code == 0, out
    assert json.loads((root / "r.json").read_text())["requests"][0]["url"].endswith("/ada")
    code, _, err = run(capsys, str(root), "--env", "nope")
    assert code == 2 and "unknown environment" in err


def test_subprocess_run_exit_code(col: Path, echo_server) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pigeon", "run", str(col), "auth", "--trust", "--no-color"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout


def test_broken_file_outside_the_selection_does_not_block(col: Path, capsys) -> None:
    write(col, "misc/c-broken.toml", 'name = "b"\nmethod = = "GET"\nurl = "/x"\n')
    code, out, err = run(capsys, str(col), "auth", "--trust")
    assert code == 0 and "2 passed" in out, out + err
    # Naming the broken file itself, or its folder, names the file and line.
    for selection in ("misc/c-broken.toml", "misc"):
        code, out, err = run(capsys, str(col), selection, "--trust")
        assert code == 2 and out == ""
        assert "c-broken.toml:2" in err, err


def test_broken_folder_file_blocks_the_requests_under_it(col: Path, capsys) -> None:
    write(col, "auth/folder.toml", 'order = ["login", "me"\n')
    code, out, err = run(capsys, str(col), "auth/login", "--trust")
    assert code == 2 and out == "" and "folder.toml:" in err, err
    code, out, _ = run(capsys, str(col), "misc", "--trust")
    assert code == 0 and "2 passed" in out


def test_pre_request_script_error_fails_without_sending(
    tmp_path: Path, capsys, echo_server
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "x"\n[variables]\nbase_url = "{echo_server.url}"\n')
    write(
        root,
        "r.toml",
        "name = \"r\"\nurl = \"{{base_url}}/get\"\n[scripts]\npre_request = '''\n1 / 0\n'''\n",
    )
    before = echo_server.request_count
    code, out, _ = run(capsys, str(root), "--trust")
    assert code == 1 and "ZeroDivisionError" in out and "not sent" in out
    assert echo_server.request_count == before


def test_render_error_fails_without_sending(tmp_path: Path, capsys, echo_server) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "x"\n[variables]\nbase_url = "{echo_server.url}"\n')
    write(
        root,
        "r.toml",
        'name = "r"\nurl = "{{base_url}}/get"\n[[headers]]\nname = "X-A"\nvalue = "{{v}}"\n',
    )
    before = echo_server.request_count
    code, out, err = run(capsys, str(root), "--var", "v=a\r\nX-Injected: 1")
    assert code == 1 and "contains CR" in out and "Traceback" not in out + err
    assert echo_server.request_count == before


def test_colour_only_when_asked_and_control_characters_escaped(
    tmp_path: Path, capsys, echo_server
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "x"\n[variables]\nbase_url = "{echo_server.url}"\n')
    write(
        root,
        "r.toml",
        "name = \"r\"\nurl = \"{{base_url}}/get\"\n[scripts]\npost_response = '''\nprint(\"\\x1b[2Jcleared\")\n'''\n",
    )
    code, out, _ = run(capsys, str(root), "--trust")  # captured output is not a terminal
    assert code == 0 and "\x1b" not in out and "\\x1b[2Jcleared" in out
    code = main(["run", str(root), "--trust", "--color"])
    out = capsys.readouterr().out
    assert code == 0 and "\x1b[32m" in out and "\\x1b[2Jcleared" in out


def test_report_that_cannot_be_written_is_refused_before_sending(
    col: Path, capsys, echo_server
) -> None:
    (col / "taken").write_text("a file, not a directory", encoding="utf-8")
    before = echo_server.request_count
    code, out, err = run(capsys, str(col), "misc", "--report", f"json:{col}/taken/r.json")
    assert code == 2 and out == "" and "cannot create" in err
    assert echo_server.request_count == before


def test_interrupt_sums_up_and_reports_what_finished(tmp_path: Path, echo_server) -> None:
    import signal

    root = tmp_path / "c"
    write(
        root,
        "collection.toml",
        f'name = "x"\norder = ["a", "b"]\n[variables]\nbase_url = "{echo_server.url}"\n',
    )
    write(root, "a.toml", 'name = "a"\nurl = "{{base_url}}/get"\n')
    write(root, "b.toml", 'name = "b"\nurl = "{{base_url}}/delay/20"\n')
    report = tmp_path / "r.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pigeon",
            "run",
            str(root),
            "--no-color",
            "--report",
            f"json:{report}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed and flushed as soon as `a` is done
        assert "a  200 Successful" in first
        deadline = time.monotonic() + 10
        while echo_server.request_count < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # `b` is on the wire
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, first + out + err
    assert "1 request · 1 passed · 0 failed" in out and "interrupted" in out
    assert "Traceback" not in err
    totals = json.loads(report.read_text(encoding="utf-8"))["totals"]
    assert totals["requests"] == 1 and totals["interrupted"] is True and totals["exit_code"] == 130


def test_broken_environment_file_blocks_only_when_used(tmp_path: Path, capsys, echo_server) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    write(root, "environments/dev.toml", f'[variables]\nbase_url = "{echo_server.url}"\n')
    write(root, "environments/prod.toml", '[variables]\nbase_url = = "x"\n')
    write(root, "r.toml", 'name = "r"\nurl = "{{base_url}}/get"\n')
    code, out, err = run(capsys, str(root), "--env", "dev")
    assert code == 0 and "1 passed" in out, out + err
    code, out, err = run(capsys, str(root), "--env", "prod")
    assert code == 2 and out == "" and "prod.toml:2" in err, err


def test_options_may_come_before_request_names(col: Path, capsys) -> None:
    code, out, err = run(capsys, "--trust", str(col), "--strict", "auth/login")
    assert code == 0, out + err
    assert "auth/login" in out and "1 passed" in out


# -- history ----------------------------------------------------------------------------------


def user_config(text: str) -> Path:
    from pigeon.config import config_dir

    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def plant_entry(root: Path, name: str, days_ago: float) -> None:
    """An entry the app recorded ``days_ago`` days ago."""
    from datetime import datetime, timedelta, timezone
    from types import SimpleNamespace

    from pigeon.history import record

    rendered = SimpleNamespace(method="GET", url="http://127.0.0.1/old", name=name)
    started = datetime.now(timezone.utc) - timedelta(days=days_ago)
    record(root, SimpleNamespace(rendered=rendered, status=200, started_at=started))


def test_a_run_records_every_send_masked(col: Path, capsys, echo_server) -> None:
    from pigeon.history import MASK, list_entries

    code, out, err = run(capsys, str(col), "--trust", "--history")
    assert code == 0, out + err
    entries = list_entries(col)
    assert [e.request_id for e in reversed(entries)] == [
        "auth/login",
        "auth/me",
        "misc/a-count",
        "misc/b-count",
    ]
    assert (col / ".pigeon" / ".gitignore").read_text() == "*\n"
    login, me = entries[-1], entries[-2]
    assert json.loads(login.request_body or b"") == {"username": "ada", "password": MASK}
    assert json.loads(login.body)["token"] == MASK and login.status == 200
    assert ("Authorization", f"Bearer {MASK}") in me.request_headers and me.status == 200
    [token] = echo_server.state.tokens
    for path in (col / ".pigeon" / "history").iterdir():
        assert token not in path.read_text(encoding="utf-8")
    assert "history" not in err


def test_a_run_prunes_history_to_the_configured_count_and_age(col: Path, capsys) -> None:
    from pigeon.history import list_entries

    user_config("history_keep = 3\nhistory_max_age_days = 1\n")
    plant_entry(col, "old", days_ago=3)
    plant_entry(col, "recent", days_ago=0.5)
    code, out, err = run(capsys, str(col), "misc", "--trust", "--history")
    assert code == 0 and err == "", out + err
    assert [e.request_name for e in list_entries(col)] == ["Count", "Count", "recent"]
    code, out, err = run(capsys, str(col), "misc/a-count", "--trust", "--history")
    assert code == 0 and err == "", out + err
    sent = [e.url.rsplit("/", 1)[-1] for e in list_entries(col)]
    assert sent == ["1", "2", "1"]  # this run's send, then the last run's two


def test_without_history_a_run_records_nothing(col: Path, capsys) -> None:
    code, out, err = run(capsys, str(col), "--trust")
    assert code == 0, out + err
    assert "4 requests · 4 passed" in out
    assert not (col / ".pigeon").exists()


def test_unwritable_history_warns_once_and_the_run_passes(col: Path, capsys) -> None:
    (col / ".pigeon").mkdir()
    (col / ".pigeon" / "history").write_text("not a folder", encoding="utf-8")
    code, out, err = run(capsys, str(col), "--trust", "--history")
    assert code == 0, out + err
    assert "4 requests · 4 passed" in out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pigeon: warning: history not recorded: ")


def test_a_private_folder_linked_elsewhere_is_never_written_or_pruned(
    col: Path, capsys, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "history").mkdir(parents=True)
    victim = elsewhere / "history" / "20200101T000000000000Z-old-0000.json"
    victim.write_text("{}", encoding="utf-8")  # named like an entry, so pruning would take it
    user_config("history_keep = 0\n")
    (col / ".pigeon").symlink_to(elsewhere, target_is_directory=True)
    code, out, err = run(capsys, str(col), "--trust", "--history")
    assert code == 0, out + err
    assert "4 requests · 4 passed" in out
    [line] = err.splitlines()
    assert line.startswith("pigeon: warning: history not recorded: ")
    assert f"{col / '.pigeon'} is a link (to {elsewhere}); Pigeon writes nothing there" in line
    assert [p.name for p in (elsewhere / "history").iterdir()] == [victim.name]


def test_a_link_out_of_the_collection_is_a_warning_and_the_other_requests_run(
    col: Path, capsys
) -> None:
    (col / "misc" / "disk").symlink_to("/", target_is_directory=True)
    code, out, err = run(capsys, str(col), "--trust")
    assert code == 0, out + err
    assert "4 requests · 4 passed" in out
    assert err == (
        f"pigeon: warning: {col / 'misc' / 'disk'}: a link to a folder that holds it (to /): "
        "a loop; skipped\n"
    )


def test_bad_config_values_are_warnings_and_defaults_apply(col: Path, capsys) -> None:
    from pigeon.history import list_entries

    path = user_config('history_keep = 1\nmax_body_in_memory_mb = "big"\n')
    code, out, err = run(capsys, str(col), "misc", "--trust", "--history")
    assert code == 0, out + err
    assert err == (
        f"pigeon: warning: {path}:2: max_body_in_memory_mb must be a number of megabytes > 0, "
        "not 'big'; using the default\n"
    )
    assert len(list_entries(col)) == 1  # the good key still applies
    path.write_text("history_keep = [", encoding="utf-8")
    code, out, err = run(capsys, str(col), "misc", "--trust", "--history")
    assert code == 0 and err.startswith(
        f"pigeon: warning: config not loaded: {path}: TOML syntax error"
    )
    assert len(list_entries(col)) == 3  # the default count (100)


def test_max_body_in_memory_mb_sets_the_run_sessions_cap(
    tmp_path: Path, capsys, echo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from pigeon.history import list_entries
    from pigeon.send_thread import ThreadedSession

    user_config("max_body_in_memory_mb = 0.0009765625\n")  # 1024 bytes
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    write(root, "big.toml", f'name = "big"\nurl = "{echo_url}/bytes/50000"\n')
    seen = []  # what each exchange held when it came back from the send
    real_send = ThreadedSession.send

    async def send(self: ThreadedSession, rendered, progress=None, *, hold_loop=False):
        exchange = await real_send(self, rendered, progress, hold_loop=hold_loop)
        with exchange.open_body() as fh:
            whole = fh.read()
        spooled = exchange.body_path is not None and os.path.getsize(exchange.body_path)
        seen.append((exchange, exchange.truncated, exchange.body, spooled, whole))
        return exchange

    monkeypatch.setattr(ThreadedSession, "send", send)
    code, out, err = run(capsys, str(root), "--history")
    assert code == 0, out + err
    [(exchange, truncated, body, spooled, whole)] = seen
    assert truncated and exchange.body_size == 50000 and len(body) == 1024
    assert spooled == 50000 and len(whole) == 50000 and whole[:1024] == body
    [entry] = list_entries(root)
    assert entry.body == body and entry.body_truncated and entry.body_size == 50000
    # Once the request is done the run keeps no record of its body: its spooled file is gone.
    assert exchange.body_path is None
