"""The response pane: status line, body kinds, headers, the request as sent with secrets
masked, timings, copy / copy as curl / save."""

from __future__ import annotations

from pathlib import Path

import pytest
from response_pane_app import ResponsePaneApp, make_exchange
from textual.widgets import TabbedContent
from textual_speedups import _awaiting_paint
from tui_support import wait_for

from pigeon.send import Exchange, Progress, Timings
from pigeon.tui.format import (
    curl_command,
    mask_url,
    mask_value,
    sent_text,
    suggested_filename,
)
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.events_panel import EventsPanel
from pigeon.tui.widgets.response.image_view import ImageView
from pigeon.tui.widgets.response.response_pane import ResponsePane
from pigeon.tui.widgets.response.status_line import StatusLine

pytestmark = pytest.mark.timeout(60)

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    + (400).to_bytes(4, "big")
    + (300).to_bytes(4, "big")
    + b"\x08\x06\x00\x00\x00" * 240
)


async def open_tab(pilot, pane: ResponsePane, tab_id: str, part: str) -> None:
    """Open the pane's tab ``tab_id`` as a click would; ``part`` (a selector) is in it once
    built (the "As sent" and "Timings" tabs are built when first opened)."""
    pane.query_one("#response-tabs", TabbedContent).active = tab_id
    await wait_for(pilot, lambda: bool(pane.query(part)))
    await pilot.pause()


def body_lines(app: ResponsePaneApp, count: int) -> list[str]:
    view = app.query_one("#body-view", BodyView)
    return [view.render_line(y).text.rstrip() for y in range(count)]


# -- pure helpers ------------------------------------------------------------------------------


def test_masking_keeps_the_scheme() -> None:
    assert mask_value("Authorization", "Bearer abc") == "Bearer •••"
    assert mask_value("X-Api-Key", "abc") == "•••"
    assert mask_value("Cookie", "sid=1") == "•••"
    assert mask_value("Accept", "application/json") == "application/json"


def test_secret_query_parameters_are_masked() -> None:
    assert (
        mask_url("http://h/x?page=1&api_key=abc&q=token%20x&X-Amz-Signature=zz#top")
        == "http://h/x?page=1&api_key=•••&q=token%20x&X-Amz-Signature=•••#top"
    )
    assert mask_url("http://h/x") == "http://h/x"
    exchange = make_exchange(url="http://127.0.0.1:8000/x?token=abc")
    assert sent_text(exchange).splitlines()[0] == "POST http://127.0.0.1:8000/x?token=••• HTTP/1.1"
    assert "token=abc" in sent_text(exchange, reveal=True)


def test_the_copied_curl_command_is_the_exporters() -> None:
    ex = make_exchange()
    command = curl_command(ex.request)
    assert command.startswith("curl --url 'http://127.0.0.1:8000/users?page=1'")
    assert "-H 'Authorization: Bearer s3cr3t-token'" in command
    assert '--data-raw \'{"name": "Ada"}\'' in command


def test_suggested_filename() -> None:
    assert suggested_filename("http://h/a/report.csv?x=1", "text/csv") == "report.csv"
    assert suggested_filename("http://h/users", "application/json") == "response.json"
    assert suggested_filename("http://h/x", "", 'attachment; filename="r.pdf"') == "r.pdf"
    assert suggested_filename("http://h/x", "", "attachment; filename=../../etc") == ".._.._etc"


# -- the pane ----------------------------------------------------------------------------------


async def test_status_line_and_pretty_body() -> None:
    exchange = make_exchange()
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        status = app.query_one(StatusLine)
        size = 120 + len(exchange.body)
        assert status.plain == f"200 OK · Successful · 123 ms · {size} B · HTTP/1.1"
        assert body_lines(app, 4) == ["{", '  "users": [', "    {", '      "id": 1,']
        ok_colour = status.get_component_rich_style("status-line--success").color
        assert status.render().spans[0].style.color == ok_colour


