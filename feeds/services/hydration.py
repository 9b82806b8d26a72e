"""The one hydrate step every list of twits goes through before a reader sees it.

A list's own rows (a stream's, a hashtag's, a twit's replies, a user's
likes) say which twits it holds and carry their content, not what changes:
who is suspended, the counts, what the reader likes and reposted.
:func:`hydrate` fills those in for a whole page at once, from their owners'
verbs, each one multi-get for the page:

- ``accounts.ask_suspended``: twits whose author, or whose reposter, is
  suspended are left out (those the process knows, while no suspension
  has changed since, answered by it: accounts.SuspendedCache);
- ``twits.ask_counts``: replies, likes, reposts and images, as the twit
  rows hold them; a twit whose row is gone (deleted since its list row was read) is
  left out; an edited twit gets its current text and "edited" mark from the
  same cells (t:edit, beside the counts): list rows keep the text as
  posted, and an edit rewrites none of them (docs/schema.md, "Edits");
- ``reactions.ask_flags``: the reader's ``liked`` and ``reposted`` flags,
  those of twits the reader's pages asked about since their last like or
  repost answered by the process (reactions.FlagsCache), the others looked up;
- ``blocks.ask_shield``: for a signed-in reader, twits whose author or
  reposter they block or are blocked by are left out, and, with ``muting``
  (their home stream), those of accounts they mute or with a word they mute.

Then, only for a page with quotes, the cards of the twits they quote:
``twits.cards_of`` (one multi-get), then the cards' authors' suspensions
and the reader's shield against them, muting included (one pipelined round
trip). The card is looked up at read time rather than copied into the
quote's rows: the quoted twit can be deleted, edited, or its author
suspended or blocked long after the quote was fanned out to thousands of
streams, and a copy would have to follow each change (docs/schema.md,
"quotes").

Those multi-gets go out together, pipelined on one connection
(storage.ops.Pipeline): one round trip for them all (:func:`_page`). They
were one round trip each, run side by side on threads, which on the local
server (one request at a time) cost their sum, and cost a page four times
the raw scan of its rows (issue 39; docs/benchmarks.md, "Home page"). Each
owner still says how its question is asked and read; the step only sends
them at once. The reader's flags and who is suspended are kept, each
under a counter every change of it raises; the rest is read fresh each
time. A like shows on the liker's next read, a suspension on every page
read after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from feeds.types import QuoteCard, Twit, User
from storage import ops
from storage.connection import connection

from . import accounts, blocks, reactions, twits

NOBODY: frozenset[str] = frozenset()


def hydrate(
    found: tuple[Twit, ...],
    reader: User | str | None,
    *,
    counted: bool = False,
    suspended: frozenset[str] | None = None,
    muting: bool = False,
) -> tuple[Twit, ...]:
    """``found`` in its order, as ``reader`` (their profile, or a userid;
    None: nobody signed in, and ``liked``/``reposted`` stay None) sees it:
    without the twits of suspended authors or reposters and those deleted,
    with each twit's counts and the reader's ``liked`` and ``reposted``. A twit listed twice
    (a stream's twit and its repost) is looked up once.

    ``counted``: the twits were read from their own twits rows, counts and
    all (a user's timeline, a user's likes, one twit), so the counts are not
    read again. ``suspended``: the answer for the page's authors when the
    caller has it already (lower-cased userids, as
    :func:`accounts.suspended` gives it), so it is not looked up.
    ``muting``: hide what the reader mutes too (their home stream); blocks
    are applied to every list a signed-in reader reads. A reader given as
    a profile brings their marks (User.shields), so one who never blocked,
    was blocked or muted costs no lookup for it; a userid alone is asked
    about every kind.
    """
    if not found:
        return found
    ids = sorted({t.id for t in found})
    people = {t.userid for t in found} | {t.reposted_by for t in found if t.reposted_by}
    userid, shields = _who(reader)
    ask = _Asked(ids, people, reader, userid, counted, suspended is None, muting, shields)
    got = _page(ask)
    shield: blocks.Shield = got.get("shield", blocks.NOTHING_HIDDEN)
    hidden: frozenset[str] = got["suspended"] if suspended is None else suspended
    counts: dict[str, twits.Counts] | None = got.get("counts")
    liked, mine = got.get("flags", (None, None))
    # Most pages hide nobody: the per-twit checks only where someone is.
    shielded = shield is not blocks.NOTHING_HIDDEN
    shown = []
    for t in found:
        if hidden and (
            t.userid.lower() in hidden or (t.reposted_by and t.reposted_by.lower() in hidden)
        ):
            continue
        if shielded and (shield.hides(t.userid) or shield.hides(t.reposted_by)):
            continue
        text, edited = t.text, t.edited
        if counts is None:
            replies, likes_n, reposts_n, images = t.replies, t.likes, t.reposts, t.images
            quotes_n, quote_of = t.quotes, t.quote_of
        else:
            now = counts.get(t.id)
            if now is None:
                continue  # deleted since its list row was read
            replies, likes_n, reposts_n = now.replies, now.likes, now.reposts
            images = now.images  # the twit row's: a list's own rows carry none
            quotes_n, quote_of = now.quotes, now.quote_of
            if now.edited:  # the list row's copy may predate the edit
                text, edited = now.text, now.edited
        if shielded and t.userid.lower() != (userid or "").lower() and shield.hides_text(text):
            continue  # a muted word hides others' twits, never one's own
        fields = dict(
            t.__dict__,
            text=text,
            edited=edited,
            replies=replies,
            likes=likes_n,
            reposts=reposts_n,
            images=images,
            liked=None if liked is None else t.id in liked,
            reposted=None if mine is None else t.id in mine,
            quotes=quotes_n,
            quote_of=quote_of,
        )
        shown.append(fields)
    if any(f["quote_of"] for f in shown):
        _add_cards(shown, userid, shields)
    return tuple(_twit(fields) for fields in shown)


def _who(reader: User | str | None) -> tuple[str | None, str | None]:
    """The reader's userid, and their marks when given their profile (None:
    not known, so every kind of shield is looked up)."""
    if isinstance(reader, User):
        return reader.userid, reader.shields
    return reader, None


def _add_cards(shown: list[dict[str, Any]], reader: str | None, shields: str | None) -> None:
    """Set ``quoted`` in each of ``shown`` (a page's twits' fields) that
    quotes a twit: the card the reader sees of it (types.QuoteCard)."""
    wanted = {f["quote_of"] for f in shown if f["quote_of"]}
    with connection() as conn:
        found: dict[str, Twit] = twits.cards_of(conn, wanted)
        authors = {t.userid for t in found.values()}
        pipe = ops.Pipeline(conn)
        asked: dict[str, Callable[[], Any]] = {}
        if authors:
            asked["suspended"] = accounts.ask_suspended(pipe, authors)
            if reader is not None and blocks.needs_shield(shields, muting=True):
                asked["shield"] = blocks.ask_shield(
                    conn, pipe, reader, authors, muting=True, marks=shields
                )
        pipe.send()
    got = {name: answer() for name, answer in asked.items()}
    hidden: frozenset[str] = got.get("suspended", NOBODY)
    shield: blocks.Shield = got.get("shield", blocks.NOTHING_HIDDEN)
    for fields in shown:
        quote_of = fields["quote_of"]
        if not quote_of:
            continue
        quoted = found.get(quote_of)
        if quoted is None:
            card = QuoteCard(quote_of, "deleted")
        elif quoted.userid.lower() in hidden or shield.hides(quoted.userid):
            card = QuoteCard(quote_of, "unavailable")
        else:
            card = QuoteCard(quote_of, "shown", quoted.userid, quoted.name, quoted.text)
        fields["quoted"] = card


def _twit(fields: dict[str, Any]) -> Twit:
    """The Twit with these fields, made as types.new_twit makes one: its
    ``__dict__`` set whole, without the frozen ``__init__`` that
    dataclasses.replace would run, as a page makes one per twit."""
    twit = object.__new__(Twit)
    object.__setattr__(twit, "__dict__", fields)
    return twit


@dataclass(frozen=True)
class _Asked:
    """What a page's lookups need: its twits' ids, its authors and
    reposters, the reader (None: nobody signed in), and which lookups to
    make (see :func:`hydrate`'s arguments)."""

    ids: list[str]
    people: set[str]
    profile: User | str | None  # as hydrate was given it
    reader: str | None
    counted: bool
    suspensions: bool
    muting: bool
    shields: str | None


def _page(ask: _Asked) -> dict[str, Any]:
    """The page's lookups (suspended, counts, the reader's flags, shield),
    each asked of its owner as a multi-get in one pipeline: one round trip
    for them all, on one connection, where each in turn cost one (or one
    thread and connection each, side by side). The server answers them in
    order; what each reads is as fresh as it was one at a time."""
    with connection() as conn:
        pipe = ops.Pipeline(conn)
        asked: dict[str, Callable[[], Any]] = {}
        if ask.suspensions:
            asked["suspended"] = accounts.ask_suspended(pipe, ask.people)
        if not ask.counted:
            asked["counts"] = twits.ask_counts(pipe, ask.ids)
        if ask.profile is not None and ask.reader is not None:
            asked["flags"] = reactions.ask_flags(pipe, ask.profile, ask.ids)
            if blocks.needs_shield(ask.shields, muting=ask.muting):
                asked["shield"] = blocks.ask_shield(
                    conn, pipe, ask.reader, ask.people, muting=ask.muting, marks=ask.shields
                )
        pipe.send()
    return {name: answer() for name, answer in asked.items()}
