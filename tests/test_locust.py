"""Pigeon under Locust (DESIGN §13): ``pigeon.locust.PigeonUser`` and `pigeon export locust`.

Locust monkey-patches the standard library with gevent when it is imported, so it is never
imported here: the runs are in child processes (``tests/locust_driver.py``, Locust's local
runner in-process, one child serving the module's runs in turn, or the real ``locust``
command as a master and two workers) against loopback servers in this process, and the
tests read Locust's stats it reports and what the servers saw.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from collection_files import write
from oauth_server import oauth_server
from pigeon.cli import main
from pigeon.echo import EchoServer
from servers import login_server
from ws_servers import ws_server

DRIVER = Path(__file__).parent / "locust_driver.py"
TIMEOUT = 60  # seconds a child may take before the test fails (they take a few)

SCRIPT_OK = "\n[scripts]\npost_response = '''\nassert pigeon.response.status == 200\n'''\n"


def collection(root: Path, echo: str, login: str = "", oauth: str = "") -> Path:
    """Requests on the echo server (one whose assertion fails), a login that keeps its token
    by a post-response script and a request that sends it, and an OAuth 2.0 request."""
    write(
        root,
        "collection.toml",
        f'name = "shop api"\n\n[variables]\necho = "{echo}"\nlogin = "{login}"\n'
        f'oauth = "{oauth}"\n',
    )
    write(root, "users/get.toml", 'name = "get"\nurl = "{{echo}}/users/7"\n' + SCRIPT_OK)
    write(
        root,
        "users/bad.toml",
        'name = "bad"\nurl = "{{echo}}/users/8"\n\n[scripts]\npost_response = \'\'\'\n'
        'assert pigeon.response.status == 201, f"expected 201, got {pigeon.response.status}"\n'
        "'''\n",
    )
    write(
        root,
        "auth/login.toml",
        'name = "login"\nmethod = "POST"\nurl = "{{login}}/login"\n\n[body]\ntype = "json"\n'
        "content = '{\"user\": \"{{user}}\"}'\n\n[scripts]\npost_response = '''\n"
        'pigeon.setVar("token", pigeon.response.json()["token"])\n\'\'\'\n',
    )
    write(
        root,
        "auth/whoami.toml",
        'name = "whoami"\nurl = "{{login}}/whoami"\n\n[[headers]]\nname = "X-User"\n'
        'value = "{{user}}"\n\n[auth]\ntype = "bearer"\ntoken = "{{token}}"\n' + SCRIPT_OK,
    )
    write(
        root,
        "oauth/me.toml",
        'name = "me"\nurl = "{{oauth}}/me"\n\n[auth]\ntype = "oauth2"\n'
        'token_url = "{{oauth}}/token"\ngrant = "client_credentials"\nclient_id = "cc-client"\n'
        'client_secret = "cc-secret-9f8e7d"\nscope = "read"\n' + SCRIPT_OK,
    )
    return root


def locustfile(path: Path, root: Path, body: str) -> Path:
    path.write_text(
        "from locust import constant\n\nfrom pigeon.locust import PigeonUser\n\n\n"
        f"class Api(PigeonUser):\n    collection = {str(root)!r}\n    wait_time = constant(0)\n"
        + "".join(f"    {line}\n" for line in body.strip().splitlines())
    )
    return path


class Driver:
    """The child that runs Locust (``tests/locust_driver.py``), started once for the module:
    each run is a line to its stdin and a line back, read with a deadline."""

    def __init__(self, stderr: IO[str]) -> None:
        self.stderr = stderr
        self.child = subprocess.Popen(
            [sys.executable, str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.child.stdout is not None
        for line in self.child.stdout:
            self.lines.put(line)
        self.lines.put("")  # the child ended

    def said(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-3000:]

    def run(self, path: Path, users: int, requests: int) -> dict:
        """Locust's local runner on ``path``: ``users`` users until ``requests`` requests are
        reported; its stats, errors and user errors. The child reads the test's config home."""
        environ = {k: os.environ[k] for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME")}
        order = {"path": str(path), "users": users, "requests": requests, "environ": environ}
        assert self.child.stdin is not None
        self.child.stdin.write(json.dumps(order) + "\n")
        self.child.stdin.flush()
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no result in {TIMEOUT} s\n{self.said()}") from None
            assert line, f"the driver ended\n{self.said()}"
            if line.startswith("RESULT "):
                out: dict = json.loads(line.removeprefix("RESULT "))
                return out

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        try:
            self.child.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()


@contextmanager
def new_driver() -> Iterator[Driver]:
    with tempfile.TemporaryFile(mode="w+") as stderr:
        started = Driver(stderr)
        try:
            yield started
        finally:
            started.close()


@pytest.fixture(scope="module")
def driver() -> Iterator[Driver]:
    with new_driver() as started:
        yield started


def drive(driver: Driver, path: Path, users: int, requests: int) -> dict:
    """A run with no user error (see ``Driver.run``)."""
    out = driver.run(path, users, requests)
    assert not out["user_errors"], out["user_errors"]
    return out


@pytest.fixture(scope="module")
def echo() -> str:
    with EchoServer() as server:
        yield server.url


def test_each_request_is_a_locust_entry_named_by_its_path_and_a_failed_assertion_fails_it(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    with socket.socket() as s:  # a port nothing listens on: the send fails to connect
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    root = collection(tmp_path / "c", echo)
    write(root, "down.toml", f'name = "down"\nurl = "http://127.0.0.1:{closed}/"\n')
    path = locustfile(tmp_path / "lf.py", root, 'trust = True\nrequests = ["users", "down"]')
    out = drive(driver, path, users=2, requests=30)
    stats, errors = out["stats"], out["errors"]
    assert set(stats) == {"GET users/get", "GET users/bad", "GET down"}
    assert stats["GET users/get"]["requests"] > 0
    assert stats["GET users/get"]["failures"] == 0
    bad = stats["GET users/bad"]
    assert bad["failures"] == bad["requests"] > 0
    assert stats["GET down"]["failures"] == stats["GET down"]["requests"] > 0
    said = errors["GET users/bad"][0]
    assert "assertion failed" in said and "expected 201, got 200" in said
    assert "refused" in errors["GET down"][0].lower() or "connect" in errors["GET down"][0]


def test_a_host_takes_every_request_there_and_a_weighted_mix_sends_by_weight(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    root = collection(tmp_path / "c", f"http://127.0.0.1:{closed}")  # nothing there
    path = locustfile(
        tmp_path / "lf.py",
        root,
        f'trust = True\nhost = {echo!r}\nrequests = {{"users/get": 2, "users/bad": 0}}',
    )
    out = drive(driver, path, users=2, requests=20)
    assert list(out["stats"]) == ["GET users/get"]  # a weight of 0 is never picked
    assert out["stats"]["GET users/get"]["failures"] == 0, out["errors"]


def test_a_url_that_renders_to_a_websocket_is_sent_as_one(tmp_path: Path, echo: str) -> None:
    """Judged from its file, a request with no script goes out in the user's greenlet; one
    whose URL turns out a WebSocket's waits on the loop after all, and is sent from there.
    Run in a child of its own: its first request is judged before the process's one event
    loop has started."""
    with new_driver() as driver, ws_server() as base:
        root = collection(tmp_path / "c", echo)
        write(
            root,
            "chat.toml",
            f'name = "chat"\nurl = "{{{{ws}}}}/echo"\nreplies = 1\n\n[variables]\nws = "{base}"\n'
            '\n[[messages]]\nname = "hello"\nbody = "hello"\n',
        )
        path = locustfile(tmp_path / "lf.py", root, 'requests = ["chat"]')
        out = drive(driver, path, users=2, requests=6)
    assert list(out["stats"]) == ["GET chat"]
    assert out["stats"]["GET chat"]["failures"] == 0, out["errors"]


def test_a_websocket_url_after_a_scripted_request_goes_to_the_loop_from_the_loop(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    """Once a scripted setup request has run the process's event loop, a script-free request
    whose URL turns out a WebSocket's, first tried in the user's greenlet, must find no loop
    running there: it is sent from the loop, and no task is started on the loop from a user's
    greenlet (asyncio's running loop is one a thread, and the greenlets share the thread)."""
    strays = tmp_path / "strays.txt"
    with ws_server() as base:
        root = collection(tmp_path / "c", echo)
        write(
            root,
            "chat.toml",
            f'name = "chat"\nurl = "{{{{ws}}}}/echo"\nreplies = 1\n\n[variables]\nws = "{base}"\n'
            '\n[[messages]]\nname = "hello"\nbody = "hello"\n',
        )
        write(root, "plain.toml", 'name = "plain"\nurl = "{{echo}}/plain"\n')
        path = tmp_path / "lf.py"
        path.write_text(
            "import asyncio\n\nimport gevent\nfrom locust import constant\n\n"
            "from pigeon.locust import PigeonUser, _Loop\n\n\n"
            "def factory(loop, coro, **kwargs):\n"
            "    if gevent.getcurrent() is not _Loop.get().greenlet:\n"
            f"        with open({str(strays)!r}, 'a') as out:\n"
            "            out.write(coro.__qualname__ + '\\n')\n"
            "    return asyncio.Task(coro, loop=loop, **kwargs)\n\n\n"
            "_Loop.get().loop.set_task_factory(factory)\n\n\n"
            f"class Api(PigeonUser):\n    collection = {str(root)!r}\n"
            "    wait_time = constant(0)\n    trust = True\n    setup = ['users/get']\n"
            "    requests = ['chat', 'users/get', 'plain']\n"
        )
        out = drive(driver, path, users=2, requests=20)
    assert not strays.exists(), strays.read_text()
    stats = out["stats"]
    assert stats["GET chat"]["requests"] >= 3 and stats["GET plain"]["requests"] >= 3, stats
    assert all(entry["failures"] == 0 for entry in stats.values()), out["errors"]


def test_the_exported_locustfile_runs(
    tmp_path: Path, echo: str, driver: Driver, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path / "c", echo)
    assert main(["export", "locust", str(root), "users/get", "--trust"]) == 0
    text = capsys.readouterr().out.replace("between(1, 3)", "between(0, 0)")
    path = tmp_path / "locustfile.py"
    path.write_text(text)
    out = drive(driver, path, users=2, requests=10)
    assert out["stats"]["GET users/get"]["requests"] >= 10
    assert out["stats"]["GET users/get"]["failures"] == 0, out["errors"]


def test_each_user_keeps_its_own_login_token_and_data_row(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    """Two users log in as the two rows of the data file; each one's later requests send the
    token its own login's script set (a shared token would be refused for the other user)."""
    with login_server() as server:
        root = collection(tmp_path / "c", echo, login=server.url)
        rows = write(tmp_path, "users.csv", "user\nada\nbob\n")
        path = locustfile(
            tmp_path / "lf.py",
            root,
            f'trust = True\ndata = {str(rows)!r}\nsetup = ["auth/login"]\n'
            'requests = ["auth/whoami"]',
        )
        out = drive(driver, path, users=2, requests=40)
    stats = out["stats"]
    assert stats["POST auth/login"] == {"requests": 2, "failures": 0}
    assert stats["GET auth/whoami"]["failures"] == 0, out["errors"]
    assert sorted(server.issued.values()) == ["ada", "bob"]
    assert {user for user, _ in server.calls} == {"ada", "bob"}
    assert all(server.issued.get(token) == user for user, token in server.calls)


def test_data_per_iteration_deals_the_next_row_to_each_iteration(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    """With ``data_per = "iteration"`` one user goes through every row in turn (dealt per
    user, it would log in as the first row only)."""
    with login_server() as server:
        root = collection(tmp_path / "c", echo, login=server.url)
        rows = write(tmp_path, "users.csv", "user\nada\nbob\ncy\n")
        path = locustfile(
            tmp_path / "lf.py",
            root,
            f'trust = True\ndata = {str(rows)!r}\ndata_per = "iteration"\n'
            'requests = ["auth/login"]',
        )
        out = drive(driver, path, users=1, requests=6)
    assert out["stats"]["POST auth/login"]["failures"] == 0, out["errors"]
    assert set(server.issued.values()) == {"ada", "bob", "cy"}


def test_each_user_fetches_its_own_oauth_token_once(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    with oauth_server() as (base, state):
        root = collection(tmp_path / "c", echo, oauth=base)
        path = locustfile(tmp_path / "lf.py", root, 'trust = True\nrequests = ["oauth/me"]')
        out = drive(driver, path, users=3, requests=45)
    assert out["stats"]["GET oauth/me"]["failures"] == 0, out["errors"]
    assert out["stats"]["GET oauth/me"]["requests"] >= 45
    assert state.grants == {"client_credentials": 3}
    assert len(set(state.me)) == 3
    assert not (root / ".pigeon").exists()  # the tokens stayed in the users' memory


def test_an_untrusted_collection_sends_nothing_unless_its_scripts_are_off(
    tmp_path: Path, echo: str, driver: Driver
) -> None:
    root = collection(tmp_path / "c", echo)
    path = locustfile(tmp_path / "lf.py", root, 'requests = ["users/get"]')
    out = driver.run(path, users=1, requests=1)
    assert out["stats"] == {}
    assert "is not trusted" in out["user_errors"][0]
    assert "users/get" in out["user_errors"][0]
    # users/bad's assertion would fail it: without scripts it is sent, and passes
    path = locustfile(tmp_path / "lf.py", root, 'scripts = False\nrequests = ["users/bad"]')
    out = drive(driver, path, users=1, requests=3)
    assert out["stats"]["GET users/bad"]["failures"] == 0, out["errors"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_locust_master_and_two_workers_aggregate_pigeon_users(tmp_path: Path, echo: str) -> None:
    root = collection(tmp_path / "c", echo)
    write(root, "ping.toml", 'name = "ping"\nurl = "{{echo}}/ping"\n')  # no script to start
    # paced: the aggregate needs some requests from each worker, not as many as they can make
    path = locustfile(tmp_path / "lf.py", root, 'requests = ["ping"]\nwait_time = constant(0.2)')
    port = free_port()
    locust = [sys.executable, "-m", "locust", "-f", str(path)]
    workers = [
        subprocess.Popen(
            [*locust, "--worker", "--master-host", "127.0.0.1", "--master-port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        master = subprocess.run(
            [
                *locust,
                "--master",
                "--headless",
                "--master-bind-host",
                "127.0.0.1",
                "--master-bind-port",
                str(port),
                "--expect-workers",
                "2",
                "--expect-workers-max-wait",
                "30",
                "-u",
                "4",
                "-r",
                "4",
                "-t",
                "3s",
                "--csv",
                str(tmp_path / "run"),
            ],  # fmt: skip
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        for worker in workers:
            try:
                worker.wait(10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    assert master.returncode == 0, master.stderr[-3000:]
    assert "2 workers" in master.stderr or "(2 total)" in master.stderr, master.stderr[-3000:]
    with open(tmp_path / "run_stats.csv", newline="") as fh:
        rows = {row["Name"]: row for row in csv.DictReader(fh)}
    assert rows["ping"]["Type"] == "GET"
    assert int(rows["ping"]["Request Count"]) > 0
    assert rows["ping"]["Failure Count"] == "0"
    assert rows["Aggregated"]["Request Count"] == rows["ping"]["Request Count"]


def test_export_locust_prints_a_locustfile_with_the_selection(
    tmp_path: Path, echo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path / "c", echo)
    rows = write(tmp_path, "users.csv", "user\nada\n")
    code = main(
        ["export", "locust", str(root), "users", "auth/login", "--data", str(rows), "--trust"]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    tree = ast.parse(out.out)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.name == "ShopApiUser"
    assert [b.id for b in cls.bases if isinstance(b, ast.Name)] == ["PigeonUser"]
    values = {
        t.id: ast.literal_eval(n.value)
        for n in cls.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and t.id != "wait_time"
    }
    assert values == {
        "collection": str(root),
        "data": str(rows),
        "data_per": "user",
        "trust": True,
        "requests": ["users", "auth/login"],
    }
    assert "wait_time = between(" in out.out
    assert '#     "users/bad": 1,' in out.out  # the weighted form, request by request
    assert "pip install" not in out.err  # Locust is installed with the tests


def test_export_locust_names_what_needs_trust_and_how_to_install_locust(
    tmp_path: Path, echo: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pigeon.exporters.locust as exporter

    monkeypatch.setattr(exporter, "locust_installed", lambda: False)
    root = collection(tmp_path / "c", echo)
    assert main(["export", "locust", str(root), "users/get"]) == 0
    out = capsys.readouterr()
    ast.parse(out.out)
    assert "needs trust: users/get" in out.err
    assert "set trust = True" in out.err
    assert out.err.strip().splitlines()[-1] == (
        "pigeon: warning: Locust is not installed: pip install 'pigeon-http[load]'"
    )


def test_export_locust_writes_variables_and_no_scripts(
    tmp_path: Path, echo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path / "c", echo)
    argv = ["export", "locust", str(root), "users/get", "--no-scripts", "--var", "n:=[1, true]"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "needs trust" not in out.err  # its only need was its script
    assert "    variables = {'n': [1, True]}  # as --var\n" in out.out
    assert "    scripts = False  # no script runs, as with --no-scripts\n" in out.out
    ast.parse(out.out)


def test_export_locust_refuses_an_unknown_name_and_other_kinds_refuse_more_names(
    tmp_path: Path, echo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path / "c", echo)
    assert main(["export", "locust", str(root), "users/gett"]) == 2
    assert "did you mean: users/get" in capsys.readouterr().err
    assert main(["export", "curl", str(root), "users/get", "users/bad"]) == 2
    assert "takes one request" in capsys.readouterr().err
