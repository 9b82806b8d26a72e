"""Thrift2 against Thrift1 on the local HBase server: the same reads and
writes through each API, microseconds per call (median of 3 runs).

The Thrift2 calls go through the store paths the Thrift1 calls use, so they
should cost no more; this prints the figures that say so::

    python -m bench.thrift2 [--calls 1000]

It starts its own local server (both ports) in a temporary directory.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from thriftpy2.rpc import make_client

from devtools.localhbase_process import LocalHBaseProcess
from localhbase.server import T
from localhbase.thrift2 import T2

TABLE = b"bench_thrift2"


def per_call_us(calls: int, call: Callable[[int], object]) -> float:
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        for i in range(calls):
            call(i)
        runs.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per run (default 1000)")
    n = parser.parse_args().calls
    with (
        tempfile.TemporaryDirectory() as tmp,
        LocalHBaseProcess(Path(tmp) / "data") as proc,
    ):
        t1 = make_client(T.Hbase, proc.host, proc.port, timeout=60_000)
        t2 = make_client(T2.THBaseService, proc.host, proc.thrift2_port, timeout=60_000)
        t1.createTable(TABLE, [T.ColumnDescriptor(name=b"bf:")])
        value = b"v" * 20

        def put1(i: int) -> None:
            muts = [T.Mutation(column=b"bf:q%d" % j, value=value) for j in range(5)]
            t1.mutateRow(TABLE, b"row%06d" % i, muts, None)

        def put2(i: int) -> None:
            cvs = [T2.TColumnValue(b"bf", b"q%d" % j, value) for j in range(5)]
            t2.put(TABLE, T2.TPut(row=b"row%06d" % i, columnValues=cvs))

        def scan1(_: int) -> None:
            sid = t1.scannerOpenWithScan(TABLE, T.TScan(), None)
            t1.scannerGetList(sid, n)
            t1.scannerClose(sid)

        rows = [
            ("put, 5 cells", n, put1, put2),
            (
                "get a row",
                n,
                lambda i: t1.getRow(TABLE, b"row%06d" % i, None),
                lambda i: t2.get(TABLE, T2.TGet(row=b"row%06d" % i)),
            ),
            (
                f"scan {n} rows",
                20,
                scan1,
                lambda _: t2.getScannerResults(TABLE, T2.TScan(), n),
            ),
        ]
        print(f"{'call':<20}{'times':>7}{'Thrift1 us':>12}{'Thrift2 us':>12}")
        for label, times, one, two in rows:
            a, b = per_call_us(times, one), per_call_us(times, two)
            print(f"{label:<20}{times:>7}{a:>12.0f}{b:>12.0f}")
        t1.close()
        t2.close()


if __name__ == "__main__":
    main()
