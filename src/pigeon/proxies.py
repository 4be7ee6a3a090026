"""Which proxy a request's client goes through (DESIGN §7): the collection's or environment's
``proxy`` (HTTP, HTTPS or SOCKS5 via ``httpx-socks``) but for the hosts ``no_proxy`` names, or,
when none is set and the environment is trusted, ``HTTP(S)_PROXY`` and ``NO_PROXY``.
"""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import urlsplit

from pigeon.transport import TransportSpec, host_of


def _exclusion(entry: str) -> str:
    """A ``no_proxy`` entry as an httpx mount pattern: ``corp.example`` and ``.corp.example``
    cover the domain and every name under it, ``*`` every host."""
    if entry == "*":
        return "all://"
    host = entry.lstrip("*").lstrip(".")
    return f"all://*{host}" if "." in host else f"all://{host}"


def client_options(
    spec: TransportSpec, verify: ssl.SSLContext | bool, *, sync: bool, http2: bool, trust_env: bool
) -> dict[str, Any]:
    """``httpx.Client``/``AsyncClient`` keywords for the spec's proxy and exclusions;
    ``trust_env``: whether the session reads the environment at all."""
    options: dict[str, Any] = {"trust_env": trust_env and spec.trust_env}
    mounts: dict[str, Any] = {_exclusion(entry): None for entry in spec.no_proxy}
    if spec.proxy and "all://" not in mounts:
        scheme, _, rest = spec.proxy.partition("://")
        if scheme.lower().startswith("socks"):
            if sync:
                from httpx_socks import SyncProxyTransport as Transport
            else:
                from httpx_socks import AsyncProxyTransport as Transport  # type: ignore[assignment]
            # socks5h: the proxy resolves names; python-socks spells it rdns.
            rdns = scheme.lower() == "socks5h"
            mounts["all://"] = Transport.from_url(
                f"socks5://{rest}", verify=verify, http2=http2, rdns=rdns
            )
        else:
            options["proxy"] = spec.proxy
    if mounts:
        options["mounts"] = mounts
    return options


def proxy_for(spec: TransportSpec, url: str) -> str | None:
    """The proxy a request to ``url`` goes through as its messages name it (``socks5://host:port``,
    no credentials), or ``None``: none set, or ``no_proxy`` leaves the host out."""
    if not spec.proxy:
        return None
    host = host_of(url)
    for entry in spec.no_proxy:
        name = entry.lstrip("*").lstrip(".")
        if entry == "*" or host == name or ("." in name and host.endswith("." + name)):
            return None
    try:
        parts = urlsplit(spec.proxy)
        where = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return spec.proxy.split("@")[-1]
    if ":" in where:
        where = f"[{where}]"
    return f"{parts.scheme.lower()}://{where}{port}"
