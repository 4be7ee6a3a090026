"""Auth kinds are declared once (``pigeon.auth_kinds``): a kind's name is written in at most
two modules of the package outside the importers (the table, and at most one other where the
same word means something else: the echo server's ``Bearer`` check, OAuth 2.0's ``basic``
client authentication), no other module branches on an auth's type, every field of ``Auth``
is declared in the table, and a new kind plugs in with its class alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pigeon
from pigeon.auth_kinds import (
    AUTH_TYPES,
    FIELDS,
    INHERIT,
    KINDS,
    NONE,
    TOKEN,
    Auth,
    AuthKind,
    OAuth2,
    Pairs,
    Render,
    editor_fields,
)
from pigeon.exporters.curl import curl_argv
from pigeon.model import Collection, Request
from pigeon.render import render_request
from pigeon.scopes import build_scopes
from pigeon.store.schema import AUTH_KEYS, OAUTH2_KEYS

PACKAGE = Path(pigeon.__file__).parent
TABLE = PACKAGE / "auth_kinds.py"


def core_files() -> list[Path]:
    """The package's modules, the importers left out (they map other tools' names to kinds)."""
    return [p for p in sorted(PACKAGE.rglob("*.py")) if "importers" not in p.parts]


def string_constants(source: str) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def modules_naming(word: str, files: list[Path], root: Path = PACKAGE) -> list[str]:
    """The modules that write ``word`` as a string of its own."""
    return [
        str(p.relative_to(root))
        for p in files
        if word in string_constants(p.read_text(encoding="utf-8"))
    ]


def _is_auth_type(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "type"
        and "auth" in ast.unparse(node.value).lower()
    )


def _is_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_name(e) for e in node.elts)
    return False


def branches_on_auth_type(source: str) -> list[str]:
    """Every comparison of an auth's ``type`` with a written name, and every ``Auth(type=...)``
    given one."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_auth_type(o) for o in operands) and any(_is_name(o) for o in operands):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Match) and _is_auth_type(node.subject):
            found.append(ast.unparse(node.subject))
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("Auth")
            and any(k.arg == "type" and _is_name(k.value) for k in node.keywords)
        ):
            found.append(ast.unparse(node))
    return found


# "none" is also a body type and a word of messages; the test below keeps it off every branch.
NAMED = [name for name in (*AUTH_TYPES, INHERIT) if name != NONE.name]


@pytest.mark.parametrize("name", NAMED)
def test_a_kind_is_named_in_the_table_and_at_most_one_other_module(name: str) -> None:
    found = modules_naming(name, core_files())
    assert "auth_kinds.py" in found
    assert len(found) <= 2, found


def test_no_module_but_the_table_branches_on_an_auth_type() -> None:
    found = {
        str(p.relative_to(PACKAGE)): hits
        for p in core_files()
        if p != TABLE and (hits := branches_on_auth_type(p.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_scans_see_a_name_and_a_branch_however_written(tmp_path: Path) -> None:
    """The two checks above can fail."""
    source = (
        'if auth.type == "digest":\n    pass\n'
        'if rendered.flow_auth.type in ("digest", "aws_sigv4"):\n    pass\n'
        "match self.auth.type:\n    case _:\n        pass\n"
        'x = Auth(type="bearer")\n'
        'if body.type == "none":\n    pass\n'
    )
    assert sorted(branches_on_auth_type(source)) == [
        "Auth(type='bearer')",
        "auth.type == 'digest'",
        "rendered.flow_auth.type in ('digest', 'aws_sigv4')",
        "self.auth.type",
    ]
    files = []
    for name, text in {
        "a.py": 'KIND = "digest"\n',
        "b.py": '"""A digest of the text."""\nx = "a digest"\n',
    }.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(tmp_path / name)
    assert modules_naming("digest", files, tmp_path) == ["a.py"]


def test_every_field_of_the_settings_is_declared_once_and_the_store_knows_it() -> None:
    structural = {"type", "extra", "oauth2"}
    declared = [(f.oauth2, f.name) for f in FIELDS]
    assert len(declared) == len(set(declared))
    assert {n for o, n in declared if not o} == set(Auth.__dataclass_fields__) - structural
    assert {n for o, n in declared if o} == set(OAuth2.__dataclass_fields__)
    assert set(AUTH_KEYS) == {"type", *(n for o, n in declared if not o)}
    assert set(OAUTH2_KEYS) == {n for o, n in declared if o}
    for kind in KINDS.values():
        assert set(kind.fields) <= set(FIELDS), kind.name


def test_the_editor_rows_keep_every_kinds_order() -> None:
    rows = editor_fields()
    assert len(rows) == len(set(rows)) == len([f for f in FIELDS if not f.table])
    for kind in KINDS.values():
        own = [f for f in kind.fields if not f.table]
        assert [f for f in rows if f in own] == own, kind.name


class _Signed(AuthKind):
    """A header-style kind that exists only here."""

    name = "x_signed"
    fields = (TOKEN,)
    scheme = "Signed"

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        return [("Authorization", f"{self.scheme} {render(auth.token)}")], []


def test_a_new_header_kind_is_its_class_and_its_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(KINDS, _Signed.name, _Signed())
    collection = Collection(name="c", root=Path("."), variables={"t": "abc"})
    request = Request(name="r", method="GET", url="http://127.0.0.1/")
    request.auth = Auth(type=_Signed.name, token="{{t}}")
    scopes = build_scopes(collection, [], request, environ={})
    rendered = render_request(collection, [], request, scopes)
    assert rendered.header("Authorization") == "Signed abc"
    assert rendered.auth_headers == ["Authorization"]
    assert "Signed abc" in " ".join(curl_argv(rendered))


def test_readmes_auth_examples_name_every_kind_and_only_known_keys(tmp_path: Path) -> None:
    """Each ``[auth]`` example of the guide's auth page loads with no unknown key, and every
    kind has one."""
    import re
    import tomllib

    from pigeon.store import load_collection

    page = (PACKAGE.parents[1] / "docs" / "guide" / "auth.md").read_text(encoding="utf-8")
    section = page[: page.index("\n## OAuth 2.0")]
    blocks = re.findall(r"```toml[^\n]*\n(\[auth\].*?)```", section, re.S)
    (tmp_path / "collection.toml").write_text('name = "c"\n', encoding="utf-8")
    types = set()
    for i, block in enumerate(blocks):
        types.add(tomllib.loads(block)["auth"]["type"])
        text = f'name = "r{i}"\nurl = "http://x"\n\n{block}'
        (tmp_path / f"r{i}.toml").write_text(text, encoding="utf-8")
    collection = load_collection(tmp_path)
    assert collection.broken == [] and collection.warnings == []
    assert types | {"oauth2", NONE.name} == set(AUTH_TYPES) - {"negotiate"}
