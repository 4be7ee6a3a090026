"""Scripts: the pigeon object, order, request edits, errors, assertions and trust (DESIGN §8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pigeon.echo import EchoServer
from pigeon.model import Body, Collection, Folder, Header, Request, Scripts
from pigeon.render import render_request, render_text
from pigeon.scopes import RuntimeVars, build_scopes
from pigeon.scripts import (
    ResponseHeaders,
    ScriptOutcome,
    ScriptResponse,
    has_scripts,
    run_scripts,
    script_sources,
)
from pigeon.send import HttpSession

# -- helpers --------------------------------------------------------------------------------


def make_collection(
    *,
    collection_script: str = "",
    folder_scripts: tuple[str, ...] = (),
    request_script: str = "",
    phase: str = "pre_request",
    variables: dict[str, Any] | None = None,
    dotenv: dict[str, str] | None = None,
) -> tuple[Collection, list[Folder], Request]:
    """A collection with nested folders (one per folder script) and one request inside."""
    col = Collection(
        "demo",
        Path("/nonexistent/demo"),
        variables=dict(variables or {}),
        scripts=Scripts(**{phase: collection_script}),
        dotenv=dict(dotenv or {}),
    )
    chain: list[Folder] = []
    items = col.items
    fid = ""
    for i, code in enumerate(folder_scripts):
        fid = f"{fid}/f{i}" if fid else f"f{i}"
        folder = Folder(f"f{i}", id=fid, scripts=Scripts(**{phase: code}))
        items.append(folder)
        chain.append(folder)
        items = folder.items
    rid = f"{fid}/req" if fid else "req"
    req = Request(
        "req", id=rid, url="http://127.0.0.1:9/x", scripts=Scripts(**{phase: request_script})
    )
    items.append(req)
    return col, chain, req


def run(
    phase: str,
    col: Collection,
    chain: list[Folder],
    req: Request,
    runtime: RuntimeVars | None = None,
    *,
    trusted: bool = True,
    environ: dict[str, str] | None = None,
    **kwargs: Any,
) -> tuple[ScriptOutcome, RuntimeVars]:
    runtime = runtime if runtime is not None else RuntimeVars()
    scopes = build_scopes(col, chain, req, runtime=runtime, environ=environ or {})
    outcome = run_scripts(phase, col, chain, req, scopes, runtime, trusted=trusted, **kwargs)
    return outcome, runtime


class StandInExchange:
    """Shaped like an Exchange, for response tests that need no network."""

    def __init__(self, status: int, body: str, headers: list[tuple[str, str]]) -> None:
        self.status = status
        self.reason = "OK"
        self.headers = headers
        self.text = body
        self.timings = {"total": 12.5}
        self.error = None

    def json(self) -> Any:
        return json.loads(self.text)


# -- runtime variables ----------------------------------------------------------------------


def test_set_var_is_seen_by_later_renders_and_every_request_of_the_collection() -> None:
    col, chain, req = make_collection(
        request_script='pigeon.setVar("token", "abc")\npigeon.set_var("n", 7)\n'
    )
    other = Request("other", id="other", url="{{base}}/{{token}}?n={{n}}")
    col.items.append(other)
    col.variables["base"] = "http://127.0.0.1:9"
    outcome, runtime = run("pre_request", col, chain, req)
    assert outcome.ok and outcome.ran == 1
    assert runtime.get("token") == "abc"
    # The same RuntimeVars, a different request of the collection.
    scopes = build_scopes(col, [], other, runtime=runtime, environ={})
    rendered = render_request(col, [], other, scopes)
    assert rendered.url == "http://127.0.0.1:9/abc?n=7"
    assert rendered.unresolved == []


def test_runtime_variables_outrank_request_variables() -> None:
    col, chain, req = make_collection(request_script='pigeon.setVar("page", 3)\n')
    req.variables["page"] = 2
    outcome, runtime = run("pre_request", col, chain, req)
    scopes = build_scopes(col, chain, outcome.request, runtime=runtime, environ={})
    assert render_text("p={{page}}", scopes).text == "p=3"


def test_set_kinds_round_trip_in_each_place() -> None:
    script = """
