"""``{{`` completion beyond the URL bar: header and query values, the body editor and the
variable dialog offer the names in scope."""

from __future__ import annotations

from textual.widgets import Input
from tui_support import main_screen, open_request, running, show_tab, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.pair_edit import PairEditScreen
from pigeon.tui.dialogs.variable_edit import VariableEditScreen
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea, ScriptTextArea
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def test_the_body_editor_offers_a_completion_that_tab_takes(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/create-user")
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", PlaceholderTextArea)
        area.load_text("")
        area.focus()
        await pilot.press(*'{"u": "{{base_')
        await wait_for(pilot, lambda: area.completion == "url}}")
        assert area.border_subtitle == "tab → url}}"
        await pilot.press("tab")
        await pilot.pause()
        assert request.body.content == '{"u": "{{base_url}}'
        assert app.focused is area and area.completion == ""
        await pilot.press("tab")  # nothing offered: tab moves on
        await pilot.pause()
        assert app.focused is not area


async def test_a_script_completes_the_names_get_var_and_set_var_take(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/create-user")
        screen = await show_tab(pilot, "tab-scripts")
        await wait_for(pilot, lambda: bool(screen.query("#script-pre")))
        area = screen.query_one("#script-pre", ScriptTextArea)
        area.load_text("")
        area.focus()
        await pilot.press(*"{{base_")  # a script holds no placeholders: nothing offered
        await pilot.pause()
        assert area.completion == ""
        area.load_text("")
        await pilot.press(*'url = pigeon.getVar("base_')
        await wait_for(pilot, lambda: area.completion == 'url")')
        assert area.border_subtitle == 'tab → url")'
        await pilot.press("tab", "enter", *"pigeon.setVar('base_")
        await wait_for(pilot, lambda: area.completion == "url', ")
        await pilot.press("tab", *'"x")')
        await wait_for(pilot, lambda: request.scripts.pre_request.endswith('"x")'))
        assert request.scripts.pre_request == (
            'url = pigeon.getVar("base_url")\npigeon.setVar(\'base_url\', "x")'
        )


async def test_a_header_value_completes_placeholders(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = await show_tab(pilot, "tab-headers")
        screen.query_one("#headers").focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, PairEditScreen))
        await pilot.press(*"X-Base", "tab", *"at {{base_")
        value = app.screen.query_one("#pair-value", Input)
        assert app.focused is value
        await wait_for(pilot, lambda: value._suggestion == "at {{base_url}}")
        await pilot.press("right")
        assert value.value == "at {{base_url}}"


async def test_the_variable_dialog_completes_placeholders(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        pane.focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, VariableEditScreen))
        await pilot.press(*"x", "tab", *"{{base_")
        value = app.screen.query_one("#var-value", Input)
        assert app.focused is value
        await wait_for(pilot, lambda: value._suggestion == "{{base_url}}")
