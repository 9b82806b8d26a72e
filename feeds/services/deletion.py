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

from feeds.errors import InvalidInput, NotFound
from feeds.jobs import DeleteAccount, dispatch
from storage import keys
from storage.connection import connection

from . import (
    accounts,
    avatars,
    blocks,
    follows,
    idempotency,
    lists,
    media,
    messages,
    notify,
    pending,
    ratelimit,
    reactions,
    reports,
    streams,
    tokens,
    twitdeletion,
    twits,
    userindex,
)


def delete_account(userid: str, password: object, credential: str = "") -> None:
    """Delete ``userid``'s account, if ``password`` is its password.

    The account is suspended and every credential ended before this returns;
    the rest is the worker's (:func:`erase_account`). InvalidInput naming
    ``password`` for a wrong one; RateLimited after too many from the
    caller's session or token ``credential`` (:func:`ratelimit.admit_reauth`).
    """
    if not isinstance(password, str):
        raise InvalidInput("password", "Enter your password to delete your account.")
    stored = accounts.reauthenticate(
        userid, password, credential, "password", "That is not your password."
    )
    accounts.set_disabled(stored.userid, True)
    dispatch(DeleteAccount(stored.userid, stored.created))


def _forget_parent(reply: bytes) -> None:
    """The reply ``reply`` (someone else's) no longer answers anything: its
    twits row and the stream rows of its readers (its author and their
    followers) lose reply_to/reply_userid."""
    author = reply[: keys.MD5_LEN]
    twit = twits.forget_parent(reply)
    streams.forget_parent([author, *follows.follower_hashes(author)], reply, twit)


def _erase_twits(userid: str) -> int:
    """Each of the user's twits, as delete_twit deletes it; others' replies
    to it first lose their link to it."""
    mine = keys.user_hash(userid)
    found = twits.twit_keys_of(userid)
    for key in found:
        for reply in twits.reply_keys(key):
            if reply[: keys.MD5_LEN] != mine:
                _forget_parent(reply)
        try:
            twitdeletion.delete_twit(userid, keys.twit_id(key))
        except NotFound:
            # A row without a twit (bookkeeping written after a delete).
            twits.drop_row(key)
    return len(found)


def _erase_edges(userid: str) -> int:
    """Unfollow everyone, and be unfollowed by everyone, as unfollow does it
    (so the others' counts go down once) but charging no one's limit; an
    edge whose other end is gone already is simply deleted."""
    found = follows.edges_of(userid)
    for follower, followed in found:
        try:
            follows.end_follow(follower, followed)
        except NotFound:
            follows.drop_edge(follower, followed)
    return len(found)


def erase_account(userid: str, created: int) -> bool:
    """Delete every row of the account ``userid`` created at ``created`` (ms),
    the users row last. False (nothing done) when there is no such account:
    deleted already, or a new account of the same name. Idempotent: a retry
    after a crash anywhere finishes the job."""
    stored = accounts.account_row(userid)
    if stored is None or stored.created != created:
        return False
    userid = stored.userid
    # Likes before twits, twits before edges: a twit's delete reaches its
    # followers' streams through the followedBy rows, and unfollowing them
    # afterwards clears anything left of the user's twits in their streams.
    reactions.withdraw_all(userid)
    _erase_twits(userid)
    with connection() as conn:
        pending.forget_user(conn, userid)
    _erase_edges(userid)
    streams.forget_user(userid)
    notify.forget_user(userid)
    messages.forget_user(userid)
    reports.forget_user(userid)
    blocks.forget_user(userid)
    lists.forget_user(userid)
    tokens.forget_user(userid)
    ratelimit.forget_user(userid)
    idempotency.forget_user(userid)
    follows.forget_user(userid)
    avatars.forget_user(userid)
    media.forget_user(userid)  # images of no twit; the rest went with the twits
    with connection() as conn:
        streams.forget_celebrity(conn, userid)
        userindex.forget_user(conn, userid, stored.name, stored.email)
    accounts.forget_user(userid)
    return True
