"""``pigeon mock`` over real sockets (DESIGN §14): examples picked and rendered per call, 404
and 405 answers, a hundred clients at once, and hostile calls refused within bounds."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from collection_files import write
from pigeon.mock import parse_delay
from pigeon.mock.routes import build_routes
from pigeon.mock.server import MAX_BODY, MockServer
from pigeon.model import MAX_EXAMPLE_BODY
from pigeon.store import load_collection
from pigeon.tls import default_context

USER = """\
name = "Get user"
url = "{{base_url}}/users/{{id}}"

[[examples]]
name = "found"
body = '''
{"id": "{{request.path.id}}", "q": "{{request.query.q}}", "agent": "{{request.headers.x-agent}}",
 "home": "{{$env.HOME}}", "token": "{{$env.TOKEN}}", "base": "{{base_url}}", "uuid": "{{$uuid}}"}
'''
[[examples.headers]]
name = "Content-Type"
value = "application/json"
[[examples.headers]]
name = "X-User"
value = "u-{{request.path.id}}"

[[examples]]
name = "missing"
status = 404
body = "no such user"

[[examples]]
name = "teapot"
status = 418
"""

CREATE = """\
method = "POST"
url = "{{base_url}}/users"

[[examples]]
name = "created"
status = 201
body = '{"name": "{{request.body.name}}", "again": {{request.body.tags}}}'
"""

AVATAR = """\
url = "/avatars/{{id}}.png"
[[examples]]
name = "png"
body_file = "fixtures/a.png"
[[examples.headers]]
name = "Content-Type"
value = "image/png"
"""


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "C"\n[variables]\nbase_url = "http://localhost:9"\n')
    write(root, ".env", "TOKEN=dotenv-secret\n")
    write(root, "users/get.toml", USER)
    write(root, "users/create.toml", CREATE)
    write(root, "avatar.toml", AVATAR)
    (root / "fixtures").mkdir()
    (root / "fixtures/a.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    return root


class _Log(list[str]):
    """The mock's log lines. A line is written after its answer is sent, so a client can hold
    every answer before the last of a hundred threads has logged: ``settled`` waits for it."""

    def __init__(self) -> None:
        super().__init__()
        self._grew = threading.Condition()

    def append(self, line: str) -> None:
        with self._grew:
            super().append(line)
            self._grew.notify_all()

    def settled(self, count: int, timeout: float = 10.0) -> list[str]:
        with self._grew:
            self._grew.wait_for(lambda: len(self) >= count, timeout)
            return list(self)


@pytest.fixture
def server(collection: Path) -> Iterator[MockServer]:
    routes, notes = build_routes(load_collection(collection))
    assert notes == []
    lines = _Log()
    with MockServer(routes, log=lines.append) as mock:
        mock.lines = lines  # type: ignore[attr-defined]
        yield mock


@pytest.fixture
def client(server: MockServer) -> Iterator[httpx.Client]:
    # Plain HTTP: the process's one verifying context, not certifi loaded for each test.
    verify = default_context(http2=False, trust_env=True)
    with httpx.Client(base_url=server.url, timeout=10, verify=verify) as c:
        yield c


def test_a_templated_body_is_rendered_per_call(client: httpx.Client, server: MockServer) -> None:
    one = client.get("/users/42?q=a%20b", headers={"X-Agent": 'say "hi"'})
    assert one.status_code == 200
    assert one.headers["content-type"] == "application/json"
    assert one.headers["x-user"] == "u-42"
    data = one.json()
    assert (data["id"], data["q"], data["agent"]) == ("42", "a b", 'say "hi"')
    # the server's environment, .env and the collection's variables are not the mock's scope
    assert data["home"] == "{{$env.HOME}}" and data["token"] == "{{$env.TOKEN}}"
    assert data["base"] == "{{base_url}}"
    assert os.environ.get("HOME", "") not in one.text or not os.environ.get("HOME")
    two = client.get("/users/42")
    assert two.json()["uuid"] != data["uuid"]  # dynamic values are fresh per call
    assert server.lines[0].startswith("GET /users/42?q=a%20b → 200 found (")  # type: ignore[attr-defined]
    assert server.lines[0].endswith(" ms)")  # type: ignore[attr-defined]


def test_a_json_request_body_is_in_scope(client: httpx.Client) -> None:
    r = client.post("/users", json={"name": 'A "quoted" one', "tags": ["x", 1]})
    assert r.status_code == 201
    assert r.json() == {"name": 'A "quoted" one', "again": ["x", 1]}


@pytest.mark.parametrize(
    ("how", "status", "body"),
    [
        ({}, 200, None),  # the first 2xx
        ({"params": {"example": "missing"}}, 404, "no such user"),
        ({"headers": {"Prefer": "example=teapot"}}, 418, ""),
        ({"headers": {"Prefer": 'return=minimal, example="missing"'}}, 404, "no such user"),
        # the query wins over the header
        ({"params": {"example": "teapot"}, "headers": {"Prefer": "example=missing"}}, 418, ""),
    ],
)
def test_an_example_is_picked(
    client: httpx.Client, how: dict, status: int, body: str | None
) -> None:
    r = client.get("/users/1", **how)
    assert r.status_code == status
    if body is not None:
        assert r.text == body
        assert r.headers.get("content-type", "").startswith("text/plain") or not body


def test_an_unknown_example_is_a_404_naming_the_examples(client: httpx.Client) -> None:
    r = client.get("/users/1", params={"example": "nope"})
    assert r.status_code == 404
    assert r.json() == {
        "error": "no example named 'nope'",
        "examples": ["found", "missing", "teapot"],
    }


def test_a_body_file_is_sent_as_it_is(client: httpx.Client) -> None:
    r = client.get("/avatars/7.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content == b"\x89PNG\r\n\x1a\n\x00\xff"


def test_head_is_served_from_get_without_a_body(client: httpx.Client) -> None:
    r = client.head("/avatars/7.png")
    assert r.status_code == 200 and r.content == b""
    assert r.headers["content-length"] == "10"


def test_no_match_names_the_closest_requests(client: httpx.Client) -> None:
    r = client.get("/user/7")
    assert r.status_code == 404
    assert r.json() == {
        "error": "no request matches GET /user/7",
        "closest": ["GET /users/{{id}}", "POST /users", "GET /avatars/{{id}}.png"],
    }
    text = client.get("/user/7", headers={"Accept": "text/plain"})
    assert text.status_code == 404 and text.headers["content-type"].startswith("text/plain")
    assert text.text.splitlines() == [
        "no request matches GET /user/7",
        "closest:",
        "  GET /users/{{id}}",
        "  POST /users",
        "  GET /avatars/{{id}}.png",
    ]


def test_only_the_method_differs_is_a_405(client: httpx.Client) -> None:
    r = client.delete("/users")
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    assert r.json()["allowed"] == ["POST"]
    assert client.put("/users/1").headers["allow"] == "GET, HEAD"


async def test_a_hundred_clients_at_once_are_all_answered(server: MockServer) -> None:
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=server.url, timeout=30, limits=limits) as c:
        replies = await asyncio.gather(*(c.get(f"/users/{i}") for i in range(100)))
    assert [r.status_code for r in replies] == [200] * 100
    assert sorted(int(r.json()["id"]) for r in replies) == list(range(100))
    assert len(server.lines.settled(100)) == 100  # type: ignore[attr-defined]


# -- hostile calls ---------------------------------------------------------------------------


def _raw(server: MockServer, data: bytes) -> bytes:
    """Send ``data`` as it is and read until the server closes or has answered."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def test_a_huge_body_is_refused_from_its_length(server: MockServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        # the length says 100 GB; only a few bytes follow, and the server answers at once
        sock.sendall(b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000\r\n\r\nab")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413 ")
    assert b"Connection: close" in reply


