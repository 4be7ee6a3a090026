"""The person the OAuth 2.0 grants reach in the app: the device and sign-in dialogs, pushed
from the send's worker; escape in a dialog gives the sign-in up, and so the send."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pigeon.oauth2 (authlib) and the dialogs load with the first sign-in
    from textual.app import App
    from textual.screen import ModalScreen

    from pigeon.oauth2 import DevicePrompt, Token


def _given_up() -> Exception:
    from pigeon.oauth2 import TokenError

    return TokenError("sign-in given up")


class AppPerson:
    """``pigeon.oauth2.Person`` for the app."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    async def _while_shown(
        self, screen: ModalScreen[Any], waits: list[asyncio.Future[Any]]
    ) -> tuple[asyncio.Future[Any], Any]:
        """Show ``screen`` until it is dismissed or one of ``waits`` ends: the one that ended
        first (the dialog's answer is ``answered``), closing the dialog if still shown."""
        answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def answer(value: Any) -> None:
            if not answered.done():
                answered.set_result(value)

        self.app.push_screen(screen, answer)
        try:
            done, _ = await asyncio.wait([answered, *waits], return_when=asyncio.FIRST_COMPLETED)
            first = answered if answered in done else done.pop()
            return first, first.result() if first is answered else None
        finally:
            if self.app.screen is screen:
                screen.dismiss(None)

    async def device(self, prompt: DevicePrompt, approved: asyncio.Task[Token]) -> Token:
        from pigeon.tui.dialogs.device_code import DeviceCodeScreen

        first, _ = await self._while_shown(DeviceCodeScreen(prompt), [approved])
        if first is not approved:
            raise _given_up()
        return approved.result()

    async def authorize(self, url: str, redirected: asyncio.Future[str] | None) -> str:
        from pigeon.tui.dialogs.sign_in import SignInScreen

        screen = SignInScreen(url, loopback=redirected is not None)
        first, pasted = await self._while_shown(screen, [redirected] if redirected else [])
        if first is redirected and redirected is not None:
            return redirected.result()
        if pasted is None:
            raise _given_up()
        return str(pasted)
