"""`pigeon auth COLLECTION REQUEST`: sign in for a request's OAuth 2.0 auth in the terminal
and keep the token where the app and `pigeon run` find it (DESIGN §6, §7).

For the grants that need a person, over SSH too: the device grant prints its code and URL
and polls until approved; the authorization code grant prints the sign-in URL and takes the
URL the browser ended on (or the code) pasted on standard input, unless the browser reached
the loopback redirect first. Ctrl-C gives up.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time

from pigeon.cli.render import prepared_from_args
from pigeon.cli.stderr import say
from pigeon.errors import EXIT_OK, SendFailure
from pigeon.oauth2 import DevicePrompt, Token, TokenError, Tokens
from pigeon.terminal import printable


class TerminalPerson:
    """The person at this terminal: prompts on stderr, answers on stdin."""

    async def device(self, prompt: DevicePrompt, approved: asyncio.Task[Token]) -> Token:
        say(f"open {prompt.verification_uri} and enter the code {prompt.user_code}")
        if prompt.verification_uri_complete:
            say(f"(or open {prompt.verification_uri_complete})")
        say(f"waiting for the approval (the code expires in {prompt.expires_in:.0f} s)...")
        return await approved

    async def authorize(self, url: str, redirected: asyncio.Future[str] | None) -> str:
        say(f"sign in at: {printable(url)}")
        say("then paste the URL the browser ended on (or the code) and press Enter")
        loop = asyncio.get_running_loop()
        pasted: asyncio.Future[str] = loop.create_future()

        def paste(line: str) -> None:
            if not pasted.done():
                pasted.set_result(line)

        def read() -> None:  # a daemon thread: a line that never comes holds nothing up
            loop.call_soon_threadsafe(paste, sys.stdin.readline())

        threading.Thread(target=read, daemon=True).start()
        waits: list[asyncio.Future[str]] = [pasted] + ([redirected] if redirected else [])
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        answer = done.pop().result()
        if answer or (redirected is not None and redirected.done()):
            return answer
        # Standard input is closed (< /dev/null, a CI job): nothing will ever be pasted.
        if redirected is None:
            raise TokenError(
                "pigeon auth needs the URL the browser ended on (or the code) on standard "
                "input, which is closed: run it in a terminal, or pipe that URL in"
            )
        say("standard input is closed: waiting for the browser to reach the redirect")
        return await redirected


def cli_auth(args: argparse.Namespace) -> int:
    """Fetch a token anew for the request's ``oauth2`` auth and keep it."""
    prepared = prepared_from_args(args, no_scripts=True)  # a token needs no script
    auth = prepared.rendered.oauth2
    if auth is None:
        raise SendFailure(f"{args.request}: its auth is not oauth2")
    tokens = Tokens(prepared.collection.root, TerminalPerson())

    async def go() -> Token:
        return await tokens.token(args.env, auth, prepared.rendered.settings, fresh=True)

    try:
        token = asyncio.run(go())
    except TokenError as exc:
        raise SendFailure(str(exc)) from None
    if tokens.cache.warning:
        say(f"warning: {tokens.cache.warning}")
    left = f", expires in {token.expires_at - time.time():.0f} s" if token.expires_at else ""
    scope = f", scope {printable(token.scope)}" if token.scope else ""
    print(f"token kept for {prepared.request.id} ({token.grant}{scope}{left})")
    return EXIT_OK
