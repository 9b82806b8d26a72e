"""Avatars: upload (checked, re-encoded), remove, serve.

An upload is checked before anything is written, so a bad file changes
nothing (the old avatar stays): at most MAX_BYTES, a PNG, JPEG, WebP or GIF
(Pillow opens it with only those decoders), and at most
TWITBASE_AVATAR_MAX_PIXELS by its header, read before a single pixel is
decoded (a decompression bomb is a small file that claims a huge image): so
the setting bounds what one upload costs to decode. Then it is turned upright (EXIF
orientation), cropped to a square, scaled to SIZE px and re-encoded as WebP:
what is stored and served is always our own encoding, never the upload.

The image is one row of ``avatars`` (md5(userid)); the users row's
``info:avatar`` holds its version (the upload's millisecond, always rising),
so a profile's avatar URL changes with each upload and can be cached for good.
"""

from __future__ import annotations

import io
import time
import warnings
from dataclasses import dataclass

from django.conf import settings
from PIL import Image, ImageOps, UnidentifiedImageError

from feeds.errors import InvalidInput
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, read_only, table_name

from . import accounts, ratelimit

MAX_BYTES = 2 * 1024 * 1024
SIZE = 256
FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
MEDIA_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
CONTENT_TYPE = "image/webp"
FIELD = "avatar"
NOT_AN_IMAGE = "This file is not a PNG, JPEG, WebP or GIF image, or it is damaged."


@dataclass(frozen=True)
class Avatar:
    """A stored avatar: the image as served, and its version."""

    image: bytes
    version: int
    content_type: str = CONTENT_TYPE


def process(data: bytes) -> bytes:
    """``data`` checked and re-encoded as a SIZE x SIZE WebP; InvalidInput
    (naming ``avatar``) with the reason otherwise."""
    if not data:
        raise InvalidInput(FIELD, "Choose an image file to upload.")
    if len(data) > MAX_BYTES:
        raise InvalidInput(
            FIELD,
            f"An avatar is at most {MAX_BYTES // (1024 * 1024)} MB; "
            f"this file is {len(data) / (1024 * 1024):.1f} MB.",
        )
    try:
        with warnings.catch_warnings():
            # Pillow warns of sizes far below its own refusal; ours comes first.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            opened = Image.open(io.BytesIO(data), formats=FORMATS)
        with opened:
            # Image.open reads the header only: the size is known, nothing decoded.
            width, height = opened.size
            if width * height > max_pixels():
                raise InvalidInput(FIELD, f"{_too_large()}; this image is {width} x {height}.")
            if opened.format == "JPEG":
                # Let libjpeg decode at a fraction of the size where it can.
                opened.draft("RGB", (SIZE * 2, SIZE * 2))
            upright = ImageOps.exif_transpose(opened)
            alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
            square = ImageOps.fit(
                upright.convert("RGBA" if alpha else "RGB"),
                (SIZE, SIZE),
                Image.Resampling.LANCZOS,
            )
            out = io.BytesIO()
            square.save(out, "WEBP", quality=85)
    except InvalidInput:
        raise
    except Image.DecompressionBombError:
        # Pillow's own header check, for sizes far beyond ours.
        raise InvalidInput(FIELD, f"{_too_large()}.") from None
    except UnidentifiedImageError:
        raise InvalidInput(FIELD, NOT_AN_IMAGE) from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError):
        # Truncated or corrupt data fails in the decoder, as one of these.
        raise InvalidInput(FIELD, NOT_AN_IMAGE) from None
    return out.getvalue()


def max_pixels() -> int:
    """The most pixels (width x height) an upload may declare."""
    pixels: int = settings.TWITBASE_AVATAR_MAX_PIXELS
    return pixels


def _too_large() -> str:
    return f"An avatar is at most {max_pixels() / 1_000_000:g} megapixels"


def set_avatar(userid: str, data: bytes) -> User:
    """Replace ``userid``'s avatar with the image in ``data`` (see :func:`process`),
    counted first against the user's limit of uploads (ratelimit.AVATAR_UPLOADS):
    RateLimited beyond it, before the image is looked at.

    The image row is written before the users row names its version, so a
    reader never finds a version without its image. Repeating it stores the
    same picture under a new version.
    """
    user = accounts.get_user(userid)
    ratelimit.check(ratelimit.AVATAR_UPLOADS, user.userid)
    image = process(data)
    version = max(int(time.time() * 1000), user.avatar + 1)
    with connection() as conn:
        conn.table(table_name("avatars")).put(
            keys.avatar_key(user.userid), rows.encode_avatar(image, version)
        )
    accounts.set_avatar_version(user.userid, version)
    return accounts.get_user(user.userid)


def remove_avatar(userid: str) -> User:
    """Back to the default avatar; repeating it does nothing."""
    user = accounts.get_user(userid)
    # The version first: no profile then names an image that is gone.
    accounts.set_avatar_version(user.userid, None)
    forget_user(user.userid)
    return accounts.get_user(user.userid)


def forget_user(userid: str) -> None:
    """Delete ``userid``'s image row (their users row may still name it:
    :func:`remove_avatar` clears that first; an account deletion drops the
    users row last). Idempotent."""
    with connection() as conn:
        conn.table(table_name("avatars")).delete(keys.avatar_key(userid))


@read_only
def get_avatar(userid: str) -> Avatar | None:
    """``userid``'s avatar, None if they have none (NotFound if no such user,
    Suspended while suspended, as their profile is)."""
    # The profile's own check: a suspended account's picture hides with it.
    accounts.public_user(userid)
    with connection() as conn:
        found = rows.decode_avatar(conn.table(table_name("avatars")).row(keys.avatar_key(userid)))
    if found is None:
        return None
    return Avatar(*found)
