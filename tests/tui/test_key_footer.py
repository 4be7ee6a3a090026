"""The key line updates in place: a send shows and hides ``esc`` without rebuilding the keys,
and what it shows is what Textual's ``Footer`` would show; its keys answer a click and show
their tooltip."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from tui_support import main_screen, running, settle, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.key_footer import KeyFooter


def shown(footer: KeyFooter) -> list[tuple[str, str, bool]]:
    """The keys on the line, in order: key, label, enabled."""
    return [(key.key, key.description, key.enabled) for key in footer.shown]


async def rebuilt(pilot, footer: KeyFooter) -> list[tuple[str, str, bool]]:
    """What Textual's ``Footer.compose`` composes from the bindings now."""
    composed: list[FooterKey] = []
    footer.call_next(lambda: composed.extend(Footer.compose(footer)))  # in the footer's context
    await pilot.pause()
    return [(key.key, key.description, not key._disabled) for key in composed]


async def test_a_send_shows_esc_while_in_flight_without_rebuilding(app: PigeonApp) -> None:
    async with running(app, "responses/slow") as pilot:
        footer = main_screen(app).query_one(KeyFooter)
        before = [footer.line, *footer.query(FooterKey)]
        assert ("escape", "Cancel send", True) not in shown(footer)

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: ("escape", "Cancel send", True) in shown(footer))
        assert all(key.is_attached for key in before)  # the keys already there stay
        assert shown(footer) == await rebuilt(pilot, footer)
        assert list(footer.children) == before  # the line and the palette key, as they were

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


async def test_a_click_on_a_key_presses_it_and_a_hover_shows_its_tooltip(app: PigeonApp) -> None:
    from pigeon.tui.screens.help import HelpScreen

    async with running(app) as pilot:
        line = main_screen(app).query_one(KeyFooter).line
        index = next(i for i, key in enumerate(line.keys) if key.description == "Help")
        start, end = line._spans[index]
        vars_index = next(i for i, key in enumerate(line.keys) if key.description == "Vars")
        await pilot.hover(line, offset=(line._spans[vars_index][0], 0))
        assert line.tooltip == line.keys[vars_index].tooltip != ""
        assert line.has_class("-over-key")
        await pilot.click(line, offset=(end - 1, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))



async def test_a_dialog_over_the_main_screen_takes_the_pane_keys_off_its_line(
    app: PigeonApp,
) -> None:
    """Under a dialog the pane keys do nothing: the main screen's line, seen under the dialog,
    drops them once the dialog is open, and shows them again when it closes."""
    async with running(app) as pilot:
        main = main_screen(app)
        footer = main.query_one(KeyFooter)
        panes = ("alt+1", "Panes", True)
        await pilot.press("ctrl+n")  # a new request, not yet saved: ctrl+s asks for its name
        await wait_for(pilot, lambda: main.editor.request is not None)
        await wait_for(pilot, lambda: panes in shown(footer) and not footer._update_due)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not main)
        await wait_for(pilot, lambda: panes not in shown(footer))
        assert shown(footer) == await rebuilt(pilot, footer)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main and panes in shown(footer))
