"""What one Thrift call costs the server, in CPU: real HBase's JVMs, or the
local HBase server's process.

    python -m bench.callcost [--targets local,hbase] [--repeats 3] [--post-followers 10000]

A fan-out chunk is one large put and a handful of small calls (the twit's
row, the lease, the trims' scans, the progress record). On one machine the
server's CPU bounds the fan-out, so what a small call costs against a row
of the put says how much those calls can take from it. Each kind of call is
made in turn by one client (happybase) on a fresh server, after a warm-up of
the same calls; the server's CPU (every process this one started: the JVMs
or the local server) is read before and after with psutil, less what the
server burns idle over the same time. Figures are medians of ``repeats``.

A second table counts the calls of one post by an account with
``--post-followers`` followers, on a fresh local server: the post and its
whole fan-out run in this process (Celery's eager mode, so every chunk's
calls are seen here), and each Thrift call is counted by name as it leaves
this process (a call's message starts with the binary protocol's header and
the call's name), and each write to a socket as a round trip. Progress goes
to stderr; the tables to stdout.

psutil reads the CPU; no tool measures a Thrift server's CPU per call kind,
or counts a process's Thrift calls, hence this module.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import os
import re
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import happybase
import psutil

PUT_ROWS = 5_000  # a fan-out chunk (TWITBASE_FANOUT_CHUNK)
VALUE = b"x" * 150  # about a stream row's cells
TABLE = b"callcost"  # the benchmark's own, one family "cf" (not a TwitBase table)


@dataclass(frozen=True)
class Kind:
    name: str
    calls: int  # per measurement
    rows: int  # rows a call writes or reads
    make: Callable[[happybase.Table, int], object]


def _keys() -> list[bytes]:
    return [hashlib.md5(str(i).encode()).digest() for i in range(PUT_ROWS)]


KEYS = _keys()


def _put_rows(table: happybase.Table, i: int) -> None:
    with table.batch(batch_size=PUT_ROWS) as batch:
        for key in KEYS:
            batch.put(key + b"%08d" % i, {b"cf:v": VALUE})


def _scan(table: happybase.Table, i: int) -> None:
    list(table.scan(row_prefix=KEYS[i % PUT_ROWS], limit=100))


KINDS = (
    Kind(f"put of {PUT_ROWS:,} rows (mutateRows)", 10, PUT_ROWS, _put_rows),
    Kind("get of one row", 1_000, 1, lambda t, i: t.row(KEYS[i % PUT_ROWS] + b"%08d" % 0)),
    Kind("scan of a prefix (open, list, close)", 300, 1, _scan),
    Kind("put of one cell", 1_000, 1, lambda t, i: t.put(b"p", {b"cf:%d" % (i % 10): b"x"})),
    Kind("counter_inc", 1_000, 1, lambda t, i: t.counter_inc(b"c", b"cf:n")),
)


def _server_cpu() -> float:
    """CPU seconds of every process this one started (the server's)."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _idle_rate(seconds: float = 2.0) -> float:
    before = _server_cpu()
    time.sleep(seconds)
    return (_server_cpu() - before) / seconds


def _measure(table: happybase.Table, kind: Kind, first: int, idle: float) -> tuple[float, float]:
    """(wall ms a call, server CPU ms a call) over ``kind.calls`` calls."""
    cpu0, t0 = _server_cpu(), time.perf_counter()
    for i in range(first, first + kind.calls):
        kind.make(table, i)
    wall = time.perf_counter() - t0
    cpu = _server_cpu() - cpu0 - idle * wall
    return 1000 * wall / kind.calls, 1000 * max(cpu, 0.0) / kind.calls


@contextmanager
def fresh_server(target: str, work: Path) -> Iterator[int]:
    """The Thrift1 port of a fresh server."""
    if target == "local":
        from devtools.localhbase_process import LocalHBaseProcess

        with LocalHBaseProcess(work / "local") as local:
            yield local.port
    else:
        from devtools.realhbase import for_benchmarks

        with for_benchmarks(work / "hbase") as hbase:
            yield hbase.thrift_port


def run(target: str, repeats: int) -> list[tuple[str, str, float, float, float]]:
    """(target, kind, wall ms, CPU ms, CPU ms per row) per kind."""
    found = []
    with (
        tempfile.TemporaryDirectory(prefix="callcost-") as tmp,
        fresh_server(target, Path(tmp)) as port,
    ):
        conn = happybase.Connection("127.0.0.1", port, timeout=120_000)
        conn.create_table(TABLE, {"cf": {"max_versions": 1}})
        table = conn.table(TABLE)
        idle = _idle_rate()
        print(f"{target}: idle server {idle:.3f} CPU s/s", file=sys.stderr, flush=True)
        first = 0
        for kind in KINDS:
            _measure(table, kind, first, idle)  # warm-up: the JIT, caches, a first flush
            first += kind.calls
            walls, cpus = [], []
            for rep in range(repeats):
                wall, cpu = _measure(table, kind, first, idle)
                first += kind.calls
                walls.append(wall)
                cpus.append(cpu)
                print(
                    f"  {kind.name}, {rep + 1}/{repeats}: {wall:.3f} ms, server {cpu:.3f} CPU ms",
                    file=sys.stderr,
                    flush=True,
                )
            cpu = statistics.median(cpus)
            found.append((target, kind.name, statistics.median(walls), cpu, cpu / kind.rows))
        conn.close()
    return found


# A Thrift binary-protocol call: version 1, type CALL, then the name's length.
CALL = re.compile(rb"\x80\x01\x00\x01(.{4})", re.S)


@contextmanager
def _counting_sends() -> Iterator[tuple[collections.Counter[str], list[int]]]:
    """Count the Thrift calls this process sends, by name, and its socket
    writes (each flush of a request, or of a pipeline of them, is one)."""
    calls: collections.Counter[str] = collections.Counter()
    writes = [0]
    original = socket.socket.sendall

    def sendall(sock: socket.socket, data: bytes, *args: int) -> None:
        writes[0] += 1
        data = bytes(data)
        for found in CALL.finditer(data):
            size = int.from_bytes(found.group(1), "big")
            name = data[found.end() : found.end() + size]
            if 0 < size < 64 and name.isalpha():
                calls[name.decode()] += 1
        original(sock, data, *args)

    socket.socket.sendall = sendall  # type: ignore[assignment]
    try:
        yield calls, writes
    finally:
        socket.socket.sendall = original  # type: ignore[method-assign]


def count_post(followers: int) -> tuple[collections.Counter[str], int]:
    """The Thrift calls, by name, and the round trips of one post by an
    account with ``followers`` followers and its whole fan-out."""
    from bench.fanout import _configured
    from devtools.localhbase_process import LocalHBaseProcess
    from feeds import services
    from feeds.services import bulk
    from twitbase.celery import app as celery_app

    with (
        tempfile.TemporaryDirectory(prefix="callcount-") as tmp,
        LocalHBaseProcess(Path(tmp) / "local") as local,
        _configured(local.host, local.port, local.thrift2_port, "redis://127.0.0.1:1/0"),
    ):
        celery_app.conf.task_always_eager = True
        try:
            print(f"local: a star with {followers:,} followers", file=sys.stderr, flush=True)
            bulk.add_star("star", followers)
            services.post_twit("star", "warm-up")  # connections opened, lists packed
            with _counting_sends() as (calls, writes):
                services.post_twit("star", "x" * 120)
        finally:
            celery_app.conf.task_always_eager = False
    return calls, writes[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="local,hbase")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--post-followers", type=int, default=10_000)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    os.environ.setdefault("TWITBASE_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    rows = [row for target in args.targets.split(",") for row in run(target, args.repeats)]
    print("| target | call | wall ms a call | server CPU ms a call | as many rows of the put |")
    print("|---|---|---:|---:|---:|")
    for target, name, wall, cpu, _ in rows:
        put_row = next(r[4] for r in rows if r[0] == target and r[1] == KINDS[0].name)
        print(f"| {target} | {name} | {wall:.3f} | {cpu:.3f} | {cpu / put_row:,.0f} |")
    calls, writes = count_post(args.post_followers)
    print(
        f"\nOne post by an account with {args.post_followers:,} followers, and its fan-out: "
        f"{sum(calls.values())} calls in {writes} round trips\n"
    )
    print("| call | calls |")
    print("|---|---:|")
    for name, count in calls.most_common():
        print(f"| {name} | {count} |")


if __name__ == "__main__":
    main()
