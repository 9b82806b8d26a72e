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

from collections.abc import Callable

import happybase

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


def _between(
    actor: User | str, userid: str, what: str, act: Callable[[happybase.Connection, str, str], bool]
) -> tuple[User, User, bool]:
    """``act`` (a row's write or delete in services.blocks) between the
    actor and ``userid``, after the actor's limit (ratelimit.BLOCKS) and
    the checks: both loaded, and whether it changed anything."""
    me = accounts.loaded(actor)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    other = _other(me, userid, what)
    with connection() as conn:
        return me, other, act(conn, me.userid, other.userid)


def block(blocker: User | str, userid: str) -> bool:
    """``blocker`` blocks ``userid``; False if it did already (the follows
    are ended again all the same, so a retry after a crash finishes).
    Counted against the blocker's limit (ratelimit.BLOCKS)."""
    me, other, created = _between(blocker, userid, "block", blocks.record_block)
    follows.end_follow(me, other.userid)
    follows.end_follow(other.userid, me.userid)
    dispatch(WithdrawReactions(other.userid, me.userid))
    return created


def unblock(blocker: User | str, userid: str) -> bool:
    """``blocker`` stops blocking ``userid``; False if it did not."""
    return _between(blocker, userid, "unblock", blocks.erase_block)[2]


def mute(muter: User | str, userid: str) -> bool:
    """``muter`` mutes ``userid``: its twits, reposts and notifications leave
    the muter's home stream and notifications; it is not told. False if muted already."""
    return _between(muter, userid, "mute", blocks.record_mute)[2]


def unmute(muter: User | str, userid: str) -> bool:
    return _between(muter, userid, "unmute", blocks.erase_mute)[2]


def _word(
    muter: User | str, word: object, act: Callable[[happybase.Connection, str, str], bool]
) -> tuple[str, bool]:
    me = accounts.loaded(muter)
    ratelimit.check(ratelimit.BLOCKS, me.userid)
    checked = blocks.check_word(word)
    with connection() as conn:
        return checked, act(conn, me.userid, checked)


def mute_word(muter: User | str, word: object) -> str:
    """Mute a word, phrase or #hashtag (any case, whole words) in
    ``muter``'s home stream and notifications; returns it as stored."""
    return _word(muter, word, blocks.record_word)[0]


def unmute_word(muter: User | str, word: object) -> bool:
    return _word(muter, word, blocks.erase_word)[1]