def test_a_client_sending_a_body_over_the_cap_reads_the_413(client: httpx.Client) -> None:
    r = client.post("/users", content=b"x" * (MAX_BODY + 1))
    assert r.status_code == 413


def test_a_chunked_body_over_the_cap_is_refused(server: MockServer) -> None:
    size = MAX_BODY + 1
    head = b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    reply = _raw(server, head + b"%X\r\n" % size)
    assert reply.startswith(b"HTTP/1.1 413 ")


@pytest.mark.parametrize(
    ("target", "status"),
    [
        (b"/users/../etc/passwd", 400),
        (b"/users/%2e%2e/x", 400),
        (b"/users/a%00b", 400),
        (b"/users/a%0d%0aSet-Cookie:x", 400),
        (b"/users/%ff", 200),  # undecodable bytes are one more segment value
        (b"http://any.example/users/1", 200),  # the absolute form names the path too
        (b"*", 400),
        (b"/users/" + b"a" * 9000, 414),
        (b"/" + b"a" * 70000, 414),  # over the standard library's line limit
    ],
)
def test_bad_paths_are_refused(server: MockServer, target: bytes, status: int) -> None:
    reply = _raw(server, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 %d " % status), reply[:200]


def test_garbage_is_a_400(server: MockServer) -> None:
    assert _raw(server, b"\x00\x01\x02 nonsense\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    assert _raw(server, b"GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n").startswith(
        b"HTTP/1.1 400 "
    )


def test_a_slow_client_is_cut_off_at_the_deadline(collection: Path) -> None:
    routes, _ = build_routes(load_collection(collection))
    with (
        MockServer(routes, deadline=0.3) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock,
    ):
        sock.sendall(b"GET /users/1 HTTP/1.1\r\nHost: x\r\n")  # the headers never end
        assert sock.recv(100) == b""  # closed by the server, not by this test's timeout
        with httpx.Client(base_url=server.url, timeout=10) as c:
            assert c.get("/users/1").status_code == 200  # and it still serves


def test_connections_over_the_bound_are_refused_at_once(collection: Path) -> None:
    routes, _ = build_routes(load_collection(collection))
    with MockServer(routes, max_connections=2) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
        try:
            # the two idle ones hold their slots (their threads are up once they answer)
            for sock in idle:
                sock.sendall(b"GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n")
                assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as third:
                assert third.recv(65536).startswith(b"HTTP/1.1 503 ")  # before it asks
        finally:
            for sock in idle:
                sock.close()


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"), [("200ms", 0.2), ("1.5s", 1.5), ("250", 0.25), (" 0 ", 0.0)]
)
def test_a_delay_is_read(text: str, seconds: float) -> None:
    assert parse_delay(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["fast", "-1s", "2m", "61s"])
