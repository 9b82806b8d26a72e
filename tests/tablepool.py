"""Empty TwitBase table sets for the tests: on real HBase made ahead, and on
either server emptied after a test and taken again by the next.

Every test gets tables no other test is using (a unique prefix) and nothing
in them, and HBase is slow at DDL: creating the 24 tables of one set takes
about 7 s and dropping them 5 s, nearly all of it waiting on the master's
procedures. It runs many procedures at once, though, and the Thrift servers' admin calls
poll for them at ``hbase.client.pause``, which devtools/realhbase.py sets
to 10 ms. Measured by ``python -m bench.ddl`` (24 sets a run), a set took
2.96 s by 4 threads polling at HBase's default 100 ms, 1.09 s by 12 threads,
and 0.87 s by 12 threads at 10 ms. So the first test takes a set made while
the session started, and a set that cannot be emptied is dropped by a
background thread. No library does this (pytest-xdist parallelises tests,
not a fixture's DDL), hence this module.

The pool makes its sets from ``storage.schema.SCHEMA``, the same families
``create_tables`` gives, one region per table.

A set a test has finished with is emptied and used again rather than
dropped: its rows deleted (one scan and one batch of deletes per table that
has rows) costs HBase about 0.06 CPU s and 50 ms, against 1.45 CPU s and
6.8 s to drop a set and make another (scratch measurement, five sets of
each on one HBase). A set goes back only as it was made: the same tables,
enabled, with the regions and families they were made with. Otherwise it
is dropped. The local server's tests use the same pool for their sets
(``take_emptied``), which they make themselves, pre-split: there emptying
takes 8 ms against 38 ms to drop a set and make another.

Deleting leaves markers, and a marker hides a later write as old as itself
(HBase orders a row's cells by timestamp, not by arrival). The markers are
written at the newest timestamp the test wrote, and the next test gets the
set only after that millisecond, so they hide nothing written at the time
it is written. What they could hide is a later test's write at an older
timestamp to a row an earlier test also wrote:

- A clock older than the test (a frozen clock, loaddemo's past twits, an
  explicit time) writes such cells to rows every test writes (a user's row,
  a follow edge). A test that does this is marked
  ``@pytest.mark.fresh_tables``: it gets a set never used, which is then
  dropped. One that is not marked fails at teardown, naming such a
  cell, since its result would depend on the test before it.
- A version number as timestamp (a test may write rows at timestamp 1)
  can come again at the same key: the next case of a parametrized test
  writes the same rows at the same versions. A set with a timestamp below
  ``CLOCK_MS`` is dropped, not emptied, except in the tables of
  ``VERSIONED_BY_TWIT``: a notification row is written at its group's
  generation (1, 2, 3...), but keyed by a twit, whose key (with its random
  suffix) no other test makes.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import happybase
from thriftpy2.thrift import TException

from storage.schema import SCHEMA

THREADS = 12  # parallel DDL jobs: HBase's procedures still overlap at 12
# Sets kept in the making for the tests still to come: most tests take an
# emptied set, so these serve the first test and a set that was dropped.
AHEAD = 2


# Timestamps from here on (September 2001) are read as clock times.
CLOCK_MS = 10**12
# Tables whose rows may carry versions as timestamps and still be emptied.
VERSIONED_BY_TWIT = frozenset({"notifications"})


class BackdatedCells(AssertionError):
    """A test wrote cells older than its start without ``fresh_tables``."""


class TablePool:
    """Table sets on the HBase at ``host:port``, taken one per test."""

    def __init__(
        self,
        host: str,
        port: int,
        tag: str = "tb",
        schema: Mapping[str, Mapping[str, dict[str, Any]]] = SCHEMA,
    ) -> None:
        self.host = host
        self.port = port
        self.tag = tag
        self.schema = schema
        self._jobs = ThreadPoolExecutor(THREADS, thread_name_prefix="tablepool")
        self._ready: deque[Future[str]] = deque()
        # Emptied sets, each with the millisecond its markers were written at.
        self._emptied: deque[tuple[str, int]] = deque()
        # Each table as a set is made: its families and its number of regions.
        self._shape: dict[str, tuple[dict[bytes, dict[str, object]], int]] = {}
        self._lock = threading.Lock()

    def _connect(self, prefix: str) -> happybase.Connection:
        return happybase.Connection(self.host, self.port, table_prefix=prefix, timeout=120_000)

    def _create(self, prefix: str) -> str:
        conn = self._connect(prefix)
        try:
            for name, families in self.schema.items():
                conn.create_table(name, families)
        finally:
            conn.close()
        self.made(prefix)
        return prefix

    def made(self, prefix: str) -> None:
        """Note the families and regions of the set ``prefix``, just made, the
        first time: an emptied set goes back only with the same. The pool
        calls it for its own sets; a caller that makes its own (the local
        server's tests, pre-split, in a few milliseconds) calls it after."""
        if self._shape:
            return
        conn = self._connect(prefix)
        try:
            self._shape = {name: self._shape_of(conn, name) for name in self.schema}
        finally:
            conn.close()

    @staticmethod
    def _shape_of(
        conn: happybase.Connection, name: str
    ) -> tuple[dict[bytes, dict[str, object]], int]:
        regions = conn.client.getTableRegions(conn._table_name(name))
        return conn.table(name).families(), len(regions)

    def _drop(self, prefix: str) -> None:
        conn = self._connect(prefix)
        try:
            # A test may have dropped some itself (createtables --reset).
            for table in conn.tables():
                conn.delete_table(table, disable=True)
        finally:
            conn.close()

    def _fill(self) -> None:
        while len(self._ready) < AHEAD:
            prefix = self.tag + uuid.uuid4().hex[:10]
            self._ready.append(self._jobs.submit(self._create, prefix))

    def take(self, fresh: bool = False) -> str:
        """The prefix of a complete, empty set of TwitBase tables; a set
        never used before if ``fresh``."""
        emptied = self.take_emptied(fresh)
        if emptied is not None:
            return emptied
        with self._lock:
            self._fill()
            job = self._ready.popleft()
            self._fill()
        return job.result()

    def take_emptied(self, fresh: bool = False) -> str | None:
        """The prefix of a set emptied after an earlier test, or None (none
        is, or ``fresh``): for a caller that makes its own sets."""
        with self._lock:
            emptied = self._emptied.popleft() if self._emptied and not fresh else None
        return None if emptied is None else self._after_markers(emptied)

    @staticmethod
    def _after_markers(emptied: tuple[str, int]) -> str:
        prefix, marked_ms = emptied
        while time.time_ns() // 1_000_000 <= marked_ms:
            time.sleep(0.001)
        return prefix

    def give_back(self, prefix: str, since_ns: int | None = None) -> None:
        """Empty the set ``prefix`` for the next test, whose use of it began
        at ``since_ns`` (``time.time_ns()``); drop it in the background
        instead when it is not as made, or when ``since_ns`` is None.

        Raises BackdatedCells when the test wrote a cell at a clock time
        before ``since_ns``: the set is dropped, and the test should be
        marked ``fresh_tables``."""
        if since_ns is not None:
            try:
                marked_ms = self._empty(prefix, since_ns // 1_000_000)
            except BackdatedCells:
                self._jobs.submit(self._drop, prefix)
                raise
            if marked_ms is not None:
                with self._lock:
                    self._emptied.append((prefix, marked_ms))
                return
        self._jobs.submit(self._drop, prefix)

    def _empty(self, prefix: str, since_ms: int) -> int | None:
        """Delete every row of the set; the markers' millisecond, or None
        (nothing deleted) when the set is no longer as it was made or holds
        versions as timestamps (the module's docstring says why)."""
        conn = self._connect(prefix)
        try:
            if sorted(conn.tables()) != sorted(name.encode() for name in self.schema):
                return None
            found: dict[str, list[bytes]] = {}
            newest = since_ms
            versions = False
            for name in self.schema:
                enabled = conn.is_table_enabled(name)
                if not enabled or self._shape_of(conn, name) != self._shape[name]:
                    return None
                table = conn.table(name)
                for row, cells in table.scan(
                    filter=b"KeyOnlyFilter()", include_timestamp=True, batch_size=1000
                ):
                    found.setdefault(name, []).append(row)
                    for column, (_, ts) in cells.items():
                        if ts < CLOCK_MS:
                            versions = versions or name not in VERSIONED_BY_TWIT
                        elif ts < since_ms:
                            raise BackdatedCells(
                                f"the test wrote {name} {row!r} {column!r} at {ts}, before "
                                f"its start at {since_ms}: mark it @pytest.mark.fresh_tables "
                                "(tests/tablepool.py says why)"
                            )
                        newest = max(newest, ts)
            if versions or newest > time.time_ns() // 1_000_000 + 1_000:
                return None  # markers there would hide what the next test writes
            for name, doomed in found.items():
                with conn.table(name).batch(timestamp=newest) as batch:
                    for row in doomed:
                        batch.delete(row)
            return newest
        except (OSError, TException):
            return None  # the server went away meanwhile (the outage tests)
        finally:
            conn.close()

    def close(self) -> None:
        """Stop making sets: queued jobs are abandoned with the server, and
        the running ones finish first (a few seconds at most). Emptied sets
        are left with the server, which is about to stop."""
        self._jobs.shutdown(wait=True, cancel_futures=True)


_pools: dict[tuple[str, int, str], TablePool] = {}


def pool_for(host: str, port: int, tag: str = "tb") -> TablePool:
    """The session's pool for one server (and prefix tag)."""
    key = (host, port, tag)
    if key not in _pools:
        _pools[key] = TablePool(host, port, tag)
    return _pools[key]


def close_pools(host: str, port: int) -> None:
    """Close the pools of a server about to stop."""
    for key in [k for k in _pools if k[:2] == (host, port)]:
        _pools.pop(key).close()
