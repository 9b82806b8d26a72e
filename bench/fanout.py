"""Fan-out benchmark: Celery workers writing streams, against raw batched puts.

On one server (local or real HBase), with a real Redis and real worker
processes, it measures:

- fan-out throughput: stream rows written per second by 1, 2 and 4 worker
  processes for twits of an account with ``star_followers`` followers,
  against raw batched puts of the same rows into the same server by one
  process (the limit for writing them at all: keys made before the clock
  starts, one mutateRowsTs per chunk with each cell's Mutation shared by
  its rows, the cheapest way happybase's client can send them). That raw
  writes 10,000 rows at a time, and is timed before the flushes and
  compactions they cause; so it is also measured writing a fan-out run's
  whole volume (``posts`` twits' rows) back to back, timed through its own,
  by one process and by two at once (half the twits each): whether one
  writer is the server's limit, or two write more;
- post-to-visible latency for that account: from the post to the last
  follower's stream row (the lag the finishing chunk records), p50 and p99;
- home-stream read latency (first page of 20), p50 and p99, for readers of
  a power-law graph, and for readers who follow a large account whose twits
  are merged at read time instead of fanned out;
- with ``full_streams``, all of that with each of the star's followers'
  streams holding TWITBASE_STREAM_MAX older rows first: the steady state
  of a running service, where a trim reads at least that many keys (on
  fresh streams a trim reads a handful, and costs little but its round
  trips). After the fill it waits for the machine to go quiet, the server
  having flushed and compacted the fill, as a running service's would have;
- with ``large_followers``, post-to-visible for an account that large
  (listed as a large account, so merged at read time, not fanned out)
  against an account with no followers, posting in turn.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import happybase
import psutil
from django.conf import settings

from devtools.processes import CeleryWorkerProcess, RedisProcess
from feeds import services
from feeds.services import bulk, metrics
from storage import keys, ops, rows
from storage.connection import connection, reset_pool, table_name
from storage.schema import create_tables
from twitbase.celery import app as celery_app
from twitbase.celery import use_broker


@dataclass(frozen=True)
class Row:
    target: str
    measure: str
    value: float
    unit: str
    note: str = ""


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def _wait(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _pending(twit_ids: list[str]) -> bool:
    with connection() as conn:
        found = conn.table(table_name("twits")).rows(
            [keys.twit_key_from_id(t) for t in twit_ids], columns=[rows.FANOUT]
        )
    return any(rows.FANOUT in data for _, data in found)


def list_large_account(userid: str) -> None:
    """List ``userid`` as a large account a day ago: past the grace in which
    a newly listed account's twits are still fanned out
    (fanout.still_fanned_out), so its twits are merged at read time."""
    with connection() as conn:
        conn.table(table_name("celebrities")).put(
            keys.user_key(userid),
            rows.encode_celebrity(userid),
            timestamp=int(time.time() * 1000) - 86_400_000,
        )


@contextmanager
def _configured(host: str, port: int, thrift2_port: int, broker: str) -> Iterator[str]:
    """Point this process at the server and broker, with tables of a fresh
    prefix, made as a deployment makes them: with the Thrift2 port, the
    tables keyed by a hash are pre-split (storage.schema.create_tables). On
    one region, a split of the streams table under the load stalls its
    writers while it runs."""
    prefix = "fb" + uuid.uuid4().hex[:8]
    saved = {
        k: getattr(settings, k)
        for k in (
            "TWITBASE_HBASE_HOST",
            "TWITBASE_HBASE_PORT",
            "TWITBASE_HBASE_THRIFT2_PORT",
            "TWITBASE_TABLE_PREFIX",
            "CELERY_BROKER_URL",
            "TWITBASE_POSTS_PER_MINUTE",
        )
    }
    settings.TWITBASE_HBASE_HOST, settings.TWITBASE_HBASE_PORT = host, port
    settings.TWITBASE_HBASE_THRIFT2_PORT = thrift2_port
    settings.TWITBASE_TABLE_PREFIX = prefix
    settings.CELERY_BROKER_URL = broker
    settings.TWITBASE_POSTS_PER_MINUTE = 1_000_000
    use_broker(broker)
    celery_app.conf.task_always_eager = False
    reset_pool()
    with connection() as conn:
        create_tables(conn)
    try:
        yield prefix
    finally:
        for k, v in saved.items():
            setattr(settings, k, v)
        reset_pool()


def run(
    target: str,
    host: str,
    port: int,
    thrift2_port: int,
    workdir: Path,
    *,
    star_followers: int = 10_000,
    posts: int = 3,
    latency_posts: int = 10,
    graph_users: int = 2_000,
    reads: int = 200,
    worker_counts: tuple[int, ...] = (1, 2, 4),
    large_followers: int = 0,
    full_streams: bool = False,
) -> list[Row]:
    results: list[Row] = []
    with (
        RedisProcess(workdir / f"redis-{target}") as redis,
        _configured(host, port, thrift2_port, redis.url) as prefix,
    ):
        env = {
            "TWITBASE_HBASE_HOST": host,
            "TWITBASE_HBASE_PORT": str(port),
            "TWITBASE_HBASE_THRIFT2_PORT": str(thrift2_port),
            "TWITBASE_TABLE_PREFIX": prefix,
            "CELERY_BROKER_URL": redis.url,
            "TWITBASE_LOG_LEVEL": "WARNING",
        }
        _progress(
            f"{target}: loading a {graph_users:,}-user power-law graph "
            f"and a star with {star_followers:,} followers"
        )
        bulk.load_demo(graph_users, graph_users * 2, seed=7)
        fans = bulk.add_star("star", star_followers)
        text = "x" * 120
        if full_streams:
            _fill_streams(fans, text)
            _settle()

        # Raw: the same stream rows, batched puts from one process, before
        # the workers run and again after (a server warming up, or flushing
        # and compacting what the load wrote, moves a single measurement).
        twit = keys.twit_key("star", int(time.time() * 1000), b"raw0")
        cells = rows.encode_stream(rows.TwitRow("star", "Star", text, 0))
        raw_rates = _raw_rates(fans, twit, cells, first_rep=0)
        _progress(f"  raw batched puts, before: {statistics.median(raw_rates):,.0f} rows/s")
        volume = statistics.median(_raw_volume_rate(fans, cells, posts, rep) for rep in (0, 1))
        _progress(f"  raw batched puts, a fan-out's volume: {volume:,.0f} rows/s")
        pair = statistics.median(_raw_pair_rate(fans, cells, posts, rep) for rep in (2, 3))
        _progress(f"  raw batched puts, a fan-out's volume, 2 processes: {pair:,.0f} rows/s")
        _settle()  # its flushes and compactions are not the first phase's

        fanned: list[tuple[int, float]] = []
        for count in worker_counts:
            worker = CeleryWorkerProcess(
                env,
                workdir / f"worker-{target}-{count}.log",
                concurrency=count,
                name=f"bench{count}",
            ).start()
            try:
                services.post_twit("star", "warm-up")
                _wait(
                    lambda: celery_queue_empty(redis.url) and not _pending_any(),
                    600,
                    "warm-up fan-out",
                )
                rates = []
                for _ in range(2):
                    t0 = time.time()
                    ids = [services.post_twit("star", text).id for _ in range(posts)]
                    _wait(partial(_done, ids), 900, "fan-out")
                    # Until the last fan-out finished, as its finishing chunk
                    # recorded it, not until the poll saw it (up to 50 ms later).
                    rates.append(posts * (star_followers + 1) / (_last_finish_s() - t0))
                rate = statistics.median(rates)
            finally:
                worker.stop()
            fanned.append((count, rate))
            _progress(f"  fan-out with {count} worker(s): {rate:,.0f} rows/s")

        raw_rates += _raw_rates(fans, twit, cells, first_rep=len(raw_rates))
        raw = statistics.median(raw_rates)
        _progress(f"  raw batched puts, before and after: {raw:,.0f} rows/s")
        results.append(
            Row(
                target,
                "raw batched puts, 1 process",
                raw,
                "rows/s",
                f"{len(fans):,} rows x {len(raw_rates)} (half before the workers, "
                f"half after), batches of {settings.TWITBASE_FANOUT_CHUNK}",
            )
        )
        results.append(
            Row(
                target,
                "raw batched puts, a fan-out's volume, 1 process",
                volume,
                "rows/s",
                f"{posts} twits x {len(fans):,} streams back to back, x2: "
                "timed through the flushes and compactions that volume brings",
            )
        )
        results.append(
            Row(
                target,
                "raw batched puts, a fan-out's volume, 2 processes",
                pair,
                "rows/s",
                f"the same volume, half the twits each, at once, x2: "
                f"{100 * pair / volume:.0f}% of 1 process",
            )
        )
        full_note = f"; streams full ({settings.TWITBASE_STREAM_MAX:,})" if full_streams else ""
        results += [
            Row(
                target,
                f"fan-out, {count} worker process(es)",
                rate,
                "rows/s",
                f"{100 * rate / raw:.0f}% of raw, {100 * rate / volume:.0f}% of raw at its "
                f"volume, {100 * rate / pair:.0f}% of 2 raw processes" + full_note,
            )
            for count, rate in fanned
        ]

        worker = CeleryWorkerProcess(
            env, workdir / f"worker-{target}-lat.log", concurrency=2, name="benchlat"
        ).start()
        try:
            # A worker's first task opens its connections: warm it up as the
            # throughput runs do, so the lags are of a running service.
            services.post_twit("star", "warm-up")
            _wait(lambda: celery_queue_empty(redis.url) and not _pending_any(), 600, "warm-up")
            lags = []
            for _ in range(latency_posts):
                tid = services.post_twit("star", text).id
                _wait(partial(_done, [tid]), 600, "fan-out")
                lags.append(_last_recorded_lag())
            _progress(
                "  post-to-visible, ms, in posting order: " + " ".join(f"{x:.0f}" for x in lags)
            )
            results.append(
                Row(
                    target,
                    f"post-to-visible, {star_followers:,} followers, p50",
                    statistics.median(lags),
                    "ms",
                    f"{latency_posts} posts, 2 workers",
                )
            )
            results.append(
                Row(
                    target,
                    f"post-to-visible, {star_followers:,} followers, p99",
                    _pct(lags, 0.99),
                    "ms",
                    "",
                )
            )
            _progress(f"  post-to-visible p50 {statistics.median(lags):.0f} ms")

            rng = random.Random(3)
            normal = [bulk.demo_userid(rng.randrange(graph_users)) for _ in range(reads)]
            results += _read_rows(target, "home stream, power-law readers", normal)
            with connection() as conn:
                conn.table(table_name("celebrities")).put(
                    keys.user_key("star"), rows.encode_celebrity("star")
                )
            merged = [rng.choice(fans) for _ in range(reads)]
            results += _read_rows(
                target, "home stream, readers of a large account (merged)", merged
            )
            if large_followers:
                results += _large_account_rows(target, large_followers, latency_posts)
        finally:
            worker.stop()
    return results


def _raw_rates(
    fans: list[str], twit: bytes, cells: dict[bytes, bytes], first_rep: int
) -> list[float]:
    """Rows/s of three raw writes of the fans' stream rows of ``twit``: the
    cheapest way to write them, a mutateRowsTs per chunk with each cell's
    Mutation shared by its rows, as the workers write; keys made before the
    clock starts. Each rep writes other rows (``first_rep`` on)."""
    rates = []
    for rep in range(first_rep, first_rep + 3):
        stream_keys = [keys.stream_key(f, twit[:-1] + bytes([rep])) for f in fans]
        ms = int(time.time() * 1000)
        t0 = time.perf_counter()
        with connection() as conn:
            _put_by_chunk(conn, stream_keys, cells, ms)
        rates.append(len(fans) / (time.perf_counter() - t0))
    return rates


def _raw_volume_rate(fans: list[str], cells: dict[bytes, bytes], posts: int, rep: int) -> float:
    """Rows/s of one process writing what one timed run of a fan-out phase
    writes: ``posts`` twits' stream rows for every fan, back to back, the
    way :func:`_raw_rates` writes one twit's. Those short writes end before
    the flushes and compactions they cause begin; a fan-out run, and this,
    are timed through those of their own volume. Keys made before the clock
    starts; each ``rep`` writes other rows."""
    ms = int(time.time() * 1000)
    twits = [
        keys.twit_key("star", ms - i, b"v" + bytes([rep]) + i.to_bytes(2, "big"))
        for i in range(posts)
    ]
    by_twit = [[keys.stream_key(f, t) for f in fans] for t in twits]
    t0 = time.perf_counter()
    with connection() as conn:
        for stream_keys in by_twit:
            _put_by_chunk(conn, stream_keys, cells, ms)
    return posts * len(fans) / (time.perf_counter() - t0)


def _raw_pair_rate(fans: list[str], cells: dict[bytes, bytes], posts: int, rep: int) -> float:
    """Rows/s of two processes writing together what :func:`_raw_volume_rate`
    writes alone, half the twits each (the first the odd one out): the most
    two writers, as two workers are, get the server to take. Each makes its
    keys, then waits for the other; the clock runs from the first start to
    the last end (CLOCK_MONOTONIC, shared by the processes)."""
    ms = int(time.time() * 1000)
    twits = [
        keys.twit_key("star", ms - i, b"p" + bytes([rep]) + i.to_bytes(2, "big"))
        for i in range(posts)
    ]
    ctx = mp.get_context("fork")  # the child inherits Django's settings as set
    barrier = ctx.Barrier(2)
    spans = ctx.Queue()
    halves = [twits[: (posts + 1) // 2], twits[(posts + 1) // 2 :]]
    procs = [
        ctx.Process(target=_raw_writer, args=(fans, half, cells, ms, barrier, spans))
        for half in halves
    ]
    for p in procs:
        p.start()
    got = [spans.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    failed = [g for g in got if isinstance(g, str)]
    if failed:
        raise RuntimeError("; ".join(failed))
    spans_s: list[tuple[float, float]] = got
    return posts * len(fans) / (max(e for _, e in spans_s) - min(s for s, _ in spans_s))


def _raw_writer(
    fans: list[str],
    twits: list[bytes],
    cells: dict[bytes, bytes],
    ms: int,
    barrier: Any,
    spans: Any,
) -> None:
    """One of :func:`_raw_pair_rate`'s writers, in a forked process."""
    try:
        reset_pool()  # the parent's connections are the parent's
        by_twit = [[keys.stream_key(f, t) for f in fans] for t in twits]
        with connection() as conn:
            conn.table(table_name("streams")).row(b"\0")  # connected before the clock
            barrier.wait(timeout=600)
            start = time.monotonic()
            for stream_keys in by_twit:
                _put_by_chunk(conn, stream_keys, cells, ms)
            spans.put((start, time.monotonic()))
    except BaseException as e:
        barrier.abort()  # the other writer stops waiting
        spans.put(f"raw writer {os.getpid()}: {e!r}")
        raise


