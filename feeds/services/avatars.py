"""Avatars: upload (checked, re-encoded), remove, serve.

An upload is checked before anything is written, so a bad file changes
nothing (the old avatar stays): at most MAX_BYTES, and checked and
re-encoded by the step twit images share (feeds/services/images.py: the
formats, the pixel bound read from the header before anything is decoded,
EXIF orientation), here cropped to a square of SIZE px.

The image is one row of ``avatars`` (md5(userid)); the users row's
``info:avatar`` holds its version (the upload's millisecond, always rising),
so a profile's avatar URL changes with each upload and can be cached for good.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PIL import Image, ImageOps

from feeds.types import User
from storage import keys, rows
from storage.connection import connection, read_only, table_name

from . import accounts, images, ratelimit

MAX_BYTES = 2 * 1024 * 1024
SIZE = 256
FORMATS = images.FORMATS
MEDIA_TYPES = images.MEDIA_TYPES
CONTENT_TYPE = images.CONTENT_TYPE
FIELD = "avatar"
NOT_AN_IMAGE = images.NOT_AN_IMAGE


@dataclass(frozen=True)
class Avatar:
    """A stored avatar: the image as served, and its version."""

    image: bytes
    version: int
    content_type: str = CONTENT_TYPE


def process(data: bytes) -> bytes:
    """``data`` checked and re-encoded as a SIZE x SIZE WebP (images.reencode);
    InvalidInput (naming ``avatar``) with the reason otherwise."""
    image, _, _ = images.reencode(
        data,
        field=FIELD,
        noun="An avatar",
        max_bytes=MAX_BYTES,
        draft=SIZE * 2,
        shape=lambda upright: ImageOps.fit(upright, (SIZE, SIZE), Image.Resampling.LANCZOS),
    )
    return image


max_pixels = images.max_pixels


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
