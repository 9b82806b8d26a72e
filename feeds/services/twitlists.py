"""The lists of twits kept in the twits, replies and likes tables, as a
reader sees them: each one read by the module that owns its table
(services.twits, services.reactions), then hydrated (services.hydration).

The home stream (services.streams) and a hashtag's page (services.tags)
are built the same way, in their own modules.
"""

from __future__ import annotations

from feeds.types import Page, Thread, Twit, User
from storage.connection import connection, read_only

from . import accounts, blocks, reactions, twits
from .hydration import NOBODY, hydrate


@read_only
def timeline(
    userid: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """A user's own twits, newest first, as ``reader`` (a profile, a userid,
    or None) sees them: one prefix scan of the twits table, whose rows carry
    the counts. The user's own suspension is their caller's to check: a public
    page asks ``public_user`` first (a 404), the staff console lists a
    suspended user's twits on purpose."""
    user = accounts.get_user(userid)
    blocks.refuse_if_blocked_by(user.userid, reader)
    page = twits.timeline_page(user, cursor, limit)
    return Page(hydrate(page.items, reader, counted=True, suspended=NOBODY), page.next_cursor)


@read_only
def replies(
    twit_id: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """The replies to ``twit_id``, oldest first, as ``reader`` sees them: one
    prefix scan of the replies table under the twit's key, then the hydrate
    step; a suspended author's replies are hidden while they are (a page may
    then hold fewer than ``limit``). NotFound if the twit does not exist
    (or was deleted); Suspended if its author is; Forbidden if its author
    blocks the reader (so for each list here)."""
    parent = twits.public_twit(twit_id)
    blocks.refuse_if_blocked_by(parent.userid, reader)
    page = twits.replies_page(parent, cursor, limit)
    return Page(hydrate(page.items, reader), page.next_cursor)


@read_only
def thread(
    twit: Twit, cursor: str | None = None, reader: User | str | None = None, limit: int = 20
) -> Thread:
    """A twit's page: ``twit`` (read already, by ``public_twit``), the chain
    it replies to (services.ancestors) and a page of its replies, as
    ``reader`` sees them, hydrated together in one step. What that step
    hides (a suspended author's, a twit of whom the reader blocks or is
    blocked by, one deleted since) is left out of the chain and the
    replies, and the chain goes on above it; the twit itself is the page's,
    so it is shown as read when hidden, and ``Thread.hidden`` says so (its
    author blocking the reader is refused first)."""
    blocks.refuse_if_blocked_by(twit.userid, reader)
    chain = twits.ancestors(twit)
    page = twits.replies_page(twit, cursor, limit)
    listed = (twit, *(t for t in chain if t is not None), *page.items)
    seen = {t.id: t for t in hydrate(listed, reader)}
    return Thread(
        seen.get(twit.id, twit),
        tuple(None if t is None else seen[t.id] for t in chain if t is None or t.id in seen),
        Page(tuple(seen[t.id] for t in page.items if t.id in seen), page.next_cursor),
        hidden=twit.id not in seen,
    )


@read_only
def user_likes(
    userid: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """The twits ``userid`` likes, newest like first, as ``reader`` sees
    them: the ids from services.reactions.liked_page, the twits (counts and
    all) in one multi-get of their rows, then the hydrate step. Deleted
    twits and those of suspended authors drop out, so a page may hold
    fewer than ``limit``."""
    blocks.refuse_if_blocked_by(userid, reader)
    page = reactions.liked_page(userid, cursor, limit)
    with connection() as conn:
        found = twits.twits_of(conn, page.items)
    listed = tuple(found[i] for i in page.items if i in found)
    return Page(hydrate(listed, reader, counted=True), page.next_cursor)


@read_only
def user_bookmarks(user: User | str, cursor: str | None = None, limit: int = 20) -> Page[Twit]:
    """The bookmarks of ``user`` (their profile, or userid), newest bookmark
    first, as they see them (a bookmark is private: only its user lists
    them). Built as :func:`user_likes` is; a twit deleted or hidden since
    drops out."""
    page = reactions.bookmarked_page(accounts.userid_of(user), cursor, limit)
    with connection() as conn:
        found = twits.twits_of(conn, page.items)
    listed = tuple(found[i] for i in page.items if i in found)
    return Page(hydrate(listed, user, counted=True), page.next_cursor)


@read_only
def quotes(
    twit_id: str, cursor: str | None = None, limit: int = 20, reader: User | str | None = None
) -> Page[Twit]:
    """The twits that quote ``twit_id``, newest first, as ``reader`` sees
    them: one prefix scan of the quotes table under the twit's key, then the
    hydrate step (which drops deleted quotes and those ``reader`` may not
    see). NotFound, Suspended, Forbidden as :func:`replies`."""
    quoted = twits.public_twit(twit_id)
    blocks.refuse_if_blocked_by(quoted.userid, reader)
    page = twits.quotes_page(quoted, cursor, limit)
    return Page(hydrate(page.items, reader), page.next_cursor)
