"""Table figures kept in the background: each table's row count and key
spread, as the last background measurement left them.

A page view must cost in proportion to what it shows, not to the size of the
tables it describes: counting a table is a scan of every row, and a key
spread samples up to 20,000 keys. So these are measured by a job (Celery
beat queues it every TWITBASE_TABLE_STATS_EVERY_S; the console's "Count now"
queues it for one table; ``manage.py tablestats`` runs it in place) and kept
in one row of the metrics table, a JSON cell per table and figure. The
console's tables and key-design pages read that one row.

Written by hand: it is two JSON cells per table in a table TwitBase has
already. HBase's own RowCounter is a MapReduce job, for which a deployment
like this one has no cluster, and it would still need somewhere to keep its
result for a page to read.

The figures are as old as they say: every one carries when it was measured
and how long that took, and the pages show both.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime

from feeds.types import from_millis
from storage import rows

from . import metrics


@dataclass(frozen=True)
class RowCount:
    """A table's rows as last counted: ``capped`` means the count stopped at
    the cap, so the table holds at least ``rows``."""

    rows: int
    capped: bool
    at: datetime
    took_ms: int


def _json(value: dict[str, object]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def save(table: str, counted: int, capped: bool, took_ms: int, spread: dict[str, object]) -> None:
    """Keep a table's count and key spread (a JSON-ready dict; see
    console.KeySpread.to_json), in one put: a page never sees one newer
    than the other."""
    now = int(time.time() * 1000)
    cells = {
        rows.TABLE_ROWS + table.encode(): _json(
            {"rows": counted, "capped": capped, "at": now, "took_ms": took_ms}
        ),
        rows.TABLE_SPREAD + table.encode(): _json({**spread, "at": now}),
    }
    metrics.save_table_figures(cells)


def save_spread(table: str, spread: dict[str, object]) -> None:
    """Keep a key spread alone (sampled on a first view, before any count)."""
    metrics.save_table_figures(
        {rows.TABLE_SPREAD + table.encode(): _json({**spread, "at": int(time.time() * 1000)})}
    )


def counts() -> dict[str, RowCount]:
    """Every table's last count, by table name (one get)."""
    row = metrics.table_figures()
    out = {}
    for column, value in row.items():
        if column.startswith(rows.TABLE_ROWS):
            d = json.loads(value)
            out[column[len(rows.TABLE_ROWS) :].decode()] = RowCount(
                int(d["rows"]), bool(d["capped"]), from_millis(int(d["at"])), int(d["took_ms"])
            )
    return out


def spreads(tables: list[str]) -> dict[str, dict[str, object]]:
    """The last key spread saved of each of ``tables`` that has one, with
    "at" (ms), by table name (one get, whatever the number of tables)."""
    columns = [rows.TABLE_SPREAD + t.encode() for t in tables]
    row = metrics.table_figures(columns)
    return {
        column[len(rows.TABLE_SPREAD) :].decode(): json.loads(value)
        for column, value in row.items()
    }
