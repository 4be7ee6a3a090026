"""The error tree drawn in ``pigeon.errors`` is the tree the classes make: every error Pigeon
raises on purpose is under ``PigeonError``, drawn once, with its one exit code and the module
that defines it."""

from __future__ import annotations

from error_tree import classes, drawn, example, walked
from pigeon.errors import EXIT_FAILED, EXIT_UNRESOLVED, EXIT_USAGE, PigeonError, exit_code_of


def test_the_drawing_reads_as_a_tree() -> None:
    rows = drawn()
    names = [row.name for row in rows]
    assert names[0] == "PigeonError"
    assert len(names) == len(set(names)), "a class drawn twice"
    assert all(row.parent in names[:i] for i, row in enumerate(rows) if row.parent)


def test_the_drawing_is_the_tree_the_classes_make() -> None:
    """Name, parent, exit code and module of every class, drawn and walked."""
    assert sorted(walked(), key=repr) == sorted(drawn(), key=repr)


def test_the_walk_finds_the_errors_defined_beside_their_raisers() -> None:
    found = {cls.__name__ for cls in classes()}
    assert {"DataError", "Refused", "ChangedOnDisk", "TokenError", "NeedsPerson"} <= found
    assert {"SchemaError", "OpenError", "WorkerFailed", "WorkerGone"} <= found


def test_each_error_has_one_place_and_one_exit_code() -> None:
    for cls in classes()[1:]:
        parents = [base for base in cls.__bases__ if issubclass(base, PigeonError)]
        assert len(parents) == 1, f"{cls.__name__} is under {parents}"
        assert cls.exit_code in (EXIT_FAILED, EXIT_USAGE, EXIT_UNRESOLVED), cls.__name__
        assert exit_code_of(example(cls)) == cls.exit_code, cls.__name__


def test_every_error_lives_in_the_core() -> None:
    """The command line reports them without loading the app."""
    assert [c.__name__ for c in classes() if c.__module__.startswith("pigeon.tui")] == []


def test_the_old_import_names_still_work() -> None:
    from pigeon.gql.cache import SchemaError
    from pigeon.oauth2 import NeedsPerson, TokenError
    from pigeon.rows import DataError
    from pigeon.scripts.process import WorkerFailed, WorkerGone
    from pigeon.store import ChangedOnDisk
    from pigeon.trust import Refused
    from pigeon.tui.app import OpenError

    for cls in (SchemaError, NeedsPerson, TokenError, DataError, WorkerFailed, WorkerGone):
        assert issubclass(cls, PigeonError)
    assert issubclass(ChangedOnDisk, PigeonError) and issubclass(Refused, PigeonError)
    assert issubclass(OpenError, PigeonError)
