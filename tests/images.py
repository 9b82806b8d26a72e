"""Small images made on the spot, for the avatar tests: each format, an EXIF
orientation, a damaged file and decompression bombs (a header claiming more
pixels than the file could hold)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def image(fmt: str = "PNG", size: tuple[int, int] = (40, 40), colour: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, fmt)
    return out.getvalue()


def sideways_jpeg() -> bytes:
    """A 40 x 40 JPEG, left half red and right half blue, whose EXIF says
    "rotate 90 degrees clockwise to show" (orientation 6): upright, red is
    on top and blue below."""
    im = Image.new("RGB", (40, 40), "red")
    im.paste(Image.new("RGB", (20, 40), "blue"), (20, 0))
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    im.save(out, "JPEG", exif=exif.tobytes(), quality=95)
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A valid small PNG whose header claims ``width`` x ``height`` pixels."""
    data = bytearray(image("PNG", (1, 1)))
    # IHDR: 8-byte signature, 4 length, 4 type, then width and height.
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def truncated_png() -> bytes:
    whole = image("PNG", (64, 64), "green")
    return whole[: len(whole) // 2]


def colour_at(webp: bytes, xy: tuple[int, int]) -> tuple[int, int, int]:
    with Image.open(io.BytesIO(webp)) as im:
        r, g, b = im.convert("RGB").getpixel(xy)  # type: ignore[misc]
        return r, g, b