async def test_status_colours_follow_the_class() -> None:
    app = ResponsePaneApp(make_exchange(b"no", "text/plain", status=404, reason="Not Found"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        status = app.query_one(StatusLine)
        assert status.plain.startswith("404 Not Found · Client error · ")
        warn = status.get_component_rich_style("status-line--client-error").color
        ok = status.get_component_rich_style("status-line--success").color
        assert status.render().spans[0].style.color == warn != ok
        assert body_lines(app, 1) == ["no"]


async def test_error_pending_and_cancelled() -> None:
    app = ResponsePaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        status = app.query_one(StatusLine)
        assert status.plain == "No response yet"
        pane.show_pending("GET", "http://127.0.0.1:9/x")
        await pilot.pause()
        first = status.plain
        assert "GET http://127.0.0.1:9/x · " in first and pane.state == "pending"
        await wait_for(pilot, lambda: status.plain != first)  # the spinner turns, the time runs
        progress = Progress(phase="waiting")
        pane.show_pending("GET", "http://127.0.0.1:9/big", progress)
        await wait_for(pilot, lambda: status.plain.endswith(" · waiting"))
        progress.phase, progress.bytes_received, progress.content_length = (
            "receiving",
            1536,
            3 * 1024 * 1024,
        )
        await wait_for(pilot, lambda: status.plain.endswith(" · 1.5 KB of 3.0 MB"))
        pane.show_cancelled()
        await pilot.pause()
        assert status.plain.startswith("■ Cancelled after ")
        assert pane.state == "cancelled"
        failed = Exchange.failed(
            make_exchange().request, "connect", "Connection refused: 127.0.0.1:9"
        )
        pane.show_exchange(failed)
        await pilot.pause()
        assert status.plain == "✖ Connection refused: 127.0.0.1:9"
        assert status.render().style == status.get_component_rich_style(
            "status-line--error", partial=True
        )
        assert pane.state == "error"
        assert body_lines(app, 1) == ["No response: Connection refused: 127.0.0.1:9"]
        pane.clear()
        await pilot.pause()
        assert status.plain == "No response yet" and pane.exchange is None


async def test_image_and_binary_bodies_are_described() -> None:
    app = ResponsePaneApp(make_exchange(PNG, "image/png"))
    async with app.run_test(size=(100, 30)) as pilot:
        image = app.query_one(ImageView)
        await wait_for(pilot, lambda: ": " in image.description)  # Pillow's verdict
        assert image.display and image.description.startswith("PNG image, 400x300 pixels, 1.2 KB")
        assert "corrupt" in image.description  # a PNG header over nonsense
        blob = bytes(range(256)) * 20480  # 5.0 MB
        app.query_one(ResponsePane).show_exchange(make_exchange(blob, "application/octet-stream"))
        assert not image.display
        await wait_for(pilot, lambda: body_lines(app, 1)[0].startswith("00000000  00 01 02"))
        await pilot.press("c")  # binary bodies are not copied as text
        assert app.clipboard == ""


async def test_headers_tab() -> None:
    headers = [("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]
    app = ResponsePaneApp(make_exchange(headers=headers))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(ResponsePane)
        table = pane.headers_table
        assert [table.get_row_at(n) for n in range(table.row_count)] == [list(h) for h in headers]
        tabs = pane.query_one("#response-tabs")
        assert str(tabs.get_tab("tab-headers").label) == "Headers (3)"
        tabs.active = "tab-headers"
        await pilot.pause()
        assert table.display and table.region.height > 0


async def test_a_header_from_the_server_shows_its_control_characters_as_escapes() -> None:
    headers = [("X-Evil\x1b]2;t\x07", "a\x1b[2Jb\x9bc")]
    app = ResponsePaneApp(make_exchange(headers=headers))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(ResponsePane).headers_table
        assert table.get_row_at(0) == ["X-Evil\\x1b]2;t\\x07", "a\\x1b[2Jb\\x9bc"]


async def test_as_sent_masks_secrets_until_revealed() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(ResponsePane)
        await open_tab(pilot, pane, "tab-sent", "#sent-view")
        sent = pane.sent_view
        sent.focus()  # the keys go to the pane from the view on show
        text = sent.text.splitlines()
        assert text[0] == "POST http://127.0.0.1:8000/users?page=1 HTTP/1.1"
        assert "Authorization: Bearer •••" in text
        assert "Host: 127.0.0.1:8000" in text
        assert text[-2:] == ["", '{"name": "Ada"}']
        assert "s3cr3t" not in sent.text
        await pilot.press("v")
        await pilot.pause()
        assert "Authorization: Bearer s3cr3t-token" in sent.text.splitlines()
        await pilot.press("v")
        await pilot.pause()
        assert "s3cr3t" not in sent.text


async def test_timings_tab() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await open_tab(pilot, app.query_one(ResponsePane), "tab-timings", "#timings")
        timings = str(app.query_one("#timings").render())
        assert "Total" in timings and "123 ms" in timings
        assert "110 ms" in timings and "1.5 ms" in timings
        assert "plain HTTP" in timings  # no TLS handshake on this one
        app.query_one(ResponsePane).show_exchange(
            make_exchange(url="https://127.0.0.1/x", timings=Timings(total_ms=5.0))
        )
        await pilot.pause()
        assert str(app.query_one("#timings").render()).count("connection reused") == 2


async def test_as_sent_and_timings_are_built_when_first_opened_and_show_the_exchange_then() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(ResponsePane)
        assert not pane.query("#sent-panel") and not pane.query("#timings")  # not at start
        pane.show_exchange(make_exchange(url="https://127.0.0.1/x", timings=Timings(total_ms=5.0)))
        await open_tab(pilot, pane, "tab-timings", "#timings")
        assert str(app.query_one("#timings").render()).count("connection reused") == 2
        pane.clear()
        await open_tab(pilot, pane, "tab-sent", "#sent-view")
        assert pane.sent_view.text == ""
        pane.show_exchange(make_exchange())  # built now: it follows each exchange
        await pilot.pause()
        assert pane.sent_view.text.startswith("POST http://127.0.0.1:8000/users?page=1 HTTP/1.1")


async def test_the_events_panel_is_built_for_the_first_event_stream() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(ResponsePane)
        assert not pane.query(EventsPanel)
        stream = b"id: 1\ndata: one\n\nid: 2\ndata: two\n\n"
        pane.show_exchange(make_exchange(stream, "text/event-stream"))  # as from the history
        panel = pane.query_one(EventsPanel)  # given its events before its widgets are in
        await wait_for(pilot, lambda: bool(pane.query("#event-table")))
        await pilot.pause()
        assert [e.id for e in panel.table.rows] == ["1", "2"]
        assert str(panel.query_one("#events-note").render()).startswith("2 events")
        assert panel.display and not pane.body_panel.display
        pane.show_exchange(make_exchange())
        await pilot.pause()
        assert not panel.display and pane.body_panel.display


async def test_credentials_left_behind_by_a_redirect_are_shown() -> None:
    warning = "credentials not sent on to http://localhost:1, another origin: Authorization"
    exchange = make_exchange(
        b"no", "text/plain", status=401, reason="Unauthorized",
        redirects=[(302, "http://127.0.0.1:8000/users")], warnings=[warning],
    )  # fmt: skip
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        assert app.query_one(StatusLine).plain.endswith(f"1 redirect · ⚠ {warning}")
        await open_tab(pilot, app.query_one(ResponsePane), "tab-timings", "#timings")
        timings = str(app.query_one("#timings").render())
        assert "Redirect 302 from http://127.0.0.1:8000/users" in timings
        assert warning in timings


async def test_copy_body_and_curl() -> None:
    exchange = make_exchange()
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert app.clipboard == exchange.text
        await pilot.press("C")
        assert app.clipboard.startswith("curl ")
        assert "http://127.0.0.1:8000/users?page=1" in app.clipboard
        # With a filter on, the filter's result is what gets copied.
        await pilot.press("f", *"users[0].name", "enter")
        view = app.query_one("#body-view", BodyView)
        await wait_for(pilot, lambda: view.is_filtered)
        await pilot.press("c")
        assert app.clipboard == '"Ada Lovelace"'


async def test_a_body_over_the_clipboard_limit_is_not_copied_and_save_is_offered() -> None:
    from pigeon.tui.widgets.response.response_pane import CLIPBOARD_LIMIT

    body = "x" * (2 * CLIPBOARD_LIMIT)
    exchange = make_exchange(body, "text/plain")
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == ""
        [note] = [n.message for n in app._notifications]
        assert note == (
            "The body (2.0 MB) is too large for the terminal's clipboard "
            "(OSC 52, at most 1.0 MB here): save it with s."
        )


async def test_save_body_writes_the_file(tmp_path: Path) -> None:
    exchange = make_exchange()
    app = ResponsePaneApp(exchange)
    saved: list[Path] = []
    app.on_response_pane_body_saved = lambda event: saved.append(event.path)  # type: ignore[attr-defined]
    target = tmp_path / "out.json"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        prompt = app.screen.query_one("#prompt-input")
        assert prompt.value == "response.json"
        title = str(app.screen.query_one(".title").render())  # where a bare name goes
        assert f"a bare name goes in {Path.cwd()}" in title.replace("\n", " ")
        prompt.value = str(tmp_path / "missing" / "x.json")
        await pilot.press("enter")
        await pilot.pause()
        assert "does not exist" in str(app.screen.query_one("#prompt-error").render())
        prompt.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists())
        assert target.read_bytes() == exchange.body
        assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary left
        # Saving over an existing file takes a second enter.
        target.write_text("old")
        await pilot.press("s")
        await pilot.pause()
        prompt = app.screen.query_one("#prompt-input")
        prompt.value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert "press enter again" in str(app.screen.query_one("#prompt-error").render())
        assert target.read_text() == "old"
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.read_bytes() == exchange.body)


async def test_save_copies_a_spooled_body(tmp_path: Path) -> None:
    spool = tmp_path / "spool.body"
    whole = b"x" * 300_000
    spool.write_bytes(whole)
    exchange = make_exchange(
        whole[:1000], "text/plain", body_size=len(whole), body_path=spool, truncated=True
    )
    app = ResponsePaneApp(exchange)
    target = tmp_path / "whole.txt"
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert app.clipboard == ""  # too big to copy
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#prompt-input").value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists())
        assert target.read_bytes() == whole


def test_snapshot_json_response(snap_compare) -> None:
    exchange = make_exchange(
        timings=Timings(total_ms=87.0, connect_ms=0.8, tls_ms=None, ttfb_ms=80.0, download_ms=1.0)
    )
    assert snap_compare(ResponsePaneApp(exchange), terminal_size=(120, 40))


async def test_search_in_the_request_as_sent() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(ResponsePane)
        await open_tab(pilot, pane, "tab-sent", "#sent-view")
        pane.sent_view.focus()
        await pilot.press("slash", *"trace")
        await pilot.pause()
        assert pane.sent_view.match_count == 1
        assert str(pane.query_one("#sent-panel #body-bar-count").render()) == "1/1"
        assert pane.body_view.match_count == 0


async def test_zooming_in_on_the_body_takes_the_whole_pane() -> None:
    app = ResponsePaneApp(make_exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.query_one("#body-view", BodyView)
        assert app.screen.maximize(view)
        assert app.screen.maximized is app.query_one(ResponsePane)


async def test_ndjson_keeps_its_lines_and_is_highlighted() -> None:
    body = '{"id": 1, "ok": true}\n{"id": 2, "ok": false}\n'
    app = ResponsePaneApp(make_exchange(body, "application/x-ndjson"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.query_one("#body-view", BodyView)
        assert body_lines(app, 3) == ['{"id": 1, "ok": true}', '{"id": 2, "ok": false}', ""]
        key = view.get_component_rich_style("body-view--key").color
        assert next(s for s in view.render_line(0) if s.text == '"id"').style.color == key


async def test_bytes_that_are_not_utf8_are_counted_over_the_body() -> None:
    app = ResponsePaneApp(make_exchange(b"ok \xff\xfe then \xc3", "text/plain"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        note = app.query_one("#body-note")
        assert note.display and str(note.content) == "3 bytes were not valid UTF-8 (shown as �)"
        assert app.query_one(BodyView).text == "ok �� then �"
        app.query_one(ResponsePane).show_exchange(make_exchange(b"fine \xc3\xa9", "text/plain"))
        await pilot.pause()
        assert not note.display


@pytest.mark.parametrize(
    ("content_type", "body", "lines"),
    [
        (
            "text/html; charset=utf-8",
            "<html><body><div class=a><p>Hi &amp; bye</p><br><pre> x\n  y</pre></div></body></html>",
            [
                "<html>",
                "  <body>",
                "    <div class=a>",
                "      <p>",
                "        Hi &amp; bye",
                "      </p>",
                "      <br>",
                "      <pre>",
                " x",
                "  y",
                "      </pre>",
            ],
        ),
        (
            "application/xml",
            '<?xml version="1.0"?><a><b x="1">t</b><c/></a>',
            ['<?xml version="1.0" ?>', "<a>", '  <b x="1">t</b>', "  <c/>", "</a>"],
        ),
    ],
)
async def test_html_and_xml_are_laid_out_one_element_a_line(
    content_type: str, body: str, lines: list[str]
) -> None:
    app = ResponsePaneApp(make_exchange(body, content_type))
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(BodyView)
        await wait_for(pilot, lambda: view.line_count >= len(lines))
        assert [view.line_text(n) for n in range(len(lines))] == lines


async def test_hostile_markup_is_shown_never_obeyed() -> None:
    body = "<p>\x1b[2J\x1b]2;owned\x07" + "<div>" * 5000 + "</p>"
    app = ResponsePaneApp(make_exchange(body, "text/html"))
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(BodyView)
        await wait_for(pilot, lambda: view.line_count > 5000)
        assert max(len(view.line_text(n)) for n in range(view.line_count)) < 100  # indent capped
        shown = "".join(view.render_line(y).text for y in range(5))
        assert "\x1b" not in shown and "\x07" not in shown


async def test_a_sends_status_is_drawn_at_once_not_with_the_next_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The status line of a send that came back is drawn there and then: waiting for the
    screen's next frame cost up to 1/60 s between the key and the status."""
    from pigeon.tui.painted import Painted

    app = ResponsePaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        await pilot.pause()
        drawn: list[str] = []
        render = type(pane.status_line).render
        monkeypatch.setattr(
            type(pane.status_line),
            "render",
            lambda line: (drawn.append(line.plain), render(line))[1],
        )

        async def no_frame_waited(*args: object) -> None:
            raise AssertionError("the status waited for the next frame")

        monkeypatch.setattr(Painted, "wait", no_frame_waited)
        _awaiting_paint.add(pane.status_line)  # what the tests' frames draw (textual_speedups)
        pane.show_status(make_exchange(status=418, reason="I'm a teapot"))
        assert not drawn
        await pane.status_line.painted()
        assert drawn and drawn[-1].startswith("418 I'm a teapot")
