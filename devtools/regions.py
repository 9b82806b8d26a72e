"""Where a table's writes went, from HBase's own region metrics.

Each RegionServer reports per-region counters (write and read requests,
store file and memstore sizes) to the master every
``hbase.regionserver.msginterval``; the Java Admin API reads them back as
ClusterMetrics. Thrift exposes none of this, so ``java/RegionLoad.java`` is
compiled (once, into ``hbase/target/regionload``) against the jars Maven
fetched and run with the real HBase's ZooKeeper address; it prints JSON,
parsed here. Used by the region-spread test.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devtools.realhbase import LIB_DIR, TARGET_DIR, RealHBase, RealHBaseError

SOURCE = Path(__file__).with_name("java") / "RegionLoad.java"
CLASSES = TARGET_DIR / "regionload"


@dataclass(frozen=True)
class RegionLoad:
    server: str
    region: str
    start: bytes
    writes: int
    reads: int


def _compiled() -> Path:
    stamp = CLASSES / "RegionLoad.class"
    if not stamp.exists() or stamp.stat().st_mtime < SOURCE.stat().st_mtime:
        CLASSES.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["javac", "-d", str(CLASSES), "-cp", f"{LIB_DIR}/*", str(SOURCE)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            raise RealHBaseError(f"javac RegionLoad.java failed:\n{done.stderr[-2000:]}")
    return CLASSES


def region_loads(hbase: RealHBase, tables: Sequence[str]) -> dict[str, list[RegionLoad]]:
    """Every region of each of ``tables`` with the metrics its server last
    reported, in start-key order: one JVM for them all, since each JVM
    started costs seconds of CPU."""
    done = subprocess.run(
        [
            "java",
            "-Xmx128m",
            "-cp",
            f"{_compiled()}:{LIB_DIR}/*",
            "RegionLoad",
            hbase.host,
            str(hbase.ports["zookeeper"]),
            *tables,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RealHBaseError(f"RegionLoad {' '.join(tables)} failed:\n{done.stderr[-2000:]}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        table: sorted(
            (
                RegionLoad(
                    r["server"], r["region"], bytes.fromhex(r["start"]), r["writes"], r["reads"]
                )
                for r in raw[table]["regions"]
            ),
            key=lambda r: r.start,
        )
        for table in tables
    }


def settled_loads(
    hbase: RealHBase, tables: Sequence[str], expected_writes: int, timeout: float = 30.0
) -> dict[str, list[RegionLoad]]:
    """:func:`region_loads` once the servers have reported at least
    ``expected_writes`` writes in all to each table (reports lag by a
    heartbeat or two)."""
    deadline = time.monotonic() + timeout
    while True:
        loads = region_loads(hbase, tables)
        settled = all(sum(r.writes for r in found) >= expected_writes for found in loads.values())
        if settled or time.monotonic() > deadline:
            return loads
        time.sleep(0.5)


def by_server(loads: list[RegionLoad]) -> Counter[str]:
    """Writes per RegionServer."""
    counts: Counter[str] = Counter()
    for r in loads:
        counts[r.server] += r.writes
    return counts
