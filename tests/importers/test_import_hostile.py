"""Imports of documents and files made to hurt end in one clear line, exit 0 (with notes) or 2,
within 256 MB and a few seconds: YAML whose aliases expand to billions of nodes, OpenAPI whose
``$ref``s multiply, JSON nested 100,000 deep, ``/dev/zero`` and files over the size limit,
variables nested past ``values.MAX_DEPTH``. Each hostile import runs ``python -m pigeon import``
as a child process whose peak memory and time are measured."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from measured import pigeon
from pigeon.importers import write_import
from pigeon.importers.common import FILE_LIMIT, ImportResult
from pigeon.importers.documents import ALIAS_BUDGET, MAX_NESTING, load_json, load_yaml
from pigeon.importers.openapi import EXAMPLE_BUDGET, TOTAL_BUDGET
from pigeon.model import Request
from pigeon.values import MAX_DEPTH

LAUGHS = """\
openapi: 3.0.0
info: {title: laughs, version: "1"}
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
paths:
  /x:
    post:
      requestBody:
        content:
          application/json:
            example: *i
"""

DEEP = 100_000


@pytest.mark.slow
def test_yaml_billion_laughs_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "laughs.yaml").write_text(LAUGHS)
    run = pigeon("import", "openapi", "laughs.yaml", "--into", "out", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 2
    assert f"laughs.yaml:7:4: YAML aliases expand past {ALIAS_BUDGET:,} nodes" in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_yaml_merge_keys_that_multiply_are_refused() -> None:
    lines = ['a0: &a0 {k: "v"}']
    lines += [f"a{n}: &a{n} {{<<: [{', '.join([f'*a{n - 1}'] * 9)}]}}" for n in range(1, 10)]
    with pytest.raises(ValueError, match="YAML aliases expand past"):
        load_yaml("\n".join(lines))


def test_yaml_aliases_within_budget_and_self_reference() -> None:
    assert load_yaml("a: &a [1, 2]\nb: [*a, *a]\n") == {"a": [1, 2], "b": [[1, 2], [1, 2]]}
    with pytest.raises(ValueError, match="refers to a node holding it"):
        load_yaml("a: &a [1, *a]\n")


@pytest.mark.slow
def test_posting_request_with_laughs_is_skipped_with_a_note(tmp_path: Path) -> None:
    col = tmp_path / "posting"
    col.mkdir()
    (col / "laughs.posting.yaml").write_text(LAUGHS.replace("openapi: 3.0.0\n", "name: x\n"))
    (col / "ok.posting.yaml").write_text("name: ok\nmethod: GET\nurl: http://x.test/\n")
    run = pigeon("import", "posting", "posting", "--into", "out", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 0
    assert "laughs.posting.yaml: line 7 YAML aliases expand past" in run.err
    assert (tmp_path / "out" / "ok.toml").exists()


def _openapi_refs(width: int, levels: int) -> dict:
    """Schemas ``L{level}_{i}`` whose ``width`` properties each refer to a distinct schema one
    level down: ``width ** levels`` values once expanded."""
    schemas: dict[str, dict] = {}
    for level in range(levels):
        for i in range(width):
            props = {
                f"p{j}": {"$ref": f"#/components/schemas/L{level + 1}_{(i + j) % width}"}
                if level < levels - 1
                else {"type": "string"}
                for j in range(width)
            }
            schemas[f"L{level}_{i}"] = {"type": "object", "properties": props}
    schema = {"$ref": "#/components/schemas/L0_0"}
    return {
        "openapi": "3.0.0",
        "info": {"title": "refs", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            f"/r{n}": {
                "post": {"requestBody": {"content": {"application/json": {"schema": schema}}}}
            }
            for n in range(60)
        },
        "components": {"schemas": schemas},
    }


@pytest.mark.slow
def test_openapi_refs_that_multiply_end_fast_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "refs.json").write_text(json.dumps(_openapi_refs(12, 9)))
    run = pigeon("import", "openapi", "refs.json", "--into", "out", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 0, run.err
    assert f"POST /r0: the example built from its schema is cut at {EXAMPLE_BUDGET:,}" in run.err
    assert f"expanded to {TOTAL_BUDGET:,} values, the most one import builds" in run.err
    assert len(list((tmp_path / "out").glob("*.toml"))) == 61  # 60 requests, collection.toml


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["postman", "openapi"])
def test_json_nested_100000_deep_is_exit_2_naming_file_line_column(
    tmp_path: Path, kind: str
) -> None:
    head = '{"openapi": "3.0.0", "item": [], "x": '
    (tmp_path / "deep.json").write_text(head + "[" * DEEP + "]" * DEEP + "}")
    run = pigeon("import", kind, "deep.json", "--into", "out", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 2
    column = len(head) + MAX_NESTING  # the bracket that opens level MAX_NESTING + 1
    assert (
        f"deep.json:1:{column}: objects and arrays nest more than {MAX_NESTING} levels deep"
        in run.err
    )
    assert len(run.err.strip().splitlines()) == 1


def test_deep_json_and_yaml_in_process() -> None:
    assert load_json("[" * MAX_NESTING + "]" * MAX_NESTING) is not None
    with pytest.raises(ValueError, match="nest more than"):
        load_json("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1))
    assert load_yaml("x: " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)) is not None
    with pytest.raises(ValueError, match="nest more than") as caught:
        load_yaml("x: " + "[" * (MAX_NESTING + 5) + "]" * (MAX_NESTING + 5))
    assert (caught.value.line, caught.value.column) == (1, 3 + MAX_NESTING)


def test_variable_nested_past_max_depth_is_dropped_with_a_note(tmp_path: Path) -> None:
    deep: object = "leaf"
    for _ in range(MAX_DEPTH + 10):
        deep = [deep]
    result = ImportResult(variables={"deep": deep, "fine": [[1]]})
    result.requests.append(("", Request(name="one", url="http://x.test/")))
    write_import(result, tmp_path)
    assert (
        f"variable deep: objects and arrays nest more than {MAX_DEPTH} levels deep; "
        'its value is dropped (imported as "")'
    ) in result.notes
    text = (tmp_path / "collection.toml").read_text()
    assert 'deep = ""' in text and "fine = [[1]]" in text


# -- local files an import reads ----------------------------------------------------------------


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as fh:
        fh.truncate(size)  # no disk used: a hole
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "source", "text"),
    [
        ("curl", "cmd.sh", "curl -d @{file} http://x.test/\n"),
        ("http", "req.http", "POST http://x.test/\n\n<@ {file}\n"),  # "<" reads none
    ],
)
@pytest.mark.parametrize("target", ["/dev/zero", "big.bin"])
def test_import_reading_dev_zero_or_a_huge_file_is_a_note(
    tmp_path: Path, kind: str, source: str, text: str, target: str
) -> None:
    if target == "big.bin":
        _sparse(tmp_path / "big.bin", 1_200_000_000)
    (tmp_path / source).write_text(text.format(file=target))
    run = pigeon("import", kind, source, "--into", "out", "--allow-outside", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 0, run.err
    if target == "big.bin":
        assert f"1.2 GB, over the {FILE_LIMIT // 1_000_000} MB limit" in run.err
    else:
        assert "/dev/zero" in run.err and "not a regular file" in run.err
    assert len(list((tmp_path / "out").glob("*.toml"))) == 2


@pytest.mark.slow
def test_posting_request_file_that_is_dev_zero_is_skipped(tmp_path: Path) -> None:
    col = tmp_path / "posting"
    col.mkdir()
    os.symlink("/dev/zero", col / "zero.posting.yaml")
    (col / "ok.posting.yaml").write_text("name: ok\nmethod: GET\nurl: http://x.test/\n")
    run = pigeon("import", "posting", "posting", "--into", "out", "--allow-outside", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 0, run.err
    assert "zero.posting.yaml: cannot read" in run.err and "not a regular file" in run.err


@pytest.mark.slow
def test_source_over_the_document_limit_is_refused(tmp_path: Path) -> None:
    _sparse(tmp_path / "huge.json", 1_200_000_000)
    run = pigeon("import", "postman", "huge.json", "--into", "out", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 2
    assert "huge.json is 1.2 GB, over the 20 MB limit; not imported" in run.err
