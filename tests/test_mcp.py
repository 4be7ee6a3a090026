"""`pigeon mcp` (DESIGN §14) driven as a coding agent drives it: a `pigeon mcp` process spoken
to over stdio by the official SDK's own client (``stdio_client`` + ``ClientSession``), its
requests answered by a loopback echo server.

One server process per trust state for the whole module: the SDK's client runs in a thread
of its own, on its own loop, and each test asks it through ``McpClient.call``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from pigeon.cli import main
from pigeon.echo import EchoServer

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

SECRET = "s3cr3t-token-4242"  # in .env, sent in a header whose name says nothing secret

COLLECTION = {
    "collection.toml": 'name = "Shop"\ndefault_environment = "local"\n',
    ".env": f"API_TOKEN={SECRET}\n",
    "users/list.toml": """\
name = "List users"
description = "Every user, a page at a time"
url = "{{base_url}}/users?page={{page}}"

[variables]
page = 1

[[headers]]
name = "X-Trace"
value = "{{$env.API_TOKEN}}"
""",
    "files/bytes.toml": 'name = "Some bytes"\nurl = "{{base_url}}/bytes/3000"\n',
    "files/large.toml": 'name = "Large"\nurl = "{{base_url}}/json/large?mb=1"\n',
    "scripted.toml": """\
name = "Scripted"
url = "{{base_url}}/status/201"

[scripts]
pre_request = '''
pigeon.setVar("from_script", "set")
'''
post_response = '''
assert pigeon.response.status == 200, f"got {pigeon.response.status}"
'''
""",
    "typo.toml": 'name = "Typo"\nurl = "{{base_ur}}/x"\n',
    "notes/a note.toml": 'name = "A note"\nurl = "{{base_url}}/note"\n',
    "oauth.toml": """\
name = "Signed in"
url = "{{base_url}}/me"

[auth]
type = "oauth2"
token_url = "{{auth_base}}/token"
client_id = "pigeon"
client_secret = "{{$env.API_TOKEN}}"
""",
    "chained.toml": """\
name = "Chained"
url = "{{base_url}}/chained"

[scripts]
pre_request = '''
pigeon.setVar("listed", pigeon.send("users/list").status)
'''
""",
}


def write_collection(root: Path, base_url: str) -> Path:
    for name, text in COLLECTION.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = root / "environments" / "local.toml"
    env.parent.mkdir(exist_ok=True)
    env.write_text(
        f'[variables]\nbase_url = "{base_url}"\nauth_base = "{base_url}"\n', encoding="utf-8"
    )
    return root


class McpClient:
    """A `pigeon mcp` process and the SDK's client session to it, on a loop in a thread."""

    def __init__(self, args: list[str], home: Path) -> None:
        self.params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "pigeon", "mcp", *args],
            env={"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")},
        )
        self.stderr = (home / "stderr.txt").open("w+", encoding="utf-8")
        self.jobs: asyncio.Queue[Any] | None = None
        self.ready = concurrent.futures.Future[None]()
        self.done = concurrent.futures.Future[None]()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._thread, daemon=True)
        self.thread.start()
        self.ready.result(timeout=120)

    def _thread(self) -> None:
        try:
            self.loop.run_until_complete(self._serve())
        except BaseException as exc:  # seen by whoever waits
            if not self.ready.done():
                self.ready.set_exception(exc)
        finally:
            self.done.set_result(None)

    async def _serve(self) -> None:
        """Hold the session open in one task (the SDK's scopes live in the task that opened
        them) and run each job in it."""
        self.jobs = asyncio.Queue()
        async with (
            stdio_client(self.params, errlog=self.stderr) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            self.ready.set_result(None)
            while (job := await self.jobs.get()) is not None:
                make, future = job
                try:
                    future.set_result(await make(session))
                except Exception as exc:
                    future.set_exception(exc)

    def ask(self, make: Callable[[ClientSession], Coroutine[Any, Any, Any]]) -> Any:
        future = concurrent.futures.Future[Any]()
        assert self.jobs is not None
        self.loop.call_soon_threadsafe(self.jobs.put_nowait, (make, future))
        return future.result(timeout=120)

    def call(self, tool: str, **arguments: Any) -> tuple[bool, str]:
        """A tool's answer: whether it is an error, and its text."""
        result = self.ask(lambda s: s.call_tool(tool, arguments))
        return result.isError, "".join(c.text for c in result.content)

    def answer(self, tool: str, **arguments: Any) -> Any:
        error, text = self.call(tool, **arguments)
        assert not error, text
        return json.loads(text)

    def close(self) -> None:
        if self.jobs is not None:
            self.loop.call_soon_threadsafe(self.jobs.put_nowait, None)
        self.done.result(timeout=60)
        self.thread.join(timeout=10)
        self.stderr.close()


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoServer]:
    with EchoServer("127.0.0.1", 0) as server:
        yield server


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory, echo: EchoServer) -> Path:
    return write_collection(tmp_path_factory.mktemp("shop"), echo.url)


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, shop: Path) -> Iterator[McpClient]:
    """`pigeon mcp` of an untrusted collection."""
    client = McpClient([str(shop)], tmp_path_factory.mktemp("home"))
    yield client
    client.close()


