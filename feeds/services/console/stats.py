"""Table statistics, measured in the background: each table's row count and
key spread, kept in one row (see tablestats) for the tables and key-design
pages, so that a page view costs what it shows, never the size of a table.

:func:`refresh_stats` is the job, run by Celery beat and on a staff
member's request (:func:`request_stats`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import closing

import happybase
from django.conf import settings

from feeds import jobs
from storage import ops
from storage.connection import connection, table_name
from storage.schema import SCHEMA

from .. import tablestats
from .audit import record
from .catalog import check_table, existing
from .keyspread import key_spread

# A row count (in the background) stops at COUNT_CAP rows and then reads "at
# least". Keys are not spread evenly over rows (a user with 15,000 followers
# is 15,000 followedBy rows in one place), so a count from a sample of the key
# space would be far off: we count.
COUNT_CAP = 10_000_000
# The periodic job counts a table again only once its last count is older
# than this many times the count took, as well as TWITBASE_TABLE_STATS_EVERY_S:
# counting never takes more than a twentieth of the server's time, however
# large the tables grow (on a 100,000-user demo, counting follows takes 38 s).
RECOUNT_AFTER_TIMES = 20


def count_rows(table: happybase.Table) -> tuple[int, bool]:
    """The rows of ``table`` by a key-only scan (KeyOnlyFilter AND
    FirstKeyOnlyFilter: one empty cell per row crosses the wire), and whether
    the count stopped at COUNT_CAP."""
    n = 0
    with closing(table.scan(filter=ops.KEYS_ONLY, limit=COUNT_CAP + 1, batch_size=5_000)) as found:
        for _ in found:
            if n == COUNT_CAP:
                return n, True
            n += 1
    return n, False


def _due(last: tablestats.RowCount | None, now: float) -> bool:
    """Whether a table last counted as ``last`` (None: never) is due to be
    counted again at ``now`` (seconds since the epoch)."""
    if last is None:
        return True
    wait_s = max(
        settings.TWITBASE_TABLE_STATS_EVERY_S,
        RECOUNT_AFTER_TIMES * last.took_ms / 1000,
    )
    return now - last.at.timestamp() >= wait_s


def refresh_stats(
    table: str = "", say: Callable[[str], None] | None = None, due_only: bool = False
) -> int:
    """Count the rows of ``table`` ("": of every table) and sample its key
    spread, and keep both for the console's pages (see tablestats). The
    background job behind the tables and key-design pages: it scans whole
    tables so that no page view has to. ``due_only`` (the periodic job) skips
    a table counted recently (RECOUNT_AFTER_TIMES). Returns the tables measured."""
    names = [check_table(table)] if table else list(SCHEMA)
    with connection() as conn:
        present = existing(conn)
    last = tablestats.counts() if due_only else {}
    now = time.time()
    done = 0
    for name in names:
        if table_name(name) not in present or not _due(last.get(name), now):
            continue
        started = time.monotonic()
        with connection() as conn:
            counted, capped = count_rows(conn.table(table_name(name)))
        took_ms = int((time.monotonic() - started) * 1000)
        spread = key_spread(name)
        tablestats.save(name, counted, capped, took_ms, spread.to_json())
        done += 1
        if say is not None:
            say(
                f"{name}: {counted:,}{'+' if capped else ''} rows in {took_ms:,} ms; "
                f"key spread from {spread.keys:,} keys in {spread.ms:,} ms"
            )
    return done


def request_stats(actor: str, table: str) -> str:
    """Queue :func:`refresh_stats` for ``table`` ("": every table) on a staff
    member's request; returns the table."""
    if table:
        check_table(table)
    jobs.dispatch(jobs.RefreshTableStats(table))
    record(actor, "tables.count", table or "every table")
    return table
