"""Fresh TwitBase table sets on a real HBase, made ahead and dropped behind.

Every test on real HBase gets tables of its own (a unique prefix), and HBase
is slow at DDL: creating the 24 tables of one set takes about 7 s and
dropping them 5 s, nearly all of it waiting on the master's procedures. It
runs many procedures at once, though, and the Thrift servers' admin calls
poll for them at ``hbase.client.pause``, which devtools/realhbase.py sets
to 10 ms. Measured by ``python -m bench.ddl`` (24 sets a run), a set took
2.96 s by 4 threads polling at HBase's default 100 ms, 1.09 s by 12 threads,
and 0.87 s by 12 threads at 10 ms. So a test takes a set made while earlier
tests ran, and hands its tables back to be dropped after it, both by
background threads; the test itself waits only when the pool has fallen
behind. No library does this (pytest-xdist parallelises tests, not a
fixture's DDL), hence this module.

The sets are made from ``storage.schema.SCHEMA``, the same families
``create_tables`` gives, one region per table as in every other test.
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

import happybase

from storage.schema import SCHEMA

THREADS = 12  # parallel DDL jobs: HBase's procedures still overlap at 12
AHEAD = 8  # sets kept in the making for the tests still to come


class TablePool:
    """Table sets on the HBase at ``host:port``, taken one per test."""

    def __init__(self, host: str, port: int, tag: str = "tb") -> None:
        self.host = host
        self.port = port
        self.tag = tag
        self._jobs = ThreadPoolExecutor(THREADS, thread_name_prefix="tablepool")
        self._ready: deque[Future[str]] = deque()
        self._lock = threading.Lock()

    def _connect(self, prefix: str) -> happybase.Connection:
        return happybase.Connection(self.host, self.port, table_prefix=prefix, timeout=120_000)

    def _create(self, prefix: str) -> str:
        conn = self._connect(prefix)
        try:
            for name, families in SCHEMA.items():
                conn.create_table(name, families)
        finally:
            conn.close()
        return prefix

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

    def take(self) -> str:
        """The prefix of a complete, empty set of TwitBase tables."""
        with self._lock:
            self._fill()
            job = self._ready.popleft()
            self._fill()
        return job.result()

    def give_back(self, prefix: str) -> None:
        """Drop the set ``prefix`` in the background."""
        self._jobs.submit(self._drop, prefix)

    def close(self) -> None:
        """Stop making sets: queued jobs are abandoned with the server, and
        the running ones finish first (a few seconds at most)."""
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