def _put_by_chunk(
    conn: happybase.Connection, stream_keys: list[bytes], cells: dict[bytes, bytes], ms: int
) -> None:
    """The stream rows, a mutateRowsTs per TWITBASE_FANOUT_CHUNK of them."""
    size = settings.TWITBASE_FANOUT_CHUNK
    for i in range(0, len(stream_keys), size):
        ops.put_rows_alike(conn, table_name("streams"), stream_keys[i : i + size], cells, ms)


def _settle(quiet_pct: float = 10.0, quiet_s: int = 3, timeout: float = 300) -> None:
    """Wait until the machine is quiet (below ``quiet_pct`` of its CPU for
    ``quiet_s`` seconds in a row): the server has flushed and compacted
    what the fill wrote. A running service's streams filled over days, not
    in the seconds before the workers start; without this, the first
    phases measure the fill's flushes and compactions."""
    started = time.monotonic()
    quiet = 0
    psutil.cpu_percent()
    while quiet < quiet_s:
        time.sleep(1)
        busy = psutil.cpu_percent()
        quiet = quiet + 1 if busy < quiet_pct else 0
        waited = time.monotonic() - started
        _progress(f"    letting the server settle: machine {busy:.0f}% busy ({waited:.0f} s)")
        if waited > timeout:
            _progress("    the server did not settle; measuring anyway")
            return


