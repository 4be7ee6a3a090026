"""Image and binary bodies described without trusting them: format, pixels, frames, size,
and one line for a bomb, a truncated or corrupt file, a lying content type; the hex dump;
which terminals draw images, judged from the environment alone."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from images import (
    BOMB,
    CORRUPT,
    GIF,
    HTML,
    JPEG,
    PNG,
    PROTOBUF,
    SVG,
    TRUNCATED,
    WEBP,
    picture,
    png_bomb,
)
from pigeon.bodies import claims_binary, classify_body, hex_dump, markup_kind
from pigeon.bodies import image as image_module
from pigeon.bodies.image import inspect_image
from pigeon.tui.widgets.response.graphics import terminal_graphics


def described(data: bytes, content_type: str) -> str:
    return inspect_image(data).describe(len(data), content_type)


def test_each_format_is_described_and_decoded_for_drawing() -> None:
    assert described(PNG, "image/png") == f"PNG image, 400x300 pixels, {len(PNG) / 1024:.1f} KB"
    assert (
        described(GIF, "image/gif") == f"GIF image, 20x10 pixels, 5 frames (animated), {len(GIF)} B"
    )
    assert described(JPEG, "image/jpeg").startswith("JPEG image, 640x480 pixels, ")
    assert described(WEBP, "image/webp") == f"WebP image, 32x16 pixels, {len(WEBP)} B"
    avif = picture("AVIF", 33, 17)
    assert classify_body("image/avif", avif, len(avif)) == "image"
    assert described(avif, "image/avif") == f"AVIF image, 33x17 pixels, {len(avif)} B"
    facts = inspect_image(JPEG)
    assert facts.picture is not None and facts.picture.size == (640, 480)
    assert facts.problem is None


def test_the_picture_drawn_is_a_small_copy() -> None:
    out = io.BytesIO()
    Image.new("RGB", (4000, 1000)).save(out, "PNG")
    facts = inspect_image(out.getvalue())
    assert facts.picture is not None and facts.picture.size == (1600, 400)
    assert inspect_image(out.getvalue(), decode=False).picture is None


def test_a_decompression_bomb_is_never_decoded() -> None:
    line = described(BOMB, "image/png")
    assert line.startswith("PNG image, 100,000x100,000 pixels, ")
    assert line.endswith("over the 40 megapixel limit, not decoded (a decompression bomb?)")
    # Just over the limit, under Pillow's own error threshold: refused by the same rule.
    assert inspect_image(png_bomb(7000, 7000)).problem is not None
    assert inspect_image(BOMB).picture is None


def test_truncated_and_corrupt_images_are_one_line() -> None:
    truncated = described(TRUNCATED, "image/png")
    assert truncated.startswith("PNG image, 400x300 pixels, ")
    assert truncated.endswith(": corrupt or truncated (image file is truncated)")
    corrupt = described(CORRUPT, "image/png")
    assert "\n" not in corrupt and corrupt.startswith("PNG image, 400x300 pixels, ")
    assert "corrupt" in corrupt or "Pillow can read" in corrupt


def test_a_body_the_decoder_is_not_given() -> None:
    assert inspect_image(PNG, complete=False).problem == "only its start is in memory: not decoded"
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n"
    assert inspect_image(eps).problem == (
        "not an image Pillow can read (corrupt, or another format)"
    )  # EPS would run Ghostscript: only the web's formats are opened


def test_over_the_byte_cap_is_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_module, "DECODE_LIMIT", 1024)
    facts = inspect_image(PNG)
    assert facts.problem == "over 1.0 KB: not decoded" and facts.picture is None


def test_the_content_type_sent_is_named_when_it_is_not_the_format() -> None:
    assert described(JPEG, "image/png").endswith(", sent as image/png")
    assert "sent as" not in described(JPEG, "image/jpg")
    assert "sent as" not in described(JPEG, "")
    assert described(PNG, "image/\x1b[31mx").endswith("sent as image/\\x1b[31mx")


def test_kinds_a_lying_or_textual_image_type_and_binary_bodies() -> None:
    assert classify_body("image/png", PNG[:8192], len(PNG)) == "image"
    assert classify_body("image/png", HTML, len(HTML)) == "text"  # an error page
    assert claims_binary("image/png") and not claims_binary("image/svg+xml")
    assert classify_body("image/svg+xml", SVG, len(SVG)) == "text"
    assert markup_kind("image/svg+xml", SVG.decode()) == "xml"
    assert classify_body("application/x-protobuf", PROTOBUF, len(PROTOBUF)) == "binary"
    assert classify_body("image/png", CORRUPT[40:], 400) == "binary"


def test_hex_dump() -> None:
    assert hex_dump(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01") == (
        "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|\n"
        "00000010  00 01                                             |..|"
    )
    assert hex_dump(b"") == ""
    big = hex_dump(bytes(3 * 1024 * 1024))
    assert big.count("\n") + 1 == 65536  # the first megabyte only


@pytest.mark.parametrize(
    ("env", "protocol"),
    [
        ({"TERM": "xterm-kitty"}, "kitty"),
        ({"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, "kitty"),
        ({"TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty"}, "kitty"),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "sixel"),
        ({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "sixel"),
        ({"TERM": "foot"}, "sixel"),
        ({"TERM": "xterm-256color", "KONSOLE_VERSION": "240202"}, "sixel"),
        ({"TERM": "xterm-256color", "WT_SESSION": "x"}, "sixel"),
        ({"TERM": "xterm-256color"}, None),
        ({}, None),
        ({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1/default,1,0"}, None),
        ({"TERM": "screen-256color"}, None),
    ],
)
def test_the_terminal_is_judged_from_its_environment(
    env: dict[str, str], protocol: str | None
) -> None:
    graphics = terminal_graphics("auto", env)
    assert graphics.protocol == protocol
    assert (graphics.reason == "") == (protocol is not None)


def test_the_setting_and_the_reasons() -> None:
    assert terminal_graphics("auto", {"TERM": "dumb"}).reason.startswith(
        "this terminal cannot show images (TERM=dumb); "
    )
    assert terminal_graphics("auto", {}).reason.startswith(
        "this terminal cannot show images (TERM=unset)"
    )
    assert "inside tmux" in terminal_graphics("auto", {"TMUX": "x", "TERM": "tmux-256color"}).reason
    assert terminal_graphics("off", {"TERM": "xterm-kitty"}).protocol is None
    assert terminal_graphics("sixel", {"TMUX": "x"}).protocol == "sixel"
    assert terminal_graphics("blocks", {}).protocol == "blocks"
    assert terminal_graphics("auto", {"TERM": "xterm-kitty"}, tty=False).reason == (
        "the output is not a terminal"
    )


def test_frames_are_counted_within_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    many = picture("GIF", 8, 8, frames=30)
    assert described(many, "image/gif").startswith("GIF image, 8x8 pixels, 30 frames (animated)")
    monkeypatch.setattr(image_module, "FRAME_PIXELS", 8 * 8 * 12)  # seeking decodes frames
    assert described(many, "image/gif").startswith("GIF image, 8x8 pixels, 12+ frames (animated)")
    monkeypatch.setattr(image_module, "MAX_FRAMES", 5)
    assert inspect_image(many).frames == 5 and inspect_image(many).more_frames
