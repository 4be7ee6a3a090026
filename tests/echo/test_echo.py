"""The built-in echo server, exercised with plain HTTP clients over 127.0.0.1."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from pigeon.echo import PNG, EchoServer, large_user, main
from pigeon.tls import default_context


@pytest.fixture
def client(echo_url: str) -> Iterator[httpx.Client]:
    # The echo is plain HTTP: the process's one verifying context, not certifi loaded again.
    verify = default_context(http2=False, trust_env=True)
    with httpx.Client(base_url=echo_url, timeout=10, verify=verify) as c:
        yield c


def conn_for(server: EchoServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)


# -- the echo ---------------------------------------------------------------------------------


def test_echo_describes_the_request(client: httpx.Client) -> None:
    r = client.post(
        "/some/path?a=1&a=2&empty=",
        headers=[("X-Trace", "t1"), ("X-Trace", "t2"), ("Content-Type", "application/json")],
        content=b'{"name": "Ada", "n": [1, 2]}',
    )
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    data = r.json()
    assert data["method"] == "POST"
    assert data["path"] == "/some/path"
    assert data["query"] == {"a": ["1", "2"], "empty": [""]}
    assert [h for h in data["headers"] if h[0] == "X-Trace"] == [
        ["X-Trace", "t1"],
        ["X-Trace", "t2"],
    ]
    assert data["body"] == '{"name": "Ada", "n": [1, 2]}'
    assert data["json"] == {"name": "Ada", "n": [1, 2]}
    assert data["size"] == 28
    assert data["http_version"] == "HTTP/1.1"
    assert data["url"].endswith("/some/path?a=1&a=2&empty=")


def test_echo_parses_forms(client: httpx.Client) -> None:
    data = client.post("/form", data={"user": "ada", "tags": ["x", "y"]}).json()
    assert data["form"] == {"user": ["ada"], "tags": ["x", "y"]}
    assert "json" not in data


def test_echo_describes_multipart_fields_and_files(client: httpx.Client) -> None:
    data = client.post(
        "/upload",
        data={"title": "Report"},
        files={"file": ("report.csv", b"a,b\n1,2\n", "text/csv")},
    ).json()
    assert data["form"] == {"title": ["Report"]}
    assert data["files"] == [
        {"name": "file", "filename": "report.csv", "content_type": "text/csv", "size": 8}
    ]


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE", "OPTIONS", "PURGE"])
def test_any_method_is_echoed(client: httpx.Client, method: str) -> None:
    r = client.request(method, "/x")
    assert r.status_code == 200 and r.json()["method"] == method


def test_head_has_headers_but_no_body(echo_server: EchoServer) -> None:
    conn = conn_for(echo_server)
    conn.request("HEAD", "/x")
    r = conn.getresponse()
    assert r.status == 200
    assert int(r.getheader("Content-Length")) > 0
    assert r.read() == b""
    conn.request("GET", "/y")  # the connection is still in step
    assert json.loads(conn.getresponse().read())["path"] == "/y"
    conn.close()


def test_chunked_request_body(echo_server: EchoServer) -> None:
    conn = conn_for(echo_server)
    conn.request("POST", "/c", body=iter([b"hello ", b"world"]), encode_chunked=True)
    data = json.loads(conn.getresponse().read())
    assert data["body"] == "hello world" and data["size"] == 11
    conn.close()


def test_keep_alive_serves_many_requests_on_one_connection(echo_server: EchoServer) -> None:
    conn = conn_for(echo_server)
    for i in range(3):
        conn.request("GET", f"/n/{i}")
        assert json.loads(conn.getresponse().read())["path"] == f"/n/{i}"
    conn.close()
    assert echo_server.connection_count == 1
    assert echo_server.request_count == 3


# -- routes -----------------------------------------------------------------------------------


def test_login_then_me(client: httpx.Client) -> None:
    login = client.post("/login", json={"username": "ada", "password": "secret"})
    assert login.status_code == 200
    body = login.json()
    assert body["expires_in"] == 3600 and len(body["token"]) >= 20
    me = client.get("/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200
    assert me.json()["username"] == "ada"


def test_login_accepts_json_labelled_as_a_form(client: httpx.Client) -> None:
    # What `curl -d '{"username": ...}'` sends.
    r = client.post(
        "/login",
        content=b'{"username": "ada", "password": "pw"}',
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200 and r.json()["token"]


def test_login_with_a_form_and_tokens_are_distinct(client: httpx.Client) -> None:
    a = client.post("/login", data={"username": "grace", "password": "pw"}).json()["token"]
    b = client.post("/login", data={"username": "grace", "password": "pw"}).json()["token"]
    assert a != b
    assert client.get("/me", headers={"Authorization": f"Bearer {a}"}).json()["username"] == "grace"


@pytest.mark.parametrize(
    "payload", [{}, {"username": "ada"}, {"password": "x"}, {"username": 3, "password": "x"}]
)
def test_login_needs_username_and_password(client: httpx.Client, payload: dict) -> None:
    r = client.post("/login", json=payload)
    assert r.status_code == 400 and "required" in r.json()["error"]


@pytest.mark.parametrize("auth", [None, "Bearer nope", "Basic YTpi", "Bearer"])
def test_me_without_a_valid_token_is_401(client: httpx.Client, auth: str | None) -> None:
    headers = {"Authorization": auth} if auth else {}
    r = client.get("/me", headers=headers)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert r.json()["status"] == 401


def test_tokens_belong_to_one_server(echo_url: str) -> None:
    with httpx.Client() as c, EchoServer() as other:
        token = c.post(f"{echo_url}/login", json={"username": "a", "password": "b"}).json()["token"]
        r = c.get(f"{other.url}/me", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 401


@pytest.mark.parametrize(
    "code", [200, 201, 202, 204, 301, 302, 303, 307, 308, 400, 404, 418, 500, 599]
)
def test_status(client: httpx.Client, code: int) -> None:
    r = client.get(f"/status/{code}")
    assert r.status_code == code
    if 300 <= code < 400:
        assert r.headers["location"] == "/"
    else:
        assert "location" not in r.headers
    if code == 204:
        assert r.content == b""
    else:
        assert r.json()["status"] == code


def test_informational_status_is_followed_by_a_final_one(echo_server: EchoServer) -> None:
    with socket.create_connection(("127.0.0.1", echo_server.port), timeout=5) as sock:
        sock.sendall(b"GET /status/102 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 102 ")
    assert b"\r\n\r\nHTTP/1.1 200 OK\r\n" in data


@pytest.mark.parametrize("arg", ["abc", "99", "600", "101"])
def test_bad_status_is_400(client: httpx.Client, arg: str) -> None:
    assert client.get(f"/status/{arg}").status_code == 400


def test_redirect_hops(client: httpx.Client) -> None:
    r = client.get("/redirect/2", follow_redirects=False)
    assert r.status_code == 302 and r.headers["location"] == "/redirect/1"
    r = client.get("/redirect/4", follow_redirects=True)
    assert r.status_code == 200
    assert [h.url.path for h in r.history] == [
        "/redirect/4",
        "/redirect/3",
        "/redirect/2",
        "/redirect/1",
    ]
    assert r.json()["path"] == "/redirect/0"


def test_redirect_status_can_be_chosen(client: httpx.Client) -> None:
    r = client.get("/redirect/1?status=307", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/redirect/0?status=307"
    assert client.get("/redirect/1?status=200").status_code == 400


def test_delay(client: httpx.Client) -> None:
    start = time.perf_counter()
    r = client.get("/delay/0.3")
    assert time.perf_counter() - start >= 0.3
    assert r.json()["delay"] == 0.3


def test_stop_wakes_delayed_replies() -> None:
    server = EchoServer().start()
    done = threading.Event()

    def call() -> None:
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(f"{server.url}/delay/30", timeout=10)
        done.set()

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    time.sleep(0.2)
    start = time.perf_counter()
    server.stop()
    assert done.wait(5)
    assert time.perf_counter() - start < 2


def test_bytes(client: httpx.Client) -> None:
    r = client.get("/bytes/200000")
    assert r.headers["content-type"] == "application/octet-stream"
    assert r.headers["content-length"] == "200000"
    assert len(r.content) == 200000
    assert len(set(r.content[:4096])) > 200  # not a run of one byte
    assert client.get("/bytes/200000").content == r.content  # deterministic
    assert client.get("/bytes/0").content == b""
    assert client.get("/bytes/-1").status_code == 400


def test_large_json(client: httpx.Client) -> None:
    r = client.get("/json/large?mb=0.5")
    assert r.headers["transfer-encoding"] == "chunked"
    assert abs(len(r.content) - 0.5 * 1024 * 1024) < 4096
    users = r.json()
    assert isinstance(users, list) and len(users) > 500
    assert users[0] == large_user(0)
    assert users[7]["address"]["geo"].keys() == {"lat", "lng"}
    assert [u["id"] for u in users] == list(range(1, len(users) + 1))
    assert client.get("/json/large?mb=0.5").content == r.content  # deterministic


def test_large_json_of_zero_is_still_json(client: httpx.Client) -> None:
    assert len(client.get("/json/large?mb=0").json()) == 1
    assert client.get("/json/large?mb=lots").status_code == 400


def test_close_mid_body(echo_server: EchoServer) -> None:
    with socket.create_connection(("127.0.0.1", echo_server.port), timeout=5) as sock:
        sock.sendall(b"GET /close-mid-body HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        for _ in range(100):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"Content-Length: 1000" in head
    assert body == b"x" * 100


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, payload = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + payload) == crc
        chunks.append((kind, payload))
        pos += 12 + length
    return chunks


def test_image_png_is_a_valid_png(client: httpx.Client) -> None:
    r = client.get("/image.png")
    assert r.headers["content-type"] == "image/png"
    assert r.content == PNG
    chunks = _png_chunks(r.content)
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (width, height, depth, colour) == (8, 8, 8, 2)
    assert len(zlib.decompress(chunks[1][1])) == height * (1 + width * 3)


def test_cookies(client: httpx.Client) -> None:
    r = client.get("/cookies/set?theme=dark&lang=en")
    assert r.headers.get_list("set-cookie") == ["theme=dark; Path=/", "lang=en; Path=/"]
    assert client.get("/cookies").json() == {"cookies": {"theme": "dark", "lang": "en"}}
    client.get("/cookies/delete?theme")
    assert client.get("/cookies").json() == {"cookies": {"lang": "en"}}


def test_response_headers_route_keeps_duplicates(client: httpx.Client) -> None:
    r = client.get("/response-headers?X-A=1&X-A=2")
    assert r.headers.get_list("x-a") == ["1", "2"]


def test_gzip(client: httpx.Client) -> None:
    r = client.get("/gzip")
    assert r.headers["content-encoding"] == "gzip"
    assert r.json()["gzipped"] is True


def test_text_in_a_charset(client: httpx.Client) -> None:
    r = client.get("/text", params={"charset": "iso-8859-1", "text": "café"})
    assert r.headers["content-type"] == "text/plain; charset=iso-8859-1"
    assert r.content == "café".encode("latin-1")
    assert client.get("/text?charset=nope").status_code == 400


def test_quiet_by_default(client: httpx.Client, capfd: pytest.CaptureFixture[str]) -> None:
    client.get("/x")
    client.get("/status/500")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_oversized_request_body_is_refused(echo_server: EchoServer) -> None:
    with socket.create_connection(("127.0.0.1", echo_server.port), timeout=5) as sock:
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999\r\n\r\n")
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 413 ")


# -- lifecycle and command line ---------------------------------------------------------------


def test_start_stop_and_url() -> None:
    server = EchoServer("127.0.0.1", 0)
    assert server.start() is server
    port = server.port
    assert port > 0 and server.url == f"http://127.0.0.1:{port}"
    assert httpx.get(server.url).status_code == 200
    server.stop()
    server.stop()  # stopping twice is harmless
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url, timeout=2)


def test_ipv6_loopback() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        server = EchoServer("::1", 0).start()
    except OSError:
        pytest.skip("no IPv6 loopback")
    with server:
        assert server.url.startswith("http://[::1]:")
        assert httpx.get(f"{server.url}/v6").json()["path"] == "/v6"


def test_main_reports_a_busy_port(capsys: pytest.CaptureFixture[str]) -> None:
    with EchoServer() as busy:
        assert main(["--port", str(busy.port)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pigeon echo: cannot listen on 127.0.0.1:{busy.port}: ")
    assert "\n" not in err.strip()


def test_main_rejects_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", "70000"]) == 2
    assert "port out of range" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_command_line_server_serves_and_stops_on_a_signal(sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pigeon.echo", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # A child of a non-interactive shell may inherit SIGINT ignored; start it afresh.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        # No line: the server ended before it served; what it said is the failure's message.
        assert line.startswith("Pigeon echo server on http://127.0.0.1:"), (
            line or proc.stderr.read()
        )
        url = line.split()[4]
        assert urlsplit(url).port
        assert httpx.get(f"{url}/hello", timeout=5).json()["path"] == "/hello"
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
        err = proc.stderr.read()
        assert '"GET /hello HTTP/1.1" 200' in err  # requests are logged when not quiet
        assert err.rstrip().endswith("Stopped.")
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
