"""One real HBase for every test process of a pytest-xdist run.

Each xdist process has session fixtures of its own, so each started its own
standalone HBase (a master JVM with three RegionServers, and a Thrift1 and
a Thrift2 server): with three processes, three starts, three JIT warm-ups
and three clusters idling between their tests. Here the controller starts
one while the processes start and collect, on a thread that lives until the
run ends (the JVMs die with the thread that started them: devtools.realhbase),
writes its ports to ``hbase.json`` in a directory it hands each process
(``workerinput``), and stops it at the end. A process's ``real_hbase_cluster``
waits for that file. With no xdist (``-n 0``) the fixture starts its own.

Tests never share tables (each has its own table prefix, from its own
process's pool), so the processes share the cluster as they share a
machine. A test that stops a part of HBase starts an HBase of its own
(tests/services/test_thrift_restart.py).

pytest-xdist's documented way to run a session fixture once ("making
session-scoped fixtures execute only once") locks a file for the first
process to start it; but then that process's end would stop it under the
others, so the controller owns it here.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from pathlib import Path

from devtools.realhbase import RealHBase, fetch

READY = "hbase.json"
FAILED = "hbase-failed.txt"
KEY = "twitbase_shared_hbase"  # in each process's workerinput


def write_ready(workdir: Path, described: dict[str, object]) -> None:
    """Say HBase is ready: its description, written whole or not at all (a
    process waiting in :func:`attach` never reads half of it)."""
    ready = workdir / (READY + ".tmp")
    ready.write_text(json.dumps(described))
    ready.rename(workdir / READY)


class SharedHBase(threading.Thread):
    """Starts real HBase in ``workdir`` / "hbase", says so in ``workdir``,
    and stops it when :meth:`finish` is called."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(name="shared-hbase", daemon=True)
        self.workdir = workdir
        self._finish = threading.Event()

    def run(self) -> None:
        hbase = RealHBase(self.workdir / "hbase", verbose=False)
        try:
            fetch()
            hbase.start()
        except Exception:
            (self.workdir / FAILED).write_text(traceback.format_exc())
            return
        try:
            write_ready(self.workdir, hbase.describe())
            self._finish.wait()
        finally:
            hbase.kill()  # its data goes with the run: no orderly shutdown

    def finish(self) -> None:
        self._finish.set()
        self.join(timeout=120)


def attach(workdir: Path, timeout: float = 300.0) -> RealHBase:
    """The HBase the controller started in ``workdir``, once it is ready;
    RuntimeError with its reason if it did not start."""
    deadline = time.monotonic() + timeout
    while True:
        if (workdir / READY).exists():
            described = json.loads((workdir / READY).read_text())
            return RealHBase.attached(workdir / "hbase", described)
        if (workdir / FAILED).exists():
            raise RuntimeError(
                "the shared real HBase did not start:\n" + (workdir / FAILED).read_text()
            )
        if time.monotonic() > deadline:
            raise RuntimeError(f"the shared real HBase was not ready after {timeout:.0f} s")
        time.sleep(0.1)
