"""A rendered request as an HTTPie command (``http``) that sends it (`pigeon export httpie`, DESIGN §6, §12).

Headers are request items ``Name:value`` (``Name;`` for an empty value) -- HTTPie keeps a
value's backslash unless it comes before ``=@:;``, which a comment then names --; the method and URL follow ``--`` so a URL
starting with ``-`` is never an option, and ``--path-as-is`` keeps ``..`` segments as Pigeon
sends them. A text body goes in ``--raw``; one that cannot be an argument is piped from
``printf``, a file body read from the file on standard input. A body without Content-Type
unsets HTTPie's own (``Content-Type:``).
"""

from __future__ import annotations

from typing import Any

from pigeon.exporters.common import as_sent, body_path, flow_note, has_header
from pigeon.exporters.shell import command, printf, safe_text_body


def httpie_argv(rendered: Any) -> list[list[str]]:
    """The command's words, grouped an option (and its value) a group."""
    settings, spec = rendered.settings, rendered.transport
    path = body_path(rendered)
    has_body = rendered.body is not None or path is not None
    groups: list[list[str]] = [["http"]]
    text = safe_text_body(rendered) if rendered.body is not None else None
    if not has_body or text is not None:  # else the body comes on standard input
        groups.append(["--ignore-stdin"])
    if text is not None:
        groups.append(["--raw", text])
    if settings.follow_redirects:
        groups.append(["--follow"])
    if not settings.verify_tls:
        groups.append(["--verify=no"])
    elif spec.ca_bundle:
        groups.append([f"--verify={spec.ca_bundle}"])
    if spec.cert:
        groups.append([f"--cert={spec.cert}"])
        if spec.key:
            groups.append([f"--cert-key={spec.key}"])
    if spec.proxy:
        groups += [[f"--proxy=http:{spec.proxy}"], [f"--proxy=https:{spec.proxy}"]]
    groups.append([f"--timeout={settings.timeout:g}"])
    groups.append(["--path-as-is"])
    groups.append(["--", rendered.method, as_sent(rendered.url)])
    for name, value in rendered.headers:
        groups.append([f"{name}:{value}" if value != "" else f"{name};"])
    if has_body and not has_header(rendered, "content-type"):
        groups.append(["Content-Type:"])
    return groups


def to_httpie(rendered: Any) -> str:
    """The command line a POSIX shell runs (HTTPie 3 installed)."""
    text = command(httpie_argv(rendered))
    path = body_path(rendered)
    if path is not None:
        text += " < " + command([[path]])
    elif rendered.body is not None and safe_text_body(rendered) is None:
        text = f"{printf(bytes(rendered.body))} | {text}"
    notes = [n for n in (flow_note(rendered), _escape_note(rendered)) if n]
    return "".join(f"# {n}\n" for n in notes) + text


def _escape_note(rendered: Any) -> str | None:
    """HTTPie reads a backslash before ``=``, ``@``, ``:`` or ``;`` as an escape, with no way
    to write one that stays: such a header loses that backslash, and says so."""
    names = [n for n, v in rendered.headers if any(f"\\{c}" in v for c in "=@:;")]
    if not names:
        return None
    return f"HTTPie drops a backslash before = @ : ; in {', '.join(names)}: put it back"
