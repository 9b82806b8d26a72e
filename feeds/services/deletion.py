"""Deleting an account, and everything it left in every table.

:func:`delete_account` checks the password (throttled as a log-in is),
suspends the account and raises its auth generation (every session and
token ends at once, nobody can follow it, like or answer its twits any
more), then queues :class:`~feeds.jobs.DeleteAccount`. The worker runs
:func:`erase_account`, table by table (``storage.schema.USER_DATA`` says how
each table holds a user's rows), and deletes the users row last: until then
the userid cannot be registered again, and a retried job finds the row and
finishes the job. Once the row is gone the userid is free: a new account of
that name starts from nothing. The job carries the account's creation time,
so a stale retry never touches a new account of the same name.

Counts of others are corrected on the way: each follow edge is undone as
unfollow does it (followers' following counts, followees' follower counts),
each like as unlike does it (the twits' like counts), each reply as
delete_twit does it (its parent's reply count). Replies others wrote to the
user's twits stay, as twits of their own: they lose ``reply_to`` and
``reply_userid`` (in their twits row and their readers' stream rows). What
others wrote *about* the user (an @mention in a twit's text) is theirs and
stays; so does the staff console's audit log.
"""

from __future__ import annotations

from django.contrib.auth.hashers import check_password

from feeds.errors import InvalidInput, NotFound
from feeds.jobs import DeleteAccount, dispatch
from storage import keys, ops, rows
from storage.connection import connection, table_name

from . import accounts, follows, notify, ratelimit, reactions, twitdeletion, userindex


def delete_account(userid: str, password: object, credential: str = "") -> None:
    """Delete ``userid``'s account, if ``password`` is its password.

    The account is suspended and every credential ended before this returns;
    the rest is the worker's (:func:`erase_account`). InvalidInput naming
    ``password`` for a wrong one; RateLimited after too many from the
    caller's session or token ``credential`` (:func:`ratelimit.admit_reauth`).
    """
    if not isinstance(password, str):
        raise InvalidInput("password", "Enter your password to delete your account.")
    slots = ratelimit.admit_reauth(credential)
    with connection() as conn:
        stored = rows.decode_user(conn.table(table_name("users")).row(keys.user_key(userid)))
    if stored is None:
        raise NotFound(f"No user {userid!r}.")
    if not check_password(password, stored.password):
        raise InvalidInput("password", "That is not your password.")
    ratelimit.release_login(slots)
    accounts.set_disabled(stored.userid, True)
    dispatch(DeleteAccount(stored.userid, stored.created))


def _keys(table: str, prefix: bytes) -> list[bytes]:
    with connection() as conn:
        return [
            k
            for k, _ in conn.table(table_name(table)).scan(
                row_prefix=prefix, filter=ops.KEYS_ONLY, batch_size=1000
            )
        ]


def _delete_prefix(table: str, prefix: bytes) -> int:
    found = _keys(table, prefix)
    with connection() as conn, conn.table(table_name(table)).batch(batch_size=1000) as b:
        for k in found:
            b.delete(k)
    return len(found)


def _forget_parent(reply: bytes) -> None:
    """The reply ``reply`` (someone else's) no longer answers anything: its
    twits row and the stream rows of its readers lose reply_to/reply_userid.

    A stream row keeps the twit in one cell (rows.STREAM_TWIT), so each
    reader's row that exists is written again from the twits row, at the
    twit's own time as the fan-out wrote it; a row a reader no longer has
    (unfollowed, trimmed) is not made again. Rows from before the packing
    lose their two cells."""
    author = reply[: keys.MD5_LEN]
    with connection() as conn:
        twits = conn.table(table_name("twits"))
        twits.delete(reply, columns=[rows.REPLY_TO, rows.REPLY_USERID])
        twit = rows.decode_twit(twits.row(reply))
        readers = [author] + [
            k[keys.MD5_LEN :]
            for k, _ in conn.table(table_name("followedBy")).scan(
                row_prefix=author, filter=ops.KEYS_ONLY, batch_size=1000
            )
        ]
        streams = conn.table(table_name("streams"))
        wanted = [keys.stream_key_for_hash(reader, reply) for reader in readers]
        found: list[tuple[bytes, dict[bytes, bytes]]] = []
        for i in range(0, len(wanted), 1000):
            found += streams.rows(wanted[i : i + 1000], columns=[rows.STREAM_TWIT])
        if twit is not None and found:
            millis = keys.split_twit_key(reply).millis
            with streams.batch(batch_size=1000, timestamp=millis) as b:
                for key, _ in found:
                    b.put(key, rows.encode_stream(twit))
        gone = [rows.STREAM_REPLY_TO, rows.STREAM_REPLY_USERID]
        with streams.batch(batch_size=1000) as b:
            for key in wanted:
                b.delete(key, columns=gone)


