"""A rendered request as a PowerShell 7 script that sends it with ``Invoke-WebRequest``
(`pigeon export powershell`, DESIGN §6, §12).

Strings are single-quoted, where PowerShell expands nothing; each single quote -- and each
of the typographic ones PowerShell also reads as one (U+2018 to U+201B) -- is doubled. A
header value goes as its UTF-8 bytes, one character each (``-SkipHeaderValidation`` sends
them as they are); a body that is not printable ASCII is decoded from base64, a file body
read by ``-InFile``. Headers are a dictionary, so repeated names are joined (``, ``).
"""

from __future__ import annotations

import base64
from typing import Any

from pigeon.exporters.common import as_sent, body_bytes, body_path, flow_note

_QUOTES = "'\u2018\u2019\u201a\u201b"
_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "MERGE", "PATCH")


def ps_string(text: str) -> str:
    """A single-quoted PowerShell string holding exactly ``text``."""
    return "'" + "".join(c + c if c in _QUOTES else c for c in text) + "'"


def to_powershell(rendered: Any) -> str:
    """The script, run with ``pwsh``."""
    settings, spec = rendered.settings, rendered.transport
    notes = [n for n in (flow_note(rendered),) if n]
    if spec.ca_bundle and settings.verify_tls:
        notes.append(f"trust the collection's CA bundle in the system store: {spec.ca_bundle}")
    if spec.cert:
        notes.append(
            f"the client certificate {spec.cert} goes in -Certificate (a X509Certificate2)"
        )
    lines = [f"# {n}" for n in notes]
    headers: dict[str, str] = {}
    names: dict[str, str] = {}
    content_type = None
    for name, value in rendered.headers:
        if name.lower() == "content-type":
            content_type = value
            continue
        wire = value.encode("utf-8").decode("latin-1")
        if name.lower() in names:
            headers[names[name.lower()]] += ", " + wire
        else:
            names[name.lower()] = name
            headers[name] = wire
    lines.append("$headers = @{")
    lines += [f"    {ps_string(k)} = {ps_string(v)}" for k, v in headers.items()]
    lines.append("}")
    params = [f"Uri = {ps_string(as_sent(rendered.url))}"]
    method = rendered.method
    if method.upper() in _METHODS:
        params.append(f"Method = {ps_string(method.upper())}")
    else:
        params.append(f"CustomMethod = {ps_string(method)}")
    params += ["Headers = $headers", "SkipHeaderValidation = $true", "SkipHttpErrorCheck = $true"]
    path = body_path(rendered)
    data = body_bytes(rendered)
    if path is not None:
        params.append(f"InFile = {ps_string(path)}")
    elif data is not None:
        if all(0x20 <= b < 0x7F for b in data):
            lines.append(
                f"$body = [System.Text.Encoding]::ASCII.GetBytes({ps_string(data.decode())})"
            )
        else:
            encoded = base64.b64encode(data).decode("ascii")
            lines.append(f"$body = [System.Convert]::FromBase64String('{encoded}')")
        params.append("Body = $body")
    if content_type is not None:
        params.append(f"ContentType = {ps_string(content_type)}")
    if not settings.verify_tls:
        params.append("SkipCertificateCheck = $true")
    if not settings.follow_redirects:
        params.append("MaximumRedirection = 0")
    if spec.proxy:
        params.append(f"Proxy = {ps_string(spec.proxy)}")
    params.append(f"TimeoutSec = {max(1, round(settings.timeout))}")
    lines.append("$params = @{")
    lines += [f"    {p}" for p in params]
    lines.append("}")
    lines += ["$response = Invoke-WebRequest @params", "$response.StatusCode", "$response.Content"]
    return "\n".join(lines) + "\n"