@pytest.fixture(scope="module")
def trusted_agent(tmp_path_factory: pytest.TempPathFactory, shop: Path) -> Iterator[McpClient]:
    """`pigeon mcp --trust` of the same collection."""
    client = McpClient([str(shop), "--trust"], tmp_path_factory.mktemp("home"))
    yield client
    client.close()


def test_the_tools_are_listed(agent: McpClient) -> None:
    tools = agent.ask(lambda s: s.list_tools()).tools
    assert {t.name for t in tools} == {
        "list_requests",
        "render_request",
        "send_request",
        "run",
        "check",
    }
    send = next(t for t in tools if t.name == "send_request")
    assert send.inputSchema["required"] == ["request"]
    assert set(send.inputSchema["properties"]) == {"request", "variables"}


def test_list_requests_gives_paths_methods_names_and_descriptions(agent: McpClient) -> None:
    listed = agent.answer("list_requests")
    assert listed["collection"] == "Shop" and listed["trusted"] is False
    users = next(r for r in listed["requests"] if r["request"] == "users/list")
    assert users == {
        "request": "users/list",
        "name": "List users",
        "method": "GET",
        "url": "{{base_url}}/users?page={{page}}",
        "kind": "http",
        "description": "Every user, a page at a time",
        "folder": "users",
    }


def test_render_request_shows_the_request_as_it_would_go_its_secret_masked(
    agent: McpClient, echo: EchoServer
) -> None:
    sent = echo.request_count
    rendered = agent.answer("render_request", request="users/list", variables={"page": 3})
    assert rendered["method"] == "GET"
    assert rendered["url"] == f"{echo.url}/users?page=3"
    assert ["X-Trace", "•••"] in rendered["headers"]
    assert echo.request_count == sent  # nothing was sent


def test_send_request_answers_status_headers_pretty_body_and_time(
    agent: McpClient, echo: EchoServer
) -> None:
    answer = agent.answer("send_request", request="users/list", variables={"page": 2})
    assert answer["status"] == 200 and answer["reason"] == "OK"
    assert answer["request"]["url"] == f"{echo.url}/users?page=2"
    assert isinstance(answer["time_ms"], float) and answer["size"] > 0
    assert ["Content-Type", "application/json"] in answer["headers"]
    body = answer["body"]
    assert body.startswith("{\n  ")  # pretty
    echoed = json.loads(body)
    assert echoed["method"] == "GET" and echoed["path"] == "/users"
    # The server echoed the header: the .env value is masked there too.
    assert ["X-Trace", "•••"] in echoed["headers"]


def test_a_binary_body_is_described_and_a_large_one_capped(agent: McpClient) -> None:
    binary = agent.answer("send_request", request="files/bytes")
    assert binary["body"] == "<binary body, 3000 bytes, application/octet-stream: not shown>"
    large = agent.answer("send_request", request="files/large")
    body = large["body"]
    head, _, more = body.rpartition("\n… ")
    assert len(head.encode("utf-8")) == 64 * 1024
    assert more == f"{large['size'] - 64 * 1024} more bytes"


def test_variables_cannot_send_a_request_to_another_host(
    agent: McpClient, echo: EchoServer
) -> None:
    with EchoServer("127.0.0.1", 0) as elsewhere:
        for tool in ("send_request", "render_request"):
            error, text = agent.call(
                tool, request="users/list", variables={"base_url": elsewhere.url}
            )
            assert error
            assert "not sent: the variables change where it goes" in text
            assert elsewhere.url.removeprefix("http://") in text
        assert elsewhere.request_count == 0
    # The same host with another path is where the files send it: allowed.
    answer = agent.answer(
        "send_request", request="users/list", variables={"base_url": f"{echo.url}/v2"}
    )
    assert json.loads(answer["body"])["path"] == "/v2/users"