def _erase_twits(userid: str) -> int:
    """Each of the user's twits, as delete_twit deletes it; others' replies
    to it first lose their link to it."""
    mine = keys.user_hash(userid)
    found = _keys("twits", mine)
    for key in found:
        for entry in _keys("replies", key):
            reply = keys.twit_key_from_reply_key(entry)
            if reply[: keys.MD5_LEN] != mine:
                _forget_parent(reply)
        try:
            twitdeletion.delete_twit(userid, keys.twit_id(key))
        except NotFound:
            # A row without a twit (bookkeeping written after a delete).
            with connection() as conn:
                conn.table(table_name("twits")).delete(key)
    return len(found)


def _others(table: str, userid: str) -> list[tuple[bytes, str]]:
    """The edges under ``userid`` in ``table``: (key, the other's userid)."""
    with connection() as conn:
        return [
            (k, rows.edge_userid(d))
            for k, d in conn.table(table_name(table)).scan(
                row_prefix=keys.user_hash(userid), columns=[rows.EDGE_USERID], batch_size=1000
            )
        ]


def _erase_edges(userid: str) -> int:
    """Unfollow everyone, and be unfollowed by everyone, as unfollow does it
    (so the others' counts go down once); an edge whose other end is gone
    already is simply deleted."""
    done = 0
    for table, pair in (
        ("follows", lambda other: (userid, other)),
        ("followedBy", lambda other: (other, userid)),
    ):
        for key, other in _others(table, userid):
            follower, followed = pair(other)
            try:
                follows.unfollow(follower, followed)
            except NotFound:
                with connection() as conn:
                    conn.table(table_name(table)).delete(key)
                    mirror = "followedBy" if table == "follows" else "follows"
                    conn.table(table_name(mirror)).delete(key[keys.MD5_LEN :] + key[: keys.MD5_LEN])
            done += 1
    return done


def _erase_tokens(userid: str) -> int:
    """Every token and session naming the user: one filtered scan of the
    table (tokens are keyed by their sha256, so no prefix finds them)."""
    # Not with ops.KEYS_ONLY: on HBase, FirstKeyOnlyFilter ends each row at its
    # first cell (k:created), before the value filter sees k:userid.
    match = f"SingleColumnValueFilter('k', 'userid', =, 'binary:{userid}', true, true)"
    with connection() as conn:
        table = conn.table(table_name("tokens"))
        found = [
            k for k, _ in table.scan(filter=match, columns=[rows.TOKEN_USERID], batch_size=1000)
        ]
        with table.batch(batch_size=1000) as b:
            for k in found:
                b.delete(k)
    return len(found)


def erase_account(userid: str, created: int) -> bool:
    """Delete every row of the account ``userid`` created at ``created`` (ms),
    the users row last. False (nothing done) when there is no such account:
    deleted already, or a new account of the same name. Idempotent: a retry
    after a crash anywhere finishes the job."""
    with connection() as conn:
        stored = rows.decode_user(conn.table(table_name("users")).row(keys.user_key(userid)))
    if stored is None or stored.created != created:
        return False
    userid = stored.userid
    mine = keys.user_hash(userid)
    # Likes before twits, twits before edges: a twit's delete reaches its
    # followers' streams through the followedBy rows, and unfollowing them
    # afterwards clears anything left of the user's twits in their streams.
    reactions.withdraw_all(userid)
    _erase_twits(userid)
    _delete_prefix("pendingFanouts", mine)
    _erase_edges(userid)
    _delete_prefix("streams", mine)
    _delete_prefix("notifications", mine)
    with connection() as conn:
        notify.forget_follower(conn, userid)
    _erase_tokens(userid)
    for table in ("ratelimits", "logins", "idempotency"):
        _delete_prefix(table, mine)
    with connection() as conn:
        conn.table(table_name("celebrities")).delete(mine)
        conn.table(table_name("followerLists")).delete(mine)
        conn.table(table_name("avatars")).delete(keys.avatar_key(userid))
        userindex.forget_user(conn, userid, stored.name)
        conn.table(table_name("users")).delete(keys.user_key(userid))
    return True
