"""Every error Pigeon raises on purpose, in one tree, each with the exit code of DESIGN §6.

The command line maps an error to its exit code in one place (``exc.exit_code``), and the app
shows ``str(exc)``: one line that names what went wrong and where, never a traceback.

```
PigeonError                  1  anything reported as one line; a subclass may say otherwise
├── UsageError               2  bad usage: an unknown option, request or environment
│   ├── UnknownEnvironment   2  (pigeon.scopes; also a KeyError)
│   ├── ReportOptionError    2  a --report option (pigeon.reports; also a ValueError)
│   ├── DataError            2  a --data file that cannot drive a run (pigeon.rows)
│   └── OpenError            2  the app's collection or environment does not open
├── LoadError                2  a user file that does not load: path, line, column and why
│   ├── ConfigError          2  config.toml, a theme or the trust list
│   └── ImportFailed         2  an import source (pigeon.importers.common; also a ValueError)
├── SaveError                1  a save refused before anything on disk changed
│   └── ChangedOnDisk        1  the file changed on disk since it was read (pigeon.store.seen)
├── RenderError              1  a request that cannot be built (a header with CR/LF); nothing sent
│   ├── Refused              1  it reads what only a trusted collection may (pigeon.trust)
│   └── SecretError          1  a secret's command, keychain or prompt failed (pigeon.secrets)
│       └── NoTerminal       1  a prompt secret with nobody to ask
├── SendFailure              1  a request that could not be built or sent, or an assertion failed
├── TokenError               1  no OAuth 2.0 token, and why (pigeon.oauth2.grants)
│   └── NeedsPerson          1  the grant signs a person in, and nobody is there
├── SchemaError              1  a GraphQL schema not fetched, read or built (pigeon.gql.cache)
├── GrpcError                1  a gRPC call that cannot be made as asked (pigeon.rpc)
├── WorkerFailed             1  the script worker failed to start or talk (pigeon.scripts.process)
│   └── WorkerGone           1  its pipe closed: it exited or was killed
├── ToolError                1  an MCP tool call refused or failed (pigeon.mcp_server.answers)
├── FilterError              1  a body filter that does not parse or fails (also a ValueError)
└── UnresolvedError          3  placeholders left unresolved under --strict
```

A class is defined where its row says (beside what raises it), or else where its parent is:
here for ``PigeonError``'s children. A test walks ``PigeonError.__subclasses__()`` against
this drawing. ``exit_code`` is a class
attribute; an instance may carry another one (``PigeonError(msg, exit_code=3)``) where the
same failure means different things to different commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pigeon.model import BrokenFile

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNRESOLVED = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT


class PigeonError(Exception):
    """The root of the tree: a failure Pigeon reports as one line and an exit code."""

    exit_code: int = EXIT_FAILED

    def __init__(self, message: str = "", *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(PigeonError):
    """Bad usage or a broken selection: exit code 2."""

    exit_code = EXIT_USAGE


class OpenError(UsageError):
    """The collection or environment the app was asked to open does not open: exit code 2."""


class LoadError(PigeonError):
    """A file (or the collection directory) that cannot be loaded, with where and why."""

    exit_code = EXIT_USAGE

    def __init__(
        self, path: Path | None, line: int | None, column: int | None, message: str
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.message = message

    def as_broken(self) -> BrokenFile:
        from pigeon.model import BrokenFile  # this module loads nothing else of Pigeon

        return BrokenFile(Path(self.path or "<text>"), self.message, self.line, self.column)

    def __str__(self) -> str:
        return str(self.as_broken())


class ConfigError(LoadError):
    """A user file outside a collection (``config.toml``, a theme, the trust list) that cannot
    be read or written; the message names the file (and line)."""

    def __init__(
        self, path: Path, message: str, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(path, line, column, message)


class SaveError(PigeonError):
    """A save that was refused before anything on disk changed."""


class RenderError(PigeonError):
    """The request cannot be built (e.g. a header with CR/LF); nothing is sent."""


class SendFailure(PigeonError):
    """A request could not be built or sent, or a post-response assertion failed: exit 1."""


class FilterError(PigeonError, ValueError):
    """A body filter (jq, JMESPath, JSONPath) is invalid, failed on this document or reached
    a limit; ``str()`` says why in one line. Still a ``ValueError``, as it always was."""


class UnresolvedError(PigeonError):
    """Placeholders left unresolved where ``--strict`` forbids them: exit code 3."""

    exit_code = EXIT_UNRESOLVED


def exit_code_of(exc: BaseException) -> int:
    """The exit code for any exception the CLI catches: the tree's own code, 130 for an
    interrupt, 1 for anything else."""
    if isinstance(exc, PigeonError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_FAILED
