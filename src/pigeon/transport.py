"""How one request reaches its server (DESIGN §7): the proxy, the TLS trust and the client
certificate its collection and environment choose for its URL, rendered like any other place.

An environment's setting wins over the collection's; certificates are tried environment
first, each matched on the URL's host (``*.corp.example``). File paths are relative to the
collection and read through the trust gate: an untrusted collection reads no key, certificate
or CA file outside its directory (``pigeon.trust``). The result, ``TransportSpec``, is
hashable: the HTTP session keeps one client per distinct spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import urlsplit

from pigeon.errors import RenderError
from pigeon.expand import Renderer
from pigeon.model import Certificate, Collection, Environment, Transport
from pigeon.scopes import Scopes

PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


@dataclass(frozen=True, slots=True)
class TransportSpec:
    """What a client is made with. Paths are absolute; ``""`` means none."""

    proxy: str = ""
    no_proxy: tuple[str, ...] = ()
    trust_env: bool = True
    ca_bundle: str = ""
    system_trust: bool = False
    cert: str = ""
    key: str = ""
    password: str = field(default="", repr=False)  # the key's; never shown or written

    @property
    def default(self) -> bool:
        return self == _DEFAULT


_DEFAULT = TransportSpec()
_UNSET = Transport()


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def matches(pattern: str, host: str) -> bool:
    """``*.corp.example`` matches every name under corp.example; a plain name only itself."""
    return fnmatchcase(host, pattern.strip().lower())


def _pick(env: Transport | None, col: Transport, name: str) -> object:
    value = getattr(env, name) if env is not None else None
    return value if value not in (None, "") else getattr(col, name)


def _file(text: str, what: str, collection: Collection, scopes: Scopes) -> str:
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = collection.root / path
    if scopes.gate is not None:
        real = scopes.gate.file(path, what)
        return str(real) if real is not None else str(path)
    return str(path)


def _certificate(
    env: Transport | None, col: Transport, host: str, r: Renderer
) -> Certificate | None:
    own = env.certificates if env is not None else []
    for cert in [*own, *col.certificates]:
        if host and matches(r.render_text(cert.host), host):
            return cert
    return None


def transport_spec(
    collection: Collection, environment: Environment | None, url: str, r: Renderer
) -> TransportSpec:
    """The spec for ``url`` (already rendered); ``RenderError`` for a proxy it cannot use."""
    col, env = collection.transport, environment.transport if environment else None
    if col == _UNSET and (env is None or env == _UNSET):
        return _DEFAULT  # the common case, on every render of the live preview
    scopes = r.scopes
    proxy = r.render_text(str(_pick(env, col, "proxy"))).strip()
    if proxy:
        scheme = proxy.partition("://")[0].lower() if "://" in proxy else ""
        if scheme not in PROXY_SCHEMES:
            raise RenderError(
                f"proxy {proxy.split('@')[-1]!r}: start it with {', '.join(PROXY_SCHEMES)}://"
            )
    no_proxy = r.render_text(str(_pick(env, col, "no_proxy")))
    ca = r.render_text(str(_pick(env, col, "ca_bundle"))).strip()
    trust_env, system_trust = _pick(env, col, "trust_env"), _pick(env, col, "system_trust")
    spec = TransportSpec(
        proxy=proxy,
        no_proxy=tuple(p.strip().lower() for p in no_proxy.split(",") if p.strip()),
        trust_env=trust_env is not False,
        ca_bundle=_file(ca, "settings.ca_bundle", collection, scopes) if ca else "",
        system_trust=system_trust is True,
    )
    cert = _certificate(env, col, host_of(url), r)
    if cert is None:
        return spec
    what = f"the certificate for {cert.host}"
    key = r.render_text(cert.key).strip()
    return replace(
        spec,
        cert=_file(r.render_text(cert.cert).strip(), what, collection, scopes),
        key=_file(key, what, collection, scopes) if key else "",
        password=r.render_text(cert.password),
    )
