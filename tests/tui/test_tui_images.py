"""Image and binary responses in the response pane, fetched from a loopback server: each
described in one line (and why it is not drawn), drawn when the renderer is forced, a binary
body as hex, and the bytes saved exactly."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from response_pane_app import ResponsePaneApp, make_exchange
from tui_support import wait_for

from images import BOMB, GIF, JPEG, PNG, PROTOBUF, image_server
from pigeon.bodies.kind import human_size
from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import Exchange, HttpSession
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.graphics import Graphics, terminal_graphics
from pigeon.tui.widgets.response.image_view import ImageView
from pigeon.tui.widgets.response.response_pane import ResponsePane

pytestmark = pytest.mark.timeout(60)

Fetch = Callable[[str], Awaitable[Exchange]]  # GET a path of the image server

NO_GRAPHICS = terminal_graphics("auto", {"TERM": "xterm-256color"})
WHY = (
    "Not drawn: this terminal cannot show images (TERM=xterm-256color); "
    'images = "kitty", "sixel" or "blocks" in config.toml draws them anyway'
)


@pytest.fixture(scope="module")
def images_url() -> Iterator[str]:
    with image_server() as url:
        yield url


@pytest.fixture
async def fetch(images_url: str) -> AsyncIterator[Fetch]:
    async with HttpSession() as session:

        async def get(path: str) -> Exchange:
            request = RenderedRequest(
                method="GET", url=f"{images_url}{path}", headers=[], settings=Settings()
            )
            return await session.send(request)

        yield get


@pytest.mark.parametrize(
    ("path", "description"),
    [
        ("/png", f"PNG image, 400x300 pixels, {human_size(len(PNG))}"),
        ("/gif", f"GIF image, 20x10 pixels, 5 frames (animated), {human_size(len(GIF))}"),
        ("/jpeg", f"JPEG image, 640x480 pixels, {human_size(len(JPEG))}"),
        ("/jpeg-as-png", f"JPEG image, 640x480 pixels, {human_size(len(JPEG))}, sent as image/png"),
    ],
)
async def test_an_image_is_described_and_says_why_it_is_not_drawn(
    fetch: Fetch, path: str, description: str
) -> None:
    exchange = await fetch(path)
    app = ResponsePaneApp(None)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        pane.image_view.graphics = NO_GRAPHICS
        pane.show_exchange(exchange)
        view = pane.image_view
        await wait_for(pilot, lambda: view.why_not_drawn)
        assert view.description == description
        assert view.why_not_drawn == WHY
        assert view.display and not pane.body_panel.display and not view.drawn
        caption = str(view.query_one("#image-caption").render())
        assert caption == description


@pytest.mark.parametrize(
    ("path", "ending"),
    [
        (
            "/bomb",
            f"100,000x100,000 pixels, {len(BOMB)} B: "
            "over the 40 megapixel limit, not decoded (a decompression bomb?)",
        ),
        ("/truncated", ": corrupt or truncated (image file is truncated)"),
    ],
)
async def test_hostile_images_are_one_line(fetch: Fetch, path: str, ending: str) -> None:
    exchange = await fetch(path)
    app = ResponsePaneApp(None)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        pane.image_view.graphics = terminal_graphics("sixel")  # it would draw, if it could
        pane.show_exchange(exchange)
        view = pane.image_view
        await wait_for(pilot, lambda: ": " in view.description)  # Pillow's verdict
        assert view.description.startswith("PNG image, ") and view.description.endswith(ending)
        assert "\n" not in view.description and not view.drawn and view.why_not_drawn == ""


async def test_a_forced_renderer_draws_the_picture(fetch: Fetch) -> None:
    exchange = await fetch("/png")
    app = ResponsePaneApp(None)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(ResponsePane)
        pane.image_view.graphics = terminal_graphics("blocks")
        pane.show_exchange(exchange)
        view = pane.image_view
        await wait_for(pilot, lambda: view.drawn)
        picture = view.query_one("#image-picture").children[0]
        await wait_for(pilot, lambda: picture.size.height > 1)
        assert type(picture).__name__ == "HalfcellImage"
        assert view.why_not_drawn == "" and view.description.startswith("PNG image, 400x300")
        # A 4:3 picture in half blocks: about as wide as two lines of it are high.
        assert 1.0 < picture.size.width / (2 * picture.size.height) < 1.7
        # The next response takes the picture away.
        pane.show_exchange(await fetch("/lying-png"))
        await pilot.pause()
        assert not view.display and not view.query_one("#image-picture").children
        assert pane.body_panel.display


async def test_sixel_and_kitty_widgets_load_without_asking_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from pigeon.tui.widgets.response.graphics import image_widget

    sixel, kitty = image_widget("sixel"), image_widget("kitty")
    import textual_image._terminal as terminal
    from textual_image.widget import SixelImage, TGPImage

    assert (sixel, kitty) == (SixelImage, TGPImage)

    assert terminal.get_cell_size._result == (10, 20)  # type: ignore[attr-defined]
    assert capfd.readouterr().out == ""  # not one query written


async def test_a_lying_content_type_is_shown_as_text(fetch: Fetch) -> None:
    exchange = await fetch("/lying-png")
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one("#body-view", BodyView)
        await wait_for(pilot, lambda: "502 Bad Gateway" in view.text)
        note = app.query_one("#body-note")
        assert note.display and str(note.content) == "Sent as image/png, but the body is text"
        assert not any(view.display for view in app.query(ImageView))


async def test_svg_is_shown_as_xml(fetch: Fetch) -> None:
    exchange = await fetch("/svg")
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one("#body-view", BodyView)
        await wait_for(pilot, lambda: view.line_count > 1)
        lines = [view.line_text(n).strip() for n in range(view.line_count)]
        assert lines[1].startswith("<svg") and lines[2] == '<rect width="10"/>'
        assert not any(view.display for view in app.query(ImageView))


async def test_a_binary_body_is_a_hex_dump(fetch: Fetch) -> None:
    exchange = await fetch("/protobuf")
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one("#body-view", BodyView)
        await wait_for(pilot, lambda: view.text.startswith("00000000"))
        assert view.line_text(0) == (
            "00000000  08 96 01 12 07 74 65 73  74 69 6e 67 1a 03 00 ff  |.....testing....|"
        )
        note = str(app.query_one("#body-note").content)
        assert (
            note
            == f"Binary body, application/x-protobuf, {len(PROTOBUF)} B: in hex — press s to save"
        )
        await pilot.press("c")  # not copied as text
        assert app.clipboard == ""


async def test_a_large_binary_body_shows_its_first_megabyte(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 20480  # 5.0 MB
    app = ResponsePaneApp(make_exchange(blob, "application/octet-stream"))
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one("#body-view", BodyView)
        await wait_for(pilot, lambda: view.line_count == 65536)
        note = str(app.query_one("#body-note").content)
        assert note == (
            "Binary body, application/octet-stream, 5.0 MB: its first 1.0 MB in hex — press s to save"
        )


async def test_saving_an_image_writes_its_exact_bytes(fetch: Fetch, tmp_path: Path) -> None:
    exchange = await fetch("/jpeg")
    app = ResponsePaneApp(exchange)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        target = tmp_path / "saved.jpg"
        pane.save_body_to(target)
        await wait_for(pilot, lambda: target.exists())
        assert target.read_bytes() == JPEG
        await pilot.press("c")
        assert app.clipboard == ""


def test_nothing_for_images_is_imported_before_the_first_image() -> None:
    """The first screen's time is measured: Pillow and textual-image wait for an image."""
    code = (
        "import sys\n"
        "import pigeon.tui.app, pigeon.tui.screens.main, pigeon.tui.widgets.response.response_pane\n"
        "print(sorted(m for m in sys.modules if m.startswith(('PIL', 'textual_image'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert out.strip() == "[]"


def described_app(exchange: Exchange, graphics: Graphics) -> tuple[ResponsePaneApp, object]:
    """The pane showing ``exchange`` as a terminal with ``graphics`` would."""

    async def run_before(pilot: object) -> None:
        pane = pilot.app.query_one(ResponsePane)  # type: ignore[attr-defined]
        view = pane.image_view
        view.graphics = graphics
        pane.show_exchange(exchange)
        await wait_for(pilot, lambda: view.why_not_drawn or view.drawn)
        view.focus()
        await pilot.pause()  # type: ignore[attr-defined]

    return ResponsePaneApp(None), run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_image_described(snap_compare, size: tuple[int, int]) -> None:
    app, run_before = described_app(make_exchange(PNG, "image/png"), NO_GRAPHICS)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_image_drawn_in_half_blocks(snap_compare) -> None:
    app, run_before = described_app(make_exchange(PNG, "image/png"), terminal_graphics("blocks"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


async def test_images_off_in_the_config(fetch: Fetch) -> None:
    from pigeon.config import AppConfig

    exchange = await fetch("/png")
    app = ResponsePaneApp(exchange)
    app.config = AppConfig(images="off")  # type: ignore[attr-defined]  (as PigeonApp has it)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ImageView)
        await wait_for(pilot, lambda: view.why_not_drawn)
        assert view.why_not_drawn == 'Not drawn: images are off (images = "off" in config.toml)'
        assert view.description.startswith("PNG image, 400x300 pixels")


_PTY_APP = """
import os
from images import PNG
from response_pane_app import ResponsePaneApp, make_exchange

class App(ResponsePaneApp):
    def on_image_view_inspected(self, event):
        with open(os.environ["PIGEON_TEST_RESULT"], "w") as result:
            result.write("drawn" if event.drawn else "not drawn")
        self.set_interval(0.05, self.leave_once_laid_out)

    def leave_once_laid_out(self):
        # The picture is written out by the first refresh after it has a size.
        pictures = self.query("#image-picture > *")
        if not pictures or pictures.first().size.height > 0:
            self.call_after_refresh(lambda: self.call_after_refresh(self.exit))

App(make_exchange(PNG, "image/png")).run()
"""


def run_in_a_terminal(term: str, result: Path) -> tuple[bytes, str]:
    """The app showing a PNG in a real pseudo-terminal (TERM=``term``, 120x40 cells of 10x20
    pixels): every byte it wrote to the terminal, and whether it drew (in ``result``)."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 1200, 800))
    here = Path(__file__).parent
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TERM_PROGRAM", "STY")}
    env.update(
        TERM=term,
        PIGEON_TEST_RESULT=str(result),
        PYTHONPATH=os.pathsep.join([str(here), str(here.parent), *sys.path]),
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", _PTY_APP],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                out += data
            elif proc.poll() is not None:
                break
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    said = result.read_text() if result.exists() else "(nothing)"
    return bytes(out), said


@pytest.mark.parametrize(
    ("term", "drawn", "protocol"),
    [
        ("xterm-kitty", True, rb"\x1b_G"),
        ("foot", True, rb"\x1bP[0-9;]*q"),
        ("xterm-256color", False, b""),
    ],
)
def test_a_real_terminal_gets_the_picture_and_no_question(
    term: str, drawn: bool, protocol: bytes, tmp_path: Path
) -> None:
    out, said = run_in_a_terminal(term, tmp_path / "result")
    assert said == ("drawn" if drawn else "not drawn"), out[-500:]
    assert b"Traceback" not in out
    if protocol:
        assert re.search(protocol, out)
    else:
        assert b"\x1b_G" not in out and not re.search(rb"\x1bP[0-9;]*q", out)
    # textual-image's queries (kitty's a=q, the device attributes, the cell size): none.
    assert b"a=q" not in out and b"\x1b[c" not in out and b"\x1b[16t" not in out


async def test_the_focus_follows_the_body_from_text_to_image_and_back(fetch: Fetch) -> None:
    png, text = await fetch("/png"), await fetch("/lying-png")
    app = ResponsePaneApp(text)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        await wait_for(pilot, lambda: pane.body_view.has_focus)
        pane.show_exchange(png)
        await wait_for(pilot, lambda: pane.image_view.has_focus)
        await pilot.press("s")  # the pane's keys still answer: the save prompt opens
        await wait_for(pilot, lambda: len(app.screen_stack) == 2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        pane.show_exchange(text)
        await wait_for(pilot, lambda: pane.body_view.has_focus)


async def test_the_app_describes_an_image_it_was_sent(app) -> None:
    from tui_support import main_screen, paste_url, running

    from pigeon.echo import PNG as ECHO_PNG

    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/image.png")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: main_screen(app).query(ImageView))
        view = main_screen(app).query_one(ImageView)
        await wait_for(pilot, lambda: view.why_not_drawn)
        assert view.description == f"PNG image, 8x8 pixels, {len(ECHO_PNG)} B"
        assert view.why_not_drawn == "Not drawn: the output is not a terminal"
        assert view.display and not main_screen(app).query_one("#body-panel").display


async def test_the_image_view_is_made_on_the_first_image(fetch: Fetch) -> None:
    app = ResponsePaneApp(await fetch("/lying-png"))
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(ResponsePane)
        await pilot.pause()
        assert not app.query(ImageView)  # the first screen does without it
        pane.show_exchange(await fetch("/gif"))
        await wait_for(pilot, lambda: app.query(ImageView) and pane.image_view.why_not_drawn)
        assert pane.image_view.description.startswith("GIF image, 20x10 pixels, 5 frames")
