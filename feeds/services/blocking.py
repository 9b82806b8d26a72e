"""Block, mute and their undoing: the acts, above the modules they touch.
The rows and every question about them are :mod:`.blocks`'s.

A block writes its row first, then ends the follows both ways (each
unfollow's cleanup takes the other's twits and reposts out of each
stream) and queues the taking back of the blocked's likes and reposts of
the blocker's twits. A follow or reaction racing it checks for the block
after its own write (see :mod:`.blocks`), so nothing outlives the block.
Unblocking restores nothing: the follows ended stay ended.

A mute, of an account or a word, is one row: it hides at read time and
changes nothing the muted can see.
"""

from __future__ import annotations

from feeds.errors import InvalidInput
from feeds.jobs import WithdrawReactions, dispatch
from feeds.types import User
from storage.connection import connection

from . import accounts, blocks, follows, ratelimit


def _other(actor: User, userid: str, what: str) -> User:
    accounts.check_userid(userid, "userid")
    if userid.lower() == actor.userid.lower():
        raise InvalidInput("userid", f"You cannot {what} yourself.")
    return accounts.get_user(userid)


def block(blocker: User | str, userid: str) -> bool:
    """``blocker`` blocks ``userid``; False if it did already (the follows
    are ended again all the same, so a retry after a crash finishes).
    Counted against the blocker's limit (ratelimit.BLOCKS)."""
    me = accounts.loaded(blocker)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    other = _other(me, userid, "block")
    with connection() as conn:
        created = blocks.record_block(conn, me.userid, other.userid)
    follows.end_follow(me, other.userid)
    follows.end_follow(other.userid, me.userid)
    dispatch(WithdrawReactions(other.userid, me.userid))
    return created


def unblock(blocker: User | str, userid: str) -> bool:
    """``blocker`` stops blocking ``userid``; False if it did not."""
    me = accounts.loaded(blocker)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    other = _other(me, userid, "unblock")
    with connection() as conn:
        return blocks.erase_block(conn, me.userid, other.userid)


def mute(muter: User | str, userid: str) -> bool:
    """``muter`` mutes ``userid``: its twits, reposts and notifications leave
    the muter's home stream and notifications; it is not told. False if muted already."""
    me = accounts.loaded(muter)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    other = _other(me, userid, "mute")
    with connection() as conn:
        return blocks.record_mute(conn, me.userid, other.userid)


def unmute(muter: User | str, userid: str) -> bool:
    me = accounts.loaded(muter)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    other = _other(me, userid, "unmute")
    with connection() as conn:
        return blocks.erase_mute(conn, me.userid, other.userid)


def mute_word(muter: User | str, word: object) -> str:
    """Mute a word, phrase or #hashtag (any case, whole words) in
    ``muter``'s home stream and notifications; returns it as stored."""
    me = accounts.loaded(muter)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    checked = blocks.check_word(word)
    with connection() as conn:
        blocks.record_word(conn, me.userid, checked)
    return checked


def unmute_word(muter: User | str, word: object) -> bool:
    me = accounts.loaded(muter)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    checked = blocks.check_word(word)
    with connection() as conn:
        return blocks.erase_word(conn, me.userid, checked)
