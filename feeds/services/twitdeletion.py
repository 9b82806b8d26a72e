"""A twit's delete: the twit, its place in threads, its reactions, its
notifications and its stream rows, each taken by the module that owns it.

The order is what makes a retry, or a reaction racing the delete, end with
nothing left: the twit is marked deleting first (readers stop finding it, and
a reaction that finds the mark takes itself away: services/reactions.py);
then its thread entries and its reactions go, and the removal of its
stream rows is queued (a fan-out under a lease, as a twit's: see
pending.queue_stream_job); the row itself goes last, so
a delete retried after a crash still finds the twit and finishes the job.
What goes with its texts (words and tags rows, mentions) is read again after
the mark (twits.erase): an edit may have finished since the first read.
"""

from __future__ import annotations

from feeds.jobs import RemoveTwitFromStreams
from storage import keys
from storage.connection import connection

from . import media, pending, reactions, twits


def delete_twit(userid: str, twit_id: str) -> None:
    """Delete one's own twit, from the twits table and from every stream.
    NotFound if there is none; Forbidden if it is someone else's. Repeating
    it (after a crash, or twice at once) does nothing more."""
    twit = twits.deletable(userid, twit_id)
    key = keys.twit_key_from_id(twit.id)
    with connection() as conn:
        twits.mark_deleting(conn, key)
        twits.leave_thread(conn, key, twit)
        reactions.drop_twit(conn, key)
        # Its stream rows' removal, before the row goes: a retry after a
        # crash still finds the twit row and queues it again.
        pending.queue_stream_job(RemoveTwitFromStreams(twit.userid, twit.id))
        # Before the row that lists them: a retry still finds them.
        media.drop_twit_images(conn, twit)
        twits.erase(conn, key, twit)
