"""Images in twits: upload, attach to a twit, serve, delete, sweep.

Owner of the ``media`` table (storage/schema.py): one row per uploaded
image, keyed md5(uploader) + reversed ms + suffix, so whose an image is
follows from its id without a read, and a user's images are one prefix
scan. The "i" family holds what a page needs (owner, alt, size, the twit
using it); the image itself is in "m", a MOB family, read only when the
image is served.

An upload (``POST /api/media``, or the web composer) is checked and
re-encoded by the step avatars use (feeds/services/images.py), scaled to
fit MAX_SIDE px, and stored unattached. A post names up to MAX_IMAGES of
them: each must be the author's own and unused; :func:`attachable` checks
all of that before anything is written (a bad list changes nothing), then
:func:`claim` marks each image used by the twit with a checkAndPut on
``i:twit``, so of two posts racing for one image exactly one gets it (the
other claims nothing: those it claimed are let go again). The twit row
lists its images (``t:images``); lists show them through the hydrate step,
which reads that cell with the counts.

An image never attached (a post that failed, a composer closed) is deleted
by :func:`sweep_unattached` once UNATTACHED_FOR_MS old; so is one claimed
by a post that died before writing its twit. A twit's delete deletes its
images (:func:`drop_twit_images`); an account's delete, whatever is left
under its prefix (:func:`forget_user`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import happybase
from PIL import Image

from feeds.errors import InvalidInput, NotFound
from feeds.types import Twit, TwitImage
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name

from . import _clock, accounts, images, ratelimit, twits

MAX_BYTES = 2 * 1024 * 1024  # within the request body limit (DATA_UPLOAD_MAX_MEMORY_SIZE)
MAX_SIDE = 1600  # the longer side of a stored image, px
MAX_IMAGES = 4  # per twit
MAX_ALT = 1000  # characters of alt text
UNATTACHED_FOR_MS = 24 * 3600 * 1000  # how long an image may wait for its twit
FIELD = "file"
CONTENT_TYPE = images.CONTENT_TYPE
_INFO = [rows.MEDIA_OWNER, rows.MEDIA_ALT, rows.MEDIA_WIDTH, rows.MEDIA_HEIGHT, rows.MEDIA_TWIT]


@dataclass(frozen=True)
class MediaFile:
    """An image as served: its bytes, and an ETag that never changes (an
    image is never rewritten under its id)."""

    image: bytes
    etag: str
    content_type: str = CONTENT_TYPE


def _table() -> str:
    return table_name("media")


def clean_alt(alt: object) -> str:
    """The alt text, stripped; InvalidInput (naming ``alt``) past MAX_ALT characters."""
    if alt is None:
        return ""
    if not isinstance(alt, str):
        raise InvalidInput("alt", "alt must be text.")
    alt = alt.strip()
    if len(alt) > MAX_ALT:
        raise InvalidInput("alt", f"Alt text is at most {MAX_ALT} characters; this is {len(alt)}.")
    return alt


def _fit(upright: Image.Image) -> Image.Image:
    upright.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    return upright


def process(data: bytes) -> tuple[bytes, int, int]:
    """``data`` checked and re-encoded as WebP fitting MAX_SIDE x MAX_SIDE:
    (image, width, height); InvalidInput naming ``file`` otherwise."""
    return images.reencode(
        data, field=FIELD, noun="An image", max_bytes=MAX_BYTES, draft=MAX_SIDE, shape=_fit
    )


def upload(userid: str, data: bytes, alt: object = "") -> TwitImage:
    """Store an image by ``userid`` for a twit to come: checked (alt text,
    then the file) before anything is written. Returns it with its id,
    which only ``userid`` may attach. Each call stores a new image, and is
    counted first against the user's limit of uploads
    (ratelimit.IMAGE_UPLOADS): a refused file cost its decoding too."""
    user = accounts.get_user(userid)
    ratelimit.check(ratelimit.IMAGE_UPLOADS, user.userid)
    text = clean_alt(alt)
    image, width, height = process(data)
    key = keys.media_key(user.userid, _clock.now_millis(), keys.new_suffix())
    with connection() as conn:
        conn.table(_table()).put(key, rows.encode_media(user.userid, text, width, height, image))
    return TwitImage(keys.media_id(key), text, width, height)


def attachable(
    author: str, image_ids: object, *, for_twit: str | None = None
) -> tuple[rows.ImageRef, ...]:
    """The images ``image_ids`` names, in its order, as a twit by
    ``author`` lists them: at most MAX_IMAGES, each named once, each an
    upload of ``author``'s not used by a twit yet (or used by ``for_twit``
    already: a retried post). InvalidInput (naming ``images``) otherwise;
    reads only."""
    if image_ids is None:
        return ()
    if not isinstance(image_ids, list | tuple) or not all(isinstance(i, str) for i in image_ids):
        raise InvalidInput("images", "images must be a list of media ids.")
    if len(image_ids) > MAX_IMAGES:
        raise InvalidInput(
            "images", f"A twit has at most {MAX_IMAGES} images; this one has {len(image_ids)}."
        )
    if len(set(image_ids)) != len(image_ids):
        raise InvalidInput("images", "Each image can be used once in a twit.")
    if not image_ids:
        return ()
    mine = keys.user_hash(author)
    wanted = []
    for mid in image_ids:
        try:
            key = keys.media_key_from_id(mid)
        except keys.BadKey:
            raise InvalidInput("images", f"{mid!r} is not a media id.") from None
        if not key.startswith(mine):
            raise InvalidInput("images", f"Image {mid} is not one you uploaded.")
        wanted.append(key)
    with connection() as conn:
        found = dict(conn.table(_table()).rows(wanted, columns=_INFO))
    refs = []
    for key in wanted:
        row = rows.decode_media(found.get(key, {}))
        mid = keys.media_id(key)
        if row is None:
            raise InvalidInput("images", f"Image {mid} does not exist (or has expired).")
        if row.twit is not None and row.twit != for_twit:
            raise InvalidInput("images", f"Image {mid} is already used by a twit.")
        refs.append(rows.ImageRef(mid, row.alt, row.width, row.height))
    return tuple(refs)


def claim(conn: happybase.Connection, refs: Iterable[rows.ImageRef], twit_id: str) -> None:
    """Mark each of ``refs`` used by ``twit_id``, each by a checkAndPut on
    its unset ``i:twit``: InvalidInput, with every image this call claimed
    let go again, if another twit took one first. Repeating it for the
    same twit (a retried post) succeeds."""
    table = _table()
    done: list[bytes] = []
    for ref in refs:
        key = keys.media_key_from_id(ref.id)
        if _take(conn, table, key, twit_id.encode()):
            done.append(key)
            continue
        for taken in done:
            ops.check_and_put(
                conn, table, taken, rows.MEDIA_TWIT, twit_id.encode(), rows.MEDIA_TWIT, b""
            )
        raise InvalidInput("images", f"Image {ref.id} is already used by a twit.")


def _take(conn: happybase.Connection, table: str, key: bytes, twit: bytes) -> bool:
    # Absent (never attached) or b"" (let go by a post that lost a race).
    for expected in (None, b""):
        if ops.check_and_put(conn, table, key, rows.MEDIA_TWIT, expected, rows.MEDIA_TWIT, twit):
            return True
    held: bytes | None = conn.table(table).row(key, columns=[rows.MEDIA_TWIT]).get(rows.MEDIA_TWIT)
    return held == twit


@read_only
def get_image(media_id: str) -> MediaFile:
    """The image ``media_id`` names, as served. NotFound if there is none
    (deleted with its twit, swept, or never uploaded), or while its
    uploader is suspended (their twits are hidden too)."""
    try:
        key = keys.media_key_from_id(media_id)
    except keys.BadKey:
        raise NotFound("No such image.") from None
    with connection() as conn:
        row = conn.table(_table()).row(key, columns=[rows.MEDIA_OWNER, rows.MEDIA_IMAGE])
    image = row.get(rows.MEDIA_IMAGE)
    if image is None:
        raise NotFound("No such image.")
    accounts.public_user(row[rows.MEDIA_OWNER].decode())
    return MediaFile(image, f'"{media_id}"')


def drop_twit_images(conn: happybase.Connection, twit: Twit) -> None:
    """Delete the images ``twit`` lists (its delete). Idempotent."""
    table = conn.table(_table())
    for image in twit.images:
        table.delete(keys.media_key_from_id(image.id))


def forget_user(userid: str) -> int:
    """Delete every image row of ``userid`` (account deletion); how many. Idempotent."""
    with connection() as conn:
        return ops.delete_prefix(conn, _table(), keys.user_hash(userid))


def sweep_unattached(now_ms: int | None = None) -> int:
    """Delete the images older than UNATTACHED_FOR_MS that no twit uses:
    never attached, or claimed by a post whose twit row was never written.
    Reads the small "i" family of every row (never the images); how many
    went. Running it twice deletes nothing twice."""
    cutoff = (now_ms if now_ms is not None else _clock.now_millis()) - UNATTACHED_FOR_MS
    stale: list[bytes] = []
    claimed: dict[str, bytes] = {}
    with connection() as conn:
        for key, row in conn.table(_table()).scan(columns=[rows.MEDIA_OWNER, rows.MEDIA_TWIT]):
            if keys.media_millis(key) > cutoff:
                continue
            found = rows.decode_media(row)
            if found is None or found.twit is None:
                stale.append(key)
            else:
                claimed[found.twit] = key
        if claimed:
            alive = twits.counts(conn, claimed)
            stale += [key for twit, key in claimed.items() if twit not in alive]
        table = conn.table(_table())
        for key in stale:
            table.delete(key)
    return len(stale)
