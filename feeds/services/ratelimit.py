"""Rate limits, counted in HBase so every web process shares them.

Posting: a fixed window per minute; the row is md5(userid) + the minute
number, the cell an HBase counter. The family's TTL lets HBase drop old
windows itself.

Log-in: failed attempts, counted the same way in the ``logins`` table, per
account and per client address, in fixed windows of
TWITBASE_LOGIN_WINDOW_S seconds (see :func:`admit_login`). An attempt is
refused when either count has reached its limit, before any password is
hashed, so a throttled guess costs a few counter increments and no hash.
Successes are not counted and do not reset the count: a guesser cannot
clear it by logging into an account of their own.
"""

from __future__ import annotations

import time

from django.conf import settings

from feeds.errors import ServiceError
from storage import keys, rows
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
        count = conn.table(table_name("ratelimits")).counter_inc(row, rows.POSTS)
    if count > limit:
        retry = 60 - int(now % 60)
        raise RateLimited(
            f"You can post {limit} twits a minute. Try again in {retry} seconds.", retry
        )


def _login_rows(userid: str | None, address: str, now: float) -> tuple[list[bytes], int]:
    """The rows of this window (account first, when there is one) and the
    seconds until the window ends."""
    window_s = settings.TWITBASE_LOGIN_WINDOW_S
    start = int(now // window_s) * window_s
    minute = start // 60
    windows = [keys.login_address_key(address, minute)]
    if userid is not None:
        windows.insert(0, keys.login_account_key(userid, minute))
    return windows, max(1, start + window_s - int(now))


def admit_login(userid: str | None, address: str) -> list[bytes]:
    """Take one of this window's failed-log-in slots of ``userid`` (None: not
    a possible userid) and of ``address``; RateLimited if either is used up.

    Each slot is taken by an atomic increment before the password is
    checked, so concurrent guesses cannot all pass a check before any is
    counted: at most the limit are admitted per window. A refused attempt
    gives its slots back; so does a log-in that succeeds
    (:func:`release_login`), so only failures stay counted. Returns the rows
    to give back on success.
    """
    windows, retry = _login_rows(userid, address, time.time())
    limits = [settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS]
    reasons = ["from your address"]
    if userid is not None:
        limits.insert(0, settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT)
        reasons.insert(0, "for this account")
    taken: list[bytes] = []
    with connection() as conn:
        table = conn.table(table_name("logins"))
        for row, limit, reason in zip(windows, limits, reasons, strict=True):
            taken.append(row)
            if table.counter_inc(row, rows.LOGIN_FAILS) > limit:
                for done in taken:
                    table.counter_dec(done, rows.LOGIN_FAILS)
                raise RateLimited(
                    f"Too many failed log-ins {reason}. Try again in {_minutes(retry)}.", retry
                )
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
