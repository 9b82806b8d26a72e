"""What the JSON API takes and gives, as pydantic models: django-ninja
validates requests with them and generates ``GET /api/schema`` from them.

Each limit is declared once. The page limits (``limit``, ``cursor``) are
checked here. The limits of what the services check themselves (a twit's
length after trimming, a name, a userid, a password) are the services'
constants, only shown in the document here: the services trim and check with
their own messages, and the API must not refuse what they would accept.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Literal

from ninja import Query
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictStr, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from feeds.services import MAX_CURSOR_LEN, MAX_LIMIT, NEW_CAP, TWIT_ID_LEN, accounts, twits

DEFAULT_LIMIT = 20
# The services refuse longer ones themselves (accounts.py); the document says so.
PASSWORD_MAX = 1024
EMAIL_MAX = 254

USERID_PATTERN = f"^{accounts.USERID_RE.pattern}$"
TWIT_ID_PATTERN = f"^[0-9a-f]{{{TWIT_ID_LEN}}}$"

LIMIT_MESSAGE = f"limit must be a whole number from 1 to {MAX_LIMIT}."
CURSOR_MESSAGE = (
    f"cursor is at most {MAX_CURSOR_LEN} characters: pass back a next_cursor as it came."
)
# At most three digits: int() of a long digit string is slow, then refused.
_LIMIT_RE = re.compile(r"[0-9]{1,3}")

PASSWORD_RULES = (
    "Checked by the password validators: not common, not all digits, "
    "not like the userid, name or email."
)


def iso(moment: object) -> object:
    """ISO 8601 in UTC to the millisecond, with a Z: 2026-11-21T12:00:00.123Z."""
    if not isinstance(moment, datetime):
        return moment
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").removesuffix("+00:00") + "Z"


def _limit(raw: object) -> object:
    # Stricter than pydantic's int: no sign, spaces, exponent or non-ASCII digits.
    if isinstance(raw, str):
        if not _LIMIT_RE.fullmatch(raw) or not 1 <= int(raw) <= MAX_LIMIT:
            raise PydanticCustomError("limit", LIMIT_MESSAGE)
        return int(raw)
    return raw


def _cursor(raw: object) -> object:
    if raw == "":
        return None  # ?cursor= is the first page, as if left out
    if isinstance(raw, str) and len(raw) > MAX_CURSOR_LEN:
        raise PydanticCustomError("cursor", CURSOR_MESSAGE)
    return raw


Limit = Annotated[
    int,
    BeforeValidator(_limit),
    Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="How many items a page holds at most."),
]
# Optional, but documented as a string: a query parameter is never null.
Cursor = Annotated[
    str | None,
    BeforeValidator(_cursor),
    WithJsonSchema(
        {
            "type": "string",
            "maxLength": MAX_CURSOR_LEN,
            "description": "The `next_cursor` of the previous page; omit for the first page.",
        }
    ),
    Query(None),
]
Timestamp = Annotated[
    str,
    BeforeValidator(iso),
    Field(
        description="ISO 8601 in UTC to the millisecond, with a Z: 2026-11-21T12:00:00.123Z.",
        json_schema_extra={"format": "date-time", "example": "2026-11-21T12:00:00.123Z"},
    ),
]
# Documented, not enforced, on answers: an answer is never refused for its own data.
Userid = Annotated[str, Field(examples=["alice"], json_schema_extra={"pattern": USERID_PATTERN})]
Count = Annotated[int, Field(ge=0)]


# -- requests ----------------------------------------------------------------------
# StrictStr: a number or a list where a string belongs is refused, not converted.


class Login(BaseModel):
    userid: StrictStr
    password: StrictStr
    device: StrictStr | None = Field(
        None,
        description="The `device` of an earlier log-in to this account from this client, "
        "if it has one: its failed log-ins then count against this client alone, so "
        "strangers' guesses at the password (429 for them) do not keep you out.",
    )
    code: StrictStr | None = Field(
        None,
        description="For an account with two-factor sign-in: the 6 digits its authenticator "
        "app shows now, or one of its recovery codes. Without one such an account answers "
        '401 with `"field": "code"`.',
    )


class PasswordChange(BaseModel):
    current_password: StrictStr
    new_password: StrictStr = Field(
        description=PASSWORD_RULES,
        json_schema_extra=dict(minLength=accounts.PASSWORD_MIN, maxLength=PASSWORD_MAX),
    )


class ProfileChange(BaseModel):
    name: StrictStr | None = Field(
        default=None,
        description="Trimmed; not blank, no control characters. Left out: unchanged.",
        json_schema_extra=dict(minLength=1, maxLength=accounts.NAME_MAX),
    )
    bio: StrictStr | None = Field(
        default=None,
        description="Trimmed; newlines allowed, no other control characters; "
        "empty clears it. Left out: unchanged.",
        json_schema_extra=dict(maxLength=accounts.BIO_MAX),
    )


class SignUp(BaseModel):
    userid: StrictStr = Field(
        description="Unique regardless of case.",
        examples=["alice"],
        json_schema_extra=dict(pattern=USERID_PATTERN),
    )
    name: StrictStr = Field(
        description="Trimmed; not blank, no control characters.",
        json_schema_extra=dict(minLength=1, maxLength=accounts.NAME_MAX),
    )
    email: StrictStr = Field(json_schema_extra=dict(format="email", maxLength=EMAIL_MAX))
    password: StrictStr = Field(
        description=PASSWORD_RULES,
        json_schema_extra=dict(minLength=accounts.PASSWORD_MIN, maxLength=PASSWORD_MAX),
    )


class NewTwit(BaseModel):
    text: StrictStr = Field(
        description=f"Trimmed, then 1 to {twits.TEXT_MAX} characters; newlines allowed, "
        "other control characters not.",
        json_schema_extra=dict(minLength=1, maxLength=twits.TEXT_MAX),
    )
    # The service looks the twit up and refuses, naming reply_to, one that
    # does not exist (a malformed id included): the pattern is only shown.
    reply_to: StrictStr | None = Field(
        default=None,
        description="The id of the twit this one replies to; it must exist. "
        "Omit (or null) for a twit that replies to none.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    # As reply_to, looked up by the service: a missing twit is a 404 naming it.
    quote_of: StrictStr | None = Field(
        default=None,
        description="The id of the twit this one quotes (shown as a card in it); it must "
        "exist, and neither of you block the other. Omit (or null) to quote none.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    # The service refuses, naming images, a list it cannot take (a fifth,
    # someone else's, one used already): the limits here are only shown.
    images: list[StrictStr] | None = Field(
        default=None,
        description="Ids from `POST /api/media`: at most 4, each your own upload, used by "
        "no other twit. Omit (or null) for none.",
        json_schema_extra=dict(maxItems=4),
    )


# -- responses ---------------------------------------------------------------------


class Answer(BaseModel):
    """A response object: read from the services' dataclasses, every
    property present, nothing else."""

    model_config = ConfigDict(from_attributes=True, extra="forbid")


class Error(Answer):
    error: str = Field(description="What went wrong, for people.")
    # Left out, never null, when no one input is to blame.
    field: str | SkipJsonSchema[None] = Field(
        default=None, description="The input to blame, when there is one."
    )


class Token(Answer):
    token: str = Field(description="Send as `Authorization: Bearer <token>`.")
    userid: Userid
    device: str = Field(
        description="Keep it, and send it as `device` when this client logs in to "
        "this account again (a year at most): a device token, as OWASP's device cookies."
    )


def _none_if_blank(value: object) -> object:
    return None if value == "" else value


class Profile(Answer):
    userid: Userid
    name: str
    created: Timestamp
    twits: Count
    followers: Count
    following: Count
    bio: str = Field(description="What the user says of themselves; empty if nothing.")
    avatar_url: str = Field(
        description="The avatar's path on this site: with `?v=` (cacheable for good) "
        "when the user uploaded one, else the default (their initial, SVG)."
    )
    pinned: Annotated[str | None, BeforeValidator(_none_if_blank)] = Field(
        default=None,
        description="The id of the twit pinned on top of the profile (null if none). "
        "It may have been deleted since: getTwit then answers 404.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )


class Pin(BaseModel):
    twit: StrictStr = Field(
        description="The id of one of your twits.", json_schema_extra=dict(pattern=TWIT_ID_PATTERN)
    )


class Pinned(Answer):
    twit: str | None = Field(
        description="The pinned twit's id; null when none is.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )


class UserRef(Answer):
    userid: Userid
    name: str


class QuoteCard(Answer):
    id: str = Field(
        description="The quoted twit's id.", json_schema_extra=dict(pattern=TWIT_ID_PATTERN)
    )
    state: Literal["shown", "deleted", "unavailable"] = Field(
        description="`shown`; `deleted` (the quoted twit is gone); `unavailable` (its "
        "author is suspended, blocks or is blocked by you, or you mute them): then "
        "`userid`, `name` and `text` are empty."
    )
    userid: str = Field(description="The quoted twit's author (empty unless shown).")
    name: str = Field(description="Their name (empty unless shown).")
    text: str = Field(description="The quoted twit's text (empty unless shown).")


class TwitImage(Answer):
    id: str = Field(json_schema_extra=dict(pattern="^[0-9a-f]{56}$"))
    alt: str = Field(description="Alt text (may be empty).")
    width: int = Field(description="Width in px.")
    height: int = Field(description="Height in px.")
    url: str = Field(description="Where the image is served (cacheable for good).")


class Twit(Answer):
    id: str = Field(json_schema_extra=dict(pattern=TWIT_ID_PATTERN))
    userid: Userid
    name: str
    text: str = Field(json_schema_extra=dict(minLength=1, maxLength=twits.TEXT_MAX))
    created: Timestamp
    reply_to: str | None = Field(
        description="The id of the twit this one replies to (null if none). "
        "That twit may have been deleted since.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    reply_userid: Annotated[str | None, BeforeValidator(_none_if_blank)] = Field(
        description="The author of the twit this one replies to (null if none).",
        json_schema_extra=dict(pattern=USERID_PATTERN),
    )
    replies: Count = Field(description="How many replies it has.")
    likes: Count = Field(default=0, description="How many users like it.")
    liked: bool | None = Field(
        default=None, description="Whether you like it (null when not signed in, or not read)."
    )
    reposts: Count = Field(default=0, description="How many users reposted it.")
    reposted: bool | None = Field(
        default=None, description="Whether you reposted it (null when not signed in)."
    )
    reposted_by: Userid | None = Field(
        default=None,
        description="In a stream: the user (one you follow, or you) whose repost "
        "brought it there; null for the twit itself.",
    )
    edited_at: Annotated[str | None, BeforeValidator(iso)] = Field(
        default=None,
        description="When its text was last edited (null: never); "
        "`GET /api/twits/{twit_id}/history` lists every text it had.",
        json_schema_extra={"format": "date-time"},
    )
    quote_of: str | None = Field(
        default=None,
        description="The id of the twit this one quotes (null if none).",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    quoted: QuoteCard | None = Field(
        default=None,
        description="The card of the twit it quotes, as you may see it (null if it "
        "quotes none, or in an answer that does not read it: a twit just posted).",
    )
    quotes: Count = Field(default=0, description="How many twits quote it.")
    images: list[TwitImage] = Field(default=[], description="Its images, in order (at most 4).")


NEXT_CURSOR = "Pass as `cursor` for the next page; null on the last page."


class TwitPage(Answer):
    items: list[Twit]
    next_cursor: str | None = Field(description=NEXT_CURSOR)


class UserPage(Answer):
    items: list[UserRef]
    next_cursor: str | None = Field(description=NEXT_CURSOR)


class Follow(Answer):
    userid: str = Field(description="The other user, as given in the URL.")
    following: bool = Field(description="Whether you follow them now.")
    changed: bool = Field(description="False if it already was so.")


# -- live updates ------------------------------------------------------------------


def _since(raw: object) -> object:
    if raw == "":
        return None  # ?since= is "the client shows no twit yet", as if left out
    return raw


# Not a pattern pydantic checks: a bad id is the service's 400, naming "since".
Since = Annotated[
    str | None,
    BeforeValidator(_since),
    WithJsonSchema(
        {
            "type": "string",
            "description": "The id of the newest twit the client shows; "
            "left out when it shows none (then every twit counts).",
        }
    ),
    Query(None),
]


class NewTwits(Answer):
    count: int = Field(
        ge=0, le=NEW_CAP, description=f"How many new twits, counted up to {NEW_CAP}."
    )
    more: bool = Field(description=f"Whether there are more than {NEW_CAP}.")


# -- hashtags and search ---------------------------------------------------------------


class ProfilePage(Answer):
    items: list[Profile]
    next_cursor: str | None = Field(description=NEXT_CURSOR)


# -- account branch: account deletion ------------------------------------------------


class AccountDeletion(BaseModel):
    password: StrictStr = Field(description="Your password: deleting cannot be undone.")


# -- notifications ---------------------------------------------------------------------


class Notification(Answer):
    id: str = Field(description="Unique in your list (opaque).")
    type: Literal["mention", "reply", "like", "repost", "follow", "quote"]
    actors: list[UserRef] = Field(
        description="Who did it, newest first; a like or repost group names its latest few."
    )
    count: Count = Field(description="How many did it in all (a group has more than actors).")
    twit_id: str | None = Field(
        description="The twit it is about: the one that mentions or replies to you, or "
        "your twit that was liked or reposted; null for a follow.",
        json_schema_extra=dict(pattern=TWIT_ID_PATTERN),
    )
    text: str = Field(description="The start of the mentioning or replying twit's text.")
    created: Timestamp


class NotificationPage(Answer):
    items: list[Notification]
    next_cursor: str | None = Field(description=NEXT_CURSOR)


class Unread(Answer):
    unread: Count = Field(description="Notifications since you last opened them.")
