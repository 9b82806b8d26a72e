"""The plain values services return: frozen dataclasses, never storage rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

T = TypeVar("T")


def from_millis(millis: int) -> datetime:
    # The time zone positional: by keyword the call takes twice as long, and
    # a page makes one per twit.
    return datetime.fromtimestamp(millis / 1000, UTC)


@dataclass(frozen=True)
class User:
    userid: str
    name: str
    email: str
    created: datetime
    staff: bool = False
    disabled: bool = False
    twits: int = 0
    followers: int = 0
    following: int = 0
    # Sessions and tokens issued at an older generation are refused; see
    # feeds/services/tokens.py.
    auth_generation: int = 0
    bio: str = ""
    avatar: int = 0  # the avatar's version (cache-busting); 0: none, the default shows
    # Raised after each change to whom the user follows: 0 when never raised,
    # or when the users row was read without it. See streams.FollowedCache.
    following_changed: int = 0
    # Raised after each change of the user's likes and reposts, as
    # following_changed is after follows. See reactions.FlagsCache.
    reactions_changed: int = 0
    # Which kinds of block and mute rows the user has ever had (letters of
    # storage.rows.SHIELD_MARKS): a page skips the lookups of the others.
    shields: str = ""
    pinned: str = ""  # the id of the twit pinned on top of the profile; "": none

    @property
    def avatar_url(self) -> str:
        """Where the avatar is served: with ``?v=`` (cached for good) when set."""
        base = f"/u/{self.userid}/avatar"
        return f"{base}?v={self.avatar}" if self.avatar else base


@dataclass(frozen=True)
class UserRef:
    """A user as lists show one: the denormalised userid and name."""

    userid: str
    name: str


@dataclass(frozen=True)
class TwitImage:
    """An image of a twit: its media id (its URL's), alt text and size in px."""

    id: str
    alt: str
    width: int
    height: int

    @property
    def url(self) -> str:
        """Where the image is served (one image for good: cached for good)."""
        return f"/media/{self.id}"


@dataclass(frozen=True)
class Twit:
    id: str
    userid: str
    name: str
    text: str
    created: datetime
    # A reply names its parent's id and author; None and "" otherwise.
    reply_to: str | None = None
    reply_userid: str = ""
    replies: int = 0  # how many replies it has
    likes: int = 0  # how many users like it
    liked: bool | None = None  # whether the signed-in reader likes it (None: no reader)
    reposts: int = 0  # how many users reposted it
    reposted: bool | None = None  # whether the signed-in reader reposted it (None: no reader)
    # A stream item that is there because someone the reader follows reposted
    # it: who (None: the twit itself).
    reposted_by: str | None = None
    reposted_by_name: str = ""
    # ms of its latest edit (0: never edited): the "edited" mark, see
    # feeds.services.twits.edit_twit.
    edited: int = 0

    @property
    def edited_at(self) -> datetime | None:
        """When it was last edited (None: never)."""
        return from_millis(self.edited) if self.edited else None

    # A quote names the twit it quotes (None: it quotes none); the hydrate
    # step fills in the card the reader sees of it.
    quote_of: str | None = None
    quoted: QuoteCard | None = None
    quotes: int = 0  # how many twits quote it
    images: tuple[TwitImage, ...] = ()  # up to four, in the order posted

    @property
    def mentions(self) -> list[str]:
        """The userids its text mentions (lowercased, each once), for the mentions slice."""
        from feeds.services.textparse import mentions

        return mentions(self.text)

    @property
    def hashtags(self) -> list[str]:
        """Its hashtags, normalised (textparse.normalise_tag: NFKC, case-folded), each once."""
        from feeds.services.textparse import hashtags

        return hashtags(self.text)


@dataclass(frozen=True)
class QuoteCard:
    """What a quote shows of the twit it quotes, as one reader sees it:
    ``state`` "shown" (with the twit's author, name and text), "deleted", or
    "unavailable" (its author is suspended, blocks or is blocked by the
    reader, or is muted by them; the other fields then empty)."""

    id: str
    state: str
    userid: str = ""
    name: str = ""
    text: str = ""


_new = object.__new__
_setattr = object.__setattr__


def new_twit(
    id: str,
    userid: str,
    name: str,
    text: str,
    created: datetime,
    reply_to: str | None,
    reply_userid: str,
    replies: int,
    likes: int,
    reposts: int,
    reposted_by: str | None,
    reposted_by_name: str,
    quote_of: str | None = None,
    quotes: int = 0,
    images: tuple[TwitImage, ...] = (),
) -> Twit:
    """``Twit(...)`` with these fields (``liked`` and ``reposted`` None), made
    in under half the time: a page makes one per row it shows. The frozen
    dataclass's ``__init__`` sets its 15 fields one ``object.__setattr__``
    at a time; this sets its ``__dict__`` whole.
    tests/unit/test_types.py holds the two equal, every field included."""
    twit = _new(Twit)
    _setattr(
        twit,
        "__dict__",
        {
            "id": id,
            "userid": userid,
            "name": name,
            "text": text,
            "created": created,
            "reply_to": reply_to,
            "reply_userid": reply_userid,
            "replies": replies,
            "likes": likes,
            "liked": None,
            "reposts": reposts,
            "reposted": None,
            "reposted_by": reposted_by,
            "reposted_by_name": reposted_by_name,
            "edited": 0,
            "quote_of": quote_of,
            "quoted": None,
            "quotes": quotes,
            "images": images,
        },
    )
    return twit


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; ``next_cursor`` is None on the last page."""

    items: tuple[T, ...]
    next_cursor: str | None


@dataclass(frozen=True)
class Thread:
    """A twit's page: the twit, the chain it replies to (oldest first; None
    for a deleted twit, see services.ancestors) and a page of its replies.
    ``hidden``: the hydrate step left the twit itself out for this reader
    (they block its author, or it was deleted since it was read), so its
    page shows it as read."""

    twit: Twit
    chain: tuple[Twit | None, ...]
    replies: Page[Twit]
    hidden: bool = False


@dataclass(frozen=True)
class TagCount:
    """A hashtag (normalised) and how often it was used in the trending window."""

    tag: str
    uses: int


@dataclass(frozen=True)
class Notification:
    """One notification as the page shows it. A like or repost group names
    its latest actors (newest first) and how many there are in all."""

    id: str  # opaque, unique in the user's list
    type: str  # "mention", "reply", "like", "repost" or "follow"
    actors: tuple[UserRef, ...]
    count: int  # actors in all (more than len(actors) in a large group)
    twit_id: str | None  # the twit it is about (None for a follow)
    text: str  # the start of that twit's text ("" for likes, reposts, follows)
    created: datetime


@dataclass(frozen=True)
class Message:
    """One direct message as a conversation shows it."""

    id: str  # opaque, unique in the conversation
    userid: str  # who sent it
    text: str
    created: datetime


@dataclass(frozen=True)
class Conversation:
    """One row of a user's inbox: the other participant, the latest message
    (who sent it, its start, when) and how many of theirs are unread."""

    userid: str
    name: str
    last_from: str
    text: str
    updated: datetime
    unread: int