from datetime import datetime as _dt
pigeon.setVar("when", datetime(2024, 1, 2, 3, 4, 5, 678999, tzinfo=timezone.utc))
pigeon.setVar("day", date(2024, 2, 29))
pigeon.setVar("user", {"name": "Ada \\"L\\"", "tags": ("a", "b"), "n": None, "ok": True})
pigeon.setVar("big", 9007199254740993)
pigeon.setVar("ratio", 0.1)
"""
    col, chain, req = make_collection(request_script=script)
    req.url = "http://127.0.0.1:9/{{when}}/{{day}}?big={{big}}&r={{ratio}}"
    req.body = Body(type="json", content='{"user": {{user}}, "at": {{when}}, "s": "{{user}}"}')
    outcome, runtime = run("pre_request", col, chain, req)
    assert outcome.ok, outcome.errors
    assert runtime.get("user")["tags"] == ["a", "b"]  # tuples are stored as lists
    scopes = build_scopes(col, chain, outcome.request, runtime=runtime, environ={})
    rendered = render_request(col, chain, outcome.request, scopes)
    assert rendered.url == (
        "http://127.0.0.1:9/2024-01-02T03:04:05.678Z/2024-02-29T00:00:00.000Z"
        "?big=9007199254740993&r=0.1"
    )
    body = json.loads(rendered.body_text or "")
    assert body["user"] == {"name": 'Ada "L"', "tags": ["a", "b"], "n": None, "ok": True}
    assert body["at"] == "2024-01-02T03:04:05.678Z"
    assert json.loads(body["s"]) == body["user"]
    assert '"user": {"name":"Ada \\"L\\"","tags":["a","b"],"n":null,"ok":true}' in (
        rendered.body_text or ""
    )


@pytest.mark.parametrize(
    ("statement", "type_name", "fragments"),
    [
        ('pigeon.setVar("bad name", 1)', "ValueError", ["'bad name'", "^[A-Za-z0-9_.-]+$"]),
        ('pigeon.setVar("x", float("nan"))', "ValueError", ["variable x", "finite"]),
        ('pigeon.setVar("x", {"a": [1, {2}]})', "ValueError", ["variable x.a[1]", "set"]),
        (
            'pigeon.setVar("x", {"a": {1: 2}})',
            "ValueError",
            ["variable x.a", "keys must be strings"],
        ),
    ],
)
def test_set_var_validation_errors_name_the_script_and_line(
    statement: str, type_name: str, fragments: list[str]
) -> None:
    script = f"pigeon.setVar('fine', 1)\n\n{statement}\npigeon.setVar('after', 1)\n"
    col, chain, req = make_collection(folder_scripts=("",), request_script=script)
    outcome, runtime = run("pre_request", col, chain, req)
    assert len(outcome.errors) == 1
    err = outcome.errors[0]
    assert err.type == type_name and err.line == 3 and err.source == "f0/req"
    assert err.filename == "f0/req.toml [scripts.pre_request]"
    for fragment in fragments:
        assert fragment in err.message
    assert 'File "f0/req.toml [scripts.pre_request]", line 3' in err.traceback
    assert statement in err.traceback  # the script's own source line is shown
    assert "scopes.py" not in err.traceback and "values.py" not in err.traceback
    assert err.summary().startswith("f0/req.toml [scripts.pre_request] line 3: ValueError: ")
    assert "\n" not in err.summary()
    # Nothing after the failing line ran; what ran before it stays set.
    assert runtime.get("fine") == 1 and "after" not in runtime and "x" not in runtime


# -- order ----------------------------------------------------------------------------------


def test_scripts_run_collection_then_folders_outer_to_inner_then_request() -> None:
    def script(label: str) -> str:
        return f'order = pigeon.getVar("order") or []\npigeon.setVar("order", order + ["{label}"])\nprint("{label}")\n'

    col, chain, req = make_collection(
        collection_script=script("collection"),
        folder_scripts=(script("outer"), "", script("inner")),
        request_script=script("request"),
    )
    assert [s.label for s in script_sources(col, chain, req, "pre_request")] == [
        "collection",
        "f0/",
        "f0/f1/f2/",
        "f0/f1/f2/req",
    ]
    outcome, runtime = run("pre_request", col, chain, req)
    assert runtime.get("order") == ["collection", "outer", "inner", "request"]
    assert outcome.ran == 4
    assert outcome.output == [
        "[collection pre_request] collection",
        "[f0/ pre_request] outer",
        "[f0/f1/f2/ pre_request] inner",
        "[f0/f1/f2/req pre_request] request",
    ]


def test_each_script_has_a_fresh_namespace_with_the_preimports() -> None:
    col, chain, req = make_collection(
        collection_script="helper = 1\n",
        request_script=(
            "print('helper' in globals(), datetime.now(timezone.utc) > datetime(2000, 1, 1, tzinfo=timezone.utc))\n"
            "print(timedelta(days=1).days, date(2024, 1, 1).isoformat(), json.dumps({'a': 1}))\n"
        ),
    )
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.output == [
        "[req pre_request] False True",
        '[req pre_request] 1 2024-01-01 {"a": 1}',
    ]


def test_print_is_captured_per_script_not_written_to_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    col, chain, req = make_collection(
        request_script=(
            "print('a', 'b', sep='-')\nprint('no newline', end='')\nprint(' continued')\n"
            "print('x\\ny')\nprint('partial', end='')\npigeon.log('logged', 1)\n"
        )
    )
    outcome, _ = run("pre_request", col, chain, req)
    assert [line.text for line in outcome.log] == [
        "a-b",
        "no newline continued",
        "x",
        "y",
        "partiallogged 1",
    ]
    assert capsys.readouterr().out == ""


def test_print_to_a_file_goes_there_and_to_stderr_goes_to_the_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    col, chain, req = make_collection(
        request_script=(
            "import io, sys\nbuf = io.StringIO()\nprint('to buf', file=buf)\n"
            "print('to stderr', file=sys.stderr)\nprint('to log')\npigeon.setVar('buf', buf.getvalue())\n"
        )
    )
    outcome, runtime = run("pre_request", col, chain, req)
    assert outcome.output == ["[req pre_request] to stderr", "[req pre_request] to log"]
    assert runtime.get("buf") == "to buf\n"
    assert capsys.readouterr().err == ""


# -- the request ----------------------------------------------------------------------------


def test_request_edits_take_effect_on_the_render_and_leave_the_original_alone() -> None:
    script = """
