"""The TwitBase tables and their column families, created by one idempotent call.

Every family keeps one version: TwitBase never reads history, and a single
version keeps rows small and reads cheap. Names get the environment's prefix
(settings.TWITBASE_TABLE_PREFIX), so test runs and deployments never meet.
"""

from __future__ import annotations

from collections.abc import Iterable

import happybase

from .connection import table_name

ONE = {"max_versions": 1}

SCHEMA: dict[str, dict[str, dict[str, int]]] = {
    # Row keys are in storage/keys.py, cells in storage/rows.py (rows.COLUMNS
    # lists each table's); what each table is for, in docs/schema.md.
    "users": {"info": ONE, "c": ONE},  # "info": the account and flags; "c": counts
    "twits": {"t": ONE},
    # One row per unfinished fan-out, what the sweep and the console read
    # instead of scanning twits (see feeds/services/pending.py). Small: rows
    # leave when their fan-out ends.
    "pendingFanouts": {"p": ONE},
    "follows": {"f": ONE},
    "followedBy": {"f": ONE},
    "streams": {"s": ONE},
    # A twit's replies, oldest first under its key, each carrying what the
    # permalink shows of it (see keys.reply_key).
    "replies": {"r": ONE},
    # Likes: a twit's likers (twit key + md5(liker), one multi-get answers
    # "did I like these?") and a user's likes, newest first.
    "likers": {"l": ONE},
    "likes": {"l": ONE},
    # Notifications, newest first under md5(recipient), and the like/repost
    # groups that move their one row to the top (feeds/services/notifications.py).
    "notifications": {"n": ONE},
    "notifyGroups": {"g": ONE},
    # API bearer tokens and web sessions, 30 days.
    "tokens": {"k": {"max_versions": 1, "time_to_live": 30 * 24 * 3600}},
    # Counters per time window: HBase expires old windows.
    "ratelimits": {"r": {"max_versions": 1, "time_to_live": 180}},
    "logins": {"l": {"max_versions": 1, "time_to_live": 2 * 24 * 3600}},
    "celebrities": {"c": ONE},  # authors too large to fan out (see fanout)
    # Fan-out figures and worker heartbeats; a week of history is plenty.
    "metrics": {"m": {"max_versions": 1, "time_to_live": 7 * 24 * 3600}},
    # The staff console's log: who did what, when; kept forever.
    "audit": {"a": ONE},
}


def create_tables(conn: happybase.Connection, names: Iterable[str] | None = None) -> list[str]:
    """Create the tables that do not exist yet; return the full names created.

    Safe to repeat: an existing table is left as it is.
    """
    existing = {t.decode() for t in conn.tables()}
    created = []
    for name in names or SCHEMA:
        full = table_name(name)
        if full in existing:
            continue
        conn.create_table(full, SCHEMA[name])
        created.append(full)
    return created


def drop_tables(conn: happybase.Connection) -> list[str]:
    """Delete every TwitBase table of this prefix (tests and `createtables --reset`)."""
    existing = {t.decode() for t in conn.tables()}
    dropped = []
    for name in SCHEMA:
        full = table_name(name)
        if full in existing:
            conn.delete_table(full, disable=True)
            dropped.append(full)
    return dropped
