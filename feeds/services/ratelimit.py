"""Rate limits, counted in HBase so every web process shares them.

Costly actions (posting, signing up, following, reacting, uploading an
avatar or a twit's image, changing lists, blocking, messaging, reporting,
asking for a password reset): each is one :class:`Limit`
below, counted per account or per client address in fixed windows by
:func:`check`. The row is md5(userid), or md5("addr " + address), + the
minute the window starts; the cell, the limit's own HBase counter. The
family's TTL (three minutes) lets HBase drop old windows itself, so a
window is at most :data:`MAX_WINDOW_S`.

Log-in: failed attempts, counted the same way in the ``logins`` table, in
fixed windows of TWITBASE_LOGIN_WINDOW_S seconds (see :func:`admit_login`),
with OWASP's device cookies ("Slow Down Online Guessing Attacks with Device
Cookies"). A client that has logged in to an account holds a device token
for it (:func:`device_token`: the userid and a random nonce, signed with
SECRET_KEY): the web keeps it in a cookie, an API client sends it back in
``POST /api/login``'s ``device``. An attempt with a valid token for the
userid it tries counts against that device alone. Every other attempt is
an untrusted client's: it counts against the account's untrusted-clients
count and its client address's. So a brute force from any number of
addresses gets TWITBASE_LOGIN_FAILS_PER_ACCOUNT guesses per account per
window (and each stolen device token its own TWITBASE_LOGIN_FAILS_PER_DEVICE),
while the owner, from a client that has logged in before, still gets in.

An attempt is refused when a count it is charged to has reached its limit,
before any password is hashed, so a throttled guess costs a few counter
increments and no hash. Successes are not counted and do not reset the
count: a guesser cannot clear it by logging into an account of their own.

Changing the password and deleting the account ask for the password from
a signed-in client; those guesses count per session or API token
(:func:`admit_reauth`), so no stranger's failures can refuse the owner.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.core import signing

from feeds.errors import ServiceError
from storage import keys, rows
from storage.connection import connection, table_name
from storage.ops import delete_prefix


class RateLimited(ServiceError):
    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Limit:
    """One costly action's limit: at most the setting's count of it per
    ``per`` (an account, by userid, or a client address) in each window of
    ``window_s`` seconds; ``message`` says so, with the count for {count}."""

    name: str
    per: Literal["account", "address"]
    setting: str  # the setting holding the count
    cell: bytes  # the counter, in the ratelimits row of the account or address
    message: str
    window_s: int = 60

    @property
    def count(self) -> int:
        count: int = getattr(settings, self.setting)
        return count

    def describe(self) -> str:
        """The limit as the API's documentation states it."""
        return self.message.format(count=self.count) + "; retry after Retry-After seconds."


# The ratelimits family's TTL is 180 s: a window must end well before HBase
# drops its count.
MAX_WINDOW_S = 120

