"""The local server loses no acknowledged write when it is killed with SIGKILL."""

from __future__ import annotations

import threading
from pathlib import Path

import happybase

from devtools.localhbase_process import LocalHBaseProcess
from tests.waiting import eventually


def test_kill_9_loses_no_acknowledged_write(tmp_path: Path) -> None:
    server = LocalHBaseProcess(tmp_path / "data").start()
    conn = happybase.Connection(server.host, server.port)
    conn.create_table("t", {"cf": dict(max_versions=1)})
    acknowledged: list[bytes] = []
    counted = 0
    stop = threading.Event()

    def write() -> None:
        nonlocal counted
        c = happybase.Connection(server.host, server.port)
        t = c.table("t")
        i = 0
        try:
            while not stop.is_set():
                key = b"row%08d" % i
                if i % 2:
                    t.put(key, {b"cf:v": key})
                else:
                    with t.batch() as b:
                        b.put(key, {b"cf:v": key})
                        b.put(key + b"-twin", {b"cf:v": key})
                acknowledged.append(key)
                t.counter_inc(b"counter", b"cf:n")
                counted += 1
                i += 1
        except Exception:
            return  # the server died under us: everything before is acknowledged

    writer = threading.Thread(target=write)
    writer.start()
    # Killed mid-stream, once the writer is well under way, however long a
    # loaded machine takes to get it there.
    eventually(lambda: len(acknowledged) > 300, what="300 writes acknowledged")
    server.kill()
    stop.set()
    writer.join()

    restarted = LocalHBaseProcess(tmp_path / "data").start()
    try:
        t = happybase.Connection(restarted.host, restarted.port).table("t")
        stored = {row: data[b"cf:v"] for row, data in t.scan(columns=[b"cf:v"])}
        for key in acknowledged:
            assert stored.get(key) == key
            if int(key[3:]) % 2 == 0:
                assert stored.get(key + b"-twin") == key
        # The last increment may have landed without its reply reaching us.
        assert t.counter_get(b"counter", b"cf:n") in (counted, counted + 1)
    finally:
        restarted.stop()
