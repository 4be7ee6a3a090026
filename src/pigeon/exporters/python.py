"""A rendered request as a Python program that sends it with httpx (``python``) or requests
(``python-requests``) (`pigeon export`, DESIGN §6, §12).

Every value is a Python literal written by ``repr`` (a string's quotes and control characters
escaped, a body as ``bytes``), so nothing in a header or body can end the literal. The URL is
the one httpx sends (percent-encoded); headers keep their order and repeats (requests takes a
dict, so repeated names are joined as one value, ``; `` for Cookie, else ``, ``); the body is
its exact bytes, or a file body read when the program runs.
"""

from __future__ import annotations

from typing import Any

from pigeon.auth_kinds import KINDS
from pigeon.exporters.common import as_sent, body_bytes, body_path, flow_note, text_or_none


def _value(value: str) -> str:
    """A header value's literal: its UTF-8 bytes when not ASCII, as Pigeon sends it (both
    libraries would encode a ``str`` otherwise)."""
    return repr(value) if value.isascii() else repr(value.encode("utf-8"))


def _body_line(rendered: Any) -> str | None:
    path = body_path(rendered)
    if path is not None:
        return f"with open({path!r}, 'rb') as f:\n    body = f.read()"
    data = body_bytes(rendered)
    if data is None:
        return None
    text = text_or_none(data)
    if text is not None:  # repr escapes what is not printable: the same bytes, readable
        return f"body = {text!r}.encode('utf-8')"
    return f"body = {data!r}"


def _digest(rendered: Any, module: str) -> tuple[str | None, str | None]:
    """The auth argument for digest, which both libraries answer themselves; else a note."""
    flow = getattr(rendered, "flow_auth", None)
    if flow is not None and "--digest" in KINDS[flow.type].curl(flow):
        name = "httpx.DigestAuth" if module == "httpx" else "requests.auth.HTTPDigestAuth"
        return f"{name}({flow.username!r}, {flow.password!r})", None
    return None, flow_note(rendered)


def to_httpx(rendered: Any) -> str:
    """The program, run with ``python3`` (httpx installed)."""
    settings, spec = rendered.settings, rendered.transport
    lines = ["import httpx"]
    if spec.ca_bundle or spec.cert:
        lines.append("import ssl")
    lines.append("")
    auth, note = _digest(rendered, "httpx")
    if note:
        lines.append(f"# {note}")
    lines.append(f"url = {as_sent(rendered.url)!r}")
    pairs = [f"    ({name!r}, {_value(value)})," for name, value in rendered.headers]
    lines += ["headers = [", *pairs, "]"] if pairs else ["headers: list[tuple[str, str]] = []"]
    body = _body_line(rendered)
    if body is not None:
        lines.append(body)
    args = ["url", "headers=headers"]
    if body is not None:
        args.append("content=body")
    if auth:
        args.append(f"auth={auth}")
    if not settings.verify_tls:
        verify = "False"
    elif spec.ca_bundle or spec.cert:
        lines.append(f"tls = ssl.create_default_context(cafile={spec.ca_bundle or None!r})")
        if spec.cert:
            lines.append(
                f"tls.load_cert_chain({spec.cert!r}, {spec.key or None!r}, {spec.password or None!r})"
            )
        verify = "tls"
    else:
        verify = ""
    client = [f"follow_redirects={settings.follow_redirects!r}", f"timeout={settings.timeout!r}"]
    if verify:
        client.append(f"verify={verify}")
    if spec.proxy:
        client.append(f"proxy={spec.proxy!r}")
    lines.append(f"with httpx.Client({', '.join(client)}) as client:")
    lines.append(f"    response = client.request({rendered.method!r}, {', '.join(args)})")
    lines += ["print(response.status_code, response.reason_phrase)", "print(response.text)"]
    return "\n".join(lines) + "\n"


def _joined(headers: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    names: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in names:
            glue = "; " if key == "cookie" else ", "
            out[names[key]] += glue + value
        else:
            names[key] = name
            out[name] = value
    return out


def to_requests(rendered: Any) -> str:
    """The program, run with ``python3`` (requests installed)."""
    settings, spec = rendered.settings, rendered.transport
    lines = ["import requests", ""]
    auth, note = _digest(rendered, "requests")
    if note:
        lines.append(f"# {note}")
    lines.append(f"url = {as_sent(rendered.url)!r}")
    pairs = [f"    {name!r}: {_value(value)}," for name, value in _joined(rendered.headers).items()]
    lines += ["headers = {", *pairs, "}"] if pairs else ["headers: dict[str, str] = {}"]
    body = _body_line(rendered)
    if body is not None:
        lines.append(body)
    args = [repr(rendered.method), "url", "headers=headers"]
    if body is not None:
        args.append("data=body")
    if auth:
        args.append(f"auth={auth}")
    args.append(f"allow_redirects={settings.follow_redirects!r}")
    args.append(f"timeout={settings.timeout!r}")
    if not settings.verify_tls:
        args.append("verify=False")
    elif spec.ca_bundle:
        args.append(f"verify={spec.ca_bundle!r}")
    if spec.cert:
        args.append(f"cert=({spec.cert!r}, {spec.key!r})" if spec.key else f"cert={spec.cert!r}")
    if spec.proxy:
        args.append(f"proxies={{'http': {spec.proxy!r}, 'https': {spec.proxy!r}}}")
    lines.append(f"response = requests.request({', '.join(args)})")
    lines += ["print(response.status_code, response.reason)", "print(response.text)"]
    return "\n".join(lines) + "\n"
