"""What a write costs: a post, a like, a repost, a follow and their undoing,
each through the services, against one raw put and one raw checkAndPut in
the same run.

Every one of these writes changes counts that must stay exact when the
request is retried, or a twin of it races it (storage.ops.MarkedChange), so
each is a handful of round trips: reads, compare-and-sets, the change's
mark. The table gives each operation's median Thrift calls (counted where
happybase makes them, thriftpy2's ``TClient._req``) and its p50 and p90 in
ms; the two raw rows are the cost of one round trip of each kind, the unit
the operations are made of.

``N`` users each make each operation once, on one twit (likes, reposts) or
one followee (follows), so the counts are of an ordinary pair, not of a hot
row. The jobs a write hands to the workers (a post's fan-out, a follow's
backfill, a repost's copies into streams) are dropped: they are not the
request's cost.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from thriftpy2.thrift import TClient

from storage import ops, rows
from storage.connection import connection, table_name

from .threads import _configured

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class WriteResult:
    operation: str
    calls: float  # median Thrift calls
    p50_ms: float
    p90_ms: float


@contextmanager
def _counted() -> Iterator[list[int]]:
    """Thrift calls made while inside, in a one-item list."""
    made = [0]
    req = TClient._req

    def counting(self: TClient, api: str, *args: Any, **kwargs: Any) -> Any:
        made[0] += 1
        return req(self, api, *args, **kwargs)

    TClient._req = counting  # type: ignore[method-assign,assignment]
    try:
        yield made
    finally:
        TClient._req = req  # type: ignore[method-assign]


def run(
    host: str, port: int, users: int = 50, progress: Progress | None = None
) -> list[WriteResult]:
    from feeds import jobs, services

    report = progress or (lambda stage, done, total: None)
    with _configured(host, port):
        names = [f"writer{i:03d}" for i in range(users)]
        report("users", 0, users + 1)
        for n, userid in enumerate(["author", *names]):
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
            report("users", n + 1, users + 1)
        twit = services.post_twit("author", "the twit everyone likes and reposts")
        raw_row, column = b"bench-raw-row", rows.COUNT_TWITS
        held = [b"0"]
        with connection() as conn:
            conn.table(table_name("users")).put(raw_row, {column: held[0]})

        def raw_put(_: str) -> None:
            with connection() as conn:
                conn.table(table_name("users")).put(raw_row, {column: held[0]})

        def raw_check_and_put(_: str) -> None:
            new = b"1" if held[0] == b"0" else b"0"
            with connection() as conn:
                if not ops.check_and_put(
                    conn, table_name("users"), raw_row, column, held[0], column, new
                ):
                    raise RuntimeError("the raw checkAndPut found another value")
            held[0] = new

        cases: list[tuple[str, Callable[[str], object]]] = [
            ("raw put of one cell (1 call)", raw_put),
            ("raw checkAndPut of one cell (1 call)", raw_check_and_put),
            ("post", lambda u: services.post_twit(u, f"a twit by {u}")),
            ("like", lambda u: services.like(u, twit.id)),
            ("unlike", lambda u: services.unlike(u, twit.id)),
            ("repost", lambda u: services.repost(u, twit.id)),
            ("un-repost", lambda u: services.unrepost(u, twit.id)),
            ("follow", lambda u: services.follow(u, "author")),
            ("unfollow", lambda u: services.unfollow(u, "author")),
        ]
        results = []
        # What a worker does after the request (a post's fan-out, a follow's
        # backfill, a repost's copies) is not the request's cost.
        dispatcher = jobs.register(lambda job: None)
        try:
            report("writes", 0, len(cases) * users)
            for i, (label, write) in enumerate(cases):
                calls, times = [], []
                for userid in names:
                    with _counted() as made:
                        t0 = time.perf_counter()
                        write(userid)
                        times.append((time.perf_counter() - t0) * 1000)
                    calls.append(made[0])
                    report("writes", i * users + len(times), len(cases) * users)
                deciles = statistics.quantiles(times, n=10)
                results.append(
                    WriteResult(
                        label, statistics.median(calls), statistics.median(times), deciles[-1]
                    )
                )
        finally:
            jobs.register(dispatcher)
        return results


def format_table(results: list[WriteResult]) -> str:
    lines = [
        "| operation | Thrift calls (median) | p50 ms | p90 ms |",
        "|---|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r.operation} | {r.calls:g} | {r.p50_ms:.2f} | {r.p90_ms:.2f} |")
    return "\n".join(lines)
