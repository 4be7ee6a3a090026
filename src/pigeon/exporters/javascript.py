"""A rendered request as a JavaScript program for Node.js 18 or later that sends it with
``fetch`` (`pigeon export javascript`, DESIGN §6, §12).

Strings are JSON literals with every non-ASCII character escaped (a JavaScript literal that
nothing in a value can end). A header value goes as its UTF-8 bytes, one character each, as
Pigeon sends it (``fetch`` sends each character of a header value as one byte). The body is a
``Buffer`` of its exact bytes (``fetch`` would add a text Content-Type to a string), a file
body read when the program runs. What ``fetch`` cannot say -- a CA bundle, a client
certificate, a proxy, a body with GET or HEAD -- is a comment.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from pigeon.exporters.common import as_sent, body_bytes, body_path, flow_note, text_or_none


def _js(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _header_value(value: str) -> str:
    return _js(value.encode("utf-8").decode("latin-1"))


def to_fetch(rendered: Any) -> str:
    """The program, run with ``node``."""
    settings, spec = rendered.settings, rendered.transport
    notes = [n for n in (flow_note(rendered),) if n]
    if spec.ca_bundle:
        notes.append(f"run with NODE_EXTRA_CA_CERTS={spec.ca_bundle} (the collection's CA bundle)")
    if spec.cert:
        notes.append("fetch cannot send a client certificate: use https.request with cert and key")
    if spec.proxy:
        notes.append(f"fetch uses no proxy: the request goes through {spec.proxy}")
    names = [n.lower() for n, _ in rendered.headers]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        notes.append(f"fetch joins repeated headers with ', ': {', '.join(repeated)}")
    method = rendered.method
    lines = [f"// {n}" for n in notes]
    if not settings.verify_tls:
        lines.append('process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0"; // TLS verification off')
    lines.append(f"const url = {_js(as_sent(rendered.url))};")
    pairs = [f"  [{_js(name)}, {_header_value(value)}]," for name, value in rendered.headers]
    lines += ["const headers = [", *pairs, "];"] if pairs else ["const headers = [];"]
    path = body_path(rendered)
    data = body_bytes(rendered)
    has_body = path is not None or data is not None
    if path is not None:
        lines.append(f'const body = require("node:fs").readFileSync({_js(path)});')
    elif data is not None:
        text = text_or_none(data)
        if text is not None:
            lines.append(f'const body = Buffer.from({_js(text)}, "utf8");')
        else:
            encoded = base64.b64encode(data).decode("ascii")
            lines.append(f'const body = Buffer.from("{encoded}", "base64");')
    if has_body and method.upper() in ("GET", "HEAD"):
        lines.insert(0, f"// fetch refuses a body with {method.upper()}: this one is left out")
        has_body = False
    options = [f"method: {_js(method)}", "headers"]
    if has_body:
        options.append("body")
    options.append(f'redirect: "{"follow" if settings.follow_redirects else "manual"}"')
    options.append(f"signal: AbortSignal.timeout({int(settings.timeout * 1000)})")
    lines += [
        f"fetch(url, {{ {', '.join(options)} }})",
        "  .then(async (response) => {",
        "    console.log(response.status, response.statusText);",
        "    console.log(await response.text());",
        "  })",
        "  .catch((error) => {",
        "    console.error(error);",
        "    process.exitCode = 1;",
        "  });",
    ]
    return "\n".join(lines) + "\n"