def test_variables_cannot_send_a_token_request_elsewhere(agent: McpClient) -> None:
    """The token fetch would carry the client secret: its endpoint is where the request goes
    too."""
    with EchoServer("127.0.0.1", 0) as elsewhere:
        for tool in ("render_request", "send_request"):
            error, text = agent.call(tool, request="oauth", variables={"auth_base": elsewhere.url})
            assert error and "the variables change where it goes (token_url" in text
        assert elsewhere.request_count == 0
    rendered = agent.answer("render_request", request="oauth", variables={"page": 1})
    assert rendered["url"].endswith("/me")


def test_variables_are_taken_literally(agent: McpClient) -> None:
    error, text = agent.call(
        "render_request", request="users/list", variables={"page": "{{$env.HOME}}"}
    )
    assert error and "values are literal" in text
    error, text = agent.call("send_request", request="users/list", variables=["page"])
    assert error and "is not of type 'object'" in text  # the SDK checks the schema


def test_an_untrusted_collections_script_is_refused_as_on_the_command_line(
    agent: McpClient, shop: Path, echo: EchoServer, capsys: pytest.CaptureFixture[str]
) -> None:
    sent = echo.request_count
    error, text = agent.call("send_request", request="scripted")
    assert error
    assert main(["run", str(shop), "scripted"]) == 2
    said = [line.removeprefix("pigeon: ") for line in capsys.readouterr().err.splitlines()]
    assert said[0] == "needs trust: scripted: runs scripted.toml [scripts.pre_request]"
    # The same lines, but the option pigeon mcp does not have.
    assert text.splitlines() == [*said[:-1], said[-1].split("; --no-scripts")[0] + ")"]
    error, again = agent.call("run", selection=["scripted"])
    assert error and again == text
    assert echo.request_count == sent


def test_variables_are_refused_for_a_request_whose_scripts_send_others(
    trusted_agent: McpClient, echo: EchoServer
) -> None:
    sent = echo.request_count
    error, text = trusted_agent.call("send_request", request="chained", variables={"page": 2})
    assert error
    assert "chained.toml [scripts.pre_request] sends requests of its own" in text
    assert echo.request_count == sent
    answer = trusted_agent.answer("send_request", request="chained")
    assert answer["status"] == 200 and echo.request_count == sent + 2


def test_trust_lets_the_scripts_run(trusted_agent: McpClient) -> None:
    answer = trusted_agent.answer("send_request", request="scripted")
    assert answer["status"] == 201
    (problem,) = answer["problems"]
    assert "[scripts.post_response] line 1: assertion failed: got 201" in problem
    assert trusted_agent.answer("list_requests")["trusted"] is True


def test_run_returns_the_summary_and_the_failures(
    agent: McpClient, trusted_agent: McpClient
) -> None:
    done = agent.answer("run", selection=["users", "files/bytes"])
    assert done["summary"]["requests"] == 2 and done["summary"]["passed"] == 2
    assert done["failures"] == []
    everything = trusted_agent.answer("run", selection=["users", "scripted"])
    assert everything["summary"] | {"duration_ms": 0} == {
        "requests": 2,
        "passed": 1,
        "failed": 1,
        "skipped": 0,
        "duration_ms": 0,
        "bailed": False,
    }
    (failure,) = everything["failures"]
    assert failure["request"] == "scripted" and failure["status"] == 201
    assert "assertion failed: got 201" in failure["problems"][0]
    assert "body" not in failure
    error, text = agent.call("run", selection=["nowhere"])
    assert error and "no request or folder 'nowhere'" in text


def test_check_returns_findings_with_file_line_and_column(agent: McpClient) -> None:
    found = agent.answer("check")
    typo = [f for f in found["findings"] if f["path"] == "typo.toml"]
    assert typo and typo[0]["line"] == 2 and typo[0]["column"] > 1
    assert "base_ur" in typo[0]["message"] and typo[0]["severity"] in ("error", "warning")


