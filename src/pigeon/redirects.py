"""Which credentials a followed redirect carries (DESIGN §7: "Credentials added by auth never
follow a redirect to another origin").

httpx, building the next request of a redirect, drops only ``Authorization`` (and keeps it on
an http -> https upgrade) and rebuilds ``Cookie`` from the jar. The rule here is the whole of
it: at the first hop to another origin (scheme, host or port) every header and query parameter
auth added, and a hand-set ``Authorization``, ``Proxy-Authorization`` or ``Cookie`` (curl drops
the same ones on a cross-host redirect), are taken off, and they stay off for the rest of the
chain, back at the first origin too: a server that bounced the request through another origin
does not get them back. While they are kept (same origin, or ``keep_auth_on_redirect``) the
headers go on as the first request had them; query parameters go where the Location sends them.
"""

from __future__ import annotations

import httpx

from pigeon.auth_kinds import KINDS
from pigeon.render import RenderedRequest

HAND_SET = ("authorization", "proxy-authorization", "cookie")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port (the scheme's default port when the URL names none)."""
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


class RedirectCredentials:
    """The credentials of one send, carried or taken off hop by hop."""

    def __init__(self, rendered: RenderedRequest) -> None:
        names = {name.lower() for name in rendered.auth_headers} | set(HAND_SET)
        self.headers = [(n, v) for n, v in rendered.headers if n.lower() in names]
        flow = rendered.flow_auth
        sent = KINDS[flow.type].sent_query(flow) if flow is not None else ()
        self.query = [*rendered.auth_query, *sent]
        self.keep = rendered.settings.keep_auth_on_redirect
        # What the SigV4 signer added to the previous hop (httpx drops its Authorization).
        self.signed = ("X-Amz-Security-Token",) if rendered.flow_auth is not None else ()
        self.dropped = False

    def auth(self, flow: httpx.Auth | None) -> httpx.Auth | None:
        """Digest or SigV4 for the next hop: only while the credentials are still carried."""
        return None if self.dropped else flow

    def follow(self, previous: httpx.Request, request: httpx.Request) -> str | None:
        """Fix the credentials of ``request``, the redirect of ``previous``; a note when this
        hop is the one that takes them off."""
        if not self.dropped and (self.keep or origin(request.url) == origin(previous.url)):
            for name, value in self.headers:
                request.headers[name] = value
            return None
        if self.dropped:
            self._take_off(request)
            return None
        self.dropped = True
        taken = self._take_off(request)
        if not taken:
            return None
        scheme, host, port = origin(request.url)
        return (
            f"credentials not sent on to {scheme}://{host}:{port}, another origin: "
            f"{', '.join(taken)} (settings.keep_auth_on_redirect sends them)"
        )

    def _take_off(self, request: httpx.Request) -> list[str]:
        """Remove the credentials; what this request would have carried, for the note."""
        taken = list(dict.fromkeys(name for name, _ in self.headers))
        for name in self.signed:
            if request.headers.pop(name, None) is not None:
                taken.append(name)
        for name in taken:
            # httpx already rebuilt Cookie from the jar for the new URL: those cookies stay.
            if name.lower() != "cookie":
                request.headers.pop(name, None)
        url = request.url
        for name in self.query:
            if name in url.params:
                url = url.copy_remove_param(name)
                taken.append(f"query {name}")
        request.url = url
        return taken
