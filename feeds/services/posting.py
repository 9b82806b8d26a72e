"""Posting a twit: the one step that writes to three owners' tables.

A post stores the twit (twits), gives its fan-out a lease and an entry in
the index the sweep reads (pending), shows the twit in its author's own
stream at once (streams), and queues the fan-out to followers' streams.
Each of those modules owns its table; this one orders them, as
twitdeletion orders a delete's steps, so none of them names another's table.

The order is what the sweep relies on: the index entry before the twit row
(a crash in between leaves an entry without a twit, which the sweep drops,
never a pending twit it cannot find); the twit row, with its lease, before
anything derived from it.
"""

from __future__ import annotations

from dataclasses import replace

from feeds.jobs import FanOutChunk, dispatch
from feeds.types import Twit, User
from storage.connection import connection

from . import media, pending, streams, twits


def post_twit(
    author: User | str,
    text: object,
    reply_to: str | None = None,
    *,
    at: tuple[int, bytes] | None = None,
    quote_of: str | None = None,
    images: object = None,
) -> Twit:
    """Store a twit by ``author`` (a profile loaded already, or a userid), count
    it, and queue its fan-out to followers' streams.

    With ``reply_to`` (a twit id), the twit replies to that twit: it is
    listed among the parent's replies and counted in its reply count.

    ``at``: the twit's millisecond and key suffix, chosen by the caller (an
    Idempotency-Key's claim, see :mod:`feeds.services.idempotency`). Posting
    the same text again at the same ``at`` writes the same rows, counted
    once: it finishes that twit rather than making another.

    With ``quote_of`` (a twit id), the twit quotes that twit: listed among
    its quotes and counted in its quote count (NotFound when it is gone,
    Forbidden across a block).

    ``images``: ids of up to four of the author's unused uploads
    (feeds/services/media.py), checked with the text before anything is
    written, and claimed for this twit before its row names them.
    """
    user, new = twits.new_twit_row(author, text, reply_to, at=at, quote_of=quote_of)
    refs = media.attachable(user.userid, images, for_twit=new.twit.id)
    if refs:
        new = replace(new, stored=replace(new.stored, images=refs))
    lease = pending.new_lease()
    with connection() as conn:
        media.claim(conn, refs, new.twit.id)
        pending.add_to_index(conn, new.key, user.userid)
        twits.store_new(conn, new, lease.encode())
        # The author sees the twit at once; followers get it from the workers.
        streams.write_own_row(conn, user.userid, new.key, new.stored)
    twit = new.twit
    dispatch(FanOutChunk(twit.id, lease.owner))
    return twit
