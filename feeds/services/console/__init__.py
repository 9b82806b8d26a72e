"""The staff console's services: one module per concern, each used by the
console's views (feeds/console), which call nothing else.

- :mod:`.audit`: the audit log. Every action a staff member takes through
  these services is written there (who, what, when) once it has succeeded.
- :mod:`.catalog`: the tables, their families and regions.
- :mod:`.stats`: row counts and key spreads, measured by a background job
  and kept, so a page view costs what it shows, never the size of a table.
- :mod:`.keyspread`: how a table's keys fall over the key space and regions.
- :mod:`.rowbrowser`: any table's rows under a prefix, raw and decoded.
- :mod:`.fanouts`: pending fan-outs, workers, requeue and sweep.
- :mod:`.moderation`: disable an account, clear its two-factor sign-in,
  delete anyone's twit.
"""

from __future__ import annotations

from .audit import audit_log, record
from .catalog import check_table, known_tables, tables
from .fanouts import (
    WORKER_QUIET_S,
    FanoutOverview,
    PendingList,
    fanout_overview,
    pending_fanouts,
    requeue_fanout,
    sweep_fanouts,
)
from .keyspread import (
    BUCKETS,
    SAMPLE_CAP,
    Histogram,
    KeySpread,
    kept_key_spreads,
    key_spread,
)
from .moderation import (
    check_disable,
    clear_two_factor,
    delete_twit,
    find_twit,
    find_user,
    set_disabled,
    two_factor_on,
)
from .rowbrowser import BY_CHOICES, browse_rows, string_binary
from .stats import COUNT_CAP, refresh_stats, request_stats

__all__ = [
    "BUCKETS",
    "BY_CHOICES",
    "COUNT_CAP",
    "SAMPLE_CAP",
    "WORKER_QUIET_S",
    "FanoutOverview",
    "Histogram",
    "KeySpread",
    "PendingList",
    "audit_log",
    "browse_rows",
    "check_disable",
    "check_table",
    "clear_two_factor",
    "delete_twit",
    "fanout_overview",
    "find_twit",
    "find_user",
    "kept_key_spreads",
    "key_spread",
    "known_tables",
    "pending_fanouts",
    "record",
    "refresh_stats",
    "request_stats",
    "requeue_fanout",
    "set_disabled",
    "string_binary",
    "sweep_fanouts",
    "tables",
    "two_factor_on",
]
