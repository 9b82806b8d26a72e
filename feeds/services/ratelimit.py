"""Per-user rate limits, counted in HBase so every web process shares them.

A fixed window per minute: the row is md5(userid) + the minute number, the
cell an HBase counter. The family's TTL lets HBase drop old windows itself.
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
