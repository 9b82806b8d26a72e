"""Images in twits (feeds/services/media.py) on both servers: each image
used by one twit however many posts race for it, deleted with its twit and
with its account, and swept when no twit came for it."""

from __future__ import annotations

import io
import time

import pytest
from PIL import Image
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput, NotFound
from feeds.services import media
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, ServerAddr
from tests.services.test_concurrency import hammer


def _png(colour: str = "teal") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), colour).save(out, "PNG")
    return out.getvalue()


def _images(userid: str) -> list[str]:
    """The images of every twit of ``userid``, each as often as twits list it."""
    found: list[str] = []
    cursor = None
    while True:
        page = services.timeline(userid, cursor, limit=100)
        found += [i.id for t in page.items for i in t.images]
        cursor = page.next_cursor
        if cursor is None:
            return found


def _rows_of(userid: str) -> list[bytes]:
    with connection() as conn:
        table = conn.table(table_name("media"))
        return [k for k, _ in table.scan(row_prefix=keys.user_hash(userid), columns=[b"i"])]


def test_posts_racing_for_the_same_images_give_each_to_one_twit(
    twitbase: ServerAddr, alice: User, settings: Settings
) -> None:
    # The hammer's posts count against alice's posting limit in HBase; the
    # last post here must not find the minute's allowance spent by them.
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    ids = [media.upload("alice", _png(), f"picture {n}").id for n in range(6)]
    hammer(twitbase, 12, "--images", "alice", *ids)
    used = _images("alice")
    # No image in two twits; every twit that was posted holds the pair it asked for.
    assert used and len(used) == len(set(used)) and len(used) % 2 == 0
    for image in used:
        with pytest.raises(InvalidInput, match="already used"):
            media.attachable("alice", [image])
    # An image no twit shows was let go by every post that lost it: still usable.
    free = [i for i in ids if i not in used]
    assert [r.id for r in media.attachable("alice", free[:4])] == free[:4]
    if free:
        posted = services.post_twit("alice", "the rest", images=free[:4])
        assert [i.id for i in posted.images] == free[:4]


def test_a_retried_post_keeps_its_images_and_a_refused_one_uses_none(alice: User) -> None:
    one, two = (media.upload("alice", _png(), "x").id for _ in range(2))
    at = (int(time.time() * 1000), b"abcd")
    first = services.post_twit("alice", "once", at=at, images=[one])
    again = services.post_twit("alice", "once", at=at, images=[one])  # a retry: same twit
    assert again.id == first.id and [i.id for i in again.images] == [one]
    with pytest.raises(InvalidInput, match="already used"):
        services.post_twit("alice", "steal", images=[two, one])
    # The refused post claimed nothing: the other image is still free.
    assert [r.id for r in media.attachable("alice", [two])] == [two]


def test_a_twits_delete_and_an_accounts_leave_no_image_row(alice: User, bob: User) -> None:
    posted = services.post_twit(
        "alice", "gone soon", images=[media.upload("alice", _png(), "a").id]
    )
    kept = services.post_twit("alice", "stays", images=[media.upload("alice", _png(), "b").id])
    media.upload("alice", _png("red"), "never posted")
    services.delete_twit("alice", posted.id)
    with pytest.raises(NotFound):
        media.get_image(posted.images[0].id)
    assert media.get_image(kept.images[0].id).image.startswith(b"RIFF")
    assert len(_rows_of("alice")) == 2
    bobs = media.upload("bob", _png(), "bob's")
    services.delete_account("alice", PASSWORD)
    assert _rows_of("alice") == []
    assert media.get_image(bobs.id).image  # nobody else's


def test_the_sweep_deletes_what_no_twit_used_within_a_day(alice: User) -> None:
    waiting = media.upload("alice", _png(), "waiting")
    used = media.upload("alice", _png(), "used")
    services.post_twit("alice", "with one", images=[used.id])
    now = keys.media_millis(keys.media_key_from_id(waiting.id))
    assert media.sweep_unattached(now + 1000) == 0  # too young
    day_later = now + media.UNATTACHED_FOR_MS + 60_000
    assert media.sweep_unattached(day_later) == 1
    assert media.sweep_unattached(day_later) == 0  # nothing twice
    with pytest.raises(NotFound):
        media.get_image(waiting.id)
    assert media.get_image(used.id).image


def test_the_media_table_keeps_its_images_in_a_mob_family(twitbase: ServerAddr) -> None:
    """As made by storage.schema.create_tables through Thrift2 (on HBase, read
    back from the master: the MOB attributes are what HBase kept)."""
    from storage.admin import is_mob, table_descriptors, thrift2_client
    from storage.schema import MEDIA_MOB_THRESHOLD, create_tables

    if twitbase.kind == "hbase":
        # Real HBase's table sets come made ahead from the test pool
        # (tests/tablepool.py: SCHEMA's families, through Thrift1, so no
        # MOB): the media table is made again here as a deployment makes it.
        with connection() as conn:
            conn.delete_table(table_name("media"), disable=True)
            assert create_tables(conn, ["media"]) == [table_name("media")]
    with thrift2_client() as client:
        (desc,) = table_descriptors(client, [table_name("media")])
    assert {cd.name: is_mob(cd) for cd in desc.columns} == {b"i": None, b"m": MEDIA_MOB_THRESHOLD}
