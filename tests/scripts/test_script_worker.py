"""Scripts in a worker process (DESIGN §8): the pigeon object across the pipe, and a time
limit, a cancel, a memory limit and an output cap that stop or bound any script.

Deadlines: the feature promises a runaway script stops within 0.5 s of its trigger; these tests
allow ``STOP_BOUND`` (0.5 s plus a 1.0 s margin for a loaded 2-core CI box). A thread-based
runner never stops the C call or the sleep at all, so the bound still tells the two apart.
"""

from __future__ import annotations

import asyncio
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from collection_files import write
from pigeon.model import Collection, Folder, Request, Scripts
from pigeon.pipeline import RunContext, execute
from pigeon.scopes import RuntimeVars, build_scopes
from pigeon.scripts import ScriptOutcome, ScriptWorker
from pigeon.store import load_collection
from processes import gone

STOP_BOUND = 1.5  # seconds: the promised 0.5 s plus a 1.0 s margin

RUNAWAYS = {
    "busy loop": "while True:\n    pass\n",
    "sleep": "import time\ntime.sleep(3600)\n",
    "catastrophic regex": "import re\nre.match(r'(a+)+$', 'a' * 40 + 'b')\n",
    "C call": "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 10**9)\n",
}


def one_request(
    tmp_path: Path, script: str, phase: str = "pre_request"
) -> tuple[Collection, Request]:
    col = Collection("c", tmp_path, variables={"greeting": "hello {{who}}", "who": "Ada"})
    req = Request("r", id="r", url="http://127.0.0.1:9/x", scripts=Scripts(**{phase: script}))
    col.items.append(req)
    return col, req


async def run(
    worker: ScriptWorker,
    col: Collection,
    req: Request,
    runtime: RuntimeVars | None = None,
    *,
    phase: str = "pre_request",
    timeout: float | None = 30,
    trusted: bool = True,
    exchange: Any = None,
) -> ScriptOutcome:
    runtime = runtime if runtime is not None else RuntimeVars()
    scopes = build_scopes(col, [], req, runtime=runtime, environ={"HOME_X": "/h"})
    return await worker.run_scripts(
        phase, col, [], req, scopes, runtime, trusted=trusted, exchange=exchange, timeout=timeout
    )


@pytest.fixture(name="worker")
async def worker_fixture(tmp_path: Path):
    worker = ScriptWorker(tmp_path)
    yield worker
    worker.kill()


async def warm(worker: ScriptWorker, tmp_path: Path) -> int:
    """Start the worker with a trivial script; its pid."""
    col, req = one_request(tmp_path, "pass\n")
    assert (await run(worker, col, req)).ok
    assert worker.pid is not None
    return worker.pid


# -- the pigeon object across the pipe ------------------------------------------------------