def _fill_streams(fans: list[str], text: str) -> None:
    """TWITBASE_STREAM_MAX rows in each fan's stream, of twits a day old and
    older, written as the raw writer writes (a mutateRowsTs per chunk)."""
    count: int = settings.TWITBASE_STREAM_MAX
    readers = [keys.user_hash(f) for f in fans]
    cells = rows.encode_stream(rows.TwitRow("filler", "Filler", text, 0))
    day_ago = int(time.time() * 1000) - 86_400_000
    started = time.monotonic()
    _progress(f"  filling {len(fans):,} streams with {count:,} rows each")
    with connection() as conn:
        for n in range(count):
            ms = day_ago - n * 1000
            tail = keys.stream_key_tail(keys.twit_key("filler", ms, n.to_bytes(4, "big")))
            _put_by_chunk(conn, [r + tail for r in readers], cells, ms)
            if (n + 1) % 100 == 0:
                _progress(
                    f"    {(n + 1) * len(fans):,}/{count * len(fans):,} rows "
                    f"({time.monotonic() - started:.0f} s)"
                )


def _large_account_rows(target: str, followers: int, posts: int) -> list[Row]:
    """Post-to-visible for an account with ``followers`` followers, merged at
    read time, against one with none: ``posts`` each, in turn."""
    _progress(f"{target}: adding an account with {followers:,} followers (bulk)")
    started = time.monotonic()

    def report(stage: str, done: int, total: int) -> None:
        if done % 100_000 == 0 or done == total:
            _progress(f"  {stage}: {done:,}/{total:,} ({time.monotonic() - started:.0f} s)")

    bulk.add_star("large", followers, prefix="lf", progress=report)
    bulk.add_star("lonely", 0)
    list_large_account("large")
    lags: dict[str, list[float]] = {"large": [], "lonely": []}
    for _ in range(posts):
        for author, found in lags.items():
            tid = services.post_twit(author, "x" * 120).id
            _wait(partial(_done, [tid]), 600, "fan-out")
            found.append(_last_recorded_lag())
    big, none = statistics.median(lags["large"]), statistics.median(lags["lonely"])
    _progress(
        f"  post-to-visible p50: {big:.0f} ms with {followers:,} followers, {none:.0f} ms with none"
    )
    return [
        Row(
            target,
            f"post-to-visible, {followers:,} followers (merged), p50",
            big,
            "ms",
            f"{big / none:.2f}x no followers" if none else "",
        ),
        Row(
            target,
            f"post-to-visible, {followers:,} followers (merged), p99",
            _pct(lags["large"], 0.99),
            "ms",
            "",
        ),
        Row(
            target, "post-to-visible, no followers, p50", none, "ms", f"{posts} posts each, in turn"
        ),
        Row(target, "post-to-visible, no followers, p99", _pct(lags["lonely"], 0.99), "ms", ""),
    ]


