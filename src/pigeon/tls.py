"""The TLS context a request's client uses (DESIGN §7): verified by default, against certifi's
roots or the system's trust store (``truststore``), with a CA bundle added to either, and a
client certificate when the collection names one for the host. Clients with none of these
share one default verifying context a process (``default_context``).

A certificate or key that cannot be loaded (missing, not PEM, wrong password) is one clear
line, ``TLSSetupError``, and nothing is sent.
"""

from __future__ import annotations

import os
import ssl
import threading

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
        _load_certificate(ctx, spec)
    return ctx


# The default verifying contexts made so far, by what httpx would build them from: the
# environment's SSL_CERT_FILE / SSL_CERT_DIR when trusted, SSLKEYLOGFILE, and whether HTTP/2 is
# offered (httpcore sets the context's ALPN on every connection; one context per offer keeps
# two clients from changing it under each other).
_shared: dict[tuple[str, str, str, bool], ssl.SSLContext] = {}
_shared_lock = threading.Lock()


def default_context(*, http2: bool, trust_env: bool) -> ssl.SSLContext:
    """The context httpx makes for ``verify=True``, made once a process: loading certifi's
    roots costs ~27 ms of CPU a client, and every client without a CA bundle, client
    certificate or ``verify_tls = false`` of its own would otherwise pay it."""
    cafile = os.environ.get("SSL_CERT_FILE", "") if trust_env else ""
    capath = os.environ.get("SSL_CERT_DIR", "") if trust_env and not cafile else ""
    key = (cafile, capath, os.environ.get("SSLKEYLOGFILE", ""), http2)
    with _shared_lock:
        ctx = _shared.get(key)
        if ctx is None:
            from httpx import create_ssl_context

            ctx = _shared[key] = create_ssl_context(verify=True, trust_env=trust_env)
        return ctx


def shared_verify(
    verify: ssl.SSLContext | bool, *, http2: bool, trust_env: bool
) -> ssl.SSLContext | bool:
    """``verify`` for a client, with httpx's default (``True``) swapped for the shared context;
    a context of the request's own or ``False`` is left as it is."""
    if verify is True:
        return default_context(http2=http2, trust_env=trust_env)
    return verify


class _NoPassword(Exception):
    """The key is encrypted and no password was given."""


def _load_certificate(ctx: ssl.SSLContext, spec: TransportSpec) -> None:
    """The client certificate and its key into ``ctx``. The password is handed over only when
    OpenSSL asks for it (never a prompt on the terminal), so its failures can be told apart:
    a wrong password, a password missing, a file that is not what it should be."""
    asked = False

    def password() -> str:
        nonlocal asked
        asked = True
        if not spec.password:
            raise _NoPassword
        return spec.password

    files = spec.cert + (f" with key {spec.key}" if spec.key else "")
    key = spec.key or spec.cert
    try:
        ctx.load_cert_chain(spec.cert, spec.key or None, password)
    except _NoPassword:
        raise TLSSetupError(
            f"Client certificate {files}: {key} is encrypted: give its password"
        ) from None
    except ssl.SSLError as exc:
        if asked and exc.reason in (None, "BAD_DECRYPT", "PEM lib"):  # not a mismatch
            raise TLSSetupError(f"Client certificate {files}: wrong password for {key}") from None
        raise TLSSetupError(f"Client certificate {files}: {_reason(exc)}") from None
    except (OSError, ValueError) as exc:
        raise TLSSetupError(f"Client certificate {files}: {_reason(exc)}") from None