async def test_variables_render_request_edits_env_and_output_cross_the_pipe(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    script = """
import os
assert pigeon.getVar("when") == date(2024, 2, 29) and type(pigeon.getVar("when")) is date
pigeon.setVar("at", datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2))))
pigeon.setVar("day", date(2025, 12, 31))
pigeon.setVar("n", pigeon.getVar("n") + 1)
pigeon.deleteVar("gone")
pigeon.setHeader("X-Edited", pigeon.render("{{greeting}}"))
pigeon.request.url += "/more"
print("cwd", os.getcwd(), pigeon.env["HOME_X"])
pigeon.log("logged", 1)
"""
    col, req = one_request(tmp_path, script)
    runtime = RuntimeVars({"when": date(2024, 2, 29), "n": 41, "gone": "x"})
    outcome = await run(worker, col, req, runtime)
    assert outcome.ok, outcome.errors
    at = runtime.get("at")
    assert type(at) is datetime and at.utcoffset() == timedelta(hours=2)
    assert type(runtime.get("day")) is date and runtime.get("n") == 42
    assert "gone" not in runtime
    assert outcome.request is not req and req.headers == []  # the original is left alone
    assert [(h.name, h.value) for h in outcome.request.headers] == [("X-Edited", "hello Ada")]
    assert outcome.request.url == "http://127.0.0.1:9/x/more"
    assert outcome.output == [f"[r pre_request] cwd {tmp_path} /h", "[r pre_request] logged 1"]
    assert outcome.ran == 1


async def test_an_error_keeps_what_was_set_before_and_names_the_file_and_line(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    col, req = one_request(tmp_path, "pigeon.setVar('a', 1)\nprint('before')\n1 / 0\n")
    runtime = RuntimeVars()
    outcome = await run(worker, col, req, runtime)
    assert runtime.get("a") == 1 and outcome.output == ["[r pre_request] before"]
    (error,) = outcome.errors
    assert error.type == "ZeroDivisionError" and error.line == 3
    assert 'File "r.toml [scripts.pre_request]", line 3' in error.traceback
    assert (
        error.summary()
        == "r.toml [scripts.pre_request] line 3: ZeroDivisionError: division by zero"
    )


async def test_post_response_reads_a_real_exchange_and_fails_an_assertion(
    tmp_path: Path, echo_url: str
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    script = (
        "body = pigeon.response.json()\n"
        "pigeon.setVar('status', pigeon.response.status)\n"
        "pigeon.setVar('ctype', pigeon.response.headers['content-type'])\n"
        "pigeon.setVar('size', len(pigeon.response.body))\n"
        "assert pigeon.response.text.startswith('{')\n"
        "assert body['method'] == 'POST', 'not a post'\n"
    )
    write(
        root,
        "r.toml",
        f"name = \"r\"\nurl = \"{{{{base}}}}/get\"\n[scripts]\npost_response = '''\n{script}'''\n",
    )
    collection = load_collection(root)
    found = collection.find("r")
    assert found is not None
    ctx = RunContext(collection, trusted=True)
    try:
        result = await execute(ctx, *found)
    finally:
        await ctx.aclose()
    assert result.exchange is not None and result.exchange.status == 200
    assert ctx.runtime.get("status") == 200
    assert ctx.runtime.get("ctype").startswith("application/json")
    assert ctx.runtime.get("size") == len(result.exchange.body)
    (failure,) = result.assertion_failures
    assert failure.message == "not a post (assert 'GET' == 'POST')" and failure.line == 6
    assert ctx.scripts is not None and ctx.scripts.pid is None  # killed by aclose


async def test_an_untrusted_collection_never_starts_a_worker(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    col, req = one_request(tmp_path, "pigeon.setVar('a', 1)\n")
    outcome = await run(worker, col, req, trusted=False)
    assert outcome.skipped_untrusted and worker.starts == 0 and worker.pid is None


async def test_a_request_without_scripts_never_starts_a_worker(
    tmp_path: Path, echo_url: str
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "c"\n')
    write(root, "r.toml", f'name = "r"\nurl = "{echo_url}/get"\n')
    collection = load_collection(root)
    found = collection.find("r")
    assert found is not None
    ctx = RunContext(collection, trusted=True)
    try:
        assert (await execute(ctx, *found)).passed
    finally:
        await ctx.aclose()
    assert ctx.scripts is None


# -- stopping a runaway script --------------------------------------------------------------


@pytest.mark.parametrize("kind", RUNAWAYS)
async def test_the_time_limit_kills_a_runaway_script(
    worker: ScriptWorker, tmp_path: Path, kind: str
) -> None:
    pid = await warm(worker, tmp_path)
    col, req = one_request(tmp_path, "pigeon.setVar('started', True)\n" + RUNAWAYS[kind])
    runtime = RuntimeVars()
    started = time.monotonic()
    outcome = await run(worker, col, req, runtime, timeout=0.5)
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 0.5 + STOP_BOUND
    assert runtime.get("started") is True  # set before the limit: kept
    (error,) = outcome.errors
    assert error.summary() == (
        "r.toml [scripts.pre_request]: pre_request script timed out after 0.5 s; stopped"
    )
    assert error.type == "TimedOut" and gone(pid) and worker.pid is None


@pytest.mark.parametrize("kind", RUNAWAYS)
async def test_cancelling_kills_a_runaway_script_at_once(
    worker: ScriptWorker, tmp_path: Path, kind: str
) -> None:
    await warm(worker, tmp_path)
    col, req = one_request(tmp_path, "pigeon.setVar('started', True)\n" + RUNAWAYS[kind])
    runtime = RuntimeVars()
    task = asyncio.create_task(run(worker, col, req, runtime, timeout=None))
    deadline = time.monotonic() + 20
    while runtime.get("started") is not True:
        assert time.monotonic() < deadline and not task.done()
        await asyncio.sleep(0.01)
    pid = worker.pid
    assert pid is not None
    triggered = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    while not gone(pid):
        assert time.monotonic() - triggered < STOP_BOUND
        await asyncio.sleep(0.01)
    assert time.monotonic() - triggered < STOP_BOUND
    assert worker.pid is None


async def test_kill_stops_a_script_from_outside_the_awaiting_task(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    """What the app's quit does: the send is still awaiting when the session closes."""
    col, req = one_request(
        tmp_path, "pigeon.setVar('started', True)\nimport time\ntime.sleep(60)\n"
    )
    runtime = RuntimeVars()
    task = asyncio.create_task(run(worker, col, req, runtime, timeout=None))
    deadline = time.monotonic() + 20
    while runtime.get("started") is not True:
        assert time.monotonic() < deadline and not task.done()
        await asyncio.sleep(0.01)
    pid = worker.pid
    assert pid is not None
    triggered = time.monotonic()
    worker.kill()
    outcome = await asyncio.wait_for(task, STOP_BOUND)
    assert time.monotonic() - triggered < STOP_BOUND and gone(pid)
    assert outcome.errors[0].message == "pre_request script cancelled; stopped"


async def test_a_killed_worker_is_restarted_for_the_next_script(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    first = await warm(worker, tmp_path)
    col, req = one_request(tmp_path, "while True:\n    pass\n")
    assert (await run(worker, col, req, timeout=0.3)).errors[0].type == "TimedOut"
    col, req = one_request(tmp_path, "pigeon.setVar('pid', __import__('os').getpid())\n")
    runtime = RuntimeVars()
    assert (await run(worker, col, req, runtime)).ok
    assert runtime.get("pid") == worker.pid != first and worker.starts == 2
    again = RuntimeVars()
    assert (await run(worker, col, req, again)).ok
    assert again.get("pid") == worker.pid and worker.starts == 2  # reused


async def test_a_worker_that_exits_is_reported_and_replaced(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    col, req = one_request(tmp_path, "import os\nos._exit(3)\n")
    outcome = await run(worker, col, req)
    assert outcome.errors[0].summary() == (
        "r.toml [scripts.pre_request]: the script worker exited (code 3); stopped"
    )
    await warm(worker, tmp_path)


# -- bounds ---------------------------------------------------------------------------------


async def test_a_memory_hog_is_stopped_by_the_memory_limit(tmp_path: Path) -> None:
    worker = ScriptWorker(tmp_path, memory_mb=256)
    col, req = one_request(
        tmp_path, "pigeon.setVar('before', 1)\nx = []\nwhile True:\n    x.append(' ' * 10**6)\n"
    )
    runtime = RuntimeVars()
    try:
        outcome = await run(worker, col, req, runtime)
        (error,) = outcome.errors
        assert error.message == "script ran out of memory (limit 256 MB)"
        assert error.type == "OutOfMemory" and runtime.get("before") == 1
        await warm(worker, tmp_path)  # the app, and the worker, go on
    finally:
        worker.kill()


async def test_output_is_capped_per_script_and_the_rest_counted(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    col, req = one_request(tmp_path, "print('y' * 3_000_000)\nprint('after')\n")
    outcome = await run(worker, col, req)
    assert outcome.ok
    kept = "".join(line.text for line in outcome.log[:-1])
    assert kept == "y" * 1024 * 1024
    assert outcome.log[-1].text == f"... {3_000_001 + 6 - 1024 * 1024:,} more bytes not shown"


async def test_a_stopped_phase_names_the_script_that_was_running(
    worker: ScriptWorker, tmp_path: Path
) -> None:
    col, req = one_request(tmp_path, "pigeon.setVar('request', 1)\n")
    col.scripts = Scripts(pre_request="pigeon.setVar('collection', 1)\n")
    folder = Folder("f", id="f", scripts=Scripts(pre_request="import time\ntime.sleep(60)\n"))
    runtime = RuntimeVars()
    scopes = build_scopes(col, [folder], req, runtime=runtime)
    outcome = await worker.run_scripts(
        "pre_request", col, [folder], req, scopes, runtime, trusted=True, timeout=0.5
    )
    (error,) = outcome.errors
    assert error.filename == "f/folder.toml [scripts.pre_request]" and error.type == "TimedOut"
    assert outcome.ran == 2 and outcome.not_run == ["r"]
    assert runtime.as_dict() == {"collection": 1}
