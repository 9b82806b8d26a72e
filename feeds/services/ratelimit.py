"""Rate limits, counted in HBase so every web process shares them.

Posting: a fixed window per minute; the row is md5(userid) + the minute
number, the cell an HBase counter. The family's TTL lets HBase drop old
windows itself.

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


def check_post_rate(userid: str) -> None:
    """Count one post; RateLimited when the user is over the per-minute limit."""
    limit = settings.TWITBASE_POSTS_PER_MINUTE
    now = time.time()
    window = int(now // 60)
    row = keys.rate_window_key(userid, window)
    with connection() as conn:
        count = conn.table(table_name("ratelimits")).counter_inc(row, rows.POSTS)
    if count > limit:
        retry = 60 - int(now % 60)
        raise RateLimited(
            f"You can post {limit} twits a minute. Try again in {retry} seconds.", retry
        )


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
    """Delete ``userid``'s counters (posts, and log-ins by account), for the
    deletion of their account; returns how many rows went. The rows per
    address, device and session name no user and expire on their own."""
    mine = keys.user_hash(userid)
    with connection() as conn:
        return sum(delete_prefix(conn, table_name(t), mine) for t in ("ratelimits", "logins"))
