"""jq beside JMESPath and JSONPath: which language an expression is, jq's results and errors,
and the bounds that keep a hostile program from hanging or filling memory."""

from __future__ import annotations

import json
import threading
import time

import pytest

from pigeon.bodies import jq_filter
from pigeon.bodies.cancel import Stopped
from pigeon.bodies.filter import FilterError, apply_filter, split_language
from pigeon.bodies.jq_filter import run_jq

pytestmark = pytest.mark.timeout(60)

DOC = json.dumps({"items": [{"name": "a", "n": 1}, {"name": "é", "n": 5}]})


@pytest.mark.parametrize(
    ("expression", "language", "rest"),
    [
        (".items[0]", "jq", ".items[0]"),
        ("  .", "jq", "."),
        ("jq: map(.n)", "jq", "map(.n)"),
        ("jq:keys", "jq", "keys"),
        ("$.items[*]", "jsonpath", "$.items[*]"),
        ("jsonpath: $..name", "jsonpath", "$..name"),
        ("items[0].name", "jmespath", "items[0].name"),
        ("jmespath: .weird", "jmespath", ".weird"),
        ("[items[0], total]", "jmespath", "[items[0], total]"),
    ],
)
def test_the_language_is_the_prefix_or_the_first_character(
    expression: str, language: str, rest: str
) -> None:
    assert split_language(expression) == (language, rest)


def test_each_language_filters_the_same_document() -> None:
    data = json.loads(DOC)
    assert apply_filter(data, ".items[].name") == ["a", "é"]
    assert apply_filter(data, "jq: [.items[] | select(.n > 2) | .name]") == [["é"]]
    assert apply_filter(data, "items[?n > `2`].name") == ["é"]
    pytest.importorskip("jsonpath_ng")
    assert apply_filter(data, "$.items[*].name") == ["a", "é"]


def test_jq_results_are_pretty_and_one_after_another() -> None:
    result = run_jq(".items[]", DOC)
    assert result.text == '{\n  "name": "a",\n  "n": 1\n}\n{\n  "name": "é",\n  "n": 5\n}\n'
    assert not result.cut
    assert run_jq("empty", DOC).text == ""


@pytest.mark.parametrize(
    ("program", "body", "expected"),
    [
        (".[", DOC, "jq: syntax error, unexpected end of file"),
        (".items.name", DOC, "jq: Cannot index array with"),
        (".", "{not json", "jq: parse error"),
        ('error("boom\\nline two")', DOC, "jq: boom"),
    ],
)
def test_jq_errors_are_one_line(program: str, body: str, expected: str) -> None:
    with pytest.raises(FilterError) as caught:
        run_jq(program, body)
    message = str(caught.value)
    assert message.startswith(expected), message
    assert "\n" not in message and "^" not in message


def test_endless_output_is_cut_at_the_limit() -> None:
    result = run_jq("repeat(.)", '"x"', output_limit=10_000)
    assert result.cut
    assert len(result.text) == 10_000 and result.text.startswith('"x"\n"x"\n')


@pytest.mark.parametrize("program", ["def f: f; f", "last(range(1e15))"])
def test_a_program_that_never_ends_is_stopped_at_the_time_limit(program: str) -> None:
    started = time.monotonic()
    with pytest.raises(FilterError, match=r"jq: stopped after 1 s"):
        run_jq(program, "null", time_limit=1.0)
    assert time.monotonic() - started < 10  # killed, not waited for


def test_a_program_that_fills_memory_dies_at_the_memory_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cap is some 85 MiB above what the child holds with jq loaded (15 MiB), and the
    program would fill gigabytes: each MiB it fills first costs CPU, nothing more."""
    monkeypatch.setattr(jq_filter, "MEMORY_LIMIT", 100 * 1024 * 1024)
    with pytest.raises(FilterError, match=r"jq: stopped: out of memory \(the limit is 100 MiB\)"):
        run_jq("[range(1e9)]", "null", time_limit=50.0)


def test_cancelling_kills_the_child_at_once() -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Stopped):
        run_jq("def f: f; f", "null", cancelled=cancel.is_set, time_limit=50.0)
    assert time.monotonic() - started < 10


def test_escapes_stay_escaped_and_invalid_utf8_is_replaced() -> None:
    assert run_jq(".", b'"\\u001b[31m \xff"').text == '"\\u001b[31m \ufffd"\n'


def test_a_body_larger_than_a_pipe_buffer_reaches_jq() -> None:
    body = json.dumps({"items": [{"n": n, "pad": "x" * 100} for n in range(20_000)]})
    assert len(body) > 1_000_000
    assert run_jq(".items | length", body).text == "20000\n"


def test_endless_debug_output_on_stderr_is_not_kept() -> None:
    with pytest.raises(FilterError, match="jq: stopped after 1 s"):
        run_jq("repeat(debug) | empty", '"x"', time_limit=1.0)


def test_without_the_jq_library_a_jq_filter_says_so(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where jq cannot be installed, a jq filter fails in one line naming what is missing."""
    (tmp_path / "jq.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'jq'\", name='jq')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with pytest.raises(FilterError) as caught:
        apply_filter({"a": 1}, ".a")
    assert str(caught.value).startswith("jq is not installed")
    assert apply_filter({"a": 1}, "a") == 1  # JMESPath goes on