POSTS = Limit(
    name="posts",
    per="account",
    setting="TWITBASE_POSTS_PER_MINUTE",
    cell=rows.POSTS,
    message="You can post {count} twits a minute",
)
SIGNUPS = Limit(
    name="sign-ups",
    per="address",
    setting="TWITBASE_SIGNUPS_PER_MINUTE",
    cell=rows.RATE_SIGNUPS,
    message="You can sign up {count} accounts a minute from your address",
)
FOLLOWS = Limit(
    name="follows and unfollows",
    per="account",
    setting="TWITBASE_FOLLOWS_PER_MINUTE",
    cell=rows.RATE_FOLLOWS,
    message="You can follow or unfollow {count} times a minute",
)
REACTIONS = Limit(
    name="likes and reposts",
    per="account",
    setting="TWITBASE_REACTIONS_PER_MINUTE",
    cell=rows.RATE_REACTIONS,
    message="You can like or repost (or take it back) {count} times a minute",
)
AVATAR_UPLOADS = Limit(
    name="avatar uploads",
    per="account",
    setting="TWITBASE_AVATAR_UPLOADS_PER_MINUTE",
    cell=rows.RATE_AVATARS,
    message="You can upload {count} avatars a minute",
)
REPORTS = Limit(
    name="reports",
    per="account",
    setting="TWITBASE_REPORTS_PER_MINUTE",
    cell=rows.RATE_REPORTS,
    message="You can send {count} reports a minute",
)
BLOCKS = Limit(
    name="blocks and mutes",
    per="account",
    setting="TWITBASE_BLOCKS_PER_MINUTE",
    cell=rows.RATE_BLOCKS,
    message="You can block, mute or undo either {count} times a minute",
)
PASSWORD_RESETS = Limit(
    name="password resets of an account",
    per="account",
    setting="TWITBASE_PASSWORD_RESETS_PER_MINUTE",
    cell=rows.RATE_RESETS,
    message="You can ask for {count} password resets of one account a minute",
)
PASSWORD_RESETS_PER_ADDRESS = Limit(
    name="password resets from an address",
    per="address",
    setting="TWITBASE_PASSWORD_RESETS_PER_ADDRESS",
    cell=rows.RATE_RESETS,
    message="You can ask for {count} password resets a minute from your address",
)
MESSAGES = Limit(
    name="direct messages",
    per="account",
    setting="TWITBASE_MESSAGES_PER_MINUTE",
    cell=rows.RATE_MESSAGES,
    message="You can send {count} messages a minute",
)
IMAGE_UPLOADS = Limit(
    name="image uploads",
    per="account",
    setting="TWITBASE_IMAGE_UPLOADS_PER_MINUTE",
    cell=rows.RATE_IMAGES,
    message="You can upload {count} images a minute",
)
LIST_CHANGES = Limit(
    name="list changes",
    per="account",
    setting="TWITBASE_LIST_CHANGES_PER_MINUTE",
    cell=rows.RATE_LISTS,
    message="You can make or delete a list, or add or remove its members, {count} times a minute",
)
LIMITS = (
    POSTS,
    SIGNUPS,
    FOLLOWS,
    REACTIONS,
    AVATAR_UPLOADS,
    REPORTS,
    BLOCKS,
    PASSWORD_RESETS,
    PASSWORD_RESETS_PER_ADDRESS,
    MESSAGES,
    IMAGE_UPLOADS,
    LIST_CHANGES,
)


