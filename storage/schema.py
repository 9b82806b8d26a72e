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
    # md5(userid) -> info:account (JSON, created by checkAndPut; a password
    # change swaps it by checkAndPut), info:staff, info:disabled,
    # info:authgen (a counter: see feeds/services/sessions.py);
    # c:twits, c:followers, c:following (counters).
    "users": {"info": ONE, "c": ONE},
    # md5(author) + rts + suffix -> t:text, t:userid, t:name, t:created,
    # t:fanout (the fan-out's lease, while it is unfinished), t:p<n> (chunk n done)
    "twits": {"t": ONE},
    # the twit's key -> p:userid (the author): one row per unfinished fan-out,
    # what the sweep and the console read instead of scanning twits (see
    # feeds/services/pending.py). Small: rows leave when their fan-out ends.
    "pendingFanouts": {"p": ONE},
    # md5(follower) + md5(followed) -> f:userid (the followed), f:created, f:op, f:counted
    "follows": {"f": ONE},
    # md5(followed) + md5(follower) -> f:userid (the follower), f:created
    "followedBy": {"f": ONE},
    # md5(reader) + rts + md5(author) + suffix -> s:userid, s:name, s:text, s:created
    "streams": {"s": ONE},
    # sha256(token) -> k:userid, k:created, k:gen, k:kind (API bearer tokens
    # and web sessions, 30 days)
    "tokens": {"k": {"max_versions": 1, "time_to_live": 30 * 24 * 3600}},
    # md5(userid) + minute -> r:posts (a counter; HBase expires old windows)
    "ratelimits": {"r": {"max_versions": 1, "time_to_live": 180}},
    # md5(userid) or md5("addr " + client address) + window start (minutes)
    # -> l:fails (a counter of failed log-ins; HBase expires old windows)
    "logins": {"l": {"max_versions": 1, "time_to_live": 2 * 24 * 3600}},
    # md5(userid) -> c:userid, for authors too large to fan out (see fanout)
    "celebrities": {"c": ONE},
    # "totals" (counters), "lag:" + rts + rand (recent fan-out lags),
    # "worker:" + host:pid (heartbeats); a week of history is plenty.
    "metrics": {"m": {"max_versions": 1, "time_to_live": 7 * 24 * 3600}},
    # rts + suffix -> a:actor, a:action, a:target, a:detail (the staff console's
    # log: who did what, when). Time first on purpose, see keys.audit_key; kept forever.
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
