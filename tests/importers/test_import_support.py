"""What every import shares: unknown kinds, writing into a collection, folder settings, names."""

from __future__ import annotations

from pathlib import Path

from pigeon.store import load_collection
from render_support import chain_names, render_alone, render_written  # noqa: F401


def test_an_unknown_kind_is_a_clear_value_error(tmp_path: Path) -> None:
    import pytest

    from pigeon.importers import ImportFailed, run_import

    with pytest.raises(ImportFailed, match="unknown import kind 'soapui'") as exc:
        run_import("soapui", "x", tmp_path)
    assert isinstance(exc.value, ValueError)
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_offers_the_one_list_of_import_kinds() -> None:
    from pigeon.cli import build_parser
    from pigeon.importers import KINDS

    kind = next(a for a in build_parser()["import"]._actions if a.dest == "kind")
    assert tuple(kind.choices or ()) == KINDS


PETSTORE = Path(__file__).parents[1] / "data" / "openapi" / "petstore.yaml"
MINE = """\
# Shared by the whole team: edit by hand, keep the comments.
name = "Mine"

[variables]
base_url = "http://127.0.0.1:1/v1"  # the local stub
"""
MINE_PRODUCTION = """\
# Production: read-only keys only.
[variables]
base_url = "https://prod.example.test/v1"
"""


def test_import_into_an_existing_collection_adds_what_it_lacks_and_overwrites_nothing(
    tmp_path: Path,
) -> None:
    from pigeon.importers import run_import

    into = tmp_path / "mine"
    (into / "environments").mkdir(parents=True)
    (into / "collection.toml").write_text(MINE)
    (into / "environments" / "production.toml").write_text(MINE_PRODUCTION)
    written, notes = run_import("openapi", str(PETSTORE), into)
    merged = (into / "collection.toml").read_text()
    assert merged.startswith(MINE)  # its comments, its base_url: as they were
    col = load_collection(into)
    assert col.variables["base_url"] == "http://127.0.0.1:1/v1"
    assert col.variables["token"] == "" and col.variables["petId"] == 7  # added
    assert col.auth is not None and col.auth.type == "bearer"  # it had none
    assert (into / "environments" / "production.toml").read_text() == MINE_PRODUCTION
    assert into / "collection.toml" not in written
    assert [p.name for p in written if p.parent.name == "environments"] == ["local.toml"]
    added = [n for n in notes if n.startswith("collection.toml exists: variables ")]
    assert len(added) == 1 and "token" in added[0] and "petId" in added[0]
    assert added[0].endswith(" and auth (bearer) added to it")
    for line in [
        "variable base_url not written: collection.toml exists and keeps base_url = "
        '"http://127.0.0.1:1/v1" (imported: "https://eu.petstore.example.test/v1")',
        "variable base_url not written: environments/production.toml exists and keeps "
        'base_url = "https://prod.example.test/v1" '
        '(imported: "https://eu.petstore.example.test/v1")',
    ]:
        assert line in notes
    assert not any("by hand" in n and "collection.toml" in n for n in notes)
    assert not any(n.startswith("auth (bearer) not written") for n in notes)
    # The API-wide auth is the collection's now; those with their own keep theirs.
    (into / ".env").write_text("")
    r = render_written(into, "pets/list-pets", environ={})
    assert r.url == "http://127.0.0.1:1/v1/pets?limit=20"
    assert r.header("authorization") == "Bearer "  # the token variable, empty until set
    assert render_written(into, "log-in").header("authorization") is None
    assert "[auth]" not in (into / "pets" / "list-pets.toml").read_text()  # inherited

    # Importing again adds nothing and makes no second copy of an environment.
    written, notes = run_import("openapi", str(PETSTORE), into)
    assert (into / "collection.toml").read_text() == merged
    assert not [p for p in written if p.parent.name == "environments"]
    assert (into / "pets" / "list-pets-2.toml") in written
    assert not any("added to it" in n for n in notes)


def test_folder_settings_go_to_new_folder_files_or_onto_requests(tmp_path: Path) -> None:
    from pigeon.importers import ImportResult, write_import
    from pigeon.model import Auth, Folder, Header, Request

    into = tmp_path / "mine"
    (into / "users").mkdir(parents=True)
    (into / "collection.toml").write_text(MINE)
    users_toml = '# the users team\n[variables]\nteam = "core"\n'
    (into / "users" / "folder.toml").write_text(users_toml)
    (into / "orders").mkdir()  # a folder without folder.toml: one may be added
    result = ImportResult(
        folders=[
            Folder(
                name="Users",
                id="Users",
                auth=Auth(type="bearer", token="{{users_token}}"),
                headers=[Header("X-Team", "growth")],
                variables={"team": "growth", "region": "eu"},
            ),
            Folder(name="Admin", id="Users/Admin", auth=Auth(type="basic", username="ada")),
            Folder(name="Orders", id="Orders", headers=[Header("X-Orders", "1")]),
        ],
    )
    result.requests += [
        ("Users", Request(name="List users", url="https://x.test/users")),
        ("Users/Admin", Request(name="Audit", url="https://x.test/audit")),
        ("Orders", Request(name="List orders", url="https://x.test/orders")),
    ]
    written = write_import(result, into)
    assert (into / "users" / "folder.toml").read_text() == users_toml
    assert (into / "users" / "admin" / "folder.toml") in written
    assert (into / "orders" / "folder.toml") in written
    assert (
        'variable team not written: users/folder.toml exists and keeps team = "core" '
        '(imported: "growth")' in result.notes
    )
    assert 'variable region not written: users/folder.toml exists; add region = "eu" by hand' in (
        result.notes
    )
    assert "header X-Team not written: users/folder.toml exists; " in "".join(result.notes)

    r = render_written(into, "users/list-users", environ={})
    assert r.header("authorization") == "Bearer {{users_token}}"
    assert r.header("x-team") == "growth"
    # The Admin folder's own (new) folder.toml carries its basic auth, which wins.
    r = render_written(into, "users/admin/audit", environ={})
    assert (r.header("authorization") or "").startswith("Basic ")
    assert r.header("x-team") == "growth"
    r = render_written(into, "orders/list-orders", environ={})
    assert r.header("x-orders") == "1"
    orders = load_collection(into).find_folder("orders")
    assert orders is not None and orders.order == []  # the folder's own order is left alone


def test_very_long_names_make_short_unique_file_names(tmp_path: Path) -> None:
    from pigeon.importers import run_import

    path = "/".join(["segment"] * 37) + "/ends"  # a 300-character URL path
    assert len(path) == 300
    into = tmp_path / "col"
    first, _ = run_import("curl", f"curl https://x.test/{path}", into)
    second, _ = run_import("curl", f"curl -X POST https://x.test/{path}", into)
    third, _ = run_import("curl", f"curl -X POST https://x.test/{path}?page=2", into)
    stems = [first[-1].stem, second[-1].stem, third[-1].stem]
    assert all(len(s) <= 82 for s in stems) and len(set(stems)) == 3
    assert stems[0].startswith("get-segment-segment") and stems[0].endswith("segment")
    assert stems[2] == stems[1] + "-2"
    assert render_written(into, stems[2]).url == f"https://x.test/{path}?page=2"
