"""Checking and re-encoding an uploaded image: the one step avatars and
twit images share.

An upload is checked before a pixel is decoded, so a bad file costs little
and changes nothing: at most ``max_bytes``, a PNG, JPEG, WebP or GIF
(Pillow opens it with only those decoders), and at most
TWITBASE_AVATAR_MAX_PIXELS by its header (a decompression bomb is a small
file that claims a huge image): so the setting bounds what one upload costs
to decode, whatever it is for. Then it is turned upright (EXIF
orientation) and handed to the caller's ``shape`` (an avatar's square, a
twit image's bounded box), and re-encoded as WebP: what is stored and
served is always our own encoding, never the upload.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable

from django.conf import settings
from PIL import Image, ImageOps, UnidentifiedImageError

from feeds.errors import InvalidInput

FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
MEDIA_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
CONTENT_TYPE = "image/webp"
NOT_AN_IMAGE = "This file is not a PNG, JPEG, WebP or GIF image, or it is damaged."


def max_pixels() -> int:
    """The most pixels (width x height) an upload may declare."""
    pixels: int = settings.TWITBASE_AVATAR_MAX_PIXELS
    return pixels


def reencode(
    data: bytes,
    *,
    field: str,
    noun: str,
    max_bytes: int,
    draft: int,
    shape: Callable[[Image.Image], Image.Image],
) -> tuple[bytes, int, int]:
    """``data`` checked, turned upright, shaped by ``shape`` and re-encoded
    as WebP: (the WebP, its width, its height). InvalidInput naming
    ``field`` with the reason otherwise; ``noun`` starts the messages ("An
    avatar"). ``draft``: the size a JPEG may be decoded at a fraction of
    (libjpeg's scaled decode), at least what ``shape`` keeps."""
    if not data:
        raise InvalidInput(field, "Choose an image file to upload.")
    if len(data) > max_bytes:
        raise InvalidInput(
            field,
            f"{noun} is at most {max_bytes // (1024 * 1024)} MB; "
            f"this file is {len(data) / (1024 * 1024):.1f} MB.",
        )
    too_large = f"{noun} is at most {max_pixels() / 1_000_000:g} megapixels"
    try:
        with warnings.catch_warnings():
            # Pillow warns of sizes far below its own refusal; ours comes first.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            opened = Image.open(io.BytesIO(data), formats=FORMATS)
        with opened:
            # Image.open reads the header only: the size is known, nothing decoded.
            width, height = opened.size
            if width * height > max_pixels():
                raise InvalidInput(field, f"{too_large}; this image is {width} x {height}.")
            if opened.format == "JPEG":
                # Let libjpeg decode at a fraction of the size where it can.
                opened.draft("RGB", (draft, draft))
            upright = ImageOps.exif_transpose(opened)
            alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
            shaped = shape(upright.convert("RGBA" if alpha else "RGB"))
            out = io.BytesIO()
            shaped.save(out, "WEBP", quality=85)
    except InvalidInput:
        raise
    except Image.DecompressionBombError:
        # Pillow's own header check, for sizes far beyond ours.
        raise InvalidInput(field, f"{too_large}.") from None
    except UnidentifiedImageError:
        raise InvalidInput(field, NOT_AN_IMAGE) from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError):
        # Truncated or corrupt data fails in the decoder, as one of these.
        raise InvalidInput(field, NOT_AN_IMAGE) from None
    return out.getvalue(), shaped.width, shaped.height
