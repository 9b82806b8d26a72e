"""Table DDL on real HBase: how fast sets of TwitBase's tables are made and
dropped, by how many threads, with the Thrift servers' admin polling at
HBase's default ``hbase.client.pause`` (100 ms) and at the 10 ms
devtools/realhbase.py sets.

This is the work the test suite's table pool (tests/tablepool.py) does for
every test on real HBase, so it bounds that half of the suite::

    python -m bench.ddl [--sets 24] [--threads 4,12] [--pause 100,10]

Each pause starts a fresh HBase (standalone, 3 RegionServers); each thread
count then makes and drops ``--sets`` sets of the 23 tables, every set by
one thread, as the pool does. One row per run, after a warm-up set; progress
goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import happybase

from devtools.realhbase import RealHBase
from storage.schema import SCHEMA


def make_and_drop(port: int) -> tuple[float, float]:
    """One set: create every table, then drop them all; the seconds of each."""
    conn = happybase.Connection(
        "127.0.0.1", port, table_prefix="d" + uuid.uuid4().hex[:10], timeout=120_000
    )
    try:
        start = time.monotonic()
        for name, families in SCHEMA.items():
            conn.create_table(name, families)
        made = time.monotonic()
        for table in conn.tables():
            conn.delete_table(table, disable=True)
        return made - start, time.monotonic() - made
    finally:
        conn.close()


def run(port: int, sets: int, threads: int) -> tuple[float, float, float]:
    """(wall seconds for all sets, median create s, median drop s)."""
    start = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        times = []
        for i, t in enumerate(pool.map(lambda _: make_and_drop(port), range(sets)), 1):
            times.append(t)
            print(f"\r  {i}/{sets} sets", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    creates = sorted(c for c, _ in times)
    drops = sorted(d for _, d in times)
    return time.monotonic() - start, creates[len(creates) // 2], drops[len(drops) // 2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=24)
    parser.add_argument("--threads", default="4,12", help="comma-separated thread counts")
    parser.add_argument("--pause", default="100,10", help="comma-separated hbase.client.pause ms")
    args = parser.parse_args(argv)
    rows = []
    for pause in args.pause.split(","):
        print(f"==> HBase with hbase.client.pause={pause}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as work:
            hbase = RealHBase(Path(work), site={"hbase.client.pause": pause}, verbose=False)
            with hbase:
                port = hbase.thrift_port
                make_and_drop(port)  # warm-up: the JVMs' first DDL is slower
                for threads in (int(t) for t in args.threads.split(",")):
                    print(f"==> {args.sets} sets by {threads} threads", file=sys.stderr)
                    wall, create, drop = run(port, args.sets, threads)
                    rows.append((pause, threads, wall, wall / args.sets, create, drop))
    print(f"{len(SCHEMA)} tables a set, {args.sets} sets a run\n")
    print("| hbase.client.pause ms | threads | all sets s | s a set | create p50 s | drop p50 s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for pause, threads, wall, per_set, create, drop in rows:
        print(f"| {pause} | {threads} | {wall:.1f} | {per_set:.2f} | {create:.2f} | {drop:.2f} |")


if __name__ == "__main__":
    main()
