"""A rendered request as a Go program that sends it with net/http (`pigeon export go`,
DESIGN §6, §12).

Every string is a Go interpreted literal of bytes: printable ASCII as itself (``"`` and ``\\``
escaped), every other byte as ``\\xNN``, so a header or body is exact and nothing in it ends
the literal. Header names are kept as written (set in the map, not canonicalised); the body
is its bytes, or a file body read when the program runs; TLS verification, the CA bundle, the
client certificate, the proxy, redirects and the timeout are the client's.
"""

from __future__ import annotations

from typing import Any

from pigeon.exporters.common import as_sent, body_bytes, body_path, flow_note


def go_string(data: str | bytes) -> str:
    """A Go string literal holding exactly ``data`` (text as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    out = []
    for b in raw:
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append(f"\\x{b:02x}")
    return '"' + "".join(out) + '"'


def to_go(rendered: Any) -> str:
    """The program (``package main``), run with ``go run``."""
    settings, spec = rendered.settings, rendered.transport
    imports = {"fmt", "io", "net/http", "os", "time"}
    body: list[str] = []
    path = body_path(rendered)
    data = body_bytes(rendered)
    reader = "nil"
    if path is not None:
        body = [f"\tbody, err := os.ReadFile({go_string(path)})", "\tif err != nil {",
                "\t\tpanic(err)", "\t}"]  # fmt: skip
        reader = "bytes.NewReader(body)"
        imports.add("bytes")
    elif data is not None:
        body = [f"\tbody := []byte({go_string(data)})"]
        reader = "bytes.NewReader(body)"
        imports.add("bytes")
    lines = ["func main() {", *body]
    method, url = go_string(rendered.method), go_string(as_sent(rendered.url))
    lines += [
        f"\treq, err := http.NewRequest({method}, {url}, {reader})",
        "\tif err != nil {",
        "\t\tpanic(err)",
        "\t}",
    ]
    for name, value in rendered.headers:
        if name.lower() == "host":
            lines.append(f"\treq.Host = {go_string(value)}")
        else:
            key = go_string(name)
            lines.append(f"\treq.Header[{key}] = append(req.Header[{key}], {go_string(value)})")
    tls: list[str] = []
    if not settings.verify_tls:
        tls.append("InsecureSkipVerify: true")
    if spec.ca_bundle and settings.verify_tls:
        imports |= {"crypto/x509"}
        lines += [f"\tpem, err := os.ReadFile({go_string(spec.ca_bundle)})", "\tif err != nil {",
                  "\t\tpanic(err)", "\t}", "\troots := x509.NewCertPool()",
                  "\troots.AppendCertsFromPEM(pem)"]  # fmt: skip
        tls.append("RootCAs: roots")
    if spec.cert:
        key = go_string(spec.key or spec.cert)
        lines += [f"\tcert, err := tls.LoadX509KeyPair({go_string(spec.cert)}, {key})",
                  "\tif err != nil {", "\t\tpanic(err)", "\t}"]  # fmt: skip
        tls.append("Certificates: []tls.Certificate{cert}")
    transport = []
    if tls:
        imports.add("crypto/tls")
        transport.append(f"TLSClientConfig: &tls.Config{{{', '.join(tls)}}}")
    if spec.proxy:
        imports.add("net/url")
        lines += [f"\tproxy, err := url.Parse({go_string(spec.proxy)})", "\tif err != nil {",
                  "\t\tpanic(err)", "\t}"]  # fmt: skip
        transport.append("Proxy: http.ProxyURL(proxy)")
    client = [f"Timeout: {_duration(settings.timeout)}"]
    if transport:
        client.append(f"Transport: &http.Transport{{{', '.join(transport)}}}")
    if not settings.follow_redirects:
        client.append(
            "CheckRedirect: func(*http.Request, []*http.Request) error "
            "{ return http.ErrUseLastResponse }"
        )
    lines += [
        f"\tclient := &http.Client{{{', '.join(client)}}}",
        "\tresp, err := client.Do(req)",
        "\tif err != nil {",
        "\t\tpanic(err)",
        "\t}",
        "\tdefer resp.Body.Close()",
        "\tfmt.Println(resp.Status)",
        "\tio.Copy(os.Stdout, resp.Body)",
        "}",
    ]
    head = ["package main", ""]
    note = flow_note(rendered)
    if note:
        head = [f"// {note}", *head]
    head += ["import (", *(f'\t"{name}"' for name in sorted(imports)), ")", ""]
    return "\n".join(head + lines) + "\n"


def _duration(seconds: float) -> str:
    millis = round(seconds * 1000)
    return (
        f"{millis // 1000} * time.Second" if millis % 1000 == 0 else f"{millis} * time.Millisecond"
    )
