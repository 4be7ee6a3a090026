"""An image body looked at without trusting it (DESIGN §9): its format, pixel size and frames
read with Pillow within bounds, whether it decodes, and a small copy of its first frame to draw.

A server may send a decompression bomb (a few kilobytes claiming 100,000 x 100,000 pixels), a
truncated or corrupt file, or a format whose decoder runs other programs (EPS): only the web's
image formats are opened, nothing over ``DECODE_LIMIT`` bytes or ``MAX_PIXELS`` pixels is
decoded, frames are counted up to ``MAX_FRAMES`` (or ``FRAME_PIXELS`` decoded), and every failure is one line in
``ImageFacts.problem``. Pillow is imported on first use, in the caller's worker thread.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pigeon.bodies.kind import human_size, image_info
from pigeon.terminal import printable

if TYPE_CHECKING:
    from PIL.Image import Image

DECODE_LIMIT = 32 * 1024 * 1024  # bytes of an image body Pillow is given at most
MAX_PIXELS = 40_000_000  # width x height decoded at most (Pillow's MAX_IMAGE_PIXELS)
MAX_FRAMES = 10_000  # frames counted at most
FRAME_PIXELS = 100_000_000  # and frames x pixels (seeking a GIF decodes each frame)
THUMBNAIL = (1600, 1600)  # the copy kept to draw: more than a terminal shows
# The formats a response may be opened as: what browsers show, nothing that runs a program.
FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "AVIF", "BMP")


@dataclass(frozen=True)
class ImageFacts:
    """What an image body is, and whether it can be drawn (``problem`` says why not)."""

    format: str
    width: int | None = None
    height: int | None = None
    frames: int | None = None
    more_frames: bool = False  # counting stopped at a bound: at least ``frames``
    problem: str | None = None
    picture: Image | None = None  # the first frame, at most ``THUMBNAIL``, RGB(A)

    def describe(self, size: int, content_type: str = "") -> str:
        """One line: ``PNG image, 400x300 pixels, 3 frames (animated), 12.0 KB``."""
        parts = [f"{self.format} image"]
        if self.width and self.height:
            parts.append(f"{self.width:,}x{self.height:,} pixels")
        if self.frames and self.frames > 1:
            more = "+" if self.more_frames else ""
            parts.append(f"{self.frames:,}{more} frames (animated)")
        parts.append(human_size(size))
        declared = content_type.split("/", 1)[-1].lower() if content_type else ""
        if content_type and not _same_format(self.format, declared):
            parts.append(f"sent as {printable(content_type)}")
        line = ", ".join(parts)
        return f"{line}: {self.problem}" if self.problem else line


def _same_format(name: str, subtype: str) -> bool:
    name = name.lower()
    aliases = {"jpeg": ("jpeg", "jpg", "pjpeg"), "bmp": ("bmp", "x-bmp", "x-ms-bmp")}
    return subtype in aliases.get(name, (name, f"x-{name}"))


def header_facts(head: bytes) -> ImageFacts | None:
    """Format and size from the first bytes alone (no decoding), or ``None``."""
    info = image_info(head)
    if info is None:
        return None
    return ImageFacts(info.format, info.width, info.height)


def inspect_image(
    data: bytes,
    *,
    complete: bool = True,
    decode: bool = True,
    cancelled: Callable[[], bool] | None = None,
) -> ImageFacts:
    """Open ``data`` with Pillow within the bounds above. ``complete`` is false when ``data``
    is only the start of the body (the rest went to disk); ``decode`` false skips making the
    picture (the terminal cannot draw it anyway) but still checks the image decodes."""
    facts = header_facts(data[:65536]) or ImageFacts("Unknown")
    if not complete:
        return _with(facts, problem="only its start is in memory: not decoded")
    if len(data) > DECODE_LIMIT:
        return _with(facts, problem=f"over {human_size(DECODE_LIMIT)}: not decoded")
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    PILImage.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            # Pillow warns between MAX_IMAGE_PIXELS and twice that: refused here too.
            warnings.simplefilter("error", PILImage.DecompressionBombWarning)
            image = PILImage.open(io.BytesIO(data), formats=FORMATS)
            width, height = image.size
            facts = ImageFacts(_format_name(image.format or facts.format), width, height)
            if width * height > MAX_PIXELS:
                return _with(facts, problem=_bomb())
            frames, more = _count_frames(image, cancelled)
            facts = _with(facts, frames=frames, more_frames=more)
            image.seek(0)
            if decode:
                image.draft("RGB", THUMBNAIL)  # JPEG decodes at a fraction of its size
            image.load()
            if not decode:
                return facts
            alpha = _has_alpha(image)
            image.thumbnail(THUMBNAIL)  # before converting: one small copy, not a large one
            return _with(facts, picture=image.convert("RGBA" if alpha else "RGB"))
    except UnidentifiedImageError:
        return _with(facts, problem="not an image Pillow can read (corrupt, or another format)")
    except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning):
        return _with(facts, problem=_bomb())
    except MemoryError:
        return _with(facts, problem="too large to decode")
    except Exception as exc:  # noqa: BLE001 - a hostile file reaches any decoder error
        return _with(facts, problem=f"corrupt or truncated ({_one_line(exc)})")


def _with(facts: ImageFacts, **changes: object) -> ImageFacts:
    values = {**facts.__dict__, **changes}
    return ImageFacts(**values)


def _format_name(name: str) -> str:
    return {"WEBP": "WebP"}.get(name, name)


def _bomb() -> str:
    return (
        f"over the {MAX_PIXELS // 1_000_000} megapixel limit, not decoded (a decompression bomb?)"
    )


def _count_frames(image: Image, cancelled: Callable[[], bool] | None) -> tuple[int, bool]:
    """Frames, counted by seeking, and whether a bound stopped the count before the end."""
    if not getattr(image, "is_animated", False):
        return 1, False
    limit = min(MAX_FRAMES, max(1, FRAME_PIXELS // max(1, image.width * image.height)))
    count = 1
    while not (cancelled and cancelled()):
        if count >= limit:
            return count, True
        try:
            image.seek(count)
        except EOFError:
            break
        count += 1
    return count, False


def _has_alpha(image: Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return printable(text[:200])
