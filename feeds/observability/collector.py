"""The figures of the whole stack, read when Prometheus scrapes: a custom
collector over the staff console's own services.

Two sources are read side by side, each on a thread of its own, and waited
for at most TWITBASE_METRICS_TIMEOUT_MS together:

- ``hbase``: ``console.fanout_overview()`` (the lag of the last 200
  fan-outs, the fan-out totals, every worker's last heartbeat, all in the
  ``metrics`` table) and ``console.pending_fanouts()`` (the first
  MAX_LIMIT entries of the pending index, each with its lease);
- ``broker``: ``metrics.queue_depth()``, the length of the Celery queue in Redis.

A source that fails or is late is reported as ``twitbase_scrape_source_up
0`` and its figures are left out: the scrape itself never fails for an
outage. A read still running when the next scrape comes is waited for
again, not started a second time, so a hung HBase holds one pooled
connection, not one per scrape.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from django.conf import settings
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from feeds.services import MAX_LIMIT, console, metrics

log = logging.getLogger(__name__)

T = TypeVar("T")

# The Celery queue TwitBase's tasks go to (no routes: Celery's default).
QUEUE = "celery"
# Workers are listed one by one while their last heartbeat is this recent;
# the metrics table keeps a dead worker's row for a week (its TTL).
WORKER_LISTED_S = 3600


class _Run(Generic[T]):
    """One read on a daemon thread (one that hangs never holds up an exit)."""

    def __init__(self, name: str, read: Callable[[], T]) -> None:
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None
        self.started = time.monotonic()
        self.took = 0.0
        threading.Thread(
            target=self._run, args=(read,), name=f"metrics-{name}", daemon=True
        ).start()

    def _run(self, read: Callable[[], T]) -> None:
        try:
            self.value = read()
        except BaseException as exc:  # reported as the source being down
            self.error = exc
        finally:
            self.took = time.monotonic() - self.started
            self.done.set()


class Source(Generic[T]):
    """A read of one part of the stack, at most one at a time per process."""

    def __init__(self, name: str, read: Callable[[], T]) -> None:
        self.name = name
        self._read = read
        self._lock = threading.Lock()
        self._run: _Run[T] | None = None
        self._was_up = True

    def start(self) -> _Run[T]:
        with self._lock:
            if self._run is None or self._run.done.is_set():
                self._run = _Run(self.name, self._read)
            return self._run

    def result(self, run: _Run[T], deadline: float) -> tuple[T | None, float]:
        """The value read (None if the read failed or is not done by
        ``deadline``, a time.monotonic()), and the seconds it took or has taken."""
        finished = run.done.wait(max(0.0, deadline - time.monotonic()))
        value = run.value if finished and run.error is None else None
        took = run.took if finished else time.monotonic() - run.started
        up = value is not None
        if up != self._was_up:
            if not finished:
                why = "no answer in time"
            elif run.error is not None:
                why = f"{type(run.error).__name__}: {run.error}"
            else:
                why = "no answer"
            if up:
                log.info("metrics: %s answers again", self.name)
            else:
                log.warning("metrics: %s is down for /metrics (%s)", self.name, why)
            self._was_up = up
        return value, took


def _read_hbase() -> tuple[console.FanoutOverview, console.PendingList]:
    return console.fanout_overview(), console.pending_fanouts(limit=MAX_LIMIT)


class StackCollector(Collector):
    def __init__(self) -> None:
        self.hbase: Source[tuple[console.FanoutOverview, console.PendingList]] = Source(
            "hbase", _read_hbase
        )
        self.broker: Source[int | None] = Source("broker", metrics.queue_depth)

    def collect(self) -> Iterable[Metric]:
        deadline = time.monotonic() + settings.TWITBASE_METRICS_TIMEOUT_MS / 1000
        hbase_run, broker_run = self.hbase.start(), self.broker.start()
        hbase, hbase_s = self.hbase.result(hbase_run, deadline)
        depth, broker_s = self.broker.result(broker_run, deadline)

        up = GaugeMetricFamily(
            "twitbase_scrape_source_up",
            "1 if the source answered this scrape in time, else 0 (its figures are then absent)",
            labels=["source"],
        )
        took = GaugeMetricFamily(
            "twitbase_scrape_source_duration_seconds",
            "Seconds the source's read took (or had taken when the scrape gave up on it)",
            labels=["source"],
        )
        for name, value, seconds in (("hbase", hbase, hbase_s), ("broker", depth, broker_s)):
            up.add_metric([name], 0.0 if value is None else 1.0)
            took.add_metric([name], seconds)
        yield up
        yield took
        if depth is not None:
            queue = GaugeMetricFamily(
                "twitbase_celery_queue_length",
                "Tasks waiting in the Celery queue (Redis), not yet taken by a worker",
                labels=["queue"],
            )
            queue.add_metric([QUEUE], depth)
            yield queue
        if hbase is not None:
            yield from _fanout_metrics(*hbase)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _fanout_metrics(
    overview: console.FanoutOverview, pending: console.PendingList
) -> Iterable[Metric]:
    stats = overview.stats
    yield CounterMetricFamily(
        "twitbase_fanouts",
        "Fan-outs finished, by every worker (HBase metrics table)",
        stats.fanouts,
    )
    yield CounterMetricFamily(
        "twitbase_fanout_stream_rows",
        "Stream rows written by fan-outs, by every worker",
        stats.stream_rows,
    )
    yield CounterMetricFamily(
        "twitbase_task_failures", "Background tasks that raised, by every worker", stats.failures
    )
    lag = GaugeMetricFamily(
        "twitbase_fanout_lag_seconds",
        "Time from a twit's post to its fan-out's last stream row, over the last "
        "fan-outs finished (twitbase_fanout_lag_samples of them)",
        labels=["quantile"],
    )
    for quantile, ms in (("0.5", stats.lag_p50_ms), ("0.99", stats.lag_p99_ms)):
        if ms is not None:
            lag.add_metric([quantile], ms / 1000)
    yield lag
    yield _gauge(
        "twitbase_fanout_lag_samples",
        "Finished fan-outs the lag quantiles are taken over",
        stats.recent,
    )

    items = pending.items
    yield _gauge(
        "twitbase_fanout_pending",
        f"Unfinished fan-outs, among the first {MAX_LIMIT} entries of the pending index",
        len(items),
    )
    yield _gauge(
        "twitbase_fanout_pending_more",
        f"1 if the pending index has more than the {MAX_LIMIT} entries read",
        1.0 if pending.more else 0.0,
    )
    yield _gauge(
        "twitbase_fanout_stuck",
        "Unfinished fan-outs whose lease has expired: the next sweep queues them again",
        sum(1 for item in items if item.stuck),
    )
    yield _gauge(
        "twitbase_fanout_oldest_pending_seconds",
        "Age of the oldest unfinished fan-out's twit (0: none pending)",
        max((item.age_s for item in items), default=0.0),
    )

    workers = overview.workers
    yield _gauge(
        "twitbase_workers_alive",
        f"Worker processes with a heartbeat in the last {console.WORKER_QUIET_S} s",
        sum(1 for w in workers if not w.quiet),
    )
    if workers:
        yield _gauge(
            "twitbase_worker_newest_heartbeat_age_seconds",
            "Seconds since the most recent heartbeat of any worker process",
            min(w.age_s for w in workers),
        )
    seen = GaugeMetricFamily(
        "twitbase_worker_last_seen_timestamp_seconds",
        f"When each worker process (host:pid) last wrote its heartbeat, for those "
        f"seen in the last {WORKER_LISTED_S} s",
        labels=["worker"],
    )
    for w in workers:
        if w.age_s <= WORKER_LISTED_S:
            seen.add_metric([w.name], w.last_seen.timestamp())
    yield seen


STACK = StackCollector()
