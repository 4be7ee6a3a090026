"""The TLS context a request's client uses (DESIGN §7): verified by default, against certifi's
roots or the system's trust store (``truststore``), with a CA bundle added to either, and a
client certificate when the collection names one for the host.

A certificate or key that cannot be loaded (missing, not PEM, wrong password) is one clear
line, ``TLSSetupError``, and nothing is sent.
"""

from __future__ import annotations

import ssl

import certifi

from pigeon.transport import TransportSpec


class TLSSetupError(ValueError):
    """The TLS settings cannot be used; the message names the file."""


def _reason(exc: Exception) -> str:
    if isinstance(exc, ssl.SSLError):
        return exc.reason or str(exc)
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def ssl_context(spec: TransportSpec, verify: bool) -> ssl.SSLContext | bool:
    """The ``verify`` argument for a client: ``True`` (httpx's default roots, which honour
    ``SSL_CERT_FILE`` when the environment is trusted), ``False``, or a context."""
    if not (spec.system_trust or spec.ca_bundle or spec.cert):
        return verify
    if not verify:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif spec.system_trust:
        import truststore  # loads the platform's trust: only when asked for

        ctx = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    else:
        ctx = ssl.create_default_context(cafile=certifi.where())  # httpx's own default roots
    if verify and spec.ca_bundle:
        try:
            ctx.load_verify_locations(cafile=spec.ca_bundle)
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise TLSSetupError(f"CA bundle {spec.ca_bundle}: {_reason(exc)}") from None
    if spec.cert:
        try:
            ctx.load_cert_chain(spec.cert, spec.key or None, spec.password or None)
        except (OSError, ssl.SSLError, ValueError) as exc:
            files = spec.cert + (f" with key {spec.key}" if spec.key else "")
            raise TLSSetupError(f"Client certificate {files}: {_reason(exc)}") from None
    return ctx
