"""The key line updates in place: a send shows and hides ``esc`` without rebuilding the keys,
and what it shows is what Textual's ``Footer`` would show."""

from __future__ import annotations

from textual.widgets._footer import FooterKey
from tui_support import main_screen, running, settle, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.key_footer import KeyFooter


def shown(footer: KeyFooter) -> list[tuple[str, str, bool]]:
    """The keys on the line, in order: key, label, enabled."""
    return [
        (key.key, key.description, not key.disabled)
        for key in footer.query(FooterKey)
        if key.display
    ]


async def rebuilt(pilot, footer: KeyFooter) -> list[tuple[str, str, bool]]:
    """What the line shows once rebuilt by ``Footer.compose`` from the bindings now."""
    footer.call_next(footer.recompose)  # composed in the footer's own context
    await pilot.pause()
    return shown(footer)


async def test_a_send_shows_esc_while_in_flight_without_rebuilding(app: PigeonApp) -> None:
    async with running(app, "responses/slow") as pilot:
        footer = main_screen(app).query_one(KeyFooter)
        before = list(footer.query(FooterKey))
        assert ("escape", "Cancel send", True) not in shown(footer)

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: ("escape", "Cancel send", True) in shown(footer))
        assert all(key.is_attached for key in before)  # the keys already there stay
        assert shown(footer) == await rebuilt(pilot, footer)
        before = list(footer.query(FooterKey))

        await pilot.press("escape")
        await settle(pilot)
        await wait_for(pilot, lambda: ("escape", "Cancel send", True) not in shown(footer))
        assert all(key.is_attached for key in before)
        assert shown(footer) == await rebuilt(pilot, footer)
        assert main_screen(app).query_one("#response").state == "cancelled"


async def test_focus_moves_change_the_keys_shown(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        footer = main_screen(app).query_one(KeyFooter)
        for key in ("ctrl+l", "tab", "ctrl+t", "ctrl+t", "f6", "f6"):
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            assert shown(footer) == await rebuilt(pilot, footer), key


async def test_keys_that_overflow_do_not_show_past_the_palette_key(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(80, 24)) as pilot:
        main_screen(app).query_one("#headers").focus()  # a table's keys: the line overflows
        await pilot.pause()
        line = app.screen._compositor.render_strips()[-1].text
        assert line.endswith("^p Palette "), repr(line)
