"""Rate limits, counted in HBase so every web process shares them.

Posting: a fixed window per minute; the row is md5(userid) + the minute
number, the cell an HBase counter. The family's TTL lets HBase drop old
windows itself.

Log-in: failed attempts, counted the same way in the ``logins`` table, per
account and per client address, in fixed windows of
TWITBASE_LOGIN_WINDOW_S seconds. An attempt is refused when either count
has reached its limit, before any password is hashed, so a throttled
guess costs one HBase read and no CPU. Successes are not counted and do
not reset the count: a guesser cannot clear it by logging into an
account of their own.
"""

from __future__ import annotations

import time

from django.conf import settings

from feeds.errors import ServiceError
from storage import keys
from storage.connection import connection, table_name


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
        count = conn.table(table_name("ratelimits")).counter_inc(row, b"r:posts")
    if count > limit:
        retry = 60 - int(now % 60)
        raise RateLimited(
            f"You can post {limit} twits a minute. Try again in {retry} seconds.", retry
        )


_FAILS = b"l:fails"


def _login_rows(userid: str | None, address: str, now: float) -> tuple[list[bytes], int]:
    """The rows of this window (account first, when there is one) and the
    seconds until the window ends."""
    window_s = settings.TWITBASE_LOGIN_WINDOW_S
    start = int(now // window_s) * window_s
    minute = start // 60
    rows = [keys.login_address_key(address, minute)]
    if userid is not None:
        rows.insert(0, keys.login_account_key(userid, minute))
    return rows, max(1, start + window_s - int(now))


def check_login_allowed(userid: str | None, address: str) -> None:
    """RateLimited if ``userid`` (None: not a possible userid) or ``address``
    has reached its limit of failed log-ins in this window."""
    rows, retry = _login_rows(userid, address, time.time())
    with connection() as conn:
        found = dict(conn.table(table_name("logins")).rows(rows, columns=[_FAILS]))
    address_fails = _count(found.get(rows[-1], {}).get(_FAILS))
    account_fails = _count(found.get(rows[0], {}).get(_FAILS)) if userid is not None else 0
    if account_fails >= settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT:
        raise RateLimited(
            f"Too many failed log-ins for this account. Try again in {_minutes(retry)}.", retry
        )
    if address_fails >= settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS:
        raise RateLimited(
            f"Too many failed log-ins from your address. Try again in {_minutes(retry)}.", retry
        )


def count_login_failure(userid: str | None, address: str) -> None:
    """Count one failed log-in against the account (if any) and the address."""
    rows, _ = _login_rows(userid, address, time.time())
    with connection() as conn:
        table = conn.table(table_name("logins"))
        for row in rows:
            table.counter_inc(row, _FAILS)


def _count(cell: bytes | None) -> int:
    return int.from_bytes(cell, "big", signed=True) if cell else 0


def _minutes(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} seconds"
    minutes = -(-seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