pigeon.request.method = "PUT"
pigeon.request.url = pigeon.request.url + "/edited"
pigeon.setHeader("X-Signature", "sig-" + pigeon.render("{{secret}}"))
pigeon.request.headers.append(type(pigeon.request.headers[0])("X-Extra", "{{secret}}"))
pigeon.setQuery("page", "2 & 3")
pigeon.request.body.type = "json"
pigeon.request.body.content = json.dumps({"at": "now"})
pigeon.request.variables["secret"] = "s3"
"""
    col, chain, req = make_collection(request_script=script, variables={"secret": "s1"})
    req.headers.append(Header("X-Signature", "old"))
    col.headers.append(Header("X-Signature", "collection-level"))
    outcome, runtime = run("pre_request", col, chain, req)
    assert outcome.ok, outcome.errors
    edited = outcome.request
    assert edited is not req
    assert (
        req.method == "GET" and req.url == "http://127.0.0.1:9/x" and "secret" not in req.variables
    )
    assert [h.name for h in req.headers] == ["X-Signature"] and req.headers[0].value == "old"

    scopes = build_scopes(col, chain, edited, runtime=runtime, environ={})
    rendered = render_request(col, chain, edited, scopes)
    assert rendered.method == "PUT"
    assert rendered.url == "http://127.0.0.1:9/x/edited?page=2%20%26%203"
    # rendered in the script before the variable edit; the later header renders afterwards
    assert rendered.header("X-Signature") == "sig-s1"
    assert [n for n, _ in rendered.headers].count("X-Signature") == 1
    assert rendered.header("X-Extra") == "s3"
    assert rendered.body_text == '{"at": "now"}'


def test_an_unedited_request_comes_back_as_the_same_object() -> None:
    col, chain, req = make_collection(request_script="pigeon.setVar('a', 1)\n")
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.request is req


def test_edits_to_request_variables_are_seen_by_get_var_and_render_at_once() -> None:
    col, chain, req = make_collection(
        request_script=(
            "print(pigeon.render('{{page}}'))\n"
            "pigeon.request.variables['page'] = 5\n"
            "print(pigeon.render('{{page}}'), pigeon.getVar('page'))\n"
        )
    )
    req.variables["page"] = 1
    outcome, _ = run("pre_request", col, chain, req)
    assert [line.text for line in outcome.log] == ["1", "5 5"]


# -- reading variables ----------------------------------------------------------------------


def test_get_var_sees_the_winning_scope_expanded_and_copied() -> None:
    col, chain, req = make_collection(
        folder_scripts=("",),
        request_script=(
            "print(pigeon.getVar('who'), pigeon.getVar('greeting'), pigeon.getVar('missing'))\n"
            "u = pigeon.getVar('user')\nprint(u['name'], pigeon.getVar('user.name'), pigeon.getVar('user.tags[1]'))\n"
            "u['name'] = 'changed'\nprint(pigeon.getVar('user')['name'])\n"
            "pigeon.setVar('who', 'runtime')\nprint(pigeon.getVar('greeting'))\n"
        ),
        variables={
            "who": "collection",
            "greeting": "hi {{who}}",
            "user": {"name": "{{who}}", "tags": ["a", "b"]},
        },
    )
    chain[0].variables["who"] = "folder"
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.ok, outcome.errors
    assert [line.text for line in outcome.log] == [
        "folder hi folder None",
        "folder folder b",
        "folder",
        "hi runtime",
    ]
    assert col.variables["user"] == {"name": "{{who}}", "tags": ["a", "b"]}


def test_render_any_template_as_text() -> None:
    col, chain, req = make_collection(
        request_script="print(pigeon.render('{{base}}/u/{{user.id}}?q={{nope}} {{ \\'{{\\' }}'))\n",
        variables={"base": "http://h", "user": {"id": 7}},
    )
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.output == ["[req pre_request] http://h/u/7?q={{nope}} {{"]


def test_env_reads_the_process_environment_then_dotenv() -> None:
    col, chain, req = make_collection(
        request_script=(
            "print(pigeon.env['SHARED'], pigeon.env['ONLY_DOTENV'], pigeon.env.get('ABSENT'))\n"
            "print(sorted(k for k in pigeon.env if k in ('SHARED', 'ONLY_DOTENV')))\n"
            "pigeon.env['X'] = '1'\n"
        ),
        dotenv={"SHARED": "from-dotenv", "ONLY_DOTENV": "d"},
    )
    outcome, _ = run("pre_request", col, chain, req, environ={"SHARED": "from-process"})
    assert [line.text for line in outcome.log] == [
        "from-process d None",
        "['ONLY_DOTENV', 'SHARED']",
    ]
    assert outcome.errors[0].type == "TypeError"  # read-only
    assert outcome.errors[0].line == 3


# -- trust ----------------------------------------------------------------------------------


def test_untrusted_collection_runs_nothing() -> None:
    col, chain, req = make_collection(
        collection_script="pigeon.setVar('a', 1)\n", request_script="pigeon.setVar('b', 1)\n"
    )
    outcome, runtime = run("pre_request", col, chain, req, trusted=False)
    assert outcome.skipped_untrusted is True
    assert outcome.ran == 0 and len(runtime) == 0 and outcome.request is req
    assert outcome.output == [] and outcome.errors == []


def test_no_scripts_is_not_reported_as_untrusted() -> None:
    col, chain, req = make_collection()
    outcome, _ = run("pre_request", col, chain, req, trusted=False)
    assert outcome.skipped_untrusted is False and outcome.ran == 0
    assert not has_scripts(col, chain, req)
    req.scripts.post_response = "   \n"
    assert not has_scripts(col, chain, req)
    req.scripts.post_response = "assert True\n"
    assert has_scripts(col, chain, req) and has_scripts(col, chain, req, "post_response")
    assert not has_scripts(col, chain, req, "pre_request")


def test_unknown_phase_is_refused() -> None:
    col, chain, req = make_collection()
    with pytest.raises(ValueError, match="unknown script phase"):
        run("pre-request", col, chain, req)


# -- responses ------------------------------------------------------------------------------


async def test_post_response_reads_a_real_exchange_and_feeds_the_next_request(
    echo_server: EchoServer,
) -> None:
    runtime = RuntimeVars()
    login = Request(
        "login",
        id="auth/login",
        method="POST",
        url="{{base}}/login",
        body=Body(type="json", content='{"username": "ada", "password": "pw"}'),
        scripts=Scripts(
            post_response=(
                "assert pigeon.response.status == 200, pigeon.response.text\n"
                'assert pigeon.response.headers["CONTENT-TYPE"].startswith("application/json")\n'
                'pigeon.setVar("token", pigeon.response.json()["token"])\n'
                "print(pigeon.response.status, pigeon.response.reason, pigeon.response.elapsed_ms > 0)\n"
            )
        ),
    )
    me = Request(
        "me", id="me", url="{{base}}/me", headers=[Header("Authorization", "Bearer {{token}}")]
    )
    col = Collection(
        "c", Path("/nonexistent"), variables={"base": echo_server.url}, items=[login, me]
    )
    async with HttpSession() as http:
        scopes = build_scopes(col, [], login, runtime=runtime, environ={})
        exchange = await http.send(render_request(col, [], login, scopes))
        outcome = run_scripts(
            "post_response", col, [], login, scopes, runtime, trusted=True, response=exchange
        )
        assert outcome.ok, (outcome.errors, outcome.assertion_failures)
        assert outcome.output == ["[auth/login post_response] 200 OK True"]
        assert isinstance(runtime.get("token"), str) and runtime.get("token")

        scopes = build_scopes(col, [], me, runtime=runtime, environ={})
        answer = await http.send(render_request(col, [], me, scopes))
    assert answer.status == 200, answer.text
    assert answer.json()["username"] == "ada"


def test_response_from_a_stand_in_exchange() -> None:
    exchange = StandInExchange(
        201,
        '{"id": 42}',
        [("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2")],
    )
    col, chain, req = make_collection(
        phase="post_response",
        request_script=(
            "r = pigeon.response\n"
            "pigeon.setVar('user_id', r.json()['id'])\n"
            "print(r.status, r.ok, r.elapsed_ms, r.headers['content-type'], r.headers.get_list('SET-COOKIE'))\n"
            "print(r.headers['set-cookie'], 'x-none' in r.headers, r.headers.get('x-none'), len(r.headers))\n"
        ),
    )
    outcome, runtime = run("post_response", col, chain, req, exchange=exchange)
    assert outcome.ok, outcome.errors
    assert runtime.get("user_id") == 42
    assert [line.text for line in outcome.log] == [
        "201 True 12.5 application/json ['a=1', 'b=2']",
        "a=1, b=2 False None 2",
    ]


def test_response_is_not_available_before_the_request() -> None:
    col, chain, req = make_collection(request_script="pigeon.response.status\n")
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.errors[0].type == "RuntimeError"
    assert "only available in post_response" in outcome.errors[0].message


def test_a_response_that_is_not_json_explains_itself() -> None:
    exchange = StandInExchange(200, "<html>", [("Content-Type", "text/html")])
    col, chain, req = make_collection(
        phase="post_response", request_script="x = 1\npigeon.response.json()\n"
    )
    outcome, _ = run("post_response", col, chain, req, response=exchange)
    err = outcome.errors[0]
    assert err.line == 2 and err.type == "JSONDecodeError"
    assert "line 2" in err.traceback and "pigeon.response.json()" in err.traceback


def test_response_headers_mapping() -> None:
    headers = ResponseHeaders([("X-A", "1"), ("x-a", "2"), ("B", "3")])
    assert headers["x-A"] == "1, 2" and list(headers) == ["X-A", "B"]
    assert headers.get_list("X-A") == ["1", "2"] and headers.get("c") is None
    with pytest.raises(KeyError):
        headers["c"]
    assert ScriptResponse(StandInExchange(404, "", [])).ok is False


# -- assertions and errors ------------------------------------------------------------------


def test_failing_assert_is_a_test_failure_not_an_error_and_later_scripts_run() -> None:
    exchange = StandInExchange(500, "{}", [])
    col, chain, req = make_collection(
        phase="post_response",
        collection_script="\nassert pigeon.response.status == 200\nprint('not reached')\n",
        folder_scripts=("assert pigeon.response.status < 400, f'got {pigeon.response.status}'\n",),
        request_script="print('request script ran')\n",
    )
    outcome, _ = run("post_response", col, chain, req, response=exchange)
    assert outcome.errors == []
    assert outcome.ran == 3 and not outcome.ok
    first, second = outcome.assertion_failures
    assert (first.source, first.line, first.message) == (
        "collection",
        2,
        "assert 500 == 200 (pigeon.response.status == 200)",
    )
    assert (second.source, second.line, second.message) == ("f0/", 1, "got 500 (assert 500 < 400)")
    assert (
        second.summary()
        == "f0/folder.toml [scripts.post_response] line 1: assertion failed: got 500 (assert 500 < 400)"
    )
    assert outcome.output == ["[f0/req post_response] request script ran"]


def test_assert_in_a_pre_request_script_is_an_error() -> None:
    col, chain, req = make_collection(request_script="assert False, 'no'\n")
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.assertion_failures == []
    assert outcome.errors[0].type == "AssertionError" and outcome.errors[0].message == "no"


def test_a_script_error_stops_the_phase_and_keeps_the_process_alive() -> None:
    col, chain, req = make_collection(
        collection_script="pigeon.setVar('before', 1)\n",
        folder_scripts=("def helper(d):\n    return d['missing']\n\nhelper({})\n",),
        request_script="pigeon.setVar('after', 1)\n",
    )
    outcome, runtime = run("pre_request", col, chain, req)
    assert outcome.ran == 2 and outcome.not_run == ["f0/req"]
    err = outcome.errors[0]
    assert (err.source, err.type, err.message, err.line) == ("f0/", "KeyError", "'missing'", 2)
    assert 'File "f0/folder.toml [scripts.pre_request]", line 4, in <script>' in err.traceback
    assert 'File "f0/folder.toml [scripts.pre_request]", line 2, in helper' in err.traceback
    assert "return d['missing']" in err.traceback
    assert "pigeon/scripts/" not in err.traceback.replace("\\", "/")  # none of Pigeon's frames
    assert runtime.get("before") == 1 and "after" not in runtime


def test_syntax_error_names_the_line() -> None:
    col, chain, req = make_collection(request_script="x = 1\ny = (\n")
    outcome, _ = run("pre_request", col, chain, req)
    err = outcome.errors[0]
    assert err.type == "SyntaxError" and err.line == 2
    assert 'File "req.toml [scripts.pre_request]", line 2' in err.traceback


def test_exit_in_a_script_does_not_exit() -> None:
    col, chain, req = make_collection(request_script="import sys\nsys.exit(3)\n")
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.errors[0].type == "SystemExit"
    assert outcome.errors[0].message == "the script called exit(3)"


def test_scripts_compile_once_per_text() -> None:
    from pigeon.scripts.runner import _compile

    _compile.cache_clear()
    col, chain, req = make_collection(
        request_script="pigeon.setVar('n', (pigeon.getVar('n') or 0) + 1)\n"
    )
    runtime = RuntimeVars()
    for _ in range(5):
        run("pre_request", col, chain, req, runtime)
    assert runtime.get("n") == 5
    info = _compile.cache_info()
    assert info.misses == 1 and info.hits == 4


def test_a_script_may_replace_the_request_with_another_request() -> None:
    col, chain, req = make_collection(
        request_script=(
            "import dataclasses\n"
            "pigeon.request = dataclasses.replace(pigeon.request, method='DELETE')\n"
            "pigeon.setHeader('X-After', 'yes')\n"
            "pigeon.request = 'GET /'\n"
        )
    )
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.request.method == "DELETE"
    assert [h.name for h in outcome.request.headers] == ["X-After"]
    assert outcome.errors[0].type == "TypeError" and outcome.errors[0].line == 4
    assert req.method == "GET" and req.headers == []


def test_labels_and_filenames_name_the_files_of_a_loaded_collection(tmp_path: Path) -> None:
    from pigeon.store import load_collection

    (tmp_path / "users").mkdir()
    (tmp_path / "collection.toml").write_text(
        "name = \"c\"\n[scripts]\npre_request = '''\nprint('c')\n'''\n", encoding="utf-8"
    )
    (tmp_path / "users" / "folder.toml").write_text(
        "[scripts]\npre_request = '''\nprint('f')\n'''\n", encoding="utf-8"
    )
    (tmp_path / "users" / "create-user.toml").write_text(
        "name = \"Create\"\n[scripts]\npre_request = '''\nraise RuntimeError('boom')\n'''\n",
        encoding="utf-8",
    )
    col = load_collection(tmp_path)
    assert col.broken == []
    chain, req = col.find("users/create-user")  # type: ignore[misc]
    sources = script_sources(col, chain, req, "pre_request")
    for source in sources:
        assert (tmp_path / source.filename.split(" [")[0]).is_file()
    outcome, _ = run("pre_request", col, chain, req)
    assert outcome.output == ["[collection pre_request] c", "[users/ pre_request] f"]
    assert outcome.errors[0].summary() == (
        "users/create-user.toml [scripts.pre_request] line 1: RuntimeError: boom"
    )


def test_scripts_edit_their_own_copy_of_the_response_json() -> None:
    exchange = StandInExchange(200, '{"token": "t", "n": 1}', [])
    cached = exchange.json()
    exchange.json = lambda: cached  # type: ignore[method-assign]  # an exchange that caches
    col, chain, req = make_collection(
        phase="post_response",
        request_script="d = pigeon.response.json()\nd.pop('token')\nprint(pigeon.response.json())\n",
    )
    outcome, _ = run("post_response", col, chain, req, response=exchange)
    assert outcome.output == ["[req post_response] {'n': 1}"]
    assert cached == {"token": "t", "n": 1}