def check(limit: Limit, key: str) -> None:
    """Count one ``limit`` action by ``key`` (the userid, or the client
    address, as ``limit.per`` says); RateLimited, with the seconds until the
    window ends, once the count is over the limit.

    The count is an atomic increment before the action, so concurrent
    actions cannot all pass: at most the limit succeed per window. A refused
    action stays counted (a client hammering the limit keeps it shut until
    the window ends); nothing is given back.
    """
    now = time.time()
    start = int(now // limit.window_s) * limit.window_s
    retry = max(1, start + limit.window_s - int(now))
    minute = start // 60
    if limit.per == "account":
        row = keys.rate_window_key(key, minute)
    else:
        # The address's row of the logins table has the same key, in its own table.
        row = keys.login_address_key(key, minute)
    with connection() as conn:
        count = conn.table(table_name("ratelimits")).counter_inc(row, limit.cell)
    if count > limit.count:
        raise RateLimited(
            limit.message.format(count=limit.count) + f". Try again in {_minutes(retry)}.", retry
        )


def check_post_rate(userid: str) -> None:
    """Count one post; RateLimited when the user is over the per-minute limit."""
    check(POSTS, userid)


DEVICE_SALT = "twitbase.device"
# How long a device token is honoured after its log-in.
DEVICE_MAX_AGE_S = 365 * 24 * 3600
DEVICE_MAX_LEN = 512


def device_token(userid: str) -> str:
    """A new device token for a client that has just logged in as ``userid``."""
    return signing.dumps([userid.lower(), secrets.token_urlsafe(16)], salt=DEVICE_SALT)


def _device_nonce(device: object, userid: str) -> str | None:
    """The nonce of ``device`` if it is a valid token for ``userid``, else None."""
    if not isinstance(device, str) or not 0 < len(device) <= DEVICE_MAX_LEN:
        return None
    try:
        found = signing.loads(device, salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE_S)
    except (signing.BadSignature, ValueError):
        return None
    match found:
        case [str(owner), str(nonce)] if owner == userid.lower():
            return nonce
    return None


def _window(now: float) -> tuple[int, int]:
    """The minute this window starts at, and the seconds until it ends."""
    window_s = settings.TWITBASE_LOGIN_WINDOW_S
    start = int(now // window_s) * window_s
    return start // 60, max(1, start + window_s - int(now))


def admit_login(userid: str | None, address: str, device: object = None) -> list[bytes]:
    """Take one of this window's failed-log-in slots for an attempt on
    ``userid`` (None: not a possible userid) from ``address``: the slot of
    the device when ``device`` is a valid device token for ``userid``, else
    the account's untrusted-clients slot and the address's. RateLimited if
    one is used up.

    Each slot is taken by an atomic increment before the password is
    checked, so concurrent guesses cannot all pass a check before any is
    counted: at most the limit are admitted per window. A refused attempt
    gives its slots back; so does a log-in that succeeds
    (:func:`release_login`), so only failures stay counted. Returns the rows
    to give back on success.
    """
    minute, retry = _window(time.time())
    nonce = None if userid is None else _device_nonce(device, userid)
    if nonce is not None:
        slots = [
            (
                keys.login_device_key(nonce, minute),
                settings.TWITBASE_LOGIN_FAILS_PER_DEVICE,
                "from this device",
            )
        ]
    else:
        slots = [
            (
                keys.login_address_key(address, minute),
                settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS,
                "from your address",
            )
        ]
        if userid is not None:
            limit = settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT
            slots.insert(0, (keys.login_account_key(userid, minute), limit, "for this account"))
    return _take(slots, retry, "Too many failed log-ins")


def admit_reauth(credential: str) -> list[bytes]:
    """:func:`admit_login` for a password asked again of a signed-in client
    (a password change, an account deletion): one slot of its session or
    API token ``credential``, TWITBASE_LOGIN_FAILS_PER_DEVICE a window."""
    minute, retry = _window(time.time())
    row = keys.login_session_key(credential, minute)
    return _take(
        [(row, settings.TWITBASE_LOGIN_FAILS_PER_DEVICE, "in this session")],
        retry,
        "Too many wrong passwords",
    )


def _take(slots: list[tuple[bytes, int, str]], retry: int, refusal: str) -> list[bytes]:
    taken: list[bytes] = []
    with connection() as conn:
        table = conn.table(table_name("logins"))
        for row, limit, reason in slots:
            taken.append(row)
            if table.counter_inc(row, rows.LOGIN_FAILS) > limit:
                for done in taken:
                    table.counter_dec(done, rows.LOGIN_FAILS)
                raise RateLimited(f"{refusal} {reason}. Try again in {_minutes(retry)}.", retry)
    return taken


def release_login(windows: list[bytes]) -> None:
    """Give back the slots :func:`admit_login` took: the log-in succeeded."""
    with connection() as conn:
        table = conn.table(table_name("logins"))
        for row in windows:
            table.counter_dec(row, rows.LOGIN_FAILS)


def _minutes(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} seconds"
    minutes = -(-seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def forget_user(userid: str) -> int:
    """Delete ``userid``'s counters (every limit's per account, and log-ins
    by account), for the deletion of their account; returns how many rows
    went. The rows per address, device and session name no user and expire
    on their own."""
    mine = keys.user_hash(userid)
    with connection() as conn:
        return sum(delete_prefix(conn, table_name(t), mine) for t in ("ratelimits", "logins"))