def _done(twit_ids: list[str]) -> bool:
    return not _pending(twit_ids)


def celery_queue_empty(url: str) -> bool:
    import redis

    return int(redis.Redis.from_url(url).llen("celery")) == 0


def _pending_any() -> bool:
    with connection() as conn:
        return any(
            True for _ in conn.table(table_name("twits")).scan(columns=[rows.FANOUT], limit=1)
        )


def _last_finish_s() -> float:
    """When the newest fan-out finished (epoch seconds): the time in the key
    of the lag row its finishing chunk wrote, to the millisecond."""
    with connection() as conn:
        found = conn.table(table_name("metrics")).scan(row_prefix=metrics.LAG_PREFIX, limit=1)
        key = next(iter(found))[0]
    stamp = key[len(metrics.LAG_PREFIX) : len(metrics.LAG_PREFIX) + keys.RTS_LEN]
    return keys.millis_from_rts(stamp) / 1000


def _last_recorded_lag() -> float:
    """The newest fan-out lag the finishing chunk recorded: from the twit's
    timestamp (taken as post_twit stores it) to the last follower's row."""
    stats = metrics.fanout_stats(recent=1)
    assert stats.lag_p50_ms is not None
    return float(stats.lag_p50_ms)


def _read_rows(target: str, label: str, readers: list[str]) -> list[Row]:
    lat = []
    for reader in readers:
        t0 = time.perf_counter()
        page = services.home_stream(reader, limit=20)
        lat.append((time.perf_counter() - t0) * 1000)
        assert page.items, f"{reader}'s stream is empty"
    _progress(f"  {label}: p50 {statistics.median(lat):.2f} ms")
    return [
        Row(target, f"{label}, p50", statistics.median(lat), "ms", f"{len(readers)} reads"),
        Row(target, f"{label}, p99", _pct(lat, 0.99), "ms", ""),
    ]


def format_table(rows: list[Row]) -> str:
    lines = ["| target | measure | value | unit | note |", "|---|---|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r.target} | {r.measure} | {r.value:,.1f} | {r.unit} | {r.note} |")
    return "\n".join(lines)
