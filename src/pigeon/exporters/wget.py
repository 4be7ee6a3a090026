"""A rendered request as a GNU Wget command that sends it (`pigeon export wget`, DESIGN §6, §12).

Every word is quoted for a POSIX shell; the URL follows ``--`` so one starting with ``-`` is
never an option. A text body goes in ``--body-data``; one that cannot be an argument is
written by ``printf`` to a temporary file for ``--body-file``, and a file body is named
where it is on disk. Wget sends a form Content-Type with a body that has none. It has no way to send a header with an empty value (``Name:`` removes
its own), so such a header is left out and named in a comment.
"""

from __future__ import annotations

from typing import Any

from pigeon.exporters.common import as_sent, body_path, flow_note, has_header
from pigeon.exporters.shell import command, printf, safe_text_body


def wget_argv(rendered: Any, body_file: str | None = None) -> list[list[str]]:
    """The command's words, grouped an option (and its value) a group."""
    settings, spec = rendered.settings, rendered.transport
    groups: list[list[str]] = [["wget"], ["--quiet"], ["--output-document=-"]]
    groups.append([f"--method={rendered.method}"])
    for name, value in rendered.headers:
        if value != "":
            groups.append([f"--header={name}: {value}"])
    path = body_path(rendered)
    if path is not None:
        groups.append([f"--body-file={path}"])
    elif rendered.body is not None:
        text = safe_text_body(rendered)
        groups.append([f"--body-data={text}" if text is not None else f"--body-file={body_file}"])
    if not settings.follow_redirects:
        groups.append(["--max-redirect=0"])
    if not settings.verify_tls:
        groups.append(["--no-check-certificate"])
    elif spec.ca_bundle:
        groups.append([f"--ca-certificate={spec.ca_bundle}"])
    if spec.cert:
        groups.append([f"--certificate={spec.cert}"])
        if spec.key:
            groups.append([f"--private-key={spec.key}"])
    if spec.proxy:
        groups += [["-e", "use_proxy=yes"], ["-e", f"http_proxy={spec.proxy}"],
                   ["-e", f"https_proxy={spec.proxy}"]]  # fmt: skip
    groups.append([f"--timeout={settings.timeout:g}"])
    groups.append(["--content-on-error"])
    groups.append(["--", as_sent(rendered.url)])
    return groups


def to_wget(rendered: Any) -> str:
    """The command (or, for a binary body, three commands) a POSIX shell runs."""
    notes = []
    note = flow_note(rendered)
    if note:
        notes.append(f"# {note}")
    empty = [name for name, value in rendered.headers if value == ""]
    if empty:
        notes.append(f"# wget cannot send a header without a value: {', '.join(empty)}")
    if rendered.body is not None and not has_header(rendered, "content-type"):
        notes.append("# wget sends its form Content-Type with a body that has none")
    prefix = "".join(f"{n}\n" for n in notes)
    binary = (
        rendered.body is not None
        and body_path(rendered) is None
        and safe_text_body(rendered) is None
    )
    if not binary:
        return prefix + command(wget_argv(rendered))
    run = command(wget_argv(rendered, "$body")).replace(
        "'--body-file=$body'", '--body-file="$body"'
    )
    return (
        f'{prefix}body="$(mktemp)" && {printf(bytes(rendered.body))} > "$body" && '
        f'{run}; rm -f "$body"'
    )