def test_the_request_files_are_resources(agent: McpClient, shop: Path) -> None:
    listed = agent.ask(lambda s: s.list_resources()).resources
    uris = {str(r.uri) for r in listed}
    assert "pigeon://users/list" in uris and "pigeon://scripted" in uris
    assert all(r.mimeType == "text/x-toml" for r in listed)
    read = agent.ask(lambda s: s.read_resource("pigeon://users/list"))
    assert read.contents[0].text == (shop / "users" / "list.toml").read_text(encoding="utf-8")
    assert "pigeon://notes/a%20note" in uris  # a path as a URI: percent-encoded
    read = agent.ask(lambda s: s.read_resource("pigeon://notes/a%20note"))
    assert read.contents[0].text.startswith('name = "A note"')
    with pytest.raises(Exception, match="no request"):
        agent.ask(lambda s: s.read_resource("pigeon://environments/local"))


def test_no_result_holds_a_secret(agent: McpClient, trusted_agent: McpClient) -> None:
    texts = [
        agent.call("list_requests")[1],
        agent.call("render_request", request="users/list")[1],
        agent.call("send_request", request="users/list")[1],
        agent.call("run")[1],
        agent.call("check", all_environments=True)[1],
        trusted_agent.call("render_request", request="users/list")[1],
        trusted_agent.call("send_request", request="users/list")[1],
        trusted_agent.call("run")[1],
    ]
    assert all(SECRET not in text for text in texts)
    assert all("•••" in text for text in texts[1:3])


def test_pigeon_help_loads_no_sdk() -> None:
    probe = (
        "import contextlib, io, json, sys\n"
        "from pigeon.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help']); main(['mcp', '--help'])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert "pigeon.cli" in loaded
    assert not {"mcp", "mcp_types", "pigeon.mcp_server"} & loaded


def test_without_the_sdk_the_command_says_how_to_install_it(
    shop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    assert main(["mcp", str(shop)]) == 2
    assert "pip install 'pigeon-http[mcp]'" in capsys.readouterr().err
    assert main(["mcp", str(tmp_path / "nowhere")]) == 2  # no collection: before the SDK


def test_what_a_result_shows_of_a_body() -> None:
    from pigeon.mcp_server.answers import shown_body

    text = {"encoding": "utf-8", "data": "a\x1b[2Jb\r\nc\x07", "truncated": False, "size": 10}
    assert shown_body(text, "text/plain") == "a\\x1b[2Jb\r\nc\\x07"
    data = {"encoding": "utf-8", "data": '{"a":[1,2]}', "truncated": False, "size": 11}
    assert shown_body(data, "application/json") == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    cut = {"encoding": "utf-8", "data": '{"a": "b', "truncated": True, "size": 100}
    assert shown_body(cut, "application/json") == '{"a": "b\n… 92 more bytes'
    binary = {"encoding": "base64", "data": "AAE=", "truncated": False, "size": 2}
    assert shown_body(binary, "image/png; q=1") == "<binary body, 2 bytes, image/png: not shown>"
    assert shown_body(None, "") is None


def test_where_a_request_goes_is_its_origins() -> None:
    from pigeon.auth_kinds import Auth, OAuth2
    from pigeon.mcp_server.answers import destinations, origin
    from pigeon.render import RenderedRequest

    assert origin("HTTP://Example.COM/x?y=1") == "http://example.com:80"
    assert origin("https://h.test:443/a") == origin("https://h.test/b")
    assert origin("http://h.test:8080") != origin("http://h.test")
    assert origin("{{base_url}}/x") == "://"  # nowhere yet: any host the agent gives differs
    rendered = RenderedRequest("GET", "https://api.test/users")
    rendered.oauth2 = Auth(type="oauth2", oauth2=OAuth2(token_url="https://auth.test/token"))
    assert destinations(rendered) == {
        "URL": "https://api.test:443",
        "proxy": "",
        "token_url": "https://auth.test:443",
    }


def test_only_the_protocol_goes_to_stdout() -> None:
    """While it serves, what else the process writes to stdout (a print, its file
    descriptor 1, a child's) goes to stderr."""
    probe = (
        "import anyio, os, subprocess, sys\n"
        "from pigeon.mcp_server import _protocol_out\n"
        "out = _protocol_out(anyio)\n"
        "print('a print')\n"
        "os.write(1, b'fd 1\\n')\n"
        "subprocess.run([sys.executable, '-c', 'print(\"a child\")'])\n"
        "async def main():\n"
        "    await out.write('the protocol\\n')\n"
        "    await out.flush()\n"
        "anyio.run(main)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == "the protocol\n"
    assert done.stderr.split() == ["a", "print", "fd", "1", "a", "child"]
