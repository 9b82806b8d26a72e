"""Tall-narrow against flat-wide for a user's twits, measured side by side.

- tall: a row per twit, ``md5(user) + rts + suffix`` (what TwitBase uses);
  the newest 20 are a prefix scan that stops after 20 rows.
- wide: a row per user, a column per twit with qualifier ``rts + suffix``
  (a blog modelled as a row per blog); Thrift1 has no column paging filter among those
  a portable client can rely on, so the newest 20 means reading the row.

For users with 10 to a few thousand twits it measures loading (cells/s),
reading the newest 20 (median ms) and bytes read per page.
"""

from __future__ import annotations

import statistics
import sys
import time
import uuid
from dataclasses import dataclass

import happybase

from storage import keys, rows

TEXT = b"x" * 120


@dataclass(frozen=True)
class SchemaResult:
    twits_per_user: int
    layout: str
    load_cells_per_s: float
    newest20_p50_ms: float
    bytes_per_page: int


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(
    host: str, port: int, sizes: tuple[int, ...], users: int = 5, reads: int = 50
) -> list[SchemaResult]:
    conn = happybase.Connection(host, port, timeout=120_000)
    prefix = "schemabench_" + uuid.uuid4().hex[:6]
    tall_name, wide_name = prefix + "_tall", prefix + "_wide"
    # Both in the twits table's family: the tall table is TwitBase's own layout.
    family = rows.TWIT.decode()
    conn.create_table(tall_name, {family: dict(max_versions=1)})
    conn.create_table(wide_name, {family: dict(max_versions=1)})
    tall, wide = conn.table(tall_name), conn.table(wide_name)
    results = []
    try:
        for n in sizes:
            uids = [f"u{n}_{i}" for i in range(users)]
            base = int(time.time() * 1000)
            # Load: the same twits both ways.
            t0 = time.perf_counter()
            with tall.batch(batch_size=2000) as b:
                for uid in uids:
                    for j in range(n):
                        b.put(keys.twit_key(uid, base - j, j.to_bytes(4, "big")), {rows.TEXT: TEXT})
            tall_load = users * n / (time.perf_counter() - t0)
            t0 = time.perf_counter()
            with wide.batch(batch_size=2000) as b:
                for uid in uids:
                    row = keys.user_hash(uid)
                    for j in range(n):
                        qualifier = keys.reverse_ts(base - j) + j.to_bytes(4, "big")
                        b.put(row, {rows.TWIT + b":" + qualifier: TEXT})
            wide_load = users * n / (time.perf_counter() - t0)

            tall_ms, wide_ms = [], []
            tall_bytes = wide_bytes = 0
            for r in range(reads):
                uid = uids[r % users]
                pre = keys.user_hash(uid)
                t0 = time.perf_counter()
                page = list(tall.scan(row_prefix=pre, limit=20, batch_size=20))
                tall_ms.append((time.perf_counter() - t0) * 1000)
                tall_bytes = sum(len(k) + len(v) for _, d in page for k, v in d.items())
                t0 = time.perf_counter()
                row = wide.row(pre)
                newest = sorted(row.items())[:20]  # qualifiers sort newest first
                wide_ms.append((time.perf_counter() - t0) * 1000)
                assert len(newest) == min(20, n)
                wide_bytes = sum(len(k) + len(v) for k, v in row.items())
            results.append(
                SchemaResult(n, "tall", tall_load, statistics.median(tall_ms), tall_bytes)
            )
            results.append(
                SchemaResult(n, "wide", wide_load, statistics.median(wide_ms), wide_bytes)
            )
            _progress(
                f"  {n:>6} twits/user: newest-20 tall {statistics.median(tall_ms):.2f} ms, "
                f"wide {statistics.median(wide_ms):.2f} ms"
            )
    finally:
        for name in (tall_name, wide_name):
            conn.delete_table(name, disable=True)
        conn.close()
    return results


def format_table(results: list[SchemaResult]) -> str:
    lines = [
        "| twits per user | layout | load (cells/s) | newest 20, p50 ms | bytes read per page |",
        "|---:|---|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.twits_per_user:,} | {r.layout} | {r.load_cells_per_s:,.0f} "
            f"| {r.newest20_p50_ms:.2f} | {r.bytes_per_page:,} |"
        )
    return "\n".join(lines)
