"""The command line in the shell (DESIGN §12): completion scripts for bash, zsh and fish, a man
page, and the hidden ``pigeon __complete`` the scripts call for a collection's requests and
environments.

Both come from one parser made of the commands' own (``pigeon.cli.build_parser``), so they
never drift from ``--help``. ``shtab`` writes the completion scripts and ``argparse-manpage``
the roff; each is imported only here, by the command that needs it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

SHELLS = ("bash", "zsh", "fish")

# Each shell's functions for what a completion asks Pigeon: the collection is the first
# earlier word that names a directory, and `pigeon __complete` lists what it holds.
_PREAMBLE = {
    "bash": r"""
_pigeon_collection() {
  local i w
  for ((i = 2; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if [[ $w != -* && -d $w ]]; then printf '%s\n' "$w"; return; fi
  done
}
_pigeon_requests() {
  local d; d="$(_pigeon_collection)"
  [[ -n $d ]] && compgen -W "$(pigeon __complete requests "$d" 2>/dev/null)" -- "$1"
}
_pigeon_envs() {
  local d; d="$(_pigeon_collection)"
  [[ -n $d ]] && compgen -W "$(pigeon __complete envs "$d" 2>/dev/null)" -- "$1"
}
""",
    "zsh": r"""
_pigeon_collection() {
  local w
  for w in ${words[2,CURRENT-1]}; do
    if [[ $w != -* && -d $w ]]; then print -r -- $w; return; fi
  done
}
_pigeon_requests() {
  local d=$(_pigeon_collection)
  [[ -n $d ]] && compadd -- ${(f)"$(pigeon __complete requests $d 2>/dev/null)"}
}
_pigeon_envs() {
  local d=$(_pigeon_collection)
  [[ -n $d ]] && compadd -- ${(f)"$(pigeon __complete envs $d 2>/dev/null)"}
}
""",
    "fish": r"""
function __pigeon_collection
    set -l words (commandline -opc)
    for w in $words[3..-1]
        if not string match -q -- '-*' $w; and test -d $w
            echo $w
            return
        end
    end
end
function __pigeon_requests
    set -l d (__pigeon_collection)
    and pigeon __complete requests $d 2>/dev/null
end
function __pigeon_envs
    set -l d (__pigeon_collection)
    and pigeon __complete envs $d 2>/dev/null
end
""",
}
_REQUESTS = {"bash": "_pigeon_requests", "zsh": "_pigeon_requests", "fish": "(__pigeon_requests)"}
_ENVS = {"bash": "_pigeon_envs", "zsh": "_pigeon_envs", "fish": "(__pigeon_envs)"}


def whole_parser(parsers: Mapping[str, argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """``pigeon`` with each command as a subcommand: the parser completion and the man page
    describe. The commands' options are their parsers' own actions, shared, not copied."""
    app = parsers["app"]
    top = argparse.ArgumentParser(
        prog="pigeon",
        description=f"{app.description} 'pigeon [DIR]' opens the app on a collection.",
        epilog=app.epilog,
    )
    for action in app._actions:
        if action.option_strings and action.dest != "help":
            top._add_action(action)
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    for name, parser in parsers.items():
        if name == "app":
            continue
        commands.add_parser(
            name,
            parents=[parser],
            add_help=False,
            help=(parser.description or "").split(". ")[0].rstrip("."),
            description=parser.description,
            epilog=parser.epilog,
        )
    return top


def _mark(parser: argparse.ArgumentParser) -> None:
    """Say what each argument completes to: directories, files, requests, environments."""
    import shtab

    for action in _all_actions(parser):
        if action.dest in ("collection", "directory", "into"):
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif action.dest in ("request", "requests"):
            action.complete = _REQUESTS  # type: ignore[attr-defined]
        elif action.dest == "env":
            action.complete = _ENVS  # type: ignore[attr-defined]
        elif action.dest in ("data", "inputs", "source"):
            action.complete = shtab.FILE  # type: ignore[attr-defined]


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    out = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out += _all_actions(sub)
    return out


def completion_script(parsers: Mapping[str, argparse.ArgumentParser], shell: str) -> str:
    """The completion script for ``shell`` (one of ``SHELLS``)."""
    import shtab

    parser = whole_parser(parsers)
    _mark(parser)
    return str(shtab.complete(parser, shell=shell, preamble=_PREAMBLE[shell]))


def man_page(parsers: Mapping[str, argparse.ArgumentParser]) -> str:
    """``pigeon(1)`` in roff: every command, with its options, from the same parser."""
    from argparse_manpage.manpage import Manpage  # type: ignore[import-untyped]

    from pigeon import __version__

    parser = whole_parser(parsers)
    data = {
        "project_name": "pigeon",
        "version": __version__,
        "description": "a keyboard-driven HTTP API client for the terminal",
        "url": "",
        "manual_section": 1,
        "manual_title": "Pigeon manual",
    }
    return str(Manpage(parser, _data=data))


def candidates(kind: str, root: Path) -> list[str]:
    """What completes a word in ``root``'s collection: its requests and folders (``requests``)
    or its environments (``envs``). Nothing is rendered, no script runs; a directory that is
    not a collection completes to nothing."""
    from pigeon.errors import PigeonError
    from pigeon.store import load_collection

    try:
        collection = load_collection(root)
    except (OSError, PigeonError):  # a completion never prints an error into the line
        return []
    if kind == "envs":
        return sorted(collection.environments)
    out: dict[str, None] = {}  # in collection order, each folder once, before its requests
    for chain, request in collection.walk():
        out.update(dict.fromkeys(folder.id for folder in chain))
        out[request.id] = None
    return [name for name in out if name]
