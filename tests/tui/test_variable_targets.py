"""Where the variables pane writes a variable (``pigeon.tui.widgets.variables.variable_targets``), without the app:
the scopes the open request offers, lowest first; saves that land in their own file; a refused
save that leaves the model as it was; and why a saved value may not be the one a send uses."""

from __future__ import annotations

import copy
from pathlib import Path

from pigeon.model import Request
from pigeon.session import Session
from pigeon.store import load_collection
from pigeon.tui.widgets.variables.variable_targets import Target, shadowed_by, variable_targets


def open_list_users(collection: Path) -> tuple[Session, Request]:
    session = Session.open(collection, "local")
    request = next(r for r in session.collection.requests() if r.id == "users/list-users")
    return session, request


def by_key(targets: list[Target]) -> dict[str, Target]:
    return {t.key: t for t in targets}


def test_the_open_request_offers_every_scope_it_sees_lowest_first(collection: Path) -> None:
    session, saved = open_list_users(collection)
    targets = variable_targets(session, copy.deepcopy(saved), saved)
    assert [(t.key, t.label) for t in targets] == [
        ("collection", "collection (collection.toml)"),
        ("environment", "environment local (environments/local.toml)"),
        ("folder:0", "folder Users (users/folder.toml)"),
        ("request", "this request (users/list-users.toml)"),
        ("runtime", "runtime (this session only)"),
    ]


def test_with_no_request_open_the_request_and_its_folders_are_not_offered(
    collection: Path,
) -> None:
    session, _ = open_list_users(collection)
    keys = [t.key for t in variable_targets(session, None, None)]
    assert keys == ["collection", "environment", "runtime"]


def test_a_folder_variable_is_saved_in_the_folder_file(collection: Path) -> None:
    session, saved = open_list_users(collection)
    folder = by_key(variable_targets(session, copy.deepcopy(saved), saved))["folder:0"]
    assert folder.save("page", 3) is None
    users = next(f for f in load_collection(collection).items if f.id == "users")
    assert users.variables["page"] == 3


def test_a_request_variable_is_saved_alone_and_other_edits_stay_unsaved(collection: Path) -> None:
    session, saved = open_list_users(collection)
    work = copy.deepcopy(saved)
    work.url = "http://127.0.0.1:1/edited-but-not-saved"
    assert by_key(variable_targets(session, work, saved))["request"].save("limit", 5) is None
    assert work.variables["limit"] == 5
    on_disk = next(r for r in load_collection(collection).requests() if r.id == saved.id)
    assert on_disk.variables["limit"] == 5
    assert on_disk.url == saved.url


def test_a_request_without_a_file_gets_the_value_only_in_the_editor(collection: Path) -> None:
    session, _ = open_list_users(collection)
    work = Request(name="From history", url="http://127.0.0.1:1/")
    target = by_key(variable_targets(session, work, work))["request"]
    assert target.label == "this request (only here: it has no file)"
    assert target.save("limit", 5) is None
    assert work.variables == {"limit": 5}


def test_a_refused_save_says_why_and_puts_the_old_value_back(collection: Path) -> None:
    session, saved = open_list_users(collection)
    folder = by_key(variable_targets(session, copy.deepcopy(saved), saved))["folder:0"]
    (collection / "users" / "folder.toml").write_text("name = \n", encoding="utf-8")
    error = folder.save("page", 3)
    assert error is not None and error.startswith("Save folder failed: ")
    assert "never overwritten" in error
    assert folder.variables["page"] == 1
    new = folder.save("brand_new", 1)
    assert new is not None and "brand_new" not in folder.variables


def test_a_value_saved_below_the_winning_scope_says_what_wins(collection: Path) -> None:
    session, saved = open_list_users(collection)
    targets = by_key(variable_targets(session, copy.deepcopy(saved), saved))
    assert targets["collection"].save("base_url", "http://127.0.0.1:2/") is None
    assert shadowed_by(session, saved, "base_url", targets["collection"]) == (
        'environment local defines it too and wins ("http://127.0.0.1:8787")'
    )
    assert targets["environment"].save("stage", "here") is None
    assert shadowed_by(session, saved, "stage", targets["environment"]) is None


def test_a_shadowing_secret_is_named_but_its_value_is_masked(collection: Path) -> None:
    session, saved = open_list_users(collection)
    session.runtime.set("token", "s3cr3t-value")
    collection_target = by_key(variable_targets(session, copy.deepcopy(saved), saved))["collection"]
    assert collection_target.save("token", "another") is None
    why = shadowed_by(session, saved, "token", collection_target)
    assert why is not None and why.startswith("a runtime value set by a script wins (•••)")
    assert "s3cr3t" not in why