def test_a_bad_delay_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--delay"):
        parse_delay(text)


def _mock(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pigeon", "mock", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("quiet", [False, True])
def test_the_command_serves_logs_and_stops_on_ctrl_c(collection: Path, quiet: bool) -> None:
    proc = _mock(str(collection), "--port", "0", "--delay", "1ms", *(["--quiet"] if quiet else []))
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("Pigeon mock on http://127.0.0.1:"), line
        assert "(3 requests, 5 examples; Ctrl-C to stop)" in line
        url = line.split()[3]
        assert httpx.get(f"{url}/users/5", timeout=10).json()["id"] == "5"
        assert httpx.get(f"{url}/nope", timeout=10).status_code == 404
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        err = proc.stderr.read()
        logged = [x for x in err.splitlines() if "→" in x]
        if quiet:
            assert logged == []
        else:
            assert logged[0].startswith("GET /users/5 → 200 found (")
            assert logged[1].startswith("GET /nope → 404 (")
        assert err.rstrip().endswith("Stopped.") and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


def test_a_wider_host_is_warned_about(collection: Path) -> None:
    proc = _mock(str(collection), "--port", "0", "--host", "0.0.0.0")
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith("Pigeon mock on http://0.0.0.0:")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        err = proc.stderr.read()
        assert (
            err.splitlines()[0] == "pigeon mock: warning: 0.0.0.0 is reachable from other machines"
        )
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--delay", "soon"], "--delay"),
        (["--env", "nope"], "nope"),
        (["--port", "70000"], "port out of range"),
    ],
)
def test_bad_options_exit_2(collection: Path, args: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pigeon", "mock", str(collection), *args],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and words in done.stderr
    assert "Traceback" not in done.stderr


def test_a_broken_collection_exits_2_naming_the_line(collection: Path) -> None:
    write(collection, "bad.toml", '[[examples]]\nname = "a"\nstatus = 1000\n')
    done = subprocess.run(
        [sys.executable, "-m", "pigeon", "mock", str(collection)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "bad.toml:3:" in done.stderr and "status from 100 to 599" in done.stderr
    assert json  # the module is used by the other tests' parsing


def test_a_client_that_stops_reading_frees_its_thread(tmp_path: Path) -> None:
    """The only connection slot is taken by a client that never reads its 10 MB reply; the
    write gives up at the deadline, and the next client is served."""
    root = tmp_path / "big"
    write(root, "collection.toml", 'name = "C"\n')
    write(root, "big.toml", 'url = "/big"\n[[examples]]\nname = "b"\nbody_file = "big.bin"\n')
    (root / "big.bin").write_bytes(b"x" * MAX_EXAMPLE_BODY)
    routes, _ = build_routes(load_collection(root))
    with MockServer(routes, deadline=0.3, max_connections=1) as server:
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(("127.0.0.1", server.port))
        try:
            stuck.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            assert stuck.recv(12) == b"HTTP/1.1 200"  # its reply has started, and stalls
            while True:  # refused (503) while the slot is held; served once it is freed
                with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                    sock.sendall(b"HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n")
                    if sock.recv(12) == b"HTTP/1.1 200":
                        break
        finally:
            stuck.close()
